/* kpm_cuda.c — the GPU kernel-polynomial-method fermion evaluator "kpm-cuda": the ops of
 * mcf/fermion.h (ABI 2) on an NVIDIA GPU, with the parameters and the mathematics of the
 * CPU plugin kpm (plugins/kpm/kpm.c says what each op computes; kpm_core.h has the
 * formulas).  The ops themselves (batches, scaling, the traces, row blocks, occupation, the
 * real axis's preamble) are kpm's, one table shared through plugins/kpm/kpm_ops.h; this
 * file is their device backend over the device layer (kpm_cuda.h describes it), handed to
 * the table as the descriptor's app_data, and the plugin's declaration: kpm's parameters
 * and four of its own, how the GFMC kernel may run (gfmc_blocks, gfmc_fft, gfmc_on_chip,
 * gfmc_recursion; kc_param_specs below), read by the backend's init into the workspace's
 * settings and handed to every GFMC launch.  What a batch's launches need on the host (the
 * job list, the error bounds, the trace jobs' moment pointers) is kept in a keep slot of
 * the batch (kc_batch below), not in a workspace.
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
 *   occupation_dT Gauss-Legendre, as kpm; occupation_dT adds the T-derivatives of the same
 *                 moments, as kpm).
 *   change_action GFMC on the contour (gfmc = contour, the default; kpm_core.h): for
 *                 changes of rank <= 2 (every single-site move of the models here) the
 *                 Chebyshev recursion of the whole batch in one kernel launch that ends
 *                 after the moments (kcu_gfmc_moments), the contour finished per chain on
 *                 the host's cores as kpm does (the same code, so the same bits given the
 *                 moments); larger changes entirely on the host.  gfmc = real-axis: the
 *                 seed thesis's method in one launch per batch (Lorentz kernel,
 *                 energy_points nodes, optional two-point extrapolation), as kpm's.
 *   action        kpm's (vectors = 0 required): the exact trace by device unit-vector
 *                 moments, once per workspace and call, then the plain Chebyshev series of
 *                 every point on the host (kpm_action_series); err = dim times the dropped
 *                 coefficients' magnitudes.  Equal to kpm's up to the moments' rounding.
 *   response      the vectors drawn on the host as kpm draws them (the same vectors, so
 *                 the same estimate up to rounding); per pass of vectors the Chebyshev
 *                 recursions on the device and the M^2 inner products as batched ZGEMM
 *                 (kpm_cuda_response.cu); the current operators uploaded whole each call.
 *   vector_moments each vector's recursion on the device to n = M / 2 and the doubling
 *                 identities (kpm_cuda_vmoments.cu), passes of 64 vectors; exact, equal
 *                 to kpm's host recursion up to rounding.
 *
 * Double precision throughout.  A machine without a usable device makes create() fail
 * with MCF_EDEVICE and the reason; [run] evaluator = auto then takes the CPU plugin
 * (the probe below says why). */
#include "mcf/mcf.h"

#include "kpm_core.h"
#include "kpm_cuda.h"
#include "kpm_ops.h"

#include <stdlib.h>
#include <string.h>

typedef struct kc_ws {
    kpm_ops_ws base;          /* first: the shared head (base.grid: the host grid) */
    kcu_ham *d;
    kcu_engine *eng;          /* created on first use */
    kcu_dct *dct;             /* batched cuFFT of `block` series, on first use */
    kcu_gfmc *gfmc;           /* on the first change_action on the real axis or by device */
    double *fft_re, *fft_im;  /* block x N, for green */
    kcu_gfmc_settings gfmc_settings; /* from [evaluator] (a launch takes its first
                                        workspace's: the keys cannot be scanned, so every
                                        chain has the same) */
    kcu_traces *traces;       /* the trace jobs' scratch (small lattices), on first use */
    kcu_series *series;       /* density_matrix's series scratch, on first use */
    kcu_pf *pf;               /* pseudofermion's gradient scratch, on first use */
    double *trace_mu;         /* host: their moments, 4 sets of M per job */
    kcu_ham *resp_a, *resp_b; /* response: device copies of its operators, on first use */
    kcu_response *resp;       /* response: its scratch, for resp_M moments, resp_R vectors */
    kcu_vmoments *vm;         /* vector_moments: its scratch, for up to vm_M moments */
    size_t vm_M;
    size_t resp_M, resp_R;
} kc_ws;

