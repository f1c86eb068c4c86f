#!/usr/bin/env bash
# A corrupt, truncated or foreign checkpoint, or one of another configuration, is refused
# with a clear message and nothing is run.
# usage: test_checkpoint_refused.sh MCF SCRATCH
set -u
mcf=$1
dir=$2/checkpoint_refused
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail=0; passed=0
ok()  { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; fail=$((fail + 1)); }

cat > small.ini <<'INI'
[run]
model = ising
seed = 5
output = base
[schedule]
thermalize = 100
sweeps = 640
temperatures = 2.0, 3.0
[model]
L = 8
INI
"$mcf" run small.ini --no-progress 2>/dev/null || { echo "base run failed"; exit 1; }
size=$(stat -c %s base/checkpoint)

expect_refusal() { # name, expected text
  local name=$1 want=$2
  if "$mcf" resume "$name" --no-progress 2>"$name.err"; then
    bad "$name: resume accepted a bad checkpoint"
  elif grep -q -- "$want" "$name.err" && grep -q "$name/checkpoint" "$name.err"; then
    ok "$name refused: $(head -c 200 "$name.err")"
  else
    bad "$name: message lacks '$want':"; cat "$name.err"
  fi
  [ -f "$name/results.tsv" ] && bad "$name: a results.tsv was written" || true
}

cp -r base flipped && rm -f flipped/results.tsv
printf '\xff' | dd of=flipped/checkpoint bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
expect_refusal flipped "checksum mismatch"

cp -r base truncated && rm -f truncated/results.tsv
truncate -s $((size - 100)) truncated/checkpoint
expect_refusal truncated "checksum mismatch"

cp -r base tiny && rm -f tiny/results.tsv
head -c 20 base/checkpoint > tiny/checkpoint
expect_refusal tiny "not an mcf checkpoint"

cp -r base foreign && rm -f foreign/results.tsv
head -c 5000 /dev/urandom > foreign/checkpoint
expect_refusal foreign "not an mcf checkpoint"

cp -r base edited && rm -f edited/results.tsv
sed -i 's/^seed = 5/seed = 6/' edited/config.ini
expect_refusal edited "another configuration"

# a fresh run into a folder that holds a run is refused, --force overwrites
if "$mcf" run small.ini --no-progress 2>again.err; then bad "run over an existing run accepted"
else grep -q "already holds a run" again.err && ok "existing output refused" || bad "message: $(cat again.err)"; fi
"$mcf" run small.ini --force --no-progress 2>/dev/null && ok "--force overwrites" || bad "--force failed"

echo "$passed passed, $fail failed"
[ "$fail" -eq 0 ]
