#!/usr/bin/env bash
# The KPM DOS error band of `mcf dos` against the spread of independent runs.
#
# K = 16 Anderson runs (cubic L = 5, W = 2, kpm with R = 2 random phase vectors, 128
# realizations in 16 bins each) differing only in the seed.  Each run's `mcf dos` gives
# rho_k(E) and its jackknife error e_k(E).  At P = 5 energies spaced by ~6 kernel widths
# (the nodes nearest E = -4, -2, 0, 2, 4; the Jackson resolution pi a / M = 0.33 with
# a = 6.5 / 0.995, M = 64) the test forms
#
#     r = (1/P) sum_E s^2(E) / <e^2>(E),
#
# s^2 the sample variance of the K values (K - 1 degrees of freedom), <e^2> the mean of the
# K squared errors.  If the errors are right and the estimates Gaussian, (K - 1) s^2 / sigma^2
# ~ chi^2_{K-1}, and each e^2 estimates sigma^2 with the nb - 1 = 15 degrees of freedom of
# a 16-bin jackknife, so r is an F-like ratio with d1 = P (K - 1) = 75 and d2 = P K (nb - 1)
# = 1200 degrees of freedom (energies this far apart are taken as independent: the
# stochastic trace's noise at E and E' correlates through Tr delta(E - H) delta(E' - H),
# zero beyond the resolution).  Acceptance: the conservative 99.8% band
#
#     chi2_{d1}(0.0005) / d1 / (chi2_{d2}(0.9995) / d2)  <=  r  <=
#     chi2_{d1}(0.9995) / d1 / (chi2_{d2}(0.0005) / d2),
#
# chi-square quantiles by Wilson-Hilferty (z = 3.2905): [0.48, 1.87].  An error off by
# a factor 2 (r = 4 or 0.25) fails it.  The test also prints the band that holds for any
# correlation between the energies (r as a single chi^2_{K-1} / (K - 1)).  Runtime ~20 s of
# CPU (the 16 runs and their `mcf dos`).
# Tiers (docs/reliability.md, "The time of .ci/run"): the band is the whole comparison, so
# test_dos_band_long (PART long, label long: skipped, 77, unless MCF_TEST_LONG=1) runs it as
# above; the default test runs the first of the 16 runs and its `mcf dos` (~1 s) and holds
# what the comparison reads: a row of the table at each of the 5 energies, within a node
# spacing of it, with a density and a jackknife error both finite and > 0.
# usage: test_dos_band.sh MCF SCRATCH hdf5|no-hdf5 [long]
set -u
mcf=$1
part=${4:-}
if [ "$part" = long ] && [ -z "${MCF_TEST_LONG:-}" ]; then
  echo "skipped: test_dos_band's long part (the band over 16 runs) runs with MCF_TEST_LONG=1"
  exit 77
fi
dir=$2/dos_band${part:+_$part}
[ "${3:-}" = hdf5 ] || { echo "skipped: built without HDF5"; exit 77; }
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
K=16
[ -z "$part" ] && K=1
for k in $(seq 1 $K); do
  cat > run$k.ini <<INI
[run]
model = anderson
evaluator = kpm
seed = $((1000 + k))
output = out$k
threads = 1
[schedule]
thermalize = 0
sweeps = 128
bins = 16
[model]
lattice = cubic
L = 5
W = 2
typical_sites = 1
[evaluator]
moments = 64
vectors = 2
INI
  "$mcf" run run$k.ini --no-progress >/dev/null 2>run$k.err || { cat run$k.err; echo "run $k failed"; exit 1; }
  "$mcf" dos out$k >/dev/null 2>dos$k.err || { cat dos$k.err; echo "mcf dos $k failed"; exit 1; }
done
# every run's table: point, E, dos, dos_err, ldos, ldos_err
if [ -z "$part" ]; then
  awk -F'\t' '
    /^#/ || /^point/ { next }
    { N++; E[N] = $2; v[N] = $3; e[N] = $4 }
    END {
      split("-4 -2 0 2 4", target, " "); bad = 0
      for (t = 1; t <= 5; t++) {
        best = 1
        for (i = 1; i <= N; i++) if ((E[i] - target[t]) ^ 2 < (E[best] - target[t]) ^ 2) best = i
        i = best; d = E[i] - target[t]; if (d < 0) d = -d
        h = 0                             # the spacing of the nodes beside it
        if (i > 1) h = E[i] - E[i - 1]; if (h < 0) h = -h
        if (i < N && (E[i + 1] - E[i]) ^ 2 > h ^ 2) h = E[i + 1] - E[i]; if (h < 0) h = -h
        ok = (d <= h && v[i] > 0 && e[i] > 0 && v[i] < 1e300 && e[i] < 1e300)
        printf "E = %8.4f: dos %.5f +- %.3e%s\n", E[i], v[i], e[i], ok ? "" : "  (FAILED)"
        if (!ok) bad = 1
      }
      if (N < 5 || bad) { printf "FAILED: %d rows; a target energy without a row, or a density" \
          " or error not finite and > 0\n", N; exit 1 }
      printf "ok: mcf dos wrote %d rows, a density and an error > 0 at each of the 5 energies\n", N
      print "not compared: the error band against 16 runs (test_dos_band_long)"
    }' out1/dos-jackson-128.tsv
  exit
fi
awk -F'\t' -v K=$K -v nb=16 '
  /^#/ || /^point/ { next }
  { run = FILENAME; sub(/.*out/, "", run); sub(/\/.*/, "", run)
    n[run]++; E[n[run]] = $2; v[run, n[run]] = $3; e[run, n[run]] = $4 }
  function wh(nu, z) { c = 2 / (9 * nu); return nu * (1 - c + z * sqrt(c)) ^ 3 }
  END {
    N = n[1]; P = 0
    split("-4 -2 0 2 4", target, " ")
    for (t = 1; t <= 5; t++) {            # the node nearest each target energy
      best = 1
      for (i = 1; i <= N; i++) if ((E[i] - target[t]) ^ 2 < (E[best] - target[t]) ^ 2) best = i
      i = best; m = 0; ee = 0
      for (k = 1; k <= K; k++) { m += v[k, i]; ee += e[k, i] ^ 2 }
      m /= K; ee /= K; s2 = 0
      for (k = 1; k <= K; k++) s2 += (v[k, i] - m) ^ 2
      s2 /= K - 1
      ratio = s2 / ee; sum += ratio; P++
      printf "E = %8.4f: mean %.5f, spread %.3e, mean error %.3e, ratio %.3f\n", E[i], m, sqrt(s2), sqrt(ee), ratio
    }
    r = sum / P; z = 3.2905
    d1 = P * (K - 1); d2 = P * K * (nb - 1)
    lo = wh(d1, -z) / d1 / (wh(d2, z) / d2); hi = wh(d1, z) / d1 / (wh(d2, -z) / d2)
    lo1 = wh(K - 1, -z) / (K - 1) / (wh(d2, z) / d2); hi1 = wh(K - 1, z) / (K - 1) / (wh(d2, -z) / d2)
    printf "r = %.3f over %d energies; band [%.3f, %.3f] (independent energies, d1 = %d, d2 = %d); any correlation: [%.3f, %.3f]\n", r, P, lo, hi, d1, d2, lo1, hi1
    if (r < lo || r > hi) { print "FAILED: r outside the band"; exit 1 }
    print "ok: the error band of mcf dos matches the spread of independent runs"
  }' $(for k in $(seq 1 $K); do echo out$k/dos-jackson-128.tsv; done)
