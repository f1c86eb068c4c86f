"""Runs driven from Python: a Config from a dict gives the bytes `mcf run` gives for the same
INI; the program's errors arrive as McfError with its file:line message; a run stopped by
SIGTERM (McfStopped) and resumed with mcf.resume writes the bytes of an uninterrupted run."""
import filecmp
import os
import signal
import subprocess
import time

import pytest

import mcf

CFG = {"run": {"model": "ising", "seed": 31, "threads": 1},
       "schedule": {"thermalize": 200, "sweeps": 2000, "temperatures": [2.0, 2.3, 2.6],
                    "checkpoint_every": 100},
       "model": {"L": [6, 8]}}


def test_config_text_and_run(mcf_program, in_scratch, hdf5):
    cfg = mcf.Config(CFG)
    assert "temperatures = 2.0, 2.3, 2.6" in cfg.text()
    os.mkdir("py")
    os.mkdir("cli")
    os.chdir("py")
    run = mcf.run(cfg, "x.out", progress=False, extra=("--no-plots",))
    assert run.n_points == 6 and run.scan == ["L", "T"]
    os.chdir("../cli")
    cfg.set("run.output", "x.out").write("x.out.ini")
    subprocess.run([mcf_program, "run", "x.out.ini", "--no-plots", "--no-progress"], check=True,
                   capture_output=True)
    os.chdir("..")
    for f in ("results.tsv", "results.h5"):
        assert filecmp.cmp(f"py/x.out/{f}", f"cli/x.out/{f}", shallow=False), f


def test_errors_keep_the_file_and_line(mcf_program, in_scratch):
    cfg = mcf.Config(CFG).set("model.LL", 4)
    with pytest.raises(mcf.McfError) as err:
        mcf.run(cfg, "bad.out", progress=False)
    path = os.path.abspath("bad.out.ini")
    line = open(path).read().splitlines().index("LL = 4") + 1
    assert str(err.value).startswith(f"{path}:{line}: [model] unknown key 'LL'"), str(err.value)
    assert err.value.rc == 2


def test_sigterm_then_resume_gives_the_same_bytes(mcf_program, in_scratch, hdf5):
    cfg = mcf.Config(CFG).set("schedule.sweeps", 40000).set("model.L", [8, 12])
    os.mkdir("whole")
    os.mkdir("stopped")
    os.chdir("stopped")
    proc = mcf.start(cfg, "x.out", progress=False, extra=("--no-plots",))
    # stop it once its first checkpoint is there (every 100 sweeps; the run is ~1000 times
    # longer)
    t0 = time.time()
    while not os.path.exists("x.out/checkpoint") and time.time() - t0 < 60:
        time.sleep(0.01)
    proc.stop(signal.SIGTERM)
    with pytest.raises(mcf.McfStopped) as err:
        proc.wait()
    assert "continue with `mcf resume x.out`" in str(err.value)
    assert os.path.exists("x.out/checkpoint") and not os.path.exists("x.out/results.tsv")
    run = mcf.resume("x.out", progress=False, extra=("--no-plots",))
    assert run.n_points == 6
    os.chdir("../whole")
    mcf.run(cfg, "x.out", progress=False, extra=("--no-plots",))
    os.chdir("..")
    for f in ("results.tsv", "results.h5"):
        assert filecmp.cmp(f"stopped/x.out/{f}", f"whole/x.out/{f}", shallow=False), f


def test_an_ini_file_is_given_as_it_is(mcf_program, in_scratch, repo):
    """A path goes to the program unchanged (its errors name its own lines; inline ';'
    comments as inih reads them), out= as --set run.output."""
    good = ("[run]\nmodel = ising   ; the model\nseed = 2\nthreads = 1\n[schedule]\n"
            "thermalize = 10\nsweeps = 64\ntemperatures = 2.0\n[model]\nL = 4\n")
    with open("c.ini", "w") as fh:
        fh.write(good + "J = one\n")
    assert mcf.Config.read("c.ini")["run"]["model"] == "ising"
    with pytest.raises(mcf.McfError) as err:
        mcf.run("c.ini", "c.out", progress=False)
    assert str(err.value).startswith("c.ini:11: [model] J"), str(err.value)
    with open("c.ini", "w") as fh:
        fh.write(good)
    run = mcf.run("c.ini", "c.out", progress=False, extra=("--no-plots",))
    assert run.path == "c.out" and run.n_points == 1
    assert not os.path.exists("c.out.ini")

