#!/usr/bin/env bash
# `mcf dos DIR` (core/program/dos.c) on a small Anderson scan with kpm (two W, two walkers,
# random vectors):
#   1. with the run's kernel and grid it gives back the run's dos.tsv and ldos.tsv, values
#      and errors, to the 10 significant digits those files print (|x - y| <= 5e-10 |y|;
#      with python3-h5py also against /curves/dos in results.h5 at full precision, within
#      1e-13 of the curve's largest value: the same sums in another order);
#   2. lorentz:3 on 300 Chebyshev nodes: the Gauss-Chebyshev sum (pi a / N) sum rho_i
#      sin theta_i, which integrates a degree < 2N polynomial over the weight exactly, gives
#      mu_0 = 1 (random phases) to 1e-12, at every scan point;
#   3. kernel none on a uniform --range grid agrees with the Chebyshev series summed here
#      in awk from dos_moments.tsv, within the bound that file's 10 printed digits allow
#      (sum 2 * 5e-10 |mu_n| / (pi a sin theta)) plus 1e-12;
#   4. refusals: no folder, unknown option, bad --points / --range / --kernel (status 2),
#      an ed run without moments (2, naming the evaluator), a damaged results.h5 (1).
# usage: test_dos.sh MCF SCRATCH hdf5|no-hdf5
set -u
. "$(dirname "${BASH_SOURCE[0]}")/h5py_python.sh"
mcf=$1
dir=$2/dos
[ "${3:-}" = hdf5 ] || { echo "skipped: built without HDF5"; exit 77; }
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail=0; passed=0
ok()  { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; fail=$((fail + 1)); }

cat > a.ini <<'INI'
[run]
model = anderson
evaluator = kpm
seed = 31
output = out
walkers = 2
threads = 1
[schedule]
thermalize = 0
sweeps = 48
bins = 12
[model]
lattice = cubic
L = 4
W = 1, 4
typical_sites = 4
[evaluator]
moments = 48
vectors = 3
INI
"$mcf" run a.ini --no-progress >/dev/null 2>run.err || { cat run.err; echo "run failed"; exit 1; }

# 1. the run's kernel and grid
"$mcf" dos out > dos.out 2>dos.err || { cat dos.err; echo "mcf dos failed"; exit 1; }
t=out/dos-jackson-96.tsv
grep -q "written to $t" dos.out && [ -s "$t" ] && ok "mcf dos wrote $t" || bad "no $t: $(cat dos.out dos.err)"
grep -q "^# not reconstructed: typical_dos" "$t" && ok "typical_dos named as not reconstructible" \
  || bad "typical_dos not named in $t"
# compare columns (W, E, value, error) of the run's curve file with ours (column c, c + 1)
compare() { # curve file, our value column
  awk -F'\t' -v col="$2" 'FNR == 1 { file++ } /^#/ || /^W/ { next }
    file == 1 { n1++; w1[n1] = $1; e1[n1] = $2; v1[n1] = $3; r1[n1] = $4; next }
    { n2++; w2[n2] = $1; e2[n2] = $2; v2[n2] = $col; r2[n2] = $(col + 1) }
    function off(x, y) { d = x - y; if (d < 0) d = -d; a = y < 0 ? -y : y; return d > 5e-10 * a + 1e-300 }
    END { if (n1 != n2 || n1 == 0) { print "rows " n1 " vs " n2; exit 1 }
          for (i = 1; i <= n1; i++)
            if (w1[i] != w2[i] || off(e2[i], e1[i]) || off(v2[i], v1[i]) || off(r2[i], r1[i])) {
              print "row " i ": " w1[i] " " e1[i] " " v1[i] " " r1[i] " vs " w2[i] " " e2[i] " " v2[i] " " r2[i]; exit 1 }
          print n1 " rows" }' "$1" "$t"
}
m=$(compare out/dos.tsv 3) && ok "dos and dos_err equal dos.tsv's ($m)" || bad "dos vs dos.tsv: $m"
m=$(compare out/ldos.tsv 5) && ok "ldos and ldos_err equal ldos.tsv's ($m)" || bad "ldos vs ldos.tsv: $m"
py=$(h5py_python)
if [ -n "$py" ]; then
  m=$("$py" - "$t" out/results.h5 <<'PY'
import sys, h5py, numpy as np
rows = [l.split("\t") for l in open(sys.argv[1]) if not l.startswith("#") and not l.startswith("W")]
v = np.array([float(r[2]) for r in rows]); e = np.array([float(r[3]) for r in rows])
with h5py.File(sys.argv[2]) as f:
    rv = f["curves/dos/dos"][...]; re_ = f["curves/dos/dos_err"][...]
dv = np.max(np.abs(v - rv)) / np.max(np.abs(rv)); de = np.max(np.abs(e - re_)) / np.max(np.abs(rv))
print("%.2e %.2e" % (dv, de))
sys.exit(0 if dv <= 1e-13 and de <= 1e-13 else 1)
PY
  ) && ok "against results.h5's /curves/dos at full precision (value, error / max: $m)" \
    || bad "against results.h5's /curves/dos: $m"
