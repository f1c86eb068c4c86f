/* checkpoint.c — the run's checkpoint: everything needed to continue bit for bit.
 *
 * Layout (host byte order, recorded in the header):
 *   header   "MCF-CKPT", u32 format, u32 byte-order mark 0x01020304, u32 ABI, u32 n_obs,
 *            u64 config hash (FNV-1a of config.ini as used), u64 position (sweeps done),
 *            u64 chains, u64 nvars, u64 bins
 *   chains   per chain: u64 record size, then index, RNG state, counters, blocking
 *            accumulators, jackknife bins, curve bins, u64 model-state size, model state
 *   tempering only with [schedule] exchange_every > 0 (config.ini, and so the config hash,
 *            says whether it is there): "MCF-PT01", u64 every, temperatures, groups, chains,
 *            per replica u64 slot, the exchange stream, per pair u64 attempts and accepted,
 *            per replica u64 round trips, their sweeps, the start of the current one, and
 *            u8 its state (mcf_tempering in run_state.h)
 *   trailer  u64 FNV-1a checksum of every byte before it
 * The file is written to a temporary name and renamed, so a kill at any moment leaves
 * either the old or the new checkpoint, never a torn one; a corrupt, truncated or foreign
 * file is refused before anything is read from it.
 * The chains' records are also what MPI ranks exchange: rank 0 gathers every rank's
 * records and writes them behind the header, so the file does not depend on the ranks. */
#include "checkpoint.h"
#include "fileio.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CKPT_MAGIC "MCF-CKPT"
#define CKPT_FORMAT 1u
#define CKPT_BOM 0x01020304u

typedef struct ckpt_header {
    char magic[8];
    uint32_t format, bom, abi, n_obs;
    uint64_t config_hash, position, chains, nvars, bins;
} ckpt_header;

static int put(mcf_stream *s, const void *p, size_t n) { return mcf_stream_write(s, p, n); }

static int write_chain(const mcf_run *r, const mcf_chain *c, mcf_stream *out)
{
    mcf_stream rec, model;
    mcfi_stream_init_writer(&rec);
    mcfi_stream_init_writer(&model);
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
        rc = r->ops->save(c->state, &model);
        if (rc)
            rc = mcf_fail_prefix(rc, "model %s: save (chain %zu)", r->setup->model_name,
                                 c->index);
    }
    uint64_t msize = model.size;
    if (!rc) rc = put(&rec, &msize, sizeof msize);
    if (!rc) rc = put(&rec, model.data, model.size);
    uint64_t rsize = rec.size;
    if (!rc) rc = put(out, &rsize, sizeof rsize);
    if (!rc) rc = put(out, rec.data, rec.size);
    mcfi_stream_release(&rec);
    mcfi_stream_release(&model);
    return rc;
}

int mcfi_checkpoint_records(const mcf_run *r, size_t first, size_t last, mcf_stream *out)
{
    int rc = MCF_OK;
    for (size_t k = first; k < last && !rc; k++)
        rc = write_chain(r, &r->chains[k], out);
    return rc;
}

#define PT_MAGIC "MCF-PT01"

int mcfi_checkpoint_tempering_write(const mcf_run *r, mcf_stream *out)
{
    const mcf_tempering *pt = r->pt;
    size_t n = r->n_chains, np = pt->n_groups * (pt->n_temps - 1);
    uint64_t head[4] = {pt->every, pt->n_temps, pt->n_groups, n};
    int rc = put(out, PT_MAGIC, 8);
    if (!rc) rc = put(out, head, sizeof head);
    for (size_t k = 0; k < n && !rc; k++) {
        uint64_t v = pt->slot[k];
        rc = put(out, &v, sizeof v);
    }
    if (!rc) rc = put(out, &pt->rng, sizeof pt->rng);
    if (!rc) rc = put(out, pt->attempts, np * sizeof *pt->attempts);
    if (!rc) rc = put(out, pt->accepted, np * sizeof *pt->accepted);
    if (!rc) rc = put(out, pt->trips, n * sizeof *pt->trips);
    if (!rc) rc = put(out, pt->trip_sweeps, n * sizeof *pt->trip_sweeps);
    if (!rc) rc = put(out, pt->trip_start, n * sizeof *pt->trip_start);
    if (!rc) rc = put(out, pt->trip_state, n * sizeof *pt->trip_state);
    return rc;
}

