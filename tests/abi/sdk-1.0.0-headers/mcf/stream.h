/* mcf/stream.h — the byte streams a model writes its state to in a checkpoint.
 *
 * The core owns every mcf_stream; a plugin only writes to or reads from the one it is
 * handed (mcf/state.h: the core writes an ABI-2 model's record from its state()).  Data
 * are stored in the host's byte order; the checkpoint header records it, and a checkpoint
 * from another byte order is refused as foreign. */
#ifndef MCF_STREAM_H
#define MCF_STREAM_H

#include "mcf/api.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mcf_stream mcf_stream;

/* Appends `bytes` bytes from `data` (not retained).  MCF_OK or MCF_ENOMEM. */
MCF_API int mcf_stream_write(mcf_stream *s, const void *data, size_t bytes);

/* Reads the next `bytes` bytes into `data`.  MCF_OK, or MCF_EFORMAT with a message when
 * fewer than `bytes` remain (a truncated or foreign record): never a partial read. */
MCF_API int mcf_stream_read(mcf_stream *s, void *data, size_t bytes);

#ifdef __cplusplus
}
#endif
#endif
