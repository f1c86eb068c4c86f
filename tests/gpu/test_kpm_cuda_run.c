/* test_kpm_cuda_run.c — whole seeded double-exchange and holstein Monte Carlo runs through `mcf run`
 * with evaluator = kpm (CPU) and evaluator = kpm-cuda (GPU) (label gpu; "skipped: no
 * device" and exit 77 without a usable device).
 *
 * Cubic 4^3 with open boundaries, hund = inf, mu = 0, move = rotation, three temperatures
 * (0.05, 0.2, 1.0) as lockstep chains batched into one change_action call, 20
 * thermalization and 80 measured sweeps (100 sweeps of 64 trial moves per chain), GFMC
 * with M = 256 and the exact trace (vectors = 0) for the observables.  The chains draw the
 * same moves from the same streams; every acceptance compares exp(-dS) with the same
 * uniform number, and dS agrees between the evaluators to ~1e-14 (test_kpm_cuda), so the
 * runs make the same decisions unless a uniform number falls within ~1e-14 of an
 * acceptance ratio — then the trajectories part.  With the same decisions the spin
 * configurations are identical and every observable (spin observables exactly;
 * energy and density from the exact-trace moments, equal to 1e-12) agrees to 1e-9
 * relative, error bars included.  If a decision flipped, the test says so and falls back
 * to the statistical comparison: every observable within 3.5 combined standard errors
 * (3 temperatures x 5 observables: a 3.5 threshold is crossed by one of 15 independent
 * Gaussian differences with probability 0.7%).
 *
 * The same for the holstein model (4x4, g = k = 1, mu = 0, T = 0.05, 0.15, 1.0, M = 512,
 * kernel = none, vectors = 0: test_holstein's ed-vs-kpm runs, shorter): every move a
 * rank-1 traceful on-site change, whose contour the kernel finishes itself; with
 * test_holstein's ed = kpm this ties ed = kpm = kpm-cuda at low, middle and high T.  No
 * truncation warning may appear there.
 *
 * The log must say that kpm-cuda takes the 3 chains in one batch (one_batch: one call per
 * Monte Carlo step).  The evaluator = auto run: with a device, auto must take kpm-cuda and
 * say so in the log.
 *
 * Usage: test_kpm_cuda_run MCF_PROGRAM (through ctest). */
#include "physics_util.h"

#include "kpm_cuda.h"

static const char *mcf_program;

static const char *const de_obs[] = {"abs_m", "m2",      "m4",
                                     "energy", "density", "nn_correlation"};
static const char *const ho_obs[] = {"energy", "abs_m",   "m2",     "m4",
                                     "x_mean", "x2_mean", "density"};

/* The same seeded run of `model` (three temperatures) with kpm and with kpm-cuda. */
static void test_same_run(const char *model, const char *common, const double temps[3],
                          const char *const *obs, size_t NOBS)
{
    char sections[1024], cpu_name[64], gpu_name[64];
    phys_table cpu, gpu;
    snprintf(cpu_name, sizeof cpu_name, "kpm_cuda_cpu_%s", model);
    snprintf(gpu_name, sizeof gpu_name, "kpm_cuda_gpu_%s", model);
    printf("%s: the same seeded run with kpm and kpm-cuda\n", model);
    snprintf(sections, sizeof sections, "evaluator = kpm\n\n%s", common);
    if (phys_run_mcf(mcf_program, cpu_name, model, 2468, sections, &cpu)) {
        CHECK(0, "the kpm run failed");
        return;
    }
    snprintf(sections, sizeof sections, "evaluator = kpm-cuda\n\n%s", common);
    if (phys_run_mcf(mcf_program, gpu_name, model, 2468, sections, &gpu)) {
        CHECK(0, "the kpm-cuda run failed");
        phys_table_free(&cpu);
        return;
    }
    /* a device evaluator gets every step of all chains in one call (one_batch) */
    CHECK(phys_log_has(gpu_name, "kpm-cuda takes all 3 chains in one batch", "warning"),
          "the log of the kpm-cuda run does not say it took the 3 chains in one batch");
    /* holstein at M = 512: kpm's bound stays below 0.05 at these T (test_holstein), so must
     * kpm-cuda's, computed on the device */
    CHECK(strcmp(model, "holstein") || !phys_log_has(gpu_name, "warning: kpm", NULL),
          "kpm-cuda warned (see above)");
    int identical = 1;
    double worst = 0.0;
    for (int k = 0; k < 3; k++) {
        const long rc = phys_find_row(&cpu, "T", temps[k]), rg = phys_find_row(&gpu, "T", temps[k]);
        CHECK(rc >= 0 && rg >= 0, "no row for T = %g", temps[k]);
        if (rc < 0 || rg < 0)
            return;
        for (size_t o = 0; o < NOBS; o++) {
            char err[64];
            snprintf(err, sizeof err, "%s_err", obs[o]);
            const double vc = phys_get(&cpu, (size_t)rc, obs[o]);
            const double vg = phys_get(&gpu, (size_t)rg, obs[o]);
            const double ec = phys_get(&cpu, (size_t)rc, err);
            const double eg = phys_get(&gpu, (size_t)rg, err);
            /* relative to the value (error bars of a constant, such as the density 1/2,
             * are rounding noise) */
            const double d = fmax(fabs(vc - vg), fabs(ec - eg)) /
                             fmax(fmax(fabs(vc), fabs(ec)), 1e-300);
            if (!(d <= 1e-9))
                identical = 0;
            worst = fmax(worst, d);
        }
    }
    printf("same seed, kpm vs kpm-cuda: largest relative difference of any value or error bar "
           "%.2e over 3 temperatures x %zu observables\n", worst, NOBS);
    if (identical) {
        printf("  the runs made the same accept/reject decisions in every trial move (every "
               "observable equal to 1e-9)\n");
        CHECK(1, "identical");
    } else {
        printf("  a decision flipped by rounding (dS equal to ~1e-14, a uniform number within "
               "that of the ratio): the trajectories parted, comparing statistically\n");
        for (int k = 0; k < 3; k++) {
            const long rc = phys_find_row(&cpu, "T", temps[k]), rg = phys_find_row(&gpu, "T", temps[k]);
            for (size_t o = 0; o < NOBS; o++) {
                char err[64];
                snprintf(err, sizeof err, "%s_err", obs[o]);
                const double ec = phys_get(&cpu, (size_t)rc, err);
                const double eg = phys_get(&gpu, (size_t)rg, err);
                phys_compare(obs[o], phys_get(&gpu, (size_t)rg, obs[o]), sqrt(ec * ec + eg * eg),
                             phys_get(&cpu, (size_t)rc, obs[o]), 3.5, 0.0);
            }
        }
    }
    phys_table_free(&cpu);
    phys_table_free(&gpu);
}

