/* test_orbital_bind.c — mcf_orbital_bind, mcf_orbital_has and mcf_orbital_workspace
 * (mcf/orbital_model.h, mcf 0.5) with fake orbital evaluators whose ops tables lack what is
 * asked for:
 *
 *   (a) no evaluator, services too old to carry one, an evaluator of another kind: refused
 *       naming the model, the configuration file, the evaluator and the fix;
 *   (b) values or vgl NULL, or struct_size ending before vgl: refused under
 *       MCF_ORBITAL_VALUES, bound without it; create or orbitals NULL: refused whatever the
 *       needs;
 *   (c) the determinant ops: all nine NULL, one of them NULL (each in turn), or struct_size
 *       ending before det_local: refused under MCF_ORBITAL_DETERMINANTS and
 *       MCF_ORBITAL_WALKER_SWEEP; walker_sweep NULL or beyond struct_size: refused under
 *       MCF_ORBITAL_WALKER_SWEEP only;
 *   (d) a full table: every field of the handle filled; mcf_orbital_has bit by bit for the
 *       full table and a values-only one;
 *   (e) mcf_orbital_workspace: create gets the evaluator's parameters and the orbitals; its
 *       failure comes back prefixed "<model>: evaluator <name>" with *ws NULL;
 *   (f) MCF_ORBITAL_DRIFT_SWEEP (walker_drift_sweep, appended in mcf 1.2) with fake ABI-2
 *       tables: the loader's check (core/engine/plugin_tables.c) and whether the SDK offers
 *       the bit (a bind asking for it): a full table loads and offers it; promised with the
 *       op NULL: refused at load (naming the op) and not offered; promised without
 *       DETERMINANTS: refused at load and not offered; the op set but not promised: not
 *       offered; a table of mcf 1.0's size (MCF_ORBITAL_EVALUATOR_SIZE_1_0), as a plugin
 *       built before mcf 1.2 has: loads and offers the older bits, not this one, and so
 *       does one that promises it with the op set beyond struct_size; one pointer shorter:
 *       refused at load; an ABI-1 table never offers it.
 * These are ABI 1's helpers (mcf 0.5-0.8: still exported for the plugins built with them)
 * with ABI-1 tables: the file is built against ABI 1's private headers (core/sdk/abi1;
 * tests/unit/CMakeLists.txt), which come first.  ABI 2's helpers: tests/abi's
 * test_orbital_adapters; (f) binds ABI-2 tables through ABI 1's helpers, which check the
 * bits as ABI 2's do (core/sdk/orbital_calls.c). */
#include "mcf/abi1.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "internal.h" /* mcfi_plugin_check_table: the loader's check of a table */
#include "mcf/mcf.h"
#include "test_params.h"

static int contains(const char *s, const char *part) { return s && strstr(s, part) != NULL; }

static const mcf_param_spec model_specs[] = {
    {"electrons", MCF_PARAM_INT, "14", MCF_PARAM_HAS_MIN, 1, 0, NULL, .doc = "electrons"},
    {0}};
static const mcf_param_spec eval_specs[] = {
    {"grid", MCF_PARAM_INT, "0", MCF_PARAM_HAS_MIN, 0, 0, NULL, .doc = "grid"},
    {0}};

/* ---- a fake evaluator: every op does nothing; create records what it got ------------- */
static const mcf_params *created_params;
static const mcf_pw_orbitals *created_orbitals;
static int create_fails;
static int ws_token;

