/* test_drift_sweep_ev.c — the slater-jastrow model's drift-diffusion moves made by an
 * evaluator's walker_drift_sweep (mcf/orbital.h, mcf 1.2; the model's drift_sweep_on_ev in
 * models/slater-jastrow/sj_sweep.c) against the model's own drift path, run by the `mcf`
 * program.  The same configuration and seed run twice:
 *   (a) [run] evaluator = planewave, [model] determinants = model: the model draws each
 *       trial point from the drift, takes the orbitals there from planewave, computes the
 *       Green's functions' ratio and updates its inverses (sj_drift.c), and the core's loop
 *       decides each move;
 *   (b) [run] evaluator = thostdet2, [model] determinants = evaluator: the host test
 *       evaluator of tests/abi (orbital_hostdet.c) keeps the determinants, and its
 *       walker_drift_sweep (orbital_hostdet_drift.c, written from the op's specification in
 *       mcf/orbital.h) makes each sweep's moves and decisions; the log must say so, and (a)'s
 *       must not.
 * Both draw every turn's Gaussians from the chain's move stream at the sweep's start and
 * every decision from the chain's stream with mcf_metropolis_accept in turn order, so they
 * make the same decisions, and their results.tsv must agree to rounding in every column:
 *   (1) DMC ([run] method = dmc: fixed node, time step 0.02): N = 14, r_s = 2, rpa Jastrow,
 *       16 walkers, 20 + 300 sweeps;
 *   (2) VMC, move = drift (tau = step^2, no fixed node): N = 14, r_s = 1, 4 walkers, the step
 *       adapted from 0.05 r_s while thermalizing (40 sweeps, every 20: it ends at 0.2 r_s,
 *       tau = 0.04), 300 sweeps: the accepted counts the evaluator's sweep returns feed the
 *       core's adaptation and acceptance;
 *   (3) VMC, move = drift, polarized N = 7 (one determinant: the evaluator's spin 1 empty),
 *       r_s = 2, step 0.1 r_s, 300 sweeps;
 *   (4) a control: (1) with planewave at a time step 1e-5 larger must differ from (a) by
 *       more than the tolerance in the energy (the comparison can fail).
 *
 * Tolerance.  The two paths differ only in rounding: the orbitals summed in another order
 * (planewave, hostdet), the Sherman-Morrison update in another order, the inverse restored
 * every N accepted moves by an LU (model) or a Newton step (hostdet) and, for (b), at the
 * sweep's end rather than after the move that reached N.  After one move the configurations
 * differ by a few units of double rounding (1.1e-16 relative).  A drift-diffusion move maps
 * a difference dr of the positions to (1 + tau d vbar/dr) dr, which can grow where the
 * drift varies fast (near a node): measured on the final checkpoints' doubles (positions,
 * rows, inverses, energies) while writing this test, the largest absolute difference was
 * 1.2e-13 for (1), 5.1e-13 for (2) and 5.3e-14 for (3), the median relative one 1.3e-15
 * to 6.5e-15.  The time steps are kept small for that reason: at tau = 0.09 (VMC, N = 14, r_s =
 * 1) the differences grew 100-fold every 100 sweeps (and the same growth appears between
 * planewave and hostdet with the determinants in the model, so it is the dynamics', not the
 * op's).  results.tsv prints 10 significant digits (%.10g), so two values a, b agree when
 *     |a - b| <= 1e-9 max(|a|, |b|) + one unit in the tenth significant digit of max(|a|, |b|)
 * (1e-9: three orders above the largest difference measured; the unit: the printing).  The
 * acceptance, a ratio of counts of decisions, must be equal: if it is not, the two runs made
 * different decisions.  That can in principle happen without a bug, where a uniform falls
 * within rounding (~1e-12 here) of a move's acceptance probability e^{log ratio} in one run
 * and not in the other (or, in DMC, where the comb's uniform falls within rounding of a sum
 * of weights): about 1e5 decisions here, so a probability below ~1e-6 a run.  The test then
 * fails saying so: a rerun with another seed passes for such a flip and fails again for a
 * bug.
 *
 * Usage: test_drift_sweep_ev MCF_PROGRAM HOSTDET_FOLDER (ctest sets MCF_TEST_TMP and
 * MCF_PLUGIN_PATH; the hostdet folder goes in front). */
