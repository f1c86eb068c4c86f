/* kbe_spectrum.c — `mcf kbe-spectrum DIR --at T [--sigma S] [--omega LO:HI] [--points N]`:
 * the time-resolved spectral function of a kbe run at the average time T from the run's own
 * two-time Green's functions (kbe.h).  The run is rebuilt from its time rows (kbe_resume.c)
 * and the evaluator's green op gives G^< and G^> at (T + s/2, T - s/2) for the relative
 * times s = 0, 2 dt, ..., 2 M dt on the grid (M = min(c, n - c), T = c dt, n the last step
 * written).  Per k and orbital a (the diagonal elements):
 *
 *     A_k,a(w)    = -(1/pi) Im  int_0^S ds e^{i w s} W(s) G^R_k,aa(T + s/2, T - s/2),
 *     A^<_k,a(w)  =  (1/pi) Re  int_0^S ds e^{i w s} W(s) (-i) G^<_k,aa(T + s/2, T - s/2),
 *
 * G^R = G^> - G^< for s >= 0, W(s) = exp(-s^2 / (2 sigma^2)) (sigma default S/5: the window
 * is e^-12.5 at S), the trapezoid in s (half weight at s = 0, where the negative relative
 * times join by G(t', t) = -G(t, t')^dagger).  Their integrals over all w are 1 and the
 * occupation n_k,a(T); over the grid printed (the sum rules: a grid that misses part of the
 * spectrum shows it).  A level e held still gives sigma / sqrt(2 pi) exp(-(w - e)^2 sigma^2
 * / 2): the window's resolution 1/sigma.  No physics of any model here: the transform only. */
#define _POSIX_C_SOURCE 200809L
#include "kbe.h"

#include "kbe_job.h"
#include "mcf/error.h"

#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct spec_opts {
    double at, sigma, lo, hi;
    long points;
    int have_at, have_omega;
} spec_opts;

static int parse(int argc, char **argv, const char **dir, spec_opts *o)
{
    memset(o, 0, sizeof *o);
    o->points = 0;
    *dir = NULL;
    for (int k = 0; k < argc; k++) {
        char *end = NULL;
        if (!strcmp(argv[k], "--at") && k + 1 < argc) {
            o->at = strtod(argv[++k], &end);
            if (*end || !isfinite(o->at) || o->at < 0)
                return mcf_fail(MCF_EINVAL, "kbe-spectrum: --at %s: give a time >= 0", argv[k]);
            o->have_at = 1;
        } else if (!strcmp(argv[k], "--sigma") && k + 1 < argc) {
            o->sigma = strtod(argv[++k], &end);
            if (*end || !(o->sigma > 0) || !isfinite(o->sigma))
                return mcf_fail(MCF_EINVAL, "kbe-spectrum: --sigma %s: give a time > 0", argv[k]);
        } else if (!strcmp(argv[k], "--omega") && k + 1 < argc) {
            const char *txt = argv[++k];
            o->lo = strtod(txt, &end);
            const int colon = end != txt && *end == ':';
            const char *hi = colon ? end + 1 : end;
            o->hi = colon ? strtod(hi, &end) : NAN;
            if (!colon || end == hi || *end || !(o->lo < o->hi) || !isfinite(o->hi))
                return mcf_fail(MCF_EINVAL, "kbe-spectrum: --omega %s: give LO:HI, LO < HI", txt);
            o->have_omega = 1;
        } else if (!strcmp(argv[k], "--points") && k + 1 < argc) {
            o->points = strtol(argv[++k], &end, 10);
            if (*end || o->points < 3 || o->points > 1000000)
                return mcf_fail(MCF_EINVAL, "kbe-spectrum: --points %s: give 3 to 1000000",
                                argv[k]);
        } else if (argv[k][0] == '-' || *dir) {
            return mcf_fail(MCF_EINVAL, "kbe-spectrum: unexpected '%s'; usage: mcf kbe-spectrum "
                            "DIR --at T [--sigma S] [--omega LO:HI] [--points N]", argv[k]);
        } else {
            *dir = argv[k];
        }
    }
    if (!*dir || !o->have_at)
        return mcf_fail(MCF_EINVAL, "kbe-spectrum: usage: mcf kbe-spectrum DIR --at T [--sigma "
                        "S] [--omega LO:HI] [--points N]");
    return MCF_OK;
}

/* the diagonal elements of G^< and G^R = G^> - G^< at (c + m, c - m), m = 0..M, per k and
 * orbital: gl[(m nk + k) o + a], gr likewise */
