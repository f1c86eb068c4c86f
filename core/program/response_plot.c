/* response_plot.c — the plot of `mcf response` (dos.h): DIR/plot-resistivity, 1/sigma_xx
 * (Kubo-Bastin, jackknife errors) against the temperature of a T scan, one curve per mu,
 * with the program's plot module (plot.h).  The rows go into the script as one datablock
 * per mu. */
#define _POSIX_C_SOURCE 200809L
#include "dos.h"

#include "mcf/error.h"
#include "mcf/log.h"
#include "plot.h"
#include "plot_internal.h"

#include <stdio.h>

typedef struct rp_ctx {
    const mcfi_resp_plot_row *rows;
    size_t n, n_mu;
    const double *mus;
} rp_ctx;

void mcfi_response_plot_terminal(FILE *g, const char *out, int png)
{
    if (png)
        fputs("set terminal pngcairo size 1600,960 enhanced font 'sans,12' fontscale 2 "
              "linewidth 2 background '#ffffff'\n", g);
    else
        fputs("set terminal svg size 800,480 dynamic enhanced font 'sans,12' background "
              "'#ffffff'\n", g);
    fputs("set output ", g);
    plot_put_string(g, out);
    fputc('\n', g);
}

static void rp_write(FILE *g, const void *ctx, const char *svg, const char *png)
{
    const rp_ctx *c = ctx;
    for (size_t k = 0; k < c->n_mu; k++) {
        fprintf(g, "$d%zu << EOD\n", k);
        for (size_t i = 0; i < c->n; i++)
            if (c->rows[i].k == k)
                fprintf(g, "%.17g %.17g %.17g\n", c->rows[i].T, c->rows[i].v, c->rows[i].e);
        fputs("EOD\n", g);
    }
    for (int t = 0; t < 1 + (png != NULL); t++) {
        mcfi_response_plot_terminal(g, t ? png : svg, t);
        fputs("set grid\nset key top left\nset xlabel 'T'\n"
              "set ylabel '1/{/Symbol s}_{xx}  (= {/Symbol r}_{xx} where {/Symbol s}_{xy} "
              "<< {/Symbol s}_{xx})'\nset title 'Kubo-Bastin, jackknife errors (mcf "
              "response)'\nplot ", g);
        for (size_t k = 0; k < c->n_mu; k++)
            fprintf(g, "%s$d%zu using 1:2:3 with yerrorlines title '{/Symbol m} = %g'",
                    k ? ", " : "", k, c->mus[k]);
        fputc('\n', g);
    }
    fputs("unset output\n", g);
}

int mcfi_response_plot(const char *dir, const mcfi_resp_plot_row *rows, size_t n,
                       const double *mus, size_t n_mu)
{
    const rp_ctx c = {rows, n, n_mu, mus};
    int no_gnuplot = 0;
    const int rc = mcfi_plot_script(dir, "resistivity", rp_write, &c, &no_gnuplot);
    if (rc)
        mcf_log(MCF_LOG_WARN, "%s: no plot-resistivity: %s", dir, mcf_last_error());
    else
        printf("mcf: %s/plot-resistivity.svg\n", dir);
    return rc;
}
