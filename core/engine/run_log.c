/* run_log.c — the lines a run starts its log with (run_log.h): which mcf, configuration,
 * model and evaluator, the chains, seed and threads, what was cleaned up, and the warnings
 * known before the first sweep (degenerate shells at mu, derived quantities left out for
 * shared noise, idle MPI ranks); and which device each rank's evaluator took.  Moved out of
 * run.c, which opens the log and runs the schedule. */
#define _POSIX_C_SOURCE 200809L
#include "run_log.h"
#include "mcf_mpi.h"
#include "results_table.h"

#include "mcf/version.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEVICE_LINE 256

/* Collective when the evaluator has a probe (a device plugin; the same on every rank): its
 * one line (which device, e.g. "NVIDIA H100 ... device 1 of 2") from every rank into the
 * log, so that a multi-GPU run shows which GPU each rank took.  The core does not read
 * the text. */
void mcfi_run_log_devices(const mcf_run *r, const mcf_plugin_info *ev)
{
    if (!ev || !MCF_PLUGIN_INFO_HAS(ev, probe) || !ev->probe)
        return;
    char line[DEVICE_LINE];
    memset(line, 0, sizeof line);
    if (ev->probe(line, sizeof line) != 1 && !line[0])
        snprintf(line, sizeof line, "its probe says it cannot run here");
    line[sizeof line - 1] = '\0';
    if (r->ranks == 1) {
        mcf_log(MCF_LOG_INFO, "evaluator %s: %s", ev->name, line);
        return;
    }
    unsigned char *all = NULL;
    size_t size = 0;
    mcfi_mpi_allgather_bytes((const unsigned char *)line, sizeof line, &all, &size);
    for (int k = 0; r->rank == 0 && all && k < r->ranks && ((size_t)k + 1) * DEVICE_LINE <= size;
         k++) {
        char *t = (char *)all + (size_t)k * DEVICE_LINE;
        t[DEVICE_LINE - 1] = '\0';
        mcf_log(MCF_LOG_INFO, "rank %d: evaluator %s: %s", k, ev->name, t);
    }
    free(all);
}

void mcfi_run_log_start(const mcf_run *r, const mcf_run_options *opt, int threads,
                        int one_batch, int cleaned)
{
    const mcf_setup *setup = r->setup;
    const size_t owned = r->n_own;
    char ranks[64] = "";
    if (r->ranks > 1)
        snprintf(ranks, sizeof ranks, "%d MPI ranks, rank 0: ", r->ranks);
    mcf_log(MCF_LOG_INFO, "mcf %s: %s %s, model %s %s, evaluator %s, %zu chains, seed %llu, "
            "%s%d threads, output %s", MCF_VERSION_STRING,
            opt->resume ? "resuming" : "starting", setup->config_path, setup->model_name,
            setup->model->info->version, setup->evaluator_name, r->n_chains,
            (unsigned long long)setup->seed, ranks, threads, r->dir);
    if (cleaned)
        mcf_log(MCF_LOG_INFO, "removed %d temporary file%s left by a run or plot that was "
                "killed", cleaned, cleaned == 1 ? "" : "s");
    if (setup->evaluator_note)
        mcf_log(MCF_LOG_INFO, "%s", setup->evaluator_note);
    if (setup->sampler_note)
        mcf_log(MCF_LOG_INFO, "%s", setup->sampler_note);
    mcfi_shells_report(setup, NULL); /* degenerate shells at mu: terminal, log */
    if (one_batch && owned > 1)
        mcf_log(MCF_LOG_INFO, "evaluator %s takes all %zu chains %sin one batch: they step "
                "on one thread, and every Monte Carlo step is one call to it",
                setup->evaluator_name, owned, r->ranks > 1 ? "of a rank " : "");
    if ((size_t)r->ranks > r->n_chains)
        mcf_log(MCF_LOG_WARN, "%d MPI ranks for %zu chains: %zu of the ranks own no chain "
                "and only wait; use at most %zu ranks", r->ranks, r->n_chains,
                (size_t)r->ranks - r->n_chains, r->n_chains);
    for (int q = 0; q < 4; q++) { /* a derived quantity refused for shared noise */
        char why[1024];
        if (mcfi_results_noise_message(setup, q, why, sizeof why))
            mcf_log(MCF_LOG_WARN, "%s", why);
    }
}
