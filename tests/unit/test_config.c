/* test_config.c — configuration parsing and every validation error: each stops before
 * any work with file:line, section and key, the allowed values, and a suggestion for a
 * misspelled key.  Uses the test plugin tgood (parameters h, n in [2,64], lattice choice,
 * flag bool, seed_like not scannable). */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "internal.h"
#include "fileio.h"
#include "setup.h"

static char dir[4096];

static const char *write_ini(const char *name, const char *text)
{
    static char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(1);
    }
    fputs(text, f);
    fclose(f);
    return path;
}

#define HEAD "[run]\nmodel = tgood\nseed = 3\n[schedule]\nsweeps = 100\ntemperatures = 1, 2\n"

/* Reads and validates; returns the status, message in mcf_last_error(). */
static int setup_of(const char *name, const char *text, mcf_setup **out)
{
    mcf_config *c;
    *out = NULL;
    int rc = mcfe_config_read(write_ini(name, text), &c);
    if (rc)
        return rc;
    rc = mcfe_setup_create(c, out);
    mcfe_config_free(c);
    return rc;
}

/* Expects failure whose message contains every one of the NULL-terminated parts. */
static void expect_error(const char *name, const char *text, ...)
{
    mcf_setup *s;
    int rc = setup_of(name, text, &s);
    CHECK(rc != MCF_OK, "%s: expected an error, got none", name);
    mcfe_setup_free(s);
    va_list ap;
    va_start(ap, text);
    for (const char *part = va_arg(ap, const char *); part; part = va_arg(ap, const char *))
        CHECK(strstr(mcf_last_error(), part) != NULL, "%s: message lacks \"%s\":\n    %s",
              name, part, mcf_last_error());
    va_end(ap);
}

