/* test_model.c — a tiny model for the core's tests, and its deliberately broken variants.
 *
 * The model: one Ising spin s = +-1 in a field h (parameter, default 1), energy e = -h s,
 * single-flip Metropolis.  Exact: <e> = -h tanh(h/T), <|m|> = 1, and the curve
 * `histogram` over s = -1, +1 has P(s) = exp(h s / T) / (2 cosh(h / T)).  Built several times:
 *   TEST_VARIANT_GOOD      mcf-tgood.so      a correct plugin
 *   TEST_VARIANT_BAD_ABI   mcf-tbadabi.so    claims another ABI version
 *   TEST_VARIANT_NO_ENTRY  mcf-tnoentry.so   exports no entry function
 *   TEST_VARIANT_NULL_OP   mcf-tnullop.so    measure is NULL
 *   TEST_VARIANT_MISNAMED  mcf-tmisnamed.so  calls itself something else
 *   TEST_VARIANT_FAIL      mcf-tfail.so      the good model, whose chains fail in propose()
 *                                            at their proposal `fail_after` (0 = never): a
 *                                            model error in one chain of one MPI rank; and
 *                                            whose chain 0 sends its own process SIGTERM
 *                                            at its proposal `signal_after` (0 = never,
 *                                            once: a second signal stops at once): a run
 *                                            stopped mid-way, at a sweep the test knows
 *                                            (the seeds of tests/fuzz/fuzz_checkpoint);
 *                                            and whose chain `nonfinite_chain` measures m =
 *                                            NaN (or, with nonfinite_curve, its histogram
 *                                            at s = +1 as +inf) at its measurement
 *                                            `nonfinite_after`, and returns a NaN log-ratio
 *                                            at its proposal `nan_ratio_after` (0 = never:
 *                                            a value that is not finite at run time)
 *   TEST_VARIANT_SELF_NAMED mcf-tself.so     the good model, named after its file: copies
 *                                            mcf-NAME.so are as many plugins as there are
 *                                            copies, of names as long as a file's
 * A model of ABI 1 (mcf_model_ops), built against ABI 1's private headers (core/sdk/abi1;
 * tests/plugins/CMakeLists.txt): every in-tree model is ABI 2 since mcf 1.0, and the runs
 * of this one are what keeps the core's ABI-1 adapter (core/engine/abi1.c) under the CLI
 * tests, its refusals included (tnullop). */
#ifdef TEST_VARIANT_SELF_NAMED
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <string.h>
#endif
#include <math.h>
#include <signal.h>
#include <stdlib.h>

#include "mcf/abi1_model.h" /* ABI 1's table (private to mcf) */
#include "mcf/mcf.h"

typedef struct chain {
    int s;
    double h, beta;
#ifdef TEST_VARIANT_FAIL
    long fail_after, signal_after, proposals;
    long nonfinite_chain, nonfinite_after, nan_ratio_after, measurements;
    int nonfinite_curve;
    size_t index;
#endif
} chain;

typedef struct move {
    int flip;
} move;

/* the descriptor's app_data (mcf 0.5): create() refuses to run without it, so every run
   of this plugin checks that the core hands it over */
static char app_data_marker[] = "test-model app_data";

static int create(const mcf_params *p, const mcf_services *sv, mcf_rng *rng, void **out)
{
    if (sv->struct_size < offsetof(mcf_services, app_data) + sizeof sv->app_data ||
        sv->app_data != app_data_marker)
        return mcf_fail(MCF_EPLUGIN, "test model: services.app_data is %p, not the "
                        "descriptor's %p", sv->app_data, (void *)app_data_marker);
    double T;
    chain *c = malloc(sizeof *c);
    if (!c)
        return mcf_fail(MCF_ENOMEM, "out of memory");
    int rc = mcf_params_real(p, "h", &c->h);
    if (!rc)
        rc = mcf_params_temperature(p, &T);
#ifdef TEST_VARIANT_FAIL
    if (!rc)
        rc = mcf_params_int(p, "fail_after", &c->fail_after);
    if (!rc)
        rc = mcf_params_int(p, "signal_after", &c->signal_after);
    if (!rc)
        rc = mcf_params_int(p, "nonfinite_chain", &c->nonfinite_chain);
    if (!rc)
        rc = mcf_params_int(p, "nonfinite_after", &c->nonfinite_after);
    if (!rc)
        rc = mcf_params_int(p, "nan_ratio_after", &c->nan_ratio_after);
    if (!rc)
        rc = mcf_params_bool(p, "nonfinite_curve", &c->nonfinite_curve);
    c->proposals = c->measurements = 0;
    c->index = sv->chain_index;
#endif
    if (rc) {
        free(c);
        return rc;
    }
    c->beta = 1.0 / T;
    c->s = mcf_rng_uniform(rng) < 0.5 ? 1 : -1;
    *out = c;
    return MCF_OK;
}

