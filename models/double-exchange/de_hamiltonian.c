/* de_hamiltonian.c — the one-particle Hamiltonian of the double-exchange model as a
 * function of the spins: its entries, the rows of one site, the build from scratch, the
 * consistency check, and the change H' - H of a single-spin move.  Not the move itself
 * (de_moves.c) nor what the evaluator does with H (the configured fermion evaluator).
 *
 * Conventions (mcf/hamiltonian.h; z the coordination, 4 or 6).
 *   hund = inf (the default): one orbital per site (row i = site i), spinless fermions
 *     whose spin follows the core spin, chi_i = (cos(th_i/2), sin(th_i/2) e^{i ph_i}) with
 *     th_i = acos(S_i^z) (S^z clamped into [-1, 1]) and ph_i = atan2(S_i^y, S_i^x), and
 *         H_ij = -t <chi_i|chi_j>
 *              = -t [cos(th_i/2) cos(th_j/2) + sin(th_i/2) sin(th_j/2) e^{-i(ph_i - ph_j)}]
 *     for nearest neighbours i, j; no on-site term.  ELL width z.  |<chi_i|chi_j>| <= 1, so
 *     Gershgorin's discs give |E| <= z |t|; the bounds are fixed to +-z|t|, so the
 *     evaluator's energy grid never changes during a run.  The hoppings are declared
 *     factorized (mcf/hamiltonian_factors.h, rank 2, amplitude -t, field chi_i), so the
 *     core writes every entry from the spinors (mcf_factors_hop: the cos/sin of th and ph
 *     are taken per site, not per bond) and an evaluator may stream the spinors instead of
 *     the table.
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
 * The change of a move.  A move of site o to S' carries Delta = H' - H as an mcf_change
 * (mcf/change.h) of rank 2, built in propose() from the chain's current spins (every entry
 * past the rank and the entry counts zero, as mcf_change_from_local left the rank-2
 * mcf_local_change this model built before, so an evaluator sees the same change):
 *   hund = inf:  u_0 = |o>, u_1 = |v> = sum_j (H'_jo - H_jo) |j> over the neighbours j of
 *                o (zero differences skipped; if all are zero one is kept),
 *                C = [[0, 1], [1, 0]], so Delta = |o><v| + |v><o|;
 *   finite J_H:  u_0 = |o up>, u_1 = |o dn>, C = the change of the 2 x 2 block,
 *                -J_H (S' - S_o).sigma, as differences of the block's entries.
 *
 * The consistency check.  After every N accepted moves (de_moves.c) every entry of H is
 * rebuilt from the spins into a scratch Hamiltonian of the same layout and compared bit for
 * bit with the table the evaluator reads; a difference is an internal error (MCF_EINTERNAL)
 * naming the row, slot and both values. */
#include "de_internal.h"

#include <math.h>
#include <string.h>

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

/* The field of a site for the factorized hoppings (mcf/hamiltonian_factors.h, rank 2):
 * a = chi = (cos(th/2), sin(th/2) e^{i ph}) as (re, im) pairs, so that
 * -t conj(a_i) . a_j = -t <chi_i|chi_j> = H_ij. */
void de_field(const double s[3], double a[4])
{
    double ch, sh, ph;
    de_spinor(s, &ch, &sh, &ph);
    a[0] = ch;
    a[1] = 0.0;
    a[2] = sh * cos(ph);
    a[3] = sh * sin(ph);
}

void de_hop(double t, const double a[3], const double b[3], double *re, double *im)
{
    double ca, sa, pa, cb, sb, pb;
    de_spinor(a, &ca, &sa, &pa);
    de_spinor(b, &cb, &sb, &pb);
    const double d = pa - pb;
    *re = -t * (ca * cb + sa * sb * cos(d));
    *im = t * (sa * sb * sin(d));
}

void de_entry(const de_chain *c, size_t i, int k, const double *si, const double *sj,
              double *re, double *im)
{
    double ai[4], aj[4];
    de_field(si, ai);
    de_field(sj, aj);
    de_entry_spinor(c, i, k, ai, aj, re, im);
}

void de_entry_spinor(const de_chain *c, size_t i, int k, const double *ai, const double *aj,
                     double *re, double *im)
{
    double hr, hi;
    mcf_factors_hop(2, -c->t, ai, aj, &hr, &hi);
    const double *ph = c->phase ? c->phase + 2 * (i * (size_t)c->z + (size_t)k) : NULL;
    if (!ph || (ph[0] == 1.0 && ph[1] == 0.0)) {
        *re = hr;
        *im = hi;
        return;
    }
    *re = ph[0] * hr - ph[1] * hi;
    *im = ph[0] * hi + ph[1] * hr;
}

/* The twisted hoppings of site o at hund = inf, each bond from its lower site: H[i][j] =
 * de_entry(i, the slot of j) with i < j, so that a rebuild writes the same bits. */
