/* mcf/api.h — MCF_API, the mark of libmcf's exported functions.
 *
 * libmcf is built with hidden visibility: a function is part of the SDK, and visible to
 * plugins and the host, only when its declaration in a public header (mcf/NAME.h) carries
 * MCF_API.  Every public header includes this one; tests/layout/sdk_exports.py checks that
 * each declared function has it and that the library exports nothing else.  (A plugin's own
 * entry point is marked MCF_EXPORT, mcf/plugin.h.) */
#ifndef MCF_API_H
#define MCF_API_H

#if defined(__GNUC__) || defined(__clang__)
#define MCF_API __attribute__((visibility("default")))
#else
#define MCF_API
#endif

#endif
