/* plugin_tables.c — the checks of an evaluator's ops table at load (plugin.c): the first
 * ABI's tables (their minimum sizes and required ops) and ABI 2's, per kind; each refusal
 * names the file and the op. */
#include "internal.h"

#include <stddef.h>

#include "mcf/abi1_band.h" /* ABI 1's tables, private to mcf since 1.0: checked at load */
#include "mcf/abi1_fermion.h"
#include "mcf/abi1_orbital.h"
#include "mcf/mcf.h"

/* minimum sizes of the first ABI's vtables */

/* the first fermion-evaluator ABI ends with occupation; delta_action was appended */
#define FERMION_OPS_MIN_SIZE (offsetof(mcf_fermion_ops, occupation) + sizeof(void *))

static int check_fermion_ops(const char *path, const mcf_fermion_ops *ops)
{
    if (ops->struct_size < FERMION_OPS_MIN_SIZE)
        return mcf_fail(MCF_EPLUGIN, "%s: fermion-evaluator ops struct_size %u is smaller than "
                        "ABI 1's %zu bytes; rebuild the plugin against these headers", path,
                        ops->struct_size, (size_t)FERMION_OPS_MIN_SIZE);
    struct {
        const char *name;
        int missing;
    } req[] = {
        {"create", !ops->create},         {"destroy", !ops->destroy},
        {"energy_points", !ops->energy_points}, {"energies", !ops->energies},
        {"dos", !ops->dos},               {"ldos", !ops->ldos},
        {"green", !ops->green},           {"occupation", !ops->occupation},
    };
    for (size_t k = 0; k < sizeof req / sizeof req[0]; k++)
        if (req[k].missing)
            return mcf_fail(MCF_EPLUGIN, "%s: required fermion-evaluator op '%s' is NULL",
                            path, req[k].name);
    return MCF_OK;
}

/* an ABI-2 table: every op present, what `provides` promises with it */
static int check_fermion_evaluator(const char *path, const mcf_fermion_evaluator *ops)
{
    if (ops->struct_size < MCF_FERMION_EVALUATOR_1_0_SIZE)
        return mcf_fail(MCF_EPLUGIN, "%s: fermion-evaluator table struct_size %u is smaller "
                        "than ABI 2's %zu bytes; rebuild the plugin against these headers",
                        path, ops->struct_size, (size_t)MCF_FERMION_EVALUATOR_1_0_SIZE);
    const unsigned p = ops->provides;
    struct {
        const char *name;
        int missing;
    } req[] = {
        {"create", !ops->create},
        {"destroy", !ops->destroy},
        {"spectra", !ops->spectra},
        {"occupation", (p & (MCF_PROVIDES_OCCUPATION | MCF_PROVIDES_OCCUPATION_DT)) &&
                           !ops->occupation},
        {"change_action", (p & MCF_PROVIDES_CHANGE_ACTION) && !ops->change_action},
        {"action", (p & MCF_PROVIDES_ACTION) && !ops->action},
        {"reconstruct", (p & MCF_PROVIDES_MOMENTS) && !ops->reconstruct},
        {"density_matrix", (p & MCF_PROVIDES_DENSITY_MATRIX) &&
                               !MCF_HAS(mcf_fermion_evaluator, ops, density_matrix)},
        {"pseudofermion", (p & MCF_PROVIDES_PSEUDOFERMION) &&
                              !MCF_HAS(mcf_fermion_evaluator, ops, pseudofermion)},
        {"response", (p & MCF_PROVIDES_RESPONSE) &&
                         !MCF_HAS(mcf_fermion_evaluator, ops, response)},
        {"vector_moments", (p & MCF_PROVIDES_VECTOR_MOMENTS) &&
                               !MCF_HAS(mcf_fermion_evaluator, ops, vector_moments)},
    };
    for (size_t k = 0; k < sizeof req / sizeof req[0]; k++)
        if (req[k].missing)
            return mcf_fail(MCF_EPLUGIN, "%s: fermion-evaluator op '%s' is NULL%s", path,
                            req[k].name, k < 3 ? "" : " though `provides` promises it");
    return MCF_OK;
}

#define ORBITAL_OPS_MIN_SIZE (offsetof(mcf_orbital_ops, vgl) + sizeof(void *))

