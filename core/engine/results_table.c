/* results_table.c — the numbers of results.tsv and of the curve files at full precision,
 * column by column: results.c prints them with 10 digits, results_h5.c keeps them as they
 * are.  The blocking estimate per chain, the walkers combined (mean of the means, error
 * sqrt(sum err^2) / R, tau the mean), derived quantities by the jackknife over the union of
 * the walkers' bins (scaled for bins not much longer than tau), curve points by the
 * jackknife of the bin ratio. */
#define _POSIX_C_SOURCE 200809L
#include "results_table.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* specific_heat, susceptibility, binder, variance, xi_over_l */
#define N_DERIVED 5

void mcfi_table_free(mcfi_table *t)
{
    for (size_t c = 0; c < t->n_cols; c++) {
        free(t->cols[c].name);
        free(t->cols[c].x);
        free((void *)t->cols[c].text);
    }
    free(t->cols);
    memset(t, 0, sizeof *t);
}

mcfi_column *mcfi_table_add_column(mcfi_table *t, int text, const char *fmt, ...)
{
    if (t->n_cols == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        mcfi_column *grown = realloc(t->cols, cap * sizeof *grown);
        if (!grown)
            return NULL;
        t->cols = grown;
        t->cap = cap;
    }
    char name[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    mcfi_column *c = &t->cols[t->n_cols];
    memset(c, 0, sizeof *c);
    c->name = strdup(name);
    if (text)
        c->text = calloc(t->n_rows + 1, sizeof *c->text);
    else
        c->x = calloc(t->n_rows + 1, sizeof *c->x);
    if (!c->name || (text ? !c->text : !c->x)) {
        free(c->name);
        free((void *)c->text);
        free(c->x);
        return NULL;
    }
    t->n_cols++;
    return c;
}

/* 1 when scan axis a holds numbers (integers, reals, the temperature), 0 for text */
static int axis_is_number(const mcf_setup *s, size_t a)
{
    const mcf_axis *ax = &s->axes[a];
    if (ax->section == 2 || ax->section == 4) /* the temperature, the time step */
        return 1;
    int type = s->sections[ax->section].specs[ax->spec_index].type;
    return type == MCF_PARAM_INT || type == MCF_PARAM_REAL;
}

int mcfi_table_add_scan_columns(const mcf_run *r, mcfi_table *t, const size_t *point_of)
{
    const mcf_setup *s = r->setup;
    if (!s->n_axes) {
        mcfi_column *c = mcfi_table_add_column(t, 0, "point");
        if (!c)
            return -1;
        for (size_t j = 0; j < t->n_rows; j++)
            c->x[j] = (double)(point_of ? point_of[j] : j);
    }
    for (size_t a = 0; a < s->n_axes; a++) {
        int number = axis_is_number(s, a);
        mcfi_column *c = mcfi_table_add_column(t, !number, "%s", s->axes[a].name);
        if (!c)
            return -1;
        for (size_t j = 0; j < t->n_rows; j++) {
            const mcf_value *v = mcfi_setup_axis_value(s, a, point_of ? point_of[j] : j);
            if (number)
                c->x[j] = v->r;
            else
                c->text[j] = v->text;
        }
    }
    return 0;
}

typedef struct derived_ctx {
    int a, b;     /* variable indices */
    int c, d;     /* more of them: specific_heat_action's e_T and s_T */
    double N, T;
    double L;     /* the [model] L of xi_over_l */
} derived_ctx;

/* the derived quantities of the roles of mcf/model.h: C = N (<e^2> - <e>^2) / T^2,
 * chi = N (<m^2> - <|m|>^2) / T, U = 1 - <m^4> / (3 <m^2>^2), var = N (<e^2> - <e>^2) */
static double specific_heat(const double *m, void *ctx)
{
    derived_ctx *d = ctx;
    return d->N * (m[d->b] - m[d->a] * m[d->a]) / (d->T * d->T);
}

/* a weight exp(-S(x; T)): C = <e_T> - N (<e s_T> - <e> <s_T>) = d<N e>/dT / N, with a = e,
 * b = e s_T, c = e_T, d = s_T */
static double specific_heat_action(const double *m, void *ctx)
{
    derived_ctx *d = ctx;
    return m[d->c] - d->N * (m[d->b] - m[d->a] * m[d->d]);
}

static double susceptibility(const double *m, void *ctx)
{
    derived_ctx *d = ctx;
    return d->N * (m[d->b] - m[d->a] * m[d->a]) / d->T;
}

static double binder(const double *m, void *ctx)
{
    derived_ctx *d = ctx;
    return 1.0 - m[d->b] / (3.0 * m[d->a] * m[d->a]);
}

/* the second-moment correlation length over L from m^2 (a) and the structure factor at
 * k_min = 2 pi / L (b): xi = sqrt(m2 / F - 1) / (2 sin(k_min / 2)); a ratio below 1 (noise
 * about uncorrelated spins, xi = 0) gives -sqrt(1 - m2 / F), so that the estimate stays
 * continuous through 0 and its jackknife error finite */
static double xi_over_l(const double *m, void *ctx)
{
    derived_ctx *d = ctx;
    const double x = m[d->a] / m[d->b] - 1.0;
    const double pi = 3.14159265358979323846;
    return copysign(sqrt(fabs(x)), x) / (2.0 * d->L * sin(pi / d->L));
}

static double variance(const double *m, void *ctx)
{
    derived_ctx *d = ctx;
    return d->N * (m[d->b] - m[d->a] * m[d->a]);
}

/* 1 when the specific heat takes the general form (a weight exp(-S(x; T)) with e_T, s_T) */
static int action_form(const int role[MCF_ROLE_COUNT], const mcfi_model *ops)
{
    return ops->weight_form && role[MCF_ROLE_ENERGY_DT] >= 0 &&
           role[MCF_ROLE_ACTION_DT] >= 0;
}

/* The roles (mcf/model.h) whose observables the core multiplies measurement by measurement
 * for derived quantity q (specific_heat, susceptibility, binder, variance): e e for the
 * fluctuation formula and the variance, e s_T for the general specific heat; none for the
 * susceptibility and the Binder cumulant, whose m^2 and m^4 the model measures itself.
 * 0 when q forms no such product. */
static int product_roles(int q, const int role[MCF_ROLE_COUNT], const mcfi_model *ops,
                         int pair[2])
{
    if (q == 1 || q == 2 || q == 4)
        return 0;
    pair[0] = MCF_ROLE_ENERGY;
    pair[1] = q == 0 && action_form(role, ops) ? MCF_ROLE_ACTION_DT : MCF_ROLE_ENERGY;
    return 1;
}

/* The noise set (mcf/model.h, MCF_OBS_NOISE) of the scalar observable of every role, 0 for
 * a role without one. */
static void role_noise(const mcf_observable *obs, unsigned noise[MCF_ROLE_COUNT])
{
    for (int k = 0; k < MCF_ROLE_COUNT; k++)
        noise[k] = 0;
    for (size_t k = 0; obs[k].name; k++)
        if (!obs[k].axis && obs[k].role > 0 && obs[k].role < MCF_ROLE_COUNT)
            noise[obs[k].role] = MCF_OBS_NOISE_SET(obs[k].flags);
}

/* 1 when derived quantity q would multiply two observables of one noise set */
static int shares_noise(int q, const int role[MCF_ROLE_COUNT], const mcfi_model *ops)
{
    unsigned noise[MCF_ROLE_COUNT];
    int pair[2];
    if (!product_roles(q, role, ops, pair))
        return 0;
    role_noise(ops->observables, noise);
    return noise[pair[0]] != 0 && noise[pair[0]] == noise[pair[1]];
}

/* Whether derived quantity q (specific_heat, susceptibility, binder, variance, the order
 * of the table below) has the roles it needs, from the roles' indices (-1: none) */
static int derived_possible(int q, int has_T, const int role[MCF_ROLE_COUNT],
                            const mcfi_model *ops, int has_L)
{
    int e = role[MCF_ROLE_ENERGY], m = role[MCF_ROLE_ORDER];
    int m2 = role[MCF_ROLE_ORDER2], m4 = role[MCF_ROLE_ORDER4];
    switch (q) {
    case 0: /* the fluctuation formula is d<E>/dT for a Boltzmann weight only; a general
               weight needs e_T and s_T */
        return has_T && e >= 0 &&
               (!ops->weight_form || action_form(role, ops));
    case 1: return has_T && m >= 0 && m2 >= 0;
    case 2: return m2 >= 0 && m4 >= 0;
    case 4: return m2 >= 0 && role[MCF_ROLE_ORDER_KMIN] >= 0 && has_L;
    default: return !has_T && e >= 0;
    }
}

/* Whether derived quantity q is a column: its roles are there and it multiplies no two
 * estimates that share noise (the product's mean would carry their covariance, a bias no
 * number of sweeps removes: mcfi_results_noise_message says so instead) */
static int derived_wanted(int q, int has_T, const int role[MCF_ROLE_COUNT],
                          const mcfi_model *ops, int has_L)
{
    return derived_possible(q, has_T, role, ops, has_L) && !shares_noise(q, role, ops);
}

static const char *const derived_names[N_DERIVED] = {"specific_heat", "susceptibility",
                                                     "binder", "variance", "xi_over_l"};

/* 1 when the model declares an integer parameter L, the linear size xi_over_l divides by */
int mcfi_model_has_L(const mcf_setup *s)
{
    const mcf_param_spec *spec = s->model->info->params;
    for (size_t k = 0; spec && spec[k].name; k++)
        if (!strcmp(spec[k].name, "L"))
            return spec[k].type == MCF_PARAM_INT;
    return 0;
}

int mcfi_observable_wanted(const mcf_setup *s, const mcf_observable *o)
{
    if (!(o->flags & MCF_OBS_ON_REQUEST) || o->axis)
        return 1;
    const char *list = s->extra_observables;
    const size_t n = strlen(o->name);
    for (const char *p = list; p && *p;) {
        p += strspn(p, " ,\t");
        const size_t w = strcspn(p, " ,\t");
        if (w == n && !strncmp(p, o->name, n))
            return 1;
        p += w;
    }
    return 0;
}

/* the roles of the scalar observables a run of s records: role[ROLE] = its index among
 * the declared ones */
static void declared_roles(const mcf_setup *s, int role[MCF_ROLE_COUNT])
{
    const mcf_observable *obs = s->model->model->observables;
    for (int k = 0; k < MCF_ROLE_COUNT; k++)
        role[k] = -1;
    for (int k = 0; obs[k].name; k++)
        if (!obs[k].axis && obs[k].role > 0 && obs[k].role < MCF_ROLE_COUNT &&
            mcfi_observable_wanted(s, &obs[k]))
            role[obs[k].role] = k;
}

const char *mcfi_results_noise_message(const mcf_setup *s, int q, char *buf, size_t cap)
{
    const mcfi_model *ops = s->model->model;
    int role[MCF_ROLE_COUNT], pair[2];
    declared_roles(s, role);
    if (q < 0 || q > 3 || !derived_possible(q, s->has_temperature, role, ops, 0) ||
        !shares_noise(q, role, ops) || !product_roles(q, role, ops, pair))
        return NULL;
    const mcf_observable *a = &ops->observables[role[pair[0]]];
    const mcf_observable *b = &ops->observables[role[pair[1]]];
    char what[160];
    if (a == b)
        snprintf(what, sizeof what, "the square of %s, a stochastic estimate (noise set %u),",
                 a->name, MCF_OBS_NOISE_SET(a->flags));
    else
        snprintf(what, sizeof what, "the product of %s and %s, which share one draw of noise "
                 "(noise set %u),", a->name, b->name, MCF_OBS_NOISE_SET(a->flags));
    snprintf(buf, cap, "%s is left out: it needs %s whose mean carries the variance or "
             "covariance of that noise, a bias no number of sweeps removes; model %s must "
             "measure the two from independent draws (MCF_OBS_NOISE, mcf/model.h; "
             "docs/methods.md, \"Products of noisy estimates\")", derived_names[q], what,
             s->model_name);
    return buf;
}

int mcfi_results_error_column(const mcf_setup *s, const char *name)
{
    const mcfi_model *ops = s->model->model;
    const mcf_observable *obs = ops->observables;
    int role[MCF_ROLE_COUNT], found = 0;
    declared_roles(s, role);
    for (int k = 0; obs[k].name; k++)
        found |= !obs[k].axis && strcmp(obs[k].name, name) == 0 &&
                 mcfi_observable_wanted(s, &obs[k]);
    for (int q = 0; q < N_DERIVED && !found; q++)
        found = strcmp(derived_names[q], name) == 0 &&
                derived_wanted(q, s->has_temperature, role, ops, mcfi_model_has_L(s));
    return found;
}

/* The walkers of a scan point with measurements of their own: all, or with method = dmc
 * walker 0 alone, which holds the population's weighted series (dmc.h). */
static size_t measured_walkers(const mcf_setup *s)
{
    return s->dmc ? 1 : (size_t)s->walkers;
}

/* The jackknife bins of scan point `point`: the union of its
 * walkers' non-empty bins, means[b * r->nvars + v] and weights[b]; *n_bins of them. */
static void point_bins(const mcf_run *r, size_t point, double *means, double *weights,
                       size_t *n_bins)
{
    size_t R = (size_t)r->setup->walkers, nb = (size_t)r->setup->bins, used = 0;
    for (size_t w = 0; w < measured_walkers(r->setup); w++) {
        const mcf_chain *cw = &r->chains[point * R + w];
        for (size_t b = 0; b < nb; b++) {
            if (cw->bin_count[b] <= 0)
                continue;
            for (size_t v = 0; v < r->nvars; v++)
                means[used * r->nvars + v] = cw->bin_sum[b * r->nvars + v] / cw->bin_count[b];
            weights[used++] = cw->bin_count[b];
        }
    }
    *n_bins = used;
}

/* The jackknife's bins are consecutive stretches of one chain, correlated when they are not
 * much longer than tau, and its variance then falls short by F = mcfi_block_factor (the
 * same finite-block correction as the blocking error of the means, docs/methods.md):
 * sqrt(F) for a derived quantity of scan point `point`, tau the walkers' mean blocking tau
 * (in measurements, as tau_NAME) of the worst of the observables it is a function of
 * (vars[], -1 for none), the bins those of walker 0 (all walkers measure alike). */
static double jackknife_scale(const mcf_run *r, size_t point, const int vars[3])
{
    const size_t R = (size_t)r->setup->walkers, nb = (size_t)r->setup->bins;
    const size_t Rm = measured_walkers(r->setup);
    double tau = 0.0, n_meas = 0.0, n_bins = 0.0;
    for (int v = 0; v < 3; v++) {
        if (vars[v] < 0 || (size_t)vars[v] >= r->n_obs)
            continue;
        double st = 0.0;
        for (size_t w = 0; w < Rm; w++) {
            mcf_estimate est;
            mcfi_blocking_estimate(&r->chains[point * R + w].blocking[vars[v]], &est);
            st += est.tau;
        }
        if (st / (double)Rm > tau)
            tau = st / (double)Rm;
    }
    const mcf_chain *c = &r->chains[point * R];
    for (size_t b = 0; b < nb; b++)
        if (c->bin_count[b] > 0) {
            n_meas += c->bin_count[b];
            n_bins += 1.0;
        }
    if (!(n_bins >= 2.0))
        return 1.0;
    const double F = mcfi_block_factor(tau, n_meas / n_bins, n_bins);
    return isfinite(F) && F > 1.0 ? sqrt(F) : 1.0;
}

int mcfi_results_table(const mcf_run *r, mcfi_table *t)
{
    const mcf_setup *s = r->setup;
    const mcf_observable *obs = r->model->observables;
    size_t R = (size_t)s->walkers, n_points = r->n_chains / R, nb = (size_t)s->bins;
    int e = r->role[MCF_ROLE_ENERGY], m = r->role[MCF_ROLE_ORDER];
    int m2 = r->role[MCF_ROLE_ORDER2], m4 = r->role[MCF_ROLE_ORDER4];
    int mk = r->role[MCF_ROLE_ORDER_KMIN];
    struct {
        int want;
        mcf_jackknife_fn f;
        int a, b;
        const char *name;
        size_t col;  /* the value's column; the error's is next */
        int tau_of[3]; /* the observables whose tau scales the error */
    } d[N_DERIVED] = {{0, specific_heat, e, (int)r->n_obs, "specific_heat", 0, {e, -1, -1}},
              {0, susceptibility, m, m2, "susceptibility", 0, {m, m2, -1}},
              {0, binder, m2, m4, "binder", 0, {m2, m4, -1}},
              {0, variance, e, (int)r->n_obs, "variance", 0, {e, -1, -1}},
              {0, xi_over_l, m2, mk, "xi_over_l", 0, {m2, mk, -1}}};
    /* DMC: the weighted means of the observables alone (a derived quantity of the weighted
       bins, such as the variance from <e^2>, would need the weighted <e^2> too) */
    for (int q = 0; q < N_DERIVED; q++)
        d[q].want = !s->dmc &&
                    derived_wanted(q, s->has_temperature, r->role, r->model, mcfi_model_has_L(s));
    if (action_form(r->role, r->model)) { /* run.c made e s_T a variable */
        d[0].f = specific_heat_action;
        d[0].b = r->var_es;
        d[0].tau_of[1] = r->role[MCF_ROLE_ENERGY_DT];
        d[0].tau_of[2] = r->role[MCF_ROLE_ACTION_DT];
    }
    memset(t, 0, sizeof *t);
    t->n_rows = n_points;
    double *means = malloc(R * nb * r->nvars * sizeof *means + 1);
    double *weights = malloc(R * nb * sizeof *weights + 1);
    int rc = !means || !weights || mcfi_table_add_scan_columns(r, t, NULL);
    const size_t first = t->n_cols; /* per scalar observable NAME, NAME_err, tau_NAME */
    for (size_t o = 0; o < r->n_obs && !rc; o++) {
        const char *name = obs[r->scalar[o]].name;
        rc = !mcfi_table_add_column(t, 0, "%s", name) ||
             !mcfi_table_add_column(t, 0, "%s_err", name) ||
             !mcfi_table_add_column(t, 0, "tau_%s", name);
    }
    for (int q = 0; q < N_DERIVED && !rc; q++)
        if (d[q].want) {
            d[q].col = t->n_cols;
            rc = !mcfi_table_add_column(t, 0, "%s", d[q].name) ||
                 !mcfi_table_add_column(t, 0, "%s_err", d[q].name);
        }
    if (rc || !mcfi_table_add_column(t, 0, "acceptance") ||
        (s->dmc && !mcfi_table_add_column(t, 0, "timestep_effective"))) {
        free(means);
        free(weights);
        mcfi_table_free(t);
        return mcf_fail(MCF_ENOMEM, "out of memory for the table of results.h5");
    }
    for (size_t k = 0; k < n_points; k++) {
        const mcf_chain *c = &r->chains[k * R];
        for (size_t o = 0; o < r->n_obs; o++) {
            mcf_estimate est;
            mcfi_blocking_estimate(&c->blocking[o], &est);
            const size_t Rm = measured_walkers(s);
            if (Rm > 1) { /* independent walkers with equal measurement counts */
                double sm = est.mean, se2 = est.error * est.error, st = est.tau;
                for (size_t w = 1; w < Rm; w++) {
                    mcf_estimate ew;
                    mcfi_blocking_estimate(&r->chains[k * R + w].blocking[o], &ew);
                    sm += ew.mean;
                    se2 += ew.error * ew.error;
                    st += ew.tau;
                }
                est.mean = sm / (double)Rm;
                est.error = sqrt(se2) / (double)Rm;
                est.tau = st / (double)Rm;
            }
            mcfi_column *col = &t->cols[first + 3 * o];
            col[0].x[k] = est.mean;
            col[1].x[k] = est.error;
            col[2].x[k] = est.tau * (double)s->measure_every;
        }
        size_t used = 0;
        point_bins(r, k, means, weights, &used);
        for (int q = 0; q < N_DERIVED; q++) {
            if (!d[q].want)
                continue;
            long L = 0;
            if (q == 4 && mcf_params_int(c->model_params, "L", &L))
                L = 0; /* mcfi_model_has_L said it is there */
            derived_ctx ctx = {d[q].a, d[q].b, r->role[MCF_ROLE_ENERGY_DT],
                               r->role[MCF_ROLE_ACTION_DT], (double)c->units,
                               c->model_params->temperature, (double)L};
            mcfi_jackknife(means, weights, used, r->nvars, d[q].f, &ctx,
                           &t->cols[d[q].col].x[k], &t->cols[d[q].col + 1].x[k]);
            t->cols[d[q].col + 1].x[k] *= jackknife_scale(r, k, d[q].tau_of);
        }
        uint64_t accepted = 0, proposed = 0;
        for (size_t w = 0; w < R; w++) {
            accepted += r->chains[k * R + w].accepted;
            proposed += r->chains[k * R + w].proposed;
        }
        const double acc = proposed ? (double)accepted / (double)proposed : NAN;
        /* DMC: tau times the acceptance of the measured sweeps (dmc.h) */
        t->cols[t->n_cols - (s->dmc ? 2 : 1)].x[k] = acc;
        if (s->dmc)
            t->cols[t->n_cols - 1].x[k] = mcfi_setup_timestep(s, k) * acc;
    }
    free(means);
    free(weights);
    return MCF_OK;
}

/* A curve point over bins: the mean S / W of its weighted bins and the weighted jackknife
 * error (stats.h) of the leave-one-bin-out means (S - s_b) / (W - w_b), the mean being
 * linear in the bin sums; loo is scratch for nb values. */
static void curve_point(const double *sums, const double *count, size_t nb, double *loo,
                        double *mean, double *error)
{
    double S = 0, W = 0;
    for (size_t b = 0; b < nb; b++)
        if (count[b] > 0) {
            S += sums[b];
            W += count[b];
        }
    *mean = W > 0 ? S / W : NAN;
    *error = NAN;
    if (!(W > 0))
        return;
    for (size_t b = 0; b < nb; b++)
        loo[b] = count[b] > 0 && W > count[b] ? (S - sums[b]) / (W - count[b]) : *mean;
    double estimate;
    mcfe_jackknife_combine(*mean, loo, 1, count, nb, &estimate, error);
}

/* where curve k's values start in chain c's curve sums */
static size_t curve_start(const mcf_run *r, const mcf_chain *c, size_t k)
{
    size_t at = 0;
    for (size_t j = 0; j < k; j++)
        at += c->points[r->curve[j]];
    return at;
}

int mcfi_curve_table(const mcf_run *r, size_t k, mcfi_table *t)
{
    const mcf_setup *s = r->setup;
    const mcf_observable *obs = &r->model->observables[r->curve[k]];
    size_t o = r->curve[k], R = (size_t)s->walkers, n_points = r->n_chains / R;
    size_t nb = (size_t)s->bins;
    memset(t, 0, sizeof *t);
    for (size_t p = 0; p < n_points; p++)
        t->n_rows += r->chains[p * R].points[o];
    size_t *point_of = malloc((t->n_rows + 1) * sizeof *point_of);
    double *psum = malloc((R * nb + 1) * sizeof *psum);
    double *pcount = malloc((R * nb + 1) * sizeof *pcount);
    double *ploo = malloc((R * nb + 1) * sizeof *ploo);
    int rc = !point_of || !psum || !pcount || !ploo;
    for (size_t p = 0, j = 0; p < n_points && !rc; p++)
        for (size_t i = 0; i < r->chains[p * R].points[o]; i++)
            point_of[j++] = p;
    if (rc || mcfi_table_add_scan_columns(r, t, point_of) ||
        !mcfi_table_add_column(t, 0, "%s", obs->axis) ||
        !mcfi_table_add_column(t, 0, "%s", obs->name) ||
        !mcfi_table_add_column(t, 0, "%s_err", obs->name)) {
        free(point_of);
        free(psum);
        free(pcount);
        free(ploo);
        mcfi_table_free(t);
        return mcf_fail(MCF_ENOMEM, "out of memory for curve %s in results.h5", obs->name);
    }
    /* the last three columns (pointers taken once the table has stopped growing) */
    mcfi_column *axis = &t->cols[t->n_cols - 3], *value = axis + 1, *error = axis + 2;
    for (size_t p = 0, j = 0; p < n_points; p++) {
        const mcf_chain *c = &r->chains[p * R];
        for (size_t i = 0; i < c->points[o]; i++, j++) {
            for (size_t w = 0; w < R; w++) {
                const mcf_chain *cw = &r->chains[p * R + w];
                size_t at = curve_start(r, cw, k);
                for (size_t b = 0; b < nb; b++) {
                    /* a walker whose curve is shorter: refused by results.c before */
                    psum[w * nb + b] = i < cw->points[o]
                                           ? cw->curve_bin_sum[b * cw->curve_values + at + i]
                                           : NAN;
                    pcount[w * nb + b] = cw->bin_count[b];
                }
            }
            curve_point(psum, pcount, R * nb, ploo, &value->x[j], &error->x[j]);
            if (obs->flags & MCF_OBS_GEOMETRIC_MEAN) {
                value->x[j] = exp(value->x[j]);
                error->x[j] *= value->x[j];
            }
            axis->x[j] = c->axis[curve_start(r, c, k) + i];
        }
    }
    free(point_of);
    free(psum);
    free(pcount);
    free(ploo);
    return MCF_OK;
}
