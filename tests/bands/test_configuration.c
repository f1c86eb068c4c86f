/* test_configuration.c — a chain's own configuration as a crystal (the periodic op with
 * state NULL): the chain's L^d box as one cell, lattice vectors L e_d.  Chains are created
 * as a run creates chain 0 (mcfe_chain_services, the model's create, ed as the evaluator),
 * as `mcf band`'s state configuration does.
 *
 *   (a) H(k = 0) of the cell is the chain's Hamiltonian with periodic boundaries: its
 *       eigenvalues against those of a dense H built here from the configuration the model
 *       saves (its save() record or save_configuration()) and the lattice's neighbour
 *       table, to 1e-12 of the largest |eigenvalue|; the matrices entry by entry too.
 *       anderson W > 0 (cubic L = 4, square L = 2 with its doubled bonds, bcc L = 2),
 *       holstein (square L = 4, cubic L = 3), double exchange with random spins (cubic
 *       L = 3, infinite and finite Hund coupling; the reference is
 *       tests/kpm/de_test_hamiltonian.h, written independently of the model).
 *   (b) double exchange, all spins parallel (start = ordered) on the square L = 4 box: the
 *       cell on a Gamma-centred grid of n per direction has the eigenvalues of `ferro` on
 *       the grid of n L (the same k points, folded), to 1e-12.  Through tetra the DOS is
 *       NOT the same to rounding: tetra sorts the bands at every k and interpolates the
 *       sorted bands, and the box's folded bands cross inside tetrahedra (printed, not
 *       asserted).  What the sorting cannot change is asserted: the band range, and, with
 *       J_H = 5 > 4t (a gap between the spin bands), the electrons and the band energy at mu
 *       in the gap, which are then the plain k-point sums of the lower bands (every grid
 *       point a corner of equally many tetrahedra, no Bloechl term without states at mu):
 *       equal to 1e-12.
 *   (c) a Neel-G spins file ([model] spins, S_z = (-1)^(x+y)) on the square L = 4 box,
 *       J_H = 4: at 20 random K the cell's 2 L^2 bands are those of `neel-g` at K + 2 pi
 *       (p, q) / L, p, q < L (each twice: (pi, pi) is a vector of neel-g's reciprocal
 *       lattice), to 1e-12.  neel-g's grids are not the box's, so through tetra the band
 *       energy at mu = 0 (the gap 2 J_H) is compared as a converging k sum: the box with n =
 *       8 against neel-g with 32, within the sum of both grids' errors, each bounded by its
 *       change from the grid of half the size (the bands are analytic: the sums converge
 *       exponentially, so a change is larger than the error left).
 *   (d) refusals: boundary = open (naming the key), no state and no chain. */
#define _POSIX_C_SOURCE 200809L
#include "bands_check.h"

#include "chain.h"
#include "mcf/band.h"
#include "kpm/de_test_hamiltonian.h"

#include <stdio.h>

static mcf_plugin *ed, *tetra;
static const mcf_plugin_info *band_ev; /* tetra (either ABI: mcf_band_*) */

/* a model's chain 0 of a run at `seed`, at temperature T, with the model parameters
 * "key", "value", ..., NULL; ed its evaluator */
typedef struct chain0 {
    test_params *mp, *ep;
    mcf_services services;
    mcf_rng rng;
    void *chain;
} chain0;

static void chain0_free(chain0 *c)
{
    if (c->chain)
        MCFI_MODEL(ops, destroy, c->chain);
    test_params_free(c->mp);
    test_params_free(c->ep);
    memset(c, 0, sizeof *c);
}

static int chain0_make(chain0 *c, uint64_t seed, double T, ...)
{
    const char *kv[16] = {NULL};
    va_list ap;
    va_start(ap, T);
    for (int i = 0; i < 15; i++)
        if (!(kv[i] = va_arg(ap, const char *)))
            break;
    va_end(ap);
    memset(c, 0, sizeof *c);
    c->mp = test_params_make(specs, "test.ini", kv[0], kv[1], kv[2], kv[3], kv[4], kv[5],
                             kv[6], kv[7], kv[8], kv[9], kv[10], kv[11], kv[12], kv[13],
                             (const char *)NULL);
    c->mp->p.section = "model";
    c->mp->p.has_temperature = 1;
    c->mp->p.temperature = T;
    c->ep = test_params_make(ed->info->params, "test.ini", (const char *)NULL);
    mcfe_chain_services(seed, 0, ed->info, &c->ep->p, &c->services, &c->rng);
    mcfe_model_services(model_info, &c->services);
    int rc = c->mp->ok && c->ep->ok
                 ? MCFI_MODEL(ops, create, &c->mp->p, &c->services, &c->rng, &c->chain)
                 : MCF_EINVAL;
    if (rc) {
        c->chain = NULL;
        fprintf(stderr, "create: %s\n", mcf_last_error());
    }
    return rc;
}

