"""The digest in results.h5's 512-byte user block (docs/results-h5.md, "The digest"),
checked before h5py parses a byte, with the messages of `mcf dos`
(core/engine/results_h5_seal.c): libhdf5 can crash or hang on a damaged file, so a file
that is not whole as mcf wrote it is refused first."""
import os
import stat

MAGIC = b"mcf results.h5\n\0"
BLOCK = 512
_FNV_OFFSET = 14695981039346656037
_FNV_PRIME = 1099511628211
_MASK = (1 << 64) - 1

WRITE_AGAIN = ("`mcf resume` of its output folder writes it again (a finished run's "
               "results too)")


class ResultsFileError(Exception):
    """A results.h5 (or another file of a run) that mcf would refuse; str() is the message
    the mcf program prints for it."""


def fnv1a64(data, h=_FNV_OFFSET):
    """FNV-1a, 64 bits, of bytes `data` from offset basis h."""
    for b in data:
        h = ((h ^ b) * _FNV_PRIME) & _MASK
    return h


def _kind(mode):
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"


def read_sealed(path):
    """The bytes of results.h5 at `path` when its digest is mcf's; ResultsFileError with
    `mcf dos`'s message otherwise."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        raise ResultsFileError(f"{path}: no such file (a run writes it when mcf is built with "
                               "HDF5; a run of an mcf without HDF5 has none)") from None
    except OSError as e:
        raise ResultsFileError(f"{path}: cannot read ({e.strerror})") from None
    if stat.S_ISLNK(st.st_mode):
        raise ResultsFileError(f"{path}: is a symbolic link; mcf reads results.h5 only as the "
                               "regular file a run wrote (copy the file itself there)")
    if not stat.S_ISREG(st.st_mode):
        raise ResultsFileError(f"{path}: not a regular file but {_kind(st.st_mode)}; results.h5 "
                               f"is a file that mcf writes: remove it; {WRITE_AGAIN}")
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as e:
        raise ResultsFileError(f"{path}: cannot read ({e.strerror})") from None
    if len(data) < 32 or data[:16] != MAGIC:
        raise ResultsFileError(f"{path}: does not start with the digest that mcf records in "
                               "every results.h5 it writes: a file of another program, or of "
                               "an mcf older than the digest, which mcf does not parse; "
                               f"{WRITE_AGAIN}")
    written = int.from_bytes(data[16:24], "little")
    if written != len(data) or len(data) < BLOCK:
        raise ResultsFileError(f"{path}: {len(data)} bytes, but mcf wrote {written}: the file "
                               f"was cut short or extended (damaged); {WRITE_AGAIN}")
    if any(data[32:BLOCK]) or int.from_bytes(data[24:32], "little") != fnv1a64(data[BLOCK:]):
        raise ResultsFileError(f"{path}: its bytes do not match the digest mcf recorded when it "
                               "wrote it: the file is damaged (or was changed by another "
                               f"program), and mcf does not parse it; {WRITE_AGAIN}")
    return data
