/* results_h5.h — DIR/results.h5 beside results.tsv (results_h5.c; internal).  The layout is
 * docs/results-h5.md's. */
#ifndef MCF_RESULTS_H5_H
#define MCF_RESULTS_H5_H

#include "run_state.h"

/* The format attribute of results.h5; raised whenever a reader of the previous layout
 * would misread the file (a new dataset or attribute alone does not raise it). */
#define MCF_RESULTS_H5_FORMAT 1

/* Rank 0, once results.tsv is written: writes DIR/results.h5 (the table of results.tsv
 * at full precision, per chain the jackknife bins and the blocking estimates of every
 * observable, the curves, config.ini as used) atomically and with the same bytes for
 * the same run, resumed or not.  MCF_EIO naming the file when it cannot be written, and
 * MCF_OK without writing anything in a build without HDF5. */
int mcfi_results_h5_write(const struct mcf_run *r);

/* ---- the digest (docs/results-h5.md, "The digest"), in every build ------------------
 * The file starts with an HDF5 user block of MCFI_H5_BLOCK bytes, which HDF5 (and h5py)
 * skips: the magic MCFI_H5_MAGIC (16 bytes with its NUL), the file's length and the 64-bit
 * FNV-1a hash (offset basis 14695981039346656037) of every byte after the block, both
 * little-endian, then zeros.  A reader checks them before any HDF5 call parses a byte. */
#define MCFI_H5_BLOCK 512
#define MCFI_H5_MAGIC "mcf results.h5\n"
/* What mcfi_results_h5_check found. */
enum {
    MCFI_H5_SEALED = 0,  /* magic, length and digest as written */
    MCFI_H5_UNSEALED,    /* no magic: not a results.h5 this mcf wrote (foreign, or older) */
    MCFI_H5_LENGTH,      /* cut short or extended: *written is the length mcf wrote */
    MCFI_H5_DAMAGED      /* the digest or the block's zeros differ */
};
/* Writes the user block of image (size >= MCFI_H5_BLOCK bytes) over its first bytes. */
void mcfi_results_h5_seal(unsigned char *image, size_t size);
/* Checks the block of image against its bytes: MCFI_H5_*; *written (may be NULL) gets the
 * length recorded. */
int mcfi_results_h5_check(const unsigned char *image, size_t size, uint64_t *written);

#endif
