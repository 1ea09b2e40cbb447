#!/usr/bin/env bash
# build.sh <out binary> <dir holding gpuprimb/> [extra nvcc flags]
cd "$(dirname "$0")"
out=$1; binc=$2; shift 2
nvcc -O3 -std=c++17 -arch=sm_90 --expt-relaxed-constexpr -Iinc_gpuprima -I$binc "$@" -o $out ab.cu