static void destroy(void *c) { free(c); }
static size_t units(const void *c) { (void)c; return 1; }

static int propose(void *c, mcf_rng *rng, void *mv)
{
    (void)c;
    (void)rng;
#ifdef TEST_VARIANT_FAIL
    chain *fc = c;
    ++fc->proposals;
    if (fc->fail_after > 0 && fc->proposals >= fc->fail_after)
        return mcf_fail(MCF_EPLUGIN, "test failure: chain %zu fails at its proposal %ld",
                        fc->index, fc->proposals);
    /* as if the user pressed Ctrl-C: the run stops at the end of its current chunk */
    if (fc->signal_after > 0 && fc->proposals == fc->signal_after && fc->index == 0)
        raise(SIGTERM);
#endif
    ((move *)mv)->flip = 1;
    return MCF_OK;
}

static int log_ratio(void *const *chains, const void *moves, size_t n, double *out)
{
    (void)moves;
    for (size_t k = 0; k < n; k++) {
        const chain *c = chains[k];
        /* flipping s changes e = -h s by 2 h s */
        out[k] = -c->beta * 2.0 * c->h * c->s;
#ifdef TEST_VARIANT_FAIL
        if (c->nan_ratio_after > 0 && (long)c->index == c->nonfinite_chain &&
            c->proposals == c->nan_ratio_after)
            out[k] = NAN;
#endif
    }
    return MCF_OK;
}

static int accept(void *c, const void *mv)
{
    (void)mv;
    ((chain *)c)->s = -((chain *)c)->s;
    return MCF_OK;
}

static void reject(void *c, const void *mv) { (void)c; (void)mv; }

#ifndef TEST_VARIANT_NULL_OP
static int measure(void *cv, double *v)
{
    const chain *c = cv;
    v[0] = -c->h * c->s;
    v[1] = 1.0;
    v[2] = c->s;
    v[3] = c->s < 0;
    v[4] = c->s > 0;
#ifdef TEST_VARIANT_FAIL
    chain *fc = cv;
    if (++fc->measurements == c->nonfinite_after && (long)c->index == c->nonfinite_chain) {
        if (c->nonfinite_curve)
            v[4] = INFINITY;
        else
            v[2] = NAN;
    }
#endif
    return MCF_OK;
}
#endif

static int save(const void *c, mcf_stream *out)
{
    return mcf_stream_write(out, &((const chain *)c)->s, sizeof(int));
}

static int load(void *cv, mcf_stream *in)
{
    chain *c = cv;
    int rc = mcf_stream_read(in, &c->s, sizeof(int));
    if (!rc && c->s != 1 && c->s != -1)
        return mcf_fail(MCF_EFORMAT, "spin %d is not +-1", c->s);
    return rc;
}

static const mcf_observable_spec observables[] = {
    {"energy", MCF_ROLE_ENERGY, "energy -h s", NULL, 0},
    {"abs_m", MCF_ROLE_ORDER, "|s| (always 1)", NULL, 0},
    {"m", MCF_ROLE_NONE, "s", NULL, 0},
    {"histogram", MCF_ROLE_NONE, "indicator of s = -1 and s = +1: a curve over s", "s", 0},
    {NULL, 0, NULL, NULL, 0}};

static size_t curve_points(const void *c, size_t index, double *axis)
{
    (void)c;
    (void)index;
    if (axis) {
        axis[0] = -1.0;
        axis[1] = 1.0;
    }
    return 2;
}

static const mcf_model_ops ops = {
    .struct_size = sizeof(mcf_model_ops),
    .move_size = sizeof(move),
    .observables = observables,
    .create = create,
    .destroy = destroy,
    .units = units,
    .propose = propose,
    .log_ratio = log_ratio,
    .accept = accept,
    .reject = reject,
#ifndef TEST_VARIANT_NULL_OP
    .measure = measure,
#endif
    .save = save,
    .load = load,
    .save_configuration = save, /* the spin: the configuration alone */
    .load_configuration = load,
    .curve_points = curve_points,
};

