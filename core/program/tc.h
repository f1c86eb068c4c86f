/* tc.h — `mcf tc DIR`: the critical temperature from a finished run's measurement series
 * (DIR/series/, [run] series = yes) by multi-histogram reweighting per lattice size, the
 * crossings of the Binder cumulant and of xi/L of successive sizes, and their extrapolation
 * with a correction-to-scaling term (docs/methods.md, "Finite-size scaling").  tc.c: the
 * command, reading and the report; tc_reweight.c: the reweighting and the crossings;
 * tc_fixed.c: --fixed, the fixed phenomenological coupling.  The program's, not libmcf's. */
#ifndef MCF_TC_H
#define MCF_TC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* the quantities reweighted per sample */
enum { TC_E, TC_M2, TC_M4, TC_MK, TC_NQ };

/* One lattice size: every measurement of its chains, each chain at its own beta. */
typedef struct tc_size {
    long L;
    double units;         /* N: per-unit energies times N are the energies of the weight */
    size_t n_chains;
    double *beta;         /* n_chains */
    double *count;        /* n_chains x (blocks + 1): the chain's measurements in jackknife
                             sample j (0: all; j >= 1: without block j - 1) */
    double *lnz;          /* n_chains x (blocks + 1): ln Z of each chain's beta per sample,
                             chain 0's set to 0 */
    size_t n;             /* measurements of all chains */
    double *q;            /* n x TC_NQ: E (total), m2, m4, m2_kmin per measurement */
    size_t *chain;        /* n: the chain of each measurement */
    unsigned *block;      /* n: its jackknife block */
    double *logden;       /* n x (blocks + 1): log of sum_m N_m exp(-beta_m E_n - ln Z_m) */
    size_t *cls;          /* n: the index of its energy among the distinct energies (NULL:
                             more than TC_MAX_CLASSES of them; tc_energy_classes) */
    size_t n_cls;         /* the distinct energies (bit patterns) */
    size_t *cls_rep;      /* n_cls: a measurement of each */
    double *cls_sum;      /* (blocks + 1) x n_cls x (1 + TC_NQ): per jackknife sample and
                             energy, its measurements' count and their sums of q */
    double *cls_logden;   /* (blocks + 1) x n_cls: logden of each energy per sample */
    double t_min, t_max;  /* the temperatures simulated */
} tc_size;

/* the most run folders one analysis reweights together (`mcf tc DIR1 DIR2 ...`) */
#define TC_MAX_DIRS 16

/* the most lattice sizes whose numbers tc_analyze keeps for [tc] refine */
#define TC_MAX_SIZES 32

/* the most --fixed QUANTITY=VALUE one analysis takes */
#define TC_MAX_FIXED 8

/* What `mcf tc` works on. */
/* what the analysis found of one size, for the refinement's plan */
typedef struct tc_size_found {
    long L;
    double apart;    /* its worst-bridged neighbouring temperatures: their mean energies'
                        distance in standard deviations (tc_overlap) */
    double apart_dT; /* and those two temperatures' difference */
    int left_out;    /* 1: its histograms did not overlap, so it was left out of the analysis
                        (drop_unbridged) */
} tc_size_found;

