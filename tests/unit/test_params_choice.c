/* test_params_choice.c — mcf_params_choice (mcf/params.h, mcf 0.5): a CHOICE key's value as
 * its position among the declaration's '|'-separated choices.
 *
 *   (a) every choice of three keys (one choice, three with a hyphen and a digit, five) given
 *       as the value, the default among them: the index is the position in the string, and
 *       mcf_params_string still gives the text;
 *   (b) a key that is not declared: MCF_EINVAL naming the key and the section, *index left
 *       as it was;
 *   (c) keys of the other types (INT, REAL, BOOL, STRING): MCF_EINVAL saying what the key is
 *       declared as, *index left as it was; NULL parameters and a NULL key: MCF_EINVAL;
 *   (d) a word that is not among the choices never reaches a getter: the declaration refuses
 *       it, suggesting the nearest. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mcf/mcf.h"
#include "test_params.h"

static const mcf_param_spec specs[] = {
    {"system", MCF_PARAM_CHOICE, "heg", MCF_PARAM_NO_SCAN, 0, 0, "heg", .doc = "one choice"},
    {"mode", MCF_PARAM_CHOICE, "by-row", MCF_PARAM_NO_SCAN, 0, 0, "auto|by-row|16",
     .doc = "three choices, the default the second"},
    {"kernel", MCF_PARAM_CHOICE, "jackson", MCF_PARAM_NO_SCAN, 0, 0,
     "jackson|lorentz|none|dirichlet-like|x", .doc = "five choices"},
    {"L", MCF_PARAM_INT, "4", MCF_PARAM_HAS_MIN, 2, 0, NULL, .doc = "an integer"},
    {"J", MCF_PARAM_REAL, "1", 0, 0, 0, NULL, .doc = "a real number"},
    {"flag", MCF_PARAM_BOOL, "false", 0, 0, 0, NULL, .doc = "a boolean"},
    {"file", MCF_PARAM_STRING, "none", 0, 0, 0, NULL, .doc = "free text"},
    {0}};

static int contains(const char *s, const char *part) { return s && strstr(s, part) != NULL; }

/* the value `text` of key `key` gives index `want` and the text back */
static void expect_index(const char *key, const char *text, int want)
{
    test_params *tp = test_params_make(specs, "choice.ini", key, text, (const char *)NULL);
    CHECK(tp->ok, "%s = %s refused by the declaration: %s", key, text, mcf_last_error());
    int index = -7;
    const char *back = NULL;
    int rc = mcf_params_choice(&tp->p, key, &index);
    CHECK(rc == MCF_OK && index == want, "%s = %s: rc %d, index %d, expected %d (%s)", key,
          text, rc, index, want, mcf_last_error());
    rc = mcf_params_string(&tp->p, key, &back);
    CHECK(rc == MCF_OK && back && !strcmp(back, text), "%s = %s: mcf_params_string gave %s",
          key, text, back ? back : "NULL");
    test_params_free(tp);
}

/* mcf_params_choice(key) refused with MCF_EINVAL, *index untouched, the message with every
 * part */
static void expect_refused(const mcf_params *p, const char *key, const char *const *parts)
{
    int index = 42;
    mcf_clear_error();
    int rc = mcf_params_choice(p, key, &index);
    CHECK(rc == MCF_EINVAL, "choice of %s: rc %d, expected MCF_EINVAL", key ? key : "NULL", rc);
    CHECK(index == 42, "choice of %s refused but *index was written: %d", key ? key : "NULL",
          index);
    for (size_t k = 0; parts && parts[k]; k++)
        CHECK(contains(mcf_last_error(), parts[k]), "choice of %s: the message lacks '%s': %s",
              key ? key : "NULL", parts[k], mcf_last_error());
}

int main(void)
{
    /* (a) */
    expect_index("system", "heg", 0);
    static const char *const modes[] = {"auto", "by-row", "16"};
    for (int k = 0; k < 3; k++)
        expect_index("mode", modes[k], k);
    static const char *const kernels[] = {"jackson", "lorentz", "none", "dirichlet-like", "x"};
    for (int k = 0; k < 5; k++)
        expect_index("kernel", kernels[k], k);
    { /* the defaults: system 0, mode by-row (1), kernel jackson (0) */
        test_params *tp = test_params_make(specs, "choice.ini", (const char *)NULL);
        int s = -1, m = -1, k = -1;
        CHECK(tp->ok && mcf_params_choice(&tp->p, "system", &s) == MCF_OK &&
                  mcf_params_choice(&tp->p, "mode", &m) == MCF_OK &&
                  mcf_params_choice(&tp->p, "kernel", &k) == MCF_OK && s == 0 && m == 1 && k == 0,
              "defaults: system %d, mode %d, kernel %d; expected 0, 1, 0", s, m, k);
        /* (b) */
        expect_refused(&tp->p, "modes", (const char *const[]){"modes", "not a declared",
                                                               "[evaluator]", NULL});
        expect_refused(&tp->p, "", (const char *const[]){"not a declared", NULL});
        /* (c) */
        expect_refused(&tp->p, "L", (const char *const[]){"L", "integer", "not choice", NULL});
        expect_refused(&tp->p, "J", (const char *const[]){"J", "real number", "not choice",
                                                           NULL});
        expect_refused(&tp->p, "flag", (const char *const[]){"flag", "boolean", NULL});
        expect_refused(&tp->p, "file", (const char *const[]){"file", "text", "not choice",
                                                              NULL});
        expect_refused(&tp->p, NULL, (const char *const[]){"NULL", NULL});
        expect_refused(NULL, "mode", (const char *const[]){"NULL", NULL});
        test_params_free(tp);
    }
    /* (d) */
    test_params *bad = test_params_make(specs, "choice.ini", "mode", "by_row", (const char *)NULL);
    CHECK(!bad->ok && contains(mcf_last_error(), "by_row") &&
              contains(mcf_last_error(), "did you mean 'by-row'"),
          "mode = by_row: ok %d, %s", bad->ok, mcf_last_error());
    test_params_free(bad);
    return check_exit();
}
