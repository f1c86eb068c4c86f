/* kpm_cuda_gfmc.cu — GFMC on the device, the host's side: a chain's scratch (kcu_gfmc: the
 * vectors, sums, moments, nodes, weights and kernel coefficients on the device), the
 * suffix-summed quadrature weights, the cluster size, and the batch — every job's pending
 * row updates and its task packed into the staging buffer, one copy up, one launch
 * (kpm_cuda_gfmc_kernel.cu), one copy back, each chain's status turned into a message. */
#include "kpm_cuda_internal.cuh"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct kcu_gfmc {
    size_t dim, M, Mtot, N, K;
    int extrapolate;
    double2 *v0, *v1;
    double *part;   /* K x 16 x KCU_NS (room for the largest cluster) */
    double *mu;
    double2 *dnode, *gnode;
    double *red;
    double *W, *x, *isin, *g_lo, *g_hi; /* device */
    double *hx, *hisin, *hw, *hE;       /* host */
    int w_valid;
    double w_T, w_mu, w_a, w_b;
    int trace_view; /* a job of kcu_traces: moments of start vectors only, one block */
};

extern "C" void kcu_gfmc_destroy(kcu_gfmc *g)
{
    if (!g)
        return;
    cudaStreamSynchronize(kcu_stream); /* nothing on the stream may still use it */
    cudaFree(g->v0);
    cudaFree(g->v1);
    cudaFree(g->part);
    cudaFree(g->mu);
    cudaFree(g->dnode);
    cudaFree(g->gnode);
    cudaFree(g->red);
    cudaFree(g->W);
    cudaFree(g->x);
    cudaFree(g->isin);
    cudaFree(g->g_lo);
    cudaFree(g->g_hi);
    free(g->hx);
    free(g->hisin);
    free(g->hw);
    free(g->hE);
    free(g);
}

