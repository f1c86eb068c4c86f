#!/usr/bin/env bash
# de_tempering.sh — what parallel tempering buys the double-exchange model (issue 8): the
# same chains and sweeps of examples/de-tempering.ini with exchange_every = 0 (plain
# single-spin Metropolis) and with the example's exchanges, run side by side.
#
#   tests/bench/de_tempering.sh [MCF_BINARY]   (default build/bin/mcf; builds nothing)
#
# Prints per temperature the integrated autocorrelation time of |m| (tau_abs_m, blocking,
# in sweeps) of both runs and their ratio, the exchange acceptances and round trips, and
# both wall times: equal cost means equal sweeps plus what the exchanges cost (one exact
# trace per chain and round: the wall-time difference).  Also checks that both runs agree
# on |m| and the energy within 3.5 combined error bars.
# Environment: SWEEPS (20000), THERM (1000), EVERY (the example's), THREADS (cores / 2 per
# run), EVALUATOR (kpm; kpm-cuda on a GPU).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mcf=${1:-build/bin/mcf}
[ -x "$mcf" ] || mcf="$root/$mcf"
[ -x "$mcf" ] && mcf=$(cd "$(dirname "$mcf")" && pwd)/$(basename "$mcf")
[ -x "$mcf" ] || { echo "de_tempering.sh: no mcf binary at ${1:-build/bin/mcf}" >&2; exit 1; }
sweeps=${SWEEPS:-20000}
therm=${THERM:-1000}
cores=$(nproc)
threads=${THREADS:-$(( cores / 2 > 0 ? cores / 2 : 1 ))}
evaluator=${EVALUATOR:-kpm}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/de_tempering.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

common=(--set "schedule.sweeps=$sweeps" --set "schedule.thermalize=$therm"
        --set "schedule.checkpoint_every=0" --set "run.threads=$threads"
        --set "run.evaluator=$evaluator" --force --no-progress)
[ -n "${EVERY:-}" ] && pt_every=(--set "schedule.exchange_every=$EVERY") || pt_every=()
now() { date +%s.%N; }

run() { # name, extra arguments...
    local name=$1 t0 t1; shift
    t0=$(now)
    (cd "$tmp" && "$mcf" run "$root/examples/de-tempering.ini" "${common[@]}" "$@" \
        --set "run.output=$tmp/$name" >"$tmp/$name.txt" 2>&1) \
        || { echo "de_tempering.sh: the $name run failed:"; tail "$tmp/$name.txt"; exit 1; }
    t1=$(now)
    awk -v a="$t1" -v b="$t0" 'BEGIN { printf "%.1f", a - b }' >"$tmp/$name.wall"
}

echo "de_tempering.sh: $sweeps sweeps after $therm, evaluator $evaluator, $threads threads" \
     "per run, both runs at once on $cores cores ($(uname -n))"
run plain --set schedule.exchange_every=0 &
p1=$!
run pt "${pt_every[@]}" &
p2=$!
wait $p1
wait $p2
echo "wall: plain $(cat "$tmp/plain.wall") s, tempering $(cat "$tmp/pt.wall") s"
grep -E '^# (tempering|exchange|round trips):' "$tmp/pt/results.tsv" || true
awk -F'\t' '
    /^#/ { next }
    !(FILENAME in seen) { seen[FILENAME] = 1; for (i = 1; i <= NF; i++) col[FILENAME, $i] = i
                          next }
    { f = FILENAME; T = $col[f, "T"]; key = (f ~ /plain/ ? "plain" : "pt")
      tau[key, T] = $col[f, "tau_abs_m"]; m[key, T] = $col[f, "abs_m"]
      me[key, T] = $col[f, "abs_m_err"]; e[key, T] = $col[f, "energy"]
      ee[key, T] = $col[f, "energy_err"]; if (key == "plain") order[++n] = T }
    END {
      printf "%-6s %12s %12s %8s   %-26s %s\n", "T", "tau plain", "tau PT", "ratio",
             "|m| plain / PT", "agree (|m|, E; sigma)"
      for (k = 1; k <= n; k++) {
        T = order[k]
        sm = (m["plain", T] - m["pt", T]) / sqrt(me["plain", T]^2 + me["pt", T]^2)
        se = (e["plain", T] - e["pt", T]) / sqrt(ee["plain", T]^2 + ee["pt", T]^2)
        printf "%-6s %12.1f %12.1f %8.2f   %.4f / %.4f   %+.2f %+.2f%s\n", T, tau["plain", T],
               tau["pt", T], tau["plain", T] / tau["pt", T], m["plain", T], m["pt", T], sm,
               se, (sm > 3.5 || sm < -3.5 || se > 3.5 || se < -3.5) ? "  DISAGREE" : ""
      }
    }' "$tmp/plain/results.tsv" "$tmp/pt/results.tsv"
