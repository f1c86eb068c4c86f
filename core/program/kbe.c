/* kbe.c — `mcf kbe CONFIG [--set SECTION.KEY=VALUE ...] [--force]` (kbe.h): real-time
 * propagation of a driven crystal (mcf/dynamics.h).  The model describes the crystal (its
 * driven_crystal op), a dynamics evaluator propagates its fermions; this file owns the drive
 * E(t) and the ramp U(t), the time loop, the stop signal and the files.  No physics beyond
 * the drive's work: dE_tot/dt = E'(t) <D> + U'(t) <V> (H(t) = H_0 + E(t) D + U(t) V), whose
 * trapezoid sum is the energy balance the table checks.
 *
 * The configuration: [run] model, evaluator (default kbe), output; [kbe] dt, steps, nk,
 * correctors, order, selfenergy, selfenergy_method, U, ramp, memory_limit_gb; [pulse] amplitude,
 * frequency, center, width; [output] every, nk_times; [model] and [evaluator] as the plugins
 * declare them.  The output folder: config.ini, kind, kbe.tsv (a row every [output] every
 * steps, written as the run goes), nk.tsv (the k-resolved occupations at nk_times),
 * kbe-rows.bin and checkpoint ([output] checkpoint = yes: kbe_checkpoint.h; `mcf resume`:
 * kbe_resume.c).  Not libmcf's: the program's, beside band.c. */
#define _POSIX_C_SOURCE 200809L
#include "kbe.h"

#include "command_config.h"
#include "kbe_job.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <time.h>

static const mcf_param_spec run_specs[] = {
    {"model", MCF_PARAM_STRING, NULL, MCF_PARAM_SKIP_, 0, 0, NULL,
     .doc = "the model whose crystal is driven (its plugin needs the driven_crystal op)"},
    {"evaluator", MCF_PARAM_STRING, "kbe", MCF_PARAM_SKIP_, 0, 0, NULL,
     .doc = "the dynamics evaluator (kbe: two-time Kadanoff-Baym on the CPU)"},
    {"output", MCF_PARAM_STRING, NULL, MCF_PARAM_SKIP_ | MCF_PARAM_OPTIONAL_, 0, 0, NULL,
     .doc = "the output folder (default: the configuration's name with .out)"},
    {0}};

void mcfi_kbe_job_free(kbe_job *j)
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
int mcfi_kbe_job_setup(kbe_job *j)
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

int mcfi_kbe_speaks(const kbe_job *j) { return !j->distributed || mcfe_mpi_rank() == 0; }

/* the gather service of k over ranks (mcf/dynamics.h): MPI's, through the engine */
static int gather_all(void *ctx, const void *send, const uint64_t *bytes, void *recv)
{
    (void)ctx;
    mcfe_mpi_allgather(send, bytes, recv);
    return MCF_OK;
}

static int gather_root(void *ctx, const void *send, const uint64_t *bytes, void *recv)
{
    (void)ctx;
    mcfe_mpi_gather(send, bytes, recv);
    return MCF_OK;
}

/* over P > 1 ranks the evaluator gets the service; [kbe] nk refused below P k points */
static int set_gather(kbe_job *j)
{
    const int P = mcfe_mpi_size();
    if (!j->distributed || P < 2)
        return MCF_OK;
    if (j->nk_total < (size_t)P) {
        char where[512];
        mcfe_config_key_where(j->c, "kbe", "nk", where, sizeof where);
        return mcf_fail(MCF_EINVAL, "%s: [kbe] nk gives %zu k points for %d MPI ranks: each "
                        "rank keeps a slab of k, so run on %zu ranks at most or raise nk",
                        where, j->nk_total, P, j->nk_total);
    }
    j->gather = (mcf_dynamics_gather){.struct_size = sizeof j->gather,
                                      .rank = (uint32_t)mcfe_mpi_rank(),
                                      .size = (uint32_t)P,
                                      .allgather = gather_all,
                                      .gather = gather_root};
    j->prop.gather = &j->gather;
    return MCF_OK;
}