extern "C" int kcu_gfmc_create(size_t dim, size_t M, size_t N, double lambda, int extrapolate,
                               kcu_gfmc **out)
{
    *out = NULL;
    int rc = kcu_device_init();
    if (rc)
        return rc;
    if (dim < 1 || M < 2 || !(lambda > 0))
        return mcf_fail(MCF_EINVAL, "kpm-cuda: GFMC needs a Hamiltonian (dim %zu), at least 2 "
                        "moments (%zu) and lambda > 0 (%g)", dim, M, lambda);
    const size_t Mtot = extrapolate ? 2 * M : M;
    if (N == 0)
        N = 2 * Mtot;
    if (N < Mtot || N < 2)
        return mcf_fail(MCF_EINVAL, "kpm-cuda: GFMC with %zu moments%s needs energy_points >= "
                        "%zu (or 0 for %zu), not %zu", Mtot,
                        extrapolate ? " (2 x moments: extrapolate = true)" : "", Mtot,
                        2 * Mtot, N);
    if (dim > (size_t)INT32_MAX || N > (size_t)INT32_MAX / 2)
        return mcf_fail(MCF_EINVAL, "kpm-cuda: dimension %zu or %zu points too large", dim, N);
    kcu_gfmc *g = (kcu_gfmc *)calloc(1, sizeof *g);
    if (!g)
        return mcf_fail(MCF_ENOMEM, "kpm-cuda: out of memory");
    g->dim = dim;
    g->M = M;
    g->Mtot = Mtot;
    g->N = N;
    g->K = Mtot / 2;
    g->extrapolate = extrapolate;
    const size_t vb = (dim + 31) / 32 * 32 * KCU_NV * sizeof(double2); /* tiles of 32 rows */
    g->hx = (double *)malloc(N * sizeof(double));
    g->hisin = (double *)malloc(N * sizeof(double));
    g->hw = (double *)malloc(N * sizeof(double));
    g->hE = (double *)malloc(N * sizeof(double));
    double *glo = (double *)malloc(M * sizeof(double));
    double *ghi = (double *)malloc(Mtot * sizeof(double));
    if (!g->hx || !g->hisin || !g->hw || !g->hE || !glo || !ghi) {
        free(glo);
        free(ghi);
        kcu_gfmc_destroy(g);
        return mcf_fail(MCF_ENOMEM, "kpm-cuda: out of memory for the GFMC workspace");
    }
    if ((rc = kcu_alloc((void **)&g->v0, vb, "GFMC vectors")) ||
        (rc = kcu_alloc((void **)&g->v1, vb, "GFMC vectors")) ||
        (rc = kcu_alloc((void **)&g->part, g->K * 16 * KCU_NS * sizeof(double), "GFMC sums")) ||
        (rc = kcu_alloc((void **)&g->mu, KCU_NV * Mtot * sizeof(double), "GFMC moments")) ||
        (rc = kcu_alloc((void **)&g->dnode, 2 * N * sizeof(double2), "GFMC determinants")) ||
        (rc = kcu_alloc((void **)&g->gnode, 2 * N * KCU_NV * sizeof(double2),
                        "GFMC Green's functions")) ||
        (rc = kcu_alloc((void **)&g->red, 16 * 4 * sizeof(double), "GFMC sums")) ||
        (rc = kcu_alloc((void **)&g->W, N * sizeof(double), "GFMC weights")) ||
        (rc = kcu_alloc((void **)&g->x, N * sizeof(double), "GFMC nodes")) ||
        (rc = kcu_alloc((void **)&g->isin, N * sizeof(double), "GFMC nodes")) ||
        (rc = kcu_alloc((void **)&g->g_lo, M * sizeof(double), "GFMC kernel")) ||
        (rc = kcu_alloc((void **)&g->g_hi, Mtot * sizeof(double), "GFMC kernel"))) {
        free(glo);
        free(ghi);
        kcu_gfmc_destroy(g);
        return rc;
    }
    /* ascending nodes: grid index i holds node k = N - 1 - i, theta_k = pi (k + 1/2) / N */
    for (size_t i = 0; i < N; i++) {
        const double th = KCU_PI * ((double)(N - 1 - i) + 0.5) / (double)N;
        g->hx[i] = cos(th);
        g->hisin[i] = 1.0 / sin(th);
    }
    kpm_kernel_coefficients(KPM_KERNEL_LORENTZ, lambda, M, glo);
    kpm_kernel_coefficients(KPM_KERNEL_LORENTZ, lambda, Mtot, ghi);
    /* on the GFMC kernel's stream (a plain cudaMemcpy goes to the legacy stream, which it
     * does not wait for), synchronized before the pageable glo and ghi are freed */
    const struct {
        double *dst;
        const double *src;
        size_t n;
    } up[] = {{g->x, g->hx, N}, {g->isin, g->hisin, N}, {g->g_lo, glo, M}, {g->g_hi, ghi, Mtot}};
    cudaError_t e = cudaSuccess;
    for (int k = 0; k < 4 && e == cudaSuccess; k++)
        e = cudaMemcpyAsync(up[k].dst, up[k].src, up[k].n * sizeof(double),
                            cudaMemcpyHostToDevice, kcu_stream);
    const cudaError_t es = cudaStreamSynchronize(kcu_stream);
    if (e == cudaSuccess)
        e = es;
    free(glo);
    free(ghi);
    if (e != cudaSuccess) {
        kcu_gfmc_destroy(g);
        return kcu_fail(e, "uploading GFMC tables", 0);
    }
    *out = g;
    return MCF_OK;
}

/* ---- the scratch of trace jobs: views into one allocation ------------------------------ */

struct kcu_traces {
    size_t jobs;
    unsigned char *mem; /* device: per job v0, v1, part, mu; then g (M zeros) */
    kcu_gfmc *views;    /* host: job i's kcu_gfmc, pointing into mem */
};

