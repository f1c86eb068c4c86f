/* test_orbital_adapters.c — the SDK's two orbital adapters and ABI 2's orbital helpers
 * (core/sdk/orbital_calls.c, orbital_abi1.c, orbital_abi1_view.c, orbital_model2.c), with
 * evaluators loaded by the core's loader:
 *
 *   (a) up: the frozen ABI-1 planewave (tests/abi/planewave-0.7.0) called through ABI 2's
 *       helpers records the bits its ABI-1 ops record called directly; today's ABI-2
 *       planewave records them too (porting it changed no number);
 *   (b) down: the ABI-1 view of today's planewave (what slater-jastrow, an ABI-1 model,
 *       gets from mcf_orbital_bind) records the bits of the ABI-2 table called directly,
 *       and ABI 2's helpers over it the same; its orbitals() is L; it has no det ops;
 *   (c) refusals: a bind asking planewave for determinants names what it lacks (either
 *       ABI, either helper set); no evaluator; not an orbital evaluator; the checked verbs
 *       (no evaluator on the batch, NaN positions, grad without lap, spin 2, a bit not
 *       provided, NULL arrays) and the prefix "<model>: evaluator <name>: <op>";
 *   (d) determinants: thostdet1 (ABI 1, orbital_hostdet.c) through the helpers (up) records
 *       the bits of its ops called as an ABI-1 model calls them; thostdet2 (ABI 2) through
 *       the view (down) and through the helpers records the bits of its table; thostdet1
 *       and thostdet2 record the same (one mathematics).  The view hands out spin 0, then
 *       spin 1, and refuses a third det_create;
 *   (e) the loader: an ABI-2 orbital table promising ops it lacks, WALKER_SWEEP without
 *       DETERMINANTS, or too short a struct_size (one pointer short of
 *       MCF_ORBITAL_EVALUATOR_SIZE_1_0), is refused naming the problem;
 *   (f) the drift sweep of mcf 1.2 (walker_drift_sweep, MCF_ORBITAL_DRIFT_SWEEP): thostdet2
 *       offers it, and its table called directly and through the helpers records the same
 *       bits (two sweeps of two walkers, some moves accepted, not all); thostdet10, a table
 *       of mcf 1.0's size (MCF_ORBITAL_EVALUATOR_SIZE_1_0) that states the bit with the op
 *       set beyond its struct_size, loads and offers everything else (its determinants
 *       script records thostdet2's bits) but not the drift sweep: a bind asking for it is
 *       refused, the helper refuses the call; the helper's checks (NULL Gaussians, a time
 *       step <= 0, n = 0).
 *
 * Usage: test_orbital_adapters FROZEN_PLANEWAVE_FOLDER HOSTDET_FOLDER */
#define _POSIX_C_SOURCE 200809L
#include "orbital_backend.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "internal.h"
#include "mcf/mcf.h"
#include "orbital_abi1_side.h"
#include "test_params.h"

static int contains(const char *s, const char *part) { return s && strstr(s, part) != NULL; }

static const char *frozen_dir, *hostdet_dir;
static const mcf_params *model_p, *eval_p;

static const mcf_param_spec model_specs[] = {{0}};

/* evaluator `name` from the folders `path` (then the build's plugin folder) */
static const mcf_plugin_info *open_from(const char *path, const char *name, mcf_plugin **p)
{
    setenv("MCF_PLUGIN_PATH", path, 1);
    *p = NULL;
    int rc = mcfe_plugin_open(name, MCF_PLUGIN_ORBITAL_EVALUATOR, p);
    CHECK(rc == MCF_OK, "open %s from %s: %s", name, path, mcf_last_error());
    return rc ? NULL : (*p)->info;
}

static mcf_services services_of(const mcf_plugin_info *e)
{
    return (mcf_services){.struct_size = sizeof(mcf_services), .seed = 1,
                          .evaluator = e, .evaluator_params = eval_p};
}

/* a batch whose evaluator is e, as the core makes them (NULL e: none) */
static mcf_batch *batch_of(const mcf_plugin_info *e)
{
    mcf_batch *b = mcf_batch_create();
    if (!b)
        abort();
    mcf_batch_set_evaluator(b, e, "test-model");
    return b;
}

