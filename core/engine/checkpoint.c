/* checkpoint.c — the run's checkpoint: everything needed to continue bit for bit.  The
 * format's writer, its reader and the checks of what is read stay together, so that a
 * field added to the writer is read and checked beside it; the tempering state behind the
 * chains' records is checkpoint_tempering.c's.
 *
 * Layout (host byte order, recorded in the header):
 *   header   "MCF-CKPT", u32 format, u32 byte-order mark 0x01020304, u32 record layout
 *            (CKPT_RECORD_LAYOUT, below; the field was named "ABI"), u32 n_obs,
 *            u64 config hash (FNV-1a of config.ini as used), u64 position (sweeps done),
 *            u64 chains, u64 nvars, u64 bins
 *   chains   per chain: u64 record size, then index, RNG state, counters, blocking
 *            accumulators, jackknife bins, curve bins, u64 model-state size, model state
 *   tempering only with [schedule] exchange_every > 0 (config.ini, and so the config hash,
 *            says whether it is there): "MCF-PT01", u64 every, temperatures, groups, chains,
 *            per replica u64 slot, the exchange stream, per pair u64 attempts and accepted,
 *            per replica u64 round trips, their sweeps, the start of the current one, and
 *            u8 its state (mcf_tempering in run_state.h)
 *   dmc      only with [run] method = dmc (config.ini says so): "MCF-DMC2" and the
 *            population's state (checkpoint_dmc.c)
 *   trailer  u64 FNV-1a checksum of every byte before it, from CKPT_CHECKSUM_SEED
 * The file is written to a temporary name and renamed, so a kill at any moment leaves
 * either the old or the new checkpoint, never a torn one.  Reading back, only a regular
 * file no larger than the configuration allows is read; a corrupt, truncated or foreign
 * file is refused before anything is taken from it, and so is one whose checksum is right
 * but whose counts, indices or sizes are out of range for the configuration.
 * The chains' records are also what MPI ranks exchange: rank 0 gathers every rank's
 * records and writes them behind the header, so the file does not depend on the ranks. */
#define _POSIX_C_SOURCE 200809L
#include "checkpoint.h"
#include "error_target.h"
#include "fileio.h"
#include "hmc.h"
#include "ownership.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CKPT_MAGIC "MCF-CKPT"
#define CKPT_FORMAT 1u
#define CKPT_BOM 0x01020304u
/* The header's fourth field: the layout of the models' records behind it.  It was written
 * as MCF_ABI_VERSION, 1, until mcf 1.0.  ABI 2 kept the layout (the core writes an ABI-2
 * model's record as mcf_state_save of its described fields: the bytes of its ABI-1 save(),
 * docs/sdk-1.md), so the field stays 1 and a checkpoint is the same file, byte for byte,
 * whichever ABI wrote it; an older checkpoint resumes under mcf 1.0 and a newer one under
 * mcf 0.8.  It changes only with the layout of the records, not with the plugin ABI. */
#define CKPT_RECORD_LAYOUT 1u
/* The checksum's start value.  MCF_FNV_OFFSET is FNV-1a's 64-bit offset basis,
 * 14695981039346656037, without its last digit; every checkpoint since mcf 0.1 is summed
 * from it, so it stays (any fixed start detects the corruption a checksum is for). */
#define CKPT_CHECKSUM_SEED MCF_FNV_OFFSET

typedef struct ckpt_header {
    char magic[8];
    uint32_t format, bom, abi, n_obs;
    uint64_t config_hash, position, chains, nvars, bins;
} ckpt_header;

static int put(mcf_stream *s, const void *p, size_t n) { return mcf_stream_write(s, p, n); }

