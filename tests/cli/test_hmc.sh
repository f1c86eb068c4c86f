#!/usr/bin/env bash
# Hybrid Monte Carlo ([run] sampler = hmc; core/engine/hmc.c, models/double-exchange/de_hmc.c)
# end to end:
#  (a) the distribution: double exchange on the open 2x2x2 cube at infinite Hund coupling
#      (the defaults: leapfrog, hmc_dt = auto) and at J_H = 2 (omelyan) with the exact
#      evaluator ed, at 4 temperatures across the ordering,
#      sampled by HMC and by the local Metropolis sweeps (exact weights of the same model):
#      energy, |m|, m2, m4 and the nearest-neighbour correlation agree, each within 4
#      combined standard errors and with a mean z^2 over the 20 comparisons below 4.2: the
#      five observables of one temperature are nearly one (a fluctuation moves them all),
#      so the 20 z^2 are at worst 4 independent chi^2_1 repeated, and chi^2_4 / 4 exceeds
#      4.2 with probability 0.2 % (the old bound 2.2, right for 20 independent z, fails 6.6 %
#      of realizations in that worst case: 2.36 with a new tuner's steps, all of T = 0.4's z
#      near +2, where runs 8x longer of each sampler agree, energy -0.45187(23) against
#      -0.45184(21)); (a') the same for
#      the adiabatic Holstein model on the 4x4 torus (energy, |m|, m2, <x>, density; omelyan,
#      3 steps of 0.33, acceptance 0.87-0.997: until 2026-11-30 5 of 0.2, the same length,
#      acceptance 0.98-0.999, 5/3 the gradients a trajectory for the same test);
#  (b) every fresh run checks the model's gradient against differences of its action (the
#      run's first sweep), so these runs passing says the chain rule holds; acceptance > 0.5;
#  (c) kill and resume: an HMC run (omelyan) killed at random instants and resumed ends
#      byte-identical to the uninterrupted run (kill_lineage.sh);
#  (d) refusals: sampler = hmc for a model without coordinates names the key and the model.
# (a)'s double-exchange runs use ed's eigensolver = householder (plugins/ed/ed_eigen.c, tested
# against GSL's in tests/unit/test_ed_eigen.c): the J_H = 2 run spends 80 % of its time in
# diagonalizing, 5x less with it (196 -> 41 s on the development machine).
# Tiers (docs/reliability.md, "The time of .ci/run"): by default (a) and (a') run short (as
# under MCF_TEST_SWEEPS below: the runs, their gradient checks, acceptances and Creutz lines
# held, the comparisons printed, not held); test_hmc_long (PART long, label long: skipped,
# 77, unless MCF_TEST_LONG=1) runs (a)-(b'') at full length and holds the comparisons.
# usage: test_hmc.sh MCF SCRATCH [long]
set -u
part=${3:-}
if [ "$part" = long ] && [ -z "${MCF_TEST_LONG:-}" ]; then
    echo "skipped: test_hmc's long part (its comparisons at full length) runs with MCF_TEST_LONG=1"
    exit 77
