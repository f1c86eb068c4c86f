/* test_vmc_optimize.c — `mcf optimize` (core/engine/optimize.c, the linear method of
 * core/engine/linear_method.c) on the slater-jastrow model with the B-spline Jastrow
 * (jastrow = bspline, models/slater-jastrow/sj_bspline.c), against QMCPACK's reference.
 *
 * ---- The reference ------------------------------------------------------------------------
 * QMCPACK's test tests/heg/heg_14_gamma (README, "heg_SJ"): the homogeneous electron gas of
 * N = 14 electrons (7 up, 7 down, closed shell at the Gamma point), r_s = 5, Ewald
 * interaction, one plane-wave determinant per spin times a two-body B-spline Jastrow of
 * 5 parameters per spin pair (like and unlike), cutoff L/2, optimized by QMCPACK:
 *     uu  1.082858193 0.6653279375 0.4358910287 0.2243616172 0.1102948764
 *     ud  1.696171854 1.047722154  0.6275148566 0.3175982878 0.1446706214
 *     VMC total energy  E_ref = -1.073323 +- 0.000027 hartree,
 *     variance of the total local energy  0.024574 +- 0.000018 hartree^2.
 * sj_bspline.c follows QMCPACK's BsplineFunctor convention, so these numbers carry over.
 * optimize.tsv gives energies of the whole cell; `mcf run` gives E/N (columns energy,
 * energy_err) and Var(E)/N (column variance), so E = 14 energy, Var(E) = 14 variance.
 *
 * ---- What is checked -----------------------------------------------------------------------
 * (a) The optimization from scratch (w = 0 but for the cusp), 8 iterations of 2000 sweeps,
 *     4 walkers, a fixed seed (the numbers are reproducible; each tolerance below is chosen
 *     so that a correct code passes for almost every seed, not tuned to this one):
 *       - the first iteration's energy is above the last by > 5 combined sigma (the cusp-only
 *         Jastrow is ~0.25 hartree, ~30 sigma, above the optimum: a large margin);
 *       - no iteration from the 4th on (index >= 3) is above E_ref by more than 3.5 sigma
 *         (that iteration's error and the reference's, combined): five one-sided
 *         comparisons, each failing by chance with probability 2.3e-4 at 3.5 sigma, so a
 *         correct optimizer fails this check with probability ~1e-3 once the parameters
 *         are close to the optimum; after three linear-method steps from w = 0 they are
 *         (their excess energy is at most about one sigma, 0.0028: the example runs measured
 *         iteration 3 at +0.001 and +0.004 above E_ref), and the extra 0.5 sigma covers that;
 *       - parameters.txt is the mean of the parameters-NNN.txt of the accepted iterations
 *         from iterations/2 = 4 on (an accepted row has a finite `predicted`), to 1e-14
 *         relative (the files carry 17 digits; the mean of four numbers rounds at ~1e-16);
 *       - QMCPACK's parameters in our code (an independent `mcf run`, 20000 sweeps x 4
 *         walkers): E and Var(E) agree with QMCPACK's within 3 combined sigma.  This
 *         validates the Hamiltonian and the B-spline convention, so that what follows
 *         compares optimizers and not conventions;
 *       - an independent `mcf run` (another seed, as long) with the answer, parameters.txt:
 *         E <= E_ref + 3 sigma (sigma = sqrt(err^2 + 0.000027^2)): the optimized Jastrow is
 *         as good as QMCPACK's within errors.  (An earlier rule, the parameters of the
 *         lowest energy measured, picked a noisy unconverged iteration: 7.6 sigma above
 *         E_ref in a long run; the average over the second half has the noise of a single
 *         step divided by ~2 and sits within 0.001 of E_ref);
 *       - and E >= E_ref - 3 sigma - 0.003: the variational principle bounds E from below
 *         by the minimum over the 5+5 B-spline family; QMCPACK's Jastrow is an optimized
 *         member of that family (its parameters and ours differ by a few percent), and the
 *         energy is quadratic in the distance from the minimum, so the minimum cannot lie
 *         far below E_ref: 0.003 hartree (about 1 % of the 0.25 hartree the Jastrow gains
 *         over the cusp-only start) is a generous allowance.  A lower energy means a
 *         non-variational local energy (a wrong Jastrow gradient or Laplacian), not a
 *         better optimizer;
 *       - parameters.txt's parameters against QMCPACK's: the unlike-spin p_0 (the cusp
 *         region, where the energy is most sensitive) within 20 %, every parameter within
 *         30 % (iterations 4 to 7 scatter by < 10 %: uu p_0, the flattest direction, most;
 *         the others by a few percent); parameters.txt's are printed beside them.
 * (b) Stop and resume: the same optimization with 5 iterations of 500 sweeps, once without a
 *     stop and once stopped by SIGINT as soon as optimize.tsv has the row of iteration 1
 *     (the file is polled), then `mcf resume DIR`: exit status 130 for the stop, the
 *     message says it stopped and names `mcf resume`, the stopped folder held fewer than 5
 *     rows, and after the resume optimize.tsv and parameters.txt are byte-identical to the
 *     uninterrupted run's (optimize.state keeps every walker's state and random stream).
 * (c) target = variance from scratch (4 iterations of 1000 sweeps): the last iteration's
 *     variance is below the first's by > 5 combined sigma (0.15 -> ~0.02, ~20 sigma).
 * (d) Refusals, exit status 2 and a message naming the problem: jastrow = rpa (no
 *     parameters: the message names jastrow = bspline), a scanned configuration (rs = 1, 2:
 *     an optimization takes one point), an unknown key in [optimize] (named), and
 *     `mcf optimize` over the folder of an earlier optimization without --force (which
 *     leaves that folder's optimize.tsv untouched).
 *
 * Run time: ~40 s on 2 idle cores (the optimization of (a) ~8 s, three VMC runs ~25 s), up
 * to ~65 s when other jobs share the cores. */
