/* test_kpm_plugin.c — the kpm plugin (plugins/kpm/kpm.c) loaded with the core's plugin
 * loader and used only through its ops (tests/evaluator_test.h: ABI 1's call shapes, on
 * kpm's ABI-2 table as the SDK makes them), against kpm_core called directly:
 *
 *   (a) the descriptor (ABI 2, every MCF_PROVIDES_* bit) and the parameter declaration;
 *   (b) energies() are the ascending Chebyshev nodes at a x + b; dos(), ldos(), green()
 *       and occupation() equal the core functions bit for bit (same random stream);
 *       -Im G / pi equals the LDOS; the DOS does not depend on `block`;
 *   (c) a batch of two workspaces equals two single calls;
 *   (d) after a change of the Hamiltonian (new bounds) the grid follows;
 *   (e) bad input refused with a message that says what to fix: moments = 1 (by the
 *       declaration and by kpm_config_check), energy_points < moments, a NaN entry of the
 *       Hamiltonian (mcf_hamiltonian_set / set_onsite), NULL random streams, fixed bounds
 *       narrower than the spectrum (diverging moments);
 *   (f) delta_action (GFMC; ABI 2: change_action of the converted change): batch = single
 *       calls = kpm_gfmc directly, bit for bit, and T = 0 in a batch is refused naming the
 *       workspace;
 *   (g) vectors = 0: the exact trace (occupation from the exact moments);
 *   (h) ABI 2's spectra: every output in one call equals the single-output calls. */
#include <stdio.h>

#include "internal.h"
#include "kpm_core.h"
#include "kpm_ops.h"
#include "kpm_test_util.h"
#include "test_params.h"

static const mcf_plugin_info *info;

static int contains(const char *s, const char *part) { return strstr(s, part) != NULL; }

/* Parameters from the declared defaults, with overrides "key", "text", ... NULL. */
#define make_params(...) test_params_make(info->params, "test_kpm_plugin.ini", __VA_ARGS__)

static void test_descriptor(void)
{
    CHECK(info->kind == MCF_PLUGIN_FERMION_EVALUATOR && !strcmp(info->name, "kpm"),
          "kind %d name %s", (int)info->kind, info->name);
    const unsigned all = MCF_PROVIDES_CHANGE_ACTION | MCF_PROVIDES_OCCUPATION |
                         MCF_PROVIDES_DOS | MCF_PROVIDES_LDOS | MCF_PROVIDES_GREEN |
                         MCF_PROVIDES_ACTION | MCF_PROVIDES_MOMENTS |
                         MCF_PROVIDES_OCCUPATION_DT | MCF_PROVIDES_DENSITY_MATRIX |
                         MCF_PROVIDES_PSEUDOFERMION | MCF_PROVIDES_RESPONSE |
                         MCF_PROVIDES_VECTOR_MOMENTS;
    CHECK(info->abi_version == MCF_ABI_2 && mcf_fermion_provides(info) == all,
          "ABI %u, provides %#x (want ABI 2, %#x)", info->abi_version,
          mcf_fermion_provides(info), all);
    const char *keys[] = {"moments", "vectors", "kernel", "lambda", "energy_points", "random",
                          "margin", "block"};
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        int found = 0;
        for (const mcf_param_spec *s = info->params; s->name; s++)
            found |= !strcmp(s->name, keys[k]);
        CHECK(found, "parameter %s not declared", keys[k]);
    }
}

