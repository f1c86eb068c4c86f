/* test_kbe_cuda.c — kbe-cuda (cuda/kbe-cuda) against the CPU's propagator (plugins/kbe,
 * mcf_kbe_core) on the same spec and drive (label gpu; issue 45: "kbe-cuda = kbe to 1e-12
 * relative over 200 steps"):
 *
 *   U = 0 (no interaction), Hartree-Fock (2 correctors), second Born by FFT (1 corrector,
 *   Nk = 8 and the mixed-radix Nk = 6 with 2 correctors) and by the seed's loops (Nk = 5,
 *   and Nk = 70 across the GPU kernel's tiles: 8 steps from t = 1.5, the CPU's loops being
 *   O(Nk^3)), a Gaussian pulse and a ramp of U, 200 steps (the loops: 60):
 *   every block G^lg(t_i, t_j), i >= j, of the run, the energies at every 20th step (and at
 *   step 2p - 2, the end of order p's start block) and the last corrector residual.
 *
 * Both sides do the same operations per value (the collision integrals' sums over s in
 * another fixed order: kbe_cuda_collision.cu's tiles; the seed's loops regrouped:
 * kbe_cuda_direct.cu); what differs besides is the FFT library (GSL and cuFFT: other
 * twiddles and orders), the local density's sum over k (a warp's tree), sin/cos/exp of the
 * device, and the contraction of a * b + c into fused multiply-adds: each an O(1e-16)
 * relative change per operation, carried through 200 steps of a stable propagation with
 * O(n) terms a sum, so 1e-12 of the largest |G| leaves two orders of magnitude of room
 * (measured: see the printout).  A kernel that drops, repeats or misplaces one term of a
 * sum changes blocks by O(dt) = 2e-2 and fails.
 *
 * A step as one CUDA graph (the default, kbe_cuda_graph.cu) against its kernels launched one
 * by one: every block the same bits.
 *
 * Checkpoint rows (kbe_rows.c's record): a second-Born run of the CPU stopped at step 80,
 * its rows read by kbe-cuda, which steps on to 200; and the reverse (kbe-cuda's rows read by
 * the CPU's propagator) — each against the unbroken run of the other, to the same 1e-12.
 *
 * Orders 3 .. 5 (BDF and Gregory, kbe_bdf.c): the same comparison for Hartree-Fock and
 * second Born by FFT at each order, no interaction and the seed's loops at order 4, second
 * Born at each order from t = 1.5 (U on from the start: the integrals' start weights), and the
 * rows at order 4 cut past the start block (row 6) and inside it (row 3: kbe-cuda's start
 * is the CPU's kbe, which reads the rows too).  The start block is the CPU's own, so rows
 * 0 .. 2p - 2 agree to the bit; the steps past it carry the device's rounding as above.
 *
 * Without a device: the refusals (order 6, a given self-energy, a bad spec — before any
 * device call) are checked, then "skipped: no device" and 77. */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kbe_core.h"
#include "kbe_cuda.h"
#include "mcf/error.h"

static const double pi = 3.14159265358979323846;

typedef struct {
    const char *name;
    size_t nk, steps;
    kbe_selfenergy se;
    kbe_sigma_method method;
    int correctors;
    double U;
    int order; /* 0: 2 */
} case_t;

static double drive_E(double t)
{
    return 0.8 * exp(-0.5 * pow((t - 1.5) / 0.4, 2)) * cos(2.2 * t);
}

static double drive_U(double t, double U) { return t >= 2.0 ? U : U * pow(sin(pi * t / 4.0), 2); }

static void bands(size_t nk, double *eps, double complex *rho)
{
    for (size_t k = 0; k < nk; k++) {
        const double c = cos(2.0 * pi * (double)k / (double)nk);
        eps[2 * k] = -1.0 - 0.5 * c;
        eps[2 * k + 1] = 1.0 + 0.5 * c;
    }
    CHECK(kbe_rho_thermal(nk, eps, 0.0, 0.0, 0.0, rho) == MCF_OK, "%s", mcf_last_error());
}

