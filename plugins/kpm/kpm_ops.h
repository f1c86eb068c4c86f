/* kpm_ops.h — the fermion evaluator (mcf/fermion.h, ABI 2: mcf_fermion_evaluator) of the
 * KPM plugins, written once over a backend: part of the static library mcf_kpm_core, shared
 * by the CPU plugin kpm (plugins/kpm/kpm.c, backend over kpm_core.h) and the GPU plugin
 * kpm-cuda (cuda/kpm-cuda/kpm_cuda.c, backend over kpm_cuda.h).  Not part of the SDK:
 * symbols carry the prefix kpm_ops_ and hidden visibility.
 *
 * Both plugins use the one table kpm_ops_evaluator.  A plugin's descriptor points app_data
 * at its kpm_backend: create() receives it and records it in the workspace, so every
 * batched op finds the backend in its workspaces and reconstruct() in app_data; nothing
 * else tells the two plugins apart.  A plugin's workspace embeds kpm_ops_ws as its FIRST
 * member (so a workspace pointer is a kpm_ops_ws pointer) and its backend supplies the few
 * steps whose hardware differs.  Everything else lives here, once:
 *
 *   batches       every op refuses a NULL workspace, a workspace of another evaluator, and
 *                 (dos, occupation) a NULL rngs, then loops over the workspaces in order
 *                 (GFMC: the backend's batch).  What a backend keeps per batch (kpm-cuda's
 *                 job lists) lives in a keep slot of the batch (mcf_batch_keep), never in
 *                 the first workspace: the batch is handed on to the backend's batched
 *                 steps;
 *   scaling       a, b from mcf_hamiltonian_scaling(margin), cached per workspace and
 *                 recomputed whenever h->version changes; then the backend's prepare;
 *   trace         vectors > 0: the backend's R random moment sets (drawn from the
 *                 chain's stream) and their mean; vectors = 0: the exact trace
 *                 (1/dim) sum_r <r|T_n(H~)|r> over all unit vectors, `block` rows at a
 *                 time (no randomness), kept until h changes (h->version), so that a
 *                 measurement and a tempering exchange of the same sweep share it; a
 *                 backend with traces (kpm-cuda) does the batch's traces at once;
 *   spectra       the sizes (energy_points, moments) of the first workspace; then, each
 *                 only when asked for and in this order (the order in which the SDK called
 *                 ABI 1's ops, so the same draws and bits): the grid of every workspace;
 *                 the LDOS, or the LDOS moments with it; the Green's functions; the DOS, or
 *                 the DOS moments with it.  With nothing but the sizes and the grid asked
 *                 for, the batch may be NULL;
 *     grid        the N Chebyshev nodes at a x + b (h's bounds now);
 *     dos         the trace's mean moments, reconstructed by the backend;
 *     ldos, green moments of the rows' unit vectors, `block` rows at a time, each block
 *                 reconstructed by the backend;
 *     dos_moments the DOS's trace and reconstruction, and its mean moments, their
 *                 per-vector variance (kpm_moments_variance) and a, b copied out;
 *     ldos_moments the LDOS's rows, their moments copied out (the LDOS only when asked);
 *   reconstruct   no workspace: kpm_ops_reconstruct on the host (kpm_reconstruct.c);
 *   occupation    kpm_occupation of the trace's mean moments (host); with the
 *                 T-derivatives asked for, T > 0 and mu checked first (nothing drawn on a
 *                 refusal), then the same trace and kpm_occupation (the same bits), and
 *                 kpm_occupation_dT of the same mean moments (host);
 *   change_action GFMC on the contour (gfmc = contour, the default; kpm_core.h): every
 *                 change, T and mu checked first; per workspace the scaling and the contour
 *                 scratch (created on first use); a backend with contour_action (kpm-cuda)
 *                 does the whole contour of a batch of rank <= 2 changes in one launch (the
 *                 host plans each ellipse), with only contour_moments it computes their
 *                 moments, the host the rest; then the batch's chains shared among OpenMP
 *                 threads on the host (one chain per thread: the same bits on any thread
 *                 count); warns once per workspace and T when the error bound exceeds 0.05,
 *                 naming the moments that bring it to 0.01.  gfmc = real-axis: the change
 *                 must have rank <= 2 and at most 16 entries per vector (ABI 1's
 *                 mcf_local_change); per workspace: scaling, the change, T and mu checked
 *                 (backends whose GFMC batch does not check them itself), the GFMC scratch
 *                 created on first use, the resolution warning (kpm_gfmc_warn_resolution,
 *                 the Lorentz kernel's lambda a / M); then the backend's batch over all
 *                 workspaces (err is then NaN: that method has no bound).
 *                 (kpm_ops_gfmc.c)
 *   density_matrix  f(H) on H's nonzero elements from the Fermi series applied to probing
 *                 vectors by the backend's series (kpm_ops_density.c; kpm_core.h says how).
 *   pseudofermion the heat bath and the action (with its gradient) of the pseudofermion form
 *                 by Chebyshev series of F and F^{-1/2} (kpm_ops_pf.c; kpm_core.h).
 *   response      the two-dimensional moments (1/dim) Tr[A T_n(H~) B T_m(H~)] of two
 *                 operators by the stochastic trace (vectors > 0) or over every unit vector
 *                 (vectors = 0): the vectors drawn on the host, in order, for both
 *                 plugins; their moments by the backend's response (kpm-cuda) or on the
 *                 host (kpm_ops_response.c).
 *   action        all inputs checked first (T > 0 finite, mu finite, vectors = 0: a
 *                 stochastic trace is refused naming `vectors`); per workspace the exact
 *                 trace once (the backend's rows_moments), then per point the plain
 *                 Chebyshev series of F(x) = -softplus(-(a x + b - mu)/T) on the host
 *                 (kpm_action_series: K = max(8 M, 1024) Chebyshev-Gauss nodes, no kernel),
 *                 S = dim sum_{n<M} c_n mu_n, err = dim sum_{M<=n<K/2} |c_n|; the same bits
 *                 whatever the batch or the number of points (fixed order).
 *
 * Every message starts with the backend's name ("kpm: ...", "kpm-cuda: ...").
 * Errors: MCF_OK or an MCF_E* code with a message (mcf_fail). */