static void test_against_core(void)
{
    const size_t L = 24;
    mcf_hamiltonian *h = kt_disordered(L, 2.0, 11);
    test_params *tp = make_params("moments", "128", "vectors", "6", "block", "4", NULL);
    void *ws = NULL;
    int rc = tev_create(info, &tp->p, h, &ws);
    CHECK(rc == MCF_OK, "create: %s", mcf_last_error());
    if (rc) {
        test_params_free(tp);
        mcf_hamiltonian_destroy(h);
        return;
    }
    const size_t P = tev_energy_points(info, ws), M = 128, R = 6;
    CHECK(P == 256, "energy_points = %zu, expected 2 x moments = 256", P);
    double a, b;
    mcf_hamiltonian_scaling(h, 0.01, &a, &b);
    double *E = malloc(P * sizeof *E), *Ec = malloc(P * sizeof *Ec);
    tev_energies(info, ws, E);
    kpm_dct *d = NULL;
    kpm_dct_create(P, M, &d);
    kpm_dct_energies(d, a, b, Ec);
    CHECK(!memcmp(E, Ec, P * sizeof *E), "energies differ from a x_k + b");
    int asc = 1;
    for (size_t i = 1; i < P; i++)
        asc &= E[i] > E[i - 1];
    CHECK(asc, "energies not ascending");

    /* dos */
    double *dos = malloc(P * sizeof *dos), *dc = malloc(P * sizeof *dc);
    double *g = malloc(M * sizeof *g), *mu_vec = malloc(R * M * sizeof *mu_vec);
    double *mu = malloc(M * sizeof *mu);
    kpm_kernel_coefficients(KPM_KERNEL_JACKSON, 0, M, g);
    mcf_rng r1, r2;
    mcf_rng_init(&r1, 5, 3);
    mcf_rng_init(&r2, 5, 3);
    mcf_rng *rp = &r1;
    void *wsv[1] = {ws};
    double *dosv[1] = {dos};
    rc = tev_dos(info, wsv, 1, &rp, dosv);
    CHECK(rc == MCF_OK, "dos: %s", mcf_last_error());
    kpm_engine *eng = NULL;
    kpm_engine_create(h->dim, 4, &eng);
    kpm_stochastic_moments(eng, h, a, b, &r2, KPM_RANDOM_PHASE, R, M, mu_vec);
    kpm_moments_mean(R, M, mu_vec, mu, NULL);
    kpm_dct_density(d, mu, g, M, a, dc);
    CHECK(!memcmp(dos, dc, P * sizeof *dos), "dos() differs from kpm_core");
    CHECK(!memcmp(&r1, &r2, sizeof r1), "the random stream advanced differently");

    /* the DOS does not depend on the block size */
    {
        test_params *tb = make_params("moments", "128", "vectors", "6", "block", "3", NULL);
        void *wb = NULL;
        rc = tev_create(info, &tb->p, h, &wb);
        CHECK(rc == MCF_OK, "create: %s", mcf_last_error());
        mcf_rng_init(&r1, 5, 3);
        double *db = malloc(P * sizeof *db);
        void *wbv[1] = {wb};
        double *dbv[1] = {db};
        rc = tev_dos(info, wbv, 1, &rp, dbv);
        double worst = 0.0;
        for (size_t i = 0; i < P; i++)
            worst = fmax(worst, fabs(db[i] - dos[i]));
        CHECK(rc == MCF_OK && worst < 1e-14, "block 3 vs 4: DOS differs by %.3e", worst);
        free(db);
        tev_destroy(info, wb);
        test_params_free(tb);
    }

    /* ldos and green */
    const size_t rows[5] = {0, 5, 100, 333, 575};
    const size_t *rowv[1] = {rows};
    double *ld = malloc(5 * P * sizeof *ld), *gre = malloc(5 * P * sizeof *gre);
    double *gim = malloc(5 * P * sizeof *gim), *lc = malloc(P * sizeof *lc);
    double *muv = malloc(5 * M * sizeof *muv);
    double *ldv[1] = {ld}, *grev[1] = {gre}, *gimv[1] = {gim};
    rc = tev_ldos(info, wsv, 1, rowv, 5, ldv);
    CHECK(rc == MCF_OK, "ldos: %s", mcf_last_error());
    rc = tev_green(info, wsv, 1, rowv, 5, grev, gimv);
    CHECK(rc == MCF_OK, "green: %s", mcf_last_error());
    kpm_ldos_moments(eng, h, a, b, rows, 5, M, muv);
    double worst_l = 0.0, worst_g = 0.0;
    for (size_t j = 0; j < 5; j++) {
        kpm_dct_density(d, muv + j * M, g, M, a, lc);
        for (size_t i = 0; i < P; i++) {
            worst_l = fmax(worst_l, fabs(ld[j * P + i] - lc[i]));
            worst_g = fmax(worst_g, fabs(-gim[j * P + i] / kt_pi - lc[i]));
        }
    }
    CHECK(worst_l == 0.0, "ldos() differs from kpm_core by %.3e", worst_l);
    CHECK(worst_g < 1e-12, "-Im G / pi differs from the LDOS by %.3e", worst_g);
    const size_t bad_row[1] = {h->dim};
    const size_t *badv[1] = {bad_row};
    rc = tev_ldos(info, wsv, 1, badv, 1, ldv);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "row 576"),
          "row out of range: rc %d, %s", rc, mcf_last_error());

    /* occupation */
    double n1, e1, n2, e2;
    mcf_rng_init(&r1, 8, 1);
    mcf_rng_init(&r2, 8, 1);
    rc = tev_occupation(info, wsv, 1, &rp, 0.2, 0.1, &n1, &e1);
    CHECK(rc == MCF_OK, "occupation: %s", mcf_last_error());
    kpm_stochastic_moments(eng, h, a, b, &r2, KPM_RANDOM_PHASE, R, M, mu_vec);
    kpm_moments_mean(R, M, mu_vec, mu, NULL);
    kpm_occupation(mu, g, M, a, b, 0.2, 0.1, &n2, &e2);
    CHECK(n1 == n2 && e1 == e2, "occupation %g %g vs core %g %g", n1, e1, n2, e2);
    CHECK(n1 > 0.4 && n1 < 0.7, "density at mu = 0.2: %g", n1);
    rc = tev_occupation(info, wsv, 1, NULL, 0.2, 0.1, &n1, &e1);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "rngs"), "NULL rngs: %s",
          mcf_last_error());

    /* (d) a change of the Hamiltonian moves the grid */
    mcf_hamiltonian_set_onsite(h, 0, 10.0);
    tev_energies(info, ws, E);
    mcf_hamiltonian_scaling(h, 0.01, &a, &b);
    kpm_dct_energies(d, a, b, Ec);
    CHECK(!memcmp(E, Ec, P * sizeof *E) && E[P - 1] > 10.0,
          "after the change: last energy %g (expected %g)", E[P - 1], Ec[P - 1]);

    free(E);
    free(Ec);
    free(dos);
    free(dc);
    free(g);
    free(mu_vec);
    free(mu);
    free(ld);
    free(gre);
    free(gim);
    free(lc);
    free(muv);
    kpm_engine_destroy(eng);
    kpm_dct_destroy(d);
    tev_destroy(info, ws);
    test_params_free(tp);
    mcf_hamiltonian_destroy(h);
}

