#!/usr/bin/env bash
# `mpirun -np P mcf kbe`: the k points over P ranks (docs/architecture.md, "MPI over k").
# Every run is compared byte for byte with the same configuration run as a single process
# (the MPI build started without mpirun):
#   1. second Born, order 2, nk = 8 on 1, 2 and 3 ranks (3 does not divide 8: slabs of 3, 3
#      and 2 k points), and order 4, nk = 12 on 1, 2, 3 and 5 ranks (5: slabs of 3, 3, 2, 2,
#      2): kbe.tsv, nk.tsv, kbe-rows.bin and the checkpoint identical; a rank of 3 plans
#      under 0.4 of one process's memory (both refused over a tiny memory_limit_gb);
#   2. a run on 3 ranks stopped by SIGINT sent to rank 1 alone: every rank stops at the same
#      step (one "stopped by signal 2 at step N", exit 130), and the stopped folder resumed
#      on 2 ranks and, a copy of it, as a single process gives the unbroken run's four files;
#      a run on 2 ranks stopped by SIGTERM to mpirun resumes as one process likewise, and
#      a single process stopped early (often inside order 4's start block) resumes on 3;
#      rows cut short, which only rank 0 reads, end every rank with its message (exit 1);
#   3. nk = 2 on 3 ranks is refused naming [kbe] nk (exit 2), without hanging.
# Folders of one configuration have the same name (out/) in different working folders.
# usage: test_mpi_kbe.sh MCF SCRATCH MPIEXEC NUMPROC_FLAG "EXTRA_FLAGS"
set -u
here=$(cd "$(dirname "$0")" && pwd)
# the arguments, ok, bad, same_files, descendants, rank_pid, wait_for (shared with
# test_mpi.sh); then the scratch folder mpi-kbe/
source "$here/ranks.sh"
mpi_test_setup mpi-kbe "$@" || exit 1
mpi() { local np=$1; shift; timeout 120 "$mpiexec" "$np_flag" "$np" "${extra[@]}" "$@"; }
files=(kbe.tsv nk.tsv kbe-rows.bin checkpoint)
same4() { same_files "$1" "$2" "$3" "${files[@]}"; } # WHAT A B: B's four files are A's
mk() { # NAME NK ORDER STEPS
  cat > "$1.ini" <<INI
[run]
model = two-band
evaluator = kbe
output = out
[kbe]
nk = $2
order = $3
dt = 0.05
steps = $4
selfenergy = 2b
correctors = 1
U = 0.5
ramp = 1
[pulse]
amplitude = 0.2
frequency = 2
center = 1
width = 0.5
[output]
every = 1
nk_times = 0.3, 1.2
checkpoint_every = 5
INI
}
# single NAME: the unbroken single process of NAME.ini in NAME-single/
single() {
  mkdir "$1-single"
  (cd "$1-single" && "$mcf" kbe "../$1.ini" >o 2>e) \
    || { bad "$1: the single process failed: $(cat "$1-single/e")"; return 1; }
}
# resumed WHAT NP REF: `mcf resume out` here on NP ranks (1: without mpirun), its four files
# against REF's
resumed() {
  local run=("$mcf" resume out)
  [ "$2" -gt 1 ] && run=(mpi "$2" "${run[@]}")
  if "${run[@]}" >o2 2>e2; then same4 "$1" "$3" out
  else bad "$1: exit $?: $(tail -3 e2)"; fi
}
# stopped_at SIGNAL: the step of e's "stopped by signal SIGNAL at step N"
stopped_at() { grep -o "stopped by signal $1 at step [0-9]*" e | awk '{ print $7 }' | sort -u; }

# --- 1. 1, 2, 3 (and 5) ranks against the single process ----------------------------------
for spec in "o2 8 2 40 1 2 3" "o4 12 4 40 1 2 3 5"; do
  read -r name nk order steps ranks <<<"$spec"
  mk "$name" "$nk" "$order" "$steps"
  single "$name" || continue
  for np in $ranks; do
    mkdir "$name-$np"
    if (cd "$name-$np" && mpi "$np" "$mcf" kbe "../$name.ini" >o 2>e); then
      same4 "order $order, nk $nk on $np ranks" "$name-single/out" "$name-$np/out"
    else
      bad "order $order, nk $nk on $np ranks: exit $?: $(tail -3 "$name-$np/e")"
    fi
  done
done
grep -q "k over 3 MPI ranks" o2-3/o && ok "the run on 3 ranks says it splits k over 3" \
  || bad "no 'k over 3 MPI ranks' in the output: $(cat o2-3/o)"
# the evaluator's plan is a rank's, a slab of the storage: 1000 steps over a tiny memory
# limit, refused by one process and by every rank of 3, each naming what it would take
mk big 12 4 1000 && sed -i 's/^ramp = 1$/ramp = 1\nmemory_limit_gb = 0.000001/' big.ini
mkdir big && cd big
"$mcf" kbe ../big.ini >o1 2>e1; rc1=$?
mpi 3 "$mcf" kbe ../big.ini >o3 2>e3; rc3=$?
gb() { grep -o 'take [0-9.e+-]* GB' "$1" | head -1 | awk '{ print $2 }'; }
one=$(gb e1); three=$(gb e3)
if [ "$rc1" -eq 1 ] && [ "$rc3" -eq 1 ] && [ -n "$one" ] && [ -n "$three" ] &&
   awk -v a="$one" -v b="$three" 'BEGIN { exit !(b < 0.4 * a) }'; then
  ok "a rank of 3 needs $three GB where one process needs $one GB (both refused, exit 1)"
