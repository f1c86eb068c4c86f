/* heg.c — HEG set-up and the exact finite-N Hartree-Fock energy; formulas in heg.h. */
#include "heg.h"

#include "ewald.h"
#include "mcf/error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEG_PI 3.14159265358979323846

typedef struct hv {
    int n[3];
    long m; /* |n|^2 */
} hv;

static int hv_cmp(const void *pa, const void *pb)
{
    const hv *a = pa, *b = pb;
    if (a->m != b->m) return a->m < b->m ? -1 : 1;
    for (int c = 0; c < 3; c++)
        if (a->n[c] != b->n[c]) return a->n[c] < b->n[c] ? -1 : 1;
    return 0;
}

/* All integer vectors with |n|^2 <= R^2, sorted (so every shell m <= R^2 is complete). */
static int generate(int R, hv **out, size_t *len)
{
    const size_t side = (size_t)(2 * R + 1);
    hv *v = malloc(side * side * side * sizeof *v);
    if (!v) return mcf_fail(MCF_ENOMEM, "heg: out of memory (shell enumeration)");
    size_t c = 0;
    const long R2 = (long)R * R;
    for (int x = -R; x <= R; x++)
        for (int y = -R; y <= R; y++)
            for (int z = -R; z <= R; z++) {
                const long m = (long)x * x + (long)y * y + (long)z * z;
                if (m > R2) continue;
                v[c].n[0] = x;
                v[c].n[1] = y;
                v[c].n[2] = z;
                v[c].m = m;
                c++;
            }
    qsort(v, c, sizeof *v, hv_cmp);
    *out = v;
    *len = c;
    return MCF_OK;
}

/* Sorted vectors with at least need + 1 entries (so index need exists and its shell is
 * complete in the list).  need <= MCF_HEG_MAX_ELECTRONS. */
static int generate_at_least(size_t need, hv **out, size_t *len)
{
    int R = (int)ceil(cbrt(3.0 * (double)(need + 1) / (4.0 * HEG_PI))) + 2;
    for (;;) {
        const int rc = generate(R, out, len);
        if (rc) return rc;
        if (*len > need) return MCF_OK;
        free(*out);
        *out = NULL;
        R += 2;
    }
}

/* Closed-shell numbers per spin, ascending, until one exceeds `beyond` and at least
 * `count` are known.  *out owned by the caller (free). */
static int closed_list(size_t count, size_t beyond, size_t **out, size_t *len)
{
    size_t need = beyond + 1 > count ? beyond + 1 : count;
    hv *v = NULL;
    size_t nv = 0;
    int rc = generate_at_least(need, &v, &nv);
    if (rc) return rc;
    size_t *c = malloc(nv * sizeof *c);
    if (!c) {
        free(v);
        return mcf_fail(MCF_ENOMEM, "heg: out of memory (shell list)");
    }
    size_t nc = 0;
    /* every shell in the list is complete (generate), the last one included */
    for (size_t i = 0; i < nv; i++)
        if (i + 1 == nv || v[i].m != v[i + 1].m) c[nc++] = i + 1;
    free(v);
    *out = c;
    *len = nc;
    return MCF_OK;
}

int mcf_heg_cell_side(double rs, size_t n_electrons, double *L)
{
    if (!L) return mcf_fail(MCF_EINVAL, "heg: L must not be NULL");
    if (!isfinite(rs) || rs <= 0.0)
        return mcf_fail(MCF_EINVAL, "heg: r_s = %g must be a finite positive length (bohr)", rs);
    if (n_electrons < 1 || n_electrons > MCF_HEG_MAX_ELECTRONS)
        return mcf_fail(MCF_EINVAL, "heg: N = %zu electrons must lie in [1, %d]", n_electrons,
                        MCF_HEG_MAX_ELECTRONS);
    *L = rs * cbrt(4.0 / 3.0 * HEG_PI * (double)n_electrons);
    return MCF_OK;
}

int mcf_heg_is_closed_shell(size_t n_per_spin)
{
    if (n_per_spin < 1 || n_per_spin > MCF_HEG_MAX_ELECTRONS) return 0;
    hv *v = NULL;
    size_t nv = 0;
    if (generate_at_least(n_per_spin, &v, &nv)) return 0;
    const int closed = v[n_per_spin - 1].m != v[n_per_spin].m;
    free(v);
    return closed;
}

int mcf_heg_closed_shells(size_t count, size_t *out)
{
    if (count == 0 || !out) return mcf_fail(MCF_EINVAL, "heg: closed_shells needs count >= 1");
    size_t *c = NULL, nc = 0;
    size_t beyond = 0;
    for (;;) {
        const int rc = closed_list(count, beyond, &c, &nc);
        if (rc) return rc;
        if (nc >= count) break;
        free(c);
        beyond = beyond ? 2 * beyond : 8 * count;
    }
    memcpy(out, c, count * sizeof *out);
    free(c);
    return MCF_OK;
}

