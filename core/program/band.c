/* band.c — `mcf band CONFIG [--set SECTION.KEY=VALUE ...] [--force]` (band.h).
 *
 * The configuration: [run] model, evaluator (a band evaluator, default tetra), output,
 * seed; [band] states (space-separated names of the model's ideal states, or
 * configuration), mu, energies, electrons, temperature; [model] and [evaluator] as the
 * plugins declare them (one value per key: no scans).  For every state the model describes
 * a crystal (the model's periodic op), the evaluator integrates it, and the command writes
 * into the output folder:
 *   dos-STATE.tsv   E, the DOS and the number of states below E per site, the orbital DOS
 *                   (not for configuration, whose orbitals are the sites of a box);
 *   bands.tsv       per state and mu: electrons n, band energy e and grand potential
 *                   omega = e - mu n, all per site (zero temperature);
 *   phases.tsv      per mu: the state of lowest omega, its n and omega, and every state's
 *                   omega — the variational phase diagram among the states asked for;
 *   fillings.tsv    per state and electrons per site (when [band] electrons is given): the
 *                   Fermi level and the band energy per site at that density;
 *   config.ini      the configuration as used.
 * An ideal state needs no chain; the state `configuration` is the configuration of chain
 * 0 of a run of this [model] at [run] seed (band_chain.c).
 * The tables are written atomically under the folder's lock.  Not libmcf's: the program's,
 * beside dos.c. */
#define _POSIX_C_SOURCE 200809L
#include "band.h"

#include "band_chain.h"
#include "command_config.h"
#include "mcf_engine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const mcf_param_spec run_specs[] = {
    {"model", MCF_PARAM_STRING, NULL, MCF_PARAM_SKIP_, 0, 0, NULL,
     .doc = "the model whose ideal states are integrated (its plugin needs the periodic op)"},
    {"evaluator", MCF_PARAM_STRING, "tetra", MCF_PARAM_SKIP_, 0, 0, NULL,
     .doc = "the band evaluator (tetra: linear tetrahedra on a Monkhorst-Pack grid)"},
    {"output", MCF_PARAM_STRING, NULL, MCF_PARAM_SKIP_ | MCF_PARAM_OPTIONAL_, 0, 0, NULL,
     .doc = "the output folder (default: the configuration's name with .out)"},
    {"seed", MCF_PARAM_INT, "1", MCF_PARAM_NO_SCAN | MCF_PARAM_HAS_MIN |
     MCF_PARAM_ECHO_IF_CHANGED, 0, 0, NULL,
     .doc = "state configuration: the chain is chain 0 of a run with this seed (random stream "
     "(seed, 0))"},
    {0}};

static const mcf_param_spec band_specs[] = {
    {"states", MCF_PARAM_STRING, NULL, MCF_PARAM_SKIP_, 0, 0, NULL,
     .doc = "space-separated ideal states of the model (e.g. ferro neel-g canted:60), or "
     "configuration: the [model] configuration of a run's chain 0 (a spins file, a disorder "
     "realization), its L^d box repeated periodically"},
    {"mu", MCF_PARAM_STRING, "auto", MCF_PARAM_SKIP_, 0, 0, NULL,
     .doc = "chemical potentials: a list, first:last:count, or auto (241 across all bands)"},
    {"energies", MCF_PARAM_STRING, "auto", MCF_PARAM_SKIP_, 0, 0, NULL,
     .doc = "the DOS grid: first:last:count, a list, or auto (801 over the bands and 5% beyond)"},
    {"electrons", MCF_PARAM_STRING, "none", MCF_PARAM_SKIP_, 0, 0, NULL,
     .doc = "electrons per site for the Fermi level at fixed density: a list, first:last:count, "
     "or none"},
    {"temperature", MCF_PARAM_REAL, NULL, MCF_PARAM_OPTIONAL_ | MCF_PARAM_NO_SCAN |
     MCF_PARAM_HAS_MIN | MCF_PARAM_MIN_EXCLUSIVE, 0, 0, NULL,
     .doc = "state configuration: the temperature the chain is created at, as a run's first "
     "[schedule] temperatures value (for a model that reads one: double-exchange, holstein)"},
    {0}};

typedef struct band_state {
    char *name;
    void *ws;
    unsigned sites, orbitals;
    int box;              /* the chain's configuration: no orbital DOS */
    double lo, hi;
} band_state;

