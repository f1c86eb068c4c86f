/* main.c — the `mcf` program: its commands (run, resume, plugins, describe, plot, dos,
 * band, new-model) over libmcf, and the plots drawn at the end of a run (plot.c); `mcf dos`
 * is dos.c's, `mcf band` band.c's, `mcf new-model` new_model.c's. */
#define _POSIX_C_SOURCE 200809L
#include "band.h"
#include "command_config.h"
#include "dos.h"
#include "tc.h"
#include "kbe.h"
#include "mcf_engine.h"
#include "new_model.h"
#include "plot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char usage[] =
    "usage: mcf COMMAND [ARGS]\n"
    "\n"
    "  mcf run CONFIG [--set section.key=value]... [--force] [--no-plots]\n"
    "        run the scan described by the INI file CONFIG; results go to [run] output\n"
    "  mcf optimize CONFIG [--set section.key=value]... [--force]\n"
    "        optimize the model's variational parameters (linear method, [optimize]);\n"
    "        DIR/optimize.tsv per iteration, DIR/parameters.txt the optimized parameters\n"
    "  mcf resume DIR [--no-plots]  continue a stopped run (or optimization, mcf tc scan:\n"
    "        T_c at its end, or kbe run) from DIR\n"
    "  mcf plugins         list the plugins found (name, kind, summary)\n"
    "  mcf describe NAME   show a plugin's parameters with defaults and docs\n"
    "  mcf plot DIR        draw DIR/results.tsv as SVG and PNG plots in DIR\n"
    "  mcf dos DIR [--kernel jackson|lorentz[:LAMBDA]|none] [--points N] [--range A:B]\n"
    "        reconstruct DOS/LDOS with error bands from the Chebyshev moments in\n"
    "        DIR/results.h5 (KPM runs) into DIR/dos-KERNEL-N.tsv\n"
    "  mcf response DIR [--T T] [--mu m1,m2,...|A:B:N] [--omega w1,...] [--kernel K]\n"
    "        conductivities (Kubo-Bastin DC, Kubo-Greenwood at omega) with jackknife\n"
    "        errors from the response moments in DIR/results.h5 into\n"
    "        DIR/response-KERNEL.tsv\n"
    "  mcf tc CONFIG [--force] [--no-plots]\n"
    "        run the scans of CONFIG's [tc] section (sizes, temperatures, error_target;\n"
    "        refine = N: N finer scans, each about the T_c of those before, in\n"
    "        DIR/refine-*), then T_c, its jackknife error and nu as below\n"
    "  mcf tc DIR [DIR ...] [--blocks B] [--jackknife slices|chains] [--skip N] [--omega W]\n"
    "         [--nu NU] [--grid N] [--window LO:HI] [--sizes L1,L2,...]\n"
    "         [--fixed binder=VALUE] [--fixed xi_over_l=VALUE]\n"
    "        T_c from a run's measurement series ([run] series = yes, a scan of L and T):\n"
    "        reweighted Binder and xi/L curves, their crossings, nu; DIR/tc.tsv.  Several\n"
    "        runs of one model (other temperatures) are reweighted together; --window\n"
    "        leaves out the chains outside LO..HI, --sizes the other sizes; --fixed: per\n"
    "        size the T where the curve takes VALUE, extrapolated with --nu; --skip N leaves\n"
    "        out each chain's first N measurements (a size whose chains began before\n"
    "        equilibrium is warned of); --jackknife chains: blocks cut from each\n"
    "        temperature's chains end to end, not time slices of every chain\n"
    "  mcf band CONFIG [--set section.key=value]... [--force]\n"
    "        bands, DOS and Fermi levels of the model's ideal states ([band]) with a band\n"
    "        evaluator (tetra, tetra-cuda), into [run] output\n"
    "  mcf kbe CONFIG [--set section.key=value]... [--force]\n"
    "        real-time Kadanoff-Baym propagation of a model's driven crystal ([kbe],\n"
    "        [pulse], [output]): kbe.tsv, nk.tsv; `mcf resume DIR` continues a stopped one\n"
    "  mcf kbe-spectrum DIR --at T [--sigma S] [--omega LO:HI] [--points N]\n"
    "        A_k(omega) and its occupied part at the average time T of a kbe run, from its\n"
    "        two-time Green's functions (a Gaussian window); DIR/spectrum-tT.tsv\n"
    "  mcf new-model NAME [--fermion] [--dir DIR]\n"
    "        write the skeleton of a model plugin into DIR (default ./NAME): NAME.c (a\n"
    "        working model against the SDK, to edit), CMakeLists.txt, NAME.ini, README.md\n"
    "  mcf --help | --version\n"
    "\n"
    "--no-plots: no gnuplot at the end (scripts, tests); `mcf plot DIR` draws them later.\n"
    "Plugins are searched in MCF_PLUGIN_PATH (colon separated), then beside libmcf.\n"
    "Threads: [run] threads or OMP_NUM_THREADS; results do not depend on it.\n"
    "A run stopped with Ctrl-C or SIGTERM writes a checkpoint; `mcf resume DIR` finishes it\n"
    "with exactly the results an uninterrupted run would have had.\n"
    "Exit status: 0 done; 2 bad input or usage; 1 any other failure; 128+N stopped by\n"
    "signal N (checkpoint written).\n"
