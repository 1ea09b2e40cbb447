// docs/radix_sort.md: device and block radix sorts (regions), and a main that checks each one
// (exit 77 without a GPU).
#include "example_util.cuh"

#include <algorithm>
#include <numeric>

// docs:begin device_sorts
#include <cstdint>

#include <gpuprim/radix_sort.cuh>

// Floats ascending (-inf < -1 < -0.0 == +0.0 < 1 < inf). d_in is const and left as it was;
// the result always lands in d_out, which must not overlap d_in.
cudaError_t sort_floats(const float* d_in, float* d_out, std::size_t n, cudaStream_t stream) {
  return gpuprim::radix_sort_keys(d_in, d_out, n, 0, 32, stream);
}

// Argsort, descending: d_order_out[i] is the input position of the i-th largest score. Stable,
// so equal scores keep their input order. The sort makes the positions itself (no index array to
// fill), and nullptr asks for no sorted scores. The workspace form allocates nothing.
cudaError_t rank_by_score(void* d_temp, std::size_t& temp_bytes, const std::uint32_t* d_scores,
                          std::uint32_t* d_order_out, std::size_t n, cudaStream_t stream) {
  return gpuprim::radix_argsort_descending(d_temp, temp_bytes, d_scores, nullptr, d_order_out, n, 0, 32, stream);
}

// Where memory is short, the low-memory form: the two buffers of each array are all it needs
// besides a few MB of workspace. Either buffer may be overwritten; afterwards current() names the
// one that holds the result.
cudaError_t sort_cells(gpuprim::double_buffer<std::uint32_t>& cells, gpuprim::double_buffer<int>& particles,
                       std::size_t n, cudaStream_t stream) {
  return gpuprim::radix_sort_pairs(cells, particles, n, 0, 32, stream);
}

// Keys known to be below 2^20 need only bits [0, 20): three 8-bit passes instead of four.
// (The sort also skips on its own every pass in which all keys share one digit.)
cudaError_t sort_small_keys(const std::uint32_t* d_in, std::uint32_t* d_out, std::size_t n,
                            cudaStream_t stream) {
  return gpuprim::radix_sort_keys(d_in, d_out, n, 0, 20, stream);
}
// docs:end device_sorts

// docs:begin block_radix_sort
#include <gpuprim/block/block_radix_sort.cuh>

// Sorts each tile of 256 x 4 keys (with their values) in shared memory.
__global__ void __launch_bounds__(256) sort_tiles(std::uint32_t* keys, float* values) {
  using block_sort = gpuprim::block_radix_sort<std::uint32_t, 256, 4, float>;
  __shared__ block_sort::temp_storage storage;

  const int first = blockIdx.x * 1024 + threadIdx.x * 4;  // blocked arrangement
  std::uint32_t k[4];
  float v[4];
  for (int i = 0; i < 4; ++i) {
    k[i] = keys[first + i];
    v[i] = values[first + i];
  }
  block_sort(storage).sort(k, v);  // blocked in, blocked out
  for (int i = 0; i < 4; ++i) {
    keys[first + i] = k[i];
    values[first + i] = v[i];
  }
}
// docs:end block_radix_sort

// docs:begin segmented
// Each row of a CSR graph lists its neighbours with a weight: sort every row by weight,
// heaviest first (equal weights keep their order), neighbours moving with their weights.
cudaError_t sort_rows_by_weight(const float* d_weights, float* d_weights_out, const int* d_neighbours,
                                int* d_neighbours_out, std::size_t edges, const long long* d_row_offsets,
                                std::size_t rows, cudaStream_t stream) {
  return gpuprim::segmented_radix_sort_pairs_descending(d_weights, d_weights_out, d_neighbours, d_neighbours_out,
                                                        edges, rows, d_row_offsets, d_row_offsets + 1, 0, 32,
                                                        stream);
}
// docs:end segmented

