/* kbe_plugin.c — the dynamics evaluator "kbe" (mcf/dynamics.h) over the static library
 * mcf_kbe_core (kbe_core.h): the two-time Kadanoff-Baym propagation of a spinless two-band
 * crystal.  What the library propagates, and so what this plugin takes (plan and create
 * refuse the rest with MCF_EINVAL, naming why):
 *   - two orbitals per cell, H_0(k) diagonal on the k grid: the bands eps_a(k) = h_aa(k);
 *   - a dipole D(k) = d sigma_x, the same at every grid point, real, no diagonal;
 *   - no interaction, or one term U(t) w n_0 n_1: the library's U is w U(t);
 *   - second Born only on a 1D grid (nk[1] = nk[2] = 1): its self-energy's FFT is a ring's.
 * k runs over the grid k_j = j / nk (reduced, per direction), the first direction fastest.
 * Observables per cell (sums over k over Nk); rho_ab = <c_b^dag c_a> (kbe_core.h), so
 * <D> = (1/Nk) sum_k tr(D rho_k) = 2 d Re rho^loc_vc with rho^loc = (1/Nk) sum_k rho_k. */
#include "kbe_backend.h"
#include "kbe_core.h"

#include "mcf/mcf.h"

#include <complex.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* what plan and create read off the crystal and the propagation */
typedef struct kp_setup {
    size_t nk;          /* grid points, the product of p->nk */
    double *eps;        /* nk x 2, the caller frees */
    double d;           /* the dipole's interband element */
    double w;           /* the interaction's weight (0 without a term) */
    kbe_selfenergy selfenergy;
    kbe_sigma_method method;
    int order;          /* the step's order in dt (2 .. 5) */
    const mcf_dynamics_gather *gather; /* k over ranks (NULL: one process) */
    uint64_t bytes;     /* what the run takes on this process (plan's answer) */
} kp_setup;

/* the propagator (kbe_backend.h): the CPU's in "kbe", the GPU's in "kbe-cuda" */
#define KB (&kbe_backend_of_plugin)

typedef struct kp_ws {
    void *k;
    size_t nk, steps;
    double w, d;
    kbe_selfenergy selfenergy;
    double *eps;            /* nk x 2 */
    double *residual;       /* the corrector residual of every step (steps + 1) */
    double complex *buf;    /* 8 nk: a density, or G^< and G^> of one time pair */
} kp_ws;

/* the bytes the plugin itself takes beyond kbe_core's two-time storage (eps, the buffer,
 * the residuals) and second Born's rows in kbe_core (8 rows of steps + 1 blocks) */
static double kp_extra_bytes(size_t nk, size_t steps, int b2, int order)
{
    const double blk = 4.0 * (double)nk * (double)sizeof(double complex);
    double extra = 2.0 * (double)nk * sizeof(double) + 2.0 * blk +
                   ((double)steps + 1.0) * sizeof(double) + sizeof(kp_ws);
    if (b2) /* order > 2: two more rows, the strip's self-energy Sigma(t_j, .) */
        extra += (order > 2 ? 10.0 : 8.0) * ((double)steps + 1.0) * blk;
    return extra;
}

/* the grid point k (first direction fastest) in reduced coordinates */
static void kp_kpoint(const uint32_t nk[3], size_t k, double kr[3])
{
    for (int a = 0; a < 3; a++) {
        kr[a] = (double)(k % nk[a]) / (double)nk[a];
        k /= nk[a];
    }
}

