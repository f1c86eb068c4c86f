/* blip_cuda_walker_sweep.cu — the walker_sweep op (blip_cuda.h: bcu_walker_sweep): checks
 * the walkers, stages their positions, trial positions and streams, launches the sweep
 * kernel (blip_cuda_det_sweep.cu) and hands back the decisions, log ratios, positions and
 * streams. */
#include "blip_cuda.h"
#include "blip_cuda_internal.h"

#include "mcf/error.h"

#include <cuda_runtime.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

extern "C" double bcu_sweep_last_time(mcf_batch *b)
{
    bcu_batch *kb;
    return bcu_batch_of(b, &kb) ? 0.0 : kb->sweep_time;
}

extern "C" size_t bcu_sweep_window(size_t delay, size_t m_max, size_t n_electrons)
{
    if (bcu_device_init())
        return 0;
    return sweep_window(delay, (unsigned int)m_max, (unsigned int)n_electrons);
}

int sweep_check_common(const char *op, int have_walkers, const mcf_pair_function u[2],
                       const double cell[3])
{
    if (!have_walkers)
        return mcf_fail(MCF_EINVAL, "blip-cuda: %s: NULL array of walkers", op);
    if (!u || !cell)
        return mcf_fail(MCF_EINVAL, "blip-cuda: %s: NULL pair functions or cell", op);
    for (int a = 0; a < 3; a++)
        if (!(cell[a] > 0.0) || !isfinite(cell[a]))
            return mcf_fail(MCF_EINVAL, "blip-cuda: %s: cell side %d is %g", op, a, cell[a]);
    for (int s = 0; s < 2; s++) {
        const mcf_pair_function *f = &u[s];
        if (f->form != MCF_PAIR_NONE && f->form != MCF_PAIR_BSPLINE && f->form != MCF_PAIR_RPA)
            return mcf_fail(MCF_EINVAL, "blip-cuda: %s: pair function %d has form %d "
                            "(MCF_PAIR_NONE, _BSPLINE or _RPA)", op, s, (int)f->form);
        if (f->form == MCF_PAIR_BSPLINE && (f->n_coef < 4 || f->n_coef > MCF_PAIR_COEF_MAX))
            return mcf_fail(MCF_EINVAL, "blip-cuda: %s: pair function %d has %u B-spline "
                            "coefficients (4 to %d)", op, s, (unsigned)f->n_coef,
                            MCF_PAIR_COEF_MAX);
    }
    return MCF_OK;
}

int sweep_dets(const void *walkers, size_t stride, size_t n, bcu_det ***dets, size_t *nd,
               size_t *n_elec, unsigned int *m_max, unsigned int *n_max)
{
    bcu_det **d = (bcu_det **)malloc(2 * n * sizeof *d);
    if (!d)
        return mcf_fail(MCF_ENOMEM, "blip-cuda: out of memory");
    *nd = *n_elec = 0;
    *m_max = *n_max = 1;
    for (size_t k = 0; k < n; k++) {
        const bcu_walker *w = (const bcu_walker *)((const char *)walkers + k * stride);
        size_t nk = 0;
        for (int s = 0; s < 2; s++) {
            bcu_det *x = (bcu_det *)w->det[s];
            if (!x)
                continue;
            d[(*nd)++] = x;
            nk += x->m;
            *m_max = x->m > *m_max ? x->m : *m_max;
        }
        *n_max = nk > *n_max ? (unsigned int)nk : *n_max;
        *n_elec += nk;
    }
    *dets = d;
    return MCF_OK;
}

static int sw_check(const bcu_walker *w, size_t n, const mcf_pair_function u[2],
                    const double cell[3])
{
    int rc = sweep_check_common("walker_sweep", !n || w, u, cell);
    if (rc)
        return rc;
    for (size_t k = 0; k < n; k++) {
        const bcu_det *d0 = (const bcu_det *)w[k].det[0], *d1 = (const bcu_det *)w[k].det[1];
        if (!d0 && !d1)
            return mcf_fail(MCF_EINVAL, "blip-cuda: walker_sweep: walker %zu has no "
                            "determinant", k);
        if (!w[k].r || !w[k].trial || !w[k].rng || !w[k].accepted)
            return mcf_fail(MCF_EINVAL, "blip-cuda: walker_sweep: walker %zu: NULL positions, "
                            "trial positions, stream or decisions", k);
        for (int s = 0; s < 2; s++) {
            const bcu_det *d = s ? d1 : d0;
            if (d && !d->have_trial)
                return mcf_fail(MCF_EINVAL, "blip-cuda: walker_sweep: walker %zu, spin %d: "
                                "no trial rows (det_trial first)", k, s);
        }
    }
    return MCF_OK;
}

extern "C" unsigned int bcu_sweep_last_blocks(mcf_batch *b)
{
    bcu_batch *kb;
    return bcu_batch_of(b, &kb) ? 0 : kb->sweep_blocks;
}

extern "C" int bcu_walker_sweep(mcf_batch *b, bcu_walker *w, size_t n,
                                const mcf_pair_function u[2], const double cell[3],
                                size_t delay)
{
    return bcu_walker_sweep_blocks(b, w, n, u, cell, delay, 0);
}