typedef struct band_job {
    mcf_config *c;
    mcf_section sec[4]; /* run, band, model, evaluator */
    mcf_plugin *model, *evaluator;
    const mcf_plugin_info *ev; /* the band evaluator (either ABI: mcf_band_*) */
    mcf_batch *batch;          /* the batch of its ops */
    mcf_params model_params, ev_params;
    band_state *states;
    size_t n_states;
    double *mu, *E, *electrons;
    size_t n_mu, n_E, n_electrons;
    char *output;
    /* the tables, written together once all are computed: a refused filling leaves no
       half-written folder */
    size_t n_tables;
    char **table_name;
    mcf_text *table;
} band_job;

static void job_free(band_job *j)
{
    for (size_t s = 0; s < j->n_states; s++) {
        if (j->states[s].ws)
            mcf_band_destroy(j->ev, j->states[s].ws);
        free(j->states[s].name);
    }
    free(j->states);
    mcf_batch_destroy(j->batch);
    free(j->mu);
    free(j->E);
    free(j->electrons);
    free(j->output);
    for (size_t k = 0; k < j->n_tables; k++) {
        free(j->table_name[k]);
        free(j->table[k].s);
    }
    free(j->table_name);
    free(j->table);
    for (int k = 0; k < 4; k++)
        mcfe_section_release(&j->sec[k]);
    if (j->model)
        mcfe_plugin_close(j->model);
    if (j->evaluator)
        mcfe_plugin_close(j->evaluator);
    mcfe_config_free(j->c);
}

/* a [band] key's numbers: "auto"/"none" give *n = 0, else a list or linspace (the keys of
 * [run] and [band] are stored as text, MCF_PARAM_SKIP_: commas in a state's name or a list
 * of numbers are no scan) */
static int numbers(const band_job *j, const char *key, double **out, size_t *n)
{
    const char *text = mcfe_section_text(&j->sec[1], key);
    *out = NULL;
    *n = 0;
    if (!text || !strcmp(text, "auto") || !strcmp(text, "none"))
        return MCF_OK;
    const mcf_param_spec spec = {key, MCF_PARAM_REAL, NULL, 0, 0, 0, NULL, .doc = NULL};
    mcf_value *v = NULL;
    int rc = mcfe_axis_parse(&spec, text, &v, n);
    char where[512];
    if (rc)
        return mcf_fail_prefix(rc, "%s: [band] %s = %s",
                               mcfe_config_key_where(j->c, "band", key, where, sizeof where),
                               key, text);
    *out = malloc((*n + 1) * sizeof **out);
    for (size_t k = 0; k < *n; k++) {
        if (*out)
            (*out)[k] = v[k].r;
        mcfe_value_release(&v[k]);
    }
    free(v);
    return *out ? MCF_OK : mcf_fail(MCF_ENOMEM, "out of memory");
}

