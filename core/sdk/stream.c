/* stream.c — growable byte buffers behind mcf_stream (checkpoint records). */
#define _POSIX_C_SOURCE 200809L
#include "mcf/host.h"
#include "mcf/error.h"

#include <stdlib.h>
#include <string.h>

void mcf_stream_init_writer(mcf_stream *s)
{
    memset(s, 0, sizeof *s);
}

void mcf_stream_init_reader(mcf_stream *s, const unsigned char *data, size_t size)
{
    memset(s, 0, sizeof *s);
    s->data = (unsigned char *)data;
    s->size = size;
    s->reading = 1;
}

void mcf_stream_release(mcf_stream *s)
{
    if (!s->reading)
        free(s->data);
    memset(s, 0, sizeof *s);
}

int mcf_stream_write(mcf_stream *s, const void *data, size_t bytes)
{
    if (s->reading)
        return mcf_fail(MCF_EINTERNAL, "mcf_stream_write on a stream opened for reading");
    if (s->size + bytes > s->capacity) {
        size_t cap = s->capacity ? s->capacity : 256;
        while (cap < s->size + bytes)
            cap *= 2;
        unsigned char *p = realloc(s->data, cap);
        if (!p)
            return mcf_fail(MCF_ENOMEM, "out of memory growing a checkpoint record to %zu bytes",
                            cap);
        s->data = p;
        s->capacity = cap;
    }
    if (bytes)
        memcpy(s->data + s->size, data, bytes);
    s->size += bytes;
    return MCF_OK;
}

int mcf_stream_read(mcf_stream *s, void *data, size_t bytes)
{
    if (!s->reading)
        return mcf_fail(MCF_EINTERNAL, "mcf_stream_read on a stream opened for writing");
    if (bytes > s->size - s->pos)
        return mcf_fail(MCF_EFORMAT,
                        "record ends early: %zu bytes requested at offset %zu, %zu remain",
                        bytes, s->pos, s->size - s->pos);
    memcpy(data, s->data + s->pos, bytes);
    s->pos += bytes;
    return MCF_OK;
}
