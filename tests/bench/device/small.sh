# small.sh — continue (or start) de-tc-small.out: L = 8, 12, 16 at T = 0.128-0.140
NAME=de-tc-small CONFIG=tests/bench/device/de-tc-small.ini bash tests/bench/device/tc.sh
