/* test_evaluator.c — test fermion evaluators of ABI 2 (mcf/fermion.h); nothing here is ever
 * called but probe():
 *   mcf-tnullev.so      one the loader must refuse: its required op `spectra` is NULL;
 *   mcf-tautogpu.so     (TEST_VARIANT_AUTOGPU) a candidate of `evaluator = auto` with
 *                       priority 90 whose probe says usable only when MCF_TEST_AUTO_GPU=1;
 *                       it provides no change_action (holstein refuses it);
 *   mcf-tpreflip.so     (TEST_VARIANT_PREFLIP) a good table whose descriptor says it was
 *                       built with mcf 0.8.0's headers (built_with), before ABI 2 was
 *                       frozen in mcf 1.0, which the loader refuses;
 *   mcf-tpreflip0.so    (TEST_VARIANT_PREFLIP0) the descriptor as MCF_PLUGIN_DESCRIPTOR of
 *                       mcf 0.7-0.8 wrote it: shorter, without built_with. */
#include "mcf/mcf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int create(const mcf_params *p, const mcf_hamiltonian *h, void *app_data, void **ws)
{
    (void)p, (void)h, (void)app_data;
    *ws = NULL;
    return mcf_fail(MCF_EINVAL, "test evaluator: not meant to run");
}

static void destroy(void *ws) { (void)ws; }

#if !defined(TEST_VARIANT_NULLEV)
static int spectra(mcf_batch *b, void *const *ws, size_t n, mcf_rng *const *rngs,
                   mcf_spectra *s)
{
    (void)b, (void)ws, (void)n, (void)rngs, (void)s;
    return MCF_EINVAL;
}
#endif

static int occupation(mcf_batch *b, void *const *ws, size_t n, mcf_rng *const *rngs,
                      double mu, double T, const mcf_occupation *out)
{
    (void)b, (void)ws, (void)n, (void)rngs, (void)mu, (void)T, (void)out;
    return MCF_EINVAL;
}

#ifdef TEST_VARIANT_AUTOGPU
static int probe(char *why, size_t len)
{
    const char *v = getenv("MCF_TEST_AUTO_GPU");
    int usable = v && !strcmp(v, "1");
    snprintf(why, len, "%s", usable ? "test device" : "MCF_TEST_AUTO_GPU is not 1");
    return usable;
}
#endif

static const mcf_fermion_evaluator table = {
    .struct_size = sizeof(mcf_fermion_evaluator),
    .provides = MCF_PROVIDES_OCCUPATION | MCF_PROVIDES_DOS | MCF_PROVIDES_LDOS |
                MCF_PROVIDES_GREEN,
    .create = create,
    .destroy = destroy,
#if defined(TEST_VARIANT_NULLEV)
    .spectra = NULL, /* the defect */
#else
    .spectra = spectra,
#endif
    .occupation = occupation,
};

static const mcf_param_spec params[] = {{0}};

#if defined(TEST_VARIANT_AUTOGPU)
MCF_PLUGIN_DESCRIPTOR(MCF_PLUGIN_FERMION_EVALUATOR, "tautogpu", "0",
                      "test: an evaluator = auto candidate (priority 90), usable when "
                      "MCF_TEST_AUTO_GPU=1",
                      params, &table, .auto_priority = 90, .probe = probe)
#elif defined(TEST_VARIANT_PREFLIP)
static const mcf_plugin_info info = {
    .abi_version = 2u,
    .struct_size = sizeof(mcf_plugin_info),
    .built_with = MCF_VERSION_NUMBER(0, 8, 0),
    .kind = MCF_PLUGIN_FERMION_EVALUATOR,
    .name = "tpreflip",
    .version = "0",
    .summary = "test: an ABI-2 evaluator built against mcf 0.8's headers",
    .params = params,
    .ops = &table,
};
MCF_PLUGIN(info)
#elif defined(TEST_VARIANT_PREFLIP0)
/* the descriptor as mcf 0.7-0.8's MCF_PLUGIN_DESCRIPTOR wrote it: it ended at app_data */
static const mcf_plugin_info info = {
    .abi_version = 2u,
    .struct_size = (uint32_t)offsetof(mcf_plugin_info, built_with),
    .kind = MCF_PLUGIN_FERMION_EVALUATOR,
    .name = "tpreflip0",
    .version = "0",
    .summary = "test: an ABI-2 evaluator built against mcf 0.8's headers",
    .params = params,
    .ops = &table,
};
MCF_PLUGIN(info)
#else
MCF_PLUGIN_DESCRIPTOR(MCF_PLUGIN_FERMION_EVALUATOR, "tnullev", "0",
                      "test: a fermion evaluator with a NULL required op", params, &table)
#endif
