/* tempering.c — parallel tempering ([schedule] exchange_every > 0; run_state.h:
 * mcf_tempering; docs/architecture.md, "Parallel tempering"). */
#include "tempering.h"
#include "chain.h"
#include "mcf_mpi.h"
#include "ranks.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

void mcfi_pt_free(mcf_tempering *pt)
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
int mcfi_pt_create(mcf_run *r)
{
    const mcf_setup *s = r->setup;
    size_t n = r->n_chains, R = (size_t)s->walkers;
    const mcf_axis *ax = &s->axes[s->n_axes - 1]; /* the temperature axis (setup.c) */
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
        pt->weigh = r->model->tempering;
        pt->batch_chain = calloc(n, sizeof *pt->batch_chain);
        pt->batch_state = calloc(n, sizeof *pt->batch_state);
        pt->batch_T = calloc(n, sizeof *pt->batch_T);
        pt->batch_dS = calloc(n, sizeof *pt->batch_dS);
        pt->batch = mcf_batch_create();
        if (pt->batch) /* the evaluator of ABI 2's batched helpers (mcf/fermion_model.h) */
            mcf_batch_set_evaluator(pt->batch, r->setup->evaluator ? r->setup->evaluator->info : NULL,
                                    r->setup->model->info->name);
    }
    if (!pt || !pt->temps || !pt->order || !pt->slot || !pt->replica || !pt->attempts ||
        !pt->accepted || !pt->trips || !pt->trip_sweeps || !pt->trip_start ||
        !pt->trip_state || !pt->energy || !pt->batch_chain || !pt->batch_state ||
        !pt->batch_T || !pt->batch_dS || !pt->batch) {
        mcfi_pt_free(pt);
        return mcfe_mpi_agree(mcf_fail(MCF_ENOMEM, "out of memory for parallel tempering"));
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
    /* rank 0 knows every chain's layout (mcfi_share_layouts) */
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
    return mcfe_mpi_agree(rc);
}

/* Tells owned replica k the temperature of the slot it holds (unless force is 0 and that
 * is its own, which it was created with). */
