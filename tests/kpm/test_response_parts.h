/* test_response_parts.h — the parts (a)-(g) of test_response.c (which says what each
 * asserts), included once by it after its helpers. */

/* (a) the current operator */
static void part_a(void)
{
    mcf_lattice *lo = square(5, MCF_BOUNDARY_OPEN);
    mcf_hamiltonian *h = hofstadter(lo, 0.2);
    const size_t n = h->dim;
    double *hd = dense(h), *x = calloc(2 * n * n, sizeof *x), *hx = malloc(2 * n * n * 8);
    double *xh = malloc(2 * n * n * 8);
    for (int axis = 0; axis < 2; axis++) {
        mcf_hamiltonian *J = current(h, lo, axis);
        double *jd = dense(J), worst = 0.0;
        for (size_t r = 0; r < n; r++)
            x[2 * (r * n + r)] = lo->positions[3 * r + (size_t)axis];
        matmul(n, hd, x, hx);
        matmul(n, x, hd, xh);
        for (size_t q = 0; q < n * n; q++) { /* i (HX - XH) */
            const double cr = -(hx[2 * q + 1] - xh[2 * q + 1]), ci = hx[2 * q] - xh[2 * q];
            worst = fmax(worst, hypot(jd[2 * q] - cr, jd[2 * q + 1] - ci));
        }
        CHECK(worst <= 1e-15 * 4.0 * 5.0, "(a) open 5x5, axis %d: J - i[H, X] = %.2e", axis,
              worst);
        printf("(a) open 5x5 Hofstadter, axis %d: max |J - i[H, X]| = %.1e\n", axis, worst);
        free(jd);
        mcf_hamiltonian_destroy(J);
    }
    free(hd);
    free(x);
    free(hx);
    free(xh);
    mcf_hamiltonian_destroy(h);
    mcf_lattice_destroy(lo);

    /* periodic: the bond to the +x neighbour has d_x = +1, also across the boundary */
    mcf_lattice *lp = square(10, MCF_BOUNDARY_PERIODIC);
    h = hofstadter(lp, 0.4);
    mcf_hamiltonian *J = current(h, lp, 0);
    CHECK(J && mcf_hamiltonian_check(J) == MCF_OK, "(a) J not Hermitian: %s", mcf_last_error());
    size_t bad = 0, seen = 0;
    for (int k = 0; J && k < h->width; k++)
        for (size_t r = 0; r < h->dim; r++) {
            const size_t s = (size_t)k * h->dim + r;
            const int32_t c = h->col[s];
            if (c < 0)
                continue;
            const double d = c == lp->neighbours[4 * r] ? 1.0
                             : c == lp->neighbours[4 * r + 1] ? -1.0 : 0.0;
            seen++;
            bad += J->hop_re[s] != -d * h->hop_im[s] || J->hop_im[s] != d * h->hop_re[s];
        }
    CHECK(bad == 0 && seen == 400, "(a) periodic 10x10: %zu of %zu entries differ from "
          "i d H with d = +-1 along x", bad, seen);
    mcf_hamiltonian *Jr = NULL;
    CHECK(mcf_current_operator(h, lp, 2, &Jr) == MCF_EINVAL && !Jr, "(a) axis 2 of a square");
    printf("(a) axis 2 refused: %s\n", mcf_last_error());
    mcf_lattice *l2 = square(2, MCF_BOUNDARY_PERIODIC), *l3 = square(3, MCF_BOUNDARY_PERIODIC);
    mcf_hamiltonian *h2 = NULL;
    mcf_hamiltonian_create(4, 1, 4, &h2);
    CHECK(mcf_current_operator(h2, l2, 0, &Jr) == MCF_EINVAL, "(a) periodic L = 2");
    printf("(a) L = 2 refused: %s\n", mcf_last_error());
    CHECK(mcf_current_operator(h2, l3, 0, &Jr) == MCF_EINVAL, "(a) 4 sites on a 9-site lattice");
    CHECK(mcf_current_operator_update(J, h2, l2, 0) == MCF_EINVAL, "(a) update of another size");
    mcf_hamiltonian_destroy(h2);
    mcf_lattice_destroy(l2);
    mcf_lattice_destroy(l3);
    mcf_hamiltonian_destroy(J);
    mcf_hamiltonian_destroy(h);
    mcf_lattice_destroy(lp);
}

