/* kbe.c — `mcf kbe CONFIG [--set SECTION.KEY=VALUE ...] [--force]` (kbe.h): real-time
 * propagation of a driven crystal (mcf/dynamics.h).  The model describes the crystal (its
 * driven_crystal op), a dynamics evaluator propagates its fermions; this file owns the drive
 * E(t) and the ramp U(t), the time loop, the stop signal and the files.  No physics beyond
 * the drive's work: dE_tot/dt = E'(t) <D> + U'(t) <V> (H(t) = H_0 + E(t) D + U(t) V), whose
 * trapezoid sum is the energy balance the table checks.
 *
 * The configuration: [run] model, evaluator (default kbe), output; [kbe] dt, steps, nk,
 * correctors, selfenergy, selfenergy_method, U, ramp, memory_limit_gb; [pulse] amplitude,
 * frequency, center, width; [output] every, nk_times; [model] and [evaluator] as the plugins
 * declare them.  The output folder: config.ini, kind, kbe.tsv (a row every [output] every
 * steps, written as the run goes), nk.tsv (the k-resolved occupations at nk_times).  Not
 * libmcf's: the program's, beside band.c. */
#define _POSIX_C_SOURCE 200809L
#include "kbe.h"

#include "command_config.h"
#include "kbe_drive.h"
#include "mcf_engine.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static const mcf_param_spec run_specs[] = {
    {"model", MCF_PARAM_STRING, NULL, MCF_PARAM_SKIP_, 0, 0, NULL,
     .doc = "the model whose crystal is driven (its plugin needs the driven_crystal op)"},
    {"evaluator", MCF_PARAM_STRING, "kbe", MCF_PARAM_SKIP_, 0, 0, NULL,
     .doc = "the dynamics evaluator (kbe: two-time Kadanoff-Baym on the CPU)"},
    {"output", MCF_PARAM_STRING, NULL, MCF_PARAM_SKIP_ | MCF_PARAM_OPTIONAL_, 0, 0, NULL,
     .doc = "the output folder (default: the configuration's name with .out)"},
    {0}};

typedef struct kbe_job {
    mcf_config *c;
    mcf_section sec[KBE_SECTIONS]; /* run, kbe, pulse, output, model, evaluator */
    mcf_plugin *model, *evaluator;
    const mcf_dynamics_evaluator *ev;
    mcf_params params[KBE_SECTIONS];
    mcf_cell *crystal, *dipole;
    mcf_drive_terms terms;
    mcf_propagation prop;
    kbe_drive drive;
    unsigned orbitals;
    size_t nk_total;
    char *output;
    void *ws;
    mcf_batch *batch;
} kbe_job;

static void job_free(kbe_job *j)
{
    if (j->ws)
        j->ev->destroy(j->ws);
    mcf_batch_destroy(j->batch);
    mcf_cell_destroy(j->crystal);
    mcf_cell_destroy(j->dipole);
    free(j->drive.nk_steps);
    free(j->output);
    for (int k = 0; k < KBE_SECTIONS; k++)
        mcfe_section_release(&j->sec[k]);
    if (j->model)
        mcfe_plugin_close(j->model);
    if (j->evaluator)
        mcfe_plugin_close(j->evaluator);
    mcfe_config_free(j->c);
}

static int check_sections(const mcf_config *c)
{
    static const char *const known[] = {"run", "kbe", "pulse", "output", "model", "evaluator"};
    for (size_t k = 0; k < c->n; k++) {
        size_t q = 0;
        while (q < KBE_SECTIONS && strcmp(c->entries[k].section, known[q]) != 0)
            q++;
        if (q == KBE_SECTIONS) {
            char where[512];
            return mcf_fail(MCF_EINVAL, "%s: [%s] is no section of a kbe run (they are [run], "
                            "[kbe], [pulse], [output], [model], [evaluator])",
                            mcfe_config_where(&c->entries[k], where, sizeof where),
                            c->entries[k].section);
        }
    }
    return MCF_OK;
}

