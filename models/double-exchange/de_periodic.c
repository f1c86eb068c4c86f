/* de_periodic.c — the ideal spin states of the double-exchange model as crystals
 * (mcf/periodic.h), for band evaluators: the variational phase diagram of the model is the
 * grand potential of these states against mu.
 *
 * States (square: ferro, neel-g, canted, spiral; cubic: all):
 *   ferro             all spins along z; one site per cell.
 *   neel-g            G-type antiferromagnet, every neighbour antiparallel; two sites per
 *                     cell (primitive vectors (1,1,0), (1,0,1), (0,1,1); square (1,1), (1,-1)).
 *   neel-a            A-type: ferromagnetic xy planes, antiparallel along z; cell (0,0,2).
 *   neel-c            C-type: ferromagnetic chains along z, antiparallel in the plane;
 *                     cell (1,1,0), (1,-1,0), (0,0,1).
 *   canted:THETA      the neel-g cell with the two sublattices' spins THETA degrees apart,
 *                     both tilted from z in the xz plane (0: ferro, 180: neel-g).
 *   spiral:QX,QY[,QZ] the planar spiral S_r = (cos phi_r, sin phi_r, 0), phi_r = 2 pi Q.r,
 *                     Q in reciprocal lattice units (0.5, 0.5, 0.5 is neel-g's ordering).
 *
 * Hamiltonian (de_hamiltonian.c's conventions).  hund = inf: one orbital per site,
 * H_ij = -t <chi_i|chi_j> between neighbours, chi the spinor along S.  A collinear or
 * canted cell takes that formula bond by bond.  The spiral is translation invariant up to
 * a phase: along a bond delta, <chi_{r+delta}|chi_r> = (1 + e^{-i Delta}) / 2 with Delta =
 * 2 pi Q.delta, so one orbital per cell carries the hopping -t (1 + e^{-i Delta}) / 2 and
 * eps(k) = -2t sum_d cos(Delta_d / 2) cos(k_d - Delta_d / 2).
 * hund = J_H finite: two orbitals per site (up, down), spin-diagonal hopping -t and on site
 * -J_H S.sigma.  For the spiral the frame that rotates with the spins, c_r = e^{-i phi_r
 * sigma_z / 2} d_r, makes the on-site block -J_H sigma_x everywhere and the hopping along
 * delta -t e^{i Delta sigma_z / 2}: one cell of two orbitals, the same spectrum (the
 * orbital weights then refer to the rotating frame).
 *
 * The chain's own configuration (state NULL or "", a chain given): the L^d box as one cell,
 * lattice vectors L e_d, its sites in the lattice's order (x fastest), 1 or 2 orbitals per
 * site; a bond leaving the box wraps to the neighbouring cell, so H(k = 0) is the chain's
 * Hamiltonian with periodic boundaries, entry for entry, its twist included (the bonds
 * across the boundary carry the twist's phase, mcf/lattice.h).  The spins are the chain's;
 * everything else is the same formula as for the ideal states.  Open boundaries are
 * refused: the periodic repetition of an open cluster is not that cluster.
 *
 * The cells come from mcf_cell_lattice (the sublattice pattern, or the chain's spins, as
 * callbacks). */
#include "de_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DE_STATES_SQUARE "ferro, neel-g, canted:THETA (degrees), spiral:QX,QY"
#define DE_STATES_CUBIC \
    "ferro, neel-g, neel-a, neel-c, canted:THETA (degrees), spiral:QX,QY,QZ"

/* a collinear or canted pattern: the spin of every site from its sublattice; or the
 * chain's spins */
typedef struct de_pattern {
    double t, hund;
    int finite;
    char parity;         /* 'u' uniform, 'g' x+y+z, 'a' z, 'c' x+y: which sites get spin b */
    double a[3], b[3];   /* the two spins */
    const de_chain *chain; /* not NULL: the spins of this chain's L^d box instead */
} de_pattern;

static const double *spin_at(const de_pattern *p, const int r[3])
{
    if (p->chain) { /* site x + L (y + L z) of the box, r wrapped into it */
        const long L = p->chain->L;
        size_t i = 0;
        for (int d = p->chain->kind == MCF_LATTICE_SQUARE ? 1 : 2; d >= 0; d--)
            i = i * (size_t)L + (size_t)(((r[d] % L) + L) % L);
        return p->chain->spin + 3 * i;
    }
    const int s = p->parity == 'g'   ? r[0] + r[1] + r[2]
                  : p->parity == 'a' ? r[2]
                  : p->parity == 'c' ? r[0] + r[1]
                                     : 0;
    return (s & 1) ? p->b : p->a;
}