/* mu_nm = (1/n) Tr[A T_n(H~) B T_m(H~)] by dense matrix recursion */
static void dense_moments(const mcf_hamiltonian *h, const mcf_hamiltonian *A,
                          const mcf_hamiltonian *B, size_t M, double a, double b, double *re,
                          double *im)
{
    const size_t n = h->dim, nn = 2 * n * n;
    double *ht = dense(h), *ad = dense(A), *bd = dense(B);
    double *t = calloc(M * nn, sizeof *t), *at = malloc(M * nn * 8), *bt = malloc(M * nn * 8);
    for (size_t r = 0; r < n; r++)
        ht[2 * (r * n + r)] -= b;
    for (size_t q = 0; q < nn; q++)
        ht[q] /= a;
    for (size_t r = 0; r < n; r++)
        t[2 * (r * n + r)] = 1.0;
    memcpy(t + nn, ht, nn * sizeof *t);
    for (size_t m = 2; m < M; m++) {
        matmul(n, ht, t + (m - 1) * nn, t + m * nn);
        for (size_t q = 0; q < nn; q++)
            t[m * nn + q] = 2.0 * t[m * nn + q] - t[(m - 2) * nn + q];
    }
    for (size_t m = 0; m < M; m++) {
        matmul(n, ad, t + m * nn, at + m * nn);
        matmul(n, bd, t + m * nn, bt + m * nn);
    }
    for (size_t p = 0; p < M; p++)
        for (size_t m = 0; m < M; m++) {
            double sr = 0.0, si = 0.0;
            const double *x = at + p * nn, *y = bt + m * nn;
            for (size_t i = 0; i < n; i++)
                for (size_t j = 0; j < n; j++) {
                    const double xr = x[2 * (i * n + j)], xi = x[2 * (i * n + j) + 1];
                    const double yr = y[2 * (j * n + i)], yi = y[2 * (j * n + i) + 1];
                    sr += xr * yr - xi * yi;
                    si += xr * yi + xi * yr;
                }
            re[p * M + m] = sr / (double)n;
            im[p * M + m] = si / (double)n;
        }
    free(ht);
    free(ad);
    free(bd);
    free(t);
    free(at);
    free(bt);
}

static double max_diff(const mom *x, const mom *y)
{
    double w = 0.0;
    for (size_t q = 0; q < x->M * x->M; q++)
        w = fmax(w, hypot(x->re[q] - y->re[q], x->im[q] - y->im[q]));
    return w;
}

