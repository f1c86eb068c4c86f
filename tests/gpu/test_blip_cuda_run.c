/* test_blip_cuda_run.c — Slater-Jastrow VMC of the homogeneous electron gas through
 * `mcf run` with evaluator = blip (CPU, double) and evaluator = blip-cuda (GPU, single-
 * precision table) (label gpu; "skipped: no device" and exit 77 without a usable device).
 *
 * 38 electrons (unpolarized closed shell), r_s = 1, the RPA cusp Jastrow, 4 walkers, the
 * same seed.  The GPU evaluates the 64-term blip sums from a float table, so its orbital
 * values differ from the CPU's by ~1e-6 relative (tests/gpu/test_blip_cuda.c); acceptance
 * ratios then differ at that level and the two runs part after a few decisions: they are
 * independent estimates of the same averages.  Energy, kinetic and potential energy per
 * electron and the variance of the local energy must agree within 3.5 combined standard
 * errors (4 comparisons: a 3.5 threshold is crossed by one of 4 independent Gaussian
 * differences with probability 0.2%).  What could hide there: the float bias of the local
 * energy, ~1e-6 x |E_kin| ~ 1e-6 hartree, far below the error bars (~3e-4).
 * The log must say that blip-cuda takes the 4 walkers in one batch (one_batch).
 *
 * blip-cuda keeps the Slater matrices on the device (its determinant ops; the runs set
 * [model] determinants = evaluator, since auto leaves 19 electrons per spin to the host):
 * a third run with determinants = model (the
 * model's host matrices, with blip-cuda's orbital rows copied back) uses the same orbital
 * values, so only the rounding of the determinant arithmetic differs (~1e-13 of a ratio)
 * and the two runs normally make the same decisions.  Asserted: the same 3.5-sigma
 * agreement as above (always valid), the log naming who keeps the determinants; printed:
 * the differences, which are ~1e-12 when the decisions agree.
 *
 * A fourth run keeps the determinants on the device but makes the moves one at a time
 * through the core's loop ([model] sweep = core: the decisions on the host), against the
 * default, whole sweeps on the device with the decisions there from the same streams.  The
 * ratios differ only in rounding (~1e-13), so over 4 x 4500 sweeps x 38 moves the decisions
 * are asserted equal: the same acceptance, and the four observables within 1e-9 relative
 * (the same configurations; the inverses' rounding alone separates the local energies).
 *
 * The settings of blip-cuda's [evaluator] (sum_precision, orbitals_per_thread) reach the
 * kernels in a run: two short runs with the device's determinants, the same seed, one at the
 * defaults and one with sum_precision = double and orbitals_per_thread = 4 (MCF_DEBUG=1:
 * the plugin logs the settings it hands to the device layer).  Asserted: the defaults stay
 * out of config.ini (so checkpoints from before the keys resume), the changed keys are in
 * it, the log names them, and the results differ (double sums move the orbital values by
 * ~1e-7 of their terms, which the energies printed to 10 digits show).
 *
 * Usage: test_blip_cuda_run MCF_PROGRAM (through ctest). */
#include "physics_util.h"

#include "internal.h"

static const char *mcf_program;

/* the run's own log (out/log), where create-time messages go */
static int run_log_has(const char *name, const char *needle)
{
    return phys_file_has(name, "out/log", needle, NULL);
}

