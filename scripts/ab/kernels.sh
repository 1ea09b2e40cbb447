#!/usr/bin/env bash
# kernels.sh [include dir holding gpuprim/, default <repo>/include]: the compile-cost table of gpuprim
# against CUB. Four TUs -- gpuprim::radix_sort_pairs<uint32_t,uint32_t> (workspace form) only,
# gpuprim::radix_sort_keys<uint32_t> only, and cub::DeviceRadixSort::SortPairs / SortKeys (int
# count) only -- each: `.entry` count in the PTX (--ptx), object bytes (-c) and the wall seconds of
# -c (run twice, the second taken). Prints a markdown table, also kept in build/ab/kernels/table.md.
# Env: NVCC (default nvcc, else $CUDA_HOME/bin/nvcc), AB_ARCH (default sm_90), NVCC_EXTRA (extra
#      flags, e.g. --expt-relaxed-constexpr), KERNELS_CUB64=1 (adds CUB rows with a std::size_t
#      count: 64-bit offsets), KERNELS_KEEP=1 (keeps the .ptx and .o files, which are large).
# Writes only build/ab/kernels/ (emptied first): the TUs, their logs and table.md. Compiles one
# at a time; about 1.5 min on 2 cores.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
dir=$root/build/ab/kernels

if [ $# -gt 1 ] || [ "${1:-}" = -h ] || [ "${1:-}" = --help ]; then
  sed -n '2,11p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  exit 2
fi
inc=$(cd "${1:-$root/include}" 2>/dev/null && pwd) || { echo "kernels.sh: no directory ${1:-}" >&2; exit 1; }
[ -f "$inc/gpuprim/radix_sort.cuh" ] || { echo "kernels.sh: $inc/gpuprim/radix_sort.cuh not found" >&2; exit 1; }
NVCC=${NVCC:-nvcc}
command -v "$NVCC" >/dev/null || NVCC=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
command -v "$NVCC" >/dev/null || { echo "kernels.sh: nvcc not found (set NVCC)" >&2; exit 1; }
read -r -a extra <<< "${NVCC_EXTRA:-}"
flags=(-std=c++17 -O3 "-arch=${AB_ARCH:-sm_90}" "${extra[@]}")
rm -rf "$dir"
mkdir -p "$dir"

sig='void* t, std::size_t& b, const std::uint32_t* ki, std::uint32_t* ko, const std::uint32_t* vi, std::uint32_t* vo, std::size_t n, cudaStream_t s'
ksig='void* t, std::size_t& b, const std::uint32_t* ki, std::uint32_t* ko, std::size_t n, cudaStream_t s'
mk() {  # mk <name> <header> <signature> <body>: a TU with one host function making one call
  printf '// %s: written by scripts/ab/kernels.sh\n#include <cstddef>\n#include <cstdint>\n#include %s\ncudaError_t entry(%s) { return %s; }\n' \
    "$1" "$2" "$3" "$4" > "$dir/$1.cu"
}
gp='<gpuprim/radix_sort.cuh>'
cub='<cub/device/device_radix_sort.cuh>'
mk gpuprim_pairs_u32_u32 "$gp" "$sig" 'gpuprim::radix_sort_pairs(t, b, ki, ko, vi, vo, n, 0, 32, s)'
mk gpuprim_keys_u32 "$gp" "$ksig" 'gpuprim::radix_sort_keys(t, b, ki, ko, n, 0, 32, s)'
mk cub_pairs_u32_u32 "$cub" "$sig" 'cub::DeviceRadixSort::SortPairs(t, b, ki, ko, vi, vo, static_cast<int>(n), 0, 32, s)'
mk cub_keys_u32 "$cub" "$ksig" 'cub::DeviceRadixSort::SortKeys(t, b, ki, ko, static_cast<int>(n), 0, 32, s)'
tus=(gpuprim_pairs_u32_u32 cub_pairs_u32_u32 gpuprim_keys_u32 cub_keys_u32)
if [ "${KERNELS_CUB64:-0}" = 1 ]; then
  mk cub64_pairs_u32_u32 "$cub" "$sig" 'cub::DeviceRadixSort::SortPairs(t, b, ki, ko, vi, vo, n, 0, 32, s)'
  mk cub64_keys_u32 "$cub" "$ksig" 'cub::DeviceRadixSort::SortKeys(t, b, ki, ko, n, 0, 32, s)'
  tus=(gpuprim_pairs_u32_u32 cub_pairs_u32_u32 cub64_pairs_u32_u32 gpuprim_keys_u32 cub_keys_u32 cub64_keys_u32)
fi

{
  echo "include: ${inc#"$root"/}; nvcc $("$NVCC" --version | grep -o 'release [0-9.]*'); flags: ${flags[*]}"
  echo
  echo "| TU | .entry (PTX) | object bytes | -c wall s (2nd run) |"
  echo "|---|---:|---:|---:|"
} | tee "$dir/table.md"
for tu in "${tus[@]}"; do
  src=$dir/$tu.cu
  log=$dir/$tu.log
  if ! "$NVCC" "${flags[@]}" -I"$inc" --ptx "$src" -o "$dir/$tu.ptx" > "$log" 2>&1; then
    echo "| $tu | compile failed: $(head -c 200 "$log" | tr '\n|' '  ') | | |" | tee -a "$dir/table.md"
    continue
  fi
  entries=$(grep -cE '^\s*(\.visible\s+|\.weak\s+)?\.entry\s' "$dir/$tu.ptx")
  secs=""
  for _ in 1 2; do
    t0=$(date +%s.%N)
    "$NVCC" "${flags[@]}" -I"$inc" -c "$src" -o "$dir/$tu.o" >> "$log" 2>&1 || { secs=failed; break; }
    t1=$(date +%s.%N)
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
  done
  echo "| $tu | $entries | $(stat -c %s "$dir/$tu.o" 2>/dev/null || echo -) | $secs |" | tee -a "$dir/table.md"
  [ "${KERNELS_KEEP:-0}" = 1 ] || rm -f "$dir/$tu.ptx" "$dir/$tu.o"
done
