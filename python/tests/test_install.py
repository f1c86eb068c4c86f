"""`pip install ./python` as docs/python.md gives it on Debian 12 (whose Python is externally
managed, PEP 668): into a venv that sees Debian's numpy, h5py and matplotlib, with no
registry (--no-build-isolation --no-index); the installed package, not the source tree,
then loads a run.  Skipped without Debian's python3-pip."""
import os
import shutil
import subprocess
import sys

import pytest


def test_pip_install_into_a_venv(repo, in_scratch, mcf_program):
    base = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
    if subprocess.run([base, "-m", "pip", "--version"], capture_output=True).returncode:
        pytest.skip("skipped: no pip for python3 (apt-get install python3-pip)")
    # pip builds in place: a copy of the package keeps the source tree clean
    shutil.copytree(repo / "python", "src", ignore=shutil.ignore_patterns(
        "build", "*.egg-info", "__pycache__", "tests"))
    subprocess.run([base, "-m", "venv", "--without-pip", "--system-site-packages", "venv"],
                   check=True)
    py = os.path.abspath("venv/bin/python")
    p = subprocess.run([py, "-m", "pip", "install", "-q", "--no-build-isolation", "--no-index",
                        "./src"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    with open("i.ini", "w") as fh:
        fh.write("[run]\nmodel = ising\nseed = 1\noutput = i.out\nthreads = 1\n[schedule]\n"
                 "thermalize = 10\nsweeps = 64\ntemperatures = 2.0\n[model]\nL = 4\n")
    env = dict(os.environ, MCF_PROGRAM=mcf_program)
    env.pop("PYTHONPATH", None)
    code = ("import mcf; r = mcf.run('i.ini', progress=False); "
            "print(mcf.__file__); print(r.n_points)")
    p = subprocess.run([py, "-c", code], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    where, points = p.stdout.split()
    assert where.startswith(os.path.abspath("venv")) and points == "1"
