/* gfmc_flip.c — benchmark of GFMC trial flips through the fermion evaluators' ops, what a
 * model gets: one change_action call per batch of C chains (one trial change per chain, not
 * accepted), for the evaluators named on the command line (default: kpm, and kpm-cuda when
 * it loads and finds a device), gfmc = contour and real-axis, two shapes of change:
 *
 *   spin     turning one spin of the double-exchange model (infinite Hund coupling,
 *            de_test_hamiltonian.h): rank 2, traceless, 7 rows;
 *   onsite   shifting one on-site energy by 1.5 (a Holstein displacement, a
 *            Falicov-Kimball occupation): rank 1, traceful (real-axis refuses most of
 *            these: the moved level leaves H's bounds; such rows print "refused").
 *
 * Lattices: periodic L^3 cubic with random spins, one configuration per chain.  T = 0.1,
 * mu = 0, M moments (GFMC_FLIP_M, default 256), vectors = 0.  Per (evaluator, method,
 * shape, L, C): one warm-up batch, then batches for about 0.3 s (3..500), each with new
 * changes; the mean time per batch and per flip is printed.  The CPU plugin shares a batch's
 * chains among all cores (one chain per thread); kpm-cuda runs the batch's recursion in one
 * launch and finishes each chain's contour on the host's cores.
 *
 * Usage: gfmc_flip [evaluator ...]
 * Environment: GFMC_FLIP_L="4 8 16"  GFMC_FLIP_C="1 16 64"  GFMC_FLIP_M=256
 *   GFMC_FLIP_SET="key=value ..."  up to 3 more [evaluator] keys, given to every evaluator
 *   that declares them (e.g. "gfmc_fft=false": kpm-cuda by Horner's rule at the nodes). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "de_test_hamiltonian.h"
#include "internal.h"
#include "test_params.h"

#define MAX_LIST 8
#define MAX_C 256
#define MAX_SET 3

typedef struct chain {
    de_lattice d;
    mcf_hamiltonian *h;
    void *ws;
    mcf_rng rng;
    mcf_change c;
} chain;

static int parse(const char *env, const char *def, size_t *out)
{
    const char *e = getenv(env);
    char buf[256];
    snprintf(buf, sizeof buf, "%s", e ? e : def);
    int n = 0;
    for (char *t = strtok(buf, " ,"); t && n < MAX_LIST; t = strtok(NULL, " ,"))
        out[n++] = (size_t)strtoul(t, NULL, 10);
    return n;
}

/* GFMC_FLIP_SET's key=value pairs into key[], val[] (text kept in buf); unused slots NULL */
static void parse_set(char *buf, size_t len, const char **key, const char **val)
{
    const char *e = getenv("GFMC_FLIP_SET");
    snprintf(buf, len, "%s", e ? e : "");
    int n = 0;
    for (int k = 0; k < MAX_SET; k++)
        key[k] = val[k] = NULL;
    for (char *t = strtok(buf, " ,"); t && n < MAX_SET; t = strtok(NULL, " ,")) {
        char *eq = strchr(t, '=');
        if (!eq) {
            fprintf(stderr, "gfmc_flip: GFMC_FLIP_SET: ignoring \"%s\" (not key=value)\n", t);
            continue;
        }
        *eq = '\0';
        key[n] = t;
        val[n++] = eq + 1;
    }
}

/* a new trial change per chain: a spin turned (rank 2) or an on-site shift (rank 1) */
static void new_changes(chain *cs, size_t C, int onsite)
{
    for (size_t k = 0; k < C; k++) {
        chain *ch = &cs[k];
        const size_t o = (size_t)mcf_rng_below(&ch->rng, ch->d.n);
        if (onsite) {
            mcf_change_onsite(&ch->c, o, 1.5);
            continue;
        }
        double s[3];
        mcf_local_change lc;
        de_unit(&ch->rng, s);
        de_change(&ch->d, o, s, &lc);
        mcf_change_from_local(&lc, &ch->c);
    }
}

/* seconds per batch of C flips, or a negative number when the evaluator refused */
static double time_batches(const mcf_plugin_info *e, chain *cs, size_t C, int onsite)
{
    void *ws[MAX_C];
    const mcf_change *cp[MAX_C];
    double T[MAX_C], mu[MAX_C], dS[MAX_C], err[MAX_C];
    for (size_t k = 0; k < C; k++) {
        ws[k] = cs[k].ws;
        cp[k] = &cs[k].c;
        T[k] = 0.1;
        mu[k] = 0.0;
    }
    new_changes(cs, C, onsite);
    if (tev_change_action(e, ws, C, cp, T, mu, dS, err))
        return -1.0;
    double t = 0.0;
    int reps = 0;
    while ((t < 0.3 || reps < 3) && reps < 500) {
        new_changes(cs, C, onsite);
        const double t0 = now();
        if (tev_change_action(e, ws, C, cp, T, mu, dS, err))
            return -1.0;
        t += now() - t0;
        reps++;
    }
    return t / reps;
}