/* the model's driven crystal, checked; the propagation; the evaluator's plan */
int mcfi_kbe_job_crystal(kbe_job *j)
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
    if (!rc)
        rc = set_gather(j);
    const mcf_driven_crystal dc = {p, d, &j->terms};
    uint64_t bytes = 0;
    void *app = j->evaluator->info->app_data;
    if (!rc)
        rc = j->ev->plan(&j->params[5], &dc, &j->prop, app, &bytes);
    if (rc == MCF_ENOMEM && j->drive.memory_auto)
        rc = mcf_fail_prefix(rc, "mcf kbe: %s ([kbe] memory_limit_gb = 0 is this machine's "
                             "%.3g GB: fewer steps or k points, or a machine with more)",
                             j->c->path, 1e-9 * (double)j->prop.memory_limit);
    if (!rc && mcfi_kbe_speaks(j))
        printf("mcf kbe: %s, %u orbital%s a cell, %zu k point%s, %llu steps of %g: the "
               "evaluator %s needs %.3g GB\n", model, p->orbitals, p->orbitals == 1 ? "" : "s",
               j->nk_total, j->nk_total == 1 ? "" : "s", (unsigned long long)j->prop.steps,
               j->prop.dt, j->evaluator->info->name, (double)bytes / 1e9);
    if (!rc && mcfi_kbe_speaks(j) && j->prop.gather)
        printf("mcf kbe: k over %u MPI ranks (%.3g GB a rank)\n", j->gather.size,
               (double)bytes / 1e9);
    if (!rc)
        rc = j->ev->create(&j->params[5], &dc, &j->prop, app, &j->ws);
    return rc;
}

double mcfi_kbe_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static volatile sig_atomic_t stop_signal;
static void on_stop(int sig) { stop_signal = sig; }

/* whether the evaluator keeps checkpoint rows (the optional ops of mcf 1.2) */
int mcfi_kbe_has_rows(const mcf_dynamics_evaluator *ev)
{
    return ev->struct_size >= offsetof(mcf_dynamics_evaluator, row_read) + sizeof(void *) &&
           ev->row_bytes && ev->row_write && ev->row_read;
}

int mcfi_kbe_row_buffer(kbe_files *f, uint64_t n, uint64_t bytes)
{
    if (bytes <= f->row_cap)
        return MCF_OK;
    void *grown = realloc(f->row, bytes);
    if (!grown)
        return mcf_fail(MCF_ENOMEM, "out of memory for time row %llu (%llu bytes)",
                        (unsigned long long)n, (unsigned long long)bytes);
    f->row = grown;
    f->row_cap = bytes;
    return MCF_OK;
}

/* row n appended to kbe-rows.bin */
static int append_row(kbe_job *j, kbe_files *f, uint64_t n)
{
    const uint64_t bytes = j->ev->row_bytes(j->ws, n);
    int rc = mcfi_kbe_row_buffer(f, n, bytes);
    if (!rc)
        rc = j->ev->row_write(j->ws, n, f->row); /* collective over ranks */
    if (!rc && f->rows && fwrite(f->row, 1, bytes, f->rows) != bytes)
        rc = mcf_fail(MCF_EIO, "%s/" KBE_ROWS_FILE ": cannot be written (is the disk full?)",
                      j->output);
    return rc;
}

/* the files flushed, their lengths and the loop's state into DIR/checkpoint */
static int write_checkpoint(kbe_job *j, kbe_files *f, kbe_loop_state *st)
{
    if (fflush(f->tsv) || (f->nk && fflush(f->nk)) || fflush(f->rows))
        return mcf_fail(MCF_EIO, "%s: cannot write kbe.tsv, nk.tsv or " KBE_ROWS_FILE
                        " (is the disk full?)", j->output);
    st->tsv_bytes = (uint64_t)ftell(f->tsv);
    st->nk_bytes = f->nk ? (uint64_t)ftell(f->nk) : 0;
    st->rows_bytes = (uint64_t)ftell(f->rows);
    return mcfi_kbe_checkpoint_write(j->output, st, j->prop.order);
}

/* the time loop from step `from` (0, or a resumed run's next step, whose step from t_{n-1} is
 * taken first): a row of kbe.tsv every `every` steps (and the last), nk.tsv's rows, the time
 * rows and the checkpoint's header; st: the loop's state (zero for a new run) */
