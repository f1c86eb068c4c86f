/* test_sj_configuration.c — the slater-jastrow model's configuration record (tag "SJC1":
 * positions and both spins' Slater rows and inverses, sj_checkpoint.c), what a walker of
 * diffusion Monte Carlo hands to another when the population is resampled (issue 46), called
 * through the core's verbs (save_configuration, load_configuration) on chains made as a run
 * makes them (sj_chain_util.h).  N = 14 at r_s = 2, rpa Jastrow, move = drift.
 *
 * (a) Chains A (seed 101) and B (seed 202) after 20 Metropolis sweeps each, and B' made and
 *     swept as B: A's configuration handed to B.  Then B measures A's observables bit for
 *     bit (energy, kinetic, potential, energy_sq: the same positions, rows and inverses give
 *     the same operations); B's full record (save) holds A's bytes where the configuration
 *     is and B''s elsewhere (its move stream, step and counters stay its own: the record is
 *     the raw fields, head 24 bytes, then 3N positions and four 7 x 7 matrices).
 * (b) One more sweep of A and of B from the same configuration: B's positions differ from
 *     A's (each chain draws from its own stream), and B's from B''s.
 * (c) Refusals: A's record loaded into a chain of N = 38 (another size: the record is cut
 *     short), and A's record with one position moved by 0.1 bohr (the rows no longer the
 *     orbitals there: the rebuild's check, "configuration handed over" in the message), and
 *     A's record with an entry of its up-spin inverse changed by 0.5 (Freivalds' O(m^2)
 *     residual of the pair, the hand-over's check of the inverse). */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "test_params.h"

#include "chain.h"
#include "internal.h"
#include "mcf/batch.h"
#include "mcf/error.h"
#include "mcf/model.h"
#include "model_ops.h"

#include <stdio.h>
#include <stdlib.h>

#include "sj_chain_util.h"

#define N 14
#define CONF_BEGIN (3 * sizeof(uint64_t))                          /* after the head */
#define CONF_END (CONF_BEGIN + (3 * N + 4 * 7 * 7) * sizeof(double)) /* positions, matrices */

static int make(sjc *c, uint64_t seed, const char *electrons)
{
    int rc = sjc_make(c, seed, "electrons", electrons, "rs", "2", "jastrow", "rpa", "move",
                      "drift", (const char *)NULL);
    CHECK(rc == MCF_OK, "create (seed %llu): %s", (unsigned long long)seed, mcf_last_error());
    return rc;
}

/* the chain's save() record into s (a writer the caller releases) */
static int record(sjc *c, mcf_stream *s)
{
    mcf_stream_init_writer(s);
    int rc = MCFI_MODEL(md, save, c->chain, s);
    CHECK(rc == MCF_OK, "save: %s", mcf_last_error());
    return rc;
}

/* loads the bytes (size) as a configuration into c; the return code */
static int hand_to(sjc *c, const void *bytes, size_t size)
{
    mcf_stream in;
    mcf_stream_init_reader(&in, bytes, size);
    return MCFI_MODEL(md, load_configuration, c->chain, &in);
}

