// All of gpuprim: functional objects, warp/block building blocks and the device algorithms.
#pragma once

#include "functional.cuh"
#include "radix_sort.cuh"
#include "reduce.cuh"
#include "scan.cuh"
