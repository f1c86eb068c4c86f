/* test_evaluator.c — test fermion evaluators; nothing here is ever called but probe():
 *   mcf-tnullev.so    one the loader must refuse: its required op `dos` is NULL;
 *   mcf-tautogpu.so   (TEST_VARIANT_AUTOGPU) a candidate of `evaluator = auto` with
 *                     priority 90 whose probe says usable only when MCF_TEST_AUTO_GPU=1. */
#include "mcf/mcf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int create(const mcf_params *p, const mcf_hamiltonian *h, void **ws)
{
    (void)p;
    (void)h;
    *ws = NULL;
    return mcf_fail(MCF_EINVAL, "tnullev: not meant to run");
}

static void destroy(void *ws) { (void)ws; }
static size_t energy_points(const void *ws) { (void)ws; return 0; }

static int energies(void *ws, double *E)
{
    (void)ws;
    (void)E;
    return MCF_EINVAL;
}

static int ldos(void *const *ws, size_t n, const size_t *const *rows, size_t n_rows,
                double *const *out)
{
    (void)ws, (void)n, (void)rows, (void)n_rows, (void)out;
    return MCF_EINVAL;
}

static int green(void *const *ws, size_t n, const size_t *const *rows, size_t n_rows,
                 double *const *re, double *const *im)
{
    (void)ws, (void)n, (void)rows, (void)n_rows, (void)re, (void)im;
    return MCF_EINVAL;
}

static int occupation(void *const *ws, size_t n, mcf_rng *const *rngs, double mu, double T,
                      double *density, double *energy)
{
    (void)ws, (void)n, (void)rngs, (void)mu, (void)T, (void)density, (void)energy;
    return MCF_EINVAL;
}

#ifdef TEST_VARIANT_AUTOGPU
static int dos(void *const *ws, size_t n, mcf_rng *const *rngs, double *const *out)
{
    (void)ws, (void)n, (void)rngs, (void)out;
    return MCF_EINVAL;
}

static int probe(char *why, size_t len)
{
    const char *v = getenv("MCF_TEST_AUTO_GPU");
    int usable = v && !strcmp(v, "1");
    snprintf(why, len, "%s", usable ? "test device" : "MCF_TEST_AUTO_GPU is not 1");
    return usable;
}
#endif

static const mcf_fermion_ops ops = {
    .struct_size = sizeof(mcf_fermion_ops),
    .create = create,
    .destroy = destroy,
    .energy_points = energy_points,
    .energies = energies,
#ifdef TEST_VARIANT_AUTOGPU
    .dos = dos,
#else
    .dos = NULL, /* the defect */
#endif
    .ldos = ldos,
    .green = green,
    .occupation = occupation,
};

static const mcf_param_spec params[] = {{NULL, 0, NULL, 0, 0, 0, NULL, NULL}};

static const mcf_plugin_info info = {
    .abi_version = MCF_ABI_VERSION,
    .struct_size = sizeof(mcf_plugin_info),
    .kind = MCF_PLUGIN_FERMION_EVALUATOR,
#ifdef TEST_VARIANT_AUTOGPU
    .name = "tautogpu",
    .version = "0",
    .summary = "test: an evaluator = auto candidate (priority 90), usable when "
               "MCF_TEST_AUTO_GPU=1",
    .params = params,
    .ops = &ops,
    .auto_priority = 90,
    .probe = probe,
#else
    .name = "tnullev",
    .version = "0",
    .summary = "test: a fermion evaluator with a NULL required op",
    .params = params,
    .ops = &ops,
#endif
};

MCF_PLUGIN(info)
