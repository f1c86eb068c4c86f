#!/usr/bin/env bash
# hmc_length.sh — what the length of a hybrid Monte Carlo trajectory buys near T_c (issue 44:
# the campaign's errors are set by tau_int(m^2) = 15-80 trajectories of length 1 at 24^3 and
# 32^3).  The double-exchange model of examples/de-tc.ini (J_H = inf, mu = 0, the twisted
# torus) at one size and temperature, W independent chains, run once per trajectory length
# (hmc_length; the step tuned per chain as always, so a longer trajectory costs more forces):
#
#   tests/bench/hmc_length.sh [MCF_BINARY]     (default build/bin/mcf; builds nothing)
#
# Prints per length: the wall time of a measured trajectory of a group of chains (the run's
# own "hybrid Monte Carlo's wall time" line: on a GPU all W chains in one batch), the chains' mean tau_int(m^2) and tau_int(energy)
# in trajectories (tests/bench/tau_int.py, Sokal's window) with the spread over chains, and
# the cost of one independent m^2 sample, 2 tau_int x time a trajectory, against length 1.
# Environment: L (16), T (0.131), W (8), LENGTHS ("1 2 4"), SWEEPS (600), THERM (150),
# EVALUATOR (kpm-cuda; kpm on a CPU), PYTHON (python3 with numpy).  Cost, estimated from the
# campaign's 24 ms a batched force of 4 chains of 24^3-32^3: ~0.3 s a length-1 trajectory of 8
# chains of 16^3 (33 forces), so ~4 min for length 1 and twice that per doubling: on the
# device one or two LENGTHS a call (its 10-minute limit).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mcf=${1:-build/bin/mcf}
[ -x "$mcf" ] || mcf="$root/$mcf"
[ -x "$mcf" ] || { echo "hmc_length.sh: no mcf binary at ${1:-build/bin/mcf}" >&2; exit 1; }
mcf=$(cd "$(dirname "$mcf")" && pwd)/$(basename "$mcf")
L=${L:-16} T=${T:-0.131} W=${W:-8} lengths=${LENGTHS:-1 2 4}
sweeps=${SWEEPS:-600} therm=${THERM:-150} evaluator=${EVALUATOR:-kpm-cuda}
py=${PYTHON:-python3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hmc_length.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "double exchange L = $L, T = $T, $W chains, $therm + $sweeps trajectories, $evaluator"
echo "| hmc_length | s a trajectory (a group of chains) | tau_int(m2) | tau_int(energy) | cost of an independent m2 | vs length 1 |"
echo "|---|---|---|---|---|---|"
base=""
for len in $lengths; do
  d=$tmp/len$len
  cat > "$tmp/len$len.ini" <<INI
[run]
model = double-exchange
evaluator = $evaluator
seed = 44
output = $d
sampler = hmc
hmc_integrator = omelyan
hmc_length = $len
walkers = $W
series = yes
[schedule]
temperatures = $T
thermalize = $therm
sweeps = $sweeps
checkpoint_every = 0
[model]
lattice = cubic
L = $L
boundary = periodic
twist = 0.13 0.29 0.41
mu = 0
hund = inf
start = random
[evaluator]
block = 16
INI
  "$mcf" run "$tmp/len$len.ini" --no-plots --no-progress > "$tmp/len$len.txt" 2>&1 ||
    { echo "hmc_length.sh: the run at hmc_length = $len failed:"; tail -5 "$tmp/len$len.txt"; exit 1; }
  sec=$(sed -n "s/.*hybrid Monte Carlo's wall time: \([0-9.e+-]*\) s a measured trajectory.*/\1/p" \
        "$d/log" | tail -1)
  # tau_int.py's lines: chain C L=.. T=.. NAME N= n mean x tau_int [>=] TAU +- ERR
  taus=$("$py" "$here/tau_int.py" "$d" m2 energy | awk '
    { for (i = 1; i < NF; i++) {
        if ($i == "tau_int") t = $(i + 1) == ">=" ? $(i + 2) : $(i + 1)
        if ($(i + 1) == "N=") name = $i } }
    name == "m2" { m += t; mm += t ^ 2; n++ }
    name == "energy" { e += t; k++ }
    END { if (!n || !k) { print "none"; exit }; s = sqrt((mm / n - (m / n) ^ 2) / (n > 1 ? n - 1 : 1));
          printf "%.4g %.2g %.4g", m / n, s, e / k }')
  [ "$taus" = none ] && { echo "hmc_length.sh: no series in $d"; exit 1; }
  set -- $taus
  cost=$(awk -v t="$1" -v s="$sec" 'BEGIN { printf "%.4g", 2 * t * s }')
  [ -z "$base" ] && base=$cost
  echo "| $len | $sec | $1 +- $2 | $3 | $cost s | $(awk -v c="$cost" -v b="$base" 'BEGIN { printf "%.2f", c / b }') |"
done
