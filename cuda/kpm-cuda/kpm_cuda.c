/* kpm_cuda.c — the GPU kernel-polynomial-method fermion evaluator "kpm-cuda": the ops of
 * mcf/fermion.h on an NVIDIA GPU, with the parameters and the mathematics of the CPU
 * plugin kpm (plugins/kpm/kpm.c says what each op computes; kpm_core.h has the formulas).
 * The device layer is kpm_cuda_device.cu (kpm_cuda.h describes it).
 *
 *   Hamiltonian   each workspace keeps a device copy of its chain's Hamiltonian, brought
 *                 up to date before every op from the Hamiltonian's change journal: an
 *                 accepted move sends only its changed rows (for GFMC they ride along
 *                 with the next launch), anything the journal cannot name a full upload.
 *   dos           random vectors drawn on the device (Philox) from a seed taken from the
 *                 chain's stream, so runs are reproducible from the run's seed but the
 *                 vectors differ from the CPU plugin's; vectors = 0: the exact trace.
 *                 Reconstruction by batched cuFFT.
 *   ldos, green   unit vectors, `block` rows at a time; cuFFT.
 *   occupation    the DOS moments as for dos, integrated on the host (closed forms and
 *                 Gauss-Legendre, as kpm).
 *   delta_action  GFMC for the whole batch of chains in one kernel launch (Lorentz
 *                 kernel, energy_points nodes, optional two-point extrapolation), the
 *                 same estimator as kpm; the resolution warning as kpm's.
 *
 * Double precision throughout.  A machine without a usable device makes create() fail
 * with MCF_EDEVICE and the reason; [run] evaluator = auto then takes the CPU plugin
 * (the probe below says why). */
#include "mcf/mcf.h"

#include "kpm_core.h"
#include "kpm_cuda.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct kc_ws {
    const mcf_hamiltonian *h; /* borrowed */
    kpm_config cfg;
    int extrapolate;
    size_t M, N, R, block;
    kcu_ham *d;
    kcu_engine *eng;          /* created on first use */
    kcu_dct *dct;             /* batched cuFFT of `block` series, on first use */
    kcu_gfmc *gfmc;           /* on the first delta_action */
    kpm_dct *grid;            /* the host grid (energies) */
    double *g;                /* M kernel coefficients */
    double *mu_vec;           /* max(R, block) x M */
    double *mu;               /* M */
    double *fft_re, *fft_im;  /* block x N, for green */
    int scaled;
    uint64_t version;
    double a, b;
    double warned_T;
} kc_ws;

static void kc_destroy(void *p)
{
    kc_ws *w = p;
    if (!w)
        return;
    kcu_ham_destroy(w->d);
    kcu_engine_destroy(w->eng);
    kcu_dct_destroy(w->dct);
    kcu_gfmc_destroy(w->gfmc);
    kpm_dct_destroy(w->grid);
    free(w->g);
    free(w->mu_vec);
    free(w->mu);
    free(w->fft_re);
    free(w->fft_im);
    free(w);
}