#ifdef MCF_MPI
    "MPI: `mpirun -np P mcf run|resume ...` splits the chains over P ranks (any P, also on\n"
    "resume); the files written are the same as a single process's.\n"
    "`mpirun -np P mcf kbe CONFIG` splits the k points over P ranks (P <= the k points; any\n"
    "P on resume); its files are the same as a single process's, byte for byte.\n"
#endif
    ;

/* The exit status of a command that returned rc.  Under MPI every rank ends with the same
 * agreed status; rank 0 says it.
 *   0    done;
 *   2    bad input or usage (MCF_EINVAL): fix the command line or the input and run again
 *        — an unknown command, option, section, key or plugin name, a value of the wrong
 *        type or range, a path that names nothing (no such file or folder), a folder that
 *        is not an mcf output, a configuration or spins file that is not a regular text
 *        file;
 *   1    anything else: a file that is there but cannot be read or written (a full disk,
 *        permissions; standard output included), a file mcf wrote that is damaged or belongs
 *        to another configuration (a checkpoint, results.tsv), a plugin that cannot be
 *        loaded, out of memory, a device, a model's failure, a bug;
 *   128 + N: stopped by signal N, a checkpoint written (`mcf resume DIR` continues). */
static int report(int rc)
{
    mcf_log_status_clear();
    if (rc && mcfe_mpi_rank() == 0)
        fprintf(stderr, "mcf: %s%s\n", rc == MCF_EINTR ? "" : "error: ", mcf_last_error());
    if (rc == MCF_EINTR)
        return 128 + (mcfe_run_stop_signal() ? mcfe_run_stop_signal() : 2);
    if (rc)
        return rc == MCF_EINVAL ? 2 : 1;
    return 0;
}

static int no_plots; /* the address is the hook's context under --no-plots */

/* The run's results_written hook: the plots of a finished run, named in its log (none with
 * --no-plots: ctx is then &no_plots, and the log says how to draw them).  Without
 * gnuplot a run has no plots (a warning, not a failed run); a plot that was not written
 * (a full disk, gnuplot failing) leaves the run's outputs incomplete: a failed run. */
static int draw_plots(const char *dir, void *ctx)
{
    if (ctx) { /* --no-plots */
        mcf_log(MCF_LOG_INFO, "plots: not drawn (--no-plots; `mcf plot %s` draws them)", dir);
        return MCF_OK;
    }
    int n_plots = 0, no_gnuplot = 0, n_png = 0;
    int rc = mcfi_plot_dir(dir, &n_plots, &no_gnuplot, &n_png);
    if (rc == MCF_OK) {
        mcf_log(MCF_LOG_INFO, "plots: %d SVG files %s/plot-*.svg%s", n_plots, dir,
                n_png ? ", PNG beside them" : "");
    } else if (n_plots == 0 && no_gnuplot) {
        mcf_log(MCF_LOG_WARN, "no plots drawn: %s", mcf_last_error());
        rc = MCF_OK;
    } else {
        rc = mcf_fail_prefix(rc, "the results are written but not all plots (%d written)",
                             n_plots);
    }
    return rc;
}

/* Locks the output folder DIR when it is one (otherwise the command's own message says
 * what is missing): *lock for mcfe_outdir_unlock(), -1 when not taken.  Rank 0's. */
static int lock_folder(const char *dir, int *lock)
{
    struct stat st;
    *lock = -1;
    if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
        return mcfe_outdir_lock(dir, lock);
    return MCF_OK;
}

