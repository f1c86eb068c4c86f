#!/usr/bin/env bash
# The output folder (issue 17, items 2, 3, 7, 8, 9): one run at a time (a lock that names
# its holder and dies with it), `run --force` loses nothing until its first checkpoint,
# the leftovers of killed runs are removed, no link planted in the folder redirects a
# write, and a full disk fails the run, naming what was not written.
# usage: test_output_folder.sh MCF SCRATCH [full-disk]
#   full-disk: only the full-disk part, on a small tmpfs (needs root; exit 77 = skipped)
set -u
mcf=$1
mode=${3:-folder}
dir=$2/output_folder_$mode
[ -d "$dir/full" ] && umount "$dir/full" 2>/dev/null
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail=0; passed=0
ok()  { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; fail=$((fail + 1)); }
finish() {
  echo "$passed passed, $fail failed"
  [ "$fail" -eq 0 ]
  exit
}

cat > small.ini <<'INI'
[run]
model = ising
seed = 7
[schedule]
thermalize = 200
sweeps = 2000
temperatures = 2.0, 2.5
[model]
L = 8
INI
# runs until stopped (the default checkpoint_every = 0: no checkpoint before the end)
cat > long.ini <<'INI'
[run]
model = ising
seed = 8
[schedule]
thermalize = 100
sweeps = 1000000000
temperatures = 2.2
[model]
L = 16
INI

# Waits (10 s at most) until DIR/log has N lines saying a run started or resumed.
wait_started() {
  for _ in $(seq 1 100); do
    [ "$(grep -c -E ': (starting|resuming) ' "$1/log" 2>/dev/null)" -ge "$2" ] && return 0
    sleep 0.1
  done
  return 1
}

