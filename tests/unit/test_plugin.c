/* test_plugin.c — plugin loading: a good plugin loads; a wrong ABI, a missing entry
 * symbol, a NULL required op (of a model and of a fermion evaluator) and a misnamed file are
 * each refused with a message that names the file and the problem; a name no folder holds
 * and a plugin of the wrong kind are bad input (MCF_EINVAL).  Nothing about the search is
 * cut short: an MCF_PLUGIN_PATH over 8 KiB, hundreds of plugins, names over 128 characters.
 * A model's labels (mcf_model_ops.labels) are checked: each names something of the model,
 * once, in short UTF-8 without control characters; a model built before the field has none.
 * An ABI-2 plugin built before ABI 2 was frozen (min_mcf_version older than 1.0.0, or none)
 * is refused, saying to rebuild it.  Uses the test plugins in MCF_PLUGIN_PATH and scratch
 * folders in MCF_TEST_TMP.  The labels are checked on ABI-1 tables through the core's
 * adapter: the file is built against ABI 1's private headers (core/sdk/abi1;
 * tests/unit/CMakeLists.txt). */
#define _POSIX_C_SOURCE 200809L
#include "mcf/abi1_model.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "internal.h"
#include "labels.h"
#include "model_ops.h"

static int contains(const char *s, const char *part) { return strstr(s, part) != NULL; }

/* Copies file from to file to (a copy, not a link: see mcf-tself.so). */
static int copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
    char buf[65536];
    size_t n;
    int ok = in && out;
    while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0)
        ok = fwrite(buf, 1, n, out) == n;
    if (in)
        fclose(in);
    if (out && fclose(out) != 0)
        ok = 0;
    return ok ? 0 : -1;
}

/* name -> times seen, for the plugins that mcfe_plugin_foreach lists */
typedef struct listing {
    char *names[512];
    int times[512];
    size_t n;
} listing;

static void count_plugin(const mcf_plugin *p, void *ctx)
{
    listing *l = ctx;
    for (size_t k = 0; k < l->n; k++)
        if (!strcmp(l->names[k], p->info->name)) {
            l->times[k]++;
            return;
        }
    if (l->n < 512) {
        l->names[l->n] = strdup(p->info->name);
        l->times[l->n++] = 1;
    }
}

static int times_listed(const listing *l, const char *name)
{
    for (size_t k = 0; k < l->n; k++)
        if (!strcmp(l->names[k], name))
            return l->times[k];
    return 0;
}

/* MCF_PLUGIN_PATH of 9000 bytes before the test plugins' folder: the folder is searched (it
 * was cut off at 8 KiB, and tgood not found). */
static void long_search_path(const char *plugins)
{
    static const char junk[] = "/nonexistent-folder-of-mcf-test-plugin:";
    size_t len = 9000 + sizeof junk + strlen(plugins);
    char *env = malloc(len);
    if (!env)
        return;
    env[0] = '\0';
    while (strlen(env) < 9000)
        strcat(env, junk);
    strcat(env, plugins);
    setenv("MCF_PLUGIN_PATH", env, 1);
    char *search = mcfe_plugin_search_path();
    CHECK(search && contains(search, env), "the search path holds all of MCF_PLUGIN_PATH");
    free(search);
    mcf_plugin *p;
    int rc = mcfe_plugin_open("tgood", MCF_PLUGIN_MODEL, &p);
    CHECK(rc == MCF_OK, "tgood after 9000 bytes of MCF_PLUGIN_PATH: %s", mcf_last_error());
    if (!rc)
        mcfe_plugin_close(p);
    rc = mcfe_plugin_open("tgoood", 0, &p);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "did you mean 'tgood'") &&
              contains(mcf_last_error(), "bytes of MCF_PLUGIN_PATH"),
          "not found, long path: the message abbreviates the path and keeps its advice: %s",
          mcf_last_error());
    setenv("MCF_PLUGIN_PATH", plugins, 1);
    free(env);
}

/* 300 plugins and two of 131-character names that differ only in their last character, in
 * one folder, and a second folder that repeats two of the names: every plugin is listed
 * once (a table of 256 names of 128 characters dropped the rest and merged the long ones),
 * and the nearest name is found among all of them. */