/* the cell of the chain's configuration, checked; NULL on failure */
static mcf_cell *chain_cell(const chain0 *c, const char *what)
{
    mcf_cell *cell = NULL;
    mcf_cell_create(&cell);
    int rc = MCFI_MODEL(ops, periodic, &c->mp->p, c->chain, NULL, cell);
    const mcf_periodic *p = rc ? NULL : mcf_cell_view(cell);
    CHECK(p && mcf_periodic_check(p, what) == MCF_OK, "%s: the chain's cell: %s", what,
          mcf_last_error());
    if (!p) {
        mcf_cell_destroy(cell);
        return NULL;
    }
    return cell;
}

/* the bytes of what save (configuration 0) or save_configuration (1) writes; free() them */
static unsigned char *record(const chain0 *c, int configuration, size_t *size)
{
    mcf_stream s;
    mcf_stream_init_writer(&s);
    int rc = configuration ? MCFI_MODEL(ops, save_configuration, c->chain, &s)
                           : MCFI_MODEL(ops, save, c->chain, &s);
    CHECK(rc == MCF_OK, "save: %s", mcf_last_error());
    unsigned char *out = rc ? NULL : malloc(s.size);
    if (out)
        memcpy(out, s.data, s.size);
    *size = s.size;
    mcf_stream_release(&s);
    return out;
}

/* (a): the cell's H(0) against the dense reference href (n x n), entries and eigenvalues */
static void compare_gamma(const char *what, const mcf_cell *cell, size_t n, const double *href)
{
    const mcf_periodic *p = mcf_cell_view(cell);
    CHECK(p->orbitals == n, "%s: %u orbitals, want %zu", what, p->orbitals, n);
    if (p->orbitals != n)
        return;
    const double k0[3] = {0, 0, 0};
    double *hk = malloc(2 * n * n * sizeof *hk), *e = malloc(n * sizeof *e);
    double *w = malloc(n * sizeof *w), entry = 0, worst = 0, scale = 0;
    mcf_periodic_hk(p, k0, hk);
    for (size_t q = 0; q < 2 * n * n; q++)
        entry = fmax(entry, fabs(hk[q] - href[q]));
    eigenvalues(n, hk, e);
    eigenvalues(n, href, w);
    for (size_t a = 0; a < n; a++) {
        worst = fmax(worst, fabs(e[a] - w[a]));
        scale = fmax(scale, fabs(w[a]));
    }
    CHECK(worst <= 1e-12 * scale, "%s: H(k = 0) eigenvalues differ by %.3g (scale %.3g)", what,
          worst, scale);
    CHECK(entry <= 1e-12 * scale, "%s: H(k = 0) entries differ by %.3g", what, entry);
    printf("(a) %-34s %4zu orbitals: H(0) vs the chain's H: eigenvalues %.2g, entries %.2g "
           "(scale %.3g)\n", what, n, worst, entry, scale);
    free(hk);
    free(e);
    free(w);
}

/* the dense H of nearest-neighbour hopping -t on lat's neighbour table (a pair listed twice
 * gets -2t) plus the diagonal eps (n x n interleaved complex; free() it) */
static double *dense_tb(const mcf_lattice *lat, double t, const double *eps)
{
    const size_t n = lat->sites, z = (size_t)lat->coordination;
    double *h = calloc(2 * n * n, sizeof *h);
    for (size_t i = 0; i < n; i++) {
        h[2 * (i * n + i)] = eps[i];
        for (size_t k = 0; k < z; k++)
            h[2 * (i * n + (size_t)lat->neighbours[z * i + k])] += -t;
    }
    return h;
}

/* (a) for anderson and holstein: the chain's on-site energies from its record at byte
 * `offset` (times `factor`), the hopping t */