static int write_chain(const mcf_run *r, const mcf_chain *c, mcf_stream *out)
{
    mcf_stream rec, model;
    mcf_stream_init_writer(&rec);
    mcf_stream_init_writer(&model);
    uint64_t index = c->index;
    int rc = put(&rec, &index, sizeof index);
    if (!rc) rc = put(&rec, &c->rng, sizeof c->rng);
    if (!rc) rc = put(&rec, &c->accepted, sizeof c->accepted);
    if (!rc) rc = put(&rec, &c->proposed, sizeof c->proposed);
    if (!rc) rc = put(&rec, &c->block_accepted, sizeof c->block_accepted);
    if (!rc) rc = put(&rec, &c->block_proposed, sizeof c->block_proposed);
    if (!rc) rc = put(&rec, &c->measurements, sizeof c->measurements);
    if (!rc) rc = put(&rec, c->blocking, r->n_obs * sizeof *c->blocking);
    if (!rc) rc = put(&rec, c->bin_sum, (size_t)r->setup->bins * r->nvars * sizeof(double));
    if (!rc) rc = put(&rec, c->bin_count, (size_t)r->setup->bins * sizeof(double));
    if (!rc) rc = put(&rec, c->curve_bin_sum,
                      (size_t)r->setup->bins * c->curve_values * sizeof(double));
    if (!rc) {
        rc = MCFI_MODEL(r->model, save, c->state, &model);
        if (rc)
            rc = mcf_fail_prefix(rc, "model %s: save (chain %zu)", r->setup->model_name,
                                 c->index);
    }
    uint64_t msize = model.size;
    if (!rc) rc = put(&rec, &msize, sizeof msize);
    if (!rc) rc = put(&rec, model.data, model.size);
    if (!rc) rc = mcfi_hmc_tune_save(r->setup, c, &rec); /* hmc_dt = auto only */
    uint64_t rsize = rec.size;
    if (!rc) rc = put(out, &rsize, sizeof rsize);
    if (!rc) rc = put(out, rec.data, rec.size);
    mcf_stream_release(&rec);
    mcf_stream_release(&model);
    return rc;
}

int mcfi_checkpoint_records(const mcf_run *r, mcf_stream *out)
{
    int rc = MCF_OK;
    for (size_t i = 0; i < r->n_own && !rc; i++)
        rc = write_chain(r, &r->chains[r->own[i]], out);
    return rc;
}

/* A random stream read back must be the one it replaces (`fresh`: same seed and stream
 * index) at some point of its sequence: at most 4 words of the block handed out. */
int mcfi_checkpoint_rng_check(const mcf_rng *got, const mcf_rng *fresh)
{
    if (got->key[0] != fresh->key[0] || got->key[1] != fresh->key[1] ||
        got->stream != fresh->stream)
        return mcf_fail(MCF_EFORMAT, "rng: key %08x%08x, stream %llu; the run's stream has "
                        "key %08x%08x, stream %llu (the seed and the chain index)",
                        (unsigned)got->key[1], (unsigned)got->key[0],
                        (unsigned long long)got->stream, (unsigned)fresh->key[1],
                        (unsigned)fresh->key[0], (unsigned long long)fresh->stream);
    if (got->used > 4 || (got->used < 4 && got->counter == 0) || got->reserved)
        return mcf_fail(MCF_EFORMAT, "rng: used = %u of block %llu, reserved = %u; at most 4 "
                        "words of a generated block, reserved 0", (unsigned)got->used,
                        (unsigned long long)got->counter, (unsigned)got->reserved);
    return MCF_OK;
}

int mcfi_checkpoint_write_records(const mcf_run *r, const unsigned char *records, size_t size)
{
    mcf_stream out;
    mcf_stream_init_writer(&out);
    ckpt_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, CKPT_MAGIC, 8);
    h.format = CKPT_FORMAT;
    h.bom = CKPT_BOM;
    h.abi = CKPT_RECORD_LAYOUT;
    h.n_obs = (uint32_t)r->n_obs;
    h.config_hash = r->config_hash;
    h.position = r->position;
    h.chains = r->n_chains;
    h.nvars = r->nvars;
    h.bins = (uint64_t)r->setup->bins;
    int rc = put(&out, &h, sizeof h);
    if (!rc)
        rc = put(&out, records, size);
    if (!rc && r->pt)
        rc = mcfi_checkpoint_tempering_write(r, &out);
    if (!rc && r->dmc)
        rc = mcfi_checkpoint_dmc_write(r, &out);
    uint64_t sum = mcfi_fnv1a64(out.data, out.size, CKPT_CHECKSUM_SEED);
    if (!rc)
        rc = put(&out, &sum, sizeof sum);
    if (!rc) {
        char path[4200];
        snprintf(path, sizeof path, "%s/checkpoint", r->dir);
        rc = mcfe_write_atomic(path, out.data, out.size);
        if (!rc)
            mcf_log(MCF_LOG_DEBUG, "checkpoint at sweep %llu: %zu bytes",
                    (unsigned long long)r->position, out.size);
    }
    mcf_stream_release(&out);
    return rc;
}

