/* run.c — a run as a list of phases: open the run, create the chains, open the output and
 * the log, start tempering or resume from the checkpoint, thermalize and measure (chunks of
 * sweeps between synchronisation points: progress, exchanges, checkpoints, signals), then
 * write the results.  The pieces live in chain.c, sweep.c, tempering.c, ranks.c,
 * checkpoint.c, results.c and progress.c; the output folder in run_output.c, the stop
 * signals in stop.c. */
#define _POSIX_C_SOURCE 200809L
#include "run_log.h"
#include "run_output.h"
#include "stop.h"
#include "anneal.h"
#include "chain.h"
#include "checkpoint.h"
#include "dmc.h"
#include "error_target.h"
#include "fileio.h"
#include "hmc.h"
#include "mcf_mpi.h"
#include "optimize.h"
#include "progress.h"
#include "ranks.h"
#include "results.h"
#include "results_h5.h"
#include "series.h"
#include "sweep.h"
#include "tempering.h"

#include <errno.h>
#include <fcntl.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the run ------------------------------------------------------------------------- */

static void run_release(mcf_run *r)
{
    if (r->chains)
        for (size_t k = 0; k < r->n_chains; k++)
            mcfi_chain_release(r, &r->chains[k]);
    free(r->chains);
    free(r->own);
    free(r->dir);
    free(r->scalar);
    free(r->curve);
    mcfi_pt_free(r->pt);
    mcfi_anneal_free(r->anneal);
    mcfi_dmc_free(r->dmc);
}

/* A checkpoint (collective); the run that a --force run replaces goes with its first. */
static int save_checkpoint(mcf_run *r)
{
    /* the series first: a checkpoint never counts measurements its files lack */
    int rc = mcfe_mpi_agree(mcfi_series_flush(r));
    if (!rc)
        rc = mcfi_save_checkpoint(r);
    if (!rc)
        mcfi_run_committed(r);
    return rc;
}

/* The checkpoint's name for the configuration: the hash of config.ini as used without its
 * first line, which names the mcf release that wrote it (so a run resumes under a later
 * release); and, for a checkpoint of mcf 0.5 or older, which hashed the whole text, the
 * hash with the first line of the configuration file being read (config.ini, when
 * resuming, names the release that wrote the checkpoint); 0 when there is none. */
static void config_hashes(const mcf_setup *s, uint64_t *hash, uint64_t *before)
{
    static const char head[] = "; configuration as used by mcf ";
    const char *body = strchr(s->canonical, '\n');
    body = body ? body + 1 : s->canonical;
    *hash = mcfi_fnv1a64(body, strlen(body), MCF_FNV_OFFSET);
    *before = 0;
    unsigned char *text = NULL;
    size_t size = 0;
    struct stat st;
    if (!s->config_path ||
        mcfi_read_file(s->config_path, O_RDONLY | O_NOFOLLOW, MCFI_CONFIG_MAX_BYTES, &text,
                       &size, &st) != MCFI_FILE_OK)
        return;
    const char *nl = strchr((const char *)text, '\n');
    if (nl && !strncmp((const char *)text, head, sizeof head - 1)) {
        uint64_t h = mcfi_fnv1a64(text, (size_t)(nl + 1 - (const char *)text), MCF_FNV_OFFSET);
        *before = mcfi_fnv1a64(body, strlen(body), h);
    }
    free(text);
}

/* The run's description from the setup: observables and their roles, the model's batched
 * ops, the schedule's lengths, the chains and the ones this rank owns.  Collective. */