#include "physics_util.h"

static const char *mcf_program;
static double worst_rel;   /* the largest relative difference between (a) and (b) seen */
static const char *worst_at = "none";
static char worst_buf[160];

/* One run of slater-jastrow: [run] evaluator ev and run_keys, [schedule], [model]
 * determinants = det and model_keys; results.tsv into *t (0 on success). */
static int run_one(const char *name, const char *ev, const char *det, const char *run_keys,
                   const char *schedule, const char *model_keys, phys_table *t)
{
    char sections[2048];
    snprintf(sections, sizeof sections, "evaluator = %s\n%s[schedule]\n%s[model]\n"
             "determinants = %s\njastrow = rpa\n%s", ev, run_keys, schedule, det, model_keys);
    return phys_run_mcf(mcf_program, name, "slater-jastrow", 7, sections, t);
}

/* The agreement of two printed values (the header): 1e-9 relative plus one unit in the
 * tenth significant digit. */
static double tolerance(double a, double b)
{
    const double m = fmax(fabs(a), fabs(b));
    return m > 0 ? 1e-9 * m + pow(10.0, floor(log10(m)) - 9.0) : 0.0;
}

/* 1 when tables a and b have the same columns and rows, and every value agrees (acceptance
 * exactly); prints the acceptance and the first other column that differ */
static int same_results(const char *what, const phys_table *a, const phys_table *b)
{
    int ok = a->ncols == b->ncols && a->nrows == b->nrows && a->nrows > 0;
    for (size_t k = 0; ok && k < a->ncols; k++)
        ok = !strcmp(a->names[k], b->names[k]);
    CHECK(ok, "%s: results.tsv has other columns or rows in (a) and (b)", what);
    size_t bad = 0, first = 0;
    for (size_t i = 0; ok && i < a->nrows * a->ncols; i++) {
        const char *col = a->names[i % a->ncols];
        const double x = a->v[i], y = b->v[i], m = fmax(fabs(x), fabs(y)), d = fabs(x - y);
        if (!strcmp(col, "acceptance")) {
            CHECK(x == y, "%s: acceptance %.10g in (a), %.10g in (b): the runs made different "
                  "decisions.  Either walker_drift_sweep (or the model's use of it) differs "
                  "from the model's drift path, or a uniform fell within rounding of a "
                  "move's acceptance probability (or of the comb's sum of weights) in one run "
                  "and not the other (probability ~1e-6 a run); rerun with another seed "
                  "(run_one's): a flip passes then, a bug fails again", what, x, y);
        } else if (!isfinite(x) || !isfinite(y) || d > tolerance(x, y)) {
            first = bad++ ? first : i;
        } else if (m > 0 && d / m > worst_rel) {
            worst_rel = d / m;
            snprintf(worst_buf, sizeof worst_buf, "%s, %s", what, col);
            worst_at = worst_buf;
        }
    }
    if (bad) {
        const double x = a->v[first], y = b->v[first];
        CHECK(0, "%s: %zu values differ beyond the tolerance, the first %s = %.10g in (a), "
              "%.10g in (b): |difference| %.3g, tolerance %.3g", what, bad,
              a->names[first % a->ncols], x, y, fabs(x - y), tolerance(x, y));
    }
    return ok && !bad;
}

/* (1) - (3), `what`: runs (a) and (b) of one configuration, in the folders
 * drift_ev_<tag>_model and _evaluator; (a)'s table kept in *keep when not NULL (the caller
 * frees it) */
