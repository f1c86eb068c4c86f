/* fileio.c — file and hash utilities: folders, atomic writes, whole-file reads, FNV-1a; and
 * the output folder's housekeeping (rank 0's): its lock, the leftovers of killed runs, and
 * the earlier run that `run --force` keeps aside until the new one has a checkpoint.
 *
 * Every file mcf creates in an output folder is created with O_EXCL | O_NOFOLLOW: a link
 * planted under a temporary's name is removed, never written through, and what a reader
 * sees arrives by rename(), which replaces a link rather than following it. */
#define _POSIX_C_SOURCE 200809L
#include "fileio.h"

#include "mcf/error.h"
#include "mcf/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <signal.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

uint64_t mcfi_fnv1a64(const void *data, size_t size, uint64_t h)
{
    const unsigned char *p = data;
    size_t k = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* eight bytes a load, in their order in memory: the same hash, with one bounds check for
     * eight bytes in a sanitizer build, which checks every access (fuzz_results_h5 hashes a
     * whole results.h5 twice an input) */
    for (; size - k >= 8; k += 8) {
        uint64_t w;
        memcpy(&w, p + k, 8);
        for (int j = 0; j < 8; j++, w >>= 8) {
            h ^= w & 0xff;
            h *= 1099511628211ull;
        }
    }
#endif
    for (; k < size; k++) {
        h ^= p[k];
        h *= 1099511628211ull;
    }
    return h;
}

int mcfe_mkdir_p(const char *path)
{
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return mcf_fail(MCF_EIO, "%s: path too long", path);
    for (char *p = buf + 1; ; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return mcf_fail(MCF_EIO, "%s: cannot create folder (%s)", buf, strerror(errno));
            *p = c;
            if (!c)
                break;
        }
    }
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return mcf_fail(MCF_EIO, "%s: exists and is not a folder", path);
    return MCF_OK;
}

int mcfe_create_fresh(const char *path)
{
    /* twice at most: a name already taken is removed once (a leftover of our own pid, or a
       planted link), then the creation must succeed */
    for (int attempt = 0; attempt < 2; attempt++) {
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
        if (unlink(path) != 0 && errno != ENOENT)
            return -1;
    }
    errno = EEXIST;
    return -1;
}

int mcfe_open_file(const char *path, int flags, uint64_t max_bytes, int *fd, struct stat *st)
{
    *fd = -1;
    memset(st, 0, sizeof *st);
    int f = open(path, flags | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0666);
    if (f < 0)
        return MCFI_FILE_CANNOT_OPEN;
    int problem = MCFI_FILE_OK;
    if (fstat(f, st) != 0)
        problem = MCFI_FILE_CANNOT_OPEN;
    else if (!S_ISREG(st->st_mode))
        problem = MCFI_FILE_NOT_REGULAR;
    else if (max_bytes && (uint64_t)st->st_size > max_bytes)
        problem = MCFI_FILE_TOO_LARGE;
    if (problem) {
        int e = errno;
        close(f);
        errno = e;
        return problem;
    }
    int fl = fcntl(f, F_GETFL);
    if (fl != -1)
        fcntl(f, F_SETFL, fl & ~O_NONBLOCK);
    *fd = f;
    return MCFI_FILE_OK;
}

int mcfi_read_file(const char *path, int flags, uint64_t max_bytes, unsigned char **data,
                   size_t *size, struct stat *st)
{
    *data = NULL;
    *size = 0;
    if (!max_bytes || max_bytes > SIZE_MAX - 1)
        max_bytes = SIZE_MAX - 1;
    int fd;
    int problem = mcfe_open_file(path, flags, max_bytes, &fd, st);
    if (problem)
        return problem;
    /* the whole file and a NUL in one allocation; a file that grew while read is cut at
       the size it had when opened (the caller's checks see that) */
    const size_t want = (size_t)st->st_size;
    size_t len = 0;
    unsigned char *buf = malloc(want + 1);
    int e = buf ? 0 : ENOMEM;
    while (!e && len < want) {
        ssize_t got = read(fd, buf + len, want - len);
        if (got < 0 && errno != EINTR)
            e = errno;
        else if (got == 0)
            break;
        else if (got > 0)
            len += (size_t)got;
    }
    close(fd);
    if (e) {
        free(buf);
        errno = e;
        return MCFI_FILE_CANNOT_OPEN;
    }
    buf[len] = 0;
    *data = buf;
    *size = len;
    return MCFI_FILE_OK;
}