static int kp_grid(const mcf_periodic *cr, const mcf_propagation *p, size_t *nk_out)
{
    size_t nk = 1;
    for (uint32_t a = 0; a < 3; a++) {
        if (p->nk[a] < 1)
            return mcf_fail(MCF_EINVAL, "kbe: the k grid has nk[%u] = 0 (need >= 1)", a);
        if (a >= cr->dims && p->nk[a] != 1)
            return mcf_fail(MCF_EINVAL, "kbe: the k grid has nk[%u] = %u beyond the crystal's "
                            "%u periodic directions (must be 1)", a, p->nk[a], cr->dims);
        if (nk > SIZE_MAX / p->nk[a])
            return mcf_fail(MCF_EINVAL, "kbe: the k grid %u x %u x %u is too large", p->nk[0],
                            p->nk[1], p->nk[2]);
        nk *= p->nk[a];
    }
    if (p->selfenergy == MCF_SELFENERGY_SECOND_BORN && (p->nk[1] != 1 || p->nk[2] != 1))
        return mcf_fail(MCF_EINVAL, "kbe: second Born needs a 1D k grid (nk = N x 1 x 1; "
                        "%u x %u x %u given): kbe's self-energy FFT is over a ring", p->nk[0],
                        p->nk[1], p->nk[2]);
    *nk_out = nk;
    return MCF_OK;
}

/* eps from the diagonal of H_0(k), refusing an off-diagonal element */
static int kp_bands(const mcf_periodic *cr, const uint32_t grid[3], size_t nk, double *eps)
{
    double hk[8], kr[3], hmax = 0.0, omax = 0.0;
    size_t kw = 0;
    for (size_t k = 0; k < nk; k++) {
        kp_kpoint(grid, k, kr);
        mcf_periodic_hk(cr, kr, hk);
        for (int q = 0; q < 4; q++)
            hmax = fmax(hmax, hypot(hk[2 * q], hk[2 * q + 1]));
        const double off = fmax(hypot(hk[2], hk[3]), hypot(hk[4], hk[5]));
        if (off > omax) {
            omax = off;
            kw = k;
        }
        eps[2 * k] = hk[0];
        eps[2 * k + 1] = hk[6];
    }
    if (omax > 1e-14 * hmax) {
        kp_kpoint(grid, kw, kr);
        return mcf_fail(MCF_EINVAL, "kbe: h_0(k) is not diagonal at k = (%g, %g, %g) (|h_01| "
                        "= %.3g of max |h| %.3g): kbe propagates uncoupled bands; give H_0 in "
                        "its band basis", kr[0], kr[1], kr[2], omax, hmax);
    }
    return MCF_OK;
}

/* d of D(k) = d sigma_x, refusing a k-dependent, intraband or complex dipole */
static int kp_dipole(const mcf_periodic *dp, const uint32_t grid[3], size_t nk, double *d)
{
    double d0[8], hk[8], kr[3], dmax = 0.0, dev = 0.0;
    size_t kw = 0;
    kp_kpoint(grid, 0, kr);
    mcf_periodic_hk(dp, kr, d0);
    for (size_t k = 0; k < nk; k++) {
        kp_kpoint(grid, k, kr);
        mcf_periodic_hk(dp, kr, hk);
        for (int q = 0; q < 8; q++) {
            dmax = fmax(dmax, fabs(hk[q]));
            if (fabs(hk[q] - d0[q]) > dev) {
                dev = fabs(hk[q] - d0[q]);
                kw = k;
            }
        }
    }
    const double tol = 1e-14 * dmax;
    if (dev > tol) {
        kp_kpoint(grid, kw, kr);
        return mcf_fail(MCF_EINVAL, "kbe: the dipole D(k) depends on k (at k = (%g, %g, %g) "
                        "it differs from D(0) by %.3g): kbe takes a k-independent interband "
                        "dipole d sigma_x", kr[0], kr[1], kr[2], dev);
    }
    if (hypot(d0[0], d0[1]) > tol || hypot(d0[6], d0[7]) > tol)
        return mcf_fail(MCF_EINVAL, "kbe: the dipole has intraband elements (D_00 = %g, D_11 = "
                        "%g): kbe takes a purely interband dipole d sigma_x", d0[0], d0[6]);
    if (fabs(d0[3]) > tol || fabs(d0[5]) > tol || fabs(d0[2] - d0[4]) > tol)
        return mcf_fail(MCF_EINVAL, "kbe: the dipole's interband element D_01 = %g%+gi is not "
                        "real: kbe takes a real d sigma_x", d0[2], d0[3]);
    *d = d0[2];
    return MCF_OK;
}

