/* test_response_run.c — issue 47's conductivities through a run: the anderson model's
 * response_moments (curves sigma_xx_moments, sigma_xy_moments) and `mcf response DIR`.
 * The physics of the moments and the Kubo formulas is tests/kpm/test_response.c's; here the
 * path from a chain's measurement to the table:
 *
 * (a) W = 0 with ed: every realization is the clean 6x6 torus, so the run's mean moments
 *     are one realization's and the jackknife error is 0.  `mcf response --mu -3:3:7 --T 0.2
 *     --omega 1` against the same Hamiltonian's ed moments (M = 48) put through
 *     mcf_kubo_bastin and mcf_kubo_greenwood in this process: 1e-9 relative (the operators'
 *     slots come in another order here: rounding), and errors below 1e-12.
 * (b) W = 3 with kpm (8 random vectors, 2 walkers, 64 realizations): the table's sigma_xx
 *     and sigma_xy against the same functions of the run's mean moments as sigma_*_moments.tsv
 *     prints them (10 significant digits): 1e-6 of sigma_xx; the errors positive, finite and
 *     below a fifth of sigma_xx; and sigma_xy within 4 errors of 0 (the ensemble of the
 *     disorder is symmetric under x -> -x, which reverses sigma_xy).
 * (c) refusals: response_moments = 1, `mcf response` of a run without response moments, and
 *     a malformed --mu; [model] flux = 0.15 with L = 10 (flux x L not whole) and on bcc.
 * (d) The Hall plateaus of the Hofstadter model through a run: anderson with W = 0, flux =
 *     1/5 per plaquette on the 10x10 torus, twist = average:4 (16 walkers: the run's average
 *     over walkers is the twist average, which makes the plateaus integers), ed,
 *     response_moments = 128: 2 pi sigma_xy at T = 0 in the lowest gap (mu = -2.25) is the
 *     TKNN integer 1 within 0.03 (the Jackson kernel's M^-2 error: test_response measured
 *     9.1e-4 at M = 512 in this gap, so ~1.5 % at 128), and the highest gap (mu = 2.25) gives
 *     its negative (particle-hole symmetry) to 1e-6 (the quadrature's panels are not
 *     symmetric about 0).
 * (e) The double-exchange model's moments (J_x, J_y rebuilt from its H every measurement):
 *     the ferromagnet (start = ordered, hund = inf, T = 1e-4, two sweeps: a uniform move is
 *     accepted with probability ~1e-6) has the hoppings -t of the clean lattice, so its
 *     sigma_xx and sigma_xy at --T 0.3 and mu = -1, 0, 1 are the clean anderson run's (same
 *     lattice, bounds, M, ed) to 1e-6 of sigma_xx.
 * (e') The same with a field: the 10x10 ferromagnet with flux = 1/5 (the Peierls phases
 *     times -t <chi_i|chi_j> = -t) against the clean anderson run with the same flux: sigma_xx
 *     and sigma_xy at --T 0.3 and mu = -2.25, 0, 2.25 within 1e-6 of the largest sigma (ed,
 *     M = 64; the Hall conductivity there is the Hofstadter model's, whose plateaus (d) tests).
 * (f) `mcf response` of a T scan (the 4^3 ferromagnet of (e) with the twist of
 *     examples/de-resistivity.ini, T = 1e-4 and 2e-4): nine mu give the table (xx, xy and
 *     inv_sigma_xx rows) and the note that the plot takes at most 8, no plot; two mu give
 *     plot-resistivity.svg where gnuplot is installed, and the warning that inv_sigma_xx is
 *     not rho_xx exactly when |sigma_xy| > 0.1 sigma_xx and > 2 errors at some point (the twist breaks time
 *     reversal: the ferromagnet's sigma_xy is not 0 on a finite torus).
 * The kernel-width warning: absent in (a) (pi a / M = 0.26 < pi T / sqrt 3 = 0.36), given in
 * (b) (M = 24: 0.6).
 * inv_sigma_xx (1/sigma_xx by its own jackknife, rows after the curves' of a scan point) in
 * (a): exact; in (b): within the jackknife's bias correction of 1/sigma_xx, its error the
 * delta method's.
 * With --io (ctest's test_response_run_io, label sanitize): (a) and (c) only, the paths that
 * read and check a run's files, for the sanitizer tree (the whole test there took 98 s). */
