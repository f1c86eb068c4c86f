/* dos_sandbox.c — mcfi_dos_read (dos.h): results.h5 read through the bounded opener, its
 * digest checked (mcfe_results_h5_load), then parsed by HDF5 (mcfi_dos_parse, dos_h5.c) in
 * a child process whose result comes back through a pipe.
 *
 * Why a child.  The digest shows that a file is whole as mcf wrote it; it cannot show who
 * computed it.  libhdf5 1.10.8 crashes and spins on damaged files (issue 42: 13 crashes and
 * 12 hangs in ~90k fuzzed files), and a file damaged and then sealed again reaches it: in
 * 350 such files (a few random bytes changed, the digest recomputed) `mcf dos` died twice by
 * SIGSEGV and hung once.  In the child such a file costs the child: the parent sees a
 * signal, a limit or a broken message and refuses the file by name, never crashing or
 * hanging itself, and keeps the folder's lock in its own hands.
 *
 * The child's limits: CPU time 60 s + 1 s per 8 MiB of the file (RLIMIT_CPU: a spin ends in
 * SIGXCPU), and the same again in wall-clock time, after which the parent kills it (a child
 * that sleeps); its address space 2 GiB + 16 times the file (RLIMIT_AS; every extent the
 * reader allocates is bounded by the file's size, HDF5 holds one copy of the image) — left
 * out under AddressSanitizer, whose shadow memory reserves terabytes of address space.
 *
 * The message, in native byte order (one program on one machine): a 32-bit magic, the
 * status (MCF_OK or an MCF_E* code), then for an error its text, for success the fields of
 * mcfi_dos_input (numbers as 64-bit words, texts and arrays with their lengths).  The parent
 * checks every length against what is left of the message before it allocates. */
#define _POSIX_C_SOURCE 200809L
#include "dos.h"

#include "mcf_engine.h"

#include "mcf/error.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define DOS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DOS_ASAN 1
#endif
#endif

#define MSG_MAGIC 0x6d636664u /* "mcfd" */

static int in_child = 1;

void mcfi_dos_parse_in_child(int on) { in_child = on; }

/* ---- the message: a growing buffer (child) and a cursor over it (parent) -------------- */

typedef struct buf {
    unsigned char *p;
    size_t len, cap;
    int failed;
} buf;

static void put(buf *b, const void *x, size_t n)
{
    if (b->failed || n == 0)
        return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n && cap <= SIZE_MAX / 2)
            cap *= 2;
        unsigned char *g = cap >= b->len + n ? realloc(b->p, cap) : NULL;
        if (!g) {
            b->failed = 1;
            return;
        }
        b->p = g;
        b->cap = cap;
    }
    memcpy(b->p + b->len, x, n);
    b->len += n;
}

static void put_u64(buf *b, uint64_t v) { put(b, &v, sizeof v); }

static void put_text(buf *b, const char *s)
{
    const uint64_t n = s ? strlen(s) : UINT64_MAX; /* UINT64_MAX: NULL */
    put_u64(b, n);
    if (s)
        put(b, s, (size_t)n);
}

static void put_curve(buf *b, const mcfi_dos_curve *c, size_t bins)
{
    put_text(b, c->name);
    put_u64(b, c->rows);
    put(b, c->chain, c->chain ? c->rows * sizeof *c->chain : 0);
    put_u64(b, c->bins != NULL);
    put(b, c->bins, c->bins ? c->rows * bins * sizeof *c->bins : 0);
}

