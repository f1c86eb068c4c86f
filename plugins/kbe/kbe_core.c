/* kbe_core.c — the propagator's storage, checks and accessors (the step is kbe_step.c):
 * G^< and G^> of every k on the triangle t_i >= t_j, one block of 4 nk values per time pair
 * (band pair major, k innermost, so a pass over k is contiguous), the drive sampled at every
 * step, and the initial state G^<(0, 0) = i rho0, G^>(0, 0) = -i (1 - rho0). */
#include "kbe_internal.h"

#include "mcf/error.h"

#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

size_t kbe_storage_bytes(size_t nk, size_t steps)
{
    const double pairs = 0.5 * ((double)steps + 1.0) * ((double)steps + 2.0);
    const double bytes = 2.0 * pairs * 4.0 * (double)nk * (double)sizeof(double complex);
    return bytes >= (double)SIZE_MAX ? SIZE_MAX : (size_t)bytes;
}

static double fermi(double e, double mu, double T)
{
    if (T == 0.0)
        return e < mu ? 1.0 : e > mu ? 0.0 : 0.5;
    const double x = (e - mu) / T; /* stable on both sides */
    return x > 0.0 ? exp(-x) / (1.0 + exp(-x)) : 1.0 / (1.0 + exp(x));
}

int kbe_rho_thermal(size_t nk, const double *eps, double E0d, double mu, double T,
                    double complex *rho)
{
    if (!(T >= 0.0) || !isfinite(T) || !isfinite(mu) || !isfinite(E0d))
        return mcf_fail(MCF_EINVAL, "kbe: a thermal state at mu = %g, T = %g, E d = %g", mu, T,
                        E0d);
    for (size_t k = 0; k < nk; k++) {
        const double a = eps[2 * k], c = eps[2 * k + 1];
        if (!isfinite(a) || !isfinite(c))
            return mcf_fail(MCF_EINVAL, "kbe: band energies of k point %zu are not finite", k);
        /* h = m + z sigma_z + b sigma_x: eigenvalues m -+ r; f(h) = (f- + f+)/2 + (f+ - f-)
         * (h - m) / (2 r) */
        const double m = 0.5 * (a + c), z = 0.5 * (a - c), b = E0d, r = hypot(z, b);
        const double fm = fermi(m - r, mu, T), fp = fermi(m + r, mu, T);
        const double avg = 0.5 * (fm + fp), dif = r > 0.0 ? 0.5 * (fp - fm) / r : 0.0;
        rho[4 * k] = avg + dif * z;
        rho[4 * k + 3] = avg - dif * z;
        rho[4 * k + 1] = rho[4 * k + 2] = dif * b;
    }
    return MCF_OK;
}

/* rho0 of k: Hermitian, finite, its eigenvalues (occupations) in [0, 1] to rounding */
static int check_rho(const double complex *r, size_t k)
{
    const double tol = 1e-12;
    for (int q = 0; q < 4; q++)
        if (!isfinite(creal(r[q])) || !isfinite(cimag(r[q])))
            return mcf_fail(MCF_EINVAL, "kbe: rho0 of k point %zu is not finite", k);
    if (fabs(cimag(r[0])) > tol || fabs(cimag(r[3])) > tol || cabs(r[1] - conj(r[2])) > tol)
        return mcf_fail(MCF_EINVAL, "kbe: rho0 of k point %zu is not Hermitian", k);
    const double a = creal(r[0]), d = creal(r[3]), m = 0.5 * (a + d);
    const double s = sqrt(0.25 * (a - d) * (a - d) + creal(r[1] * conj(r[1])));
    if (m - s < -tol || m + s > 1.0 + tol)
        return mcf_fail(MCF_EINVAL, "kbe: rho0 of k point %zu has occupations %.3g and %.3g "
                        "outside [0, 1]", k, m - s, m + s);
    return MCF_OK;
}

