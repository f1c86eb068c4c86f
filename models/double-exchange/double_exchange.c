/* double_exchange.c — the double-exchange model: classical unit spins S_i coupled to
 * fermions, on a square or simple cubic lattice of linear size L with periodic (L >= 3) or
 * open (L >= 2) boundaries, grand canonical at the chain's temperature T and chemical
 * potential mu.
 *
 * Weight.  A spin configuration {S} has the weight exp(-S_eff) with the fermion action
 *
 *     S_eff = -sum_nu log(1 + exp(-(eps_nu - mu) / T)),
 *
 * eps_nu the eigenvalues of the one-particle Hamiltonian H({S}) (every state counted once;
 * no spin-only energy).  The model builds H; the configured fermion evaluator ([run]
 * evaluator = kpm, or ed for small lattices) computes dS = S_eff(H + Delta) - S_eff(H) of a
 * proposed change Delta (mcf_fermion_ops.delta_action) and the occupation of H; the model
 * never knows how.  create() binds it with mcf_fermion_bind (mcf/fermion_model.h), which
 * refuses an evaluator without delta_action or occupation; dos is checked only with
 * dos_every > 0, action only when the run exchanges temperatures.
 *
 * Hamiltonian conventions (mcf/hamiltonian.h; z the coordination, 4 or 6).
 *   hund = inf (the default): one orbital per site (row i = site i), spinless fermions
 *     whose spin follows the core spin, chi_i = (cos(th_i/2), sin(th_i/2) e^{i ph_i}) with
 *     th_i = acos(S_i^z) (S^z clamped into [-1, 1]) and ph_i = atan2(S_i^y, S_i^x), and
 *         H_ij = -t <chi_i|chi_j>
 *              = -t [cos(th_i/2) cos(th_j/2) + sin(th_i/2) sin(th_j/2) e^{-i(ph_i - ph_j)}]
 *     for nearest neighbours i, j; no on-site term.  ELL width z.  |<chi_i|chi_j>| <= 1, so
 *     Gershgorin's discs give |E| <= z |t|; the bounds are fixed to +-z|t|, so the
 *     evaluator's energy grid never changes during a run.
 *   hund = J_H > 0 finite: two orbitals per site, row 2i + sigma (sigma 0 = up, 1 = down),
 *     spin-diagonal hopping -t between nearest neighbours and on site the 2 x 2 block
 *     -J_H S_i.sigma:  H_{up,up} = -J_H S^z,  H_{dn,dn} = +J_H S^z,
 *     H_{up,dn} = -J_H (S^x - i S^y),  H_{dn,up} = its conjugate.  ELL width z + 1.  The
 *     bounds are fixed to +-(z|t| + J_H): the operator norm of a sum is at most the sum of
 *     the norms, ||hopping|| <= z|t| and ||-J_H S.sigma|| = J_H.  For J_H >> |t| the lower
 *     band (spin parallel to S) is the hund = inf model shifted by -J_H, up to corrections
 *     of order t^2 / J_H, so mu = mu_inf - J_H compares with mu_inf.
 *   Every entry is a function of the spins only (recomputed, never accumulated), and each
 *   bond is written in one canonical orientation (lower site index first) so that an entry
 *   computed after a move is bit for bit the entry a rebuild from scratch gives.
 *
 * Moves.  At a site o chosen uniformly (mcf_rng_below; units() = number of sites, N), a
 * new direction S' drawn either
 *   move = uniform:   uniformly on the sphere, independent of S_o, or
 *   move = rotation:  uniformly in the spherical cap of half-angle alpha around S_o
 *                     (cos of the angle uniform in [cos alpha, 1], azimuth uniform).
 * Both proposal densities depend only on S_o . S' (the cap's is 1 / (2 pi (1 - cos alpha))
 * when S_o . S' >= cos alpha, else 0), so q(S'|S) = q(S|S'): the proposal is symmetric and
 * the log of the Metropolis ratio is -dS, detailed balance holds for exp(-S_eff).  alpha is
 * adapted during thermalization (the `adapt` op, mcf_adapt_step) toward acceptance 0.5,
 * alpha *= clamp(acceptance / 0.5, 0.5, 2), kept in [1e-3, pi]; it is part of the saved
 * state.  The new direction is renormalized to |S'| = 1 (a rounding-level correction).  A
 * rejected move changes nothing (no reject op).
 *
 * The move carries its change Delta = H' - H as an mcf_local_change, built in propose()
 * from the chain's current spins:
 *   hund = inf:  u_0 = |o>, u_1 = |v> = sum_j (H'_jo - H_jo) |j> over the neighbours j of
 *                o (zero differences skipped; if all are zero one is kept),
 *                C = [[0, 1], [1, 0]], so Delta = |o><v| + |v><o|;
 *   finite J_H:  u_0 = |o up>, u_1 = |o dn>, C = the change of the 2 x 2 block,
 *                -J_H (S' - S_o).sigma, as differences of the block's entries.
 * batch_log_ratio() hands the changes of every chain of its batch to one delta_action call
 * (T and mu per chain), its arrays taken from the core's per-batch scratch (mcf/batch.h).
 *
 * accept() stores S', rewrites the Hamiltonian entries touching o (mcf_hamiltonian_set /
 * mcf_hamiltonian_set_onsite) and updates the running magnetization M = sum_i S_i.  After
 * every N accepted moves M is recomputed from the spins (as in the heisenberg model:
 * rounding drift stays at one sweep's worth) and the consistency check runs: every entry
 * of H is rebuilt from the spins into a scratch Hamiltonian of the same layout and compared
 * bit for bit with the table the evaluator reads; a difference is an internal error
 * (MCF_EINTERNAL) naming the row, slot and both values.
 *
 * Observables (per site, N sites):
 *   energy          fermion energy <H> / N = sum_nu eps_nu f(eps_nu) / N, from the
 *                   evaluator's occupation() (per state, so times dim / N)
 *   abs_m, m2, m4   |M| / N and its square and fourth power (order-parameter roles)
 *   density         electrons per site, sum_nu f(eps_nu) / N (0..1 for hund = inf, 0..2
 *                   for finite J_H)
 *   nn_correlation  the mean of S_i . S_j over nearest-neighbour bonds
 *   dos             (a curve over E, only with dos_every = k > 0) the fermion DOS per state
 *                   from the evaluator's dos(), new at every k-th measurement and repeated
 *                   in between (equal weights: the mean is that of the measured curves)
 * batch_measure() gets density and energy from mcf_fermion_occupation, which calls
 * occupation() once for all chains of a batch that share (mu, T) (the op takes one mu and
 * one T; a temperature scan gives one call per temperature).
 *
 * Parallel tempering ([schedule] exchange_every = k; mcf/model.h).  set_temperature()
 * changes the chain's T (mu stays), and batch_exchange_action() gives dS = S_eff(T') -
 * S_eff(T) of the chain's current Hamiltonian from the evaluator's action() at the two
 * points (T, mu) and (T', mu) (one call for the batch): the weight is exp(-S_eff) with no
 * spin-only term, so the swap of two replicas' temperatures is accepted with
 * min(1, exp(-dS_a - dS_b)).
 * The evaluator must give S_eff deterministically — ed, or kpm/kpm-cuda with [evaluator]
 * vectors = 0 (the exact trace of the Chebyshev series of the log-Fermi function; its cost
 * is about dim / 2 GFMC moves, once per chain per exchange round) — and a stochastic one is
 * refused before the first sweep.  When the evaluator's truncation bound on dS exceeds
 * 0.01 the chain warns once (raise moments).  The GFMC moves keep their own truncation
 * (Lorentz kernel); both approach the exact weight as M grows.
 *
 * Random numbers.  The chain's stream (the core's) draws the initial spins and the moves;
 * the measurement stream (seed, DE_MEASURE_STREAM + chain index), kept in the chain and
 * saved, feeds the random vectors of a stochastic evaluator's occupation().
 *
 * Initial spins.  start = random (independent uniform directions) or ordered (all +z); or
 * [model] spins = FILE: one line "x y z" per site in site order (x fastest, then y, then z;
 * '#' starts a comment, blank lines are skipped), each of length 1 within 1e-6 (then
 * renormalized), exactly N lines; it replaces `start`.  A relative FILE is relative to the
 * working directory, not to the configuration's folder: `mcf resume` reads the copy of the
 * configuration in the output folder, from which a config-relative path would point
 * elsewhere.
 *
 * Checkpoint record (host byte order): magic "DEX2", int32 lattice kind, int32 boundary,
 * int32 move (0 uniform, 1 rotation), int32 reserved, int64 L, int64 N, double hund
 * (inf for the infinite coupling), 3N doubles of spins, 3 doubles M, int64 accepted moves
 * since the last refresh, uint64 accepted moves in total, uint64 consistency checks passed,
 * double alpha, the measurement mcf_rng, uint64 measurements so far, and with dos_every > 0
 * the last DOS (energy_points doubles).  de_state() describes this record once (mcf/state.h)
 * for both save() and load(); mcf_state_load checks the magic, the lattice, move, L, N and
 * hund against the configuration (FIXED fields) and that spins, M and alpha are finite.
 * load() then checks every |S| = 1 within 1e-9 (MCF_EFORMAT naming the site and the length),
 * M against the spins, the counter and alpha ranges, and rebuilds the Hamiltonian from the
 * spins. */