/* everything plan and create check; s->eps allocated on success only */
static int kp_setup_read(const mcf_driven_crystal *c, const mcf_propagation *p, kp_setup *s)
{
    memset(s, 0, sizeof *s);
    if (!c || !c->crystal || !c->dipole || !c->terms || !p)
        return mcf_fail(MCF_EINVAL, "kbe: no crystal, dipole, interaction terms or "
                        "propagation");
    const mcf_periodic *cr = c->crystal, *dp = c->dipole;
    if (cr->orbitals != 2 || dp->orbitals != 2)
        return mcf_fail(MCF_EINVAL, "kbe: the crystal has %u orbitals per cell and its dipole "
                        "%u: kbe propagates two bands (2 orbitals) only", cr->orbitals,
                        dp->orbitals);
    int rc = mcf_periodic_check(cr, "kbe: H_0");
    if (rc || (rc = mcf_periodic_check(dp, "kbe: the dipole")))
        return rc;
    if (!(p->dt > 0.0) || !isfinite(p->dt) || p->steps < 1 || p->steps > SIZE_MAX / 2)
        return mcf_fail(MCF_EINVAL, "kbe: dt = %g and steps = %llu (need dt > 0, steps >= 1)",
                        p->dt, (unsigned long long)p->steps);
    if (p->correctors > 100)
        return mcf_fail(MCF_EINVAL, "kbe: correctors = %u (0 .. 100)", p->correctors);
    /* the order: a core whose mcf_propagation ends before it asks for 2 */
    s->order = p->struct_size >= offsetof(mcf_propagation, order) + sizeof p->order
                   ? (int)p->order : 2;
    if (s->order == 0)
        s->order = 2;
    if (s->order < 2 || s->order > KBE_GREGORY_MAX_ORDER)
        return mcf_fail(MCF_EINVAL, "kbe: order = %d (2 .. %d)", s->order,
                        KBE_GREGORY_MAX_ORDER);
    if (s->order > KB->max_order)
        return mcf_fail(MCF_EINVAL, "%s: order = %d: this evaluator steps orders 2 .. %d "
                        "(evaluator = kbe has 2 .. %d)", KB->name, s->order, KB->max_order,
                        KBE_GREGORY_MAX_ORDER);

    if (!isfinite(p->E0) || !isfinite(p->U0))
        return mcf_fail(MCF_EINVAL, "kbe: the drive at t = 0 is not finite (E %g, U %g)", p->E0,
                        p->U0);
    switch (p->selfenergy) {
    case MCF_SELFENERGY_NONE: s->selfenergy = KBE_SELFENERGY_NONE; break;
    case MCF_SELFENERGY_HF: s->selfenergy = KBE_SELFENERGY_HF; break;
    case MCF_SELFENERGY_SECOND_BORN: s->selfenergy = KBE_SELFENERGY_2B; break;
    default:
        return mcf_fail(MCF_EINVAL, "kbe: self-energy %d is not one of none, hf, second Born",
                        (int)p->selfenergy);
    }
    if (p->selfenergy_direct > 1)
        return mcf_fail(MCF_EINVAL, "kbe: selfenergy_direct = %u (0: FFT, 1: direct)",
                        p->selfenergy_direct);
    s->method = p->selfenergy_direct ? KBE_SIGMA_DIRECT : KBE_SIGMA_FFT;
    const mcf_drive_terms *t = c->terms;
    if (t->n_terms > 1)
        return mcf_fail(MCF_EINVAL, "kbe: %u interaction terms: kbe propagates at most one, "
                        "U w n_0 n_1 between the two orbitals", t->n_terms);
    if (t->n_terms == 1) {
        const mcf_interaction_term *m = &t->terms[0];
        if (!((m->a == 0 && m->b == 1) || (m->a == 1 && m->b == 0)))
            return mcf_fail(MCF_EINVAL, "kbe: an interaction term between orbitals %u and %u: "
                            "kbe takes U w n_0 n_1 only", m->a, m->b);
        if (!isfinite(m->weight))
            return mcf_fail(MCF_EINVAL, "kbe: the interaction weight %g is not finite",
                            m->weight);
        s->w = m->weight;
    }
    if (!(t->temperature >= 0.0) || !isfinite(t->temperature) || !isfinite(t->mu))
        return mcf_fail(MCF_EINVAL, "kbe: the initial state at mu = %g, T = %g (need T >= 0)",
                        t->mu, t->temperature);
    if ((rc = kp_grid(cr, p, &s->nk)))
        return rc;
    /* a propagator without slabs takes every k on every process (dynamics.h allows it) */
    if (KB->slabs && p->struct_size >= offsetof(mcf_propagation, gather) + sizeof p->gather)
        s->gather = p->gather;
    if (s->gather && s->nk < s->gather->size)
        return mcf_fail(MCF_EINVAL, "kbe: %zu k points over %u processes: every process needs "
                        "one at least", s->nk, s->gather->size);
    const size_t steps = (size_t)p->steps;
    size_t k0 = 0, mine = s->nk; /* this process's k slab */
    if (s->gather)
        kbe_slab(s->nk, s->gather->rank, s->gather->size, &k0, &mine);
    const size_t store = kbe_storage_bytes(mine, steps);
    const int b2 = s->selfenergy == KBE_SELFENERGY_2B;
    double total = (double)store + kp_extra_bytes(mine, steps, b2, s->order);
    if (s->gather) /* a row's record at every k, twice, and second Born's ring of rows */
        total += ((b2 ? 2.0 * (s->order > 2 ? s->order + 1 : 1) : 0.0) + 2.0 + 2.0) *
                 ((double)steps + 1.0) * 4.0 * (double)s->nk * (double)sizeof(double complex);
    if (store == SIZE_MAX || total >= 0x1p63)
        return mcf_fail(MCF_ENOMEM, "kbe: %zu k points and %zu steps overflow the storage",
                        s->nk, steps);
    s->bytes = (uint64_t)total;
    if (p->memory_limit && s->bytes > p->memory_limit)
        return mcf_fail(MCF_ENOMEM, "kbe: %zu k points and %zu steps take %.3g GB%s, more than "
                        "the %.3g GB allowed", s->nk, steps, 1e-9 * (double)s->bytes,
                        s->gather ? " a process" : "", 1e-9 * (double)p->memory_limit);
    s->eps = malloc(2 * s->nk * sizeof *s->eps);
    if (!s->eps)
        return mcf_fail(MCF_ENOMEM, "kbe: out of memory");
    if ((rc = kp_bands(cr, p->nk, s->nk, s->eps)) || (rc = kp_dipole(dp, p->nk, s->nk, &s->d))) {
        free(s->eps);
        s->eps = NULL;
        return rc;
    }
    return MCF_OK;
}