static int run_open(mcf_run *r, mcf_setup *setup, const mcf_run_options *opt)
{
    memset(r, 0, sizeof *r);
    r->setup = setup;
    r->model = setup->model->model;
    r->rank = mcfe_mpi_rank();
    r->ranks = mcfi_mpi_size();
    for (int k = 0; k < MCF_ROLE_COUNT; k++)
        r->role[k] = -1;
    while (r->model->observables[r->n_declared].name)
        r->n_declared++;
    r->dir = strdup(opt->output ? opt->output : setup->output);
    r->tc_estimate = opt->tc_estimate;
    r->tc_ctx = opt->tc_ctx;
    r->scalar = calloc(r->n_declared, sizeof *r->scalar);
    r->curve = calloc(r->n_declared, sizeof *r->curve);
    /* every failure from here on is agreed by all ranks before they leave together */
    int rc = mcfe_mpi_agree(!r->dir || !r->scalar || !r->curve
                               ? mcf_fail(MCF_ENOMEM, "out of memory") : MCF_OK);
    if (rc)
        return rc;
    for (size_t o = 0; o < r->n_declared; o++) {
        const mcf_observable *spec = &r->model->observables[o];
        if (spec->axis) {
            r->curve[r->n_curves++] = o;
            continue;
        }
        if (!mcfi_observable_wanted(setup, spec))
            continue; /* measured on request only: not asked for */
        if (spec->role)
            r->role[spec->role] = (int)r->n_obs;
        r->scalar[r->n_obs++] = o;
    }
    r->nvars = r->n_obs + (r->role[MCF_ROLE_ENERGY] >= 0 ? 1 : 0);
    r->var_es = -1;
    if (r->role[MCF_ROLE_ENERGY] >= 0 && r->role[MCF_ROLE_ACTION_DT] >= 0)
        r->var_es = (int)r->nvars++; /* <e s_T>: the specific heat of a general weight */
    mcfi_run_set_measured(r, (uint64_t)setup->sweeps);
    r->max_total = (uint64_t)setup->thermalize + mcfi_measured_sweeps_max(setup);
    config_hashes(setup, &r->config_hash, &r->config_hash_before);
    r->n_chains = setup->n_points * (size_t)setup->walkers;
    /* this rank's chains: every P-th (ranks.h) */
    r->own = malloc((r->n_chains / (size_t)r->ranks + 1) * sizeof *r->own);
    rc = mcfe_mpi_agree(r->own ? MCF_OK : mcf_fail(MCF_ENOMEM, "out of memory"));
    for (size_t k = (size_t)r->rank; !rc && k < r->n_chains; k += (size_t)r->ranks)
        r->own[r->n_own++] = k;
    return rc;
}

/* Every chain is created (and so every model parameter checked) before anything is
 * written: a refused run leaves no output folder behind.  Also allocates the `threads`
 * groups (zeroed).  Collective. */
static int create_chains(mcf_run *r, const mcf_run_options *opt, int threads, mcf_group **groups)
{
    int rc = mcfe_mpi_agree(r->rank == 0 ? mcfi_run_check_output(r, opt) : MCF_OK);
    if (rc)
        return rc;
    r->chains = calloc(r->n_chains, sizeof *r->chains);
    *groups = calloc((size_t)threads + 1, sizeof **groups);
    if (!r->chains || !*groups)
        rc = mcf_fail(MCF_ENOMEM, "out of memory for %zu chains", r->n_chains);
    for (size_t i = 0; i < r->n_own && !rc; i++) {
        rc = mcfi_chain_create(r, r->own[i]);
        if (!rc) /* [run] hmc_dt: the chain's step, of its size with auto */
            mcfi_hmc_tune_start(r->setup, &r->chains[r->own[i]]);
    }
    rc = mcfe_mpi_agree(rc);
    if (!rc && r->ranks > 1)
        rc = mcfi_share_layouts(r);
    return rc;
}

/* Rank 0 locks and prepares the output folder and opens DIR/log (never through a link);
 * the log, the progress line and the terminal are rank 0's, the other ranks' failures
 * reach them through mcfe_mpi_agree().  Collective. */
