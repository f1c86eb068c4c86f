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
#include "labels.h"
#include "model_ops.h"

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

const char *mcfe_plugin_kind_name(int kind)
{
    switch (kind) {
    case MCF_PLUGIN_MODEL: return "model";
    case MCF_PLUGIN_FERMION_EVALUATOR: return "fermion-evaluator";
    case MCF_PLUGIN_ORBITAL_EVALUATOR: return "orbital-evaluator";
    case MCF_PLUGIN_BAND_EVALUATOR: return "band-evaluator";
    case MCF_PLUGIN_DYNAMICS_EVALUATOR: return "dynamics-evaluator";
    default: return "unknown";
    }
}

char *mcfe_plugin_search_path(void)
{
    /* allocated: MCF_PLUGIN_PATH may be of any length, and a folder cut from its end would
       hide the plugins in it */
    mcf_text t = {0};
    const char *env = getenv("MCF_PLUGIN_PATH");
    if (env && env[0])
        mcfe_text_printf(&t, "%s", env);
    const char *lib = mcf_library_path();
    if (lib) {
        const char *slash = strrchr(lib, '/');
        if (slash)
            mcfe_text_printf(&t, "%s%.*s/mcf", t.len ? ":" : "", (int)(slash - lib), lib);
    }
    mcfe_text_printf(&t, "%s%s", t.len ? ":" : "", MCF_INSTALL_PLUGIN_DIR);
    if (t.failed) {
        free(t.s);
        return NULL;
    }
    return t.s;
}

/* dir + "/" + name, allocated (NULL: out of memory). */
static char *join_path(const char *dir, const char *name)
{
    mcf_text t = {0};
    mcfe_text_printf(&t, "%s/%s", dir, name);
    if (t.failed) {
        free(t.s);
        return NULL;
    }
    return t.s;
}

/* "<major>.<minor>.<patch>" of a version number (MCF_VERSION_NUMBER) */
static const char *version_text(uint32_t v, char *out, size_t n)
{
    snprintf(out, n, "%u.%u.%u", v / 10000u, v / 100u % 100u, v % 100u);
    return out;
}

static int check_info(const char *path, const mcf_plugin_info *info, int want)
{
    if (!info)
        return mcf_fail(MCF_EPLUGIN, "%s: mcf_plugin_entry() returned NULL", path);
    /* ABI 2 is this mcf's; ABI 1 (mcf 0.1-0.8) runs through the adapters (docs/sdk-1.md) */
    const int abi2 = info->abi_version == MCF_ABI_VERSION;
    if (!abi2 && info->abi_version != 1)
        return mcf_fail(MCF_EPLUGIN, "%s: built for mcf ABI version %u, but this mcf (%s) has "
                        "ABI version %u (and runs plugins of ABI 1); rebuild the plugin "
                        "against these headers", path, info->abi_version, MCF_VERSION_STRING,
                        MCF_ABI_VERSION);
    if (info->struct_size < MCF_PLUGIN_INFO_MIN_SIZE)
        return mcf_fail(MCF_EPLUGIN, "%s: descriptor struct_size %u is smaller than the "
                        "%zu bytes of ABI 1", path, info->struct_size,
                        (size_t)MCF_PLUGIN_INFO_MIN_SIZE);
    if (!info->name || !info->name[0])
        return mcf_fail(MCF_EPLUGIN, "%s: the descriptor has no name", path);
    const uint32_t v = MCF_PLUGIN_INFO_HAS(info, min_mcf_version) ? info->min_mcf_version : 0;
    char vt[32];
    if (v > MCF_VERSION)
        return mcf_fail(MCF_EPLUGIN, "%s: plugin '%s' needs mcf %s or newer; this is mcf %s",
                        path, info->name, version_text(v, vt, sizeof vt), MCF_VERSION_STRING);
    /* ABI 2 was built in mcf 0.6-0.8 beside ABI 1 and frozen at the flip, 1.0.0: a plugin
     * built against those headers has the same abi_version but tables that may differ; its
     * descriptor is shorter (no built_with) */
    const uint32_t built = MCF_PLUGIN_INFO_HAS(info, built_with) ? info->built_with : 0;
    if (abi2 && built < MCF_VERSION_NUMBER(1, 0, 0))
        return mcf_fail(MCF_EPLUGIN, "%s: plugin '%s' was built against the ABI 2 of mcf %s, "
                        "before ABI 2 was frozen in 1.0.0; rebuild it against these headers",
                        path, info->name,
                        built ? version_text(built, vt, sizeof vt) : "0.6-0.8");
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t nl = strlen(info->name);
    if (strncmp(base, "mcf-", 4) != 0 || strncmp(base + 4, info->name, nl) != 0 ||
        strcmp(base + 4 + nl, ".so") != 0)
        return mcf_fail(MCF_EPLUGIN, "%s: the plugin calls itself '%s'; its file must be "
                        "named mcf-%s.so", path, info->name, info->name);
    if (info->kind < MCF_PLUGIN_MODEL || info->kind > MCF_PLUGIN_DYNAMICS_EVALUATOR)
        return mcf_fail(MCF_EPLUGIN, "%s: unknown plugin kind %d", path, (int)info->kind);
    if (want && (int)info->kind != want)
        return mcf_fail(MCF_EINVAL, "%s: '%s' is a %s plugin, not a %s", path, info->name,
                        mcfe_plugin_kind_name(info->kind), mcfe_plugin_kind_name(want));
    if (!info->ops)
        return mcf_fail(MCF_EPLUGIN, "%s: the descriptor has no ops table", path);
    return mcfi_plugin_check_table(path, info->kind, abi2, info->ops);
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
    void *converted = NULL;
    rc = check_info(path, info, want);
    if (!rc)
        rc = mcfi_plugin_convert_specs(info, &info, &converted);
    if (!rc)
        rc = mcfi_specs_check(info->params, path);
    mcfi_model *model = NULL;
    if (!rc && info->kind == MCF_PLUGIN_MODEL)
        rc = mcfi_model_open(path, info, &model); /* checks its table, whatever the ABI */
    if (!rc && model && (rc = mcfi_labels_check(path, model->observables, model->labels,
                                                info->params))) {
        mcfi_model_close(model);
        model = NULL;
    }
    if (rc) {
        free(converted);
        lt_dlclose(h);
        return rc;
    }
    mcf_plugin *p = calloc(1, sizeof *p);
    if (!p || !(p->path = strdup(path))) {
        free(p);
        free(converted);
        mcfi_model_close(model);
        lt_dlclose(h);
        return mcf_fail(MCF_ENOMEM, "out of memory");
    }
    p->handle = h;
    p->info = info;
    p->model = model;
    p->converted = converted;
    *out = p;
    return MCF_OK;
}

