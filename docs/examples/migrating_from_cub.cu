// docs/migrating_from_cub.md: one function written with CUB and with gpuprim (regions), and a
// main that checks that both give the same results (exit 77 without a GPU).
#include "example_util.cuh"

#include <cub/cub.cuh>
#include <gpuprim/gpuprim.cuh>

// docs:begin cub_version
// CUB: sum, exclusive prefix sum and a key-value sort, each with its two-phase workspace call.
cudaError_t with_cub(const int* d_in, int* d_sum, int* d_offsets, const unsigned* d_keys, unsigned* d_keys_out,
                     const int* d_vals, int* d_vals_out, int n, cudaStream_t s) {
  std::size_t bytes = 0;
  void* d_temp = nullptr;
  cudaError_t err = cub::DeviceReduce::Sum(d_temp, bytes, d_in, d_sum, n, s);
  if (err == cudaSuccess) err = cudaMallocAsync(&d_temp, bytes, s);
  if (err == cudaSuccess) err = cub::DeviceReduce::Sum(d_temp, bytes, d_in, d_sum, n, s);
  if (err == cudaSuccess) err = cudaFreeAsync(d_temp, s);
  if (err != cudaSuccess) return err;

  bytes = 0;
  d_temp = nullptr;
  err = cub::DeviceScan::ExclusiveSum(d_temp, bytes, d_in, d_offsets, n, s);
  if (err == cudaSuccess) err = cudaMallocAsync(&d_temp, bytes, s);
  if (err == cudaSuccess) err = cub::DeviceScan::ExclusiveSum(d_temp, bytes, d_in, d_offsets, n, s);
  if (err == cudaSuccess) err = cudaFreeAsync(d_temp, s);
  if (err != cudaSuccess) return err;

  bytes = 0;
  d_temp = nullptr;
  err = cub::DeviceRadixSort::SortPairs(d_temp, bytes, d_keys, d_keys_out, d_vals, d_vals_out, n, 0, 32, s);
  if (err == cudaSuccess) err = cudaMallocAsync(&d_temp, bytes, s);
  if (err == cudaSuccess) {
    err = cub::DeviceRadixSort::SortPairs(d_temp, bytes, d_keys, d_keys_out, d_vals, d_vals_out, n, 0, 32, s);
  }
  if (err == cudaSuccess) err = cudaFreeAsync(d_temp, s);
  return err;
}
// docs:end cub_version

// docs:begin gpuprim_version
// gpuprim: the same three calls in their allocating forms (stream-ordered temporary memory).
// The workspace forms take the same (d_temp, bytes) first arguments as CUB's.
cudaError_t with_gpuprim(const int* d_in, int* d_sum, int* d_offsets, const unsigned* d_keys, unsigned* d_keys_out,
                         const int* d_vals, int* d_vals_out, std::size_t n, cudaStream_t s) {
  cudaError_t err = gpuprim::sum(d_in, d_sum, n, s);
  if (err == cudaSuccess) err = gpuprim::exclusive_sum(d_in, d_offsets, n, s);
  if (err == cudaSuccess) err = gpuprim::radix_sort_pairs(d_keys, d_keys_out, d_vals, d_vals_out, n, 0, 32, s);
  return err;
}
// docs:end gpuprim_version

int main() {
  example::exit_77_without_gpu();
  const int n = 50000;
  std::vector<int> in(n), vals(n);
  std::vector<unsigned> keys(n);
  for (int i = 0; i < n; ++i) {
    in[i] = (i * 13) % 7 - 3;
    keys[i] = static_cast<unsigned>(i) * 2654435761u % 1000u;
    vals[i] = i;
  }
  int* d_in = example::to_device(in);
  unsigned* d_keys = example::to_device(keys);
  int* d_vals = example::to_device(vals);
  int* d_sum[2];
  int* d_offsets[2];
  unsigned* d_keys_out[2];
  int* d_vals_out[2];
  for (int k = 0; k < 2; ++k) {
    d_sum[k] = example::to_device(std::vector<int>(1, -1));
    d_offsets[k] = example::to_device(std::vector<int>(n, -1));
    d_keys_out[k] = example::to_device(std::vector<unsigned>(n));
    d_vals_out[k] = example::to_device(std::vector<int>(n, -1));
  }
  EXAMPLE_CHECK(with_cub(d_in, d_sum[0], d_offsets[0], d_keys, d_keys_out[0], d_vals, d_vals_out[0], n, 0));
  EXAMPLE_CHECK(with_gpuprim(d_in, d_sum[1], d_offsets[1], d_keys, d_keys_out[1], d_vals, d_vals_out[1], n, 0));
  EXAMPLE_EXPECT(example::to_host(d_sum[0], 1) == example::to_host(d_sum[1], 1));
  EXAMPLE_EXPECT(example::to_host(d_offsets[0], n) == example::to_host(d_offsets[1], n));
  EXAMPLE_EXPECT(example::to_host(d_keys_out[0], n) == example::to_host(d_keys_out[1], n));
  EXAMPLE_EXPECT(example::to_host(d_vals_out[0], n) == example::to_host(d_vals_out[1], n));
  std::puts("migrating_from_cub: ok");
  return 0;
}
