/* test_kpm_cuda_traces.c — kpm-cuda on small lattices: the recursion by vector and the traces
 * of a whole batch in one launch (label gpu).  Without a usable CUDA device it prints
 * "skipped: no device" and returns 77, which ctest counts as skipped.
 *
 *   (a) trace jobs = the engine: moments-only GFMC jobs whose start vectors are unit vectors
 *       (KCU_START_UNITS) equal the DOS engine's unit-vector moments (kcu_rows_moments), and
 *       jobs of random vectors (KCU_START_PHASES, _GAUSS; seed, first) the engine's moments
 *       of the same vectors (kcu_random_moments, times dim), to 1e-12 mu_0: the same
 *       products in double summed in another order (~1e-15 per step over M/2 steps).  On
 *       double-exchange lattices of 27, 64 and 512 rows, the recursion by vector (up to 64
 *       rows) and by row (kcu_gfmc_settings.by_vector), each confirmed by the launch's
 *       kcu_gfmc_info;
 *   (b) GFMC by vector = by row: the moments of a batch of rank-2 changes (spin turns) on
 *       27, 64 (infinite Hund coupling: width 6) and 54 rows (finite: width 7) agree to
 *       1e-12 mu_0, and dS on the contour to 1e-10 (1 + |dS|) — dS is a sum of
 *       N phase increments weighted by |W| <= the spectrum's width over pi T, each carrying
 *       the moments' ~1e-14 relative error: 1e-10 leaves a factor 10;
 *   (c) the plugin (ABI 1's call shapes on the ABI-2 tables: tests/evaluator_test.h; the
 *       job lists in the test's batch): occupation and action with vectors = 0 of a batch
 *       of 3 workspaces on kpm-cuda (one launch) equal kpm's (CPU) per workspace to 1e-12;
 *       the exact trace of an unchanged Hamiltonian is kept (a second call gives the same
 *       bits), and after an accepted move (mcf_hamiltonian_set_onsite) it is taken again
 *       and equals a fresh CPU workspace's; with vectors = 8 the random trace of a workspace
 *       is the same bits in a batch of 3 lattices of one width as alone (same stream), and
 *       its DOS-moment mean agrees with the exact trace within 5 standard errors (from its
 *       own vectors) for every moment.  (Lattices of different widths in one batch run a
 *       kernel for any width, which rounds differently: the same to ~1e-16, not to the
 *       bit.)
 *   (d) occupation_dT of the plugin: a batch of 3 workspaces with vectors = 0 on kpm-cuda
 *       against kpm's (CPU) per workspace: density and energy to 1e-12 as in (c), their
 *       T-derivatives to 2e-12 M max|G| max(1, E_max) / T (the moments agree to 1e-12 mu_0
 *       and dn/dT = sum_n w_n mu_n C_G(n) / (K T), w_n <= 2, |C_G(n)| / K <= max|G| = 0.224,
 *       G = y f (1 - f)); density and energy bit for bit those of kpm-cuda's own
 *       occupation(), with the exact trace and (vectors = 8) with a copy of the same stream,
 *       which occupation_dT leaves where occupation() does; T = 0 refused (MCF_EINVAL). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "de_test_hamiltonian.h"
#include "kpm_core.h"
#include "kpm_cuda.h"
#include "kpm_test_util.h"
#include "test_params.h"
#include "kpm_plugin_pair.h" /* after test_params.h: the loader */