static const mcf_param_spec params[] = {
    {"h", MCF_PARAM_REAL, "1", 0, 0, 0, NULL, .doc = "field"},
    {"n", MCF_PARAM_INT, "4", MCF_PARAM_HAS_MIN | MCF_PARAM_HAS_MAX, 2, 64, NULL,
     .doc = "an integer in [2, 64] that does nothing"},
    {"lattice", MCF_PARAM_CHOICE, "square", 0, 0, 0, MCF_LATTICE_CHOICES, .doc = "a choice"},
    {"flag", MCF_PARAM_BOOL, "false", 0, 0, 0, NULL, .doc = "a boolean"},
    {"seed_like", MCF_PARAM_INT, "0", MCF_PARAM_NO_SCAN, 0, 0, NULL, .doc = "not scannable"},
    {"late_key", MCF_PARAM_INT, "0", MCF_PARAM_ECHO_IF_CHANGED, 0, 0, NULL,
     .doc = "a key added later: in config.ini only when not 0"},
#ifdef TEST_VARIANT_FAIL
    {"fail_after", MCF_PARAM_INT, "0", MCF_PARAM_HAS_MIN, 0, 0, NULL,
     .doc = "propose() fails at this proposal of the chain (0 = never)"},
    {"signal_after", MCF_PARAM_INT, "0", MCF_PARAM_HAS_MIN | MCF_PARAM_ECHO_IF_CHANGED, 0, 0,
     NULL, .doc = "the process sends itself SIGTERM at this proposal of chain 0 (0 = never)"},
    {"nonfinite_chain", MCF_PARAM_INT, "0", MCF_PARAM_HAS_MIN | MCF_PARAM_ECHO_IF_CHANGED, 0, 0,
     NULL, .doc = "the chain of nonfinite_after and nan_ratio_after"},
    {"nonfinite_after", MCF_PARAM_INT, "0", MCF_PARAM_HAS_MIN | MCF_PARAM_ECHO_IF_CHANGED, 0, 0,
     NULL, .doc = "that chain measures m = NaN at this measurement (0 = never)"},
    {"nonfinite_curve", MCF_PARAM_BOOL, "false", MCF_PARAM_ECHO_IF_CHANGED, 0, 0, NULL,
     .doc = "nonfinite_after: the histogram at s = +1 is +inf instead of m NaN"},
    {"nan_ratio_after", MCF_PARAM_INT, "0", MCF_PARAM_HAS_MIN | MCF_PARAM_ECHO_IF_CHANGED, 0, 0,
     NULL, .doc = "that chain's log_ratio is NaN at this proposal (0 = never)"},
#endif
    {0}};

#if defined(TEST_VARIANT_GOOD)
#define NAME "tgood"
#elif defined(TEST_VARIANT_BAD_ABI)
#define NAME "tbadabi"
#elif defined(TEST_VARIANT_NULL_OP)
#define NAME "tnullop"
#elif defined(TEST_VARIANT_MISNAMED)
#define NAME "somethingelse"
#elif defined(TEST_VARIANT_FAIL)
#define NAME "tfail"
#elif defined(TEST_VARIANT_SELF_NAMED)
#define NAME "tself"
#else
#define NAME "tnoentry"
#endif

#ifdef TEST_VARIANT_BAD_ABI
#define ABI (MCF_ABI_VERSION + 40) /* neither ABI 1 nor ABI 2 */
#else
#define ABI MCF_ABI_1
#endif

static const mcf_plugin_info info = {
    .abi_version = ABI,
    .struct_size = sizeof(mcf_plugin_info),
    .built_with = MCF_VERSION, /* the layout of its parameter specs */
    .kind = MCF_PLUGIN_MODEL,
    .name = NAME,
    .version = "1",
    .summary = "test model: one spin in a field",
    .params = params,
    .ops = &ops,
    .app_data = app_data_marker,
};

#if defined(TEST_VARIANT_SELF_NAMED)
/* the descriptor, named NAME for a file mcf-NAME.so (a copy, not a link: the loader would
   take a hard link for the file already loaded) */
static char self_name[256];
static mcf_plugin_info self_info;
MCF_EXPORT const mcf_plugin_info *mcf_plugin_entry(void);
MCF_EXPORT const mcf_plugin_info *mcf_plugin_entry(void)
{
    Dl_info dl;
    self_info = info;
    if (dladdr((void *)&mcf_plugin_entry, &dl) && dl.dli_fname) {
        const char *base = strrchr(dl.dli_fname, '/');
        base = base ? base + 1 : dl.dli_fname;
        size_t len = strlen(base);
        if (!strncmp(base, "mcf-", 4) && len > 7 && len - 7 < sizeof self_name) {
            memcpy(self_name, base + 4, len - 7);
            self_name[len - 7] = '\0';
            self_info.name = self_name;
        }
    }
    return &self_info;
}
#elif !defined(TEST_VARIANT_NO_ENTRY)
MCF_PLUGIN(info)
#else
/* keep the descriptor referenced so the compiler does not warn */
const void *tnoentry_descriptor(void);
const void *tnoentry_descriptor(void) { return &info; }
#endif
