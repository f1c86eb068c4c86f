#!/usr/bin/env bash
# Chains over MPI ranks: every run here is compared byte for byte with the same run as a
# single process (the MPI build started without mpirun).  Runs of one configuration
# write to folders of the same name (out/) in different working folders, because the
# checkpoint carries a hash of config.ini, which names the output folder.
# usage: test_mpi.sh MCF SCRATCH MPIEXEC NUMPROC_FLAG "EXTRA_FLAGS"
set -u
here=$(cd "$(dirname "$0")" && pwd)
# the arguments, ok, bad, same_files, descendants, rank_pid, wait_for (shared with
# test_mpi_kbe.sh); then the scratch folder mpi/
source "$here/ranks.sh"
mpi_test_setup mpi "$@" || exit 1
mpi() { local np=$1; shift; "$mpiexec" "$np_flag" "$np" "${extra[@]}" "$@"; }

# --- 1. a scan of 4 temperatures x 2 walkers = 8 chains, 3 checkpoints gathered on the way
cat > scan.ini <<'INI'
[run]
model = ising
seed = 20261123
walkers = 2
output = out
[schedule]
thermalize = 100
sweeps = 400
checkpoint_every = 150
temperatures = 2.0, 2.2, 2.4, 2.6
[model]
L = 8
INI
mkdir single && (cd single && "$mcf" run ../scan.ini --no-progress --no-plots >o 2>e) \
  || { cat single/e; echo "single-process run failed"; exit 1; }
grep -q "MPI ranks" single/out/log && bad "a run without mpirun says it has MPI ranks" \
  || ok "without mpirun the MPI build is a single process"
for np in 1 2 3 10; do
  mkdir np$np
  if (cd np$np && mpi "$np" "$mcf" run ../scan.ini --no-progress --no-plots >o 2>e); then
    same_files "mpirun -np $np" single/out np$np/out results.tsv checkpoint
  else
    bad "mpirun -np $np failed"; cat np$np/e
  fi
done
# more ranks than chains: the idle ranks wait, and the log says so
grep -q "10 MPI ranks for 8 chains: 2 of the ranks own no chain" np10/out/log \
  && ok "more ranks than chains: warned in the log" || bad "no warning for idle ranks"
[ "$(grep -c 'starting ../scan.ini' np3/out/log)" -eq 1 ] && ok "one log, written by rank 0" \
  || bad "log lines from several ranks: $(cat np3/out/log)"

# --- 2. curves (the test model's histogram) and walkers split across ranks ------------
cat > curve.ini <<'INI'
[run]
model = tgood
seed = 9
output = out
walkers = 3
[schedule]
thermalize = 100
sweeps = 3000
checkpoint_every = 1000
temperatures = 0.7, 2.0
INI
mkdir csingle c4
(cd csingle && "$mcf" run ../curve.ini --no-progress --no-plots >o 2>e) \
  || { bad "curve run"; cat csingle/e; }
(cd c4 && mpi 4 "$mcf" run ../curve.ini --no-progress --no-plots >o 2>e) \
  || { bad "curve run -np 4"; cat c4/e; }
same_files "curves, -np 4" csingle/out c4/out results.tsv histogram.tsv checkpoint

# --- 3. a stop caught by one rank only: all stop at the same sweep; resume on 3 ranks ---
# (L = 16 and 30 000 sweeps, 6 chains: four runs of it here and in 3b and 4; the stops land
# at sweeps 3 500-6 300 of 30 500 measured on a loaded 2-core machine, L = 24 and 60 000 until
# 2026-12-02 cost ~4.5x more for the same checks)
cat > long.ini <<'INI'
[run]
model = ising
seed = 20261122
walkers = 2
output = out
[schedule]
thermalize = 500
sweeps = 30000
checkpoint_every = 700
temperatures = 2.0, 2.3, 2.6
[model]
L = 16
INI
mkdir lsingle
(cd lsingle && "$mcf" run ../long.ini --no-progress --no-plots >o 2>e) \
  || { bad "long run"; cat lsingle/e; }