/* What kpm-cuda keeps per batch, in the batch's keep slot (mcf_batch_keep): the host side
 * of the batch's launches, grown with the batch (realloc) so that a step allocates nothing,
 * freed by kc_batch_release when the core destroys the batch. */
typedef struct kc_batch {
    kcu_gfmc_job *jobs;       /* the launch's job list */
    size_t jobs_cap;
    double *contour_errs;     /* the contour's error bounds, one per job */
    double **trace_dmu;       /* the trace jobs' moment pointers */
    size_t trace_dmu_cap;
} kc_batch;

static const char kc_batch_owner; /* its address: the key of kpm-cuda's slot */

static void kc_batch_release(void *slot)
{
    kc_batch *kb = slot;
    free(kb->jobs);
    free(kb->contour_errs);
    free(kb->trace_dmu);
}

/* the batch's kc_batch into *kb (zeroed on the first call) */
static int kc_batch_of(mcf_batch *b, kc_batch **kb)
{
    *kb = b ? mcf_batch_keep(b, &kc_batch_owner, sizeof **kb, kc_batch_release) : NULL;
    if (*kb)
        return MCF_OK;
    return b ? mcf_fail_prefix(MCF_ENOMEM, "kpm-cuda: the batch's job list")
             : mcf_fail(MCF_EINVAL, "kpm-cuda: a launch was asked for without its batch "
                        "(mcf_batch: it keeps the launch's job list)");
}

/* ---- the backend of kpm_ops (kpm_ops.h) ----------------------------------------------- */

/* after the scaling: the device copy brought up to date, the engine and plan on first use */
static int kc_prepare(kpm_ops_ws *b)
{
    kc_ws *w = (kc_ws *)b;
    int rc = kcu_ham_sync(w->d, b->h);
    if (rc)
        return rc;
    if (!w->eng && (rc = kcu_engine_create(b->h->dim, b->block, &w->eng)))
        return rc;
    if (!w->dct && (rc = kcu_dct_create(b->N, b->M, b->block, &w->dct)))
        return rc;
    if (!w->fft_re) {
        w->fft_re = malloc(b->block * b->N * sizeof *w->fft_re);
        w->fft_im = malloc(b->block * b->N * sizeof *w->fft_im);
        if (!w->fft_re || !w->fft_im)
            return mcf_fail(MCF_ENOMEM, "kpm-cuda: out of memory");
    }
    return MCF_OK;
}

/* R random vectors on the device from ONE seed drawn from the chain's stream */
static int kc_random_moments(kpm_ops_ws *b, mcf_rng *rng)
{
    kc_ws *w = (kc_ws *)b;
    const uint64_t seed = mcf_rng_u64(rng);
    return kcu_random_moments(w->eng, w->d, b->a, b->b, (int)b->cfg.random, seed, b->R, b->M,
                              b->mu_vec);
}

/* density_matrix's series on the device (kcu_series_apply; d synced by kc_prepare) */
static int kc_series(kpm_ops_ws *b, const double *c, size_t Mf, size_t nb, double *x,
                     double *y)
{
    kc_ws *w = (kc_ws *)b;
    int rc;
    if (!w->series && (rc = kcu_series_create(b->h->dim, b->block, &w->series)))
        return rc;
    return kcu_series_apply(w->series, w->d, b->a, b->b, c, Mf, nb, x, y);
}

/* the workspace's pseudofermion scratch (block / 2 flavours), created on first use */
static int kc_pf_need(kpm_ops_ws *b)
{
    kc_ws *w = (kc_ws *)b;
    const size_t most = b->block / 2 ? b->block / 2 : 1;
    return w->pf ? MCF_OK : kcu_pf_create(b->h->dim, b->h->width, most, &w->pf);
}

/* pseudofermion's gradient on the device (kcu_pf_gradient) */
static int kc_series_grad(kpm_ops_ws *b, const double *c, size_t Mf, size_t nb, double *x,
                          double *y, double *gd, double *gre, double *gim)
{
    kc_ws *w = (kc_ws *)b;
    const int rc = kc_pf_need(b);
    if (rc)
        return rc;
    return kcu_pf_gradient(w->pf, w->d, b->h, b->a, b->b, c, Mf, nb, x, y, gd, gre, gim);
}