static void many_plugins(const char *plugins, const char *tmp)
{
    char self[4096], many[4096], dup[4096], file[4500], longa[200], longb[200];
    snprintf(self, sizeof self, "%s/mcf-tself.so", plugins);
    snprintf(many, sizeof many, "%s/many_plugins", tmp);
    snprintf(dup, sizeof dup, "%s/many_plugins_again", tmp);
    memset(longa, 'x', 130);
    longa[130] = 'a';
    longa[131] = '\0';
    snprintf(longb, sizeof longb, "%s", longa);
    longb[130] = 'b';
    int made = (mkdir(many, 0777) == 0 || errno == EEXIST) &&
               (mkdir(dup, 0777) == 0 || errno == EEXIST);
    for (int k = 0; made && k < 300; k++) {
        snprintf(file, sizeof file, "%s/mcf-many%03d.so", many, k);
        made = copy_file(self, file) == 0;
    }
    const char *again[] = {"many299", longb};
    for (int k = 0; made && k < 2; k++) {
        snprintf(file, sizeof file, "%s/mcf-%s.so", many, k ? longa : longb);
        made = copy_file(self, file) == 0;
        snprintf(file, sizeof file, "%s/mcf-%s.so", dup, again[k]);
        made = made && copy_file(self, file) == 0;
    }
    CHECK(made, "copies of %s in %s: %s", self, many, strerror(errno));
    if (!made)
        return;
    char env[13000];
    snprintf(env, sizeof env, "%s:%s:%s", many, dup, plugins);
    setenv("MCF_PLUGIN_PATH", env, 1);
    listing l = {.n = 0};
    int rc = mcfe_plugin_foreach(count_plugin, NULL, &l);
    CHECK(rc == MCF_OK, "foreach: %s", mcf_last_error());
    int once = 0;
    for (int k = 0; k < 300; k++) {
        char name[16];
        snprintf(name, sizeof name, "many%03d", k);
        once += times_listed(&l, name) == 1;
    }
    CHECK(once == 300, "%d of the 300 plugins listed exactly once", once);
    CHECK(times_listed(&l, longa) == 1 && times_listed(&l, longb) == 1,
          "the two long names: listed %d and %d times", times_listed(&l, longa),
          times_listed(&l, longb));
    CHECK(times_listed(&l, "tgood") == 1, "tgood, after 302 others: %d", times_listed(&l, "tgood"));
    for (size_t k = 0; k < l.n; k++)
        free(l.names[k]);
    mcf_plugin *p;
    rc = mcfe_plugin_open("many299x", 0, &p);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "did you mean 'many299'?") &&
              contains(mcf_last_error(), "more (`mcf plugins` lists them)"),
          "the nearest of 300 names, and the list of them abbreviated: %s", mcf_last_error());
    rc = mcfe_plugin_open(longb, 0, &p);
    CHECK(rc == MCF_OK && p && !strcmp(p->info->name, longb) && contains(p->path, many),
          "the long name opens from the first folder: %s", rc ? mcf_last_error() : p->path);
    if (!rc)
        mcfe_plugin_close(p);
    setenv("MCF_PLUGIN_PATH", plugins, 1);
}

/* an ABI-1 table's required ops, never called here */
static int no_create(const mcf_params *p, const mcf_services *s, mcf_rng *r, void **c)
{
    (void)p, (void)s, (void)r, (void)c;
    return MCF_EINTERNAL;
}
static void no_destroy(void *c) { (void)c; }
static size_t no_units(const void *c) { (void)c; return 1; }
static int no_propose(void *c, mcf_rng *r, void *m) { (void)c, (void)r, (void)m; return 0; }
static int no_log_ratio(void *const *c, const void *m, size_t n, double *o)
{
    (void)c, (void)m, (void)n, (void)o;
    return 0;
}
static int no_accept(void *c, const void *m) { (void)c, (void)m; return 0; }
static int no_measure(void *c, double *v) { (void)c, (void)v; return 0; }
static int no_save(const void *c, mcf_stream *s) { (void)c, (void)s; return 0; }
static int no_load(void *c, mcf_stream *s) { (void)c, (void)s; return 0; }
static size_t no_points(const void *c, size_t i, double *a) { (void)c, (void)i, (void)a; return 1; }

/* mcfi_labels_check on an ABI-1 model, opened by the adapter as the loader opens it, with
 * observables e (energy) and dos (a curve over E) and a parameter L, declaring the given
 * labels; the return code, the message in mcf_last_error(). */
