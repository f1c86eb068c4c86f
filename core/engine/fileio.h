/* fileio.h — file and hash utilities, and the output folder's lock, leftovers and set-aside
 * run (fileio.c; internal). */
#ifndef MCF_FILEIO_H
#define MCF_FILEIO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "mcf_engine.h"

/* The whole of path (opened by mcfe_open_file with `flags`, e.g. O_RDONLY | O_NOFOLLOW, and
 * max_bytes; 0: what memory can hold) into *data (malloc'd, NUL-terminated, *size bytes).
 * A problem as mcfe_open_file's; a read error or no memory for the bytes is
 * MCFI_FILE_CANNOT_OPEN with errno. */
int mcfi_read_file(const char *path, int flags, uint64_t max_bytes, unsigned char **data,
                   size_t *size, struct stat *st);
/* This machine's physical memory in bytes (a bound on what a file read whole can hold). */
uint64_t mcfi_memory_bytes(void);
/* "a folder", "a FIFO", "a device", "a socket" or "a special file": for a message about a
 * file that mcfe_open_file found not regular. */
const char *mcfi_file_kind(mode_t mode);
/* Opens path (flags: O_RDWR or O_WRONLY | O_APPEND, and O_CREAT) as a regular file, never
 * through a link, close-on-exec.  MCF_EIO naming path and `what` (e.g. "the log") when it is
 * a link or not a regular file. */
int mcfi_open_regular(const char *path, int flags, const char *what, int *fd);
/* ---- the output folder (rank 0 only) ----------------------------------------------- */

/* `run --force`: moves the earlier run's checkpoint, results.tsv, results.h5 and config.ini
 * into DIR/.previous, where they stay until the new run's first checkpoint
 * (mcfi_outdir_drop_previous) */
int mcfi_outdir_set_aside(const char *dir);
/* The new run has a checkpoint: DIR/.previous goes (renamed away first, so that a kill
 * while removing it cannot bring it back). */
void mcfi_outdir_drop_previous(const char *dir);


uint64_t mcfi_fnv1a64(const void *data, size_t size, uint64_t h);
/* Not FNV-1a's 64-bit offset basis, 14695981039346656037, but that number without its last
 * digit: kept, because every checkpoint's checksum and config hash since mcf 0.1 start
 * from it (any fixed start value does what they are for). */
#define MCF_FNV_OFFSET 1469598103934665603ull

#endif