/* several chains' series or gradients in cooperative launches (kcu_pf_batch); the jobs it
 * leaves go one by one through kc_series and kc_series_grad */
static int kc_series_batch(kpm_series_job *jobs, size_t n, size_t nb)
{
    kcu_pf_job *pj = calloc(n, sizeof *pj);
    if (!pj)
        return mcf_fail(MCF_ENOMEM, "kpm-cuda: out of memory");
    int rc = MCF_OK;
    for (size_t k = 0; !rc && k < n; k++) {
        kpm_ops_ws *b = jobs[k].w;
        kc_ws *w = (kc_ws *)b;
        if ((rc = kc_pf_need(b)))
            break;
        pj[k] = (kcu_pf_job){.s = w->pf, .d = w->d, .h = b->h, .a = b->a, .b = b->b,
                             .c = jobs[k].c, .M = jobs[k].M, .x = jobs[k].x, .y = jobs[k].y,
                             .gd = jobs[k].gd, .gre = jobs[k].gre, .gim = jobs[k].gim};
    }
    if (!rc)
        rc = kcu_pf_batch(pj, n, nb);
    for (size_t k = 0; !rc && k < n; k++)
        jobs[k].done = pj[k].done;
    free(pj);
    return rc;
}

static int kc_rows_moments(kpm_ops_ws *b, const size_t *rows, size_t nb)
{
    kc_ws *w = (kc_ws *)b;
    return kcu_rows_moments(w->eng, w->d, b->a, b->b, rows, nb, b->M, b->mu_vec);
}

static int kc_density(kpm_ops_ws *b, const double *mu, size_t nb, double *out)
{
    return kcu_dct_density(((kc_ws *)b)->dct, mu, nb, b->g, b->a, out);
}

/* one batched FFT into the host scratch, then copied out */
static int kc_green(kpm_ops_ws *b, const double *mu, size_t nb, double *re, double *im)
{
    kc_ws *w = (kc_ws *)b;
    int rc = kcu_dct_green(w->dct, mu, nb, b->g, b->a, w->fft_re, w->fft_im);
    if (!rc) {
        memcpy(re, w->fft_re, nb * b->N * sizeof(double));
        memcpy(im, w->fft_im, nb * b->N * sizeof(double));
    }
    return rc;
}

static int kc_gfmc_need(kpm_ops_ws *b)
{
    kc_ws *w = (kc_ws *)b;
    if (w->gfmc)
        return MCF_OK;
    return kcu_gfmc_create(b->h->dim, b->M, (size_t)b->cfg.points, b->cfg.lambda,
                           b->extrapolate, &w->gfmc);
}

/* the batch's job list for n jobs (and as many error bounds): grown, never shrunk */
static int kc_jobs_reserve(kc_batch *kb, size_t n)
{
    if (kb->jobs_cap >= n)
        return MCF_OK;
    kcu_gfmc_job *jobs = realloc(kb->jobs, n * sizeof *jobs);
    if (jobs)
        kb->jobs = jobs;
    double *errs = realloc(kb->contour_errs, n * sizeof *errs);
    if (errs)
        kb->contour_errs = errs;
    if (!jobs || !errs)
        return mcf_fail(MCF_ENOMEM, "kpm-cuda: out of memory for %zu GFMC jobs", n);
    kb->jobs_cap = n;
    return MCF_OK;
}

/* GFMC for the whole batch in one launch (the changes, T and mu were checked by the
 * preamble: kcu_gfmc_run expects them checked) */
static int kc_gfmc_batch(mcf_batch *b, void *const *ws, size_t n,
                         const mcf_local_change *const *changes, const double *T,
                         const double *mu, double *dS)
{
    if (n == 0)
        return MCF_OK;
    kc_batch *kb;
    int rc = kc_batch_of(b, &kb);
    if (rc || (rc = kc_jobs_reserve(kb, n)))
        return rc;
    for (size_t k = 0; k < n; k++) {
        kc_ws *w = ws[k];
        kb->jobs[k] = (kcu_gfmc_job){.g = w->gfmc, .d = w->d, .h = w->base.h, .a = w->base.a,
                                     .b = w->base.b, .T = T[k], .mu = mu[k],
                                     .change = changes[k]};
    }
    const kc_ws *w0 = ws[0];
    return kcu_gfmc_run(kb->jobs, n, &w0->gfmc_settings, dS, NULL, NULL, NULL);
}