typedef struct tc_run {
    const char *dir;      /* the first of dirs: where tc.tsv and tc-curves.tsv go */
    const char *dirs[TC_MAX_DIRS]; /* the runs read: the same model, parameters (but L) and
                                      evaluator (tc_sources.c checks), their chains pooled per
                                      size */
    size_t n_dirs;
    double window[2];     /* chains at T outside [window[0], window[1]] are left out
                             (--window; default: none) */
    size_t left_out;      /* chains the window or the sizes left out */
    size_t skip;          /* --skip: measurements left out from the start of every chain */
    size_t skipped_out;   /* chains too short to keep 2 a block after them, left out */
    long only[32];        /* --sizes: the lattice sizes analysed (n_only 0: all) */
    size_t n_only;
    size_t blocks, grid;  /* jackknife blocks per series; points of the curves */
    int chain_blocks;     /* 1: the blocks are pieces of each size's chains laid end to end
                             (--jackknife chains, tc_chain_blocks); 0: time slices of every
                             chain (the default) */
    double omega;         /* the correction-to-scaling exponent of the extrapolation */
    double nu_fixed;      /* > 0: the extrapolation's nu (--nu, [tc] nu: the universality
                             class's, where it is known); 0: each sample's largest pair's */
    size_t n_sizes;
    tc_size *size;        /* ascending L */
    int has_xi;           /* the series have an order_kmin column: xi/L too */
    const char *series[TC_MAX_DIRS]; /* each dir's series subfolder: "series" (a finished
                             run) or ".series-partial" (error_target tc while the run goes,
                             or a stopped run: a chain's file may end in a record being
                             written, left out; tc_partial) */
    double tc[2], tc_err[2], nu[2], nu_err[2]; /* found per quantity (binder, xi_over_l);
                                                  NaN where it did not cross */
    char err_why[2][256]; /* why tc_err is NaN though tc is not ("" otherwise) */
    double fixed[TC_MAX_FIXED]; /* --fixed: the values at which each size's curve is read */
    int fixed_which[TC_MAX_FIXED]; /* their quantities (0 binder, 1 xi_over_l) */
    size_t n_fixed;
    char tau_note[512];   /* the jackknife blocks against the series' autocorrelation: a
                             warning ("" when every block is >= 20 tau_int long) */
    char start_note[512]; /* the chains' start (tc_start_biased) of the size whose ratio is
                             farthest from 1: a warning ("" when no size's is flagged) */
    /* what tc_analyze found per size (ascending L, the first TC_MAX_SIZES; the sizes left
       out with drop_unbridged among them), kept after the series are freed: what [tc]
       refine plans the next scan by (tc_refine.c) */
    size_t n_found;
    tc_size_found found[TC_MAX_SIZES];
    double pair_tx[2][TC_MAX_SIZES]; /* per quantity, the crossing T* of the analysed sizes
                                        k and k + 1, counting only those not left out (NaN:
                                        they do not cross) */
    int keep_bridged;     /* 1: each size's outermost temperatures that its neighbours'
                             histograms do not reach are left out first (tc_keep_bridged):
                             a first scan pooled with its refinements */
    int drop_unbridged;   /* 1: a size whose neighbouring histograms do not overlap is left
                             out of the analysis (found[].left_out) instead of refusing it,
                             while two or more sizes remain: [tc] refine's planning */
} tc_run;

/* tc.c: the whole analysis of t->dir (t->blocks, grid, omega, series set): the curves,
 * tc.tsv, the report on standard output and t->tc, ...; the series freed again. */
int tc_analyze(tc_run *t);
/* whether t reads the series of a run that has not finished (.series-partial) */
static inline int tc_partial(const tc_run *t)
{
    for (size_t d = 0; d < t->n_dirs; d++)
        if (strcmp(t->series[d], "series") != 0)
            return 1;
    return 0;
}

/* Whether T_c (extrapolated from the crossings) lies inside the window every size scanned,
 * [lo, hi] (the largest of the sizes' lowest temperatures, the smallest of their highest):
 * 1 if so; 0 with why (for tc.tsv and the report) if not: an extrapolation that leaves the
 * data is no measurement, and its jackknife error says nothing about that (the DE campaign
 * of issue 44: crossings 0.1297 and 0.1341 in 0.100-0.135 extrapolated to 0.1365(10)). */
static inline int tc_inside_window(double tc, double lo, double hi, char *why, size_t n)
{
    if (tc >= lo && tc <= hi)
        return 1;
    snprintf(why, n, "T_c = %.6g lies outside the temperatures every size scanned, [%g, %g]: "
             "the extrapolation leaves the data; scan a window around it", tc, lo, hi);
    return 0;
}

/* Whether a crossing at x lies in an outermost interval of a size's simulated temperatures
 * (1/beta of its n chains): below the second lowest or above the second highest, where the
 * reweighted curves rest on one side's data; 1 with why (the interval and what to do) if so.
 * Fewer than 3 temperatures: 0 (no inner interval to speak of). */
