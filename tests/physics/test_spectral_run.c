/* test_spectral_run.c — issue 47's spectral functions through a run: the models'
 * spectral_moments (curve spectral_function_moments: the moments of Bloch states along a path,
 * mcf/response.h) and `mcf response DIR`'s A(k, E) and n(k).  The moments of one vector are
 * tests/kpm/test_spectral.c's; the path and the Bloch vectors tests/unit/test_kpath.c's; here
 * the way from a chain's measurement to the tables, against exact results:
 *
 * (a) The clean crystal: anderson with W = 0 on the 8x8 torus with the twist (0.13, 0.29) x
 *     2 pi, ed, M = 256, the path auto (G X M G).  Every realization is the crystal, whose
 *     Bloch states are eigenvectors: A(k, E) is the Jackson kernel's delta at
 *     eps_k = -2 (cos k_x + cos k_y).  Checked: the table's wave vectors are the path's,
 *     K = (2 pi n + theta) / L with n = (0,0) .. (4,0) .. (4,4) .. (0,0) (1e-9: the table's
 *     10 digits); the weight
 *     int A dE is 1 (1e-12: it is mu_0 = |v|^2); the jackknife errors are 0 (1e-12: one
 *     Hamiltonian); the maximum of A on the default grid (step 2a / 201) lies within one
 *     step of eps_k; n(k) at T = 0.3 is f(eps_k) up to the kernel's smoothing
 *     sigma^2 max|f''| = sigma^2 / (6 sqrt 3 T^2), sigma = pi a / M (Jackson's width; as
 *     test_spectral's (b)); `--moments 128` (the first half of the stored moments) gives n(k)
 *     within the bound of M = 128, and farther from f than M = 256 does.
 * (b) The sum rule sum_k n(k) = N density, through the double exchange (4x4, hund = inf, ed,
 *     a T scan of 0.5 and 1.0, path all, M = 128): at hund = inf the projected states
 *     sum_s |K s><K s| (amplitudes <chi_i|s> e^{iK.r_i}) over all K and s are the identity,
 *     so (1/N) sum_K n(K) is Tr f(H) / N, the run's density, per measurement and so in the
 *     mean.  With --kernel none the only error is the Chebyshev series' truncation of f,
 *     analytic inside the Bernstein ellipse through its nearest pole (mu + i pi T - b) / a:
 *     of order rho^-M, which the test computes (below 1e-20 here) and requires below 1e-12;
 *     the tolerance 1e-9 is results.tsv's 10 printed digits.
 * (c) Refusals: an unknown point in spectral_path (the message names the key and the
 *     lattice's points), two neighbours that are one wave vector, open boundaries.
 * (d) The projection's phase, which (b) cannot see: a spiral S_i = (cos Q.r_i, sin Q.r_i, 0)
 *     on the twisted 8x8 torus, Q = 2 pi (2, 1) / 8, read from a spins file and kept by two
 *     hybrid Monte Carlo trajectories of one step of 1e-9 (the spins move by ~1e-9).  With
 *     chi_i = (1, e^{i phi_i}) / sqrt 2 the hopping -t <chi_i|chi_j> has the plain Bloch states
 *     as eigenvectors, eps_s(k) = (eps_0(k) + eps_0(k + Q)) / 2; the electron's |K up> is
 *     the Bloch state of K and |K dn>, amplitude <chi_i|dn> e^{iK.r} ~ e^{i(K - Q).r}, that of
 *     K - Q, so mu_n(K) = [T_n(eps~_s(K)) + T_n(eps~_s(K - Q))] / 2 exactly (the wrong phase,
 *     chi_i dn instead of its conjugate, would give K + Q).  All 13 x 64 moments of the path
 *     G X M G within 1e-7 (the curve's 10 digits and the trajectory's drift).
 * (e) Particle-hole symmetry at mu = 0: on the bipartite torus the staggered sign S maps H to
 *     -H (hoppings only; the double exchange's included) and |K s> to |K + Q, s> with
 *     Q = (pi, pi), so mu_n(K + Q) = (-1)^n mu_n(K) and, with the scaling's b = 0 and the
 *     Fermi function's f(-E) = 1 - f(E), n(K) + n(K + Q) = mu_0 = 1 per configuration, for
 *     any kernel (g_0 = 1): the 4x4 double exchange (path all, Jackson, T = 0.4, ed) within
 *     1e-12 for all 16 K.
 * (f) The projection's gauge under real hybrid Monte Carlo trajectories: along a trajectory
 *     each site's spinor chi_i takes a phase of its own, H's hoppings are written from those
 *     spinors, and the amplitudes <chi_i|s> must be theirs too (n(K) is gauge invariant only
 *     when both use one gauge).  The twisted 3^3 double exchange at T = 0.3 (paramagnetic,
 *     kpm) sampled by hmc and by local moves (whose H and amplitudes both come from the
 *     spins): one ensemble, so n(Gamma) agrees within 4 combined jackknife errors.  Measured
 *     2026-12-03: 0.9432(12) and 0.9447(11); the amplitudes from the spins' gauge under hmc
 *     (the code before session 24's fix) gave 0.635(16). */
