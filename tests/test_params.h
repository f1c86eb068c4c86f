/* test_params.h — [evaluator] / [model] parameter sets for tests that call a plugin's ops
 * directly: the declared defaults with overrides, parsed by the core's own value parser
 * (internal.h), as the config loader would; and a fermion evaluator's workspace made with
 * them (evaluator_test.h: either ABI). */
#ifndef MCF_TEST_PARAMS_H
#define MCF_TEST_PARAMS_H

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "evaluator_test.h"
#include "internal.h"

#define TEST_PARAMS_MAX 32

typedef struct test_params {
    mcf_params p;
    mcf_value values[TEST_PARAMS_MAX];
    int ok; /* 0 when a value was refused by the declaration (message in mcf_last_error) */
} test_params;

/* The parameters of `specs` (NULL-name terminated) in section "evaluator": defaults, with
 * overrides "key", "text", ... ending with NULL.  Free with test_params_free(). */
static inline test_params *test_params_make(const mcf_param_spec *specs, const char *origin,
                                            ...)
{
    test_params *tp = calloc(1, sizeof *tp);
    if (!tp)
        abort();
    tp->ok = 1;
    tp->p.section = "evaluator";
    tp->p.origin = origin;
    tp->p.specs = specs;
    tp->p.n = mcfi_spec_count(specs);
    tp->p.values = tp->values;
    for (size_t k = 0; k < tp->p.n && k < TEST_PARAMS_MAX; k++) {
        const mcf_param_spec *s = &specs[k];
        const char *text = s->default_value;
        va_list ap;
        va_start(ap, origin);
        for (const char *key = va_arg(ap, const char *); key; key = va_arg(ap, const char *)) {
            const char *val = va_arg(ap, const char *);
            if (!strcmp(key, s->name))
                text = val;
        }
        va_end(ap);
        if (mcfi_value_parse(s, text, &tp->values[k]) != MCF_OK) {
            tp->ok = 0;
            tp->p.n = k;
            break;
        }
    }
    return tp;
}

/* A fermion evaluator's workspace for h with the parameters tp (NULL, and a failed check
 * naming the plugin, when create refuses).  Free with tev_destroy(). */
static inline void *test_params_workspace(const mcf_plugin_info *info, test_params *tp,
                                          const mcf_hamiltonian *h)
{
    void *ws = NULL;
    const int rc = tev_create(info, &tp->p, h, &ws);
    CHECK(rc == MCF_OK && ws, "%s create: %s", info->name, mcf_last_error());
    return ws;
}

static inline void test_params_free(test_params *tp)
{
    if (!tp)
        return;
    for (size_t k = 0; k < tp->p.n; k++)
        mcfe_value_release(&tp->values[k]);
    free(tp);
}

#endif