/* (a) jobs of unit or random start vectors against the engine */
static void test_trace_jobs(void)
{
    const size_t Ls[3] = {3, 4, 8}, M = 128, R = 10;
    for (int q = 0; q < 3; q++) {
        de_lattice d = de_random_lattice(Ls[q], 0.0, 40 + (uint64_t)q);
        mcf_hamiltonian *h = de_build(&d);
        const size_t dim = h->dim, J = (dim + 3) / 4, JR = (R + 3) / 4;
        double a, b;
        mcf_hamiltonian_scaling(h, 0.01, &a, &b);
        kcu_ham *dh = NULL;
        kcu_engine *ge = NULL;
        kcu_traces *tr = NULL;
        double *eng = malloc(dim * M * sizeof *eng), *got = malloc(4 * J * M * sizeof *got);
        double *rnd = malloc(R * M * sizeof *rnd);
        kcu_gfmc_job *jobs = calloc(J, sizeof *jobs);
        double **mu = malloc(J * sizeof *mu);
        size_t *rows = malloc(dim * sizeof *rows);
        for (size_t r = 0; r < dim; r++)
            rows[r] = r;
        int rc = kcu_ham_create(h, &dh);
        if (!rc)
            rc = kcu_engine_create(dim, 8, &ge);
        if (!rc)
            rc = kcu_traces_create(dim, M, J, &tr);
        if (!rc)
            rc = kcu_rows_moments(ge, dh, a, b, rows, dim, M, eng);
        CHECK(rc == MCF_OK, "set-up: %s", mcf_last_error());
        if (rc)
            return;
        for (int bv = 1; bv >= 0; bv--) {
            kcu_gfmc_settings s = KCU_GFMC_SETTINGS_DEFAULT;
            s.by_vector = bv;
            kcu_gfmc_info info;
            /* the exact trace: every row once, 4 a job, the last job padded */
            for (size_t i = 0; i < J; i++) {
                jobs[i] = (kcu_gfmc_job){.g = kcu_traces_job(tr, i), .d = dh, .h = h, .a = a,
                                         .b = b, .T = 1.0, .start = KCU_START_UNITS};
                for (int v = 0; v < 4; v++)
                    jobs[i].start_row[v] = 4 * i + (size_t)v < dim ? (int32_t)(4 * i + v) : -1;
                mu[i] = got + 4 * i * M;
            }
            rc = kcu_gfmc_moments(jobs, J, &s, mu, &info);
            CHECK(rc == MCF_OK, "unit-vector jobs: %s", mcf_last_error());
            const int expect = bv && dim <= KCU_BY_VECTOR_ROWS;
            CHECK(info.by_vector == expect && info.cluster == 1,
                  "%zu rows: by_vector %d expected, the launch says %d (G = %d)", dim, expect,
                  info.by_vector, info.cluster);
            const double du = kt_max_abs_diff(eng, got, dim * M);
            double pad = 0.0;
            for (size_t r = dim; r < 4 * J; r++)
                for (size_t n = 0; n < M; n++)
                    pad = fmax(pad, fabs(got[r * M + n]));
            CHECK(du <= 1e-12 && pad == 0.0, "%zu rows, by %s: unit-vector moments differ from "
                  "the engine's by %.3e (padding %.3e)", dim, expect ? "vector" : "row", du, pad);
            /* R random vectors in jobs of 4: the engine's vectors first + j from the seed */
            double dr = 0.0, r0 = 0.0;
            for (int kind = 0; kind < 2; kind++) {
                rc = kcu_random_moments(ge, dh, a, b, kind, 77, R, M, rnd);
                for (size_t i = 0; i < JR; i++) {
                    jobs[i] = (kcu_gfmc_job){.g = kcu_traces_job(tr, i), .d = dh, .h = h,
                                             .a = a, .b = b, .T = 1.0,
                                             .start = kind ? KCU_START_GAUSS : KCU_START_PHASES,
                                             .start_n = (int)(R - 4 * i < 4 ? R - 4 * i : 4),
                                             .seed = 77, .first = 4 * i};
                    mu[i] = got + 4 * i * M;
                }
                if (!rc)
                    rc = kcu_gfmc_moments(jobs, JR, &s, mu, &info);
                CHECK(rc == MCF_OK, "random jobs: %s", mcf_last_error());
                for (size_t r = 0; r < R; r++) {
                    r0 = fmax(r0, got[r * M]);
                    for (size_t n = 0; n < M; n++)
                        dr = fmax(dr, fabs(got[r * M + n] - (double)dim * rnd[r * M + n]) /
                                          got[r * M]);
                }
            }
            printf("(a) %zu rows, by %s: unit vectors max |jobs - engine| = %.1e (mu_0 = 1), "
                   "random vectors %.1e mu_0\n", dim, expect ? "vector" : "row", du, dr);
            CHECK(dr <= 1e-12, "%zu rows: random-vector moments differ from the engine's by "
                  "%.3e mu_0", dim, dr);
        }
        kcu_traces_destroy(tr);
        kcu_engine_destroy(ge);
        kcu_ham_destroy(dh);
        mcf_hamiltonian_destroy(h);
        free(d.s);
        free(eng);
        free(got);
        free(rnd);
        free(jobs);
        free(mu);
        free(rows);
    }
}