static void test_batch(void)
{
    mcf_hamiltonian *h[2] = {kt_disordered(12, 1.0, 1), kt_disordered(16, 3.0, 2)};
    test_params *tp = make_params("moments", "64", "vectors", "3", "kernel", "lorentz",
                                  "random", "gaussian", "energy_points", "100", NULL);
    CHECK(tp->ok, "params: %s", mcf_last_error());
    void *ws[2] = {NULL, NULL};
    for (int k = 0; k < 2; k++) {
        int rc = tev_create(info, &tp->p, h[k], &ws[k]);
        CHECK(rc == MCF_OK, "create: %s", mcf_last_error());
        if (rc)
            return;
    }
    const size_t P = tev_energy_points(info, ws[0]);
    CHECK(P == 100, "energy_points %zu", P);
    double *d2[2], *d1[2];
    mcf_rng rb[2], rs[2];
    mcf_rng *rbp[2] = {&rb[0], &rb[1]};
    for (int k = 0; k < 2; k++) {
        d2[k] = malloc(P * sizeof(double));
        d1[k] = malloc(P * sizeof(double));
        mcf_rng_init(&rb[k], 3, (uint64_t)k);
        mcf_rng_init(&rs[k], 3, (uint64_t)k);
    }
    int rc = tev_dos(info, ws, 2, rbp, d2);
    CHECK(rc == MCF_OK, "batched dos: %s", mcf_last_error());
    for (int k = 0; k < 2; k++) {
        mcf_rng *p = &rs[k];
        rc = tev_dos(info, &ws[k], 1, &p, &d1[k]);
        CHECK(rc == MCF_OK, "dos: %s", mcf_last_error());
        CHECK(!memcmp(d1[k], d2[k], P * sizeof(double)), "batch entry %d differs", k);
    }
    double n[2], e[2];
    rc = tev_occupation(info, ws, 2, rbp, 0.0, 0.0, n, e);
    CHECK(rc == MCF_OK && fabs(n[0] - 0.5) < 0.05 && fabs(n[1] - 0.5) < 0.05,
          "half filling of symmetric disorder: %g %g", n[0], n[1]);
    for (int k = 0; k < 2; k++) {
        free(d1[k]);
        free(d2[k]);
        tev_destroy(info, ws[k]);
        mcf_hamiltonian_destroy(h[k]);
    }
    test_params_free(tp);
}