mkdir term && cd term
mpi 2 "$mcf" run ../long.ini --no-progress --no-plots >o 2>e &
job=$!
wait_for out/checkpoint && pid=$(rank_pid "$job" 1)
if [ -n "${pid:-}" ]; then
  kill -TERM "$pid"
  wait "$job"; rc=$?
  stopped=$(grep -o 'stopped by signal 15 at sweep [0-9]*' out/log | awk '{ print $7 }' | sort -u)
  if [ "$rc" -eq 0 ] || [ -z "$stopped" ]; then
    bad "SIGTERM to rank 1: exit status $rc, log: $(tail -n 3 out/log)"
  else
    ok "SIGTERM to rank 1 only: both ranks stopped at sweep $stopped (exit status $rc)"
    grep -q "mcf: stopped by signal 15 at sweep $stopped of 30500; continue with" e \
      && ok "the stop message says how to resume" || bad "stop message: $(cat e)"
    [ -e out/results.tsv ] && bad "a stopped run left a results.tsv"
    if mpi 3 "$mcf" resume out --no-progress --no-plots >o2 2>e2; then
      grep -q "resumed from the checkpoint at sweep $stopped of 30500" out/log \
        && ok "resumed on 3 ranks from the checkpoint at sweep $stopped" \
        || bad "resume did not start at sweep $stopped: $(grep resumed out/log)"
      same_files "stopped on 2 ranks, resumed on 3" ../lsingle/out out results.tsv checkpoint
    else
      bad "resume on 3 ranks failed"; cat e2
    fi
  fi
else
  bad "could not find rank 1 of the run (finished before its first checkpoint?)"
  wait "$job"
fi
cd ..

# term_and_resume DIR INI LABEL: runs INI on 3 ranks in DIR, sends SIGTERM to every rank
# at once (what mpirun passes on; term_ranks in ranks.sh says why not through mpirun here)
# once a checkpoint exists, resumes on 2 ranks, and compares with the uninterrupted single
# process in lsingle/ (next to DIR)
term_and_resume() {
  mkdir "$1" && cd "$1"
  mpi 3 "$mcf" run "../$2" --no-progress --no-plots >o 2>e &
  local job=$!   # the subshell running mpi(): mpirun is its child
  wait_for out/checkpoint
  local rc stopped
  term_ranks "$job"
  wait "$job"; rc=$?
  stopped=$(grep -o 'stopped by signal 15 at sweep [0-9]*' out/log | awk '{ print $7 }' | sort -u)
  if [ "$rc" -ne 0 ] && [ -n "$stopped" ] && [ ! -e out/results.tsv ]; then
    ok "$3: SIGTERM to every rank stopped them at sweep $stopped (exit status $rc)"
    if mpi 2 "$mcf" resume out --no-progress --no-plots >o2 2>e2; then
      same_files "$3: stopped on 3 ranks at once, resumed on 2" ../lsingle/out out \
        results.tsv checkpoint
    else
      bad "$3: resume on 2 ranks failed"; cat e2
    fi
  else
    bad "$3: SIGTERM to every rank: exit status $rc, log: $(tail -n 3 out/log)"
  fi
}

# --- 3b. SIGTERM to every rank at once, as from mpirun: resumed on 2 ranks --------------
term_and_resume mterm long.ini "plain run"
cd ..

# --- 4. a rank killed outright: the job ends, the last checkpoint stays valid ------------
mkdir kill && cd kill
mpi 2 "$mcf" run ../long.ini --no-progress --no-plots >o 2>e &
job=$!
wait_for out/checkpoint && sleep 0.3 && pid=$(rank_pid "$job" 1)
if [ -n "${pid:-}" ]; then
  kill -KILL "$pid"
  wait "$job"; rc=$?
  [ "$rc" -ne 0 ] && ok "SIGKILL to rank 1 ends the job (exit status $rc)" \
    || bad "SIGKILL to rank 1: the job exited 0"
  if mpi 1 "$mcf" resume out --no-progress --no-plots >o2 2>e2; then
    at=$(grep -o 'resumed from the checkpoint at sweep [0-9]*' out/log | awk '{ print $7 }')
    [ -n "$at" ] && [ $((at % 700)) -eq 0 ] && ok "resumed from the periodic checkpoint at $at" \
      || bad "after SIGKILL: resumed at '$at'"
    same_files "killed on 2 ranks, resumed on 1" ../lsingle/out out results.tsv checkpoint
  else
    bad "resume after SIGKILL failed"; cat e2
  fi
else
  bad "could not find rank 1 of the run to kill"
  wait "$job"
fi
cd ..

# --- 5. a model error in a chain of one rank: the job stops, naming rank and chain -------
cat > fail.ini <<'INI'
[run]
model = tfail
seed = 5
output = out
walkers = 1
[schedule]
thermalize = 100
sweeps = 20000
checkpoint_every = 700
temperatures = 1.0
[model]
fail_after = 0, 0, 0, 0, 0, 5000
INI
mkdir fsingle
(cd fsingle && "$mcf" run ../fail.ini --no-progress --no-plots >o 2>e) \
  && bad "the failing model did not fail"
