/* test_kbe_evaluator.c — the dynamics evaluator "kbe" (plugins/kbe/kbe_plugin.c, compiled
 * into this test: its table through mcf_plugin_entry(), no dlopen) on a two-band ring built
 * with the SDK's cell API (label physics):
 *
 * 1. Second Born through the evaluator (Nk = 8, dt = 0.05, 40 steps, a Gaussian pulse E(t),
 *    U = 0.5 on the term of weight w = 2) gives the same bits as kbe_core called directly
 *    with U_core = w U: every G^< and G^> (t_i, t_j), the k-resolved occupations and the
 *    corrector residual of every step.
 * 2. The observables of that run: e_hf + e_corr is kbe_energies' e_int / Nk to 1e-14, the
 *    anticommutator stays below 1e-13 and the electrons are conserved to 1e-13.  Hartree-Fock
 *    with the pulse and a ramp U(t): E_tot = e_band + e_field + e_hf + e_corr changes by the
 *    work, the trapezoid sum of dE <D> + dU <V> over the steps, up to the method's O(dt^2):
 *    the mismatch falls by 4 x [0.8, 1.25] when dt halves (dt = 0.05 -> 0.025 to t = 2;
 *    measured 4.4.  The pulse's part alone falls as dt^3, the ramp's as dt^2: the ramp is
 *    fast enough, sin(2 t), that its term leads already at these steps).
 * 3. plan refuses what kbe_core cannot propagate with MCF_EINVAL, saying why: three
 *    orbitals, an off-diagonal h_0(k), a k-dependent dipole, two interaction terms, second
 *    Born on a 2D grid, order 1 or 6 ([kbe] order: 2 .. 5, 0 meaning 2); it takes a crystal
 *    without interaction or dipole, and second Born at order 5. */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kbe_core.h"
#include "mcf/mcf.h"

/* kbe_plugin.c's entry, compiled into this test */
const mcf_plugin_info *mcf_plugin_entry(void);

/* the pulse and the ramp */
static double drive_E(double t)
{
    const double x = (t - 1.0) / 0.4;
    return 0.5 * exp(-0.5 * x * x) * cos(2.0 * (t - 1.0));
}
static double drive_U(double t, int ramp) { return ramp ? 0.5 + 0.3 * sin(2.0 * t) : 0.5; }

/* H_0 of the ring: eps_v = -1 + 0.5 cos(2 pi k), eps_c = 1 - 0.7 cos(2 pi k) (plus, with
 * `extra`, a third orbital, an interband hopping or a second direction) */