static void run_pair(void)
{
    const char *common = "walkers = 4\n\n[schedule]\nthermalize = 500\nsweeps = 4000\n\n"
                         "[model]\nsystem = heg\nelectrons = 38\nrs = 1\njastrow = rpa\n"
                         "move = pbp\nstep = 0.5\n";
    char sections[1024];
    phys_table cpu, gpu;
    snprintf(sections, sizeof sections, "evaluator = blip\n\n%s", common);
    /* the text continues phys_run_mcf's [run] section */
    if (phys_run_mcf(mcf_program, "blip_cuda_cpu", "slater-jastrow", 3838, sections, &cpu)) {
        CHECK(0, "the blip run failed");
        return;
    }
    snprintf(sections, sizeof sections, "evaluator = blip-cuda\n\n%sdeterminants = evaluator\n",
             common);
    if (phys_run_mcf(mcf_program, "blip_cuda_gpu", "slater-jastrow", 3838, sections, &gpu)) {
        CHECK(0, "the blip-cuda run failed");
        phys_table_free(&cpu);
        return;
    }
    phys_table host;
    snprintf(sections, sizeof sections, "evaluator = blip-cuda\n\n%s"
             "determinants = model\n", common);
    if (phys_run_mcf(mcf_program, "blip_cuda_host_dets", "slater-jastrow", 3838, sections,
                     &host)) {
        CHECK(0, "the blip-cuda run with determinants = model failed");
        phys_table_free(&cpu);
        phys_table_free(&gpu);
        return;
    }
    /* the same device determinants, the moves one at a time through the core's loop (the
     * decisions on the host) against the whole sweeps on the device (the default) */
    phys_table core;
    snprintf(sections, sizeof sections, "evaluator = blip-cuda\n\n%s"
             "determinants = evaluator\nsweep = core\n", common);
    if (phys_run_mcf(mcf_program, "blip_cuda_core_sweep", "slater-jastrow", 3838, sections,
                     &core)) {
        CHECK(0, "the blip-cuda run with sweep = core failed");
        phys_table_free(&cpu);
        phys_table_free(&gpu);
        phys_table_free(&host);
        return;
    }
    const char *obs[] = {"energy", "kinetic", "potential", "variance"};
    const double acc_dev = phys_get(&gpu, 0, "acceptance"), acc_core = phys_get(&core, 0,
                                                                              "acceptance");
    printf("decisions on the device vs on the host (the same device determinants, 4 walkers "
           "x 4500 sweeps x 38 moves): acceptance %.9f vs %.9f\n", acc_dev, acc_core);
    CHECK(acc_dev == acc_core, "sweep = evaluator accepted a fraction %.12g of the moves, "
          "sweep = core %.12g: the decisions differ", acc_dev, acc_core);
    for (size_t o = 0; o < sizeof obs / sizeof *obs; o++) {
        const double a = phys_get(&gpu, 0, obs[o]), b = phys_get(&core, 0, obs[o]);
        printf("  %-9s %.15g vs %.15g (relative difference %.2g)\n", obs[o], a, b,
               fabs(a - b) / fabs(b));
        /* the same configurations: only the inverses' rounding (~1e-13) separates them */
        CHECK(fabs(a - b) <= 1e-9 * fabs(b), "%s: %.15g (sweep on the device) vs %.15g (core)",
              obs[o], a, b);
    }
    CHECK(run_log_has("blip_cuda_gpu", "the moves of every sweep are made by evaluator "
                      "blip-cuda"), "the log of the device run does not say who sweeps");
    phys_table_free(&core);
    for (int pair = 0; pair < 2; pair++) {
        const phys_table *ref = pair == 0 ? &cpu : &host;
        printf("%s\n", pair == 0 ? "blip-cuda (determinants on the device) vs blip (CPU):"
                                 : "blip-cuda: determinants on the device vs on the host:");
        for (size_t o = 0; o < sizeof obs / sizeof *obs; o++) {
            char err[64];
            snprintf(err, sizeof err, "%s_err", obs[o]);
            const double ec = phys_get(ref, 0, err), eg = phys_get(&gpu, 0, err);
            phys_compare(obs[o], phys_get(&gpu, 0, obs[o]), sqrt(ec * ec + eg * eg),
                         phys_get(ref, 0, obs[o]), 3.5, 0.0);
        }
    }
    printf("  acceptance: blip %.6f, blip-cuda %.6f (device determinants), %.6f (host)\n",
           phys_get(&cpu, 0, "acceptance"), phys_get(&gpu, 0, "acceptance"),
           phys_get(&host, 0, "acceptance"));
    CHECK(phys_log_has("blip_cuda_gpu", "blip-cuda takes all 4 chains in one batch", NULL),
          "the log of the blip-cuda run does not say it took the 4 walkers in one batch");
    CHECK(run_log_has("blip_cuda_gpu", "Slater determinants are kept by evaluator blip-cuda"),
          "the log of the blip-cuda run does not say that it keeps the "
          "determinants");
    CHECK(run_log_has("blip_cuda_host_dets", "takes all 4 chains in one batch"), "no log of "
          "the run with determinants = model");
    CHECK(!run_log_has("blip_cuda_host_dets", "Slater determinants are kept by evaluator"),
          "with determinants = model the log says the evaluator keeps "
          "them");
    phys_table_free(&cpu);
    phys_table_free(&gpu);
    phys_table_free(&host);
}