static kbe_spec spec_of(const case_t *c, const double *eps, const double complex *rho)
{
    kbe_spec s = {0};
    s.nk = c->nk;
    s.eps = eps;
    s.dipole = 0.5;
    s.rho0 = rho;
    s.dt = 0.02;
    s.steps = c->steps;
    s.correctors = c->correctors;
    s.order = c->order ? c->order : 2;
    s.selfenergy = c->se;
    s.sigma_method = c->method;
    return s;
}

static void refusals(void)
{
    double eps[8];
    double complex rho[16];
    bands(4, eps, rho);
    const case_t c = {"refusal", 4, 10, KBE_SELFENERGY_2B, KBE_SIGMA_FFT, 1, 0.5, 2};
    kbe_spec s = spec_of(&c, eps, rho);
    kbcu *w = NULL;
    s.order = 6;
    CHECK(kbcu_create(&s, 0.0, 0.0, &w) == MCF_EINVAL && !w, "order 6 accepted");
    printf("refused: %s\n", mcf_last_error());
    s.order = 2;
    s.dt = -1.0;
    CHECK(kbcu_create(&s, 0.0, 0.0, &w) == MCF_EINVAL && !w, "dt < 0 accepted");
    printf("refused: %s\n", mcf_last_error());
}

/* the largest |G_a - G_b| over both triangles, and the largest |G_a| */
static void compare(kbe *a, kbcu *b, size_t steps, size_t nk, double *d, double *m)
{
    double complex *g0 = malloc(4 * nk * sizeof *g0), *g1 = malloc(4 * nk * sizeof *g1);
    *d = *m = 0.0;
    for (size_t i = 0; i <= steps; i++)
        for (size_t j = 0; j <= i; j++)
            for (int lesser = 0; lesser < 2; lesser++) {
                kbe_green(a, lesser, i, j, g0);
                CHECK(kbcu_green(b, lesser, i, j, g1) == MCF_OK, "%s", mcf_last_error());
                for (size_t q = 0; q < 4 * nk; q++) {
                    *d = fmax(*d, cabs(g0[q] - g1[q]));
                    *m = fmax(*m, cabs(g0[q]));
                }
            }
    free(g0);
    free(g1);
}

/* t0: the drive's time at step 0 (0: the pulse and the ramp of U ahead) */
static void run_case(const case_t *c, double t0)
{
    const size_t nk = c->nk, steps = c->steps;
    double *eps = malloc(2 * nk * sizeof *eps);
    double complex *rho = malloc(4 * nk * sizeof *rho);
    bands(nk, eps, rho);
    const kbe_spec s = spec_of(c, eps, rho);
    kbe *cpu = NULL;
    kbcu *gpu = NULL;
    CHECK(kbe_create(&s, drive_E(t0), drive_U(t0, c->U), &cpu) == MCF_OK, "%s",
          mcf_last_error());
    CHECK(kbcu_create(&s, drive_E(t0), drive_U(t0, c->U), &gpu) == MCF_OK, "%s",
          mcf_last_error());
    if (!cpu || !gpu) {
        kbe_destroy(cpu);
        kbcu_destroy(gpu);
        return;
    }
    double eworst = 0.0;
    for (size_t n = 1; n <= steps; n++) {
        const double t = t0 + (double)n * s.dt;
        CHECK(kbe_step(cpu, drive_E(t), drive_U(t, c->U)) == MCF_OK, "%s", mcf_last_error());
        CHECK(kbcu_step(gpu, drive_E(t), drive_U(t, c->U)) == MCF_OK, "%s", mcf_last_error());
        if (n % 20 && n != steps && n != 2 * (size_t)s.order - 2) /* and the start's end */
            continue;
        double a[3], b[3];
        kbe_energies(cpu, n, &a[0], &a[1], &a[2]);
        CHECK(kbcu_energies(gpu, n, &b[0], &b[1], &b[2]) == MCF_OK, "%s", mcf_last_error());
        for (int q = 0; q < 3; q++) {
            const double e = fabs(a[q] - b[q]) / fmax(1.0, fabs(a[q]));
            eworst = fmax(eworst, e);
            CHECK(e <= 1e-12, "%s, step %zu: energy %d CPU %.17g GPU %.17g", c->name, n, q,
                  a[q], b[q]);
        }
    }
    double d, m;
    compare(cpu, gpu, steps, nk, &d, &m);
    double complex *r0k = malloc(8 * nk * sizeof *r0k), *r1k = r0k + 4 * nk;
    kbe_density(cpu, steps, r0k);
    CHECK(kbcu_density(gpu, steps, r1k) == MCF_OK, "%s", mcf_last_error());
    for (size_t q = 0; q < 4 * nk; q++) /* the density is -i G^<(t, t): within G's bound */
        CHECK(cabs(r0k[q] - r1k[q]) <= 1e-12 * m, "%s: rho differs at %zu", c->name, q);
    free(r0k);
    double r1 = 0.0;
    CHECK(kbcu_corrector_residual(gpu, &r1) == MCF_OK, "%s", mcf_last_error());
    const double r0 = kbe_corrector_residual(cpu);
    printf("%-28s Nk = %zu, %zu steps: max |G_gpu - G_cpu| = %.2e of max |G| %.3f, energies "
           "%.1e, residual %.3e / %.3e\n", c->name, nk, steps, d, m, eworst, r0, r1);
    CHECK(m > 0.0 && d <= 1e-12 * m, "%s: G differs by %.3e (largest %.3g)", c->name, d, m);
    CHECK(fabs(r0 - r1) <= 1e-12 * m, "%s: corrector residual CPU %.6e GPU %.6e", c->name, r0,
          r1);
    kbe_destroy(cpu);
    kbcu_destroy(gpu);
    free(eps);
    free(rho);
}

