/* sj_checkpoint.c — a slater-jastrow chain in a checkpoint: save and load, and the
 * checks that a loaded chain is the one saved.
 *
 * save: N, N_up, positions, the rows A and inverses Ainv (they accumulate rounding through
 * Sherman-Morrison, so they are saved, not recomputed), the move stream, step, counters.
 * load: reads them, re-evaluates the orbitals at the positions and checks them against A,
 * and checks |Ainv A - 1| (MCF_EFORMAT when they do not match). */
#include "slater_jastrow_internal.h"

#include <math.h>

#define SJ_MAGIC 0x534a564d43303031ULL /* "SJVMC001" */
#define SJ_LOAD_TOL 1e-6               /* |Ainv A - 1| accepted on load */

int sj_save(const void *chain, mcf_stream *out)
{
    const sj_chain *c = chain;
    const uint64_t head[3] = {SJ_MAGIC, c->n, c->n_up};
    int rc;
    if (c->on_ev && (rc = pull_dets((sj_chain *)chain))) /* A, Ainv: host copies refreshed */
        return rc;
    if ((rc = mcf_stream_write(out, head, sizeof head)) ||
        (rc = mcf_stream_write(out, c->r, 3 * c->n * sizeof *c->r)))
        return rc;
    for (size_t s = 0; s < 2; s++) {
        const size_t m = spin_count(c, s);
        if ((rc = mcf_stream_write(out, c->A[s], m * m * sizeof(double))) ||
            (rc = mcf_stream_write(out, c->Ainv[s], m * m * sizeof(double))))
            return rc;
    }
    if ((rc = mcf_stream_write(out, &c->mv, sizeof c->mv)) ||
        (rc = mcf_stream_write(out, &c->step, sizeof c->step)) ||
        (rc = mcf_stream_write(out, &c->accepted_since, sizeof c->accepted_since)) ||
        (rc = mcf_stream_write(out, &c->refreshes, sizeof c->refreshes)) ||
        (rc = mcf_stream_write(out, &c->max_drift, sizeof c->max_drift)))
        return rc;
    return MCF_OK;
}

int sj_load(void *chain, mcf_stream *in)
{
    sj_chain *c = chain;
    uint64_t head[3];
    int rc;
    if ((rc = mcf_stream_read(in, head, sizeof head)))
        return rc;
    if (head[0] != SJ_MAGIC || head[1] != c->n || head[2] != c->n_up)
        return mcf_fail(MCF_EFORMAT, "slater-jastrow: the checkpoint record is not a "
                        "slater-jastrow chain of N = %zu (N_up = %zu) electrons", c->n, c->n_up);
    if ((rc = mcf_stream_read(in, c->r, 3 * c->n * sizeof *c->r)))
        return rc;
    for (size_t s = 0; s < 2; s++) {
        const size_t m = spin_count(c, s);
        if ((rc = mcf_stream_read(in, c->A[s], m * m * sizeof(double))) ||
            (rc = mcf_stream_read(in, c->Ainv[s], m * m * sizeof(double))))
            return rc;
    }
    if ((rc = mcf_stream_read(in, &c->mv, sizeof c->mv)) ||
        (rc = mcf_stream_read(in, &c->step, sizeof c->step)) ||
        (rc = mcf_stream_read(in, &c->accepted_since, sizeof c->accepted_since)) ||
        (rc = mcf_stream_read(in, &c->refreshes, sizeof c->refreshes)) ||
        (rc = mcf_stream_read(in, &c->max_drift, sizeof c->max_drift)))
        return rc;
    for (size_t i = 0; i < 3 * c->n; i++)
        if (!isfinite(c->r[i]))
            return mcf_fail(MCF_EFORMAT, "slater-jastrow: checkpoint: a non-finite position");
    if (!(c->step > 0.0) || !isfinite(c->step))
        return mcf_fail(MCF_EFORMAT, "slater-jastrow: checkpoint: step %g is not positive",
                        c->step);
    /* check: the saved rows are the orbitals at the saved positions, and Ainv their inverse
     * (the orbitals are O(1), so 1e-6 absolute is far above rounding, far below an error) */
    if ((rc = values_here(c)))
        return rc;
    for (size_t s = 0; s < 2; s++) {
        const size_t m = spin_count(c, s), first = s == 0 ? 0 : c->n_up;
        for (size_t i = 0; i < m; i++)
            for (size_t l = 0; l < m; l++)
                if (!(fabs(c->A[s][i * m + l] - c->phi[(first + i) * c->norb + l]) <=
                      SJ_LOAD_TOL))
                    return mcf_fail(MCF_EFORMAT, "slater-jastrow: checkpoint: the saved Slater "
                                    "matrix does not match the orbitals at the saved positions "
                                    "(a different evaluator or cell?)");
        const double d = m ? drift(c->A[s], c->Ainv[s], m) : 0.0;
        if (!(d <= SJ_LOAD_TOL))
            return mcf_fail(MCF_EFORMAT, "slater-jastrow: checkpoint: the saved inverse Slater "
                            "matrix is off by %g (max |Ainv A - 1|)", d);
    }
    if (c->on_ev && (rc = push_dets(c)))
        return rc;
    return mcf_ewald_set_positions(c->ew, c->r);
}