#include "mcf/mcf.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DE_PI 3.14159265358979323846
#define DE_TWO_PI 6.28318530717958647692

/* Stream index of the measurement stream of chain k: DE_MEASURE_STREAM + k (the core's
 * chain streams are 0, 1, 2, ...). */
#define DE_MEASURE_STREAM ((UINT64_C(1) << 62) + (UINT64_C(1) << 60))

#define DE_ALPHA_MIN 1e-3   /* rotation half-angle range while adapting */
#define DE_ALPHA_MAX DE_PI
#define DE_ALPHA_START 1.0  /* initial half-angle of move = rotation, radians */
#define DE_TARGET_ACCEPTANCE 0.5
#define DE_FILE_TOL 1e-6    /* |S| - 1 allowed in a spins file */
#define DE_LOAD_TOL 1e-9    /* |S| - 1 allowed in a checkpoint */
#define DE_LINE_MAX 4096

static const char de_magic[4] = {'D', 'E', 'X', '2'};

static const mcf_param_spec de_params[] = {
    {"lattice", MCF_PARAM_CHOICE, "cubic", MCF_PARAM_NO_SCAN, 0, 0, "square|cubic",
     "lattice: square (L^2 sites, z = 4) or simple cubic (L^3 sites, z = 6)"},
    {"L", MCF_PARAM_INT, "4", MCF_PARAM_HAS_MIN, 2, 0, NULL,
     "linear size; L >= 3 with periodic boundaries (L = 2 would list a neighbour twice)"},
    {"t", MCF_PARAM_REAL, "1", 0, 0, 0, NULL,
     "hopping amplitude, finite and nonzero: H_ij = -t <chi_i|chi_j> (hund = inf) or -t "
     "per spin (finite hund)"},
    {"mu", MCF_PARAM_REAL, "0", 0, 0, 0, NULL,
     "chemical potential (grand canonical); 0 is half filling of the hund = inf band"},
    {"hund", MCF_PARAM_REAL, "inf", MCF_PARAM_HAS_MIN | MCF_PARAM_MIN_EXCLUSIVE, 0, 0, NULL,
     "Hund coupling J_H > 0: inf = spinless fermions slaved to the spins (N x N), a number = "
     "two orbitals per site with -J_H S.sigma (2N x 2N)"},
    {"boundary", MCF_PARAM_CHOICE, "periodic", MCF_PARAM_NO_SCAN, 0, 0, MCF_BOUNDARY_CHOICES,
     "boundary conditions of the lattice"},
    {"move", MCF_PARAM_CHOICE, "uniform", MCF_PARAM_NO_SCAN, 0, 0, "uniform|rotation",
     "single-spin move: a uniform new direction, or one in a cap of half-angle alpha around "
     "the old (alpha adapted toward acceptance 0.5 while thermalizing)"},
    {"start", MCF_PARAM_CHOICE, "random", MCF_PARAM_NO_SCAN, 0, 0, "random|ordered",
     "initial spins: independent uniform directions, or all along +z"},
    {"spins", MCF_PARAM_STRING, "none", MCF_PARAM_NO_SCAN, 0, 0, NULL,
     "none, or a text file of initial spins, one line \"x y z\" per site ('#' comments; a "
     "relative path is relative to the working directory); replaces start"},
    {"dos_every", MCF_PARAM_INT, "0", MCF_PARAM_HAS_MIN | MCF_PARAM_NO_SCAN, 0, 0, NULL,
     "measure the DOS curve (dos.tsv) at every k-th measurement, repeating the last one in "
     "between; 0 = no DOS curve"},
    {NULL, 0, NULL, 0, 0, 0, NULL, NULL}};

/* positions in de_observables: the scalars, then the optional DOS curve */
enum { OBS_ENERGY, OBS_ABS_M, OBS_M2, OBS_M4, OBS_DENSITY, OBS_NN, OBS_COUNT, OBS_DOS = OBS_COUNT };

static const mcf_observable_spec de_observables[] = {
    {"energy", MCF_ROLE_ENERGY,
     "fermion energy per site, sum_nu eps_nu f(eps_nu) / N (units of t)", NULL, 0},
    {"abs_m", MCF_ROLE_ORDER, "length of the magnetization per site, |sum_i S_i| / N", NULL,
     0},
    {"m2", MCF_ROLE_ORDER2, "its square, |sum_i S_i / N|^2", NULL, 0},
    {"m4", MCF_ROLE_ORDER4, "its fourth power, |sum_i S_i / N|^4", NULL, 0},
    {"density", MCF_ROLE_NONE, "electrons per site, sum_nu f(eps_nu) / N", NULL, 0},
    {"nn_correlation", MCF_ROLE_NONE,
     "mean of S_i . S_j over nearest-neighbour bonds", NULL, 0},
    {"dos", MCF_ROLE_NONE,
     "density of states per state of the fermions, 1/energy (only with dos_every > 0)", "E", 0},
    {NULL, MCF_ROLE_NONE, NULL, NULL, 0}};

