/* kbe_rows.c — checkpoint rows (kbe_core.h says the record): kbe_row_write copies time row n
 * out of the storage, kbe_row_read checks a row against the spec (and row 0 against what
 * kbe_create made) and copies it back; with second Born the next kbe_step first forms the
 * collision integrals' row at t_n by kbe_sigma_row and kbe_collision_row, as the end of
 * kbe_step does, so it starts from the same bits (a run rebuilt only to read G never pays
 * for them). */
#include "kbe_internal.h"

#include "mcf/mcf.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* the record's header: 6 words of 8 bytes, then 3 doubles */
static const char row_tag[8] = {'K', 'B', 'E', '-', 'R', 'O', 'W', '1'};
enum { ROW_HEAD = 6 * 8, ROW_SCALARS = 3 * 8 };
_Static_assert(ROW_HEAD + ROW_SCALARS == KBE_ROW_HEAD_BYTES, "kbe_core.h says the header's size");

typedef struct row_head {
    char tag[8];
    uint64_t n, nk;
    int32_t selfenergy, correctors;
    double dt, dipole;
} row_head;

static int is_2b(const kbe *w) { return kbe_collisions(w); }

/* a block of the record: every k's (over ranks too) */
static size_t block_bytes(const kbe *w) { return 4 * w->nk_all * sizeof(double complex); }

/* order p > 2: row K = 2p - 2 also carries rows 1 .. K - 1 as the start block made them
 * again (written earlier as the second-order step's provisional rows) */
static size_t start_blocks(const kbe *w, size_t n)
{
    const size_t K = w->kstart;
    if (w->order <= 2 || n != K)
        return 0;
    return 2 * ((K + 1) * (K + 2) / 2 - 2 - K) + (is_2b(w) ? K - 1 : 0);
}

size_t kbe_row_bytes(const kbe *w, size_t n)
{
    return ROW_HEAD + ROW_SCALARS + 2 * (n + 1) * block_bytes(w) +
           (is_2b(w) ? block_bytes(w) : 0) + start_blocks(w, n) * block_bytes(w);
}

/* `bytes` of the storage at g into the record at *at (out) or out of it (in); *at moves on */
static void row_move(void *g, size_t bytes, unsigned char *out, const unsigned char *in,
                     size_t *at)
{
    if (out)
        memcpy(out + *at, g, bytes);
    else
        memcpy(g, in + *at, bytes);
    *at += bytes;
}

/* the record's blocks of this rank's slab (every k in one process), in order: G^< and G^>
 * of row n (j = 0 .. n contiguous), second Born's I^<(t_n, t_n), then the start block's rows
 * 1 .. K - 1 after row K's own values: G^< and G^> of each row m, then I^<(t_m, t_m) of each
 * (second Born); out: into it, else out of in */
static void row_blocks(const kbe *w, size_t n, unsigned char *out, const unsigned char *in)
{
    const size_t bb = 4 * w->spec.nk * sizeof(double complex);
    size_t at = 0;
    for (int lesser = 1; lesser >= 0; lesser--)
        row_move(kbe_block(w, lesser, n, 0), (n + 1) * bb, out, in, &at);
    if (is_2b(w))
        row_move(w->idiag + n * 4 * w->spec.nk, bb, out, in, &at);
    for (size_t m = 1; start_blocks(w, n) && m < n; m++)
        for (int lesser = 1; lesser >= 0; lesser--)
            row_move(kbe_block(w, lesser, m, 0), (m + 1) * bb, out, in, &at);
    for (size_t m = 1; start_blocks(w, n) && is_2b(w) && m < n; m++)
        row_move(w->idiag + m * 4 * w->spec.nk, bb, out, in, &at);
}

static void head_of(const kbe_spec *s, int order, size_t nk_all, size_t n, row_head *h)
{
    memset(h, 0, sizeof *h);
    memcpy(h->tag, row_tag, sizeof row_tag);
    if (order > 2) /* "KBE3ROW1" .. "KBE5ROW1": rows of order p (those of 2 unchanged) */
        h->tag[3] = (char)('0' + order);
    h->n = n;
    h->nk = nk_all;
    h->selfenergy = (int32_t)s->selfenergy;
    h->correctors = s->correctors;
    h->dt = s->dt;
    h->dipole = s->dipole;
}

