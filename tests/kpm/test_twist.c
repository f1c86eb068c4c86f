/* test_twist.c — twisted boundary conditions (mcf/lattice.h: mcf_lattice_twist,
 * mcf_lattice_bond_phase, mcf_hamiltonian_set_hopping_twisted; docs/methods.md, "Twisted
 * boundaries"), with the fermion evaluators ed and kpm loaded by the core's plugin loader:
 *
 *   (a) exact spectra: the free twisted chain (L = 7), square (5^2) and cubic (4^3) lattices
 *       (t = 0.7, theta / 2 pi = 0.13, 0.29, 0.41 along x, y, z) have the levels
 *       -2t sum_d cos((2 pi n_d + theta_d) / L), level for level to 1e-12 (GSL's Hermitian
 *       solver on mcf_hamiltonian_dense), and ed's action equals the sum over these closed-
 *       form levels to 1e-12 dim max|term| (rounding, as test_kpm_action); twist = 0 writes
 *       exactly the table of mcf_hamiltonian_set_hopping;
 *   (b) ed and kpm agree on a twisted double-exchange Hamiltonian (cubic 4^3, random spins,
 *       H_ij = exp(i phi_ij) (-t <chi_i|chi_j>), complex): kpm's action with the exact trace
 *       (vectors = 0, M = 256) is within its own truncation bound err (test_kpm_action
 *       validates it against ed: the Chebyshev coefficients of the Fermi function's
 *       logarithm at the Bernstein ellipse through the Fermi poles) plus 1e-9 dim of ed's,
 *       for T = 0.1, 0.5 and mu = -1, 0, 0.7; the twist changes the action by far more
 *       than that (the test is not blind to a lost phase);
 *   (c) twist averaging: the Lorentzian-smoothed DOS (width eta = 0.3) of the free chain,
 *       rho(E) = (1/L) sum_k (eta/pi) / ((E - eps_k)^2 + eta^2), at E = -1.3, 0.2, 1.7.
 *       Its Fourier series in k has the coefficients g_m = -(1/pi) Im(x^|m| / s), s =
 *       sqrt(z^2 - 4t^2), x = (s - z) / 2t with |x| < 1, z = E + i eta, so by Poisson's
 *       summation the twisted torus has, in closed form,
 *           rho_L(theta) = g_0 + 2 sum_{q >= 1} g_{qL} cos(q theta),  rho_inf = g_0,
 *       and the average over the M twists theta_j = 2 pi (j + 1/2) / M (twist = average:M,
 *       mcf_twist_grid) keeps only q = p M, with the sign (-1)^p: it is the ML chain with
 *       twist pi.  Asserted: ed-free spectra give rho_L(theta_j) of the closed form to
 *       1e-12, the average equals the antiperiodic ML chain to 1e-12, and the errors
 *       against rho_inf obey the bounds that follow from |g_m| <= |x|^m / (pi |s|):
 *           err_avg <= (2 / pi |s|) |x|^{ML} / (1 - |x|^{ML})                    (upper)
 *           err_per >= (2 / pi) (|Im(x^L / s)| - |x|^{2L} / (|s| (1 - |x|^L)))    (lower),
 *       so that err_avg < err_per by at least the derived margin lower / upper (printed;
 *       ~|x|^{-(M-1) L}), asserted as err_avg * margin <= err_per;
 *   (d) refusals (mcf_lattice_twist, with the file, [section] key and what to change): a
 *       twist on open boundaries, malformed values, average:M with walkers not a multiple
 *       of M^d; accepted: twist = 0 on open boundaries, the walker's twist of the grid. */
#include <complex.h>
#include <stdio.h>

#include "de_test_hamiltonian.h"
#include "internal.h"
#include "kpm_test_util.h"
#include "test_params.h"

static const mcf_plugin_info *ed, *kpm;
static const double two_pi = 2 * 3.14159265358979323846;
static const double fractions[3] = {0.13, 0.29, 0.41};