# ---- full disk (item 7): a tmpfs just large enough for the results, not for the plots ----
if [ "$mode" = full-disk ]; then
  "$mcf" run small.ini --set run.output=ref --no-progress >/dev/null 2>ref.err \
    || { cat ref.err; echo "reference run failed"; exit 1; }
  mkdir full
  if ! mount -t tmpfs -o size=128k tmpfs full 2>mount.err; then
    echo "skipped: cannot mount a small tmpfs to fill ($(head -c 200 mount.err))"
    exit 77
  fi
  trap 'umount "$dir/full" 2>/dev/null' EXIT
  # room for what comes before the plots (4 KiB pages, the checkpoint twice while it is
  # replaced, results.h5 in a build with HDF5, and 2 pages to spare), filled up to that
  # with a file of zeros
  before_plots="config.ini checkpoint checkpoint results.tsv log"
  [ -f ref/results.h5 ] && before_plots="$before_plots results.h5"
  pages=2
  for f in $before_plots; do
    pages=$((pages + ($(stat -c %s "ref/$f") + 4095) / 4096))
  done
  plots=0
  for f in ref/plot-*.svg; do plots=$((plots + $(stat -c %s "$f"))); done
  [ "$plots" -gt $((2 * 4096)) ] || { bad "the plots are too small to overflow the disk"; finish; }
  head -c $((128 * 1024 - pages * 4096)) /dev/zero > full/filler 2>/dev/null
  "$mcf" run small.ini --set run.output=full/run --no-progress >/dev/null 2>full.err; rc=$?
  [ "$rc" -ne 0 ] && ok "a full disk fails the run (exit $rc)" \
    || bad "a run whose plots did not fit exited 0: $(cat full.err)"
  grep -q "not written" full.err && grep -q "plot-" full.err \
    && ok "the message names the plot not written: $(tail -n 1 full.err)" \
    || bad "no message naming the plot not written: $(cat full.err)"
  grep -q "plots: [0-9]* SVG files" full/run/log && bad "the log claims the plots were written"
  cmp -s ref/results.tsv full/run/results.tsv && ok "results.tsv complete, as on a roomy disk" \
    || bad "results.tsv differs from the reference run's"
  whole=1
  for f in full/run/plot-*.svg; do
    [ -e "$f" ] || continue
    [ "$(tail -c 8 "$f" | tr -d '\n ')" = "</svg>" ] || { whole=0; bad "$f is truncated"; }
  done
  [ "$whole" -eq 1 ] && ok "every plot that is there is whole"
  ls -A full/run | grep -q -E '\.tmp|^\.plot-' && bad "temporaries left: $(ls -A full/run)" \
    || ok "no temporary files left"

  # results.h5 (a build with HDF5) does not fit: the run fails naming it, results.tsv is
  # whole and no temporary is left
  if [ -f ref/results.h5 ]; then
    rm -rf full/run full/filler
    h5pages=$((($(stat -c %s ref/results.h5) + 4095) / 4096))
    head -c $((128 * 1024 - (pages - h5pages) * 4096)) /dev/zero > full/filler 2>/dev/null
    "$mcf" run small.ini --set run.output=full/run --no-progress >/dev/null 2>full.err; rc=$?
    [ "$rc" -ne 0 ] && grep -q "results.h5: not written" full.err \
      && ok "results.h5 that does not fit fails the run: $(tail -n 1 full.err)" \
      || bad "results.h5 on a full disk: exit $rc: $(cat full.err)"
    cmp -s ref/results.tsv full/run/results.tsv && ok "results.tsv complete before it" \
      || bad "results.tsv differs from the reference run's"
    [ -e full/run/results.h5 ] && bad "a results.h5 was left on the full disk"
    ls -A full/run | grep -q -E '\.tmp' && bad "temporaries left: $(ls -A full/run)" \
      || ok "no results.h5 and no temporary left"
  fi

  # a disk with no room at all: not even the folder's first file, its kind (written before
  # config.ini), is written, and the run says so
  rm -rf full/run
  mkdir full/run2
  head -c 1M /dev/zero > full/filler2 2>/dev/null
  "$mcf" run small.ini --set run.output=full/run2 --no-progress >/dev/null 2>full2.err; rc=$?
  [ "$rc" -ne 0 ] && grep -q "full/run2/kind: not written" full2.err \
    && ok "no room at all: $(tail -n 1 full2.err)" \
    || bad "no room at all: exit $rc: $(cat full2.err)"
  finish
fi

# ---- the lock (item 2) -------------------------------------------------------------------
"$mcf" run long.ini --set run.output=busy --no-progress >/dev/null 2>busy.err &
pid=$!
if wait_started busy 1; then
  timeout 60 "$mcf" run small.ini --set run.output=busy --force --no-progress >/dev/null \
    2>second.err; rc=$?
  [ "$rc" -ne 0 ] && grep -q "in use by another mcf (pid $pid on host" second.err \
    && ok "a second run on a folder in use is refused: $(tail -n 1 second.err)" \
    || bad "a second run on a folder in use: exit $rc: $(cat second.err)"
  timeout 60 "$mcf" resume busy --no-progress >/dev/null 2>third.err; rc=$?
  [ "$rc" -ne 0 ] && grep -q "pid $pid" third.err \
    && ok "a resume of a folder in use is refused" \
    || bad "a resume of a folder in use: exit $rc: $(cat third.err)"
  timeout 60 "$mcf" plot busy >/dev/null 2>plot.err; rc=$?
  [ "$rc" -ne 0 ] && grep -q "pid $pid" plot.err && ok "a plot of a folder in use is refused" \
    || bad "a plot of a folder in use: exit $rc: $(cat plot.err)"
  kill -TERM "$pid"; wait "$pid"; rc=$?
  [ "$rc" -eq 143 ] && [ -f busy/checkpoint ] && ok "the holder, stopped by SIGTERM, checkpointed" \
    || bad "the holder, stopped by SIGTERM: exit $rc: $(cat busy.err)"
  "$mcf" run small.ini --set run.output=busy --force --no-progress >/dev/null 2>after.err \
    && ok "the lock is released when its holder stops" \
    || bad "after the holder stopped: $(cat after.err)"
