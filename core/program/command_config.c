/* command_config.c — the command line, the output folder's name and its claim, shared by
 * `mcf band` and `mcf kbe` (command_config.h). */
#define _POSIX_C_SOURCE 200809L
#include "command_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int mcfi_command_config(const char *cmd, int argc, char **argv, mcf_config **c, int *force)
{
    const char *path = NULL;
    *c = NULL;
    *force = 0;
    for (int k = 0; k < argc; k++) {
        if (!strcmp(argv[k], "--set") && k + 1 < argc)
            k++;
        else if (argv[k][0] == '-' && strcmp(argv[k], "--force") != 0)
            return mcf_fail(MCF_EINVAL, "%s: unknown option '%s' (mcf %s CONFIG [--set "
                            "SECTION.KEY=VALUE ...] [--force])", cmd, argv[k], cmd);
        else if (argv[k][0] != '-' && !path)
            path = argv[k];
        else if (argv[k][0] != '-')
            return mcf_fail(MCF_EINVAL, "%s: one configuration file, not '%s' too", cmd,
                            argv[k]);
    }
    if (!path)
        return mcf_fail(MCF_EINVAL, "%s: no configuration file (mcf %s CONFIG)", cmd, cmd);
    int rc = mcfe_config_read(path, c);
    for (int k = 0; k < argc && !rc; k++) {
        if (!strcmp(argv[k], "--set") && k + 1 < argc)
            rc = mcfe_config_override(*c, argv[++k]);
        else if (!strcmp(argv[k], "--force"))
            *force = 1;
    }
    if (rc && *c) {
        mcfe_config_free(*c);
        *c = NULL;
    }
    return rc;
}

char *mcfi_command_output(const char *config_path, const char *given)
{
    char *out = NULL;
    if (given)
        out = strdup(given);
    else {
        const char *base = strrchr(config_path, '/');
        base = base ? base + 1 : config_path;
        size_t n = strlen(base);
        if (n > 4 && !strcmp(base + n - 4, ".ini"))
            n -= 4;
        if ((out = malloc(n + 5)))
            snprintf(out, n + 5, "%.*s.out", (int)n, base);
    }
    if (!out)
        mcf_fail(MCF_ENOMEM, "out of memory");
    return out;
}

int mcfi_command_claim(const char *cmd, const char *dir, int kind, int force, int *lock)
{
    *lock = -1;
    int rc = mcfe_mkdir_p(dir);
    if (!rc)
        rc = mcfe_outdir_lock(dir, lock);
    if (rc)
        return rc;
    mcfe_outdir_clean(dir);
    /* the folder's kind (fileio.h): a folder of one command is never taken for another's */
    int have = MCFI_KIND_NONE;
    char path[4200];
    struct stat st;
    snprintf(path, sizeof path, "%s/kind", dir);
    if (!force && stat(path, &st) == 0 && !(rc = mcfe_outdir_kind(dir, &have)) && have != kind)
        rc = mcf_fail(MCF_EINVAL, "%s: %s holds an mcf %s already; choose another [run] "
                      "output, or --force replaces it", cmd, dir, mcfe_kind_name(have));
    return rc ? rc : mcfe_outdir_kind_write(dir, kind);
}
