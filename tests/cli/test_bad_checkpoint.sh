#!/usr/bin/env bash
# A checkpoint is checked, not trusted (issue 17, items 1 and 6): a file whose checksum is
# right but one of whose counts, indices or sizes is out of range for the configuration is
# refused with a message naming the file and the field, and so is anything but a regular
# file of plausible size in the checkpoint's place (/dev/zero, a FIFO, a folder, a huge
# file), quickly and without memory to spare.  Every refusal exits non-zero and leaves the
# run folder's checkpoint, results.tsv and config.ini as they were.  The crafted files are
# real checkpoints of short runs with one field changed and the checksum recomputed; before
# the checks, one of them (the measurement counter ahead of the sweep position) made the
# resumed run write past the end of its jackknife bins.
# usage: test_bad_checkpoint.sh MCF SCRATCH
set -u
mcf=$1
dir=$2/bad_checkpoint
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail=0; passed=0
ok()  { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; fail=$((fail + 1)); }

# measure_every = 3 and 16 bins for the 216 measurements: bins of 13 and 14 measurements,
# so that the check of the bin counts meets uneven bins in a valid checkpoint
cat > plain.ini <<'INI'
[run]
model = ising
seed = 17
output = base
[schedule]
thermalize = 100
sweeps = 650
measure_every = 3
bins = 16
temperatures = 2.0, 3.0
[model]
L = 6
INI
sed -e 's/^output = base/output = pt/' \
  -e "s/^temperatures = .*/temperatures = 2.0, 2.3, 2.6, 3.0\\nexchange_every = 10/" \
  plain.ini > pt.ini
for ini in plain pt; do
  "$mcf" run $ini.ini --no-progress >/dev/null 2>$ini.err \
    || { cat $ini.err; echo "$ini run failed"; exit 1; }
done
# the run's files: contents, or for what is not a small regular file what it is (reading
# a FIFO or /dev/zero would not end)
files_sum() {
  local f
  for f in "$1"/checkpoint "$1"/results.tsv "$1"/config.ini; do
    if [ -f "$f" ] && [ ! -L "$f" ] && [ "$(stat -c %s "$f")" -lt 100000000 ]; then
      sha256sum "$f"
    else
      stat -c '%n %F %s %Y' "$f" 2>&1
    fi
  done
}
files_sum base > base.sum
files_sum pt > pt.sum

# craft.py SRC DST FIELD=VALUE...: SRC with fields changed and the checksum recomputed.
# Fields: header.<name>; chain<k>.<name> (rng.<name>, blocking<o>.count, blocking<o>.n<l>,
# bin_count<b>, record_size, model_size); pt.<name><k> (slot, attempts, accepted,
# trip_state, trip_start) and pt.every.  VALUE: a number, or +N / -N relative to it.
cat > craft.py <<'PY'
import struct, sys
src, dst, edits = sys.argv[1], sys.argv[2], sys.argv[3:]
data = bytearray(open(src, 'rb').read())
u32 = lambda at: struct.unpack_from('<I', data, at)[0]
u64 = lambda at: struct.unpack_from('<Q', data, at)[0]
n_obs, chains, nvars, bins = u32(20), u64(40), u64(48), u64(56)
header = {'position': (32, 'Q'), 'chains': (40, 'Q'), 'nvars': (48, 'Q'), 'bins': (56, 'Q'),
          'n_obs': (20, 'I')}
BLOCK = 1600                      # sizeof(mcf_blocking): shift, count, n[48], 3 x 48 doubles, 48 u8
records, at = [], 64
for k in range(chains):
    records.append(at)
    at += 8 + u64(at)