static void tb_case(const char *what, const char *kind, long L, double t, double factor,
                    size_t offset, chain0 *c)
{
    mcf_cell *cell = chain_cell(c, what);
    mcf_lattice_kind lk;
    mcf_lattice *lat = NULL;
    mcf_lattice_kind_from_name(kind, &lk);
    mcf_lattice_create(lk, L, MCF_BOUNDARY_PERIODIC, &lat);
    size_t size = 0;
    unsigned char *rec = record(c, 0, &size);
    if (cell && lat && rec && size >= offset + lat->sites * sizeof(double)) {
        double *eps = malloc(lat->sites * sizeof *eps);
        memcpy(eps, rec + offset, lat->sites * sizeof *eps);
        for (size_t i = 0; i < lat->sites; i++)
            eps[i] *= factor;
        double *h = dense_tb(lat, t, eps);
        compare_gamma(what, cell, lat->sites, h);
        free(h);
        free(eps);
    } else
        CHECK(0, "%s: cell, lattice and record (%zu bytes)", what, size);
    free(rec);
    mcf_lattice_destroy(lat);
    mcf_cell_destroy(cell);
    chain0_free(c);
}

/* 1 when describing c's configuration fails with a message containing needle */
static int chain_refused(const chain0 *c, const char *needle)
{
    mcf_cell *cell = NULL;
    mcf_cell_create(&cell);
    int rc = MCFI_MODEL(ops, periodic, &c->mp->p, c->chain, NULL, cell);
    mcf_cell_destroy(cell);
    if (rc == MCF_OK || !strstr(mcf_last_error(), needle))
        fprintf(stderr, "expected a refusal with '%s': %s\n", needle,
                rc ? mcf_last_error() : "accepted");
    return rc != MCF_OK && strstr(mcf_last_error(), needle) != NULL;
}

static void test_anderson(void)
{
    /* records "AND1", int32 kind, int32 boundary, int64 L, int64 N, N doubles eps_i */
    const size_t at = 4 + 8 + 8 + 8;
    chain0 c;
    if (!chain0_make(&c, 7, 1.0, "lattice", "cubic", "L", "4", "W", "3", "t", "0.8", NULL))
        tb_case("anderson cubic L=4 W=3", "cubic", 4, 0.8, 1.0, at, &c);
    if (!chain0_make(&c, 8, 1.0, "lattice", "square", "L", "2", "W", "2", "t", "0.8",
                     "typical_sites", "4", NULL))
        tb_case("anderson square L=2 (doubled bonds)", "square", 2, 0.8, 1.0, at, &c);
    if (!chain0_make(&c, 9, 1.0, "lattice", "bcc", "L", "2", "W", "4", "t", "0.8",
                     "typical_sites", "16", NULL))
        tb_case("anderson bcc L=2 W=4", "bcc", 2, 0.8, 1.0, at, &c);
    if (!chain0_make(&c, 7, 1.0, "L", "3", "W", "3", "boundary", "open", "typical_sites", "4",
                     NULL)) {
        CHECK(chain_refused(&c, "boundary = open"), "anderson: open boundaries refused");
        chain0_free(&c);
    }
    CHECK(refused_with("described with its chain", NULL, NULL),
          "anderson: no state and no chain");
}

static void test_holstein(void)
{
    /* record "HOL1", int64 N, double delta, N doubles x_i; on site -g x_i */
    const size_t at = 4 + 8 + 8;
    chain0 c;
    if (!chain0_make(&c, 11, 0.7, "lattice", "square", "L", "4", "t", "0.8", "g", "1.3",
                     NULL))
        tb_case("holstein square L=4", "square", 4, 0.8, -1.3, at, &c);
    if (!chain0_make(&c, 12, 0.4, "lattice", "cubic", "L", "3", "t", "0.8", "g", "1.3", NULL))
        tb_case("holstein cubic L=3", "cubic", 3, 0.8, -1.3, at, &c);
    if (!chain0_make(&c, 11, 0.7, "L", "4", "boundary", "open", NULL)) {
        CHECK(chain_refused(&c, "boundary = open"), "holstein: open boundaries refused");
        chain0_free(&c);
    }
    CHECK(refused_with("with a chain", NULL, NULL), "holstein: no state and no chain");
}

/* the spins of a double-exchange chain (save_configuration: "DEC1", int32 kind, int32
 * boundary, int64 L, int64 N, double hund, 3 N doubles); NULL on failure */
static double *de_spins(const chain0 *c, size_t n)
{
    size_t size = 0, at = 4 + 4 + 4 + 8 + 8 + 8;
    unsigned char *rec = record(c, 1, &size);
    double *s = rec && size >= at + 3 * n * sizeof *s ? malloc(3 * n * sizeof *s) : NULL;
    if (s)
        memcpy(s, rec + at, 3 * n * sizeof *s);
    free(rec);
    return s;
}

