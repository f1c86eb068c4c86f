/* fileio.h — file and hash utilities, and the output folder's lock, leftovers and set-aside
 * run (fileio.c; internal). */
#ifndef MCF_FILEIO_H
#define MCF_FILEIO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

int mcfi_mkdir_p(const char *path);
/* Creates path for writing, never through a link nor over an existing file (O_EXCL |
 * O_NOFOLLOW | O_CLOEXEC): a file or link already there under that name is removed first
 * (unlinking a link does not touch its target).  Returns the descriptor, or -1 with errno. */
int mcfi_create_fresh(const char *path);
/* What mcfi_open_file found: a problem is returned, not worded, because only the caller
 * knows what the file is for, what status a refusal is (bad input, a damaged file) and what
 * to do about it. */
enum {
    MCFI_FILE_OK = 0,
    MCFI_FILE_CANNOT_OPEN, /* open() or fstat() failed: errno says why */
    MCFI_FILE_NOT_REGULAR, /* a folder, device, pipe or socket: st->st_mode says which */
    MCFI_FILE_TOO_LARGE    /* more than max_bytes: st->st_size */
};
/* The one opener of files mcf reads or appends to.  Opens path with `flags` (O_RDONLY;
 * O_RDWR or O_WRONLY | O_APPEND, with O_CREAT; O_NOFOLLOW to refuse a link), close-on-exec,
 * never as a controlling terminal, and checks the file it opened, not the name (which may
 * change in between): a regular file of at most max_bytes (0: any size).  A folder would
 * read as empty, a device such as /dev/zero or a pipe as endless, and a named pipe would
 * block the open itself (it is opened non-blocking; the descriptor returned blocks).
 * MCFI_FILE_OK with *fd open, or a problem with *fd = -1 and errno (CANNOT_OPEN) or *st
 * (the others) for the caller's message. */
int mcfi_open_file(const char *path, int flags, uint64_t max_bytes, int *fd, struct stat *st);
/* The whole of path (opened by mcfi_open_file with `flags`, e.g. O_RDONLY | O_NOFOLLOW, and
 * max_bytes; 0: what memory can hold) into *data (malloc'd, NUL-terminated, *size bytes).
 * A problem as mcfi_open_file's; a read error or no memory for the bytes is
 * MCFI_FILE_CANNOT_OPEN with errno. */
int mcfi_read_file(const char *path, int flags, uint64_t max_bytes, unsigned char **data,
                   size_t *size, struct stat *st);
/* This machine's physical memory in bytes (a bound on what a file read whole can hold). */
uint64_t mcfi_memory_bytes(void);
/* "a folder", "a FIFO", "a device", "a socket" or "a special file": for a message about a
 * file that mcfi_open_file found not regular. */
const char *mcfi_file_kind(mode_t mode);
/* Opens path (flags: O_RDWR or O_WRONLY | O_APPEND, and O_CREAT) as a regular file, never
 * through a link, close-on-exec.  MCF_EIO naming path and `what` (e.g. "the log") when it is
 * a link or not a regular file. */
int mcfi_open_regular(const char *path, int flags, const char *what, int *fd);
/* Writes `size` bytes to path atomically (temporary path.tmp.<pid> in the same folder,
 * created by mcfi_create_fresh, fsync, rename).  The message names path. */
int mcfi_write_atomic(const char *path, const void *data, size_t size);
/* ---- the output folder (rank 0 only) ----------------------------------------------- */

/* Locks the output folder DIR (which exists) for this process's life: DIR/.lock, held with
 * flock() (the kernel drops it when the process ends, SIGKILL included, so a dead holder
 * never blocks) and holding "pid P on host H since T".  *fd receives the lock for
 * mcfi_outdir_unlock().  MCF_EIO naming the holder when another process holds it, or when
 * DIR/.lock is a link or not a regular file.
 * Then, before anything reads DIR/config.ini: a DIR/.previous means that a `run --force`
 * was killed before its first checkpoint; the run it was replacing is moved back (over
 * what the killed run wrote) and is again the folder's run. */
int mcfi_outdir_lock(const char *dir, int *fd);
void mcfi_outdir_unlock(int fd);
/* With the lock held: removes the temporaries a killed run left in DIR (NAME.tmp.<pid> of a
 * pid that is not alive; .plot-*.svg.tmp, .plot-*.png.tmp and .plot-gnuplot-* of a killed
 * plot, which only a lock holder writes).  Returns how many were removed. */
int mcfi_outdir_clean(const char *dir);
/* `run --force`: moves the earlier run's checkpoint, results.tsv, results.h5 and config.ini
 * into DIR/.previous, where they stay until the new run's first checkpoint
 * (mcfi_outdir_drop_previous) */
int mcfi_outdir_set_aside(const char *dir);
/* The new run has a checkpoint: DIR/.previous goes (renamed away first, so that a kill
 * while removing it cannot bring it back). */
void mcfi_outdir_drop_previous(const char *dir);

/* ---- the folder's kind (issue 42) -------------------------------------------------------
 * DIR/kind holds one word and a newline, written once (atomically, never through a link)
 * when a command creates its folder's contents: "run" (`mcf run`), "optimize" (`mcf
 * optimize`), "band" (`mcf band`).  `mcf resume` reads it first and does what it says, so a
 * folder knows what it is whichever of its files exist. */
enum { MCFI_KIND_NONE = 0, MCFI_KIND_RUN, MCFI_KIND_OPTIMIZE, MCFI_KIND_BAND };
/* The name of kind k ("run", ...). */
const char *mcfi_kind_name(int kind);
int mcfi_outdir_kind_write(const char *dir, int kind);
/* The kind of folder DIR for `mcf resume`: DIR/kind's, or for a folder written before it
 * existed, inferred from the files as before (optimize.state or optimize.tsv: optimize;
 * checkpoint or results.tsv: run; bands.tsv: band).  MCF_EINVAL when the files do not say
 * (only config.ini, or a checkpoint beside an optimization's state), MCF_EFORMAT when
 * DIR/kind holds no kind; the message says what to run instead.  MCFI_KIND_NONE when DIR
 * has neither DIR/kind nor DIR/config.ini (the caller's reading of it says what is wrong). */
int mcfi_outdir_kind(const char *dir, int *kind);

uint64_t mcfi_fnv1a64(const void *data, size_t size, uint64_t h);
/* Not FNV-1a's 64-bit offset basis, 14695981039346656037, but that number without its last
 * digit: kept, because every checkpoint's checksum and config hash since mcf 0.1 start
 * from it (any fixed start value does what they are for). */
#define MCF_FNV_OFFSET 1469598103934665603ull

#endif
