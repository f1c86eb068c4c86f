"""A results.h5 that mcf would refuse is refused by mcf.load with the very message of `mcf
dos` (the digest is checked before h5py parses a byte: libhdf5 may crash or hang on a
damaged file): damaged, cut short, extended, another program's HDF5, a symbolic link, a
folder, missing (for the jackknife, which needs the bins)."""
import os
import shutil
import subprocess

import pytest

import mcf

ISING = """[run]
model = ising
seed = 3
output = good.out
threads = 1
[schedule]
thermalize = 100
sweeps = 640
temperatures = 2.0, 2.5
[model]
L = 6
"""


@pytest.fixture()
def good(mcf_program, in_scratch, hdf5):
    with open("good.ini", "w") as fh:
        fh.write(ISING)
    subprocess.run([mcf_program, "run", "good.ini", "--no-plots", "--no-progress"], check=True,
                   capture_output=True)
    return "good.out"


def dos_message(program, folder):
    """The message `mcf dos FOLDER` refuses with (after 'mcf: error: dos: ')."""
    p = subprocess.run([program, "dos", folder], capture_output=True, text=True)
    assert p.returncode != 0
    line = [ln for ln in p.stderr.splitlines() if ln.startswith("mcf: error: dos: ")][-1]
    return line[len("mcf: error: dos: "):]


def damage(folder, how):
    path = os.path.join(folder, "results.h5")
    data = bytearray(open(path, "rb").read())
    if how == "flipped":
        data[len(data) // 2] ^= 0x10
    elif how == "cut":
        data = data[:len(data) - 100]
    elif how == "extended":
        data += b"\0" * 8
    elif how == "foreign":
        import h5py
        os.remove(path)
        with h5py.File(path, "w") as f:
            f["x"] = [1.0, 2.0]
        return
    elif how == "block":
        data[100] = 1          # a nonzero byte in the user block after the digest
    elif how == "symlink":
        shutil.move(path, os.path.join(folder, "elsewhere.h5"))
        os.symlink("elsewhere.h5", path)
        return
    elif how == "folder":
        os.remove(path)
        os.mkdir(path)
        return
    with open(path, "wb") as fh:
        fh.write(bytes(data))


@pytest.mark.parametrize("how", ["flipped", "cut", "extended", "foreign", "block", "symlink",
                                 "folder"])
def test_refused_as_mcf_dos_refuses(good, mcf_program, how):
    damage(good, how)
    expected = dos_message(mcf_program, good)
    with pytest.raises(mcf.ResultsFileError) as err:
        mcf.load(good)
    assert str(err.value) == expected


def test_missing_results_h5(good, mcf_program):
    os.remove(os.path.join(good, "results.h5"))
    expected = dos_message(mcf_program, good)
    run = mcf.load(good)                       # the table still comes from results.tsv
    assert run.n_points == 2 and "binder" in run
    with pytest.raises(mcf.ResultsFileError) as err:
        run.derived("binder")
    assert str(err.value) == expected


def test_intact_file_loads(good):
    run = mcf.load(good)
    assert run.attrs["format"] == 1 and run.n_points == 2