extern "C" void kcu_traces_destroy(kcu_traces *t)
{
    if (!t)
        return;
    cudaStreamSynchronize(kcu_stream);
    cudaFree(t->mem);
    free(t->views);
    free(t);
}

extern "C" int kcu_traces_create(size_t dim, size_t M, size_t jobs, kcu_traces **out)
{
    *out = NULL;
    int rc = kcu_device_init();
    if (rc)
        return rc;
    if (dim < 1 || M < 2 || jobs < 1 || dim > (size_t)INT32_MAX)
        return mcf_fail(MCF_EINVAL, "kpm-cuda: traces of dimension %zu, %zu moments, %zu jobs",
                        dim, M, jobs);
    kcu_traces *t = (kcu_traces *)calloc(1, sizeof *t);
    if (!t || !(t->views = (kcu_gfmc *)calloc(jobs, sizeof *t->views))) {
        free(t);
        return mcf_fail(MCF_ENOMEM, "kpm-cuda: out of memory");
    }
    t->jobs = jobs;
    const size_t K = M / 2;
    const size_t vb = (dim + 31) / 32 * 32 * KCU_NV * sizeof(double2);
    const size_t pb = (K * KCU_NS * sizeof(double) + 255) / 256 * 256;
    const size_t mb = (KCU_NV * M * sizeof(double) + 255) / 256 * 256;
    const size_t per = 2 * vb + pb + mb;
    if ((rc = kcu_alloc((void **)&t->mem, jobs * per + M * sizeof(double), "trace vectors"))) {
        kcu_traces_destroy(t);
        return rc;
    }
    double *g = (double *)(t->mem + jobs * per);
    /* on the stream of the kernels that read it (cudaMemset would go to the legacy stream) */
    const cudaError_t e = cudaMemsetAsync(g, 0, M * sizeof(double), kcu_stream);
    if (e != cudaSuccess) {
        kcu_traces_destroy(t);
        return kcu_fail(e, "clearing the trace scratch", 0);
    }
    for (size_t i = 0; i < jobs; i++) {
        kcu_gfmc *v = t->views + i;
        unsigned char *p = t->mem + i * per;
        v->dim = dim;
        v->M = v->Mtot = v->N = M;
        v->K = K;
        v->v0 = (double2 *)p;
        v->v1 = (double2 *)(p + vb);
        v->part = (double *)(p + 2 * vb);
        v->mu = (double *)(p + 2 * vb + pb);
        v->g_lo = v->g_hi = g;
        v->trace_view = 1;
    }
    *out = t;
    return MCF_OK;
}

extern "C" kcu_gfmc *kcu_traces_job(kcu_traces *t, size_t i)
{
    return i < t->jobs ? t->views + i : NULL;
}

/* The suffix-summed quadrature weights for T, mu, a, b on the device (cached). */
static int kcu_gfmc_weights(kcu_gfmc *g, double a, double b, double T, double mu)
{
    if (g->w_valid && g->w_T == T && g->w_mu == mu && g->w_a == a && g->w_b == b)
        return MCF_OK;
    const size_t N = g->N;
    for (size_t i = 0; i < N; i++)
        g->hE[i] = a * g->hx[i] + b;
    int rc = kpm_fermi_weights(g->hE, N, T, mu, g->hw);
    if (rc)
        return mcf_fail_prefix(rc, "kpm-cuda: GFMC");
    /* sum_i w_i phi_i with phi_i = sum_{k <= i} delta_k equals sum_k W_k delta_k, W_k the
     * sum of w_i over i >= k */
    for (size_t i = N - 1; i-- > 0;)
        g->hw[i] += g->hw[i + 1];
    /* ahead of the launch that reads them, on its stream; waited for: hw is pageable and
     * rewritten by the next change of T, mu, a or b */
    KCU_TRY(cudaMemcpyAsync(g->W, g->hw, N * sizeof(double), cudaMemcpyHostToDevice,
                            kcu_stream), "uploading GFMC weights", 0);
    KCU_TRY(cudaStreamSynchronize(kcu_stream), "uploading GFMC weights", 0);
    g->w_valid = 1;
    g->w_T = T;
    g->w_mu = mu;
    g->w_a = a;
    g->w_b = b;
    return MCF_OK;
}