static void run_settings(void)
{
    /* [0] at the defaults, [1] with the keys changed (the chains are created before the run's
     * log opens, so the plugin's debug line is not there: the changed results and config.ini
     * are the evidence that the keys reach the device) */
    const char *names[2] = {"blip_cuda_defaults", "blip_cuda_double"};
    const char *keys[2] = {"", "\n[evaluator]\nsum_precision = double\norbitals_per_thread = 4\n"};
    phys_table runs[2];
    for (int k = 0; k < 2; k++) {
        char text[1024];
        snprintf(text, sizeof text, "evaluator = blip-cuda\nwalkers = 4\n\n[schedule]\n"
                 "thermalize = 20\nsweeps = 100\n\n[model]\nsystem = heg\nelectrons = 38\n"
                 "rs = 1\njastrow = rpa\nmove = pbp\nstep = 0.5\ndeterminants = evaluator\n%s",
                 keys[k]);
        const int failed =
            phys_run_mcf(mcf_program, names[k], "slater-jastrow", 3838, text, &runs[k]);
        if (failed) {
            CHECK(0, "the blip-cuda run %s failed", names[k]);
            if (k)
                phys_table_free(&runs[0]);
            return;
        }
    }
    const phys_table *def = &runs[0], *dbl = &runs[1];
    const char *obs[] = {"energy", "kinetic", "energy_sq", "variance"};
    int differ = 0;
    for (size_t o = 0; o < sizeof obs / sizeof *obs; o++) {
        const double a = phys_get(def, 0, obs[o]), b = phys_get(dbl, 0, obs[o]);
        printf("settings: %s %.10g (single sums), %.10g (double sums, 4 orbitals per thread)\n",
               obs[o], a, b);
        differ += isfinite(a) && isfinite(b) && a != b;
    }
    CHECK(differ > 0, "sum_precision = double changed none of the results: the key does not "
          "reach the kernel");
    CHECK(!phys_file_has("blip_cuda_defaults", "out/config.ini", "sum_precision", NULL) &&
              !phys_file_has("blip_cuda_defaults", "out/config.ini", "orbitals_per_thread",
                             NULL),
          "the settings at their defaults are written into config.ini");
    CHECK(phys_file_has("blip_cuda_double", "out/config.ini", "sum_precision = double", NULL) &&
              phys_file_has("blip_cuda_double", "out/config.ini", "orbitals_per_thread = 4",
                            NULL),
          "the changed settings are missing from config.ini");
    phys_table_free(&runs[0]);
    phys_table_free(&runs[1]);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s MCF_PROGRAM\n", argv[0]);
        return 2;
    }
    mcf_program = argv[1];
    /* the plugin's own probe decides whether there is a device */
    mcf_plugin *p = NULL;
    if (mcfe_plugin_open("blip-cuda", MCF_PLUGIN_ORBITAL_EVALUATOR, &p) != MCF_OK) {
        CHECK(0, "loading blip-cuda: %s", mcf_last_error());
        return check_exit();
    }
    char why[512] = "";
    const int usable = !p->info->probe || p->info->probe(why, sizeof why);
    mcfe_plugin_close(p);
    if (!usable) {
        printf("skipped: no device (%s)\n", why);
        return 77;
    }
    printf("device: %s\n", why);
    run_pair();
    run_settings();
    return check_exit();
}