int mcfi_kbe_job_run(kbe_job *j, kbe_files *f, kbe_loop_state *st, uint64_t from)
{
    const kbe_drive *dr = &j->drive;
    const uint64_t steps = j->prop.steps;
    int rc = MCF_OK;
    /* every rank takes the occupations (a collective call); rank 0 writes them */
    double *occ = dr->n_nk_times ? malloc(j->nk_total * j->orbitals * sizeof *occ) : NULL;
    if (dr->n_nk_times && !occ)
        rc = mcf_fail(MCF_ENOMEM, "out of memory");
    if (j->distributed)
        rc = mcfe_mpi_agree(rc);
    if (rc) {
        free(occ);
        return rc;
    }
    mcf_dynamics_observables o;
    struct sigaction sa = {0}, old_int, old_term;
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    stop_signal = 0;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    double t_report = mcfi_kbe_now(), t_start = t_report;
    for (uint64_t n = from; n <= steps && !rc; n++) {
        const double t = (double)n * j->prop.dt, E = mcfi_kbe_field(dr, t), U = mcfi_kbe_u(dr, t);
        if (n > 0 && (rc = j->ev->step(j->batch, j->ws, E, U))) /* t_{n-1} -> t_n */
            break;
        memset(&o, 0, sizeof o);
        if ((rc = j->ev->observe(j->batch, j->ws, n, E, U, &o))) /* collective, too */
            break;
        const double e_tot = o.e_band + o.e_field + o.e_hf + o.e_corr;
        if (n == 0)
            st->e0 = e_tot;
        else { /* the drive's work over the step, by the trapezoid */
            const double tp = (double)(n - 1) * j->prop.dt;
            st->work += (E - mcfi_kbe_field(dr, tp)) * 0.5 * (o.polarization +
                        st->prev.polarization) + (U - mcfi_kbe_u(dr, tp)) * 0.5 *
                        (o.interaction + st->prev.interaction);
        }
        st->prev = o;
        const double balance = e_tot - st->e0 - st->work;
        st->max_balance = fmax(st->max_balance, fabs(balance));
        st->max_anti = fmax(st->max_anti, o.anticommutator);
        if (f->tsv && (n % dr->every == 0 || n == steps)) {
            fprintf(f->tsv, "%.10g\t%.17g\t%.17g", t, E, U);
            for (unsigned a = 0; a < j->orbitals; a++)
                fprintf(f->tsv, "\t%.17g", o.occupation[a]);
            fprintf(f->tsv, "\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.3e\t%.3e\t"
                    "%.3e\n", o.polarization, o.electrons, o.e_band, o.e_field, o.e_hf,
                    o.e_corr, e_tot, balance, o.anticommutator, o.corrector_residual);
        }
        while (occ && st->next_nk < dr->n_nk_times && dr->nk_steps[st->next_nk] == n) {
            if (!j->ev->occupations || (rc = j->ev->occupations(j->ws, n, occ)))
                break;
            for (size_t k = 0; f->nk && k < j->nk_total; k++) {
                fprintf(f->nk, "%.10g\t%zu", t, k);
                for (unsigned a = 0; a < j->orbitals; a++)
                    fprintf(f->nk, "\t%.17g", occ[k * j->orbitals + a]);
                fputc('\n', f->nk);
            }
            st->next_nk++;
        }
        if (f->tsv && (ferror(f->tsv) || (f->nk && ferror(f->nk))))
            rc = mcf_fail(MCF_EIO, "%s: cannot write kbe.tsv or nk.tsv", j->output);
        st->n = n;
        /* over ranks: a rank 0's error is every rank's; a signal to one stops all */
        if (j->distributed && (rc = mcfe_mpi_agree(rc)))
            break;
        const int stop = j->distributed ? mcfe_mpi_max_int(stop_signal) : stop_signal;
        if (!rc && f->kept)
            rc = append_row(j, f, n);
        if (!rc && f->kept && (stop || n % dr->checkpoint_every == 0 || n == steps)) {
            if (f->rows)
                rc = write_checkpoint(j, f, st);
            if (j->distributed)
                rc = mcfe_mpi_agree(rc);
        }
        if (!rc && stop) {
            if (f->tsv)
                fflush(f->tsv);
            char then[4300];
            if (f->rows)
                snprintf(then, sizeof then, "checkpoint written; continue with `mcf resume %s`",
                         j->output);
            else
                snprintf(then, sizeof then, "%s/kbe.tsv holds the rows until then ([output] "
                         "checkpoint = no: it does not resume)", j->output);
            rc = mcf_fail(MCF_EINTR, "mcf kbe: stopped by signal %d at step %llu of %llu "
                          "(t = %g); %s", stop, (unsigned long long)n,
                          (unsigned long long)steps, t, then);
        }
        const double now = mcfi_kbe_now();
        if (!rc && f->tsv && n < steps && now - t_report > 2.0) {
            fflush(f->tsv);
            t_report = now;
            fprintf(stderr, "\rstep %llu/%llu | t = %.4g | %.0fs elapsed", (unsigned long long)n,
                    (unsigned long long)steps, t, now - t_start);
        }
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (t_report > t_start) /* the progress line goes */
        fprintf(stderr, "\r%*s\r", 60, "");
    if (!rc && mcfi_kbe_speaks(j))
        printf("mcf kbe: %llu steps%s in %.1f s; energy balance within %.3g, max |G^> - G^< + "
               "i| %.3g\n", (unsigned long long)steps, from ? " (resumed)" : "",
               mcfi_kbe_now() - t_start, st->max_balance, st->max_anti);
    free(occ);
    return rc;
}

FILE *mcfi_kbe_open_file(const kbe_job *j, const char *name, const char *mode, int *rc)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", j->output, name);
    FILE *f = fopen(path, mode);
    if (!f)
        *rc = mcf_fail(MCF_EIO, "%s: cannot be %s (%s)", path, *mode == 'r' ? "read" : "written",
                       strerror(errno));
    return f;
}