static void put_input(buf *b, const mcfi_dos_input *in)
{
    put_text(b, in->evaluator);
    const uint64_t sizes[5] = {in->chains, in->bins, in->walkers, in->points, in->n_scan};
    put(b, sizes, sizeof sizes);
    put(b, in->point, in->chains * sizeof *in->point);
    put(b, in->weights, in->chains * in->bins * sizeof *in->weights);
    for (size_t j = 0; j < in->n_scan; j++)
        put_text(b, in->scan_names[j]);
    for (size_t j = 0; j < in->n_scan * in->points; j++)
        put_text(b, in->scan_values[j]);
    put_u64(b, in->n_moments);
    for (size_t k = 0; k < in->n_moments; k++) {
        put_curve(b, &in->moments[k], in->bins);
        put_curve(b, &in->density[k], in->bins);
    }
    put_curve(b, &in->scale, in->bins);
    put_u64(b, in->n_geometric);
    for (size_t j = 0; j < in->n_geometric; j++)
        put_text(b, in->geometric[j]);
    put_u64(b, in->n_response);
    for (size_t k = 0; k < in->n_response; k++)
        put_curve(b, &in->response[k], in->bins);
    put_u64(b, in->n_spectral);
    for (size_t k = 0; k < in->n_spectral; k++)
        put_curve(b, &in->spectral[k], in->bins);
}

typedef struct cur {
    const unsigned char *p;
    size_t left;
    int bad;
} cur;

/* n bytes of the message into x (zeroed when there are not that many left) */
static void get(cur *c, void *x, size_t n)
{
    if (c->bad || n > c->left) {
        c->bad = 1;
        memset(x, 0, n);
        return;
    }
    memcpy(x, c->p, n);
    c->p += n;
    c->left -= n;
}

static uint64_t get_u64(cur *c)
{
    uint64_t v;
    get(c, &v, sizeof v);
    return v;
}

/* a count of items of `size` bytes that the rest of the message can hold, else 0 and bad */
static size_t get_count(cur *c, size_t size)
{
    const uint64_t n = get_u64(c);
    if (c->bad || (size && n > c->left / size) || n > SIZE_MAX / 2) {
        c->bad = 1;
        return 0;
    }
    return (size_t)n;
}

/* n items of `size` bytes, malloc'd (NULL for none or on failure) */
static void *get_array(cur *c, size_t n, size_t size)
{
    if (c->bad || n == 0)
        return NULL;
    if (n > c->left / size) {
        c->bad = 1;
        return NULL;
    }
    void *x = malloc(n * size);
    if (!x) {
        c->bad = 1;
        return NULL;
    }
    get(c, x, n * size);
    return x;
}

static char *get_text(cur *c)
{
    const uint64_t n = get_u64(c);
    if (c->bad || n == UINT64_MAX)
        return NULL;
    if (n > c->left) {
        c->bad = 1;
        return NULL;
    }
    char *s = malloc((size_t)n + 1);
    if (!s) {
        c->bad = 1;
        return NULL;
    }
    get(c, s, (size_t)n);
    s[n] = '\0';
    return s;
}

static void get_curve(cur *c, mcfi_dos_curve *out, size_t bins)
{
    out->name = get_text(c);
    out->rows = get_count(c, sizeof *out->chain);
    out->chain = get_array(c, out->rows, sizeof *out->chain);
    if (get_u64(c) && !c->bad) {
        if (bins && out->rows > SIZE_MAX / bins)
            c->bad = 1;
        else
            out->bins = get_array(c, out->rows * bins, sizeof *out->bins);
    }
}