enum { PLAIN, THREE_ORBITALS, HYBRIDIZED, SQUARE };
static mcf_cell *crystal(int extra)
{
    const double a[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    mcf_cell *c = NULL;
    CHECK(mcf_cell_create(&c) == MCF_OK, "%s", mcf_last_error());
    mcf_cell_shape(c, extra == SQUARE ? 2 : 1, extra == THREE_ORBITALS ? 3 : 2, 1, a);
    mcf_cell_onsite(c, 0, -1.0);
    mcf_cell_onsite(c, 1, 1.0);
    mcf_cell_bond(c, 1, 0, 0, 0, 0, 0.25, 0.0);
    mcf_cell_bond(c, 1, 0, 0, 1, 1, -0.35, 0.0);
    if (extra == THREE_ORBITALS)
        mcf_cell_onsite(c, 2, 3.0);
    if (extra == HYBRIDIZED)
        mcf_cell_bond(c, 1, 0, 0, 1, 0, 0.1, 0.0);
    if (extra == SQUARE)
        mcf_cell_bond(c, 0, 1, 0, 0, 0, 0.1, 0.0);
    CHECK(mcf_cell_status(c) == MCF_OK, "%s", mcf_last_error());
    return c;
}

/* D = d sigma_x (d = 0: no elements), with `kdep` an interband element to the next cell */
static mcf_cell *dipole(double d, int kdep, int dims)
{
    const double a[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    mcf_cell *c = NULL;
    CHECK(mcf_cell_create(&c) == MCF_OK, "%s", mcf_last_error());
    mcf_cell_shape(c, (unsigned)dims, 2, 1, a);
    if (d != 0.0)
        mcf_cell_bond(c, 0, 0, 0, 1, 0, d, 0.0);
    if (kdep)
        mcf_cell_bond(c, 1, 0, 0, 1, 0, 0.2, 0.0);
    CHECK(mcf_cell_status(c) == MCF_OK, "%s", mcf_last_error());
    return c;
}

static const mcf_dynamics_evaluator *table(void)
{
    const mcf_plugin_info *info = mcf_plugin_entry();
    CHECK(info->kind == MCF_PLUGIN_DYNAMICS_EVALUATOR && strcmp(info->name, "kbe") == 0,
          "the descriptor is kind %d, name %s", (int)info->kind, info->name);
    return info->ops;
}

static const double W = 2.0, D = 0.6; /* the term's weight, the dipole */

static mcf_propagation propagation(double dt, size_t steps, mcf_selfenergy se, int ramp)
{
    mcf_propagation p = {.struct_size = sizeof p, .dt = dt, .steps = steps, .nk = {8, 1, 1},
                         .correctors = 1, .selfenergy = se, .E0 = drive_E(0.0),
                         .U0 = drive_U(0.0, ramp)};
    return p;
}

/* 1 and 2's second-Born part: the evaluator against kbe_core, bit for bit */
static void second_born(void)
{
    const mcf_dynamics_evaluator *ev = table();
    mcf_cell *cc = crystal(PLAIN), *dc = dipole(D, 0, 1);
    mcf_drive_terms terms = {.struct_size = sizeof terms, .n_terms = 1,
                             .terms = {{.a = 1, .b = 0, .weight = W}}};
    const mcf_driven_crystal c = {mcf_cell_view(cc), mcf_cell_view(dc), &terms};
    const size_t nk = 8, steps = 40;
    const double dt = 0.05;
    mcf_propagation p = propagation(dt, steps, MCF_SELFENERGY_SECOND_BORN, 0);
    uint64_t bytes = 0;
    CHECK(ev->plan(NULL, &c, &p, NULL, &bytes) == MCF_OK, "%s", mcf_last_error());
    CHECK(bytes >= kbe_storage_bytes(nk, steps), "plan: %llu bytes",
          (unsigned long long)bytes);
    void *ws = NULL;
    CHECK(ev->create(NULL, &c, &p, NULL, &ws) == MCF_OK, "%s", mcf_last_error());
    if (!ws)
        return;
    /* the same numbers by hand: the bands from the same h(k), the same initial state */
    double eps[16], hk[8];
    double complex rho0[32];
    for (size_t k = 0; k < nk; k++) {
        const double kr[3] = {(double)k / (double)nk, 0.0, 0.0};
        mcf_periodic_hk(c.crystal, kr, hk);
        eps[2 * k] = hk[0];
        eps[2 * k + 1] = hk[6];
    }
    CHECK(kbe_rho_thermal(nk, eps, p.E0 * D, 0.0, 0.0, rho0) == MCF_OK, "%s",
          mcf_last_error());
    const kbe_spec s = {.nk = nk, .eps = eps, .dipole = D, .rho0 = rho0, .dt = dt,
                        .steps = steps, .correctors = 1, .selfenergy = KBE_SELFENERGY_2B,
                        .sigma_method = KBE_SIGMA_FFT};
    kbe *k = NULL;
    CHECK(kbe_create(&s, p.E0, W * p.U0, &k) == MCF_OK, "%s", mcf_last_error());
    mcf_batch *b = mcf_batch_create();
    double n0 = 0.0, worst_split = 0.0, worst_anti = 0.0, worst_n = 0.0, corr = 0.0;
    int same_res = 1;
    for (size_t n = 0; n <= steps; n++) {
        const double t = (double)n * dt;
        if (n > 0) {
            CHECK(ev->step(b, ws, drive_E(t), drive_U(t, 0)) == MCF_OK, "%s",
                  mcf_last_error());
            CHECK(kbe_step(k, drive_E(t), W * drive_U(t, 0)) == MCF_OK, "%s",
                  mcf_last_error());
        }
        mcf_dynamics_observables o;
        CHECK(ev->observe(b, ws, n, drive_E(t), drive_U(t, 0), &o) == MCF_OK, "%s",
              mcf_last_error());
        double eb, ef, ei;
        kbe_energies(k, n, &eb, &ef, &ei);
        worst_split = fmax(worst_split, fabs(o.e_hf + o.e_corr - ei / (double)nk));
        worst_split = fmax(worst_split, fabs(o.e_field - ef / (double)nk));
        worst_split = fmax(worst_split, fabs(o.e_band - eb / (double)nk));
        corr = fmax(corr, fabs(o.e_corr));
        worst_anti = fmax(worst_anti, o.anticommutator);
        if (n == 0)
            n0 = o.electrons;
        worst_n = fmax(worst_n, fabs(o.electrons - n0));
        same_res = same_res && o.corrector_residual ==
                                   (n ? kbe_corrector_residual(k) : 0.0);
        CHECK(n == 0 || o.corrector_residual > 0.0, "step %zu: no corrector residual", n);
    }
    CHECK(ev->steps_done(ws) == steps, "steps_done %llu",
          (unsigned long long)ev->steps_done(ws));
    printf("second Born via the evaluator: e_hf + e_corr - e_int/Nk %.1e, anticommutator "
           "%.1e, N drift %.1e\n", worst_split, worst_anti, worst_n);
    CHECK(worst_split <= 1e-14, "e_hf + e_corr (or e_field, e_band) differs from "
          "kbe_energies' per k point by %.2e", worst_split);
    CHECK(corr > 1e-6, "second Born's correlation energy is at most %.2e", corr);
    CHECK(worst_anti <= 1e-13, "anticommutator %.2e", worst_anti);
    CHECK(worst_n <= 1e-13, "the electrons drift by %.2e", worst_n);
    CHECK(same_res, "the corrector residuals differ from kbe_core's");
    /* every Green's function and occupation, bit for bit */
    double g[64], occ[16];
    double complex gk[32], rho[32];
    int same = 1;
    for (size_t i = 0; i <= steps; i++)
        for (size_t j = 0; j <= steps; j++)
            for (int lesser = 0; lesser < 2; lesser++) {
                CHECK(ev->green(ws, lesser, i, j, g) == MCF_OK, "%s", mcf_last_error());
                kbe_green(k, lesser, i, j, gk);
                for (size_t q = 0; q < 4 * nk; q++)
                    same = same && g[2 * q] == creal(gk[q]) && g[2 * q + 1] == cimag(gk[q]);
            }
    for (size_t n = 0; n <= steps; n++) {
        CHECK(ev->occupations(ws, n, occ) == MCF_OK, "%s", mcf_last_error());
        kbe_density(k, n, rho);
        for (size_t q = 0; q < nk; q++)
            same = same && occ[2 * q] == creal(rho[4 * q]) &&
                   occ[2 * q + 1] == creal(rho[4 * q + 3]);
    }
    CHECK(same, "the evaluator's Green's functions or occupations differ from kbe_core's");
    CHECK(ev->green(ws, 1, steps + 1, 0, g) == MCF_EINVAL, "green past the steps taken");
    CHECK(ev->step(b, ws, 0.0, 0.5) == MCF_EINVAL, "a step past the storage");
    kbe_destroy(k);
    ev->destroy(ws);
    mcf_batch_destroy(b);
    mcf_cell_destroy(cc);
    mcf_cell_destroy(dc);
}

/* Hartree-Fock to t = 2 at dt with the pulse and the ramp: |E_tot(2) - E_tot(0) - work| */
static double balance(double dt)
{
    const mcf_dynamics_evaluator *ev = table();
    mcf_cell *cc = crystal(PLAIN), *dc = dipole(D, 0, 1);
    mcf_drive_terms terms = {.struct_size = sizeof terms, .n_terms = 1,
                             .terms = {{.a = 0, .b = 1, .weight = W}}};
    const mcf_driven_crystal c = {mcf_cell_view(cc), mcf_cell_view(dc), &terms};
    const size_t steps = (size_t)lround(2.0 / dt);
    mcf_propagation p = propagation(dt, steps, MCF_SELFENERGY_HF, 1);
    void *ws = NULL;
    CHECK(ev->create(NULL, &c, &p, NULL, &ws) == MCF_OK, "%s", mcf_last_error());
    if (!ws)
        return NAN;
    mcf_dynamics_observables o0, o1, o;
    CHECK(ev->observe(NULL, ws, 0, drive_E(0.0), drive_U(0.0, 1), &o0) == MCF_OK, "%s",
          mcf_last_error());
    o = o0;
    double work = 0.0, hf_corr = 0.0;
    for (size_t n = 1; n <= steps; n++) {
        const double t0 = (double)(n - 1) * dt, t = (double)n * dt;
        CHECK(ev->step(NULL, ws, drive_E(t), drive_U(t, 1)) == MCF_OK, "%s", mcf_last_error());
        CHECK(ev->observe(NULL, ws, n, drive_E(t), drive_U(t, 1), &o1) == MCF_OK, "%s",
              mcf_last_error());
        hf_corr = fmax(hf_corr, fabs(o1.e_corr));
        work += (drive_E(t) - drive_E(t0)) * 0.5 * (o.polarization + o1.polarization) +
                (drive_U(t, 1) - drive_U(t0, 1)) * 0.5 * (o.interaction + o1.interaction);
        o = o1;
    }
    const double e0 = o0.e_band + o0.e_field + o0.e_hf + o0.e_corr;
    const double e1 = o.e_band + o.e_field + o.e_hf + o.e_corr;
    CHECK(hf_corr <= 1e-14, "Hartree-Fock has e_corr %.2e", hf_corr);
    ev->destroy(ws);
    mcf_cell_destroy(cc);
    mcf_cell_destroy(dc);
    printf("Hartree-Fock, dt = %.4f: E_tot %.12f -> %.12f, work %.12f, mismatch %.3e\n", dt,
           e0, e1, work, e1 - e0 - work);
    return fabs(e1 - e0 - work);
}

/* plan refuses with MCF_EINVAL and a message containing `why` (NULL: plan accepts) */
static void refusal(const char *what, int extra, int kdep, double d, uint32_t n_terms,
                    mcf_selfenergy se, uint32_t order, const char *why)
{
    const mcf_dynamics_evaluator *ev = table();
    mcf_cell *cc = crystal(extra), *dc = dipole(d, kdep, extra == SQUARE ? 2 : 1);
    mcf_drive_terms terms = {.struct_size = sizeof terms, .n_terms = n_terms,
                             .terms = {{.a = 0, .b = 1, .weight = W},
                                       {.a = 0, .b = 1, .weight = 1.0}}};
    const mcf_driven_crystal c = {mcf_cell_view(cc), mcf_cell_view(dc), &terms};
    mcf_propagation p = propagation(0.05, 10, se, 0);
    p.order = order;
    if (extra == SQUARE)
        p.nk[1] = 2;
    uint64_t bytes = 0;
    mcf_clear_error();
    const int rc = ev->plan(NULL, &c, &p, NULL, &bytes);
    if (why) {
        printf("%s: %s\n", what, mcf_last_error());
        CHECK(rc == MCF_EINVAL && strstr(mcf_last_error(), why),
              "%s: plan gave %d, '%s' (want MCF_EINVAL mentioning '%s')", what, rc,
              mcf_last_error(), why);
    } else {
        CHECK(rc == MCF_OK && bytes > 0, "%s: plan refused: %s", what, mcf_last_error());
    }
    mcf_cell_destroy(cc);
    mcf_cell_destroy(dc);
}

int main(void)
{
    second_born();
    const double r1 = balance(0.05), r2 = balance(0.025);
    printf("energy balance: mismatch ratio %.3f for dt halved\n", r1 / r2);
    CHECK(r1 / r2 >= 3.2 && r1 / r2 <= 5.0, "the energy balance's mismatch falls by %.3f "
          "(%.3e, %.3e) when dt halves: not second order", r1 / r2, r1, r2);
    const mcf_selfenergy hf = MCF_SELFENERGY_HF, b2 = MCF_SELFENERGY_SECOND_BORN;
    refusal("three orbitals", THREE_ORBITALS, 0, D, 1, hf, 0, "orbitals");
    refusal("off-diagonal h_0", HYBRIDIZED, 0, D, 1, hf, 0, "not diagonal");
    refusal("k-dependent dipole", PLAIN, 1, D, 1, hf, 0, "depends on k");
    refusal("two interaction terms", PLAIN, 0, D, 2, hf, 0, "interaction terms");
    refusal("second Born on a 2D grid", SQUARE, 0, D, 1, b2, 0, "1D k grid");
    refusal("Hartree-Fock on a 2D grid", SQUARE, 0, D, 1, hf, 0, NULL);
    refusal("no interaction, no dipole", PLAIN, 0, 0.0, 0, b2, 0, NULL);
    refusal("order 6", PLAIN, 0, D, 1, hf, 6, "order = 6");
    refusal("order 1", PLAIN, 0, D, 1, b2, 1, "order = 1");
    refusal("second Born at order 5", PLAIN, 0, D, 1, b2, 5, NULL);
    return check_exit();
}
