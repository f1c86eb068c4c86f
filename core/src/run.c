/* run.c — chains advanced in lockstep through the schedule: thermalization (with step
 * adaptation), measurement, checkpoints, progress and signals. */
#define _POSIX_C_SOURCE 200809L
#include "run.h"
#include "mcf_mpi.h"
#include "plot.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <omp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- small utilities ------------------------------------------------------------- */

uint64_t mcf_fnv1a64(const void *data, size_t size, uint64_t h)
{
    const unsigned char *p = data;
    for (size_t k = 0; k < size; k++) {
        h ^= p[k];
        h *= 1099511628211ull;
    }
    return h;
}

int mcf_mkdir_p(const char *path)
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

int mcf_write_atomic(const char *path, const void *data, size_t size)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd < 0)
        return mcf_fail(MCF_EIO, "%s: cannot write (%s)", tmp, strerror(errno));
    const unsigned char *p = data;
    size_t left = size;
    while (left) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = errno;
            close(fd);
            unlink(tmp);
            return mcf_fail(MCF_EIO, "%s: write failed (%s)", tmp, strerror(e));
        }
        p += w;
        left -= (size_t)w;
    }
    if (fsync(fd) != 0 || close(fd) != 0) {
        unlink(tmp);
        return mcf_fail(MCF_EIO, "%s: could not be flushed to disk (%s)", tmp, strerror(errno));
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return mcf_fail(MCF_EIO, "%s: cannot rename into place (%s)", path, strerror(e));
    }
    return MCF_OK;
}