int main() {
  example::exit_77_without_gpu();
  const std::size_t n = 100000;
  std::vector<float> floats(n);
  std::vector<std::uint32_t> scores(n), positions(n), small(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t h = static_cast<std::uint32_t>(i) * 2654435761u;
    floats[i] = static_cast<float>(static_cast<int>(h % 2001) - 1000) / 8.0f;
    scores[i] = h % 97;
    positions[i] = static_cast<std::uint32_t>(i);
    small[i] = h >> 12;
  }

  float* d_floats = example::to_device(floats);
  float* d_floats_out = example::to_device(std::vector<float>(n));
  EXAMPLE_CHECK(sort_floats(d_floats, d_floats_out, n, 0));
  std::vector<float> sorted = floats;
  std::sort(sorted.begin(), sorted.end());
  EXAMPLE_EXPECT(example::to_host(d_floats_out, n) == sorted);
  EXAMPLE_EXPECT(example::to_host(d_floats, n) == floats);  // input untouched

  std::uint32_t* d_scores = example::to_device(scores);
  std::uint32_t* d_order = example::to_device(std::vector<std::uint32_t>(n));
  std::size_t temp_bytes = 0;
  EXAMPLE_CHECK(rank_by_score(nullptr, temp_bytes, d_scores, d_order, n, 0));
  void* d_temp = nullptr;
  EXAMPLE_CHECK(cudaMalloc(&d_temp, temp_bytes));
  EXAMPLE_CHECK(rank_by_score(d_temp, temp_bytes, d_scores, d_order, n, 0));
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return scores[a] > scores[b]; });
  EXAMPLE_EXPECT(example::to_host(d_order, n) == order);

  {  // segmented: rows of i % 300 edges, weights from the floats
    std::vector<long long> offsets{0};
    while (offsets.back() < static_cast<long long>(n)) {
      offsets.push_back(std::min<long long>(n, offsets.back() + static_cast<long long>(offsets.size() % 300)));
    }
    const std::size_t rows = offsets.size() - 1;
    std::vector<int> neighbours(n);
    std::iota(neighbours.begin(), neighbours.end(), 0);
    long long* d_offsets = example::to_device(offsets);
    int* d_neighbours = example::to_device(neighbours);
    int* d_neighbours_out = example::to_device(std::vector<int>(n));
    EXAMPLE_CHECK(sort_rows_by_weight(d_floats, d_floats_out, d_neighbours, d_neighbours_out, n, d_offsets, rows, 0));
    const auto got = example::to_host(d_neighbours_out, n);
    for (std::size_t r = 0; r < rows; ++r) {
      std::vector<int> want(neighbours.begin() + offsets[r], neighbours.begin() + offsets[r + 1]);
      std::stable_sort(want.begin(), want.end(), [&](int a, int b) { return floats[a] > floats[b]; });
      EXAMPLE_EXPECT(std::equal(want.begin(), want.end(), got.begin() + offsets[r]));
    }
  }

  {  // low-memory: cells = the scores, particles = their positions
    std::uint32_t* d_cells = example::to_device(scores);
    std::uint32_t* d_cells_alt = example::to_device(std::vector<std::uint32_t>(n));
    std::vector<int> ids(positions.begin(), positions.end());
    int* d_ids = example::to_device(ids);
    int* d_ids_alt = example::to_device(std::vector<int>(n));
    gpuprim::double_buffer<std::uint32_t> cells(d_cells, d_cells_alt);
    gpuprim::double_buffer<int> particles(d_ids, d_ids_alt);
    EXAMPLE_CHECK(sort_cells(cells, particles, n, 0));
    std::vector<int> want(ids);
    std::stable_sort(want.begin(), want.end(), [&](int a, int b) { return scores[a] < scores[b]; });
    EXAMPLE_EXPECT(example::to_host(particles.current(), n) == want);
    std::vector<std::uint32_t> sorted_scores = scores;
    std::sort(sorted_scores.begin(), sorted_scores.end());
    EXAMPLE_EXPECT(example::to_host(cells.current(), n) == sorted_scores);
  }

  std::uint32_t* d_small = example::to_device(small);
  std::uint32_t* d_small_out = example::to_device(std::vector<std::uint32_t>(n));
  EXAMPLE_CHECK(sort_small_keys(d_small, d_small_out, n, 0));
  std::sort(small.begin(), small.end());
  EXAMPLE_EXPECT(example::to_host(d_small_out, n) == small);

  const int tiles = 8;
  std::vector<std::uint32_t> keys(tiles * 1024);
  std::vector<float> values(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    keys[i] = (static_cast<std::uint32_t>(i) * 2654435761u) % 5000;
    values[i] = static_cast<float>(i);
  }
  std::uint32_t* d_keys = example::to_device(keys);
  float* d_values = example::to_device(values);
  sort_tiles<<<tiles, 256>>>(d_keys, d_values);
  EXAMPLE_CHECK(cudaGetLastError());
  const auto tile_keys = example::to_host(d_keys, keys.size());
  const auto tile_values = example::to_host(d_values, keys.size());
  for (int t = 0; t < tiles; ++t) {
    std::vector<std::uint32_t> idx(1024);
    std::iota(idx.begin(), idx.end(), static_cast<std::uint32_t>(t * 1024));
    std::stable_sort(idx.begin(), idx.end(), [&](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });
    for (int i = 0; i < 1024; ++i) {
      EXAMPLE_EXPECT(tile_keys[t * 1024 + i] == keys[idx[i]]);
      EXAMPLE_EXPECT(tile_values[t * 1024 + i] == values[idx[i]]);
    }
  }
  std::puts("radix_sort_examples: ok");
  return 0;
}