static int gather(kbe_job *j, uint64_t c, uint64_t M, double complex *gl, double complex *gr)
{
    const size_t nk = j->nk_total, o = j->orbitals, per = 2 * nk * o * o;
    double *g = malloc(2 * per * sizeof *g), *gg = g ? g + per : NULL;
    if (!g)
        return mcf_fail(MCF_ENOMEM, "out of memory");
    int rc = MCF_OK;
    for (uint64_t m = 0; m <= M && !rc; m++) {
        rc = j->ev->green(j->ws, 1, c + m, c - m, g);
        if (!rc)
            rc = j->ev->green(j->ws, 0, c + m, c - m, gg);
        for (size_t k = 0; k < nk && !rc; k++)
            for (size_t a = 0; a < o; a++) {
                const size_t q = 2 * (k * o * o + a * o + a), at = (m * nk + k) * o + a;
                gl[at] = g[q] + I * g[q + 1];
                gr[at] = (gg[q] - g[q]) + I * (gg[q + 1] - g[q + 1]);
            }
    }
    free(g);
    return rc;
}

/* the orbital's name in a column: v and c for two orbitals, else its index */
static void column(FILE *f, const char *what, unsigned o, unsigned a)
{
    if (o == 2)
        fprintf(f, "\t%s_%c", what, "vc"[a]);
    else
        fprintf(f, "\t%s_%u", what, a);
}

