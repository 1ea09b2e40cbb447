// docs/scan.md: device, block and warp scans (regions), and a main that checks each one
// (exit 77 without a GPU).
#include "example_util.cuh"

// docs:begin device_scans
#include <cstdint>

#include <gpuprim/scan.cuh>

// Output offsets from counts: offsets[i] = counts[0] + ... + counts[i - 1], offsets[0] = 0.
// exclusive_sum accumulates in the output's type, so 8-bit counts give 32-bit offsets.
cudaError_t offsets_from_counts(const std::uint8_t* d_counts, std::uint32_t* d_offsets, std::size_t n,
                                cudaStream_t stream) {
  return gpuprim::exclusive_sum(d_counts, d_offsets, n, stream);
}

// Running maximum, in place (d_out == d_in is allowed).
cudaError_t running_max(float* d_values, std::size_t n, cudaStream_t stream) {
  return gpuprim::inclusive_scan(d_values, d_values, n, gpuprim::maximum{}, stream);
}

// The workspace form with an init: d_out[i] = 100 + in[0] + ... + in[i - 1]. The size depends
// only on n and the types, so one workspace sized for the largest n serves every smaller call.
cudaError_t scan_from_100(void* d_temp, std::size_t temp_bytes, const int* d_in, int* d_out, std::size_t n,
                          cudaStream_t stream) {
  return gpuprim::exclusive_scan(d_temp, temp_bytes, d_in, d_out, n, 100, gpuprim::plus{}, stream);
}
// docs:end device_scans

// docs:begin scans_by_key
#include <gpuprim/reduce.cuh>
#include <gpuprim/scan.cuh>

// Per-row running sums of a matrix stored row after row (row ids as keys): the sum restarts
// wherever the key changes.
cudaError_t row_running_sums(const int* d_row_ids, const float* d_values, float* d_sums, std::size_t n,
                             cudaStream_t stream) {
  return gpuprim::inclusive_sum_by_key(d_row_ids, d_values, d_sums, n, stream);
}

// One total per run of equal keys: unique[r], totals[r] for r < *num_runs.
cudaError_t totals_by_key(const int* d_keys, int* d_unique, const float* d_values, float* d_totals, int* d_num_runs,
                          std::size_t n, cudaStream_t stream) {
  return gpuprim::reduce_by_key(d_keys, d_unique, d_values, d_totals, d_num_runs, n, gpuprim::plus{}, stream);
}
// docs:end scans_by_key

// docs:begin block_scan
#include <gpuprim/block/block_scan.cuh>

// A running total carried from tile to tile: the callback gets each tile's aggregate and
// returns the prefix for that tile (called by warp 0; lane 0's answer is used).
struct running_total {
  int total;
  __device__ int operator()(int tile_aggregate) {
    const int prefix = total;
    total += tile_aggregate;
    return prefix;
  }
};

// One block scans all n items, tile after tile of 256 x 4 (exclusive prefix sums).
__global__ void __launch_bounds__(256) scan_in_one_block(const int* in, int* out, int n) {
  using block_scan = gpuprim::block_scan<int, 256>;
  __shared__ block_scan::temp_storage storage;
  running_total prefix{0};
  for (int tile = 0; tile < n; tile += 256 * 4) {
    int items[4];
    for (int i = 0; i < 4; ++i) {  // blocked: thread t holds items [4t, 4t + 4) of the tile
      const int k = tile + threadIdx.x * 4 + i;
      items[i] = k < n ? in[k] : 0;
    }
    block_scan(storage).exclusive_sum(items, items, prefix);
    __syncthreads();  // the next tile's scan reuses `storage`
    for (int i = 0; i < 4; ++i) {
      const int k = tile + threadIdx.x * 4 + i;
      if (k < n) out[k] = items[i];
    }
  }
}
// docs:end block_scan

// docs:begin warp_scan
#include <gpuprim/warp/warp_scan.cuh>

// Warp-level stream compaction: each warp of 32 lanes keeps its positive items, in order, at
// out[warp * 32 ...], and writes how many it kept to kept[warp].
__global__ void __launch_bounds__(128) keep_positive(const int* in, int* out, int* kept, int n) {
  using warp_scan = gpuprim::warp_scan<int>;
  warp_scan::temp_storage storage;  // empty: shuffles only

  const int i = blockIdx.x * 128 + threadIdx.x;
  const int warp = i / 32;
  const int x = i < n ? in[i] : 0;
  const int flag = x > 0 ? 1 : 0;
  int position, count;
  warp_scan(storage).exclusive_sum(flag, position, count);  // count: the warp's total, in every lane
  if (flag) out[warp * 32 + position] = x;
  if (threadIdx.x % 32 == 0 && warp * 32 < n) kept[warp] = count;  // warps past n have no slot
}
// docs:end warp_scan