static int check_orbital_ops(const char *path, const mcf_orbital_ops *ops)
{
    if (ops->struct_size < ORBITAL_OPS_MIN_SIZE)
        return mcf_fail(MCF_EPLUGIN, "%s: orbital-evaluator ops struct_size %u is smaller than "
                        "ABI 1's %zu bytes; rebuild the plugin against these headers", path,
                        ops->struct_size, (size_t)ORBITAL_OPS_MIN_SIZE);
    struct {
        const char *name;
        int missing;
    } req[] = {
        {"create", !ops->create}, {"destroy", !ops->destroy}, {"orbitals", !ops->orbitals},
        {"values", !ops->values}, {"vgl", !ops->vgl},
    };
    for (size_t k = 0; k < sizeof req / sizeof req[0]; k++)
        if (req[k].missing)
            return mcf_fail(MCF_EPLUGIN, "%s: required orbital-evaluator op '%s' is NULL",
                            path, req[k].name);
    if (ops->struct_size < MCF_ORBITAL_OPS_DET_SIZE)
        return MCF_OK; /* built before the determinant ops: it has none */
    struct {
        const char *name;
        int set;
    } det[] = {
        {"det_create", ops->det_create != NULL}, {"det_destroy", ops->det_destroy != NULL},
        {"det_set", ops->det_set != NULL},       {"det_get", ops->det_get != NULL},
        {"det_trial", ops->det_trial != NULL},   {"det_ratio", ops->det_ratio != NULL},
        {"det_accept", ops->det_accept != NULL}, {"det_refresh", ops->det_refresh != NULL},
        {"det_local", ops->det_local != NULL},
    };
    for (size_t k = 1; k < sizeof det / sizeof det[0]; k++)
        if (det[k].set != det[0].set)
            return mcf_fail(MCF_EPLUGIN, "%s: the optional determinant ops come all or none, "
                            "but '%s' is %s and '%s' is %s", path, det[0].name,
                            det[0].set ? "set" : "NULL", det[k].name,
                            det[k].set ? "set" : "NULL");
    return MCF_OK;
}

/* an ABI-2 orbital table: create, destroy and evaluate, and every op of each bit that
 * `provides` states (walker_sweep only with the determinants) */
static int check_orbital_evaluator(const char *path, const mcf_orbital_evaluator *ops)
{
    if (ops->struct_size < MCF_ORBITAL_EVALUATOR_SIZE_1_0)
        return mcf_fail(MCF_EPLUGIN, "%s: orbital-evaluator table struct_size %u is smaller "
                        "than ABI 2's %zu bytes; rebuild the plugin against these headers",
                        path, ops->struct_size, (size_t)MCF_ORBITAL_EVALUATOR_SIZE_1_0);
    const unsigned p = ops->provides;
    const int det = (p & MCF_ORBITAL_DETERMINANTS) != 0;
    const int drift_covered = ops->struct_size >= offsetof(mcf_orbital_evaluator,
                                                           walker_drift_sweep) +
                                                      sizeof ops->walker_drift_sweep;
    struct {
        const char *name;
        int missing;
    } req[] = {
        {"create", !ops->create},
        {"destroy", !ops->destroy},
        {"evaluate", !ops->evaluate},
        {"det_set", det && !ops->det_set},
        {"det_get", det && !ops->det_get},
        {"det_trial", det && !ops->det_trial},
        {"det_ratio", det && !ops->det_ratio},
        {"det_accept", det && !ops->det_accept},
        {"det_refresh", det && !ops->det_refresh},
        {"det_local", det && !ops->det_local},
        {"walker_sweep", (p & MCF_ORBITAL_WALKER_SWEEP) && !ops->walker_sweep},
        /* mcf 1.2's appended op: promised only by a table that reaches it (an older one's
         * bit is not believed: orbital_calls.c's abi2_provides) */
        {"walker_drift_sweep", (p & MCF_ORBITAL_DRIFT_SWEEP) && drift_covered &&
                                   !ops->walker_drift_sweep},
    };
    for (size_t k = 0; k < sizeof req / sizeof req[0]; k++)
        if (req[k].missing)
            return mcf_fail(MCF_EPLUGIN, "%s: orbital-evaluator op '%s' is NULL%s", path,
                            req[k].name, k < 3 ? "" : " though `provides` promises it");
    if ((p & MCF_ORBITAL_WALKER_SWEEP) && !det)
        return mcf_fail(MCF_EPLUGIN, "%s: the orbital evaluator's `provides` states "
                        "MCF_ORBITAL_WALKER_SWEEP without MCF_ORBITAL_DETERMINANTS (a sweep "
                        "moves the determinants it keeps)", path);
    if ((p & MCF_ORBITAL_DRIFT_SWEEP) && drift_covered && !det)
        return mcf_fail(MCF_EPLUGIN, "%s: the orbital evaluator's `provides` states "
                        "MCF_ORBITAL_DRIFT_SWEEP without MCF_ORBITAL_DETERMINANTS (a sweep "
                        "moves the determinants it keeps)", path);
    return MCF_OK;
}

