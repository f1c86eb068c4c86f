/* de_test_hamiltonian.h — double-exchange Hamiltonians for the GFMC test and benchmark,
 * written independently of the model plugin (models/double-exchange): spins on a periodic
 * L^3 cubic lattice; infinite Hund coupling (hund = 0 here): H_ij = -<chi_i|chi_j>,
 * chi = (cos(theta/2), sin(theta/2) e^{i phi}); finite hund: spin-diagonal hopping -1 and
 * on-site -hund S.sigma; bounds fixed to +-(6 + hund).  de_change() writes the local change
 * of turning spin o to a new direction in the form of mcf/fermion.h. */
#ifndef MCF_DE_TEST_HAMILTONIAN_H
#define MCF_DE_TEST_HAMILTONIAN_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcf/mcf.h"

typedef struct de_lattice {
    size_t L, n;
    double *s;      /* 3 n spin components */
    double hund;    /* 0: infinite */
} de_lattice;

static inline size_t de_site(size_t L, long x, long y, long z)
{
    const long l = (long)L;
    return (size_t)(((x % l + l) % l) + l * (((y % l + l) % l) + l * ((z % l + l) % l)));
}

static inline void de_neighbours(size_t L, size_t s, size_t nb[6])
{
    const long x = (long)(s % L), y = (long)((s / L) % L), z = (long)(s / (L * L));
    nb[0] = de_site(L, x + 1, y, z);
    nb[1] = de_site(L, x - 1, y, z);
    nb[2] = de_site(L, x, y + 1, z);
    nb[3] = de_site(L, x, y - 1, z);
    nb[4] = de_site(L, x, y, z + 1);
    nb[5] = de_site(L, x, y, z - 1);
}

/* <chi_i|chi_j> for unit vectors si, sj */
static inline void de_overlap(const double *si, const double *sj, double *re, double *im)
{
    const double ti = acos(fmax(-1.0, fmin(1.0, si[2]))), pi_ = atan2(si[1], si[0]);
    const double tj = acos(fmax(-1.0, fmin(1.0, sj[2]))), pj = atan2(sj[1], sj[0]);
    const double cc = cos(ti / 2) * cos(tj / 2), ss = sin(ti / 2) * sin(tj / 2);
    *re = cc + ss * cos(pj - pi_);
    *im = ss * sin(pj - pi_);
}

static inline void de_unit(mcf_rng *rng, double *v)
{
    const double z = 2.0 * mcf_rng_uniform(rng) - 1.0, p = 2.0 * 3.14159265358979323846 * mcf_rng_uniform(rng);
    const double r = sqrt(1.0 - z * z);
    v[0] = r * cos(p);
    v[1] = r * sin(p);
    v[2] = z;
}

/* L^3 independent uniform spins from stream (seed, 0); free d.s with free() */
static inline de_lattice de_random_lattice(size_t L, double hund, uint64_t seed)
{
    de_lattice d = {.L = L, .n = L * L * L, .hund = hund};
    d.s = malloc(3 * d.n * sizeof *d.s);
    mcf_rng rng;
    mcf_rng_init(&rng, seed, 0);
    for (size_t i = 0; d.s && i < d.n; i++)
        de_unit(&rng, d.s + 3 * i);
    return d;
}

/* the Hamiltonian of the spins (bounds fixed to +-(6 + hund) like the model) */
static inline mcf_hamiltonian *de_build(const de_lattice *d)
{
    const int orb = d->hund > 0 ? 2 : 1;
    mcf_hamiltonian *h = NULL;
    if (mcf_hamiltonian_create(d->n, orb, orb == 1 ? 6 : 7, &h) != MCF_OK) {
        fprintf(stderr, "de_build: %s\n", mcf_last_error());
        abort();
    }
    for (size_t s = 0; s < d->n; s++) {
        size_t nb[6];
        de_neighbours(d->L, s, nb);
        for (int k = 0; k < 6; k += 2) {
            const size_t j = nb[k];
            if (orb == 1) {
                double re, im;
                de_overlap(d->s + 3 * s, d->s + 3 * j, &re, &im);
                mcf_hamiltonian_set(h, s, j, -re, -im);
            } else {
                mcf_hamiltonian_set(h, 2 * s, 2 * j, -1.0, 0.0);
                mcf_hamiltonian_set(h, 2 * s + 1, 2 * j + 1, -1.0, 0.0);
            }
        }
        if (orb == 2) {
            const double *S = d->s + 3 * s, J = d->hund;
            mcf_hamiltonian_set_onsite(h, 2 * s, -J * S[2]);
            mcf_hamiltonian_set_onsite(h, 2 * s + 1, J * S[2]);
            mcf_hamiltonian_set(h, 2 * s, 2 * s + 1, -J * S[0], J * S[1]);
        }
    }
    mcf_hamiltonian_fix_bounds(h, -(6.0 + d->hund), 6.0 + d->hund);
    return h;
}

/* the change of turning site o to direction snew */
static inline void de_change(const de_lattice *d, size_t o, const double *snew, mcf_local_change *c)
{
    memset(c, 0, sizeof *c);
    c->rank = 2;
    if (d->hund == 0) {
        size_t nb[6];
        de_neighbours(d->L, o, nb);
        c->entries[0] = 1;
        c->row[0][0] = (int64_t)o;
        c->re[0][0] = 1.0;
        c->entries[1] = 6;
        for (int k = 0; k < 6; k++) {
            /* Delta_jo = H'_jo - H_jo = -(<chi_j|chi'_o> - <chi_j|chi_o>) */
            double r1, i1, r0, i0;
            de_overlap(d->s + 3 * nb[k], snew, &r1, &i1);
            de_overlap(d->s + 3 * nb[k], d->s + 3 * o, &r0, &i0);
            c->row[1][k] = (int64_t)nb[k];
            c->re[1][k] = -(r1 - r0);
            c->im[1][k] = -(i1 - i0);
        }
        c->c_re[0][1] = c->c_re[1][0] = 1.0;
    } else {
        const double J = d->hund, *S = d->s + 3 * o;
        const double dx = snew[0] - S[0], dy = snew[1] - S[1], dz = snew[2] - S[2];
        c->entries[0] = c->entries[1] = 1;
        c->row[0][0] = (int64_t)(2 * o);
        c->row[1][0] = (int64_t)(2 * o + 1);
        c->re[0][0] = c->re[1][0] = 1.0;
        /* -J dS.sigma = -J [[dz, dx - i dy], [dx + i dy, -dz]] */
        c->c_re[0][0] = -J * dz;
        c->c_re[1][1] = J * dz;
        c->c_re[0][1] = -J * dx;
        c->c_im[0][1] = J * dy;
        c->c_re[1][0] = -J * dx;
        c->c_im[1][0] = -J * dy;
    }
}

#endif
