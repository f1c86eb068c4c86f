/* mcf/version.h — release and ABI versions of the mcf SDK.
 *
 * MCF_ABI_VERSION changes whenever a vtable or descriptor changes in a way an
 * already-built plugin cannot survive (a field removed, reordered or retyped).
 * Appending a field does not change it: descriptors and vtables carry their own
 * struct_size, and the core reads appended fields only when struct_size covers them. */
#ifndef MCF_VERSION_H
#define MCF_VERSION_H

#define MCF_VERSION_MAJOR 0
#define MCF_VERSION_MINOR 1
#define MCF_VERSION_PATCH 0
#define MCF_VERSION_STRING "0.1.0"

#define MCF_ABI_VERSION 1u

#endif