static int check_spec(const kbe_spec *s)
{
    if (!s || !s->eps || !s->rho0 || s->nk < 1)
        return mcf_fail(MCF_EINVAL, "kbe: no bands, no initial state or no k points");
    if (!(s->dt > 0.0) || !isfinite(s->dt) || s->steps < 1 || !isfinite(s->dipole))
        return mcf_fail(MCF_EINVAL, "kbe: dt = %g and steps = %zu (need dt > 0, steps >= 1)",
                        s->dt, s->steps);
    if (s->correctors < 0 || s->correctors > 100)
        return mcf_fail(MCF_EINVAL, "kbe: correctors = %d (0 .. 100)", s->correctors);
    if (s->order != 0 && (s->order < 2 || s->order > KBE_GREGORY_MAX_ORDER))
        return mcf_fail(MCF_EINVAL, "kbe: order = %d (2 .. %d; 0: 2)", s->order,
                        KBE_GREGORY_MAX_ORDER);
    if (s->selfenergy != KBE_SELFENERGY_NONE && s->selfenergy != KBE_SELFENERGY_HF &&
        s->selfenergy != KBE_SELFENERGY_2B && s->selfenergy != KBE_SELFENERGY_GIVEN)
        return mcf_fail(MCF_EINVAL, "kbe: self-energy %d is not one of none, hf, 2b, given",
                        (int)s->selfenergy);
    if (s->selfenergy == KBE_SELFENERGY_GIVEN && !s->sigma)
        return mcf_fail(MCF_EINVAL, "kbe: a given self-energy without its function (sigma)");
    if (s->sigma_method != KBE_SIGMA_FFT && s->sigma_method != KBE_SIGMA_DIRECT)
        return mcf_fail(MCF_EINVAL, "kbe: self-energy method %d is not one of fft, direct",
                        (int)s->sigma_method);
    for (size_t k = 0; k < 2 * s->nk; k++)
        if (!isfinite(s->eps[k]))
            return mcf_fail(MCF_EINVAL, "kbe: band energy %zu of k point %zu is not finite",
                            k % 2, k / 2);
    for (size_t k = 0; k < s->nk; k++) {
        const int rc = check_rho(s->rho0 + 4 * k, k);
        if (rc)
            return rc;
    }
    const mcf_dynamics_gather *g = s->gather;
    if (g && (g->struct_size < offsetof(mcf_dynamics_gather, gather) + sizeof g->gather ||
              !g->allgather || !g->gather || g->size < 1 || g->rank >= g->size))
        return mcf_fail(MCF_EINVAL, "kbe: a gather service without its functions or with "
                        "rank %u of %u", g->rank, g->size);
    if (g && s->nk < g->size)
        return mcf_fail(MCF_EINVAL, "kbe: %zu k points over %u ranks: every rank needs one "
                        "k point at least", s->nk, g->size);
    if (g && s->selfenergy == KBE_SELFENERGY_GIVEN)
        return mcf_fail(MCF_EINVAL, "kbe: a given self-energy is not taken over ranks");
    size_t k0 = 0, mine = s->nk;
    if (g)
        kbe_slab(s->nk, g->rank, g->size, &k0, &mine);
    const size_t need = kbe_storage_bytes(mine, s->steps);
    if (s->memory_limit && need > s->memory_limit)
        return mcf_fail(MCF_ENOMEM, "kbe: the two-time storage of %zu k points and %zu steps "
                        "takes %.3g GB, more than the %.3g GB allowed", mine, s->steps,
                        1e-9 * (double)need, 1e-9 * (double)s->memory_limit);
    return MCF_OK;
}