static int run_config(mcf_config *c, const mcf_run_options *opt)
{
    mcf_setup *s;
    /* a rank that cannot load a plugin (another node) stops every rank, naming itself */
    int local = mcfe_setup_create(c, &s);
    int rc = mcfe_mpi_agree(local);
    if (rc) {
        if (!local)
            mcfe_setup_free(s);
        return rc;
    }
    /* [model] KEY = optimized: the optimization stage first (optimize_first.c) */
    rc = s->optimized_key && !opt->optimize ? mcfi_optimize_first(c, s, opt) : MCF_OK;
    if (!rc)
        rc = mcfe_run_execute(s, opt);
    const char *dir = opt->output ? opt->output : s->output;
    char opt_tsv[4200];
    snprintf(opt_tsv, sizeof opt_tsv, "%s/optimize.tsv", dir);
    struct stat st;
    const int optimized = opt->optimize || stat(opt_tsv, &st) == 0; /* it said where */
    if (!rc && mcfe_mpi_rank() == 0 && !optimized) {
        fprintf(stderr, "mcf: results in %s/results.tsv, %s%s%s, log %s/log\n", dir,
                opt->results_ctx ? "no plots (--no-plots)" : "plots ",
                opt->results_ctx ? "" : dir, opt->results_ctx ? "" : "/plot-*.svg", dir);
    }
    mcfe_setup_free(s);
    return rc;
}

/* What a command printed on standard output (a listing, a description, the plots' count)
 * is its result: output that could not be written (a full disk, a closed descriptor) fails
 * a command that otherwise succeeded, MCF_EIO.  `what` says what stands done all the same. */
static int stdout_written(int rc, const char *what)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return rc;
    int e = errno;
    if (rc)
        return rc;
    return mcf_fail(MCF_EIO, "standard output: could not be written (%s)%s%s",
                    e ? strerror(e) : "write error", what ? "; " : "", what ? what : "");
}

static int cmd_run(int argc, char **argv, int optimize)
{
    const char *path = NULL;
    const char *cmd = optimize ? "optimize" : "run";
    mcf_run_options opt = {.progress = -1, .results_written = draw_plots, .optimize = optimize};
    for (int k = 0; k < argc; k++) {
        if (!strcmp(argv[k], "--force"))
            opt.force = 1;
        else if (!strcmp(argv[k], "--no-progress"))
            opt.progress = 0;
        else if (!strcmp(argv[k], "--no-plots"))
            opt.results_ctx = &no_plots;
        else if (!strcmp(argv[k], "--set") && k + 1 < argc)
            k++;
        else if (!strncmp(argv[k], "--set=", 6))
            ;
        else if (!strcmp(argv[k], "--set"))
            return mcf_fail(MCF_EINVAL, "%s: --set needs section.key=value after it", cmd);
        else if (argv[k][0] == '-')
            return mcf_fail(MCF_EINVAL, "%s: unknown option '%s' (see mcf --help)", cmd, argv[k]);
        else if (!path)
            path = argv[k];
        else
            return mcf_fail(MCF_EINVAL, "%s: one configuration file only ('%s' is extra)",
                            cmd, argv[k]);
    }
    if (!path)
        return mcf_fail(MCF_EINVAL, "%s: missing CONFIG (usage: mcf %s CONFIG [--set "
                        "section.key=value]...)", cmd, cmd);
    mcf_config *c;
    int rc = mcfe_config_read(path, &c);
    for (int k = 0; k < argc && !rc; k++) {
        if (!strcmp(argv[k], "--set") && k + 1 < argc)
            rc = mcfe_config_override(c, argv[++k]);
        else if (!strncmp(argv[k], "--set=", 6))
            rc = mcfe_config_override(c, argv[k] + 6);
    }
    if (!rc && optimize) /* [optimize] walkers: the optimization's own number of walkers */
        rc = mcfi_optimize_walkers(c);
    for (size_t k = 0; !rc && k < c->n; k++)
        if (!strcmp(c->entries[k].section, "tc"))
            rc = mcf_fail(MCF_EINVAL, "%s: a [tc] section: `mcf tc %s` runs it (the scans "
                          "of [tc] sizes and temperatures, then T_c)", path, path);
    rc = mcfe_mpi_agree(rc);
    if (!rc)
        rc = run_config(c, &opt);
    mcfe_config_free(c);
    return rc;
}

