/* ewald.h — Ewald summation of the Coulomb energy of N point charges in an orthorhombic
 * periodic cell with a uniform neutralizing background: the static library mcf_ewald,
 * used by the Slater-Jastrow model (models/slater-jastrow) and its tests.  Not part of
 * the SDK.  Hartree atomic units throughout (lengths in bohr, energies in hartree, the
 * electron charge is q = -1).
 *
 * References (facts and formulas only): P. P. Ewald, Ann. Phys. 369, 253 (1921);
 * S. W. de Leeuw, J. W. Perram, E. R. Smith, Proc. R. Soc. A 373, 27 (1980);
 * J. Kolafa, J. W. Perram, Mol. Simul. 9, 351 (1992) (cutoff errors);
 * L. M. Fraser et al., PRB 53, 1814 (1996) (the Ewald interaction in QMC, Madelung term);
 * J. S. Hub, B. L. de Groot, H. Grubmueller, G. Groenhof, JCTC 10, 381 (2014)
 * (the background term of a net-charged cell).
 *
 * ---- The energy ---------------------------------------------------------------------
 * Cell sides L_x, L_y, L_z, volume V, lattice vectors R = (n_x L_x, n_y L_y, n_z L_z),
 * reciprocal vectors k = 2 pi (m_x / L_x, m_y / L_y, m_z / L_z).  Charges q_i at r_i,
 * Q = sum_i q_i, Q2 = sum_i q_i^2, Q1 = sum_i |q_i|, structure factor
 * rho(k) = sum_j q_j exp(i k.r_j).  Plus a uniform background of charge density -Q/V.
 * With the splitting parameter alpha (1/bohr):
 *
 *   E = E_real + E_recip + E_self + E_background
 *   E_real  = sum_{i<j} q_i q_j psi(r_i - r_j) + (Q2 / 2) psi_0,
 *             psi(r) = sum_R erfc(alpha |r + R|) / |r + R|,
 *             psi_0  = sum_{R != 0} erfc(alpha |R|) / |R|         (a charge and its images)
 *   E_recip = (2 pi / V) sum_{k != 0} exp(-k^2 / (4 alpha^2)) / k^2 |rho(k)|^2
 *           = sum_{k in half space} w_k |rho(k)|^2,  w_k = (4 pi / V) exp(-k^2/4alpha^2)/k^2
 *             (half space: m_x > 0, or m_x = 0 and m_y > 0, or m_x = m_y = 0 and m_z > 0;
 *             |rho(-k)| = |rho(k)| for real charges)
 *   E_self  = -(alpha / sqrt(pi)) Q2
 *   E_background = -pi Q^2 / (2 V alpha^2).
 *
 * The background term is the k -> 0 limit that the neutralizing background leaves: the
 * charge-background and background-background energies together cancel the divergent
 * k = 0 term and leave this finite constant (Hub et al. 2014, eq. 9).  It vanishes for a
 * neutral cell and is exactly the term the homogeneous electron gas (HEG) needs.
 *
 * Equivalent pair form (used by the Hartree-Fock reference in heg.h):
 *   E = sum_{i<j} q_i q_j phi_E(r_i - r_j) + (Q2 / 2) v_M,
 *   phi_E(r) = (4 pi / V) sum_{k != 0} exp(i k.r) / k^2
 *            = psi(r) + (4 pi / V) sum_{k != 0} exp(-k^2/4alpha^2) cos(k.r) / k^2
 *              - pi / (V alpha^2),
 *   v_M = lim_{r -> 0} [phi_E(r) - 1/r]
 *       = psi_0 + (4 pi / V) sum_{k != 0} exp(-k^2/4alpha^2) / k^2 - pi/(V alpha^2)
 *         - 2 alpha / sqrt(pi).
 * phi_E is the periodic potential of a unit charge and its images in the background -1/V;
 * its cell average is zero (no k = 0 Fourier component).  v_M, the Madelung constant of
 * the cell, is the interaction of a unit charge with its own images and with its share of
 * the background: one unit charge alone in the cell has E = v_M / 2.  For a cube of side L,
 * v_M = -2.837297479480619... / L.  Neither phi_E nor v_M depends on alpha.
 *
 * ---- Cutoffs and their errors --------------------------------------------------------
 * The real-space sum keeps the images with |r + R| < r_c, the reciprocal sum the k with
 * 0 < |k| <= k_c.  Write x = alpha r_c, y = k_c / (2 alpha), h = half the cell diagonal,
 * h_k = half the diagonal of the reciprocal cell, and take the worst case
 * |q_i q_j| <= |q_i||q_j| and |rho(k)|^2 <= Q1^2 (a crystal reaches it at its reciprocal
 * lattice vectors).  Each tail is estimated as a boundary layer plus a continuum
 * (Kolafa & Perram 1992 use the continuum alone; for few particles and r_c ~ L it misses
 * the shell of images just beyond the cutoff, e.g. the 6 images at exactly r_c = L, by a
 * factor ~30, so the layer is counted explicitly):
 *   layer: the lattice points in [r, r + h) all have their cells inside the shell
 *          [r - h, r + 2h), so there are at most
 *          n(r, h, v) = (4 pi / 3) ((r + 2h)^3 - max(r - h, 0)^3) / v  of them
 *          (v the volume per point: V in real space, (2 pi)^3 / V in k space), each
 *          contributing at most the term at r;
 *   continuum: the rest, integrated with a uniform density of points:
 *          (4 pi / V) int_{r_c}^inf r erfc(alpha r) dr <= erfc(x) / (2 alpha^2) (4 pi / V)
 *          (the integral is erfc(x) (1 - 1/(2x^2) + ...) / (2 alpha^2)), and
 *          (2 pi / V) (V / (2 pi)^3) int_{k_c}^inf 4 pi exp(-k^2/4alpha^2) dk
 *          = alpha erfc(y) / sqrt(pi).
 *   |dE_real|  ~< (Q1^2 / 2) [ n(r_c, h, V) erfc(x) / r_c + 2 pi erfc(x) / (V alpha^2) ]
 *   |dE_recip| ~< Q1^2 [ n(k_c, h_k, (2pi)^3/V) (2 pi / V) exp(-y^2) / k_c^2
 *                        + alpha erfc(y) / sqrt(pi) ].
 * The requested relative accuracy eps becomes the absolute target
 * eps_abs = eps * max(Q2, 1) / L_min (the size of the self and Madelung energies, L_min the
 * shortest side), and each estimate is set to eps_abs / 2 by bisection:
 *   alpha given:  x from the real estimate with r_c = x / alpha;
 *   alpha = 0:    r_c given (default L_min), x from the real estimate, alpha = x / r_c;
 *   then          y from the reciprocal estimate, k_c = 2 alpha y.
 * x and y are at least 2.  With the default r_c = L_min a pair needs only the 27 nearest
 * images of its minimum-image separation; at eps = 1e-12 and 14 electrons, alpha L ~ 5.9,
 * k_c L ~ 70 and about 2900 k vectors in the half space.  Measured (tests/unit/
 * test_ewald.c): the Madelung constants of sc, bcc, fcc, NaCl and CsCl at eps = 1e-12
 * agree with the published values to 3e-13 relative or better.
 *
 * ---- Evaluation ------------------------------------------------------------------------
 * rho(k) is summed by rows of k vectors with equal (m_x, m_y): per charge, one phase
 * q_j exp(i (k_x x_j + k_y y_j)) per row, and both signs of m_z from one cos and one sin
 * of m_z t_z (exp(-i m t) is the conjugate of exp(i m t)), so each k vector costs two
 * multiplications and two additions per charge.  The tables cos(m t_a), sin(m t_a),
 * t_a = 2 pi r_a / L_a, come from libm at m = 1 and every 8th m and by the angle addition
 * in between, which adds less than 1e-15 (measured) to the error that cos(t_a m) has
 * anyway from the rounding of its argument.  Measured (tests/unit/test_ewald.c): the
 * energy agrees with the same truncated sums evaluated term by term in long double to
 * 1e-14 relative; for 14 electrons at r_s = 5 (2348 k vectors in the half space, 91
 * pairs), set_positions + energy takes ~40 us on one core of an AMD EPYC: ~60% of it
 * rho(k) with its tables and |rho(k)|^2, ~40% the real-space pairs (mostly erfc).
 *
 * ---- Particle moves ------------------------------------------------------------------
 * The object caches rho(k) for the half space.  mcf_ewald_create() and
 * mcf_ewald_set_positions() only mark it stale; it is recomputed from the positions when
 * next needed: by mcf_ewald_energy() (always) or mcf_ewald_propose() (when stale).
 * mcf_ewald_propose() computes the energy change of moving particle i from r_i to r' in
 * O(N * images + n_k):
 *   dE_real  = q_i sum_{j != i} q_j [psi(r' - r_j) - psi(r_i - r_j)],
 *   dE_recip = sum_k w_k (2 Re[conj(rho(k)) d(k)] + |d(k)|^2),
 *              d(k) = q_i (exp(i k.r') - exp(i k.r_i)),
 * and keeps rho(k) + d(k); mcf_ewald_accept() installs it and r'.  psi_0, E_self and
 * E_background do not change.  Rounding accumulates in the cached rho(k) over many
 * accepted moves (about 1e-16 |rho| per move, as a random walk); mcf_ewald_energy()
 * recomputes rho(k) from the positions and so resets it.
 *
 * Positions may lie outside the cell; they are used modulo the cell.  Two charges at the
 * same point give an infinite energy (no error is raised).
 *
 * Errors: functions returning int give MCF_OK or an MCF_E* code with a message
 * (mcf_fail).  Pointers are borrowed unless said otherwise.  An mcf_ewald object is not
 * thread-safe; use one per thread (walker). */
