/* abi1_interim.h — forced in front of the sources of slater-jastrow, blip and blip-cuda (C)
 * and of their tests while they are still ABI-1 plugins (core/cmake/abi1_interim.cmake):
 * since mcf 1.0 ABI 1's declarations are private (mcf/abi1.h), and MCF_ABI_VERSION, which
 * their descriptors state, is 2.  Goes with that file when their port to ABI 2 lands.
 * _POSIX_C_SOURCE first: the files that define it themselves (the same value) would
 * otherwise define it after the system headers included here. */
#ifndef MCF_ABI1_INTERIM_H
#define MCF_ABI1_INTERIM_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "mcf/abi1.h"

#undef MCF_ABI_VERSION
#define MCF_ABI_VERSION MCF_ABI_1

#endif