static int cmd_resume(int argc, char **argv)
{
    /* options before DIR or after it, as for `run` (an option was taken for DIR) */
    const char *dir = NULL;
    mcf_run_options opt = {.progress = -1, .resume = 1, .results_written = draw_plots,
                           .output_locked = 1};
    for (int k = 0; k < argc; k++) {
        if (!strcmp(argv[k], "--no-progress"))
            opt.progress = 0;
        else if (!strcmp(argv[k], "--no-plots"))
            opt.results_ctx = &no_plots;
        else if (argv[k][0] == '-')
            return mcf_fail(MCF_EINVAL, "resume: unknown option '%s' (see mcf --help)",
                            argv[k]);
        else if (!dir)
            dir = argv[k];
        else
            return mcf_fail(MCF_EINVAL, "resume: one folder only ('%s' is extra)", argv[k]);
    }
    if (!dir)
        return mcf_fail(MCF_EINVAL, "resume: missing DIR (usage: mcf resume DIR)");
    if (mcfi_tc_is_driven(dir)) { /* a run of `mcf tc CONFIG`: its driver continues it */
        opt.output_locked = 0;
        return mcfi_tc_drive(NULL, dir, &opt, 0);
    }
    opt.output = dir;
    /* locked before DIR/config.ini is read: the lock gives a folder whose `run --force` was
       killed before its first checkpoint back to the run it was replacing */
    int lock = -1;
    int rc = mcfe_mpi_agree(mcfe_mpi_rank() == 0 ? lock_folder(dir, &lock) : MCF_OK);
    if (rc)
        return rc;
    /* what the folder is, before its configuration is read (fileio.h): a run resumes, an
       optimization continues, anything else is refused */
    int kind = MCFI_KIND_NONE;
    rc = mcfe_mpi_agree(mcfe_outdir_kind(dir, &kind));
    if (!rc && kind == MCFI_KIND_BAND)
        rc = mcf_fail(MCF_EINVAL, "%s holds a band calculation (%s/kind), which has "
                      "nothing to resume; `mcf band CONFIG --force` computes it again", dir, dir);
    if (!rc && kind == MCFI_KIND_KBE) { /* a kbe run: its own checkpoint (kbe.h), k over the
                                           ranks (kbe_resume.c) */
        mcfe_outdir_unlock(lock);
        return mcfi_kbe_resume(dir);
    }
    if (rc) {
        mcfe_outdir_unlock(lock);
        return mcf_fail_prefix(rc, "resume");
    }
    opt.optimize = kind == MCFI_KIND_OPTIMIZE;
    size_t len = strlen(dir) + sizeof "/config.ini";
    char *path = malloc(len);
    if (!path) {
        mcfe_outdir_unlock(lock);
        return mcf_fail(MCF_ENOMEM, "out of memory");
    }
    snprintf(path, len, "%s/config.ini", dir);
    mcf_config *c;
    rc = mcfe_mpi_agree(mcfe_config_read(path, &c));
    free(path);
    if (rc) {
        if (c)
            mcfe_config_free(c);
        mcfe_outdir_unlock(lock);
        return mcf_fail_prefix(rc, "resume: %s does not look like an mcf output folder", dir);
    }
    rc = run_config(c, &opt);
    mcfe_config_free(c);
    mcfe_outdir_unlock(lock);
    return rc;
}

/* `mcf tc CONFIG [--force] [--no-plots]` (a file: tc_driver.c) or `mcf tc DIR ...` (tc.c) */
static int cmd_tc(int argc, char **argv)
{
    struct stat st;
    if (argc < 1 || stat(argv[0], &st) != 0 || !S_ISREG(st.st_mode))
        return mcfi_tc_command(argc, argv);
    mcf_run_options opt = {.progress = -1, .results_written = draw_plots};
    int force = 0;
    for (int k = 1; k < argc; k++) {
        if (!strcmp(argv[k], "--force"))
            force = 1;
        else if (!strcmp(argv[k], "--no-plots"))
            opt.results_ctx = &no_plots;
        else
            return mcf_fail(MCF_EINVAL, "mcf tc %s: unexpected '%s'; usage: mcf tc CONFIG "
                            "[--force] [--no-plots]", argv[0], argv[k]);
    }
    return mcfi_tc_drive(argv[0], NULL, &opt, force);
}