#include "physics_util.h"

#include "evaluator_test.h"
#include "mcf/mcf.h"
#include "test_params.h"

#include <unistd.h>

#define NMU 7

static const char *mcf_prog;

static char *sections(double W, const char *ev, const char *ev_keys, int walkers, int M)
{
    static char s[1024];
    snprintf(s, sizeof s,
             "evaluator = %s\nwalkers = %d\n\n[schedule]\nthermalize = 0\nsweeps = 64\n\n"
             "[model]\nlattice = square\nL = 6\nW = %g\nresponse_moments = %d\n\n"
             "[evaluator]\n%s",
             ev, walkers, W, M, ev_keys);
    return s;
}

/* `mcf response DIR ARGS` (DIR = $MCF_TEST_TMP/name/out); status; its table `file` into t */
static int response_file(const char *name, const char *args, const char *file, phys_table *t,
                         char *log, size_t n)
{
    snprintf(log, n, "%s/%s/response.log", getenv("MCF_TEST_TMP"), name);
    return phys_run_response(mcf_prog, name, args, file, t);
}

static int response(const char *name, const char *args, phys_table *t, char *log, size_t n)
{
    return response_file(name, args, "response-jackson.tsv", t, log, n);
}

/* sigma (Bastin at the 7 mu, then Greenwood at omega = 1) of moments mu (2 M^2 values)
 * with the tail (a, b, emin, emax, n_s) */
static void sigma_of(size_t M, const double *mu, const double *tail, double *out)
{
    const mcf_kubo k = {.M = M, .mu_re = mu, .mu_im = mu + M * M, .a = tail[0], .b = tail[1],
                        .emin = tail[2], .emax = tail[3], .states_per_volume = tail[4]};
    double mus[NMU], one = 1.0;
    for (int i = 0; i < NMU; i++)
        mus[i] = -3.0 + i;
    CHECK(mcf_kubo_bastin(&k, 0.2, NMU, mus, out, NULL) == MCF_OK, "%s", mcf_last_error());
    for (int i = 0; i < NMU; i++)
        CHECK(mcf_kubo_greenwood(&k, 0.2, mus[i], 1, &one, out + NMU + i) == MCF_OK, "%s",
              mcf_last_error());
}

/* up to n - 1 bytes of the file at path into buf: 1, or 0 when it cannot be read */
static int phys_read_text(const char *path, char *buf, size_t n)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    const size_t k = fread(buf, 1, n - 1, f);
    buf[k] = '\0';
    fclose(f);
    return 1;
}