static int f_create(const mcf_params *params, const mcf_pw_orbitals *o, void **ws)
{
    created_params = params;
    created_orbitals = o;
    if (create_fails) {
        *ws = &ws_token; /* a failing create may leave garbage: the SDK clears it */
        return mcf_fail(MCF_EINVAL, "grid too coarse");
    }
    *ws = &ws_token;
    return MCF_OK;
}
static void f_destroy(void *ws) { (void)ws; }
static size_t f_orbitals(const void *ws) { return ws ? 7 : 0; }
static int f_values(void *const *ws, size_t n, const double *const *r, const size_t *np,
                    double *const *phi)
{
    (void)ws, (void)n, (void)r, (void)np, (void)phi;
    return MCF_OK;
}
static int f_vgl(void *const *ws, size_t n, const double *const *r, const size_t *np,
                 double *const *phi, double *const *grad, double *const *lap)
{
    (void)ws, (void)n, (void)r, (void)np, (void)phi, (void)grad, (void)lap;
    return MCF_OK;
}
static int f_det_create(void *ws, size_t m, void **det) { (void)ws, (void)m, (void)det; return 0; }
static void f_det_destroy(void *det) { (void)det; }
static int f_det_set(void *det, const double *r, const double *A, const double *Ainv)
{
    (void)det, (void)r, (void)A, (void)Ainv;
    return MCF_OK;
}
static int f_det_get(void *det, double *r, double *A, double *Ainv)
{
    (void)det, (void)r, (void)A, (void)Ainv;
    return MCF_OK;
}
static int f_det_trial(void *const *det, size_t n, const double *const *rt)
{
    (void)det, (void)n, (void)rt;
    return MCF_OK;
}
static int f_det_ratio(void *const *det, size_t n, const size_t *e, double *ratio)
{
    (void)det, (void)n, (void)e, (void)ratio;
    return MCF_OK;
}
static int f_det_accept(void *det, size_t e) { (void)det, (void)e; return MCF_OK; }
static int f_det_refresh(void *const *det, size_t n, double *drift)
{
    (void)det, (void)n, (void)drift;
    return MCF_OK;
}
static int f_det_local(void *const *det, size_t n, double *const *g, double *const *l)
{
    (void)det, (void)n, (void)g, (void)l;
    return MCF_OK;
}
static int f_walker_sweep(mcf_walker_moves *w, size_t n, const mcf_pair_function u[2],
                          const double cell[3], size_t delay)
{
    (void)w, (void)n, (void)u, (void)cell, (void)delay;
    return MCF_OK;
}

static const mcf_orbital_ops full_ops = {
    .struct_size = sizeof(mcf_orbital_ops), .create = f_create, .destroy = f_destroy,
    .orbitals = f_orbitals, .values = f_values, .vgl = f_vgl, .det_create = f_det_create,
    .det_destroy = f_det_destroy, .det_set = f_det_set, .det_get = f_det_get,
    .det_trial = f_det_trial, .det_ratio = f_det_ratio, .det_accept = f_det_accept,
    .det_refresh = f_det_refresh, .det_local = f_det_local, .walker_sweep = f_walker_sweep};

static mcf_plugin_info fake_info(mcf_plugin_kind kind, const char *name, const void *ops)
{
    return (mcf_plugin_info){.abi_version = MCF_ABI_1,
                             .struct_size = sizeof(mcf_plugin_info),
                             .kind = kind,
                             .name = name,
                             .version = "0",
                             .summary = "a fake evaluator of test_orbital_bind",
                             .params = eval_specs,
                             .ops = ops};
}

static mcf_services fake_services(const mcf_plugin_info *e, const mcf_params *ep)
{
    return (mcf_services){.struct_size = sizeof(mcf_services), .seed = 1, .chain_index = 0,
                          .evaluator = e, .evaluator_params = ep};
}

static const mcf_params *model_p, *eval_p;

/* binding evaluator info (named "fake") under `needs` is refused with a message naming the
 * model, the file, the evaluator, the fix and `part` */
static void expect_refused_info(const mcf_plugin_info *info, unsigned needs, const char *part,
                                const char *what)
{
    mcf_services s = fake_services(info, eval_p);
    mcf_orbital o;
    memset(&o, 0x5A, sizeof o);
    const mcf_orbital before = o;
    mcf_clear_error();
    int rc = mcf_orbital_bind(&s, model_p, "slater-jastrow", needs, &o);
    const char *m = mcf_last_error();
    CHECK(rc == MCF_EINVAL, "bind %s: rc %d, expected MCF_EINVAL", what, rc);
    CHECK(contains(m, part) && contains(m, "slater-jastrow: [run] evaluator = fake in sj.ini") &&
              contains(m, "set [run] evaluator = planewave"),
          "bind %s: the message should name the model, file, evaluator, fix and '%s': %s", what,
          part, m);
    CHECK(!memcmp(&o, &before, sizeof o), "bind %s: refused, but the handle was written", what);
}

