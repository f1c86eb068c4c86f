"""Plots of a run's table with matplotlib, drawn as mcf's own plots are (docs/methods.md,
"Plots"): x the last scan column that takes more than one value, one curve per value of the
other varying scan columns (the lattice size), the one-valued ones in the title, axes in
the model's symbols and units, and the crossings of consecutive sizes found by the core's
rule (core/program/plot_binder.c) marked with their errors."""
import math
import re

import numpy as np

__all__ = ["plot", "crossings", "Crossing", "plot_tc", "mathtext"]

# '# T_c (xi_over_l) = 2.385599891 +- 0.136: ...' in tc.tsv
_TC_LINE = re.compile(r"T_c \((\w+)\) = ([-+0-9.eE]+) \+- ([-+0-9.eEnaif]+)")


# '...; nu (largest pair) = 0.850077 +- 0.186' in the same line
_NU = re.compile(r"nu \(largest pair\) = ([-+0-9.eE]+) \+- ([-+0-9.eE]+)")


def mathtext(symbol):
    """A model's symbol in matplotlib's notation: '_x' (a subscript in mcf's plots) and
    '^x' become sub- and superscripts, 'U_4' -> 'U$_{4}$'."""
    return re.sub(r"([_^])([A-Za-z0-9]+)", lambda m: f"${m.group(1)}{{{m.group(2)}}}$", symbol)


class Crossing:
    """Where the curves of sizes size1 < size2 cross: x (the temperature) with its error
    xerr (first order in the two curves' errors, the core's formula) and the value y."""

    def __init__(self, size1, size2, x, xerr, y):
        self.size1, self.size2, self.x, self.xerr, self.y = size1, size2, x, xerr, y

    def text(self, run=None, by="L", x="T"):
        dec = _error_decimals(self.xerr)
        number = (f"{self.x:.{dec}f} ± {self.xerr:.{dec}f}" if dec >= 0 else f"{self.x:.6g}")
        sym, unit = run.label(x) if run is not None else (x, "")
        size = run.label(by)[0] if run is not None else by
        return (f"{size} = {_plain(self.size1)}/{_plain(self.size2)} at {sym} = {number}"
                f"{' ' + unit if unit else ''}")

    def __repr__(self):
        return f"Crossing({self.size1}/{self.size2} at {self.x} ± {self.xerr})"


def _plain(v):
    return f"{v:g}" if isinstance(v, float) else str(v)


def _error_decimals(error):
    """mcfe_error_decimals: the decimals that show an error's first significant digit."""
    if not (error > 0) or not math.isfinite(error):
        return -1
    digits = 1 - math.floor(math.log10(error))
    return 0 if digits < 0 else 15 if digits > 15 else digits


def _layout(run, x=None, by=None):
    """(x column, group columns, title columns) as mcf's plots choose them."""
    varying = [a for a in run.scan if a in run.table and len(set(_cells(run, a))) > 1]
    if x is None:
        x = varying[-1] if varying else None
    groups = [a for a in varying if a != x] if by is None else ([by] if isinstance(by, str)
                                                                 else list(by))
    fixed = [a for a in run.scan if a in run.table and a not in varying]
    return x, groups, fixed


def _cells(run, column):
    col = run.table[column]
    return [float(v) for v in col] if isinstance(col, np.ndarray) else list(col)


def _groups(run, groups):
    """{group key (tuple of values): [rows]} in order of first appearance, sorted when the
    single group column is numeric."""
    out = {}
    for k in range(run.n_points):
        key = tuple(run.table[g][k] for g in groups)
        out.setdefault(key, []).append(k)
    keys = list(out)
    try:
        keys.sort(key=lambda t: tuple(float(v) for v in t))
    except (TypeError, ValueError):
        pass
    return {key: out[key] for key in keys}


