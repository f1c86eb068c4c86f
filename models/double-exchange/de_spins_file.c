/* de_spins_file.c — the initial spins of the double-exchange model from a file, [model]
 * spins = FILE (it replaces `start`): one line "x y z" per site in site order (x fastest,
 * then y, then z; '#' starts a comment, blank lines are skipped), each of length 1 within
 * 1e-6 (then renormalized), exactly N lines.  A relative FILE is relative to the working
 * directory, not to the configuration's folder: `mcf resume` reads the copy of the
 * configuration in the output folder, from which a config-relative path would point
 * elsewhere.  Every error names the file, the line and the configuration key. */
#include "de_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DE_FILE_TOL 1e-6    /* |S| - 1 allowed in a spins file */
#define DE_LINE_MAX 4096

int de_read_spins(const mcf_params *params, const char *path, size_t n, double *spin)
{
    const char *sec = mcf_params_section(params), *origin = mcf_params_origin(params);
    FILE *f = fopen(path, "r");
    if (!f)
        return mcf_fail(MCF_EINVAL,
                        "double-exchange: [%s] spins = %s in %s: cannot open the file: %s "
                        "(a relative path is relative to the working directory); fix the path "
                        "or set spins = none",
                        sec, path, origin, strerror(errno));
    char line[DE_LINE_MAX];
    size_t count = 0;
    long lineno = 0;
    int rc = MCF_OK;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n' && !feof(f)) {
            rc = mcf_fail(MCF_EINVAL,
                          "double-exchange: %s:%ld: line longer than %d characters ([%s] spins "
                          "in %s); write one spin \"x y z\" per line",
                          path, lineno, DE_LINE_MAX - 2, sec, origin);
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
