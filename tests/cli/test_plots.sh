#!/usr/bin/env bash
# Plots a physicist would put in a talk (issue 18, part 5): symbols and units from the
# models' labels on the axes and in the legends, one curve per lattice size, the Binder
# crossing printed and marked (checked against an independent interpolation in awk), DOS
# curves in their error bands, a PNG beside every SVG; an old results.tsv without labels
# still plots with the column names; without pngcairo: SVG only and one warning.
# usage: test_plots.sh MCF SCRATCH      (exit 77: gnuplot not installed)
set -u
mcf=$1
dir=$2/plots
command -v gnuplot >/dev/null 2>&1 || { echo "skipped: gnuplot not installed"; exit 77; }
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail=0; passed=0
ok()  { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; fail=$((fail + 1)); }
has() { # description, file, fixed string...
  local what=$1 file=$2; shift 2
  for p in "$@"; do grep -qF -- "$p" "$file" || { bad "$what: $file lacks '$p'"; return; }; done
  ok "$what"
}
# a whole PNG: the 8-byte signature first, the IEND chunk (with its CRC) last
png_whole() {
  [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] &&
  [ "$(tail -c 12 "$1" | od -An -tx1 | tr -d ' \n')" = 0000000049454e44ae426082 ]
}

# ---- a real Ising scan over L and T: labels from the plugin, legends per L, PNGs --------
printf '[run]\nmodel = ising\nseed = 3\noutput = ising.out\n[schedule]\nthermalize = 200\nsweeps = 2000\ntemperatures = 2.0, 2.3, 2.6\n[model]\nL = 4, 6\n' >ising.ini
if "$mcf" run ising.ini --no-progress >/dev/null 2>ising.err; then
  has "results.tsv carries the labels" ising.out/results.tsv "# labels: L: L	T: T [J]	energy: E/N [J]	abs_m: ⟨|m|⟩" \
    "specific_heat: C	susceptibility: χ [1/J]	binder: U_4"
  has "|m| plot: symbol, axis with unit, a legend entry per L" ising.out/plot-abs_m.svg "⟨|m|⟩" "T / J" "L = 4" "L = 6"
  has "susceptibility axis in 1/J" ising.out/plot-susceptibility.svg "χ · J"
  has "energy axis" ising.out/plot-energy.svg "(E/N) / J"
  # U_4: U with a subscript 4 (enhanced text: a smaller tspan, moved down)
  grep -qE '>U</tspan><tspan[^>]*font-size="9.6" dy="[0-9.]+px">4</tspan>' ising.out/plot-binder.svg \
    && ok "Binder axis: U with a subscript 4" || bad "Binder axis: no U_4 with a subscript in ising.out/plot-binder.svg"
  n=0; whole=1
  for svg in ising.out/plot-*.svg; do
    n=$((n + 1)); png=${svg%.svg}.png
    png_whole "$png" || { whole=0; bad "$png missing or not whole"; }
  done
  [ "$n" -eq 9 ] && [ "$whole" -eq 1 ] && ok "9 plots, each SVG with a whole PNG beside it" || bad "$n SVG plots"
  has "the log counts the plots" ising.out/log "plots: 9 SVG files" "PNG beside them"
  # the transition in one figure: |m|, chi and U side by side, a curve per L, U's crossing
  has "plot-transition: |m|, chi, U panels with a legend per L" ising.out/plot-transition.svg \
    "⟨|m|⟩" "χ · J" "T / J" "L = 4" "L = 6"
  [ "$(grep -c '<g id="gnuplot_plot_1' ising.out/plot-transition.svg)" -eq 3 ] \
    && ok "plot-transition has 3 panels" \
    || bad "plot-transition: $(grep -c '<g id="gnuplot_plot_1' ising.out/plot-transition.svg) panels, expected 3"
  ls -A ising.out | grep -q '\.tmp$' && bad "temporaries left: $(ls -A ising.out)" || ok "no temporaries left"
  size=$(stat -c %s ising.out/plot-abs_m.png)
  [ "$size" -lt 200000 ] && ok "a PNG of modest size ($size bytes)" || bad "plot-abs_m.png is $size bytes"
else
  bad "ising run failed"; cat ising.err
fi

# ---- the Binder crossing of a synthetic scan, against awk ------------------------------
# L = 4/6: one crossing between T = 2.3 and 2.4; the sign change between 2.5 and 2.6 lies
# within the error bars at both temperatures (noise) and is not one.  L = 6/8: one crossing.
mkdir -p syn
{
  printf '# mcf 0.1.0 results\n# scan: L T\n# labels: L: L\tT: T [J]\tbinder: U_4\n'
  printf 'L\tT\tbinder\tbinder_err\tacceptance\n'
  T=(2.0 2.1 2.2 2.3 2.4 2.5 2.6)
  U4=(0.62 0.60 0.57 0.53 0.47 0.40 0.30)
  U6=(0.64 0.625 0.59 0.535 0.44 0.397 0.302)
  U8=(0.65 0.64 0.605 0.545 0.43 0.35 0.25)
  for i in 0 1 2 3 4 5 6; do printf '4\t%s\t%s\t0.004\t0.5\n' "${T[i]}" "${U4[i]}"; done
  for i in 0 1 2 3 4 5 6; do printf '6\t%s\t%s\t0.004\t0.5\n' "${T[i]}" "${U6[i]}"; done
  for i in 0 1 2 3 4 5 6; do printf '8\t%s\t%s\t0.004\t0.5\n' "${T[i]}" "${U8[i]}"; done
} >syn/results.tsv
# independently: where U(L1) - U(L2) changes sign between neighbouring T with the
# difference beyond its error (errors in quadrature) at one of them; linear interpolation,
# error h sqrt(d2^2 s1^2 + d1^2 s2^2) / (d1 - d2)^2, printed to two significant digits
awk -F'\t' '
  /^#/ { next }
  !head { for (c = 1; c <= NF; c++) col[$c] = c; head = 1; next }
  { L = $col["L"]; T = $col["T"]
    U[L, T] = $col["binder"]; E[L, T] = $col["binder_err"]
    if (!(L in seenL)) { seenL[L] = 1; Ls[++nL] = L }
    if (!(T in seenT)) { seenT[T] = 1; Ts[++nT] = T } }
  function fl(v,  f) { f = int(v); if (f > v) f--; return f }
  END {
    for (a = 1; a < nL; a++) {
      l1 = Ls[a]; l2 = Ls[a + 1]
      for (i = 1; i < nT; i++) {
        t1 = Ts[i]; t2 = Ts[i + 1]
        d1 = U[l1, t1] - U[l2, t1]; d2 = U[l1, t2] - U[l2, t2]
        s1 = sqrt(E[l1, t1]^2 + E[l2, t1]^2); s2 = sqrt(E[l1, t2]^2 + E[l2, t2]^2)
        sig = (d1 > s1 || d1 < -s1 || d2 > s2 || d2 < -s2)
        if (!(d1 * d2 < 0 && sig)) continue
        h = t2 - t1; f = d1 / (d1 - d2); x = t1 + h * f
        e = h * sqrt(d2 * d2 * s1 * s1 + d1 * d1 * s2 * s2) / ((d1 - d2) * (d1 - d2))
        dec = 1 - fl(log(e) / log(10))
        printf("Binder crossing L = %s/%s at T = %." dec "f ± %." dec "f J\n", l1, l2, x, e)
      }
    }
  }' syn/results.tsv >syn/expected.txt
"$mcf" plot syn >/dev/null 2>syn/err.txt; rc=$?
grep "^Binder crossing" syn/err.txt >syn/printed.txt
if [ $rc -eq 0 ] && [ "$(wc -l <syn/expected.txt)" -eq 2 ] && cmp -s syn/expected.txt syn/printed.txt; then
  ok "Binder crossings printed as awk interpolates them: $(tr '\n' ';' <syn/printed.txt)"
else
  bad "Binder crossings (exit $rc): expected"; cat syn/expected.txt; echo "printed:"; cat syn/err.txt
fi
keys=0
while read -r line; do
  key=${line#Binder crossing }   # "L = 4/6 at T = 2.314 ± 0.014 J"
  grep -qF "$key" syn/plot-binder.svg && keys=$((keys + 1)) || bad "the plot's key lacks '$key'"
done <syn/expected.txt
[ "$keys" -eq 2 ] && ok "the plot's key names both crossings"

# ---- an old results.tsv without labels still plots, with the column names ---------------
mkdir -p old
printf '# mcf 0.1.0 results\n# scan: L T\nL\tT\tabs_m\tabs_m_err\tbinder\tbinder_err\tacceptance\n4\t2.0\t0.9\t0.01\t0.6\t0.01\t0.3\n4\t2.5\t0.6\t0.01\t0.4\t0.01\t0.4\n8\t2.0\t0.95\t0.01\t0.64\t0.01\t0.3\n8\t2.5\t0.5\t0.01\t0.3\t0.01\t0.4\n' >old/results.tsv
if "$mcf" plot old >/dev/null 2>old/err.txt; then
  has "old file: raw names, legends per L" old/plot-abs_m.svg ">abs_m<" ">T<" "L = 4" "L = 8"
  grep -q "⟨" old/plot-abs_m.svg && bad "old file: a symbol from nowhere" || ok "old file: no symbols"
  has "old file: the crossing without a unit" old/err.txt "Binder crossing L = 4/8 at T = 2.143 ± 0.039"
else bad "old file did not plot"; cat old/err.txt; fi

# one lattice size: no transition figure (nothing to compare across sizes)
mkdir -p one
printf '# mcf 0.1.0 results\n# scan: L T\nL\tT\tabs_m\tabs_m_err\tbinder\tbinder_err\n4\t2.0\t0.9\t0.01\t0.6\t0.01\n4\t2.5\t0.6\t0.01\t0.4\t0.01\n' >one/results.tsv
"$mcf" plot one >/dev/null 2>&1
[ -f one/plot-abs_m.svg ] && [ ! -e one/plot-transition.svg ] \
  && ok "one size: no plot-transition" || bad "one size: $(ls one)"

# ---- a DOS curve in its error band --------------------------------------------------------
printf '[run]\nmodel = anderson\nevaluator = kpm\nseed = 5\noutput = dos.out\n[schedule]\nthermalize = 0\nsweeps = 8\nbins = 8\n[model]\nlattice = cubic\nL = 6\nW = 4, 16\ntypical_sites = 4\n[evaluator]\nmoments = 128\nvectors = 2\nenergy_points = 129\n' >dos.ini
if "$mcf" run dos.ini --no-progress >/dev/null 2>dos.err; then
  has "dos.tsv carries the labels" dos.out/dos.tsv "# labels: W: W [t]	E: E [t]	dos: ρ(E) [1/t]"
  has "DOS: a band per W (filled polygons), axes and legend" dos.out/plot-dos.svg "<polygon" "fill-opacity" \
    "ρ(E) · t" "E / t" "W = 4 t" "W = 16 t"
  [ "$(grep -c "<polygon" dos.out/plot-dos.svg)" -ge 2 ] && ok "two bands" || bad "bands: $(grep -c "<polygon" dos.out/plot-dos.svg)"
  png_whole dos.out/plot-dos.png && ok "plot-dos.png whole" || bad "plot-dos.png"
else
  bad "anderson run failed"; cat dos.err
fi

# ---- a gnuplot without pngcairo: SVG only, one warning line -------------------------------
real=$(command -v gnuplot)
mkdir -p nocairo
printf '#!/bin/sh\ncase "$*" in *pngcairo*) echo "unknown terminal" >&2; exit 1;; esac\nexec "%s" "$@"\n' "$real" >nocairo/gnuplot
chmod +x nocairo/gnuplot
rm -f old/plot-*
PATH=$dir/nocairo:$PATH "$mcf" plot old >old/out.txt 2>old/err2.txt; rc=$?
[ $rc -eq 0 ] && ok "no pngcairo: mcf plot succeeds" || { bad "no pngcairo: exit $rc"; cat old/err2.txt; }
[ "$(grep -c pngcairo old/err2.txt)" -eq 1 ] && ok "no pngcairo: one warning: $(grep pngcairo old/err2.txt)" \
  || { bad "no pngcairo: warnings:"; cat old/err2.txt; }
ls old/plot-*.png >/dev/null 2>&1 && bad "no pngcairo, yet PNG files" || ok "no pngcairo: no PNG"
[ -s old/plot-abs_m.svg ] && ok "no pngcairo: the SVG is there" || bad "no pngcairo: no SVG"

echo "$passed passed, $fail failed"
[ "$fail" -eq 0 ]