/* the header into / out of its 48 bytes, field by field (no padding in the record) */
static void head_put(const row_head *h, unsigned char *p)
{
    memcpy(p, h->tag, 8);
    memcpy(p + 8, &h->n, 8);
    memcpy(p + 16, &h->nk, 8);
    memcpy(p + 24, &h->selfenergy, 4);
    memcpy(p + 28, &h->correctors, 4);
    memcpy(p + 32, &h->dt, 8);
    memcpy(p + 40, &h->dipole, 8);
}

static void head_get(const unsigned char *p, row_head *h)
{
    memset(h, 0, sizeof *h);
    memcpy(h->tag, p, 8);
    memcpy(&h->n, p + 8, 8);
    memcpy(&h->nk, p + 16, 8);
    memcpy(&h->selfenergy, p + 24, 4);
    memcpy(&h->correctors, p + 28, 4);
    memcpy(&h->dt, p + 32, 8);
    memcpy(&h->dipole, p + 40, 8);
}

int kbe_row_write(const kbe *w, size_t n, void *buf)
{
    if (!buf)
        return mcf_fail(MCF_EINVAL, "kbe: no buffer for row %zu", n);
    if (n > w->n)
        return mcf_fail(MCF_EINVAL, "kbe: row %zu is past the %zu steps taken", n, w->n);
    unsigned char *p = buf;
    /* the residual as of row n: the step that made it (the last one when n = w->n; rows
     * before were written when they were the last, so only row n = w->n knows its own) */
    kbe_row_head_put(&w->spec, w->order, w->nk_all, n, w->E[n], w->U[n],
                     n == w->n ? w->corrector_residual : 0.0, p);
    p += ROW_HEAD + ROW_SCALARS;
    if (w->spec.gather) { /* the slab's blocks gathered to rank 0, in the record's order */
        const size_t nblk = (kbe_row_bytes(w, n) - ROW_HEAD - ROW_SCALARS) / block_bytes(w);
        row_blocks(w, n, (unsigned char *)w->pack, NULL);
        kbe_slab_gather(w, w->pack, nblk, p, 0);
        return MCF_OK;
    }
    row_blocks(w, n, p, NULL);
    return MCF_OK;
}

void kbe_row_head_put(const kbe_spec *s, int order, size_t nk_all, size_t n, double E,
                      double U, double residual, void *buf)
{
    row_head h;
    head_of(s, order, nk_all, n, &h);
    head_put(&h, buf);
    const double sc[3] = {E, U, residual};
    memcpy((unsigned char *)buf + ROW_HEAD, sc, sizeof sc);
}

/* every value of n doubles (complex: 2 each) finite */
static int all_finite(const unsigned char *p, size_t n)
{
    for (size_t q = 0; q < n; q++) {
        double x;
        memcpy(&x, p + 8 * q, 8);
        if (!isfinite(x))
            return 0;
    }
    return 1;
}

int kbe_row_head_check(const kbe_spec *s, int order, size_t nk_all, size_t n, const void *buf,
                       size_t bytes)
{
    const unsigned char *p = buf;
    row_head h, want;
    head_get(p, &h);
    head_of(s, order, nk_all, n, &want);
    if (memcmp(h.tag, want.tag, 8) != 0)
        return mcf_fail(MCF_EFORMAT, "kbe: row %zu is not a kbe row of order %d (no \"%.8s\" "
                        "tag)", n, order, want.tag);
    if (h.n != want.n || h.nk != want.nk || h.selfenergy != want.selfenergy ||
        h.correctors != want.correctors || memcmp(&h.dt, &want.dt, 8) != 0 ||
        memcmp(&h.dipole, &want.dipole, 8) != 0)
        return mcf_fail(MCF_EFORMAT, "kbe: row %zu is of a foreign run: row %llu of nk %llu, "
                        "self-energy %d, %d correctors, dt %.17g, d %.17g, where this run has "
                        "nk %zu, self-energy %d, %d correctors, dt %.17g, d %.17g", n,
                        (unsigned long long)h.n, (unsigned long long)h.nk, (int)h.selfenergy,
                        (int)h.correctors, h.dt, h.dipole, nk_all, (int)s->selfenergy,
                        s->correctors, s->dt, s->dipole);
    if (!all_finite(p + ROW_HEAD, (bytes - ROW_HEAD) / 8))
        return mcf_fail(MCF_EFORMAT, "kbe: row %zu holds a value that is not finite", n);
    return MCF_OK;
}

