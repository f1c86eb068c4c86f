#!/usr/bin/env bash
# `mcf kbe` checkpoints and `mcf resume` of a kbe run (core/program/kbe_resume.c,
# kbe_checkpoint.h; issue 45): a second-Born run of the two-band model (nk 8, 240 steps, a
# pulse and a ramp of U, nk_times) stopped and continued must end in the files of the run
# that was not stopped, byte for byte (kbe.tsv, nk.tsv, kbe-rows.bin, checkpoint):
#  (a) SIGINT: exit 130, "checkpoint written", then `mcf resume`;
#  (b) SIGKILL between two headers (checkpoint_every = 7): the rows and table rows written
#      after the last header are cut and written again;
#  (c) SIGTERM during a resumed run, resumed again (two stops);
#  (d) refusals that leave the folder as it was: a damaged header (its checksum), time rows
#      cut short; a finished run has nothing to do (its files unchanged);
#  (e) [output] checkpoint = no: no rows, the stop says it does not resume, resume refused;
#  (f) the size announced before the work is kbe-rows.bin's size at the end;
#  (g) order = 4: SIGINT, resume, the same files; the order in the checkpoint's tag; order 4
#      without a corrector pass refused.
# MCF_TEST_SWEEPS (the sanitizer tree of .ci/run, where a step costs ~7x) shortens the runs
# to 150 steps (order 4: 80; nk_times 1, 4, 7: 11 is past the end, t = 7.5): the stops stay
# at the same rows (30 to 120), and what is asserted, files byte for byte, holds at any
# length; a run costs ~steps^3, 1/4 of it.
# usage: test_kbe_resume.sh MCF SCRATCH
set -u
case $1 in */* | .*) mcf=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") ;; *) mcf=$1 ;; esac
dir=$2/kadanoff-baym-resume
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail=0; passed=0
steps=240 steps4=120 nkt=11
[ -n "${MCF_TEST_SWEEPS:-}" ] && steps=150 steps4=80 nkt=7
ok()  { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; fail=$((fail + 1)); }
mk() { # NAME [EXTRA [output] LINES]
  cat > "$1.ini" <<INI
[run]
model = two-band
evaluator = kbe
output = $1.out
[kbe]
nk = 8
dt = 0.05
steps = $steps
selfenergy = 2b
U = 0.5
ramp = 2
[pulse]
amplitude = 0.2
frequency = 2
center = 3
width = 1
[output]
every = 1
nk_times = 1, 4, $nkt
checkpoint_every = 7
${2:-}
INI
}
rows() { grep -vc '^#' "$1/kbe.tsv" 2>/dev/null || echo 0; }
# PID DIR ROWS SIGNAL: the signal once DIR/kbe.tsv has ROWS lines (flushed at each header)
stop_at() {
  local i=0
  while kill -0 "$1" 2>/dev/null && [ "$(rows "$2")" -lt "$3" ] && [ $i -lt 1200 ]; do
    sleep 0.05; i=$((i + 1)); done
  kill -"$4" "$1" 2>/dev/null
  wait "$1"
}
same() { # DIR: its four files equal full.out's
  local f
  for f in kbe.tsv nk.tsv kbe-rows.bin checkpoint; do cmp -s full.out/$f "$1/$f" || return 1; done
}

mk full
"$mcf" kbe full.ini > full.txt 2>&1 || { bad "the uninterrupted run failed"; cat full.txt; }

# (a) SIGINT, then resume
mk int
"$mcf" kbe int.ini > int.txt 2>&1 & stop_at $! int.out 40 INT; rc=$?
if [ $rc = 130 ] && grep -q 'checkpoint written; continue with `mcf resume int.out`' int.txt &&
   [ "$(rows int.out)" -le "$steps" ]; then
  "$mcf" resume int.out > int2.txt 2>&1; r2=$?
  if [ $r2 = 0 ] && grep -q 'resuming int.out at step' int2.txt && same int.out; then
    ok "(a) SIGINT at step $(grep -o 'at step [0-9]*' int2.txt | cut -d' ' -f3), resumed: the same four files"
  else bad "(a) resume after SIGINT: exit $r2"; cat int2.txt; fi
else bad "(a) SIGINT: exit $rc"; cat int.txt; fi

# (b) SIGKILL
mk kill
"$mcf" kbe kill.ini > kill.txt 2>&1 & stop_at $! kill.out 60 KILL
"$mcf" resume kill.out > kill2.txt 2>&1; r2=$?
if [ $r2 = 0 ] && same kill.out; then
  ok "(b) SIGKILL, resumed from the last header ($(grep -o 'at step [0-9]*' kill2.txt)): the same files"
else bad "(b) resume after SIGKILL: exit $r2"; cat kill2.txt; fi

# (c) SIGTERM during a resumed run, and again
mk term
"$mcf" kbe term.ini > term.txt 2>&1 & stop_at $! term.out 30 TERM; r1=$?
cp -r term.out stopped.out # for (d)
"$mcf" resume term.out > term2.txt 2>&1 & stop_at $! term.out 120 TERM; r2=$?
"$mcf" resume term.out > term3.txt 2>&1; r3=$?
if [ $r1 = 130 ] && [ $r2 = 130 ] && [ $r3 = 0 ] && same term.out; then
  ok "(c) two SIGTERMs, two resumes: the same files"
else bad "(c) SIGTERM twice: exits $r1 $r2 $r3"; tail -2 term2.txt term3.txt; fi

# (d) refusals; a finished run
cp -r stopped.out damaged.out
printf '\x07' | dd of=damaged.out/checkpoint bs=1 seek=40 conv=notrunc 2>/dev/null
cp damaged.out/kbe.tsv damaged.tsv
"$mcf" resume damaged.out > d.txt 2>&1; rc=$?
if [ $rc != 0 ] && grep -q 'damaged (its checksum' d.txt && cmp -s damaged.tsv damaged.out/kbe.tsv
then ok "(d) a damaged header refused: $(grep -o 'damaged.out/checkpoint.*' d.txt)"
else bad "(d) damaged header: exit $rc"; cat d.txt; fi
cp -r stopped.out short.out && truncate -s 300000 short.out/kbe-rows.bin
cp short.out/kbe.tsv short.tsv
"$mcf" resume short.out > s.txt 2>&1; rc=$?
if [ $rc != 0 ] && grep -q 'cut short' s.txt && cmp -s short.tsv short.out/kbe.tsv
then ok "(d) time rows cut short refused: $(grep -o 'kbe-rows.bin: ends.*' s.txt)"
else bad "(d) short rows: exit $rc"; cat s.txt; fi
cp full.out/kbe.tsv before.tsv
"$mcf" resume full.out > f.txt 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "has finished ($steps steps); nothing to do" f.txt && same full.out &&
   cmp -s before.tsv full.out/kbe.tsv
then ok "(d) a finished run: nothing to do"
else bad "(d) finished run: exit $rc"; cat f.txt; fi

# (e) checkpoint = no
mk none "checkpoint = no"
"$mcf" kbe none.ini > none.txt 2>&1 & stop_at $! none.out 30 INT; rc=$?
"$mcf" resume none.out > n2.txt 2>&1; r2=$?
if [ $rc = 130 ] && grep -q 'checkpoint = no: it does not resume' none.txt &&
   [ ! -e none.out/kbe-rows.bin ] && [ $r2 != 0 ] && grep -q 'kept no checkpoint' n2.txt
then ok "(e) checkpoint = no: no rows, the stop and resume say so"
else bad "(e) checkpoint = no: exits $rc $r2"; cat none.txt n2.txt; fi

# (f) the announced size (printed to 3 digits: within 0.5 %)
gb=$(grep -o "time rows will take [0-9.e+-]* GB" full.txt | awk '{ print $5 }')
size=$(stat -c %s full.out/kbe-rows.bin)
if awk -v g="$gb" -v s="$size" 'BEGIN { d = g * 1e9 - s; if (d < 0) d = -d; exit !(s > 0 && d <= 0.005 * s) }'
then ok "(f) announced $gb GB, kbe-rows.bin has $size bytes"
else bad "(f) announced ${gb:-?} GB, kbe-rows.bin has $size bytes"; fi

# (g) order 4 (BDF and Gregory weights, plugins/kbe/kbe_bdf.c; 120 steps): SIGINT past the
#     start block (its 6 rows, solved again at step 6: row 6 carries them), resume: the
#     uninterrupted run's files; the checkpoint's tag records the order (its last byte '4'), and
#     a config.ini edited to another order is refused, the folder unchanged
mk4() {
  mk "$1"
  sed -i 's/^ramp = 2$/ramp = 2\norder = 4/; s/^steps = '"$steps"'$/steps = '"$steps4"'/' "$1.ini"
  sed -i 's/^nk_times = 1, 4, '"$nkt"'$/nk_times = 1, 4/' "$1.ini"
}
same4() { # DIR: its four files equal full4.out's
  local f
  for f in kbe.tsv nk.tsv kbe-rows.bin checkpoint; do cmp -s full4.out/$f "$1/$f" || return 1; done
}
mk4 full4
"$mcf" kbe full4.ini > full4.txt 2>&1 ||
  { bad "(g) the uninterrupted order-4 run failed"; cat full4.txt; }
mk4 int4
"$mcf" kbe int4.ini > int4.txt 2>&1 & stop_at $! int4.out 30 INT; rc=$?
cp -r int4.out edited4.out
sed -i 's/^order = 4$/order = 3/' edited4.out/config.ini
cp edited4.out/kbe.tsv edited4.tsv
"$mcf" resume edited4.out > e4.txt 2>&1; re=$?
"$mcf" resume int4.out > int4b.txt 2>&1; r2=$?
tag=$(od -An -c -j15 -N1 int4.out/checkpoint | tr -d ' ')
if [ $rc = 130 ] && [ $r2 = 0 ] && same4 int4.out && [ "$tag" = 4 ] &&
   grep -q '^# order 4: the rows at steps 1 .. 5 are the start.s provisional' full4.out/kbe.tsv; then
  ok "(g) order 4: SIGINT at step $(grep -o 'at step [0-9]*' int4b.txt | cut -d' ' -f3)," \
     "resumed: the same four files; kbe.tsv says which rows are provisional"
else bad "(g) order 4: exits $rc $r2, tag byte '$tag'"; cat int4.txt int4b.txt; fi
if [ $re != 0 ] && grep -q 'a run of order 4, where .* asks for order 3' e4.txt &&
   cmp -s edited4.tsv edited4.out/kbe.tsv
then ok "(g) order 4 resumed with order = 3 in config.ini: refused"
else bad "(g) another order: exit $re"; cat e4.txt; fi
mk c0; sed -i 's/^ramp = 2$/ramp = 2\norder = 4\ncorrectors = 0/' c0.ini
"$mcf" kbe c0.ini > c0.txt 2>&1; rc=$?
if [ $rc = 2 ] && grep -q 'c0.ini:[0-9]*: \[kbe\] order = 4 with selfenergy = 2b needs correctors >= 1' c0.txt &&
   [ ! -e c0.out/kbe.tsv ]
then ok "(g) order 4 with correctors = 0 refused: $(tail -1 c0.txt | cut -c1-100)"
else bad "(g) order 4, correctors 0: exit $rc"; cat c0.txt; fi

echo "$passed passed, $fail failed"
[ $fail = 0 ]