/* the sections, the plugins and the lists */
static int job_setup(band_job *j)
{
    mcf_config *c = j->c;
    static const char *const known[] = {"run", "band", "model", "evaluator"};
    for (size_t k = 0; k < c->n; k++) {
        size_t q = 0;
        while (q < 4 && strcmp(c->entries[k].section, known[q]) != 0)
            q++;
        if (q == 4) {
            char where[512];
            return mcf_fail(MCF_EINVAL, "%s: [%s] is no section of a band calculation (they "
                            "are [run], [band], [model], [evaluator])",
                            mcfe_config_where(&c->entries[k], where, sizeof where),
                            c->entries[k].section);
        }
    }
    mcf_axis *axes = NULL;
    size_t n_axes = 0;
    int rc = mcfe_section_check(c, "run", run_specs, "mcf band", 3, &j->sec[0], &axes, &n_axes);
    if (!rc)
        rc = mcfe_section_check(c, "band", band_specs, "mcf band", 3, &j->sec[1], &axes,
                                &n_axes);
    const char *model = rc ? NULL : mcfe_section_text(&j->sec[0], "model");
    const char *ev = rc ? NULL : mcfe_section_text(&j->sec[0], "evaluator");
    if (!rc && (rc = mcfe_plugin_open(model, MCF_PLUGIN_MODEL, &j->model)))
        rc = mcf_fail_prefix(rc, "%s: [run] model = %s", c->path, model);
    if (!rc && !mcfe_model_has_periodic(j->model))
        rc = mcf_fail(MCF_EINVAL, "%s: [run] model = %s describes no ideal states as crystals "
                      "(its plugin has no periodic op: docs/plugin-guide.md)", c->path, model);
    if (!rc && (rc = mcfe_plugin_open(ev, MCF_PLUGIN_BAND_EVALUATOR, &j->evaluator)))
        rc = mcf_fail_prefix(rc, "%s: [run] evaluator = %s", c->path, ev);
    char owner[256];
    if (!rc) {
        snprintf(owner, sizeof owner, "model %s", model);
        rc = mcfe_section_check(c, "model", j->model->info->params, owner, 0, &j->sec[2], &axes,
                                &n_axes);
    }
    if (!rc) {
        snprintf(owner, sizeof owner, "evaluator %s", ev);
        rc = mcfe_section_check(c, "evaluator", j->evaluator->info->params, owner, 1,
                                &j->sec[3], &axes, &n_axes);
    }
    if (!rc && n_axes)
        rc = mcf_fail(MCF_EINVAL, "%s: %s = %s: mcf band takes one value per key (a scan over "
                      "[model] or [evaluator] values: one band calculation per value)",
                      c->path, axes[0].name,
                      mcfe_section_text(&j->sec[axes[0].section == 0 ? 2 : 3], axes[0].name));
    mcfe_axes_free(axes, n_axes);
    if (rc)
        return rc;
    j->ev = j->evaluator->info;
    if (!(j->batch = mcf_batch_create()))
        return mcf_fail(MCF_ENOMEM, "out of memory");
    mcfe_section_params(&j->sec[2], c->path, &j->model_params);
    mcfe_section_params(&j->sec[3], c->path, &j->ev_params);
    if ((rc = numbers(j, "mu", &j->mu, &j->n_mu)) ||
        (rc = numbers(j, "energies", &j->E, &j->n_E)) ||
        (rc = numbers(j, "electrons", &j->electrons, &j->n_electrons)))
        return rc;
    const char *T = mcfe_section_text(&j->sec[1], "temperature");
    if (T && !isfinite(strtod(T, NULL))) {
        char where[512];
        return mcf_fail(MCF_EINVAL, "%s: [band] temperature = %s: a chain is created at a "
                        "finite temperature > 0",
                        mcfe_config_key_where(c, "band", "temperature", where, sizeof where), T);
    }
    /* the output folder: given, or the configuration's name with .out */
    j->output = mcfi_command_output(c->path, mcfe_section_text(&j->sec[0], "output"));
    return j->output ? MCF_OK : MCF_ENOMEM;
}

/* every state: the model's crystal, the evaluator's workspace, the band range */
static int job_states(band_job *j)
{
    char *list = strdup(mcfe_section_text(&j->sec[1], "states"));
    if (!list)
        return mcf_fail(MCF_ENOMEM, "out of memory");
    int rc = MCF_OK;
    for (char *save = NULL, *w = strtok_r(list, " \t", &save); w && !rc;
         w = strtok_r(NULL, " \t", &save)) {
        for (size_t s = 0; s < j->n_states && !rc; s++)
            if (!strcmp(j->states[s].name, w))
                rc = mcf_fail(MCF_EINVAL, "%s: [band] states names %s twice", j->c->path, w);
        band_state *grown = rc ? NULL : realloc(j->states, (j->n_states + 1) * sizeof *grown);
        if (!rc && !grown)
            rc = mcf_fail(MCF_ENOMEM, "out of memory");
        if (rc)
            break;
        j->states = grown;
        band_state *st = &j->states[j->n_states++];
        memset(st, 0, sizeof *st);
        st->name = strdup(w);
        mcf_cell *cell = NULL;
        if (!st->name || (rc = mcf_cell_create(&cell))) {
            rc = rc ? rc : mcf_fail(MCF_ENOMEM, "out of memory");
            break;
        }
        st->box = !strcmp(w, "configuration");
        rc = st->box ? mcfi_band_chain_cell(j->c, j->model, &j->model_params, j->sec, cell)
                     : mcfe_model_periodic(j->model, &j->model_params, NULL, w, cell);
        if (!rc)
            rc = mcf_cell_status(cell);
        const mcf_periodic *p = rc ? NULL : mcf_cell_view(cell);
        if (!rc && !p)
            rc = mcf_fail(MCF_EPLUGIN, "model %s gave state %s no shape (mcf_cell_shape)",
                          j->model->info->name, w);
        char who[256];
        snprintf(who, sizeof who, "model %s, state %s", j->model->info->name, w);
        if (!rc)
            rc = mcf_periodic_check(p, who);
        if (!rc && (rc = mcf_band_create(j->ev, &j->ev_params, p, &st->ws)))
            rc = mcf_fail_prefix(rc, "evaluator %s, state %s", j->evaluator->info->name, w);
        if (!rc) {
            st->sites = p->sites;
            st->orbitals = p->orbitals;
            mcf_band_range(j->ev, st->ws, &st->lo, &st->hi);
        }
        mcf_cell_destroy(cell);
        if (rc)
            rc = mcf_fail_prefix(rc, "%s: [band] states", j->c->path);
    }
    free(list);
    if (!rc && j->n_states == 0)
        rc = mcf_fail(MCF_EINVAL, "%s: [band] states is empty", j->c->path);
    return rc;
}

