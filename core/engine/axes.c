/* axes.c — scan axes and the grid of scan points: a value written as a list "a, b, c" or a
 * linspace "first:last:count" becomes an axis of parsed values, and a scan point's index
 * maps to one value per axis (the last axis fastest).  Which keys may be axes, and in
 * which order the axes stand, is section.c's and setup.c's business. */
#define _POSIX_C_SOURCE 200809L
#include "axes.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* "first:last:count" of a numeric key into count values.  copy is text's writable copy. */
static int parse_linspace(const mcf_param_spec *spec, const char *text, char *copy,
                          mcf_value **values, size_t *n)
{
    int rc = MCF_OK;
    char *p1 = strchr(copy, ':');
    char *p2 = p1 ? strchr(p1 + 1, ':') : NULL;
    char *e1, *e2, *e3;
    if (!p2 || strchr(p2 + 1, ':') || strchr(copy, ','))
        return mcf_fail(MCF_EINVAL, "'%s' is not a linspace: write first:last:count", text);
    *p1 = *p2 = '\0';
    double a = strtod(mcfi_trim(copy), &e1), b = strtod(mcfi_trim(p1 + 1), &e2);
    long cnt = strtol(mcfi_trim(p2 + 1), &e3, 10);
    if (*e1 || *e2 || *e3 || !mcfi_trim(copy)[0] || !mcfi_trim(p1 + 1)[0] ||
        !mcfi_trim(p2 + 1)[0] || !isfinite(a) || !isfinite(b))
        return mcf_fail(MCF_EINVAL,
                        "'%s' is not a linspace: write first:last:count with numbers", text);
    if (cnt < 2 || cnt > 1000000)
        return mcf_fail(MCF_EINVAL, "'%s': the count of a linspace must be in [2, 1000000]",
                        text);
    mcf_value *v = calloc((size_t)cnt, sizeof *v);
    if (!v)
        return mcf_fail(MCF_ENOMEM, "out of memory");
    for (long k = 0; k < cnt && !rc; k++) {
        double x = a + (b - a) * (double)k / (double)(cnt - 1);
        char buf[64];
        if (!isfinite(x)) {
            /* finite ends can still give inf: b - a overflows */
            rc = mcf_fail(MCF_EINVAL, "'%s': point %ld of the linspace is not a finite number",
                          text, k + 1);
            break;
        }
        if (spec->type == MCF_PARAM_INT) {
            /* (long) of a double outside long's range is undefined: check first (LONG_MIN
             * is a power of two, exact in a double; LONG_MAX is not) */
            if (!(x >= (double)LONG_MIN && x < -(double)LONG_MIN)) {
                rc = mcf_fail(MCF_EINVAL, "'%s': point %ld of the linspace is %.10g, outside "
                              "the integers this key can hold", text, k + 1, x);
                break;
            }
            if (fabs(x - round(x)) > 1e-9) {
                rc = mcf_fail(MCF_EINVAL,
                              "'%s': point %ld of the linspace is %.10g, not an integer",
                              text, k + 1, x);
                break;
            }
            snprintf(buf, sizeof buf, "%ld", (long)round(x));
        } else {
            snprintf(buf, sizeof buf, "%.17g", x);
        }
        rc = mcfi_value_parse(spec, buf, &v[k]);
        if (!rc && spec->type == MCF_PARAM_REAL) {
            /* keep the exact double of the formula and a readable text */
            v[k].r = x;
            free(v[k].text);
            snprintf(buf, sizeof buf, "%.10g", x);
            v[k].text = strdup(buf);
            if (!v[k].text)
                rc = mcf_fail(MCF_ENOMEM, "out of memory");
        }
        *n = (size_t)k + 1;
    }
    *values = v;
    return rc;
}

