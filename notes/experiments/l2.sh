#!/usr/bin/env bash
# L2 throughput breakdown of the 2^26 u32/u32 pair pass (kernel 7) and keys pass (kernel 17) of pairprof.
cd "$(dirname "$0")"
out=${OUT:-/tmp/out}
for w in pairs:7 keys:17; do
  name=${w%%:*}; id=${w##*:}
  ncu --clock-control none --launch-skip $id --launch-count 1 \
    --metrics breakdown:lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_requests_op_read.sum,lts__t_requests_op_write.sum,lts__t_sectors_op_atom.sum,lts__t_sectors_op_red.sum,lts__t_requests.sum,lts__t_sectors.sum,lts__t_tag_requests.sum,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum \
    --section MemoryWorkloadAnalysis_Tables --print-details all ./pairprof > $out/l2_$name.txt 2>&1
done