/* (a) */
static void part_a(void)
{
    phys_table t;
    if (phys_run_mcf(mcf_prog, "response_clean", "anderson", 5, sections(0, "ed", "", 1, 48),
                     &t)) {
        CHECK(0, "(a) the run failed");
        return;
    }
    phys_table_free(&t);
    char log[PHYS_PATH_MAX];
    CHECK(response("response_clean", "--mu -3:3:7 --T 0.2 --omega 1", &t, log, sizeof log) == 0,
          "(a) mcf response failed");
    if (t.nrows != 5 * NMU) {
        CHECK(0, "(a) %zu rows, not %d", t.nrows, 5 * NMU);
        phys_table_free(&t);
        return;
    }
    /* the same Hamiltonian here: hopping -1, bounds +-4, on-site 0 */
    mcf_lattice *lat = NULL;
    mcf_hamiltonian *h = NULL, *J[2] = {NULL, NULL};
    mcf_lattice_create(MCF_LATTICE_SQUARE, 6, MCF_BOUNDARY_PERIODIC, &lat);
    mcf_hamiltonian_create(36, 1, 4, &h);
    mcf_hamiltonian_set_hopping(h, lat, 1.0);
    mcf_hamiltonian_fix_bounds(h, -4.0, 4.0);
    mcf_current_operator(h, lat, 0, &J[0]);
    mcf_current_operator(h, lat, 1, &J[1]);
    mcf_plugin *pe = NULL;
    CHECK(mcfe_plugin_open("ed", MCF_PLUGIN_FERMION_EVALUATOR, &pe) == MCF_OK, "ed: %s",
          mcf_last_error());
    test_params *te = pe ? test_params_make(pe->info->params, "test", NULL) : NULL;
    void *ws = te ? test_params_workspace(pe->info, te, h) : NULL;
    const size_t M = 48;
    double *mu = malloc(2 * M * M * sizeof *mu), tail[5] = {0, 0, -4.0, 4.0, 1.0}, want[14];
    double *re = mu, *im = mu + M * M, *ab = tail;
    for (int q = 0; ws && q < 2; q++) {
        const mcf_hamiltonian *A = J[0], *B = J[q];
        mcf_response r = {.moments = M, .op_a = &A, .op_b = &B, .mu_re = &re, .mu_im = &im,
                          .moment_scale = &ab};
        CHECK(tev_v2(pe->info)->response(tev_batch(), &ws, 1, NULL, &r) == MCF_OK, "(a) %s",
              mcf_last_error());
        sigma_of(M, mu, tail, want);
        double worst = 0.0, err = 0.0;
        for (int i = 0; i < 2 * NMU; i++) {
            const double got = phys_get(&t, (size_t)(q * 2 * NMU + i), "sigma");
            const double scale = fabs(phys_get(&t, (size_t)i, "sigma"));
            worst = fmax(worst, fabs(got - want[i]) / scale);
            err = fmax(err, phys_get(&t, (size_t)(q * 2 * NMU + i), "sigma_err") / scale);
        }
        CHECK(worst < 1e-9 && err < 1e-12, "(a) sigma_%s: %.1e from this process's, error %.1e",
              q ? "xy" : "xx", worst, err);
        printf("(a) clean 6x6, ed, sigma_%s (Bastin at 7 mu, Greenwood at omega = 1): %.1e from "
               "the same moments here, jackknife error %.1e (e.g. sigma(mu = 0) = %.6f)\n",
               q ? "xy" : "xx", worst, err, phys_get(&t, (size_t)(q * 2 * NMU + 3), "sigma"));
    }
    /* M = 48, a = 4.04: the kernel's width pi a / M = 0.26 is below the Fermi window's
     * pi T / sqrt 3 = 0.36: no warning (part (b)'s M = 24 gives one) */
    char text[8192];
    CHECK(phys_read_text(log, text, sizeof text) && !strstr(text, "kernel's energy width"),
          "(a) a kernel-width warning at M = 48, T = 0.2");
    /* the inverse rows after the curves': 1/sigma_xx exactly, no error (one realization) */
    double inv_worst = 0.0, inv_err = 0.0;
    for (int i = 0; i < NMU; i++) {
        const double sx = phys_get(&t, (size_t)i, "sigma");
        inv_worst = fmax(inv_worst, fabs(phys_get(&t, (size_t)(4 * NMU + i), "sigma") * sx - 1));
        inv_err = fmax(inv_err, phys_get(&t, (size_t)(4 * NMU + i), "sigma_err") * sx);
    }
    CHECK(inv_worst < 1e-12 && inv_err < 1e-12, "(a) inv_sigma_xx: %.1e from 1/sigma_xx, error "
          "%.1e", inv_worst, inv_err);
    /* --moments 24: the first 24 x 24 of the stored 48 x 48, as if the run had measured 24 */
    phys_table_free(&t);
    const int r24 = response_file("response_clean", "--mu -3:3:7 --T 0.2 --omega 1 --moments 24",
                                  "response-jackson-M24.tsv", &t, log, sizeof log);
    double w24 = 0.0;
    for (int q = 0; ws && r24 == 0 && t.nrows == 5 * NMU && q < 2; q++) {
        const mcf_hamiltonian *A = J[0], *B = J[q];
        const size_t M2 = 24;
        double *im2 = mu + M2 * M2; /* sigma_of's layout for M2 */
        mcf_response r = {.moments = M2, .op_a = &A, .op_b = &B, .mu_re = &re, .mu_im = &im2,
                          .moment_scale = &ab};
        CHECK(tev_v2(pe->info)->response(tev_batch(), &ws, 1, NULL, &r) == MCF_OK, "(a) %s",
              mcf_last_error());
        sigma_of(M2, mu, tail, want);
        for (int i = 0; i < 2 * NMU; i++)
            w24 = fmax(w24, fabs(phys_get(&t, (size_t)(q * 2 * NMU + i), "sigma") - want[i]) /
                                fabs(phys_get(&t, (size_t)i, "sigma")));
    }
    CHECK(r24 == 0 && t.nrows == 5 * NMU && w24 < 1e-9, "(a) --moments 24: %.1e from 24 "
          "moments measured here (%zu rows)", w24, t.nrows);
    printf("(a) --moments 24 of the stored 48: %.1e from the same functions of 24 moments\n",
           w24);
    if (ws)
        tev_destroy(pe->info, ws);
    test_params_free(te);
    tev_batch_release();
    if (pe)
        mcfe_plugin_close(pe);
    free(mu);
    mcf_hamiltonian_destroy(J[0]);
    mcf_hamiltonian_destroy(J[1]);
    mcf_hamiltonian_destroy(h);
    mcf_lattice_destroy(lat);
    phys_table_free(&t);
}