typedef struct de_move {
    int64_t site;
    double s[3];               /* the proposed direction */
    mcf_local_change change;   /* H' - H, for delta_action */
} de_move;

typedef struct de_chain {
    mcf_lattice_kind kind;
    mcf_boundary boundary;
    long L;
    size_t n;                  /* sites */
    int z;                     /* neighbour slots per site */
    size_t bonds;
    int finite;                /* 1: finite Hund coupling, two orbitals per site */
    double hund;               /* J_H, inf when infinite */
    double t, mu, T;
    int rotation;              /* move = rotation */
    double alpha;              /* cap half-angle of move = rotation */
    uint64_t chain_index;
    double *spin;              /* 3N */
    int32_t *nb;               /* N x z, -1 = missing (open boundary) */
    mcf_hamiltonian *h;        /* the Hamiltonian the evaluator reads */
    mcf_hamiltonian *scratch;  /* same layout, rebuilt from the spins by the check */
    mcf_fermion fermion;       /* the bound evaluator (mcf/fermion_model.h) */
    void *ws;                  /* the evaluator's workspace, bound to h */
    mcf_rng mrng;              /* the measurement stream */
    double mag[3];             /* running sum_i S_i */
    int64_t since_refresh;     /* accepted moves since the last refresh and check */
    uint64_t accepted;         /* accepted moves in total */
    uint64_t checks;           /* consistency checks passed */
    int warned_exchange;       /* the truncation warning of exchange_action was given */
    /* the optional DOS curve */
    long dos_every;            /* 0: off */
    size_t dos_points;         /* the evaluator's energy grid */
    double *dos_last;          /* the last DOS measured (repeated in between) */
    uint64_t measured;         /* measurements so far */
} de_chain;

/* ---- the Hamiltonian, a function of the spins -------------------------------------- */

/* The spinor chi = (cos(th/2), sin(th/2) e^{i ph}) of a unit vector. */
static void de_spinor(const double s[3], double *ch, double *sh, double *ph)
{
    double z = s[2];
    if (z > 1.0)
        z = 1.0;
    if (z < -1.0)
        z = -1.0;
    const double th = acos(z);
    *ch = cos(0.5 * th);
    *sh = sin(0.5 * th);
    *ph = atan2(s[1], s[0]);
}

/* H_ab = -t <chi_a|chi_b> for the spins a, b (hund = inf). */
static void de_hop(double t, const double a[3], const double b[3], double *re, double *im)
{
    double ca, sa, pa, cb, sb, pb;
    de_spinor(a, &ca, &sa, &pa);
    de_spinor(b, &cb, &sb, &pb);
    const double d = pa - pb;
    *re = -t * (ca * cb + sa * sb * cos(d));
    *im = t * (sa * sb * sin(d));
}

/* Writes every entry of h that depends on the spin of site o, from the spins `spin`
 * (canonical orientation: the lower site first). */
static int de_set_site(const de_chain *c, mcf_hamiltonian *h, size_t o, const double *spin)
{
    int rc;
    if (c->finite) {
        const double *s = spin + 3 * o, J = c->hund;
        if ((rc = mcf_hamiltonian_set_onsite(h, 2 * o, -J * s[2])) ||
            (rc = mcf_hamiltonian_set_onsite(h, 2 * o + 1, J * s[2])) ||
            (rc = mcf_hamiltonian_set(h, 2 * o, 2 * o + 1, -J * s[0], J * s[1])))
            return mcf_fail_prefix(rc, "double-exchange: the spin block of site %zu", o);
        return MCF_OK;
    }
    const int32_t *nb = c->nb + (size_t)c->z * o;
    for (int k = 0; k < c->z; k++) {
        if (nb[k] < 0)
            continue;
        const size_t j = (size_t)nb[k], lo = o < j ? o : j, hi = o < j ? j : o;
        double re, im;
        de_hop(c->t, spin + 3 * lo, spin + 3 * hi, &re, &im);
        if ((rc = mcf_hamiltonian_set(h, lo, hi, re, im)))
            return mcf_fail_prefix(rc, "double-exchange: the hopping %zu -> %zu", lo, hi);
    }
    return MCF_OK;
}

/* Writes every entry of h from the chain's spins, always in the same order, so that a
 * Hamiltonian built from empty gets the same slot layout every time. */
static int de_build(const de_chain *c, mcf_hamiltonian *h)
{
    int rc;
    for (size_t i = 0; i < c->n; i++) {
        if (c->finite) {
            const int32_t *nb = c->nb + (size_t)c->z * i;
            for (int k = 0; k < c->z; k++) {
                if (nb[k] < 0 || (size_t)nb[k] <= i)
                    continue; /* missing, or set from the lower site */
                const size_t j = (size_t)nb[k];
                if ((rc = mcf_hamiltonian_set(h, 2 * i, 2 * j, -c->t, 0.0)) ||
                    (rc = mcf_hamiltonian_set(h, 2 * i + 1, 2 * j + 1, -c->t, 0.0)))
                    return mcf_fail_prefix(rc, "double-exchange: the hopping %zu -> %zu", i, j);
            }
        }
        if ((rc = de_set_site(c, h, i, c->spin)))
            return rc;
    }
    return MCF_OK;
}

/* Empties a Hamiltonian (every slot free, every value 0), as mcf_hamiltonian_create
 * leaves it: only for the model's own scratch copy. */
static void de_clear(mcf_hamiltonian *h)
{
    const size_t slots = (size_t)h->width * h->dim;
    for (size_t k = 0; k < slots; k++) {
        h->col[k] = -1;
        h->hop_re[k] = 0.0;
        h->hop_im[k] = 0.0;
    }
    for (size_t r = 0; r < h->dim; r++)
        h->onsite[r] = 0.0;
    mcf_hamiltonian_touch_all(h); /* written directly, not through set() */
}

/* The consistency check: rebuilds H from the spins and compares bit for bit. */
static int de_verify(de_chain *c)
{
    mcf_hamiltonian *a = c->h, *b = c->scratch;
    de_clear(b);
    int rc = de_build(c, b);
    if (rc)
        return mcf_fail_prefix(rc, "double-exchange: consistency check");
    const size_t slots = (size_t)a->width * a->dim;
    for (size_t k = 0; k < slots; k++) {
        if (a->col[k] != b->col[k] || memcmp(&a->hop_re[k], &b->hop_re[k], sizeof(double)) ||
            memcmp(&a->hop_im[k], &b->hop_im[k], sizeof(double)))
            return mcf_fail(MCF_EINTERNAL,
                            "double-exchange: consistency check failed (chain %llu, after %llu "
                            "accepted moves): row %zu, slot %zu of the Hamiltonian holds column "
                            "%d, %.17g%+.17gi, but rebuilding from the spins gives column %d, "
                            "%.17g%+.17gi; the local updates drifted from the spins (a bug, "
                            "please report it)",
                            (unsigned long long)c->chain_index,
                            (unsigned long long)c->accepted, k % a->dim, k / a->dim,
                            (int)a->col[k], a->hop_re[k], a->hop_im[k], (int)b->col[k],
                            b->hop_re[k], b->hop_im[k]);
    }
    for (size_t r = 0; r < a->dim; r++)
        if (memcmp(&a->onsite[r], &b->onsite[r], sizeof(double)))
            return mcf_fail(MCF_EINTERNAL,
                            "double-exchange: consistency check failed (chain %llu, after %llu "
                            "accepted moves): the on-site energy of row %zu is %.17g, but "
                            "rebuilding from the spins gives %.17g (a bug, please report it)",
                            (unsigned long long)c->chain_index,
                            (unsigned long long)c->accepted, r, a->onsite[r], b->onsite[r]);
    c->checks++;
    return MCF_OK;
}

