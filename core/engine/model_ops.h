/* model_ops.h — the core's one way to call a model, whatever ABI it was built for
 * (internal; docs/sdk-1.md).
 *
 * A model plugin is opened into an mcfi_model: its ABI-2 table (mcf_model) when it was
 * built for ABI 2, or its ABI-1 table (mcf_model_ops) through the adapter abi1.c, the only
 * file that knows ABI 1's model ops.  The rest of the core calls the functions below,
 * which speak ABI 2's verbs (one per verb, batched, with the batch), plus the finer verbs
 * the core's own code is written in (save/load, set_temperature, variational_*), which for
 * ABI 2 come from the chain's state description (variational_local: from measure, with the
 * batch's variational flag set). */
#ifndef MCF_MODEL_OPS_H
#define MCF_MODEL_OPS_H

#include <stdio.h>

#include "mcf/model.h"
#include "mcf_engine.h" /* mcf_plugin, MCF_TEMPERING_* */

typedef struct mcfi_model mcfi_model;

/* The verbs below, as implemented for one ABI (abi1.c for ABI 1, model_ops.c for ABI 2).
 * On failure of a batched op, *failed is the position of the chain whose op failed, or n
 * when the op of the whole batch did. */
typedef struct mcfi_model_calls {
    int (*create)(const mcfi_model *m, const mcf_params *params, const mcf_services *services,
                  mcf_rng *rng, void **chain);
    void (*destroy)(const mcfi_model *m, void *chain);
    size_t (*units)(const mcfi_model *m, const void *chain);
    /* proposals per sweep (ABI 1: the units) */
    size_t (*moves)(const mcfi_model *m, const void *chain);
    size_t (*curve_points)(const mcfi_model *m, const void *chain, size_t index, double *axis);
    int (*propose)(const mcfi_model *m, mcf_batch *b, void *const *chains, size_t n,
                   mcf_rng *const *rngs, void *moves, double *log_ratio, size_t *failed);
    int (*apply)(const mcfi_model *m, mcf_batch *b, void *const *chains, const void *moves,
                 size_t n, const unsigned char *accepted, size_t *failed);
    int (*sweep)(const mcfi_model *m, mcf_batch *b, void *const *chains, size_t n,
                 mcf_rng *const *rngs, uint64_t *accepted);
    int (*measure)(const mcfi_model *m, mcf_batch *b, void *const *chains, size_t n,
                   double *const *values, size_t *failed);
    void (*adapt)(const mcfi_model *m, void *chain, double acceptance);
    int (*save)(const mcfi_model *m, void *chain, mcf_stream *out);
    int (*load)(const mcfi_model *m, void *chain, mcf_stream *in);
    int (*save_configuration)(const mcfi_model *m, void *chain, mcf_stream *out);
    int (*load_configuration)(const mcfi_model *m, void *chain, mcf_stream *in);
    int (*set_temperature)(const mcfi_model *m, void *chain, double T);
    int (*exchange)(const mcfi_model *m, mcf_batch *b, void *const *chains, size_t n,
                    const double *T_new, double *out);
    int (*periodic)(const mcfi_model *m, const mcf_params *params, const void *chain,
                    const char *state, mcf_cell *cell);
    size_t (*variational_count)(const mcfi_model *m, void *chain);
    int (*variational_get)(const mcfi_model *m, void *chain, double *p);
    int (*variational_set)(const mcfi_model *m, void *chain, const double *p);
    int (*variational_local)(const mcfi_model *m, mcf_batch *b, void *const *chains, size_t n,
                             double *const *out);
    int (*variational_write)(const mcfi_model *m, void *chain, FILE *out);
} mcfi_model_calls;

struct mcfi_model {
    int abi;                         /* 1 or 2 */
    const mcfi_model_calls *calls;   /* abi1.c's or model_ops.c's */
    const void *table;               /* the plugin's mcf_model_ops (abi 1) or mcf_model */
    const char *name;                /* the plugin's name, for messages */
    /* what the core reads of a model, whatever its ABI */
    size_t move_size;
    const mcf_observable *observables; /* abi 2: the plugin's; abi 1: made from its
                                          observables (owned: own_observables) */
    const mcf_label *labels;         /* abi 2: made from observables, parameter labels and
                                        energy_unit (owned); NULL: none */
    int evaluator_kind, weight_form;
    int tempering;                   /* MCF_TEMPERING_* (mcf_engine.h) */
    const char *ordered_state, *mu_key, *variational_file_key;
    const mcf_stream_spec *streams;
    int has_sweep, has_anneal, has_periodic, has_variational;
    mcf_observable *own_observables; /* abi 1's storage */
    mcf_label *own_labels;
};

/* The model's ABI-2 table (mcf_model), for the ops ABI 1 has not (hmc.c, dmc.c); NULL for
 * an ABI-1 model or none. */
static inline const mcf_model *mcfi_model_v2(const mcfi_model *m)
{
    return m && m->abi == 2 ? (const mcf_model *)m->table : NULL;
}

/* Checks a model descriptor's table (ABI 1 or 2) and opens it; MCF_EPLUGIN naming path.
 * mcfi_model_close frees (NULL is ignored). */
int mcfi_model_open(const char *path, const mcf_plugin_info *info, mcfi_model **out);
void mcfi_model_close(mcfi_model *m);

/* The ABI-1 adapter (abi1.c): checks an ABI-1 table (an mcf_model_ops, whose declaration
 * only abi1.c sees: mcf/abi1_model.h) and fills m (calls, fields). */
int mcfi_abi1_open(const char *path, const void *table, mcfi_model *m);

/* The variational parameters chain describes (mcf_variational, checked; its pointers are
 * the chain's, good until the chain changes): ABI 2 only (MCF_EINVAL for ABI 1, whose
 * models write their parameter files themselves; MCF_EPLUGIN for a broken description). */
int mcfi_model_variational(const mcfi_model *m, void *chain, mcf_variational *v);

/* the verbs: m->calls->VERB(m, ...) */
#define MCFI_MODEL(m, verb, ...) ((m)->calls->verb((m), __VA_ARGS__))

#endif