#ifndef MCF_KPM_OPS_H
#define MCF_KPM_OPS_H

#include "kpm_core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kpm_ops_ws kpm_ops_ws;
typedef struct kpm_series_job kpm_series_job;

/* The vectors of a response trace, in the order drawn: fill(ctx, nv, v) writes the next nv
 * vectors into v, vector after vector, each dim interleaved complex entries (re, im). */
typedef struct kpm_vector_source {
    void (*fill)(void *ctx, size_t nv, double *v);
    void *ctx;
} kpm_vector_source;

/* The hardware-dependent steps.  Moment sets are laid out mu[j M + n] (host arrays).  The
 * batched steps get the op's batch b, for what the backend keeps per batch. */
typedef struct kpm_backend {
    const char *name;  /* the plugin's name: the prefix of every message */
    size_t size;       /* sizeof the plugin's workspace (kpm_ops_ws its first member) */
    /* create(), after the parameters were read, before anything is allocated: may h be
     * evaluated here (NULL: yes) */
    int (*admit)(const mcf_hamiltonian *h);
    /* create(), first allocation: the plugin's members and its own [evaluator] keys from
     * params (NULL: none); on failure the workspace is destroyed */
    int (*init)(kpm_ops_ws *w, const mcf_params *params);
    /* destroy(): frees the plugin's members, any of which may be NULL (NULL: none) */
    void (*release)(kpm_ops_ws *w);
    /* 1: the real axis's preamble checks each change (mcf_local_change_check), T > 0 and
     * mu (finite) before the batch; 0: the batch checks them itself */
    int check_changes;
    /* after the scaling, before any moments (NULL: nothing to do) */
    int (*prepare)(kpm_ops_ws *w);
    /* w->R random vectors drawn from rng: per-vector moments <r|T_n(H~)|r> / dim into
     * w->mu_vec (R sets) */
    int (*random_moments)(kpm_ops_ws *w, mcf_rng *rng);
    /* moments <rows[j]|T_n(H~)|rows[j]> of nb <= w->block unit vectors into w->mu_vec */
    int (*rows_moments)(kpm_ops_ws *w, const size_t *rows, size_t nb);
    /* for nb <= w->block moment sets mu: the density out[j N + i] on the ascending grid
     * (per unit energy), or the Green's function re/im[j N + i] */
    int (*density)(kpm_ops_ws *w, const double *mu, size_t nb, double *out);
    int (*green)(kpm_ops_ws *w, const double *mu, size_t nb, double *re, double *im);
    /* the workspace's GFMC scratch (the real axis), created unless it already exists */
    int (*gfmc_need)(kpm_ops_ws *w);
    /* dS of the batch on the real axis; every workspace has been through the preamble
     * (scaled, scratch created), and the messages of failures name the workspace */
    int (*gfmc_batch)(mcf_batch *b, void *const *ws, size_t n,
                      const mcf_local_change *const *changes, const double *T,
                      const double *mu, double *dS);
    /* optional (NULL: every trace by random_moments or rows_moments, one workspace after
     * the other): the traces of n prepared workspaces at once (a device: one launch for the
     * whole batch), skipping those with done[k] = 1 (an exact trace kept).  For each
     * workspace k it takes, it sets done[k] = 1 and fills, with w->R > 0, w->mu_vec with
     * the R vectors' moments <r|T_n(H~)|r> / dim, drawing from rngs[k] exactly what
     * random_moments draws; with w->R = 0, w->mu with the exact trace (1/dim) sum_r
     * <r|T_n(H~)|r>.  Workspaces left with done[k] = 0 take the one-by-one path.  rngs may
     * be NULL when every R is 0. */
    int (*traces)(mcf_batch *b, void *const *ws, size_t n, mcf_rng *const *rngs,
                  unsigned char *done);
    /* optional (NULL: the host computes them): GFMC on the contour, for n workspaces whose
     * changes fit the older form (contour_local: rank <= 2, <= MCF_CHANGE_MAX_ENTRIES
     * entries a vector), the diagonal moments of u_0 [, u_1, u_0 + u_1, u_0 + i u_1] in the
     * scaling contour_a, contour_b into contour_dmu (1 or 4 sets of M: set j at j M) */
    int (*contour_moments)(mcf_batch *b, void *const *ws, size_t n);
    /* optional (NULL: contour_moments and the host's finish): the whole contour on the
     * backend for the same workspaces, each with its plan (contour_plan: the ellipse and
     * the enclosed poles, kpm_contour_plan_for), at T[k], mu[k]: dS[k] and the error bound
     * into contour_err.  Errors name the workspace and what to change, as the host's. */
    int (*contour_action)(mcf_batch *b, void *const *ws, size_t n, const double *T,
                          const double *mu, double *dS);
    /* density_matrix (kpm_ops_density.c): y = sum_{n<Mf} c_n T_n(H~) x for nb <= w->block
     * vectors x (host, the block layout of kpm_core.h with stride nb; x may be overwritten),
     * y likewise, in the scaling w->a, w->b, after prepare */
    int (*series)(kpm_ops_ws *w, const double *c, size_t Mf, size_t nb, double *x, double *y);
    /* pseudofermion (kpm_ops_pf.c): y as series, for nb <= w->block / 2 vectors, and the
     * gradient of sum_v x_v^+ P(H) x_v added to g_diag, g_re, g_im (kpm_series_gradient) */
    int (*series_gradient)(kpm_ops_ws *w, const double *c, size_t Mf, size_t nb, double *x,
                           double *y, double *g_diag, double *g_re, double *g_im);
    /* optional (NULL: series or series_gradient one workspace after the other): the jobs of
     * several prepared workspaces at once (a device: one launch for as many as fit), all of
     * one kind (gradients, or series alone) and nb; it sets done = 1 on the jobs it took
     * and leaves the others to the one-by-one path, whose results it must equal; the jobs
     * and their arrays are borrowed; MCF_OK, or the first failing job's error */
    int (*series_batch)(kpm_series_job *jobs, size_t n, size_t nb);
    /* optional (NULL: the host, kpm_response_sums): response's sums over the R vectors of
     * src of the per-vector values x_nm = <v| A T_n(H~) B T_m(H~) |v> / dim in the scaling
     * a, b: sum_re, sum_im [n M + m] and sum_sq = sum |x_nm|^2 (NULL: not wanted), each
     * summed over the vectors in the order drawn; A, B of h's dimension, h checked */
    int (*response)(kpm_ops_ws *w, const mcf_hamiltonian *A, const mcf_hamiltonian *B,
                    double a, double b, size_t M, size_t R, const kpm_vector_source *src,
                    double *sum_re, double *sum_im, double *sum_sq);
    /* optional (NULL: the host, each vector's recursion): vector_moments' mu[j M + n] =
     * <v_j| T_n(H~) |v_j> of nv vectors v (vector after vector, dim interleaved complex
     * entries) in the scaling a, b; h checked */
    int (*vector_moments)(kpm_ops_ws *w, double a, double b, size_t M, size_t nv,
                          const double *v, double *mu);
} kpm_backend;