/* M from scratch. */
static void de_refresh(de_chain *c)
{
    double m[3] = {0, 0, 0};
    for (size_t i = 0; i < c->n; i++)
        for (int a = 0; a < 3; a++)
            m[a] += c->spin[3 * i + a];
    memcpy(c->mag, m, sizeof m);
    c->since_refresh = 0;
}

/* ---- the local change of a move ---------------------------------------------------- */

/* H_jo (row j, column o) for the spins of j and o, o at direction so (hund = inf). */
static void de_entry_jo(const de_chain *c, size_t j, size_t o, const double *sj,
                        const double *so, double *re, double *im)
{
    if (j < o) {
        de_hop(c->t, sj, so, re, im);
    } else {
        de_hop(c->t, so, sj, re, im); /* H_oj; H_jo is its conjugate */
        *im = -*im;
    }
}

static void de_make_change(const de_chain *c, size_t o, const double s_new[3],
                           mcf_local_change *ch)
{
    memset(ch, 0, sizeof *ch);
    ch->rank = 2;
    const double *s_old = c->spin + 3 * o;
    if (c->finite) {
        const double J = c->hund;
        ch->entries[0] = ch->entries[1] = 1;
        ch->row[0][0] = (int64_t)(2 * o);
        ch->row[1][0] = (int64_t)(2 * o + 1);
        ch->re[0][0] = ch->re[1][0] = 1.0;
        /* differences of the block's entries, exactly as de_set_site writes them */
        ch->c_re[0][0] = -J * s_new[2] - -J * s_old[2];
        ch->c_re[1][1] = J * s_new[2] - J * s_old[2];
        ch->c_re[0][1] = -J * s_new[0] - -J * s_old[0];
        ch->c_im[0][1] = J * s_new[1] - J * s_old[1];
        ch->c_re[1][0] = ch->c_re[0][1];
        ch->c_im[1][0] = -ch->c_im[0][1];
        return;
    }
    ch->entries[0] = 1;
    ch->row[0][0] = (int64_t)o;
    ch->re[0][0] = 1.0;
    ch->c_re[0][1] = ch->c_re[1][0] = 1.0;
    const int32_t *nb = c->nb + (size_t)c->z * o;
    int ne = 0, first = -1;
    for (int k = 0; k < c->z; k++) {
        if (nb[k] < 0)
            continue;
        const size_t j = (size_t)nb[k];
        if (first < 0)
            first = (int)j;
        double r0, i0, r1, i1;
        de_entry_jo(c, j, o, c->spin + 3 * j, s_old, &r0, &i0);
        de_entry_jo(c, j, o, c->spin + 3 * j, s_new, &r1, &i1);
        const double dr = r1 - r0, di = i1 - i0;
        if (dr == 0.0 && di == 0.0)
            continue;
        ch->row[1][ne] = (int64_t)j;
        ch->re[1][ne] = dr;
        ch->im[1][ne] = di;
        ne++;
    }
    if (ne == 0) { /* nothing changes: keep one zero entry, a valid vector */
        ch->row[1][0] = first;
        ne = 1;
    }
    ch->entries[1] = ne;
}

/* ---- initial spins from a file ------------------------------------------------------- */

static int de_read_spins(const mcf_params *params, const char *path, size_t n, double *spin)
{
    const char *sec = mcf_params_section(params), *origin = mcf_params_origin(params);
    FILE *f = fopen(path, "r");
    if (!f)
        return mcf_fail(MCF_EINVAL,
                        "double-exchange: [%s] spins = %s in %s: cannot open the file: %s "
                        "(a relative path is relative to the working directory); fix the path "
                        "or set spins = none",
                        sec, path, origin, strerror(errno));
    char line[DE_LINE_MAX];
    size_t count = 0;
    long lineno = 0;
    int rc = MCF_OK;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n' && !feof(f)) {
            rc = mcf_fail(MCF_EINVAL,
                          "double-exchange: %s:%ld: line longer than %d characters ([%s] spins "
                          "in %s); write one spin \"x y z\" per line",
                          path, lineno, DE_LINE_MAX - 2, sec, origin);
            break;
        }
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        const char *p = line;
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
            p++;
        if (!*p)
            continue;
        if (count == n) {
            rc = mcf_fail(MCF_EINVAL,
                          "double-exchange: %s:%ld: more spins than the %zu sites of the "
                          "lattice ([%s] spins in %s); give exactly one line per site",
                          path, lineno, n, sec, origin);
            break;
        }
        double v[3];
        char *end = NULL;
        int ok = 1;
        for (int a = 0; a < 3 && ok; a++) {
            errno = 0;
            v[a] = strtod(p, &end);
            if (end == p || errno == ERANGE || !isfinite(v[a]))
                ok = 0;
            p = end;
        }
        while (ok && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
            p++;
        if (!ok || *p) {
            rc = mcf_fail(MCF_EINVAL,
                          "double-exchange: %s:%ld: not a spin; write three finite numbers "
                          "\"x y z\" per line ([%s] spins in %s)",
                          path, lineno, sec, origin);
            break;
        }
        const double length = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        if (!(fabs(length - 1.0) <= DE_FILE_TOL)) {
            rc = mcf_fail(MCF_EINVAL,
                          "double-exchange: %s:%ld: the spin (%g, %g, %g) of site %zu has "
                          "length %.9g, not 1 (tolerance %g); write unit vectors ([%s] spins "
                          "in %s)",
                          path, lineno, v[0], v[1], v[2], count, length, DE_FILE_TOL, sec,
                          origin);
            break;
        }
        for (int a = 0; a < 3; a++)
            spin[3 * count + a] = v[a] / length;
        count++;
    }
    if (!rc && ferror(f))
        rc = mcf_fail(MCF_EINVAL, "double-exchange: [%s] spins = %s in %s: read error", sec,
                      path, origin);
    fclose(f);
    if (!rc && count != n)
        rc = mcf_fail(MCF_EINVAL,
                      "double-exchange: [%s] spins = %s in %s: the file has %zu spin lines but "
                      "the lattice has %zu sites; give exactly one line \"x y z\" per site",
                      sec, path, origin, count, n);
    return rc;
}

/* ---- create / destroy ---------------------------------------------------------------- */

