/* test_comb.c — the comb (core/engine/comb.c: systematic resampling of weighted walkers,
 * the branching of diffusion Monte Carlo's fixed population) against what it must be
 * exactly:
 *   (a) equal weights: every walker once, nothing moves, for any u;
 *   (b) weights 3, 1, 0, 0: copies 3, 1, 0, 0 for any u, the copies of walker 0 in slots 2
 *       and 3;
 *   (c) random weights (M = 1, 2, 7, 64, 1000; exponentials, some zero, spread over 1e-300 ..
 *       1), 4096 values of u each: the copies add up to M, each is floor(M p_k) or its
 *       ceiling, walker k occupies exactly copies_k slots, its own among them when
 *       copies_k >= 1; and averaged over the midpoints u_j = (j + 1/2) / G the copies are
 *       M p_k within 2 / G (n_k(u) is a step function of u with mean exactly M p_k and at
 *       most two jumps, each misplaced by at most one midpoint interval);
 *   (d) refusals: a negative, NaN or infinite weight (the message names the walker), all
 *       zero, u = 1 or negative, M = 0. */
#include "check.h"
#include "comb.h"
#include "mcf/error.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define G 4096

static uint64_t state = 0x9e3779b97f4a7c15ULL;
static double uniform(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return (double)(state >> 11) * 0x1p-53;
}

/* the checks of (c) on one comb; 1 when all hold */
static int consistent(const double *w, size_t M, const size_t *copies, const size_t *from)
{
    double W = 0.0;
    for (size_t k = 0; k < M; k++)
        W += w[k];
    size_t sum = 0, *seen = calloc(M, sizeof *seen);
    int ok = seen != NULL;
    for (size_t d = 0; d < M && ok; d++)
        ok = from[d] < M && ++seen[from[d]];
    for (size_t k = 0; k < M && ok; k++) {
        const double e = (double)M * w[k] / W;
        sum += copies[k];
        ok &= copies[k] == (size_t)floor(e) || copies[k] == (size_t)ceil(e);
        ok &= seen[k] == copies[k];
        ok &= copies[k] == 0 || from[k] == k;
    }
    free(seen);
    return ok && sum == M;
}

static void check_random(size_t M)
{
    double *w = malloc(M * sizeof *w), *mean = calloc(M, sizeof *mean);
    size_t *copies = malloc(M * sizeof *copies), *from = malloc(M * sizeof *from);
    if (!w || !mean || !copies || !from) {
        CHECK(0, "out of memory");
        goto out;
    }
    for (size_t k = 0; k < M; k++) {
        const double x = uniform();
        w[k] = x < 0.1 ? 0.0 : x < 0.15 ? 1e-300 : -log(uniform() + 1e-300);
    }
    w[M / 2] = w[M / 2] > 0 ? w[M / 2] : 1.0; /* not all zero */
    int ok = 1;
    for (int j = 0; j < G && ok; j++) {
        const double u = (j + 0.5) / G;
        ok = mcfi_comb(w, M, u, copies, from) == MCF_OK && consistent(w, M, copies, from);
        for (size_t k = 0; k < M; k++)
            mean[k] += (double)copies[k] / G;
    }
    CHECK(ok, "(c) M = %zu: a comb broke a rule (%s)", M, mcf_last_error());
    double W = 0.0, worst = 0.0;
    for (size_t k = 0; k < M; k++)
        W += w[k];
    for (size_t k = 0; k < M; k++)
        worst = fmax(worst, fabs(mean[k] - (double)M * w[k] / W));
    printf("(c) M = %4zu: every rule held over %d values of u; max |<n_k> - M p_k| = %.2e "
           "(bound %.2e)\n", M, G, worst, 2.0 / G);
    CHECK(worst <= 2.0 / G + 1e-12, "(c) M = %zu: the mean copies are off by %g", M, worst);
out:
    free(w), free(mean), free(copies), free(from);
}

static void refused(const double *w, size_t M, double u, const char *needle)
{
    size_t from[8];
    const int rc = mcfi_comb(w, M, u, NULL, from);
    printf("(d) %-28s %s\n", needle, rc ? mcf_last_error() : "accepted");
    CHECK(rc == MCF_EINVAL && strstr(mcf_last_error(), needle), "(d) not refused with '%s'",
          needle);
}

int main(void)
{
    size_t copies[4], from[4];
    const double equal[4] = {2, 2, 2, 2}, skew[4] = {3, 1, 0, 0};
    for (int j = 0; j < 16; j++) {
        const double u = j / 16.0;
        int rc = mcfi_comb(equal, 4, u, copies, from);
        CHECK(rc == MCF_OK && copies[0] == 1 && copies[3] == 1 && from[0] == 0 &&
                  from[1] == 1 && from[2] == 2 && from[3] == 3,
              "(a) equal weights, u = %g: not the identity", u);
        rc = mcfi_comb(skew, 4, u, copies, from);
        CHECK(rc == MCF_OK && copies[0] == 3 && copies[1] == 1 && copies[2] == 0 &&
                  copies[3] == 0 && from[0] == 0 && from[1] == 1 && from[2] == 0 &&
                  from[3] == 0,
              "(b) weights 3 1 0 0, u = %g: copies %zu %zu %zu %zu, from %zu %zu %zu %zu", u,
              copies[0], copies[1], copies[2], copies[3], from[0], from[1], from[2], from[3]);
    }
    printf("(a), (b): 16 values of u each\n");
    const size_t sizes[] = {1, 2, 7, 64, 1000};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        check_random(sizes[i]);
    const double neg[3] = {1, 1, -1}, nan3[3] = {1, 1, NAN}, inf3[3] = {1, 1, INFINITY};
    const double zero[3] = {0, 0, 0};
    refused(neg, 3, 0.5, "walker 2 has weight -1");
    refused(nan3, 3, 0.5, "walker 2 has weight nan");
    refused(inf3, 3, 0.5, "walker 2 has weight inf");
    refused(zero, 3, 0.5, "sum to 0");
    refused(equal, 4, 1.0, "the uniform 1 is not in [0, 1)");
    refused(equal, 4, -0.25, "the uniform -0.25");
    refused(equal, 0, 0.5, "an empty population");
    return check_exit();
}