/* (f) delta_action: a batch of two workspaces equals single calls and kpm_gfmc called
 * directly, bit for bit; with extrapolate the value is the two-point estimate. */
static void test_delta_action(void)
{
    mcf_hamiltonian *h[2] = {kt_disordered(8, 1.0, 21), kt_disordered(10, 2.0, 22)};
    mcf_local_change ch[2];
    mcf_rng rng;
    mcf_rng_init(&rng, 99, 0);
    for (int k = 0; k < 2; k++) {
        memset(&ch[k], 0, sizeof ch[k]);
        ch[k].rank = 2;
        ch[k].entries[0] = 1;
        ch[k].row[0][0] = 3;
        ch[k].re[0][0] = 1.0;
        ch[k].entries[1] = 4;
        for (int e = 0; e < 4; e++) {
            ch[k].row[1][e] = 10 + e;
            ch[k].re[1][e] = mcf_rng_uniform(&rng) - 0.5;
            ch[k].im[1][e] = mcf_rng_uniform(&rng) - 0.5;
        }
        ch[k].c_re[0][1] = ch[k].c_re[1][0] = 1.0;
    }
    const mcf_local_change *cp[2] = {&ch[0], &ch[1]};
    const double T[2] = {0.2, 0.5}, mu[2] = {0.0, -1.0};
    for (int extra = 0; extra < 2; extra++) {
        /* kernel = jackson: GFMC uses the Lorentz kernel whatever `kernel` says */
        test_params *tp = make_params("moments", "128", "kernel", "jackson", "extrapolate",
                                      extra ? "true" : "false", "gfmc", "real-axis", NULL);
        CHECK(tp->ok, "params: %s", mcf_last_error());
        void *ws[2] = {NULL, NULL};
        for (int k = 0; k < 2; k++)
            CHECK(tev_create(info, &tp->p, h[k], &ws[k]) == MCF_OK, "create: %s",
                  mcf_last_error());
        double batch[2], single[2];
        int rc = tev_delta_action(info, ws, 2, cp, T, mu, batch);
        CHECK(rc == MCF_OK, "batched delta_action: %s", mcf_last_error());
        for (int k = 0; k < 2; k++) {
            rc = tev_delta_action(info, &ws[k], 1, &cp[k], &T[k], &mu[k], &single[k]);
            CHECK(rc == MCF_OK && single[k] == batch[k], "entry %d: single %.17g vs batch %.17g",
                  k, single[k], batch[k]);
            kpm_gfmc *g = NULL;
            double a, b, ds, lo, hi;
            mcf_hamiltonian_scaling(h[k], 0.01, &a, &b);
            kpm_gfmc_create(h[k]->dim, 128, 0, KPM_KERNEL_LORENTZ, 4.0, extra, &g);
            kpm_gfmc_delta_action(g, h[k], a, b, &ch[k], T[k], mu[k], &ds, &lo, &hi);
            CHECK(ds == batch[k], "entry %d: plugin %.17g vs kpm_gfmc %.17g", k, batch[k], ds);
            if (extra)
                CHECK(ds == 2.0 * hi - lo, "extrapolate: %.17g vs 2 x %.17g - %.17g", ds, hi, lo);
            kpm_gfmc_destroy(g);
        }
        printf("delta_action (extrapolate = %d): %.6f %.6f\n", extra, batch[0], batch[1]);
        const double Tbad[2] = {0.2, 0.0};
        rc = tev_delta_action(info, ws, 2, cp, Tbad, mu, batch);
        CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "workspace 1"),
              "T = 0 in the batch: rc %d, %s", rc, mcf_last_error());
        for (int k = 0; k < 2; k++)
            tev_destroy(info, ws[k]);
        test_params_free(tp);
    }
    /* gfmc = contour (the default): batch = single calls = kpm_contour called directly, and
     * extrapolate = true is refused naming gfmc */
    test_params *tc = make_params("moments", "128", NULL);
    CHECK(tc->ok, "params: %s", mcf_last_error());
    void *wc[2] = {NULL, NULL};
    for (int k = 0; k < 2; k++)
        CHECK(tev_create(info, &tc->p, h[k], &wc[k]) == MCF_OK, "create: %s",
              mcf_last_error());
    double cb[2], cs[2];
    int rc = tev_delta_action(info, wc, 2, cp, T, mu, cb);
    CHECK(rc == MCF_OK, "contour delta_action: %s", mcf_last_error());
    for (int k = 0; k < 2; k++) {
        rc = tev_delta_action(info, &wc[k], 1, &cp[k], &T[k], &mu[k], &cs[k]);
        CHECK(rc == MCF_OK && cs[k] == cb[k], "contour entry %d: single %.17g vs batch %.17g",
              k, cs[k], cb[k]);
        kpm_contour *g = NULL;
        mcf_change c;
        double a, b, ds, err;
        mcf_hamiltonian_scaling(h[k], 0.01, &a, &b);
        mcf_change_from_local(&ch[k], &c);
        kpm_contour_create(h[k]->dim, 128, 0, 0.01, &g);
        kpm_contour_delta_action(g, h[k], a, b, &c, T[k], mu[k], &ds, &err);
        CHECK(ds == cb[k], "contour entry %d: plugin %.17g vs kpm_contour %.17g", k, cb[k], ds);
        kpm_contour_destroy(g);
    }
    printf("delta_action (contour): %.6f %.6f\n", cb[0], cb[1]);
    for (int k = 0; k < 2; k++)
        tev_destroy(info, wc[k]);
    test_params_free(tc);
    test_params *tx = make_params("moments", "128", "extrapolate", "true", NULL);
    void *wx = NULL;
    rc = tx->ok ? tev_create(info, &tx->p, h[0], &wx) : MCF_EINVAL;
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "gfmc = real-axis"),
          "extrapolate with the contour: rc %d, %s", rc, mcf_last_error());
    if (wx)
        tev_destroy(info, wx);
    test_params_free(tx);
    for (int k = 0; k < 2; k++)
        mcf_hamiltonian_destroy(h[k]);
}