/* (b) GFMC changes by vector and by row */
static void test_by_vector(void)
{
    enum { NC = 6 };
    /* one width per batch (the recursion by vector needs it): 27 and 64 rows of spinless
     * electrons, 54 rows with a finite Hund coupling */
    const size_t Ls[3] = {3, 4, 3};
    const double hund[3] = {0.0, 0.0, 2.5};
    const size_t M = 256;
    mcf_rng rng;
    mcf_rng_init(&rng, 5, 0);
    for (int q = 0; q < 3; q++) {
        de_lattice d[NC];
        mcf_hamiltonian *h[NC];
        kcu_ham *dh[NC];
        kcu_gfmc *g[NC];
        mcf_local_change c[NC];
        kpm_contour_plan plan[NC];
        kcu_gfmc_job jobs[NC];
        double *mom[2][NC], dS[2][NC], err[2][NC];
        int rc = MCF_OK;
        for (int k = 0; k < NC; k++) {
            d[k] = de_random_lattice(Ls[q], hund[q], 60 + (uint64_t)k);
            h[k] = de_build(&d[k]);
            double a, b, snew[3];
            mcf_hamiltonian_scaling(h[k], 0.01, &a, &b);
            de_unit(&rng, snew);
            de_change(&d[k], (size_t)mcf_rng_below(&rng, d[k].n), snew, &c[k]);
            const double T = 0.1 + 0.05 * k, mu = -0.5 + 0.2 * k;
            /* the contour's scaling covers H + Delta, as kpm_ops gives the device */
            mcf_change cc;
            kpm_contour *cg = NULL;
            double a2 = a, b2 = b;
            if (!rc)
                rc = mcf_change_from_local(&c[k], &cc);
            if (!rc)
                rc = kpm_contour_create(h[k]->dim, M, 0, 0.01, &cg);
            if (!rc) {
                kpm_contour_scaling(h[k], a, b, 0.01, &cc, &a2, &b2);
                rc = kpm_contour_plan_for(cg, a2, b2, T, mu, &plan[k]);
            }
            kpm_contour_destroy(cg);
            if (!rc)
                rc = kcu_ham_create(h[k], &dh[k]);
            if (!rc)
                rc = kcu_gfmc_create(h[k]->dim, M, 0, 4.0, 0, &g[k]);
            jobs[k] = (kcu_gfmc_job){.g = g[k], .d = dh[k], .h = h[k], .a = a2, .b = b2,
                                     .T = T, .mu = mu, .change = &c[k], .contour = &plan[k]};
            mom[0][k] = malloc(4 * M * sizeof(double));
            mom[1][k] = malloc(4 * M * sizeof(double));
        }
        CHECK(rc == MCF_OK, "set-up: %s", mcf_last_error());
        if (rc)
            return;
        int seen[2] = {-1, -1};
        for (int bv = 0; bv < 2; bv++) {
            kcu_gfmc_settings s = KCU_GFMC_SETTINGS_DEFAULT;
            s.by_vector = bv;
            kcu_gfmc_info info;
            rc = kcu_gfmc_moments(jobs, NC, &s, mom[bv], &info);
            seen[bv] = info.by_vector;
            if (!rc)
                rc = kcu_gfmc_contour(jobs, NC, &s, dS[bv], err[bv], &info);
            CHECK(rc == MCF_OK, "GFMC by %s: %s", bv ? "vector" : "row", mcf_last_error());
            CHECK(info.by_vector == bv, "asked by_vector %d, the contour launch says %d", bv,
                  info.by_vector);
        }
        double dm = 0.0, dd = 0.0;
        for (int k = 0; k < NC; k++) {
            const size_t sets = c[k].rank == 1 ? 1 : 4;
            for (size_t j = 0; j < sets; j++)
                for (size_t n = 0; n < M; n++)
                    dm = fmax(dm, fabs(mom[0][k][j * M + n] - mom[1][k][j * M + n]) /
                                      mom[0][k][j * M]);
            dd = fmax(dd, fabs(dS[0][k] - dS[1][k]) / (1.0 + fabs(dS[0][k])));
        }
        printf("(b) %zu rows, %d chains: by vector vs by row: moments %.1e mu_0, dS %.1e "
               "(1 + |dS|) (launches by_vector %d, %d)\n", h[0]->dim, NC, dm, dd, seen[0],
               seen[1]);
        CHECK(seen[0] == 0 && seen[1] == 1, "moments launches by_vector %d, %d", seen[0],
              seen[1]);
        CHECK(dm <= 1e-12 && dd <= 1e-10, "%zu rows: by vector and by row differ: moments "
              "%.3e mu_0, dS %.3e", h[0]->dim, dm, dd);
        for (int k = 0; k < NC; k++) {
            kcu_gfmc_destroy(g[k]);
            kcu_ham_destroy(dh[k]);
            mcf_hamiltonian_destroy(h[k]);
            free(d[k].s);
            free(mom[0][k]);
            free(mom[1][k]);
        }
    }
}