extern "C" int bcu_walker_sweep_blocks(mcf_batch *b, bcu_walker *w, size_t n,
                                       const mcf_pair_function u[2], const double cell[3],
                                       size_t delay, unsigned int blocks)
{
    const double t0 = bcu_now();
    int rc = sw_check(w, n, u, cell);
    if (!rc && blocks != 0 && blocks != 1 && blocks != 2 && blocks != 4 && blocks != 8)
        rc = mcf_fail(MCF_EINVAL, "blip-cuda: walker_sweep: %u blocks per walker (0: as many "
                      "as fit, or 1, 2, 4, 8)", blocks);
    if (rc || n == 0)
        return rc;
    bcu_batch *kb;
    if ((rc = bcu_device_init()) || (rc = bcu_batch_of(b, &kb)))
        return rc;
    bcu_det **dets = NULL;
    size_t nd = 0, n_elec = 0;
    unsigned int m_max = 1, n_max = 1;
    if ((rc = sweep_dets(w, sizeof *w, n, &dets, &nd, &n_elec, &m_max, &n_max)))
        return rc;
    rc = det_check_batch("walker_sweep", dets, nd);
    if (!rc && m_max > SWEEP_M_MAX)
        rc = mcf_fail(MCF_EINVAL, "blip-cuda: walker_sweep: %u electrons of one spin; the "
                      "kernel takes at most %d", m_max, SWEEP_M_MAX);
    const unsigned int K = sweep_window(delay, m_max, n_max);
    if (!rc && K == 0)
        rc = mcf_fail(MCF_EINVAL, "blip-cuda: walker_sweep: %u electrons per walker need "
                      "more shared memory than the device's %zu bytes per block", n_max,
                      (size_t)mcu_props()->sharedMemPerBlockOptin);
    const size_t jobs_b = n * sizeof(sweep_job), u_b = 2 * sizeof(mcf_pair_function);
    const size_t in_b = jobs_b + u_b + 6 * n_elec * sizeof(double);
    const size_t outs_b = n * sizeof(sweep_out), out_b = outs_b + n_elec * (sizeof(double) + 1);
    if (!rc) {
        rc = det_flush(kb, dets, nd);
        if (!rc)
            rc = det_stage(kb, in_b, out_b);
        if (!rc) {
            sweep_job *jobs = (sweep_job *)kb->det.h_in;
            memcpy(kb->det.h_in + jobs_b, u, u_b);
            double *hp = (double *)(kb->det.h_in + jobs_b + u_b);
            double *dp = (double *)(kb->det.d_in + jobs_b + u_b);
            double *dlr = (double *)((unsigned char *)kb->det.d_out + outs_b);
            unsigned char *dacc = (unsigned char *)(dlr + n_elec);
            for (size_t k = 0; k < n; k++) {
                sweep_job *J = &jobs[k];
                memset(J, 0, sizeof *J);
                for (int s = 0; s < 2; s++) {
                    bcu_det *d = (bcu_det *)w[k].det[s];
                    if (!d)
                        continue;
                    J->Ainv[s] = d->Ainv;
                    J->A[s] = d->A;
                    J->trial[s] = d->trial;
                    J->m[s] = d->m;
                    J->L[s] = d->L;
                }
                J->n = J->m[0] + J->m[1];
                memcpy(hp, w[k].r, 3 * J->n * sizeof(double));
                memcpy(hp + 3 * J->n, w[k].trial, 3 * J->n * sizeof(double));
                J->pos = dp;
                J->lr = dlr;
                J->acc = dacc;
                J->rng = *w[k].rng;
                hp += 6 * J->n;
                dp += 6 * J->n;
                dlr += J->n;
                dacc += J->n;
            }
            cudaError_t e = cudaMemcpyAsync(kb->det.d_in, kb->det.h_in, in_b,
                                            cudaMemcpyHostToDevice, bcu_stream);
            const sweep_job *djobs = (const sweep_job *)kb->det.d_in;
            sweep_out *dout = (sweep_out *)kb->det.d_out;
            const mcf_pair_function *du = (const mcf_pair_function *)(kb->det.d_in + jobs_b);
            const unsigned int nw = (unsigned int)n;
            if (e == cudaSuccess)
                e = (cudaError_t)sweep_launch(K, nw, djobs, dout, du, cell, m_max, n_max,
                                              blocks, &kb->sweep_blocks);
            if (e == cudaSuccess)
                e = cudaMemcpyAsync(kb->det.h_out, kb->det.d_out, out_b, cudaMemcpyDeviceToHost,
                                    bcu_stream);
            if (e == cudaSuccess)
                e = cudaStreamSynchronize(bcu_stream);
            if (e != cudaSuccess)
                rc = bcu_fail(e, "the sweep of the walkers", 0);
        }
        if (!rc) { /* the results, from the batch's staging */
            const sweep_out *ho = (const sweep_out *)kb->det.h_out;
            const double *hlr = (const double *)((const unsigned char *)kb->det.h_out + outs_b);
            const unsigned char *hacc = (const unsigned char *)(hlr + n_elec);
            for (size_t k = 0; k < n && !rc; k++) {
                const size_t nk = ((const sweep_job *)kb->det.h_in)[k].n;
                if (ho[k].status)
                    rc = mcf_fail(MCF_EPLUGIN, "blip-cuda: walker_sweep: walker %zu: the log "
                                  "ratio of electron %u is NaN", k, ho[k].bad);
                *w[k].rng = ho[k].rng;
                memcpy(w[k].accepted, hacc, nk);
                if (w[k].log_ratio)
                    memcpy(w[k].log_ratio, hlr, nk * sizeof(double));
                size_t e = 0;
                for (int s = 0; s < 2; s++) {
                    bcu_det *d = (bcu_det *)w[k].det[s];
                    const size_t m = d ? d->m : 0;
                    for (size_t i = 0; i < m; i++, e++)
                        if (hacc[e])
                            for (int a = 0; a < 3; a++)
                                w[k].r[3 * e + a] = d->r[3 * i + a] = w[k].trial[3 * e + a];
                    if (d)
                        d->have_last = d->pending = 0;
                }
                hlr += nk;
                hacc += nk;
            }
        }
    }
    free(dets);
    kb->sweep_time = bcu_now() - t0;
    return rc;
}