#include "physics_util.h"

#include "mcf/mcf.h"

#include <complex.h>
#include <unistd.h>

static const char *mcf_prog;
static const double pi = 3.14159265358979323846;

/* `mcf response DIR ARGS` (DIR = $MCF_TEST_TMP/name/out); status; the table `file` into t;
 * the log's tail printed when it fails */
static int response(const char *name, const char *args, const char *file, phys_table *t)
{
    const int rc = phys_run_response(mcf_prog, name, args, file, t);
    if (rc != 0) {
        char log[PHYS_PATH_MAX];
        snprintf(log, sizeof log, "%s/%s/response.log", getenv("MCF_TEST_TMP"), name);
        phys_print_tail(log);
    }
    return rc;
}

static double fermi(double e, double mu, double T)
{
    const double z = (e - mu) / T;
    return z > 0 ? exp(-z) / (1.0 + exp(-z)) : 1.0 / (1.0 + exp(z));
}

/* (a) */
static void part_a(void)
{
    phys_table t;
    const char *sec = "[schedule]\nthermalize = 0\nsweeps = 4\nbins = 2\n\n[model]\n"
                      "lattice = square\nL = 8\nW = 0\ntwist = 0.13 0.29\n"
                      "spectral_moments = 256\n";
    char text[512];
    snprintf(text, sizeof text, "evaluator = ed\n\n%s", sec);
    if (phys_run_mcf(mcf_prog, "spectral_crystal", "anderson", 3, text, &t)) {
        CHECK(0, "(a) the run failed");
        return;
    }
    phys_table_free(&t);
    const double th[2] = {0.13 * 2 * pi, 0.29 * 2 * pi};
    /* the path G X M G on L = 8: n along it */
    int n[13][2];
    for (int j = 0; j <= 4; j++) {
        n[j][0] = j, n[j][1] = 0;
        n[4 + j][0] = 4, n[4 + j][1] = j;
        n[8 + j][0] = 4 - j, n[8 + j][1] = 4 - j;
    }
    double eps[13];
    for (int j = 0; j < 13; j++)
        eps[j] = -2.0 * (cos((2 * pi * n[j][0] + th[0]) / 8) + cos((2 * pi * n[j][1] + th[1]) / 8));
    /* n(k) at T = 0.3 for mu = -1 and 0.5; the weight */
    const double T = 0.3, mus[2] = {-1.0, 0.5};
    if (response("spectral_crystal", "--T 0.3 --mu -1,0.5", "momentum-jackson.tsv", &t) ||
        t.nrows != 13 * 3) {
        CHECK(0, "(a) mcf response: %zu rows of n(k), not 39", t.nrows);
        phys_table_free(&t);
        return;
    }
    double kworst = 0.0, wworst = 0.0, nworst = 0.0, eworst = 0.0;
    for (int j = 0; j < 13; j++) {
        const double kx = (2 * pi * n[j][0] + th[0]) / 8, ky = (2 * pi * n[j][1] + th[1]) / 8;
        kworst = fmax(kworst, fmax(fabs(phys_get(&t, (size_t)(3 * j), "kx") - kx),
                                   fabs(phys_get(&t, (size_t)(3 * j), "ky") - ky)));
        for (int m = 0; m < 2; m++) {
            const double got = phys_get(&t, (size_t)(3 * j + m), "value");
            nworst = fmax(nworst, fabs(got - fermi(eps[j], mus[m], T)));
            eworst = fmax(eworst, phys_get(&t, (size_t)(3 * j + m), "value_err"));
        }
        wworst = fmax(wworst, fabs(phys_get(&t, (size_t)(3 * j + 2), "value") - 1.0));
    }
    phys_table_free(&t);
    /* the scaling a of the run's moments, from the energy grid's ends: E_0 = b - a (1 - 1/201) */
    if (response("spectral_crystal", "", "spectral-jackson.tsv", &t) || t.nrows != 13 * 201) {
        CHECK(0, "(a) mcf response: %zu rows of A(k, E), not 13 x 201", t.nrows);
        phys_table_free(&t);
        return;
    }
    const double E0 = phys_get(&t, 0, "E"), E1 = phys_get(&t, 1, "E");
    const double step = E1 - E0, a_run = -E0 + step / 2; /* b = 0 */
    const double sigma = pi * a_run / 256.0, tol = sigma * sigma / (6.0 * sqrt(3.0) * T * T);
    double pworst = 0.0;
    for (int j = 0; j < 13; j++) {
        size_t best = 0;
        for (size_t i = 0; i < 201; i++) {
            const size_t r = (size_t)j * 201 + i;
            if (phys_get(&t, r, "A") > phys_get(&t, (size_t)j * 201 + best, "A"))
                best = i;
            eworst = fmax(eworst, phys_get(&t, r, "A_err"));
        }
        pworst = fmax(pworst, fabs(phys_get(&t, (size_t)j * 201 + best, "E") - eps[j]));
    }
    phys_table_free(&t);
    /* --moments 128: the first 128 of the 256, n(k) within that M's Jackson bound */
    double n128 = 0.0;
    const double s128 = pi * a_run / 128.0, tol128 = s128 * s128 / (6.0 * sqrt(3.0) * T * T);
    if (response("spectral_crystal", "--T 0.3 --mu -1,0.5 --moments 128",
                 "momentum-jackson-M128.tsv", &t) == 0 && t.nrows == 13 * 3)
        for (int j = 0; j < 13; j++)
            for (int m = 0; m < 2; m++)
                n128 = fmax(n128, fabs(phys_get(&t, (size_t)(3 * j + m), "value") -
                                       fermi(eps[j], mus[m], T)));
    CHECK(t.nrows == 13 * 3 && n128 < tol128 && n128 > nworst, "(a) --moments 128: n(k) %.2e "
          "from f(eps_k) (bound %.2e; M = 256: %.2e)", n128, tol128, nworst);
    phys_table_free(&t);
    CHECK(kworst < 1e-9, "(a) the wave vectors: %.1e from (2 pi n + theta) / L", kworst);
    CHECK(wworst < 1e-12, "(a) the weight: %.1e from 1", wworst);
    CHECK(eworst < 1e-12, "(a) jackknife errors up to %.1e of one Hamiltonian", eworst);
    CHECK(pworst <= step * (1 + 1e-9), "(a) A's maximum %.4f from eps_k (grid step %.4f)",
          pworst, step);
    CHECK(nworst < tol, "(a) n(k) at T = 0.3: %.2e from f(eps_k), beyond sigma^2 / (6 sqrt 3 "
          "T^2) = %.2e", nworst, tol);
    printf("(a) clean 8x8, twisted, path G X M G (13 k): wave vectors %.1e, weight %.1e, "
           "errors %.1e, A's peak %.4f from eps_k (step %.4f), n(k) %.2e from f(eps_k) "
           "(kernel bound %.2e); with --moments 128 %.2e (bound %.2e)\n", kworst, wworst,
           eworst, pworst, step, nworst, tol, n128, tol128);
}

