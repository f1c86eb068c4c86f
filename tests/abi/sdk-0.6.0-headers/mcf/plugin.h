/* mcf/plugin.h — the descriptor every plugin exports.
 *
 * A plugin is a shared object named mcf-<name>.so that exports one function,
 *
 *     const mcf_plugin_info *mcf_plugin_entry(void);
 *
 * returning a pointer to a static descriptor (write MCF_PLUGIN(info) below).  The core
 * refuses a plugin whose abi_version differs from its own MCF_ABI_VERSION, whose
 * struct_size is smaller than the first ABI's descriptor, whose name differs from its file
 * name, or whose ops table lacks a required operation, naming the file and the problem.
 *
 * Versioning follows SQLite's VFS: descriptors and vtables start with their size and
 * only ever grow at the end.  The core reads a field only when struct_size covers it. */
#ifndef MCF_PLUGIN_H
#define MCF_PLUGIN_H

#include "mcf/api.h"

#include <stdint.h>
#include <stddef.h>
#include "mcf/version.h"
#include "mcf/params.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum mcf_plugin_kind {
    MCF_PLUGIN_MODEL = 1,              /* ops: mcf_model_ops (mcf/model.h) */
    MCF_PLUGIN_FERMION_EVALUATOR = 2,  /* ops: defined by the fermion evaluator header */
    MCF_PLUGIN_ORBITAL_EVALUATOR = 3,  /* ops: defined by the orbital evaluator header */
    MCF_PLUGIN_BAND_EVALUATOR = 4      /* ops: mcf_band_ops (mcf/band.h) */
} mcf_plugin_kind;

typedef struct mcf_plugin_info {
    uint32_t abi_version;          /* MCF_ABI_VERSION the plugin was built against */
    uint32_t struct_size;          /* sizeof(mcf_plugin_info) it was built with */
    mcf_plugin_kind kind;
    const char *name;              /* as written in configs; the file is mcf-<name>.so */
    const char *version;           /* the plugin's own version, free form */
    const char *summary;           /* one line for `mcf plugins` */
    const mcf_param_spec *params;  /* declared parameters, NULL-name terminated; may be NULL */
    const void *ops;               /* the kind's vtable, static storage */
    /* Appended (read only when struct_size covers them): how `[run] evaluator = auto`
     * chooses among the evaluators of the kind the model asks for (mcf_model_ops
     * evaluator_kind).  Candidates are those with auto_priority > 0, tried from the highest
     * priority down (ties: by name); the first whose probe says usable is taken.  Models
     * leave both 0/NULL. */
    int auto_priority;  /* > 0: a candidate for evaluator = auto, highest usable first; 0: never chosen by auto */
    int (*probe)(char *why, size_t len); /* optional: 1 if the plugin can run on this machine, 0 if not; writes one line (the device, or why not) to why either way. NULL = always usable */
    /* Appended: 1 for an evaluator that wants every chain's work in ONE call (a device
     * evaluator: one kernel launch per batch).  The core then steps all chains as one
     * batch on one thread instead of one batch per thread (results do not change: they
     * never depend on the grouping).  0: the chains are split over the [run] threads. */
    int one_batch;
    /* Appended (mcf 0.2): the oldest mcf release this plugin runs with,
     * MCF_VERSION_NUMBER(0, 2, 0) for a plugin that uses the 0.2 SDK (mcf/version.h); the
     * core refuses to load it when it is older, naming both versions.  0: any release.
     * (A core older than 0.2 does not read the field: state the version to the build too,
     * find_package(mcf 0.2).) */
    uint32_t min_mcf_version;
    /* Appended (mcf 0.5; read only when struct_size covers it): the plugin's own pointer,
     * handed to its model's create() as mcf_services.app_data (SQLite's pAppData): one
     * source file can register variants that share code, each descriptor pointing at its
     * own settings.  The core never reads what it points to.  NULL: none. */
    void *app_data;
} mcf_plugin_info;

#define MCF_PLUGIN_ENTRY_SYMBOL "mcf_plugin_entry"

#if defined(__GNUC__)
#define MCF_EXPORT __attribute__((visibility("default")))
#else
#define MCF_EXPORT
#endif

/* Defines the entry function of a plugin returning &(info). */
#define MCF_PLUGIN(info)                                                   \
    MCF_EXPORT const mcf_plugin_info *mcf_plugin_entry(void);              \
    MCF_EXPORT const mcf_plugin_info *mcf_plugin_entry(void) { return &(info); }

/* The descriptor and entry function of a plugin in one statement, for the common case (no
 * auto_priority, probe or one_batch: write the descriptor and MCF_PLUGIN(info) for those):
 *     MCF_PLUGIN_DEFINE(MCF_PLUGIN_MODEL, "holstein", "1.1", "one line", my_params, &my_ops)
 */
#define MCF_PLUGIN_DEFINE(kind_, name_, version_, summary_, params_, ops_)                \
    static const mcf_plugin_info mcf_plugin_info_ = {                                     \
        .abi_version = MCF_ABI_VERSION, .struct_size = sizeof(mcf_plugin_info),          \
        .kind = (kind_), .name = (name_), .version = (version_), .summary = (summary_),   \
        .params = (params_), .ops = (ops_)};                                              \
    MCF_PLUGIN(mcf_plugin_info_)

/* The same, for a plugin that uses an SDK newer than 0.1 and states the oldest release it
 * runs with (min_mcf_version; mcf 0.3):
 *     MCF_PLUGIN_DEFINE_NEEDS(MCF_PLUGIN_MODEL, "fk", "1.0", "one line", my_params, &my_ops,
 *                             MCF_VERSION_NUMBER(0, 3, 0))
 */
#define MCF_PLUGIN_DEFINE_NEEDS(kind_, name_, version_, summary_, params_, ops_, needs_)    \
    static const mcf_plugin_info mcf_plugin_info_ = {                                     \
        .abi_version = MCF_ABI_VERSION, .struct_size = sizeof(mcf_plugin_info),          \
        .kind = (kind_), .name = (name_), .version = (version_), .summary = (summary_),   \
        .params = (params_), .ops = (ops_), .min_mcf_version = (needs_)};                 \
    MCF_PLUGIN(mcf_plugin_info_)

/* The fields of the first ABI's descriptor: a shorter struct_size is refused. */
#define MCF_PLUGIN_INFO_MIN_SIZE (offsetof(mcf_plugin_info, ops) + sizeof(const void *))

/* Whether a descriptor's struct_size covers field `field` (an appended one). */
#define MCF_PLUGIN_INFO_HAS(info, field)                                   \
    ((info)->struct_size >= offsetof(mcf_plugin_info, field) + sizeof((info)->field))

/* Whether the versioned table *ptr (any SDK struct that starts with uint32_t struct_size:
 * a descriptor, mcf_model_ops, mcf_fermion_ops, mcf_services, ...) of type `type` was built
 * with field `field` (an appended one) AND has it set (not NULL / not 0), e.g.
 *     if (MCF_HAS(mcf_fermion_ops, ops, change_action)) ops->change_action(...);
 * The one check every reader of an appended field needs.  ptr is a pointer variable (NULL
 * gives 0); gcc warns about a constant address such as &my_ops. */
#define MCF_HAS(type, ptr, field)                                                      \
    ((ptr) && (ptr)->struct_size >= offsetof(type, field) + sizeof((ptr)->field) &&    \
     (ptr)->field)

#ifdef __cplusplus
}
#endif
#endif