/* the fields of *in from the message; 0, or -1 for a message that does not hold them */
static int get_input(cur *c, mcfi_dos_input *in)
{
    in->evaluator = get_text(c);
    uint64_t sizes[5];
    get(c, sizes, sizeof sizes);
    for (int k = 0; k < 5; k++)
        if (sizes[k] > c->left) /* each counts items of at least one byte of the message */
            c->bad = 1;
    if (c->bad)
        return -1;
    in->chains = (size_t)sizes[0];
    in->bins = (size_t)sizes[1];
    in->walkers = (size_t)sizes[2];
    in->points = (size_t)sizes[3];
    if (in->bins && in->chains > SIZE_MAX / in->bins)
        return -1;
    in->point = get_array(c, in->chains, sizeof *in->point);
    in->weights = get_array(c, in->chains * in->bins, sizeof *in->weights);
    const size_t n_scan = (size_t)sizes[4];
    if (in->points && n_scan > SIZE_MAX / sizeof(char *) / in->points)
        return -1;
    in->scan_names = calloc(n_scan + 1, sizeof *in->scan_names);
    in->scan_values = calloc(n_scan * in->points + 1, sizeof *in->scan_values);
    if (!in->scan_names || !in->scan_values)
        return -1;
    in->n_scan = n_scan;
    for (size_t j = 0; j < n_scan; j++)
        in->scan_names[j] = get_text(c);
    for (size_t j = 0; j < n_scan * in->points; j++)
        in->scan_values[j] = get_text(c);
    const size_t n_moments = get_count(c, 1);
    in->moments = calloc(n_moments + 1, sizeof *in->moments);
    in->density = calloc(n_moments + 1, sizeof *in->density);
    if (c->bad || !in->moments || !in->density)
        return -1;
    in->n_moments = n_moments;
    for (size_t k = 0; k < n_moments; k++) {
        get_curve(c, &in->moments[k], in->bins);
        get_curve(c, &in->density[k], in->bins);
    }
    get_curve(c, &in->scale, in->bins);
    const size_t n_geometric = get_count(c, 1);
    in->geometric = calloc(n_geometric + 1, sizeof *in->geometric);
    if (c->bad || !in->geometric)
        return -1;
    in->n_geometric = n_geometric;
    for (size_t j = 0; j < n_geometric; j++)
        in->geometric[j] = get_text(c);
    const size_t n_response = get_count(c, 1);
    in->response = calloc(n_response + 1, sizeof *in->response);
    if (c->bad || !in->response)
        return -1;
    in->n_response = n_response;
    for (size_t k = 0; k < n_response; k++)
        get_curve(c, &in->response[k], in->bins);
    const size_t n_spectral = get_count(c, 1);
    in->spectral = calloc(n_spectral + 1, sizeof *in->spectral);
    if (c->bad || !in->spectral)
        return -1;
    in->n_spectral = n_spectral;
    for (size_t k = 0; k < n_spectral; k++)
        get_curve(c, &in->spectral[k], in->bins);
    return c->bad || c->left ? -1 : 0;
}

/* ---- the child and the parent ---------------------------------------------------------- */

static void write_all(int fd, const unsigned char *p, size_t n)
{
    while (n) {
        const ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        p += w;
        n -= (size_t)w;
    }
}

/* The child: its limits, the parse, the message to fd; never returns. */
static void child(int fd, const char *path, const unsigned char *image, size_t size,
                  const mcfi_dos_shape *want, rlim_t cpu_seconds)
{
    struct rlimit cpu = {cpu_seconds, cpu_seconds + 5};
    setrlimit(RLIMIT_CPU, &cpu);
#ifndef DOS_ASAN
    const rlim_t as = ((rlim_t)2 << 30) + 16 * (rlim_t)size;
    struct rlimit mem = {as, as};
    setrlimit(RLIMIT_AS, &mem);
#endif
    mcfi_dos_input in;
    const int rc = mcfi_dos_parse(path, image, size, want, &in);
    buf b = {0};
    const uint32_t head[2] = {MSG_MAGIC, (uint32_t)rc};
    put(&b, head, sizeof head);
    if (rc)
        put_text(&b, mcf_last_error());
    else
        put_input(&b, &in);
    if (b.failed) { /* out of memory for the message: say so, shortly */
        b.len = 0;
        b.failed = 0;
        const uint32_t oom[2] = {MSG_MAGIC, (uint32_t)MCF_ENOMEM};
        put(&b, oom, sizeof oom);
        put_text(&b, "out of memory for the parsed results.h5");
    }
    if (!b.failed)
        write_all(fd, b.p, b.len);
    _exit(0); /* no atexit handlers, no buffers of the parent's flushed twice */
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The parent: the child's message into *msg (malloc'd, *len bytes; 0 bytes when it was
 * longer than max_len or memory ran out: a broken message) within `seconds`, its exit
 * status into *status; 1 when the time ran out (the child is killed), else 0. */
