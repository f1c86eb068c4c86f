/* dos.h — `mcf dos DIR`: densities reconstructed from the Chebyshev moments a run stored in
 * DIR/results.h5, with another kernel or energy grid, and a jackknife error band (dos.c:
 * the command, the jackknife and the table; dos_h5.c: reading results.h5).  The program's,
 * not libmcf's.  The kernel and Chebyshev mathematics stay in the evaluator: the command
 * loads the run's evaluator plugin and calls its reconstruct() op (mcf/fermion.h). */
#ifndef MCF_DOS_H
#define MCF_DOS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One curve observable of results.h5 (/observables/NAME): rows in chain order. */
typedef struct mcfi_dos_curve {
    char *name;       /* the observable's name */
    size_t rows;
    int64_t *chain;   /* rows: the chain of each row */
    double *bins;     /* rows x bins: the bin means (NULL when not read) */
} mcfi_dos_curve;

/* What `mcf dos` reads of results.h5.  Owned: mcfi_dos_input_free(). */
typedef struct mcfi_dos_input {
    char *evaluator;          /* the root attribute */
    size_t chains, bins, walkers, points;
    int64_t *point;           /* chains: the scan point of each chain */
    double *weights;          /* chains x bins: measurements per bin */
    size_t n_scan;
    char **scan_names;        /* the scan columns */
    char **scan_values;       /* n_scan x points: each value as text */
    size_t n_moments;
    mcfi_dos_curve *moments;  /* the curves marked chebyshev_moments, in file order */
    mcfi_dos_curve *density;  /* per moments curve: the curve NAME without _moments, or
                                 rows = 0 when there is none (chain only) */
    mcfi_dos_curve scale;     /* the curve marked moment_scale (rows = 0: none) */
    size_t n_geometric;
    char **geometric;         /* curves measured as geometric means (not reconstructible) */
    size_t n_response;
    mcfi_dos_curve *response; /* the curves marked response_moments (mcf response) */
    size_t n_spectral;
    mcfi_dos_curve *spectral; /* the curves marked spectral_moments (mcf response) */
} mcfi_dos_input;

/* What the run's configuration allows: results.h5 must hold exactly this many scan
 * points, walkers and bins. */
typedef struct mcfi_dos_shape {
    size_t points, walkers, bins;
} mcfi_dos_shape;

/* Reads path into *in (zeroed first): read whole through the bounded opener and its digest
 * checked before HDF5 parses it (mcfe_results_h5_load), in a child process (below), every
 * extent checked against `want` or the file's size before anything is allocated for it.  Errors name path and the
 * object: MCF_EINVAL when the file is not there, MCF_EIO when it is not a regular file or
 * cannot be read, MCF_EFORMAT for a file without mcf's digest, a damaged one or one of
 * another run (a missing dataset, a shape that does not fit, a value that is no count) or
 * one on which HDF5 crashed or hung, MCF_ENOMEM.  In a build without HDF5: MCF_EIO saying
 * so. */
int mcfi_dos_read(const char *path, const mcfi_dos_shape *want, mcfi_dos_input *in);

/* Runs fn on the output folder dir with its lock held (mcfe_outdir_lock, as `mcf plot`) and
 * the run's setup from dir/config.ini; path (len bytes) is scratch for file names.  `what`
 * prefixes the messages ("dos", "response"). */
struct mcf_setup;
typedef int (*mcfi_folder_fn)(const struct mcf_setup *s, void *ctx, char *path, size_t len);
int mcfi_with_run_folder(const char *dir, const char *what, mcfi_folder_fn fn, void *ctx);

/* `mcf response DIR ...` (response.c): conductivities from the response moments of
 * DIR/results.h5 with jackknife errors, into DIR/response-KERNEL.tsv. */
int mcfi_response_command(int argc, char **argv);

/* What `mcf response` passes to its spectral part (response_spectral.c). */
typedef struct mcfi_spectral_args {
    const char *dir, *kernel;
    double T;
    int T_given;            /* --T; else each scan point's T (0 without one) */
    const double *mu;       /* --mu (n_mu of them); n_mu = 0: the scan point's mu, else the
                               model's */
    size_t n_mu;
    const double *E;        /* --energies (n_E); n_E = 0: 201 across the scaling's interval */
    size_t n_E;
    size_t moments;         /* --moments: the first M of the stored; 0: all */
} mcfi_spectral_args;