#define BAND_OPS_MIN_SIZE (offsetof(mcf_band_ops, fermi_level) + sizeof(void *))

static int check_band_ops(const char *path, const mcf_band_ops *ops)
{
    if (ops->struct_size < BAND_OPS_MIN_SIZE)
        return mcf_fail(MCF_EPLUGIN, "%s: band-evaluator ops struct_size %u is smaller than "
                        "ABI 1's %zu bytes; rebuild the plugin against these headers", path,
                        ops->struct_size, (size_t)BAND_OPS_MIN_SIZE);
    struct {
        const char *name;
        int missing;
    } req[] = {
        {"create", !ops->create}, {"destroy", !ops->destroy}, {"range", !ops->range},
        {"dos", !ops->dos}, {"occupation", !ops->occupation},
        {"fermi_level", !ops->fermi_level},
    };
    for (size_t k = 0; k < sizeof req / sizeof req[0]; k++)
        if (req[k].missing)
            return mcf_fail(MCF_EPLUGIN, "%s: required band-evaluator op '%s' is NULL", path,
                            req[k].name);
    return MCF_OK;
}

/* a dynamics table (mcf 1.2): every required op present */
static int check_dynamics_evaluator(const char *path, const mcf_dynamics_evaluator *ops)
{
    const size_t min = offsetof(mcf_dynamics_evaluator, observe) + sizeof(void *);
    if (ops->struct_size < min)
        return mcf_fail(MCF_EPLUGIN, "%s: dynamics-evaluator table struct_size %u is smaller "
                        "than mcf 1.2's %zu bytes; rebuild the plugin against these headers",
                        path, ops->struct_size, min);
    const char *missing = !ops->plan ? "plan" : !ops->create ? "create"
                          : !ops->destroy ? "destroy" : !ops->step ? "step"
                          : !ops->steps_done ? "steps_done" : !ops->observe ? "observe" : NULL;
    if (missing)
        return mcf_fail(MCF_EPLUGIN, "%s: required dynamics-evaluator op '%s' is NULL", path,
                        missing);
    const size_t rows = offsetof(mcf_dynamics_evaluator, row_read) + sizeof(void *);
    const int n_rows = ops->struct_size < rows ? 0 : !!ops->row_bytes + !!ops->row_write +
                                                         !!ops->row_read;
    if (n_rows == 1 || n_rows == 2)
        return mcf_fail(MCF_EPLUGIN, "%s: the dynamics evaluator's checkpoint ops row_bytes, "
                        "row_write and row_read come together (%d of 3 given)", path, n_rows);
    return MCF_OK;
}

/* an ABI-2 band table: every op present */
static int check_band_evaluator(const char *path, const mcf_band_evaluator *ops)
{
    if (ops->struct_size < sizeof(mcf_band_evaluator))
        return mcf_fail(MCF_EPLUGIN, "%s: band-evaluator table struct_size %u is smaller than "
                        "ABI 2's %zu bytes; rebuild the plugin against these headers", path,
                        ops->struct_size, sizeof(mcf_band_evaluator));
    const char *missing = !ops->create ? "create" : !ops->destroy ? "destroy"
                          : !ops->range ? "range" : !ops->dos ? "dos"
                          : !ops->occupation ? "occupation"
                          : !ops->fermi_level ? "fermi_level" : NULL;
    if (missing)
        return mcf_fail(MCF_EPLUGIN, "%s: required band-evaluator op '%s' is NULL", path,
                        missing);
    return MCF_OK;
}

int mcfi_plugin_check_table(const char *path, int kind, int abi2, const void *ops)
{
    switch (kind) {
    case MCF_PLUGIN_FERMION_EVALUATOR:
        return abi2 ? check_fermion_evaluator(path, ops) : check_fermion_ops(path, ops);
    case MCF_PLUGIN_ORBITAL_EVALUATOR:
        return abi2 ? check_orbital_evaluator(path, ops) : check_orbital_ops(path, ops);
    case MCF_PLUGIN_BAND_EVALUATOR:
        return abi2 ? check_band_evaluator(path, ops) : check_band_ops(path, ops);
    case MCF_PLUGIN_DYNAMICS_EVALUATOR:
        return abi2 ? check_dynamics_evaluator(path, ops)
                    : mcf_fail(MCF_EPLUGIN, "%s: a dynamics evaluator needs ABI 2 (mcf 1.2 "
                               "headers)", path);
    default:
        return MCF_OK;
    }
}