static inline int tc_near_edge(double x, const double *beta, size_t n, char *why, size_t len)
{
    double lo = 1e300, hi = -1e300, lo2 = 1e300, hi2 = -1e300; /* the ends, and next in */
    for (size_t k = 0; k < n; k++) {
        lo = 1.0 / beta[k] < lo ? 1.0 / beta[k] : lo;
        hi = 1.0 / beta[k] > hi ? 1.0 / beta[k] : hi;
    }
    for (size_t k = 0; k < n; k++) {
        const double T = 1.0 / beta[k];
        lo2 = T > lo && T < lo2 ? T : lo2;
        hi2 = T < hi && T > hi2 ? T : hi2;
    }
    if (!(lo2 < hi2) || (x >= lo2 && x <= hi2)) /* fewer than 3 temperatures, or inside */
        return 0;
    snprintf(why, len, "the crossing at %.6g lies between the scan's %s two temperatures "
             "(%g, %g), where the curves rest on one side's data: centre the window on it",
             x, x < lo2 ? "lowest" : "highest", x < lo2 ? lo : hi2, x < lo2 ? lo2 : hi);
    return 1;
}

/* tc.c: t's defaults (one dir, 16 blocks, a grid of 101, omega = 1, series/, no window) */
void tc_defaults(tc_run *t, const char *dir);

/* tc.c: --jackknife's and [tc] jackknife's value: 1 "chains", 0 "slices", -1 neither */
int tc_parse_jackknife(const char *text);

/* tc_sources.c: refuses (MCF_EINVAL, naming file, line and key) a run folder `other` whose
 * config.ini differs from `first`'s in [run] model or evaluator, a [model] key but L, or an
 * [evaluator] key: measurements of different physics must not be reweighted together. */
int tc_same_physics(const char *first, const char *other);

/* tc_sources.c: the overlap of the energy histograms of size s's neighbouring temperatures.
 * For each pair the distance of their mean energies in standard deviations and the
 * measurements of either that lie beyond the midpoint of the means (those that bridge them).
 * Returns 0 when every pair has at least `blocks` bridging measurements (one a jackknife
 * block: fewer, and the curves between them rest on so few that the jackknife cannot judge
 * them), else -1 with why (the pair, its numbers, the temperatures to add).  The worst pair
 * (fewest bridging) into *worst_d, *worst_bridging, *worst_lo, *worst_hi when not NULL. */
int tc_overlap(const tc_size *s, size_t blocks, char *why, size_t len, double *worst_d,
               size_t *worst_bridging, double *worst_lo, double *worst_hi);

/* tc_sources.c: while the worst-bridged neighbours of size s (tc_overlap) include its lowest
 * or highest temperature, that temperature's chains are left out (said on standard output),
 * as long as 3 temperatures stay: a refinement's grid bridges its window, and the coarse
 * temperatures outside that the refinement was for cannot be joined to it.  Before the
 * reweighting only (count, lnz, logden, classes not yet made).  The temperatures left out. */
int tc_keep_bridged(tc_size *s, size_t blocks);

/* tc_sources.c: size s's jackknife blocks cut from its chains of each temperature laid end
 * to end (in the order they are kept, each in time order): block b holds that temperature's
 * measurements [b m / blocks, (b + 1) m / blocks) of its m.  Every temperature still splits
 * into equal parts, as with time slices of every chain, but where several independent
 * chains (of several runs) share a temperature the pieces are as many times longer against
 * tau_int, and only the joins inside a chain are correlated (docs/methods.md, "Finite-size
 * scaling").  Before count is made. */
void tc_chain_blocks(tc_size *s, size_t blocks);

