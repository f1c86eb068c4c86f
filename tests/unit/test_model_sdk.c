/* test_model_sdk.c — the SDK helpers for model plugins, against expectations computed
 * independently in this file:
 *
 *   mcf_batch            scratch of growing sizes writable end to end, aligned, reused;
 *                        keep slots: zeroed once, the same memory per owner across scratch
 *                        calls, distinct per owner and per batch, refused when asked larger,
 *                        released newest first exactly once at destroy;
 *   mcf_services_stream  a model's own streams: the declared numbers (first + chain), the
 *                        core's choice 2^61 + j 2^33 + k, keyed streams, refusals; and
 *                        mcf_streams_check's overlaps, names and flags;
 *   mcf_state            save() equals hand-written mcf_stream_write calls byte for byte,
 *                        load() restores every field bit for bit and refuses foreign, corrupt
 *                        and truncated records with MCF_EFORMAT naming the field;
 *   mcf_adapt_step       the factor clamp, target scaling and [min, max] clamp, by hand;
 *   mcf_lattice_parity   (-1)^(x+y+z) from the positions; bcc corners/centres;
 *   mcf_lattice_from_params  kind, L, boundary from a MCF_LATTICE_PARAMS spec, the
 *                        MCF_LATTICE_SIMPLE_BONDS refusal of the L = 2 torus;
 *   mcf_hamiltonian_set_hopping  the dense H equals -t times the adjacency matrix built from
 *                        the neighbour table;
 *   mcf_fermion_*        bind/has/workspace and the batched calls with a fake evaluator that
 *                        records what it is handed;
 *   MCF_HAS              struct_size covering or not covering a field, a NULL field;
 *   mcf_change_onsite    on a struct full of garbage: a valid rank-1 change of one entry.
 * The mcf_fermion_* helpers tested are ABI 1's (mcf 0.1-0.8: still exported for the plugins
 * built with them), with a fake ABI-1 evaluator: this file is built against ABI 1's private
 * headers (core/sdk/abi1; tests/unit/CMakeLists.txt), which come first.  ABI 2's helpers
 * are the in-tree models' (tests/physics, tests/abi). */
#include "mcf/abi1.h"

#include <math.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "internal.h"
#include "mcf/mcf.h"
#include "test_params.h"

static int contains(const char *s, const char *part) { return s && strstr(s, part) != NULL; }

/* ==== 1. mcf_batch ====================================================================== */

static int aligned_to(const void *p, size_t a) { return (uintptr_t)p % a == 0; }

static void test_batch(void)
{
    mcf_batch *b = mcf_batch_create();
    CHECK(b != NULL, "mcf_batch_create returned NULL");
    if (!b)
        return;
    static const size_t sizes[] = {1, 7, 16, 100, 255, 256, 257, 1000, 4096, 65537, 1u << 20,
                                   3000000};
    const size_t n_sizes = sizeof sizes / sizeof sizes[0];
    size_t max_so_far = 0;
    unsigned char *last = NULL;
    for (size_t s = 0; s < n_sizes; s++) {
        const size_t bytes = sizes[s];
        unsigned char *p = mcf_batch_scratch(b, bytes);
        CHECK(p != NULL, "scratch of %zu bytes: NULL (%s)", bytes, mcf_last_error());
        if (!p)
            continue;
        CHECK(aligned_to(p, 16), "scratch of %zu bytes at %p: not 16-byte aligned", bytes,
              (void *)p);
        CHECK(aligned_to(p, alignof(max_align_t)),
              "scratch of %zu bytes at %p: not aligned to alignof(max_align_t) = %zu", bytes,
              (void *)p, (size_t)alignof(max_align_t));
        if (bytes <= max_so_far)
            CHECK(p == last, "scratch of %zu bytes after %zu: moved (%p -> %p)", bytes,
                  max_so_far, (void *)last, (void *)p);
        for (size_t i = 0; i < bytes; i++)
            p[i] = (unsigned char)(i * 131u + bytes * 7u + 1u);
        size_t bad = 0, first_bad = 0;
        for (size_t i = 0; i < bytes; i++)
            if (p[i] != (unsigned char)(i * 131u + bytes * 7u + 1u) && !bad++)
                first_bad = i;
        CHECK(bad == 0, "scratch of %zu bytes: %zu bytes read back wrong (first at %zu)", bytes,
              bad, first_bad);
        if (bytes > max_so_far)
            max_so_far = bytes;
        last = p;
    }
    /* smaller again: the same batch, the same memory, still writable at the old size */
    for (size_t s = 0; s < n_sizes; s++) {
        unsigned char *p = mcf_batch_scratch(b, sizes[s]);
        CHECK(p == last, "scratch of %zu bytes after %zu: %p, expected the kept %p", sizes[s],
              max_so_far, (void *)p, (void *)last);
    }
    if (last) {
        memset(last, 0x5A, max_so_far);
        CHECK(last[0] == 0x5A && last[max_so_far - 1] == 0x5A, "largest scratch not writable");
    }

    /* two batches do not share scratch */
    mcf_batch *b2 = mcf_batch_create();
    CHECK(b2 != NULL && b2 != b, "second batch: %p (first %p)", (void *)b2, (void *)b);
    if (b2) {
        unsigned char *p1 = mcf_batch_scratch(b, 512), *p2 = mcf_batch_scratch(b2, 512);
        CHECK(p1 && p2 && (p2 >= p1 + max_so_far || p1 >= p2 + 512),
              "two batches' scratch overlap: %p and %p", (void *)p1, (void *)p2);
        mcf_batch_destroy(b2);
    }

    mcf_clear_error();
    void *none = mcf_batch_scratch(NULL, 64);
    CHECK(none == NULL, "scratch of a NULL batch: %p, expected NULL", none);
    CHECK(mcf_last_error()[0] != '\0', "scratch of a NULL batch left no error message");
    CHECK(contains(mcf_last_error(), "batch"), "NULL batch message: %s", mcf_last_error());

    mcf_batch_destroy(b);
    mcf_batch_destroy(NULL); /* ignored */
    CHECK(1, "destroy(NULL) returned");
}

/* keep slots: what a plugin keeps per batch across calls */
static int released[8], n_released;
static void record_release(void *slot) { released[n_released++ % 8] = *(int *)slot; }

static void test_batch_keep(void)
{
    static char owner_a, owner_b; /* any addresses of the plugin's own */
    mcf_batch *b = mcf_batch_create(), *b2 = mcf_batch_create();
    CHECK(b && b2, "mcf_batch_create returned NULL");
    if (!b || !b2)
        return;
    int *a = mcf_batch_keep(b, &owner_a, 64 * sizeof(int), record_release);
    CHECK(a != NULL, "first keep: NULL (%s)", mcf_last_error());
    if (!a)
        return;
    int zero = 1;
    for (int i = 0; i < 64; i++)
        zero &= a[i] == 0;
    CHECK(zero, "a new slot is not zeroed");
    CHECK(aligned_to(a, alignof(max_align_t)), "slot at %p not aligned", (void *)a);
    a[0] = 11;
    a[63] = 12;
    /* scratch of the same batch, grown, does not move or clobber the slot */
    unsigned char *sc = mcf_batch_scratch(b, 1u << 20);
    CHECK(sc != NULL, "scratch after a slot: NULL");
    if (sc)
        memset(sc, 0xA5, 1u << 20);
    int *again = mcf_batch_keep(b, &owner_a, 64 * sizeof(int), record_release);
    CHECK(again == a && a[0] == 11 && a[63] == 12,
          "keep again: %p (first %p), contents %d %d, expected 11 12", (void *)again,
          (void *)a, a[0], a[63]);
    int *smaller = mcf_batch_keep(b, &owner_a, 4, NULL);
    CHECK(smaller == a, "keep with fewer bytes: %p, expected the same slot %p", (void *)smaller,
          (void *)a);
    int *other = mcf_batch_keep(b, &owner_b, sizeof(int), record_release);
    CHECK(other && other != a && *other == 0, "second owner: %p (first %p)", (void *)other,
          (void *)a);
    if (other)
        *other = 22;
    int *elsewhere = mcf_batch_keep(b2, &owner_a, sizeof(int), record_release);
    CHECK(elsewhere && elsewhere != a && *elsewhere == 0,
          "the same owner in another batch: %p, expected a zeroed slot of its own", (void *)elsewhere);
    if (elsewhere)
        *elsewhere = 33;
    mcf_clear_error();
    int *larger = mcf_batch_keep(b, &owner_a, 65 * sizeof(int), NULL);
    CHECK(larger == NULL && contains(mcf_last_error(), "never grows"),
          "a larger request: %p, message '%s'", (void *)larger, mcf_last_error());
    CHECK(mcf_batch_keep(b, NULL, 8, NULL) == NULL, "a NULL owner was accepted");
    CHECK(mcf_batch_keep(NULL, &owner_a, 8, NULL) == NULL, "a NULL batch was accepted");
    n_released = 0;
    mcf_batch_destroy(b);
    CHECK(n_released == 2 && released[0] == 22 && released[1] == 11,
          "release at destroy: %d calls (%d, %d), expected 2 newest first (22, 11)", n_released,
          released[0], released[1]);
    mcf_batch_destroy(b2);
    CHECK(n_released == 3 && released[2] == 33, "second batch's release: %d calls", n_released);
}

/* a model's own random streams (mcf 0.5): the numbers the docs promise, drawn by hand */
static int same_stream(mcf_rng *a, uint64_t seed, uint64_t stream)
{
    mcf_rng b;
    mcf_rng_init(&b, seed, stream);
    for (int i = 0; i < 4; i++)
        if (mcf_rng_u64(a) != mcf_rng_u64(&b))
            return 0;
    return 1;
}