/* binding ops (as evaluator "fake") under `needs` is refused (expect_refused_info) */
static void expect_refused(const mcf_orbital_ops *ops, unsigned needs, const char *part,
                           const char *what)
{
    mcf_plugin_info info = fake_info(MCF_PLUGIN_ORBITAL_EVALUATOR, "fake", ops);
    expect_refused_info(&info, needs, part, what);
}

/* binding ops under `needs` succeeds */
static void expect_bound(const mcf_orbital_ops *ops, unsigned needs, const char *what)
{
    mcf_plugin_info info = fake_info(MCF_PLUGIN_ORBITAL_EVALUATOR, "fake", ops);
    mcf_services s = fake_services(&info, eval_p);
    mcf_orbital o;
    int rc = mcf_orbital_bind(&s, model_p, "slater-jastrow", needs, &o);
    CHECK(rc == MCF_OK && o.ops == ops, "bind %s: rc %d (%s)", what, rc, mcf_last_error());
}

static void test_no_orbital_evaluator(void)
{
    mcf_orbital o;
    /* (a) none */
    mcf_services none = fake_services(NULL, NULL);
    mcf_clear_error();
    int rc = mcf_orbital_bind(&none, model_p, "slater-jastrow", MCF_ORBITAL_VALUES, &o);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "[run] evaluator = none in sj.ini") &&
              contains(mcf_last_error(), "no orbital evaluator") &&
              contains(mcf_last_error(), "planewave"),
          "bind without an evaluator: rc %d, %s", rc, mcf_last_error());
    /* services of an SDK before evaluator_params: as good as none */
    mcf_plugin_info info = fake_info(MCF_PLUGIN_ORBITAL_EVALUATOR, "fake", &full_ops);
    mcf_services old = fake_services(&info, eval_p);
    old.struct_size = (uint32_t)offsetof(mcf_services, evaluator);
    rc = mcf_orbital_bind(&old, model_p, "slater-jastrow", 0, &o);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "evaluator = none"),
          "bind with services that end before the evaluator: rc %d, %s", rc, mcf_last_error());
    /* a fermion evaluator, even with an orbital-looking ops table */
    mcf_plugin_info ferm = fake_info(MCF_PLUGIN_FERMION_EVALUATOR, "kpm", &full_ops);
    mcf_services s = fake_services(&ferm, eval_p);
    rc = mcf_orbital_bind(&s, model_p, "slater-jastrow", 0, &o);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "evaluator = kpm in sj.ini") &&
              contains(mcf_last_error(), "is not an orbital evaluator"),
          "bind a fermion evaluator: rc %d, %s", rc, mcf_last_error());
    /* no model parameters: the message says "the configuration" */
    rc = mcf_orbital_bind(&none, NULL, "slater-jastrow", 0, &o);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "in the configuration"),
          "bind without model parameters: %s", mcf_last_error());
}

static void test_values(void)
{
    /* (b) */
    mcf_orbital_ops ops = full_ops;
    ops.values = NULL;
    expect_refused(&ops, MCF_ORBITAL_VALUES, "values/vgl", "without values");
    expect_bound(&ops, 0, "without values, not needed");
    ops = full_ops;
    ops.vgl = NULL;
    expect_refused(&ops, MCF_ORBITAL_VALUES, "values/vgl", "without vgl");
    ops = full_ops;
    ops.struct_size = (uint32_t)(offsetof(mcf_orbital_ops, vgl) + sizeof ops.vgl - 1);
    expect_refused(&ops, MCF_ORBITAL_VALUES, "values/vgl", "struct_size one byte short of vgl");
    ops = full_ops;
    ops.create = NULL;
    expect_refused(&ops, 0, "create", "without create (needs 0)");
    ops = full_ops;
    ops.orbitals = NULL;
    expect_refused(&ops, 0, "orbitals", "without orbitals (needs 0)");
}

