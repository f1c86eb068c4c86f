"""Driving the mcf program from Python: a configuration from a dict, `mcf run`, `mcf
resume` and `mcf tc` as subprocesses with a progress bar, the program's errors raised as
exceptions that keep its file:line message, and Ctrl-C passed on as the program expects
(it writes its checkpoint; `mcf.resume(DIR)` continues)."""
import os
import re
import shutil
import signal
import subprocess
import sys
import threading

from .results import load

__all__ = ["Config", "McfError", "McfStopped", "program", "run", "resume", "tc", "start",
           "Process"]


class McfError(Exception):
    """The mcf program failed; str() is its message (with the file:line it names), .rc its
    exit status, .stderr everything it printed there."""

    def __init__(self, message, rc=None, stderr=""):
        super().__init__(message)
        self.rc, self.stderr = rc, stderr


class McfStopped(McfError):
    """The run was stopped by a signal (Ctrl-C, SIGTERM) after writing its checkpoint:
    `mcf.resume(DIR)` continues it with the numbers of an uninterrupted run."""


class Config(dict):
    """An mcf configuration: {section: {key: value}}.  Values may be numbers, strings,
    booleans or lists (a list is a scan axis: written comma-separated).

        cfg = mcf.Config({"run": {"model": "ising", "seed": 1},
                          "schedule": {"sweeps": 2000, "temperatures": "2.0:2.5:6"},
                          "model": {"L": [8, 16]}})
        cfg = mcf.Config.read("examples/ising-scan.ini")
    """

    def __init__(self, sections=None, **kw):
        super().__init__()
        for s, keys in dict(sections or {}, **kw).items():
            self[s] = dict(keys)

    @classmethod
    def read(cls, path):
        from .results import _read_config
        with open(path, encoding="utf-8") as fh:
            return cls(_read_config(fh.read()))

    def set(self, key, value):
        """set('schedule.sweeps', 100): one key, as `mcf run --set` takes it."""
        section, _, name = key.partition(".")
        self.setdefault(section, {})[name] = value
        return self

    @staticmethod
    def _text(value):
        if isinstance(value, bool):
            return "yes" if value else "no"
        if isinstance(value, (list, tuple)):
            return ", ".join(Config._text(v) for v in value)
        if isinstance(value, float):
            return repr(value)
        return str(value)

    def text(self):
        """The INI text mcf reads."""
        out = []
        for section, keys in self.items():
            out.append(f"[{section}]")
            for k, v in keys.items():
                text = self._text(v)
                if "\n" in text:
                    raise ValueError(f"[{section}] {k}: a value cannot hold a line break")
                out.append(f"{k} = {text}")
            out.append("")
        return "\n".join(out)

    def write(self, path):
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(self.text())
        return path


def program():
    """The mcf program: $MCF_PROGRAM, the one CMake installed beside this package, or
    `mcf` on PATH."""
    env = os.environ.get("MCF_PROGRAM")
    if env:
        return env
    try:
        from ._paths import PROGRAM
        if os.access(PROGRAM, os.X_OK):
            return PROGRAM
    except ImportError:
        pass
    found = shutil.which("mcf")
    if not found:
        raise McfError("the mcf program was not found: set MCF_PROGRAM, install mcf (cmake "
                       "--install) or put it on PATH")
    return found


_PROGRESS = re.compile(r"sweep (\d+)/(\d+) \((\w+)\)")


class _Bar:
    """A one-line progress bar on a stream (a notebook cell's output or a terminal)."""

    def __init__(self, stream, width=30):
        self.stream, self.width, self.shown = stream, width, False

    def update(self, done, total, phase, tail):
        frac = done / total if total else 0.0
        n = int(round(frac * self.width))
        self.stream.write(f"\r[{'#' * n}{'.' * (self.width - n)}] {100 * frac:5.1f}% "
                          f"{phase} {tail}"[:160])
        self.stream.flush()
        self.shown = True

    def close(self):
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()


