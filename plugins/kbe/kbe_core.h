/* kbe_core.h — two-time Kadanoff-Baym propagation of a spinless two-band crystal on the CPU:
 * the library mcf_kbe_core (plugins/kbe), linked into the tests and into the evaluator plugin
 * that issue 45 builds on it.  It knows bands, a dipole coupling and a local interaction
 * U(t) n_v n_c; it does not know where they come from (a model), what drives them (the core
 * samples E(t) and U(t) on the time grid and hands them in) or files.
 *
 * Conventions (docs/methods.md, "Kadanoff-Baym dynamics"): band index 0 = v, 1 = c; per k a
 * 2 x 2 block stored row-major (ab = 2 a + b);
 *   G^<_ab(t, t') = i <c_b^dag(t') c_a(t)>,  G^>_ab(t, t') = -i <c_a(t) c_b^dag(t')>,
 * so rho_ab(t) = <c_b^dag c_a>(t) = -i G^<_ab(t, t) and G^>(t, t) - G^<(t, t) = -i.
 * h_k(t) = diag(eps_v(k), eps_c(k)) + E(t) d sigma_x + Sigma^HF(t), with the Hartree-Fock
 * self-energy of U n_v n_c (local, so the same for every k): Sigma_vv = U n_c, Sigma_cc = U n_v,
 * Sigma_vc = -U rho^loc_vc, Sigma_cv = -U rho^loc_cv, rho^loc = (1/Nk) sum_k rho_k.
 *
 * What is here: the storage of G^< and G^> on the triangle t_i >= t_j (the rest by
 * G^lg(t', t) = -G^lg(t, t')^dagger), and the second-order step of the equations of motion
 * in the first time argument without a correlation self-energy (selfenergy none or hf):
 *   G(t_{n+1}, t_j) = V_n G(t_n, t_j),  V_n = exp(-i dt (h(t_n) + h(t_{n+1})) / 2),
 *   G^<(t_{n+1}, t_{n+1}) = V_n G^<(t_n, t_n) V_n^dagger,  G^> = G^< - i on the diagonal,
 * with h(t_{n+1}) from the new density by a fixed number of corrector passes (reproducible).
 * V_n is unitary, so N and the anticommutator are kept to rounding; the error is O(dt^2).
 * Second Born (KBE_SELFENERGY_2B) adds the collision integrals I^lg(t, t') (docs/methods.md)
 * by the trapezoid rule, and the step becomes the exponential integrator with the trapezoid:
 *   G(t_{n+1}, t_j) = V_n G(t_n, t_j) - i dt/2 [V_n I(t_n, t_j) + I(t_{n+1}, t_j)],
 *   G^<(t_{n+1}, t_{n+1}) = V_n G^< V_n^dagger - i dt/2 [V_n (I + I^dagger) V_n^dagger + (I' +
 *   I'^dagger)] (from i d/dt G^<(t, t) = [h, G^<] + I^< + I^<^dagger: rho stays Hermitian),
 * I(t_{n+1}, .) first taken as I(t_n, .), then recomputed from the new row (the self-energy's
 * row at t_{n+1}, then the integrals) once per corrector pass, and once more at the end for
 * the next step (kbe_step.c, kbe_collision.c, kbe_selfenergy.c).  One corrector pass or more:
 * second order.  The self-energy's rows are not stored: each step forms the one it needs.
 * spec.order = 3 .. 5: BDF-p and Gregory weights of order p instead (kbe_bdf.c), the strip
 * next to the diagonal stepped along it, the first 2p - 2 rows solved again as one block at
 * step 2p - 2 (kbe_start.c); one corrector pass or more: order p (docs/methods.md).
 *
 * Ownership: kbe_create copies what the spec points to; the caller frees nothing but the
 * kbe with kbe_destroy.  Errors: MCF_E* codes with mcf_last_error() saying why. */
#ifndef MCF_KBE_CORE_H
#define MCF_KBE_CORE_H

#include <complex.h>
#include <stddef.h>