static void test_determinants(void)
{
    /* (c) all nine NULL: a values-only evaluator (planewave, blip) */
    mcf_orbital_ops ops = full_ops;
    ops.det_create = NULL, ops.det_destroy = NULL, ops.det_set = NULL, ops.det_get = NULL;
    ops.det_trial = NULL, ops.det_ratio = NULL, ops.det_accept = NULL, ops.det_refresh = NULL;
    ops.det_local = NULL, ops.walker_sweep = NULL;
    expect_refused(&ops, MCF_ORBITAL_DETERMINANTS, "keeps no determinants", "values only, dets");
    expect_refused(&ops, MCF_ORBITAL_WALKER_SWEEP, "keeps no determinants", "values only, sweep");
    expect_bound(&ops, MCF_ORBITAL_VALUES, "values only");
    /* each of the nine missing in turn */
    static const size_t det_fields[] = {
        offsetof(mcf_orbital_ops, det_create), offsetof(mcf_orbital_ops, det_destroy),
        offsetof(mcf_orbital_ops, det_set),    offsetof(mcf_orbital_ops, det_get),
        offsetof(mcf_orbital_ops, det_trial),  offsetof(mcf_orbital_ops, det_ratio),
        offsetof(mcf_orbital_ops, det_accept), offsetof(mcf_orbital_ops, det_refresh),
        offsetof(mcf_orbital_ops, det_local)};
    for (size_t k = 0; k < sizeof det_fields / sizeof det_fields[0]; k++) {
        ops = full_ops;
        memset((unsigned char *)&ops + det_fields[k], 0, sizeof(void (*)(void)));
        char what[64];
        snprintf(what, sizeof what, "determinant op %zu of 9 NULL", k + 1);
        expect_refused(&ops, MCF_ORBITAL_DETERMINANTS, "det_create .. det_local", what);
    }
    /* set, but beyond struct_size (a plugin of an older SDK) */
    ops = full_ops;
    ops.struct_size = (uint32_t)(MCF_ORBITAL_OPS_DET_SIZE - 1);
    expect_refused(&ops, MCF_ORBITAL_DETERMINANTS, "keeps no determinants",
                   "struct_size one byte short of det_local");
    expect_bound(&ops, MCF_ORBITAL_VALUES, "struct_size short of det_local, values only");
    /* walker_sweep */
    ops = full_ops;
    ops.walker_sweep = NULL;
    expect_refused(&ops, MCF_ORBITAL_WALKER_SWEEP, "walker_sweep", "without walker_sweep");
    expect_bound(&ops, MCF_ORBITAL_VALUES | MCF_ORBITAL_DETERMINANTS,
                 "without walker_sweep, not needed");
    ops = full_ops;
    ops.struct_size = (uint32_t)offsetof(mcf_orbital_ops, walker_sweep);
    expect_refused(&ops, MCF_ORBITAL_WALKER_SWEEP, "walker_sweep",
                   "struct_size ending before walker_sweep");
    expect_bound(&ops, MCF_ORBITAL_DETERMINANTS, "struct_size ending before walker_sweep, dets");
}

