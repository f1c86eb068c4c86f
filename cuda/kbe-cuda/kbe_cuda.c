/* kbe_cuda.c — the host half of kbe-cuda (kbe_cuda.h): the spec checked as the CPU's,
 * refused where the device has no step for it yet, the drive kept, and the accessors formed
 * from blocks read back from the device in kbe_core.c's layouts and by its formulas.
 *
 * Order p = 3 .. 5: the start block (the first K = 2p - 2 steps and their collocation
 * re-solve, kbe_start.c: a few rows, a dense solve per k) is the CPU's own — a kbe of the
 * same spec with steps = K, stepped alongside — and each of its rows is put on the device
 * after its step (all of rows 1 .. K again at step K, which the start block changed): the
 * same numbers as the CPU's run, bit for bit.  Past K the device steps (kbe_cuda_bdf.cu),
 * reading only G's rows and the drive.  Checkpoint rows n <= K are that kbe's records (row K
 * with the start block's rows, kbe_rows.c), read back into it too, so that a run stopped in
 * the start goes on there. */
#include "kbe_cuda.h"
#include "kbe_cuda_device.h"

#include "mcf/error.h"
#include "mcf_cuda.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct kbcu {
    kbe_spec spec;
    double *eps;          /* the spec's copy */
    double *E, *U;        /* the drive at t_0 .. t_steps */
    double complex *blk;  /* 2 blocks of 4 nk: read back */
    double complex *g0;   /* G^<(0, 0), G^>(0, 0) as created (row 0's check) */
    size_t n, row_next;   /* steps taken; the row kbcu_row_read takes next */
    double residual;      /* the residual of row n when it was read (have_residual) */
    int have_residual;
    int order;            /* 2 or 3 .. 5 */
    kbe *start;           /* order > 2: the CPU's start block, steps = min(steps, K) */
    size_t kstart;        /* its steps */
    unsigned char *rec;   /* order > 2: a record of the start's largest row */
    int launch_each;      /* 1: a step's kernels launched one by one, not as one graph */
    kbcu_dev *d;
};

int kbcu_probe(char *why, size_t len) { return mcu_probe(why, len); }

int kbcu_create(const kbe_spec *spec, double E0, double U0, kbcu **out)
{
    *out = NULL;
    int rc = kbe_spec_check(spec);
    if (rc)
        return rc;
    if (spec->selfenergy == KBE_SELFENERGY_GIVEN)
        return mcf_fail(MCF_EINVAL, "kbe-cuda: a self-energy given by the caller is not on the "
                        "GPU; use the CPU's kbe");
    if (!isfinite(E0) || !isfinite(U0))
        return mcf_fail(MCF_EINVAL, "kbe-cuda: the drive at t = 0 is not finite (E %g, U %g)",
                        E0, U0);
    char why[256];
    if (!mcu_probe(why, sizeof why)) /* mcf kbe has no evaluator = auto: name the CPU's */
        return mcf_fail(MCF_EDEVICE, "kbe-cuda: %s; use evaluator = kbe (the CPU's)", why);
    const size_t nk = spec->nk, steps = spec->steps;
    kbcu *w = calloc(1, sizeof *w);
    double complex *g0 = malloc(8 * nk * sizeof *g0);
    if (w) {
        w->g0 = g0;
        w->eps = malloc(2 * nk * sizeof *w->eps);
        w->E = malloc((steps + 1) * sizeof *w->E);
        w->U = malloc((steps + 1) * sizeof *w->U);
        w->blk = malloc(8 * nk * sizeof *w->blk);
    }
    if (!w || !g0 || !w->eps || !w->E || !w->U || !w->blk) {
        if (!w)
            free(g0);
        kbcu_destroy(w);
        return mcf_fail(MCF_ENOMEM, "kbe-cuda: out of host memory");
    }
    w->spec = *spec;
    memcpy(w->eps, spec->eps, 2 * nk * sizeof *w->eps);
    w->spec.eps = w->eps;
    w->spec.rho0 = NULL; /* the initial state lives on the device */
    w->E[0] = E0;
    w->U[0] = U0;
    w->order = spec->order > 2 ? spec->order : 2;
    kbe_initial_blocks(nk, spec->rho0, g0, g0 + 4 * nk); /* the CPU's G(0, 0), bit for bit */
    /* order p: kbe_core.c's tables (kbe_order_init) and the start block's kbe */
    double bdf[KBE_GREGORY_MAX_ORDER + 1] = {0};
    double greg[(2 * KBE_GREGORY_MAX_ORDER + 2) * (2 * KBE_GREGORY_MAX_ORDER + 2)] = {0};
    if (w->order > 2) {
        const size_t p = (size_t)w->order, width = 2 * p + 2;
        kbe_bdf_weights(w->order, bdf);
        for (size_t n = 0; n < width; n++)
            kbe_gregory_weights(w->order, n, greg + n * width);
        kbe_spec ss = *spec;
        w->kstart = 2 * p - 2 < steps ? 2 * p - 2 : steps;
        ss.steps = w->kstart;
        ss.memory_limit = 0; /* the start's few rows: the spec's limit is for the device */
        rc = kbe_create(&ss, E0, U0, &w->start);
        if (!rc && !(w->rec = malloc(kbe_row_bytes(w->start, w->kstart))))
            rc = mcf_fail(MCF_ENOMEM, "kbe-cuda: out of host memory");
        if (rc) {
            kbcu_destroy(w);
            return rc;
        }
    }
    const kbcu_dev_spec ds = {
        .nk = nk, .steps = steps, .selfenergy = (int)spec->selfenergy,
        .direct = spec->sigma_method == KBE_SIGMA_DIRECT, .dt = spec->dt,
        .dipole = spec->dipole, .eps = spec->eps, .g0l = (const double *)g0,
        .g0g = (const double *)(g0 + 4 * nk), .E0 = E0, .U0 = U0, .order = w->order,
        .bdf = bdf, .greg = greg};
    rc = kbcu_dev_create(&ds, &w->d);
    if (rc) {
        kbcu_destroy(w);
        return rc;
    }
    *out = w;
    return MCF_OK;
}