/* Blocks per chain (the cluster size G, a power of 2 up to 16; 16 is a non-portable cluster
 * size, used when the device can place such a cluster, else 8): first G with at most 512
 * rows per block (the throughput choice: few, full blocks), then doubled while the batch's
 * clusters still fill at most half of the SMs and blocks keep >= 128 rows (the latency
 * choice: a small batch spreads over idle SMs; half, because a cluster must fit in one GPC
 * and partly filled GPCs cannot take another).  Measured on an H100, M = 256, in ms per
 * batch: 8^3 one chain G = 1, 2, 4, 8: 0.48, 0.44, 0.37, 0.39; 32 chains G = 1, 2, 4: 0.48,
 * 0.45, 0.71; 16^3 one chain G = 8, 16: 0.59, 0.52, 8 chains 0.59, 1.00, 32 chains 1.71,
 * 2.47.  The settings' blocks_per_chain, when not 0, is taken as it is (checked). */
static int kcu_cluster_for(size_t dim, size_t n, const kcu_gfmc_settings *s)
{
    if (s->blocks_per_chain)
        return s->blocks_per_chain;
    if (s->by_vector && dim <= KCU_BY_VECTOR_ROWS)
        return 1; /* the recursion by vector (one block per chain) */
    int G = 1;
    while (G < 16 && (size_t)G * KCU_GFMC_ROWS_PER_BLOCK < dim)
        G *= 2;
    const size_t half = (size_t)mcu_props()->multiProcessorCount / 2;
    while (G < 16 && n * (size_t)(2 * G) <= half && dim / (size_t)(2 * G) >= 128)
        G *= 2;
    return G;
}

/* The jobs checked (and, on the real axis, their weights brought up to date): the largest
 * dimension, and the doubles of moments per job for mu_out (0 without). */
static int kcu_gfmc_check(const kcu_gfmc_job *jobs, size_t n, int moments, int contour,
                          size_t *maxdim, size_t *mom)
{
    *maxdim = *mom = 0;
    for (size_t k = 0; k < n; k++) {
        const kcu_gfmc_job *j = jobs + k;
        if (!j->g || !j->d || !j->h || j->h->dim != j->g->dim || j->d->dim != j->g->dim)
            return mcf_fail(MCF_EINVAL, "kpm-cuda: GFMC job %zu: workspace and Hamiltonian "
                            "dimensions differ", k);
        if (j->start != KCU_START_CHANGE &&
            (!moments || j->start > KCU_START_GAUSS || j->start_n < 0 || j->start_n > KCU_NV))
            return mcf_fail(MCF_EINVAL, "kpm-cuda: GFMC job %zu: start vectors %d (%d of them) "
                            "asked for outside the moments", k, j->start, j->start_n);
        if (j->start == KCU_START_CHANGE && !j->change)
            return mcf_fail(MCF_EINVAL, "kpm-cuda: GFMC job %zu has no change", k);
        if (j->g->trace_view && j->start == KCU_START_CHANGE)
            return mcf_fail(MCF_EINVAL, "kpm-cuda: GFMC job %zu: a trace scratch (kcu_traces) "
                            "takes start vectors, not a change", k);
        if (moments) {
            if (j->g->extrapolate || (k && j->g->Mtot * KCU_NV != *mom))
                return mcf_fail(MCF_EINVAL, "kpm-cuda: GFMC moments: the jobs' scratches must "
                                "share the moments and not extrapolate");
            *mom = KCU_NV * j->g->Mtot;
        } else {
            if (!(j->T > 0) || !isfinite(j->T) || !isfinite(j->mu))
                return mcf_fail(MCF_EINVAL, "kpm-cuda: GFMC: temperature T = %g must be finite "
                                "and > 0, and mu = %g finite", j->T, j->mu);
            if (contour) {
                const kpm_contour_plan *c = j->contour;
                if (!c || j->g->extrapolate || c->N < 2 || c->N % 2 ||
                    c->N + 1 > 2 * j->g->N || c->too_many ||
                    c->poles > KPM_CONTOUR_PLAN_POLES || !(c->gamma > 0.0))
                    return mcf_fail(MCF_EINVAL, "kpm-cuda: GFMC on the contour, job %zu: no "
                                    "contour, or one that does not fit the scratch (N = %zu, "
                                    "%zu poles; a bug, please report it)", k, c ? c->N : 0,
                                    c ? c->poles : 0);
            } else {
                const int rc = kcu_gfmc_weights(j->g, j->a, j->b, j->T, j->mu);
                if (rc)
                    return rc;
            }
        }
        if (j->g->dim > *maxdim)
            *maxdim = j->g->dim;
    }
    return MCF_OK;
}