/* The batch's contour jobs into kb: each change in the kernel's form with its scaling
 * (kpm_ops put them in the head); with T and mu the whole contour (each plan too),
 * without them the moments only. */
static int kc_contour_jobs(kc_batch *kb, void *const *ws, size_t n, const double *T,
                           const double *mu)
{
    int rc = kc_jobs_reserve(kb, n);
    for (size_t k = 0; !rc && k < n; k++) {
        kc_ws *w = ws[k];
        if ((rc = kc_gfmc_need(&w->base)))
            break;
        kb->jobs[k] = (kcu_gfmc_job){.g = w->gfmc, .d = w->d, .h = w->base.h,
                                     .a = w->base.contour_a, .b = w->base.contour_b,
                                     .T = T ? T[k] : 1.0, .mu = mu ? mu[k] : 0.0,
                                     .change = &w->base.contour_local,
                                     .contour = T ? &w->base.contour_plan : NULL};
    }
    return rc;
}

/* GFMC on the contour: the recursion of the whole batch in one launch that ends after the
 * moments (kcu_gfmc_moments); kpm_ops finishes each chain's contour on the host and has put
 * each change, in the kernel's form, its scaling and the moments' place in the head. */
static int kc_contour_moments(mcf_batch *b, void *const *ws, size_t n)
{
    if (n == 0)
        return MCF_OK;
    const kc_ws *w0 = ws[0];
    kc_batch *kb;
    int rc = kc_batch_of(b, &kb);
    if (rc || (rc = kc_contour_jobs(kb, ws, n, NULL, NULL)))
        return rc;
    double *dmu[n];
    for (size_t k = 0; k < n; k++)
        dmu[k] = ((kc_ws *)ws[k])->base.contour_dmu;
    return kcu_gfmc_moments(kb->jobs, n, &w0->gfmc_settings, dmu, NULL);
}

/* GFMC on the contour, all of it in one launch: each workspace's change in the older form,
 * its scaling and its plan (the ellipse, the enclosed poles) are in the head; dS, and the
 * bound into each head's contour_err */
static int kc_contour_action(mcf_batch *b, void *const *ws, size_t n, const double *T,
                             const double *mu, double *dS)
{
    if (n == 0)
        return MCF_OK;
    const kc_ws *w0 = ws[0];
    kc_batch *kb;
    int rc = kc_batch_of(b, &kb);
    if (rc || (rc = kc_contour_jobs(kb, ws, n, T, mu)) ||
        (rc = kcu_gfmc_contour(kb->jobs, n, &w0->gfmc_settings, dS, kb->contour_errs, NULL)))
        return rc;
    for (size_t k = 0; k < n; k++)
        ((kc_ws *)ws[k])->base.contour_err = kb->contour_errs[k];
    return MCF_OK;
}

/* The traces of a batch of small lattices in ONE launch (kpm_ops' traces): every
 * workspace with at most KC_TRACE_ROWS rows and KC_TRACE_JOBS jobs of 4 vectors (the R
 * random vectors, or the dim unit vectors of the exact trace) becomes that many moments-only
 * jobs of the GFMC kernel (kcu_gfmc_moments with start vectors: one block per job, the
 * recursion by vector), where one launch per Chebyshev step and chain (the engine) would
 * spend its time launching.  Random vectors as kc_random_moments draws them (one seed from
 * the chain's stream; the same Philox entries), so only the order of the sums differs;
 * the exact trace sums the rows in ascending order as kpm_ops does.  Larger lattices are
 * left to the engine (done[k] = 0). */
#define KC_TRACE_ROWS 4096
#define KC_TRACE_JOBS 256

static size_t kc_trace_jobs(const kpm_ops_ws *b)
{
    const size_t V = b->R ? b->R : b->h->dim;
    return (V + KCU_JOB_VECTORS - 1) / KCU_JOB_VECTORS;
}