static int kp_plan(const mcf_params *params, const mcf_driven_crystal *c,
                   const mcf_propagation *p, void *app_data, uint64_t *bytes)
{
    (void)params;
    (void)app_data;
    kp_setup s;
    int rc = kp_setup_read(c, p, &s);
    if (rc)
        return rc;
    free(s.eps);
    *bytes = s.bytes;
    return MCF_OK;
}

static void kp_destroy(void *ws)
{
    kp_ws *w = ws;
    if (!w)
        return;
    if (w->k)
        KB->destroy(w->k);
    free(w->eps);
    free(w->residual);
    free(w->buf);
    free(w);
}

static int kp_create(const mcf_params *params, const mcf_driven_crystal *c,
                     const mcf_propagation *p, void *app_data, void **out)
{
    (void)params;
    (void)app_data;
    *out = NULL;
    kp_setup s;
    int rc = kp_setup_read(c, p, &s);
    if (rc)
        return rc;
    kp_ws *w = calloc(1, sizeof *w);
    if (!w) {
        free(s.eps);
        return mcf_fail(MCF_ENOMEM, "kbe: out of memory");
    }
    w->nk = s.nk;
    w->steps = (size_t)p->steps;
    w->w = s.w;
    w->d = s.d;
    w->selfenergy = s.selfenergy;
    w->eps = s.eps;
    w->residual = calloc(w->steps + 1, sizeof *w->residual);
    w->buf = malloc(8 * s.nk * sizeof *w->buf);
    if (!w->residual || !w->buf) {
        kp_destroy(w);
        return mcf_fail(MCF_ENOMEM, "kbe: out of memory");
    }
    double complex *rho0 = w->buf; /* 4 nk of the 8 */
    rc = kbe_rho_thermal(s.nk, w->eps, p->E0 * s.d, c->terms->mu, c->terms->temperature, rho0);
    const kbe_spec spec = {.nk = s.nk,
                           .eps = w->eps,
                           .dipole = s.d,
                           .rho0 = rho0,
                           .dt = p->dt,
                           .steps = w->steps,
                           .correctors = (int)p->correctors,
                           .order = s.order,
                           .selfenergy = s.selfenergy,
                           .sigma_method = s.method,
                           .memory_limit = (size_t)p->memory_limit,
                           .gather = s.gather};
    if (rc || (rc = KB->create(&spec, p->E0, s.w * p->U0, &w->k))) {
        kp_destroy(w);
        return rc;
    }
    *out = w;
    return MCF_OK;
}

