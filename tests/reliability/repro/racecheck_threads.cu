// Does compute-sanitizer racecheck hang when several host threads launch on their own streams?
// The racecheck run of tests/reliability hangs now and then, in its one multi-threaded case (8 host
// threads x 8 streams) where located (2026-11-28: 2 of 6 runs alone hung, one of them located;
// once "Internal Sanitizer Error: Detected a failure to track a kernel launch" in a batch); every
// other tool and every run without a tool passes. This program does the same with no gpuprim code:
// mode 0 CUB's calls alone; mode 1 adds, after each CUB call, a cooperative launch whose blocks
// meet at a grid-wide barrier (as gpuprim's multi-block reduce does); mode 2 a kernel launched with
// programmatic dependent launch behind a trivial primary (as gpuprim's sort passes are); mode 3
// both. Not built by the project.
//   nvcc -std=c++17 -O2 -arch=sm_90 tests/reliability/repro/racecheck_threads.cu -o rthreads
//   for m in 0 2 0 2; do timeout -k 5 40 compute-sanitizer --tool racecheck ./rthreads 8 24 16384 $m
//     echo rc=$?; pkill -9 -x rthreads; done   # the tool's kill leaves the program behind
// Arguments: [threads=8] [calls=12] [n=16384] [mode=0]. Prints "ok" when every result matches.
// H200, CUDA 13.0, driver 580.159.04, 8 threads x 24 calls, under racecheck (a run not done in 40-45
// s is hung: the ones that finish take 17-23 s, 0 hazards each):
//   first device call: mode 0 passed 5 of 5;
//   two later device calls: mode 0 hung 1 of 3 (the program still there after the tool's
//   kill), mode 1 1 of 5, mode 2 4 of 6, mode 3 3 of 4. Every mode passes every run without a tool.
// So racecheck hangs on this pattern with no gpuprim code in the process, most often when a
// programmatic dependent launch is among the launches.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include <cooperative_groups.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <thread>
#include <vector>

namespace {

std::atomic<int> failures{0};

// Every block adds one to `count`, all meet at the grid barrier, then block 0 checks the total.
__global__ void grid_meet(unsigned* count, unsigned* bad) {
  if (threadIdx.x == 0) atomicAdd(count, 1u);
  cooperative_groups::this_grid().sync();
  if (blockIdx.x == 0 && threadIdx.x == 0 && atomicAdd(count, 0u) != gridDim.x) atomicAdd(bad, 1u);
}

// The primary lets its dependent start early; the dependent waits for it, then reads its result.
__global__ void primary(unsigned* cell) {
  asm volatile("griddepcontrol.launch_dependents;");
  if (blockIdx.x == 0 && threadIdx.x == 0) *cell = 42u;
}
__global__ void dependent(const unsigned* cell, unsigned* bad) {
  asm volatile("griddepcontrol.wait;" ::: "memory");
  if (threadIdx.x == 0 && *cell != 42u) atomicAdd(bad, 1u);
}

void fail(const char* what, cudaError_t e) {
  std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
  failures.fetch_add(1);
}

cudaError_t extra_launches(int mode, unsigned* cells, cudaStream_t stream) {
  if (mode == 3) {  // both: the cooperative barrier, then the dependent pair
    if (cudaError_t e = extra_launches(1, cells, stream); e != cudaSuccess) return e;
    return extra_launches(2, cells, stream);
  }
  if (mode == 1) {
    int sms = 0, per_sm = 0, device = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_meet, 256, 0);
    if (cudaError_t e = cudaMemsetAsync(cells, 0, sizeof(unsigned), stream); e != cudaSuccess) return e;
    void* args[] = {&cells, &cells};
    unsigned* bad = cells + 1;
    args[1] = &bad;
    return cudaLaunchCooperativeKernel(reinterpret_cast<void*>(grid_meet), dim3(unsigned(sms) * unsigned(per_sm > 2 ? 2 : per_sm)),
                                       dim3(256), args, 0, stream);
  }
  if (mode == 2) {
    primary<<<264, 256, 0, stream>>>(cells + 2);
    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(264);
    config.blockDim = dim3(256);
    config.stream = stream;
    config.attrs = &attribute;
    config.numAttrs = 1;
    return cudaLaunchKernelEx(&config, dependent, static_cast<const unsigned*>(cells + 2), cells + 1);
  }
  return cudaSuccess;
}