static int open_log(mcf_run *r, const mcf_run_options *opt, int threads, int one_batch,
                    FILE **logf, int *lock)
{
    int rc = MCF_OK, cleaned = 0;
    if (r->rank == 0) {
        char logpath[4200];
        int fd = -1;
        rc = mcfi_run_prepare_output(r, opt, lock, &cleaned);
        snprintf(logpath, sizeof logpath, "%s/log", r->dir);
        if (!rc)
            rc = mcfi_open_regular(logpath, O_WRONLY | O_APPEND | O_CREAT, "the log", &fd);
        if (!rc && !(*logf = fdopen(fd, "a"))) {
            rc = mcf_fail(MCF_EIO, "%s: cannot open the log (%s)", logpath, strerror(errno));
            close(fd);
        }
    }
    rc = mcfe_mpi_agree(rc);
    if (rc)
        return rc;
    int on_terminal = r->rank > 0 ? 0 : opt->progress < 0 ? isatty(STDERR_FILENO)
                                                            : opt->progress;
    mcf_log_set_status_line(on_terminal);
    mcf_log_set_file(*logf);
    mcf_log_set_echo_info(!on_terminal && r->rank == 0);
    mcf_log_set_rank(r->rank);
    if (r->rank == 0)
        mcfi_run_log_start(r, opt, threads, one_batch, cleaned);
    return MCF_OK;
}

/* Parallel tempering, when on.  Collective. */
static int start_tempering(mcf_run *r)
{
    const mcf_setup *setup = r->setup;
    if (setup->exchange_every > 0) {
        int rc = mcfi_pt_create(r);
        if (rc)
            return rc;
        if (r->rank == 0)
            mcf_log(MCF_LOG_INFO, "parallel tempering: every %ld sweeps, exchanges between "
                    "neighbouring temperatures of %zu temperatures in each of %zu groups",
                    setup->exchange_every, r->pt->n_temps, r->pt->n_groups);
    }
    return MCF_OK;
}

/* `mcf resume`: the chains continue from DIR/checkpoint, or start from the first sweep
 * when there is none.  Collective. */
static int resume(mcf_run *r)
{
    int rc = mcfi_load_checkpoint(r);
    if (rc == 1) {
        mcf_log(MCF_LOG_INFO, "no checkpoint in %s: starting from the first sweep", r->dir);
        return MCF_OK;
    } else if (rc) {
        return rc;
    }
    /* error_target: the measured phase the position is in */
    mcfi_run_set_measured(r, mcfi_measured_sweeps_at(r->setup, r->position));
    mcf_log(MCF_LOG_INFO, "resumed from the checkpoint at sweep %llu of %llu",
            (unsigned long long)r->position, (unsigned long long)r->total);
    /* the replicas continue at the temperatures the checkpoint gave them */
    for (size_t i = 0; i < r->n_own && r->pt && !rc; i++)
        rc = mcfi_pt_set_temperatures(r, r->own[i], 0);
    return mcfe_mpi_agree(rc);
}

/* This rank's chains dealt to `threads` groups, every threads-th to each.  Collective. */
static int prepare_groups(mcf_run *r, mcf_group *groups, int threads)
{
    int rc = MCF_OK;
    for (int g = 0; g < threads && !rc; g++)
        rc = mcfi_group_init(r, &groups[g], (size_t)g, (size_t)threads);
    rc = mcfe_mpi_agree(rc);
    if (!rc && r->pt)
        rc = mcfi_pt_check_weights(r);
    return rc;
}

/* Thermalization and measurement: the schedule from r->position to r->total in chunks of
 * sweeps (sized to take ~0.05-0.5 s), every chunk ending at a synchronisation point
 * (failures, the stop signal, tempering's exchanges, checkpoints, the progress line); then
 * the final progress line and checkpoint.  Collective. */
