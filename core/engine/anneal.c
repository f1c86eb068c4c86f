/* anneal.c — [schedule] start = anneal (see anneal.h).
 *
 * A hand-over happens at a fixed sweep, between chunks, before a checkpoint or a stop at
 * that sweep is written: a run resumed from a checkpoint at that sweep has it already and
 * does not repeat it, so a stopped and resumed run makes the same hand-overs as one that
 * never stopped.  What is handed over is the configuration alone (the model's
 * save_configuration): each chain keeps its own random stream, counters and step sizes, so
 * the chains stay independent Markov chains from there on. */
#include "anneal.h"

#include "mcf_mpi.h"
#include "ranks.h"

#include <stdint.h>
#include <stdlib.h>

struct mcfi_anneal {
    size_t n_temps;
    uint64_t *at;     /* n_temps: at[s] the sweep of part s's hand-over (at[0] unused) */
    size_t *part;     /* n_chains: the chain's part (0 = highest temperature) */
    size_t *from;     /* n_chains: the chain it takes its configuration from (part > 0) */
};

void mcfi_anneal_free(struct mcfi_anneal *a)
{
    if (!a)
        return;
    free(a->at);
    free(a->part);
    free(a->from);
    free(a);
}

int mcfi_anneal_create(mcf_run *r)
{
    const mcf_setup *s = r->setup;
    if (s->start != MCFI_START_ANNEAL)
        return MCF_OK;
    size_t a_T = 0, stride = 1;
    for (size_t a = 0; a < s->n_axes; a++)
        if (s->axes[a].section == 2)
            a_T = a;
    for (size_t b = a_T + 1; b < s->n_axes; b++)
        stride *= s->axes[b].n;
    const mcf_axis *T = &s->axes[a_T];
    struct mcfi_anneal *an = calloc(1, sizeof *an);
    size_t *rank = malloc(T->n * sizeof *rank), *by_rank = malloc(T->n * sizeof *by_rank);
    if (an) {
        an->n_temps = T->n;
        an->at = calloc(T->n, sizeof *an->at);
        an->part = calloc(r->n_chains, sizeof *an->part);
        an->from = calloc(r->n_chains, sizeof *an->from);
    }
    if (!an || !rank || !by_rank || !an->at || !an->part || !an->from) {
        mcfi_anneal_free(an);
        free(rank);
        free(by_rank);
        return mcf_fail(MCF_ENOMEM, "out of memory for start = anneal");
    }
    /* part of each temperature: its rank from the highest down (equal values keep their
       order in the list) */
    for (size_t i = 0; i < T->n; i++) {
        rank[i] = 0;
        for (size_t j = 0; j < T->n; j++)
            if (T->values[j].r > T->values[i].r || (T->values[j].r == T->values[i].r && j < i))
                rank[i]++;
        by_rank[rank[i]] = i;
    }
    for (size_t p = 1; p < T->n; p++)
        an->at[p] = (uint64_t)s->thermalize * p / T->n;
    const size_t R = (size_t)s->walkers;
    for (size_t k = 0; k < r->n_chains; k++) {
        const size_t point = k / R, w = k % R, i = (point / stride) % T->n;
        an->part[k] = rank[i];
        if (rank[i] > 0) {
            const size_t higher = by_rank[rank[i] - 1];
            const size_t src_point = point - i * stride + higher * stride;
            an->from[k] = src_point * R + w;
        }
    }
    free(rank);
    free(by_rank);
    r->anneal = an;
    return MCF_OK;
}

uint64_t mcfi_anneal_next(const mcf_run *r, uint64_t position)
{
    const struct mcfi_anneal *an = r->anneal;
    if (!an)
        return UINT64_MAX;
    for (size_t p = 1; p < an->n_temps; p++)
        if (an->at[p] > position)
            return an->at[p];
    return UINT64_MAX;
}

/* the part whose hand-over is at r->position, 0 when none */
static size_t part_at(const mcf_run *r)
{
    for (size_t p = 1; p < r->anneal->n_temps; p++)
        if (r->anneal->at[p] == r->position)
            return p;
    return 0;
}

int mcfi_hand_over(mcf_run *r, const size_t *from, const char *what)
{
    /* this rank's sources: (the chain that takes it, size, configuration) */
    mcf_stream out;
    mcf_stream_init_writer(&out);
    int rc = MCF_OK;
    for (size_t k = 0; k < r->n_chains && !rc; k++) {
        if (from[k] == SIZE_MAX || !mcfi_owns(r, from[k]))
            continue;
        mcf_stream one;
        mcf_stream_init_writer(&one);
        rc = MCFI_MODEL(r->model, save_configuration, r->chains[from[k]].state, &one);
        uint64_t head[2] = {k, one.size};
        if (!rc)
            rc = mcf_stream_write(&out, head, sizeof head);
        if (!rc)
            rc = mcf_stream_write(&out, one.data, one.size);
        mcf_stream_release(&one);
    }
    unsigned char *all = NULL;
    size_t size = 0;
    if (r->ranks > 1) {
        rc = mcfi_send_stream(rc, &out, 1, &all, &size);
    } else {
        all = out.data; /* one process: the bytes are all there is */
        size = out.size;
    }
    /* every rank reads them all and loads the chains it owns */
    mcf_stream in;
    mcf_stream_init_reader(&in, all, size);
    while (!rc && in.pos < size) {
        uint64_t head[2];
        rc = mcf_stream_read(&in, head, sizeof head);
        if (rc)
            break;
        const size_t k = (size_t)head[0];
        if (head[1] > size - in.pos || k >= r->n_chains) {
            rc = mcf_fail(MCF_EFORMAT, "a configuration handed over is cut short");
            break;
        }
        if (mcfi_owns(r, k)) {
            mcf_stream one;
            mcf_stream_init_reader(&one, in.data + in.pos, (size_t)head[1]);
            rc = MCFI_MODEL(r->model, load_configuration, r->chains[k].state, &one);
        }
        in.pos += (size_t)head[1];
    }
    if (r->ranks > 1)
        free(all);
    else
        mcf_stream_release(&out);
    if (rc)
        rc = mcf_fail_prefix(rc, "%s, at sweep %llu", what, (unsigned long long)r->position);
    return mcfe_mpi_agree(rc);
}

int mcfi_anneal_hand_over(mcf_run *r)
{
    const struct mcfi_anneal *an = r->anneal;
    const size_t p = an ? part_at(r) : 0;
    if (!p)
        return MCF_OK;
    size_t *from = malloc(r->n_chains * sizeof *from);
    if (!from)
        return mcfe_mpi_agree(mcf_fail(MCF_ENOMEM, "out of memory for start = anneal"));
    for (size_t k = 0; k < r->n_chains; k++)
        from[k] = an->part[k] == p ? an->from[k] : SIZE_MAX;
    int rc = mcfi_hand_over(r, from, "start = anneal");
    free(from);
    return rc;
}
