#!/usr/bin/env bash
# Session 51: ncu of the unrolled rank sort (1024 u32 keys) inside the benchmark: durations of 20
# launches, then one full profile (details, SASS with stall samples, raw metrics) into $OUT.
# Quoting tidied after its run (shellcheck); the commands are the same.
set -u
cd /work/main || exit 1
tar -C build -xJf build/snap_bench.tar.xz
export LD_LIBRARY_PATH=$PWD/build/snap/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
B=build/snap/build/benchmarks/bench_radix_sort
NCU=/usr/local/cuda/bin/ncu
F=(--benchmark_filter=radix_sort_keys/u32/uniform/gpuprim/1024/ --benchmark_min_time=0.02 --benchmark_min_warmup_time=0)
"$NCU" --clock-control none -k regex:radix_rank_sort --launch-skip 100 --launch-count 20 \
  --metrics gpu__time_duration.sum,sm__cycles_elapsed.max,smsp__cycles_active.max "$B" "${F[@]}" > "$OUT/dur.txt" 2>&1
"$NCU" --clock-control none --set full --import-source no -k regex:radix_rank_sort --launch-skip 100 --launch-count 1 \
  -o "$OUT/rank" "$B" "${F[@]}" > "$OUT/full.log" 2>&1
"$NCU" -i "$OUT/rank.ncu-rep" --page details --csv > "$OUT/details.csv" 2>&1
"$NCU" -i "$OUT/rank.ncu-rep" --page source --csv --print-source sass > "$OUT/sass.csv" 2>&1
"$NCU" -i "$OUT/rank.ncu-rep" --page raw --csv > "$OUT/raw.csv" 2>&1
ls -la "$OUT"
