/* fk_exact.c — exact thermodynamics of the spinless Falicov–Kimball model of
 * tests/install/falicov_kimball.c on a periodic L x L square lattice (L = 3 or 4), the
 * reference of test_install.sh step 7.  Every configuration w in {0,1}^N (N = L^2, 2^16 for
 * L = 4) is enumerated, one per class of the L^2 translations (which keep the spectrum, the
 * number of w and |m|), and the N x N matrix H(w) (-t on the bonds, U w_i on the diagonal)
 * diagonalized by cyclic Jacobi rotations.  With the weight
 *     exp(-S) = exp(mu_f sum w / T) prod_nu (1 + exp(-(eps_nu - mu) / T))
 * it prints, per temperature, the exact <e> (e = (sum eps f - mu_f sum w) / N), <|m|>,
 * <m^2>, <m^4> (m = (2/N) sum (-1)^(x+y) (w_i - 1/2)), density (sum f / N), occupation
 * (sum w / N), the specific heat C = d<e>/dT at fixed mu, mu_f, susceptibility
 * N (<m^2> - <|m|>^2) / T and binder 1 - <m^4> / (3 <m^2>^2), as the columns of mcf's
 * results.tsv.  C is computed twice and the two must agree to 1e-8 (else exit 1): by the
 * covariance formula <e_T> - N (<e s_T> - <e> <s_T>) (mcf/model.h) and by the central
 * difference (<e>(T + h) - <e>(T - h)) / 2h, h = 1e-5 T (error ~ h^2 e'''/6 + rounding
 * 1e-16 / h, both below 1e-9 here).
 *
 * The matrix is built here, not by libmcf, so that the reference shares no code with the
 * model; the program checks once that the SDK's Hamiltonian (mcf_hamiltonian_factorize
 * with amplitude -t, set_onsite U w_i) is the same matrix entry for entry and the SDK's
 * parity the same sign, and that Jacobi gives the free band -2t(cos kx + cos ky).
 *
 * usage: fk_exact [L=4] [t=1] [U=4] [mu=2] [mu_f=2] T...   */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcf/mcf.h"

#define NMAX 16

static int L = 4, N = 16;
static double t = 1, U = 4, mu = 2, mu_f = 2;

static int site(int x, int y) { return ((x + L) % L) + L * ((y + L) % L); }
static int parity(int s) { return ((s % L + s / L) % 2) ? -1 : 1; }

static void build(unsigned w, double *a)
{
    memset(a, 0, sizeof(double) * N * N);
    for (int s = 0; s < N; s++) {
        const int x = s % L, y = s / L, nb[4] = {site(x + 1, y), site(x - 1, y),
                                                 site(x, y + 1), site(x, y - 1)};
        for (int k = 0; k < 4; k++)
            a[s * N + nb[k]] = -t; /* L >= 3: four distinct neighbours */
        a[s * N + s] = U * ((w >> s) & 1u);
    }
}

/* the eigenvalues of the symmetric n x n matrix a (destroyed) by cyclic Jacobi */
static void jacobi(int n, double *a, double *ev)
{
    for (int sweep = 0; sweep < 64; sweep++) {
        double off = 0, diag = 0;
        for (int p = 0; p < n; p++) {
            diag += a[p * n + p] * a[p * n + p];
            for (int q = p + 1; q < n; q++)
                off += a[p * n + q] * a[p * n + q];
        }
        if (off <= 1e-34 * (diag + 1))
            break;
        for (int p = 0; p < n; p++)
            for (int q = p + 1; q < n; q++) {
                const double apq = a[p * n + q];
                if (apq == 0)
                    continue;
                const double th = (a[q * n + q] - a[p * n + p]) / (2 * apq);
                const double tn = (th >= 0 ? 1 : -1) / (fabs(th) + sqrt(th * th + 1));
                const double c = 1 / sqrt(tn * tn + 1), s = tn * c;
                for (int k = 0; k < n; k++) { /* columns p, q */
                    const double kp = a[k * n + p], kq = a[k * n + q];
                    a[k * n + p] = c * kp - s * kq;
                    a[k * n + q] = s * kp + c * kq;
                }
                for (int k = 0; k < n; k++) { /* rows p, q */
                    const double pk = a[p * n + k], qk = a[q * n + k];
                    a[p * n + k] = c * pk - s * qk;
                    a[q * n + k] = s * pk + c * qk;
                }
            }
    }
    for (int p = 0; p < n; p++)
        ev[p] = a[p * n + p];
}