/* (b), (c), (d): moments */
static void part_bcd(void)
{
    const double theta[3] = {2 * pi * 0.13, 2 * pi * 0.27, 0.0};
    mcf_lattice *lat = square(6, MCF_BOUNDARY_PERIODIC);
    mcf_hamiltonian *h = anderson(lat, 3.0, theta);
    mcf_hamiltonian *jx = current(h, lat, 0), *jy = current(h, lat, 1);
    test_params *te = test_params_make(ed_info->params, "test", NULL);
    test_params *t0 = test_params_make(kpm_info->params, "test", "vectors", "0", NULL);
    test_params *tr = test_params_make(kpm_info->params, "test", "vectors", "200", NULL);

    mom e10 = moments(ed_info, te, h, jx, jy, 10, NULL, NULL);
    mom d10 = {10, malloc(800), malloc(800), NULL, {0, 0}};
    dense_moments(h, jx, jy, 10, e10.ab[0], e10.ab[1], d10.re, d10.im);
    const double wb = max_diff(&e10, &d10);
    CHECK(wb <= 1e-12, "(b) ed against the dense recursion: %.2e", wb);
    printf("(b) ed's moments (M = 10, J_x, J_y) against T_n(H~) as dense matrices: %.1e "
           "(mu_00 = %.6f%+.6fi)\n", wb, e10.re[0], e10.im[0]);

    mom e24 = moments(ed_info, te, h, jx, jy, 24, NULL, NULL);
    mom k24 = moments(kpm_info, t0, h, jx, jy, 24, e24.ab, NULL);
    const double wc = max_diff(&e24, &k24);
    CHECK(wc <= 1e-11, "(c) kpm exact against ed: %.2e", wc);
    printf("(c) kpm, vectors = 0, against ed (M = 24): %.1e\n", wc);

    mcf_rng rng;
    mcf_rng_init(&rng, 47, 1);
    mom e12 = moments(ed_info, te, h, jx, jy, 12, NULL, NULL);
    mom k12 = moments(kpm_info, tr, h, jx, jy, 12, e12.ab, &rng);
    double zmax = 0.0, chi = 0.0;
    for (size_t q = 0; q < 144; q++) {
        const double d = hypot(k12.re[q] - e12.re[q], k12.im[q] - e12.im[q]);
        zmax = fmax(zmax, d / k12.err[q]);
        chi += d * d / (k12.err[q] * k12.err[q]) / 144.0;
    }
    CHECK(zmax < 4.5 && chi > 0.5 && chi < 2.0, "(d) stochastic: max z %.2f, mean z^2 %.2f",
          zmax, chi);
    printf("(d) kpm, 200 random vectors, against ed (M = 12): max |d| / err %.2f, mean "
           "|d|^2 / err^2 %.2f (err of mu_00 %.1e)\n", zmax, chi, k12.err[0]);
    mom *all[] = {&e10, &d10, &e24, &k24, &e12, &k12};
    for (int i = 0; i < 6; i++)
        mom_free(all[i]);
    test_params_free(te);
    test_params_free(t0);
    test_params_free(tr);
    mcf_hamiltonian_destroy(jx);
    mcf_hamiltonian_destroy(jy);
    mcf_hamiltonian_destroy(h);
    mcf_lattice_destroy(lat);
}

/* (e) Bastin's sigma_xx = Greenwood's DC limit; sigma_xy of a real H */
static void part_e(void)
{
    const double theta[3] = {2 * pi * 0.13, 2 * pi * 0.27, 0.0}, none[3] = {0, 0, 0};
    mcf_lattice *lat = square(6, MCF_BOUNDARY_PERIODIC);
    mcf_hamiltonian *h = anderson(lat, 3.0, theta), *h0 = anderson(lat, 3.0, none);
    mcf_hamiltonian *jx = current(h, lat, 0), *jx0 = current(h0, lat, 0);
    mcf_hamiltonian *jy0 = current(h0, lat, 1);
    test_params *te = test_params_make(ed_info->params, "test", NULL);
    mom xx = moments(ed_info, te, h, jx, jx, 128, NULL, NULL);
    mcf_kubo k = kubo_of(&xx, h, NULL);
    const double mus[3] = {-1.5, 0.0, 1.2}, zero = 0.0, T = 0.2;
    double bastin[3], imag[3];
    CHECK(mcf_kubo_bastin(&k, T, 3, mus, bastin, imag) == MCF_OK, "(e) %s", mcf_last_error());
    for (int i = 0; i < 3; i++) {
        double gw = 0.0;
        CHECK(mcf_kubo_greenwood(&k, T, mus[i], 1, &zero, &gw) == MCF_OK, "(e) %s",
              mcf_last_error());
        const double rel = fabs(bastin[i] - gw) / fabs(gw);
        CHECK(rel < 1e-7 && fabs(imag[i]) < 1e-10 * fabs(gw), "(e) mu = %g: Bastin %.12g, "
              "Greenwood %.12g (rel %.1e), imaginary part %.1e", mus[i], bastin[i], gw, rel,
              imag[i]);
        printf("(e) AND, T = %g, mu = %+.1f: sigma_xx Bastin %.10f, Greenwood DC %.10f (rel "
               "%.1e; imaginary part %.1e)\n", T, mus[i], bastin[i], gw, rel, imag[i]);
    }
    /* the real H0: its Hall part sigma_xy - sigma_yx vanishes (time reversal); the
       symmetric part, of a disordered sample, does not, and is Greenwood's xy */
    mom xy0 = moments(ed_info, te, h0, jx0, jy0, 128, NULL, NULL);
    mom yx0 = moments(ed_info, te, h0, jy0, jx0, 128, NULL, NULL);
    mcf_kubo kxy = kubo_of(&xy0, h0, NULL), kyx = kubo_of(&yx0, h0, NULL);
    double sxy[3], syx[3];
    CHECK(mcf_kubo_bastin(&kxy, T, 3, mus, sxy, NULL) == MCF_OK &&
          mcf_kubo_bastin(&kyx, T, 3, mus, syx, NULL) == MCF_OK, "(e) %s", mcf_last_error());
    for (int i = 0; i < 3; i++) {
        double gw = 0.0;
        CHECK(mcf_kubo_greenwood(&kxy, T, mus[i], 1, &zero, &gw) == MCF_OK, "(e) %s",
              mcf_last_error());
        const double hall = 0.5 * (sxy[i] - syx[i]), sym = 0.5 * (sxy[i] + syx[i]);
        CHECK(fabs(hall) < 1e-12 * bastin[i] && fabs(sym - gw) < 1e-7 * bastin[i],
              "(e) real H, mu = %g: sigma_xy %.3e, sigma_yx %.3e, Greenwood xy %.3e", mus[i],
              sxy[i], syx[i], gw);
        printf("(e) AND without twist (real H), mu = %+.1f: (sigma_xy - sigma_yx) / 2 = %.1e, "
               "(sigma_xy + sigma_yx) / 2 = %.8f, Greenwood DC xy %.8f\n", mus[i], hall, sym,
               gw);
    }
    mom_free(&xx);
    mom_free(&xy0);
    mom_free(&yx0);
    test_params_free(te);
    mcf_hamiltonian *hs[] = {h, h0, jx, jx0, jy0};
    for (int i = 0; i < 5; i++)
        mcf_hamiltonian_destroy(hs[i]);
    mcf_lattice_destroy(lat);
}

