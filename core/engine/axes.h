/* axes.h — scan axes and the grid of scan points (axes.c; internal; its API:
 * mcfe_axis_parse, mcfe_axes_free and mcfe_setup_params in mcf_engine.h). */
#ifndef MCF_AXES_H
#define MCF_AXES_H

#include "internal.h"

/* Whether a value's text is a list or a linspace (an axis) rather than one value. */
int mcfi_is_axis_text(const mcf_param_spec *spec, const char *text);

#endif