static int run_schedule(mcf_run *r, mcf_group *groups, int threads)
{
    const mcf_setup *setup = r->setup;
    int rc = MCF_OK;
    double started = mcfi_now_seconds();
    uint64_t start_pos = r->position, chunk = 1;
    uint64_t every = (uint64_t)setup->checkpoint_every;
    while (r->position < r->total && !rc) {
        uint64_t n = r->dmc ? 1 : chunk; /* DMC: the population is weighed every sweep */
        if (n > r->total - r->position)
            n = r->total - r->position;
        if (every && n > every - r->position % every)
            n = every - r->position % every;
        /* an exchange round is a synchronisation point: chunks end there */
        if (r->pt && n > r->pt->every - r->position % r->pt->every)
            n = r->pt->every - r->position % r->pt->every;
        /* and so is a hand-over of start = anneal */
        if (r->anneal && n > mcfi_anneal_next(r, r->position) - r->position)
            n = mcfi_anneal_next(r, r->position) - r->position;
        double t0 = mcfi_now_seconds();
        uint64_t pos = r->position;
        if (threads == 1) {
            /* no parallel region around a single group: a model may spread its batch's
               host work over the cores itself, and inside even a one-thread region each
               of its regions would be a nested team (measured: 4-7x slower sweeps of 16
               slater-jastrow walkers with blip-cuda than with no model threads at all) */
            for (uint64_t k = 0; k < n && !groups[0].status; k++)
                mcfi_sweep_group(r, &groups[0], pos + k);
        } else if (threads > 1) {
#pragma omp parallel for schedule(static, 1) num_threads(threads)
            for (int g = 0; g < threads; g++)
                for (uint64_t k = 0; k < n && !groups[g].status; k++)
                    mcfi_sweep_group(r, &groups[g], pos + k);
        }
        for (int g = 0; g < threads && !rc; g++)
            if (groups[g].status) {
                rc = groups[g].status;
                mcf_fail(rc, "%s", groups[g].message);
            }
        /* a synchronisation point: the ranks agree on failures, the stop signal (caught
           by any of them) and the next chunk, so they write the same checkpoints and
           stop together */
        rc = mcfe_mpi_agree(rc);
        if (rc)
            break;
        r->position += n;
        if (r->dmc && (rc = mcfi_dmc_step(r)))
            break;
        /* before a checkpoint or a stop at this sweep: a resume from there has it */
        if (r->anneal && (rc = mcfi_anneal_hand_over(r)))
            break;
        if (r->pt) {
            rc = mcfi_pt_flush(r);
            if (!rc && r->position % r->pt->every == 0 && r->position < r->total)
                rc = mcfi_pt_exchange(r);
            if (rc)
                break;
        }
        double shared[2] = {mcfi_now_seconds() - t0, (double)mcfi_stop_pending()};
        mcfi_mpi_max_doubles(shared, 2);
        double dt = shared[0];
        int stop = (int)shared[1];
        if (dt < 0.05 && chunk < (1u << 20))
            chunk *= 2;
        else if (dt > 0.5 && chunk > 1)
            chunk /= 2;
        uint64_t counts[2];
        mcfi_count_moves(r, counts);
        if (r->rank == 0)
            mcfi_progress(r, started, start_pos, counts[0], counts[1], 0);
        if (stop) {
            mcfi_stop_record(stop);
            mcf_log_status_clear();
            rc = save_checkpoint(r);
            if (!rc) {
                mcf_log(MCF_LOG_INFO, "stopped by signal %d at sweep %llu; checkpoint written; "
                        "continue with `mcf resume %s`", stop,
                        (unsigned long long)r->position, r->dir);
                rc = mcf_fail(MCF_EINTR, "stopped by signal %d at sweep %llu of %llu; "
                              "continue with `mcf resume %s`", stop,
                              (unsigned long long)r->position, (unsigned long long)r->total,
                              r->dir);
            }
            break;
        }
        if (every && r->position % every == 0 && r->position < r->total)
            rc = save_checkpoint(r);
    }
    if (!rc) {
        uint64_t counts[2];
        mcfi_count_moves(r, counts);
        if (r->rank == 0)
            mcfi_progress(r, started, start_pos, counts[0], counts[1], 1);
        rc = save_checkpoint(r);
    }
    return rc;
}

