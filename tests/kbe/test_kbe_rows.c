/* test_kbe_rows.c — checkpoint rows of the two-time propagator (kbe_row_write, kbe_row_read;
 * issue 45: resume gives the uninterrupted run's bytes), label physics:
 *
 * 1. For the self-energies none, hf and 2b (Nk = 8, dt = 0.05, 2 corrector passes, a small
 *    Gaussian pulse E(t) and a ramped U(t), both computed here): run A takes 30 steps
 *    straight; run B takes 12, writes rows 0 .. 12 to memory, is destroyed, and a new kbe of
 *    the same spec reads them back and takes the other 18 steps with the same drive.  Every
 *    G^< and G^> block (kbe_green, all i, j <= 30), kbe_density and kbe_energies at every n
 *    and kbe_corrector_residual at the end must be the same bits (memcmp).
 *    The same at order 4 (hf, resumed past the start block), order 5 (resumed inside it) and
 *    order 3 (none, resumed at its last row, which carries the block's rows again); rows
 *    are written right after their steps, as `mcf kbe` does.
 * 2. Refusals: row 0 into a kbe created with another E0, another rho0 or another order
 *    (MCF_EFORMAT: a foreign checkpoint), row 3 before row 2, a row into a kbe that has
 *    stepped, a row past the steps taken to kbe_row_write. */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kbe_core.h"
#include "mcf/error.h"

#define NK 8
#define STEPS 30
#define SPLIT 12
static const double two_pi = 6.28318530717958647692;
static const double dt = 0.05;

static double field(double t) { return 0.2 * exp(-(t - 0.7) * (t - 0.7) / 0.08) * cos(4.0 * t); }
static double coupling(double t) { return 0.8 * fmin(t / 1.0, 1.0) + 0.2; }

typedef struct {
    double eps[2 * NK];
    double complex rho0[4 * NK];
    kbe_spec spec;
} setup;

static void make_setup(setup *s, kbe_selfenergy se, double E0)
{
    for (size_t k = 0; k < NK; k++) {
        s->eps[2 * k] = -1.0 + 0.4 * cos(two_pi * (double)k / NK);
        s->eps[2 * k + 1] = 1.0 - 0.3 * cos(two_pi * (double)k / NK);
    }
    CHECK(kbe_rho_thermal(NK, s->eps, E0 * 0.4, 0.0, 0.1, s->rho0) == MCF_OK, "%s",
          mcf_last_error());
    s->spec = (kbe_spec){.nk = NK, .eps = s->eps, .dipole = 0.4, .rho0 = s->rho0, .dt = dt,
                         .steps = STEPS, .correctors = 2, .selfenergy = se};
}

/* what is compared, per run: G^< and G^> of all pairs, densities and energies of all n */
typedef struct {
    double complex g[2][STEPS + 1][STEPS + 1][4 * NK];
    double complex rho[STEPS + 1][4 * NK];
    double e[STEPS + 1][3];
    double residual;
} record;

static void take(kbe *w, record *r)
{
    for (int lesser = 0; lesser < 2; lesser++)
        for (size_t i = 0; i <= STEPS; i++)
            for (size_t j = 0; j <= STEPS; j++)
                kbe_green(w, lesser, i, j, r->g[lesser][i][j]);
    for (size_t n = 0; n <= STEPS; n++) {
        kbe_density(w, n, r->rho[n]);
        kbe_energies(w, n, &r->e[n][0], &r->e[n][1], &r->e[n][2]);
    }
    r->residual = kbe_corrector_residual(w);
}

static void steps(kbe *w, size_t from, size_t to)
{
    for (size_t n = from; n < to; n++) {
        const double t = (double)(n + 1) * dt;
        CHECK(kbe_step(w, field(t), coupling(t)) == MCF_OK, "step %zu: %s", n + 1,
              mcf_last_error());
    }
}