/* an evenly spaced grid of n values over [lo, hi] into a new array */
static double *linspace(double lo, double hi, size_t n)
{
    double *x = malloc(n * sizeof *x);
    for (size_t k = 0; x && k < n; k++)
        x[k] = lo + (hi - lo) * (double)k / (double)(n - 1);
    return x;
}

/* a state's name as a file name: what is not a letter, digit, '.', '-' becomes '_' */
static void file_name(const char *state, char *out, size_t n)
{
    snprintf(out, n, "%s", state);
    for (char *q = out; *q; q++)
        if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') ||
              *q == '.' || *q == '-'))
            *q = '_';
}

/* keeps table t (taken over: *t is emptied) for the folder, under name */
static int keep_table(band_job *j, const char *name, mcf_text *t)
{
    if (t->failed)
        return mcf_fail(MCF_ENOMEM, "out of memory for %s", name);
    char **names = realloc(j->table_name, (j->n_tables + 1) * sizeof *names);
    if (names)
        j->table_name = names;
    mcf_text *tables = names ? realloc(j->table, (j->n_tables + 1) * sizeof *tables) : NULL;
    if (tables)
        j->table = tables;
    char *copy = tables ? strdup(name) : NULL;
    if (!copy)
        return mcf_fail(MCF_ENOMEM, "out of memory for %s", name);
    j->table_name[j->n_tables] = copy;
    j->table[j->n_tables++] = *t;
    memset(t, 0, sizeof *t);
    return MCF_OK;
}

/* every kept table into the output folder, atomically each */
static int flush_tables(const band_job *j)
{
    int rc = MCF_OK;
    for (size_t k = 0; k < j->n_tables && !rc; k++) {
        size_t n = strlen(j->output) + strlen(j->table_name[k]) + 2;
        char *path = malloc(n);
        if (!path)
            return mcf_fail(MCF_ENOMEM, "out of memory");
        snprintf(path, n, "%s/%s", j->output, j->table_name[k]);
        rc = mcfe_write_atomic(path, j->table[k].s, j->table[k].len);
        free(path);
    }
    return rc;
}

static void header(const band_job *j, mcf_text *t, const char *what)
{
    mcfe_text_printf(t, "# mcf band: %s of %s with %s (%s); per site, zero temperature\n",
                     what, j->model->info->name, j->evaluator->info->name, j->c->path);
}