/* (a) for double exchange: random spins, cubic L = 3, against de_test_hamiltonian.h */
static void de_random(const char *hund)
{
    chain0 c;
    char what[64];
    snprintf(what, sizeof what, "double-exchange random hund=%s", hund);
    if (chain0_make(&c, 5, 0.1, "lattice", "cubic", "L", "3", "hund", hund, NULL))
        return;
    mcf_cell *cell = chain_cell(&c, what);
    de_lattice d = {.L = 3, .n = 27, .hund = isfinite(atof(hund)) ? atof(hund) : 0.0};
    d.s = de_spins(&c, d.n);
    if (cell && d.s) {
        mcf_hamiltonian *h = de_build(&d);
        double *dense = malloc(h->dim * h->dim * 2 * sizeof *dense);
        mcf_hamiltonian_dense(h, dense);
        compare_gamma(what, cell, h->dim, dense);
        free(dense);
        mcf_hamiltonian_destroy(h);
    }
    free(d.s);
    mcf_cell_destroy(cell);
    chain0_free(&c);
}

/* every eigenvalue of p on the Gamma-centred grid of m per direction, sorted (malloc) */
static double *grid_bands(const mcf_periodic *p, unsigned m, size_t *count)
{
    const size_t n = p->orbitals, points = (size_t)m * m * (p->dims == 3 ? m : 1);
    double *all = malloc(points * n * sizeof *all), *hk = malloc(2 * n * n * sizeof *hk);
    for (size_t q = 0; q < points; q++) {
        const double k[3] = {(double)(q % m) / m, (double)((q / m) % m) / m,
                             (double)(q / m / m) / m};
        mcf_periodic_hk(p, k, hk);
        eigenvalues(n, hk, all + q * n);
    }
    qsort(all, points * n, sizeof *all, sort_cmp);
    free(hk);
    *count = points * n;
    return all;
}

/* tetra's workspace for p with kpoints m; NULL on failure */
static void *tetra_ws(const mcf_periodic *p, unsigned m)
{
    char kp[16];
    snprintf(kp, sizeof kp, "%u", m);
    test_params *tp = test_params_make(tetra->info->params, "test.ini", "kpoints", kp,
                                       (const char *)NULL);
    void *ws = NULL;
    int rc = mcf_band_create(band_ev, &tp->p, p, &ws);
    CHECK(rc == MCF_OK, "tetra, %u k points: %s", m, mcf_last_error());
    test_params_free(tp);
    return rc ? NULL : ws;
}

/* tetra's electrons and band energy per site below mu, kpoints m */
static void tetra_occupation(const mcf_periodic *p, unsigned m, double mu, double *n,
                             double *e, double range[2])
{
    void *ws = tetra_ws(p, m);
    *n = *e = NAN;
    if (!ws)
        return;
    mcf_band_occupation(band_ev, tev_batch(), ws, mu, n, e);
    *n /= p->sites;
    *e /= p->sites;
    if (range)
        mcf_band_range(band_ev, ws, &range[0], &range[1]);
    mcf_band_destroy(band_ev, ws);
}