static int kc_create(const mcf_params *params, const mcf_hamiltonian *h, void **out)
{
    *out = NULL;
    if (!h || h->dim < 1)
        return mcf_fail(MCF_EINVAL, "kpm-cuda: no Hamiltonian (or an empty one) was given");
    kpm_config c;
    int extrapolate = 0;
    int rc = kpm_config_read(params, &c, &extrapolate);
    if (!rc)
        rc = kpm_config_check(&c);
    if (rc)
        return mcf_fail_prefix(rc, "[%s] in %s", mcf_params_section(params),
                               mcf_params_origin(params));
    if ((rc = kcu_device_init()))
        return rc;
    if (h->dim > (size_t)INT32_MAX)
        return mcf_fail(MCF_EINVAL, "kpm-cuda: a Hamiltonian of dimension %zu is too large "
                        "(at most %d rows)", h->dim, INT32_MAX);
    kc_ws *w = calloc(1, sizeof *w);
    if (!w)
        return mcf_fail(MCF_ENOMEM, "kpm-cuda: out of memory for a workspace");
    w->h = h;
    w->cfg = c;
    w->extrapolate = extrapolate;
    w->M = (size_t)c.moments;
    w->N = kpm_config_points(&c);
    w->R = (size_t)c.vectors;
    w->block = (size_t)c.block;
    const size_t rows = w->R > w->block ? w->R : w->block;
    if ((rc = kcu_ham_create(h, &w->d)) || (rc = kpm_dct_create(w->N, w->M, &w->grid))) {
        kc_destroy(w);
        return rc;
    }
    w->g = malloc(w->M * sizeof *w->g);
    w->mu_vec = malloc(rows * w->M * sizeof *w->mu_vec);
    w->mu = malloc(w->M * sizeof *w->mu);
    if (!w->g || !w->mu_vec || !w->mu) {
        const size_t M = w->M;
        kc_destroy(w);
        return mcf_fail(MCF_ENOMEM, "kpm-cuda: out of memory for %zu x %zu moments", rows, M);
    }
    kpm_kernel_coefficients(c.kernel, c.lambda, w->M, w->g);
    *out = w;
    return MCF_OK;
}

/* a, b of the current Hamiltonian, and the device copy brought up to date */
static int kc_prepare(kc_ws *w)
{
    if (!w->scaled || w->version != w->h->version) {
        mcf_hamiltonian_scaling(w->h, w->cfg.margin, &w->a, &w->b);
        w->version = w->h->version;
        w->scaled = 1;
    }
    return kcu_ham_sync(w->d, w->h);
}

static int kc_need_engine(kc_ws *w)
{
    int rc = MCF_OK;
    if (!w->eng && (rc = kcu_engine_create(w->h->dim, w->block, &w->eng)))
        return rc;
    if (!w->dct && (rc = kcu_dct_create(w->N, w->M, w->block, &w->dct)))
        return rc;
    if (!w->fft_re) {
        w->fft_re = malloc(w->block * w->N * sizeof *w->fft_re);
        w->fft_im = malloc(w->block * w->N * sizeof *w->fft_im);
        if (!w->fft_re || !w->fft_im)
            return mcf_fail(MCF_ENOMEM, "kpm-cuda: out of memory");
    }
    return MCF_OK;
}

static size_t kc_energy_points(const void *p) { return ((const kc_ws *)p)->N; }

static int kc_energies(void *p, double *E)
{
    kc_ws *w = p;
    if (!w->scaled || w->version != w->h->version) {
        mcf_hamiltonian_scaling(w->h, w->cfg.margin, &w->a, &w->b);
        w->version = w->h->version;
        w->scaled = 1;
    }
    kpm_dct_energies(w->grid, w->a, w->b, E);
    return MCF_OK;
}

static int kc_check_batch(void *const *ws, size_t n, const char *what)
{
    for (size_t k = 0; k < n; k++)
        if (!ws[k])
            return mcf_fail(MCF_EINVAL, "kpm-cuda: %s: workspace %zu of the batch is NULL", what,
                            k);
    return MCF_OK;
}

/* the mean DOS moments of one workspace into w->mu: R random vectors from a seed drawn
 * from the chain's stream, or the exact trace over all rows (vectors = 0) */
static int kc_trace(kc_ws *w, mcf_rng *rng)
{
    int rc;
    if ((rc = kc_prepare(w)) || (rc = kc_need_engine(w)))
        return rc;
    const size_t M = w->M;
    if (w->R > 0) {
        const uint64_t seed = mcf_rng_u64(rng);
        if ((rc = kcu_random_moments(w->eng, w->d, w->a, w->b, (int)w->cfg.random, seed, w->R,
                                     M, w->mu_vec)))
            return rc;
        kpm_moments_mean(w->R, M, w->mu_vec, w->mu, NULL);
        return MCF_OK;
    }
    const size_t dim = w->h->dim, B = w->block;
    size_t rows[KPM_MAX_BLOCK];
    for (size_t n = 0; n < M; n++)
        w->mu[n] = 0.0;
    for (size_t r0 = 0; r0 < dim; r0 += B) {
        const size_t nb = dim - r0 < B ? dim - r0 : B;
        for (size_t j = 0; j < nb; j++)
            rows[j] = r0 + j;
        if ((rc = kcu_rows_moments(w->eng, w->d, w->a, w->b, rows, nb, M, w->mu_vec)))
            return rc;
        for (size_t j = 0; j < nb; j++)
            for (size_t n = 0; n < M; n++)
                w->mu[n] += w->mu_vec[j * M + n];
    }
    for (size_t n = 0; n < M; n++)
        w->mu[n] /= (double)dim;
    return MCF_OK;
}

