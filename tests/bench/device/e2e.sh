# e2e.sh — examples/de-tc.ini end to end on one GPU (two ranks sharing it, as the fine runs),
# as de-tc-e2e.out (docs/data/de-tc.tgz is the first campaign's): only the output line differs
sed 's/^output = de-tc.out$/output = de-tc-e2e.out/' examples/de-tc.ini > build/de-tc-e2e.ini
grep -q '^output = de-tc-e2e.out$' build/de-tc-e2e.ini || { echo "e2e: no output line"; exit 1; }
NAME=de-tc-e2e CONFIG=build/de-tc-e2e.ini bash tests/bench/device/tc.sh
