#!/usr/bin/env bash
# Session 52 (prepared; run in session 53, results at the end of this header): what state of the machine goes with the slow first rows of
# bench_radix_sort? In three of four full runs on the H200 (f5798e1 twice, 5c7d2e8) CUB's u32 rows
# up to 4096-4864 keys, the first ~10 cases of the run, took 1-4 us longer than the same rows in
# 3a0f6b8's run and than the later 1024-key rows of other inputs (CUB u32 1024 keys: 15.26, 17.33,
# 15.28 us against 13.92; and3/bits20 at 1024: 14.5-15.1), gpuprim's likewise, despite the 1 s
# spin warm-up (docs/radix_sort.md, "GPU time alone"). This logs, every 200 ms, the GPU's
# performance state, SM and memory clocks, power, temperature and PCIe link (nvidia-smi), and the
# host's mean CPU clock (/proc/cpuinfo), while it runs the benchmark's first rows with each case's
# start time, twice: (A) as the full runs do (1 s spin first), (B) right after A in a new process
# with a 20 s spin. If the slow rows follow a clock, a P-state or the PCIe link, the log shows it;
# if B's first rows are as slow as A's, it is the process, not the time since the GPU was idle.
# Run on the GPU machine, carrying build/snap_bench.tar.xz (scripts/snapshot-build.sh):
#   bash notes/experiments/first_rows_state.sh     (about 150 s; 6 files under $OUT)
# Session 53 (H200, 5c7d2e8's build; notes/data/h200_first_rows_state_5c7d2e8/): the GPU stayed in
# P0 at 1980 MHz SM, 3201 MHz memory, PCIe gen 5 x16, the host read 2100 MHz throughout; still A's
# 1024-key rows were slower than B's (u32 keys: gpuprim 7.39 us against 6.70, CUB 14.5 against
# 14.1; AND-of-2: 6.61 against 6.22, CUB 14.5 against 14.0). No clock, P-state or link goes with
# the slow phase; a longer spin helps the first rows, but a whole run with a 20 s spin still had
# two 2^10 rows below 2x, later in the run (docs/radix_sort.md).
set -u
cd "$(dirname "$0")/../.." || exit 1
root=$PWD
out=${OUT:-/tmp/first_rows_state}
mkdir -p "$out"
OUT=$out scripts/gpu-snapshot-run.sh unpack
export LD_LIBRARY_PATH=$root/build/snap/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
bench=$root/build/snap/build/benchmarks/bench_radix_sort
[[ -x $bench ]] || { echo "no $bench (carry build/snap_bench.tar.xz)" >&2; exit 1; }

nvidia-smi --query-gpu=timestamp,pstate,clocks.sm,clocks.mem,power.draw,temperature.gpu,pcie.link.gen.current,pcie.link.width.current,utilization.gpu \
  --format=csv -lms 200 > "$out/smi.csv" 2>&1 &
smi=$!
(
  while :; do
    printf '%s %s\n' "$(date +%s.%N)" "$(awk '/MHz/ {s += $4; c++} END {printf "%.0f", s / c}' /proc/cpuinfo)"
    sleep 0.2
  done
) > "$out/cpu_mhz.txt" &
cpu=$!

# The first cases of a full run: u32 keys, uniform then AND-of-2, up to 16384 keys (24 cases).
filter='^radix_sort_keys/u32/(uniform|and2)/[a-z0-9]+/(1024|2048|4096|4864|8192|16384)/'
for run in A:1 B:20; do
  name=${run%%:*} spin=${run#*:}
  echo "run $name (spin $spin s) starts $(date +%s.%N)" >> "$out/cases.txt"
  GPUPRIM_BENCH_WARMUP_S=$spin "$bench" --benchmark_filter="$filter" --benchmark_min_time=0.1 \
    --benchmark_min_warmup_time=0.05 --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
    --benchmark_out="$out/bench_$name.json" --benchmark_out_format=json 2>&1 |
    while IFS= read -r line; do printf '%s %s\n' "$(date +%s.%N)" "$line"; done >> "$out/cases.txt"
done
kill "$smi" "$cpu" 2>/dev/null
wait 2>/dev/null
grep -E "median|run " "$out/cases.txt" | grep -E "run |/1024/" | cut -c1-140
