/* new_model.c — `mcf new-model NAME [--fermion] [--dir DIR]` (new_model.h): the skeleton of
 * a model plugin from the templates built into the program, with NAME's identifiers, into a
 * folder that is new or empty.  Nothing is overwritten: a folder that holds anything is
 * refused before a file is written. */
#define _POSIX_C_SOURCE 200809L
#include "new_model.h"

#include "mcf/error.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* the longest NAME: a file name mcf-NAME.so and identifiers of a readable length */
#define NEW_MODEL_NAME_MAX 48

static const char new_model_usage[] =
    "usage: mcf new-model NAME [--fermion] [--dir DIR]\n"
    "  writes the skeleton of a model plugin into DIR (default ./NAME, new or empty):\n"
    "    NAME.c          a working model against the SDK's model table of ABI 2 (mcf_model):\n"
    "                    the Ising model on a chain, square or cubic lattice; with --fermion\n"
    "                    Ising spins coupled to spinless fermions through an evaluator\n"
    "    CMakeLists.txt  builds mcf-NAME.so against an installed mcf (find_package(mcf))\n"
    "    NAME.ini        a short run;  README.md  build, run, what to change first\n"
    "  NAME: lowercase letters, digits and '-', starting with a letter (e.g. my-model)\n";

/* The values of the placeholders (new_model.h). */
typedef struct new_model_values {
    const char *name;
    char prefix[NEW_MODEL_NAME_MAX + 1];
    char pad[NEW_MODEL_NAME_MAX + 1];
    char tag[32];
    char tagname[5];
} new_model_values;

/* MCF_OK when name is a plugin name this command can make identifiers of; otherwise
 * MCF_EINVAL saying what is wrong with it. */
static int check_name(const char *name)
{
    const char *rule = "a plugin name has lowercase letters, digits and '-', and starts with "
                       "a letter (e.g. my-model)";
    size_t len = strlen(name);
    if (len == 0)
        return mcf_fail(MCF_EINVAL, "new-model: the plugin name is empty; %s", rule);
    if (name[0] < 'a' || name[0] > 'z')
        return mcf_fail(MCF_EINVAL, "new-model: '%s' is not a valid plugin name: it starts "
                        "with '%c', not a lowercase letter; %s", name, name[0], rule);
    for (size_t k = 1; k < len; k++) {
        const char ch = name[k];
        if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-')
            continue;
        if ((unsigned char)ch < 0x20 || (unsigned char)ch >= 0x7f)
            return mcf_fail(MCF_EINVAL, "new-model: '%s' is not a valid plugin name: byte "
                            "0x%02x at position %zu is not allowed; %s", name,
                            (unsigned)(unsigned char)ch, k + 1, rule);
        return mcf_fail(MCF_EINVAL, "new-model: '%s' is not a valid plugin name: '%c' at "
                        "position %zu is not allowed; %s", name, ch, k + 1, rule);
    }
    if (len > NEW_MODEL_NAME_MAX)
        return mcf_fail(MCF_EINVAL, "new-model: the plugin name '%s' is too long (%zu "
                        "characters; at most %d)", name, len, NEW_MODEL_NAME_MAX);
    if (strcmp(name, "mcf") == 0 || strncmp(name, "mcf-", 4) == 0)
        return mcf_fail(MCF_EINVAL, "new-model: '%s' is not a valid plugin name here: its C "
                        "identifiers would start with mcf_, the SDK's own; choose another",
                        name);
    return MCF_OK;
}

/* The placeholders' values for name (checked): the prefix with '_' for '-', as many spaces
 * (continuation lines aligned under a prefixed function's parenthesis); the tag from its
 * first three letters and digits, upper case, padded with 'X', and the record's version 1
 * ("my-model": MYM1). */
static void make_values(const char *name, new_model_values *v)
{
    v->name = name;
    size_t k = 0, t = 0;
    for (; name[k]; k++) {
        v->prefix[k] = name[k] == '-' ? '_' : name[k];
        v->pad[k] = ' ';
    }
    v->prefix[k] = v->pad[k] = '\0';
    for (k = 0; name[k] && t < 3; k++)
        if (name[k] != '-')
            v->tagname[t++] = (char)(name[k] >= 'a' && name[k] <= 'z' ? name[k] - 'a' + 'A'
                                                                       : name[k]);
    while (t < 3)
        v->tagname[t++] = 'X';
    v->tagname[3] = '1';
    v->tagname[4] = '\0';
    snprintf(v->tag, sizeof v->tag, "'%c', '%c', '%c', '%c'", v->tagname[0], v->tagname[1],
             v->tagname[2], v->tagname[3]);
}

