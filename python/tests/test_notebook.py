"""docs/examples/mcf-tour.ipynb executed as a test: its code cells run in order in one
namespace (the plain script export of the notebook), in a scratch folder, with
MCF_NOTEBOOK_QUICK=1 (shorter runs; the notebook's assertions unchanged)."""
import json
import os

import mcf  # noqa: F401  (the package under test)


def test_notebook_runs(repo, mcf_program, in_scratch, hdf5, monkeypatch, capsys):
    import matplotlib
    matplotlib.use("Agg")
    monkeypatch.setenv("MCF_NOTEBOOK_QUICK", "1")
    monkeypatch.setenv("MCF_EXAMPLES", str(repo / "examples"))
    monkeypatch.setenv("MCF_PROGRAM", mcf_program)
    nb = json.load(open(repo / "docs" / "examples" / "mcf-tour.ipynb", encoding="utf-8"))
    namespace = {"__name__": "__main__"}
    for k, cell in enumerate(nb["cells"]):
        if cell["cell_type"] == "code":
            source = "".join(cell["source"])
            exec(compile(source, f"mcf-tour.ipynb, cell {k}", "exec"), namespace)
    out = capsys.readouterr().out
    assert "Onsager-Yang" in out and "<m^2>/<|m|>^2" in out
    for png in ("de-scan-abs_m.png", "ising-binder.png"):
        assert os.path.getsize(png) > 1000