/* The task of job j (its row updates already at upd_first): where its Hamiltonian and
 * scratch are, its scaling, the change, and for the contour its plan.  out: its 4 result
 * doubles (device); mu_dev: where the moments go (moments only), else NULL. */
static void kcu_task_fill(kcu_task *t, const kcu_gfmc_job *j, double *out, double *mu_dev,
                          int contour)
{
    const kcu_gfmc *g = j->g;
    t->col = j->d->col;
    t->hre = j->d->hre;
    t->him = j->d->him;
    t->ons = j->d->ons;
    t->dim = (long long)g->dim;
    t->width = j->d->width;
    t->v0 = g->v0;
    t->v1 = g->v1;
    t->part = g->part;
    t->mu = g->mu;
    t->dnode = g->dnode;
    t->gnode = g->gnode;
    t->red = g->red;
    t->out = out;
    t->W = g->W;
    t->x = g->x;
    t->isin = g->isin;
    t->g_lo = g->g_lo;
    t->g_hi = g->g_hi;
    t->N = (int)g->N;
    t->M = (int)g->M;
    t->Mtot = (int)g->Mtot;
    t->K = (int)g->K;
    t->extrapolate = g->extrapolate;
    t->ia = 1.0 / j->a;
    t->b = j->b;
    t->inv_a = 1.0 / j->a;
    t->inv_piT = mu_dev ? 0.0 : 1.0 / (KCU_PI * j->T);
    t->moments_only = mu_dev != NULL;
    t->mu_out = mu_dev;
    if (contour) {
        const kpm_contour_plan *cc = j->contour;
        t->contour = 1;
        t->cN = (int)cc->N;
        t->np = (int)cc->poles;
        t->gam = cc->gamma;
        t->tau = cc->tau;
        t->cT = j->T;
        t->cmu = j->mu;
        for (size_t q = 0; q < cc->poles; q++) {
            t->pole_re[q] = cc->pole_re[q];
            t->pole_im[q] = cc->pole_im[q];
        }
    }
    t->start = j->start;
    t->start_n = j->start_n;
    for (int q = 0; q < KCU_NV; q++)
        t->start_row[q] = j->start_row[q];
    t->seed = (unsigned long long)j->seed;
    t->first = (unsigned long long)j->first;
    if (j->start != KCU_START_CHANGE)
        return; /* a trace: rank 0, no change */
    const mcf_local_change *c = j->change;
    t->rank = c->rank;
    for (int p = 0; p < 2; p++)
        for (int q = 0; q < 2; q++) {
            t->c_re[p][q] = p < c->rank && q < c->rank ? c->c_re[p][q] : 0.0;
            t->c_im[p][q] = p < c->rank && q < c->rank ? c->c_im[p][q] : 0.0;
        }
    for (int a = 0; a < c->rank; a++) {
        t->nent[a] = c->entries[a];
        for (int e = 0; e < c->entries[a]; e++) {
            t->row[a][e] = (int32_t)c->row[a][e];
            t->ure[a][e] = c->re[a][e];
            t->uim[a][e] = c->im[a][e];
        }
    }
}