#include "physics_util.h"

#include <fcntl.h>
#include <signal.h>

static const char *mcf_program;

#define N_ELECTRONS 14
#define E_REF (-1.073323)
#define E_REF_ERR 0.000027
#define VAR_REF 0.024574
#define VAR_REF_ERR 0.000018

static const double qmc_uu[5] = {1.082858193, 0.6653279375, 0.4358910287, 0.2243616172,
                                 0.1102948764};
static const double qmc_ud[5] = {1.696171854, 1.047722154, 0.6275148566, 0.3175982878,
                                 0.1446706214};

/* The system: [run] evaluator and walkers, [schedule], [model]. */
#define HEG_RUN "evaluator = planewave\nwalkers = 4\nthreads = 0\n"
#define HEG_MODEL "[model]\nelectrons = 14\nrs = 5\njastrow = bspline\njastrow_size = 5\n"

/* Writes DIR/<name>.ini: [run] model, seed, output = DIR/<name>, then `body` (the rest of
 * [run] and the other sections).  The path into ini, the output folder into out. */
static int write_config(const char *dir, const char *name, unsigned long long seed,
                        const char *body, char *ini, size_t ini_size, char *out,
                        size_t out_size)
{
    snprintf(out, out_size, "%s/%s", dir, name);
    snprintf(ini, ini_size, "%s/%s.ini", dir, name);
    FILE *f = fopen(ini, "w");
    if (!f) {
        fprintf(stderr, "cannot write %s: %s\n", ini, strerror(errno));
        return -1;
    }
    fprintf(f, "; written by test_vmc_optimize\n[run]\nmodel = slater-jastrow\nseed = %llu\n"
            "output = %s\n%s", seed, out, body);
    return fclose(f);
}

/* Runs `mcf ARGS` (a shell fragment, paths quoted by the caller) with its output to log;
 * the exit status, -1 when it did not exit. */