fi
case $1 in */* | .*) mcf=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") ;; *) mcf=$1 ;; esac
here=$(cd "$(dirname "$0")" && pwd)
dir=$2/hmc${part:+_$part}
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail=0; passed=0
ok()  { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; fail=$((fail + 1)); }

# MCF_TEST_SWEEPS (the sanitizer tree of .ci/run: 3000 instead of 30000) shortens the runs:
# then (a) only runs them (with the gradient check and the acceptance) and prints the
# comparisons without holding them to the bounds, which need the full length; the runs at
# a fixed hmc_dt thermalize 50 sweeps instead of 200 (hmc_dt = auto keeps its 200: its
# tuner needs them for the acceptance of (b)); (c) kills a run on the open 2^3 cube
# instead of 3^3 (the checkpoint's contents are the same kinds at any size)
short=${MCF_TEST_SWEEPS:+1}
sweeps=$(( ${MCF_TEST_SWEEPS:-30000} / 8 ))
therm=200 kL=3
[ -n "$short" ] && sweeps=100 therm=50 kL=2
# the default tier: (a) short, (c) as it is
[ -z "$short" ] && [ -z "$part" ] && short=tier sweeps=100 therm=50
config() { # sampler hund mu seed [integrator steps dt] (none: the defaults, hmc_dt = auto)
cat <<INI
[run]
model = double-exchange
evaluator = ed
seed = $4
walkers = 2
sampler = $1
${5:+hmc_integrator = $5}
${6:+hmc_steps = $6}
${7:+hmc_dt = $7}
[schedule]
thermalize = $([ -n "${7:-}" ] && echo "$therm" || echo 200)
sweeps = $sweeps
temperatures = 0.06, 0.1, 0.2, 0.4
[model]
lattice = cubic
L = 2
boundary = open
mu = $3
hund = $2
[evaluator]
eigensolver = householder
INI
}

compare() { # label hmc.tsv local.tsv "observables"
    awk -F'\t' -v label="$1" -v obs="$4" '
        $1 == "T" { for (i = 1; i <= NF; i++) col[FILENAME, $i] = i; next }
        /^#/ { next }
        FILENAME == ARGV[1] { for (i = 1; i <= NF; i++) h[$1, i] = $i; next }
        {
            nn = split(obs, names, " ")
            for (k = 1; k <= nn; k++) {
                n = names[k]; a = col[ARGV[1], n]; e = col[ARGV[1], n "_err"]
                b = col[ARGV[2], n]; f = col[ARGV[2], n "_err"]
                if (!a || !e || !b || !f) { printf "%s: no column %s\n", label, n; miss++; continue }
                z = (h[$1, a] - $b) / sqrt(h[$1, e] ^ 2 + $f ^ 2)
                printf "%s T=%s %s: hmc %.5f(%.5f) local %.5f(%.5f) z = %+.2f\n", label, $1, n,
                       h[$1, a], h[$1, e], $b, $f, z
                if (z > 4 || z < -4) big++
                chi += z * z; cnt++
            }
        }
        END { printf "%s: %d comparisons, mean z^2 %.2f, beyond 4: %d\n", label, cnt, chi / cnt, big
              exit !(cnt == 20 && !miss && chi / cnt < 4.2 && big == 0) }' "$2" "$3"
}
de_obs='energy abs_m m2 m4 nn_correlation'

# infinite J_H at the default settings (leapfrog, hmc_dt = auto: each chain's step tuned in
# the 200 thermalization sweeps, then frozen), J_H = 2 with omelyan's integrator (5 x 0.2:
# 3 x 0.33, the same length, was tried on 2026-11-30 and is unstable at T = 0.06, acceptance
# 0.03, and <exp(-dH)> 0.79 +- 0.03 from heavy tails)
for case in "inf -0.5" "2 -2.3 omelyan 5 0.2"; do
    set -- $case
    config hmc "$1" "$2" 11 "${3:-}" "${4:-}" "${5:-}" > "hmc_$1.ini"
    config local "$1" "$2" 12 > "local_$1.ini"
    for s in hmc local; do
        if ! "$mcf" run "${s}_$1.ini" --no-plots > "${s}_$1.txt" 2>&1; then
            bad "(a) J_H = $1: the $s run failed: $(grep -m1 error "${s}_$1.txt")"
        fi
    done
    [ -f "hmc_$1.out/results.tsv" ] && [ -f "local_$1.out/results.tsv" ] || continue
    if compare "J_H = $1" "hmc_$1.out/results.tsv" "local_$1.out/results.tsv" "$de_obs"; then
        ok "(a) J_H = $1: HMC and the local sweeps sample the same distribution"
    elif [ -n "$short" ]; then
        echo "not compared: (a) J_H = $1 (short runs, errors not converged; test_hmc_long holds it)"
    else
        bad "(a) J_H = $1: HMC and the local sweeps disagree"
    fi
    # the summary's lines (T=...), not a progress line's running acceptance
    acc=$(grep '^T=' "hmc_$1.txt" | grep -o 'acceptance [0-9.]*' |
          awk '{ if (min == "" || $2 < min) min = $2 } END { print min }')
    if awk -v a="$acc" 'BEGIN { exit !(a > 0.5) }'; then
        ok "(b) J_H = $1: the gradient checked at the first sweep; lowest acceptance $acc"
    else
        bad "(b) J_H = $1: acceptance $acc"
    fi
done

# (a') the adiabatic Holstein model (real coordinates, a classical term besides the
# pseudofermions, the domain |x| <= X of its fixed bounds) on the 4x4 torus, g = 1.5, with ed
hol() { # sampler seed
cat <<INI
[run]
model = holstein
evaluator = ed
seed = $2
walkers = 2
sampler = $1
hmc_integrator = omelyan
hmc_steps = 3
hmc_dt = 0.33
[schedule]
thermalize = $therm
sweeps = $sweeps
temperatures = 0.06, 0.1, 0.2, 0.4
[model]
lattice = square
L = 4
g = 1.5
k = 1
mu = 0
INI
}
hol hmc 13 > hol_hmc.ini
hol local 14 > hol_local.ini
for s in hmc local; do
    "$mcf" run "hol_$s.ini" --no-plots > "hol_$s.txt" 2>&1 ||
        bad "(a') holstein: the $s run failed: $(grep -m1 error "hol_$s.txt")"
done
if [ -f hol_hmc.out/results.tsv ] && [ -f hol_local.out/results.tsv ]; then
    if compare "holstein" hol_hmc.out/results.tsv hol_local.out/results.tsv \
        "energy abs_m m2 x_mean density"; then
        ok "(a') holstein: HMC and the local sweeps sample the same distribution"
    elif [ -n "$short" ]; then
        echo "not compared: (a') holstein (short runs; test_hmc_long holds it)"
    else
        bad "(a') holstein: HMC and the local sweeps disagree"
    fi
fi

# (b') Creutz's equality: <exp(-dH)> = 1 over the measured trajectories of every HMC run
# (each group's log line), within 4 of its standard errors
for f in hmc_inf.out/log hmc_2.out/log hol_hmc.out/log; do
    [ -f "$f" ] || continue
    if awk '/hybrid Monte Carlo:/ { for (i = 1; i <= NF; i++) if ($i == "<exp(-dH)>") {
                e = $(i + 2); s = $(i + 4); n++; if ((e - 1) ^ 2 > 16 * s * s) bad++ } }
            END { exit !(n > 0 && bad == 0) }' "$f"; then
        ok "(b') $f: $(grep -m1 -o '<exp(-dH)> = [0-9.]* +- [0-9.]*' "$f")"
    else
        bad "(b') $f: Creutz's equality fails: $(grep 'hybrid Monte Carlo' "$f")"
    fi
done

# (b'') where a measured trajectory's wall time goes: a line per group after the Creutz line,
# its parts no more than the whole
f=hmc_inf.out/log
if [ -f "$f" ] && awk '/hybrid Monte Carlo.s wall time:/ { n++; bad += !($8 > 0 && $18 > 0 && $18 <= $8) }
                      END { exit !(n > 0 && bad == 0) }' "$f"; then
    ok "(b'') $(grep -o "hybrid Monte Carlo's wall time: .* a call" "$f")"
else
    bad "(b'') no wall-time line in $f: $(grep 'wall time' "$f")"
fi

if [ "$part" = long ]; then
    echo "test_hmc (long part): $passed passed, $fail failed"
    [ "$fail" -eq 0 ]
    exit
fi

# (c) kill and resume
# 6 kills between checkpoints (20 with MCF_TEST_LONG=1): the HMC state in the checkpoint
KL_KILLS=${KL_KILLS:-$([ -n "${MCF_TEST_LONG:-}" ] && echo 20 || echo 6)}
. "$here/kill_lineage.sh"
ksweeps=$(( ${MCF_TEST_SWEEPS:-30000} / 100 ))
# the run 120 sweeps for its 6 kills (300 for the 20 of MCF_TEST_LONG=1)
[ -z "${MCF_TEST_LONG:-}" ] && [ "$ksweeps" -gt 120 ] && ksweeps=120
[ "$ksweeps" -lt 64 ] && ksweeps=64
cat > kill.ini <<INI
[run]
model = double-exchange
evaluator = kpm
seed = 31
sampler = hmc
hmc_integrator = omelyan
hmc_steps = 3
hmc_dt = 0.24
[schedule]
thermalize = 30
sweeps = $ksweeps
checkpoint_every = $(((ksweeps + 99) / 20))
temperatures = 0.1, 0.2
[model]
lattice = cubic
L = $kL
boundary = open
mu = -0.7
[evaluator]
moments = 64
vectors = 0
INI
kl_reference kill.ini "$((30 + ksweeps))"
kill_lineage kill.ini ref/run "$((30 + ksweeps))" "$(((ksweeps + 99) / 20))" "$kl_dur" "$kl_up" "$kl_fin"

# (d) a model without coordinates
printf '[run]\nmodel = ising\nsampler = hmc\n[schedule]\nsweeps = 64\n[model]\nL = 4\n' > ising.ini
out=$("$mcf" run ising.ini --no-plots 2>&1)
if [ $? -ne 0 ] && echo "$out" | grep -q "sampler = hmc: model 'ising' has no coordinates"; then
    ok "(d) sampler = hmc refused for ising: $(echo "$out" | grep -m1 error)"
else
    bad "(d) sampler = hmc for ising: $out"
fi

echo "$passed passed, $fail failed"
[ "$fail" -eq 0 ]