pt = at                           # "MCF-PT01", when there
def chain_field(k, name):
    r = records[k] + 8            # the record, behind its size
    fixed = {'index': 0, 'rng.key0': 8, 'rng.stream': 16, 'rng.counter': 24, 'accepted': 56,
             'proposed': 64, 'block_accepted': 72, 'block_proposed': 80, 'measurements': 88}
    if name in fixed:
        return r + fixed[name], 'I' if name == 'rng.key0' else 'Q'
    if name == 'rng.used':
        return r + 48, 'I'
    if name == 'record_size':
        return records[k], 'Q'
    if name.startswith('blocking'):
        o, part = name[8:].split('.')
        b = r + 96 + int(o) * BLOCK
        return (b + 8, 'Q') if part == 'count' else (b + 16 + 8 * int(part[1:]), 'Q')
    bin_count = r + 96 + n_obs * BLOCK + bins * nvars * 8
    if name.startswith('bin_count'):
        return bin_count + 8 * int(name[9:]), 'd'
    if name == 'model_size':      # ising has no curves: the size follows the bin counts
        at = bin_count + 8 * bins
        assert u64(at) == records[k] + 8 + u64(records[k]) - at - 8, 'not ising records'
        return at, 'Q'
    raise SystemExit('unknown field ' + name)
def pt_field(name):
    assert data[pt:pt + 8] == b'MCF-PT01', 'no tempering record'
    n_temps, groups, n = u64(pt + 16), u64(pt + 24), u64(pt + 32)
    np_, slots = groups * (n_temps - 1), pt + 40
    rng = slots + 8 * n
    counts = rng + 48
    base = {'slot': (slots, 8), 'attempts': (counts, 8), 'accepted': (counts + 8 * np_, 8),
            'trip_start': (counts + 16 * np_ + 16 * n, 8),
            'trip_state': (counts + 16 * np_ + 24 * n, 1)}
    if name == 'every':
        return pt + 8, 'Q'
    if name == 'rng.used':
        return rng + 40, 'I'
    for key, (at, size) in base.items():
        if name.startswith(key) and name[len(key):].isdigit():
            return at + size * int(name[len(key):]), 'Q' if size == 8 else 'B'
    raise SystemExit('unknown field ' + name)
for e in edits:
    field, value = e.split('=')
    scope, name = field.split('.', 1)
    if scope == 'header':
        at, fmt = header[name]
    elif scope == 'pt':
        at, fmt = pt_field(name)
    else:
        at, fmt = chain_field(int(scope[5:]), name)
    old = struct.unpack_from('<' + fmt, data, at)[0]
    new = old + float(value) if value[0] in '+-' else float(value)
    struct.pack_into('<' + fmt, data, at, new if fmt == 'd' else int(new))
h = 1469598103934665603           # MCF_FNV_OFFSET (core/engine/fileio.h), FNV-1a 64
for b in data[:-8]:
    h = ((h ^ b) * 1099511628211) & 0xffffffffffffffff
struct.pack_into('<Q', data, len(data) - 8, h)
open(dst, 'wb').write(data)
PY

# case NAME RUN EXPECTED-TEXT FIELD=VALUE...: RUN (base or pt) copied to NAME/RUN (config.ini
# names its folder) with the fields changed; the resume must be refused, naming the file
# and the field, within 60 s, and change none of the run's files.
case_() {
  local name=$1 run=$2 want=$3; shift 3
  mkdir -p "$name" && cp -r "$run" "$name/" || { bad "$name: copy"; return; }
  python3 craft.py "$run/checkpoint" "$name/$run/checkpoint" "$@" || { bad "$name: craft"; return; }
  expect_refusal "$name" "$run" "$want"
}
expect_refusal() { # NAME RUN EXPECTED-TEXT: resume of NAME/RUN refused
  local name=$1 run=$2 want=$3 before rc
  before=$(files_sum "$name/$run")
  (cd "$name" && timeout 60 "$mcf" resume "$run" --no-progress >/dev/null 2>../"$name.err")
  rc=$?
  if [ "$rc" -eq 0 ]; then
    bad "$name: resume accepted the checkpoint"
  elif [ "$rc" -ge 124 ]; then
    bad "$name: resume hung or crashed (exit $rc)"; tail -3 "$name.err"
  elif grep -qF -- "$run/checkpoint" "$name.err" && grep -qF -- "$want" "$name.err"; then
    ok "$name: exit $rc, $(grep -m1 error "$name.err" | cut -c1-230)"
  else
    bad "$name: exit $rc, the message lacks the file or '$want':"; cat "$name.err"
  fi
  [ "$(files_sum "$name/$run")" = "$before" ] || bad "$name: the run's files changed"
}

