/* plugin.c — finding, loading and checking plugins with libltdl.
 *
 * Search path: MCF_PLUGIN_PATH (colon separated), then the folder mcf/ beside libmcf
 * itself (build tree: build/lib/mcf; install: <prefix>/<libdir>/mcf), then the configured
 * install folder.  A plugin is refused, with a message naming the file, when its entry
 * symbol is missing, its ABI differs, its descriptor is too short, its name differs from
 * its file name, its kind is unknown, a required op is NULL or its parameter declaration
 * is inconsistent. */
#define _GNU_SOURCE
#include "internal.h"

#include <dirent.h>
#include <dlfcn.h>
#include <ltdl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef MCF_INSTALL_PLUGIN_DIR
#define MCF_INSTALL_PLUGIN_DIR "/usr/local/lib/mcf"
#endif

static pthread_once_t ltdl_once = PTHREAD_ONCE_INIT;
static int ltdl_status;

static void ltdl_start(void) { ltdl_status = lt_dlinit(); }

static int ensure_ltdl(void)
{
    pthread_once(&ltdl_once, ltdl_start);
    if (ltdl_status)
        return mcf_fail(MCF_EPLUGIN, "libltdl failed to initialise: %s", lt_dlerror());
    return MCF_OK;
}

const char *mcfi_plugin_kind_name(int kind)
{
    switch (kind) {
    case MCF_PLUGIN_MODEL: return "model";
    case MCF_PLUGIN_FERMION_EVALUATOR: return "fermion-evaluator";
    case MCF_PLUGIN_ORBITAL_EVALUATOR: return "orbital-evaluator";
    default: return "unknown";
    }
}

const char *mcfi_plugin_search_path(void)
{
    static char path[8192];
    size_t used = 0;
    const char *env = getenv("MCF_PLUGIN_PATH");
    path[0] = '\0';
    if (env && env[0])
        used += (size_t)snprintf(path, sizeof path, "%s", env);
    Dl_info info;
    if (dladdr((void *)&mcfi_plugin_search_path, &info) && info.dli_fname) {
        char lib[4096];
        snprintf(lib, sizeof lib, "%s", info.dli_fname);
        char *slash = strrchr(lib, '/');
        if (slash) {
            *slash = '\0';
            if (used < sizeof path)
                used += (size_t)snprintf(path + used, sizeof path - used, "%s%s/mcf",
                                         used ? ":" : "", lib);
        }
    }
    if (used < sizeof path)
        snprintf(path + used, sizeof path - used, "%s%s", used ? ":" : "",
                 MCF_INSTALL_PLUGIN_DIR);
    return path;
}

/* minimum sizes of the first ABI's vtables */
#define MODEL_OPS_MIN_SIZE (offsetof(mcf_model_ops, adapt) + sizeof(void *))

static int check_model_ops(const char *path, const mcf_model_ops *ops)
{
    if (ops->struct_size < MODEL_OPS_MIN_SIZE)
        return mcf_fail(MCF_EPLUGIN, "%s: model ops struct_size %u is smaller than ABI %u's "
                        "%zu bytes; rebuild the plugin against these headers", path,
                        ops->struct_size, MCF_ABI_VERSION, (size_t)MODEL_OPS_MIN_SIZE);
    struct {
        const char *name, *or_else;
        int missing;
    } req[] = {
        {"create", "", !ops->create},   {"destroy", "", !ops->destroy},
        {"units", "", !ops->units},     {"propose", "", !ops->propose},
        {"log_ratio", " and so is batch_log_ratio",
         !ops->log_ratio && !MCF_HAS(mcf_model_ops, ops, batch_log_ratio)},
        {"accept", "", !ops->accept},
        {"measure", " and so is batch_measure",
         !ops->measure && !MCF_HAS(mcf_model_ops, ops, batch_measure)},
        {"save", "", !ops->save},       {"load", "", !ops->load},
    };
    for (size_t k = 0; k < sizeof req / sizeof req[0]; k++)
        if (req[k].missing)
            return mcf_fail(MCF_EPLUGIN, "%s: required model op '%s' is NULL%s", path,
                            req[k].name, req[k].or_else);
    if (ops->move_size == 0)
        return mcf_fail(MCF_EPLUGIN, "%s: model ops move_size is 0", path);
    if (!ops->observables || !ops->observables[0].name)
        return mcf_fail(MCF_EPLUGIN, "%s: the model declares no observables", path);
    int seen[5] = {0};
    for (size_t k = 0; ops->observables[k].name; k++) {
        int r = (int)ops->observables[k].role;
        if (ops->observables[k].axis) {
            if (ops->struct_size < offsetof(mcf_model_ops, curve_points) + sizeof(void *) ||
                !ops->curve_points)
                return mcf_fail(MCF_EPLUGIN, "%s: observable '%s' is a curve but the model "
                                "has no curve_points op", path, ops->observables[k].name);
            if (r)
                return mcf_fail(MCF_EPLUGIN, "%s: curve observable '%s' has a role; roles "
                                "are for scalars", path, ops->observables[k].name);
        }
        if (r < 0 || r > MCF_ROLE_ORDER4)
            return mcf_fail(MCF_EPLUGIN, "%s: observable '%s' has an unknown role %d", path,
                            ops->observables[k].name, r);
        if (r && seen[r]++)
            return mcf_fail(MCF_EPLUGIN, "%s: two observables have role %d (at most one each)",
                            path, r);
        for (size_t j = 0; j < k; j++)
            if (!strcmp(ops->observables[j].name, ops->observables[k].name))
                return mcf_fail(MCF_EPLUGIN, "%s: observable '%s' is declared twice", path,
                                ops->observables[k].name);
    }
    return MCF_OK;
}