static void resume(kbe_selfenergy se, int order, size_t split, const char *name)
{
    setup s;
    make_setup(&s, se, field(0.0));
    s.spec.order = order;
    record *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    kbe *w = NULL;
    /* A: straight */
    CHECK(kbe_create(&s.spec, field(0.0), coupling(0.0), &w) == MCF_OK, "%s", mcf_last_error());
    steps(w, 0, STEPS);
    take(w, a);
    kbe_destroy(w);
    /* B: split steps, each row written right after its step (as `mcf kbe` does: at order
     * p > 2 the start block's rows 1 .. 2p - 3 are the provisional ones, row 2p - 2 carries
     * them again), a new kbe, rows in, the other steps */
    CHECK(kbe_create(&s.spec, field(0.0), coupling(0.0), &w) == MCF_OK, "%s", mcf_last_error());
    void *rows[SPLIT + 1];
    for (size_t n = 0; n <= split; n++) {
        if (n)
            steps(w, n - 1, n);
        rows[n] = malloc(kbe_row_bytes(w, n));
        CHECK(kbe_row_write(w, n, rows[n]) == MCF_OK, "row %zu: %s", n, mcf_last_error());
    }
    CHECK(kbe_row_write(w, split + 1, rows[0]) == MCF_EINVAL, "row past the steps written");
    kbe_destroy(w);
    CHECK(kbe_create(&s.spec, field(0.0), coupling(0.0), &w) == MCF_OK, "%s", mcf_last_error());
    for (size_t n = 0; n <= split; n++)
        CHECK(kbe_row_read(w, n, rows[n]) == MCF_OK, "%s: row %zu: %s", name, n,
              mcf_last_error());
    CHECK(kbe_steps_done(w) == split, "%s: at step %zu after the rows", name,
          kbe_steps_done(w));
    steps(w, split, STEPS);
    take(w, b);
    kbe_destroy(w);
    size_t bad = 0;
    for (int lesser = 0; lesser < 2; lesser++)
        for (size_t i = 0; i <= STEPS; i++)
            for (size_t j = 0; j <= STEPS; j++)
                bad += memcmp(a->g[lesser][i][j], b->g[lesser][i][j], sizeof a->g[0][0][0]) != 0;
    CHECK(bad == 0, "%s: %zu blocks of G differ between the straight and the resumed run",
          name, bad);
    CHECK(memcmp(a->rho, b->rho, sizeof a->rho) == 0, "%s: densities differ", name);
    CHECK(memcmp(a->e, b->e, sizeof a->e) == 0, "%s: energies differ", name);
    CHECK(memcmp(&a->residual, &b->residual, sizeof a->residual) == 0,
          "%s: corrector residual %.17g straight, %.17g resumed", name, a->residual,
          b->residual);
    printf("%s: resumed at step %zu of %d: G, rho, energies, residual (%.3g) the same bits\n",
           name, split, STEPS, a->residual);

    /* refusals */
    setup s2;
    make_setup(&s2, se, field(0.0));
    s2.spec.order = order == 2 ? 4 : 2; /* rows of another order (2b: order 2 only) */
    if (se != KBE_SELFENERGY_2B) {
        CHECK(kbe_create(&s2.spec, field(0.0), coupling(0.0), &w) == MCF_OK, "%s",
              mcf_last_error());
        CHECK(kbe_row_read(w, 0, rows[0]) == MCF_EFORMAT, "%s: row 0 of order %d taken at "
              "order %d", name, order, s2.spec.order);
        printf("%s: another order: %s\n", name, mcf_last_error());
        kbe_destroy(w);
    }
    s2.spec.order = order;
    CHECK(kbe_create(&s2.spec, field(0.0) + 0.1, coupling(0.0), &w) == MCF_OK, "%s",
          mcf_last_error());
    CHECK(kbe_row_read(w, 0, rows[0]) == MCF_EFORMAT, "%s: row 0 of another E0 taken", name);
    printf("%s: another E0: %s\n", name, mcf_last_error());
    kbe_destroy(w);
    s2.rho0[0] = 0.5 * s2.rho0[0];
    CHECK(kbe_create(&s2.spec, field(0.0), coupling(0.0), &w) == MCF_OK, "%s", mcf_last_error());
    CHECK(kbe_row_read(w, 0, rows[0]) == MCF_EFORMAT, "%s: row 0 of another rho0 taken", name);
    kbe_destroy(w);
    CHECK(kbe_create(&s.spec, field(0.0), coupling(0.0), &w) == MCF_OK, "%s", mcf_last_error());
    CHECK(kbe_row_read(w, 1, rows[1]) != MCF_OK, "%s: row 1 before row 0 taken", name);
    CHECK(kbe_row_read(w, 0, rows[0]) == MCF_OK, "%s", mcf_last_error());
    CHECK(kbe_row_read(w, 1, rows[1]) == MCF_OK, "%s", mcf_last_error());
    CHECK(kbe_row_read(w, 3, rows[3]) != MCF_OK, "%s: row 3 before row 2 taken", name);
    CHECK(kbe_row_read(w, 2, rows[1]) == MCF_EFORMAT, "%s: row 1 taken as row 2", name);
    CHECK(kbe_steps_done(w) == 1, "%s: a refused row moved the kbe", name);
    steps(w, 1, 2);
    CHECK(kbe_row_read(w, 2, rows[2]) != MCF_OK, "%s: a row into a stepped kbe taken", name);
    kbe_destroy(w);
    for (size_t n = 0; n <= split; n++)
        free(rows[n]);
    free(a);
    free(b);
}

int main(void)
{
    resume(KBE_SELFENERGY_NONE, 2, SPLIT, "none");
    resume(KBE_SELFENERGY_HF, 2, SPLIT, "hf");
    resume(KBE_SELFENERGY_2B, 2, SPLIT, "2b");
    resume(KBE_SELFENERGY_HF, 4, SPLIT, "hf, order 4");
    resume(KBE_SELFENERGY_HF, 5, 5, "hf, order 5, inside the start block");
    resume(KBE_SELFENERGY_NONE, 3, 4, "none, order 3, at the start block's end");
    return check_exit();
}
