/* tetra_weights.c — what one tetrahedron gives at an energy E (tetra.h, tetra_point_at):
 * the volume below E, its derivative (the DOS), and the integration weights of the four
 * corners with their derivatives, for a band interpolated linearly between the corners.
 *
 * Corner energies sorted, e1 <= e2 <= e3 <= e4, e_ij = e_i - e_j, unit volume;
 * a = E - e1, b = E - e2, c = e3 - E, d = e4 - E (BJA, appendix):
 *
 *   E <= e1:        n = 0, all weights 0.
 *   e1 < E < e2:    n = a^3 / (e21 e31 e41),  D = dn/dE = 3 a^2 / (e21 e31 e41),
 *                   C = n / 4,  w_1 = C [4 - a (1/e21 + 1/e31 + 1/e41)],
 *                   w_j = C a / e_j1 (j = 2, 3, 4).
 *   e2 <= E < e3:   n = [e21^2 + 3 e21 b + 3 b^2 - (e31 + e42) b^3 / (e32 e42)] / (e31 e41),
 *                   D = [3 e21 + 6 b - 3 (e31 + e42) b^2 / (e32 e42)] / (e31 e41),
 *                   C1 = a^2 / (4 e41 e31), C2 = a b c / (4 e41 e32 e31),
 *                   C3 = b^2 d / (4 e42 e32 e41),
 *                   w_1 = C1 + (C1 + C2) c / e31 + (C1 + C2 + C3) d / e41,
 *                   w_2 = C1 + C2 + C3 + (C2 + C3) c / e32 + C3 d / e42,
 *                   w_3 = (C1 + C2) a / e31 + (C2 + C3) b / e32,
 *                   w_4 = (C1 + C2 + C3) a / e41 + C3 b / e42.
 *   e3 <= E < e4:   n = 1 - d^3 / (e41 e42 e43),  D = 3 d^2 / (e41 e42 e43),
 *                   C = d^3 / (4 e41 e42 e43),  w_j = 1/4 - C d / e4j (j = 1, 2, 3),
 *                   w_4 = 1/4 - C [4 - d (1/e41 + 1/e42 + 1/e43)].
 *   E >= e4:        n = 1, w_i = 1/4.
 *
 * In each case sum_i w_i = n, and the denominators are differences that the case makes
 * positive (e31, e41 > 0 when e2 <= E < e3, ...), so ties between corners need no care.
 * w_i is the integral over the tetrahedron of the linear function that is 1 at corner i
 * and 0 at the others, below E: sum_i w_i f_i integrates a linearly interpolated f.  The
 * derivatives dw_i/dE (the DOS weights, the same integral on the surface E) follow by the
 * product rule, term by term below.
 *
 * Bloechl's correction removes the leading error of the linear interpolation
 * for a band that curves inside the tetrahedron:
 *
 *   dw_i = (D(E) / 40) sum_{j=1..4} (e_j - e_i),
 *
 * which sums to zero over the corners (n unchanged) and whose E-derivative,
 * (dD/dE / 40) sum_j (e_j - e_i), is added to dw_i. */
#include "tetra.h"

/* e1 < E < e2 */
static void below_second(const double e[4], double E, tetra_point *p)
{
    const double a = E - e[0], e21 = e[1] - e[0], e31 = e[2] - e[0], e41 = e[3] - e[0];
    const double den = e21 * e31 * e41, S = 1.0 / e21 + 1.0 / e31 + 1.0 / e41;
    const double C = a * a * a / (4.0 * den), dC = 3.0 * a * a / (4.0 * den);
    p->n = 4.0 * C;
    p->d = 4.0 * dC;
    p->w[0] = C * (4.0 - a * S);
    p->dw[0] = dC * (4.0 - a * S) - C * S;
    const double ej1[3] = {e21, e31, e41};
    for (int j = 0; j < 3; j++) {
        p->w[j + 1] = C * a / ej1[j];
        p->dw[j + 1] = (dC * a + C) / ej1[j];
    }
}