int mcfi_model_tempering(const mcf_model_ops *ops)
{
    if (ops->struct_size < offsetof(mcf_model_ops, energy) + sizeof ops->energy ||
        !ops->set_temperature)
        return MCF_TEMPERING_NONE;
    if (MCF_HAS(mcf_model_ops, ops, exchange_action) ||
        MCF_HAS(mcf_model_ops, ops, batch_exchange_action))
        return MCF_TEMPERING_ACTION;
    return ops->energy ? MCF_TEMPERING_ENERGY : MCF_TEMPERING_NONE;
}

/* the first fermion-evaluator ABI ends with occupation; delta_action was appended */
#define FERMION_OPS_MIN_SIZE (offsetof(mcf_fermion_ops, occupation) + sizeof(void *))

static int check_fermion_ops(const char *path, const mcf_fermion_ops *ops)
{
    if (ops->struct_size < FERMION_OPS_MIN_SIZE)
        return mcf_fail(MCF_EPLUGIN, "%s: fermion-evaluator ops struct_size %u is smaller than "
                        "ABI %u's %zu bytes; rebuild the plugin against these headers", path,
                        ops->struct_size, MCF_ABI_VERSION, (size_t)FERMION_OPS_MIN_SIZE);
    struct {
        const char *name;
        int missing;
    } req[] = {
        {"create", !ops->create},         {"destroy", !ops->destroy},
        {"energy_points", !ops->energy_points}, {"energies", !ops->energies},
        {"dos", !ops->dos},               {"ldos", !ops->ldos},
        {"green", !ops->green},           {"occupation", !ops->occupation},
    };
    for (size_t k = 0; k < sizeof req / sizeof req[0]; k++)
        if (req[k].missing)
            return mcf_fail(MCF_EPLUGIN, "%s: required fermion-evaluator op '%s' is NULL",
                            path, req[k].name);
    return MCF_OK;
}

#define ORBITAL_OPS_MIN_SIZE (offsetof(mcf_orbital_ops, vgl) + sizeof(void *))

static int check_orbital_ops(const char *path, const mcf_orbital_ops *ops)
{
    if (ops->struct_size < ORBITAL_OPS_MIN_SIZE)
        return mcf_fail(MCF_EPLUGIN, "%s: orbital-evaluator ops struct_size %u is smaller than "
                        "ABI %u's %zu bytes; rebuild the plugin against these headers", path,
                        ops->struct_size, MCF_ABI_VERSION, (size_t)ORBITAL_OPS_MIN_SIZE);
    struct {
        const char *name;
        int missing;
    } req[] = {
        {"create", !ops->create}, {"destroy", !ops->destroy}, {"orbitals", !ops->orbitals},
        {"values", !ops->values}, {"vgl", !ops->vgl},
    };
    for (size_t k = 0; k < sizeof req / sizeof req[0]; k++)
        if (req[k].missing)
            return mcf_fail(MCF_EPLUGIN, "%s: required orbital-evaluator op '%s' is NULL",
                            path, req[k].name);
    if (ops->struct_size < MCF_ORBITAL_OPS_DET_SIZE)
        return MCF_OK; /* built before the determinant ops: it has none */
    struct {
        const char *name;
        int set;
    } det[] = {
        {"det_create", ops->det_create != NULL}, {"det_destroy", ops->det_destroy != NULL},
        {"det_set", ops->det_set != NULL},       {"det_get", ops->det_get != NULL},
        {"det_trial", ops->det_trial != NULL},   {"det_ratio", ops->det_ratio != NULL},
        {"det_accept", ops->det_accept != NULL}, {"det_refresh", ops->det_refresh != NULL},
        {"det_local", ops->det_local != NULL},
    };
    for (size_t k = 1; k < sizeof det / sizeof det[0]; k++)
        if (det[k].set != det[0].set)
            return mcf_fail(MCF_EPLUGIN, "%s: the optional determinant ops come all or none, "
                            "but '%s' is %s and '%s' is %s", path, det[0].name,
                            det[0].set ? "set" : "NULL", det[k].name,
                            det[k].set ? "set" : "NULL");
    return MCF_OK;
}