int main(void)
{
    mcf_plugin *model = NULL;
    sjc a, b, b2, big;
    memset(&a, 0, sizeof a), memset(&b, 0, sizeof b), memset(&b2, 0, sizeof b2);
    memset(&big, 0, sizeof big);
    mcf_stream conf, ra, rb, rb2;
    mcf_stream_init_writer(&conf);
    mcf_stream_init_writer(&ra), mcf_stream_init_writer(&rb), mcf_stream_init_writer(&rb2);
    if (sj_util_open(&model) || make(&a, 101, "14") || make(&b, 202, "14") ||
        make(&b2, 202, "14") || metropolis(&a, 20) || metropolis(&b, 20) || metropolis(&b2, 20))
        goto done;
    CHECK(md->has_anneal, "slater-jastrow has a configuration record");
    double va[4], vb[4];
    if (sjc_measure(&a, va) || sjc_measure(&b, vb))
        goto done;
    CHECK(memcmp(va, vb, sizeof va) != 0, "A and B measure the same before the hand-over");

    /* (a) */
    int rc = MCFI_MODEL(md, save_configuration, a.chain, &conf);
    CHECK(rc == MCF_OK, "save_configuration: %s", mcf_last_error());
    rc = rc ? rc : hand_to(&b, conf.data, conf.size);
    CHECK(rc == MCF_OK, "load_configuration: %s", mcf_last_error());
    if (rc || sjc_measure(&b, vb) || record(&a, &ra) || record(&b, &rb) || record(&b2, &rb2))
        goto done;
    printf("(a) A: E = %.15f, kinetic %.15f, potential %.15f; B after the hand-over: E = %.15f, "
           "kinetic %.15f, potential %.15f (%zu bytes handed over)\n", va[0], va[1], va[2],
           vb[0], vb[1], vb[2], conf.size);
    CHECK(memcmp(va, vb, sizeof va) == 0, "(a) B does not measure A's bits after the hand-over");
    const int sizes = ra.size == rb.size && rb.size == rb2.size && rb.size > CONF_END;
    CHECK(sizes, "(a) records of %zu, %zu, %zu bytes (configuration ends at %zu)", ra.size,
          rb.size, rb2.size, (size_t)CONF_END);
    if (sizes) {
        const unsigned char *pa = ra.data, *pb = rb.data, *pb2 = rb2.data;
        CHECK(!memcmp(pa + CONF_BEGIN, pb + CONF_BEGIN, CONF_END - CONF_BEGIN),
              "(a) B's configuration is not A's");
        CHECK(!memcmp(pb, pb2, CONF_BEGIN) && !memcmp(pb + CONF_END, pb2 + CONF_END,
                                                       rb.size - CONF_END),
              "(a) the hand-over changed B's own state (stream, step, counters)");
        CHECK(memcmp(pa + CONF_END, pb + CONF_END, rb.size - CONF_END) != 0,
              "(a) B's own state is A's");
    }

    /* (b) */
    if (metropolis(&a, 1) || metropolis(&b, 1) || metropolis(&b2, 1))
        goto done;
    mcf_stream_release(&ra), mcf_stream_release(&rb), mcf_stream_release(&rb2);
    if (record(&a, &ra) || record(&b, &rb) || record(&b2, &rb2))
        goto done;
    const int moved_apart =
        memcmp((const char *)ra.data + CONF_BEGIN, (const char *)rb.data + CONF_BEGIN,
               3 * N * sizeof(double)) != 0 &&
        memcmp((const char *)rb2.data + CONF_BEGIN, (const char *)rb.data + CONF_BEGIN,
               3 * N * sizeof(double)) != 0;
    printf("(b) one sweep later, B's positions differ from A's and from B''s: %s\n",
           moved_apart ? "yes" : "NO");
    CHECK(moved_apart, "(b) B moved as A (or as B') after the hand-over");

    /* (c) */
    if (make(&big, 303, "38"))
        goto done;
    rc = hand_to(&big, conf.data, conf.size);
    printf("(c) N = 14's configuration into N = 38: %s\n", rc ? mcf_last_error() : "accepted");
    CHECK(rc != MCF_OK, "(c) a chain of N = 38 took the configuration of N = 14");
    unsigned char *bad = malloc(conf.size);
    if (bad) {
        memcpy(bad, conf.data, conf.size);
        double x;
        const size_t at = 4 + 4 * sizeof(double); /* after the tag: electron 1's y */
        memcpy(&x, bad + at, sizeof x);
        x += 0.1;
        memcpy(bad + at, &x, sizeof x);
        rc = hand_to(&b, bad, conf.size);
        printf("(c) a position moved by 0.1 bohr: %s\n", rc ? mcf_last_error() : "accepted");
        CHECK(rc == MCF_EFORMAT && strstr(mcf_last_error(), "configuration handed over"),
              "(c) a configuration whose rows are not the orbitals at its positions was not "
              "refused as such (rc %d)", rc);
        /* the up-spin inverse's first entry changed by 0.5 (the position restored): the rows
         * are right, the inverse is not theirs; Freivalds' residual refuses it */
        memcpy(bad, conf.data, conf.size);
        const size_t inv = 4 + (3 * N + 7 * 7) * sizeof(double);
        memcpy(&x, bad + inv, sizeof x);
        x += 0.5;
        memcpy(bad + inv, &x, sizeof x);
        rc = hand_to(&b, bad, conf.size);
        printf("(c) an entry of the up-spin inverse changed by 0.5: %s\n",
               rc ? mcf_last_error() : "accepted");
        CHECK(rc == MCF_EFORMAT && strstr(mcf_last_error(), "does not belong to the rows"),
              "(c) a configuration whose inverse is not its rows' was not refused as such "
              "(rc %d)", rc);
        free(bad);
    }
done:
    mcf_stream_release(&conf);
    mcf_stream_release(&ra), mcf_stream_release(&rb), mcf_stream_release(&rb2);
    sjc_free(&a), sjc_free(&b), sjc_free(&b2), sjc_free(&big);
    sj_util_close(model);
    return check_exit();
}