int mcfi_checkpoint_write(const mcf_run *r)
{
    mcf_stream rec;
    mcf_stream_init_writer(&rec);
    int rc = mcfi_checkpoint_records(r, &rec); /* one process owns every chain */
    if (!rc)
        rc = mcfi_checkpoint_write_records(r, rec.data, rec.size);
    mcf_stream_release(&rec);
    return rc;
}


/* ---- reading back: the checksum is integrity, not trust ------------------------------
 * A file whose checksum is right may still be crafted, or written by a buggy mcf: every
 * count, index and size in it is checked against the configuration before anything is
 * taken into the run (mcfi_checkpoint_read_file), and the loading (read_chain) reads into
 * temporaries that it commits only whole. */

#define START_OVER "remove it to start the run over"

/* Bytes of chain c's record without its model state (behind its u64 record size). */
static uint64_t record_fixed_size(const mcf_run *r, const mcf_chain *c)
{
    uint64_t nb = (uint64_t)r->setup->bins;
    return 6 * sizeof(uint64_t) + sizeof(mcf_rng) + r->n_obs * sizeof(mcf_blocking) +
           nb * (r->nvars + 1 + c->curve_values) * sizeof(double) + sizeof(uint64_t);
}

/* The largest checkpoint this configuration can have: *fixed, what the configuration sets
 * (header, trailer, the records without model states, the tempering record), plus model
 * states no larger than this machine's memory, into which the file is read whole. */
static uint64_t size_limit(const mcf_run *r, uint64_t *fixed)
{
    size_t n = r->n_chains;
    uint64_t bytes = sizeof(ckpt_header) + sizeof(uint64_t), memory = mcfi_memory_bytes();
    for (size_t k = 0; k < n; k++)
        bytes += sizeof(uint64_t) + record_fixed_size(r, &r->chains[k]);
    if (r->pt)
        bytes += 8 + 4 * sizeof(uint64_t) + sizeof(mcf_rng) + n +
                 (2 * r->pt->n_groups * (r->pt->n_temps - 1) + 4 * n) * sizeof(uint64_t);
    *fixed = bytes;
    return bytes + memory;
}

/* path into memory: a regular file of at most the configuration's size limit (a FIFO in
 * its place would block, a device never end, a folder not be read at all). */
static int read_regular(const mcf_run *r, const char *path, unsigned char **data, size_t *size)
{
    *data = NULL;
    *size = 0;
    struct stat st;
    uint64_t fixed, limit = size_limit(r, &fixed);
    int fd;
    /* the whole file and a NUL go into one allocation */
    int problem = mcfe_open_file(path, O_RDONLY, limit < SIZE_MAX - 1 ? limit : SIZE_MAX - 1,
                                 &fd, &st);
    if (problem == MCFI_FILE_CANNOT_OPEN)
        return mcf_fail(MCF_EIO, "%s: cannot open (%s)", path, strerror(errno));
    if (problem == MCFI_FILE_NOT_REGULAR)
        return mcf_fail(MCF_EFORMAT, "%s: not a regular file but %s; a checkpoint is a file "
                        "written by mcf: " START_OVER, path, mcfi_file_kind(st.st_mode));
    if (problem == MCFI_FILE_TOO_LARGE)
        return mcf_fail(MCF_EFORMAT, "%s: size = %llu bytes, more than a checkpoint of this "
                        "configuration can hold (%llu bytes of counters and accumulators, and "
                        "model states no larger than this machine's %llu bytes of memory); "
                        START_OVER, path, (unsigned long long)st.st_size,
                        (unsigned long long)fixed, (unsigned long long)(limit - fixed));
    size_t want = (size_t)st.st_size, len = 0;
    unsigned char *buf = malloc(want + 1);
    int rc = buf ? MCF_OK : mcf_fail(MCF_ENOMEM, "%s: out of memory for %zu bytes", path, want);
    while (!rc && len < want) {
        ssize_t got = read(fd, buf + len, want - len);
        if (got < 0 && errno != EINTR)
            rc = mcf_fail(MCF_EIO, "%s: read error (%s)", path, strerror(errno));
        else if (got == 0)
            break; /* shrunk while read: the checksum refuses it */
        else if (got > 0)
            len += (size_t)got;
    }
    close(fd);
    if (rc) {
        free(buf);
        return rc;
    }
    *data = buf;
    *size = len;
    return MCF_OK;
}