else
  bad "the long run did not start: $(cat busy.err)"; kill -KILL "$pid" 2>/dev/null; wait "$pid"
fi
"$mcf" run long.ini --set run.output=killed --no-progress >/dev/null 2>killed.err &
pid=$!
if wait_started killed 1; then
  kill -KILL "$pid"; wait "$pid"
  "$mcf" run small.ini --set run.output=killed --force --no-progress >/dev/null 2>k.err \
    && ok "a SIGKILLed holder's lock does not block" || bad "after SIGKILL: $(cat k.err)"
else
  bad "the long run did not start: $(cat killed.err)"; kill -KILL "$pid" 2>/dev/null; wait "$pid"
fi

# ---- --force keeps the earlier run until its first checkpoint (item 3) ------------------
"$mcf" run small.ini --set run.output=keep --no-progress >/dev/null 2>keep.err \
  || { bad "small run: $(cat keep.err)"; finish; }
cp keep/results.tsv keep.results; cp keep/config.ini keep.config; cp keep/checkpoint keep.ckpt
[ -e keep/results.h5 ] && cp keep/results.h5 keep.h5   # a build with HDF5
"$mcf" run long.ini --set run.output=keep --force --no-progress >/dev/null 2>force.err &
pid=$!
if wait_started keep 2; then
  kill -KILL "$pid"; wait "$pid"
  # another seed: had the earlier run been lost, this run would write other files
  "$mcf" run small.ini --set run.output=keep --set run.seed=5 --no-progress >/dev/null \
    2>again.err; rc=$?
  [ "$rc" -eq 2 ] && grep -q "already holds a run" again.err \
    && ok "a --force run killed before its first checkpoint: the earlier run is still the folder's" \
    || bad "after a killed --force run, a fresh run: exit $rc: $(cat again.err)"
  cmp -s keep/checkpoint keep.ckpt && cmp -s keep/config.ini keep.config \
    && ok "the earlier checkpoint and config.ini are back, byte for byte" \
    || bad "the earlier checkpoint or config.ini was lost"
  if [ -e keep.h5 ]; then
    cmp -s keep/results.h5 keep.h5 && ok "the earlier results.h5 is back, byte for byte" \
      || bad "the earlier results.h5 was lost"
  fi
  "$mcf" run long.ini --set run.output=keep --force --no-progress >/dev/null 2>force2.err &
  pid=$!
  wait_started keep 3 && kill -KILL "$pid"; wait "$pid"
  timeout 30 "$mcf" resume keep --no-progress >/dev/null 2>resume.err; rc=$?
  [ "$rc" -eq 0 ] && cmp -s keep/results.tsv keep.results && cmp -s keep/config.ini keep.config \
    && ok "resume after a killed --force run finishes the earlier run, same results" \
    || bad "resume after a killed --force run: exit $rc: $(cat resume.err)"
  [ ! -e keep.h5 ] || cmp -s keep/results.h5 keep.h5 \
    || bad "resume after a killed --force run: results.h5 differs from the earlier run's"
  [ -e keep/.previous ] && bad "the earlier run's copy stayed after the resume"
else
  bad "the --force run did not start: $(cat force.err)"; kill -KILL "$pid" 2>/dev/null; wait "$pid"
fi
"$mcf" run small.ini --set run.output=keep --set run.seed=99 --force --no-progress >/dev/null \
  2>f3.err || bad "--force run: $(cat f3.err)"
[ ! -e keep/.previous ] && ! cmp -s keep/results.tsv keep.results \
  && ok "a --force run that finishes replaces the earlier run and keeps no copy" \
  || bad "after a finished --force run: $(ls -A keep)"

# ---- leftovers of killed runs are removed (item 8) --------------------------------------
"$mcf" run small.ini --set run.output=left --no-progress >/dev/null 2>left.err \
  || { bad "small run: $(cat left.err)"; finish; }