/* dos-STATE.tsv for every state */
static int write_dos(band_job *j)
{
    int rc = MCF_OK;
    for (size_t s = 0; s < j->n_states && !rc; s++) {
        const band_state *st = &j->states[s];
        const size_t n = j->n_E, no = st->box ? 0 : st->orbitals;
        double *dos = malloc(n * sizeof *dos), *idos = malloc(n * sizeof *idos);
        double *orb = malloc((n * no + 1) * sizeof *orb);
        if (!dos || !idos || !orb)
            rc = mcf_fail(MCF_ENOMEM, "out of memory for the DOS of %s", st->name);
        if (!rc && (rc = mcf_band_dos(j->ev, j->batch, st->ws, n, j->E, dos, idos,
                                 no ? orb : NULL)))
            rc = mcf_fail_prefix(rc, "evaluator %s, state %s: dos", j->evaluator->info->name,
                                 st->name);
        mcf_text t = {0};
        if (!rc) {
            char what[256];
            snprintf(what, sizeof what, "the density of states of state %s (%u site%s, %u "
                     "orbital%s per cell)", st->name, st->sites, st->sites == 1 ? "" : "s",
                     st->orbitals, st->orbitals == 1 ? "" : "s");
            header(j, &t, what);
            mcfe_text_printf(&t, "E\tdos\tidos");
            for (size_t a = 0; a < no; a++)
                mcfe_text_printf(&t, "\tdos_orbital_%zu", a);
            mcfe_text_printf(&t, "\n");
            for (size_t i = 0; i < n; i++) {
                mcfe_text_printf(&t, "%.10g\t%.10g\t%.10g", j->E[i], dos[i] / st->sites,
                                 idos[i] / st->sites);
                for (size_t a = 0; a < no; a++)
                    mcfe_text_printf(&t, "\t%.10g", orb[i * no + a] / st->sites);
                mcfe_text_printf(&t, "\n");
            }
            char name[300], file[320];
            file_name(st->name, name, sizeof name);
            snprintf(file, sizeof file, "dos-%s.tsv", name);
            rc = keep_table(j, file, &t);
        }
        free(t.s);
        free(dos);
        free(idos);
        free(orb);
    }
    return rc;
}

/* bands.tsv and phases.tsv; the ground state's stretches of mu on the terminal */
static int write_phases(band_job *j)
{
    const size_t ns = j->n_states, nm = j->n_mu;
    double *n = malloc(ns * nm * sizeof *n), *om = malloc(ns * nm * sizeof *om);
    int rc = n && om ? MCF_OK : mcf_fail(MCF_ENOMEM, "out of memory");
    mcf_text bands = {0}, phases = {0};
    header(j, &bands, "electrons n, band energy e and grand potential omega = e - mu n");
    mcfe_text_printf(&bands, "state\tmu\telectrons\tenergy\tgrand_potential\n");
    for (size_t s = 0; s < ns && !rc; s++)
        for (size_t m = 0; m < nm && !rc; m++) {
            const band_state *st = &j->states[s];
            double el, e;
            if ((rc = mcf_band_occupation(j->ev, j->batch, st->ws, j->mu[m], &el, &e)))
                rc = mcf_fail_prefix(rc, "evaluator %s, state %s: occupation at mu = %g",
                                     j->evaluator->info->name, st->name, j->mu[m]);
            el /= st->sites;
            e /= st->sites;
            n[s * nm + m] = el;
            om[s * nm + m] = e - j->mu[m] * el;
            mcfe_text_printf(&bands, "%s\t%.10g\t%.12g\t%.12g\t%.12g\n", st->name, j->mu[m], el,
                             e, om[s * nm + m]);
        }
    header(j, &phases, "the state of lowest grand potential omega per site");
    mcfe_text_printf(&phases, "mu\tground_state\telectrons\tgrand_potential");
    for (size_t s = 0; s < ns; s++)
        mcfe_text_printf(&phases, "\tomega_%s", j->states[s].name);
    mcfe_text_printf(&phases, "\n");
    size_t prev = ns, from = 0;
    for (size_t m = 0; m < nm && !rc; m++) {
        size_t g = 0;
        for (size_t s = 1; s < ns; s++)
            if (om[s * nm + m] < om[g * nm + m] - 1e-12)
                g = s;
        mcfe_text_printf(&phases, "%.10g\t%s\t%.12g\t%.12g", j->mu[m], j->states[g].name,
                         n[g * nm + m], om[g * nm + m]);
        for (size_t s = 0; s < ns; s++)
            mcfe_text_printf(&phases, "\t%.12g", om[s * nm + m]);
        mcfe_text_printf(&phases, "\n");
        if (g != prev && prev < ns)
            printf("  mu %g .. %g: %s\n", j->mu[from], j->mu[m - 1], j->states[prev].name);
        if (g != prev)
            from = m;
        prev = g;
    }
    if (!rc && prev < ns)
        printf("  mu %g .. %g: %s\n", j->mu[from], j->mu[nm - 1], j->states[prev].name);
    if (!rc)
        rc = keep_table(j, "bands.tsv", &bands);
    if (!rc)
        rc = keep_table(j, "phases.tsv", &phases);
    free(bands.s);
    free(phases.s);
    free(n);
    free(om);
    return rc;
}

