#!/usr/bin/env bash
# Runs, on the GPU machine, a build made here by scripts/snapshot-build.sh and carried along
# (device tool: carry ["build/snap_tests_1.tar.xz"], ["build/snap_tests_2.tar.xz"] or
# ["build/snap_bench.tar.xz"], one a call: each with the tree stays under 64 MiB): the whole ctest
# suite with GPUPRIM_REQUIRE_GPU=1, then compute-sanitizer (memcheck, racecheck, synccheck,
# initcheck) over the GPU tests with bounded sizes, then the benchmarks with JSON output; `fuzz`
# runs the long differential fuzz test (GPUPRIM_FUZZ_CONFIGS, default 10000). Everything lands in
# $OUT (or ./gpu-out). `hostsan` runs, on the GPU, the tests built by `scripts/snapshot-build.sh
# hostsan` (host code under ASan + UBSan) that arrived: carry ["build/hsan_sort.tar.xz"] or
# ["build/hsan_rest.tar.xz"].
# Usage: scripts/gpu-snapshot-run.sh [tests|sanitize|fuzz|bench|all|hostsan|unpack] [bench names...]
# (`unpack`: only unpack the carried builds, and write gpu.txt, for scripts that run them.)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
root=$PWD
out=${OUT:-$root/gpu-out}
mkdir -p "$out"
what=${1:-all}
shift || true
# The build arrives as build/snap_tests_1.tar.xz and build/snap_tests_2.tar.xz (tests, sanitize,
# fuzz: part 2) or build/snap_bench.tar.xz (bench), from scripts/snapshot-build.sh. Older
# build/snap.tar.xz (the whole snapshot) and build/snap_tests.tar.xz (all tests) still unpack.
for archive in build/snap.tar.xz build/snap_tests.tar.xz build/snap_tests_1.tar.xz build/snap_tests_2.tar.xz \
  build/snap_bench.tar.xz build/hsan_sort.tar.xz build/hsan_rest.tar.xz; do
  if [ -f "$archive" ]; then tar -C build -xJf "$archive"; fi
done
# The tests travel in two parts (scripts/snapshot-build.sh): part 2 holds the executables of the
# tests in big_tests, part 1 the rest. Where only one part's executables are here (a warm machine
# keeps those of earlier calls), tests and sanitize run only its tests (ctest -R or -E; sanitizer
# runs are named sanitize_<tool>_<test>).
big_tests='sort_device_types|fuzz_cub'
part_args=()
have_big=0 have_rest=0
[[ -x build/snap/build/tests/sort/sort_device_types && -x build/snap/build/tests/fuzz/fuzz_cub ]] && have_big=1
[[ -x build/snap/build/tests/sort/sort_device ]] && have_rest=1
if (( have_big && !have_rest )); then
  part_args=(-R "^(sanitize_[a-z]+_)?($big_tests)\$")
elif (( have_rest && !have_big )); then
  part_args=(-E "^(sanitize_[a-z]+_)?($big_tests)\$")