static int spectrum(kbe_job *j, const kbe_loop_state *st, const spec_opts *opt)
{
    const double dt = j->prop.dt;
    const double cr = floor(opt->at / dt + 0.5);
    if (cr > (double)st->n)
        return mcf_fail(MCF_EINVAL, "kbe-spectrum: --at %g is past the last step written, t = %g",
                        opt->at, (double)st->n * dt);
    const uint64_t c = (uint64_t)cr, M = c < st->n - c ? c : st->n - c;
    if (M < 8)
        return mcf_fail(MCF_EINVAL, "kbe-spectrum: --at %g: the relative times reach only +-%g "
                        "(%llu steps each way to t = 0 or to the last step, %g): choose a time "
                        "farther from both", opt->at, 2.0 * (double)M * dt,
                        (unsigned long long)M, (double)st->n * dt);
    const double S = 2.0 * (double)M * dt, h = 2.0 * dt, T = (double)c * dt;
    const double sigma = opt->sigma > 0 ? opt->sigma : S / 5;
    const double nyq = 3.14159265358979323846 / h;
    const double lo = opt->have_omega ? opt->lo : -nyq, hi = opt->have_omega ? opt->hi : nyq;
    const double step = 1.0 / (4.0 * sigma);
    const long P = opt->points ? opt->points : (long)ceil((hi - lo) / step) + 1;
    const size_t nk = j->nk_total, o = j->orbitals, n_g = (size_t)(M + 1) * nk * o;
    double complex *gl = malloc(2 * n_g * sizeof *gl), *gr = gl ? gl + n_g : NULL;
    double *out = malloc((size_t)P * (nk + 1) * 2 * o * sizeof *out);
    int rc = gl && out ? gather(j, c, M, gl, gr) : mcf_fail(MCF_ENOMEM, "out of memory");
    /* out[((p (nk + 1) + k) 2 + which) o + a]; k = nk: the average over k */
    for (long p = 0; p < P && !rc; p++) {
        const double w = lo + (hi - lo) * (double)p / (double)(P - 1);
        double *row = out + (size_t)p * (nk + 1) * 2 * o;
        memset(row, 0, (nk + 1) * 2 * o * sizeof *row);
        for (uint64_t m = 0; m <= M; m++) {
            const double s = (double)m * h, wt = (m == 0 ? 0.5 : 1.0) * h *
                             exp(-0.5 * s * s / (sigma * sigma));
            const double complex ph = wt * cexp(I * w * s);
            for (size_t k = 0; k < nk; k++)
                for (size_t a = 0; a < o; a++) {
                    const size_t at = ((size_t)m * nk + k) * o + a;
                    row[(k * 2 + 0) * o + a] += -cimag(ph * gr[at]) / 3.14159265358979323846;
                    row[(k * 2 + 1) * o + a] += creal(ph * -I * gl[at]) / 3.14159265358979323846;
                }
        }
        for (size_t k = 0; k < nk; k++)
            for (size_t q = 0; q < 2 * o; q++)
                row[nk * 2 * o + q] += row[k * 2 * o + q] / (double)nk;
    }
    char path[4300];
    snprintf(path, sizeof path, "%s/spectrum-t%g.tsv", j->output, T);
    FILE *f = rc ? NULL : fopen(path, "w");
    if (!rc && !f)
        rc = mcf_fail(MCF_EIO, "%s: cannot be written", path);
    if (!rc) {
        /* the sum rules over the grid (trapezoid), the k average's */
        double sum[2 * MCF_DYNAMICS_MAX_ORBITALS] = {0}, occ[MCF_DYNAMICS_MAX_ORBITALS] = {0};
        const double dw = (hi - lo) / (double)(P - 1);
        for (long p = 0; p < P; p++)
            for (size_t q = 0; q < 2 * o; q++)
                sum[q] += (p == 0 || p == P - 1 ? 0.5 : 1.0) * dw *
                          out[((size_t)p * (nk + 1) + nk) * 2 * o + q];
        for (size_t k = 0; k < nk; k++)
            for (size_t a = 0; a < o; a++)
                occ[a] += creal(-I * gl[k * o + a]) / (double)nk;
        fprintf(f, "# mcf kbe-spectrum: %s at T = %.10g (step %llu): relative times 0..%g in "
                "steps of %g, Gaussian window sigma = %g (resolution 1/sigma = %g in omega)\n",
                j->output, T, (unsigned long long)c, S, h, sigma, 1.0 / sigma);
        printf("mcf kbe-spectrum: T = %g (step %llu), relative times to %g, sigma = %g "
               "(resolution %g), omega %g to %g at %ld points\n", T, (unsigned long long)c, S,
               sigma, 1.0 / sigma, lo, hi, P);
        for (size_t a = 0; a < o; a++) {
            char name[24];
            if (o == 2)
                snprintf(name, sizeof name, "%c", "vc"[a]);
            else
                snprintf(name, sizeof name, "%zu", a);
            fprintf(f, "# sum rule %s: int A dw = %.8f (1), int A< dw = %.8f (n = %.8f)\n",
                    name, sum[a], sum[o + a], occ[a]);
            printf("mcf kbe-spectrum: orbital %s: int A dw = %.6f (exact 1), int A^< dw = %.6f "
                   "(n(T) = %.6f), over the grid, averaged over k\n", name, sum[a], sum[o + a],
                   occ[a]);
        }
        fprintf(f, "k\tomega");
        for (unsigned a = 0; a < o; a++)
            column(f, "A", (unsigned)o, a);
        for (unsigned a = 0; a < o; a++)
            column(f, "Aocc", (unsigned)o, a);
        fputc('\n', f);
        for (size_t k = 0; k <= nk; k++)
            for (long p = 0; p < P; p++) {
                const double w = lo + (hi - lo) * (double)p / (double)(P - 1);
                if (k == nk)
                    fprintf(f, "local\t%.10g", w);
                else
                    fprintf(f, "%zu\t%.10g", k, w);
                for (size_t q = 0; q < 2 * o; q++)
                    fprintf(f, "\t%.12g", out[((size_t)p * (nk + 1) + k) * 2 * o + q]);
                fputc('\n', f);
            }
        if (fclose(f) != 0)
            rc = mcf_fail(MCF_EIO, "%s: cannot be written", path);
        else
            printf("mcf: %s (k = local: the average over k)\n", path);
        if (!rc) { /* its plot: a warning at worst */
            char table[64], name[64];
            snprintf(table, sizeof table, "spectrum-t%g.tsv", T);
            snprintf(name, sizeof name, "spectrum-t%g", T);
            mcfi_kbe_plot(j->output, table, name);
        }
    }
    free(gl);
    free(out);
    return rc;
}

int mcfi_kbe_spectrum_command(int argc, char **argv)
{
    const char *dir = NULL;
    spec_opts opt;
    int rc = parse(argc, argv, &dir, &opt);
    if (rc)
        return rc;
    kbe_job j;
    kbe_loop_state st;
    kbe_files f = {0};
    rc = mcfi_kbe_job_open(dir, &j, &st, 0);
    if (!rc && !j.ev->green)
        rc = mcf_fail(MCF_EINVAL, "kbe-spectrum: the evaluator %s gives no Green's functions",
                      j.evaluator->info->name);
    if (!rc)
        rc = mcfi_kbe_read_rows(&j, &f, &st);
    free(f.row);
    if (!rc)
        rc = spectrum(&j, &st, &opt);
    mcfi_kbe_job_free(&j);
    return rc;
}