/* mcf_cell_lattice's callbacks: -J_H S.sigma on site (finite J_H) ... */
static void pattern_onsite(void *ctx, const int r[3], double *block)
{
    const de_pattern *p = ctx;
    const double *S = spin_at(p, r);
    block[0] = -p->hund * S[2];                 /* up, up */
    block[2] = -p->hund * S[0];                 /* up, down: -J_H (S^x - i S^y) */
    block[3] = p->hund * S[1];
    block[4] = -p->hund * S[0];                 /* down, up: the conjugate */
    block[5] = -p->hund * S[1];
    block[6] = p->hund * S[2];                  /* down, down */
}

/* ... and the bond to r + e_d: -t <chi_{r+e_d}|chi_r>, or -t per spin */
static void pattern_hop(void *ctx, const int r[3], unsigned d, double *block)
{
    const de_pattern *p = ctx;
    int y[3] = {r[0], r[1], r[2]};
    y[d] += 1;
    if (p->finite) {
        block[0] = -p->t;
        block[6] = -p->t;
    } else
        de_hop(p->t, spin_at(p, y), spin_at(p, r), &block[0], &block[1]);
    /* a chain's bond across its box's boundary: times exp(-i theta_d), the conjugate of the
       twist's phase on <r| H |r + e_d> (mcf/lattice.h) */
    const de_chain *c = p->chain;
    if (c && c->twisted && c->theta[d] != 0.0 && r[d] == c->L - 1) {
        const double cs = cos(c->theta[d]), sn = -sin(c->theta[d]);
        for (int o = 0; o < (p->finite ? 2 : 1); o++) {
            double *b = block + (p->finite ? 6 * o : 0);
            const double re = b[0], im = b[1];
            b[0] = cs * re - sn * im;
            b[1] = cs * im + sn * re;
        }
    }
}

/* the cell of a pattern: one site (uniform) or the two-sublattice cell of its parity */
static int describe_pattern(unsigned dims, const de_pattern *p, mcf_cell *cell)
{
    static const int one[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    static const int g2[9] = {1, 1, 0, 1, -1, 0, 0, 0, 1};
    static const int g3[9] = {1, 1, 0, 1, 0, 1, 0, 1, 1};
    static const int a3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 2};
    static const int c3[9] = {1, 1, 0, 1, -1, 0, 0, 0, 1};
    const int *a = p->parity == 'u'   ? one
                   : p->parity == 'g' ? (dims == 2 ? g2 : g3)
                   : p->parity == 'a' ? a3
                                      : c3;
    return mcf_cell_lattice(cell, dims, a, p->finite ? 2 : 1, p->finite ? pattern_onsite : NULL,
                            pattern_hop, (void *)p);
}

