/* batch.c — per-batch scratch and keep slots handed to a model's batched ops
 * (mcf/batch.h). */
#include "mcf/batch.h"

#include <stdlib.h>

#include "mcf/error.h"

typedef struct batch_slot {
    const void *owner;
    void *mem;
    size_t bytes;
    void (*release)(void *slot);
} batch_slot;

struct mcf_batch {
    void *buf;
    size_t cap;
    batch_slot *slot; /* in the order they were made */
    size_t n_slots, slots_cap;
    const struct mcf_plugin_info *evaluator; /* the run's (mcf_batch_set_evaluator) */
    const char *model;
    int variational; /* 1 while mcf optimize measures E_L and its derivatives */
};

mcf_batch *mcf_batch_create(void)
{
    return calloc(1, sizeof(mcf_batch));
}

void mcf_batch_destroy(mcf_batch *b)
{
    if (!b)
        return;
    for (size_t k = b->n_slots; k-- > 0;) {
        if (b->slot[k].release)
            b->slot[k].release(b->slot[k].mem);
        free(b->slot[k].mem);
    }
    free(b->slot);
    free(b->buf);
    free(b);
}

void *mcf_batch_scratch(mcf_batch *b, size_t bytes)
{
    if (!b) {
        mcf_fail(MCF_EINTERNAL, "mcf_batch_scratch: no batch (a bug, please report it)");
        return NULL;
    }
    if (bytes <= b->cap && b->buf)
        return b->buf;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < bytes)
        cap = cap > ((size_t)-1) / 2 ? bytes : 2 * cap;
    free(b->buf); /* contents are not kept: no realloc copy */
    b->buf = malloc(cap);
    b->cap = b->buf ? cap : 0;
    if (!b->buf)
        mcf_fail(MCF_ENOMEM, "out of memory for %zu bytes of batch scratch", bytes);
    return b->buf;
}

void *mcf_batch_keep(mcf_batch *b, const void *owner, size_t bytes, void (*release)(void *slot))
{
    if (!b || !owner) {
        mcf_fail(MCF_EINVAL, "mcf_batch_keep: %s", !b ? "no batch" : "no owner (NULL)");
        return NULL;
    }
    for (size_t k = 0; k < b->n_slots; k++) {
        if (b->slot[k].owner != owner)
            continue;
        if (bytes > b->slot[k].bytes) {
            mcf_fail(MCF_EINVAL, "mcf_batch_keep: the slot of this owner holds %zu bytes; "
                     "%zu asked (a slot never grows: ask for its full size the first time)",
                     b->slot[k].bytes, bytes);
            return NULL;
        }
        return b->slot[k].mem;
    }
    if (b->n_slots == b->slots_cap) {
        size_t cap = b->slots_cap ? 2 * b->slots_cap : 4;
        batch_slot *s = realloc(b->slot, cap * sizeof *s);
        if (!s) {
            mcf_fail(MCF_ENOMEM, "out of memory for a batch slot");
            return NULL;
        }
        b->slot = s;
        b->slots_cap = cap;
    }
    void *mem = calloc(1, bytes ? bytes : 1);
    if (!mem) {
        mcf_fail(MCF_ENOMEM, "out of memory for a batch slot of %zu bytes", bytes);
        return NULL;
    }
    b->slot[b->n_slots++] = (batch_slot){owner, mem, bytes, release};
    return mem;
}

void mcf_batch_set_evaluator(mcf_batch *b, const struct mcf_plugin_info *evaluator,
                             const char *model)
{
    if (b) {
        b->evaluator = evaluator;
        b->model = model;
    }
}

const struct mcf_plugin_info *mcf_batch_evaluator(const mcf_batch *b)
{
    return b ? b->evaluator : NULL;
}

const char *mcf_batch_model(const mcf_batch *b)
{
    return b && b->model ? b->model : "model";
}

void mcf_batch_set_variational(mcf_batch *b, int on)
{
    if (b)
        b->variational = on != 0;
}

int mcf_batch_variational(const mcf_batch *b)
{
    return b ? b->variational : 0;
}
