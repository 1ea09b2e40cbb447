#!/usr/bin/env bash
# Builds a copy of the working tree under build/snap (sources in build/snap/src, build in
# build/snap/build) on this machine, to carry to the GPU machine with the device tool when
# compiling there is slow. Paths match there because the repository root is /work/main on both.
# The object files are moved aside to build/snap-objs (and back before the next build, so that it
# is incremental) and the executables stripped, to keep the carried tree small.
# Usage: scripts/snapshot-build.sh   (then carry build/snap_tests_1.tar.xz, build/snap_tests_2.tar.xz
# or build/snap_bench.tar.xz, one a call; see scripts/gpu-snapshot-run.sh)
#        scripts/snapshot-build.sh hostsan   (the tests only, their host code under ASan + UBSan as
# the host-sanitize preset builds them, in build/hsan; ~600 MB, so they travel in two parts of
# under 64 MiB: carry build/hsan_sort.tar.xz (the sort-device and reliability tests) in one call
# and build/hsan_rest.tar.xz in another, each to `scripts/gpu-snapshot-run.sh hostsan`)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [[ ${1:-} == hostsan ]]; then
  snap=build/hsan
  mkdir -p "$snap"
  rsync -rlpc --delete --exclude /build/ --exclude /.git/ ./ "$snap/src/"
  cmake -S "$snap/src" -B "$snap/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DGPUPRIM_BUILD_TESTS=ON -DGPUPRIM_BUILD_BENCHMARKS=OFF -DGPUPRIM_BUILD_EXAMPLES=OFF -DGPUPRIM_BUILD_DOCS=OFF \
    -DGPUPRIM_INSTALL=OFF -DGPUPRIM_HOST_SANITIZERS=ON >/dev/null
  cmake --build "$snap/build" -j "$(nproc)" -- -k 0 || echo "snapshot-build: some targets failed to build" >&2
  # Object files are not carried. The executables keep their symbols; ASan's reports give
  # module offsets, which addr2line resolves against these executables here.
  big=$(cd build && find hsan/build/tests -type f -executable -size +100k | sort)
  sort_tests='/(sort_device|sort_device_types|reliability|reliability_sticky_error)$'
  sort_part=$(grep -E "$sort_tests" <<<"$big")
  rest_part=$(grep -v -E "$sort_tests" <<<"$big")
  # Each part carries the CTest files and the small files too (everything but the other part).
  (cd build && tar -cf - --exclude='*.o' --exclude-from=<(echo "$rest_part") hsan/build) | xz -T0 -9e > build/hsan_sort.tar.xz
  (cd build && tar -cf - --exclude='*.o' --exclude-from=<(echo "$sort_part") hsan/build) | xz -T0 -9e > build/hsan_rest.tar.xz
  du -sh "$snap" build/hsan_sort.tar.xz build/hsan_rest.tar.xz
  exit 0
fi
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
# the tests without the benchmark binaries in two parts (one part, 65 MB, no
# longer fits beside the tree): snap_tests_2 the executables of big_tests, snap_tests_1 all the
# rest; and the benchmarks with Google Benchmark's library. Each test part carries the CTest files.
big_tests='/(sort_device_types|fuzz_cub)$'
part2=$(cd build && find snap/build/tests -type f -executable | grep -E "$big_tests" | sort)
tar -C build -cf - --exclude='snap/build/benchmarks/bench_*' --exclude-from=<(echo "$part2") snap |
  xz -T0 -9e > build/snap_tests_1.tar.xz
# Part 2: only the CTest files and the big executables (tar of a file list, not of the tree).
(cd build && { find snap/build -name 'CTestTestfile.cmake'; echo "$part2"; } | tar -cf - -T -) |
  xz -T0 -9e > build/snap_tests_2.tar.xz
tar -C build -cf - snap/lib snap/build/benchmarks | xz -T0 -9e > build/snap_bench.tar.xz
rm -f build/snap.tar.xz build/snap_tests.tar.xz
du -sh "$snap" build/snap_tests_1.tar.xz build/snap_tests_2.tar.xz build/snap_bench.tar.xz
