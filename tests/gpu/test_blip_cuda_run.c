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
    const char *obs[] = {"energy", "kinetic", "potential", "variance"};
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

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s MCF_PROGRAM\n", argv[0]);
        return 2;
    }
    mcf_program = argv[1];
    /* the plugin's own probe decides whether there is a device */
    mcf_plugin *p = NULL;
    if (mcf_plugin_open("blip-cuda", MCF_PLUGIN_ORBITAL_EVALUATOR, &p) != MCF_OK) {
        CHECK(0, "loading blip-cuda: %s", mcf_last_error());
        return check_exit();
    }
    char why[512] = "";
    const int usable = !p->info->probe || p->info->probe(why, sizeof why);
    mcf_plugin_close(p);
    if (!usable) {
        printf("skipped: no device (%s)\n", why);
        return 77;
    }
    printf("device: %s\n", why);
    run_pair();
    return check_exit();
}