static int kc_traces(mcf_batch *batch, void *const *ws, size_t n, mcf_rng *const *rngs,
                     unsigned char *done)
{
    size_t total = 0, M0 = 0;
    int rc = MCF_OK;
    unsigned char take[n ? n : 1];
    for (size_t k = 0; k < n; k++) {
        kc_ws *w = ws[k];
        const size_t J = kc_trace_jobs(&w->base);
        take[k] = 0;
        if (done[k] || w->base.h->dim > KC_TRACE_ROWS || J > KC_TRACE_JOBS ||
            (M0 && w->base.M != M0) || (w->base.R && !rngs))
            continue;
        if (!w->traces) {
            if ((rc = kcu_traces_create(w->base.h->dim, w->base.M, J, &w->traces)))
                return rc;
            w->trace_mu = malloc(J * KCU_JOB_VECTORS * w->base.M * sizeof *w->trace_mu);
            if (!w->trace_mu)
                return mcf_fail(MCF_ENOMEM, "kpm-cuda: out of memory for trace moments");
        }
        M0 = w->base.M;
        take[k] = 1;
        total += J;
    }
    if (!total)
        return MCF_OK;
    kc_batch *kb;
    if ((rc = kc_batch_of(batch, &kb)) || (rc = kc_jobs_reserve(kb, total)))
        return rc;
    if (kb->trace_dmu_cap < total) {
        double **p = realloc(kb->trace_dmu, total * sizeof *p);
        if (!p)
            return mcf_fail(MCF_ENOMEM, "kpm-cuda: out of memory for %zu trace jobs", total);
        kb->trace_dmu = p;
        kb->trace_dmu_cap = total;
    }
    const kc_ws *w0 = ws[0];
    size_t q = 0;
    for (size_t k = 0; k < n; k++) {
        if (!take[k])
            continue;
        kc_ws *w = ws[k];
        const kpm_ops_ws *b = &w->base;
        const size_t V = b->R ? b->R : b->h->dim, J = kc_trace_jobs(b), M = b->M;
        const uint64_t seed = b->R ? mcf_rng_u64(rngs[k]) : 0;
        const int start = !b->R ? KCU_START_UNITS
                          : b->cfg.random == KPM_RANDOM_GAUSSIAN ? KCU_START_GAUSS
                                                                 : KCU_START_PHASES;
        for (size_t i = 0; i < J; i++, q++) {
            kcu_gfmc_job *j = kb->jobs + q;
            *j = (kcu_gfmc_job){.g = kcu_traces_job(w->traces, i), .d = w->d, .h = b->h,
                                .a = b->a, .b = b->b, .T = 1.0, .mu = 0.0, .start = start,
                                .seed = seed, .first = KCU_JOB_VECTORS * i};
            for (int v = 0; v < KCU_JOB_VECTORS; v++) {
                const size_t r = KCU_JOB_VECTORS * i + (size_t)v;
                j->start_row[v] = r < V ? (int32_t)r : -1;
                j->start_n += r < V;
            }
            kb->trace_dmu[q] = w->trace_mu + i * KCU_JOB_VECTORS * M;
        }
    }
    if ((rc = kcu_gfmc_moments(kb->jobs, total, &w0->gfmc_settings, kb->trace_dmu, NULL)))
        return rc;
    for (size_t k = 0; k < n; k++) {
        if (!take[k])
            continue;
        kc_ws *w = ws[k];
        kpm_ops_ws *b = &w->base;
        const size_t M = b->M, dim = b->h->dim;
        /* vector r's moments are set r % 4 of job r / 4: at trace_mu[r M]; the exact trace
         * is their mean over the rows (summed in ascending order, as kpm_ops does) */
        if (b->R) {
            for (size_t r = 0; r < b->R; r++)
                for (size_t m = 0; m < M; m++)
                    b->mu_vec[r * M + m] = w->trace_mu[r * M + m] / (double)dim;
        } else {
            kpm_moments_mean(dim, M, w->trace_mu, b->mu, NULL);
        }
        done[k] = 1;
    }
    return MCF_OK;
}

/* refuses early: no usable device, or more rows than the device layer indexes */
static int kc_admit(const mcf_hamiltonian *h)
{
    int rc = kcu_device_init();
    if (rc)
        return rc;
    if (h->dim > (size_t)INT32_MAX)
        return mcf_fail(MCF_EINVAL, "kpm-cuda: a Hamiltonian of dimension %zu is too large "
                        "(at most %d rows)", h->dim, INT32_MAX);
    return MCF_OK;
}