/* (b) */
static void part_b(void)
{
    phys_table t, s;
    const char *sec = "evaluator = ed\n\n[schedule]\nthermalize = 10\nsweeps = 16\nbins = 4\n"
                      "temperatures = 0.5, 1.0\n\n[model]\nlattice = square\nL = 4\n"
                      "mu = -0.5\nspectral_moments = 128\nspectral_path = all\n";
    if (phys_run_mcf(mcf_prog, "spectral_sum", "double-exchange", 11, sec, &t)) {
        CHECK(0, "(b) the run failed");
        return;
    }
    if (response("spectral_sum", "--kernel none", "momentum-none.tsv", &s) ||
        s.nrows != 2 * 16 * 2) {
        CHECK(0, "(b) mcf response: %zu rows, not 64", s.nrows);
        phys_table_free(&s);
        phys_table_free(&t);
        return;
    }
    for (int p = 0; p < 2; p++) {
        /* ed's scaling of the bounds +-4: a = 4 / 0.995 */
        const double T = p ? 1.0 : 0.5, a = 4.0 / 0.995, mu = -0.5;
        /* the nearest pole of f in the scaled variable, its Bernstein ellipse */
        const double complex x0 = (mu + I * pi * T) / a;
        double rho = cabs(x0 + csqrt(x0 * x0 - 1.0));
        rho = rho < 1 ? 1 / rho : rho;
        const double trunc = pow(rho, -128.0);
        double sum = 0.0;
        for (int k = 0; k < 16; k++)
            sum += phys_get(&s, (size_t)(p * 32 + 2 * k), "value");
        const long r = phys_find_row(&t, "T", T);
        const double density = r >= 0 ? phys_get(&t, (size_t)r, "density") : NAN;
        CHECK(trunc < 1e-12, "(b) T = %g: the truncation rho^-M = %.1e is not negligible", T,
              trunc);
        CHECK(fabs(sum / 16.0 - density) < 1e-9, "(b) T = %g: (1/N) sum_k n(k) = %.12f, the "
              "density %.12f", T, sum / 16.0, density);
        printf("(b) double exchange 4x4, T = %g: (1/N) sum_k n(k) = %.10f, density %.10f "
               "(truncation rho^-M = %.1e)\n", T, sum / 16.0, density, trunc);
    }
    phys_table_free(&s);
    phys_table_free(&t);
}