static void test_bound(void)
{
    /* (d) */
    const unsigned all = MCF_ORBITAL_VALUES | MCF_ORBITAL_DETERMINANTS | MCF_ORBITAL_WALKER_SWEEP;
    mcf_plugin_info info = fake_info(MCF_PLUGIN_ORBITAL_EVALUATOR, "blip-cuda", &full_ops);
    mcf_services s = fake_services(&info, eval_p);
    mcf_orbital o;
    memset(&o, 0xA5, sizeof o);
    int rc = mcf_orbital_bind(&s, model_p, "slater-jastrow", all, &o);
    CHECK(rc == MCF_OK, "bind with every op: rc %d (%s)", rc, mcf_last_error());
    CHECK(o.ops == &full_ops && o.name == info.name && o.params == eval_p,
          "bind: ops %p, name %p, params %p; expected the descriptor's and the services'",
          (const void *)o.ops, (const void *)o.name, (const void *)o.params);
    CHECK(o.model && !strcmp(o.model, "slater-jastrow") && o.origin && !strcmp(o.origin, "sj.ini"),
          "bind: model %s, origin %s", o.model ? o.model : "NULL", o.origin ? o.origin : "NULL");
    static const unsigned bits[] = {MCF_ORBITAL_VALUES, MCF_ORBITAL_DETERMINANTS,
                                    MCF_ORBITAL_WALKER_SWEEP};
    CHECK(mcf_orbital_has(&o, all) && mcf_orbital_has(&o, 0), "has(all), has(0): 0 for every op");
    mcf_orbital_ops values_only = full_ops;
    values_only.struct_size = (uint32_t)(offsetof(mcf_orbital_ops, vgl) + sizeof(void *));
    mcf_orbital v = o;
    v.ops = &values_only;
    for (size_t b = 0; b < 3; b++) {
        CHECK(mcf_orbital_has(&o, bits[b]) == 1, "has(bit %zu) with every op: 0", b);
        CHECK(mcf_orbital_has(&v, bits[b]) == (b == 0), "has(bit %zu), values only: %d", b,
              mcf_orbital_has(&v, bits[b]));
    }
    CHECK(mcf_orbital_has(NULL, 0) == 0, "has of a NULL handle: 1");

    /* (e) */
    const mcf_pw_orbitals orb = {{1, 1, 1}, 1, 1, (const int32_t[]){0, 0, 0}, (const double[]){1},
                                 (const double[]){0}};
    void *ws = NULL;
    create_fails = 0;
    rc = mcf_orbital_workspace(&o, &orb, &ws);
    CHECK(rc == MCF_OK && ws == &ws_token && created_params == eval_p && created_orbitals == &orb,
          "workspace: rc %d, ws %p, create got params %p and orbitals %p", rc, ws,
          (const void *)created_params, (const void *)created_orbitals);
    create_fails = 1;
    mcf_clear_error();
    rc = mcf_orbital_workspace(&o, &orb, &ws);
    CHECK(rc == MCF_EINVAL && ws == NULL &&
              contains(mcf_last_error(), "slater-jastrow: evaluator blip-cuda") &&
              contains(mcf_last_error(), "grid too coarse"),
          "failed workspace: rc %d, ws %p, %s", rc, ws, mcf_last_error());
}

/* ---- (f) fake ABI-2 tables: mcf 1.2's drift sweep ------------------------------------- */

static int f2_create(const mcf_params *params, const mcf_pw_orbitals *o, void *app_data,
                     void **ws)
{
    (void)app_data;
    return f_create(params, o, ws);
}
static int f2_evaluate(mcf_batch *b, void *const *ws, size_t n, const double *const *r,
                       const size_t *np, double *const *phi, double *const *grad,
                       double *const *lap)
{
    (void)b;
    return f_vgl(ws, n, r, np, phi, grad, lap);
}
static int f2_det_set(void *ws, int spin, size_t m, const double *r, const double *A,
                      const double *Ainv)
{
    (void)ws, (void)spin, (void)m, (void)r, (void)A, (void)Ainv;
    return MCF_OK;
}
static int f2_det_get(void *ws, int spin, double *r, double *A, double *Ainv)
{
    (void)ws, (void)spin, (void)r, (void)A, (void)Ainv;
    return MCF_OK;
}
static int f2_det_trial(mcf_batch *b, void *const *ws, const int *spin, size_t n,
                        const double *const *rt)
{
    (void)b, (void)ws, (void)spin, (void)n, (void)rt;
    return MCF_OK;
}
static int f2_det_ratio(mcf_batch *b, void *const *ws, const int *spin, size_t n,
                        const size_t *e, double *ratio)
{
    (void)b, (void)ws, (void)spin, (void)n, (void)e, (void)ratio;
    return MCF_OK;
}
static int f2_det_accept(mcf_batch *b, void *ws, int spin, size_t e)
{
    (void)b, (void)ws, (void)spin, (void)e;
    return MCF_OK;
}
static int f2_det_refresh(mcf_batch *b, void *const *ws, const int *spin, size_t n,
                          double *drift)
{
    (void)b, (void)ws, (void)spin, (void)n, (void)drift;
    return MCF_OK;
}
static int f2_det_local(mcf_batch *b, void *const *ws, const int *spin, size_t n,
                        double *const *g, double *const *l)
{
    (void)b, (void)ws, (void)spin, (void)n, (void)g, (void)l;
    return MCF_OK;
}
static int f2_walker_sweep(mcf_batch *b, const mcf_walker *w, size_t n,
                           const mcf_pair_function u[2], const double cell[3], size_t delay)
{
    (void)b, (void)w, (void)n, (void)u, (void)cell, (void)delay;
    return MCF_OK;
}
static int f2_walker_drift_sweep(mcf_batch *b, const mcf_drift_walker *w, size_t n,
                                 const mcf_pair_function u[2], const double cell[3])
{
    (void)b, (void)w, (void)n, (void)u, (void)cell;
    return MCF_OK;
}