int mcfi_kbe_close_files(const kbe_job *j, kbe_files *f, int rc)
{
    if (f->tsv && fclose(f->tsv) != 0 && !rc)
        rc = mcf_fail(MCF_EIO, "%s/kbe.tsv: cannot be written", j->output);
    if (f->nk && fclose(f->nk) != 0 && !rc)
        rc = mcf_fail(MCF_EIO, "%s/nk.tsv: cannot be written", j->output);
    if (f->rows && fclose(f->rows) != 0 && !rc)
        rc = mcf_fail(MCF_EIO, "%s/" KBE_ROWS_FILE ": cannot be written", j->output);
    free(f->row);
    return rc;
}

/* an occupation's column: n_v and n_c for two orbitals, else n_0, n_1, ... */
static void orbital_column(FILE *f, int two, unsigned a)
{
    if (two)
        fprintf(f, "\tn_%c", "vc"[a]);
    else
        fprintf(f, "\tn_%u", a);
}

/* the rows a checkpointed run will write, against the disk's free space: refused before
 * any work when they do not fit */
static int check_disk(const kbe_job *j)
{
    double need = KBE_ROWS_HEAD;
    for (uint64_t n = 0; n <= j->prop.steps; n++)
        need += (double)j->ev->row_bytes(j->ws, n);
    struct statvfs fs;
    const double avail = statvfs(j->output, &fs) == 0 ? (double)fs.f_bavail * fs.f_frsize : -1;
    printf("mcf kbe: the checkpoint's time rows will take %.3g GB (%s/" KBE_ROWS_FILE ")\n",
           need / 1e9, j->output);
    if (avail >= 0 && need > avail)
        return mcf_fail(MCF_EINVAL, "mcf kbe: the checkpoint's time rows need %.3g GB and %s "
                        "has %.3g GB free: free the disk, choose another [run] output, or set "
                        "[output] checkpoint = no (then a stopped run does not resume)",
                        need / 1e9, j->output, avail / 1e9);
    return MCF_OK;
}