def crossings(run, column="binder", by=None, x=None):
    """The crossings of `column`'s curves of consecutive sizes (one numeric group column,
    `by`, default the varying scan column that is not x), by plot_binder.c's rule: at the
    common x values d = y1 - y2 with s = sqrt(e1^2 + e2^2); a sign change between
    neighbours counts when one of them is significant (|d| > s), or, between significant
    points of opposite signs with only insignificant ones between, the first; interpolated
    linearly with the first-order error."""
    xcol, groups, _ = _layout(run, x, by)
    if xcol is None or len(groups) != 1:
        return []
    g = _groups(run, groups)
    keys = list(g)
    try:
        [float(k[0]) for k in keys]
    except (TypeError, ValueError):
        return []
    err = run.table.get(f"{column}_err")
    out = []
    for a, b in zip(keys, keys[1:]):
        out.extend(_pair(run, xcol, column, err, g[a], g[b], a[0], b[0]))
    return out


def _curve(run, xcol, column, err, rows):
    pts = []
    for r in rows:
        xv, yv = float(run.table[xcol][r]), float(run.table[column][r])
        ev = float(err[r]) if err is not None else 0.0
        if math.isfinite(xv) and math.isfinite(yv):
            pts.append((xv, yv, ev if math.isfinite(ev) else 0.0))
    pts.sort(key=lambda t: t[0])
    return pts


def _pair(run, xcol, column, err, rows1, rows2, size1, size2):
    p = _curve(run, xcol, column, err, rows1)
    q = _curve(run, xcol, column, err, rows2)
    a, b = [], []
    i = j = 0
    while i < len(p) and j < len(q):
        if p[i][0] < q[j][0]:
            i += 1
        elif q[j][0] < p[i][0]:
            j += 1
        else:
            a.append(p[i])
            b.append(q[j])
            i += 1
            j += 1
    k = len(a)
    d = [a[i][1] - b[i][1] for i in range(k)]
    s = [math.sqrt(a[i][2] * a[i][2] + b[i][2] * b[i][2]) for i in range(k)]
    sig = [1 if d[i] > s[i] else -1 if d[i] < -s[i] else 0 for i in range(k)]

    def changes(m):
        return d[m] != 0 and (d[m + 1] == 0 or d[m] * d[m + 1] < 0)

    out, last = [], -1
    for i in range(k - 1):
        if sig[i]:
            last = i
        if not changes(i):
            continue
        counts = bool(sig[i] or sig[i + 1])
        if not counts and last >= 0:
            j = i + 1
            while j < k and not sig[j]:
                j += 1
            first = all(not changes(m) for m in range(last, i))
            counts = j < k and sig[j] != sig[last] and first
        if not counts:
            continue
        h, dd = a[i + 1][0] - a[i][0], d[i] - d[i + 1]
        f = d[i] / dd
        xerr = h * math.sqrt(d[i + 1] * d[i + 1] * s[i] * s[i] +
                             d[i] * d[i] * s[i + 1] * s[i + 1]) / (dd * dd)
        out.append(Crossing(size1, size2, a[i][0] + h * f, xerr,
                            a[i][1] + f * (a[i + 1][1] - a[i][1])))
    return out


def _pyplot():
    """matplotlib.pyplot with the user's backend (matplotlib itself falls back to Agg where
    there is no display; MPLBACKEND=Agg forces it)."""
    import matplotlib.pyplot as plt
    return plt