/* (g) vectors = 0: the exact trace, so occupation() equals kpm_occupation() of the exact
 * moments sum_k T_n(x_k) / dim from the eigenvalues (to rounding), and two calls agree bit
 * for bit whatever the stream. */
static void test_exact_trace(void)
{
    mcf_hamiltonian *h = kt_disordered(6, 2.0, 31);
    test_params *tp = make_params("moments", "64", "vectors", "0", "block", "4", NULL);
    CHECK(tp->ok, "vectors = 0 refused by the declaration: %s", mcf_last_error());
    void *ws = NULL;
    CHECK(tev_create(info, &tp->p, h, &ws) == MCF_OK, "create: %s", mcf_last_error());
    mcf_rng r1, r2;
    mcf_rng_init(&r1, 1, 0);
    mcf_rng_init(&r2, 2, 0);
    mcf_rng *p1 = &r1, *p2 = &r2;
    double n1 = NAN, e1 = NAN, n2 = NAN, e2 = NAN;
    CHECK(tev_occupation(info, &ws, 1, &p1, 0.3, 0.2, &n1, &e1) == MCF_OK &&
              tev_occupation(info, &ws, 1, &p2, 0.3, 0.2, &n2, &e2) == MCF_OK,
          "occupation: %s", mcf_last_error());
    CHECK(n1 == n2 && e1 == e2, "exact trace depends on the stream: %.17g %.17g", n1, n2);
    kt_eigen ev = kt_diagonalize(h);
    double a, b;
    mcf_hamiltonian_scaling(h, 0.01, &a, &b);
    const size_t M = 64, dim = h->dim;
    double *x = malloc(dim * sizeof *x), *w = malloc(dim * sizeof *w), mu[64], g[64];
    for (size_t k = 0; k < dim; k++) {
        x[k] = (ev.eval[k] - b) / a;
        w[k] = 1.0 / (double)dim;
    }
    kt_moments(dim, x, w, NULL, M, mu, NULL);
    kpm_kernel_coefficients(KPM_KERNEL_JACKSON, 0, M, g);
    double nx, ex;
    kpm_occupation(mu, g, M, a, b, 0.3, 0.2, &nx, &ex);
    CHECK(fabs(n1 - nx) < 1e-12 && fabs(e1 - ex) < 1e-12 * (fabs(b) + a),
          "vectors = 0: n = %.15f e = %.15f vs exact moments %.15f %.15f", n1, e1, nx, ex);
    printf("vectors = 0 (exact trace): n = %.15f (exact moments %.15f)\n", n1, nx);
    free(x);
    free(w);
    kt_eigen_free(&ev);
    tev_destroy(info, ws);
    test_params_free(tp);
    mcf_hamiltonian_destroy(h);
}

