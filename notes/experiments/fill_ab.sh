#!/usr/bin/env bash
# Session 51: the 2^10 rows of bench_radix_sort, HEAD's build (snap_bench) against the build with
# the unrolled rank sort's fixed fill (bench_new.tar.xz: bench_radix_sort_new), alternated in one
# call: launch timing twice each way, queued once each way, JSON into $OUT. (The first run wrote a
# .txt beside each JSON, and the device tool brings back 8 files at most: old_launch_2 and
# old_queued_1 were lost. ~55 s a run: each case builds its rotation pool. Quoting tidied after
# the run.)
set -u
cd /work/main || exit 1
tar -C build -xJf build/snap_bench.tar.xz
tar -C build -xJf build/bench_new.tar.xz
export LD_LIBRARY_PATH=$PWD/build/snap/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
d=build/snap/build/benchmarks
run() {  # version timing tag
  local bin=$d/bench_radix_sort; [[ $1 == new ]] && bin=$d/bench_radix_sort_new
  GPUPRIM_BENCH_TIMING=$2 $bin --benchmark_filter='/1024/' --benchmark_min_time=0.1 \
    --benchmark_min_warmup_time=0.05 --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
    --benchmark_out_format=json --benchmark_out="$OUT/$1_$2_$3.json" >> "$OUT/runs.log" 2>&1
  echo "$1 $2 $3 rc=$?"
}
run old launch 1; run new launch 1; run new launch 2; run old launch 2
run old queued 1; run new queued 1