static int kc_dos(void *const *ws, size_t n, mcf_rng *const *rngs, double *const *dos)
{
    int rc = kc_check_batch(ws, n, "dos");
    if (rc)
        return rc;
    if (n && !rngs)
        return mcf_fail(MCF_EINVAL, "kpm-cuda: dos: the stochastic trace needs the chains' "
                        "random streams, but rngs is NULL");
    for (size_t k = 0; k < n; k++) {
        kc_ws *w = ws[k];
        if ((rc = kc_trace(w, rngs[k])) ||
            (rc = kcu_dct_density(w->dct, w->mu, 1, w->g, w->a, dos[k])))
            return mcf_fail_prefix(rc, "kpm-cuda: dos of workspace %zu", k);
    }
    return MCF_OK;
}

/* LDOS or Green's functions of rows, `block` rows at a time, one batched FFT each */
static int kc_rows(void *const *ws, size_t n, const size_t *const *rows, size_t n_rows,
                   double *const *out, double *const *re, double *const *im, const char *what)
{
    int rc = kc_check_batch(ws, n, what);
    if (rc)
        return rc;
    for (size_t k = 0; k < n; k++) {
        kc_ws *w = ws[k];
        if ((rc = kc_prepare(w)) || (rc = kc_need_engine(w)))
            return mcf_fail_prefix(rc, "kpm-cuda: %s of workspace %zu", what, k);
        const size_t P = w->N, M = w->M;
        for (size_t r0 = 0; r0 < n_rows; r0 += w->block) {
            const size_t nb = n_rows - r0 < w->block ? n_rows - r0 : w->block;
            rc = kcu_rows_moments(w->eng, w->d, w->a, w->b, rows[k] + r0, nb, M, w->mu_vec);
            if (!rc && out)
                rc = kcu_dct_density(w->dct, w->mu_vec, nb, w->g, w->a, out[k] + r0 * P);
            if (!rc && !out) {
                rc = kcu_dct_green(w->dct, w->mu_vec, nb, w->g, w->a, w->fft_re, w->fft_im);
                if (!rc) {
                    memcpy(re[k] + r0 * P, w->fft_re, nb * P * sizeof(double));
                    memcpy(im[k] + r0 * P, w->fft_im, nb * P * sizeof(double));
                }
            }
            if (rc)
                return mcf_fail_prefix(rc, "kpm-cuda: %s of workspace %zu", what, k);
        }
    }
    return MCF_OK;
}

static int kc_ldos(void *const *ws, size_t n, const size_t *const *rows, size_t n_rows,
                   double *const *out)
{
    return kc_rows(ws, n, rows, n_rows, out, NULL, NULL, "ldos");
}

static int kc_green(void *const *ws, size_t n, const size_t *const *rows, size_t n_rows,
                    double *const *re, double *const *im)
{
    return kc_rows(ws, n, rows, n_rows, NULL, re, im, "green");
}

static int kc_occupation(void *const *ws, size_t n, mcf_rng *const *rngs, double mu, double T,
                         double *density, double *energy)
{
    int rc = kc_check_batch(ws, n, "occupation");
    if (rc)
        return rc;
    if (n && !rngs)
        return mcf_fail(MCF_EINVAL, "kpm-cuda: occupation: the stochastic trace needs the "
                        "chains' random streams, but rngs is NULL");
    for (size_t k = 0; k < n; k++) {
        kc_ws *w = ws[k];
        if ((rc = kc_trace(w, rngs[k])) ||
            (rc = kpm_occupation(w->mu, w->g, w->M, w->a, w->b, mu, T, density + k,
                                 energy + k)))
            return mcf_fail_prefix(rc, "kpm-cuda: occupation of workspace %zu", k);
    }
    return MCF_OK;
}

