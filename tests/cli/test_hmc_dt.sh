#!/usr/bin/env bash
# [run] hmc_dt = auto (core/engine/hmc_tune.c): each chain's HMC step tuned during
# thermalization toward hmc_acceptance, frozen for the measured sweeps:
#  (a) double exchange on the open 2x2x2 cube (ed, infinite Hund coupling), 2 temperatures x
#      2 walkers: each group's measured acceptance is the target 0.8 within 3 standard
#      errors of what sets it: the frozen step is the mean of log dt over the second half of
#      thermalization (T/2 iterates per chain, n chains a group), whose acceptance is off by
#      about sigma_p / sqrt(n T/2) (averaged stochastic approximation; sigma_p <= 1/2, the
#      spread of a probability), and the measured acceptance of M trajectories carries its
#      binomial error sqrt(a (1 - a) / M);
#  (b) two sizes, L = 2 open (8 sites) and L = 3 periodic (27 sites), ed: the larger
#      lattice gets the smaller step (the energy error grows as N dt^4);
#  (c) kill and resume with auto, kills landing in thermalization (the step moving) and
#      after it: the finished folder byte-identical to the uninterrupted run
#      (kill_lineage.sh; the tuning is in the checkpoint);
#  (d) a number keeps the old bits: the run of tests/cli/data/hmc_dt_number.tsv (made by
#      mcf before hmc_dt = auto existed, commit 4b31054) gives the same rows, whatever
#      hmc_length and hmc_acceptance say; a bad hmc_dt is refused naming the key;
#  (e) thermalize = 0 with auto: the start guess and one warning.
# usage: test_hmc_dt.sh MCF SCRATCH
set -u
case $1 in */* | .*) mcf=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") ;; *) mcf=$1 ;; esac
here=$(cd "$(dirname "$0")" && pwd)
dir=$2/hmc_dt
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail=0; passed=0
ok()  { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; fail=$((fail + 1)); }

# (a) the acceptance reached; MCF_TEST_SWEEPS shortens the measured sweeps (the tolerance
# follows M)
therm=800
sweeps=$(( ${MCF_TEST_SWEEPS:-30000} / 15 ))
de() { # evaluator L boundary thermalize sweeps seed [extra run keys]
cat <<INI
[run]
model = double-exchange
evaluator = $1
seed = $6
walkers = 2
sampler = hmc
${7:-}
[schedule]
thermalize = $4
sweeps = $5
temperatures = 0.06, 0.4
[model]
lattice = cubic
L = $2
boundary = $3
mu = -0.5
hund = inf
INI
}
de ed 2 open "$therm" "$sweeps" 21 > a.ini
if "$mcf" run a.ini --no-plots > a.txt 2>&1; then
    grep 'hmc_dt = auto' a.out/log
    n=$(grep -c 'hmc_dt = auto: .*tuned to' a.out/log)
    [ "$n" -eq 4 ] && ok "(a) the log gives the 4 chains' tuned steps" ||
        bad "(a) $n lines of tuned steps in the log, want 4"
    if awk -v T="$therm" -v target=0.8 '/hybrid Monte Carlo:/ {
            M = $6; n = $10; a = $NF
            tol = 3 * sqrt(0.25 / (n * T / 2) + a * (1 - a) / M)
            printf "group of %d chains: acceptance %.4f over %d trajectories, target %.2f, " \
                   "tolerance %.4f\n", n, a, M, target, tol
            g++; if ((a - target) ^ 2 > tol ^ 2) off++ }
            END { exit !(g > 0 && !off) }' a.out/log; then
        ok "(a) the measured acceptance is the target within its tolerance"
    else
        bad "(a) acceptance: $(grep 'hybrid Monte Carlo' a.out/log)"
    fi
else
    bad "(a) the run failed: $(grep -m1 error a.txt)"
fi

# (b) two sizes, one chain each at T = 0.1 (ed: L = 4 periodic would take 1.5 minutes here)
step() { # log: the mean tuned step of its chains
    awk '/hmc_dt = auto: .*tuned to/ { for (i = 1; i <= NF; i++) if ($i == "of") {
            s += $(i + 1); n++; break } } END { if (n) printf "%.5f", s / n }' "$1"
}
for L in 2 3; do
    b=open; [ "$L" -eq 3 ] && b=periodic
    de ed "$L" "$b" 200 32 22 |
        sed 's/^walkers = 2/walkers = 1/; s/^temperatures = .*/temperatures = 0.1/' > "b$L.ini"
    "$mcf" run "b$L.ini" --no-plots > "b$L.txt" 2>&1 ||
        bad "(b) L = $L: the run failed: $(grep -m1 error "b$L.txt")"