/* (b) */
static void part_b(void)
{
    phys_table t, c;
    if (phys_run_mcf(mcf_prog, "response_kpm", "anderson", 6,
                     sections(3, "kpm", "moments = 64\nvectors = 8\n", 2, 24), &t)) {
        CHECK(0, "(b) the run failed");
        return;
    }
    phys_table_free(&t);
    char log[PHYS_PATH_MAX], path[PHYS_PATH_MAX];
    CHECK(response("response_kpm", "--mu -3:3:7 --T 0.2 --omega 1", &t, log, sizeof log) == 0,
          "(b) mcf response failed");
    const size_t M = 24, P = MCF_RESPONSE_POINTS(24);
    double *mu = malloc(P * sizeof *mu), want[14];
    for (int q = 0; q < 2 && t.nrows == 5 * NMU; q++) {
        snprintf(path, sizeof path, "%s/response_kpm/out/sigma_%s_moments.tsv",
                 getenv("MCF_TEST_TMP"), q ? "xy" : "xx");
        if (phys_read_table(path, &c) || c.nrows != P) {
            CHECK(0, "(b) %s: %zu rows, not %zu", path, c.nrows, P);
            phys_table_free(&c);
            break;
        }
        for (size_t k = 0; k < P; k++)
            mu[k] = phys_get(&c, k, q ? "sigma_xy_moments" : "sigma_xx_moments");
        phys_table_free(&c);
        sigma_of(M, mu, mu + 2 * M * M, want);
        double worst = 0.0, emin = INFINITY, emax = 0.0;
        for (int i = 0; i < 2 * NMU; i++) {
            const double scale = fabs(phys_get(&t, (size_t)i, "sigma"));
            const double e = phys_get(&t, (size_t)(q * 2 * NMU + i), "sigma_err") / scale;
            worst = fmax(worst, fabs(phys_get(&t, (size_t)(q * 2 * NMU + i), "sigma") -
                                     want[i]) / scale);
            emin = fmin(emin, e);
            emax = fmax(emax, e);
        }
        CHECK(worst < 1e-6 && emin > 0 && emax < 0.2, "(b) sigma_%s: %.1e from the mean "
              "moments, relative errors %.1e .. %.1e", q ? "xy" : "xx", worst, emin, emax);
        /* the disorder's ensemble is symmetric under x -> -x: the mean sigma_xy is 0 */
        for (int i = 0; q && i < 2 * NMU; i++) {
            const double s = phys_get(&t, (size_t)(2 * NMU + i), "sigma");
            const double e = phys_get(&t, (size_t)(2 * NMU + i), "sigma_err");
            CHECK(fabs(s) < 4.0 * e, "(b) row %d: sigma_xy = %.4f +- %.4f, not 0", i, s, e);
        }
        printf("(b) W = 3, kpm, 2 x 64 realizations: sigma_%s %.1e from the mean moments; "
               "jackknife errors %.1e .. %.1e of sigma_xx (sigma(mu = 0) = %.4f +- %.4f)\n",
               q ? "xy" : "xx", worst, emin, emax,
               phys_get(&t, (size_t)(q * 2 * NMU + 3), "sigma"),
               phys_get(&t, (size_t)(q * 2 * NMU + 3), "sigma_err"));
    }
    CHECK(t.nrows == 5 * NMU, "(b) %zu rows", t.nrows);
    char text[8192];
    CHECK(phys_read_text(log, text, sizeof text) && strstr(text, "kernel's energy width"),
          "(b) no kernel-width warning at M = 24, T = 0.2 (pi a / M ~ 0.6 > 0.36)");
    /* 1/sigma_xx by its own jackknife: within 2 err^2 / sigma^3 of 1/sigma (the bias
     * correction of a convex function, var / sigma^3), its error the delta method's
     * err / sigma^2 up to terms of the relative error (below 0.2 here): ratio in [0.75, 1.33] */
    double bias = 0.0, rlo = INFINITY, rhi = 0.0;
    for (int i = 0; i < NMU && t.nrows == 5 * NMU; i++) {
        const double sx = phys_get(&t, (size_t)i, "sigma"), e = phys_get(&t, (size_t)i,
                                                                          "sigma_err");
        const double iv = phys_get(&t, (size_t)(4 * NMU + i), "sigma");
        const double ie = phys_get(&t, (size_t)(4 * NMU + i), "sigma_err");
        const double r = ie / (e / (sx * sx));
        CHECK(fabs(iv - 1.0 / sx) <= 2.0 * e * e / fabs(sx * sx * sx) + 1e-12 && r >= 0.75 &&
              r <= 1.33, "(b) mu %d: 1/sigma_xx = %.6f +- %.6f against 1/%.6f (+- %.6f)", i, iv,
              ie, sx, e);
        bias = fmax(bias, fabs(iv - 1.0 / sx) / (e * e / fabs(sx * sx * sx)));
        rlo = fmin(rlo, r);
        rhi = fmax(rhi, r);
    }
    printf("(b) inv_sigma_xx: the jackknife's bias correction up to %.2f err^2/sigma^3, its "
           "error %.3f .. %.3f of the delta method's\n", bias, rlo, rhi);
    free(mu);
    phys_table_free(&t);
}