/* The kernel for n tasks in clusters of G blocks (a cluster of 16, non-portable, falls back
 * to 8 where the device cannot place it); the G launched into info->cluster. */
static cudaError_t kcu_gfmc_launch_clusters(const kcu_task *tasks, size_t n, int G,
                                            size_t maxdim, const kcu_task *tasks_dev,
                                            const kcu_row_update *upd_dev,
                                            unsigned long long *phase_dev,
                                            const kcu_gfmc_settings *s, kcu_gfmc_info *info)
{
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((unsigned)(n * (size_t)G));
    cfg.blockDim = dim3(KCU_GFMC_THREADS);
    cfg.stream = kcu_stream;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = (unsigned)G;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    cudaError_t e = kcu_gfmc_launch_kernel(&cfg, tasks, n, G, maxdim, tasks_dev, upd_dev,
                                           phase_dev, s, info);
    if (e != cudaSuccess && G == 16) {
        cudaGetLastError();
        G = 8;
        cfg.gridDim = dim3((unsigned)(n * (size_t)G));
        attr[0].val.clusterDim.x = (unsigned)G;
        e = kcu_gfmc_launch_kernel(&cfg, tasks, n, G, maxdim, tasks_dev, upd_dev, phase_dev, s,
                                   info);
    }
    return e;
}

/* The message for job k's status r[3] (r: its 4 result doubles), MCF_OK for none. */
static int kcu_gfmc_status(const kcu_gfmc_job *jobs, size_t k, const double *r, int moments)
{
    if (r[3] == KCU_ST_MOMENT)
        return mcf_fail(MCF_EINVAL, "kpm-cuda: GFMC of job %zu: a Chebyshev moment exceeds "
                        "<r|r>: the spectrum of the Hamiltonian reaches outside [%g, %g], the "
                        "bounds used for rescaling (fixed bounds too narrow, or a damaged ELL "
                        "table)", k, jobs[k].b - jobs[k].a, jobs[k].b + jobs[k].a);
    if (r[3] == KCU_ST_CDET)
        return mcf_fail(MCF_EINVAL, "kpm-cuda: GFMC of job %zu: det(1 - G Delta) vanishes on "
                        "the contour at node %.0f: the change is not Hermitian or the "
                        "Hamiltonian is damaged", k, r[1]);
    if (r[3] == KCU_ST_CPOLE)
        return mcf_fail(MCF_EINVAL, "kpm-cuda: GFMC of job %zu: det(1 - G Delta) vanishes at "
                        "the Fermi pole %.0f: too few moments for T = %g; raise moments", k,
                        r[1], jobs[k].T);
    if (r[3] == KCU_ST_CPHASE)
        return mcf_fail(MCF_EINVAL,
                        "kpm-cuda: GFMC of job %zu: the %zu contour nodes do not follow the "
                        "phase of det(1 - G Delta) (largest step %.2f rad, end phase %.3g "
                        "instead of 0) at T = %g, mu = %g: the change moves levels by more "
                        "than the contour's distance %.3g (rescaled) resolves; raise "
                        "energy_points (now %zu)", k, jobs[k].contour->N, r[1], r[2],
                        jobs[k].T, jobs[k].mu, jobs[k].contour->gamma, jobs[k].contour->N);
    if (r[3] == KCU_ST_PHASE)
        return mcf_fail(MCF_EINVAL, "kpm-cuda: GFMC of job %zu: Im log d(E) ends at %.3g "
                        "instead of 0 above the spectrum (grid of %zu points): the change moved "
                        "a level out of H's bounds (no energy_points or lambda brings it back); "
                        "the real axis cannot take it: set gfmc = contour", k, r[1], jobs[k].g->N);
    if (!moments && !isfinite(r[0]))
        return mcf_fail(MCF_EINVAL, "kpm-cuda: GFMC of job %zu: dS is not finite", k);
    return MCF_OK;
}