static int de_set_twisted_bonds(const de_chain *c, mcf_hamiltonian *h, size_t o,
                                const double *spin)
{
    const int32_t *nb = c->nb + (size_t)c->z * o;
    for (int k = 0; k < c->z; k++) {
        if (nb[k] < 0)
            continue;
        const size_t j = (size_t)nb[k];
        /* the opposite slot: o is neighbour k ^ 1 of j (slots come in +d, -d pairs) */
        const size_t lo = o < j ? o : j, hi = o < j ? j : o;
        const int kl = o < j ? k : k ^ 1;
        double re, im;
        de_entry(c, lo, kl, spin + 3 * lo, spin + 3 * hi, &re, &im);
        const int rc = mcf_hamiltonian_set(h, lo, hi, re, im);
        if (rc)
            return mcf_fail_prefix(rc, "double-exchange: the hopping %zu -> %zu", lo, hi);
    }
    return MCF_OK;
}

/* Writes every entry of h that depends on the spin of site o, from the spins `spin`
 * (canonical orientation: the lower site first). */
int de_set_site(const de_chain *c, mcf_hamiltonian *h, size_t o, const double *spin)
{
    int rc;
    if (!c->finite && c->twisted)
        return de_set_twisted_bonds(c, h, o, spin);
    if (c->finite) {
        const double *s = spin + 3 * o, J = c->hund;
        if ((rc = mcf_hamiltonian_set_onsite(h, 2 * o, -J * s[2])) ||
            (rc = mcf_hamiltonian_set_onsite(h, 2 * o + 1, J * s[2])) ||
            (rc = mcf_hamiltonian_set(h, 2 * o, 2 * o + 1, -J * s[0], J * s[1])))
            return mcf_fail_prefix(rc, "double-exchange: the spin block of site %zu", o);
        return MCF_OK;
    }
    double a[4];
    de_field(spin + 3 * o, a);
    if ((rc = mcf_hamiltonian_set_field(h, o, a)))
        return mcf_fail_prefix(rc, "double-exchange: the spinor of site %zu", o);
    return MCF_OK;
}

/* Writes every entry of h from the chain's spins, always in the same order, so that a
 * Hamiltonian built from empty gets the same slot layout every time. */
int de_build(const de_chain *c, mcf_hamiltonian *h)
{
    int rc;
    for (size_t i = 0; i < c->n; i++) {
        if (c->finite) {
            const int32_t *nb = c->nb + (size_t)c->z * i;
            for (int k = 0; k < c->z; k++) {
                if (nb[k] < 0 || (size_t)nb[k] <= i)
                    continue; /* missing, or set from the lower site */
                const size_t j = (size_t)nb[k];
                double re = -c->t, im = 0.0; /* -t exp(i phi) with a twist or a field */
                const double *ph = c->phase ? c->phase + 2 * (i * (size_t)c->z + (size_t)k)
                                            : NULL;
                if (ph && (ph[0] != 1.0 || ph[1] != 0.0)) {
                    re = -c->t * ph[0];
                    im = -c->t * ph[1];
                }
                if ((rc = mcf_hamiltonian_set(h, 2 * i, 2 * j, re, im)) ||
                    (rc = mcf_hamiltonian_set(h, 2 * i + 1, 2 * j + 1, re, im)))
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

/* The consistency check at hund = inf: every site's field is its spin's spinor, bit for
 * bit, and the table follows the field (mcf_hamiltonian_check compares every entry). */
static int de_verify_field(de_chain *c)
{
    const double *field = c->h->factors->field;
    for (size_t i = 0; i < c->n; i++) {
        double a[4];
        de_field(c->spin + 3 * i, a);
        if (memcmp(a, field + 4 * i, sizeof a))
            return mcf_fail(MCF_EINTERNAL,
                            "double-exchange: consistency check failed (chain %llu, after %llu "
                            "accepted moves): the spinor of site %zu in the Hamiltonian is "
                            "(%.17g%+.17gi, %.17g%+.17gi), but its spin gives (%.17g%+.17gi, "
                            "%.17g%+.17gi) (a bug, please report it)",
                            (unsigned long long)c->chain_index,
                            (unsigned long long)c->accepted, i, field[4 * i],
                            field[4 * i + 1], field[4 * i + 2], field[4 * i + 3], a[0], a[1],
                            a[2], a[3]);
    }
    const int rc = mcf_hamiltonian_check(c->h);
    if (rc)
        return mcf_fail(MCF_EINTERNAL, "double-exchange: consistency check failed (chain %llu, "
                        "after %llu accepted moves): %s (a bug, please report it)",
                        (unsigned long long)c->chain_index, (unsigned long long)c->accepted,
                        mcf_last_error());
    c->checks++;
    return MCF_OK;
}

/* The consistency check: rebuilds H from the spins and compares bit for bit. */
int de_verify(de_chain *c)
{
    if (c->h->factors)
        return de_verify_field(c);
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

/* ---- the local change of a move ---------------------------------------------------- */

/* H_jo (row j, column o) for the spins of j and o (hund = inf), as the table holds it: j the
 * neighbour of o in slot k, so o is j's neighbour in slot k ^ 1 (the twist's phase). */
static void de_entry_jo(const de_chain *c, size_t j, int k, const double *sj, const double *so,
                        double *re, double *im)
{
    de_entry(c, j, k ^ 1, sj, so, re, im);
}

void de_make_change(const de_chain *c, size_t o, const double s_new[3], mcf_change *ch)
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
        de_entry_jo(c, j, k, c->spin + 3 * j, s_old, &r0, &i0);
        de_entry_jo(c, j, k, c->spin + 3 * j, s_new, &r1, &i1);
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