/* the tables of order p > 2 (the step is kbe_bdf.c's and kbe_start.c's): MCF_ENOMEM */
static int kbe_order_init(kbe *w)
{
    const int p = w->spec.order;
    const size_t nk = w->spec.nk, width = 2 * (size_t)p + 2;
    w->order = p;
    w->kstart = 2 * (size_t)p - 2;
    kbe_bdf_weights(p, w->bdf);
    w->greg = calloc(width * width, sizeof *w->greg);
    w->hblk = malloc((2 * (size_t)p - 1) * 4 * nk * sizeof *w->hblk);
    w->kthreads = omp_get_max_threads();
    w->kbuf = malloc((size_t)w->kthreads * 3 * 4 * nk * sizeof *w->kbuf);
    const size_t K1 = w->kstart + 1, row = (w->spec.steps + 1) * 4 * nk;
    if (kbe_collisions(w)) {
        w->sblk = malloc(2 * K1 * K1 * 4 * nk * sizeof *w->sblk);
        w->tl = malloc(row * sizeof *w->tl);
        w->tg = malloc(row * sizeof *w->tg);
    }
    if (!w->greg || !w->hblk || !w->kbuf ||
        (kbe_collisions(w) && (!w->sblk || !w->tl || !w->tg)))
        return MCF_ENOMEM;
    for (size_t n = 0; n < width; n++)
        kbe_gregory_weights(p, n, w->greg + n * width);
    return MCF_OK;
}

int kbe_create(const kbe_spec *spec, double E0, double U0, kbe **out)
{
    *out = NULL;
    int rc = check_spec(spec);
    if (rc)
        return rc;
    if (!isfinite(E0) || !isfinite(U0))
        return mcf_fail(MCF_EINVAL, "kbe: the drive at t = 0 is not finite (E %g, U %g)", E0,
                        U0);
    size_t k0 = 0, nk = spec->nk; /* this rank's slab (all of k in one process) */
    if (spec->gather)
        kbe_slab(spec->nk, spec->gather->rank, spec->gather->size, &k0, &nk);
    const size_t steps = spec->steps, nk_all = spec->nk;
    const size_t need = kbe_storage_bytes(nk, steps);
    if (need == SIZE_MAX)
        return mcf_fail(MCF_ENOMEM, "kbe: %zu k points and %zu steps overflow the storage",
                        nk, steps);
    kbe *w = calloc(1, sizeof *w);
    if (!w)
        return mcf_fail(MCF_ENOMEM, "kbe: out of memory");
    w->spec = *spec;
    w->spec.nk = nk;
    w->nk_all = nk_all;
    w->k0 = k0;
    w->eps = malloc(2 * nk * sizeof *w->eps);
    w->rho0 = malloc(4 * nk * sizeof *w->rho0);
    w->E = malloc((steps + 1) * sizeof *w->E);
    w->U = malloc((steps + 1) * sizeof *w->U);
    w->scratch = malloc(5 * 4 * nk * sizeof *w->scratch);
    w->gl = malloc(need / 2);
    w->gg = malloc(need / 2);
    if (!w->eps || !w->rho0 || !w->E || !w->U || !w->scratch || !w->gl || !w->gg) {
        kbe_destroy(w);
        return mcf_fail(MCF_ENOMEM, "kbe: out of memory for %.3g GB of two-time storage",
                        1e-9 * (double)need);
    }
    if (kbe_collisions(w)) { /* rows of Sigma and I; I(0, 0) = 0 */
        const size_t row = (steps + 1) * 4 * nk;
        double complex **rows[8] = {&w->sl, &w->sg, &w->sr, &w->il,
                                    &w->ig, &w->jl, &w->jg, &w->idiag};
        int got = 1;
        for (int q = 0; q < 8; q++)
            got = (*rows[q] = calloc(row, sizeof **rows[q])) && got;
        w->nthreads = omp_get_max_threads();
        w->sw = calloc((size_t)w->nthreads, sizeof *w->sw);
        w->bbuf = malloc((size_t)w->nthreads * 4 * nk_all * sizeof *w->bbuf);
        got = got && w->sw && w->bbuf;
        for (int t = 0; got && t < w->nthreads; t++)
            got = kbe_sigma_work_create(nk_all, &w->sw[t]) == MCF_OK;
        if (!got) {
            kbe_destroy(w);
            return mcf_fail(MCF_ENOMEM, "kbe: out of memory for the self-energy");
        }
    }
    w->order = 2;
    if (spec->order > 2 && kbe_order_init(w)) {
        kbe_destroy(w);
        return mcf_fail(MCF_ENOMEM, "kbe: out of memory for the tables of order %d",
                        spec->order);
    }
    if (spec->gather && kbe_slab_init(w)) {
        kbe_destroy(w);
        return mcf_fail(MCF_ENOMEM, "kbe: out of memory for the rows of k over ranks");
    }
    if (spec->gather)
        memcpy(w->eps_all, spec->eps, 2 * nk_all * sizeof *w->eps_all);
    memcpy(w->eps, spec->eps + 2 * k0, 2 * nk * sizeof *w->eps);
    memcpy(w->rho0, spec->rho0 + 4 * k0, 4 * nk * sizeof *w->rho0);
    w->spec.eps = w->eps;
    w->spec.rho0 = w->rho0;
    w->E[0] = E0;
    w->U[0] = U0;
    kbe_initial_blocks(nk, w->rho0, kbe_block(w, 1, 0, 0), kbe_block(w, 0, 0, 0));
    *out = w;
    return MCF_OK;
}

