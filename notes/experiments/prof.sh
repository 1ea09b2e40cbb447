#!/usr/bin/env bash
# Profiles the second pass of the second u32/u32 pairs sort and of the second u32 keys sort.
set -u
cd "$(dirname "$0")"
out=${OUT:-/tmp/out}
r=$out/run.txt
nvidia-smi --query-gpu=name --format=csv,noheader > $r
./pairprof >> $r 2>&1
ncu --clock-control none --metrics gpu__time_duration.sum ./pairprof > /tmp/durations.txt 2>&1
grep -E "Context [0-9]+, Stream|gpu__time_duration" /tmp/durations.txt | cut -c1-160 >> $r
grep -E "Context [0-9]+, Stream" /tmp/durations.txt | nl -v0 > /tmp/kernels.txt
idx() { grep onesweep /tmp/kernels.txt | sed -n "$(( $1 + 1 ))p" | awk '{print $1}'; }
P=$(idx 5); K=$(idx 13)
echo "pairs pass kernel $P, keys pass kernel $K" | tee -a $r
for w in pairs:$P keys:$K; do
  name=${w%%:*}; id=${w##*:}
  ncu --clock-control none --set full --import-source yes --launch-skip $id --launch-count 1 -o /tmp/$name \
    ./pairprof >> $r 2>&1
  ncu -i /tmp/$name.ncu-rep --page source --csv --print-source sass > $out/${name}_sass.csv 2>&1
  ncu -i /tmp/$name.ncu-rep --page details --csv > $out/${name}_details.csv 2>&1
done
ncu -i /tmp/pairs.ncu-rep --page source --csv --print-source cuda,sass > $out/pairs_mixed.csv 2>&1 || true
ls -la $out
