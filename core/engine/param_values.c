/* param_values.c — typed parameter values of a configuration: parsing against a
 * declaration, range checks, the description of the allowed values, the check of a
 * plugin's declarations, and "did you mean" suggestions.  The getters that hand the values
 * to a plugin are the SDK's (core/sdk/params.c). */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

size_t mcfi_spec_count(const mcf_param_spec *specs)
{
    size_t n = 0;
    while (specs && specs[n].name)
        n++;
    return n;
}

void mcfe_value_release(mcf_value *v)
{
    free(v->text);
    v->text = NULL;
}

int mcfi_choice_index(const char *choices, const char *word)
{
    size_t wl = strlen(word);
    int k = 0;
    const char *p = choices;
    while (p && *p) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == wl && strncmp(p, word, len) == 0)
            return k;
        k++;
        p = bar ? bar + 1 : NULL;
    }
    return -1;
}

void mcfe_spec_describe(const mcf_param_spec *spec, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    if (spec->type == MCF_PARAM_CHOICE) {
        used += (size_t)snprintf(buf, size, "one of: ");
        const char *p = spec->choices;
        while (p && *p && used < size) {
            const char *bar = strchr(p, '|');
            int len = bar ? (int)(bar - p) : (int)strlen(p);
            used += (size_t)snprintf(buf + used, size - used, "%.*s%s", len, p, bar ? ", " : "");
            p = bar ? bar + 1 : NULL;
        }
        return;
    }
    const int finite = spec->type == MCF_PARAM_REAL && (spec->flags & MCF_PARAM_FINITE);
    used += (size_t)snprintf(buf, size, "%s%s", finite ? "finite " : "",
                             mcf_param_type_name(spec->type));
    if ((spec->type == MCF_PARAM_INT || spec->type == MCF_PARAM_REAL) && used < size) {
        if ((spec->flags & MCF_PARAM_HAS_MIN) && (spec->flags & MCF_PARAM_HAS_MAX))
            snprintf(buf + used, size - used, " in %s%.10g, %.10g%s",
                     spec->flags & MCF_PARAM_MIN_EXCLUSIVE ? "(" : "[", spec->min, spec->max,
                     spec->flags & MCF_PARAM_MAX_EXCLUSIVE ? ")" : "]");
        else if (spec->flags & MCF_PARAM_HAS_MIN)
            snprintf(buf + used, size - used, " %s %.10g",
                     spec->flags & MCF_PARAM_MIN_EXCLUSIVE ? ">" : ">=", spec->min);
        else if (spec->flags & MCF_PARAM_HAS_MAX)
            snprintf(buf + used, size - used, " %s %.10g",
                     spec->flags & MCF_PARAM_MAX_EXCLUSIVE ? "<" : "<=", spec->max);
    }
}

static int check_range(const mcf_param_spec *spec, double x, const char *text)
{
    int bad = 0;
    if (spec->flags & MCF_PARAM_HAS_MIN)
        bad |= (spec->flags & MCF_PARAM_MIN_EXCLUSIVE) ? !(x > spec->min) : !(x >= spec->min);
    if (spec->flags & MCF_PARAM_HAS_MAX)
        bad |= (spec->flags & MCF_PARAM_MAX_EXCLUSIVE) ? !(x < spec->max) : !(x <= spec->max);
    if (bad) {
        char allowed[256];
        mcfe_spec_describe(spec, allowed, sizeof allowed);
        return mcf_fail(MCF_EINVAL, "%s is out of range: must be %s", text, allowed);
    }
    return MCF_OK;
}