static int run_mcf(const char *args, const char *log, double *wall)
{
    static char cmd[4 * PHYS_PATH_MAX];
    snprintf(cmd, sizeof cmd, "'%s' %s > '%s' 2>&1", mcf_program, args, log);
    const double t0 = phys_now();
    const int status = system(cmd);
    if (wall)
        *wall = phys_now() - t0;
    return status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* `mcf optimize` of DIR/<name>.ini written from body (write_config; the output folder into
 * out, the log DIR/<name>.log): the exit status, printed with the wall time as `what`; -1
 * (a failed check) when the configuration cannot be written; the log's tail on failure. */
static int optimize_config(const char *dir, const char *name, unsigned long long seed,
                           const char *body, const char *what, char *out, size_t out_size)
{
    char ini[PHYS_PATH_MAX], log[PHYS_PATH_MAX], args[2 * PHYS_PATH_MAX];
    if (write_config(dir, name, seed, body, ini, sizeof ini, out, out_size)) {
        CHECK(0, "%s: cannot write the configuration %s", what, ini);
        return -1;
    }
    snprintf(log, sizeof log, "%s/%s.log", dir, name);
    snprintf(args, sizeof args, "optimize '%s' --no-progress", ini);
    double wall;
    const int rc = run_mcf(args, log, &wall);
    printf("  %s: mcf optimize exit %d, %.1f s\n", what, rc, wall);
    if (rc)
        phys_print_tail(log);
    return rc;
}

/* The whole text of a file (static buffer, truncated at 64 KiB; "" when unreadable). */
static const char *slurp(const char *path)
{
    static char text[1 << 16];
    FILE *f = fopen(path, "r");
    const size_t got = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[got] = '\0';
    if (f)
        fclose(f);
    return text;
}

/* Reads the parameters "uu ..." and "ud ..." (5 each) of a parameter file; 0 on success. */
static int read_parameters(const char *path, double uu[5], double ud[5])
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[4096];
    int got = 0;
    while (fgets(line, sizeof line, f)) {
        double *dst = !strncmp(line, "uu ", 3) ? uu : !strncmp(line, "ud ", 3) ? ud : NULL;
        if (!dst)
            continue;
        if (sscanf(line + 3, "%lf %lf %lf %lf %lf", &dst[0], &dst[1], &dst[2], &dst[3],
                   &dst[4]) == 5)
            got |= dst == uu ? 1 : 2;
    }
    fclose(f);
    return got == 3 ? 0 : -1;
}

/* optimize.tsv of the folder out into t; prints it.  0 on success. */
static int read_optimize(const char *out, phys_table *t)
{
    char path[PHYS_PATH_MAX];
    snprintf(path, sizeof path, "%s/optimize.tsv", out);
    if (phys_read_table(path, t))
        return -1;
    printf("  %s:\n%s", path, slurp(path));
    return 0;
}

/* A VMC run (`mcf run`) of the system with the parameters of jastrow_file: the total
 * energy, its error, Var(E) and its error.  0 on success. */
static int vmc_total(const char *dir, const char *name, unsigned long long seed,
                     const char *jastrow_file, long sweeps, double *e, double *err,
                     double *var, double *var_err)
{
    char body[2048], ini[PHYS_PATH_MAX], out[PHYS_PATH_MAX], log[PHYS_PATH_MAX],
        args[3 * PHYS_PATH_MAX], results[PHYS_PATH_MAX];
    snprintf(body, sizeof body, HEG_RUN "[schedule]\nthermalize = 500\nmeasure_every = 2\n"
             "sweeps = %ld\n" HEG_MODEL "jastrow_file = %s\n", sweeps, jastrow_file);
    if (write_config(dir, name, seed, body, ini, sizeof ini, out, sizeof out))
        return -1;
    snprintf(log, sizeof log, "%s/%s.log", dir, name);
    snprintf(args, sizeof args, "run '%s' --no-progress", ini);
    double wall;
    const int rc = run_mcf(args, log, &wall);
    if (rc != 0) {
        fprintf(stderr, "%s: mcf run exited with %d\n", name, rc);
        phys_print_tail(log);
        return -1;
    }
    snprintf(results, sizeof results, "%s/results.tsv", out);
    phys_table t;
    if (phys_read_table(results, &t))
        return -1;
    *e = N_ELECTRONS * phys_get(&t, 0, "energy");
    *err = N_ELECTRONS * phys_get(&t, 0, "energy_err");
    *var = N_ELECTRONS * phys_get(&t, 0, "variance");
    *var_err = N_ELECTRONS * phys_get(&t, 0, "variance_err");
    phys_table_free(&t);
    printf("  %s (%s, seed %llu, %ld sweeps x 4 walkers, %.1f s): E = %.6f +- %.6f, "
           "Var(E) = %.6f +- %.6f\n", name, jastrow_file, seed, sweeps, wall, *e, *err, *var,
           *var_err);
    return 0;
}