#include "mcf/dynamics.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    KBE_SELFENERGY_NONE = 0, /* h_k(t) without interaction */
    KBE_SELFENERGY_HF = 1,   /* time-dependent Hartree-Fock in h_k(t) */
    KBE_SELFENERGY_2B = 2,   /* Hartree-Fock plus the second-Born collision integrals */
    KBE_SELFENERGY_GIVEN = 3 /* the collision integrals of a self-energy the caller gives
                              * (kbe_spec.sigma: an embedding, a bath), no Hartree-Fock */
} kbe_selfenergy;

typedef enum {
    KBE_SIGMA_FFT = 0,   /* products in real space, FFTs over k: O(Nk log Nk) a time pair */
    KBE_SIGMA_DIRECT = 1 /* the seed's loops over k (O(Nk^3); benchmark parity, oracle) */
} kbe_sigma_method;

typedef struct kbe_spec {
    size_t nk;                  /* k points (>= 1) */
    const double *eps;          /* nk x 2: eps_v(k), eps_c(k) */
    double dipole;              /* d in E(t) d sigma_x */
    const double complex *rho0; /* nk x 4: rho_k at t = 0 (Hermitian, eigenvalues in [0, 1]) */
    double dt;                  /* the time step (> 0) */
    size_t steps;               /* the most steps kbe_step may take (the storage) */
    int correctors;             /* corrector passes a step for h(t_{n+1}) and the integrals
                                 * (0 .. 100; hf and 2b: >= 1 for second order) */
    int order;                  /* the order p in dt: 2 (or 0) the exponential midpoint
                                 * step above; 3 .. 5 BDF-p and Gregory weights of order p
                                 * (kbe_bdf.c, kbe_start.c; hf and 2b: correctors >= 1) */
    kbe_selfenergy selfenergy;
    kbe_sigma_method sigma_method; /* how second Born is formed (KBE_SELFENERGY_2B) */
    size_t memory_limit;        /* bytes the two-time storage may take (0: no limit) */
    /* KBE_SELFENERGY_GIVEN: Sigma^<(t_i, t_j) and Sigma^>(t_i, t_j), i >= j, per k into sl
     * and sg (4 nk values each, the storage's block order), called from one thread with
     * i = the time whose collision row is formed, j = 0 .. i (order > 2: any i >= j up to
     * the step being taken); sigma_ctx passed through */
    void (*sigma)(void *ctx, size_t i, size_t j, double complex *sl, double complex *sg);
    void *sigma_ctx;
    /* NULL: one process, every k here.  Otherwise this process keeps the k slab of its
     * rank (kbe_slab.c: contiguous, sizes differing by one at most; nk >= size) of the
     * two-time storage, and every function below that is not a pure formula (kbe_create,
     * kbe_step, kbe_green, kbe_density, kbe_energies, kbe_row_write, kbe_row_read) is
     * collective over the ranks; eps and rho0 still describe every k, and what comes out
     * (G, rho, energies, rows) is every k's, bit for bit the single process's.  Not with
     * KBE_SELFENERGY_GIVEN. */
    const mcf_dynamics_gather *gather;
} kbe_spec;

typedef struct kbe kbe;

/* Bytes of the two-time storage for nk k points and `steps` steps. */
size_t kbe_storage_bytes(size_t nk, size_t steps);
/* The k slab of rank r of `size` over nk points: *k0, *n (nk / size, the first nk % size
 * ranks one more). */
void kbe_slab(size_t nk, unsigned r, unsigned size, size_t *k0, size_t *n);
/* The uncorrelated initial state rho_k = f(h_k) of h_k = diag(eps_v, eps_c) + E0 d sigma_x
 * (eps: nk x 2) at chemical potential mu and temperature T (T = 0: the states below mu
 * filled, one at mu half), f the Fermi function, into rho[nk x 4].  MCF_EINVAL for T < 0 or
 * non-finite input. */
int kbe_rho_thermal(size_t nk, const double *eps, double E0d, double mu, double T,
                    double complex *rho);
/* Copies the spec, checks it (refused with the reason: MCF_EINVAL for sizes, rho0 not
 * Hermitian or outside [0, 1], a non-finite drive; MCF_ENOMEM for the storage over
 * memory_limit or out of memory) and sets t = 0 with the drive E0, U0.  *out is the
 * caller's, freed with kbe_destroy; NULL after a failure.  With second Born the OpenMP
 * threads of its self-energy are fixed here (omp_get_max_threads()). */
