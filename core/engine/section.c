/* section.c — one INI section checked against a declaration (an mcf_param_spec array, the
 * core's or a plugin's): unknown keys with the nearest valid one, required keys, typed and
 * ranged values, and lists or linspaces as scan axes; then the checked section read by key
 * name and written back as config.ini text.  Which sections exist, and in which order they
 * are checked and written, is setup.c's business. */
#define _POSIX_C_SOURCE 200809L
#include "setup.h"
#include "axes.h"

#include <stdlib.h>
#include <string.h>

static int unknown_key_error(const mcf_config_entry *e, const mcf_param_spec *specs,
                             const char *owner)
{
    const char *cands[256];
    size_t n = 0;
    char where[512], valid[2048] = "";
    size_t used = 0;
    for (; specs && specs[n].name && n < 256; n++) {
        cands[n] = specs[n].name;
        used += (size_t)snprintf(valid + used, used < sizeof valid ? sizeof valid - used : 0,
                                 "%s%s", n ? ", " : "", specs[n].name);
    }
    const char *near = mcfe_nearest_word(e->key, cands, n);
    mcfe_config_where(e, where, sizeof where);
    if (near)
        return mcf_fail(MCF_EINVAL, "%s: [%s] unknown key '%s' for %s; did you mean '%s'? "
                        "(valid keys: %s)", where, e->section, e->key, owner, near, valid);
    return mcf_fail(MCF_EINVAL, "%s: [%s] unknown key '%s' for %s (valid keys: %s)", where,
                    e->section, e->key, owner, n ? valid : "none");
}

int mcfe_section_check(mcf_config *c, const char *section, const mcf_param_spec *specs,
                       const char *owner, int section_index, mcf_section *out, mcf_axis **axes,
                       size_t *n_axes)
{
    size_t n = mcfi_spec_count(specs);
    memset(out, 0, sizeof *out);
    out->name = section;
    out->specs = specs;
    out->n = n;
    out->single = calloc(n ? n : 1, sizeof *out->single);
    out->axis = calloc(n ? n : 1, sizeof *out->axis);
    out->text = calloc(n ? n : 1, sizeof *out->text);
    out->where = calloc(n ? n : 1, sizeof *out->where);
    if (!out->single || !out->axis || !out->text || !out->where)
        return mcf_fail(MCF_ENOMEM, "out of memory");
    /* unknown keys first, in file order (the temperature's and the time step's passes check
     * one key only) */
    for (size_t k = 0; k < c->n && section_index != 2 && section_index != 4; k++) {
        mcf_config_entry *e = &c->entries[k];
        if (strcmp(e->section, section) != 0)
            continue;
        size_t j = 0;
        while (j < n && strcmp(specs[j].name, e->key) != 0)
            j++;
        if (j == n)
            return unknown_key_error(e, specs, owner);
        e->used = 1;
    }
    for (size_t j = 0; j < n; j++) {
        const mcf_param_spec *s = &specs[j];
        mcf_config_entry *e = mcfi_config_find(c, section, s->name);
        out->axis[j] = -1;
        char where[512] = "";
        const char *text;
        if (e) {
            text = e->value;
            mcfe_config_where(e, where, sizeof where);
            size_t line = strlen(s->name) + 3 + strlen(text);
            if (line > MCFI_CONFIG_LINE_MAX)
                return mcf_fail(MCF_EINVAL, "%s: [%s] %s: the value is %zu characters, and "
                                "config.ini would hold it in a line of %zu, more than the %d "
                                "`mcf resume` reads back; shorten it (a scan: write "
                                "first:last:count)", where, section, s->name, strlen(text),
                                line, MCFI_CONFIG_LINE_MAX);
        } else if (s->default_value) {
            text = s->default_value;
        } else if (s->flags & MCF_PARAM_OPTIONAL_) {
            continue;
        } else {
            char allowed[256];
            mcfe_spec_describe(s, allowed, sizeof allowed);
            return mcf_fail(MCF_EINVAL, "%s: [%s] %s is required (%s): %s; add `%s = ...` "
                            "under [%s]", c->path, section, s->name, allowed,
                            s->doc ? s->doc : "", s->name, section);
        }
        out->text[j] = strdup(text);
        if (where[0] && !(out->where[j] = strdup(where)))
            return mcf_fail(MCF_ENOMEM, "out of memory");
        if (!out->text[j])
            return mcf_fail(MCF_ENOMEM, "out of memory");
        if (s->flags & MCF_PARAM_SKIP_)
            continue;
        int scan_ok = !(s->flags & MCF_PARAM_NO_SCAN);
        int as_axis = mcfi_is_axis_text(s, text) || (section_index == 2);
        if (as_axis && !scan_ok)
            return mcf_fail(MCF_EINVAL, "%s: [%s] %s = %s: this key takes one value, not a "
                            "list or linspace", where, section, s->name, text);
        if (as_axis) {
            mcf_axis *ax = realloc(*axes, (*n_axes + 1) * sizeof **axes);
            if (!ax)
                return mcf_fail(MCF_ENOMEM, "out of memory");
            *axes = ax;
            mcf_axis *a = &ax[*n_axes];
            memset(a, 0, sizeof *a);
            a->name = strdup(section_index == 2 ? "T" : s->name);
            a->section = section_index;
            a->spec_index = j;
            (*n_axes)++;
            int rc = a->name ? mcfe_axis_parse(s, text, &a->values, &a->n)
                             : mcf_fail(MCF_ENOMEM, "out of memory");
            if (rc)
                return mcf_fail_prefix(rc, "%s: [%s] %s", where[0] ? where : c->path, section,
                                       s->name);
            out->axis[j] = (long)(*n_axes - 1);
        } else {
            int rc = mcfi_value_parse(s, text, &out->single[j]);
            if (rc)
                return mcf_fail_prefix(rc, "%s: [%s] %s", where[0] ? where : c->path, section,
                                       s->name);
        }
    }
    return MCF_OK;
}