/* (c) */
static void part_c(void)
{
    static const char *const bad_point[] = {"spectral_path", "Q", "G X Y M", NULL};
    phys_expect_refusal(mcf_prog, "spectral_bad_point", "anderson",
                        "evaluator = ed\n[model]\nlattice = square\nL = 4\nW = 1\n"
                        "typical_sites = 4\nspectral_moments = 16\nspectral_path = G Q\n",
                        bad_point);
    static const char *const same[] = {"spectral_path", "same wave vector", NULL};
    phys_expect_refusal(mcf_prog, "spectral_same", "double-exchange",
                        "evaluator = ed\n[schedule]\ntemperatures = 1\n[model]\nlattice = square\n"
                        "L = 4\nspectral_moments = 16\nspectral_path = G G\n", same);
    static const char *const open[] = {"spectral_path", "periodic", NULL};
    phys_expect_refusal(mcf_prog, "spectral_open", "anderson",
                        "evaluator = ed\n[model]\nlattice = square\nL = 4\nW = 1\n"
                        "typical_sites = 4\nboundary = open\nspectral_moments = 16\n", open);
}

/* (d) */
static double cheb(int n, double x)
{
    double t0 = 1, t1 = x;
    if (n == 0)
        return 1;
    for (int m = 1; m < n; m++) {
        const double t2 = 2 * x * t1 - t0;
        t0 = t1;
        t1 = t2;
    }
    return t1;
}

static double eps_spiral(double kx, double ky, const double *Q)
{
    return -(cos(kx) + cos(ky) + cos(kx + Q[0]) + cos(ky + Q[1]));
}