/* dir: MCF_OK when it does not exist (*exists 0) or is an empty folder (*exists 1);
 * MCF_EINVAL when it is something else or holds anything, MCF_EIO when it cannot be read. */
static int check_folder(const char *dir, int *exists)
{
    struct stat st;
    *exists = 0;
    if (stat(dir, &st) != 0) {
        if (errno == ENOENT)
            return MCF_OK;
        return mcf_fail(MCF_EIO, "new-model: %s: %s", dir, strerror(errno));
    }
    if (!S_ISDIR(st.st_mode))
        return mcf_fail(MCF_EINVAL, "new-model: %s exists and is not a folder; name another "
                        "with --dir DIR", dir);
    *exists = 1;
    DIR *d = opendir(dir);
    if (!d)
        return mcf_fail(MCF_EIO, "new-model: the folder %s cannot be read: %s", dir,
                        strerror(errno));
    int rc = MCF_OK;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        rc = mcf_fail(MCF_EINVAL, "new-model: the folder %s exists and is not empty (it holds "
                      "%s); nothing is overwritten: name another with --dir DIR, or empty it",
                      dir, e->d_name);
        break;
    }
    closedir(d);
    return rc;
}

/* mkdir -p dir (dir does not exist). */
static int make_folder(const char *dir)
{
    char *path = strdup(dir);
    if (!path)
        return mcf_fail(MCF_ENOMEM, "out of memory");
    int rc = MCF_OK;
    for (char *s = path + 1;; s++) {
        const int end = *s == '\0';
        if (*s != '/' && !end)
            continue;
        *s = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST) {
            rc = mcf_fail(MCF_EIO, "new-model: cannot create the folder %s: %s", path,
                          strerror(errno));
            break;
        }
        if (end)
            break;
        *s = '/';
    }
    free(path);
    return rc;
}

/* One line of a template with its placeholders replaced, to f.  MCF_EINTERNAL for a
 * placeholder this program does not know (a template's typo). */
static int put_line(FILE *f, const char *line, const new_model_values *v, const char *what)
{
    const struct {
        const char *key, *value;
    } keys[] = {{"@NAME@", v->name}, {"@PREFIX@", v->prefix}, {"@PAD@", v->pad},
                {"@TAG@", v->tag}, {"@TAGNAME@", v->tagname}};
    for (const char *p = line; *p;) {
        const char *at = strchr(p, '@');
        if (!at) {
            fputs(p, f);
            break;
        }
        fwrite(p, 1, (size_t)(at - p), f);
        size_t k = 0, word = strspn(at + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_");
        if (word == 0 || at[word + 1] != '@') { /* an '@' of the text itself */
            fputc('@', f);
            p = at + 1;
            continue;
        }
        while (k < sizeof keys / sizeof keys[0] &&
               !(strlen(keys[k].key) == word + 2 && !strncmp(at, keys[k].key, word + 2)))
            k++;
        if (k == sizeof keys / sizeof keys[0])
            return mcf_fail(MCF_EINTERNAL, "new-model: the template of %s has an unknown "
                            "placeholder %.*s (a bug)", what, (int)word + 2, at);
        fputs(keys[k].value, f);
        p = at + word + 2;
    }
    return MCF_OK;
}

/* dir/file from a template; *lines its line count. */
static int write_file(const char *dir, const char *file, const char *const *tpl,
                      const new_model_values *v, size_t *lines)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s", dir, file) >= (int)sizeof path)
        return mcf_fail(MCF_EINVAL, "new-model: the path %s/%s is too long", dir, file);
    FILE *f = fopen(path, "w");
    if (!f)
        return mcf_fail(MCF_EIO, "new-model: cannot write %s: %s", path, strerror(errno));
    int rc = MCF_OK;
    *lines = 0;
    for (size_t k = 0; tpl[k] && !rc; k++) {
        rc = put_line(f, tpl[k], v, file);
        *lines += strchr(tpl[k], '\n') != NULL;
    }
    errno = 0;
    const int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        if (!rc)
            rc = mcf_fail(MCF_EIO, "new-model: cannot write %s: %s", path,
                          errno ? strerror(errno) : "write error");
    }
    return rc;
}

/* The prefix this program was installed under, when its CMake package is there (a build
 * tree's program has none): the program's folder's parent.  NULL otherwise; a copy. */