int mcfi_pt_set_temperatures(mcf_run *r, size_t k, int force)
{
    mcf_chain *c = &r->chains[k];
    if (!force && r->pt->slot[k] == k)
        return MCF_OK;
    double T = pt_temperature(r, r->pt->slot[k]);
    int rc = MCFI_MODEL(r->model, set_temperature, c->state, T);
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
        mcfi_chain_record(r, c, rows + i * c->n_values);
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
int mcfi_pt_flush(mcf_run *r)
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
    for (size_t i = 0; i < r->n_own && !rc; i++) {
        mcf_chain *c = &r->chains[r->own[i]];
        size_t sl = pt->slot[r->own[i]];
        if (mcfi_owns(r, sl)) {
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
    if ((rc = mcfi_send_stream(rc, &out, 1, &all, &size)))
        return rc;
    mcf_stream in;
    mcf_stream_init_reader(&in, all, size);
    while (in.pos < in.size && !rc) {
        uint64_t head[5];
        rc = mcf_stream_read(&in, head, sizeof head);
        const int own = !rc && head[0] < r->n_chains && mcfi_owns(r, (size_t)head[0]);
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
    return mcfe_mpi_agree(rc);
}

/* The numbers one exchange round of `parity` needs from this process's replicas, into
 * pt->energy[k] of the chains k it owns: with energy() the energies; with
 * exchange_action() dS_k = S_k(T') - S_k(T) at the temperature T' of the slot its own is
 * paired with this round (0 for a replica whose slot is not paired), all of the process's
 * in one call. */
static int pt_round_weights(mcf_run *r, size_t parity)
{
    mcf_tempering *pt = r->pt;
    size_t R = (size_t)r->setup->walkers, nT = pt->n_temps;
    if (pt->weigh == MCF_TEMPERING_ENERGY) {
        for (size_t i = 0; i < r->n_own; i++)
            pt->batch_state[i] = r->chains[r->own[i]].state;
        int rc = MCFI_MODEL(r->model, exchange, pt->batch, pt->batch_state, r->n_own, NULL,
                            pt->batch_dS);
        if (rc)
            return mcf_fail_prefix(rc, "model %s: the energies for parallel tempering",
                                   r->setup->model_name);
        for (size_t i = 0; i < r->n_own; i++)
            pt->energy[r->own[i]] = pt->batch_dS[i];
        return MCF_OK;
    }
    size_t cnt = 0;
    for (size_t i = 0; i < r->n_own; i++)
        pt->energy[r->own[i]] = 0.0;
    for (size_t g = 0; g < pt->n_groups; g++)
        for (size_t j = parity; j + 1 < nT; j += 2) {
            size_t ta = pt->order[j], tb = pt->order[j + 1];
            size_t ra = pt->replica[pt_chain(pt, R, g, ta)];
            size_t rb = pt->replica[pt_chain(pt, R, g, tb)];
            if (mcfi_owns(r, ra)) {
                pt->batch_chain[cnt] = ra;
                pt->batch_state[cnt] = r->chains[ra].state;
                pt->batch_T[cnt++] = pt->temps[tb];
            }
            if (mcfi_owns(r, rb)) {
                pt->batch_chain[cnt] = rb;
                pt->batch_state[cnt] = r->chains[rb].state;
                pt->batch_T[cnt++] = pt->temps[ta];
            }
        }
    if (!cnt)
        return MCF_OK;
    int rc = MCFI_MODEL(r->model, exchange, pt->batch, pt->batch_state, cnt, pt->batch_T,
                        pt->batch_dS);
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
int mcfi_pt_check_weights(mcf_run *r)
{
    if (r->pt->weigh != MCF_TEMPERING_ACTION)
        return MCF_OK;
    return mcfe_mpi_agree(pt_round_weights(r, (size_t)((r->position / r->pt->every) % 2)));
}

/* Collective, every `every` sweeps (a chunk boundary): one exchange round.  The energies
 * (or action changes) of all replicas reach every rank (allgather); every rank then draws
 * the same decisions from the exchange stream, so the permutation stays identical without
 * more messages. */
int mcfi_pt_exchange(mcf_run *r)
{
    mcf_tempering *pt = r->pt;
    const mcf_setup *s = r->setup;
    size_t R = (size_t)s->walkers, nT = pt->n_temps;
    /* even rounds try the pairs (0,1), (2,3), ... of the temperatures in ascending order,
       odd rounds (1,2), (3,4), ...: the pairs of a round are disjoint */
    const size_t parity = (size_t)((r->position / pt->every) % 2);
    int rc = mcfe_mpi_agree(pt_round_weights(r, parity));
    if (rc)
        return rc;
    if (r->ranks > 1) {
        /* this rank's numbers packed (into batch_dS: the round has taken them), every
           rank's back in place (ranks.h: gathered order) */
        unsigned char *all;
        size_t size;
        for (size_t i = 0; i < r->n_own; i++)
            pt->batch_dS[i] = pt->energy[r->own[i]];
        mcfi_mpi_allgather_bytes((const unsigned char *)pt->batch_dS,
                                 r->n_own * sizeof *pt->energy, &all, &size);
        if (size == r->n_chains * sizeof *pt->energy)
            for (size_t j = 0, k = 0; j < r->n_chains; j++, k = mcfi_gathered_next(r, k))
                memcpy(&pt->energy[k], all + j * sizeof *pt->energy, sizeof *pt->energy);
        free(all);
        if (size != r->n_chains * sizeof *pt->energy)
            return mcfe_mpi_agree(mcf_fail(MCF_EINTERNAL, "parallel tempering: %zu bytes of "
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
            if (isnan(lr)) /* issue 42: neither accepted nor rejected, silently */
                return mcfe_mpi_agree(mcf_fail(MCF_EPLUGIN, "parallel tempering: the exchange "
                                      "of chains %zu and %zu (T = %g and %g) at sweep %llu "
                                      "has a NaN log-ratio (model %s: energies or actions "
                                      "%g and %g); the run stops, its last checkpoint stays",
                                      ra, rb, pt->temps[ta], pt->temps[tb],
                                      (unsigned long long)r->position, r->setup->model_name,
                                      pt->energy[ra], pt->energy[rb]));
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
            if (!rc && mcfi_owns(r, ra))
                rc = mcfi_pt_set_temperatures(r, ra, 1);
            if (!rc && mcfi_owns(r, rb))
                rc = mcfi_pt_set_temperatures(r, rb, 1);
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
    return mcfe_mpi_agree(rc);
}