/* (f) no interband weight in a clean crystal: what Re sigma(omega > 0) has is the Jackson
 * kernel's tail, which falls as (M omega / a)^-4 against a Drude peak of height ~ M: the
 * ratio falls ~16x from M = 128 to 256 (8x asserted) */
static void part_f(void)
{
    mcf_lattice *lat = square(8, MCF_BOUNDARY_PERIODIC);
    mcf_hamiltonian *h = anderson(lat, 0.0, NULL), *jx = current(h, lat, 0);
    test_params *te = test_params_make(ed_info->params, "test", NULL);
    const double omega[3] = {0.0, 1.0, 2.0};
    double s[2][3];
    for (int q = 0; q < 2; q++) {
        mom xx = moments(ed_info, te, h, jx, jx, q ? 256 : 128, NULL, NULL);
        mcf_kubo k = kubo_of(&xx, h, NULL);
        CHECK(mcf_kubo_greenwood(&k, 0.1, -1.0, 3, omega, s[q]) == MCF_OK, "(f) %s",
              mcf_last_error());
        printf("(f) clean 8x8, T = 0.1, mu = -1, M = %d: Re sigma_xx(omega = 0, 1, 2) = "
               "%.4e, %.2e, %.2e\n", q ? 256 : 128, s[q][0], s[q][1], s[q][2]);
        mom_free(&xx);
    }
    for (int w = 1; w < 3; w++)
        CHECK(s[0][0] > 0 && s[1][0] > 0 && s[1][w] / s[1][0] < s[0][w] / s[0][0] / 8.0,
              "(f) omega = %g: the ratio to DC fell from %.2e to %.2e only", omega[w],
              s[0][w] / s[0][0], s[1][w] / s[1][0]);
    test_params_free(te);
    mcf_hamiltonian_destroy(jx);
    mcf_hamiltonian_destroy(h);
    mcf_lattice_destroy(lat);
}

/* the closed form of sigma_xy at T = 0 */
static double hall_exact(const eig *E, const double *X, const double *Y, double mu, double V)
{
    const size_t n = E->n;
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            const double fi = E->e[i] < mu, fj = E->e[j] < mu;
            if (i == j || fi == fj)
                continue;
            const double xr = X[2 * (i * n + j)], xi = X[2 * (i * n + j) + 1];
            const double yr = Y[2 * (j * n + i)], yi = Y[2 * (j * n + i) + 1];
            const double de = E->e[i] - E->e[j];
            s += (xr * yi + xi * yr) * (fi - fj) / (de * de);
        }
    return -s / V;
}