static char *install_prefix(void)
{
#ifdef MCF_CMAKE_PACKAGE_RELATIVE_DIR
    char exe[PATH_MAX], config[PATH_MAX + 64];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return NULL;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return NULL;
    *slash = '\0'; /* the program's folder (bin) */
    snprintf(config, sizeof config, "%s/%s/mcfConfig.cmake", exe, MCF_CMAKE_PACKAGE_RELATIVE_DIR);
    if (access(config, R_OK) != 0 || !(slash = strrchr(exe, '/')))
        return NULL;
    *slash = '\0'; /* /proc/self/exe has no links and no "..": its folder's parent */
    return strdup(exe[0] ? exe : "/");
#else
    return NULL;
#endif
}

int mcfi_new_model_command(int argc, char **argv)
{
    const char *name = NULL, *dir = NULL;
    int fermion = 0;
    for (int k = 0; k < argc; k++) {
        if (!strcmp(argv[k], "--fermion"))
            fermion = 1;
        else if (!strcmp(argv[k], "--dir") && k + 1 < argc)
            dir = argv[++k];
        else if (!strncmp(argv[k], "--dir=", 6))
            dir = argv[k] + 6;
        else if (!strcmp(argv[k], "--dir"))
            return mcf_fail(MCF_EINVAL, "new-model: --dir needs a folder after it");
        else if (!strcmp(argv[k], "--help") || !strcmp(argv[k], "-h")) {
            fputs(new_model_usage, stdout);
            return MCF_OK;
        } else if (argv[k][0] == '-')
            return mcf_fail(MCF_EINVAL, "new-model: unknown option '%s'\n%s", argv[k],
                            new_model_usage);
        else if (!name)
            name = argv[k];
        else
            return mcf_fail(MCF_EINVAL, "new-model: one NAME only ('%s' is extra)\n%s",
                            argv[k], new_model_usage);
    }
    if (!name)
        return mcf_fail(MCF_EINVAL, "new-model: missing NAME\n%s", new_model_usage);
    int rc = check_name(name);
    if (rc)
        return rc;
    if (!dir)
        dir = name;
    if (!dir[0])
        return mcf_fail(MCF_EINVAL, "new-model: --dir is empty");
    int exists;
    if ((rc = check_folder(dir, &exists)) || (!exists && (rc = make_folder(dir))))
        return rc;

    new_model_values v;
    make_values(name, &v);
    char source[NEW_MODEL_NAME_MAX + 8], ini[NEW_MODEL_NAME_MAX + 8];
    snprintf(source, sizeof source, "%s.c", name);
    snprintf(ini, sizeof ini, "%s.ini", name);
    const struct {
        const char *file, *const *tpl, *what;
    } files[] = {
        {source, fermion ? mcfi_template_fermion_model_c : mcfi_template_model_c,
         fermion ? "the model (ABI 2; a fermion evaluator computes its S_eff)"
                 : "the model (ABI 2)"},
        {"CMakeLists.txt", mcfi_template_CMakeLists_txt, "builds it against an installed mcf"},
        {ini, fermion ? mcfi_template_fermion_model_ini : mcfi_template_model_ini,
         fermion ? "a short run (evaluator = ed)" : "a short run"},
        {"README.md", fermion ? mcfi_template_fermion_README_md : mcfi_template_README_md,
         "build, run, what to change first"}};
    const size_t n_files = sizeof files / sizeof files[0];
    size_t lines[sizeof files / sizeof files[0]];
    for (size_t k = 0; k < n_files && !rc; k++)
        rc = write_file(dir, files[k].file, files[k].tpl, &v, &lines[k]);
    if (rc)
        return rc;

    char *prefix = install_prefix();
    const size_t dl = strlen(dir);
    printf("mcf: the %s model plugin %s, in %s%s:\n", fermion ? "fermion" : "classical", name,
           dir, dir[dl - 1] == '/' ? "" : "/");
    for (size_t k = 0; k < n_files; k++)
        printf("  %-*s %4zu lines  %s\n", NEW_MODEL_NAME_MAX / 2, files[k].file, lines[k],
               files[k].what);
    printf("next:\n  cd %s\n  cmake -S . -B build -DCMAKE_PREFIX_PATH=%s\n"
           "  cmake --build build\n  MCF_PLUGIN_PATH=$PWD/build mcf run %s\n"
           "then replace the lines marked PHYSICS in %s (README.md says where to start)\n",
           dir, prefix ? prefix : "/where/mcf/is/installed", ini, source);
    free(prefix);
    return MCF_OK;
}
