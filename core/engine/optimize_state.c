/* optimize_state.c — optimize.state (optimize_state.h): the head of an optimization
 * (iteration, shift, the accepted energies, the average's sums), its parameters and every
 * chain's model state and random stream, written atomically before each iteration and read
 * back by `mcf resume DIR`; and what a resume does without it.  Moved out of optimize.c,
 * which runs the iterations. */
#define _POSIX_C_SOURCE 200809L
#include "optimize_state.h"
#include "checkpoint.h"
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int state_path(const mcf_run *r, char *buf, size_t size)
{
    return snprintf(buf, size, "%s/optimize.state", r->dir) >= (int)size
               ? mcf_fail(MCF_EINVAL, "optimize: output folder name too long")
               : MCF_OK;
}

int mcfi_opt_state_write(const mcf_run *r, const opt_head *h, const double *p)
{
    mcf_stream out;
    mcf_stream_init_writer(&out);
    int rc = mcf_stream_write(&out, h, sizeof *h);
    if (!rc)
        rc = mcf_stream_write(&out, p, 2 * h->P * sizeof *p); /* p, then the average's sum */
    for (size_t k = 0; k < r->n_chains && !rc; k++) {
        const mcf_chain *c = &r->chains[k];
        mcf_stream model;
        mcf_stream_init_writer(&model);
        rc = MCFI_MODEL(r->model, save, c->state, &model);
        const uint64_t size = model.size;
        if (!rc)
            rc = mcf_stream_write(&out, &c->rng, sizeof c->rng);
        if (!rc)
            rc = mcf_stream_write(&out, &size, sizeof size);
        if (!rc)
            rc = mcf_stream_write(&out, model.data, model.size);
        mcf_stream_release(&model);
    }
    const uint64_t sum = mcfi_fnv1a64(out.data, out.size, MCF_FNV_OFFSET);
    if (!rc)
        rc = mcf_stream_write(&out, &sum, sizeof sum);
    char path[4200];
    if (!rc)
        rc = state_path(r, path, sizeof path);
    if (!rc)
        rc = mcfe_write_atomic(path, out.data, out.size);
    mcf_stream_release(&out);
    return rc;
}

/* 1 when there is no state file; MCF_OK when loaded into h, p and the chains. */
int mcfi_opt_state_read(mcf_run *r, opt_head *h, double *p, size_t P)
{
    char path[4200];
    int rc = state_path(r, path, sizeof path);
    if (rc)
        return rc;
    /* through the bounded opener: a FIFO would block the read, /dev/zero never end it */
    unsigned char *data = NULL;
    size_t size = 0;
    struct stat st;
    switch (mcfi_read_file(path, O_RDONLY | O_NOFOLLOW, mcfi_memory_bytes(), &data, &size,
                           &st)) {
    case MCFI_FILE_OK:
        break;
    case MCFI_FILE_CANNOT_OPEN:
        if (errno == ENOENT)
            return 1;
        return mcf_fail(MCF_EIO, errno == ELOOP ? "optimize: %s is a symbolic link; remove it "
                        "to start the optimization again (mcf reads its state only from the "
                        "file it wrote)" : "optimize: cannot read %s: %s", path,
                        strerror(errno));
    case MCFI_FILE_NOT_REGULAR:
        return mcf_fail(MCF_EFORMAT, "optimize: %s is not a regular file but %s; remove it to "
                        "start the optimization again", path, mcfi_file_kind(st.st_mode));
    default:
        return mcf_fail(MCF_EFORMAT, "optimize: %s has %llu bytes, more than this machine's "
                        "memory; remove it to start the optimization again", path,
                        (unsigned long long)st.st_size);
    }
    uint64_t sum;
    if (size < sizeof *h + sizeof sum ||
        (memcpy(&sum, data + size - sizeof sum, sizeof sum),
         sum != mcfi_fnv1a64(data, size - sizeof sum, MCF_FNV_OFFSET))) {
        free(data);
        return mcf_fail(MCF_EFORMAT, "optimize: %s is truncated or damaged (checksum); the "
                        "optimization cannot continue from it: start it again with `mcf "
                        "optimize %s/config.ini --force --set run.output=%s` (the same seed "
                        "gives the same iterations)", path, r->dir, r->dir);
    }
    mcf_stream in;
    mcf_stream_init_reader(&in, data, size - sizeof sum);
    rc = mcf_stream_read(&in, h, sizeof *h);
    if (!rc && (memcmp(h->magic, OPT_MAGIC, 8) != 0 || h->P != P ||
                h->chains != r->n_chains ||
                (h->config_hash != r->config_hash &&
                 (!r->config_hash_before || h->config_hash != r->config_hash_before))))
        rc = mcf_fail(MCF_EFORMAT, "optimize: %s belongs to another configuration (%llu "
                      "parameters, %llu walkers; config.ini changed?)", path,
                      (unsigned long long)h->P, (unsigned long long)h->chains);
    if (!rc)
        rc = mcf_stream_read(&in, p, 2 * P * sizeof *p);
    for (size_t k = 0; k < r->n_chains && !rc; k++) {
        mcf_chain *c = &r->chains[k];
        uint64_t msize;
        mcf_rng rng;
        rc = mcf_stream_read(&in, &rng, sizeof rng);
        if (!rc)
            rc = mcfi_checkpoint_rng_check(&rng, &c->rng);
        if (!rc)
            rc = mcf_stream_read(&in, &msize, sizeof msize);
        if (!rc && msize > in.size - in.pos)
            rc = mcf_fail(MCF_EFORMAT, "optimize: %s: chain %zu's state is cut off", path, k);
        if (!rc) {
            mcf_stream model;
            mcf_stream_init_reader(&model, in.data + in.pos, (size_t)msize);
            rc = MCFI_MODEL(r->model, load, c->state, &model);
            in.pos += (size_t)msize;
            c->rng = rng;
        }
        if (!rc)
            rc = MCFI_MODEL(r->model, variational_set, c->state, p);
    }
    free(data);
    if (rc)
        return mcf_fail_prefix(rc, "optimize: resuming from %s", path);
    return MCF_OK;
}