/* One workspace's part of series_batch: series (gd NULL) or series_gradient of (c, M) on
 * the host blocks x (may be overwritten), y, adding the gradient to gd, gre, gim. */
struct kpm_series_job {
    kpm_ops_ws *w;
    const double *c;
    size_t M;
    double *x, *y;
    double *gd, *gre, *gim;
    int done;
};

/* The common head of a plugin's workspace (its first member): one chain's state. */
struct kpm_ops_ws {
    const kpm_backend *be;    /* the plugin's backend (the descriptor's app_data) */
    const mcf_hamiltonian *h; /* borrowed */
    kpm_config cfg;
    int extrapolate;
    size_t M, N, R, block;
    kpm_dct *grid;            /* the host plan of N points, M moments */
    double *g;                /* M kernel coefficients */
    double *mu_vec;           /* max(R, block) x M moments */
    double *mu;               /* M: the trace's mean moments */
    int trace_cached;         /* 1: mu is the exact trace (R = 0) of h at trace_version */
    uint64_t trace_version;
    int scaled;
    uint64_t version;         /* h->version of a, b */
    double a, b;
    double warned_T;          /* the last T the resolution warning was given for */
    kpm_contour *contour;     /* GFMC on the contour: created on first use */
    double warned_err_T;      /* the last T the contour's error warning was given for */
    double contour_err;       /* the error bound of the last dS on the contour */
    /* contour_moments: the change in the older form, its scaling, the moments (4 M) */
    mcf_local_change contour_local;
    double contour_a, contour_b;
    double *contour_dmu;
    kpm_contour_plan contour_plan; /* contour_action: the ellipse and poles of the change */
    kpm_series_cache series;  /* occupation and action coefficients (they do not depend on H) */
    /* density_matrix (kpm_ops_density.c), on first use: the probing colours of the table's
     * pattern (a copy of h->col to see it change), the Fermi series of the last (a, b, T,
     * mu), two host blocks and the sums of squares of the probes */
    int32_t *dm_colour, *dm_col;
    size_t dm_ncolours;
    int dm_exact;             /* the colours are the rows themselves (vectors = 0) */
    double *dm_c, dm_key[4], dm_tail;
    size_t dm_M;
    double *dm_x, *dm_y, *dm_sq, *dm_est;
    /* pseudofermion (kpm_ops_pf.c): the series of F and F^{-1/2} for (a, b, T, mu, n) */
    double *pf_p, *pf_q, pf_key[5], pf_rel_p, pf_rel_q;
    size_t pf_mp, pf_mq;
    double *pf_blocks;        /* x, y and phi of a flavour group, kept between calls (fresh
                               * blocks of 2 dim x block/2 doubles each cost page faults) */
};