void kbcu_destroy(kbcu *w)
{
    if (!w)
        return;
    kbcu_dev_destroy(w->d);
    kbe_destroy(w->start);
    free(w->rec);
    free(w->eps);
    free(w->E);
    free(w->U);
    free(w->blk);
    free(w->g0);
    free(w);
}

/* row m of the start's kbe, its record in w->rec, onto the device */
static int put_start_row(kbcu *w, size_t m)
{
    int rc = kbe_row_write(w->start, m, w->rec);
    if (rc)
        return rc;
    const double *g = (const double *)(w->rec + KBE_ROW_HEAD_BYTES);
    const size_t vals = 2 * 4 * w->spec.nk * (m + 1);
    const int b2 = w->spec.selfenergy == KBE_SELFENERGY_2B;
    return kbcu_dev_put_row(w->d, m, g, g + vals, b2 ? g + 2 * vals : NULL, w->E[m], w->U[m]);
}

/* a step of the start block on the CPU's kbe, its row put (at step K rows 1 .. K: the
 * start block solved them again); the residual the CPU's */
static int start_step(kbcu *w, double E_next, double U_next)
{
    const size_t n1 = w->n + 1;
    int rc = kbe_step(w->start, E_next, U_next);
    if (rc)
        return rc;
    w->E[n1] = E_next;
    w->U[n1] = U_next;
    for (size_t m = n1 == 2 * (size_t)w->order - 2 ? 1 : n1; m <= n1 && !rc; m++)
        rc = put_start_row(w, m);
    if (rc)
        return rc;
    w->n = n1;
    w->residual = kbe_corrector_residual(w->start);
    w->have_residual = 1;
    return MCF_OK;
}

int kbcu_step(kbcu *w, double E_next, double U_next)
{
    const size_t n = w->n, n1 = n + 1;
    if (n >= w->spec.steps)
        return mcf_fail(MCF_EINVAL, "kbe-cuda: step %zu is past the %zu steps the storage holds",
                        n1, w->spec.steps);
    if (!isfinite(E_next) || !isfinite(U_next))
        return mcf_fail(MCF_EINVAL, "kbe-cuda: the drive at step %zu is not finite (E %g, U %g)",
                        n1, E_next, U_next);
    const int passes = w->spec.selfenergy == KBE_SELFENERGY_NONE ? 1 : 1 + w->spec.correctors;
    if (w->start && n1 <= w->kstart) /* the start block: the CPU's (start_step) */
        return start_step(w, E_next, U_next);
    /* a step as one CUDA graph (kbe_cuda_graph.cu) unless launch_each; orders 3 .. 5 past the
     * start block by their BDF step */
    const int bdf = w->order > 2;
    const int rc = !w->launch_each ? kbcu_dev_step_graph(w->d, n, E_next, U_next, passes, bdf)
                   : bdf           ? kbcu_dev_step_bdf(w->d, n, E_next, U_next, passes)
                                   : kbcu_dev_step(w->d, n, E_next, U_next, passes);
    if (rc)
        return rc;
    w->E[n1] = E_next;
    w->U[n1] = U_next;
    w->n = n1;
    w->have_residual = 0;
    return MCF_OK;
}

size_t kbcu_steps_done(const kbcu *w) { return w->n; }