int main() {
  example::exit_77_without_gpu();
  const int n = 3000;
  std::vector<std::uint8_t> counts(n);
  std::vector<float> values(n);
  std::vector<int> ints(n);
  for (int i = 0; i < n; ++i) {
    counts[i] = static_cast<std::uint8_t>(200 + i % 50);
    values[i] = static_cast<float>((i * 7919) % 1000);
    ints[i] = (i * 31) % 19 - 9;
  }
  std::uint8_t* d_counts = example::to_device(counts);
  std::uint32_t* d_offsets = example::to_device(std::vector<std::uint32_t>(n));
  float* d_values = example::to_device(values);
  int* d_ints = example::to_device(ints);
  int* d_out = example::to_device(std::vector<int>(n));

  EXAMPLE_CHECK(offsets_from_counts(d_counts, d_offsets, n, 0));
  const auto offsets = example::to_host(d_offsets, n);
  std::uint32_t acc = 0;
  for (int i = 0; i < n; ++i) {
    EXAMPLE_EXPECT(offsets[i] == acc);
    acc += counts[i];
  }

  // Scans and reduce by key: keys i / 10 (runs of 10).
  {
    std::vector<int> row(n);
    for (int i = 0; i < n; ++i) row[i] = i / 10;
    int* d_row = example::to_device(row);
    float* d_vals = example::to_device(values);
    float* d_sums = example::to_device(std::vector<float>(n));
    int* d_unique = example::to_device(std::vector<int>(n));
    int* d_runs = example::to_device(std::vector<int>(1));
    EXAMPLE_CHECK(row_running_sums(d_row, d_vals, d_sums, n, 0));
    const auto sums = example::to_host(d_sums, n);
    float s = 0;
    for (int i = 0; i < n; ++i) {
      s = i % 10 == 0 ? values[i] : s + values[i];
      EXAMPLE_EXPECT(sums[i] == s);
    }
    EXAMPLE_CHECK(totals_by_key(d_row, d_unique, d_vals, d_sums, d_runs, n, 0));
    EXAMPLE_EXPECT(example::to_host(d_runs, 1)[0] == (n + 9) / 10);
    const auto totals = example::to_host(d_sums, (n + 9) / 10);
    const auto unique = example::to_host(d_unique, (n + 9) / 10);
    for (int r = 0; r < (n + 9) / 10; ++r) {
      float t = 0;
      for (int i = r * 10; i < n && i < r * 10 + 10; ++i) t += values[i];
      EXAMPLE_EXPECT(totals[r] == t && unique[r] == r);
    }
  }

  EXAMPLE_CHECK(running_max(d_values, n, 0));
  const auto maxima = example::to_host(d_values, n);
  float m = values[0];
  for (int i = 0; i < n; ++i) {
    m = values[i] > m ? values[i] : m;
    EXAMPLE_EXPECT(maxima[i] == m);
  }

  std::size_t temp_bytes = 0;
  EXAMPLE_CHECK(gpuprim::exclusive_scan(nullptr, temp_bytes, d_ints, d_out, n, 100, gpuprim::plus{}));
  void* d_temp = nullptr;
  EXAMPLE_CHECK(cudaMalloc(&d_temp, temp_bytes));
  for (int size : {n, n / 2, 1}) {
    EXAMPLE_CHECK(scan_from_100(d_temp, temp_bytes, d_ints, d_out, size, 0));
    const auto out = example::to_host(d_out, size);
    int run = 100;
    for (int i = 0; i < size; ++i) {
      EXAMPLE_EXPECT(out[i] == run);
      run += ints[i];
    }
  }

  scan_in_one_block<<<1, 256>>>(d_ints, d_out, n);
  EXAMPLE_CHECK(cudaGetLastError());
  const auto block_out = example::to_host(d_out, n);
  int run = 0;
  for (int i = 0; i < n; ++i) {
    EXAMPLE_EXPECT(block_out[i] == run);
    run += ints[i];
  }

  const int warps = (n + 31) / 32;
  int* d_kept = example::to_device(std::vector<int>(warps));
  keep_positive<<<(n + 127) / 128, 128>>>(d_ints, d_out, d_kept, n);
  EXAMPLE_CHECK(cudaGetLastError());
  const auto compacted = example::to_host(d_out, n);
  const auto kept = example::to_host(d_kept, warps);
  for (int w = 0; w < warps; ++w) {
    int k = 0;
    for (int i = w * 32; i < n && i < w * 32 + 32; ++i) {
      if (ints[i] > 0) EXAMPLE_EXPECT(compacted[w * 32 + k++] == ints[i]);
    }
    EXAMPLE_EXPECT(kept[w] == k);
  }
  std::puts("scan_examples: ok");
  return 0;
}