int mcf_read_file(const char *path, unsigned char **data, size_t *size)
{
    *data = NULL;
    *size = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return mcf_fail(MCF_EIO, "%s: cannot open (%s)", path, strerror(errno));
    size_t cap = 1 << 16, len = 0;
    unsigned char *buf = malloc(cap);
    while (buf) {
        size_t r = fread(buf + len, 1, cap - len, f);
        len += r;
        if (len < cap)
            break;
        unsigned char *nb = realloc(buf, cap * 2);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    int err = ferror(f);
    fclose(f);
    if (!buf)
        return mcf_fail(MCF_ENOMEM, "%s: out of memory reading", path);
    if (err) {
        free(buf);
        return mcf_fail(MCF_EIO, "%s: read error", path);
    }
    *data = buf;
    *size = len;
    return MCF_OK;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- signals ------------------------------------------------------------------------ */

static volatile sig_atomic_t stop_signal;
static int last_stop_signal;

int mcf_run_stop_signal(void) { return last_stop_signal; }

static void on_signal(int sig)
{
    if (stop_signal) { /* a second signal: stop now, the last checkpoint stays valid */
        signal(sig, SIG_DFL);
        raise(sig);
    }
    stop_signal = sig;
}

/* ---- progress line ------------------------------------------------------------------ */

static int progress_on_terminal;
static int progress_shown;

void mcf_progress_clear(void)
{
    if (progress_on_terminal && progress_shown) {
        fputs("\r\033[K", stderr);
        progress_shown = 0;
    }
}

static void format_duration(double s, char *buf, size_t n)
{
    if (!isfinite(s) || s < 0)
        snprintf(buf, n, "?");
    else if (s < 60)
        snprintf(buf, n, "%.0fs", s);
    else if (s < 3600)
        snprintf(buf, n, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
    else
        snprintf(buf, n, "%dh%02dm", (int)(s / 3600), (int)fmod(s / 60, 60));
}

/* acc, prop: accepted and proposed moves of all chains (summed over the ranks) */
static void progress(const mcf_run *r, double started, uint64_t start_pos, uint64_t acc,
                     uint64_t prop, int final)
{
    static double last;
    double t = now_seconds();
    double interval = progress_on_terminal ? 0.2 : 5.0;
    if (!final && t - last < interval)
        return;
    last = t;
    double rate = (double)(r->position - start_pos) / (t - started);
    char eta[32], el[32];
    format_duration((double)(r->total - r->position) / rate, eta, sizeof eta);
    format_duration(t - started, el, sizeof el);
    char line[512];
    snprintf(line, sizeof line,
             "sweep %llu/%llu (%s) | %zu chains | acceptance %.3f | %s elapsed, ETA %s",
             (unsigned long long)r->position, (unsigned long long)r->total,
             r->position < (uint64_t)r->setup->thermalize ? "thermalizing" : "measuring",
             r->n_chains, prop ? (double)acc / (double)prop : 0.0, el, eta);
    if (progress_on_terminal) {
        fprintf(stderr, "\r\033[K%s", line);
        progress_shown = 1;
        if (final) {
            fputc('\n', stderr);
            progress_shown = 0;
        }
    } else {
        mcf_log(MCF_LOG_INFO, "%s", line);
    }
}

/* ---- chains --------------------------------------------------------------------------- */

static void chain_release(const mcf_run *r, mcf_chain *c)
{
    if (c->state)
        r->ops->destroy(c->state);
    free(c->model_params);
    free(c->evaluator_params);
    free(c->blocking);
    free(c->bin_sum);
    free(c->bin_count);
    free(c->offset);
    free(c->points);
    free(c->axis);
    free(c->curve_bin_sum);
    free(c->pending);
    memset(c, 0, sizeof *c);
}

/* "L=16 T=2.27" for messages */
static void describe_point(const mcf_setup *s, size_t point, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t a = 0; a < s->n_axes && used < n; a++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s=%s", a ? " " : "", s->axes[a].name,
                                 mcf_setup_axis_value(s, a, point)->text);
}

/* Parameters, random stream and accumulators of chain i: what every copy of a chain has,
 * with or without a model instance. */
static int chain_init(mcf_run *r, size_t i)
{
    mcf_chain *c = &r->chains[i];
    mcf_setup *s = r->setup;
    /* chain i = point * walkers + walker: the walkers of a point share its parameters,
       the chain index (and so the random stream) tells them apart */
    size_t pt = i / (size_t)s->walkers;
    c->index = i;
    int rc = mcf_setup_params(s, pt, 0, &c->model_params);
    if (!rc && s->evaluator)
        rc = mcf_setup_params(s, pt, 1, &c->evaluator_params);
    if (rc)
        return rc;
    c->services.struct_size = sizeof c->services;
    c->services.seed = s->seed;
    c->services.chain_index = i;
    c->services.evaluator = s->evaluator ? s->evaluator->info : NULL;
    c->services.evaluator_params = c->evaluator_params;
    mcf_rng_init(&c->rng, s->seed, i);
    c->blocking = calloc(r->n_obs ? r->n_obs : 1, sizeof *c->blocking);
    c->bin_sum = calloc((size_t)s->bins * r->nvars, sizeof *c->bin_sum);
    c->bin_count = calloc((size_t)s->bins, sizeof *c->bin_count);
    c->offset = calloc(r->n_declared, sizeof *c->offset);
    c->points = calloc(r->n_declared, sizeof *c->points);
    if (!c->blocking || !c->bin_sum || !c->bin_count || !c->offset || !c->points)
        return mcf_fail(MCF_ENOMEM, "out of memory for chain %zu's accumulators", i);
    for (size_t k = 0; k < r->n_obs; k++)
        mcf_blocking_init(&c->blocking[k]);
    return MCF_OK;
}

/* The layout of the measured values from c->points (scalars take one value, curves their
 * length), and the curves' accumulators. */
static int chain_layout(const mcf_run *r, mcf_chain *c)
{
    const mcf_observable_spec *obs = r->ops->observables;
    c->n_values = c->curve_values = 0;
    for (size_t o = 0; o < r->n_declared; o++) {
        c->offset[o] = c->n_values;
        c->n_values += c->points[o];
        if (obs[o].axis)
            c->curve_values += c->points[o];
    }
    if (r->n_curves) {
        c->axis = calloc(c->curve_values + 1, sizeof *c->axis);
        c->curve_bin_sum = calloc((size_t)r->setup->bins * c->curve_values + 1,
                                  sizeof *c->curve_bin_sum);
        if (!c->axis || !c->curve_bin_sum)
            return mcf_fail(MCF_ENOMEM, "out of memory for chain %zu's curves", c->index);
    }
    return MCF_OK;
}

static int chain_create(mcf_run *r, size_t i)
{
    mcf_chain *c = &r->chains[i];
    mcf_setup *s = r->setup;
    int rc = chain_init(r, i);
    if (rc)
        return rc;
    mcf_clear_error();
    rc = r->ops->create(c->model_params, &c->services, &c->rng, &c->state);
    if (rc) {
        char point[512];
        describe_point(s, i / (size_t)s->walkers, point, sizeof point);
        c->state = NULL;
        if (!point[0])
            return mcf_fail_prefix(rc, "model %s, chain %zu", s->model_name, i);
        return mcf_fail_prefix(rc, "model %s, chain %zu (%s)", s->model_name, i, point);
    }
    c->units = r->ops->units(c->state);
    if (c->units == 0)
        return mcf_fail(MCF_EPLUGIN, "model %s: units() returned 0 for chain %zu",
                        s->model_name, i);
    const mcf_observable_spec *obs = r->ops->observables;
    for (size_t o = 0; o < r->n_declared; o++)
        c->points[o] = obs[o].axis ? r->ops->curve_points(c->state, o, NULL) : 1;
    rc = chain_layout(r, c);
    if (rc)
        return rc;
    size_t at = 0;
    for (size_t k = 0; k < r->n_curves; k++) {
        size_t o = r->curve[k];
        r->ops->curve_points(c->state, o, c->axis + at);
        at += c->points[o];
    }
    return MCF_OK;
}

/* Collective: accepted and proposed moves of all chains, for the progress line. */
static void count_moves(const mcf_run *r, uint64_t counts[2])
{
    counts[0] = counts[1] = 0;
    for (size_t k = r->first; k < r->last; k++) {
        counts[0] += r->chains[k].accepted + r->chains[k].block_accepted;
        counts[1] += r->chains[k].proposed + r->chains[k].block_proposed;
    }
    mcf_mpi_sum_u64(counts, 2);
}

/* ---- ranks (mcf_mpi.h): rank 0 keeps a copy, without model, of every other chain ---- */

/* The ranks agree on rc (each rank's status while it wrote *out); on success every rank's
 * bytes go to rank 0 (to_all = 0) or to every rank (1) in rank order, into *all (malloc'ed,
 * the caller frees; NULL on ranks that get nothing).  *out is released either way. */
static int send_stream(int rc, mcf_stream *out, int to_all, unsigned char **all, size_t *size)
{
    rc = mcf_mpi_agree(rc);
    if (!rc) {
        if (to_all)
            mcf_mpi_allgather_bytes(out->data, out->size, all, size);
        else
            mcf_mpi_gather_bytes(out->data, out->size, all, size);
    }
    mcf_stream_release(out);
    return rc;
}

/* Collective: rank 0 learns the layout (units, curve points and axes) of the chains the
 * other ranks created, and sets up their copies: results.tsv needs it, the checkpoint
 * records do not carry it. */
static int share_layouts(mcf_run *r)
{
    mcf_stream out;
    mcf_stream_init_writer(&out);
    int rc = MCF_OK;
    for (size_t k = r->first; k < r->last && !rc; k++) {
        const mcf_chain *c = &r->chains[k];
        uint64_t units = c->units;
        rc = mcf_stream_write(&out, &units, sizeof units);
        for (size_t o = 0; o < r->n_declared && !rc; o++) {
            uint64_t points = c->points[o];
            rc = mcf_stream_write(&out, &points, sizeof points);
        }
        if (!rc && c->curve_values)
            rc = mcf_stream_write(&out, c->axis, c->curve_values * sizeof *c->axis);
    }
    unsigned char *all;
    size_t size;
    if ((rc = send_stream(rc, &out, 0, &all, &size)))
        return rc;
    if (r->rank == 0) {
        mcf_stream in;
        mcf_stream_init_reader(&in, all, size);
        for (size_t k = 0; k < r->n_chains && !rc; k++) {
            mcf_chain *c = &r->chains[k];
            int own = k >= r->first && k < r->last;
            uint64_t units, points;
            rc = mcf_stream_read(&in, &units, sizeof units);
            if (!rc && !own)
                rc = chain_init(r, k);
            for (size_t o = 0; o < r->n_declared && !rc; o++) {
                rc = mcf_stream_read(&in, &points, sizeof points);
                if (!own)
                    c->points[o] = (size_t)points;
            }
            if (!rc && !own) {
                c->units = (size_t)units;
                rc = chain_layout(r, c);
            }
            size_t bytes = c->curve_values * sizeof *c->axis;
            if (!rc && !own && bytes)
                rc = mcf_stream_read(&in, c->axis, bytes);
            else if (!rc && bytes > in.size - in.pos)
                rc = mcf_fail(MCF_EFORMAT, "chain %zu: layout record truncated", k);
            else if (!rc)
                in.pos += bytes;
        }
        if (rc)
            rc = mcf_fail_prefix(MCF_EINTERNAL, "layouts of the chains from the ranks");
    }
    free(all);
    return mcf_mpi_agree(rc);
}

/* Collective: every chain's checkpoint record to rank 0, which writes the same checkpoint
 * file a single process writes and takes the other ranks' accumulators into its copies
 * (results.tsv is computed from them). */
static int save_checkpoint(mcf_run *r)
{
    if (r->ranks == 1)
        return mcf_checkpoint_write(r);
    mcf_stream rec;
    mcf_stream_init_writer(&rec);
    int rc = mcf_mpi_agree(mcf_checkpoint_records(r, r->first, r->last, &rec));
    if (rc) {
        mcf_stream_release(&rec);
        return rc;
    }
    unsigned char *all;
    size_t size;
    mcf_mpi_gather_bytes(rec.data, rec.size, &all, &size);
    mcf_stream_release(&rec);
    if (r->rank == 0) {
        rc = mcf_checkpoint_load_records(r, all, size, r->last, r->n_chains, 0,
                                         "the records gathered from the ranks");
        if (!rc)
            rc = mcf_checkpoint_write_records(r, all, size);
    }
    free(all);
    return mcf_mpi_agree(rc);
}

/* Collective: rank 0 reads and checks DIR/checkpoint, every rank loads the records of its
 * chains.  MCF_OK when resumed, 1 when there is no checkpoint, an error otherwise. */
static int load_checkpoint(mcf_run *r)
{
    if (r->ranks == 1)
        return mcf_checkpoint_read(r);
    unsigned char *records = NULL;
    size_t size = 0;
    uint64_t head[2] = {0, 0}; /* found, position */
    int rc = MCF_OK;
    if (r->rank == 0) {
        rc = mcf_checkpoint_read_file(r, &records, &size, &head[1]);
        head[0] = rc == MCF_OK;
        if (rc == 1)
            rc = MCF_OK;
    }
    rc = mcf_mpi_agree(rc);
    if (rc) {
        free(records);
        return rc;
    }
    mcf_mpi_bcast_u64(head, 2);
    if (!head[0])
        return 1;
    mcf_mpi_bcast_bytes(&records, &size);
    char path[4200];
    snprintf(path, sizeof path, "%s/checkpoint", r->dir);
    rc = mcf_mpi_agree(mcf_checkpoint_load_records(r, records, size, r->first, r->last, 1,
                                                   path));
    free(records);
    if (!rc)
        r->position = head[1];
    return rc;
}

/* Adds one measurement (values laid out as measure() writes them) to the accumulators. */
static void chain_record(const mcf_run *r, mcf_chain *c, const double *values)
{
    uint64_t t = c->measurements++;
    size_t bin = (size_t)(t * (uint64_t)r->setup->bins / r->n_meas);
    double *sum = c->bin_sum + bin * r->nvars;
    for (size_t k = 0; k < r->n_obs; k++) {
        double x = values[c->offset[r->scalar[k]]];
        mcf_blocking_add(&c->blocking[k], x);
        sum[k] += x;
    }
    if (r->role[MCF_ROLE_ENERGY] >= 0) {
        double e = values[c->offset[r->scalar[r->role[MCF_ROLE_ENERGY]]]];
        sum[r->n_obs] += e * e;
    }
    c->bin_count[bin] += 1.0;
    double *csum = c->curve_bin_sum + bin * c->curve_values;
    size_t at = 0;
    for (size_t k = 0; k < r->n_curves; k++) {
        size_t o = r->curve[k];
        const double *v = values + c->offset[o];
        for (size_t p = 0; p < c->points[o]; p++)
            csum[at + p] += v[p];
        at += c->points[o];
    }
}

/* Keeps one measurement of a tempering replica until the chunk's end (0, or -1 when out
 * of memory). */
static int chain_pend(mcf_chain *c, const double *values)
{
    if (c->pending_rows == c->pending_cap) {
        size_t cap = c->pending_cap ? 2 * c->pending_cap : 16;
        double *p = realloc(c->pending, cap * (c->n_values ? c->n_values : 1) * sizeof *p);
        if (!p)
            return -1;
        c->pending = p;
        c->pending_cap = cap;
    }
    memcpy(c->pending + c->pending_rows * c->n_values, values, c->n_values * sizeof *values);
    c->pending_rows++;
    return 0;
}

/* ---- one group of chains advanced in lockstep ----------------------------------------- */

typedef struct group {
    size_t first, n;
    void **states, **active_states;
    size_t *active;
    unsigned char *moves;
    double *log_ratio;
    double *values;        /* n x stride: each chain's measured values */
    double **value_rows;   /* n pointers into values */
    mcf_batch *batch;      /* the context of the model's batched ops */
    size_t stride;
    int status;
    char message[4096];
} group;

static int group_fail(group *g, int rc)
{
    g->status = rc;
    snprintf(g->message, sizeof g->message, "%s", mcf_last_error());
    return rc;
}

static int sweep_group(mcf_run *r, group *g, uint64_t sweep)
{
    const mcf_model_ops *ops = r->ops;
    const mcf_setup *s = r->setup;
    mcf_chain *chains = r->chains + g->first;
    size_t ms = ops->move_size;
    int measuring = sweep >= (uint64_t)s->thermalize;
    size_t max_units = 0;
    for (size_t k = 0; k < g->n; k++) {
        g->states[k] = chains[k].state;
        if (chains[k].units > max_units)
            max_units = chains[k].units;
    }
    if (ops->begin_sweep) {
        int rc = ops->begin_sweep(g->states, g->n);
        if (rc)
            return group_fail(g, mcf_fail_prefix(rc, "model %s: begin_sweep", s->model_name));
    }
    for (size_t step = 0; step < max_units; step++) {
        size_t na = 0;
        for (size_t k = 0; k < g->n; k++) {
            if (chains[k].units <= step)
                continue;
            int rc = ops->propose(chains[k].state, &chains[k].rng, g->moves + na * ms);
            if (rc)
                return group_fail(g, mcf_fail_prefix(rc, "model %s: propose (chain %zu)",
                                                     s->model_name, chains[k].index));
            g->active[na] = k;
            g->active_states[na] = chains[k].state;
            na++;
        }
        int rc = r->batch_log_ratio
                     ? r->batch_log_ratio(g->batch, g->active_states, g->moves, na, g->log_ratio)
                     : ops->log_ratio(g->active_states, g->moves, na, g->log_ratio);
        if (rc)
            return group_fail(g, mcf_fail_prefix(rc, "model %s: log_ratio", s->model_name));
        for (size_t a = 0; a < na; a++) {
            mcf_chain *c = &chains[g->active[a]];
            double lr = g->log_ratio[a];
            const void *move = g->moves + a * ms;
            if (isnan(lr))
                return group_fail(g, mcf_fail(MCF_EPLUGIN, "model %s returned a NaN log-ratio "
                                              "(chain %zu, sweep %llu)", s->model_name,
                                              c->index, (unsigned long long)sweep));
            int accept = lr >= 0 || mcf_rng_uniform(&c->rng) < exp(lr);
            if (accept) {
                rc = ops->accept(c->state, move);
                if (rc)
                    return group_fail(g, mcf_fail_prefix(rc, "model %s: accept (chain %zu)",
                                                         s->model_name, c->index));
            } else if (ops->reject) {
                ops->reject(c->state, move);
            }
            if (measuring && r->pt) {
                /* tempering: counted for the slot the replica holds, at the chunk's end */
                c->pending_accepted += (uint64_t)accept;
                c->pending_proposed++;
            } else if (measuring) {
                c->accepted += (uint64_t)accept;
                c->proposed++;
            } else {
                c->block_accepted += (uint64_t)accept;
                c->block_proposed++;
            }
        }
    }
    /* after the sweep: adapt during thermalization, measure afterwards */
    if (!measuring) {
        for (size_t k = 0; k < g->n; k++) {
            mcf_chain *c = &chains[k];
            if ((sweep + 1) % (uint64_t)s->adapt_every == 0 || sweep + 1 == (uint64_t)s->thermalize) {
                if (ops->adapt && c->block_proposed)
                    ops->adapt(c->state, (double)c->block_accepted / (double)c->block_proposed);
                c->block_accepted = c->block_proposed = 0;
            }
        }
        return MCF_OK;
    }
    uint64_t m = sweep - (uint64_t)s->thermalize;
    if ((m + 1) % (uint64_t)s->measure_every != 0)
        return MCF_OK;
    int rc;
    if (r->batch_measure) {
        rc = r->batch_measure(g->batch, g->states, g->n, g->value_rows);
        if (rc)
            return group_fail(g, mcf_fail_prefix(rc, "model %s: batch_measure", s->model_name));
    } else if (r->measure_batch) {
        rc = r->measure_batch(g->states, g->n, g->value_rows);
        if (rc)
            return group_fail(g, mcf_fail_prefix(rc, "model %s: measure_batch", s->model_name));
    } else {
        for (size_t k = 0; k < g->n; k++) {
            rc = ops->measure(chains[k].state, g->value_rows[k]);
            if (rc)
                return group_fail(g, mcf_fail_prefix(rc, "model %s: measure (chain %zu)",
                                                     s->model_name, chains[k].index));
        }
    }
    for (size_t k = 0; k < g->n; k++) {
        if (!r->pt) {
            chain_record(r, &chains[k], g->value_rows[k]);
        } else if (chain_pend(&chains[k], g->value_rows[k])) {
            return group_fail(g, mcf_fail(MCF_ENOMEM, "out of memory for the measurements of "
                                          "chain %zu", chains[k].index));
        }
    }
    return MCF_OK;
}

/* ---- parallel tempering (run.h: mcf_tempering; docs/architecture.md) ------------------ */

/* The exchange decisions' stream: chains use streams 0 .. n_chains - 1, so the last
   stream index never meets one of them. */
#define MCF_EXCHANGE_STREAM UINT64_MAX

/* The chain of group g (other scan point o, walker w: g = o R + w) at temperature index t:
   temperature is the last axis, so point = o nT + t and chain = point R + w. */
static size_t pt_chain(const mcf_tempering *pt, size_t R, size_t g, size_t t)
{
    return ((g / R) * pt->n_temps + t) * R + g % R;
}

static double pt_temperature(const mcf_run *r, size_t chain)
{
    const mcf_tempering *pt = r->pt;
    return pt->temps[(chain / (size_t)r->setup->walkers) % pt->n_temps];
}

static void pt_free(mcf_tempering *pt)
{
    if (!pt)
        return;
    free(pt->temps);
    free(pt->order);
    free(pt->slot);
    free(pt->replica);
    free(pt->attempts);
    free(pt->accepted);
    free(pt->trips);
    free(pt->trip_sweeps);
    free(pt->trip_start);
    free(pt->trip_state);
    free(pt->energy);
    free(pt->batch_chain);
    free(pt->batch_state);
    free(pt->batch_T);
    free(pt->batch_dS);
    mcf_batch_destroy(pt->batch);
    free(pt);
}

/* Collective.  Replica k starts in slot k; the chains of a group must lay out their
   measurements alike, since a replica's rows go to another chain's accumulators. */
static int pt_create(mcf_run *r)
{
    const mcf_setup *s = r->setup;
    size_t n = r->n_chains, R = (size_t)s->walkers;
    const mcf_axis *ax = &s->axes[s->n_axes - 1]; /* the temperature axis (config.c) */
    mcf_tempering *pt = calloc(1, sizeof *pt);
    int rc = MCF_OK;
    if (pt) {
        pt->every = (uint64_t)s->exchange_every;
        pt->n_temps = ax->n;
        pt->n_groups = n / ax->n;
        size_t np = pt->n_groups * (pt->n_temps - 1) + 1;
        pt->temps = malloc(ax->n * sizeof *pt->temps);
        pt->order = malloc(ax->n * sizeof *pt->order);
        pt->slot = malloc(n * sizeof *pt->slot);
        pt->replica = malloc(n * sizeof *pt->replica);
        pt->attempts = calloc(np, sizeof *pt->attempts);
        pt->accepted = calloc(np, sizeof *pt->accepted);
        pt->trips = calloc(n, sizeof *pt->trips);
        pt->trip_sweeps = calloc(n, sizeof *pt->trip_sweeps);
        pt->trip_start = calloc(n, sizeof *pt->trip_start);
        pt->trip_state = calloc(n, sizeof *pt->trip_state);
        pt->energy = calloc(n, sizeof *pt->energy);
        pt->weigh = mcf_model_tempering(r->ops);
        pt->batch_chain = calloc(n, sizeof *pt->batch_chain);
        pt->batch_state = calloc(n, sizeof *pt->batch_state);
        pt->batch_T = calloc(n, sizeof *pt->batch_T);
        pt->batch_dS = calloc(n, sizeof *pt->batch_dS);
        pt->batch = mcf_batch_create();
    }
    if (!pt || !pt->temps || !pt->order || !pt->slot || !pt->replica || !pt->attempts ||
        !pt->accepted || !pt->trips || !pt->trip_sweeps || !pt->trip_start ||
        !pt->trip_state || !pt->energy || !pt->batch_chain || !pt->batch_state ||
        !pt->batch_T || !pt->batch_dS || !pt->batch) {
        pt_free(pt);
        return mcf_mpi_agree(mcf_fail(MCF_ENOMEM, "out of memory for parallel tempering"));
    }
    r->pt = pt;
    for (size_t t = 0; t < pt->n_temps; t++) {
        pt->temps[t] = ax->values[t].r;
        /* neighbours in temperature, whatever the order of the list: insertion sort,
           stable, so equal temperatures keep the order of the file */
        size_t j = t;
        while (j > 0 && ax->values[pt->order[j - 1]].r > ax->values[t].r) {
            pt->order[j] = pt->order[j - 1];
            j--;
        }
        pt->order[j] = t;
    }
    for (size_t k = 0; k < n; k++)
        pt->slot[k] = pt->replica[k] = k;
    mcf_rng_init(&pt->rng, s->seed, MCF_EXCHANGE_STREAM);
    /* rank 0 knows every chain's layout (share_layouts) */
    for (size_t g = 0; g < pt->n_groups && r->rank == 0 && !rc; g++) {
        const mcf_chain *c0 = &r->chains[pt_chain(pt, R, g, 0)];
        for (size_t t = 1; t < pt->n_temps && !rc; t++) {
            const mcf_chain *c = &r->chains[pt_chain(pt, R, g, t)];
            int same = c->n_values == c0->n_values;
            for (size_t o = 0; o < r->n_declared && same; o++)
                same = c->points[o] == c0->points[o];
            if (!same)
                rc = mcf_fail(MCF_EPLUGIN, "model %s: chains %zu and %zu differ only in "
                              "temperature but measure curves of different lengths; parallel "
                              "tempering needs equal layouts (set exchange_every = 0)",
                              s->model_name, c0->index, c->index);
        }
    }
    return mcf_mpi_agree(rc);
}

/* Tells owned replica k the temperature of the slot it holds (unless force is 0 and that
 * is its own, which it was created with). */
static int pt_set_temperatures(mcf_run *r, size_t k, int force)
{
    mcf_chain *c = &r->chains[k];
    if (!force && r->pt->slot[k] == k)
        return MCF_OK;
    double T = pt_temperature(r, r->pt->slot[k]);
    int rc = r->ops->set_temperature(c->state, T);
    if (rc)
        return mcf_fail_prefix(rc, "model %s: set_temperature(%g) (chain %zu)",
                               r->setup->model_name, T, k);
    return MCF_OK;
}

/* Adds a replica's rows and move counts to the accumulators of slot chain c. */
static void pt_record(mcf_run *r, mcf_chain *c, const double *rows, size_t nrows,
                      uint64_t accepted, uint64_t proposed)
{
    for (size_t i = 0; i < nrows; i++)
        chain_record(r, c, rows + i * c->n_values);
    c->accepted += accepted;
    c->proposed += proposed;
}

static void pt_clear_pending(mcf_chain *c)
{
    c->pending_rows = 0;
    c->pending_accepted = c->pending_proposed = 0;
}

/* Collective, at every chunk's end: the measurements of the chunk go to the slots their
 * replicas held during it (the slots change only between chunks).  A slot gets the rows
 * of one replica per chunk, in sweep order, so every slot's series is the same whatever
 * the ranks and threads.  Under MPI the rows for another rank's slot travel in one
 * allgather: u64 slot, rows, accepted, proposed, values per row, then the rows. */
static int pt_flush(mcf_run *r)
{
    const mcf_tempering *pt = r->pt;
    if (r->ranks == 1) {
        for (size_t k = 0; k < r->n_chains; k++) {
            mcf_chain *c = &r->chains[k];
            pt_record(r, &r->chains[pt->slot[k]], c->pending, c->pending_rows,
                      c->pending_accepted, c->pending_proposed);
            pt_clear_pending(c);
        }
        return MCF_OK;
    }
    mcf_stream out;
    mcf_stream_init_writer(&out);
    int rc = MCF_OK;
    for (size_t k = r->first; k < r->last && !rc; k++) {
        mcf_chain *c = &r->chains[k];
        size_t sl = pt->slot[k];
        if (sl >= r->first && sl < r->last) {
            pt_record(r, &r->chains[sl], c->pending, c->pending_rows, c->pending_accepted,
                      c->pending_proposed);
        } else if (c->pending_rows || c->pending_proposed) {
            uint64_t head[5] = {sl, c->pending_rows, c->pending_accepted, c->pending_proposed,
                                c->n_values};
            rc = mcf_stream_write(&out, head, sizeof head);
            if (!rc)
                rc = mcf_stream_write(&out, c->pending,
                                      c->pending_rows * c->n_values * sizeof *c->pending);
        }
        pt_clear_pending(c);
    }
    unsigned char *all;
    size_t size;
    if ((rc = send_stream(rc, &out, 1, &all, &size)))
        return rc;
    mcf_stream in;
    mcf_stream_init_reader(&in, all, size);
    while (in.pos < in.size && !rc) {
        uint64_t head[5];
        rc = mcf_stream_read(&in, head, sizeof head);
        const int own = !rc && head[0] >= r->first && head[0] < r->last;
        if (rc || head[0] >= r->n_chains || (own && head[4] != r->chains[head[0]].n_values) ||
            head[1] > (in.size - in.pos) / sizeof(double) / (head[4] ? head[4] : 1)) {
            rc = mcf_fail(MCF_EINTERNAL, "parallel tempering: a malformed measurement "
                          "record from the ranks");
            break;
        }
        size_t bytes = (size_t)(head[1] * head[4]) * sizeof(double);
        if (own) {
            /* the bytes may be unaligned in the buffer: copy the rows out first */
            double *rows = malloc(bytes + sizeof(double));
            if (!rows) {
                rc = mcf_fail(MCF_ENOMEM, "out of memory for forwarded measurements");
                break;
            }
            memcpy(rows, in.data + in.pos, bytes);
            pt_record(r, &r->chains[head[0]], rows, (size_t)head[1], head[2], head[3]);
            free(rows);
        }
        in.pos += bytes;
    }
    free(all);
    return mcf_mpi_agree(rc);
}

/* The numbers one exchange round of `parity` needs from this process's replicas, into
 * pt->energy[first, last): with energy() the energies; with exchange_action() dS_k =
 * S_k(T') - S_k(T) at the temperature T' of the slot its own is paired with this round (0
 * for a replica whose slot is not paired), all of the process's in one call. */
static int pt_round_weights(mcf_run *r, size_t parity)
{
    mcf_tempering *pt = r->pt;
    size_t R = (size_t)r->setup->walkers, nT = pt->n_temps;
    if (pt->weigh == MCF_TEMPERING_ENERGY) {
        for (size_t k = r->first; k < r->last; k++)
            pt->energy[k] = r->ops->energy(r->chains[k].state);
        return MCF_OK;
    }
    size_t cnt = 0;
    for (size_t k = r->first; k < r->last; k++)
        pt->energy[k] = 0.0;
    for (size_t g = 0; g < pt->n_groups; g++)
        for (size_t j = parity; j + 1 < nT; j += 2) {
            size_t ta = pt->order[j], tb = pt->order[j + 1];
            size_t ra = pt->replica[pt_chain(pt, R, g, ta)];
            size_t rb = pt->replica[pt_chain(pt, R, g, tb)];
            if (ra >= r->first && ra < r->last) {
                pt->batch_chain[cnt] = ra;
                pt->batch_state[cnt] = r->chains[ra].state;
                pt->batch_T[cnt++] = pt->temps[tb];
            }
            if (rb >= r->first && rb < r->last) {
                pt->batch_chain[cnt] = rb;
                pt->batch_state[cnt] = r->chains[rb].state;
                pt->batch_T[cnt++] = pt->temps[ta];
            }
        }
    if (!cnt)
        return MCF_OK;
    int rc = r->batch_exchange_action
                 ? r->batch_exchange_action(pt->batch, pt->batch_state, cnt, pt->batch_T,
                                            pt->batch_dS)
                 : r->ops->exchange_action(pt->batch_state, cnt, pt->batch_T, pt->batch_dS);
    if (rc)
        return mcf_fail_prefix(rc, "model %s: exchange_action for %zu chains (chains %zu..)",
                               r->setup->model_name, cnt, pt->batch_chain[0]);
    for (size_t i = 0; i < cnt; i++) {
        if (!isfinite(pt->batch_dS[i]))
            return mcf_fail(MCF_EPLUGIN, "model %s: exchange_action gave dS = %g for chain "
                            "%zu at T = %g", r->setup->model_name, pt->batch_dS[i],
                            pt->batch_chain[i], pt->batch_T[i]);
        pt->energy[pt->batch_chain[i]] = pt->batch_dS[i];
    }
    return MCF_OK;
}

/* Collective, before the first sweep of a run or resume with exchange_action: the round
 * that comes next is weighed once and forgotten, so that a refusal (an evaluator that
 * cannot give the action exactly, say) stops the run before hours of sweeps. */
static int pt_check_weights(mcf_run *r)
{
    if (r->pt->weigh != MCF_TEMPERING_ACTION)
        return MCF_OK;
    return mcf_mpi_agree(pt_round_weights(r, (size_t)((r->position / r->pt->every) % 2)));
}

/* Collective, every `every` sweeps (a chunk boundary): one exchange round.  The energies
 * (or action changes) of all replicas reach every rank (allgather); every rank then draws
 * the same decisions from the exchange stream, so the permutation stays identical without
 * more messages. */
static int pt_exchange(mcf_run *r)
{
    mcf_tempering *pt = r->pt;
    const mcf_setup *s = r->setup;
    size_t R = (size_t)s->walkers, nT = pt->n_temps;
    /* even rounds try the pairs (0,1), (2,3), ... of the temperatures in ascending order,
       odd rounds (1,2), (3,4), ...: the pairs of a round are disjoint */
    const size_t parity = (size_t)((r->position / pt->every) % 2);
    int rc = mcf_mpi_agree(pt_round_weights(r, parity));
    if (rc)
        return rc;
    if (r->ranks > 1) {
        unsigned char *all;
        size_t size;
        mcf_mpi_allgather_bytes((const unsigned char *)(pt->energy + r->first),
                                (r->last - r->first) * sizeof *pt->energy, &all, &size);
        if (size == r->n_chains * sizeof *pt->energy)
            memcpy(pt->energy, all, size);
        free(all);
        if (size != r->n_chains * sizeof *pt->energy)
            return mcf_mpi_agree(mcf_fail(MCF_EINTERNAL, "parallel tempering: %zu bytes of "
                                          "energies from the ranks", size));
    }
    /* counted from the first round after thermalization, like the chains' acceptance */
    const int counting = r->position >= (uint64_t)s->thermalize;
    for (size_t g = 0; g < pt->n_groups; g++) {
        for (size_t j = parity; j + 1 < nT; j += 2) {
            size_t ta = pt->order[j], tb = pt->order[j + 1];
            size_t a = pt_chain(pt, R, g, ta), b = pt_chain(pt, R, g, tb);
            size_t ra = pt->replica[a], rb = pt->replica[b];
            double lr = pt->weigh == MCF_TEMPERING_ACTION
                            ? -(pt->energy[ra] + pt->energy[rb])
                            : (1.0 / pt->temps[ta] - 1.0 / pt->temps[tb]) *
                                  (pt->energy[ra] - pt->energy[rb]);
            double u = mcf_rng_uniform(&pt->rng); /* drawn always: a fixed consumption */
            int accept = lr >= 0 || u < exp(lr);
            if (counting) {
                pt->attempts[g * (nT - 1) + j]++;
                pt->accepted[g * (nT - 1) + j] += (uint64_t)accept;
            }
            if (!accept)
                continue;
            pt->replica[a] = rb;
            pt->replica[b] = ra;
            pt->slot[ra] = b;
            pt->slot[rb] = a;
            if (!rc && ra >= r->first && ra < r->last)
                rc = pt_set_temperatures(r, ra, 1);
            if (!rc && rb >= r->first && rb < r->last)
                rc = pt_set_temperatures(r, rb, 1);
        }
        if (!counting)
            continue;
        /* round trips: arrival at the lowest T, the highest T, back at the lowest */
        size_t lo = pt->replica[pt_chain(pt, R, g, pt->order[0])];
        size_t hi = pt->replica[pt_chain(pt, R, g, pt->order[nT - 1])];
        if (pt->trip_state[hi] == 1)
            pt->trip_state[hi] = 2;
        if (pt->trip_state[lo] == 2) {
            pt->trips[lo]++;
            pt->trip_sweeps[lo] += r->position - pt->trip_start[lo];
        }
        if (pt->trip_state[lo] != 1) {
            pt->trip_state[lo] = 1;
            pt->trip_start[lo] = r->position;
        }
    }
    return mcf_mpi_agree(rc);
}

/* ---- the run ------------------------------------------------------------------------- */

#define DEVICE_LINE 256

/* Collective when the evaluator has a probe (a device plugin; the same on every rank): its
 * one line (which device, e.g. "NVIDIA H100 ... device 1 of 2") from every rank into the
 * log, so that a multi-GPU run shows which GPU each rank took.  The core does not read
 * the text. */
static void log_evaluator_devices(const mcf_run *r, const mcf_plugin_info *ev)
{
    if (!ev || !MCF_PLUGIN_INFO_HAS(ev, probe) || !ev->probe)
        return;
    char line[DEVICE_LINE];
    memset(line, 0, sizeof line);
    if (ev->probe(line, sizeof line) != 1 && !line[0])
        snprintf(line, sizeof line, "its probe says it cannot run here");
    line[sizeof line - 1] = '\0';
    if (r->ranks == 1) {
        mcf_log(MCF_LOG_INFO, "evaluator %s: %s", ev->name, line);
        return;
    }
    unsigned char *all = NULL;
    size_t size = 0;
    mcf_mpi_allgather_bytes((const unsigned char *)line, sizeof line, &all, &size);
    for (int k = 0; r->rank == 0 && all && k < r->ranks && ((size_t)k + 1) * DEVICE_LINE <= size;
         k++) {
        char *t = (char *)all + (size_t)k * DEVICE_LINE;
        t[DEVICE_LINE - 1] = '\0';
        mcf_log(MCF_LOG_INFO, "rank %d: evaluator %s: %s", k, ev->name, t);
    }
    free(all);
}

static int file_exists(const char *dir, const char *name)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

static void run_release(mcf_run *r)
{
    if (r->chains)
        for (size_t k = 0; k < r->n_chains; k++)
            chain_release(r, &r->chains[k]);
    free(r->chains);
    free(r->dir);
    free(r->scalar);
    free(r->curve);
    pt_free(r->pt);
}

/* Refuses to start a fresh run over an earlier one (no side effects). */
static int check_output(const mcf_run *r, const mcf_run_options *opt)
{
    if (!opt->resume && !opt->force &&
        (file_exists(r->dir, "checkpoint") || file_exists(r->dir, "results.tsv")))
        return mcf_fail(MCF_EINVAL, "output folder %s already holds a run; continue it with "
                        "`mcf resume %s`, choose another [run] output, or pass --force to "
                        "overwrite it", r->dir, r->dir);
    return MCF_OK;
}

/* Creates the output folder of a fresh run with the configuration as used. */
static int prepare_output(const mcf_run *r, const mcf_run_options *opt)
{
    if (opt->resume)
        return MCF_OK;
    int rc = mcf_mkdir_p(r->dir);
    if (rc)
        return rc;
    char path[4200];
    if (opt->force) {
        snprintf(path, sizeof path, "%s/checkpoint", r->dir);
        unlink(path);
        snprintf(path, sizeof path, "%s/results.tsv", r->dir);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/config.ini", r->dir);
    return mcf_write_atomic(path, r->setup->canonical, strlen(r->setup->canonical));
}

int mcf_run_execute(mcf_setup *setup, const mcf_run_options *opt)
{
    mcf_run run, *r = &run;
    memset(r, 0, sizeof *r);
    r->setup = setup;
    r->ops = setup->model->info->ops;
    r->rank = mcf_mpi_rank();
    r->ranks = mcf_mpi_size();
    for (int k = 0; k < 5; k++)
        r->role[k] = -1;
    while (r->ops->observables[r->n_declared].name)
        r->n_declared++;
    r->dir = strdup(opt->output ? opt->output : setup->output);
    r->scalar = calloc(r->n_declared, sizeof *r->scalar);
    r->curve = calloc(r->n_declared, sizeof *r->curve);
    /* every failure from here on is agreed by all ranks before they leave together */
    int rc = mcf_mpi_agree(!r->dir || !r->scalar || !r->curve
                               ? mcf_fail(MCF_ENOMEM, "out of memory") : MCF_OK);
    if (rc) {
        run_release(r);
        return rc;
    }
    for (size_t o = 0; o < r->n_declared; o++) {
        const mcf_observable_spec *spec = &r->ops->observables[o];
        if (spec->axis) {
            r->curve[r->n_curves++] = o;
            continue;
        }
        if (spec->role)
            r->role[spec->role] = (int)r->n_obs;
        r->scalar[r->n_obs++] = o;
    }
    r->nvars = r->n_obs + (r->role[MCF_ROLE_ENERGY] >= 0 ? 1 : 0);
    if (r->ops->struct_size >= offsetof(mcf_model_ops, measure_batch) + sizeof(void *))
        r->measure_batch = r->ops->measure_batch;
    if (MCF_HAS(mcf_model_ops, r->ops, batch_log_ratio))
        r->batch_log_ratio = r->ops->batch_log_ratio;
    if (MCF_HAS(mcf_model_ops, r->ops, batch_measure))
        r->batch_measure = r->ops->batch_measure;
    if (MCF_HAS(mcf_model_ops, r->ops, batch_exchange_action))
        r->batch_exchange_action = r->ops->batch_exchange_action;
    r->total = (uint64_t)setup->thermalize + (uint64_t)setup->sweeps;
    r->n_meas = (uint64_t)setup->sweeps / (uint64_t)setup->measure_every;
    r->config_hash = mcf_fnv1a64(setup->canonical, strlen(setup->canonical), MCF_FNV_OFFSET);
    r->n_chains = setup->n_points * (size_t)setup->walkers;
    /* the cut that splits a rank's chains into thread groups, one level up: contiguous
       chains, so the gathered records are in chain order */
    r->first = r->n_chains * (size_t)r->rank / (size_t)r->ranks;
    r->last = r->n_chains * (size_t)(r->rank + 1) / (size_t)r->ranks;
    const size_t owned = r->last - r->first;

    int threads = setup->threads > 0 ? (int)setup->threads : omp_get_max_threads();
    if ((size_t)threads > owned)
        threads = (int)owned;
    /* a device evaluator gets all chains in one batch: one group, one stepping thread */
    const mcf_plugin_info *ev_info = setup->evaluator ? setup->evaluator->info : NULL;
    const int one_batch = ev_info && MCF_PLUGIN_INFO_HAS(ev_info, one_batch) && ev_info->one_batch;
    if (one_batch && threads > 1)
        threads = 1;
    FILE *logf = NULL;
    group *groups = NULL;
    int signals_set = 0;
    struct sigaction sa, old_int, old_term;
    /* every chain is created (and so every model parameter checked) before anything is
       written: a refused run leaves no output folder behind */
    rc = mcf_mpi_agree(r->rank == 0 ? check_output(r, opt) : MCF_OK);
    if (rc)
        goto done;
    r->chains = calloc(r->n_chains, sizeof *r->chains);
    groups = calloc((size_t)threads + 1, sizeof *groups);
    if (!r->chains || !groups)
        rc = mcf_fail(MCF_ENOMEM, "out of memory for %zu chains", r->n_chains);
    for (size_t k = r->first; k < r->last && !rc; k++)
        rc = chain_create(r, k);
    rc = mcf_mpi_agree(rc);
    if (!rc && r->ranks > 1)
        rc = share_layouts(r);
    if (rc)
        goto done;
    char logpath[4200];
    if (r->rank == 0) {
        rc = prepare_output(r, opt);
        snprintf(logpath, sizeof logpath, "%s/log", r->dir);
        if (!rc && !(logf = fopen(logpath, "a")))
            rc = mcf_fail(MCF_EIO, "%s: cannot open the log (%s)", logpath, strerror(errno));
    }
    rc = mcf_mpi_agree(rc);
    if (rc)
        goto done;
    /* the log, the progress line and the terminal are rank 0's; the other ranks' failures
       reach them through mcf_mpi_agree() */
    progress_on_terminal = r->rank > 0 ? 0 : opt->progress < 0 ? isatty(STDERR_FILENO)
                                                                 : opt->progress;
    mcf_log_set_file(logf);
    mcf_log_set_echo_info(!progress_on_terminal && r->rank == 0);
    mcf_log_set_rank(r->rank);
    if (r->rank == 0) {
        char ranks[64] = "";
        if (r->ranks > 1)
            snprintf(ranks, sizeof ranks, "%d MPI ranks, rank 0: ", r->ranks);
        mcf_log(MCF_LOG_INFO, "mcf %s: %s %s, model %s %s, evaluator %s, %zu chains, seed %llu, "
                "%s%d threads, output %s", MCF_VERSION_STRING,
                opt->resume ? "resuming" : "starting", setup->config_path, setup->model_name,
                setup->model->info->version, setup->evaluator_name, r->n_chains,
                (unsigned long long)setup->seed, ranks, threads, r->dir);
        if (setup->evaluator_note)
            mcf_log(MCF_LOG_INFO, "%s", setup->evaluator_note);
        if (one_batch && owned > 1)
            mcf_log(MCF_LOG_INFO, "evaluator %s takes all %zu chains %sin one batch: they step "
                    "on one thread, and every Monte Carlo step is one call to it",
                    setup->evaluator_name, owned, r->ranks > 1 ? "of a rank " : "");
        if ((size_t)r->ranks > r->n_chains)
            mcf_log(MCF_LOG_WARN, "%d MPI ranks for %zu chains: %zu of the ranks own no chain "
                    "and only wait; use at most %zu ranks", r->ranks, r->n_chains,
                    (size_t)r->ranks - r->n_chains, r->n_chains);
    }

    log_evaluator_devices(r, ev_info);

    if (setup->exchange_every > 0) {
        rc = pt_create(r);
        if (rc)
            goto done;
        if (r->rank == 0)
            mcf_log(MCF_LOG_INFO, "parallel tempering: every %ld sweeps, exchanges between "
                    "neighbouring temperatures of %zu temperatures in each of %zu groups",
                    setup->exchange_every, r->pt->n_temps, r->pt->n_groups);
    }

    if (opt->resume) {
        rc = load_checkpoint(r);
        if (rc == 1) {
            mcf_log(MCF_LOG_INFO, "no checkpoint in %s: starting from the first sweep", r->dir);
            rc = MCF_OK;
        } else if (rc) {
            goto done;
        } else {
            mcf_log(MCF_LOG_INFO, "resumed from the checkpoint at sweep %llu of %llu",
                    (unsigned long long)r->position, (unsigned long long)r->total);
            /* the replicas continue at the temperatures the checkpoint gave them */
            for (size_t k = r->first; k < r->last && r->pt && !rc; k++)
                rc = pt_set_temperatures(r, k, 0);
            rc = mcf_mpi_agree(rc);
            if (rc)
                goto done;
        }
    }

    for (int g = 0; g < threads && !rc; g++) {
        group *gr = &groups[g];
        gr->first = r->first + owned * (size_t)g / (size_t)threads;
        gr->n = r->first + owned * (size_t)(g + 1) / (size_t)threads - gr->first;
        gr->states = calloc(gr->n, sizeof *gr->states);
        gr->active_states = calloc(gr->n, sizeof *gr->active_states);
        gr->active = calloc(gr->n, sizeof *gr->active);
        gr->moves = calloc(gr->n, r->ops->move_size);
        gr->log_ratio = calloc(gr->n, sizeof *gr->log_ratio);
        for (size_t k = 0; k < gr->n; k++)
            if (r->chains[gr->first + k].n_values > gr->stride)
                gr->stride = r->chains[gr->first + k].n_values;
        gr->values = calloc(gr->n * gr->stride, sizeof *gr->values);
        gr->value_rows = calloc(gr->n, sizeof *gr->value_rows);
        gr->batch = mcf_batch_create();
        if (!gr->states || !gr->active_states || !gr->active || !gr->moves || !gr->log_ratio ||
            !gr->values || !gr->value_rows || !gr->batch) {
            rc = mcf_fail(MCF_ENOMEM, "out of memory");
            break;
        }
        for (size_t k = 0; k < gr->n; k++) {
            gr->value_rows[k] = gr->values + k * gr->stride;
            gr->states[k] = r->chains[gr->first + k].state;
        }
    }
    rc = mcf_mpi_agree(rc);
    if (!rc && r->pt)
        rc = pt_check_weights(r);
    if (rc)
        goto done;

    stop_signal = 0;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    signals_set = 1;

    double started = now_seconds();
    uint64_t start_pos = r->position, chunk = 1;
    uint64_t every = (uint64_t)setup->checkpoint_every;
    while (r->position < r->total && !rc) {
        uint64_t n = chunk;
        if (n > r->total - r->position)
            n = r->total - r->position;
        if (every && n > every - r->position % every)
            n = every - r->position % every;
        /* an exchange round is a synchronisation point: chunks end there */
        if (r->pt && n > r->pt->every - r->position % r->pt->every)
            n = r->pt->every - r->position % r->pt->every;
        double t0 = now_seconds();
        uint64_t pos = r->position;
        if (threads == 1) {
            /* no parallel region around a single group: a model may spread its batch's
               host work over the cores itself, and inside even a one-thread region each
               of its regions would be a nested team (measured: 4-7x slower sweeps of 16
               slater-jastrow walkers with blip-cuda than with no model threads at all) */
            for (uint64_t k = 0; k < n && !groups[0].status; k++)
                sweep_group(r, &groups[0], pos + k);
        } else if (threads > 1) {
#pragma omp parallel for schedule(static, 1) num_threads(threads)
            for (int g = 0; g < threads; g++)
                for (uint64_t k = 0; k < n && !groups[g].status; k++)
                    sweep_group(r, &groups[g], pos + k);
        }
        for (int g = 0; g < threads && !rc; g++)
            if (groups[g].status) {
                rc = groups[g].status;
                mcf_fail(rc, "%s", groups[g].message);
            }
        /* a synchronisation point: the ranks agree on failures, the stop signal (caught
           by any of them) and the next chunk, so they write the same checkpoints and
           stop together */
        rc = mcf_mpi_agree(rc);
        if (rc)
            break;
        r->position += n;
        if (r->pt) {
            rc = pt_flush(r);
            if (!rc && r->position % r->pt->every == 0 && r->position < r->total)
                rc = pt_exchange(r);
            if (rc)
                break;
        }
        double shared[2] = {now_seconds() - t0, (double)stop_signal};
        mcf_mpi_max_doubles(shared, 2);
        double dt = shared[0];
        int stop = (int)shared[1];
        if (dt < 0.05 && chunk < (1u << 20))
            chunk *= 2;
        else if (dt > 0.5 && chunk > 1)
            chunk /= 2;
        uint64_t counts[2];
        count_moves(r, counts);
        if (r->rank == 0)
            progress(r, started, start_pos, counts[0], counts[1], 0);
        if (stop) {
            last_stop_signal = stop;
            mcf_progress_clear();
            rc = save_checkpoint(r);
            if (!rc) {
                mcf_log(MCF_LOG_INFO, "stopped by signal %d at sweep %llu; checkpoint written; "
                        "continue with `mcf resume %s`", stop,
                        (unsigned long long)r->position, r->dir);
                rc = mcf_fail(MCF_EINTR, "stopped by signal %d at sweep %llu of %llu; "
                              "continue with `mcf resume %s`", stop,
                              (unsigned long long)r->position, (unsigned long long)r->total,
                              r->dir);
            }
            break;
        }
        if (every && r->position % every == 0 && r->position < r->total)
            rc = save_checkpoint(r);
    }
    if (!rc) {
        uint64_t counts[2];
        count_moves(r, counts);
        if (r->rank == 0)
            progress(r, started, start_pos, counts[0], counts[1], 1);
        rc = save_checkpoint(r);
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    signals_set = 0;
    char *summary = NULL;
    if (!rc) {
        /* results.tsv, the summary and the plots: rank 0, from every chain's accumulators */
        if (r->rank == 0)
            rc = mcf_results_write(r, &summary);
        rc = mcf_mpi_agree(rc);
    }
    if (!rc && r->rank == 0) {
        /* the headline numbers on standard output (the run's results, not a log line) */
        if (summary) {
            fputs(summary, stdout);
            fflush(stdout);
        }
        mcf_log(MCF_LOG_INFO, "finished: results in %s/results.tsv", r->dir);
        int n_plots = 0;
        if (mcf_plot_dir(r->dir, &n_plots) == MCF_OK)
            mcf_log(MCF_LOG_INFO, "plots: %d SVG files %s/plot-*.svg", n_plots, r->dir);
        else
            mcf_log(MCF_LOG_WARN, "no plots drawn: %s", mcf_last_error());
    }
    free(summary);

done:
    if (signals_set) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
    }
    if (groups)
        for (int g = 0; g < threads; g++) {
            free(groups[g].states);
            free(groups[g].active_states);
            free(groups[g].active);
            free(groups[g].moves);
            free(groups[g].log_ratio);
            free(groups[g].values);
            free(groups[g].value_rows);
            mcf_batch_destroy(groups[g].batch);
        }
    free(groups);
    {
        /* keep the message: releasing chains may not clobber it */
        char msg[4096];
        snprintf(msg, sizeof msg, "%s", mcf_last_error());
        run_release(r);
        mcf_fail(rc, "%s", msg);
        if (rc && logf)
            fprintf(logf, "%s: %s\n", rc == MCF_EINTR ? "stopped" : "error", msg);
    }
    mcf_log_set_file(NULL);
    mcf_log_set_echo_info(0);
    mcf_log_set_rank(0);
    progress_on_terminal = 0;
    if (logf)
        fclose(logf);
    return rc;
}
