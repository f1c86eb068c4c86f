"""Every example of examples/*.ini run small through the Python driver and its output
loaded: the table has one row per scan point of the configuration, every error is finite
and >= 0, and the folder's tables read (band, kbe and tc folders too).  The sizes and
lengths are cut to seconds by overrides (the physics of the examples is checked elsewhere:
tests/physics); GPU evaluators become their CPU twins (kpm-cuda -> kpm)."""
import math
import os

import numpy as np
import pytest

import mcf

# per example: (command, overrides {section.key: value, or None to drop the key})
SMALL = {
    "anderson-dos": ("run", {"model.L": 4, "schedule.sweeps": 4, "schedule.bins": 4,
                             "evaluator.moments": 64, "evaluator.vectors": 2,
                             "evaluator.energy_points": 65, "model.typical_sites": 2}),
    "de-phases": ("band", {"evaluator.kpoints": 8, "band.mu": "-6:6:13",
                           "band.energies": "-6.5:6.5:27", "band.electrons": "0.1:0.9:3"}),
    "de-resistivity": ("run", {"run.evaluator": "kpm", "model.L": 3, "schedule.thermalize": 4,
                               "schedule.sweeps": 16, "schedule.bins": 4,
                               "schedule.temperatures": "0.1, 0.2", "model.response_moments": 16,
                               "evaluator.vectors": 2, "evaluator.moments": 64}),
    "de-scan-large": ("run", {"model.L": "3, 4", "schedule.thermalize": 10,
                              "schedule.sweeps": 64, "schedule.temperatures": "0.1, 0.15",
                              "evaluator.moments": 64, "evaluator.vectors": 2}),
    "de-scan": ("run", {"schedule.thermalize": 10, "schedule.sweeps": 64,
                        "schedule.temperatures": "0.1, 0.2", "model.L": 2,
                        "evaluator.moments": 64}),
    "de-spectral": ("run", {"run.evaluator": "kpm", "model.L": 3, "schedule.thermalize": 4,
                            "schedule.sweeps": 16, "schedule.bins": 4,
                            "schedule.temperatures": "0.1, 0.2", "model.spectral_moments": 16,
                            "evaluator.vectors": 2, "evaluator.moments": 64}),
    "de-tc": ("tc", {"run.evaluator": "kpm", "tc.sizes": "3, 4", "tc.temperatures": "0.1:0.2:3",
                     "tc.error_target": None, "tc.refine": None, "schedule.thermalize": 2,
                     "schedule.sweeps": 32, "schedule.max_sweeps": None,
                     "evaluator.moments": 64, "evaluator.vectors": 2}),
    "de-tc-fine": ("tc", {"run.evaluator": "kpm", "tc.sizes": "3, 4",
                          "tc.temperatures": "0.1, 0.15, 0.2", "schedule.thermalize": 2,
                          "schedule.sweeps": 32, "evaluator.moments": 64,
                          "evaluator.vectors": 2}),
    "de-tempering": ("run", {"model.L": 2, "schedule.thermalize": 20, "schedule.sweeps": 100,
                             "evaluator.moments": 64}),
    "dmc-heg": ("run", {"run.walkers": 16, "schedule.thermalize": 4, "schedule.sweeps": 32}),
    "dmc-optimized": ("run", {"run.walkers": 16, "schedule.thermalize": 4,
                              "schedule.sweeps": 32, "optimize.iterations": 1,
                              "optimize.samples": 32}),
    "dmc-timestep": ("run", {"run.walkers": 16, "schedule.thermalize": 4,
                             "schedule.sweeps": 32}),
    "holstein-scan": ("run", {"model.L": "3, 4", "schedule.thermalize": 10,
                              "schedule.sweeps": 40, "schedule.temperatures": "0.1, 0.2",
                              "evaluator.moments": 64, "evaluator.vectors": 2}),
    "ising-scan": ("run", {"schedule.thermalize": 100, "schedule.sweeps": 400,
                           "schedule.temperatures": "2.0:2.5:3"}),
    "ising-tempering": ("run", {"schedule.thermalize": 100, "schedule.sweeps": 400}),
    "kbe-two-band": ("kbe", {"kbe.nk": 4, "kbe.steps": 20, "output.nk_times": "0.2, 0.5"}),
    "vmc-heg": ("run", {"schedule.thermalize": 10, "schedule.sweeps": 40,
                        "model.electrons": 14}),
    "vmc-optimize": ("optimize", {"optimize.iterations": 1, "optimize.samples": 32,
                                  "schedule.thermalize": 10, "schedule.sweeps": 64}),
}


def test_every_example_is_listed(repo):
    names = sorted(f[:-4] for f in os.listdir(repo / "examples") if f.endswith(".ini"))
    assert names == sorted(SMALL), "an example without a small form here"


def small_config(repo, name):
    cfg = mcf.Config.read(repo / "examples" / f"{name}.ini")
    command, over = SMALL[name]
    for key, value in over.items():
        section, _, k = key.partition(".")
        if value is None:
            cfg.get(section, {}).pop(k, None)
        else:
            cfg.set(key, value)
    if command in ("run", "tc", "optimize"):
        cfg.set("run.threads", 1)
    return command, cfg


def points_of(cfg):
    """The scan points the configuration makes: the product of its list-valued keys'
    lengths (a, b, c or first:last:count)."""
    n = 1
    for section in ("model", "schedule", "run"):
        for key, value in cfg.get(section, {}).items():
            if key in ("twist", "jastrow_uu", "jastrow_ud", "spectral_path", "nk_times"):
                continue
            text = str(value)
            if section == "schedule" and key != "temperatures":
                continue
            if section == "run" and key != "timestep":
                continue
            if text.count(":") == 2 and key in ("temperatures", "W", "timestep"):
                n *= int(text.split(":")[2])
            elif "," in text:
                n *= len(text.split(","))
    return n


@pytest.mark.parametrize("name", sorted(SMALL))
def test_example_runs_and_loads(repo, mcf_program, in_scratch, name):
    command, cfg = small_config(repo, name)
    out = f"{name}.out"
    if command in ("run", "tc"):
        run = mcf.start(cfg, out, progress=False, command=command,
                        extra=("--no-plots",)).wait()
    else:
        mcf.start(cfg, out, progress=False, command=command).wait(load_result=False)
        run = mcf.load(out)
    assert run.config["run"]["model"] == cfg["run"]["model"]
    assert run.tables(), "no table in the output folder"
    for table in run.tables():
        t = run.read_table(table)
        assert t.columns and all(len(v) == len(t[t.columns[0]]) for v in t.values())
    if command in ("band", "kbe", "optimize"):
        return
    if command == "run":
        assert run.n_points == points_of(cfg), (run.n_points, points_of(cfg))
    for column in run.columns:
        if column.endswith("_err"):
            errs = np.asarray(run[column], dtype=float)
            assert all(math.isnan(e) or e >= 0 for e in errs), column
    for column in run.columns:
        if f"{column}_err" in run.columns and f"tau_{column}" in run.columns:
            assert run.observables == {} or column in run.observables, column