int mcfi_value_parse(const mcf_param_spec *spec, const char *text, mcf_value *out)
{
    char *end;
    memset(out, 0, sizeof *out);
    if (!text[0])
        return mcf_fail(MCF_EINVAL, "the value is empty; expected %s", mcf_param_type_name(spec->type));
    switch (spec->type) {
    case MCF_PARAM_INT: {
        errno = 0;
        long v = strtol(text, &end, 10);
        if (*end || errno)
        {
            char allowed[256];
            mcfe_spec_describe(spec, allowed, sizeof allowed);
            return mcf_fail(MCF_EINVAL, "'%s' is not an integer: must be %s", text, allowed);
        }
        int rc = check_range(spec, (double)v, text);
        if (rc)
            return rc;
        out->i = v;
        out->r = (double)v;
        break;
    }
    case MCF_PARAM_REAL: {
        errno = 0;
        double v = strtod(text, &end);
        if (*end)
        {
            char allowed[256];
            mcfe_spec_describe(spec, allowed, sizeof allowed);
            return mcf_fail(MCF_EINVAL, "'%s' is not a real number: must be %s", text, allowed);
        }
        /* a number, but not one a double holds: strtod's ERANGE is either side */
        if (errno == ERANGE && isinf(v))
            return mcf_fail(MCF_EINVAL, "'%s' is too large: beyond the largest double "
                            "(about 1.8e308); give a finite value", text);
        if (errno == ERANGE || (isfinite(v) && v != 0.0 && !isnormal(v)))
            return mcf_fail(MCF_EINVAL, "'%s' is too small to be represented at full precision "
                            "(a subnormal number, below about 2.2e-308 in magnitude); give 0 or "
                            "a larger value", text);
        if (isnan(v))
            return mcf_fail(MCF_EINVAL, "'%s': NaN is not allowed", text);
        if (isinf(v) && (spec->flags & MCF_PARAM_FINITE)) {
            char allowed[256];
            mcfe_spec_describe(spec, allowed, sizeof allowed);
            return mcf_fail(MCF_EINVAL, "'%s' is not finite: must be %s", text, allowed);
        }
        int rc = check_range(spec, v, text);
        if (rc)
            return rc;
        out->r = v;
        break;
    }
    case MCF_PARAM_BOOL:
        if (!strcasecmp(text, "true") || !strcasecmp(text, "yes") || !strcasecmp(text, "on") ||
            !strcmp(text, "1"))
            out->b = 1;
        else if (!strcasecmp(text, "false") || !strcasecmp(text, "no") ||
                 !strcasecmp(text, "off") || !strcmp(text, "0"))
            out->b = 0;
        else
            return mcf_fail(MCF_EINVAL, "'%s' is not a boolean: use true or false", text);
        break;
    case MCF_PARAM_CHOICE: {
        int k = mcfi_choice_index(spec->choices, text);
        if (k < 0) {
            char allowed[512];
            const char *cands[64];
            char words[1024];
            size_t nc = 0;
            snprintf(words, sizeof words, "%s", spec->choices ? spec->choices : "");
            for (char *w = strtok(words, "|"); w && nc < 64; w = strtok(NULL, "|"))
                cands[nc++] = w;
            const char *near = mcfe_nearest_word(text, cands, nc);
            mcfe_spec_describe(spec, allowed, sizeof allowed);
            if (near)
                return mcf_fail(MCF_EINVAL, "'%s' is not allowed: must be %s; did you mean '%s'?",
                                text, allowed, near);
            return mcf_fail(MCF_EINVAL, "'%s' is not allowed: must be %s", text, allowed);
        }
        out->i = k;
        break;
    }
    case MCF_PARAM_STRING:
        break;
    default:
        return mcf_fail(MCF_EINTERNAL, "parameter %s has an unknown type %d", spec->name,
                        (int)spec->type);
    }
    out->text = strdup(text);
    if (!out->text)
        return mcf_fail(MCF_ENOMEM, "out of memory");
    return MCF_OK;
}

int mcfi_specs_check(const mcf_param_spec *specs, const char *owner)
{
    for (size_t k = 0; specs && specs[k].name; k++) {
        const mcf_param_spec *s = &specs[k];
        if (s->type < MCF_PARAM_INT || s->type > MCF_PARAM_CHOICE)
            return mcf_fail(MCF_EPLUGIN, "%s: parameter '%s' has an unknown type %d", owner,
                            s->name, (int)s->type);
        if (s->type == MCF_PARAM_CHOICE && (!s->choices || !s->choices[0]))
            return mcf_fail(MCF_EPLUGIN, "%s: choice parameter '%s' declares no choices", owner,
                            s->name);
        for (size_t j = 0; j < k; j++)
            if (!strcmp(specs[j].name, s->name))
                return mcf_fail(MCF_EPLUGIN, "%s: parameter '%s' is declared twice", owner,
                                s->name);
        if (s->default_value) {
            mcf_value v;
            int rc = mcfi_value_parse(s, s->default_value, &v);
            if (rc)
                return mcf_fail_prefix(MCF_EPLUGIN, "%s: the default of parameter '%s'", owner,
                                       s->name);
            mcfe_value_release(&v);
        }
    }
    return MCF_OK;
}

static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    size_t row[128];
    if (lb >= 127 || la >= 127)
        return (size_t)-1;
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t cost = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]) ? 0 : 1;
            size_t best = diag + cost;
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

const char *mcfe_nearest_word(const char *word, const char *const *candidates, size_t n)
{
    const char *best = NULL;
    size_t best_d = (size_t)-1;
    size_t limit = strlen(word) / 3 + 1;
    if (limit < 2)
        limit = 2;
    for (size_t k = 0; k < n; k++) {
        size_t d = edit_distance(word, candidates[k]);
        if (d < best_d) {
            best_d = d;
            best = candidates[k];
        }
    }
    return best_d <= limit ? best : NULL;
}