fi
export LD_LIBRARY_PATH=$root/build/snap/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
# The consumer tests re-run the cmake, ninja and g++ paths recorded here.
for t in cmake ninja; do [ -x /usr/bin/$t ] || ln -sf "$(command -v $t)" /usr/bin/$t; done
[ -x /usr/bin/g++ ] || ln -sf /opt/gcc/bin/g++ /usr/bin/g++
[ -x /usr/bin/c++ ] || ln -sf /opt/gcc/bin/g++ /usr/bin/c++
if [[ $what == hostsan ]]; then
  cd build/hsan/build || exit 1
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/gpu.txt" 2>&1
  # The CUDA driver maps memory where ASan's shadow gap would be; leaks of the driver's own
  # allocations at exit are not ours. Any report stops the test (halt_on_error) and fails it.
  export ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=0:halt_on_error=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  # The tests whose executables arrived (the consumer tests build their own, without ASan).
  present=$(ctest --show-only=json-v1 | python3 -c '
import json, os, sys
tests = json.load(sys.stdin)["tests"]
print("|".join("^%s$" % t["name"] for t in tests
               if t.get("command") and os.path.exists(t["command"][0]) and "consumer" not in t["name"]))')
  # An empty -R would match every test: with no executable here, stop.
  if [[ -z $present ]]; then
    echo "hostsan: no test executable arrived (carry build/hsan_sort.tar.xz or build/hsan_rest.tar.xz)" >&2
    exit 1
  fi
  GPUPRIM_REQUIRE_GPU=1 ctest --output-on-failure -R "$present" -j 4 --timeout 900 > "$out/hostsan.log" 2>&1
  echo "hostsan rc=$?"
  grep -E "tests passed|Failed|ERROR: AddressSanitizer|runtime error" "$out/hostsan.log" | tail -20
  exit 0
fi
cd build/snap/build || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/gpu.txt" 2>&1

if [[ $what == tests || $what == all ]]; then
  GPUPRIM_REQUIRE_GPU=1 ctest --output-on-failure -LE "demo|sanitize" "${part_args[@]}" -j 4 > "$out/ctest.log" 2>&1
  tail -5 "$out/ctest.log"
fi

if [[ $what == sanitize || $what == all ]]; then
  # Every GPU test under memcheck, racecheck, synccheck and initcheck (ctest label sanitize, built
  # with GPUPRIM_SANITIZER_TESTS=ON; small sizes), as one batch into sanitizer.log; every run that
  # did not pass there runs once more alone, into sanitizer_rerun.log. SANITIZE_FILTER,
  # SANITIZE_BUDGET, SANITIZE_RERUN_SECONDS: scripts/sanitize-batch.sh.
  source "$root/scripts/sanitize-batch.sh"
  sanitize_batch . "$out/sanitizer.log" "$out/sanitizer_rerun.log" "${part_args[@]}" || exit 1
  echo "sanitize rc=$sanitize_batch_rc (124: stopped by SANITIZE_BUDGET)"
  grep -E "tests passed|Failed|\*\*\*" "$out/sanitizer.log" | tail -20
fi

if [[ $what == fuzz || $what == all ]]; then
  SECONDS=0
  GPUPRIM_REQUIRE_GPU=1 GPUPRIM_FUZZ_CONFIGS="${GPUPRIM_FUZZ_CONFIGS:-10000}" ./tests/fuzz/fuzz_cub > "$out/fuzz.log" 2>&1
  echo "fuzz rc=$? (${SECONDS} s)"
  tail -3 "$out/fuzz.log"
fi

if [[ $what == bench || $what == all ]]; then
  benches=("$@")
  [[ ${#benches[@]} -gt 0 ]] || benches=(reduce scan radix_sort)
  for b in "${benches[@]}"; do
    # Each case first runs untimed for 0.05 s: the first rows of a run were noisier than the rest
    # (H200, 2026-11-23: u32 keys at 2^10 with a 5% cv over the repetitions, 2^11 on 0.7%).
    # The repetitions of all cases run in random order (Google Benchmark's random interleaving):
    # the launch floor drifts over seconds (H200, 2026-11-29/30), and in registration
    # order every case's gpuprim row ran just before its CUB rows, and the process's first seconds
    # fell on the first case's gpuprim row alone. Interleaving spreads the drift over both
    # libraries' rows; it does not remove it. BENCH_ORDERED=1 keeps registration
    # order; BENCH_FILTER passes a --benchmark_filter regex (names end in /manual_time).
    order_args=(--benchmark_enable_random_interleaving=true)
    [[ ${BENCH_ORDERED:-0} == 1 ]] && order_args=()
    filter_args=()
    [[ -n ${BENCH_FILTER:-} ]] && filter_args=(--benchmark_filter="$BENCH_FILTER")
    "./benchmarks/bench_$b" --benchmark_min_time=0.1 --benchmark_min_warmup_time=0.05 --benchmark_repetitions=3 \
      "${order_args[@]}" "${filter_args[@]}" --benchmark_report_aggregates_only=true \
      --benchmark_out_format=json --benchmark_out="$out/bench_$b.json" > "$out/bench_$b.txt" 2>&1
    echo "bench_$b rc=$?"
  done
fi