/* a step as one CUDA graph (the default) against its kernels launched one by one: the same
 * kernels, arguments and order, so every block of G the same bits; 200 steps cross three
 * boundaries of the FFT's chunks (64 rows), where the graph's shape changes and is
 * instantiated anew, and between them every step only updates the last graph */
static void graph_case(int order)
{
    const case_t c = {"graph", 8, 200, KBE_SELFENERGY_2B, KBE_SIGMA_FFT, 1, 1.0, order};
    double eps[16];
    double complex rho[32];
    bands(c.nk, eps, rho);
    const kbe_spec s = spec_of(&c, eps, rho);
    kbcu *a = NULL, *b = NULL;
    CHECK(kbcu_create(&s, drive_E(0.0), drive_U(0.0, c.U), &a) == MCF_OK, "%s",
          mcf_last_error());
    CHECK(kbcu_create(&s, drive_E(0.0), drive_U(0.0, c.U), &b) == MCF_OK, "%s",
          mcf_last_error());
    if (!a || !b) {
        kbcu_destroy(a);
        kbcu_destroy(b);
        return;
    }
    kbcu_set_launch_each(b, 1);
    for (size_t n = 1; n <= c.steps; n++) {
        const double t = (double)n * s.dt;
        CHECK(kbcu_step(a, drive_E(t), drive_U(t, c.U)) == MCF_OK, "%s", mcf_last_error());
        CHECK(kbcu_step(b, drive_E(t), drive_U(t, c.U)) == MCF_OK, "%s", mcf_last_error());
    }
    double complex ga[32], gb[32];
    size_t differ = 0;
    for (size_t i = 0; i <= c.steps; i++)
        for (size_t j = 0; j <= i; j++)
            for (int lesser = 0; lesser < 2; lesser++) {
                kbcu_green(a, lesser, i, j, ga);
                kbcu_green(b, lesser, i, j, gb);
                differ += memcmp(ga, gb, sizeof ga) != 0;
            }
    const size_t inst = kbcu_graph_instantiations(a);
    printf("graph, order %d: %zu steps, %zu graphs instantiated (the rest updated), %zu blocks "
           "differ from the launches one by one\n", order, c.steps, inst, differ);
    CHECK(differ == 0, "graph, order %d: %zu blocks differ from the kernels launched one by one",
          order, differ);
    CHECK(inst >= 1 && inst <= c.steps / 10, "graph, order %d: %zu instantiations in %zu steps "
          "(updates in place failing?)", order, inst, c.steps);
    CHECK(kbcu_graph_instantiations(b) == 0, "graph, order %d: the launches one by one made a "
          "graph", order);
    kbcu_destroy(a);
    kbcu_destroy(b);
}