/* the sections and the plugins */
static int job_setup(kbe_job *j)
{
    mcf_config *c = j->c;
    mcf_axis *axes = NULL;
    size_t n_axes = 0;
    int rc = check_sections(c);
    static const char *const names[4] = {"run", "kbe", "pulse", "output"};
    const mcf_param_spec *specs[4] = {run_specs, mcfi_kbe_specs, mcfi_pulse_specs,
                                      mcfi_output_specs};
    for (int k = 0; k < 4 && !rc; k++)
        rc = mcfe_section_check(c, names[k], specs[k], "mcf kbe", 3, &j->sec[k], &axes,
                                &n_axes);
    const char *model = rc ? NULL : mcfe_section_text(&j->sec[0], "model");
    const char *ev = rc ? NULL : mcfe_section_text(&j->sec[0], "evaluator");
    if (!rc && (rc = mcfe_plugin_open(model, MCF_PLUGIN_MODEL, &j->model)))
        rc = mcf_fail_prefix(rc, "%s: [run] model = %s", c->path, model);
    if (!rc && (rc = mcfe_plugin_open(ev, MCF_PLUGIN_DYNAMICS_EVALUATOR, &j->evaluator)))
        rc = mcf_fail_prefix(rc, "%s: [run] evaluator = %s (mcf kbe takes a dynamics "
                             "evaluator: kbe)", c->path, ev);
    char owner[256];
    if (!rc) {
        snprintf(owner, sizeof owner, "model %s", model);
        rc = mcfe_section_check(c, "model", j->model->info->params, owner, 0, &j->sec[4], &axes,
                                &n_axes);
    }
    if (!rc) {
        snprintf(owner, sizeof owner, "evaluator %s", ev);
        rc = mcfe_section_check(c, "evaluator", j->evaluator->info->params, owner, 1,
                                &j->sec[5], &axes, &n_axes);
    }
    if (!rc && n_axes)
        rc = mcf_fail(MCF_EINVAL, "%s: %s = %s: mcf kbe takes one value per key (a scan: one "
                      "run per value)", c->path, axes[0].name,
                      mcfe_section_text(&j->sec[axes[0].section == 0 ? 4 : 5], axes[0].name));
    mcfe_axes_free(axes, n_axes);
    if (rc)
        return rc;
    j->ev = j->evaluator->info->ops;
    for (int k = 0; k < KBE_SECTIONS; k++)
        mcfe_section_params(&j->sec[k], c->path, &j->params[k]);
    if (!(j->batch = mcf_batch_create()))
        return mcf_fail(MCF_ENOMEM, "out of memory");
    j->output = mcfi_command_output(c->path, mcfe_section_text(&j->sec[0], "output"));
    return j->output ? MCF_OK : MCF_ENOMEM;
}

