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

/* the formulas, in double (the GPU plugin includes the same file in float and double) */
#define TETRA_REAL double
#define TETRA_POINT tetra_point
#define TETRA_QUAL static
#include "tetra_point.inc"

void tetra_point_at(const double e[4], double E, int bloechl, tetra_point *p)
{
    tp_point_at(e, E, bloechl, p);
}