/* the checks of row n against w; MCF_OK or the refusal, w untouched */
static int row_check(const kbe *w, size_t n, const unsigned char *p)
{
    if (n != w->row_next || w->n != (n ? n - 1 : 0))
        return mcf_fail(MCF_EINVAL, "kbe: row %zu out of order (rows are read 0, 1, ... into "
                        "a kbe not stepped; the next is %zu at step %zu)", n, w->row_next,
                        w->n);
    if (n > w->spec.steps)
        return mcf_fail(MCF_EINVAL, "kbe: row %zu is past the %zu steps the storage holds", n,
                        w->spec.steps);
    const int rc =
        kbe_row_head_check(&w->spec, w->order, w->nk_all, n, p, kbe_row_bytes(w, n));
    if (rc)
        return rc;
    if (n > 0)
        return MCF_OK;
    /* row 0: what kbe_create made, bit for bit */
    double sc[3];
    memcpy(sc, p + ROW_HEAD, sizeof sc);
    if (memcmp(&sc[0], &w->E[0], 8) != 0 || memcmp(&sc[1], &w->U[0], 8) != 0 || sc[2] != 0.0)
        return mcf_fail(MCF_EFORMAT, "kbe: row 0 has the drive E %.17g, U %.17g where this run "
                        "starts at E %.17g, U %.17g: a foreign checkpoint", sc[0], sc[1],
                        w->E[0], w->U[0]);
    const size_t bb = 4 * w->spec.nk * sizeof(double complex); /* the slab's blocks */
    const unsigned char *g = p + ROW_HEAD + ROW_SCALARS;
    if (w->spec.gather) { /* this rank's slab of G^<, G^> (and I^<) at (0, 0) */
        const size_t nblk = is_2b(w) ? 3 : 2;
        memcpy(w->recv, g, nblk * block_bytes(w));
        kbe_slab_take(w, w->recv, nblk, w->pack);
        g = (const unsigned char *)w->pack;
    }
    if (memcmp(g, kbe_block(w, 1, 0, 0), bb) != 0 || memcmp(g + bb, kbe_block(w, 0, 0, 0), bb))
        return mcf_fail(MCF_EFORMAT, "kbe: row 0 has another initial state G(0, 0) than this "
                        "run's rho0: a foreign checkpoint");
    if (is_2b(w) && memcmp(g + 2 * bb, w->idiag, bb) != 0)
        return mcf_fail(MCF_EFORMAT, "kbe: row 0 has a collision integral I(0, 0) != 0");
    return MCF_OK;
}

int kbe_row_read(kbe *w, size_t n, const void *buf)
{
    if (!buf)
        return mcf_fail(MCF_EINVAL, "kbe: no buffer for row %zu", n);
    const unsigned char *p = buf;
    const int rc = row_check(w, n, p);
    if (rc)
        return rc;
    double sc[3];
    memcpy(sc, p + ROW_HEAD, sizeof sc);
    p += ROW_HEAD + ROW_SCALARS;
    if (w->spec.gather) { /* this rank's slab of every block */
        const size_t nblk = (kbe_row_bytes(w, n) - ROW_HEAD - ROW_SCALARS) / block_bytes(w);
        memcpy(w->recv, p, nblk * block_bytes(w)); /* aligned, then the slab taken */
        kbe_slab_take(w, w->recv, nblk, w->pack);
        row_blocks(w, n, NULL, (const unsigned char *)w->pack);
        for (size_t q = 0; q < w->ring; q++) /* the rows at every k: gathered when needed */
            w->ring_row[q] = SIZE_MAX;
    } else
        row_blocks(w, n, NULL, p);
    w->E[n] = sc[0];
    w->U[n] = sc[1];
    /* the integrals' row at t_n that kbe_step leaves for the next step is formed by the next
     * kbe_step (the self-energy's row, then the integrals, from the rows <= n): only the last
     * row read needs it */
    if (is_2b(w))
        w->collision_stale = 1;
    w->corrector_residual = sc[2];
    w->n = n;
    w->row_next = n + 1;
    return MCF_OK;
}