/* 2 pi sigma_xy at T = 0, mu mid-gap between bands of `per` states, for `gaps` gaps of
 * HOF(phi) on the L x L torus: at zero twist (zero[g]) and averaged over the G x G twists
 * (j + 1/2) 2 pi / G (avg[g]); mu_g of the zero twist into mug */
static void hall(long L, double phi, int G, size_t per, int gaps, double *zero, double *avg,
                 double *mug)
{
    mcf_lattice *lat = square(L, MCF_BOUNDARY_PERIODIC);
    for (int g = 0; g < gaps; g++)
        avg[g] = 0.0;
    for (int t = -1; t < G * G; t++) {
        const double tw[2] = {t < 0 ? 0.0 : 2 * pi * (t % G + 0.5) / G,
                              t < 0 ? 0.0 : 2 * pi * (t / G + 0.5) / G};
        mcf_hamiltonian *h = hofstadter_tw(lat, phi, tw);
        mcf_hamiltonian *jx = current(h, lat, 0), *jy = current(h, lat, 1);
        eig E = diagonalize(h);
        double *X = in_eigenbasis(&E, jx), *Y = in_eigenbasis(&E, jy);
        for (int g = 0; g < gaps; g++) {
            const size_t i = per * (size_t)(g + 1);
            const double mu = 0.5 * (E.e[i - 1] + E.e[i]);
            const double v = 2 * pi * hall_exact(&E, X, Y, mu, (double)(L * L));
            if (t < 0) {
                zero[g] = v;
                mug[g] = mu;
            } else {
                avg[g] += v / (G * G);
            }
        }
        free(X);
        free(Y);
        free(E.e);
        free(E.v);
        mcf_hamiltonian_destroy(jx);
        mcf_hamiltonian_destroy(jy);
        mcf_hamiltonian_destroy(h);
    }
    mcf_lattice_destroy(lat);
}

/* (g) Hall plateaus of the Hofstadter model */
static void part_g(void)
{
    const int tknn[4] = {1, 2, -2, -1};
    double zero[4], avg[4], mug[4], avg6[4], z2[4], m2[4], rev[4];
    hall(10, 0.2, 8, 20, 4, zero, avg, mug);
    hall(10, 0.2, 6, 20, 4, z2, avg6, m2);
    const int s = avg[0] > 0 ? 1 : -1;
    for (int g = 0; g < 4; g++) {
        const double e8 = fabs(avg[g] - s * tknn[g]), e6 = fabs(avg6[g] - s * tknn[g]);
        CHECK(e8 < 1e-4 && (e8 < 1e-9 || e8 < e6), "(g) gap %d: 2 pi <sigma_xy> = %.8f (G = 8), "
              "%.8f (G = 6), TKNN %d", g + 1, avg[g], avg6[g], s * tknn[g]);
    }
    printf("(g) Hofstadter phi = 1/5, 10x10, 2 pi sigma_xy in the four gaps: zero twist %.5f "
           "%.5f %.5f %.5f; over 8x8 twists %.7f %.7f %.7f %.7f (6x6: %.7f %.7f)\n", zero[0],
           zero[1], zero[2], zero[3], avg[0], avg[1], avg[2], avg[3], avg6[0], avg6[1]);
    hall(10, -0.2, 4, 20, 1, z2, rev, m2);
    CHECK(fabs(rev[0] + avg[0]) < 1e-6, "(g) phi = -1/5: %.8f, not -(%.8f)", rev[0], avg[0]);
    printf("(g) phi = -1/5: 2 pi <sigma_xy> in gap 1 = %.8f (4x4 twists)\n", rev[0]);

    /* Kubo-Bastin from ed's moments of the zero twist against its closed form */
    mcf_lattice *lat = square(10, MCF_BOUNDARY_PERIODIC);
    mcf_hamiltonian *h = hofstadter(lat, 0.2);
    mcf_hamiltonian *jx = current(h, lat, 0), *jy = current(h, lat, 1);
    test_params *te = test_params_make(ed_info->params, "test", NULL);
    double kb[2][2];
    for (int q = 0; q < 2; q++) {
        mom xy = moments(ed_info, te, h, jx, jy, q ? 512 : 256, NULL, NULL);
        mcf_kubo k = kubo_of(&xy, h, NULL);
        CHECK(mcf_kubo_bastin(&k, 0.0, 2, mug, kb[q], NULL) == MCF_OK, "(g) %s",
              mcf_last_error());
        mom_free(&xy);
    }
    for (int g = 0; g < 2; g++) {
        const double e1 = 2 * pi * kb[0][g] - zero[g], e2 = 2 * pi * kb[1][g] - zero[g];
        const double rich = (4.0 * 2 * pi * kb[1][g] - 2 * pi * kb[0][g]) / 3.0;
        CHECK(e1 / e2 > 3.0 && e1 / e2 < 5.5 && fabs(rich - zero[g]) < 0.2 * fabs(e2),
              "(g) gap %d: Bastin 2 pi sigma_xy %.6f (M = 256), %.6f (512), Richardson %.6f, "
              "closed form %.6f", g + 1, 2 * pi * kb[0][g], 2 * pi * kb[1][g], rich, zero[g]);
        printf("(g) zero twist, gap %d: Kubo-Bastin from ed's moments (Jackson) 2 pi sigma_xy "
               "= %.6f (M = 256), %.6f (M = 512): errors %.1e, %.1e (ratio %.2f, M^-2), "
               "Richardson %.6f against the closed form %.6f\n", g + 1, 2 * pi * kb[0][g],
               2 * pi * kb[1][g], e1, e2, e1 / e2, rich, zero[g]);
    }
    test_params_free(te);
    mcf_hamiltonian_destroy(jx);
    mcf_hamiltonian_destroy(jy);
    mcf_hamiltonian_destroy(h);
    mcf_lattice_destroy(lat);
}