static int kp_step(mcf_batch *b, void *ws, double E_next, double U_next)
{
    (void)b;
    kp_ws *w = ws;
    const int rc = KB->step(w->k, E_next, w->w * U_next);
    if (rc)
        return rc;
    return KB->residual(w->k, &w->residual[KB->steps_done(w->k)]);
}

static uint64_t kp_steps_done(const void *ws)
{
    const kp_ws *w = ws;
    return KB->steps_done(w->k);
}

static int kp_time_check(const kp_ws *w, uint64_t n, const char *what)
{
    const size_t done = KB->steps_done(w->k);
    if (n > done)
        return mcf_fail(MCF_EINVAL, "kbe: %s at step %llu, past the %zu steps taken", what,
                        (unsigned long long)n, done);
    return MCF_OK;
}

/* max over k, a, b of |G^>(t_n, t_n) - G^<(t_n, t_n) + i delta_ab| into *out */
static int kp_anticommutator(kp_ws *w, size_t n, double *out)
{
    double complex *gl = w->buf, *gg = w->buf + 4 * w->nk;
    int rc = KB->green(w->k, 1, n, n, gl);
    if (rc || (rc = KB->green(w->k, 0, n, n, gg)))
        return rc;
    double m = 0.0;
    for (size_t k = 0; k < w->nk; k++)
        for (int ab = 0; ab < 4; ab++) {
            const double one = ab == 0 || ab == 3 ? 1.0 : 0.0;
            const double complex x = gg[4 * k + ab] - gl[4 * k + ab];
            m = fmax(m, hypot(creal(x), cimag(x) + one));
        }
    *out = m;
    return MCF_OK;
}

static int kp_observe(mcf_batch *b, void *ws, uint64_t n, double E, double U,
                      mcf_dynamics_observables *out)
{
    (void)b;
    kp_ws *w = ws;
    int rc = kp_time_check(w, n, "observables");
    if (rc)
        return rc;
    const size_t nk = w->nk;
    const double dnk = (double)nk;
    double e_band, e_field, e_int;
    if ((rc = KB->energies(w->k, (size_t)n, &e_band, &e_field, &e_int)))
        return rc;
    (void)e_field; /* E(t_n) d sum_k 2 Re rho_vc: formed below with the E handed in */
    double complex *rho = w->buf;
    if ((rc = KB->density(w->k, (size_t)n, rho)))
        return rc;
    double nv = 0.0, nc = 0.0, coh = 0.0;
    double complex vc = 0.0;
    for (size_t k = 0; k < nk; k++) {
        nv += creal(rho[4 * k]);
        nc += creal(rho[4 * k + 3]);
        coh += 2.0 * creal(rho[4 * k + 1]);
        vc += rho[4 * k + 1];
    }
    nv /= dnk;
    nc /= dnk;
    vc /= dnk;
    memset(out, 0, sizeof *out);
    out->occupation[0] = nv;
    out->occupation[1] = nc;
    out->electrons = nv + nc;
    out->polarization = w->d * coh / dnk;
    out->e_band = e_band / dnk;
    out->e_field = E * w->d * coh / dnk;
    /* the Hartree-Fock energy (1/2) (1/Nk) sum_k tr[Sigma^HF rho_k] of Sigma^HF (kbe_core.h)
     * = U (n_v n_c - |rho^loc_vc|^2), U the library's w U */
    const double Uc = w->w * U;
    const double pair = nv * nc - creal(vc * conj(vc)); /* <n_v n_c> factorized */
    if (w->selfenergy != KBE_SELFENERGY_NONE) {
        out->e_hf = Uc * pair;
        out->e_corr = e_int / dnk - out->e_hf;
        out->interaction = Uc != 0.0 ? w->w * (e_int / dnk) / Uc : w->w * pair;
    } /* without a self-energy U V is not in H(t): no energy, no ramp work */
    out->corrector_residual = w->residual[n];
    return kp_anticommutator(w, (size_t)n, &out->anticommutator);
}

