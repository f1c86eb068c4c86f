/* library.c — where libmcf itself was loaded from (mcf/host.h): the host looks for the
 * installed plugins beside it. */
#define _GNU_SOURCE
#include "mcf/host.h"

#include <dlfcn.h>

const char *mcf_library_path(void)
{
    Dl_info info;
    if (dladdr((void *)&mcf_library_path, &info) && info.dli_fname)
        return info.dli_fname;
    return NULL;
}
