/* optimize.c — `mcf optimize CONFIG`: the variational parameters of a model's trial function
 * (mcf/model.h: ABI 1's variational_* ops, ABI 2's mcf_variational and measure) optimized by
 * the linear method (linear_method.c), with the chains of the run as walkers.  The settings
 * are the [optimize] section; the run's output folder receives optimize.tsv (one row per
 * iteration), parameters-NNN.txt (the parameters sampled in iteration NNN, in the model's
 * file format), parameters.txt (the average of the parameters sampled in the accepted
 * iterations of the second half: the answer) and optimize.state (what `mcf resume DIR`
 * continues from).
 *
 * ---- One iteration -----------------------------------------------------------------------
 *   1. After a change of the parameters, `thermalize` plain sweeps (no step adaptation; the
 *      first iteration follows [schedule] thermalize with adaptation instead).
 *   2. `samples` sweeps; every [schedule] measure_every sweeps, one batched
 *      variational_local call per group of chains gives every walker's E_L, O_m and
 *      dE_L/dp_m, added to that walker's sums (a = (1, O), b = (E_L, dE_L/dp + E_L O)) and to
 *      its blocking analysis of E_L (stats.h).  The walkers' sums are merged in walker order,
 *      so the result does not depend on the threads.  The call gets the group's batch
 *      (sweep.c's, which carries the run's evaluator and model name for ABI 2's helpers); an
 *      ABI-2 model measures with the batch's variational flag set (model_ops.c).
 *   3. The energy of the iteration is the mean of the walkers' means, its error
 *      sqrt(sum err^2) / walkers (each err from blocking), as results.tsv combines walkers.
 *   4. Stabilization (an adaptive shift, as in Umrigar et al. 2007 in spirit): if the energy
 *      (target energy) or the variance (target variance) rose by more than 3 combined
 *      standard errors over the last accepted iteration, the step is rejected: the parameters
 *      go back to the last accepted ones and the shift grows 10x.  Otherwise the iteration is
 *      accepted, the shift shrinks 2x (not below shift/100 of the setting), and the linear
 *      method gives the next parameters; a failed solve (no acceptable eigenvector) also
 *      grows the shift 10x and retries, at most 6 times.
 *   5. The answer, parameters.txt, is the mean of the parameters sampled in the accepted
 *      iterations from iterations/2 on (before them: the last accepted ones).  Averaging
 *      over iterations removes most of the statistical noise of a single update;  the
 *      lowest measured energy would pick a noisy, unconverged iteration instead (measured:
 *      one with an energy 7.6 sigma above the converged one).
 *   6. The state is written (atomically) before the next iteration starts: iteration, shift,
 *      the parameters, the last accepted energy, every chain's model state and random
 *      stream.  A signal stops at the next sweep; the unfinished iteration is dropped, and
 *      `mcf resume DIR` redoes it from the state: the same numbers as without the stop.
 */
#define _POSIX_C_SOURCE 200809L
#include "optimize.h"
#include "optimize_state.h"
#include "checkpoint.h"
#include "fileio.h"
#include "linear_method.h"
#include "progress.h"
#include "run_output.h"
#include "stop.h"
#include "stats.h"
#include "sweep.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OPT_MAX_RETRIES 6