def plot(run, column, x=None, by=None, ax=None, file=None, mark_crossings=None):
    """Draw `column` with its error bars against x (default: as mcf's plots), one curve per
    lattice size (or value of `by`), labelled with the model's symbols and units; the
    crossings of consecutive sizes marked (default: for binder and xi_over_l).  Writes
    `file` (PNG, SVG, PDF by its suffix) when given.  Returns the matplotlib Axes."""
    if column not in run.table:
        raise KeyError(f"{column}: not a column of {run.path}/results.tsv (columns: "
                       f"{', '.join(run.columns)})")
    plt = _pyplot()
    xcol, groups, fixed = _layout(run, x, by)
    if ax is None:
        fig, ax = plt.subplots(figsize=(6.4, 4.5))
    err = run.table.get(f"{column}_err")
    for key, rows in _groups(run, groups).items():
        xs = (np.array([float(run.table[xcol][r]) for r in rows]) if xcol is not None
              else np.array(rows, dtype=float))
        order = np.argsort(xs, kind="stable")
        ys = np.array([float(run.table[column][r]) for r in rows])[order]
        es = (np.array([float(err[r]) for r in rows])[order] if err is not None else None)
        label = ", ".join(f"{mathtext(run.label(g)[0])} = {_plain(v)}"
                          for g, v in zip(groups, key))
        ax.errorbar(xs[order], ys, yerr=es, marker="o", ms=4, capsize=3, lw=1,
                    label=label or None)
    if mark_crossings is None:
        mark_crossings = column in ("binder", "xi_over_l")
    if mark_crossings and xcol is not None and len(groups) == 1:
        for c in crossings(run, column, by=groups[0], x=xcol):
            ax.errorbar([c.x], [c.y], xerr=[c.xerr], fmt="kx", ms=8, capsize=4,
                        label=c.text(run, groups[0], xcol))
    ax.set_xlabel(mathtext(run.axis_label(xcol)) if xcol is not None else "point")
    ax.set_ylabel(mathtext(run.axis_label(column)))
    title = ", ".join(f"{run.label(a)[0]} = {_plain(run.table[a][0])}" for a in fixed)
    model = run.attrs.get("model", "")
    ax.set_title(f"{model}{': ' if title and model else ''}{title}")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize="small")
    ax.grid(alpha=0.3)
    if file is not None:
        ax.figure.savefig(file, dpi=150, bbox_inches="tight")
    return ax


def plot_tc(run, quantity=None, ax=None, file=None):
    """The finite-size scaling of `mcf tc DIR`'s DIR/tc.tsv: the crossing temperatures
    T*(L1, L2) of consecutive sizes against 1/L2 with their errors, per quantity (binder,
    xi_over_l), and the extrapolated T_c of each '# T_c' line where the table gives one,
    with the exponent nu of the largest pair's slopes.
    Returns the Axes."""
    t = run.read_table("tc.tsv")
    plt = _pyplot()
    if ax is None:
        fig, ax = plt.subplots(figsize=(6.4, 4.5))
    qcol = "quantity" if "quantity" in t else None
    rows = range(len(t["T_cross"]))
    quantities = sorted(set(t[qcol])) if qcol else [None]
    for q in quantities:
        if quantity is not None and q != quantity:
            continue
        sel = [r for r in rows if (qcol is None or t[qcol][r] == q) and
               math.isfinite(float(t["T_cross"][r]))]
        inv = np.array([1.0 / float(t["L2"][r]) for r in sel])
        ax.errorbar(inv, [float(t["T_cross"][r]) for r in sel],
                    yerr=[float(t["T_cross_err"][r]) for r in sel], marker="o", capsize=3,
                    ls="none", label=f"{q} crossings" if q else "crossings")
    for line in t.comments:
        m = _TC_LINE.match(line)
        if m and (quantity is None or m.group(1) == quantity):
            value, error = float(m.group(2)), float(m.group(3))
            dec = _error_decimals(error)
            text = (f"{value:.{dec}f} ± {error:.{dec}f}" if dec >= 0 else
                    f"{value:.6g} (no error bar: see tc.tsv)")
            nu = _NU.search(line)  # the exponent of the largest pair's slopes
            if nu:
                nu_value, nu_error = float(nu.group(1)), float(nu.group(2))
                nd = max(_error_decimals(nu_error), 0)
                text += f", ν = {nu_value:.{nd}f} ± {nu_error:.{nd}f}"
            ax.errorbar([0.0], [value], yerr=[error] if dec >= 0 else None, marker="s",
                        capsize=4, ls="none", label=f"T_c ({m.group(1)}) = {text}")
    ax.set_xlabel("1 / L₂")
    ax.set_ylabel(run.axis_label("T") if "T" in run.table else "T*")
    ax.legend(fontsize="small")
    ax.grid(alpha=0.3)
    if file is not None:
        ax.figure.savefig(file, dpi=150, bbox_inches="tight")
    return ax