/* Reads into temporaries and commits only a consistent block: the slots must be a
 * permutation that keeps every replica in its tempering group. */
int mcfi_checkpoint_tempering_read(mcf_run *r, mcf_stream *in, const char *origin)
{
    mcf_tempering *pt = r->pt;
    size_t n = r->n_chains, np = pt->n_groups * (pt->n_temps - 1);
    size_t R = (size_t)r->setup->walkers, nT = pt->n_temps;
    char magic[8];
    uint64_t head[4];
    int rc = mcf_stream_read(in, magic, sizeof magic);
    if (!rc && memcmp(magic, PT_MAGIC, 8) != 0)
        rc = mcf_fail(MCF_EFORMAT, "no tempering record after the chains");
    if (!rc) rc = mcf_stream_read(in, head, sizeof head);
    if (!rc && (head[0] != pt->every || head[1] != nT || head[2] != pt->n_groups ||
                head[3] != n))
        rc = mcf_fail(MCF_EFORMAT, "the tempering record is for another schedule");
    size_t bytes = n * (3 * sizeof(uint64_t) + 1) + 2 * np * sizeof(uint64_t);
    unsigned char *tmp = rc ? NULL : malloc(bytes + 1);
    size_t *slot = rc ? NULL : malloc(n * sizeof *slot + 1);
    unsigned char *seen = rc ? NULL : calloc(n + 1, 1);
    if (!rc && (!tmp || !slot || !seen))
        rc = mcf_fail(MCF_ENOMEM, "out of memory");
    for (size_t k = 0; k < n && !rc; k++) {
        uint64_t v;
        rc = mcf_stream_read(in, &v, sizeof v);
        /* same walker and same other scan point: only the temperature index may differ */
        if (!rc && (v >= n || v % R != k % R || v / R / nT != k / R / nT || seen[v]))
            rc = mcf_fail(MCF_EFORMAT, "replica %zu holds an impossible slot %llu", k,
                          (unsigned long long)v);
        if (!rc) {
            slot[k] = (size_t)v;
            seen[v] = 1;
        }
    }
    mcf_rng rng;
    if (!rc) rc = mcf_stream_read(in, &rng, sizeof rng);
    if (!rc) rc = mcf_stream_read(in, tmp, bytes);
    if (!rc) {
        unsigned char *p = tmp;
        memcpy(pt->attempts, p, np * sizeof(uint64_t));
        p += np * sizeof(uint64_t);
        memcpy(pt->accepted, p, np * sizeof(uint64_t));
        p += np * sizeof(uint64_t);
        memcpy(pt->trips, p, n * sizeof(uint64_t));
        p += n * sizeof(uint64_t);
        memcpy(pt->trip_sweeps, p, n * sizeof(uint64_t));
        p += n * sizeof(uint64_t);
        memcpy(pt->trip_start, p, n * sizeof(uint64_t));
        p += n * sizeof(uint64_t);
        memcpy(pt->trip_state, p, n);
        for (size_t k = 0; k < n; k++) {
            pt->slot[k] = slot[k];
            pt->replica[slot[k]] = k;
        }
        pt->rng = rng;
    }
    free(tmp);
    free(slot);
    free(seen);
    if (rc)
        return mcf_fail_prefix(MCF_EFORMAT, "%s: parallel tempering", origin);
    return MCF_OK;
}

int mcfi_checkpoint_write_records(const mcf_run *r, const unsigned char *records, size_t size)
{
    mcf_stream out;
    mcfi_stream_init_writer(&out);
    ckpt_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, CKPT_MAGIC, 8);
    h.format = CKPT_FORMAT;
    h.bom = CKPT_BOM;
    h.abi = MCF_ABI_VERSION;
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
    uint64_t sum = mcfi_fnv1a64(out.data, out.size, MCF_FNV_OFFSET);
    if (!rc)
        rc = put(&out, &sum, sizeof sum);
    if (!rc) {
        char path[4200];
        snprintf(path, sizeof path, "%s/checkpoint", r->dir);
        rc = mcfi_write_atomic(path, out.data, out.size);
        if (!rc)
            mcf_log(MCF_LOG_DEBUG, "checkpoint at sweep %llu: %zu bytes",
                    (unsigned long long)r->position, out.size);
    }
    mcfi_stream_release(&out);
    return rc;
}