static void part_d(void)
{
    mcf_lattice *lat = NULL;
    char dir[PHYS_PATH_MAX], path[PHYS_PATH_MAX + 16], sec[2 * PHYS_PATH_MAX];
    snprintf(dir, sizeof dir, "%s", getenv("MCF_TEST_TMP"));
    snprintf(path, sizeof path, "%s/spiral.txt", dir);
    const double Q[2] = {2 * pi * 2 / 8, 2 * pi * 1 / 8};
    FILE *f = fopen(path, "w");
    CHECK(f && mcf_lattice_create(MCF_LATTICE_SQUARE, 8, MCF_BOUNDARY_PERIODIC, &lat) == MCF_OK,
          "(d) the spins file %s", path);
    for (size_t i = 0; f && lat && i < lat->sites; i++) {
        const double ph = Q[0] * lat->positions[3 * i] + Q[1] * lat->positions[3 * i + 1];
        fprintf(f, "%.17g %.17g 0\n", cos(ph), sin(ph));
    }
    if (f)
        fclose(f);
    mcf_lattice_destroy(lat);
    snprintf(sec, sizeof sec, "evaluator = ed\nsampler = hmc\nhmc_dt = 1e-9\nhmc_steps = 1\n\n"
             "[schedule]\nthermalize = 0\nsweeps = 2\nbins = 2\ntemperatures = 0.1\n\n"
             "[model]\nlattice = square\nL = 8\ntwist = 0.13 0.29\nspins = %s\n"
             "spectral_moments = 64\n", path);
    phys_table t, c;
    if (phys_run_mcf(mcf_prog, "spectral_spiral", "double-exchange", 5, sec, &t)) {
        CHECK(0, "(d) the run failed");
        return;
    }
    phys_table_free(&t);
    snprintf(path, sizeof path, "%s/spectral_spiral/out/spectral_function_moments.tsv", dir);
    const size_t nk = 13, M = 64;
    if (phys_read_table(path, &c) || c.nrows != MCF_SPECTRAL_POINTS(nk, M)) {
        CHECK(0, "(d) %s: %zu rows, not %zu", path, c.nrows, MCF_SPECTRAL_POINTS(nk, M));
        phys_table_free(&c);
        return;
    }
    const char *col = "spectral_function_moments";
    const double a = phys_get(&c, 2, col), b = phys_get(&c, 3, col);
    double worst = 0, wrong = 0;
    for (size_t j = 0; j < nk; j++) {
        const double kx = phys_get(&c, 4 + 4 * j, col), ky = phys_get(&c, 5 + 4 * j, col);
        const double up = (eps_spiral(kx, ky, Q) - b) / a;
        const double dn = (eps_spiral(kx - Q[0], ky - Q[1], Q) - b) / a;
        const double bad = (eps_spiral(kx + Q[0], ky + Q[1], Q) - b) / a;
        for (size_t n = 0; n < M; n++) {
            const double got = phys_get(&c, 4 + 4 * nk + j * M + n, col);
            worst = fmax(worst, fabs(got - 0.5 * (cheb((int)n, up) + cheb((int)n, dn))));
            wrong = fmax(wrong, fabs(got - 0.5 * (cheb((int)n, up) + cheb((int)n, bad))));
        }
    }
    phys_table_free(&c);
    CHECK(worst < 1e-7, "(d) the spiral's moments: %.1e from the K and K - Q bands", worst);
    CHECK(wrong > 1e-2, "(d) the spiral cannot tell K - Q from K + Q (%.1e)", wrong);
    printf("(d) spiral Q = 2 pi (2, 1) / 8, twisted 8x8: 13 x 64 moments within %.1e of "
           "[T_n(eps_s(K)) + T_n(eps_s(K - Q))] / 2 (K + Q instead: %.2f off)\n", worst, wrong);
}