/* the folder: config.ini, kind, the tables' heads (rank 0's); f's files open, *lock held */
static int open_files(kbe_job *j, int force, kbe_files *fp, int *lock_out)
{
    struct stat st;
    char probe[4200];
    snprintf(probe, sizeof probe, "%s/kbe.tsv", j->output);
    if (!force && stat(probe, &st) == 0)
        return mcf_fail(MCF_EINVAL, "kbe: %s holds a kbe run already; `mcf resume %s` "
                        "continues it, --force replaces it", j->output, j->output);
    const int rows = j->drive.checkpoint && mcfi_kbe_has_rows(j->ev);
    if (j->drive.checkpoint && !rows)
        printf("mcf kbe: the evaluator %s keeps no time rows: this run does not resume\n",
               j->evaluator->info->name);
    int lock = -1, rc = mcfi_command_claim("kbe", j->output, MCFI_KIND_KBE, force, &lock);
    *lock_out = lock;
    if (!rc && rows)
        rc = check_disk(j);
    /* a replaced run's checkpoint goes first: it does not describe this one */
    snprintf(probe, sizeof probe, "%s/checkpoint", j->output);
    if (!rc && unlink(probe) != 0 && errno != ENOENT)
        rc = mcf_fail(MCF_EIO, "%s: cannot be removed (%s)", probe, strerror(errno));
    snprintf(probe, sizeof probe, "%s/" KBE_ROWS_FILE, j->output);
    if (!rc && !rows && unlink(probe) != 0 && errno != ENOENT)
        rc = mcf_fail(MCF_EIO, "%s: cannot be removed (%s)", probe, strerror(errno));
    mcf_text t = {0};
    for (int k = 0; k < KBE_SECTIONS && !rc; k++)
        mcfe_section_write(&t, &j->sec[k]);
    snprintf(probe, sizeof probe, "%s/config.ini", j->output);
    if (!rc)
        rc = t.s ? mcfe_write_atomic(probe, t.s, t.len) : mcf_fail(MCF_ENOMEM, "out of memory");
    free(t.s);
    kbe_files f = *fp;
    if (!rc)
        f.tsv = mcfi_kbe_open_file(j, "kbe.tsv", "w", &rc);
    if (!rc && j->drive.n_nk_times)
        f.nk = mcfi_kbe_open_file(j, "nk.tsv", "w", &rc);
    if (!rc && rows)
        f.rows = mcfi_kbe_open_file(j, KBE_ROWS_FILE, "wb", &rc);
    if (f.rows && fwrite(mcfi_kbe_rows_head, 1, KBE_ROWS_HEAD, f.rows) != KBE_ROWS_HEAD)
        rc = rc ? rc : mcf_fail(MCF_EIO, "%s/" KBE_ROWS_FILE ": cannot be written", j->output);
    if (!rc) {
        const int two = j->orbitals == 2;
        fprintf(f.tsv, "# mcf kbe: model %s, evaluator %s; per cell (sums over the %zu k points "
                "divided by their number); balance = E_tot(t) - E_tot(0) - the work of the "
                "pulse and the ramp\n", j->model->info->name, j->evaluator->info->name,
                j->nk_total);
        if (j->prop.order > 2) /* the start block's rows are redone after they are written */
            fprintf(f.tsv, "# order %u: the rows at steps 1 .. %u are the start's provisional "
                    "second-order values (the start block solved again at step %u is of "
                    "order %u; docs/methods.md)\n", (unsigned)j->prop.order,
                    2 * (unsigned)j->prop.order - 3, 2 * (unsigned)j->prop.order - 2,
                    (unsigned)j->prop.order);
        fprintf(f.tsv, "t\tE\tU");
        for (unsigned a = 0; a < j->orbitals; a++)
            orbital_column(f.tsv, two, a);
        fprintf(f.tsv, "\tpolarization\tN\tE_kin\tE_field\tE_HF\tE_corr\tE_tot\tbalance\t"
                "anticommutator\tcorrector\n");
        if (f.nk) {
            fprintf(f.nk, "# mcf kbe: occupations per k point (k index: the first direction "
                    "fastest) at [output] nk_times\nt\tk");
            for (unsigned a = 0; a < j->orbitals; a++)
                orbital_column(f.nk, two, a);
            fputc('\n', f.nk);
        }
    }
    *fp = f;
    return rc;
}

/* the folder (rank 0), then the run (every rank) */
static int job_files(kbe_job *j, int force)
{
    kbe_files f = {0};
    f.kept = j->drive.checkpoint && mcfi_kbe_has_rows(j->ev);
    int lock = -1, rc = mcfi_kbe_speaks(j) ? open_files(j, force, &f, &lock) : MCF_OK;
    if (j->distributed)
        rc = mcfe_mpi_agree(rc);
    if (!rc) {
        kbe_loop_state loop;
        memset(&loop, 0, sizeof loop);
        rc = mcfi_kbe_job_run(j, &f, &loop, 0);
    }
    rc = mcfi_kbe_close_files(j, &f, rc);
    if (lock >= 0)
        mcfe_outdir_unlock(lock);
    return rc;
}

int mcfi_kbe_command(int argc, char **argv)
{
    kbe_job j;
    memset(&j, 0, sizeof j);
    j.distributed = mcfe_mpi_size() > 1; /* k over the ranks of mpirun (kbe_job.h) */
    int force = 0, rc = mcfi_command_config("kbe", argc, argv, &j.c, &force);
    if (!rc)
        rc = mcfi_kbe_job_setup(&j);
    if (!rc)
        rc = mcfi_kbe_job_crystal(&j);
    if (j.distributed) /* the same inputs everywhere, but a rank may lack memory */
        rc = mcfe_mpi_agree(rc);
    if (!rc)
        rc = job_files(&j, force);
    if (!rc && mcfi_kbe_speaks(&j)) {
        printf("mcf: %s/kbe.tsv%s\n", j.output, j.drive.n_nk_times ? " and nk.tsv" : "");
        mcfi_kbe_plot(j.output, "kbe.tsv", "kbe"); /* a warning at worst */
    }
    mcfi_kbe_job_free(&j);
    return rc;
}
