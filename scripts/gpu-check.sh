#!/usr/bin/env bash
# The one command for the GPU machine: configure + build build/gpu (sm_90, tests,
# benchmarks and examples), run every test with GPUPRIM_REQUIRE_GPU=1 (nothing is
# skipped silently), then the benchmarks. Keeps going after a failure; exits non-zero
# at the end if anything failed.
#
# Usage: scripts/gpu-check.sh [--tests] [--bench [FILTER]] [--sanitize] [--demo]
#   no flag: --tests --bench
#   --tests        ctest (all but the demo), log in $OUT/ctest.log
#   --bench [F]    every build/gpu/benchmarks/bench_* binary (F: --benchmark_filter regex),
#                  JSON to $OUT/<name>.json, console output on stdout
#   --sanitize     compute-sanitizer memcheck, racecheck, synccheck over each GPU test
#                  executable and example, with GPUPRIM_TEST_SMALL=1
#   --demo         the demo (sum/min/max of 2^28 items vs CUB), log in $OUT/demo.log
# Environment: OUT (results folder; default build/gpu/results), BUILD_DIR (build/gpu),
#   JOBS (16), CUDA_ARCHS (90), BENCH_FILTER, BENCH_ARGS (extra benchmark flags),
#   SANITIZE_TOOLS ("memcheck racecheck synccheck"), SANITIZE_TIMEOUT (seconds, 300).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1

build_dir="${BUILD_DIR:-build/gpu}"
jobs="${JOBS:-16}"
archs="${CUDA_ARCHS:-90}"
out="${OUT:-$build_dir/results}"
bench_filter="${BENCH_FILTER:-}"

do_tests=0 do_bench=0 do_sanitize=0 do_demo=0
if [ $# -eq 0 ]; then do_tests=1; do_bench=1; fi
while [ $# -gt 0 ]; do
  case "$1" in
    --tests) do_tests=1 ;;
    --bench)
      do_bench=1
      if [ $# -gt 1 ] && [ "${2#--}" = "$2" ]; then bench_filter="$2"; shift; fi ;;
    --sanitize) do_sanitize=1 ;;
    --demo) do_demo=1 ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "gpu-check: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
  shift
done

if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi
mkdir -p "$out"
summary=()
failed=0
note() { summary+=("$1"); }
fail() { summary+=("$1"); failed=1; }

# --- configure + build (nothing else can run without it) ---------------------------
generator=()
if command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi
start=$SECONDS
if cmake -S . -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
     -DCMAKE_CUDA_ARCHITECTURES="$archs" -DGPUPRIM_BUILD_TESTS=ON \
     -DGPUPRIM_BUILD_BENCHMARKS=ON -DGPUPRIM_BUILD_EXAMPLES=ON &&
   cmake --build "$build_dir" -j "$jobs"; then
  note "build:    ok ($((SECONDS - start)) s, sm_$archs, $build_dir)"
else
  echo "gpu-check: configure/build failed" >&2
  exit 1
fi
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null |
  sed 's/^/gpu:      /' || true

# --- tests --------------------------------------------------------------------------
if [ $do_tests -eq 1 ]; then
  start=$SECONDS
  GPUPRIM_REQUIRE_GPU=1 ctest --test-dir "$build_dir" --output-on-failure -LE '^demo$' 2>&1 |
    tee "$out/ctest.log"
  rc=${PIPESTATUS[0]}
  line=$(grep -E 'tests passed' "$out/ctest.log" | tail -n1)
  skipped=$(grep -cE '\*\*\*Skipped|Not Run' "$out/ctest.log")
  if [ "$rc" -ne 0 ]; then fail "tests:    FAILED (ctest rc $rc): ${line:-?}, see $out/ctest.log"
  elif [ "$skipped" -ne 0 ]; then fail "tests:    FAILED: $skipped tests skipped on the GPU machine, see $out/ctest.log"
  else note "tests:    ok: ${line:-?} ($((SECONDS - start)) s)"; fi
fi

# --- demo ---------------------------------------------------------------------------
if [ $do_demo -eq 1 ]; then
  "$build_dir/examples/demo" 2>&1 | tee "$out/demo.log"
  rc=${PIPESTATUS[0]}
  if [ "$rc" -eq 0 ]; then note "demo:     ok, see $out/demo.log"
  else fail "demo:     FAILED (rc $rc), see $out/demo.log"; fi
fi

# --- benchmarks ---------------------------------------------------------------------
if [ $do_bench -eq 1 ]; then
  ran=0 bad=0
  for exe in "$build_dir"/benchmarks/bench_*; do
    if [ ! -f "$exe" ] || [ ! -x "$exe" ]; then continue; fi
    name=$(basename "$exe")
    args=(--benchmark_out="$out/$name.json" --benchmark_out_format=json)
    [ -n "$bench_filter" ] && args+=(--benchmark_filter="$bench_filter")
    echo "=== $name ${bench_filter:+(filter $bench_filter)}"
    # shellcheck disable=SC2086  # BENCH_ARGS is a list of flags
    if "$exe" "${args[@]}" ${BENCH_ARGS:-}; then ran=$((ran + 1))
    else bad=$((bad + 1)); echo "gpu-check: $name failed" >&2; fi
  done
  if [ $((ran + bad)) -eq 0 ]; then fail "bench:    FAILED: no $build_dir/benchmarks/bench_* binaries"
  elif [ $bad -eq 0 ]; then note "bench:    ok: $ran binaries, JSON in $out/"
  else fail "bench:    FAILED: $bad of $((ran + bad)) binaries"; fi
fi

# --- compute-sanitizer --------------------------------------------------------------
if [ $do_sanitize -eq 1 ]; then
  sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  if [ ! -x "$sanitizer" ]; then
    fail "sanitize: FAILED: compute-sanitizer not found"
    do_sanitize=0
  fi
fi
if [ $do_sanitize -eq 1 ]; then
  export GPUPRIM_TEST_SMALL=1
  mapfile -t exes < <(
    { find "$build_dir"/tests/warp "$build_dir"/tests/block "$build_dir"/tests/device \
        -path '*/CMakeFiles' -prune -o -type f -executable -print 2>/dev/null
      for e in reduce_basic block_reduce_kernel; do echo "$build_dir/examples/$e"; done
    } | sort)
  checked=0 bad=0
  : > "$out/sanitize.log"
  for tool in ${SANITIZE_TOOLS:-memcheck racecheck synccheck}; do
    for exe in "${exes[@]}"; do
      [ -x "$exe" ] || continue
      echo "=== compute-sanitizer --tool $tool $(basename "$exe")" | tee -a "$out/sanitize.log"
      timeout "${SANITIZE_TIMEOUT:-300}" "$sanitizer" --tool "$tool" --error-exitcode 99 \
        "$exe" >>"$out/sanitize.log" 2>&1
      rc=$?
      checked=$((checked + 1))
      if [ $rc -ne 0 ]; then
        bad=$((bad + 1))
        echo "    FAILED (rc $rc)" | tee -a "$out/sanitize.log"
      fi
    done
  done
  if [ $bad -eq 0 ]; then note "sanitize: ok: $checked runs, log $out/sanitize.log"
  else fail "sanitize: FAILED: $bad of $checked runs, see $out/sanitize.log"; fi
fi

echo
echo "=== gpu-check summary"
printf '%s\n' "${summary[@]}"
exit $failed
