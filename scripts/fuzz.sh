#!/usr/bin/env bash
# Fuzzes the compiler for a given time: scripts/fuzz.sh [seconds] [flags...]
# (default 300 s). Builds the libFuzzer target kiln-fuzz-opt with clang in
# build-fuzz/ (-DKILN_ENABLE_FUZZING=ON), extracts a seed corpus from the
# lit tests and the examples (one input per `// -----` case, comment lines
# such as RUN and CHECK dropped), and runs the fuzzer. The corpus it grows
# stays in build-fuzz/fuzz/corpus for the next run; crashes, timeouts and
# out-of-memory inputs go to build-fuzz/fuzz/findings, and the run goes on
# after them. Extra flags go to the fuzzer (--stages=gpu, -seed=1, ...).
# Ends with executions, coverage, corpus size and the findings.
set -euo pipefail
seconds=${1:-300}
shift $(($# > 0 ? 1 : 0))
KILN_BUILD_DIR=${KILN_BUILD_DIR:-$(cd "$(dirname "$0")/.." && pwd)/build-fuzz}
source "$(dirname "$0")/lib/setup.sh"
kiln_install_apt_packages clang-22 libclang-rt-22-dev

kiln_log "Configuring and building kiln-fuzz-opt in $KILN_BUILD_DIR"
cmake -S "$KILN_ROOT" -B "$KILN_BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
  -DKILN_ENABLE_WERROR=ON -DKILN_ENABLE_FUZZING=ON > /dev/null
cmake --build "$KILN_BUILD_DIR" --target kiln-fuzz-opt ${KILN_JOBS:+-j "$KILN_JOBS"}

work=$KILN_BUILD_DIR/fuzz
mkdir -p "$work/corpus" "$work/findings"
kiln_log "Seed corpus from the lit tests and examples"
# Seeds are named by their content, so repeated cases count once. The
# dictionary holds the words of the seeds (op names, types, keywords), which
# byte-level mutation rarely spells on its own.
max_len=$(python3 - "$KILN_ROOT" "$work" <<'EOF'
import hashlib, pathlib, re, shutil, sys
root, work = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
seeds = work / "seeds"
shutil.rmtree(seeds, ignore_errors=True)
seeds.mkdir()
words, longest = set(), 0
for path in sorted([*root.glob("test/**/*.mlir"), *root.glob("docs/examples/*.mlir")]):
    for case in re.split(r"^// -----.*$", path.read_text(), flags=re.M):
        text = "".join(line for line in case.splitlines(keepends=True)
                       if not line.lstrip().startswith("//")).strip()
        if not text:
            continue
        data = (text + "\n").encode()
        (seeds / hashlib.sha1(data).hexdigest()).write_bytes(data)
        words.update(re.findall(r"[!#]?[A-Za-z_][\w.]+<?", text))
        longest = max(longest, len(data))
# Hostile seeds (issue 31): nesting at and past Kiln's limit of 1000 levels,
# tiles at and past the size limits (2^20 elements; 1,024 a GPU thread).
def nested_ifs(depth):
    body = "".join(f"%c{i} = arith.cmpi sgt, %n, %k : i32\nscf.if %c{i} {{\n"
                   for i in range(depth))
    return ("func.func @k(%p: !tile.ptr<i32>, %n: i32) {\n"
            "%k = arith.constant 0 : i32\n" + body +
            "tile.store %p, %n : !tile.ptr<i32>, i32\n" + "}\n" * depth +
            "return\n}\n")
def tile(size):
    return ("func.func @k(%p: !tile.ptr<f32>) {\n"
            f"%r = tile.range 0 to {size} : tensor<{size}xi32>\n"
            f"%ps = tile.splat %p : !tile.ptr<f32> -> tensor<{size}x!tile.ptr<f32>>\n"
            f"%a = tile.addptr %ps, %r : tensor<{size}x!tile.ptr<f32>>, tensor<{size}xi32>\n"
            f"%v = tile.load %a : tensor<{size}x!tile.ptr<f32>> -> tensor<{size}xf32>\n"
            f"tile.store %a, %v : tensor<{size}x!tile.ptr<f32>>, tensor<{size}xf32>\n"
            "return\n}\n")
hostile = [nested_ifs(30), "[" * 1001 + "]" * 1001 + "\n",
           "func.func @f() attributes {a = " + "[" * 999 + "]" * 999 +
           "} {\n  return\n}\n", tile(131072), tile(2097152)]
for text in hostile:
    data = text.encode()
    (seeds / hashlib.sha1(data).hexdigest()).write_bytes(data)
    longest = max(longest, len(data))
(work / "mlir.dict").write_text(
    "".join('"%s"\n' % w.replace("\\", "\\\\").replace('"', '\\"')
            for w in sorted(words)))
print(max(4096, longest))
EOF
)
echo "$(ls "$work/seeds" | wc -l) seeds, $(wc -l < "$work/mlir.dict") dictionary words, inputs up to $max_len bytes"

kiln_log "Fuzzing for $seconds s"
# The sanitizer settings of scripts/sanitize.sh, for the same reasons: MLIR
# and LLVM are not instrumented.
export ASAN_OPTIONS=allow_user_poisoning=0:detect_container_overflow=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
log=$work/last-run.log
status=0
"$KILN_BUILD_DIR/bin/kiln-fuzz-opt" "$work/corpus" "$work/seeds" \
  -dict="$work/mlir.dict" -max_len="$max_len" -timeout=60 -rss_limit_mb=4096 \
  -max_total_time="$seconds" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 \
  -ignore_ooms=1 -artifact_prefix="$work/findings/" "$@" 2>&1 | tee "$log" \
  || status=$?

kiln_log "Summary"
grep -aE '^#[0-9]+: cov:' "$log" | tail -1 || echo "no statistics (see $log)"
echo "corpus: $(ls "$work/corpus" | wc -l) inputs in $work/corpus"
findings=$(find "$work/findings" -type f | wc -l)
echo "findings: $findings in $work/findings"
find "$work/findings" -type f -printf '  %f\n'
exit $status