void mcfe_section_release(mcf_section *sec)
{
    for (size_t j = 0; j < sec->n; j++) {
        if (sec->single)
            mcfe_value_release(&sec->single[j]);
        if (sec->text)
            free(sec->text[j]);
        if (sec->where)
            free(sec->where[j]);
    }
    free(sec->where);
    free(sec->single);
    free(sec->axis);
    free(sec->text);
    memset(sec, 0, sizeof *sec);
}

/* The index of key in the section's declaration, or -1. */
static long find_key(const mcf_section *sec, const char *key)
{
    for (size_t j = 0; j < sec->n; j++)
        if (!strcmp(sec->specs[j].name, key))
            return (long)j;
    return -1;
}

const char *mcfe_section_text(const mcf_section *sec, const char *key)
{
    long j = find_key(sec, key);
    return j >= 0 ? sec->text[j] : NULL;
}

void mcfe_section_params(const mcf_section *sec, const char *origin, mcf_params *out)
{
    memset(out, 0, sizeof *out);
    out->section = sec->name;
    out->origin = origin;
    out->specs = sec->specs;
    out->n = sec->n;
    out->values = sec->single;
    out->where = sec->where;
}

/* Whether a single value is its spec's default, compared as values (so that "walkers = 01"
 * is the default 1, as the numeric check it replaces had it). */
static int is_default(const mcf_param_spec *s, const mcf_value *v)
{
    mcf_value d;
    if (!v->text || mcfi_value_parse(s, s->default_value, &d))
        return 0;
    int same;
    switch (s->type) {
    case MCF_PARAM_INT: same = v->i == d.i; break;
    case MCF_PARAM_REAL: same = v->r == d.r; break;
    case MCF_PARAM_BOOL: same = v->b == d.b; break;
    case MCF_PARAM_CHOICE: same = v->i == d.i; break;
    default: same = !strcmp(v->text, d.text); break;
    }
    mcfe_value_release(&d);
    return same;
}

/* Whether key j goes into config.ini: it has a value, and MCF_PARAM_ECHO_IF_CHANGED keys
 * only when it is not the default (a scan axis never is). */
static int echoed(const mcf_section *sec, size_t j)
{
    const mcf_param_spec *s = &sec->specs[j];
    if (!sec->text[j])
        return 0;
    if (!(s->flags & MCF_PARAM_ECHO_IF_CHANGED) || !s->default_value)
        return 1;
    if (s->flags & MCF_PARAM_SKIP_) { /* checked by another pass: its text parsed here */
        mcf_value v;
        if (mcfi_is_axis_text(s, sec->text[j]) || mcfi_value_parse(s, sec->text[j], &v))
            return 1;
        const int changed = !is_default(s, &v);
        mcfe_value_release(&v);
        return changed;
    }
    return sec->axis[j] >= 0 || !is_default(s, &sec->single[j]);
}

/* echoed(), and with c given also in c. */
static int written(const mcf_section *sec, size_t j, const mcf_config *c)
{
    return echoed(sec, j) && (!c || mcfi_config_find(c, sec->name, sec->specs[j].name));
}

void mcfe_section_write(mcf_text *t, const mcf_section *sec)
{
    mcfi_section_write_given(t, sec, NULL);
}

void mcfi_section_write_given(mcf_text *t, const mcf_section *sec, const mcf_config *c)
{
    size_t given = 0;
    for (size_t j = 0; j < sec->n; j++)
        given += written(sec, j, c);
    if (c && !given)
        return;
    mcfe_text_printf(t, "[%s]\n", sec->name);
    for (size_t j = 0; j < sec->n; j++)
        if (written(sec, j, c))
            mcfe_text_printf(t, "%s = %s\n", sec->specs[j].name, sec->text[j]);
    mcfe_text_printf(t, "\n");
}