sh -c 'exit 0' & dead=$!; wait "$dead"     # a pid that is no longer alive
head -c 200000 /dev/zero > "left/checkpoint.tmp.$dead"
: > "left/results.tsv.tmp.$dead"
: > left/.plot-gnuplot-Ab12Cd
: > left/.plot-energy.svg.tmp
: > left/.plot-energy.png.tmp
: > "left/config.ini.tmp.$$"               # this shell's: alive, kept
"$mcf" resume left --no-progress >/dev/null 2>left2.err || bad "resume: $(cat left2.err)"
[ ! -e "left/checkpoint.tmp.$dead" ] && [ ! -e "left/results.tsv.tmp.$dead" ] \
  && [ ! -e left/.plot-gnuplot-Ab12Cd ] && [ ! -e left/.plot-energy.svg.tmp ] \
  && [ ! -e left/.plot-energy.png.tmp ] \
  && ok "leftovers of dead processes removed" || bad "leftovers remain: $(ls -A left)"
[ -e "left/config.ini.tmp.$$" ] && ok "a live process's temporary is kept" \
  || bad "a live process's temporary was removed"
grep -q "removed 5 temporary files" left/log && ok "the log says what was removed" \
  || bad "the log does not say: $(tail -n 5 left/log)"
rm -f "left/config.ini.tmp.$$"

# ---- links planted in the folder (item 9) -----------------------------------------------
echo precious > outside.txt
cp outside.txt outside.orig
mkdir linked
ln -s ../outside.txt linked/log
"$mcf" run small.ini --set run.output=linked --no-progress >/dev/null 2>link.err; rc=$?
[ "$rc" -ne 0 ] && grep -q "linked/log: is a symbolic link" link.err \
  && ok "a link planted as the log is refused: $(tail -n 1 link.err)" \
  || bad "a link planted as the log: exit $rc: $(cat link.err)"
cmp -s outside.txt outside.orig && ok "the log's link target is untouched" \
  || bad "the run wrote through the log's link: $(head -c 200 outside.txt)"
mkdir linked2
ln -s ../outside.txt linked2/.lock
"$mcf" run small.ini --set run.output=linked2 --no-progress >/dev/null 2>link2.err; rc=$?
[ "$rc" -ne 0 ] && cmp -s outside.txt outside.orig && ok "a link planted as the lock is refused" \
  || bad "a link planted as the lock: exit $rc: $(cat link2.err)"
# links named like the temporaries of the run's pid: the subshell's pid is mcf's after exec
mkdir linked3
( for f in config.ini checkpoint results.tsv; do
    ln -s ../outside.txt "linked3/$f.tmp.$BASHPID"
  done
  exec "$mcf" run small.ini --set run.output=linked3 --no-progress >/dev/null 2>link3.err ); rc=$?
[ "$rc" -eq 0 ] && cmp -s outside.txt outside.orig && [ -f linked3/config.ini ] \
  && [ ! -L linked3/config.ini ] && [ ! -L linked3/checkpoint ] && [ ! -L linked3/results.tsv ] \
  && ok "links planted as the temporaries are replaced, their target untouched" \
  || bad "links planted as the temporaries: exit $rc, outside: $(head -c 100 outside.txt): $(cat link3.err)"
cmp -s linked3/results.tsv left/results.tsv && ok "and the results are the usual ones" \
  || bad "results differ from an ordinary run's"
if command -v gnuplot >/dev/null 2>&1; then
  ln -s ../outside.txt linked3/.plot-energy.svg.tmp
  "$mcf" plot linked3 >/dev/null 2>plot3.err; rc=$?
  [ "$rc" -eq 0 ] && cmp -s outside.txt outside.orig && [ ! -L linked3/plot-energy.svg ] \
    && ok "a link planted as a plot's temporary: target untouched" \
    || bad "a link planted as a plot's temporary: exit $rc: $(cat plot3.err)"
fi
finish