else bad "memory over 3 ranks: exit $rc1 and $rc3, $one and $three GB: $(cat e1 e3)"; fi
cd "$dir"

# --- 2. stopped on 3 ranks by a signal to rank 1, resumed on 2 and on 1 ---------------------
mk long 12 4 100
single long
mkdir stop && cd stop
mpi 3 "$mcf" kbe ../long.ini >o 2>e &
job=$!
wait_for out/checkpoint && pid=$(rank_pid "$job" 1)
if [ -n "${pid:-}" ]; then
  kill -INT "$pid"
  wait "$job"; rc=$?
  at=$(stopped_at 2)
  n=$(grep -c 'stopped by signal' e)
  if [ "$rc" -ne 130 ] || [ -z "$at" ] || [ "$n" -ne 1 ] || [ "$at" -ge 100 ]; then
    bad "SIGINT to rank 1: exit $rc, $n stop messages: $(tail -3 e)"
  else
    ok "SIGINT to rank 1 alone: all 3 ranks stopped at step $at (exit 130, one message)"
    cmp -s out/kbe.tsv ../long-single/out/kbe.tsv && bad "the stopped run has every row"
    mkdir ../one ../cut && cp -r out ../one/out && cp -r out ../cut/out
    resumed "stopped at step $at on 3 ranks, resumed on 2" 2 ../long-single/out
    cd ../one
    resumed "stopped at step $at on 3 ranks, resumed as one process" 1 ../long-single/out
  fi
else
  bad "could not find rank 1 of the run to stop"; wait "$job"
fi
cd "$dir"

# --- 2c. rows cut short, found by rank 0 alone: every rank ends with its message, no hang
if [ -d cut/out ]; then
  cd cut
  truncate -s -1000 out/kbe-rows.bin
  mpi 3 "$mcf" resume out >o 2>e; rc=$?
  if [ "$rc" -eq 1 ] && grep -q "kbe-rows.bin: ends in time row" e; then
    ok "rows cut short, resumed on 3 ranks: refused by every rank (exit 1), rank 0's message"
  else bad "rows cut short on 3 ranks: exit $rc: $(head -3 e)"; fi
  cd "$dir"
fi

# --- 2a. a single process stopped at its first checkpoint (step 0 written; order 4's start
# block is solved again at step 6), resumed on 3 ranks
mkdir early && cd early
"$mcf" kbe ../long.ini >o 2>e &
job=$!
for _ in $(seq 10000); do [ -e out/checkpoint ] && break; sleep 0.002; done # soon after
kill -INT "$job"
wait "$job"; rc=$?
at=$(stopped_at 2)
if [ "$rc" -eq 130 ] && [ -n "$at" ]; then
  resumed "one process stopped at step $at, resumed on 3 ranks" 3 ../long-single/out
else bad "the single process did not stop: exit $rc: $(tail -3 e)"; fi
cd "$dir"

# --- 2b. SIGTERM to mpirun (which passes it to every rank, here in about 2 s), resumed as one
# process: order 2 and 240 steps, so that the stop comes before the end
mk term 12 2 240
single term
mkdir mterm && cd mterm
# Open MPI kills the ranks 1 s after it passes SIGTERM on (odls_base_sigkill_timeout): on this
# loaded 2-core machine the last step and the checkpoint's fsync can take longer
grace=()
"$mpiexec" --version 2>/dev/null | grep -q "Open MPI" && grace=(--mca odls_base_sigkill_timeout 10)
mpi 2 "${grace[@]}" "$mcf" kbe ../term.ini >o 2>e &
job=$!   # the subshell running mpi(): timeout, then mpirun, are its descendants
wait_for out/checkpoint
# the signal goes to mpirun itself, not to timeout: timeout passes a TERM on to mpirun and
# then to its own process group, mpirun included, and an mpirun that gets a second TERM
# while it stops the job exits at once (exit 1), leaving the ranks to finish alone and their
# messages unforwarded (2 of 3 runs on 2026-12-01 when timeout was signalled)
guard=$(pgrep -P "$job" | head -n 1)
launcher=$(pgrep -P "${guard:-0}" | head -n 1)
kill -TERM "${launcher:-${guard:-$job}}"
wait "$job"; rc=$?
at=$(stopped_at 15)
if [ "$rc" -ne 0 ] && [ -n "$at" ] && [ "$at" -lt 240 ]; then
  ok "SIGTERM to mpirun stopped both ranks at step $at (exit $rc)"
  resumed "stopped at step $at on 2 ranks by mpirun, resumed as one process" 1 \
    ../term-single/out
else bad "SIGTERM to mpirun: exit $rc: e: $(tail -3 e) o: $(tail -3 o)"; fi
cd "$dir"

# --- 3. fewer k points than ranks ------------------------------------------------------------
mk few 2 2 40
mkdir few && cd few
mpi 3 "$mcf" kbe ../few.ini >o 2>e; rc=$?
if [ "$rc" -eq 2 ] && grep -q "\[kbe\] nk gives 2 k points for 3 MPI ranks" e; then
  ok "nk = 2 on 3 ranks refused naming [kbe] nk (exit 2)"
else bad "nk = 2 on 3 ranks: exit $rc: $(cat e)"; fi
cd "$dir"

echo "$passed passed, $fail failed"
[ "$fail" -eq 0 ]
