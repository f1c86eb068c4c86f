"""Fixtures of the Python package's tests (ctest runs them: tests/python/run_pytest.sh).
MCF_PROGRAM names the mcf program under test and MCF_PLUGIN_PATH its plugins."""
import os
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def repo():
    return REPO


@pytest.fixture(scope="session")
def mcf_program():
    prog = os.environ.get("MCF_PROGRAM")
    if not prog or not os.access(prog, os.X_OK):
        pytest.skip("MCF_PROGRAM does not name the mcf program")
    return prog


@pytest.fixture(scope="session")
def scratch(tmp_path_factory):
    base = os.environ.get("MCF_TEST_TMP")
    if base:
        path = pathlib.Path(base) / "python"
        path.mkdir(parents=True, exist_ok=True)
        return path
    return tmp_path_factory.mktemp("mcf")


@pytest.fixture()
def in_scratch(scratch, request, monkeypatch):
    """A fresh folder per test under the scratch folder, made the working directory."""
    import shutil
    d = scratch / request.node.name.replace("[", "_").replace("]", "")
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    monkeypatch.chdir(d)
    return d


@pytest.fixture(scope="session")
def hdf5():
    """Skip a test that reads results.h5 when mcf was built without HDF5 (MCF_HDF5=0)."""
    if os.environ.get("MCF_HDF5", "1") == "0":
        pytest.skip("skipped: mcf built without HDF5 (no results.h5)")
