/* series.c — the per-measurement series of [run] series = yes (series.h): one file of
 * float64 records per chain, DIR/.series-partial/chain-NNNNNN.f64 while the run goes and
 * DIR/series/ once it has finished, with DIR/series/index.tsv naming the record's columns
 * and each chain's scan point (docs/results-h5.md, "The measurement series"). */
#define _POSIX_C_SOURCE 200809L
#include "series.h"

#include "mcf_mpi.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* records kept in memory per chain before they are appended: 1 MiB of doubles */
#define SERIES_BUFFER_DOUBLES (1u << 17)

static const char partial_name[] = ".series-partial", final_name[] = "series";

static void chain_path(const mcf_run *r, const char *folder, size_t chain, char *buf,
                       size_t cap)
{
    snprintf(buf, cap, "%s/%s/chain-%06zu.f64", r->dir, folder, chain);
}

/* Appends chain c's buffered records to its file (0, or an errno value). */
static int append(const mcf_run *r, mcf_chain *c)
{
    if (!c->series_rows)
        return 0;
    char path[4096];
    chain_path(r, partial_name, c->index, path, sizeof path);
    FILE *f = fopen(path, "ab");
    if (!f)
        return errno ? errno : EIO;
    const size_t n = c->series_rows * r->n_obs;
    int e = fwrite(c->series, sizeof *c->series, n, f) == n ? 0 : (errno ? errno : EIO);
    if (fflush(f) != 0 && !e)
        e = errno ? errno : EIO;
    if (fsync(fileno(f)) != 0 && !e)
        e = errno ? errno : EIO;
    if (fclose(f) != 0 && !e)
        e = errno ? errno : EIO;
    c->series_rows = 0;
    return e;
}

void mcfi_series_add(const mcf_run *r, mcf_chain *c, const double *values)
{
    if (!r->series || c->series_error)
        return;
    if (!c->series) {
        c->series = malloc(SERIES_BUFFER_DOUBLES * sizeof *c->series);
        c->series_cap = SERIES_BUFFER_DOUBLES / (r->n_obs ? r->n_obs : 1);
        if (!c->series || !c->series_cap) {
            c->series_error = ENOMEM;
            return;
        }
    }
    double *row = c->series + c->series_rows * r->n_obs;
    for (size_t k = 0; k < r->n_obs; k++)
        row[k] = values[c->offset[r->scalar[k]]];
    if (++c->series_rows == c->series_cap)
        c->series_error = append(r, c);
}

int mcfi_series_flush(mcf_run *r)
{
    int rc = MCF_OK;
    for (size_t i = 0; r->series && i < r->n_own && !rc; i++) {
        mcf_chain *c = &r->chains[r->own[i]];
        int e = c->series_error ? c->series_error : append(r, c);
        if (e) {
            char path[4096];
            chain_path(r, partial_name, c->index, path, sizeof path);
            rc = mcf_fail(MCF_EIO, "%s: the measurement series could not be written (%s); "
                          "free some space and `mcf resume %s`, or set [run] series = no",
                          path, strerror(e), r->dir);
        }
    }
    return rc;
}

/* index.tsv: what a reader needs to cut the files into records and to know each chain's
 * scan point; the same bytes whenever written for one configuration */
static int write_index(const mcf_run *r, const char *folder)
{
    const mcf_setup *s = r->setup;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/index.tsv", r->dir, folder);
    FILE *f = fopen(path, "w");
    if (!f)
        return mcf_fail(MCF_EIO, "%s: cannot write (%s)", path, strerror(errno));
    fprintf(f, "# mcf measurement series: file chain-NNNNNN.f64 per chain, one record per "
            "measurement in order, each record %zu float64 in host byte order "
            "(little-endian on x86-64 and arm64): the columns below\n", r->n_obs);
    fprintf(f, "# record:");
    for (size_t k = 0; k < r->n_obs; k++)
        fprintf(f, " %s", r->model->observables[r->scalar[k]].name);
    /* the roles (mcf/model.h) of the columns, so that a reader needs no model: - for none */
    static const char *const roles[MCF_ROLE_COUNT] = {
        "-", "energy", "order", "order2", "order4", "energy_dT", "action_dT", "order_kmin"};
    fprintf(f, "\n# roles:");
    for (size_t k = 0; k < r->n_obs; k++) {
        const int role = (int)r->model->observables[r->scalar[k]].role;
        fprintf(f, " %s", role > 0 && role < MCF_ROLE_COUNT ? roles[role] : "-");
    }
    fprintf(f, "\n# measure_every = %ld sweeps; thermalize = %ld sweeps (not in the series)\n",
            s->measure_every, s->thermalize);
    fprintf(f, "chain\tfile");
    for (size_t a = 0; a < s->n_axes; a++)
        fprintf(f, "\t%s", s->axes[a].name);
    fprintf(f, "\twalker\tunits\n");
    const size_t R = (size_t)s->walkers;
    for (size_t k = 0; k < r->n_chains; k++) {
        fprintf(f, "%zu\tchain-%06zu.f64", k, k);
        for (size_t a = 0; a < s->n_axes; a++)
            fprintf(f, "\t%s", mcfi_setup_axis_value(s, a, k / R)->text);
        fprintf(f, "\t%zu\t%zu\n", k % R, r->chains[k].units);
    }
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return mcf_fail(MCF_EIO, "%s: cannot write (is the disk full?)", path);
    return MCF_OK;
}