/* (c) */
static void part_c(void)
{
    static const char *const two[] = {"response_moments = 1", "at least 2 moments", NULL};
    phys_expect_refusal(mcf_prog, "response_one", "anderson", sections(3, "kpm", "", 1, 1),
                        two);
    phys_table t;
    char log[PHYS_PATH_MAX];
    if (phys_run_mcf(mcf_prog, "response_none", "anderson", 7, sections(3, "kpm", "", 1, 0),
                     &t) == 0) {
        phys_table_free(&t);
        CHECK(response("response_none", "", &t, log, sizeof log) != 0 &&
                  phys_file_has("response_none", "response.log",
                                "holds no response or spectral moments",
                                NULL),
              "(c) a run without response moments was not refused");
        phys_table_free(&t);
    }
    CHECK(response("response_clean", "--mu 2:1:4", &t, log, sizeof log) != 0 &&
              phys_file_has("response_clean", "response.log", "A:B:N with A < B", NULL),
          "(c) --mu 2:1:4 was not refused");
    phys_table_free(&t);
    static const char *const whole[] = {"flux = 0.15", "whole", NULL};
    static const char *const bcc[] = {"flux = 0.5", "bcc", NULL};
    phys_expect_refusal(mcf_prog, "response_flux_l", "anderson",
                        "evaluator = ed\n[model]\nlattice = square\nL = 10\nflux = 0.15\n",
                        whole);
    phys_expect_refusal(mcf_prog, "response_flux_bcc", "anderson",
                        "evaluator = ed\n[model]\nlattice = bcc\nL = 4\nflux = 0.5\n", bcc);
    printf("(c) refused: response_moments = 1, a run without response moments, --mu 2:1:4, "
           "flux x L not whole, a field on bcc\n");
}

/* (d) */
static void part_d(void)
{
    phys_table t;
    static const char ini[] =
        "evaluator = ed\nwalkers = 16\n\n[schedule]\nthermalize = 0\nsweeps = 2\nbins = 2\n\n"
        "[model]\nlattice = square\nL = 10\nW = 0\nflux = 0.2\ntwist = average:4\n"
        "response_moments = 128\ntypical_sites = 4\n";
    if (phys_run_mcf(mcf_prog, "response_hall", "anderson", 8, ini, &t)) {
        CHECK(0, "(d) the run failed");
        return;
    }
    phys_table_free(&t);
    char log[PHYS_PATH_MAX];
    CHECK(response("response_hall", "--mu -2.25,2.25", &t, log, sizeof log) == 0,
          "(d) mcf response failed");
    if (t.nrows == 6) {
        const double lo = 2 * M_PI * phys_get(&t, 2, "sigma");
        const double hi = 2 * M_PI * phys_get(&t, 3, "sigma");
        CHECK(fabs(lo - 1.0) < 0.03 && fabs(lo + hi) < 1e-6, "(d) 2 pi sigma_xy = %.9f (gap 1), "
              "%.9f (gap 4)", lo, hi);
        printf("(d) Hofstadter flux 1/5, 10x10, 4x4 twists, M = 128: 2 pi sigma_xy = %.9f in "
               "the lowest gap, %.9f in the highest\n", lo, hi);
    } else {
        CHECK(0, "(d) %zu rows, not 6", t.nrows);
    }
    phys_table_free(&t);
}