static int check_labels(const mcf_label *labels, uint32_t struct_size)
{
    static const mcf_observable_spec obs[] = {{"e", MCF_ROLE_ENERGY, "energy", NULL, 0},
                                              {"dos", MCF_ROLE_NONE, "DOS", "E", 0},
                                              {NULL, MCF_ROLE_NONE, NULL, NULL, 0}};
    static const mcf_param_spec params[] = {{"L", MCF_PARAM_INT, "4", 0, 0, 0, NULL, .doc = "size"},
                                            {0}};
    mcf_model_ops ops;
    memset(&ops, 0, sizeof ops);
    ops.struct_size = struct_size;
    ops.move_size = 1;
    ops.observables = obs;
    ops.labels = labels;
    ops.create = no_create, ops.destroy = no_destroy, ops.units = no_units;
    ops.propose = no_propose, ops.log_ratio = no_log_ratio, ops.accept = no_accept;
    ops.measure = no_measure, ops.save = no_save, ops.load = no_load;
    ops.curve_points = no_points;
    mcfi_model m;
    memset(&m, 0, sizeof m);
    int rc = mcfi_abi1_open("mcf-x.so", &ops, &m);
    if (!rc)
        rc = mcfi_labels_check("mcf-x.so", m.observables, m.labels, params);
    free(m.own_observables); /* the adapter's copy of the observables */
    return rc;
}

static void test_labels(void)
{
    const mcf_label good[] = {{"T", "T", "t"}, {"L", NULL, NULL}, {"e", "E/N", "t"},
                              {"dos", "ρ(E)", "1/t"}, {"E", "E", "t"}, {NULL, NULL, NULL}};
    CHECK(check_labels(good, sizeof(mcf_model_ops)) == MCF_OK, "good labels refused: %s",
          mcf_last_error());
    const mcf_label unknown[] = {{"e", "E", NULL}, {"energy", "E", NULL}, {NULL, NULL, NULL}};
    CHECK(check_labels(unknown, sizeof(mcf_model_ops)) == MCF_EPLUGIN &&
              contains(mcf_last_error(), "mcf-x.so") &&
              contains(mcf_last_error(), "label 'energy' names no observable"),
          "a label of nothing: %s", mcf_last_error());
    /* a model built before the field: its labels are not read */
    CHECK(check_labels(unknown, (uint32_t)offsetof(mcf_model_ops, labels)) == MCF_OK,
          "labels read beyond struct_size: %s", mcf_last_error());
    const mcf_label twice[] = {{"L", "L", NULL}, {"L", "N", NULL}, {NULL, NULL, NULL}};
    CHECK(check_labels(twice, sizeof(mcf_model_ops)) == MCF_EPLUGIN &&
              contains(mcf_last_error(), "label 'L' is given twice"),
          "a label twice: %s", mcf_last_error());
    const mcf_label tab[] = {{"L", "L\tx", NULL}, {NULL, NULL, NULL}};
    CHECK(check_labels(tab, sizeof(mcf_model_ops)) == MCF_EPLUGIN &&
              contains(mcf_last_error(), "control character"),
          "a tab in a symbol: %s", mcf_last_error());
    const mcf_label utf[] = {{"L", "\xe2\x9f", NULL}, {NULL, NULL, NULL}};
    CHECK(check_labels(utf, sizeof(mcf_model_ops)) == MCF_EPLUGIN &&
              contains(mcf_last_error(), "not UTF-8"),
          "a cut UTF-8 sequence: %s", mcf_last_error());
    const mcf_label bracket[] = {{"e", "E", "[t]"}, {NULL, NULL, NULL}};
    CHECK(check_labels(bracket, sizeof(mcf_model_ops)) == MCF_EPLUGIN &&
              contains(mcf_last_error(), "unit '[t]'"),
          "a bracket in a unit: %s", mcf_last_error());
    const mcf_label empty[] = {{"e", "", NULL}, {NULL, NULL, NULL}};
    CHECK(check_labels(empty, sizeof(mcf_model_ops)) == MCF_EPLUGIN &&
              contains(mcf_last_error(), "is empty"),
          "an empty symbol: %s", mcf_last_error());
}

