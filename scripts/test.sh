#!/usr/bin/env bash
# The README's test command: gets what the test build needs and is missing from the system's
# package manager (apt-get, Debian and Ubuntu; with sudo unless root), saying so in one line, then
# builds and runs the tests: cmake --workflow --preset test. Other systems: install the packages
# of docs/getting_started.md#dependencies yourself, then run the workflow. .ci/run calls this.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# Whether the host compiler finds <header> on its default include path.
has_header() { echo "#include <$1>" | "${CXX:-g++}" -E -x c++ - >/dev/null 2>&1; }

missing=()
command -v cmake >/dev/null 2>&1 || missing+=(cmake)
command -v ninja >/dev/null 2>&1 || missing+=(ninja-build)
if command -v "${CXX:-g++}" >/dev/null 2>&1; then
  has_header catch2/catch.hpp || has_header catch2/catch_test_macros.hpp || missing+=(catch2)
  has_header benchmark/benchmark.h || missing+=(libbenchmark-dev)
else
  missing+=(g++ catch2 libbenchmark-dev)
fi

if ((${#missing[@]} > 0)); then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "gpuprim: missing ${missing[*]} and no apt-get here: install them (docs/getting_started.md#dependencies)" >&2
    exit 1
  fi
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  echo "gpuprim: installing the missing test dependencies with apt-get: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # The package lists of a fresh machine may be empty: update them only when the install fails.
  $sudo apt-get install -y --no-install-recommends "${missing[@]}" </dev/null >/dev/null 2>&1 ||
    { $sudo apt-get update -qq </dev/null && $sudo apt-get install -y --no-install-recommends "${missing[@]}" </dev/null; }
fi

if ! command -v nvcc >/dev/null 2>&1 && [ -z "${CUDACXX:-}" ] && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi
exec cmake --workflow --preset test
