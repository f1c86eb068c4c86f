#!/bin/bash
# test_old_checkpoint.sh MCF DATA TMP SWEEP WHAT: a run stopped by an older mcf resumes under
# this one and ends with the results of an uninterrupted run.
#
# DATA holds config.ini, checkpoint and kind of a run that an older mcf stopped by SIGINT
# at sweep SWEEP; WHAT names it in the messages ("a 0.5.0 checkpoint of ising (ABI 1)").
# The fixtures (tests/abi/README.md says how they were made; never regenerate one with a
# newer mcf):
#   data/ising-0.5.0     mcf 0.5.0's ising (ABI 1, before SDK 1.0's model table), stopped
#                        at sweep 137000 of 200100;
#   data/holstein-0.5.0  mcf 0.5.0's holstein (ABI 1) with the ed evaluator, stopped at
#                        sweep 900 of 2100 (its record holds the adapted step and the
#                        measurement stream).
# A fixture's config.ini names the release in its first line, which that release hashed
# into the checkpoint.  The resume must be accepted (the configuration is the same), load
# the model's record written by the ABI-1 model into today's, and finish with a
# results.tsv (and curve files, if any) equal, byte for byte but for the release line, to a
# fresh run of the same configuration.
set -u
mcf=$1 data=$2 tmp=$3 sweep=$4 what=$5
fail=0
bad() { echo "FAIL: $*"; fail=1; }
rm -rf "$tmp" && mkdir -p "$tmp/stopped" || exit 1
cp "$data/config.ini" "$data/checkpoint" "$data/kind" "$tmp/stopped/" || exit 1
if ! "$mcf" resume "$tmp/stopped" >"$tmp/resume.out" 2>&1; then
  bad "mcf resume of $what failed:"; cat "$tmp/resume.out"
fi
grep -q "resumed from the checkpoint at sweep $sweep\b" "$tmp/resume.out" ||
  bad "the resume did not start from the checkpoint's sweep $sweep"
"$mcf" run "$data/config.ini" --set "run.output=$tmp/fresh" --force >"$tmp/fresh.out" 2>&1 ||
  { bad "the fresh run failed:"; cat "$tmp/fresh.out"; }
if [ -f "$tmp/stopped/results.tsv" ] && [ -f "$tmp/fresh/results.tsv" ]; then
  for f in $(cd "$tmp/fresh" && ls *.tsv); do
    if ! diff <(grep -v '^# mcf ' "$tmp/stopped/$f") \
              <(grep -v '^# mcf ' "$tmp/fresh/$f") >"$tmp/diff"; then
      bad "the resumed run's $f differs from the uninterrupted run's:"; head "$tmp/diff"
    fi
  done
else
  bad "a results.tsv is missing"
fi
[ $fail = 0 ] && echo "PASS: $what resumed to the results of an uninterrupted run"
exit $fail
