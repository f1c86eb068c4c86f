#!/usr/bin/env bash
# Hybrid Monte Carlo ([run] sampler = hmc) on larger lattices against the exact local samplers
# (issue 44, "Validation"; docs/methods.md, "Validation of HMC on larger lattices"):
#  ed4:   double exchange on the 4^3 torus with a twist (no shell of levels at mu), infinite
#         Hund coupling, mu = 0 (half filling), evaluator ed (exact weights on both sides):
#         HMC against the local Metropolis sweeps at T = 0.08, 0.12, 0.16, 0.22 (the 4^3
#         susceptibility peaks near 0.14-0.16, the Binder cumulant falls from 0.66 to 0.49
#         between 0.08 and 0.2);
#  gfmc6: the 6^3 twisted torus with kpm (the model's fixed bounds +-6t; contour GFMC with
#         M = 256 for the local flips, the pseudofermion series for HMC) at T = 0.08 and 0.18,
#         one on each side of T_c (~0.11-0.13 for 6^3).
# Observables: |m|, energy, the Binder cumulant U_4 = 1 - <m^4>/(3<m^2>^2) (results.tsv's
# binder: jackknife over 32 bins, scaled for bins not much longer than tau) and the
# nearest-neighbour correlation, with mcf's own error bars.  Each sampler runs twice with
# different seeds; a side's value is the mean of its two runs.
#  (1) every run: measurements >= 64 tau_int of every compared observable, so that the
#      jackknife's 32 bins and the longest usable blocks are >= 2 tau long (methods.md: with
#      blocks shorter than ~2 tau no error estimate from the run itself is reliable; runs of
#      64-200 tau get the extrapolated error, whose correctness (2) then tests directly);
#  (2) the error bars, by our own check: the two runs of a sampler are independent chains, so
#      (x1 - x2)^2 / (e1^2 + e2^2) is chi^2 with 1 degree of freedom if e1, e2 hold all of
#      the variance, autocorrelation included.  Summed per observable over the temperatures
#      and both samplers (independent runs: an exact chi^2 of 2 nT dof) it must lie between
#      the 0.1 % and 99.9 % quantiles; the same sum with the errors shrunk to the naive
#      e / sqrt(2 tau) (no autocorrelation) is printed beside it to show what it catches;
#  (3) HMC against local: z = (x_hmc - x_local) / sqrt(e_hmc^2 + e_local^2) for every
#      observable and temperature, |z| > 2 flagged; the test fails if chi^2 = sum z^2 exceeds
#      the 99.9 % quantile of chi^2 with as many dof as comparisons (39.25 for 16, 26.12 for
#      8); the four observables of one temperature are correlated, which widens the sum's
#      distribution: a real false alarm rate somewhat above 0.1 %;
#  (4) each HMC run: acceptance > 0.3 and Creutz's <exp(-dH)> within 4 of its errors of 1.
# Label long: skipped (77) unless MCF_TEST_LONG=1; each part <= 20 minutes on one core.
# MCF_TEST_SWEEPS (any value) runs short versions that print the comparisons unheld.
# usage: test_hmc_validate.sh MCF SCRATCH ed4|gfmc6
set -u
case $1 in */* | .*) mcf=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") ;; *) mcf=$1 ;; esac
part=$3
[ "${MCF_TEST_LONG:-0}" = 1 ] || [ -n "${MCF_TEST_SWEEPS:-}" ] ||
    { echo "skipped: MCF_TEST_LONG=1 runs the HMC validation ($part)"; exit 77; }
dir=$2/hmc_validate_$part
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail=0; passed=0
ok()  { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; fail=$((fail + 1)); }
short=${MCF_TEST_SWEEPS:+1}
obs='abs_m energy binder nn_correlation'

# the part's settings: evaluator, L, temperatures, sweeps and thermalization per sampler
case $part in
ed4)   L=4; ev=ed; temps='0.08, 0.12, 0.16, 0.22'; nT=4
       hmc_therm=30; hmc_sweeps=400; loc_therm=200; loc_sweeps=1200
       steps=12; dt=0.08; evsec='' ;;
gfmc6) L=6; ev=kpm; temps='0.08, 0.18'; nT=2
       hmc_therm=40; hmc_sweeps=500; loc_therm=200; loc_sweeps=1000
       steps=16; dt=0.06; evsec=$'[evaluator]\nmoments = 256\nvectors = 8' ;;
*) echo "usage: test_hmc_validate.sh MCF SCRATCH ed4|gfmc6"; exit 2 ;;
esac
[ -n "$short" ] && { hmc_therm=2; hmc_sweeps=32; loc_therm=2; loc_sweeps=32; }

config() { # sampler seed thermalize sweeps T
cat <<INI
[run]
model = double-exchange
evaluator = $ev
seed = $2
threads = 1
sampler = $1
hmc_steps = $steps
hmc_dt = $dt
[schedule]
thermalize = $3
sweeps = $4
temperatures = $5
[model]
lattice = cubic
L = $L
twist = 0.13 0.29 0.41
mu = 0
$evsec
INI
}

# one run (a single temperature: kpm keeps one contour per thread, so chains at two
# temperatures in one thread replan it at every flip, ~6x the cost of separate runs)
run_one() { # sampler run name
    local s=$1 r=$2 name=$3 start line
    start=$(date +%s)
    if ! /usr/bin/time -f '%U %S' -o "$name.cpu" "$mcf" run "$name.ini" --no-plots \
            > "$name.txt" 2>&1; then
        bad "$name: the run failed: $(grep -m1 error "$name.txt")"; return
    fi
    echo "$name: $(( $(date +%s) - start )) s wall, $(awk '{ print $1 + $2 }' "$name.cpu") s CPU"
    grep -h 'not in equilibrium' "$name.out/results.tsv" | sed "s/^/note: $name: /"
    awk -F'\t' -v s="$s" -v r="$r" -v obs="$obs" '
        /^# schedule:/ { if (match($0, /measurements [0-9]+/))
                             n = substr($0, RSTART + 13, RLENGTH - 13) + 0 }
        /^#/ { next }
        $1 == "T" { for (i = 1; i <= NF; i++) c[$i] = i; next }
        { k = split(obs, o, " ")
          for (j = 1; j <= k; j++) {
              if (!c[o[j]] || !c[o[j] "_err"]) { print "no column " o[j] > "/dev/stderr"
                                                  continue }
              t = $c["tau_" o[j]]
              if (o[j] == "binder") { t = $c["tau_m2"]; if ($c["tau_m4"] > t) t = $c["tau_m4"] }
              printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\n", s, r, $1, o[j], $c[o[j]],
                     $c[o[j] "_err"], t, n } }' "$name.out/results.tsv" >> data.tsv
    [ "$s" = hmc ] || return
    line=$(grep 'hybrid Monte Carlo:' "$name.out/log")
    echo "$name: ${line#*hybrid Monte Carlo: }"
    if echo "$line" | awk '{ for (i = 1; i <= NF; i++) {
               if ($i == "<exp(-dH)>") { e = $(i + 2); se = $(i + 4) }
               if ($i == "acceptance") a = $(i + 1) + 0 }
           exit !(a > 0.3 && (e - 1) ^ 2 <= 16 * se * se) }'; then
        ok "(4) $name: acceptance and Creutz's equality"
    else
        bad "(4) $name: acceptance <= 0.3 or <exp(-dH)> beyond 4 errors of 1"
    fi
}

# data.tsv: sampler run T observable value error tau measurements (tau of binder: the larger
# of m2's and m4's, whose means make it)
: > data.tsv
seed=100
for s in hmc local; do
    for r in 1 2; do
        for T in ${temps//,/}; do
            seed=$((seed + 1)); name=${s}_${r}_$T
            if [ "$s" = hmc ]; then config hmc $seed $hmc_therm $hmc_sweeps "$T"; else
                config local $seed $loc_therm $loc_sweeps "$T"; fi > "$name.ini"
            run_one "$s" "$r" "$name"
        done
    done
done
echo "total: $(cat ./*.cpu | awk '{ s += $1 + $2 } END { printf "%.0f", s }') s CPU of one core"
expected=$((2 * 2 * nT * 4))
if [ "$(wc -l < data.tsv)" -ne "$expected" ]; then
    bad "expected $expected values (2 samplers x 2 runs x $nT T x 4 observables), have \
$(wc -l < data.tsv)"
    echo "$passed passed, $fail failed"; exit 1
fi

# quantiles of chi^2 (upper 99.9 %, lower 0.1 %) for the dof used here, from the regularized
# incomplete gamma function (P(d/2, x/2) = 0.999 and 0.001)
q999() { case $1 in 4) echo 18.467 ;; 8) echo 26.124 ;; 16) echo 39.252 ;; esac; }
q001() { case $1 in 4) echo 0.091 ;; 8) echo 0.857 ;; 16) echo 3.942 ;; esac; }

# (1) length of every run against its tau
if awk -F'\t' '{ r = $8 / $7; if (min == "" || r < min) { min = r; w = $1 "_" $2 " T=" $3 " " $4 } }
        END { printf "(1) shortest run in tau: %.0f tau (%s)\n", min, w; exit !(min >= 64) }' \
        data.tsv; then
    ok "(1) every run measured >= 64 tau of every observable"
elif [ -n "$short" ]; then echo "not held: (1) (short runs)"
else bad "(1) a run shorter than 64 tau: its error bar is not reliable"; fi

# (2) the error bars against the scatter of independent runs
dof2=$((2 * nT))
for o in $obs; do
    if awk -F'\t' -v o="$o" -v hi="$(q999 $dof2)" -v lo="$(q001 $dof2)" '
            $4 == o { k = $1 SUBSEP $3; x[k, $2] = $5; e[k, $2] = $6; t[k, $2] = $7; key[k] = 1 }
            END { for (k in key) { d2 = (x[k, 1] - x[k, 2]) ^ 2; n++
                      chi += d2 / (e[k, 1] ^ 2 + e[k, 2] ^ 2)
                      naive += d2 / (e[k, 1] ^ 2 / (2 * t[k, 1]) + e[k, 2] ^ 2 / (2 * t[k, 2])) }
                  printf "(2) %s: run-to-run chi^2 %.2f for %d dof (window %s..%s); with naive " \
                         "errors (no autocorrelation) it would be %.1f\n", o, chi, n, lo, hi, naive
                  exit !(chi >= lo && chi <= hi) }' data.tsv; then
        ok "(2) $o: the error bars account for the run-to-run scatter"
    elif [ -n "$short" ]; then echo "not held: (2) $o (short runs)"
    else bad "(2) $o: the error bars do not match the scatter of independent runs"; fi
done

# (3) HMC against local: each side the mean of its two runs
dof3=$((nT * 4))
awk -F'\t' '{ k = $1 SUBSEP $3 SUBSEP $4; s[k] += $5; v[k] += $6 ^ 2; T[$3] = 1; O[$4] = 1 }
     END { for (t in T) for (o in O) {
               h = "hmc" SUBSEP t SUBSEP o; l = "local" SUBSEP t SUBSEP o
               printf "%s\t%s\t%.10g\t%.10g\t%.10g\t%.10g\n", t, o, s[h] / 2, sqrt(v[h]) / 2,
                      s[l] / 2, sqrt(v[l]) / 2 } }' data.tsv | sort -g > compare.tsv
if awk -F'\t' -v hi="$(q999 $dof3)" '
        { z = ($3 - $5) / sqrt($4 ^ 2 + $6 ^ 2); chi += z * z; n++
          printf "(3) T=%s %-14s hmc %.5f(%.5f) local %.5f(%.5f) z = %+.2f%s\n", $1, $2, $3, $4,
                 $5, $6, z, (z > 2 || z < -2) ? "  <-- |z| > 2" : ""; if (z > 2 || z < -2) f++ }
        END { printf "(3) chi^2 = %.2f for %d comparisons (99.9 %% quantile %s), " \
                     "%d beyond 2 sigma\n", chi, n, hi, f
              exit !(chi <= hi) }' compare.tsv; then
    ok "(3) HMC and the local sampler agree (chi^2 below the 99.9 % quantile)"
elif [ -n "$short" ]; then echo "not held: (3) (short runs)"
else bad "(3) HMC and the local sampler disagree"; fi

echo "$passed passed, $fail failed"
[ "$fail" -eq 0 ]
