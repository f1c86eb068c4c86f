/* kbe_drive.c — the keys of [kbe], [pulse] and [output] of `mcf kbe`, the propagation they
 * make and the drive E(t), U(t) (kbe_drive.h). */
#define _POSIX_C_SOURCE 200809L
#include "kbe_drive.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FIN (MCF_PARAM_NO_SCAN | MCF_PARAM_FINITE)
#define POSITIVE (FIN | MCF_PARAM_HAS_MIN | MCF_PARAM_MIN_EXCLUSIVE)
#define NONNEG (FIN | MCF_PARAM_HAS_MIN)

const mcf_param_spec mcfi_kbe_specs[] = {
    {"dt", MCF_PARAM_REAL, "0.02", POSITIVE, 0, 0, NULL, .doc = "the time step"},
    {"steps", MCF_PARAM_INT, "1000", MCF_PARAM_NO_SCAN | MCF_PARAM_RANGE(1, 1e9), NULL,
     .doc = "the steps of the run (t up to steps dt); the two-time storage grows as steps^2"},
    {"nk", MCF_PARAM_INT, "32", MCF_PARAM_NO_SCAN | MCF_PARAM_RANGE(1, 1 << 20), NULL,
     .doc = "k points per periodic direction of the crystal (a Monkhorst-Pack grid with k = 0)"},
    {"correctors", MCF_PARAM_INT, "2", MCF_PARAM_NO_SCAN | MCF_PARAM_RANGE(0, 100), NULL,
     .doc = "corrector passes a step (a fixed number: runs are reproducible); >= 1 for second "
     "order with a self-energy"},
    {"order", MCF_PARAM_INT, "2", MCF_PARAM_NO_SCAN | MCF_PARAM_RANGE(2, 5), NULL,
     .doc = "the order in dt: 2 the exponential midpoint step (unitary); 3 .. 5 backward "
     "differentiation and Gregory quadrature of that order (hf and 2b: correctors >= 1)"},
    {"selfenergy", MCF_PARAM_CHOICE, "2b", MCF_PARAM_NO_SCAN, 0, 0, "none|hf|2b",
     .doc = "none (H_0 + E(t) D), hf (time-dependent Hartree-Fock) or 2b (second Born)"},
    {"selfenergy_method", MCF_PARAM_CHOICE, "fft", MCF_PARAM_NO_SCAN, 0, 0, "fft|direct",
     .doc = "second Born by products in real space and FFTs over k, or the seed's loops over k "
     "(O(Nk^3): a reference)"},
    {"U", MCF_PARAM_REAL, "0", FIN, 0, 0, NULL, .doc = "the interaction after the ramp"},
    {"ramp", MCF_PARAM_REAL, "5", NONNEG, 0, 0, NULL,
     .doc = "U(t) = U sin^2(pi t / (2 ramp)) until t = ramp, then U; 0: U from t = 0"},
    {"memory_limit_gb", MCF_PARAM_REAL, "0", NONNEG, 0, 0, NULL,
     .doc = "the most memory the evaluator may take, in GB (1e9 bytes); 0: this machine's "
     "physical memory (a run that needs more is refused before any work)"},
    {0}};

const mcf_param_spec mcfi_pulse_specs[] = {
    {"amplitude", MCF_PARAM_REAL, "0", FIN, 0, 0, NULL,
     .doc = "E(t) = amplitude exp(-(t - center)^2 / (2 width^2)) sin(frequency (t - center))"},
    {"frequency", MCF_PARAM_REAL, "2", NONNEG, 0, 0, NULL, .doc = "the carrier's frequency"},
    {"center", MCF_PARAM_REAL, "10", FIN, 0, 0, NULL, .doc = "the time of the envelope's peak"},
    {"width", MCF_PARAM_REAL, "2", POSITIVE, 0, 0, NULL,
     .doc = "the envelope's standard deviation in time"},
    {0}};

const mcf_param_spec mcfi_output_specs[] = {
    {"every", MCF_PARAM_INT, "1", MCF_PARAM_NO_SCAN | MCF_PARAM_RANGE(1, 1e9), NULL,
     .doc = "a row of kbe.tsv every that many steps (and the last)"},
    {"checkpoint", MCF_PARAM_BOOL, "yes", MCF_PARAM_NO_SCAN, 0, 0, NULL,
     .doc = "append every step's time row to kbe-rows.bin, so that `mcf resume DIR` continues "
     "a stopped run bit for bit (the file grows to the whole two-time state: the run says how "
     "large, and refuses when the disk lacks it)"},
    {"checkpoint_every", MCF_PARAM_INT, "20", MCF_PARAM_NO_SCAN | MCF_PARAM_RANGE(1, 1e9), NULL,
     .doc = "steps between the checkpoint's header updates (a stop by a signal writes one "
     "at once; a kill resumes from the last)"},
    {"nk_times", MCF_PARAM_STRING, "none", MCF_PARAM_SKIP_, 0, 0, NULL,
     .doc = "times of nk.tsv's k-resolved occupations (a list; each to the nearest step), or "
     "none"},
    {0}};