/* (b) the ferromagnet: start = ordered against the state ferro, square L = 4 */
static void de_ferro(const char *hund)
{
    const unsigned L = 4, n = 2;
    chain0 c;
    char what[64];
    snprintf(what, sizeof what, "ferro box hund=%s", hund);
    if (chain0_make(&c, 3, 0.1, "lattice", "square", "L", "4", "hund", hund, "start",
                    "ordered", "t", "0.7", NULL))
        return;
    mcf_cell *box = chain_cell(&c, what), *one = describe("ferro", "lattice", "square", "hund",
                                                          hund, "t", "0.7", NULL);
    if (box && one) {
        const mcf_periodic *pb = mcf_cell_view(box), *p1 = mcf_cell_view(one);
        size_t nb = 0, n1 = 0;
        double *eb = grid_bands(pb, n, &nb), *e1 = grid_bands(p1, n * L, &n1), worst = 0;
        CHECK(nb == n1, "%s: %zu eigenvalues on the box's grid, %zu on ferro's", what, nb, n1);
        for (size_t q = 0; q < nb && nb == n1; q++)
            worst = fmax(worst, fabs(eb[q] - e1[q]));
        CHECK(nb == n1 && worst <= 1e-12, "%s: the eigenvalues on the %u grid differ from "
              "ferro's on the %u grid by %.3g", what, n, n * L, worst);
        printf("(b) %-22s grid %u vs ferro's %u: %zu eigenvalues, largest difference %.2g\n",
               what, n, n * L, nb, worst);
        free(eb);
        free(e1);
        /* through tetra */
        const double mu = 0.0; /* in the gap (-1, 1) when J_H = 5 */
        double nbx, ebx, n1x, e1x, rb[2], r1[2];
        tetra_occupation(pb, n, mu, &nbx, &ebx, rb);
        tetra_occupation(p1, n * L, mu, &n1x, &e1x, r1);
        CHECK(fabs(rb[0] - r1[0]) <= 1e-12 && fabs(rb[1] - r1[1]) <= 1e-12,
              "%s: tetra's band range %g .. %g, ferro's %g .. %g", what, rb[0], rb[1], r1[0],
              r1[1]);
        void *wb = tetra_ws(pb, n), *w1 = tetra_ws(p1, n * L);
        double dmax = 0;
        for (int i = 0; wb && w1 && i <= 200; i++) {
            const double E = r1[0] + (r1[1] - r1[0]) * i / 200.0;
            double db, d1;
            mcf_band_dos(band_ev, tev_batch(), wb, 1, &E, &db, NULL, NULL);
            mcf_band_dos(band_ev, tev_batch(), w1, 1, &E, &d1, NULL, NULL);
            dmax = fmax(dmax, fabs(db / pb->sites - d1));
        }
        if (wb)
            mcf_band_destroy(band_ev, wb);
        if (w1)
            mcf_band_destroy(band_ev, w1);
        printf("    tetra: band range equal; DOS per site differs by up to %.3g (sorted bands "
               "interpolated across crossings; not asserted)\n", dmax);
        if (isfinite(atof(hund))) {
            CHECK(fabs(nbx - 1) <= 1e-12 && fabs(n1x - 1) <= 1e-12,
                  "%s: electrons per site at mu = 0 (the gap): box %.15g, ferro %.15g", what,
                  nbx, n1x);
            CHECK(fabs(ebx - e1x) <= 1e-12 * fabs(e1x),
                  "%s: band energy per site at mu = 0: box %.15g, ferro %.15g", what, ebx,
                  e1x);
            printf("    tetra at mu = 0 (gap): n = %.15g, %.15g; e = %.15g, %.15g (difference "
                   "%.2g)\n", nbx, n1x, ebx, e1x, fabs(ebx - e1x));
        }
    }
    mcf_cell_destroy(box);
    mcf_cell_destroy(one);
    chain0_free(&c);
}