uint64_t mcfi_memory_bytes(void)
{
    uint64_t memory = UINT64_MAX / 4;
#ifdef _SC_PHYS_PAGES
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0)
        memory = (uint64_t)pages * (uint64_t)page;
#endif
    return memory;
}

const char *mcfi_file_kind(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a folder";
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISCHR(mode) || S_ISBLK(mode))
        return "a device";
    if (S_ISSOCK(mode))
        return "a socket";
    return "a special file";
}

int mcfi_open_regular(const char *path, int flags, const char *what, int *fd)
{
    struct stat st;
    int problem = mcfe_open_file(path, flags | O_NOFOLLOW, 0, fd, &st);
    if (problem == MCFI_FILE_CANNOT_OPEN)
        return mcf_fail(MCF_EIO, errno == ELOOP ? "%s: is a symbolic link; remove it (mcf "
                        "never writes %s through a link)" : "%s: cannot open %s (%s)", path,
                        what, strerror(errno));
    if (problem)
        return mcf_fail(MCF_EIO, "%s: is not a regular file; remove it (it should hold %s)",
                        path, what);
    return MCF_OK;
}

int mcfe_write_atomic(const char *path, const void *data, size_t size)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    int fd = mcfe_create_fresh(tmp);
    if (fd < 0)
        return mcf_fail(MCF_EIO, "%s: not written: cannot create %s (%s)", path, tmp,
                        strerror(errno));
    const unsigned char *p = data;
    size_t left = size;
    while (left) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = w < 0 ? errno : EIO;
            close(fd);
            unlink(tmp);
            return mcf_fail(MCF_EIO, "%s: not written (%s)", path, strerror(e));
        }
        p += w;
        left -= (size_t)w;
    }
    int synced = fsync(fd) == 0, e = errno;
    if (close(fd) != 0 && synced) {
        synced = 0;
        e = errno;
    }
    if (!synced) {
        unlink(tmp);
        return mcf_fail(MCF_EIO, "%s: not written: could not be flushed to disk (%s)", path,
                        strerror(e));
    }
    if (rename(tmp, path) != 0) {
        e = errno;
        unlink(tmp);
        return mcf_fail(MCF_EIO, "%s: not written: cannot rename %s into place (%s)", path, tmp,
                        strerror(e));
    }
    return MCF_OK;
}

/* ---- the output folder ---------------------------------------------------------------- */

#define LOCK_NAME ".lock"
#define PREVIOUS ".previous"         /* the run that `run --force` replaces, until then */
#define PREVIOUS_GONE ".previous.old" /* PREVIOUS being removed: never restored */

/* the files that make a folder's run: moved aside together, restored together (results.h5
 * too, so that an earlier run's never sits beside a new run's results.tsv) */
static const char *const run_files[] = {"checkpoint", "results.tsv", "config.ini", "results.h5",
                                        "kind", "optimize.state", "optimize.tsv",
                                        "parameters.txt"};
#define N_RUN_FILES (sizeof run_files / sizeof run_files[0])

static void join(char *buf, size_t n, const char *dir, const char *name)
{
    snprintf(buf, n, "%s/%s", dir, name);
}

void mcfe_outdir_unlock(int fd)
{
    if (fd < 0)
        return;
    /* the file stays: removing it would let a second run lock a new file while a third
       still holds the old one */
    if (ftruncate(fd, 0)) {
        /* a note left behind names a holder that no longer holds: harmless */
    }
    close(fd);
}

/* The pid of a NAME.tmp.<pid> temporary, 0 when the name is not one. */
static long tmp_pid(const char *name)
{
    const char *p = NULL;
    for (const char *q = strstr(name, ".tmp."); q; q = strstr(q + 1, ".tmp."))
        p = q + 5;
    if (!p || !*p || strspn(p, "0123456789") != strlen(p) || strlen(p) > 9)
        return 0;
    return strtol(p, NULL, 10);
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && strcmp(s + n - m, tail) == 0;
}

int mcfe_outdir_clean(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int removed = 0;
    for (struct dirent *e = readdir(d); e; e = readdir(d)) {
        const char *name = e->d_name;
        long pid = tmp_pid(name);
        int stale;
        if (pid > 0)
            stale = pid != (long)getpid() && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
        else
            stale = !strncmp(name, ".plot-gnuplot-", 14) ||
                    (!strncmp(name, ".plot-", 6) &&
                     (ends_with(name, ".svg.tmp") || ends_with(name, ".png.tmp")));
        struct stat st;
        if (stale && fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            !S_ISDIR(st.st_mode) && unlinkat(dirfd(d), name, 0) == 0)
            removed++;
    }
    closedir(d);
    return removed;
}

