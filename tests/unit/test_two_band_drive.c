/* test_two_band_drive.c — the driven crystal of the two-band model (models/two-band; its
 * driven_crystal op, mcf/dynamics.h) through the core's loader (mcfe_plugin_open,
 * mcfe_model_driven_crystal), against the model's definition:
 *
 *     H_0(k) = diag(eps_v, eps_c),  eps_a(k) = -+gap/2 - 2 t_a sum_d cos(2 pi k_d),
 *     D(k)   = d sigma_x,           V = n_v n_c (one term 0-1 of weight 1),
 *
 * k reduced (mcf/periodic.h: H(k)_ab = sum (re + i im) exp(2 pi i k . R)), to 1e-14 at k = 0,
 * the zone's corner, and 20 random k; both cells of the same shape (dims, 2 orbitals, 1
 * site, unit lattice vectors) and Hermitian (mcf_periodic_check); mu and T of the initial
 * state from [model].  For the defaults on the chain and for a cubic crystal with other
 * values (every hopping's sign the opposite of the defaults', a negative dipole: a
 * missing sign or factor shows).  Also: the periodic op's state crystal is the same H_0,
 * another state is refused naming crystal, and create refuses a chain (no Monte Carlo). */
#include "check.h"
#include "test_params.h"

#include "internal.h"
#include "mcf_engine.h"
#include "mcf/dynamics.h"
#include "mcf/error.h"
#include "mcf/periodic.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static const double pi = 3.14159265358979323846;

typedef struct tb_case {
    const char *what;
    const char *kv[14]; /* "key", "value", ..., NULL: the [model] overrides */
    unsigned dims;
    double gap, tv, tc, d, mu, T;
} tb_case;

/* the largest |difference| between the cell's H(k) and diag(e0, e1) + d sigma_x */
static double deviation(const mcf_periodic *p, const double *k, double e0, double e1, double d)
{
    double hk[8];
    mcf_periodic_hk(p, k, hk);
    const double want[8] = {e0, 0, d, 0, d, 0, e1, 0};
    double worst = 0;
    for (int i = 0; i < 8; i++)
        worst = fmax(worst, fabs(hk[i] - want[i]));
    return worst;
}

/* the shape both cells must have: dims, 2 orbitals, 1 site, the unit vectors, Hermitian */
static void check_shape(const mcf_periodic *p, const tb_case *c, const char *which)
{
    CHECK(p != NULL, "%s: %s described (%s)", c->what, which, mcf_last_error());
    if (!p)
        return;
    CHECK(p->dims == c->dims && p->orbitals == 2 && p->sites == 1,
          "%s: %s has dims %u, %u orbitals, %u sites (want %u, 2, 1)", c->what, which,
          p->dims, p->orbitals, p->sites, c->dims);
    int unit = 1;
    for (uint32_t i = 0; i < p->dims && i < 3; i++)
        for (int x = 0; x < 3; x++)
            unit &= p->lattice[i][x] == (i == (uint32_t)x ? 1.0 : 0.0);
    CHECK(unit, "%s: %s's lattice vectors are the unit vectors", c->what, which);
    CHECK(mcf_periodic_check(p, which) == MCF_OK, "%s: %s: %s", c->what, which,
          mcf_last_error());
}

/* the k points: 0, the corner (1/2, ...), and 20 random ones in [-1/2, 1/2)^dims */
static void k_point(int s, unsigned dims, uint64_t *x, double k[3])
{
    for (unsigned i = 0; i < 3; i++) {
        *x = *x * 6364136223846793005ull + 1442695040888963407ull;
        const double r = (double)(*x >> 11) / 9007199254740992.0 - 0.5;
        k[i] = i >= dims ? 0.0 : s == 0 ? 0.0 : s == 1 ? 0.5 : r;
    }
}