static const mcf_param_spec optimize_specs[] = {
    {"iterations", MCF_PARAM_INT, "10", MCF_PARAM_NO_SCAN | MCF_PARAM_HAS_MIN, 1, 0, NULL,
     .doc = "linear-method iterations (each samples, then updates the parameters)"},
    {"samples", MCF_PARAM_INT, "2000", MCF_PARAM_NO_SCAN | MCF_PARAM_HAS_MIN, 16, 0, NULL,
     .doc = "sweeps per iteration and walker; [schedule] measure_every sweeps between samples"},
    {"thermalize", MCF_PARAM_INT, "200", MCF_PARAM_NO_SCAN | MCF_PARAM_HAS_MIN, 0, 0, NULL,
     .doc = "sweeps after each change of the parameters, before sampling (the first iteration "
     "follows [schedule] thermalize instead)"},
    {"target", MCF_PARAM_CHOICE, "energy", MCF_PARAM_NO_SCAN, 0, 0, "energy|variance",
     .doc = "what the linear method minimizes: the energy or the variance of the local energy"},
    {"shift", MCF_PARAM_REAL, "0.001", MCF_PARAM_NO_SCAN | MCF_PARAM_HAS_MIN, 0, 0, NULL,
     .doc = "initial stabilization: added to the diagonal of the parameter block (energy units; "
     "adapted: x10 after a rejected step, /2 after an accepted one)"},
    {"walkers", MCF_PARAM_INT, "0", MCF_PARAM_NO_SCAN | MCF_PARAM_HAS_MIN, 0, 0, NULL,
     .doc = "walkers of the optimization (0: [run] walkers), e.g. fewer than a DMC "
     "population of the same configuration ([model] jastrow_file = optimized)"},
    {"xi", MCF_PARAM_REAL, "0.5", MCF_PARAM_NO_SCAN | MCF_PARAM_HAS_MIN | MCF_PARAM_HAS_MAX, 0, 1,
     NULL, .doc = "normalization of the update (Toulouse and Umrigar's xi, 0..1)"},
    {0}};

const mcf_param_spec *mcfi_optimize_specs(void) { return optimize_specs; }

/* The [optimize] values. */
typedef struct opt_settings {
    long iterations, samples, thermalize;
    int target;
    double shift, xi;
} opt_settings;


static int read_settings(const mcf_setup *s, opt_settings *o)
{
    mcf_params p;
    mcfe_section_params(&s->optimize, s->config_path, &p);
    const char *target;
    int rc;
    if ((rc = mcf_params_int(&p, "iterations", &o->iterations)) ||
        (rc = mcf_params_int(&p, "samples", &o->samples)) ||
        (rc = mcf_params_int(&p, "thermalize", &o->thermalize)) ||
        (rc = mcf_params_string(&p, "target", &target)) ||
        (rc = mcf_params_real(&p, "shift", &o->shift)) ||
        (rc = mcf_params_real(&p, "xi", &o->xi)))
        return rc;
    o->target = strcmp(target, "variance") == 0 ? MCFI_LM_VARIANCE : MCFI_LM_ENERGY;
    return MCF_OK;
}

int mcfi_optimize_check(const mcf_setup *s)
{
    if (!s->model->model->has_variational)
        return mcf_fail(MCF_EINVAL, "optimize: model %s has no variational parameters (no "
                        "variational ops, or no variational_file_key; mcf/model.h)",
                        s->model_name);
    if (s->n_points != 1)
        return mcf_fail(MCF_EINVAL, "optimize: %s scans %zu points; an optimization takes "
                        "one point (its walkers are [run] walkers): remove the scanned lists",
                        s->config_path, s->n_points);
    if (s->exchange_every > 0)
        return mcf_fail(MCF_EINVAL, "optimize: %s asks for parallel tempering; an "
                        "optimization does not exchange replicas: set exchange_every = 0",
                        s->config_path);
    opt_settings o;
    return read_settings(s, &o);
}

/* ---- sweeps and samples --------------------------------------------------------------- */

/* Per walker: its linear-method sums and the blocking analysis of E_L. */
typedef struct opt_walker {
    mcfi_lm_sums sums;
    mcf_blocking eb;
    double *row; /* 1 + 2P values of variational_local */
} opt_walker;

/* `n` sweeps of every group (plain: no adaptation, no measurement), sampling every
 * measure_every sweeps when walkers is not NULL. */