#ifndef MCF_SJ_EWALD_H
#define MCF_SJ_EWALD_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mcf_ewald mcf_ewald;

typedef struct mcf_ewald_options {
    double accuracy; /* relative accuracy eps (see above); 0 -> 1e-12; in [1e-15, 1e-2] */
    double alpha;    /* splitting parameter in 1/bohr; 0 -> chosen from rcut */
    double rcut;     /* real-space cutoff (bohr) when alpha = 0; 0 -> the shortest side */
} mcf_ewald_options;

typedef struct mcf_ewald_parts {
    double real;       /* E_real (including the (Q2/2) psi_0 self-image part) */
    double recip;      /* E_recip */
    double self;       /* E_self */
    double background; /* E_background */
    double total;      /* the sum */
} mcf_ewald_parts;

typedef struct mcf_ewald_info {
    double alpha;       /* 1/bohr */
    double rcut;        /* bohr */
    double kcut;        /* 1/bohr */
    double accuracy;    /* the relative accuracy the cutoffs were chosen for */
    size_t n_kvectors;  /* k vectors in the half space */
    int images[3];      /* image range -images[a]..images[a] of the real-space loop */
} mcf_ewald_info;

/* Creates the Ewald object for n >= 1 charges charges[0..n-1] at positions[3 n]
 * (x, y, z per particle) in the cell of sides cell[3] (bohr, > 0).  opt may be NULL
 * (all defaults).  The charges and positions are copied.  On success *out is owned by
 * the caller: free it with mcf_ewald_destroy().  Errors: MCF_EINVAL (non-positive or
 * non-finite side, n = 0, all charges zero, non-finite charge or position, accuracy out
 * of range, negative alpha or rcut, a cutoff that would need more than 10^7 k vectors or
 * 10^6 images per pair), MCF_ENOMEM. */
