/* model_streams.c — a model's own random streams (mcf/model.h, mcf_stream_spec): the
 * numbers the core gives them, the model's calls for them, and the check of a declaration
 * made when the plugin is loaded. */
#include "mcf/model.h"

#include <stdio.h>
#include <string.h>

#include "mcf/error.h"

/* The streams of one run: the chains' [0, MAX_CHAINS) and the core's exchange stream
 * 2^64 - 1 (tempering.c); the j-th stream the core chooses for chain k is CHOSEN + j STRIDE
 * + k (fixed forever: results depend on it). */
#define CHAIN_STREAMS (UINT64_C(1) << 32)
#define CHOSEN (UINT64_C(1) << 61)
#define STRIDE (UINT64_C(1) << 33)
#define EXCHANGE_STREAM UINT64_MAX

static uint64_t first_of(const mcf_stream_spec *spec, size_t j)
{
    return spec[j].first ? spec[j].first : CHOSEN + (uint64_t)j * STRIDE;
}

/* The declared names, "a, b, c", for messages. */
static void names(const mcf_stream_spec *spec, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (size_t j = 0; spec && spec[j].name && at < len; j++)
        at += (size_t)snprintf(buf + at, len - at, "%s%s", j ? ", " : "", spec[j].name);
    if (!buf[0])
        snprintf(buf, len, "none");
}

static int find(const mcf_services *s, const char *name, int keyed, size_t *j)
{
    const mcf_stream_spec *spec =
        s && s->struct_size >= offsetof(mcf_services, streams) + sizeof s->streams
            ? s->streams
            : NULL;
    for (size_t k = 0; spec && name && spec[k].name; k++)
        if (!strcmp(spec[k].name, name)) {
            if (!(spec[k].flags & MCF_STREAM_KEYED) != !keyed)
                return mcf_fail(MCF_EINVAL, "stream '%s' is declared %s: take it with %s", name,
                                keyed ? "per chain" : "KEYED",
                                keyed ? "mcf_services_stream" : "mcf_services_keyed_stream");
            *j = k;
            return MCF_OK;
        }
    char list[512];
    names(spec, list, sizeof list);
    return mcf_fail(MCF_EINVAL, "no random stream '%s' is declared in the model's streams "
                    "(declared: %s)", name ? name : "(null)", list);
}

int mcf_services_stream(const mcf_services *s, const char *name, mcf_rng *out)
{
    size_t j;
    int rc = find(s, name, 0, &j);
    if (!rc)
        mcf_rng_init(out, s->seed, first_of(s->streams, j) + s->chain_index);
    return rc;
}

int mcf_services_keyed_stream(const mcf_services *s, const char *name, uint64_t key,
                              mcf_rng *out)
{
    size_t j;
    int rc = find(s, name, 1, &j);
    if (!rc)
        mcf_rng_init(out, key, first_of(s->streams, j));
    return rc;
}

/* [lo, hi) of declared stream j: CHAIN_STREAMS numbers, or one for a keyed stream. */
static void range_of(const mcf_stream_spec *spec, size_t j, uint64_t *lo, uint64_t *hi)
{
    *lo = first_of(spec, j);
    *hi = *lo + (spec[j].flags & MCF_STREAM_KEYED ? 1 : CHAIN_STREAMS);
}

static int snake_case(const char *s)
{
    if (!s || !(*s >= 'a' && *s <= 'z'))
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return 0;
    return 1;
}

int mcf_streams_check(const char *path, const mcf_stream_spec *spec)
{
    for (size_t j = 0; spec && spec[j].name; j++) {
        uint64_t lo, hi;
        range_of(spec, j, &lo, &hi);
        if (!snake_case(spec[j].name))
            return mcf_fail(MCF_EPLUGIN, "%s: random stream '%s': the name must be "
                            "lower_snake_case", path, spec[j].name);
        if (spec[j].flags & ~(unsigned)MCF_STREAM_KEYED)
            return mcf_fail(MCF_EPLUGIN, "%s: random stream '%s': unknown flags 0x%x", path,
                            spec[j].name, spec[j].flags);
        if (hi < lo || hi - 1 >= EXCHANGE_STREAM)
            return mcf_fail(MCF_EPLUGIN, "%s: random stream '%s' (first %llu) reaches the "
                            "core's exchange stream 2^64 - 1", path, spec[j].name,
                            (unsigned long long)lo);
        if (lo < CHAIN_STREAMS)
            return mcf_fail(MCF_EPLUGIN, "%s: random stream '%s' (first %llu) overlaps the "
                            "chains' streams [0, 2^32); leave first 0 for the core to choose",
                            path, spec[j].name, (unsigned long long)lo);
        for (size_t k = 0; k < j; k++) {
            uint64_t klo, khi;
            range_of(spec, k, &klo, &khi);
            if (!strcmp(spec[k].name, spec[j].name))
                return mcf_fail(MCF_EPLUGIN, "%s: random stream '%s' is declared twice", path,
                                spec[j].name);
            if (lo < khi && klo < hi)
                return mcf_fail(MCF_EPLUGIN, "%s: random streams '%s' [%llu, %llu) and '%s' "
                                "[%llu, %llu) overlap", path, spec[k].name,
                                (unsigned long long)klo, (unsigned long long)khi, spec[j].name,
                                (unsigned long long)lo, (unsigned long long)hi);
        }
    }
    return MCF_OK;
}
