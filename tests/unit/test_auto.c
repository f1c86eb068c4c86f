/* test_auto.c — `[run] evaluator = auto`: the candidates of the model's evaluator kind are
 * tried from the highest auto_priority down and the first whose probe says usable is
 * taken; the note for the log names the choice and why every higher candidate was
 * skipped; a model that takes no evaluator, and an unknown kind, are refused naming the
 * key.  Uses the test plugin tautogpu (priority 90, usable when MCF_TEST_AUTO_GPU=1) and
 * the real plugins anderson, ising, kpm (priority 10) beside libmcf.  Where a GPU plugin
 * (kpm-cuda, priority 20) is built, it may be chosen instead of kpm on a machine with a
 * device: both are accepted. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "internal.h"

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

static int has(const char *s, const char *part) { return s && strstr(s, part) != NULL; }

#define ANDERSON                                                                          \
    "[run]\nmodel = anderson\nevaluator = auto\n[schedule]\nthermalize = 0\nsweeps = 32\n" \
    "[model]\nlattice = square\nL = 4\n"

int main(void)
{
    const char *tmp = getenv("MCF_TEST_TMP");
    snprintf(dir, sizeof dir, "%s", tmp ? tmp : "/tmp");

    /* with the test device: tautogpu (priority 90) */
    setenv("MCF_TEST_AUTO_GPU", "1", 1);
    mcf_setup *s;
    int rc = setup_of("auto-gpu.ini", ANDERSON, &s);
    CHECK(rc == MCF_OK, "auto with MCF_TEST_AUTO_GPU=1: %s", mcf_last_error());
    if (s) {
        CHECK(!strcmp(s->evaluator_name, "tautogpu") && s->evaluator && s->evaluator_auto,
              "auto chose '%s', not tautogpu", s->evaluator_name);
        CHECK(has(s->evaluator_note, "evaluator = auto: using tautogpu (test device"),
              "note: %s", s->evaluator_note ? s->evaluator_note : "(none)");
        CHECK(!has(s->evaluator_note, "skipped"), "nothing ranks above tautogpu: %s",
              s->evaluator_note);
        CHECK(has(s->canonical, "evaluator = auto\n"), "config.ini as used lost 'auto':\n%s",
              s->canonical);
        CHECK(!has(s->canonical, "\n[evaluator]\n"), "no [evaluator] key was given:\n%s",
              s->canonical);
    }
    mcfe_setup_free(s);

    /* without: tautogpu skipped, then kpm-cuda (if built and usable) or kpm */
    setenv("MCF_TEST_AUTO_GPU", "0", 1);
    rc = setup_of("auto-cpu.ini", ANDERSON "[evaluator]\nmoments = 64\n", &s);
    CHECK(rc == MCF_OK, "auto without the test device: %s", mcf_last_error());
    if (s) {
        int kpm = !strcmp(s->evaluator_name, "kpm"), cuda = !strcmp(s->evaluator_name,
                                                                     "kpm-cuda");
        CHECK(kpm || cuda, "auto chose '%s', not kpm or kpm-cuda", s->evaluator_name);
        CHECK(has(s->evaluator_note,
                  "evaluator = auto: tautogpu skipped (MCF_TEST_AUTO_GPU is not 1); "),
              "note: %s", s->evaluator_note ? s->evaluator_note : "(none)");
        if (kpm)
            CHECK(has(s->evaluator_note, "using kpm (priority 10; no probe: always usable)"),
                  "note: %s", s->evaluator_note);
        CHECK(has(s->canonical, "evaluator = auto\n") &&
                  has(s->canonical, "[evaluator]\nmoments = 64\n"),
              "config.ini as used:\n%s", s->canonical);
    }
    mcfe_setup_free(s);

    /* the [evaluator] section is checked against the plugin chosen */
    setenv("MCF_TEST_AUTO_GPU", "1", 1);
    rc = setup_of("auto-key.ini", ANDERSON "[evaluator]\nmoments = 64\n", &s);
    CHECK(rc != MCF_OK && has(mcf_last_error(), "moments") &&
              has(mcf_last_error(), "tautogpu"),
          "a key tautogpu lacks: rc %d: %s", rc, mcf_last_error());
    mcfe_setup_free(s);
    unsetenv("MCF_TEST_AUTO_GPU");

    /* a model that takes no evaluator */
    rc = setup_of("auto-ising.ini",
                  "[run]\nmodel = ising\nevaluator = auto\n[schedule]\nsweeps = 100\n"
                  "temperatures = 2\n",
                  &s);
    CHECK(rc == MCF_EINVAL && has(mcf_last_error(), "auto-ising.ini:3") &&
              has(mcf_last_error(), "[run] evaluator = auto") &&
              has(mcf_last_error(), "takes no evaluator") &&
              has(mcf_last_error(), "evaluator = none"),
          "auto for ising: rc %d: %s", rc, mcf_last_error());
    mcfe_setup_free(s);

    /* a named evaluator is unchanged: no note, no (auto) */
    rc = setup_of("named.ini",
                  "[run]\nmodel = anderson\nevaluator = kpm\n[schedule]\nthermalize = 0\n"
                  "sweeps = 32\n[model]\nlattice = square\nL = 4\n",
                  &s);
    CHECK(rc == MCF_OK && s && !s->evaluator_auto && !s->evaluator_note &&
              !strcmp(s->evaluator_name, "kpm") && has(s->canonical, "evaluator = kpm\n") &&
              has(s->canonical, "[evaluator]\n"),
          "named evaluator: %s", rc ? mcf_last_error() : "setup differs");
    mcfe_setup_free(s);
    return check_exit();
}