static void compare(const char *what, const char *tag, const char *run_keys,
                    const char *schedule, const char *model_keys, phys_table *keep)
{
    char na[64], nb[64];
    snprintf(na, sizeof na, "drift_ev_%s_model", tag);
    snprintf(nb, sizeof nb, "drift_ev_%s_evaluator", tag);
    phys_table a, b;
    const int ra = run_one(na, "planewave", "model", run_keys, schedule, model_keys, &a);
    const int rb = run_one(nb, "thostdet2", "evaluator", run_keys, schedule, model_keys, &b);
    CHECK(!ra && !rb, "%s: a run failed: (a) %d, (b) %d", what, ra, rb);
    if (ra || rb) {
        if (!ra)
            phys_table_free(&a);
        if (!rb)
            phys_table_free(&b);
        return;
    }
    const char *said = "the drift-diffusion moves of every sweep are made by evaluator "
                       "thostdet2";
    CHECK(phys_file_has(nb, "out/log", said, NULL), "%s: (b)'s log does not say '%s': the "
          "evaluator's drift sweep was not used", what, said);
    CHECK(!phys_file_has(na, "out/log", "drift-diffusion moves of every sweep", NULL),
          "%s: (a)'s log says an evaluator made the drift sweeps", what);
    if (same_results(what, &a, &b))
        printf("%s: (a) planewave, determinants = model and (b) thostdet2, determinants = "
               "evaluator: energy %.10g and %.10g, acceptance %.10g and %.10g\n", what,
               phys_get(&a, 0, "energy"), phys_get(&b, 0, "energy"),
               phys_get(&a, 0, "acceptance"), phys_get(&b, 0, "acceptance"));
    phys_table_free(&b);
    if (keep)
        *keep = a;
    else
        phys_table_free(&a);
}

static const char dmc_model[] = "electrons = 14\nrs = 2\n";
static const char dmc_schedule[] = "thermalize = 20\nsweeps = 300\n";

/* (4): the energy of (1)'s (a) at a time step 1e-5 larger is not within the tolerance */
static void control(const phys_table *a)
{
    phys_table c;
    if (run_one("drift_ev_control", "planewave", "model", "method = dmc\nwalkers = 16\n"
                "timestep = 0.0200002\n", dmc_schedule, dmc_model, &c)) {
        CHECK(0, "(4) the control run failed");
        return;
    }
    const double x = phys_get(a, 0, "energy"), y = phys_get(&c, 0, "energy");
    printf("(4) control: DMC energy %.10g at tau = 0.02, %.10g at 0.0200002: difference "
           "%.3g, tolerance %.3g\n", x, y, fabs(x - y), tolerance(x, y));
    CHECK(fabs(x - y) > tolerance(x, y), "(4) a time step 1e-5 larger changed the energy by "
          "%.3g only, within the tolerance %.3g: the comparison could not see such a change",
          fabs(x - y), tolerance(x, y));
    phys_table_free(&c);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s MCF_PROGRAM HOSTDET_FOLDER\n", argv[0]);
        return 2;
    }
    mcf_program = argv[1];
    const char *old = getenv("MCF_PLUGIN_PATH");
    char path[2 * PHYS_PATH_MAX];
    snprintf(path, sizeof path, "%s%s%s", argv[2], old && old[0] ? ":" : "",
             old ? old : "");
    setenv("MCF_PLUGIN_PATH", path, 1);
    const double t0 = phys_now();
    phys_table dmc = {0};
    compare("(1) dmc", "dmc", "method = dmc\nwalkers = 16\ntimestep = 0.02\n",
            dmc_schedule, dmc_model, &dmc);
    compare("(2) vmc", "vmc", "walkers = 4\n",
            "thermalize = 40\nadapt_every = 20\nsweeps = 300\n",
            "electrons = 14\nrs = 1\nmove = drift\nstep = 0.05\n", NULL);
    compare("(3) vmc polarized", "vmc_polarized", "walkers = 4\n",
            "thermalize = 0\nsweeps = 300\n",
            "electrons = 7\npolarized = true\nrs = 2\nmove = drift\nstep = 0.1\n", NULL);
    if (dmc.nrows) {
        control(&dmc);
        phys_table_free(&dmc);
    }
    printf("the largest relative difference between (a) and (b) in results.tsv: %.3g (%s)\n",
           worst_rel, worst_at);
    printf("test_drift_sweep_ev: %.1f s\n", phys_now() - t0);
    return check_exit();
}