/* "a, b, c" into one value per item.  copy is text's writable copy. */
static int parse_list(const mcf_param_spec *spec, const char *text, char *copy,
                      mcf_value **values, size_t *n)
{
    int rc = MCF_OK;
    size_t count = 1;
    for (const char *p = copy; *p; p++)
        count += *p == ',';
    mcf_value *v = calloc(count, sizeof *v);
    if (!v)
        return mcf_fail(MCF_ENOMEM, "out of memory");
    char *p = copy;
    size_t k = 0;
    for (size_t i = 0; i < count && !rc; i++) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0';
        char *item = mcfi_trim(p);
        if (!item[0]) {
            rc = mcf_fail(MCF_EINVAL, "'%s': item %zu of the list is empty", text, i + 1);
            break;
        }
        rc = mcfi_value_parse(spec, item, &v[k]);
        if (!rc)
            k++;
        p = comma ? comma + 1 : p + strlen(p);
    }
    *values = v;
    *n = k;
    return rc;
}

int mcfe_axis_parse(const mcf_param_spec *spec, const char *text, mcf_value **values, size_t *n)
{
    *values = NULL;
    *n = 0;
    char *copy = strdup(text);
    if (!copy)
        return mcf_fail(MCF_ENOMEM, "out of memory");
    int numeric = spec->type == MCF_PARAM_INT || spec->type == MCF_PARAM_REAL;
    int rc = numeric && strchr(copy, ':') ? parse_linspace(spec, text, copy, values, n)
                                          : parse_list(spec, text, copy, values, n);
    free(copy);
    if (rc) { /* nothing owned after a failure: the values parsed before the bad one go */
        for (size_t k = 0; *values && k < *n; k++)
            mcfe_value_release(&(*values)[k]);
        free(*values);
        *values = NULL;
        *n = 0;
    }
    return rc;
}

int mcfi_is_axis_text(const mcf_param_spec *spec, const char *text)
{
    int numeric = spec->type == MCF_PARAM_INT || spec->type == MCF_PARAM_REAL;
    return strchr(text, ',') || (numeric && strchr(text, ':'));
}

void mcfe_axes_free(mcf_axis *axes, size_t n)
{
    for (size_t a = 0; a < n; a++) {
        for (size_t v = 0; v < axes[a].n; v++)
            mcfe_value_release(&axes[a].values[v]);
        free(axes[a].values);
        free(axes[a].name);
    }
    free(axes);
}

const mcf_value *mcfi_setup_axis_value(const mcf_setup *s, size_t a, size_t point)
{
    size_t stride = 1;
    for (size_t b = a + 1; b < s->n_axes; b++)
        stride *= s->axes[b].n;
    return &s->axes[a].values[(point / stride) % s->axes[a].n];
}

long mcfi_timestep_axis(const mcf_setup *s)
{
    for (size_t a = 0; a < s->n_axes; a++)
        if (s->axes[a].section == 4)
            return (long)a;
    return -1;
}

double mcfi_setup_timestep(const mcf_setup *s, size_t point)
{
    const long a = mcfi_timestep_axis(s);
    return a >= 0 ? mcfi_setup_axis_value(s, (size_t)a, point)->r : s->dmc_tau;
}

int mcfe_setup_params(const mcf_setup *s, size_t point, int section, mcf_params **out)
{
    const mcf_section *sec = &s->sections[section];
    size_t n = sec->n;
    mcf_params *p = calloc(1, sizeof *p + (n ? n : 1) * sizeof(mcf_value));
    if (!p)
        return mcf_fail(MCF_ENOMEM, "out of memory");
    p->values = (mcf_value *)(p + 1);
    p->section = sec->name;
    p->origin = s->config_path;
    p->specs = sec->specs;
    p->where = sec->where;
    p->n = n;
    for (size_t j = 0; j < n; j++)
        p->values[j] = sec->axis[j] >= 0 ? *mcfi_setup_axis_value(s, (size_t)sec->axis[j], point)
                                         : sec->single[j];
    for (size_t a = 0; a < s->n_axes; a++)
        if (s->axes[a].section == 2) {
            p->has_temperature = 1;
            p->temperature = mcfi_setup_axis_value(s, a, point)->r;
        }
    *out = p;
    return MCF_OK;
}