static int kp_occupations(void *ws, uint64_t n, double *occ)
{
    kp_ws *w = ws;
    int rc = kp_time_check(w, n, "occupations");
    if (rc)
        return rc;
    double complex *rho = w->buf;
    if ((rc = KB->density(w->k, (size_t)n, rho)))
        return rc;
    for (size_t k = 0; k < w->nk; k++) {
        occ[2 * k] = creal(rho[4 * k]);
        occ[2 * k + 1] = creal(rho[4 * k + 3]);
    }
    return MCF_OK;
}

static int kp_green(void *ws, int lesser, uint64_t i, uint64_t j, double *g)
{
    kp_ws *w = ws;
    int rc = kp_time_check(w, i > j ? i : j, "Green's function");
    if (rc)
        return rc;
    double complex *x = w->buf;
    if ((rc = KB->green(w->k, lesser, (size_t)i, (size_t)j, x)))
        return rc;
    for (size_t q = 0; q < 4 * w->nk; q++) {
        g[2 * q] = creal(x[q]);
        g[2 * q + 1] = cimag(x[q]);
    }
    return MCF_OK;
}

static uint64_t kp_row_bytes(const void *ws, uint64_t n)
{
    return KB->row_bytes(((const kp_ws *)ws)->k, (size_t)n);
}

static int kp_row_write(const void *ws, uint64_t n, void *buf)
{
    return KB->row_write(((const kp_ws *)ws)->k, (size_t)n, buf);
}

/* the library rebuilds the storage; the plugin's own per-step record is the residual */
static int kp_row_read(void *ws, uint64_t n, const void *buf)
{
    kp_ws *w = ws;
    if (n > w->steps)
        return mcf_fail(MCF_EINVAL, "kbe: row %llu past the run's %zu steps",
                        (unsigned long long)n, w->steps);
    int rc = KB->row_read(w->k, (size_t)n, buf);
    if (!rc)
        rc = KB->residual(w->k, &w->residual[n]);
    return rc;
}

static const mcf_dynamics_evaluator kbe_table = {
    .struct_size = sizeof(mcf_dynamics_evaluator),
    .plan = kp_plan,
    .create = kp_create,
    .destroy = kp_destroy,
    .step = kp_step,
    .steps_done = kp_steps_done,
    .observe = kp_observe,
    .occupations = kp_occupations,
    .green = kp_green,
    .row_bytes = kp_row_bytes,
    .row_write = kp_row_write,
    .row_read = kp_row_read,
};

/* the plugin's name and summary: the CPU's unless its build says (cuda/kbe-cuda) */
#ifndef KBE_PLUGIN_NAME
#define KBE_PLUGIN_NAME "kbe"
#define KBE_PLUGIN_SUMMARY                                                                  \
    "dynamics evaluator: two-time Kadanoff-Baym equations of a two-band crystal, "          \
    "Hartree-Fock or second Born (CPU, OpenMP)"
#endif
MCF_PLUGIN_DESCRIPTOR(MCF_PLUGIN_DYNAMICS_EVALUATOR, KBE_PLUGIN_NAME, "1.0", KBE_PLUGIN_SUMMARY,
                      NULL, &kbe_table)