#define F2_OLD (MCF_ORBITAL_VALUES | MCF_ORBITAL_DETERMINANTS | MCF_ORBITAL_WALKER_SWEEP)

static const mcf_orbital_evaluator full2 = {
    .struct_size = sizeof(mcf_orbital_evaluator), .provides = F2_OLD | MCF_ORBITAL_DRIFT_SWEEP,
    .create = f2_create, .destroy = f_destroy, .evaluate = f2_evaluate, .det_set = f2_det_set,
    .det_get = f2_det_get, .det_trial = f2_det_trial, .det_ratio = f2_det_ratio,
    .det_accept = f2_det_accept, .det_refresh = f2_det_refresh, .det_local = f2_det_local,
    .walker_sweep = f2_walker_sweep, .walker_drift_sweep = f2_walker_drift_sweep};

static mcf_plugin_info fake_info2(const mcf_orbital_evaluator *t)
{
    mcf_plugin_info info = fake_info(MCF_PLUGIN_ORBITAL_EVALUATOR, "fake", t);
    info.abi_version = MCF_ABI_2;
    return info;
}

/* the loader's check of table t (as the file fake.so): MCF_OK when part is NULL, else
 * MCF_EPLUGIN with a message naming the file and `part` */
static void expect_load(const mcf_orbital_evaluator *t, const char *part, const char *what)
{
    mcf_clear_error();
    int rc = mcfi_plugin_check_table("fake.so", MCF_PLUGIN_ORBITAL_EVALUATOR, 1, t);
    if (!part)
        CHECK(rc == MCF_OK, "load %s: rc %d (%s)", what, rc, mcf_last_error());
    else
        CHECK(rc == MCF_EPLUGIN && contains(mcf_last_error(), "fake.so") &&
                  contains(mcf_last_error(), part),
              "load %s: rc %d, expected MCF_EPLUGIN naming fake.so and '%s': %s", what, rc, part,
              mcf_last_error());
}

/* 1 when the SDK offers `needs` of table t (a bind asking for them succeeds) */
static int offered(const mcf_orbital_evaluator *t, unsigned needs)
{
    mcf_plugin_info info = fake_info2(t);
    mcf_services s = fake_services(&info, eval_p);
    mcf_orbital o;
    return mcf_orbital_bind(&s, model_p, "slater-jastrow", needs, &o) == MCF_OK;
}