static void test_refusals(void)
{
    /* moments = 1: the declaration (min 2) refuses it before the plugin sees it ... */
    test_params *tp = make_params("moments", "1", NULL);
    CHECK(!tp->ok, "moments = 1 accepted by the declaration");
    printf("moments = 1 (declaration): %s\n", mcf_last_error());
    test_params_free(tp);
    /* ... and kpm_config_check says why */
    kpm_config c;
    kpm_config_default(&c);
    c.moments = 1;
    int rc = kpm_config_check(&c);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "moments = 1") &&
              contains(mcf_last_error(), "at least 2"),
          "moments = 1: rc %d, %s", rc, mcf_last_error());
    printf("moments = 1 (kpm): %s\n", mcf_last_error());

    /* energy_points < moments: refused by create() with the file and the section */
    mcf_hamiltonian *h = kt_lattice(2, 8, 1.0);
    tp = make_params("moments", "256", "energy_points", "100", NULL);
    CHECK(tp->ok, "params: %s", mcf_last_error());
    void *ws = NULL;
    rc = tev_create(info, &tp->p, h, &ws);
    const char *msg = mcf_last_error();
    CHECK(rc == MCF_EINVAL && !ws && contains(msg, "energy_points = 100") &&
              contains(msg, "moments = 256") && contains(msg, "[evaluator]") &&
              contains(msg, "test_kpm_plugin.ini"),
          "energy_points < moments: rc %d, %s", rc, msg);
    printf("energy_points < moments: %s\n", msg);
    test_params_free(tp);
    kpm_config_default(&c);
    c.points = 100;
    CHECK(kpm_config_check(&c) == MCF_EINVAL, "energy_points 100 < moments 256 accepted");
    c.points = 256;
    CHECK(kpm_config_check(&c) == MCF_OK, "energy_points = moments refused: %s",
          mcf_last_error());
    c.points = 0;
    c.margin = 0.7;
    CHECK(kpm_config_check(&c) == MCF_EINVAL && contains(mcf_last_error(), "margin"),
          "margin 0.7: %s", mcf_last_error());

    /* a NaN in the Hamiltonian never gets in */
    rc = mcf_hamiltonian_set(h, 0, 1, NAN, 0.0);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "not finite"), "NaN hopping: %s",
          mcf_last_error());
    printf("NaN hopping: %s\n", mcf_last_error());
    rc = mcf_hamiltonian_set_onsite(h, 3, NAN);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "not finite"), "NaN on-site: %s",
          mcf_last_error());
    CHECK(mcf_hamiltonian_check(h) == MCF_OK, "the Hamiltonian was damaged: %s",
          mcf_last_error());

    /* fixed bounds narrower than the spectrum (+-4): the moments would diverge */
    mcf_hamiltonian_fix_bounds(h, -2.0, 2.0);
    tp = make_params("moments", "64", NULL);
    rc = tev_create(info, &tp->p, h, &ws);
    CHECK(rc == MCF_OK, "create: %s", mcf_last_error());
    if (!rc) {
        double *dos = malloc(tev_energy_points(info, ws) * sizeof *dos);
        mcf_rng rng;
        mcf_rng_init(&rng, 1, 0);
        mcf_rng *rp = &rng;
        rc = tev_dos(info, &ws, 1, &rp, &dos);
        CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "outside") &&
                  contains(mcf_last_error(), "bounds"),
              "bounds too narrow: rc %d, %s", rc, mcf_last_error());
        printf("bounds too narrow: %s\n", mcf_last_error());
        free(dos);
        tev_destroy(info, ws);
    }
    test_params_free(tp);
    mcf_hamiltonian_destroy(h);
}

