#!/usr/bin/env bash
# ncu durations of small_prof's kernels, then full profiles of the 16384 bucket kernels.
set -u
cd "$(dirname "$0")"
out=${OUT:-/tmp/out}
r=$out/prof.txt
nvidia-smi --query-gpu=name --format=csv,noheader > $r
ncu --clock-control none --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second ./small_prof > /tmp/d.txt 2>&1
grep -E "empty_kernel|rank_sort|bucket_sort|gpu__time_duration|per_second" /tmp/d.txt | cut -c1-140 >> $r
# launches: per case 3 x (empty, sort) -> sort indices 1,3,5 (u1024), 7,9,11 (u16384), 13,15,17 (and3)
for w in uni:9 and3:15; do
  name=${w%%:*}; id=${w##*:}
  ncu --clock-control none --set full --import-source yes --launch-skip $id --launch-count 1 -o /tmp/$name ./small_prof >> $r 2>&1
  ncu -i /tmp/$name.ncu-rep --page source --csv --print-source sass > $out/${name}_sass.csv 2>&1
  ncu -i /tmp/$name.ncu-rep --page details --csv > $out/${name}_details.csv 2>&1
done
