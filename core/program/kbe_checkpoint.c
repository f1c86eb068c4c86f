/* kbe_checkpoint.c — the header of a kbe run's checkpoint (kbe_checkpoint.h): a 16-byte tag
 * (its last byte the step's order p as the digit p for p > 2, 0 for order 2 as before the
 * key), the size of the state, the state (host byte order, this build's layout), its FNV-1a
 * sum. */
#define _POSIX_C_SOURCE 200809L
#include "kbe_checkpoint.h"

#include "mcf_engine.h"
#include "mcf/error.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

const char mcfi_kbe_rows_head[KBE_ROWS_HEAD] = "MCF-KBE-ROWS-1\n";
static const char tag[16] = "MCF-KBE-CKPT-1\n";

static uint64_t fnv1a(const void *data, size_t n)
{
    const unsigned char *p = data;
    uint64_t h = 1469598103934665603ull;
    for (size_t k = 0; k < n; k++)
        h = (h ^ p[k]) * 1099511628211ull;
    return h;
}

typedef struct ck_file {
    char tag[16];
    uint64_t size;
    kbe_loop_state state;
    uint64_t sum;
} ck_file;

int mcfi_kbe_checkpoint_write(const char *dir, const kbe_loop_state *s, unsigned order)
{
    ck_file f;
    memset(&f, 0, sizeof f); /* padding too: the sum covers defined bytes */
    memcpy(f.tag, tag, sizeof tag);
    if (order > 2 && order < 10)
        f.tag[15] = (char)('0' + order);
    f.size = sizeof f.state;
    memcpy(&f.state, s, sizeof f.state);
    f.sum = fnv1a(&f.state, sizeof f.state);
    char path[4200];
    snprintf(path, sizeof path, "%s/checkpoint", dir);
    return mcfe_write_atomic(path, &f, sizeof f);
}

int mcfi_kbe_checkpoint_read(const char *dir, kbe_loop_state *s, unsigned *order)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/checkpoint", dir);
    FILE *in = fopen(path, "rb");
    if (!in)
        return mcf_fail(MCF_EINVAL, "%s: %s: the run kept no checkpoint ([output] checkpoint = "
                        "no, or it stopped before its first step); run it again with `mcf kbe "
                        "%s/config.ini --force`", path, strerror(errno), dir);
    ck_file f;
    const size_t got = fread(&f, 1, sizeof f, in);
    const int more = fgetc(in) != EOF;
    fclose(in);
    const int ord = f.tag[15] == 0 ? 2 : f.tag[15] - '0';
    if (got != sizeof f || more || memcmp(f.tag, tag, sizeof tag - 1) != 0 ||
        ord < 2 || ord > 9 || f.size != sizeof f.state)
        return mcf_fail(MCF_EFORMAT, "%s: not the checkpoint of a kbe run of this build (%zu "
                        "bytes%s)", path, got + (size_t)more,
                        got >= sizeof tag && !memcmp(f.tag, tag, sizeof tag - 1) ?
                        ", another layout" : ", another tag");
    if (fnv1a(&f.state, sizeof f.state) != f.sum)
        return mcf_fail(MCF_EFORMAT, "%s: damaged (its checksum does not match)", path);
    *s = f.state;
    *order = (unsigned)ord;
    return MCF_OK;
}