int kbcu_corrector_residual(kbcu *w, double *r)
{
    if (w->have_residual) { /* the rows were read: the record's */
        *r = w->residual;
        return MCF_OK;
    }
    if (w->n == 0) {
        *r = 0.0;
        return MCF_OK;
    }
    return kbcu_dev_residual(w->d, r);
}

int kbcu_green(kbcu *w, int lesser, size_t i, size_t j, double complex *g)
{
    const size_t nk = w->spec.nk;
    if (i > w->n || j > w->n)
        return mcf_fail(MCF_EINVAL, "kbe-cuda: G at (%zu, %zu) past the %zu steps taken", i, j,
                        w->n);
    const int rc = kbcu_dev_block(w->d, lesser, i >= j ? i : j, i >= j ? j : i,
                                  (double *)w->blk);
    if (rc)
        return rc;
    const double complex *b = w->blk;
    for (size_t k = 0; k < nk; k++)
        for (int a = 0; a < 2; a++)
            for (int c = 0; c < 2; c++) /* G(t_i, t_j) = -G(t_j, t_i)^dagger for i < j */
                g[4 * k + 2 * a + c] = i >= j ? b[(2 * a + c) * nk + k]
                                              : -conj(b[(2 * c + a) * nk + k]);
    return MCF_OK;
}

int kbcu_energies(kbcu *w, size_t n, double *e_band, double *e_field, double *e_int)
{
    const size_t nk = w->spec.nk;
    if (n > w->n)
        return mcf_fail(MCF_EINVAL, "kbe-cuda: energies at step %zu past the %zu taken", n, w->n);
    double complex *diag = w->blk, *idiag = w->blk + 4 * nk;
    int rc = kbcu_dev_block(w->d, 1, n, n, (double *)diag);
    const int b2 = w->spec.selfenergy == KBE_SELFENERGY_2B;
    if (!rc && b2)
        rc = kbcu_dev_idiag(w->d, n, (double *)idiag);
    if (rc)
        return rc;
    kbe_energies_of(&w->spec, w->E[n], w->U[n], diag, b2 ? idiag : NULL, e_band, e_field,
                    e_int);
    return MCF_OK;
}

int kbcu_time_parts(kbcu *w, size_t m, int reps, double *t_sigma, double *t_collision)
{
    if (m > w->n || reps < 1)
        return mcf_fail(MCF_EINVAL, "kbe-cuda: timing row %zu (%zu taken), %d repetitions", m,
                        w->n, reps);
    return kbcu_dev_time_parts(w->d, m, reps, t_sigma, t_collision);
}

int kbcu_density(kbcu *w, size_t n, double complex *rho)
{
    const size_t nk = w->spec.nk;
    if (n > w->n)
        return mcf_fail(MCF_EINVAL, "kbe-cuda: the density at step %zu past the %zu taken", n,
                        w->n);
    const int rc = kbcu_dev_block(w->d, 1, n, n, (double *)w->blk);
    if (rc)
        return rc;
    for (size_t k = 0; k < nk; k++)
        for (int ab = 0; ab < 4; ab++)
            rho[4 * k + ab] = -I * w->blk[ab * nk + k];
    return MCF_OK;
}

static int is_2b(const kbcu *w) { return w->spec.selfenergy == KBE_SELFENERGY_2B; }

size_t kbcu_row_bytes(const kbcu *w, size_t n)
{
    if (w->start && n <= w->kstart) /* the start's record (row K with its block) */
        return kbe_row_bytes(w->start, n);
    const size_t bb = 4 * w->spec.nk * sizeof(double complex);
    return KBE_ROW_HEAD_BYTES + (2 * (n + 1) + (is_2b(w) ? 1 : 0)) * bb;
}

int kbcu_row_write(const kbcu *w, size_t n, void *buf)
{
    if (!buf)
        return mcf_fail(MCF_EINVAL, "kbe-cuda: no buffer for row %zu", n);
    if (n > w->n)
        return mcf_fail(MCF_EINVAL, "kbe-cuda: row %zu is past the %zu steps taken", n, w->n);
    if (w->start && n <= w->kstart) { /* the start's record, as the CPU's kbe writes it */
        const int rc = kbe_row_write(w->start, n, buf);
        const double zero = 0.0; /* the residual: the last step's row only */
        if (!rc && n != w->n)
            memcpy((unsigned char *)buf + KBE_ROW_HEAD_BYTES - sizeof zero, &zero, sizeof zero);
        return rc;
    }
    double r = 0.0; /* as the CPU's: only the last row knows its step's residual */
    kbcu *m = (kbcu *)w; /* the device's copies; nothing of w changes */
    int rc = n == w->n ? kbcu_corrector_residual(m, &r) : MCF_OK;
    if (rc)
        return rc;
    unsigned char *p = buf;
    kbe_row_head_put(&w->spec, w->order, w->spec.nk, n, w->E[n], w->U[n], r, p);
    double *g = (double *)(p + KBE_ROW_HEAD_BYTES); /* 8-byte aligned past the header */
    const size_t vals = 2 * 4 * w->spec.nk * (n + 1);
    return kbcu_dev_get_row(w->d, n, g, g + vals, is_2b(w) ? g + 2 * vals : NULL);
}