static int cmp_double(const void *x, const void *y)
{
    const double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static unsigned translate(unsigned w, int dx, int dy)
{
    unsigned v = 0;
    for (int s = 0; s < N; s++)
        if ((w >> s) & 1u)
            v |= 1u << site(s % L + dx, s / L + dy);
    return v;
}

typedef struct fk_class {
    double eps[NMAX], absm;
    int nw, mult;
} fk_class;

static fk_class *classes;
static size_t nclass;

/* the exact averages at temperature T into out[]: see enum below.  Two passes (means,
 * then the covariance about them), sums in long double. */
enum { A_E, A_ABSM, A_M2, A_M4, A_DENS, A_OCC, A_ET, A_ST, A_C, A_COUNT };

static void averages(double T, double *out)
{
    double lmax = -INFINITY, *lw = malloc(3 * nclass * sizeof *lw);
    if (!lw) {
        fprintf(stderr, "fk_exact: out of memory\n");
        exit(2);
    }
    double *ec = lw + nclass, *st = lw + 2 * nclass;
    long double z = 0, sum[A_C] = {0}, cov = 0;
    for (size_t c = 0; c < nclass; c++) {
        const fk_class *k = classes + c;
        double s = mu_f * k->nw / T;
        for (int q = 0; q < N; q++) {
            const double x = -(k->eps[q] - mu) / T;
            s += x > 0 ? x + log1p(exp(-x)) : log1p(exp(x));
        }
        lw[c] = s + log(k->mult);
        lmax = lw[c] > lmax ? lw[c] : lmax;
    }
    for (size_t c = 0; c < nclass; c++) {
        const fk_class *k = classes + c;
        double eb = 0, nf = 0, eT = 0;
        for (int q = 0; q < N; q++) {
            const double e = k->eps[q], f = 1 / (1 + exp((e - mu) / T));
            eb += e * f;
            nf += f;
            eT += e * (e - mu) / (T * T) * f * (1 - f);
        }
        const double m2 = k->absm * k->absm;
        ec[c] = (eb - mu_f * k->nw) / N;
        st[c] = -(eb - mu * nf - mu_f * k->nw) / (N * T * T);
        const double v[A_C] = {ec[c], k->absm, m2, m2 * m2, nf / N, (double)k->nw / N,
                               eT / N, st[c]};
        const long double p = expl((long double)(lw[c] - lmax));
        lw[c] = (double)p;
        z += p;
        for (int i = 0; i < A_C; i++)
            sum[i] += p * v[i];
    }
    for (int i = 0; i < A_C; i++)
        out[i] = (double)(sum[i] / z);
    for (size_t c = 0; c < nclass; c++)
        cov += (long double)lw[c] * (ec[c] - out[A_E]) * (st[c] - out[A_ST]);
    out[A_C] = out[A_ET] - N * (double)(cov / z);
    free(lw);
}

static double energy_at(double T)
{
    double a[A_COUNT];
    averages(T, a);
    return a[A_E];
}

/* the SDK builds the same H(w) and the same checkerboard sign */
static void check_sdk(unsigned w, const double *mine)
{
    mcf_lattice *lat = NULL;
    mcf_hamiltonian *h = NULL;
    double *dense = malloc(2 * sizeof(double) * N * N);
    int rc = dense ? mcf_lattice_create(MCF_LATTICE_SQUARE, L, MCF_BOUNDARY_PERIODIC, &lat)
                   : MCF_ENOMEM;
    if (!rc)
        rc = mcf_hamiltonian_create((size_t)N, 1, lat->coordination, &h);
    if (!rc)
        rc = mcf_hamiltonian_factorize(h, lat, -t, 0);
    for (int s = 0; s < N && !rc; s++)
        rc = mcf_hamiltonian_set_onsite(h, (size_t)s, U * ((w >> s) & 1u));
    if (rc) {
        fprintf(stderr, "fk_exact: the SDK's Hamiltonian: %s\n", mcf_last_error());
        exit(2);
    }
    mcf_hamiltonian_dense(h, dense);
    for (int i = 0; i < N * N; i++)
        if (dense[2 * i] != mine[i] || dense[2 * i + 1] != 0) {
            fprintf(stderr, "fk_exact: H[%d][%d] = %g here, %g + %gi from the SDK\n", i / N,
                    i % N, mine[i], dense[2 * i], dense[2 * i + 1]);
            exit(1);
        }
    for (int s = 0; s < N; s++)
        if (mcf_lattice_parity(lat, (size_t)s) != parity(s)) {
            fprintf(stderr, "fk_exact: the parity of site %d differs from the SDK's\n", s);
            exit(1);
        }
    mcf_hamiltonian_destroy(h);
    mcf_lattice_destroy(lat);
    free(dense);
}

/* Jacobi on the free lattice: the band -2t (cos kx + cos ky), k = 2 pi n / L */
static void check_free_band(void)
{
    double a[NMAX * NMAX], ev[NMAX], band[NMAX];
    const double pi2 = 2 * acos(-1.0);
    build(0, a);
    for (int i = 0; i < N; i++)
        a[i * N + i] = 0;
    jacobi(N, a, ev);
    for (int s = 0; s < N; s++)
        band[s] = -2 * t * (cos(pi2 * (s % L) / L) + cos(pi2 * (s / L) / L));
    qsort(ev, (size_t)N, sizeof *ev, cmp_double);
    qsort(band, (size_t)N, sizeof *band, cmp_double);
    for (int s = 0; s < N; s++)
        if (fabs(ev[s] - band[s]) > 1e-12) {
            fprintf(stderr, "fk_exact: Jacobi gives %.15g, the free band %.15g\n", ev[s],
                    band[s]);
            exit(1);
        }
}

int main(int argc, char **argv)
{
    double temps[64];
    int nt = 0;
    for (int i = 1; i < argc; i++) {
        char *end;
        const char *v = strchr(argv[i], '=');
        if (v && strncmp(argv[i], "L=", 2) == 0)
            L = atoi(v + 1);
        else if (v && strncmp(argv[i], "t=", 2) == 0)
            t = strtod(v + 1, NULL);
        else if (v && strncmp(argv[i], "U=", 2) == 0)
            U = strtod(v + 1, NULL);
        else if (v && strncmp(argv[i], "mu=", 3) == 0)
            mu = strtod(v + 1, NULL);
        else if (v && strncmp(argv[i], "mu_f=", 5) == 0)
            mu_f = strtod(v + 1, NULL);
        else if (nt < 64 && (temps[nt] = strtod(argv[i], &end)) > 0 && *end == 0)
            nt++;
        else {
            fprintf(stderr, "usage: fk_exact [L=4] [t=1] [U=4] [mu=2] [mu_f=2] T... "
                            "(L 3 or 4, T > 0, at most 64)\n");
            return 2;
        }
    }
    N = L * L;
    if (L < 3 || L > 4 || nt == 0) {
        fprintf(stderr, "fk_exact: need L = 3 or 4 and at least one T > 0\n");
        return 2;
    }
    check_free_band();
    const unsigned configs = 1u << N;
    for (unsigned w = 1; w < configs; w *= 5) {
        double a[NMAX * NMAX];
        build(w, a);
        check_sdk(w, a);
    }
    unsigned *mult = calloc(configs, sizeof *mult);
    for (unsigned w = 0; mult && w < configs; w++) { /* each class at its smallest member */
        unsigned rep = w;
        for (int d = 1; d < N; d++) {
            const unsigned v = translate(w, d % L, d / L);
            rep = v < rep ? v : rep;
        }
        nclass += mult[rep]++ == 0;
    }
    if (!mult || !(classes = malloc(nclass * sizeof *classes)))
        return 2;
    nclass = 0;
    for (unsigned w = 0; w < configs; w++) {
        if (!mult[w])
            continue;
        double a[NMAX * NMAX], m = 0;
        fk_class *k = classes + nclass++;
        build(w, a);
        jacobi(N, a, k->eps);
        k->nw = 0;
        for (int s = 0; s < N; s++) {
            k->nw += (w >> s) & 1u;
            m += parity(s) * (((w >> s) & 1u) - 0.5);
        }
        k->absm = fabs(2 * m / N);
        k->mult = (int)mult[w];
    }
    free(mult);
    printf("# fk_exact: %dx%d periodic, t = %g, U = %g, mu = %g, mu_f = %g; %zu classes of "
           "the %u configurations\n", L, L, t, U, mu, mu_f, nclass, configs);
    printf("T\tenergy\tabs_m\tm2\tm4\tdensity\toccupation\tspecific_heat\tsusceptibility"
           "\tbinder\tspecific_heat_fd\n");
    int bad = 0;
    for (int i = 0; i < nt; i++) {
        const double T = temps[i], h = 1e-5 * T;
        double a[A_COUNT];
        averages(T, a);
        const double cfd = (energy_at(T + h) - energy_at(T - h)) / (2 * h);
        printf("%g\t%.12f\t%.12f\t%.12f\t%.12f\t%.12f\t%.12f\t%.12f\t%.12f\t%.12f\t%.12f\n", T,
               a[A_E], a[A_ABSM], a[A_M2], a[A_M4], a[A_DENS], a[A_OCC], a[A_C],
               N * (a[A_M2] - a[A_ABSM] * a[A_ABSM]) / T, 1 - a[A_M4] / (3 * a[A_M2] * a[A_M2]),
               cfd);
        if (!(fabs(cfd - a[A_C]) <= 1e-8)) {
            fprintf(stderr, "fk_exact: at T = %g the covariance formula gives C = %.12g, the "
                    "central difference (h = %g) %.12g\n", T, a[A_C], h, cfd);
            bad = 1;
        }
    }
    free(classes);
    return bad;
}