/* ---- (c) the plugin ---------------------------------------------------------------------- */

static void test_plugin_traces(void)
{
    enum { NW = 3, MM = 128 };
    mcf_plugin *pc = NULL, *pg = NULL;
    if (open_kpm_pair(&pc, &pg))
        return;
    const mcf_plugin_info *oc = pc->info, *og = pg->info; /* through evaluator_test.h */
    de_lattice d[NW];
    mcf_hamiltonian *h[NW];
    void *wg[NW], *wc[NW];
    test_params *tc = test_params_make(pc->info->params, "test_kpm_cuda_traces.ini", "vectors",
                                       "0", "moments", "128", NULL);
    test_params *tg = test_params_make(pg->info->params, "test_kpm_cuda_traces.ini", "vectors",
                                       "0", "moments", "128", NULL);
    for (int k = 0; k < NW; k++) {
        d[k] = de_random_lattice(k == 2 ? 4 : 3, k == 1 ? 2.0 : 0.0, 80 + (uint64_t)k);
        h[k] = de_build(&d[k]);
        wg[k] = test_params_workspace(pg->info, tg, h[k]);
        wc[k] = test_params_workspace(pc->info, tc, h[k]);
        if (!wg[k] || !wc[k])
            return;
    }
    /* occupation and action of the batch against the CPU, one workspace at a time */
    double ng[NW], eg[NW], ng2[NW], eg2[NW], Sg[NW], Eg[NW];
    const double T[NW] = {0.1, 0.2, 0.3}, mu[NW] = {-0.5, 0.0, 0.4};
    mcf_rng rs[NW];
    mcf_rng *rsp[NW];
    for (int k = 0; k < NW; k++) {
        mcf_rng_init(&rs[k], 70 + (uint64_t)k, 0);
        rsp[k] = &rs[k];
    }
    int rc = tev_occupation(og, wg, NW, rsp, 0.1, 0.2, ng, eg);
    if (!rc)
        rc = tev_action(og, wg, NW, 1, T, mu, Sg, Eg);
    if (!rc)
        rc = tev_occupation(og, wg, NW, rsp, 0.1, 0.2, ng2, eg2);
    CHECK(rc == MCF_OK, "kpm-cuda batch: %s", mcf_last_error());
    double worst = 0.0, worst_S = 0.0;
    for (int k = 0; k < NW && !rc; k++) {
        double nc, ec, Sc, Ec;
        void *const one[1] = {wc[k]};
        rc = tev_occupation(oc, one, 1, rsp, 0.1, 0.2, &nc, &ec) ||
             tev_action(oc, one, 1, 1, T + k, mu + k, &Sc, &Ec);
        CHECK(rc == MCF_OK, "kpm: %s", mcf_last_error());
        worst = fmax(worst, fmax(fabs(nc - ng[k]), fabs(ec - eg[k])));
        worst_S = fmax(worst_S, fabs(Sc - Sg[k]) / (double)h[k]->dim);
        CHECK(ng2[k] == ng[k] && eg2[k] == eg[k], "workspace %d: the kept trace changed: "
              "%.17g -> %.17g", k, eg[k], eg2[k]);
    }
    printf("(c) plugin, batch of %d (27, 27, 64 rows), vectors = 0: occupation max |GPU - CPU| "
           "= %.1e, action %.1e per site; a second call gives the same bits\n", NW, worst,
           worst_S);
    CHECK(worst <= 1e-12 && worst_S <= 1e-10, "occupation differs by %.3e, action by %.3e "
          "per site", worst, worst_S);
    /* an accepted move: workspace 1's trace is taken again and equals a fresh CPU one's */
    mcf_hamiltonian_set_onsite(h[1], 5, 0.75);
    rc = tev_occupation(og, wg, NW, rsp, 0.1, 0.2, ng2, eg2);
    double nf, ef;
    test_params *tc2 = test_params_make(pc->info->params, "test_kpm_cuda_traces.ini",
                                        "vectors", "0", "moments", "128", NULL);
    void *fresh = test_params_workspace(pc->info, tc2, h[1]);
    void *const one[1] = {fresh};
    if (!rc && fresh)
        rc = tev_occupation(oc, one, 1, rsp, 0.1, 0.2, &nf, &ef);
    CHECK(rc == MCF_OK, "after the move: %s", mcf_last_error());
    if (!rc) {
        printf("    after a move: workspace 1 energy %.12f -> %.12f (fresh CPU %.12f), the "
               "others unchanged\n", eg[1], eg2[1], ef);
        CHECK(fabs(eg2[1] - ef) <= 1e-12 && fabs(ng2[1] - nf) <= 1e-12 && eg2[1] != eg[1],
              "after the move: kpm-cuda %.15g, a fresh kpm workspace %.15g", eg2[1], ef);
        CHECK(eg2[0] == eg[0] && eg2[2] == eg[2], "an unchanged workspace's trace changed");
    }
    tev_destroy(oc, fresh);
    test_params_free(tc2);
    /* random vectors: alone and in the batch, the same bits; the mean against the exact */
    test_params *tr = test_params_make(pg->info->params, "test_kpm_cuda_traces.ini", "vectors",
                                       "8", "moments", "128", NULL);
    /* lattices of one width (infinite Hund coupling: the same kernel instantiation, so the
     * same bits; 27, 27, 64 rows) */
    de_lattice dr[NW];
    mcf_hamiltonian *hr[NW];
    void *wr[NW];
    for (int k = 0; k < NW; k++) {
        dr[k] = de_random_lattice(k == 2 ? 4 : 3, 0.0, 85 + (uint64_t)k);
        hr[k] = de_build(&dr[k]);
        wr[k] = test_params_workspace(pg->info, tr, hr[k]);
    }
    void *we0 = test_params_workspace(pg->info, tg, hr[1]);
    mcf_rng r[NW], r1;
    mcf_rng *rp[NW];
    for (int k = 0; k < NW; k++) {
        mcf_rng_init(&r[k], 90 + (uint64_t)k, 0);
        rp[k] = &r[k];
    }
    mcf_rng_init(&r1, 91, 0);
    double mb[NW][MM], vb[NW][MM], sb[NW][2], ma[MM], va[MM], sa[2], me[MM], ve[MM], se[2];
    double *mbp[NW] = {mb[0], mb[1], mb[2]}, *vbp[NW] = {vb[0], vb[1], vb[2]};
    double *sbp[NW] = {sb[0], sb[1], sb[2]};
    double *map[1] = {ma}, *vap[1] = {va}, *sap[1] = {sa};
    double *mep[1] = {me}, *vep[1] = {ve}, *sep[1] = {se};
    mcf_rng *r1p[1] = {&r1};
    void *const w1[1] = {wr[1]}, *const we[1] = {we0};
    rc = tev_dos_moments(og, wr, NW, rp, mbp, vbp, sbp, NULL);
    if (!rc)
        rc = tev_dos_moments(og, w1, 1, r1p, map, vap, sap, NULL);
    if (!rc)
        rc = tev_dos_moments(og, we, 1, rsp, mep, vep, sep, NULL);
    CHECK(rc == MCF_OK, "dos_moments: %s", mcf_last_error());
    if (!rc) {
        CHECK(memcmp(mb[1], ma, sizeof ma) == 0 && memcmp(vb[1], va, sizeof va) == 0,
              "random trace of workspace 1: in a batch and alone differ");
        double z = 0.0;
        for (size_t n = 1; n < MM; n++)
            z = fmax(z, fabs(ma[n] - me[n]) / sqrt(va[n] / 8.0));
        printf("    vectors = 8: batch and alone the same bits; largest |mean - exact| = %.2f "
               "standard errors over %d moments\n", z, MM - 1);
        CHECK(z < 5.0, "random trace off the exact one by %.2f standard errors", z);
    }
    for (int k = 0; k < NW; k++) {
        tev_destroy(og, wg[k]);
        tev_destroy(og, wr[k]);
        tev_destroy(oc, wc[k]);
        mcf_hamiltonian_destroy(h[k]);
        mcf_hamiltonian_destroy(hr[k]);
        free(d[k].s);
        free(dr[k].s);
    }
    tev_destroy(og, we0);
    test_params_free(tc);
    test_params_free(tg);
    test_params_free(tr);
}