/* (c) a Neel-G spins file against neel-g, square L = 4, J_H = 4 */
static void de_neel(void)
{
    const int L = 4;
    char path[512];
    const char *tmp = getenv("MCF_TEST_TMP");
    snprintf(path, sizeof path, "%s/neel-g-spins.txt", tmp ? tmp : "/tmp");
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "writing %s", path);
    if (!f)
        return;
    fprintf(f, "# Neel-G on the square L = 4 box\n");
    for (int y = 0; y < L; y++)
        for (int x = 0; x < L; x++)
            fprintf(f, "0 0 %d\n", (x + y) % 2 ? -1 : 1);
    fclose(f);
    chain0 c;
    if (chain0_make(&c, 3, 0.1, "lattice", "square", "L", "4", "hund", "4", "spins", path,
                    "t", "0.7", NULL))
        return;
    mcf_cell *box = chain_cell(&c, "neel-g box");
    mcf_cell *ng = describe("neel-g", "lattice", "square", "hund", "4", "t", "0.7", NULL);
    if (box && ng) {
        const mcf_periodic *pb = mcf_cell_view(box), *pg = mcf_cell_view(ng);
        const size_t nb = pb->orbitals, ngo = pg->orbitals;
        double *hb = malloc(2 * nb * nb * sizeof *hb), *eb = malloc(2 * nb * sizeof *eb);
        double *hg = malloc(2 * ngo * ngo * sizeof *hg), *eg = malloc(2 * nb * sizeof *eg);
        double worst = 0;
        uint64_t x = 0x243f6a8885a308d3ull;
        for (int s = 0; s < 20; s++) {
            double K[3] = {0, 0, 0}, k[3];
            for (int d = 0; d < 2; d++) {
                x = x * 6364136223846793005ull + 1442695040888963407ull;
                K[d] = 2 * pi * ((double)(x >> 11) / 9007199254740992.0 - 0.5);
                k[d] = L * K[d] / (2 * pi); /* the box's reduced k */
            }
            mcf_periodic_hk(pb, k, hb);
            eigenvalues(nb, hb, eb);
            for (size_t a = nb; a-- > 0;) /* each twice */
                eb[2 * a] = eb[2 * a + 1] = eb[a];
            for (int q = 0; q < L * L; q++) {
                const double G[2] = {2 * pi * (q % L) / L, 2 * pi * (q / L) / L};
                double kg[3] = {0, 0, 0};
                for (uint32_t i = 0; i < pg->dims; i++)
                    for (int d = 0; d < 2; d++)
                        kg[i] += (K[d] + G[d]) * pg->lattice[i][d] / (2 * pi);
                mcf_periodic_hk(pg, kg, hg);
                eigenvalues(ngo, hg, eg + (size_t)q * ngo);
            }
            qsort(eg, 2 * nb, sizeof *eg, sort_cmp);
            for (size_t a = 0; a < 2 * nb; a++)
                worst = fmax(worst, fabs(eb[a] - eg[a]));
        }
        CHECK(worst <= 1e-12, "neel-g box: bands differ from neel-g's folded ones by %.3g",
              worst);
        printf("(c) neel-g box hund=4: %zu bands at 20 K vs neel-g at K + G: largest "
               "difference %.2g\n", nb, worst);
        free(hb);
        free(eb);
        free(hg);
        free(eg);
        /* through tetra: the band energy at mu = 0, in the gap, as converging k sums */
        double n4, e4, n8, e8, g16, e16, g32, e32;
        tetra_occupation(pb, 4, 0.0, &n4, &e4, NULL);
        tetra_occupation(pb, 8, 0.0, &n8, &e8, NULL);
        tetra_occupation(pg, 16, 0.0, &g16, &e16, NULL);
        tetra_occupation(pg, 32, 0.0, &g32, &e32, NULL);
        const double tol = fabs(e8 - e4) + fabs(e32 - e16) + 1e-13 * fabs(e32);
        CHECK(fabs(n8 - 1) <= 1e-12 && fabs(g32 - 1) <= 1e-12,
              "neel-g: one electron per site at mu = 0: box %.15g, neel-g %.15g", n8, g32);
        CHECK(fabs(e8 - e32) <= tol, "neel-g: band energy per site at mu = 0: box %.15g "
              "(kpoints 8), neel-g %.15g (32), tolerance %.3g", e8, e32, tol);
        printf("    tetra at mu = 0 (gap): box %.15g (8), neel-g %.15g (32): difference %.2g, "
               "tolerance %.2g (grid changes %.2g, %.2g)\n", e8, e32, fabs(e8 - e32), tol,
               fabs(e8 - e4), fabs(e32 - e16));
    }
    mcf_cell_destroy(box);
    mcf_cell_destroy(ng);
    chain0_free(&c);
    remove(path);
}

static void test_double_exchange(void)
{
    de_random("inf");
    de_random("2.3");
    de_ferro("inf");
    de_ferro("5");
    de_neel();
    chain0 c;
    if (!chain0_make(&c, 3, 0.1, "lattice", "square", "L", "4", "boundary", "open", NULL)) {
        CHECK(chain_refused(&c, "boundary = open"), "double-exchange: open boundaries refused");
        chain0_free(&c);
    }
    CHECK(refused_with("no chain given", NULL, NULL), "double-exchange: no state, no chain");
}

int main(void)
{
    int rc = mcfe_plugin_open("ed", MCF_PLUGIN_FERMION_EVALUATOR, &ed);
    CHECK(rc == MCF_OK, "loading ed: %s", mcf_last_error());
    rc = rc ? rc : mcfe_plugin_open("tetra", MCF_PLUGIN_BAND_EVALUATOR, &tetra);
    CHECK(rc == MCF_OK, "loading tetra: %s", mcf_last_error());
    if (rc)
        return check_exit();
    band_ev = tetra->info;
    mcf_plugin *p = load_model("anderson");
    if (p) {
        test_anderson();
        mcfe_plugin_close(p);
    }
    if ((p = load_model("holstein"))) {
        test_holstein();
        mcfe_plugin_close(p);
    }
    if ((p = load_model("double-exchange"))) {
        test_double_exchange();
        mcfe_plugin_close(p);
    }
    mcfe_plugin_close(ed);
    mcfe_plugin_close(tetra);
    return check_exit();
}