/* row K's record past its own blocks: rows 1 .. K - 1 as the start block made them (G^<
 * then G^> of each), then their I^<(t_m, t_m) with second Born (kbe_rows.c's row_blocks) */
static int put_start_block(kbcu *w, size_t K, const double *at)
{
    const size_t bv = 2 * 4 * w->spec.nk; /* doubles of a block */
    const double *id = at;
    for (size_t m = 1; m < K; m++)
        id += 2 * (m + 1) * bv;
    int rc = MCF_OK;
    for (size_t m = 1; m < K && !rc; m++) {
        rc = kbcu_dev_put_row(w->d, m, at, at + (m + 1) * bv, is_2b(w) ? id : NULL, w->E[m],
                              w->U[m]);
        at += 2 * (m + 1) * bv;
        id += bv;
    }
    return rc;
}

int kbcu_row_read(kbcu *w, size_t n, const void *buf)
{
    if (!buf)
        return mcf_fail(MCF_EINVAL, "kbe-cuda: no buffer for row %zu", n);
    if (n != w->row_next || w->n != (n ? n - 1 : 0))
        return mcf_fail(MCF_EINVAL, "kbe-cuda: row %zu out of order (rows are read 0, 1, ... "
                        "into a kbe-cuda not stepped; the next is %zu at step %zu)", n,
                        w->row_next, w->n);
    if (n > w->spec.steps)
        return mcf_fail(MCF_EINVAL, "kbe-cuda: row %zu is past the %zu steps the storage holds",
                        n, w->spec.steps);
    const unsigned char *p = buf;
    int rc = kbe_row_head_check(&w->spec, w->order, w->spec.nk, n, p, kbcu_row_bytes(w, n));
    if (rc)
        return rc;
    double sc[3];
    memcpy(sc, p + KBE_ROW_HEAD_BYTES - sizeof sc, sizeof sc);
    const double *g = (const double *)(p + KBE_ROW_HEAD_BYTES);
    const size_t bb = 4 * w->spec.nk * sizeof(double complex), vals = bb / 8 * (n + 1);
    if (n == 0) { /* what kbcu_create made, bit for bit (kbe_rows.c's check) */
        if (memcmp(&sc[0], &w->E[0], 8) != 0 || memcmp(&sc[1], &w->U[0], 8) != 0 ||
            sc[2] != 0.0)
            return mcf_fail(MCF_EFORMAT, "kbe-cuda: row 0 has the drive E %.17g, U %.17g where "
                            "this run starts at E %.17g, U %.17g: a foreign checkpoint", sc[0],
                            sc[1], w->E[0], w->U[0]);
        if (memcmp(g, w->g0, bb) != 0 || memcmp(g + vals, w->g0 + 4 * w->spec.nk, bb) != 0)
            return mcf_fail(MCF_EFORMAT, "kbe-cuda: row 0 has another initial state G(0, 0) "
                            "than this run's rho0: a foreign checkpoint");
        for (size_t q = 0; is_2b(w) && q < bb / 8; q++)
            if (g[2 * vals + q] != 0.0)
                return mcf_fail(MCF_EFORMAT, "kbe-cuda: row 0 has a collision integral I(0, 0) "
                                "!= 0");
    }
    if (w->start && n <= w->kstart) /* the start's kbe reads it too (its checks first) */
        rc = kbe_row_read(w->start, n, buf);
    if (!rc)
        rc = kbcu_dev_put_row(w->d, n, g, g + vals, is_2b(w) ? g + 2 * vals : NULL, sc[0],
                              sc[1]);
    if (!rc && w->start && n == 2 * (size_t)w->order - 2)
        rc = put_start_block(w, n, g + 2 * vals + (is_2b(w) ? bb / 8 : 0));
    if (rc)
        return rc;
    w->E[n] = sc[0];
    w->U[n] = sc[1];
    w->residual = sc[2];
    w->have_residual = 1;
    w->n = n;
    w->row_next = n + 1;
    return MCF_OK;
}

void kbcu_set_launch_each(kbcu *w, int on) { w->launch_each = on != 0; }

size_t kbcu_graph_instantiations(const kbcu *w) { return kbcu_dev_graph_instantiations(w->d); }