else
  echo "note: python3-h5py not installed: the full-precision comparison is left out"
fi

# 2. another kernel and grid: normalization by Gauss-Chebyshev quadrature
"$mcf" dos out --kernel lorentz:3 --points 300 >dos2.out 2>dos2.err || { cat dos2.err; bad "lorentz:3 failed"; }
t2=out/dos-lorentz_3-300.tsv
m=$(awk -F'\t' '/^#/ || /^W/ { next }
  { k = $1; n[k]++; E[k, n[k]] = $2; v[k, n[k]] = $3 }
  END { pi = atan2(0, -1); bad = 0; out = ""
        for (k in n) { N = n[k]; a = (E[k, N] - E[k, 1]) / (2 * cos(pi / (2 * N))); s = 0
          for (i = 1; i <= N; i++) s += v[k, i] * pi * a * sin(pi * (i - 0.5) / N) / N
          d = s - 1; if (d < 0) d = -d; out = out " W=" k ": " s; if (d > 1e-12) bad = 1 }
        print out; exit bad }' "$t2") && ok "lorentz:3 on 300 nodes integrates to mu_0 = 1:$m" \
  || bad "lorentz:3 normalization:$m"

# 3. kernel none on a uniform grid against the series summed here from dos_moments.tsv
"$mcf" dos out --kernel none --points 41 --range -7:7 >dos3.out 2>dos3.err || { cat dos3.err; bad "--range failed"; }
t3=out/dos-none-41-E-7_7.tsv
m=$(awk -F'\t' 'FNR == 1 { file++ } /^#/ || /^W/ { next }
  file == 1 { k = $1; mu[k, $2] = $3; M[k] = $2 + 1; next }      # dos_moments.tsv
  file == 2 { k = $1; n[k]++; if (n[k] == 1) E0[k] = $2; E1[k] = $2; N[k] = n[k]; next } # node grid
  { k = $1; pi = atan2(0, -1); a = (E1[k] - E0[k]) / (2 * cos(pi / (2 * N[k]))); b = (E1[k] + E0[k]) / 2
    x = ($2 - b) / a; if (x <= -1 || x >= 1) { if ($3 != 0) { print "E=" $2 " outside: " $3; exit 1 } next }
    s = mu[k, 0]; t0 = 1; t1 = x; bound = 5e-10 * (mu[k, 0] < 0 ? -mu[k, 0] : mu[k, 0])
    for (j = 1; j < M[k]; j++) { tj = j == 1 ? x : 2 * x * t1 - t0; if (j >= 2) { t0 = t1; t1 = tj }
      s += 2 * mu[k, j] * tj; am = mu[k, j] < 0 ? -mu[k, j] : mu[k, j]; bound += 2 * 5e-10 * am }
    w = pi * a * sqrt((1 - x) * (1 + x)); rho = s / w; tol = bound / w + 1e-12
    d = $3 - rho; if (d < 0) d = -d; if (d > tol) { print "W=" k " E=" $2 ": " $3 " vs " rho " (tol " tol ")"; exit 1 }
    cnt++ }
  END { print cnt " energies" }' out/dos_moments.tsv out/dos-jackson-96.tsv "$t3") \
  && ok "kernel none on a uniform grid = the series from dos_moments.tsv ($m)" || bad "uniform grid: $m"

# 4. refusals
refused() { # expected status, text, command...
  local want=$1 text=$2; shift 2
  "$@" >r.out 2>r.err; local st=$?
  if [ $st -eq "$want" ] && grep -q -- "$text" r.err; then ok "refused ($st): $(head -c 160 r.err)"
  else bad "$* gave $st: $(cat r.err)"; fi
}
refused 2 "is not a folder" "$mcf" dos nowhere
refused 2 "unknown option" "$mcf" dos out --colour
refused 2 "points" "$mcf" dos out --points 0
refused 2 "Emin < Emax" "$mcf" dos out --range 3:1
refused 2 "jackson, lorentz" "$mcf" dos out --kernel gauss
sed -e 's/^evaluator = kpm/evaluator = ed/' -e 's/^output = out/output = ed.out/' \
    -e '/^\[evaluator\]/,$d' a.ini > ed.ini
"$mcf" run ed.ini --no-progress >/dev/null 2>ed.err || { cat ed.err; bad "ed run failed"; }
refused 2 "no Chebyshev moments" "$mcf" dos ed.out
[ ! -e ed.out/dos_moments.tsv ] && ok "ed: no moment curves written" || bad "ed wrote dos_moments.tsv"
cp -r out dmg && head -c 3000 out/results.h5 > dmg/results.h5
refused 1 "results.h5" "$mcf" dos dmg

echo "$passed passed, $fail failed"
[ $fail -eq 0 ]