int mcf_heg_electrons(size_t n_electrons, int polarized, size_t *n_up, size_t *n_down)
{
    if (!n_up || !n_down) return mcf_fail(MCF_EINVAL, "heg: n_up, n_down must not be NULL");
    if (n_electrons < 1 || n_electrons > MCF_HEG_MAX_ELECTRONS)
        return mcf_fail(MCF_EINVAL, "heg: N = %zu electrons must lie in [1, %d]", n_electrons,
                        MCF_HEG_MAX_ELECTRONS);
    const size_t mult = polarized ? 1 : 2;
    const size_t per = n_electrons / mult;
    if (n_electrons % mult == 0 && mcf_heg_is_closed_shell(per)) {
        *n_up = per;
        *n_down = polarized ? 0 : per;
        return MCF_OK;
    }
    /* refuse, naming the valid N around n_electrons */
    size_t *c = NULL, nc = 0;
    const int rc = closed_list(8, per + 1, &c, &nc);
    if (rc) return rc;
    size_t below = 0, above = 0;
    for (size_t i = 0; i < nc; i++) {
        const size_t v = mult * c[i];
        if (v < n_electrons) below = v;
        if (v > n_electrons && above == 0) above = v;
    }
    char list[256];
    size_t used = 0;
    list[0] = '\0';
    for (size_t i = 0; i < nc && i < 8 && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%zu", i ? ", " : "",
                                 mult * c[i]);
    free(c);
    char near[96];
    if (below)
        snprintf(near, sizeof near, "the nearest valid N are %zu and %zu", below, above);
    else
        snprintf(near, sizeof near, "the smallest valid N is %zu", above);
    if (polarized)
        return mcf_fail(MCF_EINVAL,
                        "heg: N = %zu is not a closed shell of the polarized HEG (the occupied "
                        "k = 2 pi n / L must fill every |n|^2 <= s): %s (valid N: %s, ...)",
                        n_electrons, near, list);
    return mcf_fail(MCF_EINVAL,
                    "heg: N = %zu is not a closed shell of the unpolarized HEG (N/2 electrons "
                    "of each spin must fill every k = 2 pi n / L with |n|^2 <= s): %s "
                    "(valid N: %s, ...)",
                    n_electrons, near, list);
}

int mcf_heg_occupied(size_t n_per_spin, double L, int *n_out, double *k_out)
{
    if (n_per_spin < 1 || n_per_spin > MCF_HEG_MAX_ELECTRONS)
        return mcf_fail(MCF_EINVAL, "heg: %zu electrons per spin out of range [1, %d]",
                        n_per_spin, MCF_HEG_MAX_ELECTRONS);
    if (k_out && (!isfinite(L) || L <= 0.0))
        return mcf_fail(MCF_EINVAL, "heg: cell side L = %g must be positive", L);
    hv *v = NULL;
    size_t nv = 0;
    const int rc = generate_at_least(n_per_spin, &v, &nv);
    if (rc) return rc;
    if (v[n_per_spin - 1].m == v[n_per_spin].m) {
        free(v);
        return mcf_fail(MCF_EINVAL,
                        "heg: %zu electrons per spin do not fill a closed shell (see "
                        "mcf_heg_electrons for the valid numbers)", n_per_spin);
    }
    for (size_t i = 0; i < n_per_spin; i++)
        for (int c = 0; c < 3; c++) {
            if (n_out) n_out[3 * i + (size_t)c] = v[i].n[c];
            if (k_out) k_out[3 * i + (size_t)c] = 2.0 * HEG_PI * v[i].n[c] / L;
        }
    free(v);
    return MCF_OK;
}

/* sum_n |n|^2 and sum_{n != n'} 1 / |n - n'|^2 over one spin's occupied set */
static int spin_sums(size_t n_per_spin, double *sum_n2, double *sum_inv)
{
    *sum_n2 = 0.0;
    *sum_inv = 0.0;
    if (n_per_spin == 0) return MCF_OK;
    int *n = malloc(3 * n_per_spin * sizeof *n);
    if (!n) return mcf_fail(MCF_ENOMEM, "heg: out of memory");
    const int rc = mcf_heg_occupied(n_per_spin, 1.0, n, NULL);
    if (rc) {
        free(n);
        return rc;
    }
    double s2 = 0.0, si = 0.0;
    for (size_t a = 0; a < n_per_spin; a++) {
        const int *na = n + 3 * a;
        s2 += (double)(na[0] * na[0] + na[1] * na[1] + na[2] * na[2]);
        for (size_t b = 0; b < n_per_spin; b++) {
            if (a == b) continue;
            const int *nb = n + 3 * b;
            const long dx = na[0] - nb[0], dy = na[1] - nb[1], dz = na[2] - nb[2];
            si += 1.0 / (double)(dx * dx + dy * dy + dz * dz);
        }
    }
    free(n);
    *sum_n2 = s2;
    *sum_inv = si;
    return MCF_OK;
}

int mcf_heg_hartree_fock(size_t n_electrons, int polarized, double rs, double accuracy,
                         mcf_heg_hf *out)
{
    if (!out) return mcf_fail(MCF_EINVAL, "heg: out must not be NULL");
    size_t nu = 0, nd = 0;
    int rc = mcf_heg_electrons(n_electrons, polarized, &nu, &nd);
    if (rc) return rc;
    double L = 0.0;
    rc = mcf_heg_cell_side(rs, n_electrons, &L);
    if (rc) return rc;
    const double cell[3] = {L, L, L};
    double vM = 0.0;
    rc = mcf_ewald_madelung_cell(cell, accuracy, &vM);
    if (rc) return mcf_fail_prefix(rc, "heg: Madelung constant");
    double s2u, siu, s2d, sid;
    rc = spin_sums(nu, &s2u, &siu);
    if (rc) return rc;
    rc = spin_sums(nd, &s2d, &sid);
    if (rc) return rc;
    const double N = (double)n_electrons;
    out->n_up = nu;
    out->n_down = nd;
    out->rs = rs;
    out->L = L;
    out->v_M = vM;
    out->kinetic = 2.0 * HEG_PI * HEG_PI / (L * L) * (s2u + s2d) / N;
    out->exchange = -(siu + sid) / (2.0 * HEG_PI * N * L);
    out->madelung = 0.5 * vM;
    out->total = out->kinetic + out->exchange + out->madelung;
    return MCF_OK;
}