int mcf_ewald_create(const double cell[3], size_t n, const double *charges,
                     const double *positions, const mcf_ewald_options *opt,
                     mcf_ewald **out);

/* Frees an object from mcf_ewald_create(); NULL is ignored. */
void mcf_ewald_destroy(mcf_ewald *ew);

/* Number of charges, the cutoffs, the positions (borrowed, 3 n values, valid until the
 * next set_positions/accept/destroy). */
size_t mcf_ewald_size(const mcf_ewald *ew);
void mcf_ewald_get_info(const mcf_ewald *ew, mcf_ewald_info *info);
const double *mcf_ewald_positions(const mcf_ewald *ew);

/* Replaces all positions (3 n values) and drops a pending move; O(N): rho(k) is
 * recomputed when next needed (by mcf_ewald_energy or mcf_ewald_propose).  MCF_EINVAL for
 * a non-finite coordinate (then nothing changes). */
int mcf_ewald_set_positions(mcf_ewald *ew, const double *positions);

/* Total energy of the current positions, from scratch: rho(k) is recomputed from the
 * positions (which also resets its rounding drift) and the real-space pairs summed.
 * O(N^2 images + N n_k).  parts may be NULL; returns the total. */
double mcf_ewald_energy(mcf_ewald *ew, mcf_ewald_parts *parts);

/* Energy change if particle i moved to r_new[3]; the move is kept as pending (replacing
 * any earlier pending move) until mcf_ewald_accept() or the next propose.  O(N images +
 * n_k).  Errors: MCF_EINVAL (i out of range, non-finite r_new). */
int mcf_ewald_propose(mcf_ewald *ew, size_t i, const double r_new[3], double *delta);

/* Applies the pending move (position and rho(k)).  MCF_EINVAL if there is none (nothing
 * proposed since the last accept or set_positions).  Rejecting needs no call. */
int mcf_ewald_accept(mcf_ewald *ew);

/* v_M of this cell (see above), alpha-independent; hartree per unit charge squared. */
double mcf_ewald_madelung(const mcf_ewald *ew);

/* The Ewald pair potential phi_E(r) of this cell (zero cell average, see above), for
 * r not on a lattice vector. */
double mcf_ewald_pair_potential(const mcf_ewald *ew, const double r[3]);

/* v_M of an orthorhombic cell without building a configuration: relative accuracy
 * `accuracy` (0 -> 1e-12).  Errors as mcf_ewald_create. */
int mcf_ewald_madelung_cell(const double cell[3], double accuracy, double *v_M);

#ifdef __cplusplus
}
#endif
#endif