/* ---- (a) the optimization from scratch and QMCPACK's reference ----------------------------- */

static void test_from_scratch(const char *dir)
{
    printf("(a) optimization from scratch vs QMCPACK heg_14_gamma (E_ref = %.6f +- %.6f)\n",
           E_REF, E_REF_ERR);
    char out[PHYS_PATH_MAX];
    const char *body = HEG_RUN "[schedule]\nthermalize = 500\nmeasure_every = 2\n" HEG_MODEL
                       "[optimize]\niterations = 8\nsamples = 2000\n";
    const int rc = optimize_config(dir, "scratch", 20240611, body, "(a)", out, sizeof out);
    CHECK(rc == 0, "(a): mcf optimize exited with %d", rc);
    if (rc)
        return;
    phys_table t;
    if (read_optimize(out, &t)) {
        CHECK(0, "(a): no optimize.tsv");
        return;
    }
    CHECK(t.nrows == 8, "(a): optimize.tsv has %zu rows, not 8", t.nrows);
    if (t.nrows < 4) {
        phys_table_free(&t);
        return;
    }
    const size_t last = t.nrows - 1;
    const double e0 = phys_get(&t, 0, "energy"), s0 = phys_get(&t, 0, "energy_err");
    const double el = phys_get(&t, last, "energy"), sl = phys_get(&t, last, "energy_err");
    const double s = sqrt(s0 * s0 + sl * sl);
    printf("  first %.6f +- %.6f, last %.6f +- %.6f: difference %.6f = %.1f combined sigma "
           "(needs > 5)\n", e0, s0, el, sl, e0 - el, (e0 - el) / s);
    CHECK(s > 0 && e0 - el > 5.0 * s, "(a): the first energy %.6f is not above the last %.6f "
          "by 5 sigma = %.6f", e0, el, 5.0 * s);
    int accepted[64] = {0};
    for (size_t k = 0; k < t.nrows; k++) {
        const double e = phys_get(&t, k, "energy"), err = phys_get(&t, k, "energy_err");
        accepted[k < 64 ? k : 63] = isfinite(phys_get(&t, k, "predicted"));
        if (k < 3)
            continue;
        const double sk = sqrt(err * err + E_REF_ERR * E_REF_ERR);
        printf("  iteration %zu: E - E_ref = %+.6f = %+.2f sigma (needs <= 3.5)\n", k,
               e - E_REF, (e - E_REF) / sk);
        CHECK(isfinite(e) && err > 0 && e <= E_REF + 3.5 * sk, "(a): iteration %zu: energy "
              "%.6f +- %.6f is more than 3.5 sigma above E_ref %.6f", k, e, err, E_REF);
    }
    phys_table_free(&t);

    /* parameters.txt: the mean of the accepted iterations' parameters from 4 on */
    char params[PHYS_PATH_MAX];
    snprintf(params, sizeof params, "%s/parameters.txt", out);
    double uu[5], ud[5], muu[5] = {0}, mud[5] = {0};
    int n_mean = 0;
    for (size_t k = 4; k <= last && k < 64; k++) {
        char file[PHYS_PATH_MAX];
        double a[5], b[5];
        snprintf(file, sizeof file, "%s/parameters-%03zu.txt", out, k);
        if (!accepted[k])
            continue;
        if (read_parameters(file, a, b)) {
            CHECK(0, "(a): cannot read %s", file);
            return;
        }
        for (int m = 0; m < 5; m++) {
            muu[m] += a[m];
            mud[m] += b[m];
        }
        n_mean++;
    }
    if (n_mean == 0 || read_parameters(params, uu, ud)) {
        CHECK(0, "(a): no accepted iteration from 4 on, or cannot read %s", params);
        return;
    }
    double worst = 0.0;
    for (int m = 0; m < 5; m++) {
        worst = fmax(worst, fabs(uu[m] - muu[m] / n_mean) / fabs(uu[m]));
        worst = fmax(worst, fabs(ud[m] - mud[m] / n_mean) / fabs(ud[m]));
    }
    printf("  parameters.txt = the mean of %d accepted iterations from 4 on: largest relative "
           "difference %.2g (needs <= 1e-14)\n", n_mean, worst);
    CHECK(worst <= 1e-14, "(a): parameters.txt is not the mean of the accepted iterations "
          "from 4 on (relative difference %.3g)", worst);
    printf("  parameters.txt / QMCPACK's:\n");
    for (int m = 0; m < 5; m++) {
        printf("    uu p_%d  %.5f (%+5.1f %%) / %.5f    ud p_%d  %.5f (%+5.1f %%) / %.5f\n", m,
               uu[m], 100.0 * (uu[m] / qmc_uu[m] - 1.0), qmc_uu[m], m, ud[m],
               100.0 * (ud[m] / qmc_ud[m] - 1.0), qmc_ud[m]);
        CHECK(fabs(uu[m] / qmc_uu[m] - 1.0) <= 0.30, "(a): uu p_%d = %.5f is not within 30 %% "
              "of QMCPACK's %.5f", m, uu[m], qmc_uu[m]);
        CHECK(fabs(ud[m] / qmc_ud[m] - 1.0) <= 0.30, "(a): ud p_%d = %.5f is not within 30 %% "
              "of QMCPACK's %.5f", m, ud[m], qmc_ud[m]);
    }
    CHECK(fabs(ud[0] / qmc_ud[0] - 1.0) <= 0.20, "(a): ud p_0 = %.5f is not within 20 %% of "
          "QMCPACK's %.5f", ud[0], qmc_ud[0]);

    /* QMCPACK's parameters in our code: the same Hamiltonian and convention */
    char qmc_file[PHYS_PATH_MAX];
    snprintf(qmc_file, sizeof qmc_file, "%s/qmcpack.txt", dir);
    FILE *f = fopen(qmc_file, "w");
    if (!f) {
        CHECK(0, "(a): cannot write %s", qmc_file);
        return;
    }
    fprintf(f, "# QMCPACK tests/heg/heg_14_gamma, heg.sj.wfs.xml\nform bspline\nuu");
    for (int m = 0; m < 5; m++)
        fprintf(f, " %.10g", qmc_uu[m]);
    fprintf(f, "\nud");
    for (int m = 0; m < 5; m++)
        fprintf(f, " %.10g", qmc_ud[m]);
    fprintf(f, "\n");
    fclose(f);
    double eq, eq_err, vq, vq_err;
    if (vmc_total(dir, "vmc_qmcpack", 31, qmc_file, 20000, &eq, &eq_err, &vq, &vq_err)) {
        CHECK(0, "(a): the VMC run with QMCPACK's parameters failed");
    } else {
        phys_compare("E(QMCPACK's Jastrow) vs E_ref", eq, sqrt(eq_err * eq_err +
                     E_REF_ERR * E_REF_ERR), E_REF, 3.0, 0.0);
        phys_compare("Var(E)(QMCPACK's) vs ref", vq, sqrt(vq_err * vq_err +
                     VAR_REF_ERR * VAR_REF_ERR), VAR_REF, 3.0, 0.0);
    }

    /* the optimized parameters (the last iteration's) in an independent run */
    double e, err, v, v_err;
    if (vmc_total(dir, "vmc_optimized", 32, params, 20000, &e, &err, &v, &v_err)) {
        CHECK(0, "(a): the VMC run with the optimized parameters failed");
        return;
    }
    double sr = sqrt(err * err + E_REF_ERR * E_REF_ERR);
    printf("  parameters.txt: E - E_ref = %+.6f = %+.2f sigma (sigma %.6f; needs "
           "<= 3 sigma and >= -3 sigma - 0.003); Var(E) %.6f (QMCPACK's %.6f)\n",
           e - E_REF, (e - E_REF) / sr, sr, v, VAR_REF);
    CHECK(isfinite(e) && err > 0 && e <= E_REF + 3.0 * sr, "(a): the optimized Jastrow's "
          "energy %.6f +- %.6f is more than 3 sigma above QMCPACK's %.6f", e, err, E_REF);
    CHECK(e >= E_REF - 3.0 * sr - 0.003, "(a): the optimized Jastrow's energy %.6f +- %.6f is "
          "below QMCPACK's %.6f by more than 3 sigma + 0.003 (variational principle)", e, err,
          E_REF);

}