/* Removes folder path and the files in it (it holds no folders); ENOENT is no error. */
static int remove_flat(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return errno == ENOENT ? 0 : -1;
    for (struct dirent *e = readdir(d); e; e = readdir(d))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            unlinkat(dirfd(d), e->d_name, 0);
    closedir(d);
    return rmdir(path);
}

/* Moves the run files from folder `from` to folder `to`, those that exist; with `exact`,
 * a run file of `to` that `from` lacks goes too (the earlier run comes back whole: the
 * killed run's kind or optimization state does not stay beside it). */
static int move_run(const char *from, const char *to, int exact)
{
    for (size_t k = 0; k < N_RUN_FILES; k++) {
        char a[4200], b[4200];
        join(a, sizeof a, from, run_files[k]);
        join(b, sizeof b, to, run_files[k]);
        if (rename(a, b) == 0)
            continue;
        if (errno != ENOENT)
            return mcf_fail(MCF_EIO, "%s: cannot move it to %s (%s)", a, b, strerror(errno));
        if (exact && unlink(b) != 0 && errno != ENOENT)
            return mcf_fail(MCF_EIO, "%s: cannot remove it (%s)", b, strerror(errno));
    }
    return MCF_OK;
}

int mcfi_outdir_set_aside(const char *dir)
{
    char prev[4200];
    join(prev, sizeof prev, dir, PREVIOUS);
    struct stat st;
    if (mkdir(prev, 0777) != 0 &&
        (errno != EEXIST || lstat(prev, &st) != 0 || !S_ISDIR(st.st_mode)))
        return mcf_fail(MCF_EIO, "%s: cannot create a folder to keep the earlier run in until "
                        "the new one has a checkpoint (%s)", prev, strerror(errno));
    return move_run(dir, prev, 0);
}

void mcfi_outdir_drop_previous(const char *dir)
{
    char prev[4200], gone[4200];
    join(prev, sizeof prev, dir, PREVIOUS);
    join(gone, sizeof gone, dir, PREVIOUS_GONE);
    remove_flat(gone);
    if (rename(prev, gone) == 0)
        remove_flat(gone);
}

/* See mcfe_outdir_lock: 1 when a run was restored, 0 when there was none to restore. */
static int restore_previous(const char *dir)
{
    char prev[4200], gone[4200];
    join(prev, sizeof prev, dir, PREVIOUS);
    join(gone, sizeof gone, dir, PREVIOUS_GONE);
    remove_flat(gone);
    struct stat st;
    if (lstat(prev, &st) != 0)
        return errno == ENOENT ? 0 : mcf_fail(MCF_EIO, "%s: %s", prev, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return mcf_fail(MCF_EIO, "%s: is not a folder; remove it", prev);
    int rc = move_run(prev, dir, 1);
    if (rc)
        return rc;
    if (remove_flat(prev) != 0)
        return mcf_fail(MCF_EIO, "%s: cannot remove it (%s)", prev, strerror(errno));
    return 1;
}

int mcfe_outdir_lock(const char *dir, int *fd)
{
    char path[4200];
    join(path, sizeof path, dir, LOCK_NAME);
    int f;
    int rc = mcfi_open_regular(path, O_RDWR | O_CREAT, "the output folder's lock", &f);
    *fd = -1;
    if (rc)
        return rc;
    int locked = flock(f, LOCK_EX | LOCK_NB) == 0, e = errno;
    if (!locked && (e == ENOLCK || e == EOPNOTSUPP)) {
        /* a file system without locks (some network ones): run, but say it */
        mcf_log(MCF_LOG_WARN, "%s: this file system cannot lock (%s); nothing stops a second "
                "run in %s", path, strerror(e), dir);
    } else if (!locked) {
        char holder[256];
        ssize_t n = pread(f, holder, sizeof holder - 1, 0);
        holder[n > 0 ? n : 0] = '\0';
        holder[strcspn(holder, "\n")] = '\0';
        close(f);
        if (e != EWOULDBLOCK)
            return mcf_fail(MCF_EIO, "%s: cannot lock (%s)", path, strerror(e));
        return mcf_fail(MCF_EIO, "output folder %s is in use by another mcf (%s); wait for it "
                        "to finish, or stop it and continue with `mcf resume %s`", dir,
                        holder[0] ? holder : "it has not written its pid yet", dir);
    }
    /* who holds it, for the message above; a lock whose note cannot be written (a full
       disk) still locks */
    char host[128] = "?", stamp[32] = "", note[256];
    gethostname(host, sizeof host);
    host[sizeof host - 1] = '\0';
    time_t now = time(NULL);
    struct tm tmv;
    if (localtime_r(&now, &tmv))
        strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &tmv);
    int len = snprintf(note, sizeof note, "pid %ld on host %s since %s\n", (long)getpid(),
                       host, stamp);
    if (ftruncate(f, 0) == 0 && pwrite(f, note, (size_t)len, 0) != len && ftruncate(f, 0)) {
        /* nothing more to do: the lock holds without its note */
    }
    *fd = f;
    rc = restore_previous(dir);
    if (rc < 0) {
        mcfe_outdir_unlock(f);
        *fd = -1;
        return rc;
    }
    return MCF_OK;
}