int kbe_create(const kbe_spec *spec, double E0, double U0, kbe **out);
void kbe_destroy(kbe *w);
/* One step t_n -> t_{n+1} with the drive E(t_{n+1}), U(t_{n+1}); MCF_EINVAL past `steps`
 * or for a non-finite drive. */
int kbe_step(kbe *w, double E_next, double U_next);
/* Steps taken (the last time index n: t_n = n dt). */
size_t kbe_steps_done(const kbe *w);
/* The largest |change| of rho_k(t_n) (over k and the band pairs) that the last corrector
 * pass of the last step made: how far the fixed number of passes is from self-consistency.
 * 0 before any step and for steps without corrector passes (correctors = 0 or selfenergy
 * none). */
double kbe_corrector_residual(const kbe *w);
/* G^< (lesser != 0) or G^> at (t_i, t_j), any i, j <= kbe_steps_done, into g[nk x 4]. */
void kbe_green(const kbe *w, int lesser, size_t i, size_t j, double complex *g);
/* rho_k(t_n) = -i G^<(t_n, t_n), n <= kbe_steps_done, into rho[nk x 4]. */
void kbe_density(const kbe *w, size_t n, double complex *rho);
/* The energies at t_n (n <= kbe_steps_done), summed over k (the whole ring): band (kinetic)
 * energy sum_k sum_a eps_a(k) rho_aa,k, the field's E(t) d sum_k 2 Re rho_vc,k, and the
 * interaction energy (1/2) sum_k tr[Sigma^HF rho_k] + (1/2) sum_k Re tr[-i I^<_k(t_n, t_n)]
 * (Galitskii-Migdal; the second term with second Born only). */
void kbe_energies(const kbe *w, size_t n, double *e_band, double *e_field, double *e_int);

/* The initial state's blocks G^<(0, 0) = i rho0, G^>(0, 0) = -i (1 - rho0) of nk k points
 * (rho0: nk x 4) into gl and gg (4 nk values each, the block layout; the caller's), as
 * kbe_create makes them: another propagator's row 0 is then the same bits. */
void kbe_initial_blocks(size_t nk, const double complex *rho0, double complex *gl,
                        double complex *gg);
/* The spec's check of kbe_create, alone (MCF_EINVAL / MCF_ENOMEM with the reason): for
 * another propagator of the same spec (cuda/kbe-cuda). */
int kbe_spec_check(const kbe_spec *s);
/* kbe_energies from the diagonal block G^<(t_n, t_n) (4 nk values, the block layout), I^<(t_n,
 * t_n) of second Born (NULL: none) and the drive at t_n. */
void kbe_energies_of(const kbe_spec *s, double E, double U, const double complex *diag,
                     const double complex *idiag, double *e_band, double *e_field,
                     double *e_int);

/* A row record's header and scalars (kbe_rows.c: the first KBE_ROW_HEAD_BYTES of every
 * record) for another propagator of the same spec that writes the same records
 * (cuda/kbe-cuda): put for row n of a run of `order` over nk_all k points with the drive
 * (E, U) at t_n and the step's corrector residual; check refuses (MCF_EFORMAT, saying why) a
 * header of another run or row and a record of `bytes` holding a value that is not finite. */
#define KBE_ROW_HEAD_BYTES 72
void kbe_row_head_put(const kbe_spec *s, int order, size_t nk_all, size_t n, double E,
                      double U, double residual, void *buf);
int kbe_row_head_check(const kbe_spec *s, int order, size_t nk_all, size_t n, const void *buf,
                       size_t bytes);

/* ---- quadrature of order p (kbe_gregory.c; issue 45's higher-order steppers) ----------
 * The weights w[j] of int_0^{n h} f dt ~ h sum_j w[j] f(t_j) of order p (2 .. 5: an error
 * O(h^p) on smooth f): Gregory's rule for n >= p - 1 (w[0 .. n]); for
 * n < p - 1 the start weights of the polynomial through t_0 .. t_{p-1} (w[0 .. p-1]: they
 * reach past t_n).  w holds max(n, p - 1) + 1 values.  MCF_EINVAL for another order. */