void mcfe_plugin_close(mcf_plugin *p)
{
    if (!p)
        return;
    mcfi_model_close(p->model);
    if (p->handle)
        lt_dlclose((lt_dlhandle)p->handle);
    free(p->path);
    free(p->converted);
    free(p);
}

/* Plugin names, as many and as long as there are: a fixed table would drop names beyond
 * its size, or merge two long names that differ only after its width. */
typedef struct name_list {
    char **names;
    size_t n, cap;
    int failed; /* out of memory: a name is missing */
} name_list;

static void name_list_add(name_list *l, const char *name, size_t len)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        char **names = realloc(l->names, cap * sizeof *names);
        if (!names) {
            l->failed = 1;
            return;
        }
        l->names = names;
        l->cap = cap;
    }
    char *copy = strndup(name, len);
    if (!copy)
        l->failed = 1;
    else
        l->names[l->n++] = copy;
}

static int name_list_has(const name_list *l, const char *name, size_t len)
{
    for (size_t k = 0; k < l->n; k++)
        if (!strncmp(l->names[k], name, len) && l->names[k][len] == '\0')
            return 1;
    return 0;
}

static void name_list_free(name_list *l)
{
    for (size_t k = 0; k < l->n; k++)
        free(l->names[k]);
    free(l->names);
}

static void collect_name(const mcf_plugin *p, void *ctx)
{
    name_list *l = ctx;
    name_list_add(l, p->info->name, strlen(p->info->name));
}

/* The messages' lists stay short: an error message is cut at 4 KiB (mcf/error.h), and a
 * list cut there would lose the advice after it.  Longer ones are abbreviated, saying so. */
#define LIST_SHOWN 1024

/* The plugins available, for the message of a name that is not found: "a, b, c" or
 * "a, b, ... and N more (`mcf plugins` lists them)". */
static void list_available(mcf_text *t, const name_list *l)
{
    size_t shown = 0;
    for (size_t k = 0; k < l->n; k++) {
        if (t->len > LIST_SHOWN)
            break;
        mcfe_text_printf(t, "%s%s", k ? ", " : "", l->names[k]);
        shown++;
    }
    if (!l->n)
        mcfe_text_printf(t, "none");
    else if (shown < l->n)
        mcfe_text_printf(t, " and %zu more (`mcf plugins` lists them)", l->n - shown);
}