static int ascending(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* the free twisted lattice's Hamiltonian, -t exp(i phi) on every bond */
static mcf_hamiltonian *free_twisted(mcf_lattice_kind kind, long L, double t,
                                     const double theta[3], mcf_lattice **lat_out)
{
    mcf_lattice *lat = NULL;
    mcf_hamiltonian *h = NULL;
    int rc = mcf_lattice_create(kind, L, MCF_BOUNDARY_PERIODIC, &lat);
    if (!rc)
        rc = mcf_hamiltonian_create(lat->sites, 1, lat->coordination, &h);
    if (!rc)
        rc = mcf_hamiltonian_set_hopping_twisted(h, lat, t, theta);
    if (!rc)
        rc = mcf_hamiltonian_check(h);
    CHECK(rc == MCF_OK, "the twisted %s lattice: %s", mcf_lattice_kind_name(kind),
          mcf_last_error());
    if (lat_out)
        *lat_out = lat;
    else
        mcf_lattice_destroy(lat);
    return h;
}

/* S = -sum log(1 + exp(-(eps - mu) / T)) in long double; *lmax the largest |term| */
static double s_direct(const double *ev, size_t n, double T, double mu, double *lmax)
{
    long double s = 0.0L;
    double m = 0.0;
    for (size_t k = 0; k < n; k++) {
        const double x = (ev[k] - mu) / T;
        const double term = x > 0 ? -log1p(exp(-x)) : x - log1p(exp(x));
        s += term;
        m = fmax(m, fabs(term));
    }
    *lmax = m;
    return (double)s;
}

static void *make_ws(const mcf_plugin_info *info, const mcf_hamiltonian *h, test_params *tp)
{
    void *ws = NULL;
    CHECK(tp->ok, "%s params: %s", info->name, mcf_last_error());
    const int rc = tev_create(info, &tp->p, h, &ws);
    CHECK(rc == MCF_OK && ws, "%s create: %s", info->name, mcf_last_error());
    return ws;
}

/* ---- (a) exact spectra ------------------------------------------------------------------ */

static void test_spectra(void)
{
    const mcf_lattice_kind kinds[3] = {MCF_LATTICE_CHAIN, MCF_LATTICE_SQUARE,
                                       MCF_LATTICE_CUBIC};
    const long Ls[3] = {7, 5, 4};
    const double t = 0.7;
    for (int c = 0; c < 3; c++) {
        const int dims = c + 1;
        double theta[3] = {0, 0, 0};
        for (int d = 0; d < dims; d++)
            theta[d] = two_pi * fractions[d];
        mcf_hamiltonian *h = free_twisted(kinds[c], Ls[c], t, theta, NULL);
        if (!h)
            continue;
        const size_t n = h->dim, L = (size_t)Ls[c];
        double *want = malloc(n * sizeof *want);
        for (size_t k = 0; k < n; k++) {
            size_t m = k;
            want[k] = 0;
            for (int d = 0; d < dims; d++, m /= L)
                want[k] += -2 * t * cos((two_pi * (double)(m % L) + theta[d]) / (double)L);
        }
        qsort(want, n, sizeof *want, ascending);
        kt_eigen e = kt_diagonalize(h);
        const double worst = kt_max_abs_diff(e.eval, want, n);
        printf("(a) %s L = %zu twisted: max |eps - closed form| = %.1e\n",
               mcf_lattice_kind_name(kinds[c]), L, worst);
        CHECK(worst < 1e-12, "%s: the twisted spectrum is off the closed form by %g",
              mcf_lattice_kind_name(kinds[c]), worst);
        kt_eigen_free(&e);
        /* ed's action against the closed-form levels */
        test_params *tp = test_params_make(ed->params, "test_twist.ini", NULL);
        void *ws = make_ws(ed, h, tp);
        const double T[2] = {0.1, 0.5}, mu[2] = {-0.3, 0.4};
        double S[2], err[2];
        if (ws && tev_action(ed, &ws, 1, 2, T, mu, S, err) == MCF_OK)
            for (int p = 0; p < 2; p++) {
                double lmax;
                const double ref = s_direct(want, n, T[p], mu[p], &lmax);
                CHECK(fabs(S[p] - ref) <= 1e-12 * (double)n * lmax,
                      "%s: ed's action %.17g, the closed form's %.17g",
                      mcf_lattice_kind_name(kinds[c]), S[p], ref);
            }
        else
            CHECK(0, "ed action: %s", mcf_last_error());
        if (ws)
            tev_destroy(ed, ws);
        test_params_free(tp);
        /* twist = 0: the table of set_hopping, bit for bit */
        const double zero[3] = {0, 0, 0};
        mcf_hamiltonian *h0 = free_twisted(kinds[c], Ls[c], t, zero, NULL), *h1 = NULL;
        mcf_lattice *lat = NULL;
        mcf_lattice_create(kinds[c], Ls[c], MCF_BOUNDARY_PERIODIC, &lat);
        mcf_hamiltonian_create(lat->sites, 1, lat->coordination, &h1);
        mcf_hamiltonian_set_hopping(h1, lat, t);
        const size_t slots = (size_t)h1->width * h1->dim;
        CHECK(!memcmp(h0->col, h1->col, slots * sizeof *h0->col) &&
                  !memcmp(h0->hop_re, h1->hop_re, slots * sizeof *h0->hop_re) &&
                  !memcmp(h0->hop_im, h1->hop_im, slots * sizeof *h0->hop_im),
              "%s: twist 0 is not set_hopping's table", mcf_lattice_kind_name(kinds[c]));
        mcf_hamiltonian_destroy(h0);
        mcf_hamiltonian_destroy(h1);
        mcf_lattice_destroy(lat);
        mcf_hamiltonian_destroy(h);
        free(want);
    }
}

/* ---- (b) ed and kpm on a twisted double-exchange Hamiltonian -------------------------- */

static mcf_hamiltonian *twisted_de(long L, const double theta[3], uint64_t seed)
{
    mcf_lattice *lat = NULL;
    mcf_hamiltonian *h = NULL;
    mcf_lattice_create(MCF_LATTICE_CUBIC, L, MCF_BOUNDARY_PERIODIC, &lat);
    mcf_hamiltonian_create(lat->sites, 1, lat->coordination, &h);
    mcf_rng rng;
    mcf_rng_init(&rng, seed, 0);
    double *s = malloc(3 * lat->sites * sizeof *s);
    for (size_t i = 0; i < lat->sites; i++)
        de_unit(&rng, s + 3 * i);
    for (size_t i = 0; i < lat->sites; i++)
        for (int k = 0; k < lat->coordination; k += 2) {
            const size_t j = (size_t)lat->neighbours[i * 6 + (size_t)k];
            double re, im, pr, pi;
            de_overlap(s + 3 * i, s + 3 * j, &re, &im);
            mcf_lattice_bond_phase(lat, theta, i, k, &pr, &pi);
            const int rc = mcf_hamiltonian_set(h, i, j, -(pr * re - pi * im),
                                               -(pr * im + pi * re));
            CHECK(rc == MCF_OK, "set: %s", mcf_last_error());
        }
    mcf_hamiltonian_fix_bounds(h, -6.0, 6.0);
    free(s);
    mcf_lattice_destroy(lat);
    return h;
}

static void test_ed_kpm(void)
{
    double theta[3];
    for (int d = 0; d < 3; d++)
        theta[d] = two_pi * fractions[d];
    const double zero[3] = {0, 0, 0};
    mcf_hamiltonian *h = twisted_de(4, theta, 5), *h0 = twisted_de(4, zero, 5);
    const size_t n = h->dim;
    double T[6], mu[6];
    for (int p = 0; p < 6; p++) {
        T[p] = p < 3 ? 0.1 : 0.5;
        mu[p] = (double[3]){-1.0, 0.0, 0.7}[p % 3];
    }
    test_params *tpe = test_params_make(ed->params, "test_twist.ini", NULL);
    test_params *tpk = test_params_make(kpm->params, "test_twist.ini", "moments", "256",
                                        "vectors", "0", NULL);
    void *we = make_ws(ed, h, tpe), *wk = make_ws(kpm, h, tpk), *w0 = make_ws(ed, h0, tpe);
    double S_ed[6], e_ed[6], S_k[6], e_k[6], S_0[6], e_0[6];
    int rc = we && wk && w0 ? MCF_OK : MCF_EINVAL;
    if (!rc)
        rc = tev_action(ed, &we, 1, 6, T, mu, S_ed, e_ed);
    if (!rc)
        rc = tev_action(kpm, &wk, 1, 6, T, mu, S_k, e_k);
    if (!rc)
        rc = tev_action(ed, &w0, 1, 6, T, mu, S_0, e_0);
    CHECK(rc == MCF_OK, "the actions: %s", mcf_last_error());
    for (int p = 0; !rc && p < 6; p++) {
        const double tol = e_k[p] + 1e-9 * (double)n;
        printf("(b) T = %.1f mu = %4.1f: S_ed = %.12f, |S_kpm - S_ed| = %.1e (bound %.1e), "
               "twist's effect |S_ed - S_ed(0)| = %.1e\n", T[p], mu[p], S_ed[p],
               fabs(S_k[p] - S_ed[p]), tol, fabs(S_ed[p] - S_0[p]));
        CHECK(fabs(S_k[p] - S_ed[p]) <= tol, "kpm %.15g vs ed %.15g beyond err %g + 1e-9 dim",
              S_k[p], S_ed[p], e_k[p]);
        CHECK(fabs(S_ed[p] - S_0[p]) > 100 * tol, "the twist changes the action by only %g",
              fabs(S_ed[p] - S_0[p]));
    }
    if (we)
        tev_destroy(ed, we);
    if (w0)
        tev_destroy(ed, w0);
    if (wk)
        tev_destroy(kpm, wk);
    test_params_free(tpe);
    test_params_free(tpk);
    mcf_hamiltonian_destroy(h);
    mcf_hamiltonian_destroy(h0);
}

/* ---- (c) twist averaging of the free chain's smoothed DOS ----------------------------- */

/* the smoothed DOS of the levels ev[0..n) at E */
static double smoothed(const double *ev, size_t n, double E, double eta)
{
    double s = 0;
    for (size_t k = 0; k < n; k++)
        s += eta / (3.14159265358979323846 * ((E - ev[k]) * (E - ev[k]) + eta * eta));
    return s / (double)n;
}

/* the closed form rho_L(theta) of the twisted L chain (t = 1) */
static double rho_closed(double complex s, double complex x, long L, double theta)
{
    const double complex y = cpow(x, (double)L), a = y * cexp(I * theta),
                         b = y * cexp(-I * theta);
    return -cimag((1.0 + a / (1.0 - a) + b / (1.0 - b)) / s) / 3.14159265358979323846;
}

static double *chain_levels(long L, double theta)
{
    const double th[3] = {theta, 0, 0};
    mcf_hamiltonian *h = free_twisted(MCF_LATTICE_CHAIN, L, 1.0, th, NULL);
    kt_eigen e = kt_diagonalize(h);
    mcf_hamiltonian_destroy(h);
    double *ev = e.eval;
    e.eval = NULL;
    kt_eigen_free(&e);
    return ev;
}

static void test_average(void)
{
    const long L = 12, M = 4;
    const double eta = 0.3, Es[3] = {-1.3, 0.2, 1.7};
    double *ev[4], *ev0 = chain_levels(L, 0.0), *evML = chain_levels(L * M, two_pi / 2);
    for (long j = 0; j < M; j++) {
        double th[3];
        mcf_twist_grid(M, 1, (size_t)j, th);
        ev[j] = chain_levels(L, th[0]);
    }
    for (int e = 0; e < 3; e++) {
        const double E = Es[e];
        const double complex z = E + I * eta;
        double complex s = csqrt(z * z - 4.0);
        if (cabs((s - z) / 2.0) > 1.0)
            s = -s;
        const double complex x = (s - z) / 2.0;
        const double ax = cabs(x), as = cabs(s), pi = two_pi / 2;
        const double rho_inf = -cimag(1.0 / s) / pi;
        /* ed-free spectra against the closed form, twist by twist */
        double avg = 0, worst = 0;
        for (long j = 0; j < M; j++) {
            double th[3];
            mcf_twist_grid(M, 1, (size_t)j, th);
            const double r = smoothed(ev[j], (size_t)L, E, eta);
            worst = fmax(worst, fabs(r - rho_closed(s, x, L, th[0])));
            avg += r / (double)M;
        }
        const double per = smoothed(ev0, (size_t)L, E, eta);
        worst = fmax(worst, fabs(per - rho_closed(s, x, L, 0.0)));
        const double ml = smoothed(evML, (size_t)(L * M), E, eta);
        CHECK(worst < 1e-12, "E = %g: the twisted chain's smoothed DOS is off the closed form "
              "by %g", E, worst);
        CHECK(fabs(avg - ml) < 1e-12, "E = %g: the average over %ld twists %.15g is not the "
              "antiperiodic %ld chain's %.15g", E, M, avg, L * M, ml);
        const double err_avg = fabs(avg - rho_inf), err_per = fabs(per - rho_inf);
        const double yM = pow(ax, (double)(M * L)), y = pow(ax, (double)L);
        const double upper = 2.0 / (pi * as) * yM / (1.0 - yM);
        const double lower = 2.0 / pi * (fabs(cimag(cpow(x, (double)L) / s)) -
                                         y * y / (as * (1.0 - y)));
        printf("(c) E = %4.1f: rho_inf = %.10f, |x| = %.3f; periodic L = %ld: err %.2e "
               "(>= %.2e); average:%ld: err %.2e (<= %.2e); margin %.1f\n", E, rho_inf, ax,
               L, err_per, lower, M, err_avg, upper, lower / upper);
        CHECK(err_avg <= upper * (1 + 1e-9) + 1e-14, "E = %g: err_avg %g above its bound %g",
              E, err_avg, upper);
        CHECK(lower > 0 && err_per >= lower * (1 - 1e-9), "E = %g: err_per %g below its bound "
              "%g", E, err_per, lower);
        CHECK(err_avg * (lower / upper) <= err_per * (1 + 1e-9), "E = %g: twist averaging's "
              "error %g is not below the periodic torus's %g by the margin %g", E, err_avg,
              err_per, lower / upper);
    }
    for (long j = 0; j < M; j++)
        free(ev[j]);
    free(ev0);
    free(evML);
}

/* ---- (d) refusals ------------------------------------------------------------------------ */

static const mcf_param_spec lattice_specs[] = {
    MCF_LATTICE_PARAMS("chain|square|cubic|bcc", "cubic", "4"), MCF_LATTICE_TWIST_PARAM, {0}};

/* mcf_lattice_twist of the overrides; its rc, theta into th */
static int twist_of(const char *lattice, const char *boundary, const char *twist,
                    size_t walker, size_t walkers, double th[3])
{
    test_params *tp = test_params_make(lattice_specs, "test_twist.ini", "lattice", lattice,
                                       "boundary", boundary, "twist", twist, NULL);
    tp->p.section = "model";
    tp->p.walker = walker;
    tp->p.walkers = walkers;
    mcf_lattice *lat = NULL;
    int rc = tp->ok ? mcf_lattice_from_params(&tp->p, "test", 0, &lat) : MCF_EINVAL;
    if (!rc)
        rc = mcf_lattice_twist(&tp->p, "test", lat, th);
    mcf_lattice_destroy(lat);
    test_params_free(tp);
    return rc;
}

static void refused(const char *lattice, const char *boundary, const char *twist,
                    size_t walkers, const char *what)
{
    double th[3];
    const int rc = twist_of(lattice, boundary, twist, 0, walkers, th);
    const char *msg = mcf_last_error();
    printf("(d) refused: %s\n", msg);
    CHECK(rc == MCF_EINVAL && strstr(msg, "test_twist.ini") && strstr(msg, "[model] twist = ") &&
              strstr(msg, what), "twist = %s (%s, %s): rc %d, message '%s' lacks '%s'", twist,
          lattice, boundary, rc, msg, what);
}

static void test_refusals(void)
{
    refused("cubic", "open", "0.25", 1, "set boundary = periodic, or twist = 0");
    refused("square", "open", "average:2", 4, "set boundary = periodic");
    refused("cubic", "periodic", "0.1 0.2", 1, "3 space-separated finite numbers");
    refused("chain", "periodic", "0.1 0.2", 1, "write one number");
    refused("square", "periodic", "0.1 x", 1, "write one number");
    refused("cubic", "periodic", "nan", 1, "finite numbers");
    refused("cubic", "periodic", "average:0", 1, "integer from 1 to 64");
    refused("cubic", "periodic", "average:two", 1, "write average:M");
    refused("square", "periodic", "average:2", 3, "set [run] walkers = 4");
    double th[3];
    CHECK(twist_of("cubic", "open", "0", 0, 1, th) == MCF_OK && !mcf_twist_nonzero(th),
          "twist = 0 on open boundaries: %s", mcf_last_error());
    CHECK(twist_of("square", "periodic", "average:2", 5, 8, th) == MCF_OK &&
              fabs(th[0] - two_pi * 0.75) < 1e-15 && fabs(th[1] - two_pi * 0.25) < 1e-15 &&
              th[2] == 0.0,
          "walker 5 of 8 under average:2 on the square lattice: twist number 1 = (3/4, 1/4), "
          "got (%g, %g, %g) / 2 pi", th[0] / two_pi, th[1] / two_pi, th[2] / two_pi);
    CHECK(twist_of("cubic", "periodic", "0.1 0.2 0.3", 0, 1, th) == MCF_OK &&
              fabs(th[2] - two_pi * 0.3) < 1e-15, "three numbers: %s", mcf_last_error());
}

int main(void)
{
    mcf_plugin *pe = NULL, *pk = NULL;
    int rc = mcfe_plugin_open("ed", MCF_PLUGIN_FERMION_EVALUATOR, &pe);
    if (!rc)
        rc = mcfe_plugin_open("kpm", MCF_PLUGIN_FERMION_EVALUATOR, &pk);
    CHECK(rc == MCF_OK, "loading ed and kpm: %s", mcf_last_error());
    if (rc)
        return check_exit();
    ed = pe->info;
    kpm = pk->info;
    test_spectra();
    test_ed_kpm();
    test_average();
    test_refusals();
    mcfe_plugin_close(pk);
    mcfe_plugin_close(pe);
    return check_exit();
}