/* (e) */
static void part_e(void)
{
    phys_table t;
    const char *sec = "evaluator = ed\n\n[schedule]\nthermalize = 4\nsweeps = 8\nbins = 2\n"
                      "temperatures = 0.4\n\n[model]\nlattice = square\nL = 4\nmu = 0\n"
                      "spectral_moments = 64\nspectral_path = all\n";
    if (phys_run_mcf(mcf_prog, "spectral_ph", "double-exchange", 13, sec, &t)) {
        CHECK(0, "(e) the run failed");
        return;
    }
    phys_table_free(&t);
    if (response("spectral_ph", "", "momentum-jackson.tsv", &t) || t.nrows != 32) {
        CHECK(0, "(e) mcf response: %zu rows, not 32", t.nrows);
        phys_table_free(&t);
        return;
    }
    double worst = 0.0, spread = 0.0;
    for (int q = 0; q < 16; q++) { /* "all": n_x fastest; K + Q is n + (2, 2) */
        const int p = ((q % 4 + 2) % 4) + 4 * ((q / 4 + 2) % 4);
        const double a = phys_get(&t, (size_t)(2 * q), "value");
        const double b = phys_get(&t, (size_t)(2 * p), "value");
        worst = fmax(worst, fabs(a + b - 1.0));
        spread = fmax(spread, fabs(a - 0.5));
    }
    phys_table_free(&t);
    CHECK(worst < 1e-12 && spread > 0.05, "(e) n(K) + n(K + Q) - 1 up to %.1e (n(K) - 1/2 up "
          "to %.3f)", worst, spread);
    printf("(e) double exchange 4x4, mu = 0: n(K) + n(K + Q) = 1 within %.1e for all 16 K "
           "(n itself up to %.3f from 1/2)\n", worst, spread);
}

/* (f): n(Gamma) and its error of a 3^3 run with `sampler` */
static int gauge_run(const char *sampler, double *n, double *err)
{
    phys_table t;
    char name[64], sec[768];
    snprintf(name, sizeof name, "spectral_gauge_%s", sampler);
    snprintf(sec, sizeof sec, "evaluator = kpm\nsampler = %s\n\n[schedule]\nthermalize = 50\n"
             "sweeps = 200\nmeasure_every = 2\nbins = 16\ntemperatures = 0.3\n\n[model]\n"
             "lattice = cubic\nL = 3\ntwist = 0.13 0.29 0.41\nmu = 0\nhund = inf\n"
             "spectral_moments = 32\nspectral_path = G X M G R X\n\n[evaluator]\n"
             "vectors = 8\nmoments = 128\n", sampler);
    if (phys_run_mcf(mcf_prog, name, "double-exchange", 77, sec, &t))
        return -1;
    phys_table_free(&t);
    if (response(name, "", "momentum-jackson.tsv", &t) || t.nrows < 2) {
        phys_table_free(&t);
        return -1;
    }
    *n = phys_get(&t, 0, "value"); /* k_index 0 (Gamma): its occupation's row comes first */
    *err = phys_get(&t, 0, "value_err");
    phys_table_free(&t);
    return 0;
}

/* (f) */
static void part_f(void)
{
    double nh, eh, nl, el;
    if (gauge_run("hmc", &nh, &eh) || gauge_run("local", &nl, &el)) {
        CHECK(0, "(f) a run or mcf response failed");
        return;
    }
    const double sigma = sqrt(eh * eh + el * el);
    CHECK(eh > 0 && el > 0 && fabs(nh - nl) <= 4 * sigma, "(f) n(Gamma) by hmc %.4f(%.4f) and "
          "by local moves %.4f(%.4f): %.1f combined errors apart", nh, eh, nl, el,
          fabs(nh - nl) / sigma);
    printf("(f) twisted 3^3 double exchange, T = 0.3: n(Gamma) = %.4f(%.4f) by hmc, "
           "%.4f(%.4f) by local moves (%.1f sigma)\n", nh, eh, nl, el, fabs(nh - nl) / sigma);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s MCF_PROGRAM\n", argv[0]);
        return 2;
    }
    mcf_prog = argv[1];
    part_a();
    part_b();
    part_c();
    part_d();
    part_e();
    part_f();
    return check_exit();
}
