/* mcf/abi1_plugin.h — ABI 1's descriptor macros (mcf 0.1-0.8), private to mcf.
 *
 * Not installed: since mcf 1.0 (ABI 2) a plugin writes its descriptor with
 * MCF_PLUGIN_DESCRIPTOR (mcf/plugin.h).  An ABI-1 plugin's descriptor is the same struct
 * (mcf_plugin_info) with abi_version 1 and an ABI-1 table as its ops (mcf/abi1_model.h,
 * abi1_fermion.h, abi1_orbital.h, abi1_band.h); the core adapts it.  These are mcf 0.8's
 * macros with abi_version MCF_ABI_1 (they said MCF_ABI_VERSION, which was 1 then), for
 * the tests that build ABI-1 plugins against today's tree (docs/sdk-1.md, "The flip"). */
#ifndef MCF_ABI1_PLUGIN_H
#define MCF_ABI1_PLUGIN_H

#include "mcf/plugin.h"

#define MCF_ABI_1 1u /* abi_version of a plugin whose ops are an ABI-1 table */

/* The descriptor and entry function of a plugin in one statement, for the common case (no
 * auto_priority, probe or one_batch: write the descriptor and MCF_PLUGIN(info) for those):
 *     MCF_PLUGIN_DEFINE(MCF_PLUGIN_MODEL, "holstein", "1.1", "one line", my_params, &my_ops)
 */
#define MCF_PLUGIN_DEFINE(kind_, name_, version_, summary_, params_, ops_)                \
    static const mcf_plugin_info mcf_plugin_info_ = {                                     \
        .abi_version = MCF_ABI_1, .struct_size = sizeof(mcf_plugin_info),                \
        .built_with = MCF_VERSION, /* the layout of its parameter specs */               \
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
        .abi_version = MCF_ABI_1, .struct_size = sizeof(mcf_plugin_info),                \
        .built_with = MCF_VERSION, /* the layout of its parameter specs */               \
        .kind = (kind_), .name = (name_), .version = (version_), .summary = (summary_),   \
        .params = (params_), .ops = (ops_), .min_mcf_version = (needs_)};                 \
    MCF_PLUGIN(mcf_plugin_info_)

#endif