/* The evaluator table of kpm and kpm-cuda (the descriptor's ops; its app_data is the
 * plugin's kpm_backend).  One table for both: every op takes the backend from the
 * workspaces (create from app_data), so a table per plugin would only repeat it. */
KPM_API extern const mcf_fermion_evaluator kpm_ops_evaluator;

/* a, b of the current Hamiltonian (recomputed when its version changed). */
KPM_API void kpm_ops_scale(kpm_ops_ws *w);

/* The scaling of w (kpm_ops_scale), then the backend's prepare (its error, if any). */
KPM_API int kpm_ops_prepare(kpm_ops_ws *w);

/* The backend of a batch: that of its workspaces, which must all be non-NULL and made by
 * the same plugin.  *rc: MCF_OK, or MCF_EINVAL with a message naming `what` and the
 * workspace (the result is then NULL); n = 0 is fine (NULL, MCF_OK). */
KPM_API const kpm_backend *kpm_ops_batch(void *const *ws, size_t n, const char *what,
                                         int *rc);

/* The mean moments of the batch's traces into each w->mu, every workspace prepared first
 * (kpm_ops_traces.c): with vectors = 0 the exact trace (kept while h->version stays: not
 * taken again), else the R random vectors' moments from rngs[k] (rngs may be NULL when
 * every R is 0); the backend's traces op (with the batch b) for the workspaces it takes,
 * the others one by one.  Errors: the backend's, prefixed with its name, `what` and the
 * workspace. */
