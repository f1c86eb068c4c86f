#!/usr/bin/env bash
# The integrators of hybrid Monte Carlo ([run] hmc_integrator = leapfrog | omelyan;
# core/engine/hmc.c): both are symmetric compositions of exact kicks and geodesic flows, so of
# second order: a trajectory of fixed length has an energy error dH ~ dt^2 and, by Creutz's
# equality <exp(-dH)> = 1, <dH> = <dH^2>/2 + O(dt^6) ~ dt^4.  On the open 2x2x2 double-
# exchange cube (infinite Hund coupling, ed, T = 0.1) at dt = 0.1, 0.05, 0.025 and a fixed
# trajectory of 0.2, 2400 trajectories each:
#  (a) for each integrator the log's <dH^2>/2 against dt is a power law of slope 4: the
#      weighted fit of log <dH^2>/2 on log dt gives 4 within 4 standard errors of the slope
#      (its error from the log's error bars, each trajectory independent: <dH^2>/2 of 2400
#      trajectories has a relative error ~ 3-6 %, the slope then ~ 0.05); the fit is refused
#      as uninformative when its error exceeds 0.25;
#  (b) <dH> (the noisier estimate of the same number: its error ~ sqrt(<dH^2>/N) is as large
#      as the mean itself at the smaller steps) agrees with <dH^2>/2 at every point within 4
#      combined standard errors; its own fitted slope, when every <dH> is > 0, with 4 within
#      4 of its standard errors (printed, and held when it is informative);
#  (c) omelyan's coefficient is smaller: its <dH^2>/2 lies below leapfrog's at every dt by
#      more than 4 combined standard errors.
# MCF_TEST_SWEEPS (the sanitizer tree of .ci/run) shortens the runs: then the numbers are
# printed and not held to the bounds.
# usage: test_hmc_integrator.sh MCF SCRATCH
set -u
case $1 in */* | .*) mcf=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") ;; *) mcf=$1 ;; esac
dir=$2/hmc_integrator
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail=0; passed=0
ok()  { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; fail=$((fail + 1)); }

short=${MCF_TEST_SWEEPS:+1}
sweeps=600
[ -n "$short" ] && sweeps=40
config() { # integrator dt steps
cat <<INI
[run]
model = double-exchange
evaluator = ed
seed = 21
walkers = 4
threads = 1
sampler = hmc
hmc_integrator = $1
hmc_dt = $2
hmc_steps = $3
[schedule]
thermalize = 20
sweeps = $sweeps
bins = 8
temperatures = 0.1
[model]
lattice = cubic
L = 2
boundary = open
mu = -0.5
hund = inf
INI
}

# one line per run: integrator dt <dH> its error <dH^2>/2 its error
: > table
for integ in leapfrog omelyan; do
    for p in "0.1 2" "0.05 4" "0.025 8"; do
        set -- $p
        config "$integ" "$1" "$2" > "${integ}_$1.ini"
        if ! "$mcf" run "${integ}_$1.ini" --no-plots > "${integ}_$1.txt" 2>&1; then
            bad "$integ dt = $1: the run failed: $(grep -m1 error "${integ}_$1.txt")"
            continue
        fi
        line=$(grep -m1 'hybrid Monte Carlo:' "${integ}_$1.out/log")
        echo "$line" | awk -v i="$integ" -v dt="$1" '{
            for (k = 1; k <= NF; k++) {
                if ($k == "<dH>") { d = $(k + 2); de = $(k + 4) }
                if ($k == "<dH^2>/2") { d2 = $(k + 2); d2e = $(k + 4) }
            }
            sub(",", "", de); sub(",", "", d2e)
            print i, dt, d, de, d2, d2e }' >> table
    done
done
cat table

# the weighted fit of log y on log dt: slope, its standard error; then the check
fit() { # integrator column(3: <dH>, 5: <dH^2>/2) label
    awk -v i="$1" -v c="$2" -v label="$3" '$1 == i {
            y = $c; e = $(c + 1)
            if (y <= 0) { neg++; next }
            x = log($2); w = (y / e) ^ 2       # 1 / var(log y)
            S += w; Sx += w * x; Sy += w * log(y); Sxx += w * x * x; Sxy += w * x * log(y)
            n++
        }
        END {
            if (n < 3) { printf "%s %s: %d of 3 points > 0, no fit\n", i, label, n; exit 2 }
            D = S * Sxx - Sx * Sx
            b = (S * Sxy - Sx * Sy) / D; sb = sqrt(S / D)
            printf "%s %s: slope %.3f +- %.3f (4 expected), coefficient %.4g\n", i, label, b,
                   sb, exp((Sy - b * Sx) / S)
            exit (b - 4 > 4 * sb || 4 - b > 4 * sb) ? 1 : sb > 0.25 ? 3 : 0
        }' table
}
for integ in leapfrog omelyan; do
    fit "$integ" 5 "<dH^2>/2"; r=$?
    if [ -n "$short" ]; then
        echo "not held: (a) $integ (short runs of MCF_TEST_SWEEPS)"
    elif [ $r -eq 0 ]; then
        ok "(a) $integ: <dH^2>/2 ~ dt^4"
    else
        bad "(a) $integ: <dH^2>/2 is not ~ dt^4 (or the fit says nothing)"
    fi
    fit "$integ" 3 "<dH>"; r=$?
    if awk -v i="$integ" '$1 == i {
            z = ($3 - $5) / sqrt($4 ^ 2 + $6 ^ 2)
            printf "%s dt=%s: <dH> - <dH^2>/2 = %.3g, z = %+.2f\n", i, $2, $3 - $5, z
            if (z > 4 || z < -4) big++ }
            END { exit big > 0 }' table && [ $r -ne 1 ]; then
        ok "(b) $integ: <dH> agrees with <dH^2>/2 (so ~ dt^4)"
    elif [ -n "$short" ]; then
        echo "not held: (b) $integ (short runs of MCF_TEST_SWEEPS)"
    else
        bad "(b) $integ: <dH> against <dH^2>/2 or dt^4"
    fi
done
if awk '{ y[$1, $2] = $5; e[$1, $2] = $6; dt[$2] = 1 }
        END { for (t in dt) {
                  el = e["leapfrog", t]; eo = e["omelyan", t]
                  z = (y["leapfrog", t] - y["omelyan", t]) / sqrt(el ^ 2 + eo ^ 2)
                  printf "dt=%s: <dH^2>/2 leapfrog / omelyan = %.1f (z = %.1f)\n", t,
                         y["leapfrog", t] / y["omelyan", t], z
                  if (!(z > 4)) small++; n++ }
              exit !(n == 3 && !small) }' table; then
    ok "(c) omelyan's energy error is below leapfrog's at every dt"
elif [ -n "$short" ]; then
    echo "not held: (c) (short runs of MCF_TEST_SWEEPS)"
else
    bad "(c) omelyan's energy error is not below leapfrog's"
fi

echo "$passed passed, $fail failed"
[ $fail -eq 0 ]