/* How the GFMC kernel may run: the device keys (kc_param_specs) into *s.  gfmc_blocks:
 * auto (0), then 2^(index - 1) blocks; gfmc_recursion: auto, by-row (the order of their
 * choices). */
static int kc_settings(const mcf_params *params, kcu_gfmc_settings *s)
{
    enum { KC_RECURSION_AUTO, KC_RECURSION_BY_ROW };
    int blocks, recursion, rc;
    *s = (kcu_gfmc_settings)KCU_GFMC_SETTINGS_DEFAULT;
    if ((rc = mcf_params_choice(params, "gfmc_blocks", &blocks)) ||
        (rc = mcf_params_choice(params, "gfmc_recursion", &recursion)) ||
        (rc = mcf_params_bool(params, "gfmc_fft", &s->fft)) ||
        (rc = mcf_params_bool(params, "gfmc_on_chip", &s->shared_vectors)))
        return rc;
    s->blocks_per_chain = blocks ? 1 << (blocks - 1) : 0;
    s->by_vector = recursion != KC_RECURSION_BY_ROW;
    return MCF_OK;
}

/* response's sums on the device (kcu_response_sums): H synced by its journal, the
 * operators uploaded whole (a model rebuilds them at each measurement), one device copy when
 * A is B; the scratch kept while M and R stay */
static int kc_response(kpm_ops_ws *b, const mcf_hamiltonian *A, const mcf_hamiltonian *B,
                       double a, double bb, size_t M, size_t R, const kpm_vector_source *src,
                       double *sum_re, double *sum_im, double *sum_sq)
{
    kc_ws *w = (kc_ws *)b;
    int rc = kcu_ham_sync(w->d, b->h);
    if (!rc)
        rc = kcu_ham_load(&w->resp_a, A);
    if (!rc && B != A)
        rc = kcu_ham_load(&w->resp_b, B);
    if (!rc && (!w->resp || w->resp_M != M || w->resp_R != R)) {
        kcu_response_destroy(w->resp);
        w->resp = NULL;
        rc = kcu_response_create(b->h->dim, M, R, NULL, &w->resp);
        w->resp_M = M;
        w->resp_R = R;
    }
    if (rc)
        return mcf_fail_prefix(rc, "kpm-cuda: response");
    return kcu_response_sums(w->resp, w->d, w->resp_a, B != A ? w->resp_b : w->resp_a, a, bb,
                             R, src->fill, src->ctx, sum_re, sum_im, sum_sq, NULL);
}

/* vector_moments on the device (kcu_vmoments_run): H synced by its journal, the scratch
 * kept while M fits */
static int kc_vector_moments(kpm_ops_ws *b, double a, double bb, size_t M, size_t nv,
                             const double *v, double *mu)
{
    kc_ws *w = (kc_ws *)b;
    int rc = kcu_ham_sync(w->d, b->h);
    if (!rc && (!w->vm || w->vm_M < M)) {
        kcu_vmoments_destroy(w->vm);
        w->vm = NULL;
        rc = kcu_vmoments_create(b->h->dim, M, &w->vm);
        w->vm_M = rc ? 0 : M;
    }
    if (!rc)
        rc = kcu_vmoments_run(w->vm, w->d, a, bb, M, nv, v, mu);
    return rc ? mcf_fail_prefix(rc, "kpm-cuda: vector_moments") : MCF_OK;
}

/* the device keys, and the device copy of the Hamiltonian (engine and plans come on first
 * use) */
static int kc_init(kpm_ops_ws *b, const mcf_params *params)
{
    kc_ws *w = (kc_ws *)b;
    int rc = kc_settings(params, &w->gfmc_settings);
    return rc ? rc : kcu_ham_create(b->h, &w->d);
}

static void kc_release(kpm_ops_ws *b)
{
    kc_ws *w = (kc_ws *)b;
    kcu_ham_destroy(w->d);
    kcu_engine_destroy(w->eng);
    kcu_dct_destroy(w->dct);
    kcu_gfmc_destroy(w->gfmc);
    free(w->fft_re);
    free(w->fft_im);
    kcu_traces_destroy(w->traces);
    free(w->trace_mu);
    kcu_series_destroy(w->series);
    kcu_pf_destroy(w->pf);
    kcu_ham_destroy(w->resp_a);
    kcu_ham_destroy(w->resp_b);
    kcu_response_destroy(w->resp);
    kcu_vmoments_destroy(w->vm);
}