done
s2=$(step b2.out/log 2>/dev/null) s3=$(step b3.out/log 2>/dev/null)
if [ -n "$s2" ] && [ -n "$s3" ] && awk -v a="$s2" -v b="$s3" 'BEGIN { exit !(b < a) }'; then
    ok "(b) tuned step: $s2 at L = 2 open (8 sites), $s3 at L = 3 periodic (27 sites)"
else
    bad "(b) tuned step: '$s2' at L = 2, '$s3' at L = 3 (want the smaller at L = 3)"
fi

# (c) kill and resume (MCF_TEST_SWEEPS, the sanitizer tree: on the open 2^3 cube instead of
# 3^3, ~3x cheaper a sweep there; the tuning and its checkpoint are the same at any size)
# 6 kills between checkpoints (20 with MCF_TEST_LONG=1): the HMC state in the checkpoint
KL_KILLS=${KL_KILLS:-$([ -n "${MCF_TEST_LONG:-}" ] && echo 20 || echo 6)}
. "$here/kill_lineage.sh"
ksweeps=$(( ${MCF_TEST_SWEEPS:-30000} / 500 ))
[ "$ksweeps" -lt 48 ] && ksweeps=48
kL=3
[ -n "${MCF_TEST_SWEEPS:-}" ] && kL=2
every=$(((ksweeps + 40 + 19) / 20))
cat > kill.ini <<INI
[run]
model = double-exchange
evaluator = kpm
seed = 31
sampler = hmc
hmc_length = 0.5
[schedule]
thermalize = 40
sweeps = $ksweeps
checkpoint_every = $every
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
kl_reference kill.ini "$((40 + ksweeps))"
kill_lineage kill.ini ref/run "$((40 + ksweeps))" "$every" "$kl_dur" "$kl_up" "$kl_fin"

# (d) a number: the old bits
de ed 2 open 50 200 11 "hmc_integrator = leapfrog
hmc_steps = 10
hmc_dt = 0.1
hmc_length = 3
hmc_acceptance = 0.5" > d.ini
if "$mcf" run d.ini --no-plots > d.txt 2>&1 &&
    grep -v '^#' d.out/results.tsv | cmp -s - "$here/data/hmc_dt_number.tsv"; then
    ok "(d) hmc_dt = 0.1: results.tsv's rows are those of mcf before auto"
else
    bad "(d) hmc_dt = 0.1: results.tsv differs from data/hmc_dt_number.tsv"
    grep -v '^#' d.out/results.tsv | diff - "$here/data/hmc_dt_number.tsv" | head -6
fi
grep -q 'hmc_dt = auto' d.out/log && bad "(d) a number logs a tuned step"
sed 's/^hmc_dt = 0.1/hmc_dt = -0.1/' d.ini > bad.ini
out=$("$mcf" run bad.ini --no-plots 2>&1)
if [ $? -ne 0 ] && echo "$out" | grep -q 'bad.ini:[0-9]*: \[run\] hmc_dt = -0.1: .* or auto'; then
    ok "(d) hmc_dt = -0.1 refused: $(echo "$out" | grep -m1 error)"
else
    bad "(d) hmc_dt = -0.1: $out"
fi

# (e) thermalize = 0 with auto: the start guess 0.05 (512 / 8)^(1/4) = 0.1414, and a warning
de ed 2 open 0 32 23 | sed 's/^temperatures = .*/temperatures = 0.1/' > e.ini
out=$("$mcf" run e.ini --no-plots 2>&1)
if echo "$out" | grep -q 'warning: e.ini: \[run\] hmc_dt = auto with \[schedule\] thermalize = 0' &&
    [ "$(grep -c 'hmc_dt = auto with' e.out/log)" -eq 1 ] &&
    [ "$(grep -c '8 steps of 0.14142 (the start guess)' e.out/log)" -eq 2 ]; then
    ok "(e) thermalize = 0: one warning, the start guess 8 x 0.14142 for both chains"
else
    bad "(e) thermalize = 0: $(grep 'hmc_dt' e.out/log)"
fi

# (e') omelyan's start guess is twice leapfrog's (as many gradients per unit of length)
sed 's/^\[run\]$/[run]\nhmc_integrator = omelyan/; s/^output = .*/output = e2.out/' e.ini > e2.ini
out=$("$mcf" run e2.ini --no-plots 2>&1)
if echo "$out" | grep -q 'start guess 0.1 (512 / N)' &&
    [ "$(grep -c '4 steps of 0.28284 (the start guess)' e2.out/log)" -eq 2 ]; then
    ok "(e') omelyan, thermalize = 0: the start guess 4 x 0.28284 for both chains"
else
    bad "(e') omelyan, thermalize = 0: $(grep 'hmc_dt\|start guess' e2.out/log)"
fi

echo "$passed passed, $fail failed"
[ "$fail" -eq 0 ]