/* rows 0 .. cut of one propagator into the other, which steps on to the end (order p > 2:
 * a cut before the start block's row 2p - 2 resumes inside it) */
static void rows_case(int order, size_t steps, size_t cut)
{
    const case_t c = {"rows", 8, steps, KBE_SELFENERGY_2B, KBE_SIGMA_FFT, 1, 1.0, order};
    const size_t nk = c.nk;
    double eps[16];
    double complex rho[32];
    bands(nk, eps, rho);
    const kbe_spec s = spec_of(&c, eps, rho);
    const double E0 = drive_E(0.0), U0 = drive_U(0.0, c.U);
    kbe *cpu = NULL, *cpu2 = NULL;
    kbcu *gpu = NULL, *gpu2 = NULL;
    CHECK(kbe_create(&s, E0, U0, &cpu) == MCF_OK && kbcu_create(&s, E0, U0, &gpu) == MCF_OK &&
              kbe_create(&s, E0, U0, &cpu2) == MCF_OK && kbcu_create(&s, E0, U0, &gpu2) == 0,
          "%s", mcf_last_error());
    if (!cpu || !gpu || !cpu2 || !gpu2)
        return;
    unsigned char *buf = malloc(kbe_row_bytes(cpu, c.steps));
    for (size_t n = 0; n <= c.steps; n++) {
        const double t = (double)n * s.dt;
        if (n > 0) {
            CHECK(kbe_step(cpu, drive_E(t), drive_U(t, c.U)) == MCF_OK, "%s", mcf_last_error());
            CHECK(kbcu_step(gpu, drive_E(t), drive_U(t, c.U)) == MCF_OK, "%s",
                  mcf_last_error());
        }
        if (n > cut)
            continue;
        CHECK(kbe_row_bytes(cpu, n) == kbcu_row_bytes(gpu, n), "row %zu: %zu bytes, %zu", n,
              kbe_row_bytes(cpu, n), kbcu_row_bytes(gpu, n));
        CHECK(kbe_row_write(cpu, n, buf) == MCF_OK, "%s", mcf_last_error());
        CHECK(kbcu_row_read(gpu2, n, buf) == MCF_OK, "row %zu into kbe-cuda: %s", n,
              mcf_last_error());
        CHECK(kbcu_row_write(gpu, n, buf) == MCF_OK, "%s", mcf_last_error());
        CHECK(kbe_row_read(cpu2, n, buf) == MCF_OK, "row %zu into kbe: %s", n,
              mcf_last_error());
    }
    for (size_t n = cut + 1; n <= c.steps; n++) {
        const double t = (double)n * s.dt;
        CHECK(kbcu_step(gpu2, drive_E(t), drive_U(t, c.U)) == MCF_OK, "%s", mcf_last_error());
        CHECK(kbe_step(cpu2, drive_E(t), drive_U(t, c.U)) == MCF_OK, "%s", mcf_last_error());
    }
    double d1, m1, d2, m2;
    compare(cpu, gpu2, c.steps, nk, &d1, &m1);
    compare(cpu2, gpu, c.steps, nk, &d2, &m2);
    printf("rows, order %d: CPU's rows to %zu, then kbe-cuda: %.2e of %.3f; kbe-cuda's rows, "
           "then the CPU: %.2e of %.3f\n", order, cut, d1, m1, d2, m2);
    CHECK(d1 <= 1e-12 * m1 && d2 <= 1e-12 * m2, "resumed across propagators: %.3e, %.3e", d1,
          d2);
    free(buf);
    kbe_destroy(cpu);
    kbe_destroy(cpu2);
    kbcu_destroy(gpu);
    kbcu_destroy(gpu2);
}

