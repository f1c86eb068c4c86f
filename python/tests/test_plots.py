"""Plots from Python: PNG files for a scan of two sizes (|m|, the Binder cumulant with its
crossing), the crossings found by the core's rule (the very line `mcf plot` logs), and the
finite-size scaling of an `mcf tc` run."""
import re
import subprocess

import pytest

import mcf

SCAN = """[run]
model = ising
seed = 21
output = scan.out
threads = 1
[schedule]
thermalize = 500
sweeps = 4000
temperatures = 2.1:2.5:5
[model]
L = 8, 16
"""


@pytest.fixture()
def scan(mcf_program, in_scratch, hdf5):
    with open("scan.ini", "w") as fh:
        fh.write(SCAN)
    subprocess.run([mcf_program, "run", "scan.ini", "--no-plots", "--no-progress"], check=True,
                   capture_output=True)
    return mcf.load("scan.out")


def is_png(path):
    with open(path, "rb") as fh:
        return fh.read(8) == b"\x89PNG\r\n\x1a\n"


def test_png_for_two_sizes(scan):
    import matplotlib
    matplotlib.use("Agg")
    ax = scan.plot("abs_m", file="abs_m.png")
    assert is_png("abs_m.png")
    labels = ax.get_legend_handles_labels()[1]
    assert labels == ["L = 8", "L = 16"]
    assert ax.get_xlabel() == "T [J]" and ax.get_ylabel() == "⟨|m|⟩"
    ax = scan.plot("binder", file="binder.png")
    assert is_png("binder.png")
    assert any(label.startswith("L = 8/16 at T = ") for label in
               ax.get_legend_handles_labels()[1])


def test_crossing_is_the_one_mcf_plot_logs(scan, mcf_program):
    p = subprocess.run([mcf_program, "plot", "scan.out"], capture_output=True, text=True)
    logged = [ln.split("Binder crossing ", 1)[1] for ln in (p.stdout + p.stderr).splitlines()
              if "Binder crossing " in ln]
    found = [c.text(scan, "L", "T") for c in scan.crossings("binder")]
    assert logged and found == logged, (found, logged)


TC = """[run]
model = ising
seed = 22
threads = 1
output = tc.out
[schedule]
thermalize = 200
sweeps = 1200
[tc]
sizes = 6, 8, 12
temperatures = 2.1:2.4:4
"""


def test_finite_size_scaling_plot(mcf_program, in_scratch, hdf5):
    import matplotlib
    matplotlib.use("Agg")
    with open("tc.ini", "w") as fh:
        fh.write(TC)
    subprocess.run([mcf_program, "tc", "tc.ini", "--no-plots"], check=True, capture_output=True)
    run = mcf.load("tc.out")
    ax = mcf.plot_tc(run, file="tc.png")
    assert is_png("tc.png")
    labels = ax.get_legend_handles_labels()[1]
    assert any(lb.startswith("T_c (xi_over_l) = ") for lb in labels), labels
    # nu of the largest pair, as tc.tsv's T_c line gives it
    line = [c for c in run.read_table("tc.tsv").comments if c.startswith("T_c (binder)")][0]
    nu = float(line.split("nu (largest pair) = ")[1].split(" +- ")[0])
    shown = [re.search(r"ν = ([0-9.]+) ± ", lb) for lb in labels
             if lb.startswith("T_c (binder) = ")]
    assert shown and shown[0], labels
    text = shown[0].group(1)
    decimals = len(text.split(".")[1]) if "." in text else 0
    assert abs(float(text) - nu) <= 0.5 * 10.0 ** -decimals, (text, nu)
    tc = run.read_table("tc.tsv")
    assert len(tc["T_cross"]) == 4    # binder and xi/L, pairs 6/8 and 8/12