int main(void)
{
    mcf_plugin *p = NULL;
    int rc = mcfe_plugin_open("tgood", MCF_PLUGIN_MODEL, &p);
    CHECK(rc == MCF_OK && p, "good plugin: %s", mcf_last_error());
    if (p) {
        CHECK(!strcmp(p->info->name, "tgood"), "name %s", p->info->name);
        CHECK(contains(p->path, "mcf-tgood.so"), "path %s", p->path);
        mcfe_plugin_close(p);
    }

    rc = mcfe_plugin_open("tgood", MCF_PLUGIN_FERMION_EVALUATOR, &p);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "not a fermion-evaluator"),
          "kind mismatch: %s", mcf_last_error());

    rc = mcfe_plugin_open("tbadabi", 0, &p);
    {
        char want[64], have[64];
        snprintf(want, sizeof want, "ABI version %u", MCF_ABI_VERSION + 40);
        snprintf(have, sizeof have, "ABI version %u", MCF_ABI_VERSION);
        CHECK(rc == MCF_EPLUGIN && contains(mcf_last_error(), "mcf-tbadabi.so") &&
                  contains(mcf_last_error(), want) && contains(mcf_last_error(), have),
              "bad ABI: rc %d, %s", rc, mcf_last_error());
    }

    rc = mcfe_plugin_open("tnoentry", 0, &p);
    CHECK(rc == MCF_EPLUGIN && contains(mcf_last_error(), "mcf-tnoentry.so") &&
              contains(mcf_last_error(), "mcf_plugin_entry"),
          "missing symbol: rc %d, %s", rc, mcf_last_error());

    rc = mcfe_plugin_open("tnullop", 0, &p);
    CHECK(rc == MCF_EPLUGIN && contains(mcf_last_error(), "mcf-tnullop.so") &&
              contains(mcf_last_error(), "'measure' is NULL"),
          "NULL op: rc %d, %s", rc, mcf_last_error());

    rc = mcfe_plugin_open("tnullev", 0, &p);
    CHECK(rc == MCF_EPLUGIN && contains(mcf_last_error(), "mcf-tnullev.so") &&
              contains(mcf_last_error(), "fermion-evaluator op 'spectra' is NULL"),
          "NULL evaluator op: rc %d, %s", rc, mcf_last_error());

    /* ABI 2 of mcf 0.6-0.8, not yet frozen: refused, naming the release that built it */
    rc = mcfe_plugin_open("tpreflip", 0, &p);
    CHECK(rc == MCF_EPLUGIN && contains(mcf_last_error(), "mcf-tpreflip.so") &&
              contains(mcf_last_error(), "plugin 'tpreflip' was built against the ABI 2 of "
                                         "mcf 0.8.0, before ABI 2 was frozen in 1.0.0; "
                                         "rebuild it against these headers"),
          "a pre-1.0 ABI-2 plugin: rc %d, %s", rc, mcf_last_error());
    rc = mcfe_plugin_open("tpreflip0", 0, &p);
    CHECK(rc == MCF_EPLUGIN && contains(mcf_last_error(), "mcf-tpreflip0.so") &&
              contains(mcf_last_error(), "the ABI 2 of mcf 0.6-0.8, before ABI 2 was frozen"),
          "an ABI-2 descriptor of mcf 0.7-0.8 (no built_with): rc %d, %s", rc,
          mcf_last_error());

    rc = mcfe_plugin_open("tmisnamed", 0, &p);
    CHECK(rc == MCF_EPLUGIN && contains(mcf_last_error(), "mcf-somethingelse.so"),
          "misnamed: rc %d, %s", rc, mcf_last_error());

    rc = mcfe_plugin_open("tgoood", 0, &p);
    CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "no plugin named 'tgoood'") &&
              contains(mcf_last_error(), "did you mean 'tgood'"),
          "not found: rc %d, %s", rc, mcf_last_error());

    rc = mcfe_plugin_open("../etc/passwd", 0, &p);
    CHECK(rc == MCF_EINVAL, "a path is not a name: rc %d", rc);

    /* the real plugins beside libmcf are found too */
    rc = mcfe_plugin_open("ising", MCF_PLUGIN_MODEL, &p);
    CHECK(rc == MCF_OK, "ising beside libmcf: %s", mcf_last_error());
    if (!rc)
        mcfe_plugin_close(p);

    const char *env = getenv("MCF_PLUGIN_PATH"), *tmp = getenv("MCF_TEST_TMP");
    char *plugins = env ? strdup(env) : NULL;
    CHECK(plugins && tmp && !strchr(plugins, ':'), "MCF_PLUGIN_PATH (the test plugins' "
          "folder) and MCF_TEST_TMP are set");
    if (plugins && tmp && !strchr(plugins, ':')) {
        long_search_path(plugins);
        many_plugins(plugins, tmp);
    }
    free(plugins);
    test_labels();
    return check_exit();
}