static int check_info(const char *path, const mcf_plugin_info *info, int want)
{
    if (!info)
        return mcf_fail(MCF_EPLUGIN, "%s: mcf_plugin_entry() returned NULL", path);
    if (info->abi_version != MCF_ABI_VERSION)
        return mcf_fail(MCF_EPLUGIN, "%s: built for mcf ABI version %u, but this mcf (%s) has "
                        "ABI version %u; rebuild the plugin against these headers", path,
                        info->abi_version, MCF_VERSION_STRING, MCF_ABI_VERSION);
    if (info->struct_size < MCF_PLUGIN_INFO_MIN_SIZE)
        return mcf_fail(MCF_EPLUGIN, "%s: descriptor struct_size %u is smaller than the "
                        "%zu bytes of ABI %u", path, info->struct_size,
                        (size_t)MCF_PLUGIN_INFO_MIN_SIZE, MCF_ABI_VERSION);
    if (!info->name || !info->name[0])
        return mcf_fail(MCF_EPLUGIN, "%s: the descriptor has no name", path);
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t nl = strlen(info->name);
    if (strncmp(base, "mcf-", 4) != 0 || strncmp(base + 4, info->name, nl) != 0 ||
        strcmp(base + 4 + nl, ".so") != 0)
        return mcf_fail(MCF_EPLUGIN, "%s: the plugin calls itself '%s'; its file must be "
                        "named mcf-%s.so", path, info->name, info->name);
    if (info->kind < MCF_PLUGIN_MODEL || info->kind > MCF_PLUGIN_ORBITAL_EVALUATOR)
        return mcf_fail(MCF_EPLUGIN, "%s: unknown plugin kind %d", path, (int)info->kind);
    if (want && (int)info->kind != want)
        return mcf_fail(MCF_EPLUGIN, "%s: '%s' is a %s plugin, not a %s", path, info->name,
                        mcfi_plugin_kind_name(info->kind), mcfi_plugin_kind_name(want));
    if (!info->ops)
        return mcf_fail(MCF_EPLUGIN, "%s: the descriptor has no ops table", path);
    if (info->kind == MCF_PLUGIN_MODEL) {
        int rc = check_model_ops(path, info->ops);
        if (rc)
            return rc;
    }
    if (info->kind == MCF_PLUGIN_FERMION_EVALUATOR) {
        int rc = check_fermion_ops(path, info->ops);
        if (rc)
            return rc;
    }
    if (info->kind == MCF_PLUGIN_ORBITAL_EVALUATOR) {
        int rc = check_orbital_ops(path, info->ops);
        if (rc)
            return rc;
    }
    return mcfi_specs_check(info->params, path);
}

/* Why path could not be loaded.  libltdl answers "file not found" for a file that is there
 * but is no shared library (after the loader refused it, it looked for other names); the
 * system loader's own message says what is wrong ("invalid ELF header", a missing library,
 * an undefined symbol). */
static int not_loadable(const char *path)
{
    const char *lt = lt_dlerror();
    char why[1024];
    snprintf(why, sizeof why, "%s", lt ? lt : "unknown error");
    dlerror();
    void *h = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
    const char *sys = h ? NULL : dlerror();
    if (h)
        dlclose(h);
    else if (sys) {
        size_t pl = strlen(path); /* dlerror() starts with the path, said already */
        if (!strncmp(sys, path, pl) && !strncmp(sys + pl, ": ", 2))
            sys += pl + 2;
        snprintf(why, sizeof why, "%s", sys);
    }
    return mcf_fail(MCF_EPLUGIN, "%s: is not a loadable plugin: %s", path, why);
}