/* (e) */
static void part_e(void)
{
    static const char de[] =
        "evaluator = ed\n\n[schedule]\nthermalize = 0\nsweeps = 2\nbins = 2\n"
        "temperatures = 0.0001\n\n[model]\nlattice = cubic\nL = 4\nmu = 0\nstart = ordered\n"
        "response_moments = 32\n";
    static const char an[] =
        "evaluator = ed\n\n[schedule]\nthermalize = 0\nsweeps = 2\nbins = 2\n\n"
        "[model]\nlattice = cubic\nL = 4\nW = 0\nresponse_moments = 32\ntypical_sites = 4\n";
    phys_table t, s[2];
    char log[PHYS_PATH_MAX];
    if (phys_run_mcf(mcf_prog, "response_de", "double-exchange", 9, de, &t) == 0)
        phys_table_free(&t);
    if (phys_run_mcf(mcf_prog, "response_clean3", "anderson", 9, an, &t) == 0)
        phys_table_free(&t);
    const int a = response("response_de", "--T 0.3 --mu -1,0,1", &s[0], log, sizeof log);
    const int b = response("response_clean3", "--T 0.3 --mu -1,0,1", &s[1], log, sizeof log);
    CHECK(a == 0 && b == 0 && s[0].nrows == 9 && s[1].nrows == 9, "(e) mcf response: %d %d",
          a, b);
    double worst = 0.0;
    for (size_t r = 0; a == 0 && b == 0 && r < 6 && s[0].nrows == 9 && s[1].nrows == 9; r++)
        worst = fmax(worst, fabs(phys_get(&s[0], r, "sigma") - phys_get(&s[1], r, "sigma")) /
                                fabs(phys_get(&s[1], 1, "sigma")));
    CHECK(worst < 1e-6, "(e) the ferromagnet's sigma differs from the clean lattice's by %.1e",
          worst);
    printf("(e) double exchange, ferromagnet 4^3: sigma_xx, sigma_xy at 3 mu within %.1e of the "
           "clean lattice's (sigma_xx(mu = 0) = %.6f)\n", worst, phys_get(&s[1], 1, "sigma"));
    phys_table_free(&s[0]);
    phys_table_free(&s[1]);
    /* (e') with a field */
    static const char def[] =
        "evaluator = ed\n\n[schedule]\nthermalize = 0\nsweeps = 2\nbins = 2\n"
        "temperatures = 0.0001\n\n[model]\nlattice = square\nL = 10\nmu = 0\n"
        "start = ordered\nflux = 0.2\nresponse_moments = 64\n";
    static const char anf[] =
        "evaluator = ed\n\n[schedule]\nthermalize = 0\nsweeps = 2\nbins = 2\n\n"
        "[model]\nlattice = square\nL = 10\nW = 0\nflux = 0.2\nresponse_moments = 64\n"
        "typical_sites = 4\n";
    if (phys_run_mcf(mcf_prog, "response_de_flux", "double-exchange", 9, def, &t) == 0)
        phys_table_free(&t);
    if (phys_run_mcf(mcf_prog, "response_clean_flux", "anderson", 9, anf, &t) == 0)
        phys_table_free(&t);
    const char *mus = "--T 0.3 --mu -2.25,0,2.25";
    const int c = response("response_de_flux", mus, &s[0], log, sizeof log);
    const int d = response("response_clean_flux", mus, &s[1], log, sizeof log);
    CHECK(c == 0 && d == 0 && s[0].nrows == 9 && s[1].nrows == 9, "(e') mcf response: %d %d",
          c, d);
    double big = 0.0, diff = 0.0;
    for (size_t r = 0; c == 0 && d == 0 && r < 6 && s[0].nrows == 9 && s[1].nrows == 9; r++) {
        big = fmax(big, fabs(phys_get(&s[1], r, "sigma")));
        diff = fmax(diff, fabs(phys_get(&s[0], r, "sigma") - phys_get(&s[1], r, "sigma")));
    }
    CHECK(diff < 1e-6 * big, "(e') the ferromagnet in a field differs from the clean lattice "
          "in it by %.1e of %.3f", diff, big);
    printf("(e') double exchange, ferromagnet 10x10, flux 1/5: sigma_xx, sigma_xy at 3 mu "
           "within %.1e of the clean lattice's (sigma_xy(mu = -2.25) = %.6f = %.4f e^2/h)\n",
           diff / big, phys_get(&s[1], 3, "sigma"), 2 * 3.14159265358979 *
                                                        phys_get(&s[1], 3, "sigma"));
    phys_table_free(&s[0]);
    phys_table_free(&s[1]);
}