/* rank 0: the folder (a finished run's series/ back to .series-partial) and index.tsv */
static int start_folder(const mcf_run *r)
{
    char partial[4096], final[4096];
    snprintf(partial, sizeof partial, "%s/%s", r->dir, partial_name);
    snprintf(final, sizeof final, "%s/%s", r->dir, final_name);
    struct stat st;
    /* a finished run resumed: its series continue where they are */
    if (stat(partial, &st) != 0 && stat(final, &st) == 0 && rename(final, partial) != 0)
        return mcf_fail(MCF_EIO, "%s: cannot rename to %s (%s)", final, partial,
                        strerror(errno));
    if (mkdir(partial, 0777) != 0 && errno != EEXIST)
        return mcf_fail(MCF_EIO, "%s: cannot make the folder (%s)", partial, strerror(errno));
    return write_index(r, partial_name);
}

/* every rank: its own chains' files cut to the checkpoint's measurements (or made) */
static int start_files(const mcf_run *r)
{
    for (size_t i = 0; i < r->n_own; i++) {
        const mcf_chain *c = &r->chains[r->own[i]];
        char path[4096];
        chain_path(r, partial_name, c->index, path, sizeof path);
        const off_t want = (off_t)(c->measurements * r->n_obs * sizeof(double));
        struct stat st;
        int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW, 0666);
        if (fd < 0)
            return mcf_fail(MCF_EIO, "%s: cannot open (%s)", path, strerror(errno));
        if (fstat(fd, &st) != 0 || st.st_size < want) {
            close(fd);
            return mcf_fail(MCF_EFORMAT, "%s: %lld bytes, fewer than the %llu measurements of "
                            "the checkpoint need (%lld): the series cannot continue bit for "
                            "bit; restore the file, or start again with --force",
                            path, (long long)st.st_size,
                            (unsigned long long)c->measurements, (long long)want);
        }
        int cut = ftruncate(fd, want) == 0 && fsync(fd) == 0;
        int e = errno;
        close(fd);
        if (!cut)
            return mcf_fail(MCF_EIO, "%s: cannot cut to %lld bytes (%s)", path,
                            (long long)want, strerror(e));
    }
    return MCF_OK;
}

/* Under MPI each rank writes its own chains' files (a chain's file has one writer, so the
 * bytes do not depend on the ranks); rank 0 makes the folder first. */
int mcfi_series_start(mcf_run *r)
{
    r->series = 0;
    if (!r->setup->series)
        return MCF_OK;
    int rc = mcfe_mpi_agree(r->rank == 0 ? start_folder(r) : MCF_OK);
    if (!rc)
        rc = mcfe_mpi_agree(start_files(r));
    r->series = !rc;
    return rc;
}

int mcfi_series_finish(mcf_run *r)
{
    if (!r->series)
        return MCF_OK;
    int rc = mcfi_series_flush(r);
    char partial[4096], final[4096];
    snprintf(partial, sizeof partial, "%s/%s", r->dir, partial_name);
    snprintf(final, sizeof final, "%s/%s", r->dir, final_name);
    if (!rc && rename(partial, final) != 0)
        rc = mcf_fail(MCF_EIO, "%s: cannot rename to %s (%s)", partial, final, strerror(errno));
    return rc;
}
