#!/bin/bash
# one_test.sh — on the lent GPU machine (after dev.sh's build): the tests matching $TESTS
# (a ctest -R expression) one at a time, their times and output tails printed.
(cd build && ctest -R "$TESTS" --output-on-failure > $OUT/one-test.log 2>&1)
echo "ctest -R '$TESTS': rc $?"; grep -E "Test +#|tests passed" $OUT/one-test.log
