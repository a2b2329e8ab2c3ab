#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine, builds Kiln and runs the whole test
# suite: lit + FileCheck, the C++ unit tests and pytest (on
# KILN_TEST_WORKERS workers, 2 by default). Ends with one
# "N passed, M failed" line; exits non-zero if anything failed.
set -euo pipefail
source "$(dirname "$0")/lib/setup.sh"
kiln_setup

results=$KILN_BUILD_DIR/test-results
rm -rf "$results" && mkdir -p "$results"
status=0

kiln_log "lit suite"
"$KILN_LLVM_BIN/lit" -sv --xunit-xml-output="$results/lit.xml" \
  "$KILN_BUILD_DIR/test" || status=1

kiln_log "C++ unit tests"
ctest --test-dir "$KILN_BUILD_DIR" --output-on-failure \
  --output-junit "$results/ctest.xml" || status=1

# Two workers (pytest-xdist) by default: the tests are independent, and
# most of their time is one core compiling. The slowest are listed, to
# keep the whole CI run in its time.
kiln_log "pytest"
(cd "$KILN_ROOT" && KILN_BUILD_DIR="$KILN_BUILD_DIR" python3 -m pytest -q \
  -n "${KILN_TEST_WORKERS:-2}" --durations=15 \
  --junitxml="$results/pytest.xml" python/test test/robustness \
  --doctest-modules python/kiln) || status=1

# The Triton-idiom cases once more in Triton's own interpreter, the third
# reference: a process of their own, since Triton decides when imported
# whether its library is interpreted (python/test/triton_interpreter.py).
kiln_log "pytest: Triton's interpreter"
(cd "$KILN_ROOT" && TRITON_INTERPRET=1 KILN_BUILD_DIR="$KILN_BUILD_DIR" \
  python3 -m pytest -q -n "${KILN_TEST_WORKERS:-2}" \
  --junitxml="$results/pytest-triton-interpreter.xml" python/test \
  -k triton-interpreter) || status=1

kiln_log "Summary"
python3 "$KILN_ROOT/scripts/lib/summarize_junit.py" "$results"/*.xml || status=1
exit $status