#define KBE_GREGORY_MAX_ORDER 5
int kbe_gregory_weights(int p, size_t n, double *w);
/* The backward differentiation formula of order p (1 .. 5): h y'(t_n) ~ sum_{j=0}^{p} a[j]
 * y(t_{n-j}) with an error O(h^{p+1}) (exact for polynomials of degree p): a = 1, -1 (p = 1);
 * 3/2, -2, 1/2; ...; 137/60, -5, 5, -10/3, 5/4, -1/5 (p = 5).  MCF_EINVAL for another p. */
int kbe_bdf_weights(int p, double *a);

/* ---- checkpoint rows (kbe_rows.c; issue 45: append-only rows plus an atomic header) ----
 * Row n is everything of time index n that a resumed run needs and cannot recompute bit for
 * bit, as one record of kbe_row_bytes(w, n) bytes in the host's byte order (the caller's
 * file header states it; nothing here converts):
 *   a header of 6 words of 8 bytes: the tag "KBE-ROW1", n, nk, selfenergy and correctors (two
 *   int32), dt, dipole;
 *   3 doubles: E(t_n), U(t_n) and kbe_corrector_residual when n is the last step taken, 0
 *   otherwise (a caller that writes each row right after its step gets every step's; the
 *   last row read sets what kbe_corrector_residual reports);
 *   G^<(t_n, t_j) for j = 0 .. n, then G^>(t_n, t_j) likewise, each a block of 4 nk complex
 *   doubles in the storage's order (band pair major, k innermost);
 *   second Born only: I^<(t_n, t_n), one block of 4 nk (the Galitskii-Migdal energy's);
 *   order p > 2 only, row K = 2p - 2: rows 1 .. K - 1 again as the start block made them
 *   (G^< then G^> of each, then their I^<(t_m, t_m) with collisions).  The tag of order p > 2
 *   is "KBEpROW1" (the digit p for the '-').
 * The collision integrals' row I^lg(t_n, .) that the next step starts from is not stored:
 * the first kbe_step after kbe_row_read forms it again by the step's own functions (the
 * same bits). */
size_t kbe_row_bytes(const kbe *w, size_t n);
/* Row n (n <= kbe_steps_done) into buf (kbe_row_bytes(w, n) bytes, the caller's; no
 * alignment needed); reads w only.  MCF_EINVAL for n past the steps taken or buf NULL. */
int kbe_row_write(const kbe *w, size_t n, void *buf);
/* Rebuilds a run from its rows: w made by kbe_create with the same spec and the same drive
 * at t = 0 and not stepped; rows read in order 0, 1, ..., n (buf: kbe_row_bytes(w, n)
 * bytes, read only, no alignment needed).  Row 0 must equal what kbe_create made, bit for
 * bit (E0, U0, G(0, 0) of rho0), and every row's header must match w's spec: MCF_EFORMAT
 * otherwise (a foreign or corrupt checkpoint), also for a non-finite value.  MCF_EINVAL for
 * a row out of order, past the storage, or for a kbe that has stepped.  w is unchanged by
 * a refused row.  After row n, kbe_steps_done(w) = n and kbe_step continues exactly as the
 * uninterrupted run did (with second Born that step first forms the collision row at t_n:
 * reading rows costs only their copy). */
int kbe_row_read(kbe *w, size_t n, const void *buf);

/* ---- second Born for one time pair (kbe_selfenergy.c; the tests call it directly) ----
 * Scratch and FFT tables for a ring of nk sites, one per thread: *out is the caller's, freed
 * with kbe_sigma_work_destroy (NULL-safe); MCF_ENOMEM (and *out NULL) out of memory. */
typedef struct kbe_sigma_work kbe_sigma_work;
int kbe_sigma_work_create(size_t nk, kbe_sigma_work **out);
void kbe_sigma_work_destroy(kbe_sigma_work *w);
/* Sigma(k) of one time pair into S[4 nk] ([ab][k]) from A = G^lg(t, s) and B = G^gl(s, t)
 * (4 nk each, read only), uu = U(t) U(s), with w's tables (a work of the same nk).  Cannot
 * fail. */
void kbe_sigma_2b(kbe_sigma_method method, double uu, const double complex *A,
                  const double complex *B, double complex *S, kbe_sigma_work *w);

#ifdef __cplusplus
}
#endif

#endif
