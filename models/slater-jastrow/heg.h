/* heg.h — the homogeneous electron gas (HEG) in a periodic cube: set-up (cell side,
 * closed shells, occupied plane waves) and the exact finite-N Hartree-Fock energy with
 * the Ewald interaction of ewald.h.  Part of the static library mcf_ewald.  Hartree
 * atomic units.
 *
 * ---- Set-up --------------------------------------------------------------------------
 * N electrons at density n = 3 / (4 pi r_s^3) in a cube of side L: L^3 = (4/3) pi r_s^3 N.
 * Orbitals exp(i k.r) / sqrt(V), k = (2 pi / L) n with integer n.  A closed shell per spin
 * fills every n with |n|^2 <= s for some s: N_sigma = 1, 7, 19, 27, 33, 57, 81, 93, 123,
 * ... (the cumulative counts of r_3(m), the number of ways to write m as a sum of three
 * squares; m = 7 has none, so 81 appears once).  Unpolarized: N_up = N_down = N / 2, both
 * closed (N = 2, 14, 38, 54, 66, 114, ...); polarized: N_up = N, N_down = 0.
 * Occupied vectors are ordered by |n|^2, then n_x, n_y, n_z ascending; the first is 0.
 *
 * ---- Hartree-Fock energy: derivation ----------------------------------------------------
 * The Hamiltonian whose Ewald energy ewald.h computes is, for electrons (q = -1) in the
 * background,
 *   H = sum_i -(1/2) nabla_i^2 + sum_{i<j} phi_E(r_i - r_j) + N v_M / 2,
 * with phi_E(r) = (4 pi / V) sum_{G != 0} exp(i G.r) / G^2 (zero cell average) and v_M the
 * Madelung constant of the cell (ewald.h: "equivalent pair form"; q_i q_j = 1, Q2 = N).
 * Take the Slater determinant D of the plane waves phi_k, k in the occupied set K_sigma of
 * each spin.  Slater-Condon rules for a one-determinant expectation value:
 *   <D| sum_{i<j} v(r_i - r_j) |D> = (1/2) sum_{a != b} [ <ab|v|ab> - delta_{s_a s_b} <ab|v|ba> ]
 * (a = b terms cancel between direct and exchange).  With plane waves,
 *   <ab|v|ab> = (1/V^2) int int v(r - r') dr dr' = v~(0) / V,
 *   <ab|v|ba> = (1/V^2) int int exp(-i(k_a - k_b).(r - r')) v(r - r') dr dr'
 *             = v~(k_a - k_b) / V,
 * where v~(G) = int_cell v(r) exp(-i G.r) dr.  For v = phi_E: v~(0) = 0 (zero average, the
 * background cancels the direct/Hartree term exactly), v~(G) = 4 pi / G^2 for G != 0, and
 * k_a - k_b is a nonzero reciprocal lattice vector for a != b of the same spin.  So
 *   <D|H|D> = sum_sigma sum_{k in K_sigma} k^2 / 2
 *             - (1/2) sum_sigma sum_{k, k' in K_sigma, k != k'} 4 pi / (V |k - k'|^2)
 *             + N v_M / 2,
 * exactly (no Ewald cutoff enters: the Gaussian splitting cancels analytically; only v_M
 * is a lattice sum, evaluated by ewald.h to the requested accuracy).  Per electron:
 *   kinetic  = (1/N) sum_sigma sum_k k^2/2 = (2 pi^2 / L^2) (1/N) sum_sigma sum_n |n|^2,
 *   exchange = -(1/(2N)) sum_sigma sum_{k != k'} 4 pi / (V |k - k'|^2)
 *            = -(1 / (2 pi N L)) sum_sigma sum_{n != n'} 1 / |n - n'|^2,
 *   madelung = v_M / 2 = -2.837297479480619... / (2 L),
 * the split used by Fraser et al., PRB 53, 1814 (1996), and Drummond et al., PRB 78,
 * 125106 (2008).  Kinetic ~ 1/r_s^2 and exchange + madelung ~ 1/r_s exactly, since
 * L ~ r_s at fixed N.  The exchange and Madelung parts separately depend on how the
 * Coulomb interaction is periodized; only their sum is the Ewald-Hamiltonian value.
 *
 * Errors: functions returning int give MCF_OK or an MCF_E* code with a message
 * (mcf_fail).  Pointers are borrowed unless said otherwise. */
#ifndef MCF_SJ_HEG_H
#define MCF_SJ_HEG_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MCF_HEG_MAX_ELECTRONS 1000000 /* larger N are refused */

/* Cell side L (bohr) for r_s (> 0, finite) and N >= 1 electrons: L^3 = (4/3) pi r_s^3 N.
 * MCF_EINVAL otherwise. */
int mcf_heg_cell_side(double rs, size_t n_electrons, double *L);

/* Nonzero when n_per_spin fills whole shells |n|^2 <= s. */
int mcf_heg_is_closed_shell(size_t n_per_spin);

/* The first `count` closed-shell numbers per spin (1, 7, 19, ...) into out[count].
 * MCF_EINVAL if count is 0 or out NULL, MCF_ENOMEM. */
int mcf_heg_closed_shells(size_t count, size_t *out);

/* Checks N and the polarization and gives the electrons per spin.  Unpolarized (polarized
 * = 0): N even and N / 2 a closed shell; polarized: N a closed shell, n_down = 0.  The
 * refusal (MCF_EINVAL) names the valid N just below and above and lists the first ones. */
int mcf_heg_electrons(size_t n_electrons, int polarized, size_t *n_up, size_t *n_down);

/* The occupied vectors of one spin: n_per_spin must be a closed shell.  n_out (3 n_per_spin
 * ints, may be NULL) gets the integer triplets, k_out (3 n_per_spin doubles, may be NULL)
 * k = 2 pi n / L for L > 0.  Errors: MCF_EINVAL (not a closed shell, L <= 0 with k_out),
 * MCF_ENOMEM. */
int mcf_heg_occupied(size_t n_per_spin, double L, int *n_out, double *k_out);

typedef struct mcf_heg_hf {
    size_t n_up, n_down;
    double rs, L;      /* bohr */
    double v_M;        /* Madelung constant of the cell (hartree) */
    double kinetic;    /* per electron (hartree) */
    double exchange;   /* per electron */
    double madelung;   /* per electron: v_M / 2 */
    double total;      /* per electron: kinetic + exchange + madelung */
} mcf_heg_hf;

/* The exact expectation value, per electron, of the Ewald Hamiltonian in the closed-shell
 * plane-wave determinant (the derivation above), with v_M from ewald.h at relative
 * accuracy `accuracy` (0 -> 1e-12).  Errors: MCF_EINVAL (from mcf_heg_electrons,
 * mcf_heg_cell_side, the accuracy), MCF_ENOMEM. */
int mcf_heg_hartree_fock(size_t n_electrons, int polarized, double rs, double accuracy,
                         mcf_heg_hf *out);

#ifdef __cplusplus
}
#endif
#endif
