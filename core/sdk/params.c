/* params.c — the getters of mcf/params.h over the values the host hands a plugin
 * (struct mcf_params, mcf/host.h), and the names of the parameter types.  Parsing and
 * checking the values of a configuration is the engine's (core/engine/param_values.c). */
#define _POSIX_C_SOURCE 200809L
#include "mcf/host.h"
#include "mcf/error.h"

#include <math.h>
#include <string.h>

const char *mcf_param_type_name(mcf_param_type t)
{
    switch (t) {
    case MCF_PARAM_INT: return "integer";
    case MCF_PARAM_REAL: return "real number";
    case MCF_PARAM_BOOL: return "boolean (true/false)";
    case MCF_PARAM_STRING: return "text";
    case MCF_PARAM_CHOICE: return "choice";
    }
    return "?";
}

/* ---- the getters of mcf/params.h ---------------------------------------------------- */

static int lookup(const mcf_params *p, const char *key, mcf_param_type want, const mcf_value **v)
{
    if (!p || !key)
        return mcf_fail(MCF_EINVAL, "mcf_params getter called with NULL");
    for (size_t k = 0; k < p->n; k++) {
        if (strcmp(p->specs[k].name, key) != 0)
            continue;
        mcf_param_type t = p->specs[k].type;
        int ok = t == want || (want == MCF_PARAM_STRING && t == MCF_PARAM_CHOICE);
        if (!ok)
            return mcf_fail(MCF_EINVAL, "[%s] %s is declared as %s, not %s", p->section, key,
                            mcf_param_type_name(t), mcf_param_type_name(want));
        if (!p->values[k].text)
            return mcf_fail(MCF_EINVAL, "[%s] %s has no value", p->section, key);
        *v = &p->values[k];
        return MCF_OK;
    }
    return mcf_fail(MCF_EINVAL, "[%s] %s is not a declared parameter", p->section, key);
}

int mcf_params_int(const mcf_params *p, const char *key, long *out)
{
    const mcf_value *v;
    int rc = lookup(p, key, MCF_PARAM_INT, &v);
    if (!rc)
        *out = v->i;
    return rc;
}

int mcf_params_real(const mcf_params *p, const char *key, double *out)
{
    const mcf_value *v;
    int rc = lookup(p, key, MCF_PARAM_REAL, &v);
    if (!rc)
        *out = v->r;
    return rc;
}

int mcf_params_bool(const mcf_params *p, const char *key, int *out)
{
    const mcf_value *v;
    int rc = lookup(p, key, MCF_PARAM_BOOL, &v);
    if (!rc)
        *out = v->b;
    return rc;
}

int mcf_params_string(const mcf_params *p, const char *key, const char **out)
{
    const mcf_value *v;
    int rc = lookup(p, key, MCF_PARAM_STRING, &v);
    if (!rc)
        *out = v->text;
    return rc;
}

int mcf_params_choice(const mcf_params *p, const char *key, int *index)
{
    const mcf_value *v;
    int rc = lookup(p, key, MCF_PARAM_CHOICE, &v);
    if (!rc)
        *index = (int)v->i;
    return rc;
}

int mcf_params_temperature(const mcf_params *p, double *out)
{
    if (!p || !p->has_temperature)
        return mcf_fail(MCF_EINVAL,
                        "this model needs a temperature: set [schedule] temperatures "
                        "(a list like 1.5, 2.0 or a linspace like 1.0:3.0:11)");
    if (!(p->temperature > 0) || !isfinite(p->temperature))
        return mcf_fail(MCF_EINVAL, "temperature T = %g in %s: a Boltzmann weight needs a "
                        "finite T > 0; fix [schedule] temperatures", p->temperature,
                        p->origin);
    *out = p->temperature;
    return MCF_OK;
}

const char *mcf_params_section(const mcf_params *p) { return p ? p->section : ""; }

int mcf_params_check_scale(const mcf_params *p, const char *model, const char *key,
                           const char *scale, double E, double T)
{
    const double e = fabs(E);
    if (isfinite(e * e * 1e20) && isfinite(8.0 * e / T))
        return MCF_OK;
    double v = NAN;
    for (size_t k = 0; p && k < p->n; k++)
        if (!strcmp(p->specs[k].name, key))
            v = p->values[k].r;
    return mcf_fail(MCF_EINVAL, "%s: %s: [%s] %s = %g: at T = %g the energies overflow: the "
                    "largest |energy| of a chain, %s = %g, must keep E^2 (summed over the "
                    "measurements) and E/T finite doubles, so E below about 1e144 and T above "
                    "E/1e307; give a smaller %s", model, mcf_params_where(p, key),
                    mcf_params_section(p), key, v, T, scale, e, key);
}

const char *mcf_params_where(const mcf_params *p, const char *key)
{
    if (!p)
        return "";
    for (size_t k = 0; key && p->where && k < p->n; k++)
        if (!strcmp(p->specs[k].name, key))
            return p->where[k] ? p->where[k] : p->origin;
    return p->origin;
}
const char *mcf_params_origin(const mcf_params *p) { return p ? p->origin : ""; }

int mcf_params_walker(const mcf_params *p, long *walker, long *walkers)
{
    if (!p || !walker || !walkers)
        return mcf_fail(MCF_EINVAL, "mcf_params_walker: NULL argument");
    *walker = p->walkers ? (long)p->walker : 0;
    *walkers = p->walkers ? (long)p->walkers : 1;
    return MCF_OK;
}