static ob_backend table1(const char *name, const mcf_orbital_ops *ops)
{
    return (ob_backend){.kind = OB_TABLE1, .name = name, .ops1 = ops, .params = eval_p};
}

static ob_backend table2(const char *name, const mcf_plugin_info *e, mcf_batch *b)
{
    return (ob_backend){.kind = OB_TABLE2, .name = name, .ops2 = e->ops,
                        .app_data = e->app_data, .params = eval_p, .batch = b};
}

static ob_backend helpers(const char *name, const mcf_orbital *h, mcf_batch *b)
{
    return (ob_backend){.kind = OB_HELPERS, .name = name, .handle = h, .params = eval_p,
                        .batch = b};
}

/* ---- orbital descriptions --------------------------------------------------------------- */

typedef struct orbitals {
    mcf_pw_orbitals o;
    int32_t g[3 * 9];
    double a[6 * 9], b[6 * 9];
} orbitals;

/* L = 5 orbitals of 9 plane waves with random coefficients in a 2 x 2.5 x 3 cell */
static void values_orbitals(orbitals *s)
{
    static const int32_t g[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 0,
                                1, 0, -1, 0, 1, 1, 2, 0, 0, -1, 1, 1};
    mcf_rng rng;
    mcf_rng_init(&rng, 3, 0);
    memcpy(s->g, g, sizeof g);
    for (size_t k = 0; k < 5 * 9; k++) {
        s->a[k] = mcf_rng_uniform(&rng) - 0.5;
        s->b[k] = mcf_rng_uniform(&rng) - 0.5;
    }
    s->o = (mcf_pw_orbitals){{2.0, 2.5, 3.0}, 5, 9, s->g, s->a, s->b};
}

/* L = 6: 1, cos and sin along x and y, cos along z in a cube of side 3 (the electron gas's
 * first shells), every coefficient perturbed a little so that no symmetry is exact */