for np in 2 3; do
  mkdir f$np
  (cd f$np && mpi $np "$mcf" run ../fail.ini --no-progress --no-plots >o 2>e); rc=$?
  # chain 5 fails; rank r of P owns the chains k = r (mod P): rank 1 of 2, rank 2 of 3
  want="mcf: error: rank $((np - 1)) of $np: model tfail: propose (chain 5): test failure"
  [ "$rc" -ne 0 ] && grep -qF "$want" f$np/e && ok "-np $np: '$want'" \
    || { bad "-np $np: exit status $rc, expected the message '$want'"; cat f$np/e; }
  [ "$(grep -c '^mcf: error' f$np/e)" -eq 1 ] && ok "-np $np: the error is reported once" \
    || bad "-np $np: the error is reported $(grep -c '^mcf: error' f$np/e) times"
  grep -qF "error: rank $((np - 1)) of $np: model tfail" f$np/out/log \
    && ok "-np $np: the log has the error" || bad "-np $np: log lacks the error"
  same_files "-np $np, failed" fsingle/out f$np/out checkpoint
done

# --- 6. refusals still come before any work and from one rank only ----------------------
mkdir refused && cd refused
mpi 2 "$mcf" run ../scan.ini --set model.L=1 --no-progress --no-plots >o 2>e; rc=$?
[ "$rc" -eq 2 ] && [ "$(grep -c '1 is out of range' e)" -eq 1 ] && [ ! -e out ] \
  && ok "a refused configuration: one message, exit status 2, no output folder" \
  || { bad "refused configuration under mpirun (exit status $rc)"; cat e; }
cd ..

# --- 7. parallel tempering: exchanges among chains of different ranks ---------------------
# 2 L x 2 walkers x 4 temperatures (out of order) = 16 chains, so with 2 or 3 ranks most
# tempering groups span ranks: energies and forwarded measurements cross ranks every 3
# sweeps; results and checkpoint must still be the single process's, byte for byte
mkdir pt && cd pt
cat > pt.ini <<'INI'
[run]
model = ising
seed = 20261124
walkers = 2
output = out
[schedule]
thermalize = 300
sweeps = 3000
checkpoint_every = 500
exchange_every = 3
temperatures = 2.6, 2.0, 2.3, 2.45
[model]
L = 8, 12
INI
sed 's/^sweeps = 3000/sweeps = 20000/' pt.ini > ptlong.ini
mkdir single && (cd single && "$mcf" run ../pt.ini --no-progress --no-plots >o 2>e) \
  || { cat single/e; bad "tempering: single-process run failed"; }
for np in 1 2 3; do
  mkdir np$np
  if (cd np$np && mpi "$np" "$mcf" run ../pt.ini --no-progress --no-plots >o 2>e); then
    same_files "tempering, mpirun -np $np" single/out np$np/out results.tsv checkpoint
  else
    bad "tempering: mpirun -np $np failed"; cat np$np/e
  fi
done
grep -q '^# exchange: L=8, walker 0: T 2.0 <-> 2.3' single/out/results.tsv \
  && ok "tempering: results.tsv has the exchange lines" || bad "tempering: no exchange lines"
# stopped on 3 ranks by SIGTERM to every rank, resumed on 2
mkdir lsingle && (cd lsingle && "$mcf" run ../ptlong.ini --no-progress --no-plots >o 2>e) \
  || { cat lsingle/e; bad "tempering: long single-process run failed"; }
term_and_resume term ptlong.ini tempering
cd ..

# --- 7a. start = anneal: configurations handed down the temperatures across ranks ---------
# 2 L x 2 walkers x 4 temperatures (out of order) = 16 chains: with 2 or 3 ranks most
# hand-overs cross ranks (an all-gather); results and checkpoint as the single process's
mkdir anneal && cd anneal
sed -e 's/^exchange_every = 3/start = anneal/' ../pt.ini > an.ini
mkdir single && (cd single && "$mcf" run ../an.ini --no-progress --no-plots >o 2>e) \
  || { cat single/e; bad "anneal: single-process run failed"; }
for np in 2 3; do
  mkdir np$np
  if (cd np$np && mpi "$np" "$mcf" run ../an.ini --no-progress --no-plots >o 2>e); then
    same_files "anneal, mpirun -np $np" single/out np$np/out results.tsv checkpoint
  else
    bad "anneal: mpirun -np $np failed"; cat np$np/e
  fi
