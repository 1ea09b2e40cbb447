#!/usr/bin/env bash
# Session 51: sort_device's "a captured sort launches no skipped pass" (small mode: 300,007 u32
# keys and pairs, the passes after the first under a SWITCH node), P processes at once for R rounds,
# under a compute-sanitizer tool or none; counts the runs that did not pass and copies the first
# three failing logs to $OUT. Run on the GPU machine from the snapshot build (carry
# build/snap_tests_1.tar.xz; scripts/gpu-snapshot-run.sh unpacks it):
#   TOOL=memcheck P=8 R=4 bash notes/repro/memcheck_switch.sh     (TOOL=none: no tool)
# H200, CUDA 13.0, 5c7d2e8's build, seed 3960547687005316205: memcheck 7 of 66 runs failed in 10
# rounds of 6 or 8 (cudaErrorMisalignedAddress or cudaErrorIllegalAddress at the replay's
# cudaStreamSynchronize, no access reported by memcheck); without a tool 66 of 66 passed; the
# same seed alone passed under memcheck (docs/reliability.md). Those runs were inline commands of
# the device tool; this script was written after them. Session 52 ran it (TOOL=memcheck P=8 R=3,
# the same build): 2 of 24 runs failed. notes/repro/memcheck_capture.sh isolates the fault.
set -u
cd "$(dirname "$0")/../../build/snap/build" || exit 1
out=${OUT:-/tmp/memcheck_switch}
mkdir -p "$out"
tool=${TOOL:-memcheck} p=${P:-8} r=${R:-4}
seed=${GPUPRIM_TEST_SEED:-3960547687005316205}
case_name="device radix sort: a captured sort launches no skipped pass"
runner=()
[[ $tool != none ]] && runner=(compute-sanitizer --tool "$tool" --error-exitcode 99)
failed=0 total=0
for ((round = 1; round <= r; ++round)); do
  for ((j = 1; j <= p; ++j)); do
    GPUPRIM_REQUIRE_GPU=1 GPUPRIM_TEST_SMALL=1 GPUPRIM_TEST_SEED=$seed timeout 60 \
      "${runner[@]}" tests/sort/sort_device "$case_name" > "/tmp/switch_$round.$j.log" 2>&1 &
  done
  wait
  for ((j = 1; j <= p; ++j)); do
    total=$((total + 1))
    if ! grep -q "All tests passed" "/tmp/switch_$round.$j.log"; then
      failed=$((failed + 1))
      ((failed <= 3)) && cp "/tmp/switch_$round.$j.log" "$out/switch_fail_$round.$j.log"
    fi
  done
done
echo "tool $tool: $failed of $total runs did not pass ($p at once, $r rounds)"