/* One chain's record read back into temporaries (record_read; record_release frees). */
typedef struct ckpt_record {
    uint64_t index, accepted, proposed, block_accepted, block_proposed, measurements;
    mcf_rng rng;
    mcf_blocking *blk;
    double *bsum, *bcnt, *csum;
    mcf_stream model; /* a reader over the model state */
    mcf_stream tune;  /* a reader over hmc_dt = auto's tuning (tune_size bytes, or none) */
    size_t tune_size;
} ckpt_record;

static void record_release(ckpt_record *x)
{
    free(x->blk);
    free(x->bsum);
    free(x->bcnt);
    free(x->csum);
}

/* Reads the record of chain c from in into *x (released by the caller, also on error):
 * the sizes that frame it must fit. */
static int record_read(const mcf_run *r, const mcf_chain *c, mcf_stream *in, ckpt_record *x)
{
    memset(x, 0, sizeof *x);
    size_t nb = (size_t)r->setup->bins;
    uint64_t rsize, msize;
    int rc = mcf_stream_read(in, &rsize, sizeof rsize);
    if (rc)
        return rc;
    if (rsize > in->size - in->pos)
        return mcf_fail(MCF_EFORMAT, "record size = %llu bytes; %zu remain in the file",
                        (unsigned long long)rsize, in->size - in->pos);
    mcf_stream rec;
    mcf_stream_init_reader(&rec, in->data + in->pos, (size_t)rsize);
    in->pos += (size_t)rsize;
    x->blk = malloc(r->n_obs * sizeof *x->blk + 1);
    x->bsum = malloc(nb * r->nvars * sizeof *x->bsum + 1);
    x->bcnt = malloc(nb * sizeof *x->bcnt + 1);
    x->csum = malloc(nb * c->curve_values * sizeof *x->csum + 1);
    if (!x->blk || !x->bsum || !x->bcnt || !x->csum)
        return mcf_fail(MCF_ENOMEM, "out of memory");
    rc = mcf_stream_read(&rec, &x->index, sizeof x->index);
    if (!rc && x->index != c->index)
        rc = mcf_fail(MCF_EFORMAT, "index = %llu; record %zu is chain %zu's",
                      (unsigned long long)x->index, c->index, c->index);
    if (!rc) rc = mcf_stream_read(&rec, &x->rng, sizeof x->rng);
    if (!rc) rc = mcf_stream_read(&rec, &x->accepted, sizeof x->accepted);
    if (!rc) rc = mcf_stream_read(&rec, &x->proposed, sizeof x->proposed);
    if (!rc) rc = mcf_stream_read(&rec, &x->block_accepted, sizeof x->block_accepted);
    if (!rc) rc = mcf_stream_read(&rec, &x->block_proposed, sizeof x->block_proposed);
    if (!rc) rc = mcf_stream_read(&rec, &x->measurements, sizeof x->measurements);
    if (!rc) rc = mcf_stream_read(&rec, x->blk, r->n_obs * sizeof *x->blk);
    if (!rc) rc = mcf_stream_read(&rec, x->bsum, nb * r->nvars * sizeof *x->bsum);
    if (!rc) rc = mcf_stream_read(&rec, x->bcnt, nb * sizeof *x->bcnt);
    if (!rc) rc = mcf_stream_read(&rec, x->csum, nb * c->curve_values * sizeof *x->csum);
    if (!rc) rc = mcf_stream_read(&rec, &msize, sizeof msize);
    /* behind the model state: hmc_dt = auto's tuning, or nothing (a number, or a
     * checkpoint written before auto existed) */
    const uint64_t left = rc ? 0 : rec.size - rec.pos;
    const int tuning = r->setup->hmc && r->setup->hmc_dt_auto;
    if (!rc && msize != left && !(tuning && (msize + MCFI_HMC_TUNE_BYTES == left ||
                                             msize + MCFI_HMC_TUNE_BYTES_110 == left)))
        rc = mcf_fail(MCF_EFORMAT, "model state size = %llu bytes; the record leaves %llu",
                      (unsigned long long)msize, (unsigned long long)left);
    if (!rc) {
        mcf_stream_init_reader(&x->model, rec.data + rec.pos, (size_t)msize);
        x->tune_size = (size_t)(left - msize);
        mcf_stream_init_reader(&x->tune, rec.data + rec.pos + msize, x->tune_size);
    }
    return rc;
}

