#!/usr/bin/env bash
# One GPU per rank (issue 8): under mpirun the ranks of a node take the node's GPUs
# round-robin (MCF_CUDA_DEVICE = node-local rank, modulo the device count), and the run
# writes the single process's files byte for byte.  The double-exchange scan with kpm-cuda
# on 1 and on P = 2, 3 ranks (P <= the chains):
#   - every rank's log line "rank r: evaluator kpm-cuda: ... device d of n" has
#     d = r mod n (local rank = rank on one host), so with n >= P the ranks' devices are
#     all different, and with n = 1 they share device 0;
#   - results.tsv and the checkpoint equal the single process's.
# Exit 77 ("skipped: no device") when kpm-cuda's probe finds no device.
# usage: test_mpi_gpu.sh MCF SCRATCH MPIEXEC NUMPROC_FLAG "EXTRA_FLAGS" EXAMPLES_DIR
set -u
mcf=$1
dir=$2/mpi_gpu
mpiexec=$3
np_flag=$4
read -r -a extra <<<"$5"
examples=$6
usable=$("$mcf" describe kpm-cuda 2>&1 | grep '^evaluator = auto')
case $usable in
  *"not usable"*|"") echo "skipped: no device (${usable#*here: })"; exit 77 ;;
esac
echo "$usable"
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail=0; passed=0
ok()  { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; fail=$((fail + 1)); }
set_args=(--set run.evaluator=kpm-cuda --set schedule.thermalize=10 --set schedule.sweeps=40
          --set schedule.measure_every=1
          --set schedule.checkpoint_every=0 --set run.output=out --no-progress)
unset MCF_CUDA_DEVICE
mkdir single && (cd single && "$mcf" run "$examples/de-scan.ini" "${set_args[@]}" >o 2>e) \
  || { cat single/e; bad "single-process run failed"; }
grep -h "evaluator kpm-cuda:" single/out/log | head -1
for np in 2 3; do
  mkdir np$np
  if ! (cd np$np && "$mpiexec" "$np_flag" "$np" "${extra[@]}" "$mcf" run \
          "$examples/de-scan.ini" "${set_args[@]}" >o 2>e); then
    bad "mpirun -np $np failed"; cat np$np/e; continue
  fi
  cmp -s single/out/results.tsv np$np/out/results.tsv \
    && cmp -s single/out/checkpoint np$np/out/checkpoint \
    && ok "-np $np: results.tsv and checkpoint identical to the single process's" \
    || bad "-np $np: results differ from the single process's"
  grep -h "^.*rank [0-9]*: evaluator kpm-cuda:" np$np/out/log | sed 's/^/  /'
  seen=""
  for r in $(seq 0 $((np - 1))); do
    line=$(grep -h "rank $r: evaluator kpm-cuda:" np$np/out/log | head -1)
    d=$(sed -n 's/.*device \([0-9]*\) of \([0-9]*\).*/\1/p' <<<"$line")
    n=$(sed -n 's/.*device \([0-9]*\) of \([0-9]*\).*/\2/p' <<<"$line")
    if [ -z "$d" ] || [ -z "$n" ]; then bad "-np $np: rank $r logged no device"; continue; fi
    [ "$d" -eq $((r % n)) ] && ok "-np $np: rank $r took device $d of $n (= $r mod $n)" \
      || bad "-np $np: rank $r took device $d of $n, expected $((r % n))"
    seen="$seen $d"
  done
  distinct=$(tr ' ' '\n' <<<"$seen" | sed '/^$/d' | sort -u | wc -l)
  [ "$distinct" -eq $(( np < n ? np : n )) ] \
    && ok "-np $np: $distinct different GPUs for $np ranks on $n" \
    || bad "-np $np: $distinct different GPUs for $np ranks on $n"
done
echo "$passed passed, $fail failed"
[ "$fail" -eq 0 ]