/* The batch in one launch: dS (and its parts), or with mu_out the moments only, or with
 * contour the whole contour (dS and its bound into dS_M).  The staging buffer holds, in
 * order, the n tasks, the results (4 doubles per job, then the moments, then the launch's 4
 * phase timers) and up to KCU_MAX_UPDATE_ROWS row updates per job: one copy up, one
 * back. */
static int kcu_gfmc_batch(const kcu_gfmc_job *jobs, size_t n, const kcu_gfmc_settings *s,
                          double *dS, double *dS_M, double *dS_2M, double *const *mu_out,
                          int contour, kcu_gfmc_info *info)
{
    static const kcu_gfmc_settings defaults = KCU_GFMC_SETTINGS_DEFAULT;
    kcu_gfmc_info unused;
    if (!s)
        s = &defaults;
    if (!info)
        info = &unused;
    memset(info, 0, sizeof *info);
    const int Gs = s->blocks_per_chain;
    if (Gs != 0 && Gs != 1 && Gs != 2 && Gs != 4 && Gs != 8 && Gs != 16)
        return mcf_fail(MCF_EINVAL, "kpm-cuda: GFMC with %d blocks per chain; use 1, 2, 4, 8, "
                        "16 or 0 (automatic)", Gs);
    if (n == 0)
        return MCF_OK;
    int rc = kcu_device_init();
    if (rc)
        return rc;
    size_t maxdim, mom;
    if ((rc = kcu_gfmc_check(jobs, n, mu_out != NULL, contour, &maxdim, &mom)))
        return rc;
    /* jobs of independent start vectors may share a Hamiltonian: brought up to date here,
     * so that no block of the launch applies row updates another block reads */
    for (size_t k = 0; k < n; k++)
        if (jobs[k].start != KCU_START_CHANGE && jobs[k].d->version != jobs[k].h->version &&
            (rc = kcu_ham_sync(jobs[k].d, jobs[k].h)))
            return rc;
    int G = kcu_cluster_for(maxdim, n, s);
    for (size_t k = 0; k < n; k++)
        if (jobs[k].g->trace_view)
            G = 1; /* its sums have room for one block */
    const size_t task_bytes = (n * sizeof(kcu_task) + 255) / 256 * 256;
    const size_t res_n = (4 + mom) * n; /* result doubles */
    const size_t res_bytes =
        (res_n * sizeof(double) + 4 * sizeof(unsigned long long) + 255) / 256 * 256;
    kcu_stage st;
    if ((rc = kcu_stage_begin(task_bytes + res_bytes +
                              n * KCU_MAX_UPDATE_ROWS * sizeof(kcu_row_update), &st)))
        return rc;
    kcu_task *tasks = (kcu_task *)st.host;
    double *res = (double *)(st.host + task_bytes);
    double *res_dev = (double *)(st.dev + task_bytes);
    unsigned long long *phase = (unsigned long long *)(res + res_n);
    unsigned long long *phase_dev = (unsigned long long *)(res_dev + res_n);
    memset(res, 0, res_bytes); /* status OK until the kernel says otherwise */
    kcu_row_update *upd = (kcu_row_update *)(st.host + task_bytes + res_bytes);
    int nupd = 0;
    for (size_t k = 0; k < n && !rc; k++) {
        const kcu_gfmc_job *j = jobs + k;
        kcu_task *t = tasks + k;
        memset(t, 0, sizeof *t);
        long cnt = kcu_changed(j->d, j->h, upd + nupd);
        if (cnt < 0) {
            if ((rc = kcu_ham_upload_all(j->d, j->h)))
                break;
            cnt = 0;
        }
        t->upd_first = nupd;
        t->upd_count = (int)cnt;
        nupd += (int)cnt;
        j->d->rows_updated += (uint64_t)cnt;
        j->d->version = j->h->version;
        kcu_task_fill(t, j, res_dev + 4 * k, mu_out ? res_dev + 4 * n + mom * k : NULL,
                      contour);
    }
    if (!rc) {
        const size_t bytes = task_bytes + res_bytes + (size_t)nupd * sizeof(kcu_row_update);
        cudaError_t e = cudaMemcpyAsync(st.dev, st.host, bytes, cudaMemcpyHostToDevice,
                                        kcu_stream);
        if (e == cudaSuccess)
            e = kcu_gfmc_launch_clusters(tasks, n, G, maxdim, (const kcu_task *)st.dev,
                                         (const kcu_row_update *)(st.dev + task_bytes +
                                                                  res_bytes),
                                         phase_dev, s, info);
        if (e != cudaSuccess)
            rc = kcu_fail(e, "launching the GFMC kernel", 0);
    }
    /* the results, the moments and the phase timers: one copy back */
    if (!rc && cudaMemcpyAsync(res, res_dev, res_n * sizeof(double) + 4 * sizeof *phase,
                               cudaMemcpyDeviceToHost, kcu_stream) != cudaSuccess)
        rc = kcu_fail(cudaGetLastError(), "copying GFMC results", 0);
    if (!rc) {
        cudaError_t e = cudaStreamSynchronize(kcu_stream);
        if (e != cudaSuccess)
            rc = kcu_fail(e, "the GFMC kernel", 0);
    }
    if (!rc) {
        info->recursion = (double)(phase[1] - phase[0]) * 1e-9;
        info->green = (double)(phase[2] - phase[1]) * 1e-9;
        info->rest = (double)(phase[3] - phase[2]) * 1e-9;
    }
    for (size_t k = 0; k < n && !rc; k++) {
        const double *r = res + 4 * k;
        if ((rc = kcu_gfmc_status(jobs, k, r, mu_out != NULL)))
            break;
        if (mu_out) {
            memcpy(mu_out[k], res + 4 * n + mom * k, mom * sizeof(double));
            continue;
        }
        dS[k] = r[0];
        if (dS_M)
            dS_M[k] = r[1];
        if (dS_2M)
            dS_2M[k] = r[2];
    }
    kcu_stage_end();
    return rc;
}