static void det_orbitals(orbitals *s)
{
    static const int32_t g[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    mcf_rng rng;
    mcf_rng_init(&rng, 4, 0);
    memcpy(s->g, g, sizeof g);
    for (size_t k = 0; k < 6 * 4; k++) {
        s->a[k] = 0.1 * (mcf_rng_uniform(&rng) - 0.5);
        s->b[k] = 0.1 * (mcf_rng_uniform(&rng) - 0.5);
    }
    s->a[0 * 4 + 0] += 1, s->a[1 * 4 + 1] += 1, s->b[2 * 4 + 1] += 1;
    s->a[3 * 4 + 2] += 1, s->b[4 * 4 + 2] += 1, s->a[5 * 4 + 3] += 1;
    s->o = (mcf_pw_orbitals){{3.0, 3.0, 3.0}, 6, 4, s->g, s->a, s->b};
}

/* ---- (a), (b) values -------------------------------------------------------------------- */

static void test_values(const mcf_plugin_info *frozen, const mcf_plugin_info *today)
{
    orbitals s;
    values_orbitals(&s);
    CHECK(frozen->abi_version == 1 && today->abi_version == MCF_ABI_2,
          "planewave: the frozen one has ABI %u, today's %u; expected 1 and 2",
          frozen->abi_version, today->abi_version);
    mcf_services s1 = services_of(frozen), s2 = services_of(today);
    mcf_orbital h1, h2;
    CHECK(mcf_orbital_bind(&s1, model_p, "test-model", MCF_ORBITAL_VALUES, &h1) == MCF_OK &&
              mcf_orbital_bind(&s2, model_p, "test-model", MCF_ORBITAL_VALUES, &h2) == MCF_OK,
          "bind planewave (ABI 2 helpers): %s", mcf_last_error());
    const mcf_orbital_ops *view = NULL;
    CHECK(abi1_bind(&s2, model_p, MCF_ORBITAL_VALUES, &view) == MCF_OK && view &&
              (const void *)view != today->ops,
          "ABI-1 bind of today's planewave: a view expected (%s)", mcf_last_error());
    if (!view)
        return;
    mcf_batch *b1 = batch_of(frozen), *b2 = batch_of(today), *b3 = batch_of(today);
    ob_record d1 = {0}, up = {0}, d2 = {0}, down = {0}, via = {0};
    ob_backend be;
    ob_script_values((be = table1("frozen planewave, ABI 1", frozen->ops), &be), &s.o, &d1);
    ob_script_values((be = helpers("frozen planewave, helpers", &h1, b1), &be), &s.o, &up);
    ob_script_values((be = table2("planewave, ABI 2", today, b2), &be), &s.o, &d2);
    ob_script_values((be = table1("planewave's ABI-1 view", view), &be), &s.o, &down);
    ob_script_values((be = helpers("planewave, helpers", &h2, b3), &be), &s.o, &via);
    CHECK(ob_same(&d1, &up, "(a) up adapter"), "(a) the helpers over the ABI-1 planewave "
          "differ from its ops called directly");
    CHECK(ob_same(&d1, &d2, "(a) port"), "(a) today's planewave differs from the frozen one");
    CHECK(ob_same(&d2, &down, "(b) down adapter"), "(b) the ABI-1 view differs from the "
          "ABI-2 table called directly");
    CHECK(ob_same(&d2, &via, "(b) helpers"), "(b) ABI 2's helpers over ABI-2 planewave "
          "differ from its table called directly");
    printf("(a, b) planewave: %zu numbers recorded by each of five callers\n", d1.n);

    /* what the view says of itself */
    void *ws = NULL;
    int rc = abi1_workspace(&s2, model_p, &s.o, &ws);
    CHECK(rc == MCF_OK && ws && view->orbitals(ws) == 5, "(b) view: workspace rc %d, "
          "orbitals() %zu, expected 5 (%s)", rc, ws ? view->orbitals(ws) : 0, mcf_last_error());
    if (ws)
        view->destroy(ws);
    CHECK(!view->det_create && !view->walker_sweep && abi1_has(&s2, model_p,
          MCF_ORBITAL_DETERMINANTS) == 0 && abi1_has(&s2, model_p, MCF_ORBITAL_VALUES) == 1,
          "(b) the view of planewave must show values only");
    ob_record_free(&d1), ob_record_free(&up), ob_record_free(&d2);
    ob_record_free(&down), ob_record_free(&via);
    mcf_batch_destroy(b1), mcf_batch_destroy(b2), mcf_batch_destroy(b3);
}

/* ---- (c) refusals -------------------------------------------------------------------------- */

static void expect_bind(const mcf_services *s, unsigned needs, const char *const *parts,
                        const char *what)
{
    mcf_orbital h;
    memset(&h, 0x5A, sizeof h);
    const mcf_orbital before = h;
    mcf_clear_error();
    int rc = mcf_orbital_bind(s, model_p, "test-model", needs, &h);
    CHECK(rc == MCF_EINVAL && !memcmp(&h, &before, sizeof h), "(c) bind %s: rc %d", what, rc);
    for (size_t k = 0; parts[k]; k++)
        CHECK(contains(mcf_last_error(), parts[k]), "(c) bind %s: '%s' missing from: %s",
              what, parts[k], mcf_last_error());
}

/* rc is `code` and the message holds every part */
static void expect_fail(int rc, int code, const char *const *parts, const char *what)
{
    CHECK(rc == code, "(c) %s: rc %d, expected %d (%s)", what, rc, code, mcf_last_error());
    for (size_t k = 0; parts[k]; k++)
        CHECK(contains(mcf_last_error(), parts[k]), "(c) %s: '%s' missing from: %s", what,
              parts[k], mcf_last_error());
}

#define PARTS(...) ((const char *const[]){__VA_ARGS__, NULL})

static void test_refusals(const mcf_plugin_info *frozen, const mcf_plugin_info *today,
                          const mcf_plugin_info *hd1, const mcf_plugin_info *hd2)
{
    mcf_services s1 = services_of(frozen), s2 = services_of(today), none = services_of(NULL);
    expect_bind(&s2, MCF_ORBITAL_DETERMINANTS,
                PARTS("test-model: [run] evaluator = planewave in vmc.ini",
                      "keeps no determinants", "det_set .. det_local", "blip-cuda"),
                "ABI-2 planewave, DETERMINANTS");
    expect_bind(&s2, MCF_ORBITAL_WALKER_SWEEP, PARTS("keeps no determinants"),
                "ABI-2 planewave, WALKER_SWEEP");
    expect_bind(&s1, MCF_ORBITAL_DETERMINANTS, PARTS("det_create .. det_local"),
                "ABI-1 planewave, DETERMINANTS");
    expect_bind(&none, MCF_ORBITAL_VALUES, PARTS("evaluator = none", "no orbital evaluator"),
                "no evaluator");
    mcf_plugin_info ferm = *today;
    ferm.kind = MCF_PLUGIN_FERMION_EVALUATOR;
    mcf_services sf = services_of(&ferm);
    expect_bind(&sf, 0, PARTS("is not an orbital evaluator"), "a fermion evaluator");
    const mcf_orbital_ops *v = NULL;
    mcf_clear_error();
    expect_fail(abi1_bind(&s2, model_p, MCF_ORBITAL_DETERMINANTS, &v), MCF_EINVAL,
                PARTS("abi1-model: [run] evaluator = planewave", "keeps no determinants"),
                "ABI-1 bind of ABI-2 planewave, DETERMINANTS");

    mcf_orbital h, hd;
    CHECK(mcf_orbital_bind(&s2, model_p, "test-model", 0, &h) == MCF_OK,
          "(c) bind: %s", mcf_last_error());
    CHECK(mcf_orbital_has(&h, MCF_ORBITAL_VALUES) && !mcf_orbital_has(&h,
          MCF_ORBITAL_DETERMINANTS) && !mcf_orbital_has(&h, MCF_ORBITAL_WALKER_SWEEP) &&
          !mcf_orbital_has(NULL, 0), "(c) has: planewave has values only");
    orbitals s;
    values_orbitals(&s);
    mcf_pw_orbitals badorb = s.o;
    badorb.n_g = 0;
    void *ws = &s;
    expect_fail(mcf_orbital_workspace(&h, &badorb, &ws), MCF_EINVAL,
                PARTS("test-model: evaluator planewave: planewave: orbitals"), "bad orbitals");
    CHECK(ws == NULL, "(c) a failed workspace must be NULL");
    CHECK(mcf_orbital_workspace(&h, &s.o, &ws) == MCF_OK, "(c) workspace: %s",
          mcf_last_error());

    mcf_batch *b = batch_of(today), *bare = batch_of(NULL);
    double r[3] = {0.1, NAN, 0.3}, phi[5], grad[15], lap[5];
    const double *rr = r;
    const size_t np = 1;
    expect_fail(mcf_orbital_evaluate(bare, &ws, 1, &rr, &np, (double *const[]){phi}, NULL,
                                     NULL),
                MCF_EINTERNAL, PARTS("the batch has no orbital evaluator"), "no evaluator");
    expect_fail(mcf_orbital_evaluate(b, &ws, 1, &rr, &np, (double *const[]){phi}, NULL, NULL),
                MCF_EINVAL, PARTS("test-model: evaluator planewave: evaluate: planewave",
                                  "coordinate 1"), "a NaN position");
    r[1] = 0.2;
    expect_fail(mcf_orbital_evaluate(b, &ws, 1, &rr, &np, (double *const[]){phi},
                                     (double *const[]){grad}, NULL),
                MCF_EINVAL, PARTS("grad is not NULL but lap is"), "grad without lap");
    expect_fail(mcf_orbital_evaluate(b, NULL, 1, &rr, &np, (double *const[]){phi}, NULL,
                                     NULL), MCF_EINVAL, PARTS("NULL workspace array"),
                "no workspaces");
    CHECK(mcf_orbital_evaluate(b, &ws, 1, &rr, &np, (double *const[]){phi},
                               (double *const[]){grad}, (double *const[]){lap}) == MCF_OK &&
              mcf_orbital_evaluate(bare, NULL, 0, NULL, NULL, NULL, NULL, NULL) == MCF_OK,
          "(c) evaluate: %s", mcf_last_error());
    const int up = 0, two = 2;
    expect_fail(mcf_orbital_det_trial(b, &ws, &up, 1, &rr), MCF_EINVAL,
                PARTS("test-model: evaluator planewave: det_trial: the evaluator keeps no "
                      "determinants"), "det_trial on planewave");
    expect_fail(mcf_orbital_det_set(&h, ws, 0, 1, r, phi, phi), MCF_EINVAL,
                PARTS("det_set", "keeps no determinants"), "det_set on planewave");
    mcf_orbital_release(&h, ws);

    /* the determinant verbs' own checks, on thostdet2; an evaluator's message, thostdet1 */
    mcf_services sd2 = services_of(hd2), sd1 = services_of(hd1);
    mcf_batch *bd2 = batch_of(hd2), *bd1 = batch_of(hd1);
    det_orbitals(&s);
    CHECK(mcf_orbital_bind(&sd2, model_p, "test-model", MCF_ORBITAL_WALKER_SWEEP, &hd) ==
              MCF_OK && mcf_orbital_workspace(&hd, &s.o, &ws) == MCF_OK,
          "(c) thostdet2: %s", mcf_last_error());
    const size_t e = 0;
    double R;
    expect_fail(mcf_orbital_det_ratio(bd2, &ws, &two, 1, &e, &R), MCF_EINVAL,
                PARTS("test-model: evaluator thostdet2: det_ratio: spin 2"), "spin 2");
    expect_fail(mcf_orbital_det_ratio(bd2, &ws, &up, 1, &e, NULL), MCF_EINVAL,
                PARTS("NULL ratio array"), "no ratio array");
    expect_fail(mcf_orbital_det_accept(bd2, NULL, 0, 0), MCF_EINVAL,
                PARTS("det_accept: NULL workspace"), "det_accept of no workspace");
    expect_fail(mcf_orbital_det_set(&hd, ws, 0, 2, NULL, phi, phi), MCF_EINVAL,
                PARTS("det_set: NULL positions"), "det_set without positions");
    mcf_walker w = {ws, r, r, NULL, (unsigned char[4]){0}, NULL};
    expect_fail(mcf_orbital_walker_sweep(bd2, &w, 1, (const mcf_pair_function[2]){{0}, {0}},
                                         s.o.cell, 0),
                MCF_EINVAL, PARTS("walker_sweep: the stream of walker 0"), "no stream");
    CHECK(mcf_orbital_det_trial(bd2, NULL, NULL, 0, NULL) == MCF_OK &&
              mcf_orbital_walker_sweep(bd2, NULL, 0, NULL, NULL, 0) == MCF_OK,
          "(c) n = 0 is nothing to do: %s", mcf_last_error());
    mcf_orbital_release(&hd, ws);
    CHECK(mcf_orbital_bind(&sd1, model_p, "test-model", MCF_ORBITAL_DETERMINANTS, &hd) ==
              MCF_OK && mcf_orbital_workspace(&hd, &s.o, &ws) == MCF_OK,
          "(c) thostdet1: %s", mcf_last_error());
    expect_fail(mcf_orbital_det_get(&hd, ws, 1, NULL, NULL, NULL), MCF_EINVAL,
                PARTS("test-model: evaluator thostdet1: det_get: the determinant of spin 1 "
                      "holds no electrons"), "det_get of an empty spin (up adapter)");
    const double *rt = r;
    expect_fail(mcf_orbital_det_trial(bd1, &ws, &up, 1, &rt), MCF_EINVAL,
                PARTS("det_trial: determinant 0 of 1"), "det_trial of an empty spin");
    mcf_orbital_release(&hd, ws);
    mcf_batch_destroy(b), mcf_batch_destroy(bare), mcf_batch_destroy(bd1);
    mcf_batch_destroy(bd2);
}

/* ---- (d) determinants ------------------------------------------------------------------- */

static void test_dets(const mcf_plugin_info *hd1, const mcf_plugin_info *hd2)
{
    orbitals s;
    det_orbitals(&s);
    const unsigned all = MCF_ORBITAL_VALUES | MCF_ORBITAL_DETERMINANTS |
                         MCF_ORBITAL_WALKER_SWEEP;
    mcf_services s1 = services_of(hd1), s2 = services_of(hd2);
    mcf_orbital h1, h2;
    const mcf_orbital_ops *view = NULL;
    CHECK(mcf_orbital_bind(&s1, model_p, "test-model", all, &h1) == MCF_OK &&
              mcf_orbital_bind(&s2, model_p, "test-model", all, &h2) == MCF_OK &&
              abi1_bind(&s2, model_p, all, &view) == MCF_OK && view,
          "(d) bind thostdet1 and 2 with every bit: %s", mcf_last_error());
    if (!view)
        return;
    mcf_batch *b1 = batch_of(hd1), *b2 = batch_of(hd2), *b3 = batch_of(hd2);
    ob_record d1 = {0}, up = {0}, d2 = {0}, down = {0}, via = {0};
    ob_backend be;
    ob_script_dets((be = table1("thostdet1, ABI 1", hd1->ops), &be), &s.o, &d1);
    ob_script_dets((be = helpers("thostdet1, helpers", &h1, b1), &be), &s.o, &up);
    ob_script_dets((be = table2("thostdet2, ABI 2", hd2, b2), &be), &s.o, &d2);
    ob_script_dets((be = table1("thostdet2's ABI-1 view", view), &be), &s.o, &down);
    ob_script_dets((be = helpers("thostdet2, helpers", &h2, b3), &be), &s.o, &via);
    CHECK(ob_same(&d1, &up, "(d) up adapter"), "(d) the helpers over thostdet1 differ from "
          "its ABI-1 ops called directly");
    CHECK(ob_same(&d2, &down, "(d) down adapter"), "(d) the ABI-1 view of thostdet2 differs "
          "from its table called directly");
    CHECK(ob_same(&d2, &via, "(d) helpers"), "(d) the helpers over thostdet2 differ");
    CHECK(ob_same(&d1, &d2, "(d) ABI 1 vs 2"), "(d) thostdet1 and thostdet2 differ");
    CHECK(d1.accepted > 0 && d1.accepted < 10, "(d) the sweep accepted %zu of 10 moves: "
          "expected some, not all", d1.accepted);
    printf("(d) determinants: %zu numbers recorded by each of five callers; the sweep "
           "accepted %zu of 10 moves\n", d1.n, d1.accepted);

    /* the view's handles: spin 0, then spin 1, then no more */
    void *ws = NULL, *d[3] = {NULL, NULL, NULL};
    CHECK(abi1_workspace(&s2, model_p, &s.o, &ws) == MCF_OK && ws, "(d) view workspace: %s",
          mcf_last_error());
    if (!ws)
        return;
    CHECK(view->det_create(ws, 3, &d[0]) == MCF_OK && view->det_create(ws, 2, &d[1]) ==
              MCF_OK && d[0] && d[1] && d[0] != d[1], "(d) view: two det_create: %s",
          mcf_last_error());
    expect_fail(view->det_create(ws, 1, &d[2]), MCF_EINVAL, PARTS("two determinants"),
                "a third det_create");
    expect_fail(view->det_create(ws, 7, &d[2]), MCF_EINVAL, PARTS("1 .. 6"), "m > L");
    view->det_destroy(d[0]);
    CHECK(view->det_create(ws, 1, &d[2]) == MCF_OK && d[2] == d[0], "(d) view: det_create "
          "after det_destroy gives the freed spin again");
    view->destroy(ws);
    ob_record_free(&d1), ob_record_free(&up), ob_record_free(&d2);
    ob_record_free(&down), ob_record_free(&via);
    mcf_batch_destroy(b1), mcf_batch_destroy(b2), mcf_batch_destroy(b3);
}

/* ---- (f) the drift sweep ------------------------------------------------------------------- */

/* thostdet10, a table of mcf 1.0's size: everything but the drift sweep (thostdet2's bits
 * for the determinants script) */
static void test_drift_v10(const mcf_plugin_info *hd2, const mcf_plugin_info *hd10)
{
    orbitals s;
    det_orbitals(&s);
    const unsigned old = MCF_ORBITAL_VALUES | MCF_ORBITAL_DETERMINANTS |
                         MCF_ORBITAL_WALKER_SWEEP;
    mcf_services s10 = services_of(hd10);
    mcf_orbital h10;
    mcf_batch *b1 = batch_of(hd2), *b10 = batch_of(hd10);
    ob_backend be;
    CHECK(mcf_orbital_bind(&s10, model_p, "test-model", old, &h10) == MCF_OK &&
              mcf_orbital_has(&h10, old) == 1 &&
              mcf_orbital_has(&h10, MCF_ORBITAL_DRIFT_SWEEP) == 0,
          "(f) thostdet10 (struct_size of mcf 1.0, DRIFT_SWEEP stated) must offer values, "
          "determinants and sweeps, not the drift sweep: %s", mcf_last_error());
    expect_bind(&s10, MCF_ORBITAL_DRIFT_SWEEP,
                PARTS("test-model: [run] evaluator = thostdet10",
                      "makes no drift-diffusion sweeps"), "thostdet10, DRIFT_SWEEP");
    ob_record d2 = {0}, d10 = {0}, r10 = {0};
    ob_script_dets((be = table2("thostdet2, ABI 2", hd2, b1), &be), &s.o, &d2);
    ob_script_dets((be = helpers("thostdet10, helpers", &h10, b10), &be), &s.o, &d10);
    CHECK(ob_same(&d2, &d10, "(f) thostdet10's determinants"), "(f) thostdet10 through the "
          "helpers differs from thostdet2");
    ob_script_drift((be = helpers("thostdet10, helpers", &h10, b10), &be), &s.o, &r10);
    CHECK(r10.failed && contains(r10.what, "walker_drift_sweep: the evaluator makes no "
                                 "drift-diffusion sweeps"),
          "(f) the helper must refuse thostdet10's drift sweep: %s",
          r10.failed ? r10.what : "it ran");
    ob_record_free(&d2), ob_record_free(&d10), ob_record_free(&r10);
    mcf_batch_destroy(b1), mcf_batch_destroy(b10);
}

/* thostdet2's drift sweep: offered, the same bits through the helpers, the helper's checks */
static void test_drift(const mcf_plugin_info *hd2)
{
    orbitals s;
    det_orbitals(&s);
    const unsigned old = MCF_ORBITAL_VALUES | MCF_ORBITAL_DETERMINANTS |
                         MCF_ORBITAL_WALKER_SWEEP;
    mcf_services s2 = services_of(hd2);
    mcf_orbital h2;
    CHECK(mcf_orbital_bind(&s2, model_p, "test-model", old | MCF_ORBITAL_DRIFT_SWEEP, &h2) ==
              MCF_OK && mcf_orbital_has(&h2, MCF_ORBITAL_DRIFT_SWEEP) == 1,
          "(f) thostdet2 must offer the drift sweep: %s", mcf_last_error());
    mcf_batch *b1 = batch_of(hd2), *b2 = batch_of(hd2);
    ob_record direct = {0}, via = {0};
    ob_backend be;
    ob_script_drift((be = table2("thostdet2, ABI 2", hd2, b1), &be), &s.o, &direct);
    ob_script_drift((be = helpers("thostdet2, helpers", &h2, b2), &be), &s.o, &via);
    CHECK(ob_same(&direct, &via, "(f) drift sweep, helpers"), "(f) the helpers' drift sweep "
          "over thostdet2 differs from its table called directly");
    CHECK(direct.accepted > 0 && direct.accepted < 20, "(f) the drift sweeps accepted %zu of "
          "20 moves: expected some, not all", direct.accepted);
    printf("(f) drift sweep: %zu numbers recorded by each of two callers; %zu of 20 moves "
           "accepted\n", direct.n, direct.accepted);

    /* the helper's checks, on thostdet2 */
    void *ws = NULL;
    CHECK(mcf_orbital_workspace(&h2, &s.o, &ws) == MCF_OK, "(f) workspace: %s",
          mcf_last_error());
    double r[3] = {0.1, 0.2, 0.3}, chi[3] = {0, 0, 0};
    mcf_rng rng;
    mcf_rng_init(&rng, 1, 0);
    mcf_drift_walker w = {{ws, r, NULL, &rng, (unsigned char[1]){0}, NULL}, NULL, 0.1, 1, 0};
    const mcf_pair_function u[2] = {{0}, {0}};
    expect_fail(mcf_orbital_walker_drift_sweep(b2, &w, 1, u, s.o.cell), MCF_EINVAL,
                PARTS("test-model: evaluator thostdet2: walker_drift_sweep: the Gaussians of "
                      "walker 0"), "no Gaussians");
    w.chi = chi;
    w.tau = 0.0;
    expect_fail(mcf_orbital_walker_drift_sweep(b2, &w, 1, u, s.o.cell), MCF_EINVAL,
                PARTS("walker_drift_sweep: walker 0 of 1 has time step 0"), "tau = 0");
    CHECK(mcf_orbital_walker_drift_sweep(b2, NULL, 0, NULL, NULL) == MCF_OK,
          "(f) n = 0 is nothing to do: %s", mcf_last_error());
    mcf_orbital_release(&h2, ws);
    ob_record_free(&direct), ob_record_free(&via);
    mcf_batch_destroy(b1), mcf_batch_destroy(b2);
}

/* ---- (e) the loader ------------------------------------------------------------------------ */

static void expect_unloadable(const char *name, const char *part)
{
    mcf_plugin *p = NULL;
    setenv("MCF_PLUGIN_PATH", hostdet_dir, 1);
    mcf_clear_error();
    int rc = mcfe_plugin_open(name, MCF_PLUGIN_ORBITAL_EVALUATOR, &p);
    CHECK(rc == MCF_EPLUGIN && contains(mcf_last_error(), part) &&
              contains(mcf_last_error(), name),
          "(e) %s: rc %d, expected MCF_EPLUGIN naming the file and '%s': %s", name, rc, part,
          mcf_last_error());
    if (!rc)
        mcfe_plugin_close(p);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s FROZEN_PLANEWAVE_FOLDER HOSTDET_FOLDER\n", argv[0]);
        return 2;
    }
    frozen_dir = argv[1];
    hostdet_dir = argv[2];
    test_params *mp = test_params_make(model_specs, "vmc.ini", (const char *)NULL);
    model_p = &mp->p;
    mcf_plugin *pf, *pt, *p1, *p2, *p10;
    const mcf_plugin_info *frozen = open_from(frozen_dir, "planewave", &pf);
    /* today's planewave: not in the hostdet folder, so the build's plugin folder's */
    const mcf_plugin_info *today = open_from(hostdet_dir, "planewave", &pt);
    const mcf_plugin_info *hd1 = open_from(hostdet_dir, "thostdet1", &p1);
    const mcf_plugin_info *hd2 = open_from(hostdet_dir, "thostdet2", &p2);
    const mcf_plugin_info *hd10 = open_from(hostdet_dir, "thostdet10", &p10);
    if (!frozen || !today || !hd1 || !hd2)
        return check_exit();
    CHECK(strstr(pf->path, frozen_dir) == pf->path && strstr(pt->path, frozen_dir) == NULL,
          "the frozen planewave is %s and today's %s", pf->path, pt->path);
    test_params *ep = test_params_make(today->params, "vmc.ini", (const char *)NULL);
    eval_p = &ep->p;
    test_values(frozen, today);
    test_refusals(frozen, today, hd1, hd2);
    test_dets(hd1, hd2);
    test_drift(hd2);
    if (hd10)
        test_drift_v10(hd2, hd10);
    expect_unloadable("thostdetbad", "'det_local' is NULL though `provides` promises it");
    expect_unloadable("thostdetsweep", "MCF_ORBITAL_WALKER_SWEEP without");
    expect_unloadable("thostdetshort", "struct_size");
    test_params_free(ep);
    test_params_free(mp);
    mcfe_plugin_close(pf), mcfe_plugin_close(pt), mcfe_plugin_close(p1);
    mcfe_plugin_close(p2);
    if (p10)
        mcfe_plugin_close(p10);
    return check_exit();
}
