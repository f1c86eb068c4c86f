/* fermion_abi1.c — the up adapter: an ABI-1 fermion evaluator (mcf_fermion_ops) called with
 * ABI 2's verbs (fermion_calls.h).  Each verb makes the calls that ABI 1's helpers and
 * models made, in the same order, so the draws from the streams and the results are the
 * same bits. */
#include "fermion_calls.h"

#include "mcf/error.h"

unsigned mcfi_abi1_fermion_provides(const mcf_fermion_ops *ops)
{
    if (!ops || !ops->create || !ops->destroy)
        return 0;
    const int grid = ops->energy_points && ops->energies;
    unsigned p = 0;
    if (MCF_HAS(mcf_fermion_ops, ops, change_action))
        p |= MCF_PROVIDES_CHANGE_ACTION;
    if (ops->occupation)
        p |= MCF_PROVIDES_OCCUPATION;
    if (ops->dos && grid)
        p |= MCF_PROVIDES_DOS;
    if (ops->ldos && grid)
        p |= MCF_PROVIDES_LDOS;
    if (ops->green && grid)
        p |= MCF_PROVIDES_GREEN;
    if (MCF_HAS(mcf_fermion_ops, ops, action))
        p |= MCF_PROVIDES_ACTION;
    if (MCF_HAS(mcf_fermion_ops, ops, moment_count) &&
        MCF_HAS(mcf_fermion_ops, ops, dos_moments) &&
        MCF_HAS(mcf_fermion_ops, ops, ldos_moments) &&
        MCF_HAS(mcf_fermion_ops, ops, reconstruct) && grid)
        p |= MCF_PROVIDES_MOMENTS;
    if (MCF_HAS(mcf_fermion_ops, ops, occupation_dT))
        p |= MCF_PROVIDES_OCCUPATION_DT;
    return p;
}

/* spectra: the sizes of ws[0]; then the grid, the LDOS (with its moments), the Green's
 * functions and the DOS (with its moments, from one trace), in that order */
int mcfi_abi1_fermion_spectra(const mcf_fermion_ops *ops, void *const *ws, size_t n,
                              mcf_rng *const *rngs, mcf_spectra *s)
{
    const unsigned p = mcfi_abi1_fermion_provides(ops);
    s->points = n && ops->energy_points ? ops->energy_points(ws[0]) : 0;
    s->moments = n && (p & MCF_PROVIDES_MOMENTS) ? ops->moment_count(ws[0]) : 0;
    int rc = MCF_OK;
    for (size_t k = 0; s->energies && k < n && !rc; k++)
        rc = ops->energies(ws[k], s->energies[k]);
    if (!rc && s->ldos_moments)
        rc = ops->ldos_moments(ws, n, s->rows, s->n_rows, s->ldos_moments, s->moment_scale,
                               s->ldos);
    else if (!rc && s->ldos)
        rc = ops->ldos(ws, n, s->rows, s->n_rows, s->ldos);
    if (!rc && (s->green_re || s->green_im))
        rc = ops->green(ws, n, s->rows, s->n_rows, s->green_re, s->green_im);
    if (!rc && s->dos_moments)
        rc = ops->dos_moments(ws, n, rngs, s->dos_moments, s->dos_moments_var,
                              s->moment_scale, s->dos);
    else if (!rc && s->dos)
        rc = ops->dos(ws, n, rngs, s->dos);
    return rc;
}