/* (h) ABI 2's spectra: one call asking for every output gives what the calls of ABI 1's
 * shape give one by one (tests/evaluator_test.h; grid, LDOS with its moments, Green's
 * functions, DOS with its moments, in that order), bit for bit and with the same draws;
 * the sizes and the grid alone need no batch (the SDK asks so); two workspaces of one
 * batch made by different evaluators are refused. */
static void test_spectra(void)
{
    const mcf_fermion_evaluator *ev = tev_v2(info);
    mcf_hamiltonian *h[2] = {kt_disordered(8, 1.0, 41), kt_disordered(10, 2.0, 42)};
    test_params *tp = make_params("moments", "64", "vectors", "3", "block", "2", NULL);
    void *ws[2] = {test_params_workspace(info, tp, h[0]), test_params_workspace(info, tp, h[1])};
    if (!ws[0] || !ws[1])
        return;
    enum { M = 64, P = 128, NR = 3 };
    const size_t rows[2][NR] = {{0, 7, 63}, {1, 50, 99}};
    const size_t *rl[2] = {rows[0], rows[1]};
    static double one[2][P + NR * P + NR * M + 2 * NR * P + P + 2 * M + 2];
    static double all[2][P + NR * P + NR * M + 2 * NR * P + P + 2 * M + 2];
    double *E1[2], *L1[2], *LM1[2], *GR1[2], *GI1[2], *D1[2], *DM1[2], *DV1[2], *S1[2];
    double *E2[2], *L2[2], *LM2[2], *GR2[2], *GI2[2], *D2[2], *DM2[2], *DV2[2], *S2[2];
    for (int k = 0; k < 2; k++) {
        double *p = one[k], *q = all[k];
        E1[k] = p, L1[k] = p + P, LM1[k] = L1[k] + NR * P, GR1[k] = LM1[k] + NR * M;
        GI1[k] = GR1[k] + NR * P, D1[k] = GI1[k] + NR * P, DM1[k] = D1[k] + P;
        DV1[k] = DM1[k] + M, S1[k] = DV1[k] + M;
        E2[k] = q, L2[k] = q + P, LM2[k] = L2[k] + NR * P, GR2[k] = LM2[k] + NR * M;
        GI2[k] = GR2[k] + NR * P, D2[k] = GI2[k] + NR * P, DM2[k] = D2[k] + P;
        DV2[k] = DM2[k] + M, S2[k] = DV2[k] + M;
    }
    mcf_rng r1[2], r2[2];
    mcf_rng *p1[2] = {&r1[0], &r1[1]}, *p2[2] = {&r2[0], &r2[1]};
    for (int k = 0; k < 2; k++) {
        mcf_rng_init(&r1[k], 17, (uint64_t)k);
        mcf_rng_init(&r2[k], 17, (uint64_t)k);
    }
    int rc = MCF_OK;
    for (int k = 0; k < 2 && !rc; k++)
        rc = tev_energies(info, ws[k], E1[k]);
    rc = rc || tev_ldos_moments(info, ws, 2, rl, NR, LM1, S1, L1) ||
         tev_green(info, ws, 2, rl, NR, GR1, GI1) ||
         tev_dos_moments(info, ws, 2, p1, DM1, DV1, S1, D1);
    CHECK(rc == MCF_OK, "spectra one by one: %s", mcf_last_error());
    mcf_spectra s = {.rows = rl, .n_rows = NR, .energies = E2, .dos = D2, .dos_moments = DM2,
                     .dos_moments_var = DV2, .moment_scale = S2, .ldos = L2,
                     .ldos_moments = LM2, .green_re = GR2, .green_im = GI2};
    rc = ev->spectra(tev_batch(), ws, 2, p2, &s);
    CHECK(rc == MCF_OK && s.points == P && s.moments == M, "spectra: rc %d, %zu points, %zu "
          "moments (%s)", rc, s.points, s.moments, mcf_last_error());
    CHECK(!memcmp(one, all, sizeof one) && mcf_rng_u64(&r1[0]) == mcf_rng_u64(&r2[0]) &&
              mcf_rng_u64(&r1[1]) == mcf_rng_u64(&r2[1]),
          "one spectra call differs from the single calls, or drew differently");
    double E3[P];
    double *pe[1] = {E3};
    mcf_spectra g = {.energies = pe};
    rc = ev->spectra(NULL, ws, 1, NULL, &g);
    CHECK(rc == MCF_OK && g.points == P && g.moments == M && !memcmp(E3, E1[0], sizeof E3),
          "the grid without a batch: rc %d (%s)", rc, mcf_last_error());
    /* a workspace of another evaluator in the batch (a forged head: only its backend is
     * read) */
    kpm_ops_ws other = *(const kpm_ops_ws *)ws[1];
    kpm_backend be = *other.be;
    be.name = "other";
    other.be = &be;
    void *mixed[2] = {ws[0], &other};
    mcf_spectra z = {0};
    rc = ev->spectra(tev_batch(), mixed, 2, NULL, &z);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "workspace 1") &&
              contains(mcf_last_error(), "other"),
          "a batch of two evaluators: rc %d, %s", rc, mcf_last_error());
    printf("(h) spectra: every output in one call = the single calls, bit for bit; the grid "
           "without a batch; mixed evaluators: %s\n", mcf_last_error());
    for (int k = 0; k < 2; k++) {
        tev_destroy(info, ws[k]);
        mcf_hamiltonian_destroy(h[k]);
    }
    test_params_free(tp);
}

int main(void)
{
    mcf_plugin *p = NULL;
    int rc = mcfe_plugin_open("kpm", MCF_PLUGIN_FERMION_EVALUATOR, &p);
    CHECK(rc == MCF_OK && p, "loading the kpm plugin: %s", mcf_last_error());
    if (rc)
        return check_exit();
    info = p->info;
    test_descriptor();
    test_against_core();
    test_batch();
    test_delta_action();
    test_exact_trace();
    test_refusals();
    test_spectra();
    mcfe_plugin_close(p);
    return check_exit();
}
