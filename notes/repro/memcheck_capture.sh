#!/usr/bin/env bash
# Session 52: notes/repro/memcheck_capture.cu under a compute-sanitizer tool (TOOL, default
# memcheck; none: no tool), P processes at once (default 8) in rounds until SECONDS_BUDGET (default
# 300) is spent. Each round runs the four combinations (switch|plain) x (keys|pairs) P/4 times
# each (SWITCH_ONLY=1: only the two switch ones, P/2 times each), side by side, so the SWITCH graph and the plain one see the same load. Counts the runs of
# each combination that did not print PASS and copies up to 6 failing logs to $OUT.
# Carry build/exp/memcheck_capture (built here: see the .cu's header). EXE runs another program
# with the same interface (prints PASS; session 53: build/exp/conditional_minimal, whose arguments
# are given as COMBOS, the combinations separated by ';').
#   TOOL=memcheck P=8 SECONDS_BUDGET=300 bash notes/repro/memcheck_capture.sh
set -u
cd "$(dirname "$0")/../.." || exit 1
exe=${EXE:-$PWD/build/exp/memcheck_capture}
out=${OUT:-/tmp/memcheck_capture}
mkdir -p "$out"
tool=${TOOL:-memcheck} p=${P:-8} budget=${SECONDS_BUDGET:-300} replays=${REPLAYS:-8}
runner=()
[[ $tool != none ]] && runner=(compute-sanitizer --tool "$tool" --error-exitcode 99)
declare -A runs=() fails=()
copied=0 round=0
start=$SECONDS
combos=("switch keys" "switch pairs" "plain keys" "plain pairs")
[[ ${SWITCH_ONLY:-0} == 1 ]] && combos=("switch keys" "switch pairs")
[[ -n ${COMBOS:-} ]] && IFS=';' read -r -a combos <<< "$COMBOS"
while ((SECONDS - start < budget)); do
  round=$((round + 1))
  for ((j = 0; j < p; ++j)); do
    combo=${combos[j % ${#combos[@]}]}
    # shellcheck disable=SC2086  # combo is two words on purpose
    timeout 120 "${runner[@]}" "$exe" $combo "$replays" > "/tmp/mc_$round.$j.log" 2>&1 &
  done
  wait
  for ((j = 0; j < p; ++j)); do
    combo=${combos[j % ${#combos[@]}]}
    runs[$combo]=$((${runs[$combo]:-0} + 1))
    if ! grep -q "^PASS" "/tmp/mc_$round.$j.log"; then
      fails[$combo]=$((${fails[$combo]:-0} + 1))
      if ((copied < 6)); then
        copied=$((copied + 1))
        cp "/tmp/mc_$round.$j.log" "$out/${tool}_fail_${round}_$j.log"
      fi
    fi
  done
done
for combo in "${combos[@]}"; do
  echo "tool $tool, $combo: ${fails[$combo]:-0} of ${runs[$combo]:-0} runs did not pass ($p at once, $round rounds, $((SECONDS - start)) s)"
done
