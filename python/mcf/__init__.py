"""mcf from Python: read, analyse and drive runs of mcf, the Monte Carlo framework for
classical fields coupled to fermions (docs/python.md).

    import mcf
    run = mcf.load("de-scan.out")          # results.tsv + results.h5 as numpy arrays
    run.plot("abs_m", file="abs_m.png")    # error bars, one curve per lattice size
    chi, chi_err = run.derived("susceptibility")   # the core's jackknife, bit for bit
"""
from ._seal import ResultsFileError
from .driver import Config, McfError, McfStopped, Process, program, resume, run, start, tc
from .plots import Crossing, crossings, plot_tc
from .results import Observable, Point, Run, Table, load, read_tsv
from .stats import block_factor, jackknife

__version__ = "1.1.0"

__all__ = ["load", "Run", "Observable", "Point", "Table", "read_tsv", "jackknife",
           "block_factor", "Config", "run", "resume", "tc", "start", "Process", "program",
           "McfError", "McfStopped", "ResultsFileError", "Crossing", "crossings", "plot_tc"]
