#!/usr/bin/env bash
# The one command for the GPU machine: configure + build build/gpu (sm_90, tests,
# benchmarks and examples), run every test with GPUPRIM_REQUIRE_GPU=1 (nothing is
# skipped silently), then the benchmarks. Keeps going after a failure; exits non-zero
# at the end if anything failed.
#
# Usage: scripts/gpu-check.sh [--tests] [--bench [FILTER]] [--sanitize] [--fuzz] [--demo]
#   no flag: --tests --bench
#   --tests        ctest (all but the demo and the sanitizer runs), log in $OUT/ctest.log
#   --bench [F]    every build/gpu/benchmarks/bench_* binary (F: --benchmark_filter regex),
#                  JSON to $OUT/<name>.json, console output on stdout
#   --sanitize     the ctest label `sanitize`: every GPU test under compute-sanitizer memcheck,
#                  racecheck, synccheck and initcheck with GPUPRIM_TEST_SMALL=1 (configures with
#                  GPUPRIM_SANITIZER_TESTS=ON), log in $OUT/sanitize.log; each run that did
#                  not pass there runs once more alone (log $OUT/sanitize_rerun.log)
#   --fuzz         the long differential fuzz run against CUB: GPUPRIM_FUZZ_CONFIGS (10000)
#                  random configs, log in $OUT/fuzz.log
#   --demo         the demo (sum/min/max of 2^28 items vs CUB), log in $OUT/demo.log
# Environment: OUT (results folder; default build/gpu/results), BUILD_DIR (build/gpu),
#   JOBS (16), CUDA_ARCHS (90), BENCH_FILTER, BENCH_ARGS (extra benchmark flags, such as
#   --benchmark_repetitions=3), BENCH_ORDERED (1: cases in registration order, not interleaved),
#   SANITIZE_FILTER (a regex over the sanitizer runs' names: a subset), SANITIZE_BUDGET,
#   SANITIZE_RERUN_SECONDS, SANITIZE_JOBS (scripts/sanitize-batch.sh), GPUPRIM_FUZZ_CONFIGS,
#   GPUPRIM_FUZZ_SEED (see tests/fuzz/fuzz_main.cu).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1

build_dir="${BUILD_DIR:-build/gpu}"
jobs="${JOBS:-16}"
archs="${CUDA_ARCHS:-90}"
out="${OUT:-$build_dir/results}"
bench_filter="${BENCH_FILTER:-}"

do_tests=0 do_bench=0 do_sanitize=0 do_fuzz=0 do_demo=0
if [ $# -eq 0 ]; then do_tests=1; do_bench=1; fi
while [ $# -gt 0 ]; do
  case "$1" in
    --tests) do_tests=1 ;;
    --bench)
      do_bench=1
      if [ $# -gt 1 ] && [ "${2#--}" = "$2" ]; then bench_filter="$2"; shift; fi ;;
    --sanitize) do_sanitize=1 ;;
    --fuzz) do_fuzz=1 ;;
    --demo) do_demo=1 ;;
    -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
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
     -DGPUPRIM_BUILD_BENCHMARKS=ON -DGPUPRIM_BUILD_EXAMPLES=ON \
     -DGPUPRIM_SANITIZER_TESTS="$([ $do_sanitize -eq 1 ] && echo ON || echo OFF)" &&
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
  GPUPRIM_REQUIRE_GPU=1 ctest --test-dir "$build_dir" --output-on-failure -LE '^(demo|sanitize)$' 2>&1 |
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
    # Each case first runs untimed for 0.05 s, and the repetitions of all cases run in random
    # order (see scripts/gpu-snapshot-run.sh; BENCH_ORDERED=1 keeps registration order).
    args=(--benchmark_out="$out/$name.json" --benchmark_out_format=json --benchmark_min_warmup_time=0.05)
    [ "${BENCH_ORDERED:-0}" = 1 ] || args+=(--benchmark_enable_random_interleaving=true)
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
  # Bounded sizes come from the tests themselves (GPUPRIM_TEST_SMALL=1, set by the ctest entries).
  # One batch, then every run that did not pass in it once more alone (scripts/sanitize-batch.sh).
  start=$SECONDS
  source scripts/sanitize-batch.sh
  if ! sanitize_batch "$build_dir" "$out/sanitize.log" "$out/sanitize_rerun.log"; then
    fail "sanitize: FAILED: no sanitizer run matches SANITIZE_FILTER"
  else
    line=$(grep -E 'tests passed' "$out/sanitize.log" | tail -n1)
    took="$((SECONDS - start)) s"
    if [ "$sanitize_batch_rc" -eq 0 ]; then note "sanitize: ok: ${line:-?} ($took), log $out/sanitize.log"
    elif [ ${#sanitize_alone_failed[@]} -eq 0 ] && [ ${#sanitize_alone_passed[@]} -eq 0 ]; then
      # ctest failed although the log shows every run as passed (nothing was rerun): no result to
      # report as ok.
      fail "sanitize: FAILED: batch rc $sanitize_batch_rc with every run passed in the log (${line:-?}), see $out/sanitize.log"
    elif [ ${#sanitize_alone_failed[@]} -eq 0 ]; then
      note "sanitize: ok only alone: batch rc $sanitize_batch_rc (${line:-stopped}); passed alone: ${sanitize_alone_passed[*]} ($took), see $out/sanitize.log"
    else
      fail "sanitize: FAILED (batch rc $sanitize_batch_rc): ${line:-?}; failed alone too: ${sanitize_alone_failed[*]}, see $out/sanitize_rerun.log"
    fi
  fi
fi

# --- long fuzz run --------------------------------------------------------------------
if [ $do_fuzz -eq 1 ]; then
  start=$SECONDS
  GPUPRIM_REQUIRE_GPU=1 GPUPRIM_FUZZ_CONFIGS="${GPUPRIM_FUZZ_CONFIGS:-10000}" \
    "$build_dir/tests/fuzz/fuzz_cub" > "$out/fuzz.log" 2>&1
  rc=$?
  if [ "$rc" -eq 0 ]; then note "fuzz:     ok ($((SECONDS - start)) s): $(grep -m1 -i 'seed' "$out/fuzz.log")"
  else fail "fuzz:     FAILED (rc $rc), see $out/fuzz.log"; fi
fi

echo
echo "=== gpu-check summary"
printf '%s\n' "${summary[@]}"
exit $failed