static void check_case(const mcf_plugin *model, const tb_case *c)
{
    const char *const *v = c->kv;
    test_params *tp = test_params_make(model->info->params, "test_two_band_drive.c", v[0], v[1],
                                       v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10],
                                       v[11], v[12], v[13], (const char *)NULL);
    CHECK(tp->ok, "%s: parameters: %s", c->what, mcf_last_error());
    mcf_cell *crystal = NULL, *dipole = NULL, *band = NULL;
    mcf_cell_create(&crystal);
    mcf_cell_create(&dipole);
    mcf_cell_create(&band);
    mcf_drive_terms terms;
    memset(&terms, 0xff, sizeof terms); /* the core zeroes it */
    int rc = tp->ok ? mcfe_model_driven_crystal(model, &tp->p, crystal, dipole, &terms)
                    : MCF_EINVAL;
    CHECK(rc == MCF_OK, "%s: driven_crystal: %s", c->what, mcf_last_error());
    const mcf_periodic *h = rc ? NULL : mcf_cell_view(crystal);
    const mcf_periodic *dp = rc ? NULL : mcf_cell_view(dipole);
    check_shape(h, c, "crystal");
    check_shape(dp, c, "dipole");
    rc = tp->ok ? mcfe_model_periodic(model, &tp->p, NULL, "crystal", band) : MCF_EINVAL;
    CHECK(rc == MCF_OK, "%s: periodic crystal: %s", c->what, mcf_last_error());
    const mcf_periodic *hb = rc ? NULL : mcf_cell_view(band);
    check_shape(hb, c, "periodic crystal");

    double dev_h = 0, dev_d = 0, dev_b = 0;
    uint64_t x = 0x2545f4914f6cdd1dull;
    for (int s = 0; s < 22 && h && dp && hb; s++) {
        double k[3], sum = 0;
        k_point(s, c->dims, &x, k);
        for (unsigned i = 0; i < c->dims; i++)
            sum += cos(2 * pi * k[i]);
        const double ev = -0.5 * c->gap - 2 * c->tv * sum, ec = 0.5 * c->gap - 2 * c->tc * sum;
        dev_h = fmax(dev_h, deviation(h, k, ev, ec, 0.0));
        dev_b = fmax(dev_b, deviation(hb, k, ev, ec, 0.0));
        dev_d = fmax(dev_d, deviation(dp, k, 0.0, 0.0, c->d));
    }
    CHECK(dev_h <= 1e-14, "%s: H_0(k) differs from diag(eps_v, eps_c) by %.3g", c->what, dev_h);
    CHECK(dev_b <= 1e-14, "%s: periodic's H(k) differs from diag(eps_v, eps_c) by %.3g",
          c->what, dev_b);
    CHECK(dev_d <= 1e-14, "%s: D(k) differs from d sigma_x by %.3g", c->what, dev_d);
    printf("%-34s |H_0 - diag(eps_v, eps_c)| %.2g, |D - d sigma_x| %.2g at 22 k\n", c->what,
           dev_h, dev_d);

    CHECK(terms.struct_size == sizeof terms, "%s: terms.struct_size %u", c->what,
          terms.struct_size);
    CHECK(terms.n_terms == 1 && terms.terms[0].a == 0 && terms.terms[0].b == 1 &&
              terms.terms[0].weight == 1.0,
          "%s: %u terms, the first %u-%u weight %g (want 1 term, 0-1, weight 1)", c->what,
          terms.n_terms, terms.terms[0].a, terms.terms[0].b, terms.terms[0].weight);
    for (unsigned m = 1; m < MCF_DRIVE_MAX_TERMS; m++)
        CHECK(terms.terms[m].a == 0 && terms.terms[m].b == 0 && terms.terms[m].weight == 0,
              "%s: term %u not zero", c->what, m);
    CHECK(terms.mu == c->mu && terms.temperature == c->T, "%s: mu %g, T %g (want %g, %g)",
          c->what, terms.mu, terms.temperature, c->mu, c->T);

    mcf_cell *other = NULL;
    mcf_cell_create(&other);
    rc = tp->ok ? mcfe_model_periodic(model, &tp->p, NULL, "ferro", other) : MCF_OK;
    CHECK(rc == MCF_EINVAL && strstr(mcf_last_error(), "two-band knows the state crystal"),
          "%s: state ferro: %d, %s", c->what, rc, mcf_last_error());
    void *chain = NULL;
    rc = tp->ok ? mcfe_model_create(model, &tp->p, NULL, NULL, &chain) : MCF_OK;
    CHECK(rc == MCF_EINVAL && !chain &&
              strstr(mcf_last_error(), "two-band: no classical field to sample"),
          "%s: create: %d, %s", c->what, rc, mcf_last_error());
    mcf_cell_destroy(other);
    mcf_cell_destroy(band);
    mcf_cell_destroy(dipole);
    mcf_cell_destroy(crystal);
    test_params_free(tp);
}

int main(void)
{
    mcf_plugin *p = NULL;
    int rc = mcfe_plugin_open("two-band", MCF_PLUGIN_MODEL, &p);
    CHECK(rc == MCF_OK && p, "loading the two-band plugin: %s", mcf_last_error());
    if (rc)
        return check_exit();
    static const tb_case cases[] = {
        {"defaults (chain)", {NULL}, 1, 3, -0.25, 0.5, 1, 0, 0},
        {"square, gap 6",
         {"dims", "2", "gap", "6", NULL},
         2, 6, -0.25, 0.5, 1, 0, 0},
        {"cubic, other signs",
         {"dims", "3", "gap", "2.5", "t_v", "0.35", "t_c", "-0.6", "dipole", "-0.8", "mu",
          "0.2", "temperature", "0.05"},
         3, 2.5, 0.35, -0.6, -0.8, 0.2, 0.05},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_case(p, &cases[i]);
    mcfe_plugin_close(p);
    return check_exit();
}