done
cd ..

# --- 7b. error_target: the decision to measure on is rank 0's, from every rank's bins ------
# the tempering scan measuring 500, 1000, 2000 ... sweeps until abs_m_err <= 0.012: on 2
# and 3 ranks the same doublings, results.tsv and checkpoint as the single process's
mkdir target && cd target
sed -e 's/^sweeps = 3000/sweeps = 500\nerror_target = abs_m:0.012\nmax_sweeps = 16000/' \
  ../pt.ini > et.ini
mkdir single && (cd single && "$mcf" run ../et.ini --no-progress --no-plots >o 2>e) \
  || { cat single/e; bad "error_target: single-process run failed"; }
grep -q "error target missed after 500 measured sweeps" single/out/log \
  && ok "error_target: the single process doubled from 500 sweeps" \
  || bad "error_target: no doubling in the single process (the test needs one)"
for np in 2 3; do
  mkdir np$np
  if (cd np$np && mpi "$np" "$mcf" run ../et.ini --no-progress --no-plots >o 2>e); then
    same_files "error_target, mpirun -np $np" single/out np$np/out results.tsv checkpoint
  else
    bad "error_target: mpirun -np $np failed"; cat np$np/e
  fi
done
cd ..

# --- 8. tempering of double exchange: exchange_action through the exact evaluator --------
# 2 walkers x 3 temperatures of a 3 x 3 torus with ed: the action changes of the replicas
# travel between ranks; results and checkpoint must be the single process's
mkdir ptde && cd ptde
cat > de.ini <<'INI'
[run]
model = double-exchange
evaluator = ed
seed = 77
walkers = 2
output = out
[schedule]
thermalize = 50
sweeps = 300
checkpoint_every = 100
exchange_every = 2
temperatures = 0.3, 0.05, 0.1
[model]
lattice = square
L = 3
mu = -1
INI
mkdir single && (cd single && "$mcf" run ../de.ini --no-progress --no-plots >o 2>e) \
  || { cat single/e; bad "double-exchange tempering: single-process run failed"; }
for np in 2 3; do
  mkdir np$np
  if (cd np$np && mpi "$np" "$mcf" run ../de.ini --no-progress --no-plots >o 2>e); then
    same_files "double-exchange tempering, mpirun -np $np" single/out np$np/out results.tsv \
      checkpoint
  else
    bad "double-exchange tempering: mpirun -np $np failed"; cat np$np/e
  fi
done
cd ../..

# --- 9. [run] series = yes over ranks: each rank writes its own chains' files -------------
# (a) 8 chains on 2 ranks, and 16 under parallel tempering on 3: series/ and results as the
#     single process's, byte for byte;
# (b) mcf tc with error_target tc stopped by SIGINT after a checkpoint (one process), resumed
#     by `mpirun -np 2 mcf resume`: the uninterrupted single process's series, results and T_c
mkdir series && cd series || exit 1
sed 's/^output = out$/output = out\nseries = yes/' ../scan.ini > s.ini
mkdir one two
(cd one && "$mcf" run ../s.ini --no-progress --no-plots >o 2>e) \
  || { bad "series: single run failed"; cat one/e; }
if (cd two && mpi 2 "$mcf" run ../s.ini --no-progress --no-plots >o 2>e) &&
    diff -r one/out/series two/out/series >/dev/null; then
  same_files "series = yes, mpirun -np 2" one/out two/out results.tsv checkpoint
else bad "series = yes on 2 ranks: run failed or series/ differs"; cat two/e; fi
# with parallel tempering: a slot's rows reach the rank that owns it (the allgather of
# mcfi_pt_flush) before they are written, so its file is the single process's too
sed -e 's/^temperatures = .*/temperatures = 2.6, 2.0, 2.4, 2.2\nexchange_every = 3/' \
    -e 's/^L = 8/L = 4, 6/' s.ini > pt.ini
mkdir pt1 pt3
if (cd pt1 && "$mcf" run ../pt.ini --no-progress --no-plots >o 2>e) &&
    (cd pt3 && mpi 3 "$mcf" run ../pt.ini --no-progress --no-plots >o 2>e) &&
    diff -r pt1/out/series pt3/out/series >/dev/null; then
  same_files "series = yes with tempering, mpirun -np 3" pt1/out pt3/out results.tsv checkpoint