/* ---- the folder's kind ---------------------------------------------------------------- */

static const char *const kind_names[] = {"", "run", "optimize", "band", "kbe"};
#define N_KINDS ((int)(sizeof kind_names / sizeof kind_names[0]))

const char *mcfe_kind_name(int kind)
{
    return kind > 0 && kind < N_KINDS ? kind_names[kind] : "?";
}

int mcfe_outdir_kind_write(const char *dir, int kind)
{
    char path[4200], text[16];
    join(path, sizeof path, dir, "kind");
    int n = snprintf(text, sizeof text, "%s\n", mcfe_kind_name(kind));
    return mcfe_write_atomic(path, text, (size_t)n);
}

static int has(const char *dir, const char *name)
{
    char path[4200];
    join(path, sizeof path, dir, name);
    return access(path, F_OK) == 0;
}

int mcfe_outdir_kind(const char *dir, int *kind)
{
    char path[4200], text[32] = "";
    join(path, sizeof path, dir, "kind");
    *kind = MCFI_KIND_NONE;
    int fd;
    struct stat st;
    int problem = mcfe_open_file(path, O_RDONLY | O_NOFOLLOW, 16, &fd, &st);
    if (problem == MCFI_FILE_OK) {
        ssize_t n = read(fd, text, sizeof text - 1);
        close(fd);
        text[n > 0 ? n : 0] = '\0';
        for (int k = 1; k < N_KINDS; k++) {
            char want[16];
            snprintf(want, sizeof want, "%s\n", kind_names[k]);
            if (!strcmp(text, want))
                *kind = k;
        }
        if (*kind)
            return MCF_OK;
        text[strcspn(text, "\n")] = '\0';
        return mcf_fail(MCF_EFORMAT, "%s: is damaged: it holds '%.16s', not one of run, "
                        "optimize, band, kbe (the kind of folder, which mcf writes once); write the "
                        "folder's kind into it, e.g. `echo run > %s`", path, text, path);
    }
    if (problem != MCFI_FILE_CANNOT_OPEN || (errno != ENOENT && errno != ENOTDIR))
        return mcf_fail(MCF_EFORMAT, "%s: cannot be read as the folder's kind (%s)", path,
                        problem == MCFI_FILE_CANNOT_OPEN ? strerror(errno)
                                                         : "not a small regular file");
    /* no folder, or no configuration: the caller's reading of DIR/config.ini says so */
    if (!has(dir, "config.ini"))
        return MCF_OK;
    /* a folder written before DIR/kind existed: its files say, or the user */
    const int state = has(dir, "optimize.state"), tsv = has(dir, "optimize.tsv");
    const int ckpt = has(dir, "checkpoint") || has(dir, "results.tsv");
    if ((state || tsv) && !ckpt)
        *kind = MCFI_KIND_OPTIMIZE;
    else if (ckpt && !state && !tsv)
        *kind = MCFI_KIND_RUN;
    else if (has(dir, "bands.tsv") && !ckpt)
        *kind = MCFI_KIND_BAND;
    if (*kind)
        return MCF_OK;
    return mcf_fail(MCF_EINVAL, "%s has no file 'kind' (it was written by an earlier mcf) "
                    "and its files do not tell whether it holds a run or an optimization (%s); "
                    "start it again with `mcf run %s/config.ini --force --set run.output=%s` "
                    "or `mcf optimize %s/config.ini --force --set run.output=%s`", dir,
                    ckpt ? "a checkpoint or results.tsv beside an optimization's files"
                         : "no checkpoint, results.tsv or optimize.state",
                    dir, dir, dir, dir);
}