int main(int argc, char **argv)
{
    size_t Ls[MAX_LIST], Cs[MAX_LIST], Ms[1];
    const int nL = parse("GFMC_FLIP_L", "4 8 16", Ls), nC = parse("GFMC_FLIP_C", "1 16 64", Cs);
    parse("GFMC_FLIP_M", "256", Ms);
    char set_buf[256];
    const char *set_key[MAX_SET], *set_val[MAX_SET];
    parse_set(set_buf, sizeof set_buf, set_key, set_val);
    const char *defaults[] = {"kpm", "kpm-cuda"};
    const char **names = argc > 1 ? (const char **)argv + 1 : defaults;
    const int nn = argc > 1 ? argc - 1 : 2;
    char M_text[32];
    snprintf(M_text, sizeof M_text, "%zu", Ms[0]);
    printf("# gfmc_flip: %d cores, M = %zu, T = 0.1, mu = 0; microseconds per flip (ms per "
           "batch)\n", max_threads(), Ms[0]);
    for (int k = 0; k < MAX_SET && set_key[k]; k++)
        printf("# %s = %s where declared\n", set_key[k], set_val[k]);
    printf("%-9s %-10s %-7s %4s %4s %14s\n", "evaluator", "gfmc", "change", "L", "C",
           "us/flip (ms)");
    for (int e = 0; e < nn; e++) {
        mcf_plugin *pl = NULL;
        if (mcfe_plugin_open(names[e], MCF_PLUGIN_FERMION_EVALUATOR, &pl)) {
            printf("# %s: not loaded (%s)\n", names[e], mcf_last_error());
            continue;
        }
        char why[256] = "";
        if (pl->info->probe && !pl->info->probe(why, sizeof why)) {
            printf("# %s: skipped (%s)\n", names[e], why);
            mcfe_plugin_close(pl);
            continue;
        }
        for (int method = 0; method < 2; method++)
            for (int onsite = 0; onsite < 2; onsite++)
                for (int il = 0; il < nL; il++) {
                    const size_t L = Ls[il];
                    /* the GFMC_FLIP_SET pairs last: the list ends at the first NULL key */
                    test_params *tp = test_params_make(
                        pl->info->params, "gfmc_flip", "moments", M_text, "vectors", "0",
                        "gfmc", method ? "real-axis" : "contour", set_key[0], set_val[0],
                        set_key[1], set_val[1], set_key[2], set_val[2], NULL);
                    chain *cs = calloc(MAX_C, sizeof *cs);
                    size_t Cmax = 0;
                    for (int ic = 0; ic < nC; ic++)
                        Cmax = Cs[ic] > Cmax ? Cs[ic] : Cmax;
                    Cmax = Cmax > MAX_C ? MAX_C : Cmax;
                    int ok = tp->ok;
                    for (size_t k = 0; ok && k < Cmax; k++) {
                        cs[k].d = de_random_lattice(L, 0.0, 1000 + k);
                        cs[k].h = de_build(&cs[k].d);
                        mcf_rng_init(&cs[k].rng, 77, k);
                        ok = tev_create(pl->info, &tp->p, cs[k].h, &cs[k].ws) == MCF_OK;
                    }
                    for (int ic = 0; ok && ic < nC; ic++) {
                        const size_t C = Cs[ic] > MAX_C ? MAX_C : Cs[ic];
                        const double t = time_batches(pl->info, cs, C, onsite);
                        if (t < 0)
                            printf("%-9s %-10s %-7s %4zu %4zu %14s\n", names[e],
                                   method ? "real-axis" : "contour", onsite ? "onsite" : "spin",
                                   L, C, "refused");
                        else
                            printf("%-9s %-10s %-7s %4zu %4zu %8.1f (%.3f)\n", names[e],
                                   method ? "real-axis" : "contour", onsite ? "onsite" : "spin",
                                   L, C, 1e6 * t / (double)C, 1e3 * t);
                        fflush(stdout);
                    }
                    if (!ok)
                        printf("# %s L = %zu: %s\n", names[e], L, mcf_last_error());
                    for (size_t k = 0; k < Cmax; k++) {
                        if (cs[k].ws)
                            tev_destroy(pl->info, cs[k].ws);
                        mcf_hamiltonian_destroy(cs[k].h);
                        free(cs[k].d.s);
                    }
                    free(cs);
                    test_params_free(tp);
                }
        tev_batch_release(); /* before the plugin goes: its keep slots' release is its code */
        mcfe_plugin_close(pl);
    }
    return 0;
}