/* ---- (b) stop and resume ----------------------------------------------------------------- */

#define RESUME_BODY                                                                          \
    HEG_RUN "[schedule]\nthermalize = 500\nmeasure_every = 2\n" HEG_MODEL                    \
            "[optimize]\niterations = 5\nsamples = 500\nthermalize = 100\n"

/* 1 when out/optimize.tsv has a line starting with "1\t" (the row of iteration 1) */
static int has_row_1(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[1024];
    int found = 0;
    while (!found && fgets(line, sizeof line, f))
        found = !strncmp(line, "1\t", 2) && strchr(line, '\n') != NULL;
    fclose(f);
    return found;
}

static void test_resume(const char *dir)
{
    printf("(b) stop with SIGINT and mcf resume\n");
    char ini[PHYS_PATH_MAX], ref[PHYS_PATH_MAX], out[PHYS_PATH_MAX], log[PHYS_PATH_MAX],
        args[2 * PHYS_PATH_MAX];
    int rc = optimize_config(dir, "whole", 777, RESUME_BODY, "(b) uninterrupted", ref,
                             sizeof ref);
    CHECK(rc == 0, "(b): the uninterrupted optimization exited with %d", rc);
    if (rc)
        return;

    if (write_config(dir, "stopped", 777, RESUME_BODY, ini, sizeof ini, out, sizeof out)) {
        CHECK(0, "(b): cannot write the configuration");
        return;
    }
    char tsv[PHYS_PATH_MAX];
    snprintf(tsv, sizeof tsv, "%s/optimize.tsv", out);
    snprintf(log, sizeof log, "%s/stopped.log", dir);
    fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
        const int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        execl(mcf_program, mcf_program, "optimize", ini, "--no-progress", (char *)NULL);
        _exit(127);
    }
    CHECK(pid > 0, "(b): fork failed");
    if (pid <= 0)
        return;
    /* poll every millisecond, at most 60 s */
    const struct timespec ms = {0, 1000000};
    int status = 0, seen = 0, exited = 0;
    for (int i = 0; i < 60000 && !(seen = has_row_1(tsv)); i++) {
        if (waitpid(pid, &status, WNOHANG) == pid) {
            exited = 1;
            break;
        }
        nanosleep(&ms, NULL);
    }
    if (!exited) {
        kill(pid, SIGINT);
        waitpid(pid, &status, 0);
    }
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    phys_table t;
    const size_t rows_stopped = phys_read_table(tsv, &t) ? 0 : t.nrows;
    phys_table_free(&t);
    const char *text = slurp(log);
    printf("  stopped by SIGINT after the row of iteration 1 (seen: %s): exit %d, %zu rows; "
           "output:\n%s", seen ? "yes" : "no", code, rows_stopped, text);
    CHECK(seen, "(b): optimize.tsv never had the row of iteration 1");
    CHECK(code == 130, "(b): SIGINT: exit status %d, not 130", code);
    CHECK(phys_contains(text, "stopped") && phys_contains(text, "mcf resume"), "(b): the "
          "stopped run's message does not say it stopped and how to resume");
    CHECK(rows_stopped >= 2 && rows_stopped < 5, "(b): the stopped folder has %zu rows, not "
          "2 to 4 (the stop did not interrupt the optimization)", rows_stopped);
    char run_log[PHYS_PATH_MAX];
    snprintf(run_log, sizeof run_log, "%s/log", out);
    CHECK(phys_contains(slurp(run_log), "stopped"), "(b): %s does not say the run stopped",
          run_log);

    snprintf(log, sizeof log, "%s/resumed.log", dir);
    snprintf(args, sizeof args, "resume '%s' --no-progress", out);
    double wall;
    rc = run_mcf(args, log, &wall);
    printf("  mcf resume: exit %d, %.1f s; %s", rc, wall, slurp(log));
    CHECK(rc == 0, "(b): mcf resume exited with %d", rc);
    CHECK(phys_contains(slurp(run_log), "resuming at iteration"), "(b): %s does not say where "
          "the optimization resumed", run_log);
    const char *files[] = {"optimize.tsv", "parameters.txt"};
    for (int k = 0; k < 2; k++) {
        char a[PHYS_PATH_MAX], b[PHYS_PATH_MAX];
        snprintf(a, sizeof a, "%s/%s", ref, files[k]);
        snprintf(b, sizeof b, "%s/%s", out, files[k]);
        const int same = phys_same_file(a, b);
        printf("  %s: stopped and resumed = uninterrupted, byte for byte: %s\n", files[k],
               same ? "yes" : "NO");
        CHECK(same, "(b): %s and %s differ", a, b);
    }
    if (read_optimize(out, &t) == 0) {
        CHECK(t.nrows == 5, "(b): the resumed optimize.tsv has %zu rows, not 5", t.nrows);
        phys_table_free(&t);
    }
}

