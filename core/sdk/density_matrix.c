/* density_matrix.c — what a model does with the density matrix of its Hamiltonian (mcf 1.1):
 * the contraction Tr[rho dH/dx] for one parameter (mcf/fermion_model.h) and the gradient
 * with respect to the field of factorized hoppings (mcf/hamiltonian_factors.h).  Plain
 * sums in a fixed order: the same bits on every machine and thread count. */
#include "mcf/fermion_model.h"
#include "mcf/hamiltonian_factors.h"

#include "mcf/error.h"

double mcf_density_matrix_force(const mcf_hamiltonian *h, const double *diag,
                                const double *bond_re, const double *bond_im,
                                const double *d_onsite, const double *d_re, const double *d_im)
{
    double sum = 0.0;
    if (d_onsite)
        for (size_t r = 0; r < h->dim; r++)
            sum += diag[r] * d_onsite[r];
    if (d_re || d_im)
        for (size_t s = 0; s < (size_t)h->width * h->dim; s++) {
            if (h->col[s] < 0)
                continue;
            /* Re(conj(rho) dH) = rho_re dH_re + rho_im dH_im */
            sum += (d_re ? bond_re[s] * d_re[s] : 0.0) + (d_im ? bond_im[s] * d_im[s] : 0.0);
        }
    return sum;
}

int mcf_hamiltonian_factors_gradient(const mcf_hamiltonian *h, const double *bond_re,
                                     const double *bond_im, double *grad)
{
    const char *who = "mcf_hamiltonian_factors_gradient";
    if (!h || !h->factors)
        return mcf_fail(MCF_EINVAL, "%s: the Hamiltonian has no factorized hoppings "
                        "(mcf_hamiltonian_factorize)", who);
    const struct mcf_hamiltonian_factors *f = h->factors;
    const size_t rank = (size_t)f->rank;
    if (rank == 0)
        return mcf_fail(MCF_EINVAL, "%s: the hoppings were factorized with rank 0 (a uniform "
                        "hopping): there is no field, and every force is on-site", who);
    if (!bond_re || !bond_im || !grad)
        return mcf_fail(MCF_EINVAL, "%s: NULL %s", who, !grad ? "grad" : "density matrix");
    const int z = f->coordination;
    for (size_t i = 0; i < h->sites; i++) {
        double g[2 * MCF_FACTORS_RANK_MAX] = {0};
        for (int k = 0; k < z; k++) {
            const size_t s = (size_t)k * h->dim + i;
            const int32_t j = h->col[s];
            if (j < 0)
                continue;
            /* rho_ji = conj(rho_ij), and rho_ij sits at slot k of row i */
            const double rr = bond_re[s], ri = -bond_im[s];
            const double *aj = f->field + 2 * rank * (size_t)j;
            for (size_t c = 0; c < rank; c++) {
                g[2 * c] += rr * aj[2 * c] - ri * aj[2 * c + 1];
                g[2 * c + 1] += rr * aj[2 * c + 1] + ri * aj[2 * c];
            }
        }
        for (size_t c = 0; c < 2 * rank; c++)
            grad[2 * rank * i + c] = f->amplitude * g[c];
    }
    return MCF_OK;
}