int main(void)
{
    const char *tmp = getenv("MCF_TEST_TMP");
    snprintf(dir, sizeof dir, "%s/test_config", tmp ? tmp : "/tmp");
    CHECK(mcfe_mkdir_p(dir) == MCF_OK, "mkdir %s", mcf_last_error());

    /* a good configuration: grid, defaults, canonical text */
    mcf_setup *s;
    int rc = setup_of("good.ini", HEAD "[model]\nn = 2:8:4\nh = 0.5, 1.5\n", &s);
    CHECK(rc == MCF_OK, "good config: %s", mcf_last_error());
    if (!rc) {
        CHECK(s->n_axes == 3, "axes %zu", s->n_axes);
        CHECK(s->n_points == 4 * 2 * 2, "points %zu", s->n_points);
        /* the file says n before h; the plugin declares h before n: declaration order
         * wins, so config.ini as used (written in declaration order) gives the same grid
         * on resume */
        CHECK(!strcmp(s->axes[0].name, "h") && !strcmp(s->axes[1].name, "n") &&
                  !strcmp(s->axes[2].name, "T"),
              "axis order %s %s %s (declaration order, T last)", s->axes[0].name,
              s->axes[1].name, s->axes[2].name);
        CHECK(s->axes[1].values[3].i == 8 && s->axes[1].values[1].i == 4, "linspace of ints");
        /* last axis fastest: point 1 is (h=0.5, n=2, T=2) */
        CHECK(mcfi_setup_axis_value(s, 2, 1)->r == 2.0 && mcfi_setup_axis_value(s, 0, 1)->r == 0.5,
              "grid order");
        mcf_params *p;
        CHECK(mcfe_setup_params(s, 5, 0, &p) == MCF_OK, "params");
        long n;
        double h, T;
        const char *lat;
        int flag;
        CHECK(mcf_params_int(p, "n", &n) == 0 && n == 6, "n at point 5 = %ld", n);
        CHECK(mcf_params_real(p, "h", &h) == 0 && h == 0.5, "h at point 5 = %g", h);
        CHECK(mcf_params_temperature(p, &T) == 0 && T == 2.0, "T at point 5 = %g", T);
        CHECK(mcf_params_string(p, "lattice", &lat) == 0 && !strcmp(lat, "square"),
              "default choice");
        CHECK(mcf_params_bool(p, "flag", &flag) == 0 && flag == 0, "default bool");
        CHECK(mcf_params_real(p, "n", &h) == MCF_EINVAL, "type-checked getter");
        CHECK(mcf_params_int(p, "nope", &n) == MCF_EINVAL, "undeclared getter");
        free(p);
        CHECK(strstr(s->canonical, "thermalize = 1000") && strstr(s->canonical, "flag = false") &&
                  strstr(s->canonical, "n = 2:8:4"),
              "canonical config has defaults and the scan text:\n%s", s->canonical);
        CHECK(!strcmp(s->output, "good.out"), "default output %s", s->output);
        CHECK(!strstr(s->canonical, "late_key"),
              "a MCF_PARAM_ECHO_IF_CHANGED key at its default is not in config.ini:\n%s",
              s->canonical);
        /* what `mcf resume` does: read config.ini as used back; the grid must be the same
         * point by point, or the checkpoint's chains would meet other scan points */
        mcf_setup *r = NULL;
        CHECK(setup_of("good-canonical.ini", s->canonical, &r) == MCF_OK, "canonical: %s",
              mcf_last_error());
        if (r) {
            int same = r->n_axes == s->n_axes && r->n_points == s->n_points;
            for (size_t a = 0; same && a < s->n_axes; a++)
                same = !strcmp(r->axes[a].name, s->axes[a].name);
            for (size_t i = 0; same && i < s->n_points; i++)
                for (size_t a = 0; same && a < s->n_axes; a++) {
                    const mcf_value *x = mcfi_setup_axis_value(r, a, i),
                                    *y = mcfi_setup_axis_value(s, a, i);
                    same = x->i == y->i && x->r == y->r && x->b == y->b &&
                           !strcmp(x->text, y->text);
                }
            CHECK(same, "config.ini as used gives another grid than the original file");
            mcfe_setup_free(r);
        }
        mcfe_setup_free(s);
    }

    /* ... and is written (entering the configuration hash) once it is given another value;
     * given its default, it stays out */
    for (int k = 0; k < 2; k++) {
        mcf_setup *e = NULL;
        CHECK(setup_of("late.ini", k ? HEAD "[model]\nlate_key = 3\n"
                                      : HEAD "[model]\nlate_key = 0\n", &e) == MCF_OK,
              "late_key: %s", mcf_last_error());
        if (e) {
            CHECK(!strstr(e->canonical, "late_key = 3") == !k,
                  "late_key = %d: config.ini as used:\n%s", k ? 3 : 0, e->canonical);
            CHECK(k || !strstr(e->canonical, "late_key"), "late_key = 0 echoed:\n%s",
                  e->canonical);
            mcfe_setup_free(e);
        }
    }

    /* --set overrides a value and records where it came from */
    {
        mcf_config *c;
        rc = mcfe_config_read(write_ini("set.ini", HEAD "[model]\nn = 4\n"), &c);
        CHECK(rc == 0, "read: %s", mcf_last_error());
        CHECK(mcfe_config_override(c, "model.n=16") == 0, "override");
        CHECK(mcfe_config_override(c, "model.h = 2.5") == 0, "override new key");
        CHECK(mcfe_config_override(c, "nodot=1") == MCF_EINVAL &&
                  strstr(mcf_last_error(), "section.key=value"),
              "bad --set: %s", mcf_last_error());
        rc = mcfe_setup_create(c, &s);
        CHECK(rc == 0 && s->sections[0].single[1].i == 16, "--set value used");
        mcfe_setup_free(s);
        mcfe_config_override(c, "model.n=99");
        rc = mcfe_setup_create(c, &s);
        CHECK(rc == MCF_EINVAL && strstr(mcf_last_error(), "command line (--set)") &&
                  strstr(mcf_last_error(), "[model] n"),
              "--set error location: %s", mcf_last_error());
        mcfe_config_free(c);
    }

    /* every validation error */
    expect_error("unknown_key.ini", HEAD "[model]\nlatice = cubic\n", "unknown_key.ini:8:",
                 "[model]", "'latice'", "did you mean 'lattice'", "valid keys", NULL);
    expect_error("wrong_type.ini", HEAD "[model]\nn = four\n", "wrong_type.ini:8:", "[model] n",
                 "not an integer", NULL);
    expect_error("real_type.ini", HEAD "[model]\nh = 1.0x\n", "real_type.ini:8:",
                 "not a real number", NULL);
    expect_error("nan.ini", HEAD "[model]\nh = nan\n", "nan.ini:8:", "NaN", NULL);
    /* issue 42: a number a double cannot hold is said to be too small or too large, not
       "not a real number" */
    expect_error("subnormal.ini", HEAD "[model]\nh = 1e-320\n", "subnormal.ini:8:", "[model] h",
                 "'1e-320' is too small", "subnormal", NULL);
    expect_error("underflow.ini", HEAD "[model]\nh = -1e-400\n", "underflow.ini:8:",
                 "too small", NULL);
    expect_error("overflow.ini", HEAD "[model]\nh = 1e400\n", "overflow.ini:8:", "[model] h",
                 "'1e400' is too large", NULL);
    expect_error("tiny_temperature.ini", "[run]\nmodel = tgood\n[schedule]\nsweeps = 100\n"
                 "temperatures = 2, 1e-300\n", "tiny_temperature.ini:5:",
                 "[schedule] temperatures", "1e-300", "1/T^2", NULL);
    expect_error("range.ini", HEAD "[model]\nn = 65\n", "range.ini:8:", "[model] n",
                 "out of range", "in [2, 64]", NULL);
    expect_error("range_list.ini", HEAD "[model]\nn = 4, 1\n", "range_list.ini:8:",
                 "n: 1 is out of range", NULL);
    expect_error("choice.ini", HEAD "[model]\nlattice = sqare\n", "choice.ini:8:",
                 "one of: chain, square, cubic, bcc", "did you mean 'square'", NULL);
    expect_error("bool.ini", HEAD "[model]\nflag = maybe\n", "bool.ini:8:", "not a boolean",
                 NULL);
    expect_error("noscan.ini", HEAD "[model]\nseed_like = 1, 2\n", "noscan.ini:8:",
                 "one value, not a list", NULL);
    expect_error("linspace.ini", HEAD "[model]\nn = 2:9:4\n", "linspace.ini:8:",
                 "not an integer", NULL);
    expect_error("linspace2.ini", HEAD "[model]\nh = 1:2\n", "linspace2.ini:8:",
                 "first:last:count", NULL);
    expect_error("empty_item.ini", HEAD "[model]\nh = 1,,2\n", "empty_item.ini:8:",
                 "item 2", NULL);
    expect_error("section.ini", HEAD "[modle]\nn = 4\n", "section.ini:8:", "[modle]",
                 "did you mean [model]", NULL);
    expect_error("syntax.ini", HEAD "[model]\nthis line has no equals sign\n", "syntax.ini:8:",
                 "syntax error", NULL);
    expect_error("duplicate.ini", HEAD "[model]\nn = 4\nn = 5\n", "duplicate.ini:9:",
                 "given twice", "line 8", NULL);
    expect_error("before.ini", "n = 4\n" HEAD, "before.ini:1:", "before any [section]", NULL);
    expect_error("no_model.ini", "[run]\nseed = 1\n", "no_model.ini", "[run] model is required",
                 NULL);
    expect_error("bad_model.ini", "[run]\nmodel = tgod\n[schedule]\nsweeps = 100\n",
                 "bad_model.ini:2:", "no plugin named 'tgod'", "did you mean 'tgood'", NULL);
    expect_error("abi_model.ini", "[run]\nmodel = tbadabi\n", "abi_model.ini:2:",
                 "mcf-tbadabi.so", "ABI version", NULL);
    expect_error("temps.ini", "[run]\nmodel = tgood\n[schedule]\nsweeps = 100\n"
                 "temperatures = 1, 0\n", "temps.ini:5:", "temperatures: 0 is out of range", "> 0", NULL);
    expect_error("run_key.ini", "[run]\nmodel = tgood\nsed = 4\n", "run_key.ini:3:",
                 "did you mean 'seed'", NULL);
    expect_error("seed_neg.ini", "[run]\nmodel = tgood\nseed = -4\n", "seed_neg.ini:3:",
                 "out of range", NULL);
    expect_error("few.ini", "[run]\nmodel = tgood\n[schedule]\nsweeps = 10\n", "few.ini:4:",
                 "jackknife bins", NULL);
    expect_error("eval_none.ini", HEAD "[evaluator]\nmoments = 4\n", "eval_none.ini:8:",
                 "evaluator = none", NULL);
    {
        char longline[400];
        memset(longline, 'x', sizeof longline);
        memcpy(longline, "h = ", 4);
        longline[sizeof longline - 1] = '\0';
        char text[1024];
        snprintf(text, sizeof text, HEAD "[model]\n%s\n", longline);
        expect_error("long.ini", text, "long.ini:8:", "longer than", NULL);
    }
    /* issue 17: the line limit said of a line that fits, continuation lines, unclosed
     * headers, NUL bytes, folders and devices, temperatures = inf, --set values cut short */
    {
        char text[1024], line[256];
        memset(line, 'x', sizeof line);
        line[0] = ';';
        line[199] = '\0';
        snprintf(text, sizeof text, HEAD "[model]\n%s\n", line);
        mcf_setup *fits;
        rc = setup_of("fits.ini", text, &fits);
        CHECK(rc == 0, "a 199-character line is read: %s", rc ? mcf_last_error() : "");
        mcfe_setup_free(fits);
        line[199] = 'x';
        line[200] = '\0';
        snprintf(text, sizeof text, HEAD "[model]\n%s\n", line);
        expect_error("long200.ini", text, "long200.ini:8:", "longer than 199 characters", NULL);
    }
    expect_error("indented.ini", HEAD "[model]\nn = 4\n  h = 2\n", "indented.ini:9:",
                 "indented", "[model] n (line 8)", NULL);
    expect_error("unclosed.ini", HEAD "[model\nn = 4\n", "unclosed.ini:7:", "no closing ']'",
                 NULL);
    expect_error("inf.ini", "[run]\nmodel = tgood\n[schedule]\nsweeps = 100\n"
                 "temperatures = 1, inf\n", "inf.ini:5:", "[schedule] temperatures",
                 "not finite", NULL);
    {
        static const char nul[] = "[run]\nmodel = tgood\nseed = 3\0junk\n";
        char path[4200];
        snprintf(path, sizeof path, "%s/nul.ini", dir);
        FILE *f = fopen(path, "wb");
        CHECK(f && fwrite(nul, 1, sizeof nul - 1, f) == sizeof nul - 1, "write nul.ini");
        if (f)
            fclose(f);
        mcf_config *c;
        rc = mcfe_config_read(path, &c);
        CHECK(rc == MCF_EINVAL && strstr(mcf_last_error(), "nul.ini:3:") &&
                  strstr(mcf_last_error(), "NUL byte"),
              "NUL byte: %s", mcf_last_error());
        rc = mcfe_config_read(dir, &c);
        CHECK(rc == MCF_EINVAL && strstr(mcf_last_error(), "is a directory"),
              "directory: %s", mcf_last_error());
        rc = mcfe_config_read("/dev/null", &c);
        CHECK(rc == MCF_EINVAL && strstr(mcf_last_error(), "not a regular file"),
              "device: %s", mcf_last_error());
    }
    {
        /* a --set value of 5000 characters is kept whole (it was cut at 4095) */
        mcf_config *c;
        CHECK(mcfe_config_read(write_ini("set_long.ini", HEAD), &c) == 0, "read set_long");
        char *set = malloc(6000);
        CHECK(set != NULL, "malloc");
        if (c && set) {
            strcpy(set, "model.h=");
            memset(set + 8, '1', 5000);
            set[5008] = '\0';
            CHECK(mcfe_config_override(c, set) == 0, "long --set");
            mcf_config_entry *e = mcfi_config_find(c, "model", "h");
            CHECK(e && strlen(e->value) == 5000, "the --set value is whole: %zu",
                  e ? strlen(e->value) : 0);
            mcf_setup *long_setup;
            rc = mcfe_setup_create(c, &long_setup);
            CHECK(rc == MCF_EINVAL && strstr(mcf_last_error(), "command line (--set)") &&
                      strstr(mcf_last_error(), "config.ini"),
                  "long --set refused: %s", mcf_last_error());
            mcfe_setup_free(long_setup);
        }
        free(set);
        mcfe_config_free(c);
    }
    {
        /* a path that names nothing is bad input, like a misspelt key */
        mcf_config *c;
        rc = mcfe_config_read("/nonexistent/dir/x.ini", &c);
        CHECK(rc == MCF_EINVAL && strstr(mcf_last_error(), "/nonexistent/dir/x.ini"),
              "missing file: %s", mcf_last_error());
    }
    {
        /* inih's names: a section of MCFI_CONFIG_NAME_MAX characters is read whole (were
           inih's buffer smaller, it would be cut here), a longer one is refused at its line
           (it was cut to 49 characters without a word) */
        char name[80], text[512];
        memset(name, 's', sizeof name);
        name[MCFI_CONFIG_NAME_MAX] = '\0';
        snprintf(text, sizeof text, "[run]\nmodel = tgood\n[%s]\nk = 1\n", name);
        mcf_config *c;
        rc = mcfe_config_read(write_ini("name49.ini", text), &c);
        mcf_config_entry *e = rc ? NULL : mcfi_config_find(c, name, "k");
        CHECK(e != NULL, "a section name of %d characters is read whole: %s",
              MCFI_CONFIG_NAME_MAX, rc ? mcf_last_error() : "cut");
        mcfe_config_free(rc ? NULL : c);
        name[MCFI_CONFIG_NAME_MAX] = 's';
        name[MCFI_CONFIG_NAME_MAX + 1] = '\0';
        snprintf(text, sizeof text, "[run]\nmodel = tgood\n[%s]\nk = 1\n", name);
        rc = mcfe_config_read(write_ini("name50.ini", text), &c);
        CHECK(rc == MCF_EINVAL && strstr(mcf_last_error(), "name50.ini:3:") &&
                  strstr(mcf_last_error(), "section name is longer than 49"),
              "a section name of 50 characters: %s", rc ? mcf_last_error() : "accepted");
        mcfe_config_free(rc ? NULL : c);
        /* an indented line below a key of more than 49 characters continues that key (inih
           hands it over under the name cut to 49): refused like any continuation, naming
           the whole key (it was read as a key of its own, with the cut name) */
        memset(name, 'k', 60);
        name[60] = '\0';
        snprintf(text, sizeof text, "[run]\nmodel = tgood\n[model]\n%s = 1\n  2\n", name);
        rc = mcfe_config_read(write_ini("longkey.ini", text), &c);
        CHECK(rc == MCF_EINVAL && strstr(mcf_last_error(), "longkey.ini:5:") &&
                  strstr(mcf_last_error(), "indented") && strstr(mcf_last_error(), name),
              "continuation of a 60-character key: %s", rc ? mcf_last_error() : "accepted");
        mcfe_config_free(rc ? NULL : c);
    }
    return check_exit();
}