/* the planar spiral with wave vector Q (reciprocal lattice units) */
static void describe_spiral(unsigned dims, const double Q[3], double t, double hund,
                            mcf_cell *cell)
{
    const int finite = isfinite(hund);
    static const double id[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    mcf_cell_shape(cell, dims, finite ? 2 : 1, 1, id);
    if (finite)
        mcf_cell_bond(cell, 0, 0, 0, 0, 1, -hund, 0.0); /* -J_H sigma_x */
    for (unsigned d = 0; d < dims; d++) {
        const int R[3] = {d == 0, d == 1, d == 2};
        const double D = 2.0 * DE_PI * Q[d];
        if (finite) {
            mcf_cell_bond(cell, R[0], R[1], R[2], 0, 0, -t * cos(0.5 * D), -t * sin(0.5 * D));
            mcf_cell_bond(cell, R[0], R[1], R[2], 1, 1, -t * cos(0.5 * D), t * sin(0.5 * D));
        } else
            mcf_cell_bond(cell, R[0], R[1], R[2], 0, 0, -0.5 * t * (1.0 + cos(D)),
                          0.5 * t * sin(D));
    }
}

/* "NAME" or "NAME:ARGS": 1 and the arguments' text when name matches */
static int state_is(const char *state, const char *name, const char **args)
{
    const size_t n = strlen(name);
    if (strncmp(state, name, n) != 0)
        return 0;
    if (state[n] == '\0') {
        *args = NULL;
        return 1;
    }
    if (state[n] != ':')
        return 0;
    *args = state + n + 1;
    return 1;
}

/* up to `max` comma-separated finite numbers; returns how many, -1 on a bad one */
static int numbers(const char *text, double *x, int max)
{
    int n = 0;
    const char *p = text;
    while (p && *p) {
        char *end;
        if (n == max)
            return -1;
        x[n] = strtod(p, &end);
        if (end == p || !isfinite(x[n]))
            return -1;
        n++;
        while (*end == ' ')
            end++;
        if (*end == ',')
            end++;
        else if (*end != '\0')
            return -1;
        p = end;
    }
    return n;
}

/* the chain's own configuration: its L^d box as one cell */
static int describe_chain(const mcf_params *params, const de_chain *c, mcf_cell *cell)
{
    int rc = mcf_cell_box_boundary(params, "double-exchange", c->boundary);
    if (rc)
        return rc;
    const de_pattern p = {c->t, c->hund, c->finite, 'u', {0, 0, 1}, {0, 0, -1}, c};
    const int L = (int)c->L, box[9] = {L, 0, 0, 0, L, 0, 0, 0, L};
    const unsigned dims = c->kind == MCF_LATTICE_SQUARE ? 2 : 3;
    mcf_cell_lattice(cell, dims, box, p.finite ? 2 : 1, p.finite ? pattern_onsite : NULL,
                     pattern_hop, (void *)&p);
    return mcf_cell_status(cell);
}

int de_periodic(const mcf_params *params, const void *chain, const char *state,
                mcf_cell *cell)
{
    double t, hund;
    const char *args;
    int lattice, rc;
    if ((rc = mcf_params_real(params, "t", &t)) || (rc = mcf_params_real(params, "hund", &hund)) ||
        (rc = mcf_params_choice(params, "lattice", &lattice)))
        return mcf_fail_prefix(rc, "double-exchange");
    const unsigned dims = lattice == DE_LATTICE_SQUARE ? 2 : 3;
    const char *known = dims == 2 ? DE_STATES_SQUARE : DE_STATES_CUBIC;
    double flux;
    if ((rc = mcf_params_real(params, "flux", &flux)))
        return mcf_fail_prefix(rc, "double-exchange");
    if (flux != 0.0) /* the Landau gauge's phases repeat over L cells, not over this cell */
        return mcf_fail(MCF_EINVAL, "double-exchange: flux = %g: with a field the model is no "
                        "crystal of its spin pattern's cell (the Landau gauge's phases repeat "
                        "only over the whole torus); set flux = 0 for band calculations", flux);
    if ((!state || !*state) && chain)
        return describe_chain(params, chain, cell);
    if (!state || !*state)
        return mcf_fail(MCF_EINVAL, "double-exchange: no state named and no chain given (the "
                        "chain's own configuration needs one); name an ideal state: %s", known);
    de_pattern p = {t, hund, isfinite(hund), 'u', {0, 0, 1}, {0, 0, -1}, NULL};
    if (strcmp(state, "ferro") == 0)
        describe_pattern(dims, &p, cell);
    else if (strcmp(state, "neel-g") == 0) {
        p.parity = 'g';
        describe_pattern(dims, &p, cell);
    } else if (dims == 3 && (strcmp(state, "neel-a") == 0 || strcmp(state, "neel-c") == 0)) {
        p.parity = state[5];
        describe_pattern(dims, &p, cell);
    } else if (state_is(state, "canted", &args)) {
        double theta;
        if (!args || numbers(args, &theta, 1) != 1)
            return mcf_fail(MCF_EINVAL, "double-exchange: state '%s': write canted:THETA, the "
                            "angle between the two sublattices' spins in degrees (0 ferro, 180 "
                            "neel-g)", state);
        const double h = 0.5 * theta * DE_PI / 180.0;
        const double sa[3] = {sin(h), 0, cos(h)}, sb[3] = {-sin(h), 0, cos(h)};
        p.parity = 'g';
        memcpy(p.a, sa, sizeof sa);
        memcpy(p.b, sb, sizeof sb);
        describe_pattern(dims, &p, cell);
    } else if (state_is(state, "spiral", &args)) {
        double Q[3] = {0, 0, 0};
        if (!args || numbers(args, Q, 3) != (int)dims)
            return mcf_fail(MCF_EINVAL, "double-exchange: state '%s': write spiral:%s, the "
                            "wave vector in reciprocal lattice units (0.5 per direction is the "
                            "G-type order)", state, dims == 2 ? "QX,QY" : "QX,QY,QZ");
        describe_spiral(dims, Q, t, hund, cell);
    } else
        return mcf_fail(MCF_EINVAL, "double-exchange: unknown state '%s' on the %s lattice; "
                        "states: %s", state, dims == 2 ? "square" : "cubic", known);
    return mcf_cell_status(cell);
}