static int sweep_all(mcf_run *r, mcf_group *groups, int threads, uint64_t n, int adapt,
                     uint64_t first_sweep, opt_walker *walkers, size_t P)
{
    const uint64_t every = (uint64_t)r->setup->measure_every;
#pragma omp parallel for schedule(static, 1) num_threads(threads) if (threads > 1)
    for (int g = 0; g < threads; g++) {
        mcf_group *gr = &groups[g];
        gr->plain = !adapt;
        double *rows[4096];
        for (uint64_t k = 0; k < n && !gr->status && !mcfi_stop_pending(); k++) {
            mcfi_sweep_group(r, gr, first_sweep + k);
            if (!walkers || gr->status || (k + 1) % every != 0)
                continue;
            for (size_t c0 = 0; c0 < gr->n && !gr->status; c0 += 4096) {
                const size_t nb = gr->n - c0 < 4096 ? gr->n - c0 : 4096;
                for (size_t j = 0; j < nb; j++)
                    rows[j] = walkers[gr->chains[c0 + j]->index].row;
                int rc = MCFI_MODEL(r->model, variational_local, gr->batch, gr->states + c0,
                                    nb, rows);
                if (rc) {
                    gr->status = rc;
                    snprintf(gr->message, sizeof gr->message, "model %s: variational_local: "
                             "%s", r->setup->model_name, mcf_last_error());
                    break;
                }
                for (size_t j = 0; j < nb; j++) {
                    opt_walker *w = &walkers[gr->chains[c0 + j]->index];
                    if (!isfinite(w->row[0])) {
                        gr->status = mcf_fail(MCF_EPLUGIN, "model %s: a local energy that is "
                                              "not finite (%g)", r->setup->model_name,
                                              w->row[0]);
                        snprintf(gr->message, sizeof gr->message, "%s", mcf_last_error());
                        break;
                    }
                    mcfi_lm_add(&w->sums, w->row[0], w->row + 1, w->row + 1 + P);
                    mcfi_blocking_add(&w->eb, w->row[0]);
                }
            }
        }
        gr->plain = 0;
    }
    for (int g = 0; g < threads; g++)
        if (groups[g].status)
            return mcf_fail(groups[g].status, "%s", groups[g].message);
    if (mcfi_stop_pending())
        return MCF_EINTR;
    return MCF_OK;
}

static int set_all(mcf_run *r, const double *p)
{
    for (size_t k = 0; k < r->n_chains; k++) {
        int rc = MCFI_MODEL(r->model, variational_set, r->chains[k].state, p);
        if (rc)
            return mcf_fail_prefix(rc, "optimize: model %s: variational_set",
                                   r->setup->model_name);
    }
    return MCF_OK;
}

/* The model's parameter file of p (chain 0 holds p) at DIR/name: written to a fresh
 * temporary (O_EXCL | O_NOFOLLOW: a link planted under its name is removed, not written
 * through), renamed into place. */
static int write_parameters(const mcf_run *r, const char *name)
{
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%s/%s", r->dir, name);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    int fd = mcfe_create_fresh(tmp);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
    if (!f) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return mcf_fail(MCF_EIO, "optimize: cannot write %s: %s", tmp, strerror(e));
    }
    int rc = MCFI_MODEL(r->model, variational_write, r->chains[0].state, f);
    if ((fflush(f) || fsync(fd)) && !rc)
        rc = mcf_fail(MCF_EIO, "optimize: cannot write %s: %s", tmp, strerror(errno));
    if (fclose(f) && !rc)
        rc = mcf_fail(MCF_EIO, "optimize: cannot write %s", tmp);
    if (!rc && rename(tmp, path))
        rc = mcf_fail(MCF_EIO, "optimize: cannot rename %s: %s", tmp, strerror(errno));
    if (rc)
        remove(tmp);
    return rc;
}

/* DIR/optimize.tsv: the header replaces the file atomically (a link in its place is
 * replaced, not followed); a row is appended to the regular file only, never through a
 * link. */
static int append_row(const mcf_run *r, const char *line, int header)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/optimize.tsv", r->dir);
    int fd, rc = header ? mcfe_write_atomic(path, line, strlen(line)) : MCF_OK;
    if (header)
        return rc ? mcf_fail_prefix(rc, "optimize") : MCF_OK;
    rc = mcfi_open_regular(path, O_WRONLY | O_APPEND, "the optimization's table", &fd);
    if (rc)
        return mcf_fail_prefix(rc, "optimize");
    const size_t len = strlen(line);
    const ssize_t w = write(fd, line, len);
    const int e = w < 0 ? errno : EIO;
    if (close(fd) || w != (ssize_t)len)
        return mcf_fail(MCF_EIO, "optimize: cannot write %s: %s", path, strerror(e));
    return MCF_OK;
}