class Process:
    """A running mcf command (mcf.start): .wait() returns the loaded run or raises McfError
    / McfStopped; .stop(sig) sends a signal (SIGINT, SIGTERM: the program writes its
    checkpoint and stops)."""

    def __init__(self, args, out, progress, cwd=None):
        self.args, self.out = args, out
        self.stderr_lines = []
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     cwd=cwd, text=True, encoding="utf-8", errors="replace")
        self.bar = _Bar(sys.stdout) if progress else None
        self._reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._reader.start()

    def _read_stderr(self):
        for line in self.proc.stderr:
            line = line.rstrip("\n")
            self.stderr_lines.append(line)
            m = _PROGRESS.search(line)
            if m and self.bar is not None:
                tail = line.split("|")[-1].strip()
                self.bar.update(int(m.group(1)), int(m.group(2)), m.group(3), tail)

    def stop(self, sig=signal.SIGINT):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)

    def wait(self, load_result=True):
        try:
            stdout = self.proc.stdout.read()
            self.proc.wait()
        except KeyboardInterrupt:
            # Ctrl-C: the program stops at the next sweep and writes its checkpoint
            self.stop(signal.SIGINT)
            self.proc.wait()
            self._reader.join()
            if self.bar:
                self.bar.close()
            raise
        self._reader.join()
        if self.bar:
            self.bar.close()
        self.stdout = stdout
        rc = self.proc.returncode
        stderr = "\n".join(self.stderr_lines)
        if rc != 0:
            errors = [ln[len("mcf: error: "):] for ln in self.stderr_lines
                      if ln.startswith("mcf: error: ")]
            stopped = [ln for ln in self.stderr_lines if ln.startswith("mcf: stopped")]
            if stopped or rc in (-signal.SIGINT, -signal.SIGTERM, 128 + signal.SIGINT,
                                 128 + signal.SIGTERM):
                msg = stopped[-1][len("mcf: "):] if stopped else \
                    f"mcf stopped by a signal (exit status {rc})"
                raise McfStopped(msg, rc, stderr)
            msg = "\n".join(errors) if errors else (stderr.strip().splitlines() or
                                                   [f"mcf failed (exit status {rc})"])[-1]
            raise McfError(msg, rc, stderr)
        if load_result and self.out and os.path.exists(os.path.join(self.out, "results.tsv")):
            return load(self.out)
        return None


def _out_of(config, out):
    """The output folder: out (also set in config), else [run] output."""
    if out is not None:
        config.set("run.output", out)
    out = config.get("run", {}).get("output")
    if not out:
        raise McfError("no output folder: give out= or [run] output")
    return str(out)


def start(config, out=None, force=False, progress=True, extra=(), command="run"):
    """Start `mcf run` (or `command`: tc, optimize, band, kbe) on config without waiting: a
    Process.  An INI file's path is given to the program as it is (out= as `--set
    run.output=OUT`, so that its errors name that file's lines); a Config or dict is written
    to OUT.ini beside the output folder (mcf keeps its own copy in OUT/config.ini)."""
    if isinstance(config, (str, os.PathLike)) and (out is None or command != "tc"):
        path = os.fspath(config)
        sets = [] if out is None else ["--set", f"run.output={out}"]
        # the folder to load afterwards; None where the file names none (mcf's default)
        out = out if out is not None else Config.read(path).get("run", {}).get("output")
        args = [program(), command, path] + sets + (["--force"] if force else []) + list(extra)
        return Process(args, out, progress)
    if isinstance(config, (str, os.PathLike)):  # mcf tc takes no --set: a copy with OUT
        config = Config.read(config)
    config = Config(config)
    out = _out_of(config, out)
    path = config.write(os.path.abspath(out.rstrip("/")) + ".ini")
    args = [program(), command, path] + (["--force"] if force else []) + list(extra)
    return Process(args, out, progress)


def run(config, out=None, force=False, progress=True, extra=()):
    """`mcf run` of config (a Config, dict or INI path) into folder `out`; returns the
    loaded Run (mcf.load).  Raises McfError with the program's message (file:line, key) on
    an error and McfStopped when stopped (Ctrl-C: the checkpoint is written and
    KeyboardInterrupt is raised again after the program has stopped)."""
    return start(config, out, force, progress, extra).wait()


def resume(out, progress=True, extra=()):
    """`mcf resume OUT`: continue a stopped run (or mcf tc, optimize); the loaded Run."""
    return Process([program(), "resume", str(out)] + list(extra), str(out), progress).wait()


def tc(config, out=None, force=False, progress=True, extra=()):
    """`mcf tc` of a configuration with a [tc] section: the scans, reweighting, crossings
    and T_c (DIR/tc.tsv; mcf.plots.plot_tc draws it)."""
    return start(config, out, force, progress, extra, command="tc").wait()
