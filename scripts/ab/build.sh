#!/usr/bin/env bash
# build.sh <old-rev> [new]: builds build/ab/ab, the in-process A/B of gpuprim OLD (the include/ of
# git revision <old-rev>) against NEW (default: the working tree's include/) and CUB; see README.md.
#
#   <old-rev>  any git revision (commit, tag, branch, HEAD~3); its include/ is extracted with
#              git archive into build/ab/old/ (re-extracted only when the commit changes)
#   [new]      a directory holding gpuprim/ (default <repo>/include), or a git revision (extracted
#              into build/ab/new-rev/); `build.sh X X` is an A/A build, which shows the noise
# Env: NVCC (default nvcc, else $CUDA_HOME/bin/nvcc), AB_ARCH (default sm_90), AB_JOBS (parallel
#      nvcc, default 4), NVCC_EXTRA (extra flags for every TU).
# Everything it writes is under build/ab/ (git-ignored): inc_gpuprim_{old,new}/ (the renamed copies),
# obj/ (objects, logs and keys: a TU is recompiled only when its sources, tree or flags change) and
# the stripped binary ab, which with this directory is all the GPU machine needs.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$root/build/ab

if [ $# -lt 1 ] || [ $# -gt 2 ] || [ "$1" = -h ] || [ "$1" = --help ]; then
  sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  exit 2
fi
old_rev=$1
new_arg=${2:-$root/include}

NVCC=${NVCC:-nvcc}
command -v "$NVCC" >/dev/null || NVCC=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
command -v "$NVCC" >/dev/null || { echo "build.sh: nvcc not found (set NVCC)" >&2; exit 1; }
arch=${AB_ARCH:-sm_90}
jobs=${AB_JOBS:-4}
read -r -a extra <<< "${NVCC_EXTRA:-}"
# --compress-mode=size only compresses the fatbin (same code; ~3x smaller objects and binary, to
# keep the carry to the GPU machine small).
FLAGS=(-O3 -std=c++17 "-arch=$arch" --expt-relaxed-constexpr --compress-mode=size "${extra[@]}")
nvcc_ver=$("$NVCC" --version | grep -o 'release [0-9.]*' || true)

die() { echo "build.sh: $*" >&2; exit 1; }
# The commit a revision names, or nothing.
resolve() { git -C "$root" rev-parse --verify --quiet "$1^{commit}" 2>/dev/null || true; }
# A short hash of every file under <dir>/gpuprim (names and contents).
tree_sha() { (cd "$1" && find gpuprim -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) | sha256sum | cut -c1-12; }
# extract <commit> <dir>: <dir>/include = the commit's include/; <dir>/COMMIT is written last, so
# that an interrupted extraction is redone.
extract() {
  local c=$1 d=$2
  if [ -f "$d/COMMIT" ] && [ "$(cat "$d/COMMIT")" = "$c" ]; then return 0; fi
  rm -rf "$d"
  mkdir -p "$d"
  git -C "$root" archive "$c" include | tar -x -C "$d"
  [ -d "$d/include/gpuprim" ] || die "$c has no include/gpuprim"
  echo "$c" > "$d/COMMIT"
}
short() { git -C "$root" rev-parse --short "$1"; }

mkdir -p "$out/obj"

# ---- OLD: a revision ----
old_commit=$(resolve "$old_rev")
[ -n "$old_commit" ] || die "'$old_rev' is not a git revision of $root"
extract "$old_commit" "$out/old"
old_inc=$out/old/include
old_info="rev $old_rev = $(short "$old_commit"), tree $(tree_sha "$old_inc")"

# ---- NEW: a directory, or a revision ----
if [ -d "$new_arg/gpuprim" ]; then
  new_inc=$(cd "$new_arg" && pwd)
  if [ "$new_inc" = "$root/include" ]; then
    dirty=$(git -C "$root" --no-optional-locks status --porcelain -- include | head -c1)
    new_info="working tree include/ (HEAD $(short HEAD)${dirty:+ + uncommitted changes})"
  else
    new_info="dir ${new_inc#"$root"/}"
  fi
else
  new_commit=$(resolve "$new_arg")
  [ -n "$new_commit" ] || die "'$new_arg' is neither a directory holding gpuprim/ nor a git revision"
  extract "$new_commit" "$out/new-rev"
  new_inc=$out/new-rev/include
  new_info="rev $new_arg = $(short "$new_commit")"
fi
new_info="$new_info, tree $(tree_sha "$new_inc")"
echo "old: $old_info"
echo "new: $new_info"

"$here/mk.sh" gpuprim_old "$old_inc" "$out/inc_gpuprim_old"
"$here/mk.sh" gpuprim_new "$new_inc" "$out/inc_gpuprim_new"

# What the binary prints as its first lines (a host-only TU, so that a new description never
# recompiles a sort TU).
esc() { printf '%s' "$1" | sed 's/[\\"]/\\&/g'; }
cat > "$out/obj/info.cpp" <<EOF
// Written by scripts/ab/build.sh: what build/ab/ab was built from.
const char* ab_old_info() { return "$(esc "$old_info")"; }
const char* ab_new_info() { return "$(esc "$new_info")"; }
EOF

# ---- compile: each TU's key is a hash of the flags, nvcc version, its sources and its include tree ----
tu_key() {  # tu_key <tu> [renamed include dir]
  {
    printf '%s\n' "${FLAGS[*]}" "$nvcc_ver"
    cat "$here/src/$1.cu" "$here/src/iface.h" "$here/src/lib_impl.cuh"
    if [ -n "${2:-}" ]; then find "$2" -type f -print0 | LC_ALL=C sort -z | xargs -0 cat; fi
  } | sha256sum | cut -d' ' -f1
}
tus=()
compile() {  # compile <tu> [renamed include dir]: in the background, at most $jobs at once
  local tu=$1 inc=${2:-} key
  key=$(tu_key "$tu" "$inc")
  tus+=("$tu")
  if [ -f "$out/obj/$tu.o" ] && [ "$(cat "$out/obj/$tu.key" 2>/dev/null)" = "$key" ]; then
    echo "  $tu.o up to date"
    return 0
  fi
  rm -f "$out/obj/$tu.key"
  echo "  compiling src/$tu.cu"
  (
    "$NVCC" "${FLAGS[@]}" -I"$here/src" ${inc:+-I"$inc"} -c "$here/src/$tu.cu" -o "$out/obj/$tu.o.tmp" \
      > "$out/obj/$tu.log" 2>&1 && mv "$out/obj/$tu.o.tmp" "$out/obj/$tu.o" && echo "$key" > "$out/obj/$tu.key"
  ) &
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
}
t0=$(date +%s)
compile new "$out/inc_gpuprim_new"
compile old "$out/inc_gpuprim_old"
compile cub
compile ab
wait
failed=()
for tu in "${tus[@]}"; do [ -f "$out/obj/$tu.key" ] || failed+=("$tu"); done
if [ ${#failed[@]} -gt 0 ]; then
  for tu in "${failed[@]}"; do
    echo "---- src/$tu.cu FAILED (build/ab/obj/$tu.log):" >&2
    head -n 30 "$out/obj/$tu.log" >&2
  done
  die "compile failed: ${failed[*]}"
fi
"$NVCC" -x c++ -O2 -c "$out/obj/info.cpp" -o "$out/obj/info.o"

# OLD and NEW must not define a common symbol (the renaming keeps them apart).
defined() { nm --defined-only "$1" | awk '$2 ~ /[TWVBDRu]/ {print $3}' | sort -u; }
common=$(comm -12 <(defined "$out/obj/old.o") <(defined "$out/obj/new.o") |
  grep -v -e '^_GLOBAL__' -e '^DW.ref' -e '__cudaRegisterLinkedBinary' -e '^__nv_' \
    -e '^_ZN6thrust' -e '^_ZN4cuda' -e '^_ZNSt' -e '^_ZSt' || true)
if [ -n "$common" ]; then
  echo "build.sh: warning: old.o and new.o define the same symbols:" >&2
  echo "$common" | head >&2
fi

"$NVCC" "-arch=$arch" "$out"/obj/{ab,old,new,cub,info}.o -o "$out/ab"
strip "$out/ab"
echo "built build/ab/ab ($(du -h "$out/ab" | cut -f1)) in $(( $(date +%s) - t0 )) s; build/ab holds $(du -sh "$out" | cut -f1)"
mb=$(du -sm "$out" | cut -f1)
[ "$mb" -lt 30 ] || echo "build.sh: warning: build/ab is ${mb} MB; the carry to the GPU machine should stay < 30 MB (rm -rf build/ab/kernels)" >&2
echo "GPU machine: carry [\"build/ab\"], then:  cd build/ab && ./ab 15 [regex]"