/* Measurements of a run of n_meas in `bins` bins that measurement t < made went to bin b
 * (mcfi_chain_record: t * bins / n_meas), without the product's overflow. */
static uint64_t bin_measurements(uint64_t made, uint64_t n_meas, uint64_t bins, uint64_t b)
{
    /* first t of bin b: ceil(b n_meas / bins) */
    uint64_t q = n_meas / bins, rem = n_meas % bins;
    uint64_t lo = b * q + (b * rem + bins - 1) / bins;
    uint64_t hi = (b + 1) * q + ((b + 1) * rem + bins - 1) / bins;
    return (hi < made ? hi : made) - (lo < made ? lo : made);
}

/* The counts of chain c's record against what sweep `position` of the schedule has done:
 * the measurement counter (it picks the bin the next measurement goes to), the blocking
 * levels and bin counts that follow from it, the move counts and the random stream. */
static int record_check(const mcf_run *r, const mcf_chain *c, const ckpt_record *x,
                        uint64_t position)
{
    const mcf_setup *s = r->setup;
    uint64_t therm = (uint64_t)s->thermalize, nb = (uint64_t)s->bins;
    uint64_t made = position > therm ? (position - therm) / (uint64_t)s->measure_every : 0;
    if (s->dmc && c->index % (size_t)s->walkers != 0)
        made = 0; /* DMC: walker 0 records its point's population, the others nothing */
    /* the bins are laid out for the measured phase of `position` (error_target.h) */
    uint64_t n_meas = mcfi_measured_sweeps_at(s, position) / (uint64_t)s->measure_every;
    int rc = mcfi_checkpoint_rng_check(&x->rng, &c->rng);
    if (!rc && x->measurements != made)
        rc = mcf_fail(MCF_EFORMAT, "measurements = %llu; by sweep %llu the schedule "
                      "(thermalize = %ld, measure_every = %ld) has made %llu",
                      (unsigned long long)x->measurements, (unsigned long long)position,
                      s->thermalize, s->measure_every, (unsigned long long)made);
    /* measured-phase counts only after thermalization, the adaptation block's only before */
    if (!rc && (x->accepted > x->proposed || x->block_accepted > x->block_proposed ||
                (position <= therm && x->proposed) || (position >= therm && x->block_proposed)))
        rc = mcf_fail(MCF_EFORMAT, "accepted = %llu, proposed = %llu, block_accepted = %llu, "
                      "block_proposed = %llu at sweep %llu; no more accepted than proposed, "
                      "and thermalize = %ld ends the block's counts and starts the others",
                      (unsigned long long)x->accepted, (unsigned long long)x->proposed,
                      (unsigned long long)x->block_accepted,
                      (unsigned long long)x->block_proposed, (unsigned long long)position,
                      s->thermalize);
    for (size_t k = 0; k < r->n_obs && !rc; k++)
        if (x->blk[k].count != made || !mcfi_blocking_consistent(&x->blk[k]))
            rc = mcf_fail(MCF_EFORMAT, "blocking[%zu]: count = %llu, with the counts of its "
                          "levels; the count is the %llu measurements, and level l holds "
                          "count >> l blocks, one pending when that is odd", k,
                          (unsigned long long)x->blk[k].count, (unsigned long long)made);
    for (uint64_t b = 0; b < nb && !rc; b++) {
        uint64_t want = bin_measurements(made, n_meas, nb, b);
        if (x->bcnt[b] != (double)want)
            rc = mcf_fail(MCF_EFORMAT, "bin_count[%llu] = %g; %llu measurements put %llu in "
                          "that bin", (unsigned long long)b, x->bcnt[b],
                          (unsigned long long)made, (unsigned long long)want);
    }
    return rc;
}

