/* sj_bspline.c — the B-spline pair function of the slater-jastrow model (jastrow = bspline):
 * u(r) as a cubic B-spline with the cusp built in, its derivatives in r and in its
 * parameters, the [model] keys that give the parameters, and the plain-text parameter file
 * (jastrow_file) that `mcf optimize` writes and a run reads.
 *
 * ---- The convention (QMCPACK's BsplineFunctor, so that parameters carry over) ------------
 * The Jastrow factor is exp(-sum_{i<j} w(r_ij)) with w a cubic B-spline of P >= 2 parameters
 * p_0 .. p_{P-1} per spin pair (like and unlike spins), cutoff r_c (bohr):
 *     knots spaced dr = r_c / (P + 1); P + 4 coefficients c_0 .. c_{P+3}:
 *     c_1 = p_0,  c_2 = p_1,  c_0 = p_1 - 2 dr gamma,  c_{k+1} = p_k for k >= 2,  the rest 0,
 *     w(r) = sum_{a=0..3} c_{i+a} B_a(t),   r / dr = i + t  (i integer, 0 <= t < 1),
 * with the uniform cubic B-spline basis
 *     B_0 = (1-t)^3/6,  B_1 = (3t^3 - 6t^2 + 4)/6,  B_2 = (-3t^3 + 3t^2 + 3t + 1)/6,  B_3 = t^3/6.
 * Then w'(0) = (c_2 - c_0) / (2 dr) = gamma, the cusp: gamma = -1/4 for like and -1/2 for
 * unlike spins (Kato: d ln Psi / dr = 1/4 and 1/2 at coalescence, Psi = ... exp(-w)); and
 * at r_c (t = 0, i = P + 1) w, w' and w'' all vanish because c_{P+1..P+3} = 0, so the local
 * energy has no delta function at the cutoff.  r_c <= L/2 (the nearest image only).
 * In the model's sign J = sum u, u = -w (sj_jastrow.c).
 *
 * The parameters enter w linearly: dw/dp_m = sum_a (dc_{i+a}/dp_m) B_a(t), with
 * dc_c/dp_m = 1 for (c, m) = (0, 1), (1, 0), (2, 1), (k + 1, k) for k >= 2, and 0 otherwise;
 * the same for w' and w'' with the derivative basis.
 *
 * ---- The parameter file ---------------------------------------------------------------
 * Plain text, one item per line, '#' starts a comment:
 *     form bspline
 *     cutoff 9.7                  (bohr; optional: 0 or absent takes L/2)
 *     uu 1.08 0.665 0.436 ...     (like spins, w's parameters)
 *     ud 1.70 1.05 0.628 ...      (unlike spins)
 * `mcf optimize` writes it with 17 significant digits: the core, from bspline_file_head's
 * first lines and the parameters the model describes (sj_variational.c), " %.17g" each. */
#define _POSIX_C_SOURCE 200809L
#include "slater_jastrow_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SJ_LINE_MAX 4096

/* c_c in terms of the parameters: the parameter index feeding coefficient c, or -1. */
static int coef_param(const sj_jastrow *p, long c)
{
    if (c == 0 || c == 2)
        return 1;
    if (c == 1)
        return 0;
    if (c >= 3 && c <= (long)p->np)
        return (int)(c - 1);
    return -1;
}

int bspline_init(sj_jastrow *p, const double *par, size_t np, double rc, double gamma)
{
    if (np < 2 || np > SJ_BSPLINE_MAX)
        return mcf_fail(MCF_EINVAL, "B-spline Jastrow: %zu parameters per spin pair; it takes "
                        "2 to %d", np, SJ_BSPLINE_MAX);
    memset(p, 0, sizeof *p);
    p->form = SJ_JASTROW_BSPLINE;
    p->np = np;
    p->rc = rc;
    p->gamma = gamma;
    p->dr = rc / (double)(np + 1);
    p->inv_dr = 1.0 / p->dr;
    for (size_t k = 0; k < np; k++)
        if (!isfinite(par[k]))
            return mcf_fail(MCF_EINVAL, "B-spline Jastrow: parameter %zu is not finite", k);
    bspline_set(p, par);
    return MCF_OK;
}

void bspline_set(sj_jastrow *p, const double *par)
{
    for (size_t k = 0; k < p->np; k++)
        p->p[k] = par[k];
    for (size_t c = 0; c < p->np + 4; c++)
        p->coef[c] = 0.0;
    p->coef[1] = p->p[0];
    p->coef[2] = p->p[1];
    p->coef[0] = p->p[1] - 2.0 * p->dr * p->gamma;
    for (size_t k = 2; k < p->np; k++)
        p->coef[k + 1] = p->p[k];
}

