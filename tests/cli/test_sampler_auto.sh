#!/usr/bin/env bash
# [run] sampler = auto, the default (core/engine/sampler_auto.c): hybrid Monte Carlo where
# the model has coordinates, its fermion evaluator the pseudofermion form and the lattice
# hmc_min_sites (512) sites or more; else the local sweep; one log line says which and why.
#  (a) too small: double exchange on the 4^3 torus with kpm (64 sites): local, "64 sites <
#      hmc_min_sites 512";
#  (b) an evaluator without the op: the ABI-1 ed of mcf 0.6 (tests/abi/ed-0.6.0, first on
#      the plugin path) on 3^3: local, naming the evaluator; a model without coordinates
#      (ising, 32^2 = 1024 sites): local, naming the model;
#  (c) large with the op: 8^3 with kpm on the CPU (the model fixes the spectral bounds):
#      hmc, the reason naming the sites, the model and the evaluator; config.ini as used
#      names it (sampler = hmc); the same configuration again gives the same sampler and
#      byte-identical results; `mcf resume` of (a)'s and (c)'s folders keeps each sampler.
# usage: test_sampler_auto.sh MCF SCRATCH [ABI-1 ED FOLDER]
set -u
case $1 in */* | .*) mcf=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") ;; *) mcf=$1 ;; esac
old_ed=${3:-}
[ -n "$old_ed" ] && [ -d "$old_ed" ] && old_ed=$(cd "$old_ed" && pwd)
dir=$2/sampler_auto
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail=0; passed=0
ok()  { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; fail=$((fail + 1)); }

de() { # L evaluator
cat <<INI
[run]
model = double-exchange
evaluator = $2
hmc_steps = 2
hmc_dt = 0.05
[schedule]
thermalize = 0
sweeps = 2
bins = 2
temperatures = 0.12
[model]
lattice = cubic
L = $1
mu = 0
INI
[ "$2" = kpm ] && printf '[evaluator]\nmoments = 32\nvectors = 2\n'
true
}
# the log's sampler line of a run: name config [env...]
run() {
    local name=$1 ini=$2; shift 2
    if ! env "$@" "$mcf" run "$ini" --no-plots > "$name.txt" 2>&1; then
        bad "$name: the run failed: $(grep -m1 error "$name.txt")"
        return 1
    fi
    grep -m1 -o 'sampler: .*' "${ini%.ini}.out/log"
}
expect() { # label line pattern
    if echo "$2" | grep -q -- "$3"; then ok "$1: $2"; else bad "$1: '$2' (expected $3)"; fi
}

de 4 kpm > small.ini
expect "(a) 4^3 kpm" "$(run small small.ini)" "sampler: local (auto: 64 sites < hmc_min_sites 512)"

if [ -n "$old_ed" ] && [ -f "$old_ed/mcf-ed.so" ]; then
    de 3 ed > noop.ini
    expect "(b) ABI-1 ed" "$(run noop noop.ini MCF_PLUGIN_PATH="$old_ed:${MCF_PLUGIN_PATH:-}")" \
        "sampler: local (auto: evaluator ed has no pseudofermion form)"
else
    echo "skipped: (b) ABI-1 ed (no folder given)"
fi
printf '[run]\nmodel = ising\n[schedule]\nthermalize = 0\nsweeps = 2\nbins = 2\n' > ising.ini
printf 'temperatures = 2.5\n[model]\nL = 32\n' >> ising.ini
expect "(b) ising" "$(run ising ising.ini)" \
    "sampler: local (auto: model ising has no coordinates for a global sampler)"

de 8 kpm > large.ini
want="sampler: hmc (auto: 512 sites >= hmc_min_sites 512; double-exchange has coordinates;"
expect "(c) 8^3 kpm" "$(run large large.ini)" "$want kpm has pseudofermions)"
if grep -qx 'sampler = hmc' large.out/config.ini; then
    ok "(c) config.ini as used names the sampler: sampler = hmc"
else
    bad "(c) config.ini as used: $(grep sampler large.out/config.ini)"
fi
if grep -q 'hybrid Monte Carlo:' large.out/log; then
    ok "(c) the run's log has hybrid Monte Carlo's line"
else
    bad "(c) no trajectories in the log"
fi
cp large.ini again.ini
line=$(run again again.ini)
if [ "$line" = "$(grep -m1 -o 'sampler: .*' large.out/log)" ] &&
    cmp -s large.out/results.tsv again.out/results.tsv &&
    cmp -s large.out/config.ini again.out/config.ini; then
    ok "(c) the same configuration: the same sampler, byte-identical results.tsv and config.ini"
else
    bad "(c) the same configuration gave '$line' or other results"
fi

# resume: the checkpoint's configuration hash must match, and each keeps its sampler
for name in small large; do
    cp "$name.out/results.tsv" "$name.first.tsv"
    if "$mcf" resume "$name.out" --no-plots > "$name.resume.txt" 2>&1 &&
        cmp -s "$name.out/results.tsv" "$name.first.tsv"; then
        ok "(c) mcf resume $name.out: $(grep 'sampler: ' "$name.out/log" | tail -1 |
              grep -o 'sampler: [a-z]*' | head -1)"
    else
        bad "(c) mcf resume $name.out: $(grep -m1 error "$name.resume.txt")"
    fi
done
n=$(grep -c 'sampler: hmc\|sampler = hmc' large.out/log)
m=$(grep -c 'sampler: local' large.out/log)
if [ "$m" -eq 0 ]; then
    ok "(c) the resumed 8^3 run stayed hmc"
else
    bad "(c) the resumed 8^3 run: $m local lines ($n hmc)"
fi

echo "$passed passed, $fail failed"
[ $fail -eq 0 ]