int mcfi_checkpoint_write(const mcf_run *r)
{
    mcf_stream rec;
    mcfi_stream_init_writer(&rec);
    int rc = mcfi_checkpoint_records(r, 0, r->n_chains, &rec);
    if (!rc)
        rc = mcfi_checkpoint_write_records(r, rec.data, rec.size);
    mcfi_stream_release(&rec);
    return rc;
}

static int read_chain(mcf_run *r, mcf_chain *c, mcf_stream *in, const char *path)
{
    uint64_t rsize, index, msize;
    int rc = mcf_stream_read(in, &rsize, sizeof rsize);
    if (rc || rsize > in->size - in->pos)
        return mcf_fail(MCF_EFORMAT, "%s: chain %zu's record is truncated", path, c->index);
    mcf_stream rec;
    mcfi_stream_init_reader(&rec, in->data + in->pos, (size_t)rsize);
    in->pos += (size_t)rsize;
    /* read into temporaries, commit only when the whole record is consistent */
    mcf_chain t = *c;
    size_t nb = (size_t)r->setup->bins;
    mcf_blocking *blk = malloc(r->n_obs * sizeof *blk + 1);
    double *bsum = malloc(nb * r->nvars * sizeof *bsum + 1);
    double *bcnt = malloc(nb * sizeof *bcnt);
    double *csum = malloc(nb * c->curve_values * sizeof *csum + 1);
    if (!blk || !bsum || !bcnt || !csum) {
        free(blk);
        free(bsum);
        free(bcnt);
        free(csum);
        return mcf_fail(MCF_ENOMEM, "out of memory reading %s", path);
    }
    rc = mcf_stream_read(&rec, &index, sizeof index);
    if (!rc && index != c->index)
        rc = mcf_fail(MCF_EFORMAT, "record %zu holds chain %llu", c->index,
                      (unsigned long long)index);
    if (!rc) rc = mcf_stream_read(&rec, &t.rng, sizeof t.rng);
    if (!rc) rc = mcf_stream_read(&rec, &t.accepted, sizeof t.accepted);
    if (!rc) rc = mcf_stream_read(&rec, &t.proposed, sizeof t.proposed);
    if (!rc) rc = mcf_stream_read(&rec, &t.block_accepted, sizeof t.block_accepted);
    if (!rc) rc = mcf_stream_read(&rec, &t.block_proposed, sizeof t.block_proposed);
    if (!rc) rc = mcf_stream_read(&rec, &t.measurements, sizeof t.measurements);
    if (!rc) rc = mcf_stream_read(&rec, blk, r->n_obs * sizeof *blk);
    if (!rc) rc = mcf_stream_read(&rec, bsum, nb * r->nvars * sizeof *bsum);
    if (!rc) rc = mcf_stream_read(&rec, bcnt, nb * sizeof *bcnt);
    if (!rc) rc = mcf_stream_read(&rec, csum, nb * c->curve_values * sizeof *csum);
    if (!rc) rc = mcf_stream_read(&rec, &msize, sizeof msize);
    if (!rc && msize != rec.size - rec.pos)
        rc = mcf_fail(MCF_EFORMAT, "model state of %llu bytes does not fill the record",
                      (unsigned long long)msize);
    if (!rc && c->state) {
        mcf_stream model;
        mcfi_stream_init_reader(&model, rec.data + rec.pos, (size_t)msize);
        rc = r->ops->load(c->state, &model);
        if (!rc && model.pos != model.size)
            rc = mcf_fail(MCF_EFORMAT, "model %s left %zu bytes of its state unread",
                          r->setup->model_name, model.size - model.pos);
    }
    if (rc) {
        free(blk);
        free(bsum);
        free(bcnt);
        free(csum);
        return mcf_fail_prefix(MCF_EFORMAT, "%s: chain %zu", path, c->index);
    }
    if (c->curve_values)
        memcpy(c->curve_bin_sum, csum, nb * c->curve_values * sizeof *csum);
    memcpy(c->blocking, blk, r->n_obs * sizeof *blk);
    memcpy(c->bin_sum, bsum, nb * r->nvars * sizeof *bsum);
    memcpy(c->bin_count, bcnt, nb * sizeof *bcnt);
    c->rng = t.rng;
    c->accepted = t.accepted;
    c->proposed = t.proposed;
    c->block_accepted = t.block_accepted;
    c->block_proposed = t.block_proposed;
    c->measurements = t.measurements;
    free(csum);
    free(blk);
    free(bsum);
    free(bcnt);
    return MCF_OK;
}