/* evaluator = auto with a device: kpm-cuda, and the log says so */
static void test_auto(void)
{
    const char *sections = "evaluator = auto\n\n[schedule]\nthermalize = 2\nsweeps = 32\n"
                           "temperatures = 0.5\n\n[model]\nlattice = cubic\nL = 3\n\n"
                           "[evaluator]\nmoments = 64\n";
    phys_table t;
    if (phys_run_mcf(mcf_program, "kpm_cuda_auto", "double-exchange", 5, sections, &t)) {
        CHECK(0, "the evaluator = auto run failed");
        return;
    }
    phys_table_free(&t);
    /* the note of auto: "evaluator = auto: [<higher> skipped (...); ]using kpm-cuda (...)" */
    CHECK(phys_log_has("kpm_cuda_auto", "using kpm-cuda (", NULL),
          "evaluator = auto with a device did not say it took kpm-cuda");
}

int main(int argc, char **argv)
{
    char why[512];
    if (!kcu_probe(why, sizeof why)) {
        printf("skipped: no device (%s)\n", why);
        return 77;
    }
    if (argc < 2) {
        fprintf(stderr, "usage: %s MCF_PROGRAM\n", argv[0]);
        return 2;
    }
    mcf_program = argv[1];
    printf("device: %s\n", why);
    /* double exchange: rank-2 traceless spin turns, 100 sweeps of 64 moves */
    const double de_T[3] = {0.05, 0.2, 1.0};
    test_same_run("double-exchange",
                  "[schedule]\nthermalize = 20\nsweeps = 80\ntemperatures = 0.05, 0.2, 1.0\n\n"
                  "[model]\nlattice = cubic\nL = 4\nboundary = open\nmu = 0\n"
                  "move = rotation\n\n[evaluator]\nmoments = 256\nvectors = 0\n",
                  de_T, de_obs, sizeof de_obs / sizeof *de_obs);
    /* holstein: rank-1 traceful on-site shifts (the whole contour in the kernel), at low,
     * middle and high T (test_holstein ties kpm to ed on the same runs: ed = kpm = kpm-cuda) */
    const double ho_T[3] = {0.05, 0.15, 1.0};
    test_same_run("holstein",
                  "[schedule]\nthermalize = 50\nsweeps = 400\nmeasure_every = 4\n"
                  "temperatures = 0.05, 0.15, 1.0\n\n[model]\nL = 4\ng = 1\nk = 1\n\n"
                  "[evaluator]\nmoments = 512\nvectors = 0\nkernel = none\n",
                  ho_T, ho_obs, sizeof ho_obs / sizeof *ho_obs);
    test_auto();
    return check_exit();
}