/* ---- the loop ----------------------------------------------------------------------------- */

int mcfi_optimize_check_chains(const mcf_run *r)
{
    const mcf_setup *s = r->setup;
    const mcfi_model *ops = r->model;
    const size_t P = MCFI_MODEL(ops, variational_count, r->chains[0].state), W = r->n_chains;
    if (P == 0) { /* the model says why (mcf/model.h: variational_write with no file) */
        char why[1024] = "";
        const int rc = MCFI_MODEL(ops, variational_write, r->chains[0].state, NULL);
        if (rc == MCF_EPLUGIN && r->model->abi == 2) /* a broken description, not a reason */
            return mcf_fail_prefix(rc, "optimize");
        if (rc)
            snprintf(why, sizeof why, ": %s", mcf_last_error());
        return mcf_fail(MCF_EINVAL, "optimize: model %s has no variational parameters in this "
                        "configuration%s", s->model_name, why);
    }
    for (size_t k = 1; k < W; k++)
        if (MCFI_MODEL(ops, variational_count, r->chains[k].state) != P)
            return mcf_fail(MCF_EPLUGIN, "optimize: model %s: walkers with different numbers "
                            "of parameters", s->model_name);
    return MCF_OK;
}

int mcfi_optimize_run(mcf_run *r, mcf_group *groups, int threads, int resume, int stage)
{
    const mcf_setup *s = r->setup;
    const mcfi_model *ops = r->model;
    opt_settings o;
    int rc = read_settings(s, &o);
    if (rc)
        return rc;
    const size_t P = MCFI_MODEL(ops, variational_count, r->chains[0].state), W = r->n_chains;
    double *p = calloc(2 * P, sizeof *p), *p_acc = calloc(P, sizeof *p_acc),
           *dp = calloc(P, sizeof *dp);
    opt_walker *w = calloc(W, sizeof *w);
    mcfi_lm_sums total = {0};
    if (!p || !p_acc || !dp || !w || mcfi_lm_sums_init(&total, P)) {
        rc = mcf_fail(MCF_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t k = 0; k < W && !rc; k++) {
        w[k].row = calloc(1 + 2 * P, sizeof *w[k].row);
        if (!w[k].row || mcfi_lm_sums_init(&w[k].sums, P))
            rc = mcf_fail(MCF_ENOMEM, "out of memory");
    }
    if (rc)
        goto done;

    opt_head h;
    memset(&h, 0, sizeof h);
    rc = resume ? mcfi_opt_state_read(r, &h, p, P) : 1;
    if (rc < 0)
        goto done;
    if (rc == 1 && resume) /* no state: killed before its first one, or lost */
        rc = mcfi_opt_missing_state(r);
    if (rc < 0)
        goto done;
    if (rc == 1) { /* a fresh start: the parameters of the configuration */
        rc = MCFI_MODEL(ops, variational_get, r->chains[0].state, p);
        if (rc)
            goto done;
        memcpy(h.magic, OPT_MAGIC, 8);
        h.config_hash = r->config_hash;
        h.P = P;
        h.chains = W;
        h.shift = o.shift;
        h.e_acc = h.e_acc_err = h.v_acc = h.v_acc_err = NAN;
        h.n_avg = 0;
        h.avg_e = h.avg_err2 = 0.0;
        mcf_log(MCF_LOG_INFO, "optimize: %zu parameters, %zu walkers, %ld iterations of %ld "
                "sweeps, target %s; thermalizing %ld sweeps", P, W, o.iterations, o.samples,
                o.target ? "variance" : "energy", s->thermalize);
        rc = sweep_all(r, groups, threads, (uint64_t)s->thermalize, 1, 0, NULL, P);
        if (!rc)
            rc = append_row(r, "iteration\tenergy\tenergy_err\tvariance\tvariance_err\t"
                               "shift\tstep\tpredicted\tstatus\n", 1);
        if (!rc)
            rc = mcfi_opt_state_write(r, &h, p);
        if (!rc)
            mcfi_run_committed(r);
    } else {
        mcf_log(MCF_LOG_INFO, "optimize: resuming at iteration %llu of %ld",
                (unsigned long long)h.iteration, o.iterations);
    }
    if (rc)
        goto done;
    memcpy(p_acc, p, P * sizeof *p);

    const double shift_floor = o.shift / 100.0;
    for (; h.iteration < (uint64_t)o.iterations && !rc; h.iteration++) {
        const uint64_t it = h.iteration;
        /* 1. thermalize after a change (the configuration of the previous parameters) */
        if (it > 0 && o.thermalize > 0)
            rc = sweep_all(r, groups, threads, (uint64_t)o.thermalize, 0, (uint64_t)s->thermalize,
                           NULL, P);
        /* 2. sample */
        for (size_t k = 0; k < W && !rc; k++) {
            mcfi_lm_sums_clear(&w[k].sums);
            mcfi_blocking_init(&w[k].eb);
        }
        if (!rc)
            rc = sweep_all(r, groups, threads, (uint64_t)o.samples, 0, (uint64_t)s->thermalize, w,
                           P);
        if (rc)
            break;
        /* 3. merge in walker order; the energy and its error as results.tsv combines walkers */
        mcfi_lm_sums_clear(&total);
        double e_sum = 0.0, e_err2 = 0.0;
        for (size_t k = 0; k < W; k++) {
            mcfi_lm_merge(&total, &w[k].sums);
            mcf_estimate est;
            mcfi_blocking_estimate(&w[k].eb, &est);
            e_sum += est.mean;
            e_err2 += est.error * est.error;
        }
        const double E = e_sum / (double)W, E_err = sqrt(e_err2) / (double)W;
        /* the variance of E_L and its error: from the same sums, the error by the energy's
           relative statistics (an estimate: Var is a second moment) */
        const double var = total.bb[0] / total.count - (total.ab[0] / total.count) *
                                                           (total.ab[0] / total.count);
        const double samples_eff = E_err > 0.0 ? var / (E_err * E_err) : total.count;
        const double var_err = var * sqrt(2.0 / (samples_eff > 1.0 ? samples_eff : 1.0));
        char name[64];
        snprintf(name, sizeof name, "parameters-%03llu.txt", (unsigned long long)it);
        rc = write_parameters(r, name);
        if (rc)
            break;
        /* 4. accept or reject the step that led here */
        const double got = o.target ? var : E, got_err = o.target ? var_err : E_err;
        const double prev = o.target ? h.v_acc : h.e_acc, prev_err = o.target ? h.v_acc_err
                                                                               : h.e_acc_err;
        const char *status = "accepted";
        double step = 0.0, predicted = NAN;
        if (isfinite(prev) && got > prev + 3.0 * sqrt(got_err * got_err + prev_err * prev_err)) {
            status = "rejected";
            h.shift *= 10.0;
            memcpy(p, p_acc, P * sizeof *p);
            mcf_log(MCF_LOG_INFO, "optimize: iteration %llu: %s %.6g +- %.2g rose above %.6g "
                    "+- %.2g: step rejected, back to the previous parameters, shift %.3g",
                    (unsigned long long)it, o.target ? "variance" : "energy", got, got_err,
                    prev, prev_err, h.shift);
        } else {
            if (isfinite(prev))
                h.shift = fmax(h.shift / 2.0, shift_floor);
            h.e_acc = E;
            h.e_acc_err = E_err;
            h.v_acc = var;
            h.v_acc_err = var_err;
            memcpy(p_acc, p, P * sizeof *p);
            if (2 * it >= (uint64_t)o.iterations) { /* into the answer */
                for (size_t m = 0; m < P; m++)
                    p[P + m] += p[m];
                h.n_avg++;
                h.avg_e += E;
                h.avg_err2 += E_err * E_err;
            }
            mcfi_lm_result res;
            int tries = 0;
            for (;; tries++) {
                mcfi_lm_options lo = {(mcfi_lm_target)o.target, h.shift, o.xi};
                rc = mcfi_lm_solve(&total, &lo, dp, &res);
                if (rc != MCF_EINVAL || tries == OPT_MAX_RETRIES)
                    break;
                mcf_log(MCF_LOG_INFO, "optimize: iteration %llu: %s; shift %.3g -> %.3g",
                        (unsigned long long)it, mcf_last_error(), h.shift, 10.0 * h.shift);
                h.shift *= 10.0;
            }
            if (rc) {
                rc = mcf_fail_prefix(rc, "optimize: iteration %llu", (unsigned long long)it);
                break;
            }
            for (size_t m = 0; m < P; m++)
                p[m] += dp[m];
            step = res.norm;
            predicted = res.predicted;
        }
        rc = set_all(r, p);
        /* 5. the answer: chain 0 holds it while its file is written */
        if (!rc) {
            for (size_t m = 0; m < P; m++)
                dp[m] = h.n_avg ? p[P + m] / (double)h.n_avg : p_acc[m];
            rc = MCFI_MODEL(ops, variational_set, r->chains[0].state, dp);
            if (!rc)
                rc = write_parameters(r, "parameters.txt");
            if (!rc)
                rc = MCFI_MODEL(ops, variational_set, r->chains[0].state, p);
        }
        /* 6. the row, the log, the progress, the state */
        char line[512];
        snprintf(line, sizeof line, "%llu\t%.10g\t%.3g\t%.10g\t%.3g\t%.3g\t%.4g\t%.10g\t%s\n",
                 (unsigned long long)it, E, E_err, var, var_err, h.shift, step, predicted,
                 status);
        if (!rc)
            rc = append_row(r, line, 0);
        mcf_log(MCF_LOG_INFO, "optimize: iteration %llu of %ld: energy %.8g +- %.2g, variance "
                "%.6g, %s; step |dp| = %.4g, shift %.3g", (unsigned long long)it, o.iterations,
                E, E_err, var, status, step, h.shift);
        if (mcf_log_status_line())
            fprintf(stderr, "\roptimize: iteration %llu/%ld  E = %.8g +- %.2g  var = %.5g  %s"
                    "  |dp| = %.3g\n", (unsigned long long)it + 1, o.iterations, E, E_err, var,
                    status, step);
        h.iteration = it + 1;
        if (!rc)
            rc = mcfi_opt_state_write(r, &h, p);
        h.iteration = it;
    }
    if (rc == MCF_EINTR) {
        mcf_log(MCF_LOG_INFO, "optimize: stopped in iteration %llu; the state of its start is "
                "kept: continue with `mcf resume %s`", (unsigned long long)h.iteration, r->dir);
        rc = mcf_fail(MCF_EINTR, "optimize: stopped in iteration %llu of %ld; continue with "
                      "`mcf resume %s`", (unsigned long long)h.iteration, o.iterations, r->dir);
    }
    if (!rc) {
        char what[160];
        if (h.n_avg)
            snprintf(what, sizeof what, "the mean of the parameters of the %llu accepted "
                     "iterations from %ld on (their energies: %.8g +- %.2g)",
                     (unsigned long long)h.n_avg, (o.iterations + 1) / 2,
                     h.avg_e / (double)h.n_avg, sqrt(h.avg_err2) / (double)h.n_avg);
        else
            snprintf(what, sizeof what, "the parameters of the last accepted iteration");
        mcf_log(MCF_LOG_INFO, "optimize: done; %s/parameters.txt holds %s", r->dir, what);
        printf("optimize: %ld iterations; %s/parameters.txt holds %s\n", o.iterations, r->dir,
               what);
        if (!stage) /* the stage's run takes them itself */
            printf("  use them: mcf run CONFIG --set model.%s=%s/parameters.txt\n",
                   ops->variational_file_key, r->dir);
    }
done:
    if (w)
        for (size_t k = 0; k < W; k++) {
            free(w[k].row);
            mcfi_lm_sums_free(&w[k].sums);
        }
    free(w);
    mcfi_lm_sums_free(&total);
    free(p);
    free(p_acc);
    free(dp);
    return rc;
}