/* The basis at t: value, first and second derivative in t. */
static void basis(double t, double B[4], double dB[4], double d2B[4])
{
    const double s = 1.0 - t, t2 = t * t, t3 = t2 * t;
    B[0] = s * s * s / 6.0;
    B[1] = (3.0 * t3 - 6.0 * t2 + 4.0) / 6.0;
    B[2] = (-3.0 * t3 + 3.0 * t2 + 3.0 * t + 1.0) / 6.0;
    B[3] = t3 / 6.0;
    if (dB) {
        dB[0] = -0.5 * s * s;
        dB[1] = 1.5 * t2 - 2.0 * t;
        dB[2] = -1.5 * t2 + t + 0.5;
        dB[3] = 0.5 * t2;
    }
    if (d2B) {
        d2B[0] = s;
        d2B[1] = 3.0 * t - 2.0;
        d2B[2] = -3.0 * t + 1.0;
        d2B[3] = t;
    }
}

/* r / dr = i + t for 0 <= r < r_c. */
static void locate(const sj_jastrow *p, double r, long *i, double *t)
{
    const double x = r * p->inv_dr;
    double fl = floor(x);
    if (fl > (double)p->np) /* rounding at r just below r_c */
        fl = (double)p->np;
    *i = (long)fl;
    *t = x - fl;
}

double bspline_w(const sj_jastrow *p, double r)
{
    if (r >= p->rc)
        return 0.0;
    long i;
    double t, B[4];
    locate(p, r, &i, &t);
    basis(t, B, NULL, NULL);
    const double *c = p->coef + i;
    return c[0] * B[0] + c[1] * B[1] + c[2] * B[2] + c[3] * B[3];
}

void bspline_w3(const sj_jastrow *p, double r, double *w, double *dw, double *d2w)
{
    if (r >= p->rc) {
        *w = *dw = *d2w = 0.0;
        return;
    }
    long i;
    double t, B[4], dB[4], d2B[4];
    locate(p, r, &i, &t);
    basis(t, B, dB, d2B);
    const double *c = p->coef + i;
    *w = c[0] * B[0] + c[1] * B[1] + c[2] * B[2] + c[3] * B[3];
    *dw = p->inv_dr * (c[0] * dB[0] + c[1] * dB[1] + c[2] * dB[2] + c[3] * dB[3]);
    *d2w = p->inv_dr * p->inv_dr * (c[0] * d2B[0] + c[1] * d2B[1] + c[2] * d2B[2] + c[3] * d2B[3]);
}

int bspline_param_terms(const sj_jastrow *p, double r, int idx[4], double w[4], double dw[4],
                        double d2w[4])
{
    if (r >= p->rc)
        return 0;
    long i;
    double t, B[4], dB[4], d2B[4];
    locate(p, r, &i, &t);
    basis(t, B, dB, d2B);
    int n = 0;
    for (int a = 0; a < 4; a++) {
        const int m = coef_param(p, i + a);
        if (m < 0)
            continue;
        idx[n] = m;
        w[n] = B[a];
        dw[n] = p->inv_dr * dB[a];
        d2w[n] = p->inv_dr * p->inv_dr * d2B[a];
        n++;
    }
    return n;
}

/* ---- parameters from the [model] keys and from a file ------------------------------------ */

/* Parses the numbers of `text` (separated by blanks or commas) into out[max]; *n their
 * count.  MCF_EINVAL naming `what` for a word that is no number or too many numbers. */
static int parse_list(const char *text, const char *what, double *out, size_t max, size_t *n)
{
    *n = 0;
    const char *s = text;
    for (;;) {
        while (*s == ' ' || *s == '\t' || *s == ',' || *s == '\r' || *s == '\n')
            s++;
        if (!*s)
            return MCF_OK;
        char *end;
        errno = 0;
        const double v = strtod(s, &end);
        if (end == s || errno == ERANGE || !isfinite(v) ||
            (*end && *end != ' ' && *end != '\t' && *end != ',' && *end != '\r' && *end != '\n')) {
            int len = 0;
            while (s[len] && s[len] != ' ' && s[len] != '\t' && s[len] != ',' && len < 40)
                len++;
            return mcf_fail(MCF_EINVAL, "%s: \"%.*s\" is not a finite number", what, len, s);
        }
        if (*n == max)
            return mcf_fail(MCF_EINVAL, "%s: more than %zu parameters", what, max);
        out[(*n)++] = v;
        s = end;
    }
}

/* The largest parameter file read: far more than any number of parameters a run takes. */
#define SJ_FILE_MAX (1 << 20)

/* path opened for reading as a regular file of at most SJ_FILE_MAX bytes, checked on the
 * descriptor opened (a FIFO is opened non-blocking, so it cannot hang the open, and refused;
 * a device such as /dev/zero is refused rather than read without end) */