/* The headline numbers on standard output: the run's results, not a log line, so a
 * summary that could not be written (a full disk, a closed pipe) fails the run, MCF_EIO —
 * after results.tsv, whose message says so. */
static int print_summary(const mcf_run *r, const char *summary)
{
    errno = 0;
    if (summary && (fputs(summary, stdout) == EOF || fflush(stdout) != 0 || ferror(stdout))) {
        int e = errno;
        clearerr(stdout);
        return mcf_fail(MCF_EIO, "standard output: the summary of the results could not be "
                        "written (%s); the results are written: %s/results.tsv (`mcf resume "
                        "%s` prints the summary again)", e ? strerror(e) : "write error",
                        r->dir, r->dir);
    }
    return MCF_OK;
}

/* results.tsv, results.h5 and the summary: rank 0, from every chain's accumulators; then
 * the caller's results_written hook (the program's plots), whose failure fails the run, as
 * does a summary not printed (the plots are drawn all the same).  Collective. */
static int finish(mcf_run *r, const mcf_run_options *opt)
{
    char *summary = NULL;
    /* every rank's series written before rank 0 moves the folder */
    int rc = r->series ? mcfe_mpi_agree(mcfi_series_flush(r)) : MCF_OK;
    if (r->rank == 0 && !rc)
        rc = mcfi_series_finish(r);
    if (r->rank == 0 && !rc) {
        mcfi_dmc_report(r);
        rc = mcfi_results_write(r, &summary);
    }
    if (r->rank == 0 && !rc)
        rc = mcfi_results_h5_write(r);
    rc = mcfe_mpi_agree(rc);
    if (!rc && r->rank == 0) {
        int printed = print_summary(r, summary);
        char why[4096];
        snprintf(why, sizeof why, "%s", mcf_last_error());
        /* the terminal: the program says where the results are (main.c) */
        mcf_log_file_only(MCF_LOG_INFO, "finished: results in %s/results.tsv", r->dir);
        if (opt->results_written)
            rc = opt->results_written(r->dir, opt->results_ctx);
        if (printed && !rc)
            rc = mcf_fail(printed, "%s", why);
        else if (printed)
            rc = mcf_fail_prefix(rc, "%s; also", why);
    }
    free(summary);
    rc = mcfe_mpi_agree(rc);
    return rc;
}