# controls: the checksum recomputed over unchanged bytes is accepted, as is a genuine
# checkpoint at the last sweep
mkdir -p same && cp -r base same/ && python3 craft.py base/checkpoint same/base/checkpoint \
  && cmp -s base/checkpoint same/base/checkpoint && (cd same && "$mcf" resume base \
  --no-progress >/dev/null 2>../same.err) && ok "an unchanged checkpoint resumes" \
  || { bad "the unchanged checkpoint was not resumed"; cat same.err; }
mkdir -p same_pt && cp -r pt same_pt/ && (cd same_pt && "$mcf" resume pt --no-progress \
  >/dev/null 2>../same_pt.err) && ok "an unchanged tempering checkpoint resumes" \
  || { bad "the unchanged tempering checkpoint was not resumed"; cat same_pt.err; }

# the header
case_ h_position base "position = 751" header.position=751
case_ h_chains base "chains = 3" header.chains=3
case_ h_bins base "bins = 4096" header.bins=4096
case_ h_nobs base "n_obs = 5" header.n_obs=5
# the measurement counter against the sweep position: 216 measurements at sweep 100 (the
# resumed run would put measurements 216 .. 431 into bins 16 .. 31 of 16), and 2^40 at
# the last sweep
case_ c_meas_ahead base "measurements = 216" header.position=100
case_ c_meas_huge base "measurements = 1099511627776" chain1.measurements=1099511627776
case_ c_meas_behind base "measurements = 215" chain0.measurements=-1
# the rest of a chain's record
case_ c_index base "index = 0" chain1.index=0
case_ c_rng_used base "rng: used = 9" chain0.rng.used=9
case_ c_rng_stream base "rng: key" chain0.rng.stream=1
case_ c_rng_key base "rng: key" chain1.rng.key0=+1
case_ c_accepted base "accepted = " chain0.accepted=1000000000
case_ c_block base "block_proposed = 1 " chain0.block_proposed=1
case_ c_blocking_count base "blocking[2]: count = 217" chain0.blocking2.count=+1
case_ c_blocking_level base "blocking[0]" chain1.blocking0.n3=+1
case_ c_bin_count base "bin_count[5] = 14" chain0.bin_count5=+1
case_ c_record_size base "record size = " chain0.record_size=1000000000000
case_ c_model_size base "model state size = " chain1.model_size=+8
# the tempering record
case_ t_slot_range pt "impossible slot" pt.slot0=9
case_ t_slot_twice pt "impossible slot" pt.slot1=0 pt.slot0=0
case_ t_accepted pt "accepted = " pt.accepted2=100000
case_ t_attempts pt "attempts = 1000" pt.attempts0=1000 pt.accepted0=0
case_ t_trip_state pt "trip_state = 7" pt.trip_state1=7
case_ t_trip_start pt "trip_start = 751" pt.trip_start0=751
case_ t_every pt "exchange_every = 11" pt.every=11
case_ t_rng pt "rng: used = 5" pt.rng.used=5

# not a regular file, or larger than this configuration's checkpoint can be
special() { # NAME EXPECTED-TEXT COMMAND...: the checkpoint of a copy of base replaced
  local name=$1 want=$2; shift 2
  mkdir -p "$name" && cp -r base "$name/" && rm "$name/base/checkpoint" \
    && "$@" "$name/base/checkpoint" || { bad "$name: setup"; return; }
  expect_refusal "$name" base "$want"
}
special s_dev_zero "not a regular file but a device" ln -s /dev/zero
special s_fifo "not a regular file but a FIFO" mkfifo
special s_folder "not a regular file but a folder" mkdir
mem_kb=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
special s_huge "more than a checkpoint of this configuration can hold" \
  truncate -s $((2 * mem_kb * 1024 + (1 << 20)))
rm -f s_huge/base/checkpoint  # a sparse file, but a large one

[ "$(files_sum base)" = "$(cat base.sum)" ] && [ "$(files_sum pt)" = "$(cat pt.sum)" ] \
  && ok "the original runs' files are unchanged" || bad "the original runs' files changed"
echo "$passed passed, $fail failed"
[ "$fail" -eq 0 ]
