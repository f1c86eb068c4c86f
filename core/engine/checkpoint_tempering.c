/* checkpoint_tempering.c — the parallel-tempering part of the checkpoint (checkpoint.c has
 * the file's layout): the replicas' slots, the exchange stream, the pairs' counts and the
 * round trips, written behind the chains' records and, read back, checked against the
 * schedule before anything replaces the run's state (the slots a permutation within each
 * tempering group, accepted <= attempts <= rounds so far, round-trip states and starts in
 * range). */
#define _POSIX_C_SOURCE 200809L
#include "checkpoint.h"

#include <stdlib.h>
#include <string.h>

static int put(mcf_stream *s, const void *p, size_t n) { return mcf_stream_write(s, p, n); }

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

/* The tempering record read back (pt_read): the slots, and in one block, as in the file,
 * the attempts and acceptances of the pairs and the replicas' round trips. */
typedef struct ckpt_pt {
    size_t *slot;
    mcf_rng rng;
    uint64_t *counts;      /* attempts, accepted (np each), trips, trip_sweeps, trip_start (n) */
    uint8_t *trip_state;   /* n, behind the counts */
} ckpt_pt;

static void pt_release(ckpt_pt *p)
{
    free(p->slot);
    free(p->counts);
}

/* Reads the tempering record into *p (released by the caller, also on error) and checks
 * what does not depend on the sweep: the schedule, and slots that are a permutation
 * keeping every replica in its tempering group. */
static int pt_read(const mcf_run *r, mcf_stream *in, ckpt_pt *p)
{
    const mcf_tempering *pt = r->pt;
    size_t n = r->n_chains, np = pt->n_groups * (pt->n_temps - 1);
    size_t R = (size_t)r->setup->walkers, nT = pt->n_temps;
    memset(p, 0, sizeof *p);
    char magic[8];
    uint64_t head[4];
    const uint64_t want[4] = {pt->every, nT, pt->n_groups, n};
    const char *names[4] = {"exchange_every", "temperatures", "groups", "chains"};
    int rc = mcf_stream_read(in, magic, sizeof magic);
    if (!rc && memcmp(magic, PT_MAGIC, 8) != 0)
        rc = mcf_fail(MCF_EFORMAT, "no tempering record after the chains");
    if (!rc) rc = mcf_stream_read(in, head, sizeof head);
    for (int k = 0; k < 4 && !rc; k++)
        if (head[k] != want[k])
            rc = mcf_fail(MCF_EFORMAT, "%s = %llu; the schedule has %llu", names[k],
                          (unsigned long long)head[k], (unsigned long long)want[k]);
    p->slot = rc ? NULL : malloc(n * sizeof *p->slot + 1);
    p->counts = rc ? NULL : malloc((2 * np + 3 * n) * sizeof *p->counts + n + 1);
    unsigned char *seen = rc ? NULL : calloc(n + 1, 1);
    if (!rc && (!p->slot || !p->counts || !seen))
        rc = mcf_fail(MCF_ENOMEM, "out of memory");
    for (size_t k = 0; k < n && !rc; k++) {
        uint64_t v;
        rc = mcf_stream_read(in, &v, sizeof v);
        /* same walker and same other scan point: only the temperature index may differ */
        if (!rc && (v >= n || v % R != k % R || v / R / nT != k / R / nT || seen[v]))
            rc = mcf_fail(MCF_EFORMAT, "slot of replica %zu = %llu: an impossible slot; the "
                          "slots permute the chains within their tempering groups", k,
                          (unsigned long long)v);
        if (!rc) {
            p->slot[k] = (size_t)v;
            seen[v] = 1;
        }
    }
    free(seen);
    if (!rc) rc = mcf_stream_read(in, &p->rng, sizeof p->rng);
    if (!rc) rc = mcf_stream_read(in, p->counts, (2 * np + 3 * n) * sizeof *p->counts + n);
    if (!rc)
        p->trip_state = (uint8_t *)(p->counts + 2 * np + 3 * n);
    return rc;
}

/* What the sweep bounds: the exchange stream is the run's, a pair accepted at most as often
 * as tried, and tried at most once a round; a round trip in a known state, started by now. */
static int pt_check(const mcf_run *r, const ckpt_pt *p, uint64_t position)
{
    const mcf_tempering *pt = r->pt;
    size_t n = r->n_chains, np = pt->n_groups * (pt->n_temps - 1);
    const uint64_t *attempts = p->counts, *accepted = p->counts + np;
    const uint64_t *trip_start = p->counts + 2 * np + 2 * n;
    int rc = mcfi_checkpoint_rng_check(&p->rng, &pt->rng);
    for (size_t j = 0; j < np && !rc; j++)
        if (accepted[j] > attempts[j] || attempts[j] > position / pt->every)
            rc = mcf_fail(MCF_EFORMAT, "pair %zu: accepted = %llu of attempts = %llu; at most "
                          "one attempt per exchange round, %llu rounds by sweep %llu", j,
                          (unsigned long long)accepted[j], (unsigned long long)attempts[j],
                          (unsigned long long)(position / pt->every),
                          (unsigned long long)position);
    for (size_t k = 0; k < n && !rc; k++)
        if (p->trip_state[k] > 2 || trip_start[k] > position)
            rc = mcf_fail(MCF_EFORMAT, "replica %zu: trip_state = %u, trip_start = %llu; "
                          "the state is 0, 1 or 2 and the start at most sweep %llu", k,
                          p->trip_state[k], (unsigned long long)trip_start[k],
                          (unsigned long long)position);
    return rc;
}

/* Reads into temporaries and commits only a consistent block. */
int mcfi_checkpoint_tempering_check(const mcf_run *r, mcf_stream *in, uint64_t position)
{
    ckpt_pt p;
    int rc = pt_read(r, in, &p);
    if (!rc)
        rc = pt_check(r, &p, position);
    pt_release(&p);
    return rc;
}

int mcfi_checkpoint_tempering_read(mcf_run *r, mcf_stream *in, const char *origin)
{
    mcf_tempering *pt = r->pt;
    size_t n = r->n_chains, np = pt->n_groups * (pt->n_temps - 1);
    ckpt_pt p;
    int rc = pt_read(r, in, &p);
    if (!rc) {
        const uint64_t *c = p.counts;
        memcpy(pt->attempts, c, np * sizeof *c);
        memcpy(pt->accepted, c + np, np * sizeof *c);
        memcpy(pt->trips, c + 2 * np, n * sizeof *c);
        memcpy(pt->trip_sweeps, c + 2 * np + n, n * sizeof *c);
        memcpy(pt->trip_start, c + 2 * np + 2 * n, n * sizeof *c);
        memcpy(pt->trip_state, p.trip_state, n);
        for (size_t k = 0; k < n; k++) {
            pt->slot[k] = p.slot[k];
            pt->replica[p.slot[k]] = k;
        }
        pt->rng = p.rng;
    }
    pt_release(&p);
    if (rc)
        return mcf_fail_prefix(MCF_EFORMAT, "%s: parallel tempering", origin);
    return MCF_OK;
}