static void de_destroy(void *chain)
{
    de_chain *c = chain;
    if (!c)
        return;
    if (c->ws)
        c->fermion.ops->destroy(c->ws);
    mcf_hamiltonian_destroy(c->h);
    mcf_hamiltonian_destroy(c->scratch);
    free(c->spin);
    free(c->nb);
    free(c->dos_last);
    free(c);
}

static int de_create(const mcf_params *params, const mcf_services *services, mcf_rng *rng,
                     void **chain)
{
    *chain = NULL;
    long dos_every;
    double t, mu, hund, T;
    const char *move_name, *start, *spins_path;
    int rc;
    if ((rc = mcf_params_real(params, "t", &t)) || (rc = mcf_params_real(params, "mu", &mu)) ||
        (rc = mcf_params_real(params, "hund", &hund)) ||
        (rc = mcf_params_string(params, "move", &move_name)) ||
        (rc = mcf_params_string(params, "start", &start)) ||
        (rc = mcf_params_string(params, "spins", &spins_path)) ||
        (rc = mcf_params_int(params, "dos_every", &dos_every)) ||
        (rc = mcf_params_temperature(params, &T)))
        return mcf_fail_prefix(rc, "double-exchange");
    const char *sec = mcf_params_section(params), *origin = mcf_params_origin(params);
    if (!isfinite(t) || t == 0.0)
        return mcf_fail(MCF_EINVAL,
                        "double-exchange: [%s] t = %g in %s: the hopping must be a finite "
                        "nonzero number (t = 1 sets the energy unit)",
                        sec, t, origin);
    if (!isfinite(mu))
        return mcf_fail(MCF_EINVAL,
                        "double-exchange: [%s] mu = %g in %s: the chemical potential must be a "
                        "finite number",
                        sec, mu, origin);
    if (!(hund > 0.0))
        return mcf_fail(MCF_EINVAL,
                        "double-exchange: [%s] hund = %g in %s: the Hund coupling must be > 0; "
                        "write inf for infinite coupling or a positive number",
                        sec, hund, origin);
    if (!(T > 0.0) || !isfinite(T))
        return mcf_fail(MCF_EINVAL,
                        "double-exchange: temperature T = %g in %s: the fermion weight needs a "
                        "finite T > 0; fix [schedule] temperatures",
                        T, origin);

    /* the lattice (lattice, L, boundary; periodic L = 2 refused: one entry per bond) */
    mcf_lattice *lat = NULL;
    de_chain *c = NULL;
    if ((rc = mcf_lattice_from_params(params, "double-exchange", MCF_LATTICE_SIMPLE_BONDS,
                                      &lat)))
        return rc;
    const long L = lat->L;
    const double h_bound_t = (lat->kind == MCF_LATTICE_SQUARE ? 4.0 : 6.0) * fabs(t);
    const int finite = isfinite(hund);
    const double bound = finite ? h_bound_t + hund : h_bound_t;
    if (!isfinite(bound)) {
        rc = mcf_fail(MCF_EINVAL,
                      "double-exchange: [%s] t = %g, hund = %g in %s: the spectral bound "
                      "z|t| + J_H overflows; choose smaller values",
                      sec, t, hund, origin);
        goto fail;
    }

    /* the evaluator: delta_action for the moves, occupation for the observables */
    mcf_fermion fermion;
    if ((rc = mcf_fermion_bind(services, params, "double-exchange",
                               MCF_FERMION_DELTA_ACTION | MCF_FERMION_OCCUPATION, &fermion)))
        goto fail;
    if (lat->sites > (size_t)INT32_MAX / 2) {
        rc = mcf_fail(MCF_EINVAL,
                      "double-exchange: [%s] L = %ld in %s gives %zu sites, too many for the "
                      "Hamiltonian's 32-bit column indices; choose a smaller L",
                      sec, L, origin, lat->sites);
        goto fail;
    }
    if (lat->coordination > MCF_CHANGE_MAX_ENTRIES) {
        rc = mcf_fail(MCF_EINTERNAL, "double-exchange: coordination %d exceeds the %d entries "
                      "of a local change (a bug, please report it)",
                      lat->coordination, MCF_CHANGE_MAX_ENTRIES);
        goto fail;
    }

    c = calloc(1, sizeof *c);
    if (!c) {
        rc = mcf_fail(MCF_ENOMEM, "double-exchange: out of memory");
        goto fail;
    }
    c->kind = lat->kind;
    c->boundary = lat->boundary;
    c->L = L;
    c->n = lat->sites;
    c->z = lat->coordination;
    c->bonds = mcf_lattice_bonds(lat);
    c->finite = finite;
    c->hund = hund;
    c->t = t;
    c->mu = mu;
    c->T = T;
    c->rotation = strcmp(move_name, "rotation") == 0;
    c->alpha = DE_ALPHA_START;
    c->chain_index = services->chain_index;
    c->fermion = fermion;
    mcf_rng_init(&c->mrng, services->seed, DE_MEASURE_STREAM + services->chain_index);
    c->spin = malloc(3 * c->n * sizeof *c->spin);
    c->nb = malloc(c->n * (size_t)c->z * sizeof *c->nb);
    if (!c->spin || !c->nb) {
        rc = mcf_fail(MCF_ENOMEM, "double-exchange: out of memory for %zu sites (L = %ld)",
                      c->n, L);
        goto fail;
    }
    memcpy(c->nb, lat->neighbours, c->n * (size_t)c->z * sizeof *c->nb);

    /* initial spins */
    if (strcmp(spins_path, "none") != 0) {
        if ((rc = de_read_spins(params, spins_path, c->n, c->spin)))
            goto fail;
    } else {
        const int ordered = strcmp(start, "ordered") == 0;
        for (size_t i = 0; i < c->n; i++) {
            double *s = c->spin + 3 * i;
            if (ordered) {
                s[0] = s[1] = 0.0;
                s[2] = 1.0;
            } else {
                mcf_rng_unit_vector(rng, s);
            }
        }
    }
    de_refresh(c);

    /* the Hamiltonian and its scratch twin */
    const int orbitals = finite ? 2 : 1, width = finite ? c->z + 1 : c->z;
    if ((rc = mcf_hamiltonian_create(c->n, orbitals, width, &c->h)) ||
        (rc = mcf_hamiltonian_create(c->n, orbitals, width, &c->scratch))) {
        rc = mcf_fail_prefix(rc, "double-exchange: the Hamiltonian of %zu sites", c->n);
        goto fail;
    }
    if ((rc = de_build(c, c->h)))
        goto fail;
    if ((rc = mcf_hamiltonian_fix_bounds(c->h, -bound, bound)) ||
        (rc = mcf_hamiltonian_fix_bounds(c->scratch, -bound, bound))) {
        rc = mcf_fail_prefix(rc, "double-exchange: fixing the spectral bounds +-%g", bound);
        goto fail;
    }
    if ((rc = mcf_hamiltonian_check(c->h))) {
        rc = mcf_fail_prefix(rc, "double-exchange: the Hamiltonian is malformed (a bug, please "
                             "report it)");
        goto fail;
    }
    if ((rc = de_verify(c)) || (rc = mcf_fermion_workspace(&c->fermion, c->h, &c->ws)))
        goto fail;
    c->dos_every = dos_every;
    if (dos_every > 0) {
        if (!mcf_fermion_has(&c->fermion, MCF_FERMION_DOS)) {
            rc = mcf_fail(MCF_EINVAL, "double-exchange: [%s] dos_every = %ld in %s, but the "
                          "evaluator %s computes no DOS; set dos_every = 0", sec, dos_every,
                          origin, c->fermion.name);
            goto fail;
        }
        c->dos_points = c->fermion.ops->energy_points(c->ws);
        c->dos_last = calloc(c->dos_points ? c->dos_points : 1, sizeof *c->dos_last);
        if (!c->dos_last) {
            rc = mcf_fail(MCF_ENOMEM, "double-exchange: out of memory for the DOS curve");
            goto fail;
        }
    }
    if (mu <= -bound || mu >= bound)
        mcf_log(MCF_LOG_WARN,
                "double-exchange: chain %llu: [%s] mu = %g in %s lies outside the spectrum "
                "[%g, %g] of every spin configuration: the band is %s and the spins feel no "
                "fermions (S_eff is the same for every configuration up to exponentially "
                "small terms); choose mu inside the band",
                (unsigned long long)c->chain_index, sec, mu, origin, -bound, bound,
                mu <= -bound ? "empty" : "full");
    mcf_lattice_destroy(lat);
    *chain = c;
    return MCF_OK;

fail:
    mcf_lattice_destroy(lat);
    de_destroy(c);
    return rc;
}

