/* fileio.h — file and hash utilities (fileio.c; internal). */
#ifndef MCF_FILEIO_H
#define MCF_FILEIO_H

#include <stddef.h>
#include <stdint.h>

int mcfi_mkdir_p(const char *path);
/* Writes `size` bytes to path atomically (temporary file in the same folder, fsync, rename). */
int mcfi_write_atomic(const char *path, const void *data, size_t size);
/* Reads a whole file; *data owned by caller (free). */
int mcfi_read_file(const char *path, unsigned char **data, size_t *size);
uint64_t mcfi_fnv1a64(const void *data, size_t size, uint64_t h);
/* Not FNV-1a's 64-bit offset basis, 14695981039346656037, but that number without its last
 * digit: kept, because every checkpoint's checksum and config hash since mcf 0.1 start
 * from it (any fixed start value does what they are for). */
#define MCF_FNV_OFFSET 1469598103934665603ull

#endif