KPM_API int kpm_ops_traces(const kpm_backend *be, mcf_batch *b, void *const *ws, size_t n,
                           mcf_rng *const *rngs, const char *what);

/* density_matrix of the table and what it keeps in a workspace (kpm_ops_density.c). */
KPM_API int kpm_ops_density_matrix(mcf_batch *b, void *const *ws, size_t n,
                                   mcf_rng *const *rngs, const double *T, const double *mu,
                                   const mcf_density_matrix *out);
KPM_API void kpm_ops_density_free(kpm_ops_ws *w);

/* pseudofermion of the table and what it keeps in a workspace (kpm_ops_pf.c). */
KPM_API int kpm_ops_pseudofermion(mcf_batch *b, void *const *ws, size_t n, mcf_rng *const *rngs,
                                  const double *T, const double *mu, mcf_pseudofermion *p);
KPM_API void kpm_ops_pf_free(kpm_ops_ws *w);

/* response of the table (kpm_ops_response.c): the two-dimensional moments, the vectors drawn
 * on the host for kpm and kpm-cuda alike, their sums by the backend's response or by
 * kpm_response_sums. */
KPM_API int kpm_ops_response(mcf_batch *b, void *const *ws, size_t n, mcf_rng *const *rngs,
                             const mcf_response *r);
/* vector_moments of the table (kpm_ops_response.c): each vector's own recursion on the host,
 * for kpm and kpm-cuda alike (exact). */
KPM_API int kpm_ops_vector_moments(mcf_batch *b, void *const *ws, size_t n,
                                   const mcf_vector_moments *r);
/* The host's recursion of vector_moments (kpm; kpm-cuda's reference): mu[j M + n] =
 * <v_j| T_n(H~) |v_j> for nv vectors v (vector after vector, dim interleaved complex), H~ =
 * (H - b) / a, M - 1 products a vector on the OpenMP threads, the inner products over rows in
 * order.  name prefixes the messages; MCF_ENOMEM. */
KPM_API int kpm_vector_moments_host(const char *name, const mcf_hamiltonian *h, double a,
                                    double b, size_t M, size_t nv, const double *v, double *mu);
/* The host's sums (the backend's response without a backend; the same arguments), `name`
 * for the messages. */
KPM_API int kpm_response_sums(const char *name, const mcf_hamiltonian *h,
                              const mcf_hamiltonian *A, const mcf_hamiltonian *B, double a,
                              double b, size_t M, size_t R, const kpm_vector_source *src,
                              double *sum_re, double *sum_im, double *sum_sq);

/* change_action of the table (kpm_ops_gfmc.c). */
KPM_API int kpm_ops_change_action(mcf_batch *b, void *const *ws, size_t n,
                                  const mcf_change *const *changes, const double *T,
                                  const double *mu, double *dS, double *err);

/* reconstruct() of mcf/fermion.h (kpm_reconstruct.c): host arithmetic only, so kpm and
 * kpm-cuda give the same bits; `name` prefixes the messages.  The kernel from
 * kpm_kernel_parse, or params' kernel and lambda; E NULL: the N = points Chebyshev nodes
 * by kpm_dct (points >= M) or by kpm_density_at (points < M). */
KPM_API int kpm_ops_reconstruct(const char *name, const mcf_params *params,
                                const char *kernel, size_t M, size_t sets, const double *mu,
                                double a, double b, size_t points, const double *E,
                                double *grid, double *out);

#ifdef __cplusplus
}
#endif
#endif