/* `mcf resume` of an optimization without optimize.state: 1 when it had not written its
 * first one (killed while thermalizing: optimize.tsv absent or its header alone), so that
 * it starts from its configuration, as an uninterrupted one did (the same seed, the same
 * iterations: as a run without a checkpoint starts from its first sweep); an error when
 * iterations were recorded, whose state is lost (deleted, or never restored): continuing
 * from the configuration would silently start again under the old rows. */
int mcfi_opt_missing_state(const mcf_run *r)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/optimize.tsv", r->dir);
    /* through the bounded opener, as every file mcf reads: a FIFO in its place would block
       `mcf resume` */
    unsigned char *text = NULL;
    size_t n = 0;
    struct stat st;
    const int problem = mcfi_read_file(path, O_RDONLY | O_NOFOLLOW, (uint64_t)1 << 26, &text,
                                       &n, &st);
    if (problem && !(problem == MCFI_FILE_CANNOT_OPEN && errno == ENOENT)) {
        char why[160];
        if (problem == MCFI_FILE_CANNOT_OPEN)
            snprintf(why, sizeof why, "%s", strerror(errno));
        else if (problem == MCFI_FILE_NOT_REGULAR)
            snprintf(why, sizeof why, "not a regular file but %s", mcfi_file_kind(st.st_mode));
        else
            snprintf(why, sizeof why, "%lld bytes, more than an optimization writes",
                     (long long)st.st_size);
        return mcf_fail(MCF_EIO, "optimize: %s/optimize.state is missing and %s cannot be read "
                        "(%s) to tell whether iterations were recorded; start the optimization "
                        "again with `mcf optimize %s/config.ini --force --set run.output=%s`",
                        r->dir, path, why, r->dir, r->dir);
    }
    int rows = 0, last = '\n';
    for (size_t k = 0; k < n; k++) {
        rows += text[k] == '\n';
        last = text[k];
    }
    rows += last != '\n';
    free(text);
    if (rows <= 1) {
        mcf_log(MCF_LOG_INFO, "optimize: no optimize.state in %s: the optimization was stopped "
                "before its first state; starting it from the configuration", r->dir);
        return 1;
    }
    return mcf_fail(MCF_EFORMAT, "optimize: %s/optimize.state is missing, but %s records %d "
                    "iterations: the optimization cannot continue without its state; start it "
                    "again with `mcf optimize %s/config.ini --force --set run.output=%s` (the "
                    "same seed gives the same iterations)", r->dir, path, rows - 1, r->dir,
                    r->dir);
}

