#!/usr/bin/env bash
# Diffusion Monte Carlo over MPI ranks ([run] method = dmc, issue 46): the walkers of a scan
# point are spread over the ranks, every rank weighs and combs the whole population alike
# (core/engine/dmc.c), and the comb's copies cross ranks through the collective hand-over.
#   1. two scan points (r_s = 1, 2) of 6 walkers each, N = 2: on 1, 2, 3 and 5 ranks
#      results.tsv and the checkpoint are the single process's, byte for byte;
#   2. a longer run stopped on 3 ranks by SIGTERM to mpirun once a checkpoint exists,
#      resumed on 2 ranks: the single process's files.
# usage: test_mpi_dmc.sh MCF SCRATCH MPIEXEC NUMPROC_FLAG "EXTRA_FLAGS"
set -u
here=$(cd "$(dirname "$0")" && pwd)
source "$here/ranks.sh"
mpi_test_setup mpi-dmc "$@" || exit 1
mpi() { local np=$1; shift; timeout 300 "$mpiexec" "$np_flag" "$np" "${extra[@]}" "$@"; }
mk() { # NAME SWEEPS
  cat > "$1.ini" <<INI
[run]
model = slater-jastrow
evaluator = planewave
seed = 31
walkers = 6
method = dmc
timestep = 0.02
output = out
[schedule]
thermalize = 20
sweeps = $2
checkpoint_every = 100
[model]
electrons = 2
rs = 1, 2
jastrow = rpa
INI
}

# --- 1. 1, 2, 3 and 5 ranks against the single process -----------------------------------
mk short 300
mkdir single && (cd single && "$mcf" run ../short.ini --no-progress --no-plots >o 2>e) \
  || { cat single/e; echo "single-process DMC run failed"; exit 1; }
for np in 1 2 3 5; do
  mkdir np$np
  if (cd np$np && mpi "$np" "$mcf" run ../short.ini --no-progress --no-plots >o 2>e); then
    same_files "DMC, mpirun -np $np" single/out np$np/out results.tsv checkpoint
  else
    bad "DMC, mpirun -np $np failed"; cat np$np/e
  fi
done

# --- 2. stopped on 3 ranks, resumed on 2 ---------------------------------------------------
mk long 20000
mkdir lsingle && (cd lsingle && "$mcf" run ../long.ini --no-progress --no-plots >o 2>e) \
  || { cat lsingle/e; echo "single-process long DMC run failed"; exit 1; }
mkdir stop && cd stop
# (without timeout: it would pass the SIGTERM to the ranks' process group as well, and a
# second signal stops a rank at once, without its checkpoint)
"$mpiexec" "$np_flag" 3 "${extra[@]}" "$mcf" run ../long.ini --no-progress --no-plots >o 2>e &
job=$!
wait_for out/checkpoint
launcher=$(pgrep -P "$job" | head -n 1)
kill -TERM "${launcher:-$job}"
wait "$job"; rc=$?
stopped=$(grep -o 'stopped by signal 15 at sweep [0-9]*' out/log | awk '{ print $7 }' | sort -u)
if [ "$rc" -ne 0 ] && [ -n "$stopped" ] && [ ! -e out/results.tsv ]; then
  ok "DMC: SIGTERM to mpirun stopped the ranks at sweep $stopped (exit status $rc)"
  if mpi 2 "$mcf" resume out --no-progress --no-plots >o2 2>e2; then
    same_files "DMC: stopped on 3 ranks, resumed on 2" ../lsingle/out out results.tsv checkpoint
  else
    bad "DMC: resume on 2 ranks failed"; cat e2
  fi
else
  bad "DMC: SIGTERM to mpirun: exit status $rc, log: $(tail -n 3 out/log)"
fi
cd ..
echo "test_mpi_dmc: $passed passed, $fail failed"
[ "$fail" -eq 0 ]
