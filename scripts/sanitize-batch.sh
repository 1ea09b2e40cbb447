# shellcheck shell=bash
# Sourced by scripts/gpu-check.sh and scripts/gpu-snapshot-run.sh: runs the compute-sanitizer
# tests (ctest label sanitize, built with GPUPRIM_SANITIZER_TESTS=ON) as one batch, then once more
# alone each run that did not pass in it.
#
#   sanitize_batch <ctest build dir> <batch log> <rerun log> [ctest selection args...]
#
# Environment:
#   SANITIZE_FILTER          a regex (grep -E) over the run names, sanitize_<tool>_<test>: a subset
#   SANITIZE_BUDGET          seconds (default 0, none): stops the whole batch. Racecheck hangs now
#                            and then on multi-threaded programs, CUB's alone included
#                            (docs/reliability.md; tests/reliability/repro/racecheck_threads.cu), and a hung
#                            run would otherwise hold the batch until the device call's limit.
#   SANITIZE_RERUN_SECONDS   each run alone is stopped after this (default 180)
#   SANITIZE_JOBS            runs side by side in the batch (default 6)
# Sets sanitize_batch_rc (ctest's status; 124 when the budget stopped it), sanitize_alone_passed
# and sanitize_alone_failed (the runs that did not pass in the batch, by their result alone). A run
# that passes only alone is to be reported as such. Returns 2 when no run matches, else 0.
sanitize_batch() {
  local dir=$1 log=$2 rerun_log=$3
  shift 3
  # The runs are named once, selection and filter applied, and passed as one anchored -R: ctest
  # keeps only the last -R it is given, so a selection's and a filter's cannot both be passed.
  local listed
  listed=$(ctest --test-dir "$dir" -N -L '^sanitize$' "$@" | sed -n 's/^ *Test *#[0-9]*: *//p')
  [[ -n ${SANITIZE_FILTER:-} ]] && listed=$(grep -E -- "$SANITIZE_FILTER" <<<"$listed")
  # shellcheck disable=SC2034  # the caller reads these
  sanitize_alone_passed=() sanitize_alone_failed=() sanitize_batch_rc=0
  if [[ -z $listed ]]; then
    echo "sanitize: no sanitizer run here matches" >&2
    return 2
  fi
  # When timeout stops ctest, ctest exits, but a hung run's program under the tool can live on
  # and keep the GPU busy for what comes next (a rerun, the benchmarks): after each
  # ctest, whatever still runs one of this build's test executables is killed.
  local tests_dir
  tests_dir=$(cd "$dir" && pwd)/tests/
  local limit=()
  [[ ${SANITIZE_BUDGET:-0} -gt 0 ]] && limit=(timeout "$SANITIZE_BUDGET")
  GPUPRIM_REQUIRE_GPU=1 "${limit[@]}" ctest --test-dir "$dir" -R "^($(paste -sd'|' <<<"$listed"))\$" \
    -j "${SANITIZE_JOBS:-6}" --timeout 900 --output-on-failure > "$log" 2>&1
  # shellcheck disable=SC2034
  sanitize_batch_rc=$?
  sanitize_kill_left "$tests_dir"
  local t rc
  : > "$rerun_log"
  for t in $listed; do
    grep -qE "Test +#[0-9]+: $t \.+ +Passed" "$log" && continue
    GPUPRIM_REQUIRE_GPU=1 timeout "${SANITIZE_RERUN_SECONDS:-180}" ctest --test-dir "$dir" -R "^$t\$" \
      --output-on-failure >> "$rerun_log" 2>&1
    rc=$?
    sanitize_kill_left "$tests_dir"
    echo "not passed in the batch, run alone: $t rc=$rc$( ((rc == 124)) && echo ' (stopped)')"
    if ((rc == 0)); then sanitize_alone_passed+=("$t"); else sanitize_alone_failed+=("$t"); fi
  done
  return 0
}

# Kills, and names, the processes still running an executable under <tests dir>/.
sanitize_kill_left() {
  local pids
  pids=$(pgrep -d' ' -f "$1") || return 0
  echo "sanitize: killing test processes left running: $pids"
  pkill -9 -f "$1"
}