int main(void)
{
    refusals();
    char why[256];
    if (!kbcu_probe(why, sizeof why)) {
        printf("skipped: no device (%s)\n", why);
        return 77;
    }
    printf("device: %s\n", why);
    const case_t cases[] = {
        {"no interaction", 8, 200, KBE_SELFENERGY_NONE, KBE_SIGMA_FFT, 0, 0.0, 2},
        {"Hartree-Fock", 8, 200, KBE_SELFENERGY_HF, KBE_SIGMA_FFT, 2, 1.0, 2},
        {"second Born, FFT", 8, 200, KBE_SELFENERGY_2B, KBE_SIGMA_FFT, 1, 1.0, 2},
        {"second Born, FFT, Nk = 6", 6, 200, KBE_SELFENERGY_2B, KBE_SIGMA_FFT, 2, 1.5, 2},
        {"second Born, the seed's loops", 5, 60, KBE_SELFENERGY_2B, KBE_SIGMA_DIRECT, 1, 1.0,
         2},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        run_case(&cases[c], 0.0);
    /* the seed's loops across every tile boundary of kbe_cuda_direct.cu (Nk = 70: two stages
     * of 64 in k1 and in k3, the last k3 stage 6, not a multiple of 4, k-tiles of 16, lanes
     * and warps past Nk); 8 steps (the CPU's O(Nk^3)) from t = 1.5, inside the pulse with U
     * on, so that every band pair of Sigma is far from 0 */
    const case_t tiles = {"second Born, the seed's loops, Nk = 70", 70, 8, KBE_SELFENERGY_2B,
                          KBE_SIGMA_DIRECT, 1, 1.0, 2};
    run_case(&tiles, 1.5);
    rows_case(2, 200, 80);
    /* orders 3 .. 5: the start block (the CPU's kbe inside kbe-cuda) and the device's steps
     * past it (kbe_cuda_bdf.cu); second Born shorter (the CPU's step of order p costs more) */
    const case_t bdf[] = {
        {"order 3, Hartree-Fock", 8, 200, KBE_SELFENERGY_HF, KBE_SIGMA_FFT, 2, 1.0, 3},
        {"order 3, second Born, FFT", 8, 120, KBE_SELFENERGY_2B, KBE_SIGMA_FFT, 1, 1.0, 3},
        {"order 4, Hartree-Fock", 8, 200, KBE_SELFENERGY_HF, KBE_SIGMA_FFT, 2, 1.0, 4},
        {"order 4, second Born, FFT", 8, 120, KBE_SELFENERGY_2B, KBE_SIGMA_FFT, 1, 1.0, 4},
        {"order 4, no interaction", 8, 200, KBE_SELFENERGY_NONE, KBE_SIGMA_FFT, 0, 0.0, 4},
        {"order 5, Hartree-Fock", 8, 200, KBE_SELFENERGY_HF, KBE_SIGMA_FFT, 2, 1.0, 5},
        {"order 5, second Born, FFT, Nk = 6", 6, 120, KBE_SELFENERGY_2B, KBE_SIGMA_FFT, 2, 1.5,
         5},
        {"order 4, second Born, the seed's loops", 5, 60, KBE_SELFENERGY_2B, KBE_SIGMA_DIRECT, 1,
         1.0, 4},
    };
    for (size_t c = 0; c < sizeof bdf / sizeof bdf[0]; c++)
        run_case(&bdf[c], 0.0);
    /* from t = 1.5, U on from the first step: the collision integrals' points next to t_0 (the
     * start weights of rows j < p - 1, kbe_cuda_collision.cu's k_collision_start) are far
     * from 0 here, not O(U(dt)) as under the ramp */
    const case_t on[] = {
        {"order 3, second Born, FFT, Nk = 6, U on", 6, 60, KBE_SELFENERGY_2B, KBE_SIGMA_FFT, 2,
         1.5, 3},
        {"order 4, second Born, FFT, U on", 8, 60, KBE_SELFENERGY_2B, KBE_SIGMA_FFT, 1, 1.0, 4},
        {"order 5, second Born, the seed's loops, U on", 5, 40, KBE_SELFENERGY_2B,
         KBE_SIGMA_DIRECT, 1, 1.0, 5},
    };
    for (size_t c = 0; c < sizeof on / sizeof on[0]; c++)
        run_case(&on[c], 1.5);
    rows_case(4, 100, 40); /* past the start block */
    rows_case(4, 60, 3);   /* inside it */
    graph_case(2);
    graph_case(4); /* the start block (rows 0 .. 6) the CPU's, then the BDF step as a graph */
    return check_exit();
}
