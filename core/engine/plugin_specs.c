/* plugin_specs.c — a pre-1.0 plugin's parameter specs in today's layout, for the loader
 * (plugin.c): mcf 1.0 appended symbol and unit to mcf_param_spec. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#include "mcf/error.h"
#include "mcf/plugin.h"

/* A plugin built before mcf 1.0 (no built_with: every ABI-1 binary of 0.1-0.8, none of ABI
 * 2, which is refused) has parameter specs of 8 fields; 1.0 appended symbol and unit.  The
 * engine reads one layout: such a descriptor is copied with its specs in today's (symbol
 * and unit NULL: an ABI-1 model's labels give them), into one block *owned. */
int mcfi_plugin_convert_specs(const mcf_plugin_info *info, const mcf_plugin_info **out, void **owned)
{
    *out = info;
    *owned = NULL;
    const uint32_t built = MCF_PLUGIN_INFO_HAS(info, built_with) ? info->built_with : 0;
    if (built >= MCF_VERSION_NUMBER(1, 0, 0) || !info->params)
        return MCF_OK;
    const size_t old_size = offsetof(mcf_param_spec, symbol);
    const unsigned char *old = (const unsigned char *)info->params;
    size_t n = 0;
    for (;; n++) {
        const char *name;
        memcpy(&name, old + n * old_size, sizeof name);
        if (!name)
            break;
    }
    const size_t head = (sizeof(mcf_plugin_info) + 15) / 16 * 16;
    unsigned char *block = calloc(1, head + (n + 1) * sizeof(mcf_param_spec));
    if (!block)
        return mcf_fail(MCF_ENOMEM, "out of memory");
    mcf_plugin_info *copy = (mcf_plugin_info *)block;
    memcpy(copy, info, info->struct_size < sizeof *copy ? info->struct_size : sizeof *copy);
    mcf_param_spec *specs = (mcf_param_spec *)(block + head);
    for (size_t k = 0; k < n; k++)
        memcpy(&specs[k], old + k * old_size, old_size);
    copy->params = specs;
    *out = copy;
    *owned = block;
    return MCF_OK;
}