/* Loads chain c's record: its model state when c has a model instance, then the rest. */
static int read_chain(mcf_run *r, mcf_chain *c, mcf_stream *in, const char *path)
{
    ckpt_record x;
    int rc = record_read(r, c, in, &x);
    if (!rc && c->state) {
        rc = MCFI_MODEL(r->model, load, c->state, &x.model);
        if (!rc && x.model.pos != x.model.size)
            rc = mcf_fail(MCF_EFORMAT, "model %s left %zu bytes of its state unread",
                          r->setup->model_name, x.model.size - x.model.pos);
    }
    if (!rc) {
        size_t nb = (size_t)r->setup->bins;
        if (c->curve_values)
            memcpy(c->curve_bin_sum, x.csum, nb * c->curve_values * sizeof *x.csum);
        memcpy(c->blocking, x.blk, r->n_obs * sizeof *x.blk);
        memcpy(c->bin_sum, x.bsum, nb * r->nvars * sizeof *x.bsum);
        memcpy(c->bin_count, x.bcnt, nb * sizeof *x.bcnt);
        c->rng = x.rng;
        c->accepted = x.accepted;
        c->proposed = x.proposed;
        c->block_accepted = x.block_accepted;
        c->block_proposed = x.block_proposed;
        c->measurements = x.measurements;
        if (r->setup->hmc && r->setup->hmc_dt_auto)
            rc = mcfi_hmc_tune_load(r->setup, c, &x.tune, x.tune_size);
    }
    record_release(&x);
    if (rc)
        return mcf_fail_prefix(rc, "%s: chain %zu", path, c->index);
    return MCF_OK;
}

/* Steps over chain k's record. */
static int skip_chain(mcf_stream *in, size_t k, const char *origin)
{
    uint64_t rsize;
    int rc = mcf_stream_read(in, &rsize, sizeof rsize);
    if (rc || rsize > in->size - in->pos)
        return mcf_fail(MCF_EFORMAT, "%s: chain %zu: record size beyond the end of the records",
                        origin, k);
    in->pos += (size_t)rsize;
    return MCF_OK;
}

static int no_trailing_bytes(const mcf_stream *in, const char *origin)
{
    if (in->pos != in->size)
        return mcf_fail(MCF_EFORMAT, "%s: %zu unexpected bytes after the last record", origin,
                        in->size - in->pos);
    return MCF_OK;
}

int mcfi_checkpoint_load_records(mcf_run *r, const unsigned char *records, size_t size,
                                 int owned, int tempering, const char *origin)
{
    mcf_stream in;
    mcf_stream_init_reader(&in, records, size);
    int rc = MCF_OK;
    for (size_t k = 0; k < r->n_chains && !rc; k++)
        rc = mcfi_owns(r, k) == !!owned ? read_chain(r, &r->chains[k], &in, origin)
                                        : skip_chain(&in, k, origin);
    if (!rc && tempering && r->pt)
        rc = mcfi_checkpoint_tempering_read(r, &in, origin);
    if (!rc && tempering && r->dmc)
        rc = mcfi_checkpoint_dmc_read(r, &in, UINT64_MAX, 1); /* checked at its sweep */
    if (!rc)
        rc = no_trailing_bytes(&in, origin);
    return rc;
}

/* Every record of the file (all chains, also other ranks'; the tempering record) checked
 * against the configuration at sweep `position`, nothing taken. */
static int check_records(const mcf_run *r, const unsigned char *records, size_t size,
                         uint64_t position, const char *path)
{
    mcf_stream in;
    mcf_stream_init_reader(&in, records, size);
    int rc = MCF_OK;
    for (size_t k = 0; k < r->n_chains && !rc; k++) {
        ckpt_record x;
        rc = record_read(r, &r->chains[k], &in, &x);
        if (!rc)
            rc = record_check(r, &r->chains[k], &x, position);
        record_release(&x);
        if (rc)
            rc = mcf_fail_prefix(rc, "%s: chain %zu", path, k);
    }
    if (!rc && r->pt && (rc = mcfi_checkpoint_tempering_check(r, &in, position)))
        rc = mcf_fail_prefix(rc, "%s: parallel tempering", path);
    if (!rc && r->dmc && (rc = mcfi_checkpoint_dmc_read(r, &in, position, 0)))
        rc = mcf_fail_prefix(rc, "%s", path);
    if (!rc)
        rc = no_trailing_bytes(&in, path);
    return rc;
}