/* the descriptor's app_data: what the shared evaluator calls for the device */
static const kpm_backend kc_backend = {
    .name = "kpm-cuda",
    .size = sizeof(kc_ws),
    .admit = kc_admit,
    .init = kc_init,
    .release = kc_release,
    .check_changes = 1, /* kcu_gfmc_run expects checked changes */
    .prepare = kc_prepare,
    .random_moments = kc_random_moments,
    .rows_moments = kc_rows_moments,
    .density = kc_density,
    .green = kc_green,
    .gfmc_need = kc_gfmc_need,
    .gfmc_batch = kc_gfmc_batch,
    .traces = kc_traces,
    .contour_moments = kc_contour_moments,
    .contour_action = kc_contour_action,
    .series = kc_series,
    .series_gradient = kc_series_grad,
    .series_batch = kc_series_batch,
    .response = kc_response,
    .vector_moments = kc_vector_moments,
};

/* ---- the plugin: kpm's evaluator over the backend, and the device keys ---------------- */

/* kpm's parameters, then how the GFMC kernel may run (kcu_gfmc_settings).  At their
 * defaults these keys are not written into config.ini (MCF_PARAM_ECHO_IF_CHANGED), so
 * checkpoints written before they existed still resume. */
static const mcf_param_spec kc_param_specs[] = {
    KPM_PARAM_SPEC_ENTRIES
    {"gfmc_blocks", MCF_PARAM_CHOICE, "auto", MCF_PARAM_NO_SCAN | MCF_PARAM_ECHO_IF_CHANGED, 0,
     0, "auto|1|2|4|8|16",
     .doc = "thread blocks working on one chain in the GFMC kernel (a thread-block cluster): auto "
     "picks them from the lattice size and the number of chains; other values change the "
     "order of the sums, so results differ in the last digits"},
    {"gfmc_fft", MCF_PARAM_BOOL, "true", MCF_PARAM_NO_SCAN | MCF_PARAM_ECHO_IF_CHANGED, 0, 0,
     NULL,
     .doc = "GFMC on the GPU: sum the Chebyshev series of the Green's functions at the "
     "energy nodes "
     "by an FFT in shared memory where it fits and energy_points is a power of 2; false: by "
     "Horner's rule at every node (results differ in the last digits)"},
    {"gfmc_on_chip", MCF_PARAM_BOOL, "true", MCF_PARAM_NO_SCAN | MCF_PARAM_ECHO_IF_CHANGED, 0,
     0, NULL,
     .doc = "GFMC on the GPU: keep the Chebyshev vectors on the chip, in the thread blocks' shared "
     "memory, where they fit (small lattices); false: in device memory.  Speed only: the "
     "same results"},
    {"gfmc_recursion", MCF_PARAM_CHOICE, "auto",
     MCF_PARAM_NO_SCAN | MCF_PARAM_ECHO_IF_CHANGED, 0, 0, "auto|by-row",
     .doc = "GFMC on the GPU: auto runs the Chebyshev recursion of lattices up to 64 rows by "
     "vector "
     "(each warp one vector, no block barrier) and larger ones by row; by-row: always by row "
     "(the block's threads share the rows).  Speed only, but the sums differ in the last "
     "digits"},
    {0}};

static int kc_probe(char *why, size_t len) { return kcu_probe(why, len); }

/* the shared evaluator reads the backend, never writes it (app_data is not const) */
MCF_PLUGIN_DESCRIPTOR(MCF_PLUGIN_FERMION_EVALUATOR, "kpm-cuda", "1.0",
                      "kernel polynomial method on an NVIDIA GPU (CUDA, cuFFT, cuRAND): DOS, "
                      "LDOS, Green's functions, occupations, and GFMC action changes of a whole "
                      "batch of chains in one kernel launch; the parameters of kpm, and how the "
                      "GFMC kernel may run",
                      kc_param_specs, &kpm_ops_evaluator,
                      .app_data = (void *)&kc_backend,
                      .auto_priority = 20, /* before kpm (10) when a device is present */
                      .probe = kc_probe,
                      .one_batch = 1) /* one kernel launch for all chains of a step */
