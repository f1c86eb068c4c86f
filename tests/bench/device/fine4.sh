# fine4.sh — continue de-tc-fine4.out (docs/data/de-tc-fine4.tgz; finished in session 14)
SECS=240 NAME=de-tc-fine4 bash tests/bench/device/tc.sh