void kbe_initial_blocks(size_t nk, const double complex *rho0, double complex *gl,
                        double complex *gg)
{
    for (size_t k = 0; k < nk; k++)
        for (int ab = 0; ab < 4; ab++) {
            const double complex r = rho0[4 * k + ab];
            const double one = ab == 0 || ab == 3 ? 1.0 : 0.0;
            gl[ab * nk + k] = I * r;
            gg[ab * nk + k] = -I * (one - r);
        }
}

void kbe_destroy(kbe *w)
{
    if (!w)
        return;
    free(w->eps);
    free(w->rho0);
    free(w->E);
    free(w->U);
    free(w->scratch);
    free(w->gl);
    free(w->gg);
    free(w->sl);
    free(w->sg);
    free(w->sr);
    free(w->il);
    free(w->ig);
    free(w->jl);
    free(w->jg);
    free(w->idiag);
    for (int t = 0; w->sw && t < w->nthreads; t++)
        kbe_sigma_work_destroy(w->sw[t]);
    free(w->sw);
    free(w->bbuf);
    free(w->greg);
    free(w->hblk);
    free(w->sblk);
    free(w->kbuf);
    free(w->tl);
    free(w->tg);
    kbe_slab_free(w);
    free(w);
}

size_t kbe_steps_done(const kbe *w) { return w->n; }

/* block (i, j), i >= j, of G^< (lesser) or G^> at every k: the storage's in one process,
 * gathered into w->whole + 4 nk_all * slot over ranks (collective) */
static const double complex *whole_block(const kbe *w, int lesser, size_t i, size_t j, int slot)
{
    if (!w->spec.gather)
        return kbe_block(w, lesser, i, j);
    double complex *b = w->whole + (size_t)slot * 4 * w->nk_all;
    kbe_slab_gather(w, kbe_block(w, lesser, i, j), 1, b, 1);
    return b;
}

void kbe_green(const kbe *w, int lesser, size_t i, size_t j, double complex *g)
{
    const size_t nk = w->nk_all;
    if (i >= j) {
        const double complex *b = whole_block(w, lesser, i, j, 0);
        for (size_t k = 0; k < nk; k++)
            for (int ab = 0; ab < 4; ab++)
                g[4 * k + ab] = b[ab * nk + k];
        return;
    }
    /* G(t_i, t_j) = -G(t_j, t_i)^dagger */
    const double complex *b = whole_block(w, lesser, j, i, 0);
    for (size_t k = 0; k < nk; k++)
        for (int a = 0; a < 2; a++)
            for (int c = 0; c < 2; c++)
                g[4 * k + 2 * a + c] = -conj(b[(2 * c + a) * nk + k]);
}

void kbe_density(const kbe *w, size_t n, double complex *rho)
{
    const size_t nk = w->nk_all;
    const double complex *b = whole_block(w, 1, n, n, 0);
    for (size_t k = 0; k < nk; k++)
        for (int ab = 0; ab < 4; ab++)
            rho[4 * k + ab] = -I * b[ab * nk + k];
}