static void print_plugin(const mcf_plugin *p, void *ctx)
{
    (void)ctx;
    const mcf_plugin_info *in = p->info;
    int priority = MCF_PLUGIN_INFO_HAS(in, auto_priority) ? in->auto_priority : 0;
    printf("%-20s %-18s %s", in->name, mcfe_plugin_kind_name(in->kind),
           in->summary ? in->summary : "");
    if (in->kind != MCF_PLUGIN_MODEL && priority > 0)
        printf(" [auto priority %d]", priority);
    printf("\n");
}

static void print_bad(const char *path, const char *message, void *ctx)
{
    (void)path;
    (void)ctx;
    fprintf(stderr, "mcf: skipped: %s\n", message);
}

static int cmd_plugins(void)
{
    printf("%-20s %-18s %s\n", "NAME", "KIND", "SUMMARY");
    int rc = mcfe_plugin_foreach(print_plugin, print_bad, NULL);
    char *search = mcfe_plugin_search_path();
    fprintf(stderr, "(search path: %s)\n", search ? search : "? (out of memory)");
    free(search);
    return rc;
}

static int cmd_describe(int argc, char **argv)
{
    if (argc < 1)
        return mcf_fail(MCF_EINVAL, "describe: missing NAME (see `mcf plugins`)");
    mcf_plugin *p;
    int rc = mcfe_plugin_open(argv[0], 0, &p);
    if (rc)
        return rc;
    const mcf_plugin_info *in = p->info;
    printf("%s %s (%s plugin, %s)\n  %s\n\n", in->name, in->version ? in->version : "",
           mcfe_plugin_kind_name(in->kind), p->path, in->summary ? in->summary : "");
    if (in->kind != MCF_PLUGIN_MODEL) {
        int priority = MCF_PLUGIN_INFO_HAS(in, auto_priority) ? in->auto_priority : 0;
        if (priority > 0) {
            char why[256] = "";
            int usable = 1;
            if (MCF_PLUGIN_INFO_HAS(in, probe) && in->probe) {
                usable = in->probe(why, sizeof why) == 1;
                why[sizeof why - 1] = '\0';
                why[strcspn(why, "\r\n")] = '\0';
            }
            printf("evaluator = auto: priority %d; %s here%s%s\n\n", priority,
                   usable ? "usable" : "not usable", why[0] ? ": " : "", why);
        } else {
            printf("evaluator = auto: never chosen (priority 0); name it to use it\n\n");
        }
    } else {
        int kind = mcfe_model_evaluator_kind(p);
        if (kind)
            printf("evaluator: a %s (evaluator = auto picks one)\n\n",
                   mcfe_plugin_kind_name(kind));
        else
            printf("evaluator: none (the model takes no evaluator)\n\n");
        int pt = mcfe_model_tempering(p);
        printf("parallel tempering ([schedule] exchange_every): %s\n\n",
               pt == MCF_TEMPERING_ACTION   ? "supported (exchange weight from the model's "
                                              "action at the other temperature)"
               : pt == MCF_TEMPERING_ENERGY ? "supported"
                                            : "not supported");
    }
    const char *section = in->kind == MCF_PLUGIN_MODEL ? "model" : "evaluator";
    printf("parameters ([%s] section):\n", section);
    if (!in->params || !in->params[0].name)
        printf("  (none)\n");
    for (size_t k = 0; in->params && in->params[k].name; k++) {
        const mcf_param_spec *s = &in->params[k];
        char allowed[512];
        mcfe_spec_describe(s, allowed, sizeof allowed);
        printf("  %-16s = %-10s %s\n  %-16s   %-10s %s%s\n", s->name,
               s->default_value ? s->default_value : "(required)", s->doc ? s->doc : "", "",
               "", allowed, (s->flags & MCF_PARAM_NO_SCAN) ? "; not scannable" : "");
    }
    if (in->kind == MCF_PLUGIN_MODEL) {
        const mcf_observable *obs = mcfe_model_observables(p);
        static const char *roles[MCF_ROLE_COUNT] = {
            "", " [energy]", " [order parameter]", " [order parameter squared]",
            " [order parameter^4]", " [dE/dT at fixed configuration]",
            " [dS/dT at fixed configuration]", " [order parameter squared at k_min]"};
        printf("\nobservables:\n");
        for (size_t k = 0; obs[k].name; k++)
            printf("  %-16s %s%s%s\n", obs[k].name, obs[k].doc ? obs[k].doc : "",
                   roles[obs[k].role], (obs[k].flags & MCF_OBS_ON_REQUEST) && !obs[k].axis
                                           ? " [on request: [run] extra_observables]" : "");
    }
    mcfe_plugin_close(p);
    return MCF_OK;
}