/* tc_sources.c: the start of size s's chains against the rest: per chain (8 measurements or
 * more, a positive mean of quantity q), the mean of q over the first quarter of its
 * measurements divided by the mean over all of them; their average over the chains into
 * *ratio and its standard error (the chains are independent) into *err, the chains used
 * into *chains, the longest chain's measurements into *longest.  A chain that was in
 * equilibrium when its measurements began has 1 within the error; the order parameter of a
 * chain started at random and measured before it has grown has less.  0, or -1 with fewer
 * than 2 chains used. */
int tc_start_ratio(const tc_size *s, int q, double *ratio, double *err, size_t *chains,
                   size_t *longest);

/* tc_sources.c: 1 when size s's chains were not in equilibrium when their measurements began,
 * by m^2 (tc_start_ratio's numbers into the arguments): the ratio more than 5 % from 1 and
 * beyond the two-sided 0.1 % level of Student's t with chains - 1 degrees of freedom (the
 * standard error is the chains' own spread, so few chains give a rough one: the t
 * distribution allows for that), with 4 chains or more; else 0.  A bias, not an error bar:
 * the curves from such chains are off in T by more than their jackknife says. */
int tc_start_biased(const tc_size *s, double *ratio, double *err, size_t *chains,
                    size_t *longest);

/* tc_sources.c: the integrated autocorrelation time of quantity q (TC_M2, ...) along each
 * chain of s (Sokal's window: the smallest W >= 6 tau(W)), in measurements; the largest over
 * the chains, its chain's T into *at and its number of measurements into *len. */
double tc_tau_max(const tc_size *s, int q, double *at, size_t *len);

/* tc_refine.c: the scan [tc] refine adds after the analysis t of the scans so far: its
 * sizes (the two largest, every size whose neighbouring temperatures are more than
 * TC_REFINE_APART standard deviations of energy apart, and every size the analysis left out
 * unbridged, t->found[].left_out) and its temperatures (an even grid about T_c of quantity
 * `which`, spaced to put the worst of those sizes' neighbours one
 * standard deviation apart, with at most max_points points).  0, or -1 with why. */
#define TC_REFINE_APART 1.5
typedef struct tc_plan {
    size_t n_sizes, n_temps;
    long L[TC_MAX_SIZES];
    double T[64];
    double centre, half;  /* the grid: centre +- half */
    double apart;         /* the worst refined size's neighbours on the new grid, in standard
                             deviations of energy (1 unless max_points capped the grid) */
    long apart_L;         /* that size */
} tc_plan;
int tc_refine_plan(const tc_run *t, int which, size_t max_points, tc_plan *p, char *why,
                   size_t len);

/* tc_refine.c: the folder of refinement scan s (1, 2, ...) of the run in dir: dir/refine-s */
static inline void tc_refine_dir(char *out, size_t n, const char *dir, size_t s)
{
    snprintf(out, n, "%s/refine-%zu", dir, s);
}

/* tc_refine.c: the first scan's identity, FNV-1a of dir/config.ini (0: unreadable): each
 * refinement scan keeps the one it was planned from in its folder's file planned_from, so
 * that it is resumed only after the same first scan (one of another is kept aside and
 * planned again: tc_driver.c) */
uint64_t tc_refine_stamp(const char *dir);

/* tc_driver.c: `mcf tc CONFIG`, the scans of [tc] run (opt: main's options, plots and
 * resume), then the analysis; error_target tc:X measured on the way. */
struct mcf_run_options;
int mcfi_tc_drive(const char *config_path, const char *resume_dir, struct mcf_run_options *opt,
                  int force);
/* tc_driver.c: a folder whose config.ini has a [tc] section (`mcf resume DIR` of one) */
int mcfi_tc_is_driven(const char *dir);

/* tc_report.c: DIR/tc-curves.tsv, the reweighted curves with jackknife errors */
int tc_write_curves(const tc_run *t);
/* tc_report.c: the crossings, nu and T_c, to DIR/tc.tsv and standard output; MCF_EINVAL
 * when no pair of sizes crosses in its window */