/* ---- (c) target = variance ------------------------------------------------------------------ */

static void test_variance(const char *dir)
{
    printf("(c) target = variance from scratch\n");
    char out[PHYS_PATH_MAX];
    const char *body = HEG_RUN "[schedule]\nthermalize = 500\nmeasure_every = 2\n" HEG_MODEL
                       "[optimize]\niterations = 4\nsamples = 1000\ntarget = variance\n";
    const int rc = optimize_config(dir, "variance", 4242, body, "(c)", out, sizeof out);
    CHECK(rc == 0, "(c): mcf optimize exited with %d", rc);
    phys_table t;
    if (rc || read_optimize(out, &t)) {
        CHECK(0, "(c): no optimize.tsv");
        return;
    }
    CHECK(t.nrows == 4, "(c): optimize.tsv has %zu rows, not 4", t.nrows);
    if (t.nrows >= 2) {
        const size_t last = t.nrows - 1;
        const double v0 = phys_get(&t, 0, "variance"), s0 = phys_get(&t, 0, "variance_err");
        const double vl = phys_get(&t, last, "variance"),
                     sl = phys_get(&t, last, "variance_err");
        const double s = sqrt(s0 * s0 + sl * sl);
        printf("  variance: first %.6f +- %.6f, last %.6f +- %.6f: difference %.1f combined "
               "sigma (needs > 5)\n", v0, s0, vl, sl, s > 0 ? (v0 - vl) / s : 0.0);
        CHECK(s > 0 && v0 - vl > 5.0 * s, "(c): the variance %.6f is not below the first "
              "%.6f by 5 sigma = %.6f", vl, v0, 5.0 * s);
    }
    phys_table_free(&t);
}