/* ---- (d) occupation_dT ---------------------------------------------------------------- */

static void test_plugin_occupation_dT(void)
{
    enum { NW = 3, MM = 128 };
    mcf_plugin *pc = NULL, *pg = NULL;
    if (open_kpm_pair(&pc, &pg))
        return;
    const mcf_plugin_info *oc = pc->info, *og = pg->info; /* through evaluator_test.h */
    CHECK((mcf_fermion_provides(og) & MCF_PROVIDES_OCCUPATION_DT) &&
              (mcf_fermion_provides(oc) & MCF_PROVIDES_OCCUPATION_DT),
          "kpm-cuda or kpm lacks occupation_dT");
    if (check_failed_count)
        return;
    de_lattice d[NW];
    mcf_hamiltonian *h[NW];
    void *wg[NW], *wc[NW], *wr = NULL;
    test_params *tc = test_params_make(pc->info->params, "test_kpm_cuda_traces.ini", "vectors",
                                       "0", "moments", "128", NULL);
    test_params *tg = test_params_make(pg->info->params, "test_kpm_cuda_traces.ini", "vectors",
                                       "0", "moments", "128", NULL);
    test_params *tr = test_params_make(pg->info->params, "test_kpm_cuda_traces.ini", "vectors",
                                       "8", "moments", "128", NULL);
    for (int k = 0; k < NW; k++) {
        d[k] = de_random_lattice(k == 2 ? 4 : 3, k == 1 ? 2.0 : 0.0, 60 + (uint64_t)k);
        h[k] = de_build(&d[k]);
        wg[k] = test_params_workspace(pg->info, tg, h[k]);
        wc[k] = test_params_workspace(pc->info, tc, h[k]);
        if (!wg[k] || !wc[k])
            return;
    }
    const double mu = 0.1, T = 0.2;
    mcf_rng rs[NW];
    mcf_rng *rsp[NW];
    for (int k = 0; k < NW; k++) {
        mcf_rng_init(&rs[k], 50 + (uint64_t)k, 0);
        rsp[k] = &rs[k];
    }
    double n[NW], e[NW], dn[NW], de[NW], n0[NW], e0[NW];
    int rc = tev_occupation_dT(og, wg, NW, rsp, mu, T, n, e, dn, de);
    if (!rc)
        rc = tev_occupation(og, wg, NW, rsp, mu, T, n0, e0);
    CHECK(rc == MCF_OK, "kpm-cuda batch: %s", mcf_last_error());
    double worst_ne = 0.0, worst_d = 0.0;
    for (int k = 0; k < NW && !rc; k++) {
        double v[4], a, b;
        void *const one[1] = {wc[k]};
        mcf_hamiltonian_scaling(h[k], 0.01, &a, &b);
        const double emax = fmax(1.0, fmax(fabs(b - a), fabs(b + a)));
        const double tol = 2e-12 * MM * 0.224 * emax / T;
        rc = tev_occupation_dT(oc, one, 1, rsp, mu, T, v, v + 1, v + 2, v + 3);
        CHECK(rc == MCF_OK, "kpm: %s", mcf_last_error());
        CHECK(n[k] == n0[k] && e[k] == e0[k], "workspace %d: occupation_dT's density %.17g "
              "and energy %.17g, occupation()'s %.17g %.17g", k, n[k], e[k], n0[k], e0[k]);
        const double dne = fmax(fabs(v[0] - n[k]), fabs(v[1] - e[k]));
        const double dd = fmax(fabs(v[2] - dn[k]), fabs(v[3] - de[k]));
        CHECK(dne <= 1e-12 && dd <= tol, "workspace %d: GPU - CPU: density/energy %.3g, "
              "derivatives %.3g (tolerance %.3g): dn/dT %.17g vs %.17g", k, dne, dd, tol,
              dn[k], v[2]);
        worst_ne = fmax(worst_ne, dne);
        worst_d = fmax(worst_d, dd);
    }
    printf("(d) occupation_dT, batch of %d, vectors = 0: max |GPU - CPU| density/energy %.1e, "
           "derivatives %.1e; density and energy = occupation()'s bits\n", NW, worst_ne,
           worst_d);
    /* a stochastic trace: the same draws as occupation() */
    wr = test_params_workspace(pg->info, tr, h[2]);
    if (wr) {
        mcf_rng r1, r2;
        mcf_rng_init(&r1, 99, 1);
        r2 = r1;
        double v[4], n1, e1;
        void *const one[1] = {wr};
        mcf_rng *p1[1] = {&r1}, *p2[1] = {&r2};
        rc = tev_occupation(og, one, 1, p1, mu, T, &n1, &e1);
        if (!rc)
            rc = tev_occupation_dT(og, one, 1, p2, mu, T, v, v + 1, v + 2, v + 3);
        CHECK(rc == MCF_OK && n1 == v[0] && e1 == v[1] && !memcmp(&r1, &r2, sizeof r1),
              "vectors = 8: occupation_dT %.17g %.17g, occupation() %.17g %.17g, streams %s "
              "(%s)", v[0], v[1], n1, e1, memcmp(&r1, &r2, sizeof r1) ? "differ" : "equal",
              mcf_last_error());
        rc = tev_occupation_dT(og, one, 1, p2, mu, 0.0, v, v + 1, v + 2, v + 3);
        CHECK(rc == MCF_EINVAL && strstr(mcf_last_error(), "T = 0"), "T = 0: rc %d, %s", rc,
              mcf_last_error());
        printf("    vectors = 8: occupation_dT's density and energy = occupation()'s bits, the "
               "same draws; T = 0 refused\n");
        tev_destroy(og, wr);
    }
    for (int k = 0; k < NW; k++) {
        tev_destroy(og, wg[k]);
        tev_destroy(oc, wc[k]);
        mcf_hamiltonian_destroy(h[k]);
        free(d[k].s);
    }
    test_params_free(tc);
    test_params_free(tg);
    test_params_free(tr);
    tev_batch_release(); /* before the plugins go: its keep slots' release is their code */
    mcfe_plugin_close(pc);
    mcfe_plugin_close(pg);
}

int main(void)
{
    char why[512];
    if (!kcu_probe(why, sizeof why)) {
        printf("skipped: no device (%s)\n", why);
        return 77;
    }
    printf("device: %s\n", why);
    test_trace_jobs();
    test_by_vector();
    test_plugin_traces();
    test_plugin_occupation_dT();
    return check_exit();
}
