/* mcf/plugin.h — the descriptor every plugin exports.
 *
 * A plugin is a shared object named mcf-<name>.so that exports one function,
 *
 *     const mcf_plugin_info *mcf_plugin_entry(void);
 *
 * returning a pointer to a static descriptor (MCF_PLUGIN_DESCRIPTOR below writes both; or
 * write the descriptor and MCF_PLUGIN(info)).  The core refuses a plugin whose abi_version
 * is neither its own MCF_ABI_VERSION nor ABI 1 (which it adapts), an ABI-2 plugin built
 * before ABI 2 was frozen (against the headers of mcf 0.6-0.8: no built_with), one whose
 * struct_size is
 * smaller than the first ABI's descriptor, whose name differs from its file name, or whose
 * ops table lacks a required operation, naming the file and the problem.
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
    MCF_PLUGIN_MODEL = 1,              /* ops: mcf_model (mcf/model.h) */
    MCF_PLUGIN_FERMION_EVALUATOR = 2,  /* ops: mcf_fermion_evaluator (mcf/fermion.h) */
    MCF_PLUGIN_ORBITAL_EVALUATOR = 3,  /* ops: mcf_orbital_evaluator (mcf/orbital.h) */
    MCF_PLUGIN_BAND_EVALUATOR = 4,     /* ops: mcf_band_evaluator (mcf/band.h) */
    MCF_PLUGIN_DYNAMICS_EVALUATOR = 5  /* mcf 1.2, ops: mcf_dynamics_evaluator (mcf/dynamics.h) */
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
     * chooses among the evaluators of the kind the model asks for (mcf_model's
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
     * MCF_VERSION_NUMBER(1, 2, 0) for a plugin that uses the 1.2 SDK (mcf/version.h); the
     * core refuses to load it when it is older, naming both versions (0: any).  State the
     * version to the build too, find_package(mcf 1.0). */
    uint32_t min_mcf_version;
    /* Appended (mcf 0.5; read only when struct_size covers it): the plugin's own pointer,
     * handed to its model's create() as mcf_services.app_data (SQLite's pAppData): one
     * source file can register variants that share code, each descriptor pointing at its
     * own settings.  The core never reads what it points to.  NULL: none. */
    void *app_data;
    /* Appended (mcf 1.0): the release whose headers built the plugin (MCF_VERSION;
     * MCF_PLUGIN_DESCRIPTOR writes it).  ABI 2 was built in mcf 0.6-0.8 beside ABI 1 and
     * frozen in 1.0: the core refuses a plugin of ABI 2 without it or older than 1.0.0,
     * whose tables may differ from the frozen ones ("rebuild it against these headers"). */
    uint32_t built_with;
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

/* mcf 0.7: the descriptor of a plugin and its entry function in one statement (ABI 2,
 * docs/sdk-1.md).  After `params` come the ops table and any further fields, as designated
 * initializers:
 *     MCF_PLUGIN_DESCRIPTOR(MCF_PLUGIN_MODEL, "ising", "1.0", "one line", ising_params,
 *                           &ising_model)
 *     MCF_PLUGIN_DESCRIPTOR(MCF_PLUGIN_FERMION_EVALUATOR, "kpm", "1.0", "one line",
 *                           kpm_params, &kpm_table, .app_data = &kpm_cpu, .auto_priority = 50)
 * It records the release whose headers built the plugin (built_with: the core refuses an
 * ABI-2 plugin built before 1.0) and states 1.0.0 as the oldest release the plugin runs
 * with (so that a core of 0.6-0.8, whose ABI 2 differs, refuses it).  A plugin that uses an
 * SDK newer than 1.0 states its own, later in the list:
 *     MCF_PLUGIN_DESCRIPTOR(..., &my_model, .min_mcf_version = MCF_VERSION_NUMBER(1, 2, 0))
 * (the later initializer wins: the macro silences GCC's and clang's warning about it). */
#define MCF_PLUGIN_DESCRIPTOR(kind_, name_, version_, summary_, params_, ...)              \
    _Pragma("GCC diagnostic push")                                                        \
    _Pragma("GCC diagnostic ignored \"-Woverride-init\"")                                \
    static const mcf_plugin_info mcf_plugin_info_ = {                                     \
        .abi_version = MCF_ABI_VERSION, .struct_size = sizeof(mcf_plugin_info),          \
        .min_mcf_version = MCF_VERSION_NUMBER(1, 0, 0), .built_with = MCF_VERSION,       \
        .kind = (kind_), .name = (name_), .version = (version_), .summary = (summary_),   \
        .params = (params_), .ops = __VA_ARGS__};                                         \
    _Pragma("GCC diagnostic pop")                                                         \
    MCF_PLUGIN(mcf_plugin_info_)

/* The fields of the first ABI's descriptor: a shorter struct_size is refused. */
#define MCF_PLUGIN_INFO_MIN_SIZE (offsetof(mcf_plugin_info, ops) + sizeof(const void *))

/* Whether a descriptor's struct_size covers field `field` (an appended one). */
#define MCF_PLUGIN_INFO_HAS(info, field)                                   \
    ((info)->struct_size >= offsetof(mcf_plugin_info, field) + sizeof((info)->field))

/* Whether the versioned table *ptr (any SDK struct that starts with uint32_t struct_size:
 * a descriptor, mcf_model, mcf_fermion_evaluator, mcf_services, ...) of type `type` was built
 * with field `field` (an appended one) AND has it set (not NULL / not 0), e.g.
 *     if (MCF_HAS(mcf_services, s, streams)) ... s->streams ...
 * The one check every reader of an appended field needs.  ptr is a pointer variable (NULL
 * gives 0); gcc warns about a constant address such as &my_ops. */
#define MCF_HAS(type, ptr, field)                                                      \
    ((ptr) && (ptr)->struct_size >= offsetof(type, field) + sizeof((ptr)->field) &&    \
     (ptr)->field)

#ifdef __cplusplus
}
#endif
#endif
