# fine5.sh — continue (or start) de-tc-fine5.out: L = 24, 32 at T = 0.1305-0.1350
NAME=de-tc-fine5 CONFIG=tests/bench/device/de-tc-fine5.ini bash tests/bench/device/tc.sh
