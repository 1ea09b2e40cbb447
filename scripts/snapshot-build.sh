#!/usr/bin/env bash
# Builds a copy of the working tree under build/snap (sources in build/snap/src, build in
# build/snap/build) on this machine, to carry to the GPU machine with the device tool when
# compiling there is slow. Paths match there because the repository root is /work/main on both.
# Usage: scripts/snapshot-build.sh   (then carry build/snap; see scripts/gpu-check.sh --prebuilt)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
snap=build/snap
mkdir -p "$snap/lib"
rsync -a --delete --exclude /build/ --exclude /.git/ ./ "$snap/src/"
cmake -S "$snap/src" -B "$snap/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DGPUPRIM_BUILD_TESTS=ON -DGPUPRIM_BUILD_BENCHMARKS=ON -DGPUPRIM_BUILD_EXAMPLES=ON >/dev/null
cmake --build "$snap/build" -j "$(nproc)" -- -k 0 || echo "snapshot-build: some targets failed to build" >&2
# Google Benchmark is a shared library on Debian; take it along.
cp -L /usr/lib/x86_64-linux-gnu/libbenchmark.so.1* "$snap/lib/" 2>/dev/null || true
find "$snap/build" -name '*.o' -delete
du -sh "$snap"