static int by_value(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int nk_times(const mcf_config *c, const char *text, double dt, uint64_t steps,
                    kbe_drive *d)
{
    if (!text || !strcmp(text, "none"))
        return MCF_OK;
    char where[512];
    mcfe_config_key_where(c, "output", "nk_times", where, sizeof where);
    const mcf_param_spec spec = {"nk_times", MCF_PARAM_REAL, NULL, 0, 0, 0, NULL, .doc = NULL};
    mcf_value *v = NULL;
    size_t n = 0;
    int rc = mcfe_axis_parse(&spec, text, &v, &n);
    if (rc)
        return mcf_fail_prefix(rc, "%s: [output] nk_times = %s", where, text);
    d->nk_steps = malloc(n * (sizeof *d->nk_steps + sizeof *d->nk_times) + 1);
    d->nk_times = d->nk_steps ? (double *)(d->nk_steps + n) : NULL;
    for (size_t k = 0; k < n; k++) {
        const double t = v[k].r;
        if (!rc && (!(t >= 0) || t > (double)steps * dt * (1 + 1e-12)))
            rc = mcf_fail(MCF_EINVAL, "%s: [output] nk_times = %s: %g is outside the run (0 .. "
                          "%g = steps dt)", where, text, t, (double)steps * dt);
        if (!rc && d->nk_steps) {
            d->nk_times[k] = t;
            d->nk_steps[k] = (uint64_t)llround(t / dt);
        }
        mcfe_value_release(&v[k]);
    }
    free(v);
    if (!rc && !d->nk_steps)
        rc = mcf_fail(MCF_ENOMEM, "out of memory");
    if (!rc)
        qsort(d->nk_steps, n, sizeof *d->nk_steps, by_value);
    size_t m = 0; /* two times on one step: one set of rows */
    for (size_t k = 0; !rc && k < n; k++)
        if (!m || d->nk_steps[k] != d->nk_steps[m - 1])
            d->nk_steps[m++] = d->nk_steps[k];
    d->n_nk_times = rc ? 0 : m;
    return rc;
}

int mcfi_kbe_propagation(const mcf_config *c, const mcf_params *params, unsigned dims,
                         const char *nk_times_text, mcf_propagation *prop, kbe_drive *d)
{
    const mcf_params *kbe = &params[1], *pulse = &params[2], *out = &params[3];
    long steps = 0, nk = 0, correctors = 0, every = 0, order = 2;
    int se = 0, method = 0;
    double limit = 0;
    memset(prop, 0, sizeof *prop);
    memset(d, 0, sizeof *d);
    prop->struct_size = sizeof *prop;
    mcf_params_real(kbe, "dt", &prop->dt);
    mcf_params_int(kbe, "steps", &steps);
    mcf_params_int(kbe, "nk", &nk);
    mcf_params_int(kbe, "correctors", &correctors);
    mcf_params_int(kbe, "order", &order);
    mcf_params_choice(kbe, "selfenergy", &se);
    mcf_params_choice(kbe, "selfenergy_method", &method);
    mcf_params_real(kbe, "U", &d->U);
    mcf_params_real(kbe, "ramp", &d->ramp);
    mcf_params_real(kbe, "memory_limit_gb", &limit);
    mcf_params_real(pulse, "amplitude", &d->amplitude);
    mcf_params_real(pulse, "frequency", &d->frequency);
    mcf_params_real(pulse, "center", &d->center);
    mcf_params_real(pulse, "width", &d->width);
    long ck_every = 0;
    mcf_params_int(out, "every", &every);
    mcf_params_bool(out, "checkpoint", &d->checkpoint);
    mcf_params_int(out, "checkpoint_every", &ck_every);
    d->checkpoint_every = (uint64_t)ck_every;
    prop->steps = (uint64_t)steps;
    for (unsigned k = 0; k < 3; k++)
        prop->nk[k] = k < dims ? (uint32_t)nk : 1;
    prop->correctors = (uint32_t)correctors;
    prop->order = (uint32_t)order;
    prop->selfenergy = se == 0 ? MCF_SELFENERGY_NONE
                       : se == 1 ? MCF_SELFENERGY_HF : MCF_SELFENERGY_SECOND_BORN;
    prop->selfenergy_direct = method == 1;
    prop->memory_limit = (uint64_t)(limit * 1e9);
    if (limit == 0) { /* the machine's memory: a run past it would swap or be killed late */
        const long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
        prop->memory_limit = pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : 0;
        d->memory_auto = 1;
    }
    if (order > 2 && se != 0 && correctors < 1) { /* the predictor alone is not of order p */
        char where[512];
        mcfe_config_key_where(c, "kbe", "order", where, sizeof where);
        return mcf_fail(MCF_EINVAL, "%s: [kbe] order = %ld with selfenergy = %s needs "
                        "correctors >= 1 (it is %ld): the extrapolated predictor alone is not "
                        "of order %ld", where, order, se == 1 ? "hf" : "2b", correctors, order);
    }
    d->every = (uint64_t)every;
    prop->E0 = mcfi_kbe_field(d, 0);
    prop->U0 = mcfi_kbe_u(d, 0);
    return nk_times(c, nk_times_text, prop->dt, prop->steps, d);
}

double mcfi_kbe_field(const kbe_drive *d, double t)
{
    if (d->amplitude == 0)
        return 0;
    const double s = (t - d->center) / d->width;
    return d->amplitude * exp(-0.5 * s * s) * sin(d->frequency * (t - d->center));
}

double mcfi_kbe_u(const kbe_drive *d, double t)
{
    if (d->ramp == 0 || t >= d->ramp)
        return d->U;
    const double s = sin(3.14159265358979323846 * t / (2 * d->ramp));
    return d->U * s * s;
}
