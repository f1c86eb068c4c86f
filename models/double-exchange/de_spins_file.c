/* de_spins_file.c — the initial spins of the double-exchange model from a file, [model]
 * spins = FILE (it replaces `start`): one line "x y z" per site in site order (x fastest,
 * then y, then z; '#' starts a comment, blank lines are skipped), each of length 1 within
 * 1e-6 (then renormalized), exactly N lines.  A relative FILE is relative to the working
 * directory, not to the configuration's folder: `mcf resume` reads the copy of the
 * configuration in the output folder, from which a config-relative path would point
 * elsewhere.  Only a regular file of at most n lines of DE_LINE_MAX bytes and 1 MiB more
 * (comments) is read: a device such as /dev/zero or a pipe would be endless.  Every error
 * names the file, the line and the configuration key. */
#define _POSIX_C_SOURCE 200809L
#include "de_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define DE_FILE_TOL 1e-6    /* |S| - 1 allowed in a spins file */
#define DE_LINE_MAX 4096

/* st is a regular file of a size the format can hold (see above).  Checked on the path
 * before opening (opening a named pipe would wait for a writer) and again on the file
 * opened. */
static int check_spins_file(const struct stat *st, const mcf_params *params, const char *path,
                            size_t n)
{
    const char *sec = mcf_params_section(params), *origin = mcf_params_origin(params);
    if (!S_ISREG(st->st_mode))
        return mcf_fail(MCF_EINVAL, "double-exchange: [%s] spins = %s in %s: not a regular "
                        "file (%s); give a text file of one spin \"x y z\" per line",
                        sec, path, origin, S_ISDIR(st->st_mode) ? "a directory"
                                                            : "a device, pipe or socket");
    const double most = (double)n * DE_LINE_MAX + (1 << 20);
    if ((double)st->st_size > most)
        return mcf_fail(MCF_EINVAL, "double-exchange: [%s] spins = %s in %s: the file has %lld "
                        "bytes, more than the %.0f that %zu spin lines (and comments) can take",
                        sec, path, origin, (long long)st->st_size, most, n);
    return MCF_OK;
}

int de_read_spins(const mcf_params *params, const char *path, size_t n, double *spin)
{
    const char *sec = mcf_params_section(params), *origin = mcf_params_origin(params);
    struct stat st;
    int rc = stat(path, &st) == 0 ? check_spins_file(&st, params, path, n) : MCF_OK;
    if (rc)
        return rc;
    FILE *f = fopen(path, "r");
    if (!f)
        return mcf_fail(MCF_EINVAL,
                        "double-exchange: [%s] spins = %s in %s: cannot open the file: %s "
                        "(a relative path is relative to the working directory); fix the path "
                        "or set spins = none",
                        sec, path, origin, strerror(errno));
    if (fstat(fileno(f), &st) == 0)
        rc = check_spins_file(&st, params, path, n);
    char *line = NULL;
    size_t cap = 0, count = 0;
    long lineno = 0;
    ssize_t got;
    while (!rc && (got = getline(&line, &cap, f)) > 0) {
        lineno++;
        size_t len = (size_t)got;
        if (len - (line[len - 1] == '\n') > DE_LINE_MAX - 2) {
            rc = mcf_fail(MCF_EINVAL,
                          "double-exchange: %s:%ld: line longer than %d characters ([%s] spins "
                          "in %s); write one spin \"x y z\" per line",
                          path, lineno, DE_LINE_MAX - 2, sec, origin);
            break;
        }
        if (strlen(line) != len) {
            /* a NUL byte would hide the rest of the line */
            rc = mcf_fail(MCF_EINVAL,
                          "double-exchange: %s:%ld: the line holds a NUL byte ([%s] spins in "
                          "%s); a spins file is text, one spin \"x y z\" per line",
                          path, lineno, sec, origin);
            break;
        }
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        const char *p = line;
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
            p++;
        if (!*p)
            continue;
        if (count == n) {
            rc = mcf_fail(MCF_EINVAL,
                          "double-exchange: %s:%ld: more spins than the %zu sites of the "
                          "lattice ([%s] spins in %s); give exactly one line per site",
                          path, lineno, n, sec, origin);
            break;
        }
        double v[3];
        char *end = NULL;
        int ok = 1;
        for (int a = 0; a < 3 && ok; a++) {
            errno = 0;
            v[a] = strtod(p, &end);
            if (end == p || errno == ERANGE || !isfinite(v[a]))
                ok = 0;
            p = end;
        }
        while (ok && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
            p++;
        if (!ok || *p) {
            rc = mcf_fail(MCF_EINVAL,
                          "double-exchange: %s:%ld: not a spin; write three finite numbers "
                          "\"x y z\" per line ([%s] spins in %s)",
                          path, lineno, sec, origin);
            break;
        }
        const double length = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        if (!(fabs(length - 1.0) <= DE_FILE_TOL)) {
            rc = mcf_fail(MCF_EINVAL,
                          "double-exchange: %s:%ld: the spin (%g, %g, %g) of site %zu has "
                          "length %.9g, not 1 (tolerance %g); write unit vectors ([%s] spins "
                          "in %s)",
                          path, lineno, v[0], v[1], v[2], count, length, DE_FILE_TOL, sec,
                          origin);
            break;
        }
        for (int a = 0; a < 3; a++)
            spin[3 * count + a] = v[a] / length;
        count++;
    }
    free(line);
    if (!rc && ferror(f))
        rc = mcf_fail(MCF_EINVAL, "double-exchange: [%s] spins = %s in %s: read error", sec,
                      path, origin);
    fclose(f);
    if (!rc && count != n)
        rc = mcf_fail(MCF_EINVAL,
                      "double-exchange: [%s] spins = %s in %s: the file has %zu spin lines but "
                      "the lattice has %zu sites; give exactly one line \"x y z\" per site",
                      sec, path, origin, count, n);
    return rc;
}