/* The header and the trailer of the file in data: an mcf checkpoint, intact, of this
 * format, configuration and schedule. */
static int check_frame(const mcf_run *r, const unsigned char *data, size_t size,
                       ckpt_header *h, const char *path)
{
    uint64_t sum;
    if (size < sizeof *h + sizeof sum || memcmp(data, CKPT_MAGIC, 8) != 0)
        return mcf_fail(MCF_EFORMAT, "%s: not an mcf checkpoint (wrong magic or too short); "
                        START_OVER, path);
    memcpy(&sum, data + size - sizeof sum, sizeof sum);
    memcpy(h, data, sizeof *h);
    if (h->bom != CKPT_BOM)
        return mcf_fail(MCF_EFORMAT, "%s: written on a machine of another byte order", path);
    if (mcfi_fnv1a64(data, size - sizeof sum, CKPT_CHECKSUM_SEED) != sum)
        return mcf_fail(MCF_EFORMAT, "%s: checksum mismatch: the file is corrupt or truncated; "
                        START_OVER, path);
    if (h->format != CKPT_FORMAT || h->abi != CKPT_RECORD_LAYOUT)
        return mcf_fail(MCF_EFORMAT, "%s: checkpoint format %u / record layout %u, this mcf "
                        "reads format %u / record layout %u", path, h->format, h->abi,
                        CKPT_FORMAT, CKPT_RECORD_LAYOUT);
    if (h->config_hash != r->config_hash &&
        (!r->config_hash_before || h->config_hash != r->config_hash_before))
        return mcf_fail(MCF_EFORMAT, "%s: the checkpoint belongs to another configuration "
                        "than %s/config.ini (edited since?); restore that file or start a new "
                        "run", path, r->dir);
    /* the configuration is the same: a count that differs was not written by this mcf */
    const char *names[4] = {"chains", "n_obs", "nvars", "bins"};
    const uint64_t got[4] = {h->chains, h->n_obs, h->nvars, h->bins};
    const uint64_t want[4] = {r->n_chains, r->n_obs, r->nvars, (uint64_t)r->setup->bins};
    for (int k = 0; k < 4; k++)
        if (got[k] != want[k])
            return mcf_fail(MCF_EFORMAT, "%s: header: %s = %llu; the configuration has %llu; "
                            START_OVER, path, names[k], (unsigned long long)got[k],
                            (unsigned long long)want[k]);
    if (h->position > r->max_total)
        return mcf_fail(MCF_EFORMAT, "%s: header: position = %llu; the schedule has %llu "
                        "sweeps (thermalize + sweeps%s); " START_OVER, path,
                        (unsigned long long)h->position, (unsigned long long)r->max_total,
                        r->setup->n_targets ? ", sweeps doubled up to max_sweeps" : "");
    return MCF_OK;
}

int mcfi_checkpoint_read_file(const mcf_run *r, unsigned char **records, size_t *records_size,
                              uint64_t *position)
{
    *records = NULL;
    *records_size = 0;
    char path[4200];
    snprintf(path, sizeof path, "%s/checkpoint", r->dir);
    if (access(path, F_OK) != 0)
        return 1;
    unsigned char *data;
    size_t size;
    int rc = read_regular(r, path, &data, &size);
    if (rc)
        return rc;
    ckpt_header h;
    memset(&h, 0, sizeof h);
    rc = check_frame(r, data, size, &h, path);
    size_t n = rc ? 0 : size - sizeof h - sizeof(uint64_t);
    if (!rc)
        rc = check_records(r, data + sizeof h, n, h.position, path);
    if (rc) {
        free(data);
        return rc;
    }
    /* the records move to the front: the buffer is what ranks receive and load */
    memmove(data, data + sizeof h, n);
    *records = data;
    *records_size = n;
    *position = h.position;
    return MCF_OK;
}

int mcfi_checkpoint_read(mcf_run *r)
{
    unsigned char *records;
    size_t size;
    uint64_t position = 0;
    int rc = mcfi_checkpoint_read_file(r, &records, &size, &position);
    if (rc)
        return rc;
    char path[4200];
    snprintf(path, sizeof path, "%s/checkpoint", r->dir);
    rc = mcfi_checkpoint_load_records(r, records, size, 1, 1, path);
    if (!rc)
        r->position = position;
    free(records);
    return rc;
}