static size_t de_units(const void *chain)
{
    return ((const de_chain *)chain)->n;
}

/* ---- moves ----------------------------------------------------------------------------- */

/* A direction uniform in the cap of half-angle alpha around the unit vector s. */
static void de_rotate(mcf_rng *rng, const double s[3], double alpha, double out[3])
{
    /* cos(gamma) uniform in [cos alpha, 1]: 1 - cos(gamma) = u (1 - cos alpha), with
     * 1 - cos alpha = 2 sin^2(alpha / 2) (no cancellation for small alpha) */
    const double half = sin(0.5 * alpha);
    const double one_minus = mcf_rng_uniform(rng) * 2.0 * half * half;
    const double cg = 1.0 - one_minus;
    const double sg = sqrt(one_minus * (2.0 - one_minus));
    const double psi = DE_TWO_PI * mcf_rng_uniform(rng);
    /* an orthonormal frame e1, e2 perpendicular to s: cross s with the axis along which
     * s has its smallest component */
    int a = 0;
    if (fabs(s[1]) < fabs(s[a]))
        a = 1;
    if (fabs(s[2]) < fabs(s[a]))
        a = 2;
    double axis[3] = {0, 0, 0}, e1[3], e2[3];
    axis[a] = 1.0;
    e1[0] = s[1] * axis[2] - s[2] * axis[1];
    e1[1] = s[2] * axis[0] - s[0] * axis[2];
    e1[2] = s[0] * axis[1] - s[1] * axis[0];
    const double n1 = sqrt(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]);
    for (int k = 0; k < 3; k++)
        e1[k] /= n1;
    e2[0] = s[1] * e1[2] - s[2] * e1[1];
    e2[1] = s[2] * e1[0] - s[0] * e1[2];
    e2[2] = s[0] * e1[1] - s[1] * e1[0];
    const double cp = cos(psi), sp = sin(psi);
    for (int k = 0; k < 3; k++)
        out[k] = cg * s[k] + sg * (cp * e1[k] + sp * e2[k]);
}

static int de_propose(void *chain, mcf_rng *rng, void *move)
{
    const de_chain *c = chain;
    de_move *m = move;
    const size_t o = (size_t)mcf_rng_below(rng, c->n);
    m->site = (int64_t)o;
    if (c->rotation)
        de_rotate(rng, c->spin + 3 * o, c->alpha, m->s);
    else
        mcf_rng_unit_vector(rng, m->s);
    const double len = sqrt(m->s[0] * m->s[0] + m->s[1] * m->s[1] + m->s[2] * m->s[2]);
    for (int a = 0; a < 3; a++)
        m->s[a] /= len;
    de_make_change(c, o, m->s, &m->change);
    return MCF_OK;
}

/* One delta_action call for the batch.  mcf_fermion_batch has no array of local changes
 * (it carries mcf_change pointers for change_action), so the arrays come from one raw
 * scratch call: n workspaces, n change pointers, then T, mu, dS. */
static int de_batch_log_ratio(mcf_batch *batch, void *const *chains, const void *moves,
                              size_t n, double *out)
{
    if (n == 0)
        return MCF_OK;
    const de_chain *c0 = chains[0];
    void **ws = mcf_batch_scratch(batch, n * (2 * sizeof(void *) + 3 * sizeof(double)));
    if (!ws)
        return mcf_fail_prefix(MCF_ENOMEM, "double-exchange: a batch of %zu chains", n);
    const mcf_local_change **change = (const mcf_local_change **)(ws + n);
    double *T = (double *)(change + n), *mu = T + n, *dS = mu + n;
    const de_move *mv = moves;
    for (size_t k = 0; k < n; k++) {
        const de_chain *c = chains[k];
        ws[k] = c->ws;
        change[k] = &mv[k].change;
        T[k] = c->T;
        mu[k] = c->mu;
    }
    int rc = c0->fermion.ops->delta_action(ws, n, change, T, mu, dS);
    if (rc)
        return mcf_fail_prefix(rc, "double-exchange: evaluator %s: delta_action",
                               c0->fermion.name);
    for (size_t k = 0; k < n; k++)
        out[k] = -dS[k];
    return MCF_OK;
}

static int de_accept(void *chain, const void *move)
{
    de_chain *c = chain;
    const de_move *m = move;
    const size_t o = (size_t)m->site;
    double *s = c->spin + 3 * o;
    for (int a = 0; a < 3; a++) {
        c->mag[a] += m->s[a] - s[a];
        s[a] = m->s[a];
    }
    int rc = de_set_site(c, c->h, o, c->spin);
    if (rc)
        return rc;
    c->accepted++;
    if (++c->since_refresh >= (int64_t)c->n) {
        de_refresh(c);
        if ((rc = de_verify(c)))
            return rc;
    }
    return MCF_OK;
}

static void de_adapt(void *chain, double acceptance)
{
    de_chain *c = chain;
    if (c->rotation)
        c->alpha = mcf_adapt_step(c->alpha, acceptance, DE_TARGET_ACCEPTANCE, DE_ALPHA_MIN,
                                  DE_ALPHA_MAX);
}

/* ---- measurements ---------------------------------------------------------------------- */

