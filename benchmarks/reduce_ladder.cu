// The classic reduction ladder (Cheng, Grossman & McKercher, "Professional CUDA C Programming",
// ch. 3; seed 000) on 2^24 doubles, step by step, then gpuprim::sum and cub::DeviceReduce::Sum.
//
// Steps 1-9 reduce in place in global memory as the originals do, one partial per block, then one
// single-block kernel sums the partials; both launches are timed, so every row is the whole sum on
// the GPU. Modern fixes, not changes of lesson: no early return before a barrier (the host requires
// n to be a multiple of each step's tile instead), and the last-warp steps separate each read from
// the write that could race with it by __syncwarp() (independent thread scheduling, sm_70 on).
//
// Before each timed iteration (untimed) the work buffer is restored from the pristine input and L2
// is flushed by reading a buffer of 4x its size, for every row alike.
// Names: "ladder/1_neighbored" ... "ladder/9_templated_complete_unroll", "ladder/10_gpuprim",
// "ladder/11_cub". Run: bench_reduce_ladder --benchmark_format=json --benchmark_out=ladder.json
#include "bench_common.cuh"

#include <gpuprim/reduce.cuh>

#include <cub/device/device_reduce.cuh>

namespace gpuprim_bench {
namespace {

constexpr unsigned int ladder_block = 512;  // the seed's block size
constexpr std::size_t ladder_n = std::size_t{1} << 24;

// --- 1: neighbored pairs; the active threads are tid % (2 * stride) == 0, divergent in every warp.
__global__ __launch_bounds__(1024) void reduce_neighbored(double* g_idata, double* g_odata) {
  const unsigned int tid = threadIdx.x;
  double* idata = g_idata + blockIdx.x * blockDim.x;
  for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
    if ((tid % (2 * stride)) == 0) idata[tid] += idata[tid + stride];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

// --- 2: neighbored pairs, the work packed into the first threads: whole warps go idle.
__global__ __launch_bounds__(1024) void reduce_neighbored_less(double* g_idata, double* g_odata) {
  const unsigned int tid = threadIdx.x;
  double* idata = g_idata + blockIdx.x * blockDim.x;
  for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
    const unsigned int index = 2 * stride * tid;
    if (index < blockDim.x) idata[index] += idata[index + stride];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

// The interleaved tree over idata[0, blockDim.x), stride halving down to `last`.
__device__ __forceinline__ void interleaved_tree(double* idata, unsigned int tid, unsigned int last) {
  for (unsigned int stride = blockDim.x / 2; stride > last; stride >>= 1) {
    if (tid < stride) idata[tid] += idata[tid + stride];
    __syncthreads();
  }
}

// --- 3: interleaved pairs: contiguous active threads and coalesced accesses.
__global__ __launch_bounds__(1024) void reduce_interleaved(double* g_idata, double* g_odata) {
  const unsigned int tid = threadIdx.x;
  double* idata = g_idata + blockIdx.x * blockDim.x;
  interleaved_tree(idata, tid, 0);
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

// Each thread first folds Unroll blocks' worth of items into the first block of its group.
template <int Unroll>
__device__ __forceinline__ double* fold_blocks(double* g_idata) {
  const unsigned int idx = blockIdx.x * blockDim.x * Unroll + threadIdx.x;
  double a[Unroll];
#pragma unroll
  for (int u = 0; u < Unroll; ++u) a[u] = g_idata[idx + u * blockDim.x];
  double s = a[0];
#pragma unroll
  for (int u = 1; u < Unroll; ++u) s += a[u];
  g_idata[idx] = s;
  __syncthreads();  // the tree below reads what other threads just wrote
  return g_idata + blockIdx.x * blockDim.x * Unroll;
}

// --- 4, 5, 6: unrolling 2, 4, 8 data blocks per thread block, then the interleaved tree.
template <int Unroll>
__global__ __launch_bounds__(1024) void reduce_unrolling(double* g_idata, double* g_odata) {
  double* idata = fold_blocks<Unroll>(g_idata);
  interleaved_tree(idata, threadIdx.x, 0);
  if (threadIdx.x == 0) g_odata[blockIdx.x] = idata[0];
}

// The last 64 items summed by warp 0 without __syncthreads. The seed's volatile
// `vmem[tid] += vmem[tid + k]` relied on lockstep warps; each step here reads, synchronises the
// warp, then writes, so no lane overwrites a value another lane has yet to read.
__device__ __forceinline__ void warp_tail(double* idata, unsigned int tid) {
  if (tid < 32) {
    volatile double* vmem = idata;
    double v = vmem[tid] + vmem[tid + 32];
    vmem[tid] = v;
    __syncwarp();
#pragma unroll
    for (unsigned int k = 16; k > 0; k >>= 1) {
      v += vmem[tid + k];
      __syncwarp();
      vmem[tid] = v;
      __syncwarp();
    }
  }
}

// --- 7: unrolling 8 + the last warp unrolled (the tree stops at stride 64).
__global__ __launch_bounds__(1024) void reduce_unroll_warps8(double* g_idata, double* g_odata) {
  double* idata = fold_blocks<8>(g_idata);
  interleaved_tree(idata, threadIdx.x, 32);
  warp_tail(idata, threadIdx.x);
  if (threadIdx.x == 0) g_odata[blockIdx.x] = idata[0];
}

// --- 8: unrolling 8 + the whole tree unrolled for any block size up to 1024 (runtime tests).
__global__ __launch_bounds__(1024) void reduce_complete_unroll_warps8(double* g_idata,
                                                                      double* g_odata) {
  const unsigned int tid = threadIdx.x;
  double* idata = fold_blocks<8>(g_idata);
  if (blockDim.x >= 1024 && tid < 512) idata[tid] += idata[tid + 512];
  __syncthreads();
  if (blockDim.x >= 512 && tid < 256) idata[tid] += idata[tid + 256];
  __syncthreads();
  if (blockDim.x >= 256 && tid < 128) idata[tid] += idata[tid + 128];
  __syncthreads();
  if (blockDim.x >= 128 && tid < 64) idata[tid] += idata[tid + 64];
  __syncthreads();
  warp_tail(idata, tid);
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

// --- 9: the same with the block size a template parameter: the tests fold away at compile time.
template <unsigned int BlockSize>
__global__ __launch_bounds__(BlockSize) void reduce_complete_unroll(double* g_idata,
                                                                    double* g_odata) {
  const unsigned int tid = threadIdx.x;
  double* idata = fold_blocks<8>(g_idata);
  if (BlockSize >= 1024 && tid < 512) idata[tid] += idata[tid + 512];
  __syncthreads();
  if (BlockSize >= 512 && tid < 256) idata[tid] += idata[tid + 256];
  __syncthreads();
  if (BlockSize >= 256 && tid < 128) idata[tid] += idata[tid + 128];
  __syncthreads();
  if (BlockSize >= 128 && tid < 64) idata[tid] += idata[tid + 64];
  __syncthreads();
  warp_tail(idata, tid);
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

// The final pass shared by steps 1-9: one block of 1024 threads sums `m` partials into out[0].
__global__ __launch_bounds__(1024) void sum_partials(const double* partials, unsigned int m,
                                                     double* out) {
  __shared__ double warp_sums[32];
  double s = 0.0;
  for (unsigned int i = threadIdx.x; i < m; i += blockDim.x) s += partials[i];
#pragma unroll
  for (int k = 16; k > 0; k >>= 1) s += __shfl_down_sync(0xffffffffu, s, k);
  const unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warp_sums[warp] = s;
  __syncthreads();  // all warp sums written before warp 0 reads them
  if (warp == 0) {
    s = lane < blockDim.x / 32 ? warp_sums[lane] : 0.0;
#pragma unroll
    for (int k = 16; k > 0; k >>= 1) s += __shfl_down_sync(0xffffffffu, s, k);
    if (lane == 0) *out = s;
  }
}

struct ladder_step {
  const char* name;
  int unroll;  // data blocks per thread block; 0 for the library rows
};

constexpr ladder_step steps[] = {
    {"1_neighbored", 1},
    {"2_neighbored_less", 1},
    {"3_interleaved", 1},
    {"4_unrolling2", 2},
    {"5_unrolling4", 4},
    {"6_unrolling8", 8},
    {"7_unroll_warps8", 8},
    {"8_complete_unroll_warps8", 8},
    {"9_templated_complete_unroll", 8},
    {"10_gpuprim", 0},
    {"11_cub", 0},
};

/// Launches step `k` (1-based, 1..9) and the final pass.
cudaError_t launch_step(int k, double* work, double* partials, double* out, cudaStream_t s) {
  const unsigned int grid = static_cast<unsigned int>(ladder_n / (ladder_block * steps[k - 1].unroll));
  switch (k) {
    case 1: reduce_neighbored<<<grid, ladder_block, 0, s>>>(work, partials); break;
    case 2: reduce_neighbored_less<<<grid, ladder_block, 0, s>>>(work, partials); break;
    case 3: reduce_interleaved<<<grid, ladder_block, 0, s>>>(work, partials); break;
    case 4: reduce_unrolling<2><<<grid, ladder_block, 0, s>>>(work, partials); break;
    case 5: reduce_unrolling<4><<<grid, ladder_block, 0, s>>>(work, partials); break;
    case 6: reduce_unrolling<8><<<grid, ladder_block, 0, s>>>(work, partials); break;
    case 7: reduce_unroll_warps8<<<grid, ladder_block, 0, s>>>(work, partials); break;
    case 8: reduce_complete_unroll_warps8<<<grid, ladder_block, 0, s>>>(work, partials); break;
    case 9: reduce_complete_unroll<ladder_block><<<grid, ladder_block, 0, s>>>(work, partials); break;
    default: return cudaErrorInvalidValue;
  }
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return e;
  sum_partials<<<1, 1024, 0, s>>>(partials, grid, out);
  return cudaGetLastError();
}

/// The buffers every row shares, made once: pristine input, work copy, partials, output, and the
/// L2 flush buffer. Lives until exit (no cudaFree after runtime teardown).
struct ladder_buffers {
  device_buffer pristine, work, partials, out, flush;
  bool ready = false;
};

bool acquire_ladder(benchmark::State& state, ladder_buffers*& b) {
  static ladder_buffers* buffers = new ladder_buffers;
  b = buffers;
  if (b->ready) return true;
  const std::size_t bytes = ladder_n * sizeof(double);
  const std::size_t flush_bytes = 4 * std::max<std::size_t>(device().l2_bytes, std::size_t{50} << 20);
  if (!require_free_memory(state, 2 * bytes + flush_bytes)) return false;
  GPUPRIM_BENCH_CHECK_BOOL(state, b->pristine.allocate(bytes));
  GPUPRIM_BENCH_CHECK_BOOL(state, b->work.allocate(bytes));
  GPUPRIM_BENCH_CHECK_BOOL(state, b->partials.allocate(ladder_n / ladder_block * sizeof(double)));
  GPUPRIM_BENCH_CHECK_BOOL(state, b->out.allocate(sizeof(double)));
  GPUPRIM_BENCH_CHECK_BOOL(state, b->flush.allocate(flush_bytes));
  GPUPRIM_BENCH_CHECK_BOOL(state, cudaMemset(b->flush.get(), 1, flush_bytes));
  fill_pool_kernel<double><<<device().prop.multiProcessorCount * 8, 256>>>(
      b->pristine.get<double>(), ladder_n, ladder_n, seed());
  GPUPRIM_BENCH_CHECK_BOOL(state, cudaGetLastError());
  GPUPRIM_BENCH_CHECK_BOOL(state, cudaDeviceSynchronize());
  b->ready = true;
  return true;
}

void bm_ladder(benchmark::State& state, int k) {
  cuda_env env;
  if (!env.init(state)) return;
  ladder_buffers* b = nullptr;
  if (!acquire_ladder(state, b)) return;
  const cudaStream_t s = env.stream();
  const long long ref = reference_sum(ladder_n);
  const int unroll = steps[k - 1].unroll;
  if (unroll > 0 && ladder_n % (std::size_t{ladder_block} * unroll) != 0) {
    fail(state, "n must be a multiple of the step's tile");
    return;
  }
  double* work = b->work.get<double>();
  double* out = b->out.get<double>();

  // Rows 10 and 11. CUB gets a 32-bit count (its 32-bit offsets), as most callers pass an int.
  auto library_sum = [&](void* d_temp, std::size_t& bytes) {
    const double* in = work;
    return k == 10 ? gpuprim::sum(d_temp, bytes, in, out, ladder_n, s)
                   : cub::DeviceReduce::Sum(d_temp, bytes, in, out, static_cast<int>(ladder_n), s);
  };
  device_buffer temp;
  std::size_t temp_bytes = 0;
  if (unroll == 0) GPUPRIM_BENCH_CHECK(state, library_sum(nullptr, temp_bytes));
  GPUPRIM_BENCH_CHECK(state, temp.allocate(temp_bytes));

  auto prologue = [&](std::size_t) {
    cudaError_t e = cudaMemcpyAsync(work, b->pristine.get(), ladder_n * sizeof(double),
                                    cudaMemcpyDeviceToDevice, s);
    if (e != cudaSuccess) return e;
    return launch_read(b->flush.get(), b->flush.bytes(), b->partials.get<int>(), s);
  };
  auto body = [&](std::size_t) {
    std::size_t bytes = temp_bytes;
    if (unroll == 0) return library_sum(temp.get(), bytes);
    return launch_step(k, work, b->partials.get<double>(), out, s);
  };
  auto check = [&](const char* when) {
    double got = 0.0;
    GPUPRIM_BENCH_CHECK_BOOL(state, cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost));
    if (got != static_cast<double>(ref)) {  // integer-valued items: every order is exact
      fail(state, std::string("wrong sum ") + when + ": got " + to_text(got) + ", expected " +
                      std::to_string(ref));
      return false;
    }
    return true;
  };

  const double poison = static_cast<double>(ref) + 977.0;
  GPUPRIM_BENCH_CHECK(state, cudaMemcpyAsync(out, &poison, sizeof poison, cudaMemcpyHostToDevice, s));
  GPUPRIM_BENCH_CHECK(state, prologue(0));
  GPUPRIM_BENCH_CHECK(state, body(0));
  GPUPRIM_BENCH_CHECK(state, cudaStreamSynchronize(s));
  if (!check("(first run)")) return;

  if (!env.timed_loop(state, 1, prologue, body)) return;
  GPUPRIM_BENCH_CHECK(state, cudaStreamSynchronize(s));
  if (!check("(last timed run)")) return;
  set_counters(state, ladder_n, ladder_n * sizeof(double));
  if (unroll > 0) {
    state.counters["grid"] = benchmark::Counter(static_cast<double>(ladder_n / (ladder_block * unroll)));
    state.counters["block"] = benchmark::Counter(ladder_block);
  }
}

void register_all() {
  for (int k = 1; k <= 11; ++k) {
    add(std::string("ladder/") + steps[k - 1].name, [k](benchmark::State& st) { bm_ladder(st, k); });
  }
}

}  // namespace
}  // namespace gpuprim_bench

int main(int argc, char** argv) { return gpuprim_bench::run_main(argc, argv, gpuprim_bench::register_all); }
