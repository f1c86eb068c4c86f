#!/bin/bash
# test_old_checkpoint.sh MCF DATA TMP [MODEL SWEEP]: a run stopped by an older mcf resumes
# under this one and ends with the results of an uninterrupted run.
#
# MODEL and SWEEP (default: ising, 137000) name the model of DATA's run and the sweep its
# checkpoint was written at; data/double-exchange-0.5.0 is the double-exchange model's
# (ed, stopped at sweep 1000; README.md).
#
# DATA holds config.ini, checkpoint and kind of a run that mcf 0.5.0 (the ising model on
# ABI 1, before SDK 1.0's model table) stopped by SIGINT at sweep 137000 of 200100
# (tests/abi/README.md says how it was made; never regenerate it with a newer mcf).  Its
# config.ini names release 0.5.0 in its first line, which that release hashed into the
# checkpoint.  The resume must be accepted (the configuration is the same), load the
# model's record written by the ABI-1 ising into today's ising, and finish with a
# results.tsv equal, byte for byte but for the release line, to a fresh run of the same
# configuration.
set -u
mcf=$1 data=$2 tmp=$3 model=${4:-ising} sweep=${5:-137000}
fail=0
bad() { echo "FAIL: $*"; fail=1; }
rm -rf "$tmp" && mkdir -p "$tmp/stopped" || exit 1
cp "$data/config.ini" "$data/checkpoint" "$data/kind" "$tmp/stopped/" || exit 1
grep -qx "model = $model" "$data/config.ini" || bad "$data/config.ini is not a run of $model"
if ! "$mcf" resume "$tmp/stopped" >"$tmp/resume.out" 2>&1; then
  bad "mcf resume of the 0.5.0 checkpoint failed:"; cat "$tmp/resume.out"
fi
grep -q "resumed from the checkpoint at sweep $sweep " "$tmp/resume.out" ||
  bad "the resume did not start from the checkpoint's sweep $sweep"
"$mcf" run "$data/config.ini" --set "run.output=$tmp/fresh" --force >"$tmp/fresh.out" 2>&1 ||
  { bad "the fresh run failed:"; cat "$tmp/fresh.out"; }
# results.tsv, and every curve file the uninterrupted run wrote
for f in results.tsv $(cd "$tmp/fresh" 2>/dev/null && ls *.tsv | grep -vx results.tsv); do
  if [ -f "$tmp/stopped/$f" ] && [ -f "$tmp/fresh/$f" ]; then
    if ! diff <(grep -v '^# mcf ' "$tmp/stopped/$f") \
              <(grep -v '^# mcf ' "$tmp/fresh/$f") >"$tmp/diff"; then
      bad "the resumed run's $f differs from the uninterrupted run's:"; head "$tmp/diff"
    fi
  else
    bad "a $f is missing"
  fi
done
[ $fail = 0 ] && echo "PASS: a 0.5.0 checkpoint of $model (ABI 1) resumed to the results of an uninterrupted run"
exit $fail
