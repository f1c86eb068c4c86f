# ranks.sh — helpers of the MPI tests (sourced by test_mpi.sh and test_mpi_kbe.sh).
# mpi_test_setup NAME MCF SCRATCH MPIEXEC NUMPROC_FLAG "EXTRA_FLAGS": the test's arguments into
# mcf, dir (SCRATCH/NAME, made empty and entered), mpiexec, np_flag and extra
mpi_test_setup() {
  mcf=$2
  dir=$3/$1
  mpiexec=$4
  np_flag=$5
  read -r -a extra <<<"$6"
  rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || return 1
  fail=0; passed=0
}
ok()  { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; fail=$((fail + 1)); }
# every file the two runs wrote that must not depend on the ranks
# (with results.tsv also results.h5, where the build writes it)
same_files() { # what, folder A, folder B, files...
  local what=$1 a=$2 b=$3 f; shift 3
  local files=("$@")
  [[ " $* " == *" results.tsv "* ]] && [ -e "$a/results.h5" ] && files+=(results.h5)
  for f in "${files[@]}"; do
    cmp -s "$a/$f" "$b/$f" || { bad "$what: $f differs from the single process's"; return; }
  done
  ok "$what: ${files[*]} identical to the single process's"
}
# the PID of MPI rank $2 among the descendants of process $1
descendants() { local p; for p in $(pgrep -P "$1"); do echo "$p"; descendants "$p"; done; }
rank_pid() {
  local p
  for p in $(descendants "$1"); do
    [ "$(cat "/proc/$p/comm" 2>/dev/null)" = mcf ] || continue
    tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null \
      | grep -Eqx "(OMPI_COMM_WORLD_RANK|PMI_RANK)=$2" && { echo "$p"; return; }
  done
}
# waits (at most 60 s) until file $1 exists
wait_for() { for _ in $(seq 600); do [ -e "$1" ] && return 0; sleep 0.1; done; return 1; }
# term_ranks PID: SIGTERM to every mcf rank below PID at once, what mpirun passes on to them.
# (Open MPI 4.1's mpirun itself answers SIGTERM with SIGCONT at once and SIGTERM to the ranks
# only odls_base_sigkill_timeout = 1 s later, measured: a run with less than that left, as
# these short ones on a fast machine, finishes unstopped; and a rank held by SIGSTOP meanwhile
# is killed.  The mpirun path is tested on runs long enough: test_mpi_kbe.sh, test_mpi_dmc.sh.)
term_ranks() {
  local r
  for r in $(descendants "$1"); do
    [ "$(cat "/proc/$r/comm" 2>/dev/null)" = mcf ] && kill -TERM "$r"
  done
  return 0
}