/* Omega = -T sum_k log(1 + exp(-(e_k - mu) / T)) of AND at the twist theta */
static double grand_potential(const mcf_lattice *lat, const double *theta, double T, double mu)
{
    mcf_hamiltonian *h = anderson(lat, 3.0, theta);
    eig E = diagonalize(h);
    double om = 0.0;
    for (size_t k = 0; k < E.n; k++) {
        const double z = -(E.e[k] - mu) / T;
        om -= T * (z > 0 ? z + log1p(exp(-z)) : log1p(exp(z)));
    }
    free(E.e);
    free(E.v);
    mcf_hamiltonian_destroy(h);
    return om;
}

/* (h) the f-sum rule on a torus, with its Drude part: -<K_x> = sum_ij F_ij |J_ij|^2 +
 * d^2 Omega / d phi^2, F_ij = (f_i - f_j) / (e_j - e_i) (-f'(e_i) where e_i = e_j), phi the
 * phase per x-bond (theta_x / L), K_x the x-bonds' part of H; and Greenwood's
 * int_0^inf Re sigma_xx(omega) domega from ed's moments (Jackson) converges to the first
 * part, (pi / 2V) sum F |J|^2, as M^-2 */
static void part_h(void)
{
    const double T = 1.5, mu = 0.3, dq = 1e-3;
    const double theta[3] = {2 * pi * 0.13, 2 * pi * 0.27, 0.0};
    mcf_lattice *lat = square(6, MCF_BOUNDARY_PERIODIC);
    mcf_hamiltonian *h = anderson(lat, 3.0, theta), *jx = current(h, lat, 0);
    const size_t n = h->dim;
    eig E = diagonalize(h);
    double *X = in_eigenbasis(&E, jx), para = 0.0, kin = 0.0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            const double de = E.e[j] - E.e[i];
            const double fi = 1.0 / (1.0 + exp((E.e[i] - mu) / T));
            const double fj = 1.0 / (1.0 + exp((E.e[j] - mu) / T));
            const double F = fabs(de) > 1e-9 ? (fi - fj) / de : fi * (1.0 - fi) / T;
            para += F * (X[2 * (i * n + j)] * X[2 * (i * n + j)] +
                         X[2 * (i * n + j) + 1] * X[2 * (i * n + j) + 1]);
        }
    /* -<K_x> = -sum_k f_k <k| K_x |k>, K_x the slots whose neighbour is along x */
    mcf_hamiltonian *kx = NULL;
    CHECK(mcf_hamiltonian_create(h->sites, 1, h->width, &kx) == MCF_OK, "(h) K_x");
    for (size_t s = 0; s < (size_t)h->width * n; s++) {
        const size_t r = s % n;
        const int32_t c = h->col[s];
        const int x = c >= 0 && (c == lat->neighbours[4 * r] || c == lat->neighbours[4 * r + 1]);
        kx->col[s] = c;
        kx->hop_re[s] = x ? h->hop_re[s] : 0.0;
        kx->hop_im[s] = x ? h->hop_im[s] : 0.0;
    }
    mcf_hamiltonian_touch_all(kx);
    double *K = in_eigenbasis(&E, kx);
    for (size_t k = 0; k < n; k++)
        kin -= K[2 * (k * n + k)] / (1.0 + exp((E.e[k] - mu) / T));
    /* d^2 Omega / d phi^2 = L^2 d^2 Omega / d theta_x^2 by central differences (error
       ~ dq^2 / 12 of the fourth derivative, ~1e-7 relative; rounding ~1e-9) */
    double tp[3] = {theta[0] + dq, theta[1], 0}, tm[3] = {theta[0] - dq, theta[1], 0};
    const double L = 6.0, drude = L * L *
        (grand_potential(lat, tp, T, mu) - 2 * grand_potential(lat, theta, T, mu) +
         grand_potential(lat, tm, T, mu)) / (dq * dq);
    const double V = (double)n, c = pi / (2 * V);
    CHECK(fabs(para + drude - kin) < 1e-6 * kin, "(h) f-sum: sum F |J|^2 %.10f + "
          "Omega'' %.10f != -<K_x> %.10f", para, drude, kin);
    printf("(h) f-sum, AND, T = %g, mu = %g: (pi/2V) x [sum F |J|^2 = %.8f, d2 Omega/dphi2 "
           "= %.8f (the Drude part), sum %.8f; -<K_x> = %.8f]\n", T, mu, c * para, c * drude,
           c * (para + drude), c * kin);
    test_params *te = test_params_make(ed_info->params, "test", NULL);
    double got[2];
    for (int q = 0; q < 2; q++) {
        mom xx = moments(ed_info, te, h, jx, jx, q ? 96 : 48, NULL, NULL);
        mcf_kubo k = kubo_of(&xx, h, NULL);
        double gx[16], gw[16], om[16], sg[16];
        gauss_legendre_16(gx, gw);
        const double top = k.emax - k.emin;
        const int panels = 6;
        got[q] = 0.0;
        for (int p = 0; p < panels; p++) {
            for (int i = 0; i < 16; i++)
                om[i] = top * (p + 0.5 + 0.5 * gx[i]) / panels;
            CHECK(mcf_kubo_greenwood(&k, T, mu, 16, om, sg) == MCF_OK, "(h) %s",
                  mcf_last_error());
            for (int i = 0; i < 16; i++)
                got[q] += 0.5 * top / panels * gw[i] * sg[i];
        }
        mom_free(&xx);
    }
    const double e1 = got[0] - c * para, e2 = got[1] - c * para;
    const double rich = (4 * got[1] - got[0]) / 3;
    CHECK(e1 / e2 > 3.0 && e1 / e2 < 5.5 && fabs(rich - c * para) < 0.2 * fabs(e2),
          "(h) int Re sigma = %.8f (M = 48), %.8f (96), Richardson %.8f, want %.8f", got[0],
          got[1], rich, c * para);
    printf("(h) Greenwood int_0^inf Re sigma_xx = %.8f (M = 48), %.8f (96): errors %.1e, "
           "%.1e (ratio %.2f), Richardson %.8f against %.8f\n", got[0], got[1], e1, e2,
           e1 / e2, rich, c * para);
    free(K);
    free(X);
    free(E.e);
    free(E.v);
    test_params_free(te);
    mcf_hamiltonian_destroy(kx);
    mcf_hamiltonian_destroy(jx);
    mcf_hamiltonian_destroy(h);
    mcf_lattice_destroy(lat);
}
