/* labels.c — symbols and units of a run's columns: the model's labels checked when the
 * plugin loads, the core's for what it derives, and the "# labels:" line that carries them
 * into results.tsv and the curve files, so that `mcf plot` names a quantity "⟨|m|⟩" and an
 * axis "T / t" without the plugin.  Not here: how a plot sets them (core/program). */
#define _POSIX_C_SOURCE 200809L
#include "labels.h"

#include <stdlib.h>
#include <string.h>

#define LABEL_MAX 63

/* Why s is no good as a symbol or unit, or NULL: too long, control characters, broken
 * UTF-8. */
static const char *bad_text(const char *s)
{
    size_t n = strlen(s);
    if (n > LABEL_MAX)
        return "is longer than 63 bytes";
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        unsigned c = p[i];
        if (c < 0x20 || c == 0x7f)
            return "has a control character (a tab, a newline)";
        size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3
                                   : (c & 0xf8) == 0xf0 ? 4 : 0;
        if (len == 0 || (len == 2 && c < 0xc2) || i + len > n)
            return "is not UTF-8";
        for (size_t k = 1; k < len; k++)
            if ((p[i + k] & 0xc0) != 0x80)
                return "is not UTF-8";
        i += len;
    }
    return NULL;
}

int mcfi_labels_check(const char *path, const mcf_observable *obs, const mcf_label *l,
                      const mcf_param_spec *params)
{
    for (size_t k = 0; l && l[k].name; k++) {
        const char *name = l[k].name;
        int known = !strcmp(name, "T");
        for (size_t o = 0; !known && obs[o].name; o++)
            known = !strcmp(obs[o].name, name) || (obs[o].axis && !strcmp(obs[o].axis, name));
        for (size_t p = 0; !known && params && params[p].name; p++)
            known = !strcmp(params[p].name, name);
        if (!known)
            return mcf_fail(MCF_EPLUGIN, "%s: label '%s' names no observable, parameter, "
                            "curve axis or T of the model", path, name);
        for (size_t j = 0; j < k; j++)
            if (!strcmp(l[j].name, name))
                return mcf_fail(MCF_EPLUGIN, "%s: label '%s' is given twice", path, name);
        const char *why = NULL, *what = "symbol";
        if (l[k].symbol && !l[k].symbol[0])
            why = "is empty (NULL gives the name)";
        else if (l[k].symbol)
            why = bad_text(l[k].symbol);
        if (!why && l[k].unit) {
            what = "unit";
            why = bad_text(l[k].unit);
            if (!why && strpbrk(l[k].unit, "[]"))
                why = "has a bracket '[' or ']' (it ends the unit in results.tsv)";
        }
        if (why)
            return mcf_fail(MCF_EPLUGIN, "%s: label '%s': the %s '%s' %s", path, name, what,
                            what[0] == 's' ? l[k].symbol : l[k].unit, why);
    }
    return MCF_OK;
}

void mcfi_labels_free(mcfi_labels *l)
{
    for (size_t k = 0; k < l->n; k++) {
        free(l->v[k].name);
        free(l->v[k].symbol);
        free(l->v[k].unit);
    }
    free(l->v);
    memset(l, 0, sizeof *l);
}

const mcfi_label *mcfi_labels_find(const mcfi_labels *l, const char *name)
{
    for (size_t k = 0; k < l->n; k++)
        if (!strcmp(l->v[k].name, name))
            return &l->v[k];
    return NULL;
}

static int add(mcfi_labels *l, const char *name, const char *symbol, const char *unit)
{
    mcfi_label *grown = realloc(l->v, (l->n + 1) * sizeof *grown);
    if (!grown)
        return -1;
    l->v = grown;
    mcfi_label *x = &l->v[l->n];
    x->name = strdup(name);
    x->symbol = strdup(symbol ? symbol : name);
    x->unit = strdup(unit ? unit : "");
    if (!x->name || !x->symbol || !x->unit) {
        free(x->name);
        free(x->symbol);
        free(x->unit);
        return -1;
    }
    l->n++;
    return 0;
}