else bad "series = yes with tempering on 3 ranks: run failed or series/ differs"; cat pt3/e; fi
cat > tc.ini <<'INI'
[run]
model = ising
seed = 9
threads = 1
output = etc.out
[schedule]
thermalize = 200
sweeps = 1000
max_sweeps = 8000
checkpoint_every = 200
[tc]
sizes = 4, 8
temperatures = 2.15:2.40:6
error_target = tc:0.1%
INI
mkdir tc1 tc2
(cd tc1 && "$mcf" tc ../tc.ini --no-plots >o 2>e) || { bad "mcf tc: single run failed"; cat tc1/e; }
(cd tc2 && exec "$mcf" tc ../tc.ini --no-plots >o 2>e) & pid=$!
wait_for tc2/etc.out/checkpoint && sleep 0.5
kill -INT "$pid" 2>/dev/null; wait "$pid"
if (cd tc2 && mpi 2 "$mcf" resume etc.out --no-plots >r 2>re) &&
    diff -r tc1/etc.out/series tc2/etc.out/series >/dev/null &&
    [ -n "$(grep '^mcf tc: T_c' tc1/o)" ] &&
    [ "$(grep '^mcf tc: T_c' tc2/r)" = "$(grep '^mcf tc: T_c' tc1/o)" ]; then
  same_files "mcf tc stopped, resumed on 2 ranks" tc1/etc.out tc2/etc.out results.tsv
else bad "mcf tc resumed on 2 ranks: $(grep -h 'mcf' tc2/r tc2/re | head -3)"; fi
# (c) `mpirun -np 2 mcf tc CONFIG` from the start: every rank runs its share of the scans
#     (rank 0 alone once left the others idle and waited on them forever), rank 0 analyses
mkdir tc3
if (cd tc3 && timeout 300 "$mpiexec" "$np_flag" 2 "${extra[@]}" "$mcf" tc ../tc.ini \
      --no-plots >o 2>e) && diff -r tc1/etc.out/series tc3/etc.out/series >/dev/null &&
    [ "$(grep '^mcf tc: T_c' tc3/o)" = "$(grep '^mcf tc: T_c' tc1/o)" ]; then
  same_files "mcf tc CONFIG on 2 ranks" tc1/etc.out tc3/etc.out results.tsv
else bad "mcf tc CONFIG on 2 ranks: $(grep -h 'mcf' tc3/o tc3/e | head -3)"; fi
# (d) `mpirun -np 2 mcf tc DIR`, the analysis alone, is rank 0's: one report, the same T_c
if (cd tc3 && mpi 2 "$mcf" tc etc.out >a 2>ae) && [ "$(grep -c '^T_c (binder)' tc3/a)" -eq 1 ] &&
    [ "$(grep -c '^T_c (xi_over_l)' tc3/a)" -eq 1 ]; then ok "mcf tc DIR on 2 ranks: one analysis"
else bad "mcf tc DIR on 2 ranks: $(head -3 tc3/a tc3/ae)"; fi
# (e) [tc] refine = 1 on 2 ranks from the start: rank 0 plans the refinement from its analysis
#     and every rank runs its share of it: the single process's refine-1 and T_c
sed -e '/^error_target = tc/d' -e '/^max_sweeps/d' -e 's/^\[tc\]$/[tc]\nrefine = 1/' \
    -e 's/^output = etc.out$/output = ref.out/' tc.ini > ref.ini
mkdir rf1 rf2
(cd rf1 && "$mcf" tc ../ref.ini --no-plots >o 2>e) || { bad "refine: single run failed"; cat rf1/e; }
if (cd rf2 && timeout 300 "$mpiexec" "$np_flag" 2 "${extra[@]}" "$mcf" tc ../ref.ini \
      --no-plots >o 2>e) && [ -f rf1/ref.out/refine-1/series/index.tsv ] &&
    diff -r rf1/ref.out/refine-1/series rf2/ref.out/refine-1/series >/dev/null &&
    [ "$(grep -c '^mcf tc: refinement 1 of 1' rf2/o)" -eq 1 ] &&
    [ "$(grep '^mcf tc: T_c' rf2/o)" = "$(grep '^mcf tc: T_c' rf1/o)" ]; then
  same_files "mcf tc CONFIG with refine = 1 on 2 ranks" rf1/ref.out/refine-1 \
    rf2/ref.out/refine-1 results.tsv
else bad "refine on 2 ranks: $(grep -h 'mcf' rf2/o rf2/e | head -3)"; fi
cd ..

echo "$passed passed, $fail failed"
[ "$fail" -eq 0 ]
