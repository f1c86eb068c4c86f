/* test_dmc_cuda_run.c — drift-diffusion sweeps on the device (blip-cuda's walker_drift_sweep,
 * mcf 1.2) against the model's host drift path through `mcf run` (label gpu; "skipped: no
 * device" and exit 77 without a usable device).
 *
 * 38 electrons (unpolarized closed shell), r_s = 1, the RPA cusp Jastrow, blip-cuda's
 * orbitals in both runs of a pair, the same seed: (h) [model] determinants = model, the
 * model's host drift path (sj_drift.c) with the orbital rows and gradients from blip-cuda's
 * values kernel, the decisions in the core's loop; (d) determinants = evaluator, every sweep
 * of every walker one launch (blip_cuda_drift_sweep.cu), the decisions there from the same
 * streams.  The kernel evaluates the orbitals at a trial point with the values kernel's own
 * sums (bcu_vgl_sum), so the two runs see the same orbital rows, and their ratios, drifts
 * and Green's functions differ only in the rounding of the determinant and Jastrow sums
 * (~1e-13 relative: m = 19 terms of the inverse updated after every move, a Jastrow sum of
 * 37 terms, each summed in another order).  A decision differs only where a uniform lies
 * within that rounding of e^{log ratio}: about 1e-13 of the moves, so over the moves below
 * (~2.4e5 and ~6e4) the decisions are asserted equal: the same acceptance bit for bit and the
 * energy and its variance within 1e-9 relative (the same configurations and populations;
 * the local energies differ in the inverses' rounding alone, and the DMC weights
 * exp(-tau E_L) with them: a comb's choice moves only if a weight's rounding crosses a
 * uniform, again ~1e-13 a draw).  Pairs:
 *   (a) [run] method = dmc, 16 walkers, tau = 0.02, 400 steps (fixed node: moves across a
 *       node refused in both);
 *   (b) VMC with move = drift, 4 walkers, 400 sweeps (tau = step^2 adapted by the core while
 *       thermalizing; no node rule).
 * Asserted besides: the log of (d) says the evaluator makes the drift moves, and (h)'s does
 * not; both runs agree with each other within 3.5 combined standard errors (valid even if a
 * decision flipped: then they are two estimates of one average).  (c) A DMC run on the device
 * stopped by SIGTERM after a checkpoint and resumed gives the uninterrupted run's results.tsv
 * byte for byte.
 *
 * Usage: test_dmc_cuda_run MCF_PROGRAM (through ctest). */
#include "physics_util.h"

#include "internal.h"

static const char *mcf_program;

static void run_pair(const char *tag, const char *run_keys, const char *model_keys)
{
    static const char common[] = "\n[model]\nsystem = heg\nelectrons = 38\nrs = 1\n"
                                 "jastrow = rpa\n";
    char sections[1024], name[2][64];
    phys_table t[2];
    for (int k = 0; k < 2; k++) {
        snprintf(name[k], sizeof name[k], "dmc_cuda_%s_%s", tag, k ? "device" : "host");
        snprintf(sections, sizeof sections, "evaluator = blip-cuda\n%s%s%sdeterminants = %s\n",
                 run_keys, common, model_keys, k ? "evaluator" : "model");
        if (phys_run_mcf(mcf_program, name[k], "slater-jastrow", 4646, sections, &t[k])) {
            CHECK(0, "%s: the run with determinants = %s failed", tag,
                  k ? "evaluator" : "model");
            if (k)
                phys_table_free(&t[0]);
            return;
        }
    }
    const double acc_h = phys_get(&t[0], 0, "acceptance"), acc_d = phys_get(&t[1], 0,
                                                                            "acceptance");
    printf("%s: acceptance %.12f (host drift path) vs %.12f (device drift sweep)\n", tag,
           acc_h, acc_d);
    CHECK(acc_h == acc_d, "%s: the host path accepted a fraction %.15g of the moves, the "
          "device %.15g: the decisions differ", tag, acc_h, acc_d);
    const char *obs[] = {"energy", "kinetic", "potential"};
    for (size_t o = 0; o < sizeof obs / sizeof *obs; o++) {
        const double a = phys_get(&t[1], 0, obs[o]), b = phys_get(&t[0], 0, obs[o]);
        printf("  %-9s %.15g (device) vs %.15g (host), relative difference %.2g\n", obs[o], a,
               b, fabs(a - b) / fabs(b));
        CHECK(fabs(a - b) <= 1e-9 * fabs(b), "%s: %s %.15g (device) vs %.15g (host)", tag,
              obs[o], a, b);
        char err[64];
        snprintf(err, sizeof err, "%s_err", obs[o]);
        const double ea = phys_get(&t[1], 0, err), eb = phys_get(&t[0], 0, err);
        if (isfinite(ea) && isfinite(eb))
            phys_compare(obs[o], a, sqrt(ea * ea + eb * eb), b, 3.5, 0.0);
    }
    CHECK(phys_file_has(name[1], "out/log", "drift-diffusion moves of every sweep are made "
                        "by evaluator blip-cuda", NULL),
          "%s: the device run's log does not say the evaluator makes the drift moves", tag);
    CHECK(!phys_file_has(name[0], "out/log", "drift-diffusion moves of every sweep are made",
                         NULL),
          "%s: with determinants = model the log says the evaluator makes the moves", tag);
    phys_table_free(&t[0]);
    phys_table_free(&t[1]);
}

/* (c) the device path stops and resumes bit for bit: the walkers' determinants are rebuilt on
 * the device from the checkpoint's records, and the run goes on with the same numbers */
static void run_resume(void)
{
    const int same = phys_resume_same(
        mcf_program, "dmc_cuda_resume",
        "model = slater-jastrow\nevaluator = blip-cuda\nseed = 4747\nwalkers = 16\n"
        "method = dmc\ntimestep = 0.02\n",
        "[schedule]\nthermalize = 50\nsweeps = 3000\ncheckpoint_every = 100\n"
        "[model]\nelectrons = 38\nrs = 1\njastrow = rpa\ndeterminants = evaluator\n");
    printf("(c) DMC on the device stopped by SIGTERM and resumed = uninterrupted, byte for "
           "byte: %s\n", same ? "yes" : "NO");
    CHECK(same, "the device DMC run resumed differs from the uninterrupted one");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s MCF_PROGRAM\n", argv[0]);
        return 2;
    }
    mcf_program = argv[1];
    mcf_plugin *p = NULL; /* the plugin's own probe decides whether there is a device */
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
    run_pair("dmc", "method = dmc\nwalkers = 16\ntimestep = 0.02\n\n[schedule]\n"
             "thermalize = 100\nsweeps = 300\n", "");
    run_pair("drift", "walkers = 4\n\n[schedule]\nthermalize = 100\nsweeps = 300\n",
             "move = drift\nstep = 0.2\n");
    run_resume();
    return check_exit();
}
