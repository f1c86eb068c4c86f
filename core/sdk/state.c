/* state.c — save/load of a chain's state from one description (mcf/state.h). */
#include "mcf/state.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mcf/error.h"

int mcf_state_save(mcf_stream *out, const char tag[4], const mcf_state_field *f, size_t n)
{
    int rc = tag ? mcf_stream_write(out, tag, 4) : MCF_OK; /* NULL: no tag */
    if (rc)
        return mcf_fail_prefix(rc, "saving the record tag %.4s", tag);
    for (size_t k = 0; k < n; k++)
        if (f[k].bytes && (rc = mcf_stream_write(out, f[k].data, f[k].bytes)))
            return mcf_fail_prefix(rc, "saving %s", f[k].name);
    return MCF_OK;
}

/* A FIXED field: the record's bytes must equal the chain's. */
static int load_fixed(mcf_stream *in, const char *model, const mcf_state_field *f)
{
    unsigned char small[64], *buf = f->bytes <= sizeof small ? small : malloc(f->bytes);
    if (!buf)
        return mcf_fail(MCF_ENOMEM, "%s: out of memory loading %s", model, f->name);
    int rc = mcf_stream_read(in, buf, f->bytes);
    if (rc)
        rc = mcf_fail_prefix(rc, "%s: loading %s", model, f->name);
    else if (memcmp(buf, f->data, f->bytes))
        rc = mcf_fail(MCF_EFORMAT, "%s: the checkpoint's %s differs from the configuration's; "
                      "resume with the configuration the run was started with", model,
                      f->name);
    if (buf != small)
        free(buf);
    return rc;
}

int mcf_state_load(mcf_stream *in, const char tag[4], const char *model,
                   const mcf_state_field *f, size_t n)
{
    char got[4];
    int rc = tag ? mcf_stream_read(in, got, sizeof got) : MCF_OK; /* NULL: no tag */
    if (rc)
        return mcf_fail_prefix(rc, "%s: loading the chain", model);
    if (tag && memcmp(got, tag, sizeof got))
        return mcf_fail(MCF_EFORMAT, "%s: the checkpoint record (tag \"%.4s\") is not one of "
                        "this model's (\"%.4s\"): was it written by another model or version? "
                        "Resume with the configuration the run was started with", model, got,
                        tag);
    for (size_t k = 0; k < n; k++) {
        if (!f[k].bytes)
            continue;
        if (f[k].kind == MCF_STATE_KIND_FIXED) {
            if ((rc = load_fixed(in, model, &f[k])))
                return rc;
            continue;
        }
        if ((rc = mcf_stream_read(in, f[k].data, f[k].bytes)))
            return mcf_fail_prefix(rc, "%s: loading %s", model, f[k].name);
        if (f[k].kind == MCF_STATE_KIND_REALS) {
            const double *x = f[k].data;
            for (size_t i = 0; i < f[k].bytes / sizeof *x; i++)
                if (!isfinite(x[i]))
                    return mcf_fail(MCF_EFORMAT, "%s: the checkpoint's %s[%zu] = %g is not "
                                    "finite: the checkpoint is corrupt", model, f[k].name, i,
                                    x[i]);
        } else if (f[k].kind == MCF_STATE_KIND_RNG) {
            const mcf_rng *r = f[k].data;
            for (size_t i = 0; i < f[k].bytes / sizeof *r; i++)
                if (r[i].used > 4)
                    return mcf_fail(MCF_EFORMAT, "%s: the checkpoint's %s is not a valid "
                                    "random stream: the checkpoint is corrupt", model,
                                    f[k].name);
        }
    }
    return MCF_OK;
}