static int collect(int fd, pid_t pid, double seconds, size_t max_len, unsigned char **msg,
                   size_t *len, int *status)
{
    buf b = {0};
    const double end = now() + seconds;
    int timed_out = 0;
    for (;;) {
        const double left = end - now();
        if (left <= 0) {
            timed_out = 1;
            break;
        }
        struct pollfd p = {fd, POLLIN, 0};
        const int r = poll(&p, 1, (int)(left * 1000) + 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            continue; /* the time is checked above */
        unsigned char chunk[65536];
        const ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break; /* the child closed its end: exited or died */
        if (b.len + (size_t)n > max_len) {
            b.failed = 1; /* more than any parse of this file can give: broken */
            break;
        }
        put(&b, chunk, (size_t)n);
    }
    if (timed_out || b.failed)
        kill(pid, SIGKILL);
    while (waitpid(pid, status, 0) < 0 && errno == EINTR)
        ;
    *msg = b.p;
    *len = b.failed ? 0 : b.len;
    return timed_out;
}

int mcfi_dos_read(const char *path, const mcfi_dos_shape *want, mcfi_dos_input *in)
{
    memset(in, 0, sizeof *in);
    unsigned char *image = NULL;
    size_t size = 0;
    int rc = mcfe_results_h5_load(path, &image, &size);
    if (rc)
        return rc;
    if (!in_child) {
        rc = mcfi_dos_parse(path, image, size, want, in);
        free(image);
        return rc;
    }
    const rlim_t cpu = 60 + (rlim_t)(size >> 23);
    int fds[2];
    if (pipe(fds) != 0) {
        free(image);
        return mcf_fail(MCF_EIO, "%s: cannot make a pipe to parse it in a child process (%s)",
                        path, strerror(errno));
    }
    fflush(NULL);
    const pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        free(image);
        return mcf_fail(MCF_EIO, "%s: cannot start a child process to parse it (%s)", path,
                        strerror(errno));
    }
    if (pid == 0) {
        close(fds[0]);
        child(fds[1], path, image, size, want, cpu);
    }
    close(fds[1]);
    free(image);
    unsigned char *msg = NULL;
    size_t len = 0;
    int status = 0;
    /* the parsed data is bounded by the file (every extent was checked against its size):
       a message far beyond it is broken */
    const size_t max_len =
        size > (SIZE_MAX - (1u << 20)) / 16 ? SIZE_MAX : 16 * size + (1u << 20);
    const int timed_out = collect(fds[0], pid, (double)cpu + 5.0, max_len, &msg, &len, &status);
    close(fds[0]);
    const char *advice = "the file is damaged behind a digest that matches it (crafted, or "
                         "changed and sealed again); mcf does not use it: `mcf resume DIR` "
                         "writes results.h5 again from the run's checkpoint";
    cur c = {msg, len, 0};
    uint32_t head[2] = {0, 0};
    get(&c, head, sizeof head);
    if (timed_out || (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU))
        rc = mcf_fail(MCF_EFORMAT, "%s: HDF5 did not finish parsing it within %lu s: %s", path,
                      (unsigned long)cpu, advice);
    else if (WIFSIGNALED(status))
        rc = mcf_fail(MCF_EFORMAT, "%s: HDF5 crashed parsing it (signal %d, %s, in the child "
                      "process that parses it): %s", path, WTERMSIG(status),
                      strsignal(WTERMSIG(status)), advice);
    else if (c.bad || head[0] != MSG_MAGIC || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        rc = mcf_fail(MCF_EFORMAT, "%s: HDF5 stopped without an answer (exit status %d, in "
                      "the child process that parses it: out of memory, or a crash a sanitizer "
                      "caught): %s", path, WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                      advice);
    else if (head[1] != MCF_OK) {
        char *text = get_text(&c);
        rc = mcf_fail((int)head[1], "%s", text ? text : "results.h5: unreadable");
        free(text);
    } else if (get_input(&c, in) != 0) {
        mcfi_dos_input_free(in);
        rc = mcf_fail(MCF_EFORMAT, "%s: its parser's answer is incomplete: %s", path, advice);
    }
    free(msg);
    return rc;
}