int tc_report(tc_run *t);
/* the jackknife error of x[1..blocks] (x[0]: the full sample's, unused) */
double tc_jack_error(const double *x, size_t blocks);
/* tc_report.c: T_c of one sample from P temperatures Tx at sizes L1[p] with weights w[p]
 * fitted as Tx = T_c + a L1^-x (P = 1: Tx[0]; 2: exact; more: weighted least squares);
 * *chi2 (if not NULL): the weighted squared residuals (P - 2 degrees of freedom) */
double tc_extrapolate(const double *Tx, const double *L1, const double *w, size_t P,
                      double x, double *chi2);

/* tc_fixed.c: the --fixed analyses of t (none: nothing), after the crossings: per size and
 * jackknife sample the T_f(L) where the size's curve takes the value, its rows
 * (quantity binder_fixed or xi_over_l_fixed, L1 = L2 = L, T_cross = T_f, nu = the value)
 * into f (tc.tsv) and the report, T_f(L) = T_c + a L^(-1/nu) with --nu; MCF_EINVAL naming
 * the size whose curve does not reach the value in its window */
int tc_fixed(tc_run *t, FILE *f);
/* tc_fixed.c: "binder=VALUE" or "xi_over_l=VALUE" (--fixed) appended to t; MCF_EINVAL
 * naming the option and text when not that */
int tc_parse_fixed(tc_run *t, const char *text);
/* tc_reweight.c (tc_crossing's root finder): the T where size s's curve `which` of sample j
 * takes value within [lo, hi] (as tc_crossing, on the curve minus value); NaN when none,
 * *found the sign changes */
double tc_fixed_root(const tc_size *s, size_t blocks, size_t j, int which, double value,
                     double lo, double hi, size_t grid, double near, int *found);

/* Solves the Ferrenberg-Swendsen equations of jackknife sample j of size s (ln Z per chain,
 * chain 0's 0) and fills logden of the sample: up to `newton_iter` Newton steps on their
 * convex objective (0: none), then the fixed-point iteration, which confirms; 0, or -1 when
 * that does not converge in `max_iter` iterations (every ln Z changing by less than 1e-9). */
int tc_reweight_solve(tc_size *s, size_t blocks, size_t j, int newton_iter, int max_iter);

/* The distinct energies of s's measurements into s->cls and s->n_cls (a discrete spectrum,
 * as Ising's, has few: the weight of a measurement depends on its energy alone), with each
 * energy's count and sums of q per jackknife sample (s->cls_sum), so that the reweighting
 * takes one exp or log per energy instead of one per measurement, and tc_reweight_means
 * sums over the energies, not the measurements (the same numbers but for the order of
 * the sums); none (s->cls NULL) when there are more than TC_MAX_CLASSES or one is not
 * finite.  0, or -1 out of memory (then none either). */
#define TC_MAX_CLASSES 4096
int tc_energy_classes(tc_size *s, size_t blocks);

/* The reweighted means <E>/N, <m2>, <m4>, <m2_kmin> of sample j at temperature T, into
 * out[TC_NQ] (E per unit). */
void tc_reweight_means(const tc_size *s, size_t blocks, size_t j, double T, double *out);

/* From the means: the Binder cumulant 1 - m4 / (3 m2^2) (which = 0) or xi/L (which = 1),
 * sqrt(m2 / m2_kmin - 1) / (2 L sin(pi / L)), NaN where m2 <= m2_kmin. */
double tc_quantity(const tc_size *s, int which, const double *means);

/* The quantity `which` of sample j at T. */
double tc_curve(const tc_size *s, size_t blocks, size_t j, int which, double T);

/* The crossing of quantity `which` of sizes a and b in sample j within [lo, hi]: the sign
 * change of their difference on a grid of `grid` points, refined by bisection, nearest to
 * `near` (NaN: the first from below).  NaN when there is none; *found the number of sign
 * changes on the grid. */
double tc_crossing(const tc_size *a, const tc_size *b, size_t blocks, size_t j, int which,
                   double lo, double hi, size_t grid, double near, int *found);

/* The command: argv after "tc".  MCF_EINVAL for usage and refusals (exit status 2). */
int mcfi_tc_command(int argc, char **argv);

#endif