/* fillings.tsv: the Fermi level and the band energy per site at fixed densities */
static int write_fillings(band_job *j)
{
    mcf_text t = {0};
    header(j, &t, "Fermi level mu and band energy e per site at n electrons per site");
    mcfe_text_printf(&t, "state\telectrons\tmu\tenergy\n");
    int rc = MCF_OK;
    for (size_t s = 0; s < j->n_states && !rc; s++)
        for (size_t k = 0; k < j->n_electrons && !rc; k++) {
            const band_state *st = &j->states[s];
            double mu, el, e;
            rc = mcf_band_fermi_level(j->ev, j->batch, st->ws,
                                      j->electrons[k] * st->sites, &mu);
            if (!rc)
                rc = mcf_band_occupation(j->ev, j->batch, st->ws, mu, &el, &e);
            if (rc)
                rc = mcf_fail_prefix(rc, "%s: [band] electrons = %g, state %s", j->c->path,
                                     j->electrons[k], st->name);
            else
                mcfe_text_printf(&t, "%s\t%.10g\t%.12g\t%.12g\n", st->name, j->electrons[k],
                                 mu, e / st->sites);
        }
    if (!rc)
        rc = keep_table(j, "fillings.tsv", &t);
    free(t.s);
    return rc;
}

static int job_run(band_job *j)
{
    double lo = INFINITY, hi = -INFINITY;
    for (size_t s = 0; s < j->n_states; s++) {
        lo = fmin(lo, j->states[s].lo);
        hi = fmax(hi, j->states[s].hi);
        printf("state %s: %u site%s, %u orbital%s per cell, bands %g .. %g\n",
               j->states[s].name, j->states[s].sites, j->states[s].sites == 1 ? "" : "s",
               j->states[s].orbitals, j->states[s].orbitals == 1 ? "" : "s", j->states[s].lo,
               j->states[s].hi);
    }
    const double w = hi > lo ? hi - lo : 1.0;
    if (!j->mu && !(j->mu = linspace(lo, hi, j->n_mu = 241)))
        return mcf_fail(MCF_ENOMEM, "out of memory");
    if (!j->E && !(j->E = linspace(lo - 0.05 * w, hi + 0.05 * w, j->n_E = 801)))
        return mcf_fail(MCF_ENOMEM, "out of memory");
    int rc = write_dos(j);
    if (!rc) {
        printf("ground state among those asked for:\n");
        rc = write_phases(j);
    }
    if (!rc && j->n_electrons)
        rc = write_fillings(j);
    if (!rc) {
        mcf_text t = {0};
        for (int k = 0; k < 4; k++)
            mcfe_section_write(&t, &j->sec[k]);
        rc = keep_table(j, "config.ini", &t);
        free(t.s);
    }
    return rc;
}

int mcfi_band_command(int argc, char **argv)
{
    band_job j;
    memset(&j, 0, sizeof j);
    int force = 0, rc = mcfi_command_config("band", argc, argv, &j.c, &force);
    if (!rc)
        rc = job_setup(&j);
    if (!rc)
        rc = job_states(&j);
    struct stat st;
    char probe[4096];
    if (!rc) {
        snprintf(probe, sizeof probe, "%s/bands.tsv", j.output);
        if (!force && stat(probe, &st) == 0)
            rc = mcf_fail(MCF_EINVAL, "band: %s holds a band calculation already; --force "
                          "replaces it", j.output);
    }
    int lock = -1;
    if (!rc)
        rc = job_run(&j);
    if (!rc && !(rc = mcfi_command_claim("band", j.output, MCFI_KIND_BAND, force, &lock)))
        rc = flush_tables(&j);
    mcfe_outdir_unlock(lock);
    if (!rc)
        printf("mcf: %zu state%s of %s: %s/bands.tsv, phases.tsv and dos-*.tsv%s\n",
               j.n_states, j.n_states == 1 ? "" : "s", j.model->info->name, j.output,
               j.n_electrons ? ", fillings.tsv" : "");
    job_free(&j);
    return rc;
}