/* A unit written as more than one symbol ("1/t", "J s") is parenthesized before a power
 * or a division: (1/t)². */
static int compound(const char *u)
{
    return strpbrk(u, "/ *^") != NULL || strstr(u, "·") != NULL;
}

/* unit², or "" when unit is "" */
static void squared(const char *u, char *out, size_t n)
{
    if (!u[0])
        out[0] = '\0';
    else
        snprintf(out, n, compound(u) ? "(%s)²" : "%s²", u);
}

int mcfi_labels_build(const mcf_run *r, mcfi_labels *out)
{
    memset(out, 0, sizeof *out);
    const mcfi_model *ops = r->model;
    const mcf_observable *obs = ops->observables;
    int rc = 0;
    if (ops->labels)
        for (const mcf_label *l = ops->labels; l->name && !rc; l++)
            rc = add(out, l->name, l->symbol, l->unit);
    /* the unit of energy: T's (k_B = 1), else the energy observable's */
    const mcfi_label *T = mcfi_labels_find(out, "T");
    const int e = r->role[MCF_ROLE_ENERGY], m = r->role[MCF_ROLE_ORDER];
    const mcfi_label *el = e >= 0 ? mcfi_labels_find(out, obs[r->scalar[e]].name) : NULL;
    const mcfi_label *ml = m >= 0 ? mcfi_labels_find(out, obs[r->scalar[m]].name) : NULL;
    char E[LABEL_MAX + 1], E2[LABEL_MAX + 8], chi[3 * LABEL_MAX], m2[LABEL_MAX + 8];
    snprintf(E, sizeof E, "%s", T && T->unit[0] ? T->unit : el ? el->unit : "");
    squared(E, E2, sizeof E2);
    /* chi = N (<m^2> - <|m|>^2) / T: the order parameter's unit squared over energy */
    squared(ml ? ml->unit : "", m2, sizeof m2);
    if (!E[0])
        chi[0] = '\0';
    else
        snprintf(chi, sizeof chi, compound(E) ? "%s/(%s)" : "%s/%s", m2[0] ? m2 : "1", E);
    if (!rc && !T && r->setup->has_temperature)
        rc = add(out, "T", "T", E);
    if (!rc && !mcfi_labels_find(out, "specific_heat"))
        rc = add(out, "specific_heat", "C", "");
    if (!rc && !mcfi_labels_find(out, "susceptibility"))
        rc = add(out, "susceptibility", "χ", chi);
    if (!rc && !mcfi_labels_find(out, "binder"))
        rc = add(out, "binder", "U_4", "");
    if (!rc && !mcfi_labels_find(out, "xi_over_l"))
        rc = add(out, "xi_over_l", "ξ/L", "");
    if (!rc && !mcfi_labels_find(out, "variance"))
        rc = add(out, "variance", "Var(E)/N", E2);
    if (!rc && !mcfi_labels_find(out, "acceptance"))
        rc = add(out, "acceptance", "acceptance", "");
    if (rc) {
        mcfi_labels_free(out);
        return mcf_fail(MCF_ENOMEM, "out of memory for the labels of the results");
    }
    return MCF_OK;
}

void mcfi_labels_line(const mcfi_labels *l, const char *const *columns, size_t n, mcf_text *t)
{
    int first = 1;
    for (size_t c = 0; c < n; c++) {
        const mcfi_label *x = mcfi_labels_find(l, columns[c]);
        if (!x)
            continue;
        size_t ls = strlen(x->symbol);
        int bracket = x->unit[0] || (ls && x->symbol[ls - 1] == ']');
        mcfe_text_printf(t, "%s%s: %s%s%s%s", first ? "# labels: " : "\t", x->name, x->symbol,
                         bracket ? " [" : "", x->unit, bracket ? "]" : "");
        first = 0;
    }
    if (!first)
        mcfe_text_printf(t, "\n");
}