/* rho_loc = -i (1/nk) sum_k b_k of a diagonal block b of G^< (every k, in k order) */
static void local_density_of(size_t nk, const double complex *b, double complex *rho_loc)
{
    for (int ab = 0; ab < 4; ab++) {
        double complex s = 0.0;
        for (size_t k = 0; k < nk; k++)
            s += b[ab * nk + k];
        rho_loc[ab] = -I * s / (double)nk;
    }
}

void kbe_local_density(const kbe *w, size_t n, double complex *rho_loc)
{
    local_density_of(w->nk_all, whole_block(w, 1, n, n, 0), rho_loc);
}

void kbe_fill_h(const kbe *w, double E, double U, const double complex *rho_loc,
                double complex *h)
{
    const size_t nk = w->spec.nk;
    const double f = E * w->spec.dipole;
    double complex s[4] = {0.0, 0.0, 0.0, 0.0};
    if (w->spec.selfenergy == KBE_SELFENERGY_HF || w->spec.selfenergy == KBE_SELFENERGY_2B) {
        /* Hartree-Fock, also in second Born */
        s[0] = U * creal(rho_loc[3]);
        s[3] = U * creal(rho_loc[0]);
        s[1] = -U * rho_loc[1];
        s[2] = -U * rho_loc[2];
    }
    for (size_t k = 0; k < nk; k++) {
        h[4 * k + 0] = w->eps[2 * k] + s[0];
        h[4 * k + 1] = f + s[1];
        h[4 * k + 2] = f + s[2];
        h[4 * k + 3] = w->eps[2 * k + 1] + s[3];
    }
}


/* the energies of every k (over ranks: gathered, then summed in k order as one process sums) */
void kbe_energies(const kbe *w, size_t n, double *e_band, double *e_field, double *e_int)
{
    kbe_spec all = w->spec;
    all.nk = w->nk_all;
    all.eps = w->spec.gather ? w->eps_all : w->eps;
    const double complex *b = whole_block(w, 1, n, n, 0), *idiag = NULL; /* I^<(t_n, t_n) */
    if (w->idiag && w->spec.gather) {
        double complex *d = w->whole + 4 * w->nk_all;
        kbe_slab_gather(w, w->idiag + n * 4 * w->spec.nk, 1, d, 1);
        idiag = d;
    } else if (w->idiag)
        idiag = w->idiag + n * 4 * w->nk_all;
    kbe_energies_of(&all, w->E[n], w->U[n], b, idiag, e_band, e_field, e_int);
}

int kbe_spec_check(const kbe_spec *s) { return check_spec(s); }

void kbe_energies_of(const kbe_spec *s, double E, double U, const double complex *b,
                     const double complex *idiag, double *e_band, double *e_field,
                     double *e_int)
{
    const size_t nk = s->nk;
    double complex rho_loc[4];
    local_density_of(nk, b, rho_loc);
    double band = 0.0, coh = 0.0, hf = 0.0, corr = 0.0;
    for (size_t k = 0; k < nk; k++) {
        const double complex r0 = -I * b[k], r1 = -I * b[nk + k], r2 = -I * b[2 * nk + k],
                             r3 = -I * b[3 * nk + k];
        band += s->eps[2 * k] * creal(r0) + s->eps[2 * k + 1] * creal(r3);
        coh += 2.0 * creal(r1);
        hf += creal(U * creal(rho_loc[3]) * r0 + U * creal(rho_loc[0]) * r3 -
                    U * rho_loc[1] * r2 - U * rho_loc[2] * r1);
        if (idiag)
            corr += creal(-I * (idiag[k] + idiag[3 * nk + k]));
    }
    *e_band = band;
    *e_field = E * s->dipole * coh;
    *e_int = s->selfenergy == KBE_SELFENERGY_NONE ? 0.0 : 0.5 * hf + 0.5 * corr;
}
