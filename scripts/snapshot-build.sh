#!/usr/bin/env bash
# Builds a copy of the working tree under build/snap (sources in build/snap/src, build in
# build/snap/build) on this machine, to carry to the GPU machine with the device tool when
# compiling there is slow. Paths match there because the repository root is /work/main on both.
# The object files are moved aside to build/snap-objs (and back before the next build, so that it
# is incremental) and the executables stripped, to keep the carried tree small.
# Usage: scripts/snapshot-build.sh   (then carry build/snap_tests.tar.xz or build/snap_bench.tar.xz;
# see scripts/gpu-snapshot-run.sh)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
snap=build/snap
objs=build/snap-objs
mkdir -p "$snap/lib" "$objs"
# Checksums, not times: a source changed since the last build gets a new mtime there.
rsync -rlpc --delete --exclude /build/ --exclude /.git/ ./ "$snap/src/"
[ -d "$snap/build" ] && rsync -a "$objs/" "$snap/build/"
cmake -S "$snap/src" -B "$snap/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DGPUPRIM_BUILD_TESTS=ON -DGPUPRIM_BUILD_BENCHMARKS=ON -DGPUPRIM_BUILD_EXAMPLES=ON -DGPUPRIM_BUILD_DOCS=OFF \
  -DGPUPRIM_SANITIZER_TESTS=ON >/dev/null
cmake --build "$snap/build" -j "$(nproc)" -- -k 0 || echo "snapshot-build: some targets failed to build" >&2
# Google Benchmark is a shared library on Debian; take it along.
cp -L /usr/lib/x86_64-linux-gnu/libbenchmark.so.1* "$snap/lib/" 2>/dev/null || true
rsync -a --prune-empty-dirs --include='*/' --include='*.o' --exclude='*' "$snap/build/" "$objs/"
find "$snap/build" -name '*.o' -delete
find "$snap/build" -type f -executable -size +100k | while read -r f; do
  if file "$f" | grep -q ELF; then strip --strip-unneeded "$f"; fi
done
# Compressed files to carry (the device tool carries at most 64 MiB, the working tree included):
# the tests without the benchmark binaries, and the benchmarks with Google Benchmark's library
# (since session 38 the whole snapshot, 62 MB, no longer fits beside the tree).
tar -C build -cf - --exclude='snap/build/benchmarks/bench_*' snap | xz -T0 -9e > build/snap_tests.tar.xz
tar -C build -cf - snap/lib snap/build/benchmarks | xz -T0 -9e > build/snap_bench.tar.xz
rm -f build/snap.tar.xz
du -sh "$snap" build/snap_tests.tar.xz build/snap_bench.tar.xz