void worker(int id, int calls, int n, int mode) {
  cudaStream_t stream = nullptr;
  if (cudaError_t e = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking); e != cudaSuccess) return fail("stream", e);
  unsigned *keys_in = nullptr, *keys_out = nullptr, *vals_in = nullptr, *vals_out = nullptr, *sums = nullptr;
  void* temp = nullptr;
  std::size_t temp_bytes = 0, bytes = 0;
  cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys_in, keys_out, vals_in, vals_out, n);
  temp_bytes = std::max(temp_bytes, bytes);
  cub::DeviceScan::ExclusiveSum(nullptr, bytes, keys_in, sums, n);
  temp_bytes = std::max(temp_bytes, bytes);
  cub::DeviceReduce::Sum(nullptr, bytes, keys_in, sums, n);
  temp_bytes = std::max(temp_bytes, bytes);
  const std::size_t b = std::size_t(n) * sizeof(unsigned);
  if (cudaMalloc(&keys_in, b) || cudaMalloc(&keys_out, b) || cudaMalloc(&vals_in, b) || cudaMalloc(&vals_out, b) ||
      cudaMalloc(&sums, b) || cudaMalloc(&temp, temp_bytes) || cudaMemset(sums, 0, 16)) {
    return fail("malloc", cudaGetLastError());
  }
  std::mt19937 rng(1234u + unsigned(id));
  std::vector<unsigned> keys(n), vals(n), got(n);
  for (int call = 0; call < calls; ++call) {
    for (int i = 0; i < n; ++i) keys[i] = rng() & 0xffffu, vals[i] = unsigned(i);
    cudaMemcpyAsync(keys_in, keys.data(), b, cudaMemcpyHostToDevice, stream);
    cudaMemcpyAsync(vals_in, vals.data(), b, cudaMemcpyHostToDevice, stream);
    cudaError_t e = cudaSuccess;
    switch (call % 3) {
      case 0: e = cub::DeviceRadixSort::SortPairs(temp, temp_bytes, keys_in, keys_out, vals_in, vals_out, n, 0, 32, stream); break;
      case 1: e = cub::DeviceScan::ExclusiveSum(temp, temp_bytes, keys_in, keys_out, n, stream); break;
      default: e = cub::DeviceReduce::Sum(temp, temp_bytes, keys_in, keys_out, n, stream); break;
    }
    if (e == cudaSuccess) e = extra_launches(mode, sums, stream);
    if (e != cudaSuccess) return fail("launch", e);
    cudaMemcpyAsync(got.data(), keys_out, b, cudaMemcpyDeviceToHost, stream);
    if (e = cudaStreamSynchronize(stream); e != cudaSuccess) return fail("sync", e);
    std::vector<unsigned> want(keys);
    if (call % 3 == 0) {
      std::stable_sort(want.begin(), want.end());
    } else if (call % 3 == 1) {
      unsigned s = 0;
      for (auto& k : want) { const unsigned x = k; k = s; s += x; }
    } else {
      unsigned s = 0;
      for (unsigned k : keys) s += k;
      want.assign(1, s);
      got.resize(1);
    }
    if (!std::equal(want.begin(), want.end(), got.begin())) fail("result", cudaSuccess);
    got.resize(n);
  }
  unsigned bad = 0;
  cudaMemcpy(&bad, sums + 1, sizeof(bad), cudaMemcpyDeviceToHost);
  if (bad != 0) fail("grid barrier or dependent launch", cudaSuccess);
  cudaFree(keys_in), cudaFree(keys_out), cudaFree(vals_in), cudaFree(vals_out), cudaFree(sums), cudaFree(temp);
  cudaStreamDestroy(stream);
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 8;
  const int calls = argc > 2 ? std::atoi(argv[2]) : 12;
  const int n = argc > 3 ? std::atoi(argv[3]) : 16384;
  const int mode = argc > 4 ? std::atoi(argv[4]) : 0;
  cudaFree(nullptr);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(worker, t, calls, n, mode);
  for (auto& t : pool) t.join();
  std::printf("%s (%d threads x %d calls of %d items, mode %d)\n", failures.load() ? "FAILED" : "ok", threads, calls, n,
              mode);
  return failures.load() ? 1 : 0;
}