/* e2 <= E < e3 */
static void below_third(const double e[4], double E, tetra_point *p)
{
    const double a = E - e[0], b = E - e[1], c = e[2] - E, d = e[3] - E;
    const double e21 = e[1] - e[0], e31 = e[2] - e[0], e41 = e[3] - e[0];
    const double e32 = e[2] - e[1], e42 = e[3] - e[1];
    const double q = (e31 + e42) / (e32 * e42), r = 1.0 / (e31 * e41);
    p->n = (e21 * e21 + 3.0 * e21 * b + 3.0 * b * b - q * b * b * b) * r;
    p->d = (3.0 * e21 + 6.0 * b - 3.0 * q * b * b) * r;

    const double k1 = 1.0 / (4.0 * e41 * e31), k2 = 1.0 / (4.0 * e41 * e32 * e31);
    const double k3 = 1.0 / (4.0 * e42 * e32 * e41);
    const double C1 = a * a * k1, C2 = a * b * c * k2, C3 = b * b * d * k3;
    const double dC1 = 2.0 * a * k1, dC2 = (b * c + a * c - a * b) * k2;
    const double dC3 = (2.0 * b * d - b * b) * k3;
    const double C12 = C1 + C2, C23 = C2 + C3, C123 = C1 + C2 + C3;
    const double dC12 = dC1 + dC2, dC23 = dC2 + dC3, dC123 = dC1 + dC2 + dC3;

    p->w[0] = C1 + C12 * c / e31 + C123 * d / e41;
    p->dw[0] = dC1 + (dC12 * c - C12) / e31 + (dC123 * d - C123) / e41;
    p->w[1] = C123 + C23 * c / e32 + C3 * d / e42;
    p->dw[1] = dC123 + (dC23 * c - C23) / e32 + (dC3 * d - C3) / e42;
    p->w[2] = C12 * a / e31 + C23 * b / e32;
    p->dw[2] = (dC12 * a + C12) / e31 + (dC23 * b + C23) / e32;
    p->w[3] = C123 * a / e41 + C3 * b / e42;
    p->dw[3] = (dC123 * a + C123) / e41 + (dC3 * b + C3) / e42;
}

/* e3 <= E < e4 */
static void below_fourth(const double e[4], double E, tetra_point *p)
{
    const double d = e[3] - E, e41 = e[3] - e[0], e42 = e[3] - e[1], e43 = e[3] - e[2];
    const double den = e41 * e42 * e43, S = 1.0 / e41 + 1.0 / e42 + 1.0 / e43;
    const double C = d * d * d / (4.0 * den), dC = -3.0 * d * d / (4.0 * den);
    p->n = 1.0 - 4.0 * C;
    p->d = -4.0 * dC;
    const double e4j[3] = {e41, e42, e43};
    for (int j = 0; j < 3; j++) {
        p->w[j] = 0.25 - C * d / e4j[j];
        p->dw[j] = -(dC * d - C) / e4j[j];
    }
    p->w[3] = 0.25 - C * (4.0 - d * S);
    p->dw[3] = -(dC * (4.0 - d * S) + C * S);
}

/* dD/dE, for the derivative of Bloechl's correction */
static double dos_slope(const double e[4], double E)
{
    if (E <= e[0] || E >= e[3])
        return 0.0;
    if (E < e[1])
        return 6.0 * (E - e[0]) / ((e[1] - e[0]) * (e[2] - e[0]) * (e[3] - e[0]));
    if (E < e[2]) {
        const double b = E - e[1], e31 = e[2] - e[0], e41 = e[3] - e[0];
        const double e32 = e[2] - e[1], e42 = e[3] - e[1];
        return (6.0 - 6.0 * (e31 + e42) * b / (e32 * e42)) / (e31 * e41);
    }
    return -6.0 * (e[3] - E) / ((e[3] - e[0]) * (e[3] - e[1]) * (e[3] - e[2]));
}

void tetra_point_at(const double e[4], double E, int bloechl, tetra_point *p)
{
    *p = (tetra_point){0};
    if (E <= e[0])
        return;
    if (E >= e[3]) {
        p->n = 1.0;
        for (int i = 0; i < 4; i++)
            p->w[i] = 0.25;
        return;
    }
    if (E < e[1])
        below_second(e, E, p);
    else if (E < e[2])
        below_third(e, E, p);
    else
        below_fourth(e, E, p);
    if (!bloechl)
        return;
    const double sum = e[0] + e[1] + e[2] + e[3], slope = dos_slope(e, E);
    for (int i = 0; i < 4; i++) {
        const double spread = sum - 4.0 * e[i];
        p->w[i] += p->d * spread / 40.0;
        p->dw[i] += slope * spread / 40.0;
    }
}
