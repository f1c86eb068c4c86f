/* ranks.c — the run's collectives over MPI ranks (mcf_mpi.h): rank 0 keeps a copy,
 * without model, of every other chain; layouts, checkpoints and move counts travel here. */
#include "ranks.h"
#include "chain.h"
#include "checkpoint.h"
#include "mcf_mpi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Collective: accepted and proposed moves of all chains, for the progress line. */
void mcfi_count_moves(const mcf_run *r, uint64_t counts[2])
{
    counts[0] = counts[1] = 0;
    for (size_t i = 0; i < r->n_own; i++) {
        const mcf_chain *c = &r->chains[r->own[i]];
        counts[0] += c->accepted + c->block_accepted;
        counts[1] += c->proposed + c->block_proposed;
    }
    mcfi_mpi_sum_u64(counts, 2);
}

/* ---- ranks (mcf_mpi.h): rank 0 keeps a copy, without model, of every other chain ---- */

/* The ranks agree on rc (each rank's status while it wrote *out); on success every rank's
 * bytes go to rank 0 (to_all = 0) or to every rank (1) in rank order, into *all (malloc'ed,
 * the caller frees; NULL on ranks that get nothing).  *out is released either way. */
int mcfi_send_stream(int rc, mcf_stream *out, int to_all, unsigned char **all, size_t *size)
{
    rc = mcfe_mpi_agree(rc);
    if (!rc) {
        if (to_all)
            mcfi_mpi_allgather_bytes(out->data, out->size, all, size);
        else
            mcfi_mpi_gather_bytes(out->data, out->size, all, size);
    }
    mcf_stream_release(out);
    return rc;
}

/* Collective: rank 0 learns the layout (units, curve points and axes) of the chains the
 * other ranks created, and sets up their copies: results.tsv needs it, the checkpoint
 * records do not carry it. */
int mcfi_share_layouts(mcf_run *r)
{
    mcf_stream out;
    mcf_stream_init_writer(&out);
    int rc = MCF_OK;
    for (size_t i = 0; i < r->n_own && !rc; i++) {
        const mcf_chain *c = &r->chains[r->own[i]];
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
    if ((rc = mcfi_send_stream(rc, &out, 0, &all, &size)))
        return rc;
    if (r->rank == 0) {
        mcf_stream in;
        mcf_stream_init_reader(&in, all, size);
        /* in rank order, each rank's chains ascending (mcfi_owns) */
        for (size_t j = 0, k = 0; j < r->n_chains && !rc; j++, k = mcfi_gathered_next(r, k)) {
            mcf_chain *c = &r->chains[k];
            int own = mcfi_owns(r, k);
            uint64_t units, points;
            rc = mcf_stream_read(&in, &units, sizeof units);
            if (!rc && !own)
                rc = mcfi_chain_init(r, k);
            for (size_t o = 0; o < r->n_declared && !rc; o++) {
                rc = mcf_stream_read(&in, &points, sizeof points);
                if (!own)
                    c->points[o] = (size_t)points;
            }
            if (!rc && !own) {
                c->units = (size_t)units;
                rc = mcfi_chain_layout(r, c);
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
    return mcfe_mpi_agree(rc);
}

/* The chains' checkpoint records (each a u64 size and its bytes) as gathered, in rank
 * order, copied into *ordered (malloc'ed) in chain order: the file one process writes. */
static int in_chain_order(const mcf_run *r, const unsigned char *all, size_t size,
                          unsigned char **ordered, const char *origin)
{
    const unsigned char **at = malloc((r->n_chains + 1) * sizeof *at);
    size_t *len = malloc((r->n_chains + 1) * sizeof *len);
    *ordered = malloc(size + 1);
    int rc = at && len && *ordered ? MCF_OK : mcf_fail(MCF_ENOMEM, "out of memory for %zu "
                                                      "bytes of checkpoint records", size);
    size_t pos = 0, j = 0;
    for (size_t k = 0; j < r->n_chains && !rc; j++, k = mcfi_gathered_next(r, k)) {
        uint64_t rsize;
        if (size - pos < sizeof rsize)
            break;
        memcpy(&rsize, all + pos, sizeof rsize);
        if (rsize > size - pos - sizeof rsize)
            break;
        at[k] = all + pos;
        len[k] = sizeof rsize + (size_t)rsize;
        pos += len[k];
    }
    if (!rc && (pos != size || j != r->n_chains))
        rc = mcf_fail(MCF_EINTERNAL, "%s: %zu of %zu bytes in %zu of %zu records", origin, pos,
                      size, j, r->n_chains);
    for (size_t k = 0, out = 0; k < r->n_chains && !rc; out += len[k], k++)
        memcpy(*ordered + out, at[k], len[k]);
    free(at);
    free(len);
    return rc;
}

/* Collective: every chain's checkpoint record to rank 0, which writes the same checkpoint
 * file a single process writes and takes the other ranks' accumulators into its copies
 * (results.tsv is computed from them). */
int mcfi_save_checkpoint(mcf_run *r)
{
    if (r->ranks == 1)
        return mcfi_checkpoint_write(r);
    mcf_stream rec;
    mcf_stream_init_writer(&rec);
    int rc = mcfe_mpi_agree(mcfi_checkpoint_records(r, &rec));
    if (rc) {
        mcf_stream_release(&rec);
        return rc;
    }
    unsigned char *all, *ordered = NULL;
    size_t size;
    mcfi_mpi_gather_bytes(rec.data, rec.size, &all, &size);
    mcf_stream_release(&rec);
    if (r->rank == 0) {
        const char *origin = "the records gathered from the ranks";
        rc = in_chain_order(r, all, size, &ordered, origin);
        if (!rc)
            rc = mcfi_checkpoint_load_records(r, ordered, size, 0, 0, origin);
        if (!rc)
            rc = mcfi_checkpoint_write_records(r, ordered, size);
    }
    free(all);
    free(ordered);
    return mcfe_mpi_agree(rc);
}

/* Collective: rank 0 reads and checks DIR/checkpoint, every rank loads the records of its
 * chains.  MCF_OK when resumed, 1 when there is no checkpoint, an error otherwise. */
int mcfi_load_checkpoint(mcf_run *r)
{
    if (r->ranks == 1)
        return mcfi_checkpoint_read(r);
    unsigned char *records = NULL;
    size_t size = 0;
    uint64_t head[2] = {0, 0}; /* found, position */
    int rc = MCF_OK;
    if (r->rank == 0) {
        rc = mcfi_checkpoint_read_file(r, &records, &size, &head[1]);
        head[0] = rc == MCF_OK;
        if (rc == 1)
            rc = MCF_OK;
    }
    rc = mcfe_mpi_agree(rc);
    if (rc) {
        free(records);
        return rc;
    }
    mcfi_mpi_bcast_u64(head, 2);
    if (!head[0])
        return 1;
    mcfi_mpi_bcast_bytes(&records, &size);
    char path[4200];
    snprintf(path, sizeof path, "%s/checkpoint", r->dir);
    rc = mcfe_mpi_agree(mcfi_checkpoint_load_records(r, records, size, 1, 1, path));
    free(records);
    if (!rc)
        r->position = head[1];
    return rc;
}