static int open_parameter_file(const char *path, FILE **out)
{
    *out = NULL;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return mcf_fail(MCF_EINVAL, "cannot open the Jastrow parameter file %s: %s (a relative "
                        "path is relative to the working directory)", path, strerror(errno));
    struct stat st;
    const char *kind = NULL;
    if (fstat(fd, &st) != 0)
        kind = "a file that cannot be examined";
    else if (S_ISDIR(st.st_mode))
        kind = "a folder";
    else if (S_ISFIFO(st.st_mode))
        kind = "a FIFO";
    else if (!S_ISREG(st.st_mode))
        kind = "a device or socket";
    int flags = kind ? -1 : fcntl(fd, F_GETFL);
    FILE *f = NULL;
    if (!kind && st.st_size <= SJ_FILE_MAX && flags != -1 &&
        fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != -1)
        f = fdopen(fd, "r");
    if (!f) {
        close(fd);
        if (kind)
            return mcf_fail(MCF_EINVAL, "the Jastrow parameter file %s is not a regular file "
                            "but %s; give the text file that `mcf optimize` writes "
                            "(parameters.txt)", path, kind);
        if (st.st_size > SJ_FILE_MAX)
            return mcf_fail(MCF_EINVAL, "the Jastrow parameter file %s has %lld bytes, more "
                            "than the %d a parameter file can need", path,
                            (long long)st.st_size, SJ_FILE_MAX);
        return mcf_fail(MCF_EINVAL, "cannot read the Jastrow parameter file %s: %s", path,
                        strerror(errno));
    }
    *out = f;
    return MCF_OK;
}

int bspline_read_file(const char *path, sj_bspline_input *in)
{
    FILE *f;
    int open_rc = open_parameter_file(path, &f);
    if (open_rc)
        return open_rc;
    char line[SJ_LINE_MAX];
    int lineno = 0, rc = MCF_OK, has_form = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (!strchr(line, '\n') && !feof(f)) {
            rc = mcf_fail(MCF_EINVAL, "%s:%d: line longer than %d characters", path, lineno,
                          SJ_LINE_MAX - 2);
            break;
        }
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char word[32];
        int used = 0;
        if (sscanf(line, " %31s %n", word, &used) != 1)
            continue; /* blank */
        const char *rest = line + used;
        char what[256];
        snprintf(what, sizeof what, "%s:%d: %s", path, lineno, word);
        if (!strcmp(word, "form")) {
            char form[32];
            if (sscanf(rest, "%31s", form) != 1 || strcmp(form, "bspline") != 0) {
                rc = mcf_fail(MCF_EINVAL, "%s:%d: form must be bspline (the only form a "
                              "parameter file holds)", path, lineno);
                break;
            }
            has_form = 1;
        } else if (!strcmp(word, "cutoff")) {
            size_t n;
            double v[2];
            if ((rc = parse_list(rest, what, v, 2, &n)))
                break;
            if (n != 1 || v[0] < 0.0) {
                rc = mcf_fail(MCF_EINVAL, "%s:%d: cutoff takes one length >= 0 (bohr; 0 = L/2)",
                              path, lineno);
                break;
            }
            in->cutoff = v[0];
        } else if (!strcmp(word, "uu") || !strcmp(word, "ud")) {
            const int k = word[1] == 'u' ? 0 : 1;
            if ((rc = parse_list(rest, what, in->p[k], SJ_BSPLINE_MAX, &in->np[k])))
                break;
            if (in->np[k] < 2) {
                rc = mcf_fail(MCF_EINVAL, "%s:%d: %s needs at least 2 parameters", path, lineno,
                              word);
                break;
            }
        } else {
            rc = mcf_fail(MCF_EINVAL, "%s:%d: unknown item \"%s\" (a Jastrow parameter file "
                          "holds form, cutoff, uu and ud)", path, lineno, word);
            break;
        }
    }
    if (!rc && ferror(f))
        rc = mcf_fail(MCF_EIO, "error reading %s", path);
    fclose(f);
    if (!rc && !has_form)
        rc = mcf_fail(MCF_EINVAL, "%s: no line \"form bspline\": is this a Jastrow parameter "
                      "file?", path);
    return rc;
}

int bspline_input_from_keys(const char *uu, const char *ud, long size, sj_bspline_input *in)
{
    const char *text[2] = {uu, ud}, *key[2] = {"jastrow_uu", "jastrow_ud"};
    for (int k = 0; k < 2; k++) {
        int rc = parse_list(text[k], key[k], in->p[k], SJ_BSPLINE_MAX, &in->np[k]);
        if (rc)
            return rc;
        if (in->np[k] == 0) { /* u = 0 with jastrow_size parameters */
            if (size < 2 || size > SJ_BSPLINE_MAX)
                return mcf_fail(MCF_EINVAL, "jastrow_size = %ld: a B-spline takes 2 to %d "
                                "parameters", size, SJ_BSPLINE_MAX);
            in->np[k] = (size_t)size;
            for (size_t m = 0; m < in->np[k]; m++)
                in->p[k][m] = 0.0;
        } else if (in->np[k] < 2) {
            return mcf_fail(MCF_EINVAL, "%s = %s: a B-spline takes at least 2 parameters",
                            key[k], text[k]);
        }
    }
    return MCF_OK;
}

void bspline_file_head(char *head, size_t size, double rc)
{
    snprintf(head, size, "# slater-jastrow Jastrow parameters: Psi_J = exp(-sum_{i<j} w(r_ij)), "
             "w a cubic B-spline\n# (QMCPACK's BsplineFunctor convention; models/"
             "slater-jastrow/sj_bspline.c).\n# Read with [model] jastrow = bspline, "
             "jastrow_file = THIS_FILE.\nform bspline\ncutoff %.17g\n", rc);
}