/* The observables that need no evaluator. */
static void de_spin_observables(const de_chain *c, double *values)
{
    const double n = (double)c->n;
    const double m2 =
        (c->mag[0] * c->mag[0] + c->mag[1] * c->mag[1] + c->mag[2] * c->mag[2]) / (n * n);
    double bond = 0.0;
    for (size_t i = 0; i < c->n; i++) {
        const double *s = c->spin + 3 * i;
        const int32_t *nb = c->nb + (size_t)c->z * i;
        for (int k = 0; k < c->z; k += 2) { /* even slots: every bond once */
            if (nb[k] < 0)
                continue;
            const double *r = c->spin + 3 * (size_t)nb[k];
            bond += s[0] * r[0] + s[1] * r[1] + s[2] * r[2];
        }
    }
    values[OBS_ABS_M] = sqrt(m2);
    values[OBS_M2] = m2;
    values[OBS_M4] = m2 * m2;
    values[OBS_NN] = c->bonds ? bond / (double)c->bonds : 0.0;
}

/* The DOS curve of the chains that measure it: a new one (one dos() call for all of them,
 * from their measurement streams, after occupation()) at every dos_every-th measurement,
 * the last one repeated in between.  Repeating a value k times gives every measured DOS
 * the same weight, so the mean is that of the measured ones; the jackknife bins of the
 * core are much longer than k, so the error bars stay right.  Its arrays (workspaces,
 * streams, output rows) come from the batch scratch, taken anew: the occupation's arrays
 * are no longer needed. */
static int de_measure_dos(mcf_batch *batch, void *const *chains, size_t n,
                          double *const *values)
{
    const de_chain *c0 = chains[0];
    void **ws = NULL;
    mcf_rng **rngs = NULL;
    double **out = NULL;
    size_t m = 0;
    for (size_t k = 0; k < n; k++) {
        de_chain *c = chains[k];
        if (c->dos_every > 0 && c->measured % (uint64_t)c->dos_every == 0) {
            if (!ws) {
                ws = mcf_batch_scratch(batch, 3 * n * sizeof(void *));
                if (!ws)
                    return mcf_fail_prefix(MCF_ENOMEM, "double-exchange: the DOS");
                rngs = (mcf_rng **)(ws + n);
                out = (double **)(rngs + n);
            }
            ws[m] = c->ws;
            rngs[m] = &c->mrng;
            out[m] = c->dos_last;
            m++;
        }
    }
    if (m) {
        int rc = c0->fermion.ops->dos(ws, m, rngs, out);
        if (rc)
            return mcf_fail_prefix(rc, "double-exchange: evaluator %s: dos", c0->fermion.name);
    }
    for (size_t k = 0; k < n; k++) {
        de_chain *c = chains[k];
        if (c->dos_every > 0)
            memcpy(values[k] + OBS_DOS, c->dos_last, c->dos_points * sizeof *c->dos_last);
        c->measured++;
    }
    return MCF_OK;
}

/* Density and energy of every chain from mcf_fermion_occupation (one occupation() call per
 * distinct (mu, T) among the chains of the batch), the spin observables, then the DOS. */
static int de_batch_measure(mcf_batch *batch, void *const *chains, size_t n,
                            double *const *values)
{
    if (n == 0)
        return MCF_OK;
    const de_chain *c0 = chains[0];
    mcf_fermion_batch a;
    int rc = mcf_fermion_batch_get(batch, n, &a);
    if (rc)
        return mcf_fail_prefix(rc, "double-exchange");
    for (size_t k = 0; k < n; k++) {
        de_chain *c = chains[k];
        a.ws[k] = c->ws;
        a.rngs[k] = &c->mrng;
        a.T[k] = c->T;
        a.mu[k] = c->mu;
    }
    if ((rc = mcf_fermion_occupation(&c0->fermion, &a, n)))
        return rc;
    for (size_t k = 0; k < n; k++) {
        const de_chain *c = chains[k];
        const double per_site = (double)c->h->dim / (double)c->n;
        values[k][OBS_ENERGY] = a.energy[k] * per_site;
        values[k][OBS_DENSITY] = a.density[k] * per_site;
        de_spin_observables(c, values[k]);
    }
    return de_measure_dos(batch, chains, n, values);
}

/* ---- parallel tempering (mcf/model.h) ------------------------------------------------- */

/* The chain samples exp(-S_eff) at temperature T from its next move on (mu stays). */
static int de_set_temperature(void *chain, double T)
{
    de_chain *c = chain;
    if (!(T > 0.0) || !isfinite(T))
        return mcf_fail(MCF_EINVAL, "double-exchange: set_temperature(%g) (chain %llu): the "
                        "temperature must be positive and finite", T,
                        (unsigned long long)c->chain_index);
    c->T = T;
    return MCF_OK;
}

/* A bound on |dS - dS_exact| above which exchange_action warns: the exchange acceptance
 * exp(-dS_a - dS_b) is then off by more than about 1%. */
#define DE_EXCHANGE_ERR 0.01

/* dS[k] = S_eff(T_new[k]) - S_eff(T_k) of chain k's Hamiltonian at its mu (the weight is
 * exp(-S_eff) and there is no spin-only energy): one action() call for the batch, two
 * points per chain.  The evaluator must give the action deterministically (ed; kpm with
 * vectors = 0): a noisy estimate would bias every exchange. */
static int de_batch_exchange_action(mcf_batch *batch, void *const *chains, size_t n,
                                    const double *T_new, double *dS)
{
    if (n == 0)
        return MCF_OK;
    const de_chain *c0 = chains[0];
    if (!mcf_fermion_has(&c0->fermion, MCF_FERMION_ACTION))
        return mcf_fail(MCF_EINVAL, "double-exchange: parallel tempering ([schedule] "
                        "exchange_every) needs the fermion action at another temperature, "
                        "but evaluator %s has no action op; use evaluator = ed, kpm or "
                        "kpm-cuda (with [evaluator] vectors = 0), or set exchange_every = 0",
                        c0->fermion.name);
    /* the arrays of 2n points (n workspaces used): T, mu, S (in dS), err */
    mcf_fermion_batch a;
    int rc = mcf_fermion_batch_get(batch, 2 * n, &a);
    if (rc)
        return mcf_fail_prefix(rc, "double-exchange");
    double *T = a.T, *mu = a.mu, *S = a.dS, *err = a.err;
    for (size_t k = 0; k < n; k++) {
        const de_chain *c = chains[k];
        a.ws[k] = c->ws;
        T[2 * k] = c->T;
        T[2 * k + 1] = T_new[k];
        mu[2 * k] = mu[2 * k + 1] = c->mu;
    }
    rc = c0->fermion.ops->action(a.ws, n, 2, T, mu, S, err);
    if (rc)
        return mcf_fail_prefix(rc, "double-exchange: evaluator %s: action (parallel "
                               "tempering)", c0->fermion.name);
    for (size_t k = 0; k < n; k++) {
        de_chain *c = chains[k];
        dS[k] = S[2 * k + 1] - S[2 * k];
        const double bound = err[2 * k] + err[2 * k + 1];
        if (bound > DE_EXCHANGE_ERR && !c->warned_exchange) {
            c->warned_exchange = 1;
            mcf_log(MCF_LOG_WARN, "double-exchange: chain %llu: the evaluator's truncation "
                    "bound on the action change between T = %g and %g is %.3g (> %g): "
                    "exchanges are biased by up to a factor exp(%.3g); raise [evaluator] "
                    "moments", (unsigned long long)c->chain_index, c->T, T_new[k], bound,
                    DE_EXCHANGE_ERR, bound);
        }
    }
    return MCF_OK;
}

