/* batch.c — per-batch scratch handed to a model's batched ops (mcf/batch.h). */
#include "mcf/batch.h"

#include <stdlib.h>

#include "mcf/error.h"

struct mcf_batch {
    void *buf;
    size_t cap;
};

mcf_batch *mcf_batch_create(void)
{
    return calloc(1, sizeof(mcf_batch));
}

void mcf_batch_destroy(mcf_batch *b)
{
    if (!b)
        return;
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