int mcfi_plugin_open_file(const char *path, int want, mcf_plugin **out)
{
    *out = NULL;
    int rc = ensure_ltdl();
    if (rc)
        return rc;
    lt_dlhandle h = lt_dlopen(path);
    if (!h)
        return not_loadable(path);
    void *sym = lt_dlsym(h, MCF_PLUGIN_ENTRY_SYMBOL);
    if (!sym) {
        lt_dlclose(h);
        return mcf_fail(MCF_EPLUGIN, "%s: has no entry function '%s' (define it with "
                        "MCF_PLUGIN(info) from mcf/plugin.h)", path, MCF_PLUGIN_ENTRY_SYMBOL);
    }
    const mcf_plugin_info *(*entry)(void);
    memcpy(&entry, &sym, sizeof entry);
    const mcf_plugin_info *info = entry();
    rc = check_info(path, info, want);
    if (rc) {
        lt_dlclose(h);
        return rc;
    }
    mcf_plugin *p = calloc(1, sizeof *p);
    if (!p || !(p->path = strdup(path))) {
        free(p);
        lt_dlclose(h);
        return mcf_fail(MCF_ENOMEM, "out of memory");
    }
    p->handle = h;
    p->info = info;
    *out = p;
    return MCF_OK;
}

void mcfi_plugin_close(mcf_plugin *p)
{
    if (!p)
        return;
    if (p->handle)
        lt_dlclose((lt_dlhandle)p->handle);
    free(p->path);
    free(p);
}

typedef struct name_list {
    char names[256][128];
    size_t n;
} name_list;

static void collect_name(const mcf_plugin *p, void *ctx)
{
    name_list *l = ctx;
    if (l->n < 256)
        snprintf(l->names[l->n++], sizeof l->names[0], "%s", p->info->name);
}

int mcfi_plugin_open(const char *name, int want, mcf_plugin **out)
{
    *out = NULL;
    if (!name || !name[0] || strchr(name, '/'))
        return mcf_fail(MCF_EINVAL, "'%s' is not a plugin name", name ? name : "");
    char path[8192];
    snprintf(path, sizeof path, "%s", mcfi_plugin_search_path());
    for (char *save = NULL, *dir = strtok_r(path, ":", &save); dir;
         dir = strtok_r(NULL, ":", &save)) {
        char file[8192];
        snprintf(file, sizeof file, "%s/mcf-%s.so", dir, name);
        if (access(file, F_OK) == 0)
            return mcfi_plugin_open_file(file, want, out);
    }
    name_list *l = calloc(1, sizeof *l);
    if (!l)
        return mcf_fail(MCF_ENOMEM, "out of memory");
    mcfi_plugin_foreach(collect_name, NULL, l);
    const char *cands[256];
    char all[4096] = "";
    size_t used = 0;
    for (size_t k = 0; k < l->n; k++) {
        cands[k] = l->names[k];
        if (used < sizeof all)
            used += (size_t)snprintf(all + used, sizeof all - used, "%s%s", k ? ", " : "",
                                     l->names[k]);
    }
    const char *near = mcfi_nearest_word(name, cands, l->n);
    int rc = mcf_fail(MCF_EPLUGIN, "no plugin named '%s' (looked for mcf-%s.so in %s)%s%s%s; "
                      "available: %s; add folders with MCF_PLUGIN_PATH",
                      name, name, mcfi_plugin_search_path(), near ? "; did you mean '" : "",
                      near ? near : "", near ? "'?" : "", l->n ? all : "none");
    free(l);
    return rc;
}

int mcfi_plugin_foreach(void (*fn)(const mcf_plugin *p, void *ctx),
                        void (*bad)(const char *path, const char *message, void *ctx),
                        void *ctx)
{
    char path[8192];
    char seen[256][128];
    size_t n_seen = 0;
    snprintf(path, sizeof path, "%s", mcfi_plugin_search_path());
    for (char *save = NULL, *dir = strtok_r(path, ":", &save); dir;
         dir = strtok_r(NULL, ":", &save)) {
        struct dirent **list = NULL;
        int n = scandir(dir, &list, NULL, alphasort);
        for (int k = 0; k < n; k++) {
            const char *f = list[k]->d_name;
            size_t len = strlen(f);
            if (strncmp(f, "mcf-", 4) == 0 && len > 7 && strcmp(f + len - 3, ".so") == 0) {
                char name[128];
                snprintf(name, sizeof name, "%.*s", (int)(len - 7), f + 4);
                int dup = 0;
                for (size_t j = 0; j < n_seen; j++)
                    dup |= !strcmp(seen[j], name);
                if (!dup) {
                    char file[8192];
                    mcf_plugin *p;
                    snprintf(file, sizeof file, "%s/%s", dir, f);
                    if (mcfi_plugin_open_file(file, 0, &p) == MCF_OK) {
                        if (n_seen < 256)
                            snprintf(seen[n_seen++], sizeof seen[0], "%s", name);
                        fn(p, ctx);
                        mcfi_plugin_close(p);
                    } else if (bad) {
                        bad(file, mcf_last_error(), ctx);
                    }
                }
            }
            free(list[k]);
        }
        free(list);
    }
    return MCF_OK;
}
