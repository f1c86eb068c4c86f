"""A finished (or stopped) run's folder: results.tsv and results.h5 as numpy arrays, the
configuration as a dict, the warnings, curves and tables, and the jackknife of any function
of the stored bins with the core's arithmetic (docs/results-h5.md, docs/python.md)."""
import configparser
import inspect
import io
import math
import os

import numpy as np

from . import stats
from ._seal import ResultsFileError, read_sealed

__all__ = ["load", "Run", "Observable", "Point", "Table", "read_tsv"]

# the derived columns of results.tsv, in the core's order (core/engine/results_table.c)
DERIVED = ("specific_heat", "susceptibility", "binder", "variance", "xi_over_l")


class Observable:
    """An observable the model declares: name, description, kind ('scalar' or 'curve'),
    role ('energy', 'order' = <|m|>, 'order2', 'order4', 'order_kmin', 'energy_dT',
    'action_dT' or ''), symbol and unit (the plots' labels), axis (a curve's)."""

    def __init__(self, name, attrs):
        self.name = name
        self.description = str(attrs.get("description", ""))
        self.kind = str(attrs.get("kind", "scalar"))
        self.role = str(attrs.get("role", ""))
        self.symbol = str(attrs.get("symbol", name))
        self.unit = str(attrs.get("unit", ""))
        self.axis = str(attrs.get("axis", ""))

    def __repr__(self):
        return f"Observable({self.name!r}, kind={self.kind!r}, role={self.role!r})"


class Table(dict):
    """A TSV file of a run (results.tsv, a curve, tc.tsv, dos-*.tsv, ...): {column: array}
    in the file's column order, numbers as float arrays and text as lists; `comments` holds
    its '#' lines without the '# ', `labels` {column: (symbol, unit)} from a '# labels:'
    line, `path` the file."""

    def __init__(self, path, columns, comments, labels):
        super().__init__(columns)
        self.path = path
        self.comments = comments
        self.labels = labels

    @property
    def columns(self):
        return list(self.keys())

    def __repr__(self):
        rows = len(next(iter(self.values()))) if self else 0
        return f"Table({self.path!r}, {rows} rows, columns {self.columns})"


def _number(text):
    try:
        return float(text)
    except ValueError:
        return None


def _parse_labels(line):
    """'# labels: L: L<TAB>T: T [J]<TAB>...' -> {column: (symbol, unit)}"""
    labels = {}
    for item in line.split("\t"):
        name, sep, rest = item.partition(": ")
        if not sep:
            continue
        rest = rest.strip()
        unit = ""
        if rest.endswith("]") and " [" in rest:
            rest, unit = rest[:-1].rsplit(" [", 1)
        labels[name.strip()] = (rest, unit)
    return labels


def read_tsv(path):
    """A TSV file as mcf writes them: '#' lines (kept as comments), a header, rows; a
    column whose every cell is a number (or empty: NaN) becomes a float array."""
    comments, rows, header, labels = [], [], None, {}
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.rstrip("\n")
            if line.startswith("#"):
                text = line[1:].lstrip()
                comments.append(text)
                if text.startswith("labels:"):
                    labels = _parse_labels(text[len("labels:"):].strip())
            elif header is None:
                header = line.split("\t")
            elif line:
                rows.append(line.split("\t"))
    if header is None:
        raise ResultsFileError(f"{path}: no header line (not a table mcf wrote)")
    columns = {}
    for c, name in enumerate(header):
        cells = [row[c] if c < len(row) else "" for row in rows]
        values = [math.nan if cell == "" else _number(cell) for cell in cells]
        columns[name] = (np.array(values, dtype=float) if all(v is not None for v in values)
                         else cells)
    return Table(str(path), columns, comments, labels)


def _read_config(text):
    # as inih reads it (mcf's reader): '#' and ';' comment lines, ';' after a space an inline
    # comment
    parser = configparser.ConfigParser(interpolation=None, comment_prefixes=("#", ";"),
                                       inline_comment_prefixes=(";",), strict=False,
                                       default_section="\0none")
    parser.optionxform = str
    parser.read_string(text)
    return {s: dict(parser.items(s)) for s in parser.sections()}


class Point:
    """What a derived quantity's function may need of a scan point: N (units: sites,
    electrons), T (the temperature; NaN without), L (the model's L, where it has one),
    index (the row of the table) and the scan columns' values (p["L"], p.scan)."""

    def __init__(self, index, N, T, L, scan):
        self.index, self.N, self.T, self.L, self.scan = index, N, T, L, scan

    def __getitem__(self, key):
        return self.scan[key]

    def __repr__(self):
        return f"Point({self.index}, N={self.N}, T={self.T}, scan={self.scan})"