/* (f) */
static void part_f(void)
{
    static const char de[] =
        "evaluator = ed\n\n[schedule]\nthermalize = 0\nsweeps = 2\nbins = 2\n"
        "temperatures = 0.0001, 0.0002\n\n[model]\nlattice = cubic\nL = 4\nmu = 0\n"
        "start = ordered\ntwist = 0.13 0.29 0.41\nresponse_moments = 32\n";
    phys_table t;
    char log[PHYS_PATH_MAX], path[PHYS_PATH_MAX], text[8192];
    if (phys_run_mcf(mcf_prog, "response_plot", "double-exchange", 10, de, &t) == 0)
        phys_table_free(&t);
    const int gnuplot = system("command -v gnuplot > /dev/null 2>&1") == 0;
    snprintf(path, sizeof path, "%s/response_plot/out/plot-resistivity.svg",
             getenv("MCF_TEST_TMP"));
    CHECK(response("response_plot", "--T 0.3 --mu -2:2:9", &t, log, sizeof log) == 0 &&
          t.nrows == 2 * 3 * 9, "(f) mcf response with 9 mu: %zu rows", t.nrows);
    phys_table_free(&t);
    CHECK(phys_read_text(log, text, sizeof text) && strstr(text, "no plot-resistivity") &&
          access(path, F_OK) != 0, "(f) 9 mu: the plot was drawn or its note is missing");
    CHECK(response("response_plot", "--T 0.3 --mu 0,1", &t, log, sizeof log) == 0 &&
          t.nrows == 2 * 3 * 2, "(f) mcf response with 2 mu: %zu rows", t.nrows);
    const double sxx = t.nrows == 12 ? phys_get(&t, 0, "sigma") : NAN;
    const double sxy = t.nrows == 12 ? phys_get(&t, 2, "sigma") : NAN;
    const double exy = t.nrows == 12 ? phys_get(&t, 2, "sigma_err") : NAN;
    phys_table_free(&t);
    const int told = phys_read_text(log, text, sizeof text) &&
                     strstr(text, "inv_sigma_xx is not the resistivity") != NULL;
    CHECK(told == (fabs(sxy / sxx) > 0.1 && fabs(sxy) > 2.0 * exy), "(f) the Hall warning: %d "
          "with sigma_xy / sigma_xx = %.3f, sigma_xy = %.4f +- %.4f", told, sxy / sxx, sxy, exy);
    CHECK(!gnuplot || access(path, F_OK) == 0, "(f) no %s", path);
    printf("(f) 4^3 ferromagnet, twist, T scan of 2: plot-resistivity %s; sigma_xy / sigma_xx "
           "= %.3f at mu = 0 (the twist breaks time reversal), the Hall warning %s\n",
           gnuplot ? "drawn" : "not drawn (no gnuplot)", sxy / sxx, told ? "given" : "not given");
}

int main(int argc, char **argv)
{
    const int io = argc == 3 && !strcmp(argv[2], "--io");
    if (argc != 2 && !io) {
        fprintf(stderr, "usage: %s MCF_PROGRAM [--io]\n", argv[0]);
        return 2;
    }
    mcf_prog = argv[1];
    part_a();
    if (!io)
        part_b();
    part_c();
    if (!io) {
        part_d();
        part_e();
        part_f();
    }
    return check_exit();
}