/* the model's driven crystal, checked; the propagation; the evaluator's plan */
static int job_crystal(kbe_job *j)
{
    const char *model = j->model->info->name;
    int rc = mcf_cell_create(&j->crystal);
    if (!rc)
        rc = mcf_cell_create(&j->dipole);
    if (!rc)
        rc = mcfe_model_driven_crystal(j->model, &j->params[4], j->crystal, j->dipole,
                                       &j->terms);
    if (!rc)
        rc = mcf_cell_status(j->crystal);
    if (!rc)
        rc = mcf_cell_status(j->dipole);
    const mcf_periodic *p = rc ? NULL : mcf_cell_view(j->crystal);
    if (!rc && !p)
        rc = mcf_fail(MCF_EPLUGIN, "model %s: its driven_crystal op described no crystal",
                      model);
    if (!rc && !mcf_cell_view(j->dipole)) /* no dipole: a crystal the field leaves alone */
        rc = mcf_cell_shape(j->dipole, p->dims, p->orbitals, p->sites, &p->lattice[0][0]);
    char who[256];
    snprintf(who, sizeof who, "model %s: its driven crystal", model);
    if (!rc)
        rc = mcf_periodic_check(p, who);
    const mcf_periodic *d = rc ? NULL : mcf_cell_view(j->dipole);
    snprintf(who, sizeof who, "model %s: its dipole operator", model);
    if (!rc)
        rc = mcf_periodic_check(d, who);
    if (!rc && (d->dims != p->dims || d->orbitals != p->orbitals))
        rc = mcf_fail(MCF_EPLUGIN, "model %s: the dipole operator's cell (%u dims, %u "
                      "orbitals) is not the crystal's (%u, %u)", model, d->dims, d->orbitals,
                      p->dims, p->orbitals);
    if (!rc && p->orbitals > MCF_DYNAMICS_MAX_ORBITALS)
        rc = mcf_fail(MCF_EINVAL, "model %s: %u orbitals a cell; mcf kbe reports at most %d",
                      model, p->orbitals, MCF_DYNAMICS_MAX_ORBITALS);
    if (!rc && j->terms.n_terms > MCF_DRIVE_MAX_TERMS)
        rc = mcf_fail(MCF_EPLUGIN, "model %s: %u interaction terms (at most %d)", model,
                      j->terms.n_terms, MCF_DRIVE_MAX_TERMS);
    for (uint32_t k = 0; !rc && k < j->terms.n_terms; k++) {
        const mcf_interaction_term *t = &j->terms.terms[k];
        if (t->a >= p->orbitals || t->b >= p->orbitals || t->a == t->b || !isfinite(t->weight))
            rc = mcf_fail(MCF_EPLUGIN, "model %s: interaction term %u (orbitals %u, %u, weight "
                          "%g) is not a term between two orbitals of the cell", model, k,
                          t->a, t->b, t->weight);
    }
    if (!rc && (!isfinite(j->terms.mu) || !(j->terms.temperature >= 0) ||
                !isfinite(j->terms.temperature)))
        rc = mcf_fail(MCF_EPLUGIN, "model %s: the initial state's mu = %g, T = %g", model,
                      j->terms.mu, j->terms.temperature);
    if (rc)
        return rc;
    j->orbitals = p->orbitals;
    rc = mcfi_kbe_propagation(j->c, j->params, p->dims, mcfe_section_text(&j->sec[3], "nk_times"),
                              &j->prop, &j->drive);
    j->nk_total = (size_t)j->prop.nk[0] * j->prop.nk[1] * j->prop.nk[2];
    const mcf_driven_crystal dc = {p, d, &j->terms};
    uint64_t bytes = 0;
    void *app = j->evaluator->info->app_data;
    if (!rc)
        rc = j->ev->plan(&j->params[5], &dc, &j->prop, app, &bytes);
    if (!rc)
        printf("mcf kbe: %s, %u orbital%s a cell, %zu k point%s, %llu steps of %g: the "
               "evaluator %s needs %.3g GB\n", model, p->orbitals, p->orbitals == 1 ? "" : "s",
               j->nk_total, j->nk_total == 1 ? "" : "s", (unsigned long long)j->prop.steps,
               j->prop.dt, j->evaluator->info->name, (double)bytes / 1e9);
    if (!rc)
        rc = j->ev->create(&j->params[5], &dc, &j->prop, app, &j->ws);
    return rc;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static volatile sig_atomic_t stop_signal;
static void on_stop(int sig) { stop_signal = sig; }

/* the time loop: a row of kbe.tsv every `every` steps (and the last), nk.tsv's rows */
static int job_run(kbe_job *j, FILE *tsv, FILE *nk)
{
    const kbe_drive *dr = &j->drive;
    const uint64_t steps = j->prop.steps;
    double *occ = nk ? malloc(j->nk_total * j->orbitals * sizeof *occ) : NULL;
    if (nk && !occ)
        return mcf_fail(MCF_ENOMEM, "out of memory");
    mcf_dynamics_observables o, prev;
    double work = 0, e0 = 0, max_balance = 0, max_anti = 0;
    size_t next_nk = 0;
    int rc = MCF_OK;
    struct sigaction sa = {0}, old_int, old_term;
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    stop_signal = 0;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    double t_report = now_seconds(), t_start = t_report;
    for (uint64_t n = 0; n <= steps && !rc; n++) {
        const double t = (double)n * j->prop.dt, E = mcfi_kbe_field(dr, t), U = mcfi_kbe_u(dr, t);
        memset(&o, 0, sizeof o);
        if ((rc = j->ev->observe(j->batch, j->ws, n, E, U, &o)))
            break;
        const double e_tot = o.e_band + o.e_field + o.e_hf + o.e_corr;
        if (n == 0)
            e0 = e_tot;
        else { /* the drive's work over the step, by the trapezoid */
            const double tp = (double)(n - 1) * j->prop.dt;
            work += (E - mcfi_kbe_field(dr, tp)) * 0.5 * (o.polarization + prev.polarization) +
                    (U - mcfi_kbe_u(dr, tp)) * 0.5 * (o.interaction + prev.interaction);
        }
        prev = o;
        const double balance = e_tot - e0 - work;
        max_balance = fmax(max_balance, fabs(balance));
        max_anti = fmax(max_anti, o.anticommutator);
        if (n % dr->every == 0 || n == steps) {
            fprintf(tsv, "%.10g\t%.17g\t%.17g", t, E, U);
            for (unsigned a = 0; a < j->orbitals; a++)
                fprintf(tsv, "\t%.17g", o.occupation[a]);
            fprintf(tsv, "\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.3e\t%.3e\t%.3e\n",
                    o.polarization, o.electrons, o.e_band, o.e_field, o.e_hf, o.e_corr, e_tot,
                    balance, o.anticommutator, o.corrector_residual);
        }
        while (nk && next_nk < dr->n_nk_times && dr->nk_steps[next_nk] == n) {
            if (!j->ev->occupations || (rc = j->ev->occupations(j->ws, n, occ)))
                break;
            for (size_t k = 0; k < j->nk_total; k++) {
                fprintf(nk, "%.10g\t%zu", t, k);
                for (unsigned a = 0; a < j->orbitals; a++)
                    fprintf(nk, "\t%.17g", occ[k * j->orbitals + a]);
                fputc('\n', nk);
            }
            next_nk++;
        }
        if (ferror(tsv) || (nk && ferror(nk)))
            rc = mcf_fail(MCF_EIO, "%s: cannot write kbe.tsv or nk.tsv", j->output);
        if (!rc && stop_signal) {
            fflush(tsv);
            rc = mcf_fail(MCF_EINTR, "mcf kbe: stopped by signal %d at step %llu of %llu "
                          "(t = %g); %s/kbe.tsv holds the rows until then (a kbe run does not "
                          "resume yet: run it again)", (int)stop_signal, (unsigned long long)n,
                          (unsigned long long)steps, t, j->output);
        }
        const double now = now_seconds();
        if (!rc && n < steps && now - t_report > 2.0) {
            fflush(tsv);
            t_report = now;
            fprintf(stderr, "\rstep %llu/%llu | t = %.4g | %.0fs elapsed", (unsigned long long)n,
                    (unsigned long long)steps, t, now - t_start);
        }
        if (!rc && n < steps)
            rc = j->ev->step(j->batch, j->ws, mcfi_kbe_field(dr, t + j->prop.dt),
                             mcfi_kbe_u(dr, t + j->prop.dt));
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (t_report > t_start) /* the progress line goes */
        fprintf(stderr, "\r%*s\r", 60, "");
    if (!rc)
        printf("mcf kbe: %llu steps in %.1f s; energy balance within %.3g, max |G^> - G^< + i| "
               "%.3g\n", (unsigned long long)steps, now_seconds() - t_start, max_balance,
               max_anti);
    free(occ);
    return rc;
}

static FILE *open_table(const kbe_job *j, const char *name, int *rc)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", j->output, name);
    FILE *f = fopen(path, "w");
    if (!f)
        *rc = mcf_fail(MCF_EIO, "%s: cannot be written", path);
    return f;
}

/* an occupation's column: n_v and n_c for two orbitals, else n_0, n_1, ... */
static void orbital_column(FILE *f, int two, unsigned a)
{
    if (two)
        fprintf(f, "\tn_%c", "vc"[a]);
    else
        fprintf(f, "\tn_%u", a);
}

/* the folder: config.ini, kind, the tables' heads; then the run */
static int job_files(kbe_job *j, int force)
{
    struct stat st;
    char probe[4200];
    snprintf(probe, sizeof probe, "%s/kbe.tsv", j->output);
    if (!force && stat(probe, &st) == 0)
        return mcf_fail(MCF_EINVAL, "kbe: %s holds a kbe run already; --force replaces it",
                        j->output);
    int lock = -1, rc = mcfi_command_claim("kbe", j->output, MCFI_KIND_KBE, force, &lock);
    mcf_text t = {0};
    for (int k = 0; k < KBE_SECTIONS && !rc; k++)
        mcfe_section_write(&t, &j->sec[k]);
    snprintf(probe, sizeof probe, "%s/config.ini", j->output);
    if (!rc)
        rc = t.s ? mcfe_write_atomic(probe, t.s, t.len) : mcf_fail(MCF_ENOMEM, "out of memory");
    free(t.s);
    FILE *tsv = rc ? NULL : open_table(j, "kbe.tsv", &rc);
    FILE *nk = rc || !j->drive.n_nk_times ? NULL : open_table(j, "nk.tsv", &rc);
    if (!rc) {
        const int two = j->orbitals == 2;
        fprintf(tsv, "# mcf kbe: model %s, evaluator %s; per cell (sums over the %zu k points "
                "divided by their number); balance = E_tot(t) - E_tot(0) - the work of the "
                "pulse and the ramp\nt\tE\tU", j->model->info->name, j->evaluator->info->name,
                j->nk_total);
        for (unsigned a = 0; a < j->orbitals; a++)
            orbital_column(tsv, two, a);
        fprintf(tsv, "\tpolarization\tN\tE_kin\tE_field\tE_HF\tE_corr\tE_tot\tbalance\t"
                "anticommutator\tcorrector\n");
        if (nk) {
            fprintf(nk, "# mcf kbe: occupations per k point (k index: the first direction "
                    "fastest) at [output] nk_times\nt\tk");
            for (unsigned a = 0; a < j->orbitals; a++)
                orbital_column(nk, two, a);
            fputc('\n', nk);
        }
        rc = job_run(j, tsv, nk);
    }
    if (tsv && fclose(tsv) != 0 && !rc)
        rc = mcf_fail(MCF_EIO, "%s/kbe.tsv: cannot be written", j->output);
    if (nk && fclose(nk) != 0 && !rc)
        rc = mcf_fail(MCF_EIO, "%s/nk.tsv: cannot be written", j->output);
    mcfe_outdir_unlock(lock);
    return rc;
}

int mcfi_kbe_command(int argc, char **argv)
{
    kbe_job j;
    memset(&j, 0, sizeof j);
    int force = 0, rc = mcfi_command_config("kbe", argc, argv, &j.c, &force);
    if (!rc)
        rc = job_setup(&j);
    if (!rc)
        rc = job_crystal(&j);
    if (!rc)
        rc = job_files(&j, force);
    if (!rc)
        printf("mcf: %s/kbe.tsv%s\n", j.output, j.drive.n_nk_times ? " and nk.tsv" : "");
    job_free(&j);
    return rc;
}
