// Example: a user kernel built on gpuprim::block_reduce. Each block of 256 threads
// sums one tile of 256 x 4 items; the last, partial tile uses the valid-items form.
// Exits 77 when no CUDA GPU is usable.
#include <gpuprim/block/block_reduce.cuh>
#include <gpuprim/functional.cuh>

#include <cstdio>
#include <cstdlib>
#include <vector>

constexpr int block_threads = 256;
constexpr int items_per_thread = 4;
constexpr int tile_items = block_threads * items_per_thread;

__global__ void __launch_bounds__(block_threads) tile_sums(const int* in, int* out, int n) {
  using block_reduce_t = gpuprim::block_reduce<int, block_threads>;
  __shared__ typename block_reduce_t::temp_storage temp;

  const int tile_begin = blockIdx.x * tile_items;
  const int valid = min(tile_items, n - tile_begin);
  int sum;
  if (valid == tile_items) {
    // Full tile: four items per thread, in blocked arrangement.
    int items[items_per_thread];
    for (int i = 0; i < items_per_thread; ++i) {
      items[i] = in[tile_begin + threadIdx.x * items_per_thread + i];
    }
    sum = block_reduce_t(temp).sum(items);
  } else {
    // Partial tile: each thread first adds up its strided items, then only the
    // threads that own at least one item take part.
    int partial = 0;
    for (int i = threadIdx.x; i < valid; i += block_threads) partial += in[tile_begin + i];
    sum = block_reduce_t(temp).reduce(partial, gpuprim::plus{}, min(valid, block_threads));
  }
  if (threadIdx.x == 0) out[blockIdx.x] = sum;  // the result is valid in thread 0
}

int main() {
  int devices = 0;
  cudaError_t probe = cudaGetDeviceCount(&devices);
  if (probe != cudaSuccess || devices == 0) {
    std::printf("block_reduce_kernel: no usable CUDA GPU (%s): skipping\n",
                probe != cudaSuccess ? cudaGetErrorString(probe) : "no CUDA devices");
    return 77;
  }

  const int n = 100 * tile_items + 300;  // 100 full tiles and one partial tile
  const int tiles = (n + tile_items - 1) / tile_items;
  std::vector<int> h_in(n);
  for (int i = 0; i < n; ++i) h_in[i] = (i * 37) % 101 - 50;

  int* d_in = nullptr;
  int* d_out = nullptr;
  if (cudaMalloc(&d_in, n * sizeof(int)) != cudaSuccess ||
      cudaMalloc(&d_out, tiles * sizeof(int)) != cudaSuccess) {
    std::fprintf(stderr, "block_reduce_kernel: cudaMalloc failed\n");
    return 1;
  }
  cudaMemcpy(d_in, h_in.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  tile_sums<<<tiles, block_threads>>>(d_in, d_out, n);
  std::vector<int> h_out(tiles);
  cudaError_t err = cudaMemcpy(h_out.data(), d_out, tiles * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d_in);
  cudaFree(d_out);
  if (err != cudaSuccess) {
    std::fprintf(stderr, "block_reduce_kernel: %s\n", cudaGetErrorString(err));
    return 1;
  }

  int wrong = 0;
  for (int t = 0; t < tiles; ++t) {
    int expected = 0;
    for (int i = t * tile_items; i < n && i < (t + 1) * tile_items; ++i) expected += h_in[i];
    if (h_out[t] != expected) {
      if (++wrong <= 5) std::fprintf(stderr, "tile %d: %d, expected %d\n", t, h_out[t], expected);
    }
  }
  std::printf("block_reduce_kernel: %d tiles, %d wrong\n", tiles, wrong);
  return wrong == 0 ? 0 : 1;
}