/* GFMC for the whole batch in one launch */
static int kc_delta_action(void *const *ws, size_t n, const mcf_local_change *const *changes,
                           const double *T, const double *mu, double *dS)
{
    int rc = kc_check_batch(ws, n, "delta_action");
    if (rc)
        return rc;
    kcu_gfmc_job stack_jobs[32];
    kcu_gfmc_job *jobs = n <= 32 ? stack_jobs : malloc(n * sizeof *jobs);
    if (!jobs)
        return mcf_fail(MCF_ENOMEM, "kpm-cuda: out of memory for %zu GFMC jobs", n);
    for (size_t k = 0; k < n && !rc; k++) {
        kc_ws *w = ws[k];
        if (!w->scaled || w->version != w->h->version) {
            mcf_hamiltonian_scaling(w->h, w->cfg.margin, &w->a, &w->b);
            w->version = w->h->version;
            w->scaled = 1;
        }
        if ((rc = mcf_local_change_check(changes[k], w->h->dim))) {
            rc = mcf_fail_prefix(rc, "kpm-cuda: delta_action of workspace %zu", k);
            break;
        }
        if (!(T[k] > 0) || !isfinite(T[k]) || !isfinite(mu[k])) {
            rc = mcf_fail(MCF_EINVAL, "kpm-cuda: delta_action of workspace %zu: temperature "
                          "T = %g must be finite and > 0, and mu = %g finite", k, T[k], mu[k]);
            break;
        }
        if (!w->gfmc && (rc = kcu_gfmc_create(w->h->dim, w->M, (size_t)w->cfg.points,
                                              w->cfg.lambda, w->extrapolate, &w->gfmc))) {
            rc = mcf_fail_prefix(rc, "kpm-cuda: delta_action of workspace %zu", k);
            break;
        }
        /* the Lorentz kernel's resolution lambda a / M, as in kpm */
        const double M_res = (double)w->M;
        kpm_gfmc_warn_resolution(w->cfg.lambda * w->a / M_res, T[k], w->M, w->extrapolate,
                                 &w->warned_T, "kpm-cuda");
        jobs[k] = (kcu_gfmc_job){.g = w->gfmc, .d = w->d, .h = w->h, .a = w->a, .b = w->b,
                                 .T = T[k], .mu = mu[k], .change = changes[k]};
    }
    if (!rc)
        rc = kcu_gfmc_run(jobs, n, dS, NULL, NULL);
    if (jobs != stack_jobs)
        free(jobs);
    return rc;
}

static int kc_probe(char *why, size_t len) { return kcu_probe(why, len); }

static const mcf_fermion_ops kc_ops = {
    .struct_size = sizeof(mcf_fermion_ops),
    .create = kc_create,
    .destroy = kc_destroy,
    .energy_points = kc_energy_points,
    .energies = kc_energies,
    .dos = kc_dos,
    .ldos = kc_ldos,
    .green = kc_green,
    .occupation = kc_occupation,
    .delta_action = kc_delta_action,
};

static const mcf_plugin_info kc_info = {
    .abi_version = MCF_ABI_VERSION,
    .struct_size = sizeof(mcf_plugin_info),
    .kind = MCF_PLUGIN_FERMION_EVALUATOR,
    .name = "kpm-cuda",
    .version = "1.0",
    .summary = "kernel polynomial method on an NVIDIA GPU (CUDA, cuFFT, cuRAND): DOS, LDOS, "
               "Green's functions, occupations, and GFMC action changes of a whole batch of "
               "chains in one kernel launch; the parameters of kpm",
    .params = kpm_param_specs,
    .ops = &kc_ops,
    .auto_priority = 20, /* before kpm (10) when a device is present */
    .probe = kc_probe,
};

MCF_PLUGIN(kc_info)