static void test_drift_sweep(void)
{
    /* (f) the full table */
    expect_load(&full2, NULL, "a full ABI-2 table");
    CHECK(offered(&full2, F2_OLD | MCF_ORBITAL_DRIFT_SWEEP), "a full ABI-2 table: not every "
          "bit offered: %s", mcf_last_error());
    /* promised, the op NULL */
    mcf_orbital_evaluator t = full2;
    t.walker_drift_sweep = NULL;
    expect_load(&t, "'walker_drift_sweep' is NULL though `provides` promises it",
                "DRIFT_SWEEP promised, the op NULL");
    mcf_plugin_info info = fake_info2(&t);
    expect_refused_info(&info, MCF_ORBITAL_DRIFT_SWEEP, "makes no drift-diffusion sweeps",
                        "DRIFT_SWEEP promised, the op NULL");
    CHECK(offered(&t, F2_OLD), "the op NULL: the other bits must stay offered: %s",
          mcf_last_error());
    /* promised without the determinants */
    t = full2;
    t.provides = MCF_ORBITAL_VALUES | MCF_ORBITAL_DRIFT_SWEEP;
    expect_load(&t, "MCF_ORBITAL_DRIFT_SWEEP without MCF_ORBITAL_DETERMINANTS",
                "DRIFT_SWEEP without DETERMINANTS");
    info = fake_info2(&t);
    expect_refused_info(&info, MCF_ORBITAL_DRIFT_SWEEP, "keeps no determinants",
                        "DRIFT_SWEEP without DETERMINANTS");
    /* the op set, not promised */
    t = full2;
    t.provides = F2_OLD;
    expect_load(&t, NULL, "the op set, DRIFT_SWEEP not promised");
    CHECK(!offered(&t, MCF_ORBITAL_DRIFT_SWEEP), "an op not promised was offered");
    /* a table built before mcf 1.2 (mcf 1.0's size): the older bits, not this one */
    t = full2;
    t.struct_size = (uint32_t)MCF_ORBITAL_EVALUATOR_SIZE_1_0;
    t.provides = F2_OLD;
    expect_load(&t, NULL, "struct_size of mcf 1.0");
    CHECK(offered(&t, F2_OLD) && !offered(&t, MCF_ORBITAL_DRIFT_SWEEP), "struct_size of "
          "mcf 1.0: values, determinants and sweeps must be offered, the drift sweep not: %s",
          mcf_last_error());
    /* the same promising it, the op set beyond struct_size */
    t.provides = F2_OLD | MCF_ORBITAL_DRIFT_SWEEP;
    expect_load(&t, NULL, "struct_size of mcf 1.0 promising DRIFT_SWEEP");
    CHECK(offered(&t, F2_OLD), "struct_size of mcf 1.0: values, determinants and sweeps not "
          "offered: %s", mcf_last_error());
    info = fake_info2(&t);
    expect_refused_info(&info, MCF_ORBITAL_DRIFT_SWEEP, "makes no drift-diffusion sweeps",
                        "struct_size of mcf 1.0, DRIFT_SWEEP");
    t.struct_size = (uint32_t)(MCF_ORBITAL_EVALUATOR_SIZE_1_0 - sizeof(void *));
    expect_load(&t, "struct_size", "struct_size one pointer short of mcf 1.0's");
    /* ABI 1 never has it */
    expect_refused(&full_ops, MCF_ORBITAL_DRIFT_SWEEP, "makes no drift-diffusion sweeps",
                   "an ABI-1 table, DRIFT_SWEEP");
    mcf_orbital_ops values_only = full_ops;
    values_only.struct_size = (uint32_t)(offsetof(mcf_orbital_ops, vgl) + sizeof(void *));
    expect_refused(&values_only, MCF_ORBITAL_DRIFT_SWEEP, "keeps no determinants",
                   "an ABI-1 values-only table, DRIFT_SWEEP");
}

int main(void)
{
    test_params *mp = test_params_make(model_specs, "sj.ini", (const char *)NULL);
    test_params *ep = test_params_make(eval_specs, "eval.ini", (const char *)NULL);
    model_p = &mp->p;
    eval_p = &ep->p;
    test_no_orbital_evaluator();
    test_values();
    test_determinants();
    test_bound();
    test_drift_sweep();
    test_params_free(mp);
    test_params_free(ep);
    return check_exit();
}