static void test_streams(void)
{
    static const mcf_stream_spec spec[] = {
        {"measurement", (UINT64_C(1) << 62) + 5, 0, "declared"},
        {"chosen", 0, 0, "the core's choice"},
        {"disorder", UINT64_C(1) << 63, MCF_STREAM_KEYED, "keyed"},
        {"chosen_keyed", 0, MCF_STREAM_KEYED, "keyed, the core's choice"},
        {NULL, 0, 0, NULL}};
    mcf_services sv;
    memset(&sv, 0, sizeof sv);
    sv.struct_size = sizeof sv;
    sv.seed = 0x1234567890abcdefULL;
    sv.chain_index = 77;
    sv.streams = spec;
    mcf_rng r;
    CHECK(mcf_services_stream(&sv, "measurement", &r) == MCF_OK &&
              same_stream(&r, sv.seed, (UINT64_C(1) << 62) + 5 + 77),
          "declared stream: not stream first + chain of the seed (%s)", mcf_last_error());
    CHECK(mcf_services_stream(&sv, "chosen", &r) == MCF_OK &&
              same_stream(&r, sv.seed, (UINT64_C(1) << 61) + (UINT64_C(1) << 33) + 77),
          "the core's choice for stream 1: not 2^61 + 2^33 + chain");
    CHECK(mcf_services_keyed_stream(&sv, "disorder", 999, &r) == MCF_OK &&
              same_stream(&r, 999, UINT64_C(1) << 63),
          "keyed stream: not stream first of the key");
    CHECK(mcf_services_keyed_stream(&sv, "chosen_keyed", 5, &r) == MCF_OK &&
              same_stream(&r, 5, (UINT64_C(1) << 61) + 3 * (UINT64_C(1) << 33)),
          "keyed, chosen: not 2^61 + 3 2^33 of the key");
    mcf_clear_error();
    CHECK(mcf_services_stream(&sv, "nonesuch", &r) == MCF_EINVAL &&
              contains(mcf_last_error(), "nonesuch") && contains(mcf_last_error(), "measurement"),
          "an undeclared stream: '%s'", mcf_last_error());
    CHECK(mcf_services_stream(&sv, "disorder", &r) == MCF_EINVAL &&
              contains(mcf_last_error(), "mcf_services_keyed_stream"),
          "a keyed stream taken per chain: '%s'", mcf_last_error());
    CHECK(mcf_services_keyed_stream(&sv, "measurement", 1, &r) == MCF_EINVAL,
          "a chain stream taken keyed was accepted");
    sv.struct_size = (uint32_t)offsetof(mcf_services, streams); /* a core before 0.5 */
    CHECK(mcf_services_stream(&sv, "measurement", &r) == MCF_EINVAL,
          "services without the streams field: accepted");

    CHECK(mcf_streams_check("p.so", spec) == MCF_OK, "a good declaration refused: %s",
          mcf_last_error());
    CHECK(mcf_streams_check("p.so", NULL) == MCF_OK, "no declaration refused");
    static const struct {
        mcf_stream_spec spec[3];
        const char *says;
    } bad[] = {
        {{{"a", (UINT64_C(1) << 32) - 1, 0, ""}, {NULL, 0, 0, NULL}}, "chains' streams"},
        {{{"a", UINT64_MAX - (UINT64_C(1) << 32) + 1, 0, ""}, {NULL, 0, 0, NULL}}, "exchange"},
        {{{"a", UINT64_MAX, MCF_STREAM_KEYED, ""}, {NULL, 0, 0, NULL}}, "exchange"},
        {{{"a", UINT64_C(1) << 40, 0, ""}, {"b", (UINT64_C(1) << 40) + (UINT64_C(1) << 32) - 1,
                                            MCF_STREAM_KEYED, ""}, {NULL, 0, 0, NULL}}, "overlap"},
        /* b is the core's choice for stream 1: [2^61 + 2^33, 2^61 + 2^33 + 2^32) */
        {{{"a", (UINT64_C(1) << 61) + (UINT64_C(1) << 33) - 5, 0, ""}, {"b", 0, 0, ""},
          {NULL, 0, 0, NULL}}, "overlap"},
        {{{"a", UINT64_C(1) << 40, 0, ""}, {"a", UINT64_C(1) << 50, 0, ""}, {NULL, 0, 0, NULL}},
         "twice"},
        {{{"Measure", UINT64_C(1) << 40, 0, ""}, {NULL, 0, 0, NULL}}, "lower_snake_case"},
        {{{"a", UINT64_C(1) << 40, 4u, ""}, {NULL, 0, 0, NULL}}, "flags"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        mcf_clear_error();
        int rc = mcf_streams_check("p.so", bad[k].spec);
        CHECK(rc == MCF_EPLUGIN && contains(mcf_last_error(), bad[k].says) &&
                  contains(mcf_last_error(), "p.so"),
              "bad declaration %zu: rc %d, '%s' (expected '%s')", k, rc, mcf_last_error(),
              bad[k].says);
    }
    /* the edges: a declared range right after the chains' and right below the exchange */
    static const mcf_stream_spec edges[] = {
        {"low", UINT64_C(1) << 32, 0, ""},
        {"high", UINT64_MAX - (UINT64_C(1) << 32), 0, ""},
        {"key", UINT64_MAX - 1 - (UINT64_C(1) << 32), MCF_STREAM_KEYED, ""},
        {NULL, 0, 0, NULL}};
    CHECK(mcf_streams_check("p.so", edges) == MCF_OK, "ranges that just touch refused: %s",
          mcf_last_error());
}

/* ==== 2. mcf_state ====================================================================== */

typedef struct test_chain {
    unsigned char spins[13];
    int64_t sites;
    double x[5];
    mcf_rng rng;
    int64_t dims[12]; /* a FIXED field above the 64-byte stack buffer of load() */
    unsigned char untouched;
} test_chain;

#define TEST_TAG "TST1"
#define TEST_MODEL "my-model"

/* The description: 7 fields, two of them of zero bytes (NULL data) that must be skipped. */
static size_t chain_state(test_chain *c, mcf_state_field f[])
{
    f[0] = MCF_STATE_DATA("spins", c->spins, sizeof c->spins);
    f[1] = MCF_STATE_DATA("nothing", NULL, 0);
    f[2] = MCF_STATE_FIXED("sites", &c->sites, sizeof c->sites);
    f[3] = MCF_STATE_REALS("positions", c->x, 5);
    f[4] = MCF_STATE_REALS("no reals", NULL, 0);
    f[5] = MCF_STATE_RNG("measurement stream", &c->rng);
    f[6] = MCF_STATE_FIXED("dims", c->dims, sizeof c->dims);
    return 7;
}

/* byte offsets of the fields in the record (tag first), computed from the layout above */
enum {
    OFF_SPINS = 4,
    OFF_SITES = OFF_SPINS + 13,
    OFF_X = OFF_SITES + 8,
    OFF_RNG = OFF_X + 5 * 8,
    OFF_DIMS = OFF_RNG + (int)sizeof(mcf_rng),
    RECORD_BYTES = OFF_DIMS + 12 * 8
};

static void chain_fill(test_chain *c)
{
    memset(c, 0, sizeof *c);
    for (int i = 0; i < 13; i++)
        c->spins[i] = (unsigned char)(0x30 + 17 * i);
    c->sites = 4096;
    c->x[0] = 0.1;
    c->x[1] = -0.0;
    c->x[2] = 4.9406564584124654e-324; /* the smallest subnormal */
    c->x[3] = -1.7976931348623157e308;
    c->x[4] = 1.0 / 3.0;
    mcf_rng_init(&c->rng, 0x123456789abcdefull, 42);
    (void)mcf_rng_u32(&c->rng); /* a partly used block: used = 1 */
    (void)mcf_rng_u64(&c->rng);
    for (int i = 0; i < 12; i++)
        c->dims[i] = 1000 + 3 * i;
    c->untouched = 0x77;
}

/* A fresh chain as create() would make it with the same configuration: the FIXED fields
 * equal, everything else different. */
static void chain_fresh(test_chain *c)
{
    memset(c, 0xEE, sizeof *c);
    c->sites = 4096;
    for (int i = 0; i < 12; i++)
        c->dims[i] = 1000 + 3 * i;
    mcf_rng_init(&c->rng, 7, 7);
    c->untouched = 0x77;
}

static int state_save_bytes(test_chain *c, const char *tag, mcf_stream *out)
{
    mcf_state_field f[8];
    mcf_stream_init_writer(out);
    return mcf_state_save(out, tag, f, chain_state(c, f));
}

static int state_load_bytes(test_chain *c, const char *tag, const unsigned char *data,
                            size_t size)
{
    mcf_state_field f[8];
    mcf_stream in;
    mcf_stream_init_reader(&in, data, size);
    int rc = mcf_state_load(&in, tag, TEST_MODEL, f, chain_state(c, f));
    mcf_stream_release(&in);
    return rc;
}

static void test_state(void)
{
    test_chain c;
    chain_fill(&c);

    /* save = the hand-written sequence of writes */
    mcf_stream saved, hand;
    int rc = state_save_bytes(&c, TEST_TAG, &saved);
    CHECK(rc == MCF_OK, "state save: rc %d (%s)", rc, mcf_last_error());
    mcf_stream_init_writer(&hand);
    mcf_stream_write(&hand, "TST1", 4);
    mcf_stream_write(&hand, c.spins, 13);
    mcf_stream_write(&hand, &c.sites, sizeof(int64_t));
    mcf_stream_write(&hand, c.x, 5 * sizeof(double));
    mcf_stream_write(&hand, &c.rng, sizeof(mcf_rng));
    mcf_stream_write(&hand, c.dims, 12 * sizeof(int64_t));
    CHECK(saved.size == (size_t)RECORD_BYTES, "saved record: %zu bytes, expected %d",
          saved.size, RECORD_BYTES);
    CHECK(hand.size == saved.size && !memcmp(hand.data, saved.data, hand.size),
          "saved record differs from the hand-written one (%zu vs %zu bytes)", saved.size,
          hand.size);
    CHECK(saved.size >= 4 && !memcmp(saved.data, "TST1", 4), "record does not start with "
          "the tag");
    mcf_stream_release(&hand);

    /* load restores every field bit for bit, leaves the rest alone */
    test_chain d;
    chain_fresh(&d);
    rc = state_load_bytes(&d, TEST_TAG, saved.data, saved.size);
    CHECK(rc == MCF_OK, "state load: rc %d (%s)", rc, mcf_last_error());
    CHECK(!memcmp(d.spins, c.spins, sizeof c.spins), "DATA spins not restored");
    CHECK(d.sites == c.sites, "FIXED sites changed: %lld", (long long)d.sites);
    CHECK(!memcmp(d.x, c.x, sizeof c.x), "REALS x not restored bit for bit");
    CHECK(signbit(d.x[1]) && d.x[1] == 0.0, "x[1]: -0.0 lost its sign");
    CHECK(!memcmp(&d.rng, &c.rng, sizeof c.rng), "RNG not restored bit for bit");
    CHECK(!memcmp(d.dims, c.dims, sizeof c.dims), "FIXED dims changed");
    CHECK(d.untouched == 0x77, "a byte outside the description changed");
    int same_draws = 1;
    for (int i = 0; i < 9; i++)
        same_draws &= mcf_rng_u32(&d.rng) == mcf_rng_u32(&c.rng);
    CHECK(same_draws, "the loaded stream draws other numbers than the saved one");
    chain_fill(&c); /* undo the draws */

    /* a wrong tag */
    chain_fresh(&d);
    mcf_clear_error();
    rc = state_load_bytes(&d, "TST2", saved.data, saved.size);
    CHECK(rc == MCF_EFORMAT, "wrong tag: rc %d, expected MCF_EFORMAT", rc);
    CHECK(contains(mcf_last_error(), TEST_MODEL) &&
              contains(mcf_last_error(), "esume with the configuration"),
          "wrong tag message: %s", mcf_last_error());

    /* FIXED mismatch: names the field */
    chain_fresh(&d);
    d.sites = 4097;
    mcf_clear_error();
    rc = state_load_bytes(&d, TEST_TAG, saved.data, saved.size);
    CHECK(rc == MCF_EFORMAT, "FIXED sites mismatch: rc %d, expected MCF_EFORMAT", rc);
    CHECK(contains(mcf_last_error(), TEST_MODEL) && contains(mcf_last_error(), "sites") &&
              contains(mcf_last_error(), "esume with the configuration"),
          "FIXED mismatch message: %s", mcf_last_error());
    CHECK(d.sites == 4097, "a refused FIXED field was overwritten: %lld", (long long)d.sites);
    /* ... in the last byte of a FIXED field longer than 64 bytes */
    chain_fresh(&d);
    d.dims[11] ^= (int64_t)1 << 56;
    mcf_clear_error();
    rc = state_load_bytes(&d, TEST_TAG, saved.data, saved.size);
    CHECK(rc == MCF_EFORMAT && contains(mcf_last_error(), "dims") &&
              contains(mcf_last_error(), TEST_MODEL),
          "FIXED dims (96 bytes) mismatch: rc %d, %s", rc, mcf_last_error());

    unsigned char *bad = malloc(saved.size);
    if (!bad)
        abort();
    /* a NaN in REALS, at index 2 */
    memcpy(bad, saved.data, saved.size);
    const double nan_v = NAN, inf_v = INFINITY;
    memcpy(bad + OFF_X + 2 * 8, &nan_v, 8);
    chain_fresh(&d);
    mcf_clear_error();
    rc = state_load_bytes(&d, TEST_TAG, bad, saved.size);
    CHECK(rc == MCF_EFORMAT, "NaN in x[2]: rc %d, expected MCF_EFORMAT", rc);
    CHECK(contains(mcf_last_error(), TEST_MODEL) && contains(mcf_last_error(), "positions[2]"),
          "NaN message: %s", mcf_last_error());
    /* an inf at index 4 */
    memcpy(bad, saved.data, saved.size);
    memcpy(bad + OFF_X + 4 * 8, &inf_v, 8);
    chain_fresh(&d);
    mcf_clear_error();
    rc = state_load_bytes(&d, TEST_TAG, bad, saved.size);
    CHECK(rc == MCF_EFORMAT, "inf in x[4]: rc %d, expected MCF_EFORMAT", rc);
    CHECK(contains(mcf_last_error(), TEST_MODEL) && contains(mcf_last_error(), "positions[4]"),
          "inf message: %s", mcf_last_error());
    /* -inf at index 0 */
    memcpy(bad, saved.data, saved.size);
    const double minf_v = -INFINITY;
    memcpy(bad + OFF_X, &minf_v, 8);
    chain_fresh(&d);
    rc = state_load_bytes(&d, TEST_TAG, bad, saved.size);
    CHECK(rc == MCF_EFORMAT && contains(mcf_last_error(), "positions[0]"), "-inf in x[0]: rc %d, %s",
          rc, mcf_last_error());

    /* an RNG with used = 5 is refused, used = 4 (an empty block) is a valid state */
    const uint32_t used5 = 5, used4 = 4;
    memcpy(bad, saved.data, saved.size);
    memcpy(bad + OFF_RNG + offsetof(mcf_rng, used), &used5, 4);
    chain_fresh(&d);
    mcf_clear_error();
    rc = state_load_bytes(&d, TEST_TAG, bad, saved.size);
    CHECK(rc == MCF_EFORMAT, "RNG used = 5: rc %d, expected MCF_EFORMAT", rc);
    CHECK(contains(mcf_last_error(), TEST_MODEL) &&
              contains(mcf_last_error(), "measurement stream"),
          "RNG message: %s", mcf_last_error());
    memcpy(bad + OFF_RNG + offsetof(mcf_rng, used), &used4, 4);
    chain_fresh(&d);
    rc = state_load_bytes(&d, TEST_TAG, bad, saved.size);
    CHECK(rc == MCF_OK && d.rng.used == 4, "RNG used = 4: rc %d (%s)", rc, mcf_last_error());
    free(bad);

    /* every truncation is refused; a cut inside a field names that field */
    static const struct {
        int from, to;
        const char *name;
    } spans[] = {{0, OFF_SPINS, TEST_MODEL},          {OFF_SPINS, OFF_SITES, "spins"},
                 {OFF_SITES, OFF_X, "sites"},         {OFF_X, OFF_RNG, "positions"},
                 {OFF_RNG, OFF_DIMS, "measurement stream"}, {OFF_DIMS, RECORD_BYTES, "dims"}};
    int trunc_rc_bad = 0, trunc_msg_bad = 0;
    for (size_t cut = 0; cut < saved.size; cut++) {
        chain_fresh(&d);
        mcf_clear_error();
        rc = state_load_bytes(&d, TEST_TAG, saved.data, cut);
        const char *want = NULL;
        for (size_t s = 0; s < sizeof spans / sizeof spans[0]; s++)
            if ((int)cut >= spans[s].from && (int)cut < spans[s].to)
                want = spans[s].name;
        if (rc != MCF_EFORMAT && !trunc_rc_bad++)
            CHECK(0, "record cut at %zu of %zu bytes: rc %d, expected MCF_EFORMAT", cut,
                  saved.size, rc);
        if ((!contains(mcf_last_error(), TEST_MODEL) || !want ||
             !contains(mcf_last_error(), want)) &&
            !trunc_msg_bad++)
            CHECK(0, "record cut at %zu: message should name %s: %s", cut,
                  want ? want : "?", mcf_last_error());
    }
    CHECK(trunc_rc_bad == 0, "%d truncations not refused with MCF_EFORMAT", trunc_rc_bad);
    CHECK(trunc_msg_bad == 0, "%d truncation messages without the model and field",
          trunc_msg_bad);

    /* extra bytes after the record are not read (the next record may follow) */
    mcf_stream two;
    mcf_stream_init_writer(&two);
    mcf_stream_write(&two, saved.data, saved.size);
    mcf_stream_write(&two, "NEXT", 4);
    mcf_state_field f[8];
    mcf_stream in;
    chain_fresh(&d);
    mcf_stream_init_reader(&in, two.data, two.size);
    rc = mcf_state_load(&in, TEST_TAG, TEST_MODEL, f, chain_state(&d, f));
    CHECK(rc == MCF_OK && in.pos == saved.size, "load with a following record: rc %d, pos %zu, "
          "expected %zu", rc, in.pos, saved.size);
    mcf_stream_release(&in);
    mcf_stream_release(&two);

    /* only zero-byte fields: the record is the tag alone */
    mcf_stream t;
    mcf_stream_init_writer(&t);
    mcf_state_field z[2] = {MCF_STATE_DATA("a", NULL, 0), MCF_STATE_REALS("b", NULL, 0)};
    rc = mcf_state_save(&t, "ZZZZ", z, 2);
    CHECK(rc == MCF_OK && t.size == 4 && !memcmp(t.data, "ZZZZ", 4),
          "zero-byte fields: rc %d, %zu bytes", rc, t.size);
    mcf_stream_release(&t);

    mcf_stream_release(&saved);
}

/* ==== 3. mcf_adapt_step ================================================================= */

static void test_adapt(void)
{
    /* step, acceptance, target, min, max -> expected (all exact in binary) */
    static const struct {
        double step, acc, target, min, max, want;
        const char *what;
    } cases[] = {
        {1.0, 0.5, 0.5, 0.0, 10.0, 1.0, "on target: unchanged"},
        {2.0, 0.375, 0.5, 0.0, 10.0, 1.5, "factor 0.75"},
        {3.0, 0.75, 0.5, 0.0, 10.0, 4.5, "factor 1.5"},
        {1.0, 0.1, 0.5, 0.0, 10.0, 0.5, "factor 0.2 clamped to 1/2"},
        {1.0, 0.0, 0.5, 0.0, 10.0, 0.5, "acceptance 0: factor 1/2, not 0"},
        {1.0, 0.9, 0.3, 0.0, 10.0, 2.0, "factor 3 clamped to 2"},
        {1.0, 1.0, 0.125, 0.0, 10.0, 2.0, "factor 8 clamped to 2"},
        {4.0, 0.25, 0.5, 0.0, 10.0, 2.0, "factor exactly 1/2"},
        {4.0, 1.0, 0.5, 0.0, 10.0, 8.0, "factor exactly 2"},
        {1.0, 0.25, 0.25, 0.0, 10.0, 1.0, "target 0.25: unchanged"},
        {1.0, 0.25, 0.5, 0.0, 10.0, 0.5, "same acceptance, target 0.5: factor 1/2"},
        {1.0, 0.25, 0.125, 0.0, 10.0, 2.0, "same acceptance, target 0.125: factor 2"},
        {1.0, 0.3125, 0.25, 0.0, 10.0, 1.25, "target scaling 1.25"},
        {1.0, 0.0, 0.5, 0.75, 10.0, 0.75, "min clamp"},
        {1.0, 1.0, 0.25, 0.0, 1.5, 1.5, "max clamp"},
        {0.5, 0.5, 0.5, 1.0, 4.0, 1.0, "below min already: raised to min"},
        {8.0, 0.5, 0.5, 1.0, 4.0, 4.0, "above max already: lowered to max"},
        {1.0, 0.9, 0.1, 3.0, 3.0, 3.0, "min = max"},
        {0.125, 1.0, 0.5, 0.0, 1e300, 0.25, "small step doubled"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const double got = mcf_adapt_step(cases[k].step, cases[k].acc, cases[k].target,
                                          cases[k].min, cases[k].max);
        CHECK(got == cases[k].want, "adapt %s: step %g acc %g target %g [%g, %g]: %.17g, "
              "expected %.17g", cases[k].what, cases[k].step, cases[k].acc, cases[k].target,
              cases[k].min, cases[k].max, got, cases[k].want);
    }
    /* a non-exact ratio: 0.2 / 0.25 times 2, to rounding */
    const double got = mcf_adapt_step(2.0, 0.2, 0.25, 0.0, 10.0);
    CHECK(fabs(got - 1.6) < 1e-15, "adapt 2 * 0.2/0.25: %.17g, expected 1.6", got);
}

/* ==== 4. mcf_lattice_parity ============================================================= */

static void test_parity(void)
{
    CHECK(!strcmp(mcf_lattice_kind_name(MCF_LATTICE_BCC), "bcc") &&
              !strcmp(mcf_lattice_kind_name(MCF_LATTICE_CHAIN), "chain") &&
              !strcmp(mcf_boundary_name(MCF_BOUNDARY_OPEN), "open") &&
              !strcmp(mcf_lattice_kind_name((mcf_lattice_kind)99), "unknown"),
          "lattice kind and boundary names");
    static const mcf_lattice_kind simple[] = {MCF_LATTICE_CHAIN, MCF_LATTICE_SQUARE,
                                              MCF_LATTICE_CUBIC};
    static const mcf_boundary bcs[] = {MCF_BOUNDARY_PERIODIC, MCF_BOUNDARY_OPEN};
    for (int ki = 0; ki < 3; ki++)
        for (long L = 3; L <= 4; L++)
            for (int bi = 0; bi < 2; bi++) {
                mcf_lattice *lat = NULL;
                const char *bn = bi ? "open" : "periodic";
                int rc = mcf_lattice_create(simple[ki], L, bcs[bi], &lat);
                CHECK(rc == MCF_OK, "create %s L=%ld %s: %s", mcf_lattice_kind_name(simple[ki]), L, bn,
                      mcf_last_error());
                if (rc)
                    continue;
                size_t wrong = 0, plus = 0;
                for (size_t s = 0; s < lat->sites; s++) {
                    const double *p = lat->positions + 3 * s;
                    const long sum = lround(p[0]) + lround(p[1]) + lround(p[2]);
                    const int want = sum % 2 ? -1 : 1;
                    const int got = mcf_lattice_parity(lat, s);
                    if (got != want && !wrong++)
                        CHECK(0, "%s L=%ld %s site %zu at (%g, %g, %g): parity %d, expected %d",
                              mcf_lattice_kind_name(simple[ki]), L, bn, s, p[0], p[1], p[2], got, want);
                    plus += got == 1;
                }
                CHECK(wrong == 0, "%s L=%ld %s: %zu parities wrong", mcf_lattice_kind_name(simple[ki]), L,
                      bn, wrong);
                /* ceil(sites / 2) sites have even x+y+z (site 0 is even) */
                CHECK(plus == (lat->sites + 1) / 2, "%s L=%ld %s: %zu sites of parity +1, "
                      "expected %zu", mcf_lattice_kind_name(simple[ki]), L, bn, plus, (lat->sites + 1) / 2);
                /* neighbours: opposite parity on open lattices and on even periodic ones;
                 * an odd torus has same-parity bonds across the boundary */
                size_t same = 0;
                const int z = lat->coordination;
                for (size_t s = 0; s < lat->sites; s++)
                    for (int k = 0; k < z; k++) {
                        const int32_t j = lat->neighbours[s * (size_t)z + (size_t)k];
                        if (j >= 0 &&
                            mcf_lattice_parity(lat, s) == mcf_lattice_parity(lat, (size_t)j))
                            same++;
                    }
                if (L % 2 == 0 || bcs[bi] == MCF_BOUNDARY_OPEN)
                    CHECK(same == 0, "%s L=%ld %s: %zu neighbour slots of equal parity",
                          mcf_lattice_kind_name(simple[ki]), L, bn, same);
                else
                    CHECK(same > 0, "%s L=%ld %s: the odd torus should have equal-parity "
                          "bonds across the boundary", mcf_lattice_kind_name(simple[ki]), L, bn);
                mcf_lattice_destroy(lat);
            }

    for (long L = 2; L <= 3; L++)
        for (int bi = 0; bi < 2; bi++) {
            mcf_lattice *lat = NULL;
            const char *bn = bi ? "open" : "periodic";
            int rc = mcf_lattice_create(MCF_LATTICE_BCC, L, bcs[bi], &lat);
            CHECK(rc == MCF_OK, "create bcc L=%ld %s: %s", L, bn, mcf_last_error());
            if (rc)
                continue;
            size_t wrong = 0, centres = 0, nb_same = 0;
            for (size_t s = 0; s < lat->sites; s++) {
                const double *p = lat->positions + 3 * s;
                const int half = fabs(p[0] - floor(p[0]) - 0.5) < 1e-12 &&
                                 fabs(p[1] - floor(p[1]) - 0.5) < 1e-12 &&
                                 fabs(p[2] - floor(p[2]) - 0.5) < 1e-12;
                const int corner = p[0] == floor(p[0]) && p[1] == floor(p[1]) &&
                                   p[2] == floor(p[2]);
                CHECK(half != corner, "bcc site %zu at (%g, %g, %g): neither corner nor centre",
                      s, p[0], p[1], p[2]);
                const int want = half ? -1 : 1;
                const int got = mcf_lattice_parity(lat, s);
                if (got != want && !wrong++)
                    CHECK(0, "bcc L=%ld %s site %zu at (%g, %g, %g): parity %d, expected %d", L,
                          bn, s, p[0], p[1], p[2], got, want);
                centres += half;
                for (int k = 0; k < 8; k++) {
                    const int32_t j = lat->neighbours[8 * s + (size_t)k];
                    if (j >= 0 && mcf_lattice_parity(lat, (size_t)j) == got)
                        nb_same++;
                }
            }
            CHECK(wrong == 0, "bcc L=%ld %s: %zu parities wrong", L, bn, wrong);
            CHECK(centres == lat->sites / 2, "bcc L=%ld %s: %zu centres of %zu sites", L, bn,
                  centres, lat->sites);
            CHECK(nb_same == 0, "bcc L=%ld %s: %zu neighbour slots of equal parity", L, bn,
                  nb_same);
            mcf_lattice_destroy(lat);
        }
}

/* ==== 5. mcf_lattice_from_params ======================================================== */

static const mcf_param_spec lattice_specs[] = {
    MCF_LATTICE_PARAMS("square|cubic", "square", "4"),
    {"t", MCF_PARAM_REAL, "1", 0, 0, 0, NULL, .doc = "hopping"},
    {0}};

static const mcf_param_spec no_lattice_specs[] = {
    {"t", MCF_PARAM_REAL, "1", 0, 0, 0, NULL, .doc = "hopping"},
    {0}};

static mcf_lattice lattice_sentinel; /* an *out that must be overwritten */

/* Builds the lattice of the overrides (pairs, NULL-terminated in the call). */
static int lattice_of(unsigned flags, mcf_lattice **lat, const char *k1, const char *v1,
                      const char *k2, const char *v2)
{
    test_params *tp = test_params_make(lattice_specs, "lattice.ini", k1, v1, k2, v2,
                                       (const char *)NULL);
    CHECK(tp->ok, "test params refused: %s", mcf_last_error());
    mcf_clear_error();
    int rc = mcf_lattice_from_params(&tp->p, "lat-model", flags, lat);
    test_params_free(tp);
    return rc;
}

static void test_lattice_from_params(void)
{
    /* the declaration itself */
    CHECK(mcfi_specs_check(lattice_specs, "lat-model") == MCF_OK,
          "MCF_LATTICE_PARAMS declaration refused: %s", mcf_last_error());
    CHECK(lattice_specs[0].name && !strcmp(lattice_specs[0].name, "lattice") &&
              lattice_specs[1].name && !strcmp(lattice_specs[1].name, "L") &&
              lattice_specs[2].name && !strcmp(lattice_specs[2].name, "boundary"),
          "MCF_LATTICE_PARAMS: not lattice, L, boundary");
    {
        test_params *tp = test_params_make(lattice_specs, "lattice.ini", "lattice", "chain",
                                           (const char *)NULL);
        CHECK(!tp->ok, "lattice = chain accepted by a \"square|cubic\" declaration");
        test_params_free(tp);
        tp = test_params_make(lattice_specs, "lattice.ini", "L", "1", (const char *)NULL);
        CHECK(!tp->ok, "L = 1 accepted by the declaration (min 2)");
        test_params_free(tp);
    }

    static const struct {
        const char *k1, *v1, *k2, *v2;
        unsigned flags;
        mcf_lattice_kind kind;
        long L;
        mcf_boundary bc;
        size_t sites;
    } ok[] = {
        {NULL, NULL, NULL, NULL, 0, MCF_LATTICE_SQUARE, 4, MCF_BOUNDARY_PERIODIC, 16},
        {NULL, NULL, NULL, NULL, MCF_LATTICE_SIMPLE_BONDS, MCF_LATTICE_SQUARE, 4,
         MCF_BOUNDARY_PERIODIC, 16},
        {"lattice", "cubic", "L", "3", MCF_LATTICE_SIMPLE_BONDS, MCF_LATTICE_CUBIC, 3,
         MCF_BOUNDARY_PERIODIC, 27},
        {"L", "5", "boundary", "open", 0, MCF_LATTICE_SQUARE, 5, MCF_BOUNDARY_OPEN, 25},
        {"L", "2", NULL, NULL, 0, MCF_LATTICE_SQUARE, 2, MCF_BOUNDARY_PERIODIC, 4},
        {"L", "2", "boundary", "open", MCF_LATTICE_SIMPLE_BONDS, MCF_LATTICE_SQUARE, 2,
         MCF_BOUNDARY_OPEN, 4},
        {"lattice", "cubic", "L", "2", 0, MCF_LATTICE_CUBIC, 2, MCF_BOUNDARY_PERIODIC, 8},
    };
    for (size_t k = 0; k < sizeof ok / sizeof ok[0]; k++) {
        mcf_lattice *lat = &lattice_sentinel; /* must be overwritten */
        int rc = lattice_of(ok[k].flags, &lat, ok[k].k1, ok[k].v1, ok[k].k2, ok[k].v2);
        CHECK(rc == MCF_OK && lat && lat != &lattice_sentinel,
              "from_params case %zu: rc %d (%s)", k, rc, mcf_last_error());
        if (rc != MCF_OK || !lat || lat == &lattice_sentinel)
            continue;
        CHECK(lat->kind == ok[k].kind && lat->L == ok[k].L && lat->boundary == ok[k].bc &&
                  lat->sites == ok[k].sites,
              "from_params case %zu: kind %d L %ld boundary %d sites %zu, expected %d %ld %d "
              "%zu", k, (int)lat->kind, lat->L, (int)lat->boundary, lat->sites,
              (int)ok[k].kind, ok[k].L, (int)ok[k].bc, ok[k].sites);
        mcf_lattice_destroy(lat);
    }

    /* periodic L = 2 refused with MCF_LATTICE_SIMPLE_BONDS */
    const char *kinds[] = {"square", "cubic"};
    for (int k = 0; k < 2; k++) {
        mcf_lattice *lat = &lattice_sentinel;
        int rc = lattice_of(MCF_LATTICE_SIMPLE_BONDS, &lat, "lattice", kinds[k], "L", "2");
        const char *m = mcf_last_error();
        CHECK(rc == MCF_EINVAL, "%s periodic L = 2 with SIMPLE_BONDS: rc %d, expected "
              "MCF_EINVAL", kinds[k], rc);
        CHECK(lat == NULL, "%s periodic L = 2 refused: *out not NULL", kinds[k]);
        CHECK(contains(m, "L = 2") && contains(m, "boundary = open") &&
                  contains(m, "lat-model") && contains(m, "lattice.ini"),
              "%s periodic L = 2 message: %s", kinds[k], m);
        if (rc == MCF_OK && lat && lat != &lattice_sentinel)
            mcf_lattice_destroy(lat);
    }

    /* parameters declared without MCF_LATTICE_PARAMS */
    test_params *tp = test_params_make(no_lattice_specs, "plain.ini", (const char *)NULL);
    mcf_lattice *lat = &lattice_sentinel;
    mcf_clear_error();
    int rc = mcf_lattice_from_params(&tp->p, "lat-model", 0, &lat);
    CHECK(rc == MCF_EINVAL && lat == NULL, "no lattice parameters: rc %d", rc);
    CHECK(contains(mcf_last_error(), "lat-model"),
          "no lattice parameters message: %s", mcf_last_error());
    test_params_free(tp);
}

/* ==== 6. mcf_hamiltonian_set_hopping ==================================================== */

/* Expected bond count (each once), as in test_lattice.c. */
static size_t bonds_of(mcf_lattice_kind kind, long L, mcf_boundary bc)
{
    const size_t l = (size_t)L;
    if (bc == MCF_BOUNDARY_PERIODIC)
        return kind == MCF_LATTICE_SQUARE ? 2 * l * l : kind == MCF_LATTICE_CUBIC ? 3 * l * l * l
               : kind == MCF_LATTICE_BCC ? 8 * l * l * l : l;
    return kind == MCF_LATTICE_SQUARE ? 2 * l * (l - 1)
           : kind == MCF_LATTICE_CUBIC ? 3 * l * l * (l - 1)
           : kind == MCF_LATTICE_BCC   ? (2 * l - 1) * (2 * l - 1) * (2 * l - 1)
                                       : l - 1;
}

static void check_hopping(mcf_lattice_kind kind, long L, mcf_boundary bc, int orb, double t)
{
    const char *bn = bc == MCF_BOUNDARY_PERIODIC ? "periodic" : "open";
    mcf_lattice *lat = NULL;
    mcf_hamiltonian *h = NULL;
    if (mcf_lattice_create(kind, L, bc, &lat) ||
        mcf_hamiltonian_create(lat->sites, orb, lat->coordination, &h)) {
        CHECK(0, "set_hopping %s L=%ld %s: setup failed: %s", mcf_lattice_kind_name(kind), L, bn,
              mcf_last_error());
        mcf_lattice_destroy(lat);
        return;
    }
    const size_t n = lat->sites, z = (size_t)lat->coordination, dim = h->dim;
    /* the adjacency matrix from the neighbour table */
    unsigned char *adj = calloc(n * n, 1);
    double *want = calloc(2 * dim * dim, sizeof *want);
    double *got = malloc(2 * dim * dim * sizeof *got);
    if (!adj || !want || !got)
        abort();
    for (size_t i = 0; i < n; i++)
        for (size_t s = 0; s < z; s++) {
            const int32_t j = lat->neighbours[i * z + s];
            if (j >= 0)
                adj[i * n + (size_t)j] = 1;
        }
    size_t pairs = 0, asym = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            asym += adj[i * n + j] != adj[j * n + i];
            pairs += adj[i * n + j];
        }
    CHECK(asym == 0, "%s L=%ld %s: the neighbour table is not symmetric", mcf_lattice_kind_name(kind), L, bn);
    CHECK(pairs == 2 * bonds_of(kind, L, bc), "%s L=%ld %s: %zu adjacent ordered pairs, "
          "expected %zu", mcf_lattice_kind_name(kind), L, bn, pairs, 2 * bonds_of(kind, L, bc));
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            if (adj[i * n + j])
                for (size_t o = 0; o < (size_t)orb; o++)
                    want[2 * ((i * (size_t)orb + o) * dim + j * (size_t)orb + o)] = -t;

    const uint64_t v0 = h->version;
    int rc = mcf_hamiltonian_set_hopping(h, lat, t);
    CHECK(rc == MCF_OK, "set_hopping %s L=%ld %s orbitals %d: rc %d (%s)", mcf_lattice_kind_name(kind), L, bn,
          orb, rc, mcf_last_error());
    CHECK(h->version > v0, "set_hopping did not change the version");
    CHECK(mcf_hamiltonian_check(h) == MCF_OK, "set_hopping %s L=%ld %s orbitals %d: check: %s",
          mcf_lattice_kind_name(kind), L, bn, orb, mcf_last_error());
    for (size_t k = 0; k < 2 * dim * dim; k++)
        got[k] = NAN;
    mcf_hamiltonian_dense(h, got);
    size_t wrong = 0;
    for (size_t k = 0; k < 2 * dim * dim; k++)
        if (got[k] != want[k] && !wrong++)
            CHECK(0, "set_hopping %s L=%ld %s orbitals %d: H[%zu][%zu] %s = %g, expected %g",
                  mcf_lattice_kind_name(kind), L, bn, orb, (k / 2) / dim, (k / 2) % dim,
                  k % 2 ? "im" : "re", got[k], want[k]);
    CHECK(wrong == 0, "set_hopping %s L=%ld %s orbitals %d: %zu dense entries differ from -t A",
          mcf_lattice_kind_name(kind), L, bn, orb, wrong);
    size_t nonzero = 0;
    for (size_t k = 0; k < 2 * dim * dim; k++)
        nonzero += got[k] != 0.0;
    CHECK(nonzero == 2 * bonds_of(kind, L, bc) * (size_t)orb,
          "set_hopping %s L=%ld %s orbitals %d: %zu nonzero entries, expected %zu",
          mcf_lattice_kind_name(kind), L, bn, orb, nonzero, 2 * bonds_of(kind, L, bc) * (size_t)orb);

    /* a second call sets (does not add to) the same entries */
    rc = mcf_hamiltonian_set_hopping(h, lat, 2.0 * t);
    mcf_hamiltonian_dense(h, got);
    wrong = 0;
    for (size_t k = 0; k < 2 * dim * dim; k++)
        wrong += got[k] != 2.0 * want[k];
    CHECK(rc == MCF_OK && wrong == 0, "set_hopping again with 2t: rc %d, %zu entries not -2t A",
          rc, wrong);

    free(adj);
    free(want);
    free(got);
    mcf_hamiltonian_destroy(h);
    mcf_lattice_destroy(lat);
}

static void test_set_hopping(void)
{
    check_hopping(MCF_LATTICE_SQUARE, 4, MCF_BOUNDARY_PERIODIC, 1, 0.75);
    check_hopping(MCF_LATTICE_SQUARE, 4, MCF_BOUNDARY_PERIODIC, 2, 0.75);
    check_hopping(MCF_LATTICE_SQUARE, 4, MCF_BOUNDARY_OPEN, 1, 1.25);
    check_hopping(MCF_LATTICE_SQUARE, 4, MCF_BOUNDARY_OPEN, 2, -0.5);
    check_hopping(MCF_LATTICE_SQUARE, 2, MCF_BOUNDARY_OPEN, 2, 1.0);
    check_hopping(MCF_LATTICE_CHAIN, 5, MCF_BOUNDARY_PERIODIC, 3, 1.0);
    check_hopping(MCF_LATTICE_CUBIC, 3, MCF_BOUNDARY_PERIODIC, 2, 1.0);
    check_hopping(MCF_LATTICE_BCC, 3, MCF_BOUNDARY_OPEN, 1, 1.0);
    check_hopping(MCF_LATTICE_BCC, 2, MCF_BOUNDARY_PERIODIC, 1, 1.0); /* distinct at L = 2 */

    mcf_lattice *sq4 = NULL, *sq2 = NULL, *sq2open = NULL;
    mcf_hamiltonian *h9 = NULL, *h4 = NULL, *h16 = NULL;
    if (mcf_lattice_create(MCF_LATTICE_SQUARE, 4, MCF_BOUNDARY_PERIODIC, &sq4) ||
        mcf_lattice_create(MCF_LATTICE_SQUARE, 2, MCF_BOUNDARY_PERIODIC, &sq2) ||
        mcf_lattice_create(MCF_LATTICE_SQUARE, 2, MCF_BOUNDARY_OPEN, &sq2open) ||
        mcf_hamiltonian_create(9, 1, 4, &h9) || mcf_hamiltonian_create(4, 1, 4, &h4) ||
        mcf_hamiltonian_create(16, 2, 2, &h16)) {
        CHECK(0, "set_hopping setup: %s", mcf_last_error());
    } else {
        mcf_clear_error();
        int rc = mcf_hamiltonian_set_hopping(h9, sq4, 1.0);
        CHECK(rc == MCF_EINVAL && mcf_last_error()[0], "16-site lattice on a 9-site H: rc %d",
              rc);
        mcf_clear_error();
        rc = mcf_hamiltonian_set_hopping(h4, sq2, 1.0);
        CHECK(rc == MCF_EINVAL && mcf_last_error()[0],
              "periodic L = 2: rc %d (%s)", rc, mcf_last_error());
        mcf_clear_error();
        rc = mcf_hamiltonian_set_hopping(h16, sq2open, 1.0); /* 4 sites on a 16-site H */
        CHECK(rc == MCF_EINVAL && mcf_last_error()[0], "4-site lattice on a 16-site H: rc %d",
              rc);
        rc = mcf_hamiltonian_set_hopping(h16, sq4, 1.0); /* width 2 < 4 neighbours */
        CHECK(rc == MCF_EINVAL, "a row too narrow for the bonds: rc %d", rc);
        rc = mcf_hamiltonian_set_hopping(NULL, sq4, 1.0);
        CHECK(rc == MCF_EINVAL, "NULL Hamiltonian: rc %d", rc);
        rc = mcf_hamiltonian_set_hopping(h4, NULL, 1.0);
        CHECK(rc == MCF_EINVAL, "NULL lattice: rc %d", rc);
    }
    mcf_hamiltonian_destroy(h9);
    mcf_hamiltonian_destroy(h4);
    mcf_hamiltonian_destroy(h16);
    mcf_lattice_destroy(sq4);
    mcf_lattice_destroy(sq2);
    mcf_lattice_destroy(sq2open);
}

/* ==== the fake fermion evaluator ======================================================== */

#define FAKE_MAX 64
#define FAKE_CALLS 64

static int ws_pool[FAKE_MAX];       /* workspace k of the tests is &ws_pool[k] */
static mcf_rng rng_pool[FAKE_MAX];  /* chain k's stream is &rng_pool[FAKE_MAX - 1 - k] */
static int fake_ws_value;           /* what create() hands out */

typedef struct occ_call {
    size_t n;
    double mu, T;
    int ids[FAKE_MAX], rng_ids[FAKE_MAX];
} occ_call;

static struct {
    int create_calls, destroy_calls;
    const mcf_params *create_params;
    const mcf_hamiltonian *create_h;
    int create_rc;
    int ca_calls, ca_rc;
    void *const *ca_ws;
    size_t ca_n;
    const mcf_change *const *ca_changes;
    const double *ca_T, *ca_mu;
    double *ca_dS, *ca_err;
    int occ_calls, occ_rc;
    occ_call occ[FAKE_CALLS];
    int nan_id, inf_id; /* workspace whose density is NaN / energy is inf; -1: none */
} fake;

static void fake_reset(void)
{
    memset(&fake, 0, sizeof fake);
    fake.nan_id = fake.inf_id = -1;
}

static int ws_id(const void *ws)
{
    const int *p = ws;
    return p >= ws_pool && p < ws_pool + FAKE_MAX ? (int)(p - ws_pool) : -1;
}

static int rng_id(const mcf_rng *r)
{
    return r >= rng_pool && r < rng_pool + FAKE_MAX ? (int)(r - rng_pool) : -1;
}

static int fake_create(const mcf_params *params, const mcf_hamiltonian *h, void **ws)
{
    fake.create_calls++;
    fake.create_params = params;
    fake.create_h = h;
    *ws = &fake_ws_value;
    if (fake.create_rc)
        return mcf_fail(fake.create_rc, "fake create refused");
    return MCF_OK;
}

static void fake_destroy(void *ws)
{
    (void)ws;
    fake.destroy_calls++;
}

static size_t fake_energy_points(const void *ws)
{
    (void)ws;
    return 3;
}

static int fake_energies(void *ws, double *E)
{
    (void)ws;
    E[0] = -1, E[1] = 0, E[2] = 1;
    return MCF_OK;
}

static int fake_dos(void *const *ws, size_t n, mcf_rng *const *rngs, double *const *dos)
{
    (void)ws, (void)n, (void)rngs, (void)dos;
    return MCF_OK;
}

static int fake_ldos(void *const *ws, size_t n, const size_t *const *rows, size_t n_rows,
                     double *const *out)
{
    (void)ws, (void)n, (void)rows, (void)n_rows, (void)out;
    return MCF_OK;
}

static int fake_green(void *const *ws, size_t n, const size_t *const *rows, size_t n_rows,
                      double *const *re, double *const *im)
{
    (void)ws, (void)n, (void)rows, (void)n_rows, (void)re, (void)im;
    return MCF_OK;
}

/* density = 100 id + mu, energy = -100 id + T: checkable per chain */
static int fake_occupation(void *const *ws, size_t n, mcf_rng *const *rngs, double mu,
                           double T, double *density, double *energy)
{
    if (fake.occ_calls < FAKE_CALLS) {
        occ_call *c = &fake.occ[fake.occ_calls];
        c->n = n;
        c->mu = mu;
        c->T = T;
        for (size_t q = 0; q < n && q < FAKE_MAX; q++) {
            c->ids[q] = ws_id(ws[q]);
            c->rng_ids[q] = rngs ? rng_id(rngs[q]) : -2;
        }
    }
    fake.occ_calls++;
    if (fake.occ_rc)
        return mcf_fail(fake.occ_rc, "fake occupation refused");
    for (size_t q = 0; q < n; q++) {
        const int id = ws_id(ws[q]);
        density[q] = id == fake.nan_id ? NAN : 100.0 * id + mu;
        energy[q] = id == fake.inf_id ? INFINITY : -100.0 * id + T;
    }
    return MCF_OK;
}

static int fake_delta_action(void *const *ws, size_t n, const mcf_local_change *const *changes,
                             const double *T, const double *mu, double *dS)
{
    (void)ws, (void)n, (void)changes, (void)T, (void)mu, (void)dS;
    return MCF_OK;
}

static int fake_action(void *const *ws, size_t n, size_t m, const double *T, const double *mu,
                       double *S, double *err)
{
    (void)ws, (void)n, (void)m, (void)T, (void)mu, (void)S, (void)err;
    return MCF_OK;
}

/* dS[k] = T[k] + mu[k] + 1000 id, err[k] = id / 1024 */
static int fake_change_action(void *const *ws, size_t n, const mcf_change *const *changes,
                              const double *T, const double *mu, double *dS, double *err)
{
    fake.ca_calls++;
    fake.ca_ws = ws;
    fake.ca_n = n;
    fake.ca_changes = changes;
    fake.ca_T = T;
    fake.ca_mu = mu;
    fake.ca_dS = dS;
    fake.ca_err = err;
    if (fake.ca_rc)
        return mcf_fail(fake.ca_rc, "fake change_action refused");
    for (size_t k = 0; k < n; k++) {
        dS[k] = T[k] + mu[k] + 1000.0 * ws_id(ws[k]);
        err[k] = ws_id(ws[k]) / 1024.0;
    }
    return MCF_OK;
}

static const mcf_fermion_ops full_ops = {
    .struct_size = sizeof(mcf_fermion_ops),
    .create = fake_create,
    .destroy = fake_destroy,
    .energy_points = fake_energy_points,
    .energies = fake_energies,
    .dos = fake_dos,
    .ldos = fake_ldos,
    .green = fake_green,
    .occupation = fake_occupation,
    .delta_action = fake_delta_action,
    .action = fake_action,
    .change_action = fake_change_action,
};

static const mcf_param_spec eval_specs[] = {
    {"moments", MCF_PARAM_INT, "64", MCF_PARAM_HAS_MIN, 1, 0, NULL, .doc = "moments"},
    {0}};

static mcf_plugin_info fake_info(mcf_plugin_kind kind, const char *name, const void *ops)
{
    return (mcf_plugin_info){.abi_version = MCF_ABI_1,
                             .struct_size = sizeof(mcf_plugin_info),
                             .kind = kind,
                             .name = name,
                             .version = "0",
                             .summary = "a fake evaluator of test_model_sdk",
                             .params = eval_specs,
                             .ops = ops};
}

static mcf_services fake_services(const mcf_plugin_info *e, const mcf_params *ep)
{
    return (mcf_services){.struct_size = sizeof(mcf_services),
                          .seed = 1,
                          .chain_index = 0,
                          .evaluator = e,
                          .evaluator_params = ep};
}

/* Binds ops under `needs` expecting a refusal whose message contains `part` */
static void expect_bind_refused(const mcf_fermion_ops *ops, unsigned needs, const char *part,
                                const mcf_params *model_params, const mcf_params *ep,
                                const char *what)
{
    mcf_plugin_info info = fake_info(MCF_PLUGIN_FERMION_EVALUATOR, "fake", ops);
    mcf_services s = fake_services(&info, ep);
    mcf_fermion f;
    memset(&f, 0, sizeof f);
    mcf_clear_error();
    int rc = mcf_fermion_bind(&s, model_params, "holstein", needs, &f);
    const char *m = mcf_last_error();
    CHECK(rc == MCF_EINVAL, "bind %s: rc %d, expected MCF_EINVAL", what, rc);
    CHECK(contains(m, part) && contains(m, "holstein") && contains(m, "evaluator = fake") &&
              contains(m, "model.ini") && contains(m, "evaluator = kpm"),
          "bind %s: message should name %s: %s", what, part, m);
}

/* ==== 7. mcf_fermion_bind / has / workspace ============================================= */

static void test_fermion_bind(void)
{
    test_params *mp = test_params_make(lattice_specs, "model.ini", (const char *)NULL);
    test_params *ep = test_params_make(eval_specs, "eval.ini", (const char *)NULL);
    const unsigned all = MCF_FERMION_CHANGE_ACTION | MCF_FERMION_OCCUPATION | MCF_FERMION_DOS |
                         MCF_FERMION_LDOS | MCF_FERMION_GREEN | MCF_FERMION_DELTA_ACTION |
                         MCF_FERMION_ACTION;
    mcf_fermion f;

    /* no evaluator */
    mcf_services none = fake_services(NULL, NULL);
    mcf_clear_error();
    int rc = mcf_fermion_bind(&none, &mp->p, "holstein", MCF_FERMION_CHANGE_ACTION, &f);
    CHECK(rc == MCF_EINVAL, "bind without an evaluator: rc %d", rc);
    CHECK(contains(mcf_last_error(), "evaluator = none") &&
              contains(mcf_last_error(), "evaluator = kpm") &&
              contains(mcf_last_error(), "holstein") && contains(mcf_last_error(), "model.ini"),
          "bind without an evaluator: %s", mcf_last_error());

    /* an evaluator of another kind, even with a fermion-looking ops table */
    mcf_plugin_info orb = fake_info(MCF_PLUGIN_ORBITAL_EVALUATOR, "orbital-ed", &full_ops);
    mcf_services s = fake_services(&orb, &ep->p);
    mcf_clear_error();
    rc = mcf_fermion_bind(&s, &mp->p, "holstein", 0, &f);
    CHECK(rc == MCF_EINVAL, "bind an orbital evaluator: rc %d", rc);
    CHECK(contains(mcf_last_error(), "evaluator = orbital-ed") &&
              contains(mcf_last_error(), "not a fermion evaluator") &&
              contains(mcf_last_error(), "evaluator = kpm"),
          "bind an orbital evaluator: %s", mcf_last_error());

    /* ops lacking what is asked for */
    mcf_fermion_ops ops = full_ops;
    ops.change_action = NULL;
    expect_bind_refused(&ops, MCF_FERMION_CHANGE_ACTION, "change_action", &mp->p, &ep->p,
                        "without change_action");
    /* ... but fine when not asked for */
    {
        mcf_plugin_info info = fake_info(MCF_PLUGIN_FERMION_EVALUATOR, "fake", &ops);
        mcf_services s2 = fake_services(&info, &ep->p);
        rc = mcf_fermion_bind(&s2, &mp->p, "holstein", MCF_FERMION_OCCUPATION, &f);
        CHECK(rc == MCF_OK, "bind without change_action, not needed: rc %d (%s)", rc,
              mcf_last_error());
    }
    /* the pointer is set but struct_size ends before it (a plugin of an older SDK) */
    ops = full_ops;
    ops.struct_size = (uint32_t)offsetof(mcf_fermion_ops, change_action);
    expect_bind_refused(&ops, MCF_FERMION_CHANGE_ACTION, "change_action", &mp->p, &ep->p,
                        "with struct_size before change_action");
    ops.struct_size =
        (uint32_t)(offsetof(mcf_fermion_ops, change_action) + sizeof(ops.change_action) - 1);
    expect_bind_refused(&ops, MCF_FERMION_CHANGE_ACTION, "change_action", &mp->p, &ep->p,
                        "with struct_size one byte short of change_action");
    ops.struct_size = (uint32_t)offsetof(mcf_fermion_ops, delta_action);
    expect_bind_refused(&ops, MCF_FERMION_DELTA_ACTION, "delta_action", &mp->p, &ep->p,
                        "with struct_size before delta_action");
    ops = full_ops;
    ops.occupation = NULL;
    expect_bind_refused(&ops, MCF_FERMION_OCCUPATION, "occupation", &mp->p, &ep->p,
                        "without occupation");
    ops = full_ops;
    ops.create = NULL;
    expect_bind_refused(&ops, 0, "create", &mp->p, &ep->p, "without create (needs 0)");
    ops = full_ops;
    ops.destroy = NULL;
    expect_bind_refused(&ops, 0, "destroy", &mp->p, &ep->p, "without destroy (needs 0)");

    /* success fills every field */
    mcf_plugin_info info = fake_info(MCF_PLUGIN_FERMION_EVALUATOR, "fake", &full_ops);
    s = fake_services(&info, &ep->p);
    memset(&f, 0xA5, sizeof f);
    rc = mcf_fermion_bind(&s, &mp->p, "holstein", all, &f);
    CHECK(rc == MCF_OK, "bind with every op: rc %d (%s)", rc, mcf_last_error());
    CHECK(f.ops == &full_ops, "bind: ops %p, expected %p", (const void *)f.ops,
          (const void *)&full_ops);
    CHECK(f.name == info.name, "bind: name %p, expected the descriptor's", (const void *)f.name);
    CHECK(f.params == &ep->p, "bind: params %p, expected the services' evaluator_params",
          (const void *)f.params);
    CHECK(f.model && !strcmp(f.model, "holstein"), "bind: model %s", f.model ? f.model : "NULL");
    CHECK(f.origin && !strcmp(f.origin, "model.ini"), "bind: origin %s",
          f.origin ? f.origin : "NULL");

    /* mcf_fermion_has, bit by bit */
    CHECK(mcf_fermion_has(&f, all) == 1, "has(all) with every op: 0");
    CHECK(mcf_fermion_has(&f, 0) == 1, "has(0): 0");
    static const unsigned bits[] = {MCF_FERMION_CHANGE_ACTION, MCF_FERMION_OCCUPATION,
                                    MCF_FERMION_DOS,           MCF_FERMION_LDOS,
                                    MCF_FERMION_GREEN,         MCF_FERMION_DELTA_ACTION,
                                    MCF_FERMION_ACTION};
    for (size_t b = 0; b < sizeof bits / sizeof bits[0]; b++) {
        mcf_fermion_ops lack = full_ops;
        switch (bits[b]) {
        case MCF_FERMION_CHANGE_ACTION: lack.change_action = NULL; break;
        case MCF_FERMION_OCCUPATION: lack.occupation = NULL; break;
        case MCF_FERMION_DOS: lack.dos = NULL; break;
        case MCF_FERMION_LDOS: lack.ldos = NULL; break;
        case MCF_FERMION_GREEN: lack.green = NULL; break;
        case MCF_FERMION_DELTA_ACTION: lack.delta_action = NULL; break;
        case MCF_FERMION_ACTION: lack.action = NULL; break;
        }
        mcf_fermion g = f;
        g.ops = &lack;
        CHECK(mcf_fermion_has(&g, bits[b]) == 0, "has(bit %#x) without its op: 1", bits[b]);
        CHECK(mcf_fermion_has(&g, all) == 0, "has(all) without op %#x: 1", bits[b]);
        CHECK(mcf_fermion_has(&g, all & ~bits[b]) == 1, "has(all but %#x) without its op: 0",
              bits[b]);
    }
    {
        /* dos, ldos, green need the energy grid */
        mcf_fermion_ops nogrid = full_ops;
        nogrid.energies = NULL;
        mcf_fermion g = f;
        g.ops = &nogrid;
        CHECK(!mcf_fermion_has(&g, MCF_FERMION_DOS) && !mcf_fermion_has(&g, MCF_FERMION_LDOS) &&
                  !mcf_fermion_has(&g, MCF_FERMION_GREEN),
              "has(dos/ldos/green) without energies(): 1");
        CHECK(mcf_fermion_has(&g, MCF_FERMION_CHANGE_ACTION | MCF_FERMION_OCCUPATION),
              "has(change_action|occupation) without energies(): 0");
        nogrid = full_ops;
        nogrid.energy_points = NULL;
        CHECK(!mcf_fermion_has(&g, MCF_FERMION_DOS), "has(dos) without energy_points(): 1");
        /* appended ops beyond struct_size */
        nogrid = full_ops;
        nogrid.struct_size = (uint32_t)offsetof(mcf_fermion_ops, delta_action);
        CHECK(!mcf_fermion_has(&g, MCF_FERMION_DELTA_ACTION) &&
                  !mcf_fermion_has(&g, MCF_FERMION_ACTION) &&
                  !mcf_fermion_has(&g, MCF_FERMION_CHANGE_ACTION),
              "has(appended op) with an mcf 0.1 struct_size: 1");
        CHECK(mcf_fermion_has(&g, MCF_FERMION_OCCUPATION | MCF_FERMION_DOS),
              "has(occupation|dos) with an mcf 0.1 struct_size: 0");
        nogrid.struct_size = (uint32_t)offsetof(mcf_fermion_ops, change_action);
        CHECK(mcf_fermion_has(&g, MCF_FERMION_DELTA_ACTION | MCF_FERMION_ACTION) &&
                  !mcf_fermion_has(&g, MCF_FERMION_CHANGE_ACTION),
              "has() with struct_size ending before change_action");
    }
    CHECK(mcf_fermion_has(NULL, 0) == 0, "has(NULL fermion): 1");
    {
        mcf_fermion g = f;
        g.ops = NULL;
        CHECK(mcf_fermion_has(&g, 0) == 0, "has() of an unbound fermion: 1");
    }

    /* workspace: params and h passed through, errors prefixed */
    mcf_hamiltonian *h = NULL;
    if (mcf_hamiltonian_create(4, 1, 2, &h) != MCF_OK)
        abort();
    fake_reset();
    void *ws = &ws_pool[0];
    rc = mcf_fermion_workspace(&f, h, &ws);
    CHECK(rc == MCF_OK && ws == &fake_ws_value, "workspace: rc %d, ws %p", rc, ws);
    CHECK(fake.create_calls == 1 && fake.create_params == &ep->p && fake.create_h == h,
          "workspace: create called %d times with params %p (expected %p), h %p (expected %p)",
          fake.create_calls, (const void *)fake.create_params, (const void *)&ep->p,
          (const void *)fake.create_h, (const void *)h);
    fake.create_rc = MCF_EINVAL;
    ws = &ws_pool[0];
    mcf_clear_error();
    rc = mcf_fermion_workspace(&f, h, &ws);
    CHECK(rc == MCF_EINVAL, "workspace refused by create: rc %d", rc);
    CHECK(ws == NULL, "workspace refused: *ws %p, expected NULL", ws);
    CHECK(!strncmp(mcf_last_error(), "holstein: evaluator fake: ", 26) &&
              contains(mcf_last_error(), "fake create refused"),
          "workspace refused message: %s", mcf_last_error());
    fake.create_rc = MCF_ENOMEM;
    rc = mcf_fermion_workspace(&f, h, &ws);
    CHECK(rc == MCF_ENOMEM && ws == NULL, "workspace ENOMEM: rc %d", rc);
    mcf_hamiltonian_destroy(h);

    test_params_free(mp);
    test_params_free(ep);
}

/* ==== 8. batched calls ================================================================== */

typedef struct span {
    uintptr_t lo, hi;
    const char *name;
} span;

static void test_fermion_batch(void)
{
    mcf_batch *b = mcf_batch_create();
    if (!b)
        abort();
    static mcf_change changes[FAKE_MAX];
    mcf_fermion_batch a;

    /* distinct, non-overlapping arrays for n = 1..50 from one batch */
    for (size_t n = 1; n <= 50; n++) {
        int rc = mcf_fermion_batch_get(b, n, &a);
        CHECK(rc == MCF_OK, "batch_get(%zu): rc %d (%s)", n, rc, mcf_last_error());
        if (rc)
            continue;
        const span sp[10] = {
            {(uintptr_t)a.ws, (uintptr_t)(a.ws + n), "ws"},
            {(uintptr_t)a.rngs, (uintptr_t)(a.rngs + n), "rngs"},
            {(uintptr_t)a.changes, (uintptr_t)(a.changes + n), "changes"},
            {(uintptr_t)a.T, (uintptr_t)(a.T + n), "T"},
            {(uintptr_t)a.mu, (uintptr_t)(a.mu + n), "mu"},
            {(uintptr_t)a.dS, (uintptr_t)(a.dS + n), "dS"},
            {(uintptr_t)a.err, (uintptr_t)(a.err + n), "err"},
            {(uintptr_t)a.density, (uintptr_t)(a.density + n), "density"},
            {(uintptr_t)a.energy, (uintptr_t)(a.energy + n), "energy"},
            {(uintptr_t)a.index, (uintptr_t)(a.index + n), "index"}};
        int overlap = 0;
        for (int i = 0; i < 10; i++)
            for (int j = 0; j < i; j++)
                if (sp[i].lo < sp[j].hi && sp[j].lo < sp[i].hi && !overlap++)
                    CHECK(0, "batch_get(%zu): %s and %s overlap", n, sp[i].name, sp[j].name);
        CHECK(overlap == 0, "batch_get(%zu): %d overlapping pairs", n, overlap);
        CHECK(aligned_to(a.ws, alignof(void *)) && aligned_to(a.rngs, alignof(mcf_rng *)) &&
                  aligned_to(a.changes, alignof(mcf_change *)) &&
                  aligned_to(a.T, alignof(double)) && aligned_to(a.mu, alignof(double)) &&
                  aligned_to(a.dS, alignof(double)) && aligned_to(a.err, alignof(double)) &&
                  aligned_to(a.density, alignof(double)) &&
                  aligned_to(a.energy, alignof(double)) && aligned_to(a.index, alignof(size_t)),
              "batch_get(%zu): an array is misaligned", n);
        for (size_t k = 0; k < n; k++) {
            a.ws[k] = &ws_pool[k];
            a.rngs[k] = &rng_pool[FAKE_MAX - 1 - k];
            a.changes[k] = &changes[k];
            a.T[k] = 1000.0 + (double)k;
            a.mu[k] = 2000.0 + (double)k;
            a.dS[k] = 3000.0 + (double)k;
            a.err[k] = 4000.0 + (double)k;
            a.density[k] = 5000.0 + (double)k;
            a.energy[k] = 6000.0 + (double)k;
            a.index[k] = 7000 + k;
        }
        size_t bad = 0;
        for (size_t k = 0; k < n; k++)
            bad += a.ws[k] != &ws_pool[k] || a.rngs[k] != &rng_pool[FAKE_MAX - 1 - k] ||
                   a.changes[k] != &changes[k] || a.T[k] != 1000.0 + (double)k ||
                   a.mu[k] != 2000.0 + (double)k || a.dS[k] != 3000.0 + (double)k ||
                   a.err[k] != 4000.0 + (double)k || a.density[k] != 5000.0 + (double)k ||
                   a.energy[k] != 6000.0 + (double)k || a.index[k] != 7000 + k;
        CHECK(bad == 0, "batch_get(%zu): %zu chains read back wrong", n, bad);
    }
    mcf_clear_error();
    CHECK(mcf_fermion_batch_get(NULL, 3, &a) == MCF_ENOMEM || mcf_last_error()[0],
          "batch_get on a NULL batch: no error");

    test_params *ep = test_params_make(eval_specs, "model.ini", (const char *)NULL);
    mcf_plugin_info info = fake_info(MCF_PLUGIN_FERMION_EVALUATOR, "fake", &full_ops);
    mcf_services s = fake_services(&info, &ep->p);
    mcf_fermion f;
    int rc = mcf_fermion_bind(&s, NULL, "holstein", MCF_FERMION_CHANGE_ACTION |
                              MCF_FERMION_OCCUPATION, &f);
    CHECK(rc == MCF_OK, "bind for the batch tests: %s", mcf_last_error());
    if (rc)
        goto done;

    /* change_action: exactly the arrays and n, results back in dS and err */
    for (size_t n = 1; n <= 50; n += 7) {
        if (mcf_fermion_batch_get(b, n, &a))
            continue;
        for (size_t k = 0; k < n; k++) {
            a.ws[k] = &ws_pool[(k * 5) % FAKE_MAX];
            a.changes[k] = &changes[k];
            a.T[k] = 0.125 * (double)(k + 1);
            a.mu[k] = -0.5 * (double)k;
            a.dS[k] = a.err[k] = NAN;
        }
        fake_reset();
        rc = mcf_fermion_change_action(&f, &a, n);
        CHECK(rc == MCF_OK, "change_action n=%zu: rc %d (%s)", n, rc, mcf_last_error());
        CHECK(fake.ca_calls == 1, "change_action n=%zu: %d evaluator calls", n, fake.ca_calls);
        CHECK(fake.ca_ws == (void *const *)a.ws && fake.ca_n == n &&
                  fake.ca_changes == (const mcf_change *const *)a.changes &&
                  fake.ca_T == a.T && fake.ca_mu == a.mu && fake.ca_dS == a.dS &&
                  fake.ca_err == a.err,
              "change_action n=%zu: the evaluator got other arrays or n = %zu", n, fake.ca_n);
        size_t bad = 0;
        for (size_t k = 0; k < n; k++)
            bad += a.dS[k] != 0.125 * (double)(k + 1) - 0.5 * (double)k +
                                  1000.0 * (double)((k * 5) % FAKE_MAX) ||
                   a.err[k] != (double)((k * 5) % FAKE_MAX) / 1024.0;
        CHECK(bad == 0, "change_action n=%zu: %zu results wrong", n, bad);
    }
    fake_reset();
    fake.ca_rc = MCF_EINVAL;
    mcf_clear_error();
    rc = mcf_fermion_change_action(&f, &a, 3);
    CHECK(rc == MCF_EINVAL, "change_action refused by the evaluator: rc %d", rc);
    CHECK(!strncmp(mcf_last_error(), "holstein: evaluator fake: change_action", 39) &&
              contains(mcf_last_error(), "fake change_action refused"),
          "change_action error message: %s", mcf_last_error());

    /* occupation, one (mu, T): one call with all chains in order */
    {
        const size_t n = 7;
        mcf_fermion_batch_get(b, n, &a);
        for (size_t k = 0; k < n; k++) {
            a.ws[k] = &ws_pool[k];
            a.rngs[k] = &rng_pool[FAKE_MAX - 1 - k];
            a.mu[k] = 0.25;
            a.T[k] = 0.5;
            a.density[k] = a.energy[k] = NAN;
        }
        fake_reset();
        rc = mcf_fermion_occupation(&f, &a, n);
        CHECK(rc == MCF_OK, "occupation, one (mu, T): rc %d (%s)", rc, mcf_last_error());
        CHECK(fake.occ_calls == 1 && fake.occ[0].n == n && fake.occ[0].mu == 0.25 &&
                  fake.occ[0].T == 0.5,
              "occupation, one (mu, T): %d calls, first n %zu mu %g T %g", fake.occ_calls,
              fake.occ[0].n, fake.occ[0].mu, fake.occ[0].T);
        size_t bad = 0;
        for (size_t k = 0; k < n; k++)
            bad += fake.occ[0].ids[k] != (int)k || fake.occ[0].rng_ids[k] != FAKE_MAX - 1 - (int)k ||
                   a.density[k] != 100.0 * (double)k + 0.25 ||
                   a.energy[k] != -100.0 * (double)k + 0.5;
        CHECK(bad == 0, "occupation, one (mu, T): %zu chains wrong", bad);
    }

    /* occupation, A B A C B: one call per pair in order of first appearance */
    {
        const size_t n = 5;
        const double mus[3] = {0.0, 0.0, 0.5}, Ts[3] = {0.25, 0.75, 0.25}; /* A, B, C */
        const int pat[5] = {0, 1, 0, 2, 1};
        const int want_groups[3][2] = {{0, 2}, {1, 4}, {3, -1}};
        const size_t want_n[3] = {2, 2, 1};
        mcf_fermion_batch_get(b, n, &a);
        for (size_t k = 0; k < n; k++) {
            a.ws[k] = &ws_pool[10 + k];
            a.rngs[k] = &rng_pool[FAKE_MAX - 1 - (10 + k)];
            a.mu[k] = mus[pat[k]];
            a.T[k] = Ts[pat[k]];
            a.density[k] = a.energy[k] = NAN;
        }
        fake_reset();
        rc = mcf_fermion_occupation(&f, &a, n);
        CHECK(rc == MCF_OK, "occupation A B A C B: rc %d (%s)", rc, mcf_last_error());
        CHECK(fake.occ_calls == 3, "occupation A B A C B: %d calls, expected 3", fake.occ_calls);
        for (int g = 0; g < 3 && g < fake.occ_calls; g++) {
            const occ_call *c = &fake.occ[g];
            CHECK(c->n == want_n[g] && c->mu == mus[g] && c->T == Ts[g],
                  "occupation A B A C B call %d: n %zu mu %g T %g, expected %zu %g %g", g, c->n,
                  c->mu, c->T, want_n[g], mus[g], Ts[g]);
            for (size_t q = 0; q < want_n[g] && q < c->n; q++)
                CHECK(c->ids[q] == 10 + want_groups[g][q] &&
                          c->rng_ids[q] == FAKE_MAX - 1 - (10 + want_groups[g][q]),
                      "occupation A B A C B call %d entry %zu: ws %d rng %d, expected chain %d",
                      g, q, c->ids[q], c->rng_ids[q], want_groups[g][q]);
        }
        size_t bad = 0;
        for (size_t k = 0; k < n; k++)
            bad += a.density[k] != 100.0 * (double)(10 + k) + mus[pat[k]] ||
                   a.energy[k] != -100.0 * (double)(10 + k) + Ts[pat[k]];
        CHECK(bad == 0, "occupation A B A C B: %zu results at the wrong chain", bad);
    }

    /* occupation, one T and two mu (M N M N): grouped by mu too, not only by T */
    {
        const size_t n = 4;
        mcf_fermion_batch_get(b, n, &a);
        for (size_t k = 0; k < n; k++) {
            a.ws[k] = &ws_pool[k];
            a.rngs[k] = &rng_pool[FAKE_MAX - 1 - k];
            a.mu[k] = k % 2 ? 0.75 : -0.25;
            a.T[k] = 0.5;
            a.density[k] = a.energy[k] = NAN;
        }
        fake_reset();
        rc = mcf_fermion_occupation(&f, &a, n);
        CHECK(rc == MCF_OK && fake.occ_calls == 2, "occupation M N M N (one T): rc %d, %d "
              "calls, expected 2", rc, fake.occ_calls);
        if (fake.occ_calls == 2)
            CHECK(fake.occ[0].n == 2 && fake.occ[0].mu == -0.25 && fake.occ[0].ids[0] == 0 &&
                      fake.occ[0].ids[1] == 2 && fake.occ[1].n == 2 &&
                      fake.occ[1].mu == 0.75 && fake.occ[1].ids[0] == 1 &&
                      fake.occ[1].ids[1] == 3,
                  "occupation M N M N: groups wrong");
        size_t bad = 0;
        for (size_t k = 0; k < n; k++)
            bad += a.density[k] != 100.0 * (double)k + a.mu[k] ||
                   a.energy[k] != -100.0 * (double)k + 0.5;
        CHECK(bad == 0, "occupation M N M N: %zu results wrong", bad);
    }

    /* occupation, 50 chains over 4 pairs in a scrambled pattern; expected groups by hand:
     * the pairs in order of first appearance, each with its chains ascending */
    {
        const size_t n = 50;
        const double mus[4] = {1.0, -1.0, 1.0, 0.0}, Ts[4] = {0.5, 0.5, 2.0, 0.5};
        int pat[50];
        for (size_t k = 0; k < n; k++)
            pat[k] = (int)((k * k + 3 * k + 2) % 7) % 4;
        mcf_fermion_batch_get(b, n, &a);
        for (size_t k = 0; k < n; k++) {
            a.ws[k] = &ws_pool[k];
            a.rngs[k] = &rng_pool[FAKE_MAX - 1 - k];
            a.mu[k] = mus[pat[k]];
            a.T[k] = Ts[pat[k]];
            a.index[k] = 12345; /* scratch for the helper */
            a.density[k] = a.energy[k] = NAN;
        }
        int order[4], n_order = 0;
        for (size_t k = 0; k < n; k++) {
            int seen = 0;
            for (int g = 0; g < n_order; g++)
                seen |= order[g] == pat[k];
            if (!seen)
                order[n_order++] = pat[k];
        }
        fake_reset();
        rc = mcf_fermion_occupation(&f, &a, n);
        CHECK(rc == MCF_OK, "occupation 50 chains: rc %d (%s)", rc, mcf_last_error());
        CHECK(fake.occ_calls == n_order, "occupation 50 chains: %d calls, expected %d",
              fake.occ_calls, n_order);
        for (int g = 0; g < n_order && g < fake.occ_calls; g++) {
            const occ_call *c = &fake.occ[g];
            size_t q = 0, bad = 0;
            for (size_t k = 0; k < n; k++)
                if (pat[k] == order[g]) {
                    bad += q >= c->n || c->ids[q] != (int)k ||
                           c->rng_ids[q] != FAKE_MAX - 1 - (int)k;
                    q++;
                }
            CHECK(c->n == q && bad == 0 && c->mu == mus[order[g]] && c->T == Ts[order[g]],
                  "occupation 50 chains call %d: n %zu (expected %zu), %zu chains out of "
                  "place, mu %g T %g", g, c->n, q, bad, c->mu, c->T);
        }
        size_t bad = 0;
        for (size_t k = 0; k < n; k++)
            bad += a.density[k] != 100.0 * (double)k + mus[pat[k]] ||
                   a.energy[k] != -100.0 * (double)k + Ts[pat[k]];
        CHECK(bad == 0, "occupation 50 chains: %zu results at the wrong chain", bad);
    }

    /* non-finite results refused, in the one-group and in the mixed path */
    for (int mixed = 0; mixed < 2; mixed++)
        for (int which = 0; which < 2; which++) {
            const size_t n = 4;
            mcf_fermion_batch_get(b, n, &a);
            for (size_t k = 0; k < n; k++) {
                a.ws[k] = &ws_pool[k];
                a.rngs[k] = &rng_pool[k];
                a.mu[k] = 0.0;
                a.T[k] = mixed && k == 1 ? 0.3 : 0.1;
            }
            fake_reset();
            if (which == 0)
                fake.nan_id = 2;
            else
                fake.inf_id = 3;
            mcf_clear_error();
            rc = mcf_fermion_occupation(&f, &a, n);
            CHECK(rc == MCF_EPLUGIN, "occupation %s with a %s result: rc %d, expected "
                  "MCF_EPLUGIN", mixed ? "mixed" : "one group", which ? "inf energy" : "NaN density",
                  rc);
            CHECK(contains(mcf_last_error(), "holstein") && contains(mcf_last_error(), "fake"),
                  "non-finite message: %s", mcf_last_error());
        }

    /* a non-finite or non-positive T, or a non-finite mu, is refused before any call (NaN
       would break the grouping by equality and leave chains unmeasured) */
    for (int bad = 0; bad < 3; bad++) {
        const size_t n = 3;
        mcf_fermion_batch_get(b, n, &a);
        for (size_t k = 0; k < n; k++) {
            a.ws[k] = &ws_pool[k];
            a.rngs[k] = &rng_pool[k];
            a.mu[k] = bad == 2 && k == 1 ? NAN : 0.0;
            a.T[k] = bad == 0 && k != 1 ? NAN : bad == 1 && k == 2 ? 0.0 : 0.5;
        }
        fake_reset();
        mcf_clear_error();
        rc = mcf_fermion_occupation(&f, &a, n);
        CHECK(rc == MCF_EINVAL && fake.occ_calls == 0 && contains(mcf_last_error(), "holstein"),
              "occupation with bad (mu, T) case %d: rc %d, %d calls (%s)", bad, rc, fake.occ_calls,
              mcf_last_error());
    }

    /* an evaluator error, prefixed, in both paths */
    for (int mixed = 0; mixed < 2; mixed++) {
        const size_t n = 3;
        mcf_fermion_batch_get(b, n, &a);
        for (size_t k = 0; k < n; k++) {
            a.ws[k] = &ws_pool[k];
            a.rngs[k] = &rng_pool[k];
            a.mu[k] = mixed ? (double)k : 0.0;
            a.T[k] = 0.1;
        }
        fake_reset();
        fake.occ_rc = MCF_EINVAL;
        mcf_clear_error();
        rc = mcf_fermion_occupation(&f, &a, n);
        CHECK(rc == MCF_EINVAL, "occupation refused by the evaluator (%s): rc %d",
              mixed ? "mixed" : "one group", rc);
        CHECK(!strncmp(mcf_last_error(), "holstein: evaluator fake: occupation", 36) &&
                  contains(mcf_last_error(), "fake occupation refused"),
              "occupation error message (%s): %s", mixed ? "mixed" : "one group",
              mcf_last_error());
    }

done:
    test_params_free(ep);
    mcf_batch_destroy(b);
}

/* ==== 9. MCF_HAS ======================================================================== */

static void test_has_macro(void)
{
    /* through pointer variables: MCF_HAS(type, &var, field) trips gcc's -Waddress */
    mcf_fermion_ops ops = full_ops;
    mcf_fermion_ops *const op = &ops;
    const size_t end = offsetof(mcf_fermion_ops, change_action) + sizeof ops.change_action;
    CHECK(MCF_HAS(mcf_fermion_ops, op, change_action), "MCF_HAS: full table, field set: 0");
    ops.struct_size = (uint32_t)end;
    CHECK(MCF_HAS(mcf_fermion_ops, op, change_action), "MCF_HAS: struct_size ending at the "
          "field: 0");
    ops.struct_size = (uint32_t)(end - 1);
    CHECK(!MCF_HAS(mcf_fermion_ops, op, change_action), "MCF_HAS: struct_size one byte short: "
          "1");
    ops.struct_size = (uint32_t)offsetof(mcf_fermion_ops, change_action);
    CHECK(!MCF_HAS(mcf_fermion_ops, op, change_action), "MCF_HAS: struct_size before the "
          "field: 1");
    CHECK(MCF_HAS(mcf_fermion_ops, op, action), "MCF_HAS: an earlier field covered: 0");
    ops.struct_size = sizeof ops;
    ops.change_action = NULL;
    CHECK(!MCF_HAS(mcf_fermion_ops, op, change_action), "MCF_HAS: NULL field: 1");
    const mcf_fermion_ops *np = NULL;
    CHECK(!MCF_HAS(mcf_fermion_ops, np, change_action), "MCF_HAS: NULL table: 1");

    /* other SDK tables: a pointer field and an int field */
    mcf_services s = fake_services(NULL, NULL);
    mcf_services *const sp = &s;
    CHECK(!MCF_HAS(mcf_services, sp, evaluator_params), "MCF_HAS: NULL evaluator_params: 1");
    test_params *ep = test_params_make(eval_specs, "x.ini", (const char *)NULL);
    s.evaluator_params = &ep->p;
    CHECK(MCF_HAS(mcf_services, sp, evaluator_params), "MCF_HAS: evaluator_params set: 0");
    s.struct_size = (uint32_t)offsetof(mcf_services, evaluator_params);
    CHECK(!MCF_HAS(mcf_services, sp, evaluator_params), "MCF_HAS: services too short: 1");
    test_params_free(ep);
    mcf_model_ops m;
    memset(&m, 0, sizeof m);
    m.struct_size = sizeof m;
    mcf_model_ops *const mp = &m;
    CHECK(!MCF_HAS(mcf_model_ops, mp, evaluator_kind), "MCF_HAS: int field 0: 1");
    m.evaluator_kind = MCF_PLUGIN_FERMION_EVALUATOR;
    CHECK(MCF_HAS(mcf_model_ops, mp, evaluator_kind), "MCF_HAS: int field set: 0");
    m.struct_size = (uint32_t)offsetof(mcf_model_ops, evaluator_kind);
    CHECK(!MCF_HAS(mcf_model_ops, mp, evaluator_kind), "MCF_HAS: model ops too short: 1");

    mcf_plugin_info info = fake_info(MCF_PLUGIN_FERMION_EVALUATOR, "fake", &full_ops);
    CHECK(MCF_PLUGIN_INFO_HAS(&info, one_batch), "MCF_PLUGIN_INFO_HAS: full descriptor: 0");
    info.struct_size = (uint32_t)MCF_PLUGIN_INFO_MIN_SIZE;
    CHECK(!MCF_PLUGIN_INFO_HAS(&info, auto_priority),
          "MCF_PLUGIN_INFO_HAS: first-ABI descriptor covers auto_priority");
}

/* ==== 10. mcf_change_onsite ============================================================= */

/* onsite(r, delta) over a change filled with the byte `garbage` */
static void check_onsite(int garbage, size_t r, double delta, size_t dim, double *m)
{
    mcf_change c;
    memset(&c, garbage, sizeof c);
    mcf_change_onsite(&c, r, delta);
    int rc = mcf_change_check(&c, dim);
    CHECK(rc == MCF_OK, "onsite(%zu, %g) over 0x%02X: check: %s", r, delta, garbage,
          mcf_last_error());
    CHECK(c.rank == 1 && c.entries[0] == 1 && c.row[0][0] == (int64_t)r,
          "onsite: rank %d entries %d row %lld", c.rank, c.entries[0], (long long)c.row[0][0]);
    if (rc)
        return;
    memset(m, 0, 2 * dim * dim * sizeof *m);
    mcf_change_add_dense(&c, dim, m);
    size_t bad = 0;
    for (size_t i = 0; i < dim; i++)
        for (size_t j = 0; j < dim; j++) {
            const double want = i == r && j == r ? delta : 0.0;
            bad += m[2 * (i * dim + j)] != want || m[2 * (i * dim + j) + 1] != 0.0;
        }
    CHECK(bad == 0, "onsite(%zu, %g) over 0x%02X: add_dense: %zu entries wrong", r, delta,
          garbage, bad);
    const double tr = mcf_change_trace(&c);
    CHECK(tr == delta, "onsite(%zu, %g) over 0x%02X: trace %.17g", r, delta, garbage, tr);
    /* adding twice accumulates */
    mcf_change_add_dense(&c, dim, m);
    CHECK(m[2 * (r * dim + r)] == 2.0 * delta, "onsite: add_dense does not add");
}

static void test_change_onsite(void)
{
    const size_t dim = 8;
    double *m = malloc(2 * dim * dim * sizeof *m);
    if (!m)
        abort();
    static const struct {
        size_t r;
        double delta;
    } cases[] = {{0, 0.3}, {5, -1.75}, {7, 2.5e-3}, {3, 0.0}};
    /* 0xA5: doubles of magnitude 1e-127, invisible in sums; 0x3F and 0x40: garbage doubles
     * near 5e-4 and 32, which would show in add_dense and the trace if a field read were
     * left unwritten */
    static const int garbage[] = {0xA5, 0x3F, 0x40};
    for (size_t g = 0; g < sizeof garbage / sizeof garbage[0]; g++)
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
            check_onsite(garbage[g], cases[k].r, cases[k].delta, dim, m);
    /* what the check catches */
    mcf_change c;
    memset(&c, 0xA5, sizeof c);
    mcf_change_onsite(&c, dim, 1.0);
    CHECK(mcf_change_check(&c, dim) == MCF_EINVAL, "onsite row = dim passed the check");
    memset(&c, 0xA5, sizeof c);
    mcf_change_onsite(&c, 2, NAN);
    CHECK(mcf_change_check(&c, dim) == MCF_EINVAL, "onsite delta NaN passed the check");
    memset(&c, 0xA5, sizeof c);
    mcf_change_onsite(&c, 2, INFINITY);
    CHECK(mcf_change_check(&c, dim) == MCF_EINVAL, "onsite delta inf passed the check");
    free(m);
}

int main(void)
{
    fake_reset();
    test_batch();
    test_batch_keep();
    test_streams();
    test_state();
    test_adapt();
    test_parity();
    test_lattice_from_params();
    test_set_hopping();
    test_fermion_bind();
    test_fermion_batch();
    test_has_macro();
    test_change_onsite();
    return check_exit();
}