/* The tables' label: the kernel's name (':' and '/' as '_'), with "-M<moments>" when
 * --moments is given, into label (n bytes). */
void mcfi_response_label(const char *kernel, size_t moments, char *label, size_t n);

/* A(k, E) and n(k) with jackknife errors from in's spectral curves (in->n_spectral > 0) into
 * DIR/spectral-KERNEL.tsv and DIR/momentum-KERNEL.tsv (and plot-momentum); model_mu_text:
 * the configuration's [model] mu, or NULL (0).  path names results.h5 in messages; out (len
 * bytes) is scratch for file names.  Errors: MCF_EFORMAT for curves that do not hold what
 * mcf/response.h lays out, MCF_EINVAL for moments whose scaling or path changed between
 * measurements, MCF_ENOMEM, I/O errors of the tables. */
int mcfi_response_spectral(const mcfi_spectral_args *args, const mcfi_dos_input *in,
                           const char *model_mu_text, const char *path, char *out, size_t len);

/* One point of the resistivity plot of `mcf response` (response_plot.c): 1/sigma_xx at
 * temperature T and chemical potential mu (index k of the command's list), its error. */
typedef struct mcfi_resp_plot_row {
    double T, v, e;
    size_t k;
} mcfi_resp_plot_row;
/* DIR/plot-resistivity.svg (and .png): 1/sigma_xx against T with error bars, one curve per
 * mu (mus[k], n_mu of them), from the rows in scan order.  A failure is a warning (the
 * table is written already); MCF_OK or the error. */
int mcfi_response_plot(const char *dir, const mcfi_resp_plot_row *rows, size_t n,
                       const double *mus, size_t n_mu);
/* The terminal lines of `mcf response`'s plots: SVG 800 x 480, or PNG (png != 0) at twice
 * that, into the file out. */
void mcfi_response_plot_terminal(FILE *g, const char *out, int png);

/* The bins of scan point p's walkers (chains [p R, p R + R)) for curve cv of M rows each:
 * the sums (mean x weight) of its rows into s[j M + m] and the weights into w[j], non-empty
 * bins only; *nb bins.  MCF_EFORMAT naming path when a walker's curve has not M rows. */
int mcfi_dos_point_bins(const mcfi_dos_input *in, const mcfi_dos_curve *cv, size_t c0,
                        size_t M, double *s, double *w, size_t *nb, const char *path);
void mcfi_dos_input_free(mcfi_dos_input *in);

/* mcfi_dos_read parses the checked image in a child process (dos_sandbox.c): libhdf5 1.10
 * crashes and spins on damaged files, and a file crafted to match its digest reaches it.
 * The child has a CPU-time limit (and, outside sanitizer builds, an address-space limit);
 * its crash, hang or death is the file's refusal (MCF_EFORMAT naming it), not mcf's.  0
 * parses in this process instead (the fuzz target, whose files only HDF5 itself wrote). */
void mcfi_dos_parse_in_child(int on);
/* What the child runs: the image (size bytes, its digest checked) of path into *in, as
 * mcfi_dos_read describes. */
int mcfi_dos_parse(const char *path, const unsigned char *image, size_t size,
                   const mcfi_dos_shape *want, mcfi_dos_input *in);

/* The command: argv after "dos".  MCF_EINVAL for usage and bad input (exit status 2),
 * others for I/O and damaged files (1). */
int mcfi_dos_command(int argc, char **argv);

/* The command after the run's configuration: s is the setup of DIR/config.ini, made by the
 * caller (mcfe_config_read, mcfe_setup_create) and kept; argv as above; no lock is taken.
 * For tests/fuzz/fuzz_results_h5.c, whose configuration is fixed: it sets it up once, not
 * for every input. */
struct mcf_setup;
int mcfi_dos_command_set_up(const struct mcf_setup *s, int argc, char **argv);

#endif