class Run:
    """An mcf output folder.  `mcf.load(DIR)` makes one; see docs/python.md."""

    def __init__(self, directory, verify=True):
        self.path = os.fspath(directory)
        if not os.path.isdir(self.path):
            raise ResultsFileError(f"{self.path}: not an output folder of mcf (no such folder)")
        tsv_path = os.path.join(self.path, "results.tsv")
        self.tsv = read_tsv(tsv_path) if os.path.exists(tsv_path) else None
        self.warnings = [c[len("warning:"):].strip() for c in (self.tsv.comments
                         if self.tsv else []) if c.startswith("warning:")]
        self.h5 = None
        self.attrs = {}
        h5_path = os.path.join(self.path, "results.h5")
        kind_path = os.path.join(self.path, "kind")
        self.kind = ""
        if os.path.exists(kind_path):
            with open(kind_path, encoding="utf-8") as fh:
                self.kind = fh.read().strip()
        if os.path.exists(h5_path) or os.path.islink(h5_path):
            self._open_h5(h5_path, verify)
        elif self.tsv is None and not self.tables():
            raise ResultsFileError(f"{tsv_path}: no such file (the run has not finished its "
                                   "first results; `mcf resume DIR` continues a stopped run)")
        cfg = os.path.join(self.path, "config.ini")
        if self.h5 is not None:
            self.config_text = self.h5["config.ini"][()].decode("utf-8")
        elif os.path.exists(cfg):
            with open(cfg, encoding="utf-8") as fh:
                self.config_text = fh.read()
        else:
            self.config_text = ""
        self.config = _read_config(self.config_text)
        self._table()

    # ---- reading -------------------------------------------------------------------
    def _open_h5(self, path, verify):
        import h5py
        data = read_sealed(path) if verify else None
        self.h5 = h5py.File(io.BytesIO(data), "r") if data is not None else h5py.File(path, "r")
        self.attrs = {k: (v.decode() if isinstance(v, bytes) else v)
                      for k, v in self.h5.attrs.items()}
        if self.attrs.get("format") != 1:
            raise ResultsFileError(f"{path}: /: format is not 1 (a file from another version "
                                   "of mcf) (a damaged file, or not mcf's results.h5)")

    def _table(self):
        self.table = {}
        if self.h5 is not None:
            res = self.h5["results"]
            names = [n.decode() if isinstance(n, bytes) else str(n)
                     for n in res.attrs["columns"]]
            for name in names:
                d = res[name]
                if d.dtype.kind in "SOU":
                    self.table[name] = [x.decode() if isinstance(x, bytes) else str(x)
                                        for x in d[()]]
                else:
                    self.table[name] = np.asarray(d[()], dtype=float)
            self.scan = [str(s) for s in self.attrs.get("scan", [])]
            self.observables = {n: Observable(n, dict(g.attrs))
                                for n, g in self.h5["observables"].items()}
        elif self.tsv is None:  # mcf band, kbe, optimize: their tables (run.tables())
            self.scan, self.observables = [], {}
        else:
            self.table = dict(self.tsv)
            scan_line = [c for c in self.tsv.comments if c.startswith("scan:")]
            self.scan = scan_line[0][5:].split() if scan_line else []
            self.observables = {}
        self.columns = list(self.table.keys())

    @property
    def n_points(self):
        return len(next(iter(self.table.values()))) if self.table else 0

    def __getitem__(self, column):
        return self.table[column]

    def __contains__(self, column):
        return column in self.table

    def value(self, name):
        return self.table[name]

    def error(self, name):
        return self.table[f"{name}_err"]

    def tau(self, name):
        return self.table[f"tau_{name}"]

    @property
    def method(self):
        return self.config.get("run", {}).get("method", "mc").strip()

    def label(self, column):
        """(symbol, unit) of a column as the plots write it: results.h5's attributes, else
        results.tsv's labels line, else (column, '')."""
        base = column[:-4] if column.endswith("_err") else column
        if self.h5 is not None and base in self.h5["results"]:
            a = self.h5["results"][base].attrs
            if "symbol" in a:
                return str(a["symbol"]), str(a.get("unit", ""))
        if self.tsv is not None and base in self.tsv.labels:
            return self.tsv.labels[base]
        return base, ""

    def axis_label(self, column):
        """'symbol [unit]' or 'symbol' (a pure number), as in mcf's plots."""
        sym, unit = self.label(column)
        return f"{sym} [{unit}]" if unit else sym

    def points(self):
        """The scan points as dicts of the scan columns' values, in table order."""
        return [{a: self.table[a][k] for a in self.scan if a in self.table}
                for k in range(self.n_points)]

    def curve(self, name):
        """A curve (DOS, LDOS, a response, ...) as {column: array} from /curves/NAME (the
        scan columns, the axis, NAME, NAME_err), or from NAME.tsv without results.h5."""
        if self.h5 is not None and "curves" in self.h5 and name in self.h5["curves"]:
            g = self.h5["curves"][name]
            cols = [c.decode() if isinstance(c, bytes) else str(c) for c in g.attrs["columns"]]
            out = {}
            for c in cols:
                d = g[c][()]
                out[c] = ([x.decode() if isinstance(x, bytes) else str(x) for x in d]
                          if d.dtype.kind in "SOU" else np.asarray(d, dtype=float))
            return out
        path = os.path.join(self.path, f"{name}.tsv")
        if os.path.exists(path):
            return dict(read_tsv(path))
        raise KeyError(f"{self.path}: no curve {name!r} (curves: {self.curve_names()})")

    def curve_names(self):
        if self.h5 is not None and "curves" in self.h5:
            return list(self.h5["curves"].keys())
        return sorted(f[:-4] for f in os.listdir(self.path) if f.endswith(".tsv")
                      and f != "results.tsv")

    def tables(self):
        """The TSV files of the folder (results.tsv, curves, tc.tsv, dos-*.tsv, kbe.tsv,
        phases.tsv, optimize.tsv, ...), sorted."""
        return sorted(f for f in os.listdir(self.path) if f.endswith(".tsv"))

    def read_table(self, filename):
        """Any TSV of the folder (tc.tsv, dos-jackson-512.tsv, spectral-jackson.tsv, ...)."""
        return read_tsv(os.path.join(self.path, filename))

    def dataframe(self):
        """The table as a pandas DataFrame (pandas is optional)."""
        import pandas
        return pandas.DataFrame(self.table)

    # ---- the jackknife of the stored bins --------------------------------------------
    def _require_h5(self, what):
        """The bins are in results.h5 only: without it, `mcf dos`'s message for the file."""
        if self.h5 is None:
            read_sealed(os.path.join(self.path, "results.h5"))  # raises with the reason
            raise ResultsFileError(f"{self.path}: results.h5 was not read, so no bins for "
                                   f"{what}")

    def _variable(self, name):
        """The bin means (chains x bins) of a jackknife variable and its observable:
        NAME, NAME^2 (the energy's <e^2>) or NAME*action_dT (<e s_T>)."""
        obs = self.h5["observables"]
        for suffix, dataset in (("^2", "bin_means_squared"),
                                ("*action_dT", "bin_means_times_action_dT")):
            if name.endswith(suffix) and name[:-len(suffix)] in obs:
                g = obs[name[:-len(suffix)]]
                if dataset not in g:
                    raise KeyError(f"{name}: results.h5 keeps {dataset} only for the energy's "
                                   "observable")
                return g[dataset][()], name[:-len(suffix)]
        if name not in obs or obs[name].attrs.get("kind") not in ("scalar", b"scalar"):
            raise KeyError(f"{name}: not a scalar observable of this run (scalars: "
                           f"{[n for n, o in self.observables.items() if o.kind == 'scalar']})")
        return obs[name]["bin_means"][()], name

    def _tau_measurements(self, name):
        g = self.h5["observables"][name]
        if "tau_measurements" in g:
            return g["tau_measurements"][()]
        # files before mcf kept it: tau / measure_every (exact for powers of two)
        return g["tau"][()] / float(self.attrs["measure_every"])

    def jackknife(self, f, *variables, points=None):
        """Any function of the means of stored variables, per scan point, by the core's
        weighted delete-one jackknife over the point's bins (the non-empty bins of its
        walkers, in chain and bin order), its error scaled by sqrt(F) for bins not much
        longer than tau (F = block_factor of the worst observable involved): the numbers
        the core would print for such a column.

        variables: names of scalar observables, 'ENERGY^2' (the energy's <e^2>) or
        'ENERGY*action_dT'.  f(*means) or f(*means, p) with p a Point (N, T, L, the scan
        values).  Returns (values, errors), numpy arrays over the points (or those listed
        in `points`)."""
        self._require_h5("a jackknife")
        if not variables:
            raise ValueError("jackknife: name at least one variable")
        loaded = [self._variable(v) for v in variables]
        bases = []
        for _, base in loaded:
            if base not in bases:
                bases.append(base)
        try:
            nparams = len(inspect.signature(f).parameters)
        except (TypeError, ValueError):
            nparams = len(variables)
        pass_point = nparams == len(variables) + 1
        ch = self.h5["chains"]
        point_of = ch["point"][()]
        walker = ch["walker"][()]
        weights = ch["bin_weights"][()]
        units = ch["units"][()]
        temps = ch["T"][()]
        sizes = ch["L"][()] if "L" in ch else None
        measured = 1 if self.method == "dmc" else int(self.attrs["walkers"])
        taus = {b: self._tau_measurements(b) for b in bases}
        rows = range(self.n_points) if points is None else points
        values, errors = [], []
        for k in rows:
            chains = [c for c in np.flatnonzero(point_of == k) if walker[c] < measured]
            means, w = [], []
            for c in chains:
                for b in range(weights.shape[1]):
                    if weights[c, b] > 0:
                        means.append([float(m[c, b]) for m, _ in loaded])
                        w.append(float(weights[c, b]))
            c0 = chains[0]
            p = Point(k, float(units[c0]), float(temps[c0]),
                      float(sizes[c0]) if sizes is not None else math.nan,
                      {a: self.table[a][k] for a in self.scan if a in self.table})
            fn = (lambda m, p=p: f(*m, p)) if pass_point else (lambda m: f(*m))
            value, error = stats.jackknife(means, w, fn)
            tau = 0.0
            for b in bases:
                st = 0.0
                for c in chains:
                    st += float(taus[b][c])
                if st / float(len(chains)) > tau:
                    tau = st / float(len(chains))
            error *= stats.jackknife_scale(tau, [float(x) for x in weights[c0]])
            values.append(value)
            errors.append(error)
        return np.array(values), np.array(errors)

    def roles(self):
        """{role: observable name} of the scalar observables with a role."""
        return {o.role: n for n, o in self.observables.items() if o.role and o.kind == "scalar"}

    def derived(self, name):
        """A derived column of results.tsv (specific_heat, susceptibility, binder, variance,
        xi_over_l) recomputed from the bins with the core's formula: (values, errors)."""
        self._require_h5(name)
        if name not in DERIVED:
            raise KeyError(f"{name}: not a derived quantity (those are {', '.join(DERIVED)})")
        if name not in self.table:
            raise KeyError(f"{name}: not a column of this run (the core leaves a derived "
                           "quantity out when the model lacks its roles, the run has no "
                           "temperature for it, or its estimates share noise: results.tsv's "
                           "warnings say which)")
        r = self.roles()
        if name == "specific_heat" and "energy_dT" in r and "action_dT" in r:
            e = r["energy"]
            return self.jackknife(lambda e_, es, et, st, p: et - p.N * (es - e_ * st),
                                  e, f"{e}*action_dT", r["energy_dT"], r["action_dT"])
        if name == "specific_heat":
            return self.jackknife(lambda e, e2, p: p.N * (e2 - e * e) / (p.T * p.T),
                                  r["energy"], r["energy"] + "^2")
        if name == "variance":
            return self.jackknife(lambda e, e2, p: p.N * (e2 - e * e),
                                  r["energy"], r["energy"] + "^2")
        if name == "susceptibility":
            return self.jackknife(lambda m, m2, p: p.N * (m2 - m * m) / p.T,
                                  r["order"], r["order2"])
        if name == "binder":
            return self.jackknife(lambda m2, m4: 1.0 - m4 / (3.0 * m2 * m2),
                                  r["order2"], r["order4"])
        return self.jackknife(_xi_over_l, r["order2"], r["order_kmin"])

    # ---- plots (mcf.plots) ------------------------------------------------------------
    def plot(self, column, **kw):
        from . import plots
        return plots.plot(self, column, **kw)

    def crossings(self, column="binder", by=None):
        from . import plots
        return plots.crossings(self, column, by=by)

    def __repr__(self):
        if not self.table:
            return f"Run({self.path!r}: {self.kind or 'output'}, tables {self.tables()})"
        return (f"Run({self.path!r}: model {self.attrs.get('model', '?')}, "
                f"{self.n_points} points, scan {self.scan})")


def _xi_over_l(m2, mk, p):
    x = m2 / mk - 1.0
    return math.copysign(math.sqrt(math.fabs(x)), x) / (2.0 * p.L * math.sin(
        3.14159265358979323846 / p.L))


def load(directory, verify=True):
    """The run in output folder DIRECTORY (mcf run, resume, tc, optimize).  verify: check
    results.h5's digest first, as `mcf dos` does (refusing a damaged file with its message)."""
    return Run(directory, verify=verify)