static size_t de_curve_points(const void *chain, size_t index, double *axis)
{
    const de_chain *c = chain;
    if (index != OBS_DOS || c->dos_every <= 0)
        return 0;
    if (axis && c->fermion.ops->energies(c->ws, axis))
        return 0;
    return c->dos_points;
}

/* ---- checkpoints ------------------------------------------------------------------------ */

/* The values of the record that the configuration fixes, in the record's types. */
typedef struct de_fixed {
    int32_t head[4]; /* lattice kind, boundary, move (0 uniform, 1 rotation), reserved (0) */
    int64_t L, n;
} de_fixed;

#define DE_STATE_FIELDS 16

/* The checkpoint record after its magic "DEX2" (the layout in the comment at the top),
 * described once for save() and load(); fx holds the fixed values, from the chain's
 * configuration.  The reserved word is read but not checked; the last DOS is raw data. */
static size_t de_state(de_chain *c, de_fixed *fx, mcf_state_field f[DE_STATE_FIELDS])
{
    *fx = (de_fixed){{(int32_t)c->kind, (int32_t)c->boundary, (int32_t)c->rotation, 0},
                     (int64_t)c->L, (int64_t)c->n};
    size_t k = 0;
    f[k++] = MCF_STATE_FIXED("lattice kind", &fx->head[0], sizeof fx->head[0]);
    f[k++] = MCF_STATE_FIXED("boundary", &fx->head[1], sizeof fx->head[1]);
    f[k++] = MCF_STATE_FIXED("move", &fx->head[2], sizeof fx->head[2]);
    f[k++] = MCF_STATE_DATA("reserved word", &fx->head[3], sizeof fx->head[3]);
    f[k++] = MCF_STATE_FIXED("L", &fx->L, sizeof fx->L);
    f[k++] = MCF_STATE_FIXED("number of sites", &fx->n, sizeof fx->n);
    f[k++] = MCF_STATE_FIXED("hund", &c->hund, sizeof c->hund); /* inf: equal bytes too */
    f[k++] = MCF_STATE_REALS("spins", c->spin, 3 * c->n);
    f[k++] = MCF_STATE_REALS("running magnetization", c->mag, 3);
    f[k++] = MCF_STATE_DATA("moves since the last refresh", &c->since_refresh,
                            sizeof c->since_refresh);
    f[k++] = MCF_STATE_DATA("accepted moves", &c->accepted, sizeof c->accepted);
    f[k++] = MCF_STATE_DATA("consistency checks", &c->checks, sizeof c->checks);
    f[k++] = MCF_STATE_REALS("rotation half-angle", &c->alpha, 1);
    f[k++] = MCF_STATE_RNG("measurement stream", &c->mrng);
    f[k++] = MCF_STATE_DATA("measurements", &c->measured, sizeof c->measured);
    if (c->dos_every > 0)
        f[k++] = MCF_STATE_DATA("last DOS", c->dos_last, c->dos_points * sizeof *c->dos_last);
    return k;
}

static int de_save(const void *chain, mcf_stream *out)
{
    de_fixed fx;
    mcf_state_field f[DE_STATE_FIELDS];
    int rc = mcf_state_save(out, de_magic, f, de_state((de_chain *)chain, &fx, f));
    if (rc)
        return mcf_fail_prefix(rc, "double-exchange: saving the chain");
    return MCF_OK;
}

/* Loads straight into the chain (a refused load aborts the resume), then checks what the
 * description cannot and rebuilds the Hamiltonian from the spins.  The running values stay
 * bit for bit as saved, so the chain continues exactly as it would have. */
static int de_load(void *chain, mcf_stream *in)
{
    de_chain *c = chain;
    de_fixed fx;
    mcf_state_field f[DE_STATE_FIELDS];
    int rc = mcf_state_load(in, de_magic, "double-exchange", f, de_state(c, &fx, f));
    if (rc)
        return rc;
    double sum[3] = {0, 0, 0};
    for (size_t i = 0; i < c->n; i++) {
        const double *s = c->spin + 3 * i;
        const double length = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
        if (!(fabs(length - 1.0) <= DE_LOAD_TOL))
            return mcf_fail(MCF_EFORMAT,
                            "double-exchange: the checkpoint's spin at site %zu has length "
                            "%.17g, not 1 (tolerance %g): the checkpoint is corrupt",
                            i, length, DE_LOAD_TOL);
        for (int a = 0; a < 3; a++)
            sum[a] += s[a];
    }
    /* the running M must agree with the spins up to accumulated rounding (a loose bound,
     * 1e-9 per site) */
    const double tol = 1e-9 * (double)c->n;
    int bad = c->since_refresh < 0 || c->since_refresh >= (int64_t)c->n ||
              !(c->alpha >= DE_ALPHA_MIN && c->alpha <= DE_ALPHA_MAX);
    for (int a = 0; a < 3; a++)
        bad |= !(fabs(c->mag[a] - sum[a]) <= tol);
    if (bad)
        return mcf_fail(MCF_EFORMAT, "double-exchange: the checkpoint's running magnetization, "
                        "counters or step are invalid or do not match its spins: the "
                        "checkpoint is corrupt");
    if ((rc = de_build(c, c->h)))
        return mcf_fail_prefix(rc, "double-exchange: rebuilding the Hamiltonian from the "
                               "checkpoint's spins");
    return MCF_OK;
}

static const mcf_model_ops de_ops = {
    .struct_size = sizeof(mcf_model_ops),
    .move_size = sizeof(de_move),
    .observables = de_observables,
    .create = de_create,
    .destroy = de_destroy,
    .units = de_units,
    .begin_sweep = NULL,
    .propose = de_propose,
    .log_ratio = NULL,         /* batch_log_ratio */
    .accept = de_accept,
    .reject = NULL,            /* a rejected move changes nothing */
    .measure = NULL,           /* batch_measure */
    .save = de_save,
    .load = de_load,
    .adapt = de_adapt,
    .curve_points = de_curve_points,
    .measure_batch = NULL,     /* batch_measure */
    .evaluator_kind = MCF_PLUGIN_FERMION_EVALUATOR,
    .set_temperature = de_set_temperature,
    .energy = NULL,
    .exchange_action = NULL,   /* batch_exchange_action */
    .batch_log_ratio = de_batch_log_ratio,
    .batch_measure = de_batch_measure,
    .batch_exchange_action = de_batch_exchange_action,
};

static const mcf_plugin_info de_info = {
    .abi_version = MCF_ABI_VERSION,
    .struct_size = sizeof(mcf_plugin_info),
    .kind = MCF_PLUGIN_MODEL,
    .name = "double-exchange",
    .version = "1.0",
    .summary = "double-exchange model: classical spins and fermions, infinite or finite Hund "
               "coupling, weight exp(-S_eff) from a fermion evaluator (kpm, kpm-cuda or ed)",
    .params = de_params,
    .ops = &de_ops,
};

MCF_PLUGIN(de_info)