/* The message of a plugin name that no folder of the search path holds. */
static int not_found(const char *name, const char *search)
{
    name_list l = {0};
    mcfe_plugin_foreach(collect_name, NULL, &l);
    const char *near = l.failed ? NULL
                       : mcfe_nearest_word(name, (const char *const *)l.names, l.n);
    mcf_text where = {0}, available = {0};
    if (strlen(search) <= LIST_SHOWN)
        mcfe_text_printf(&where, "%s", search);
    else
        mcfe_text_printf(&where, "the %zu bytes of MCF_PLUGIN_PATH and the folders after it; "
                         "`mcf plugins` prints them", strlen(search));
    list_available(&available, &l);
    int rc = where.failed || available.failed || l.failed
                 ? mcf_fail(MCF_ENOMEM, "out of memory")
                 : mcf_fail(MCF_EINVAL, "no plugin named '%s' (looked for mcf-%s.so in %s)%s%s%s; "
                            "available: %s; add folders with MCF_PLUGIN_PATH", name, name,
                            where.s, near ? "; did you mean '" : "", near ? near : "",
                            near ? "'?" : "", available.s);
    free(where.s);
    free(available.s);
    name_list_free(&l);
    return rc;
}

int mcfe_plugin_open(const char *name, int want, mcf_plugin **out)
{
    *out = NULL;
    if (!name || !name[0] || strchr(name, '/'))
        return mcf_fail(MCF_EINVAL, "'%s' is not a plugin name", name ? name : "");
    char *search = mcfe_plugin_search_path(), *path = search ? strdup(search) : NULL;
    int rc = MCF_OK, found = 0;
    for (char *save = NULL, *dir = path ? strtok_r(path, ":", &save) : NULL; dir && !found;
         dir = strtok_r(NULL, ":", &save)) {
        mcf_text file = {0};
        mcfe_text_printf(&file, "%s/mcf-%s.so", dir, name);
        if (file.failed)
            rc = mcf_fail(MCF_ENOMEM, "out of memory");
        else if (access(file.s, F_OK) == 0) {
            found = 1;
            rc = mcfi_plugin_open_file(file.s, want, out);
        }
        free(file.s);
        if (rc)
            break;
    }
    if (!path)
        rc = mcf_fail(MCF_ENOMEM, "out of memory");
    else if (!found && !rc)
        rc = not_found(name, search);
    free(path);
    free(search);
    return rc;
}

/* The plugins of one folder of the search path, in name order; names in `seen` (found in
 * an earlier folder) are skipped, the others added to it. */
static void foreach_in(const char *dir, name_list *seen,
                       void (*fn)(const mcf_plugin *p, void *ctx),
                       void (*bad)(const char *path, const char *message, void *ctx),
                       void *ctx)
{
    struct dirent **list = NULL;
    int n = scandir(dir, &list, NULL, alphasort);
    for (int k = 0; k < n; k++) {
        const char *f = list[k]->d_name;
        size_t len = strlen(f);
        if (strncmp(f, "mcf-", 4) == 0 && len > 7 && strcmp(f + len - 3, ".so") == 0 &&
            !name_list_has(seen, f + 4, len - 7)) {
            char *file = join_path(dir, f);
            mcf_plugin *p;
            if (!file) {
                seen->failed = 1;
            } else if (mcfi_plugin_open_file(file, 0, &p) == MCF_OK) {
                name_list_add(seen, f + 4, len - 7);
                fn(p, ctx);
                mcfe_plugin_close(p);
            } else if (bad) {
                bad(file, mcf_last_error(), ctx);
            }
            free(file);
        }
        free(list[k]);
    }
    free(list);
}

int mcfe_plugin_foreach(void (*fn)(const mcf_plugin *p, void *ctx),
                        void (*bad)(const char *path, const char *message, void *ctx),
                        void *ctx)
{
    char *path = mcfe_plugin_search_path();
    if (!path)
        return mcf_fail(MCF_ENOMEM, "out of memory");
    name_list seen = {0};
    for (char *save = NULL, *dir = strtok_r(path, ":", &save); dir;
         dir = strtok_r(NULL, ":", &save))
        foreach_in(dir, &seen, fn, bad, ctx);
    int failed = seen.failed;
    name_list_free(&seen);
    free(path);
    return failed ? mcf_fail(MCF_ENOMEM, "out of memory listing the plugins") : MCF_OK;
}