int mcfe_run_execute(mcf_setup *setup, const mcf_run_options *opt)
{
    mcf_run run, *r = &run;
    int rc = run_open(r, setup, opt);
    if (!rc && !r->tc_estimate && mcfi_error_target_find(setup, "tc"))
        rc = mcf_fail(MCF_EINVAL, "[schedule] error_target names tc, the critical temperature, "
                      "which `mcf tc CONFIG` measures: run this configuration with mcf tc");
    if (rc) {
        run_release(r);
        return rc;
    }
    const size_t owned = r->n_own;
    int threads = setup->threads > 0 ? (int)setup->threads : omp_get_max_threads();
    if ((size_t)threads > owned)
        threads = (int)owned;
    /* a device evaluator gets all chains in one batch: one group, one stepping thread */
    const mcf_plugin_info *ev_info = setup->evaluator ? setup->evaluator->info : NULL;
    const int one_batch = ev_info && MCF_PLUGIN_INFO_HAS(ev_info, one_batch) && ev_info->one_batch;
    if (one_batch && threads > 1)
        threads = 1;
    FILE *logf = NULL;
    int lock = -1;
    mcf_group *groups = NULL;
    int signals_set = 0;
    struct sigaction old_int, old_term;
    /* `mcf optimize`, or `mcf resume` of a folder whose kind is optimize (main.c) */
    const int optimizing = opt->optimize;
    if (optimizing && (rc = mcfe_mpi_agree(r->ranks > 1 ? mcf_fail(MCF_EINVAL, "optimize: runs "
                       "on one MPI rank (its walkers share one set of parameters); start it "
                       "without mpirun") : mcfi_optimize_check(setup)))) {
        run_release(r);
        return rc;
    }
    rc = create_chains(r, opt, threads, &groups);
    if (!rc && optimizing)
        rc = mcfi_optimize_check_chains(r);
    else if (!rc) /* [model] KEY = optimized: before a checkpoint's configurations */
        rc = mcfe_mpi_agree(mcfi_variational_load(r));
    /* sampler = auto: config.ini as used names an hmc it chose, so the hash follows */
    if (!rc && !(rc = mcfi_resolve_sampler(r)))
        config_hashes(setup, &r->config_hash, &r->config_hash_before);
    /* DMC is no optimizer's sampler */
    if (!rc && setup->dmc && optimizing)
        rc = mcf_fail(MCF_EINVAL, "%s: [run] method = dmc: mcf optimize samples |Psi|^2 "
                      "(method = sample); optimize first, then run DMC with the parameter "
                      "file", setup->config_path);
    if (!rc)
        rc = mcfe_mpi_agree(mcfi_dmc_create(r));
    if (rc)
        goto done;
    mcfi_run_output_reset();
    rc = open_log(r, opt, threads, one_batch, &logf, &lock);
    if (rc)
        goto done;
    mcfi_run_log_devices(r, ev_info);
    if (setup->optimized_key && !optimizing && r->rank == 0)
        mcf_log(MCF_LOG_INFO, "[model] %s = optimized: the parameters of %s/optimize/"
                "parameters.txt, the optimization made first", setup->optimized_key, r->dir);
    mcfi_dmc_announce(r);
    rc = start_tempering(r);
    if (!rc)
        rc = mcfi_anneal_create(r);
    if (!rc && opt->resume && !optimizing)
        rc = resume(r);
    if (!rc && !optimizing)
        rc = mcfi_series_start(r);
    if (!rc)
        rc = prepare_groups(r, groups, threads);
    if (rc)
        goto done;

    mcfi_stop_catch(&old_int, &old_term);
    signals_set = 1;
    if (optimizing) {
        rc = mcfi_optimize_run(r, groups, threads, opt->resume, opt->stage);
        if (rc == MCF_EINTR)
            mcfi_stop_record(mcfi_stop_pending());
        goto done;
    }
    rc = run_schedule(r, groups, threads);
    /* error_target: while a target is missed and max_sweeps allows, measure as long again */
    for (int extend = 1; !rc && extend;) {
        rc = mcfi_error_target_decide(r, &extend);
        if (!rc && extend && r->pt && r->position % r->pt->every == 0)
            rc = mcfi_pt_exchange(r); /* the round the phase's end skipped */
        if (!rc && extend)
            rc = run_schedule(r, groups, threads);
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    signals_set = 0;
    if (!rc)
        rc = finish(r, opt);

done:
    if (signals_set) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
    }
    if (groups)
        for (int g = 0; g < threads; g++)
            mcfi_group_release(&groups[g]);
    free(groups);
    {
        /* keep the message: releasing chains may not clobber it */
        char msg[4096];
        snprintf(msg, sizeof msg, "%s", mcf_last_error());
        run_release(r);
        mcf_fail(rc, "%s", msg);
        if (rc && logf)
            fprintf(logf, "%s: %s\n", rc == MCF_EINTR ? "stopped" : "error", msg);
    }
    mcf_log_set_file(NULL);
    mcf_log_set_echo_info(0);
    mcf_log_set_rank(0);
    mcf_log_set_status_line(0);
    /* the log is no result: a line that could not be written (a full disk) is said, and
       the run's status stays the results' */
    if (logf && (ferror(logf) | fclose(logf)))
        fprintf(stderr, "mcf: warning: %s/log: not every line could be written (is the disk "
                "full?); the log is incomplete\n", opt->output ? opt->output : setup->output);
    mcfe_outdir_unlock(lock);
    return rc;
}