/* Steps over chain k's record. */
static int skip_chain(mcf_stream *in, size_t k, const char *origin)
{
    uint64_t rsize;
    int rc = mcf_stream_read(in, &rsize, sizeof rsize);
    if (rc || rsize > in->size - in->pos)
        return mcf_fail(MCF_EFORMAT, "%s: chain %zu's record is truncated", origin, k);
    in->pos += (size_t)rsize;
    return MCF_OK;
}

int mcfi_checkpoint_load_records(mcf_run *r, const unsigned char *records, size_t size,
                                 size_t first, size_t last, int tempering, const char *origin)
{
    mcf_stream in;
    mcfi_stream_init_reader(&in, records, size);
    int rc = MCF_OK;
    for (size_t k = 0; k < r->n_chains && !rc; k++)
        rc = k >= first && k < last ? read_chain(r, &r->chains[k], &in, origin)
                                    : skip_chain(&in, k, origin);
    if (!rc && tempering && r->pt)
        rc = mcfi_checkpoint_tempering_read(r, &in, origin);
    if (!rc && in.pos != in.size)
        rc = mcf_fail(MCF_EFORMAT, "%s: %zu unexpected bytes after the last chain", origin,
                      in.size - in.pos);
    return rc;
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
    int rc = mcfi_read_file(path, &data, &size);
    if (rc)
        return rc;
    ckpt_header h;
    if (size < sizeof h + sizeof(uint64_t) || memcmp(data, CKPT_MAGIC, 8) != 0) {
        free(data);
        return mcf_fail(MCF_EFORMAT, "%s: not an mcf checkpoint (wrong magic or too short); "
                        "remove it to start the run over", path);
    }
    uint64_t sum;
    memcpy(&sum, data + size - sizeof sum, sizeof sum);
    memcpy(&h, data, sizeof h);
    if (h.bom != CKPT_BOM) {
        free(data);
        return mcf_fail(MCF_EFORMAT, "%s: written on a machine of another byte order", path);
    }
    if (mcfi_fnv1a64(data, size - sizeof sum, MCF_FNV_OFFSET) != sum) {
        free(data);
        return mcf_fail(MCF_EFORMAT, "%s: checksum mismatch: the file is corrupt or truncated; "
                        "remove it to start the run over", path);
    }
    if (h.format != CKPT_FORMAT || h.abi != MCF_ABI_VERSION) {
        free(data);
        return mcf_fail(MCF_EFORMAT, "%s: checkpoint format %u / ABI %u, this mcf reads "
                        "format %u / ABI %u", path, h.format, h.abi, CKPT_FORMAT,
                        MCF_ABI_VERSION);
    }
    if (h.config_hash != r->config_hash || h.chains != r->n_chains || h.n_obs != r->n_obs ||
        h.nvars != r->nvars || h.bins != (uint64_t)r->setup->bins || h.position > r->total) {
        free(data);
        return mcf_fail(MCF_EFORMAT, "%s: the checkpoint belongs to another configuration "
                        "than %s/config.ini (edited since?); restore that file or start a new "
                        "run", path, r->dir);
    }
    /* the records move to the front: the buffer is what ranks receive and load */
    size_t n = size - sizeof h - sizeof sum;
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
    rc = mcfi_checkpoint_load_records(r, records, size, 0, r->n_chains, 1, path);
    if (!rc)
        r->position = position;
    free(records);
    return rc;
}