extern "C" int kcu_gfmc_run(const kcu_gfmc_job *jobs, size_t n, const kcu_gfmc_settings *s,
                            double *dS, double *dS_M, double *dS_2M, kcu_gfmc_info *info)
{
    return kcu_gfmc_batch(jobs, n, s, dS, dS_M, dS_2M, NULL, 0, info);
}

extern "C" int kcu_gfmc_moments(const kcu_gfmc_job *jobs, size_t n, const kcu_gfmc_settings *s,
                                double *const *mu, kcu_gfmc_info *info)
{
    return kcu_gfmc_batch(jobs, n, s, NULL, NULL, NULL, mu, 0, info);
}

extern "C" int kcu_gfmc_contour(const kcu_gfmc_job *jobs, size_t n, const kcu_gfmc_settings *s,
                                double *dS, double *err, kcu_gfmc_info *info)
{
    return kcu_gfmc_batch(jobs, n, s, dS, err, NULL, NULL, 1, info);
}

extern "C" int kcu_gfmc_last_moments(const kcu_gfmc *g, double *mu)
{
    /* behind the launch that wrote them, on its stream */
    KCU_TRY(cudaMemcpyAsync(mu, g->mu, KCU_NV * g->Mtot * sizeof(double),
                            cudaMemcpyDeviceToHost, kcu_stream), "copying GFMC moments", 0);
    KCU_TRY(cudaStreamSynchronize(kcu_stream), "copying GFMC moments", 0);
    return MCF_OK;
}
