// Does compute-sanitizer racecheck model mbarrier synchronisation? A minimal kernel, kept as the
// evidence behind the racecheck exclusion of tests/scan (scan_streaming); not built by the project.
//   nvcc -std=c++17 -arch=sm_90 -lineinfo -I include tests/reliability/repro/racecheck_mbarrier.cu -o mbar
//   compute-sanitizer --tool racecheck ./mbar
// mode 0: warp 0 writes shared memory, __syncwarp, lane 0 arrives on an mbarrier (release); warp 1
//         waits for the phase (acquire) and reads: synchronised under the PTX memory model.
// mode 1: the same without the wait: a real race.
// mode 2: a slot reused four times: warp 1 reads it and arrives on `empty`; lane 0 of warp 0 waits
//         on `empty` and refills it with a bulk copy whose bytes complete `full`.
// H100, CUDA 13.0, 2026-11-21: all three modes run without error and racecheck reports mode 0
// (248 hazards between the reads and the writes) just as it reports mode 1 (256): it does not
// treat mbarrier arrive/wait as synchronisation.
#include <gpuprim/detail/async_copy.cuh>

#include <cstdio>

using namespace gpuprim::detail;

__global__ void handoff(const int4* src, int mode, int* out) {
  __shared__ __align__(128) int4 buf[256];
  __shared__ __align__(8) unsigned long long full, empty;
  if (threadIdx.x == 0) {
    mbarrier_init(&full, 1);
    mbarrier_init(&empty, 32);
    mbarrier_init_fence();
  }
  __syncthreads();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int acc = 0;
  if (mode < 2) {
    if (warp == 0) {
      for (int i = lane; i < 256; i += 32) buf[i] = make_int4(i, i, i, i);
      __syncwarp();
      if (lane == 0) mbarrier_arrive(&full);
    } else {
      if (mode == 0) mbarrier_wait(&full, 0);
      for (int i = lane; i < 256; i += 32) acc += buf[i].x;
    }
  } else {
    for (int r = 0; r < 4; ++r) {
      if (warp == 0) {
        if (lane == 0) {
          mbarrier_wait(&empty, (r & 1) ^ 1);
          bulk_copy_to_shared(buf, src + r * 256, 4096, &full);
        }
      } else {
        mbarrier_wait(&full, r & 1);
        for (int i = lane; i < 256; i += 32) acc += buf[i].x;
        mbarrier_arrive(&empty);
      }
    }
  }
  if (acc == 12345) out[0] = acc;  // keeps the reads
}

int main() {
  int4* src;
  int* out;
  cudaMalloc(&src, 4 * 4096);
  cudaMalloc(&out, sizeof(int));
  cudaMemset(src, 0, 4 * 4096);
  for (int mode = 0; mode < 3; ++mode) {
    handoff<<<1, 64>>>(src, mode, out);
    std::printf("mode %d: %s\n", mode, cudaGetErrorString(cudaDeviceSynchronize()));
  }
  return 0;
}