/* ---- (d) refusals ------------------------------------------------------------------------- */

/* `mcf optimize` of ini (with `extra` options) must exit with status 2 and mention every
 * needle (case-insensitive). */
static void expect_refusal(const char *dir, const char *what, const char *ini,
                           const char *extra, const char *const *needles)
{
    char log[PHYS_PATH_MAX], args[3 * PHYS_PATH_MAX];
    snprintf(log, sizeof log, "%s/refusal_%s.log", dir, what);
    snprintf(args, sizeof args, "optimize '%s' --no-progress %s", ini, extra);
    const int rc = run_mcf(args, log, NULL);
    const char *text = slurp(log);
    printf("  %-12s exit %d: %s", what, rc, text);
    CHECK(rc == 2, "(d) %s: exit status %d, not 2", what, rc);
    for (size_t k = 0; needles[k]; k++)
        CHECK(phys_contains(text, needles[k]), "(d) %s: the message does not mention '%s'",
              what, needles[k]);
}

static void test_refusals(const char *dir)
{
    printf("(d) refusals\n");
    char ini[PHYS_PATH_MAX], out[PHYS_PATH_MAX];
    static const char *const cases[][2] = {
        {"rpa", HEG_RUN "[schedule]\nthermalize = 10\n[model]\nelectrons = 14\nrs = 5\n"
                "jastrow = rpa\n[optimize]\niterations = 2\nsamples = 16\n"},
        {"scan", HEG_RUN "[schedule]\nthermalize = 10\n[model]\nelectrons = 14\nrs = 1, 2\n"
                 "jastrow = bspline\n[optimize]\niterations = 2\nsamples = 16\n"},
        {"unknown_key", HEG_RUN "[schedule]\nthermalize = 10\n" HEG_MODEL
                        "[optimize]\niterations = 2\nsamples = 16\nlearning_rate = 0.1\n"}};
    static const char *const needles[][4] = {{"jastrow = bspline", NULL},
                                             {"one point", NULL},
                                             {"learning_rate", "[optimize]", NULL}};
    for (size_t k = 0; k < 3; k++) {
        if (write_config(dir, cases[k][0], 1, cases[k][1], ini, sizeof ini, out, sizeof out)) {
            CHECK(0, "(d): cannot write the configuration");
            continue;
        }
        expect_refusal(dir, cases[k][0], ini, "", needles[k]);
    }
    /* over the folder of (b)'s uninterrupted optimization, without --force */
    char tsv[PHYS_PATH_MAX], copy[1 << 12];
    if (write_config(dir, "whole", 777, RESUME_BODY, ini, sizeof ini, out, sizeof out)) {
        CHECK(0, "(d): cannot write the configuration");
        return;
    }
    snprintf(tsv, sizeof tsv, "%s/optimize.tsv", out);
    snprintf(copy, sizeof copy, "%s", slurp(tsv));
    CHECK(copy[0] != '\0', "(d): %s is missing or empty", tsv);
    expect_refusal(dir, "no_force", ini, "",
                   (const char *const[]){"already holds a run", "--force", NULL});
    CHECK(!strcmp(copy, slurp(tsv)), "(d): the refused optimization changed %s", tsv);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s MCF_PROGRAM\n", argv[0]);
        return 2;
    }
    mcf_program = argv[1];
    char dir[PHYS_PATH_MAX];
    if (phys_fresh_dir("vmc_optimize", dir, sizeof dir) || strchr(dir, '\'') ||
        strchr(mcf_program, '\'')) {
        fprintf(stderr, "no usable scratch folder\n");
        return 1;
    }
    const double t0 = phys_now();
    test_from_scratch(dir);
    test_resume(dir);
    test_variance(dir);
    test_refusals(dir);
    printf("test_vmc_optimize: %.1f s\n", phys_now() - t0);
    return check_exit();
}