static int command(int argc, char **argv);

int main(int argc, char **argv)
{
    mcfe_mpi_init(&argc, &argv);
    int status;
    /* under mpirun only `run`, `resume`, `kbe` and `tc CONFIG` (its scans) are distributed; the
       others (`tc DIR`, the analysis, among them) are rank 0's */
    struct stat st;
    const int distributed = argc >= 2 &&
        (!strcmp(argv[1], "run") || !strcmp(argv[1], "resume") || !strcmp(argv[1], "kbe") ||
         (!strcmp(argv[1], "tc") && argc >= 3 && stat(argv[2], &st) == 0 && S_ISREG(st.st_mode)));
    if (mcfe_mpi_rank() > 0 && !distributed)
        status = 0;
    else
        status = command(argc, argv);
    mcfe_mpi_finalize();
    return status;
}

static int command(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage, stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        fputs(usage, stdout);
        return report(stdout_written(MCF_OK, NULL));
    }
    if (!strcmp(cmd, "--version")) {
        printf("mcf %s (plugin ABI %u)\n", MCF_VERSION_STRING, MCF_ABI_VERSION);
        return report(stdout_written(MCF_OK, NULL));
    }
    if (!strcmp(cmd, "run"))
        return report(cmd_run(argc - 2, argv + 2, 0));
    if (!strcmp(cmd, "optimize"))
        return report(cmd_run(argc - 2, argv + 2, 1));
    if (!strcmp(cmd, "resume"))
        return report(cmd_resume(argc - 2, argv + 2));
    if (!strcmp(cmd, "plugins"))
        return report(stdout_written(cmd_plugins(), NULL));
    if (!strcmp(cmd, "describe"))
        return report(stdout_written(cmd_describe(argc - 2, argv + 2), NULL));
    if (!strcmp(cmd, "plot")) {
        if (argc < 3)
            return report(mcf_fail(MCF_EINVAL, "plot: missing DIR (usage: mcf plot DIR)"));
        int n = 0, n_png = 0, lock;
        int rc = lock_folder(argv[2], &lock);
        if (!rc) {
            mcfe_outdir_clean(argv[2]);
            mcf_log_set_echo_info(1); /* what the plots found: the Binder crossings */
            rc = mcfi_plot_dir(argv[2], &n, NULL, &n_png);
        }
        mcfe_outdir_unlock(lock);
        if (!rc) {
            printf("mcf: %d plots written to %s/plot-*.svg%s\n", n, argv[2],
                   n_png ? " (and .png)" : "");
            rc = stdout_written(rc, "the plots are written");
        }
        return report(rc);
    }
    if (!strcmp(cmd, "dos"))
        return report(stdout_written(mcfi_dos_command(argc - 2, argv + 2),
                                     "the table is written"));
    if (!strcmp(cmd, "response"))
        return report(stdout_written(mcfi_response_command(argc - 2, argv + 2),
                                     "the table is written"));
    if (!strcmp(cmd, "tc"))
        return report(stdout_written(cmd_tc(argc - 2, argv + 2), "the tables are written"));
    if (!strcmp(cmd, "band"))
        return report(stdout_written(mcfi_band_command(argc - 2, argv + 2),
                                     "the tables are written"));
    if (!strcmp(cmd, "kbe"))
        return report(stdout_written(mcfi_kbe_command(argc - 2, argv + 2),
                                     "the tables are written"));
    if (!strcmp(cmd, "kbe-spectrum"))
        return report(stdout_written(mcfi_kbe_spectrum_command(argc - 2, argv + 2),
                                     "the spectrum is written"));
    if (!strcmp(cmd, "new-model"))
        return report(stdout_written(mcfi_new_model_command(argc - 2, argv + 2),
                                     "the files are written"));
    static const char *const cmds[] = {"run",  "resume", "plugins",  "describe", "plot",
                                       "dos",  "band",   "optimize", "new-model", "tc",
                                       "kbe",  "kbe-spectrum", "response"};
    const char *near = mcfe_nearest_word(cmd, cmds, sizeof cmds / sizeof cmds[0]);
    fprintf(stderr, "mcf: unknown command '%s'%s%s%s; see mcf --help\n", cmd,
            near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
    return 2;
}
