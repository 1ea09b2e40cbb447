// docs/reduce.md: device, block and warp reduce (regions), and a main that checks each one
// (exit 77 without a GPU).
#include "example_util.cuh"

#include <algorithm>

// docs:begin workspace
#include <gpuprim/reduce.cuh>

// The workspace form: a size query (d_temp == nullptr), then the run. Nothing is allocated by
// gpuprim, so this can be captured in a CUDA graph; the workspace can serve later calls too.
cudaError_t sum_floats(const float* d_in, float* d_out, std::size_t n, cudaStream_t stream) {
  void* d_temp = nullptr;
  std::size_t temp_bytes = 0;
  cudaError_t err = gpuprim::sum(d_temp, temp_bytes, d_in, d_out, n, stream);  // size query
  if (err != cudaSuccess) return err;
  err = cudaMallocAsync(&d_temp, temp_bytes, stream);
  if (err != cudaSuccess) return err;
  err = gpuprim::sum(d_temp, temp_bytes, d_in, d_out, n, stream);
  cudaError_t free_err = cudaFreeAsync(d_temp, stream);
  return err != cudaSuccess ? err : free_err;
}
// docs:end workspace

// docs:begin operators
#include <climits>
#include <cstdint>

// The accumulator type is the type of `init`: 64-bit sums of 8-bit items cannot overflow.
cudaError_t sum_bytes(const std::int8_t* d_in, std::int64_t* d_out, std::size_t n, cudaStream_t s) {
  return gpuprim::reduce(d_in, d_out, n, std::int64_t{0}, gpuprim::plus{}, s);
}

// Smallest item, or INT_MAX for n == 0.
cudaError_t smallest(const int* d_in, int* d_out, std::size_t n, cudaStream_t s) {
  return gpuprim::reduce(d_in, d_out, n, INT_MAX, gpuprim::minimum{}, s);
}

// Any associative and commutative functor with a __device__ call operator...
struct max_abs {
  __host__ __device__ int operator()(int a, int b) const {
    a = a < 0 ? -a : a;
    b = b < 0 ? -b : b;
    return a < b ? b : a;
  }
};
cudaError_t largest_magnitude(const int* d_in, int* d_out, std::size_t n, cudaStream_t s) {
  return gpuprim::reduce(d_in, d_out, n, 0, max_abs{}, s);
}

// ...or an extended lambda (nvcc --extended-lambda) with a trailing return type.
cudaError_t xor_of_all(const unsigned* d_in, unsigned* d_out, std::size_t n, cudaStream_t s) {
  auto xor_op = [] __device__(unsigned a, unsigned b) -> unsigned { return a ^ b; };
  return gpuprim::reduce(d_in, d_out, n, 0u, xor_op, s);
}
// docs:end operators

// docs:begin segmented
// One sum per row of a CSR matrix: row r is values[row_offsets[r] .. row_offsets[r + 1]).
// Rows may be empty (their sum is 0); any mix of row lengths takes two launches.
cudaError_t row_sums(const float* d_values, const int* d_row_offsets, float* d_sums, std::size_t rows,
                     cudaStream_t stream) {
  return gpuprim::segmented_sum(d_values, d_sums, rows, d_row_offsets, d_row_offsets + 1, stream);
}
// docs:end segmented

// docs:begin block_reduce
#include <gpuprim/block/block_reduce.cuh>

// One partial sum per block of 256 threads, 4 items per thread; the last tile may be partial.
__global__ void __launch_bounds__(256) tile_sums(const int* in, int* partials, int n) {
  using block_reduce = gpuprim::block_reduce<int, 256>;
  __shared__ block_reduce::temp_storage storage;

  const int tile = blockIdx.x * 1024;
  int items[4];
  for (int i = 0; i < 4; ++i) {  // blocked: thread t holds items [4t, 4t + 4) of the tile
    const int k = tile + threadIdx.x * 4 + i;
    items[i] = k < n ? in[k] : 0;  // 0 is the identity of +
  }
  const int total = block_reduce(storage).sum(items);  // valid in thread 0 only
  if (threadIdx.x == 0) partials[blockIdx.x] = total;
}
// docs:end block_reduce

// docs:begin warp_reduce
#include <gpuprim/warp/warp_reduce.cuh>

// Row sums of a rows x 8 matrix: each logical warp of 8 lanes reduces one row.
__global__ void __launch_bounds__(128) row_sums(const float* matrix, float* sums, int rows) {
  using warp_reduce = gpuprim::warp_reduce<float, 8>;
  warp_reduce::temp_storage storage;  // empty: shuffles only

  const int row = (blockIdx.x * 128 + threadIdx.x) / 8;
  const int col = threadIdx.x % 8;
  // Every lane of the hardware warp must call, so rows past the end contribute zeros.
  const float x = row < rows ? matrix[row * 8 + col] : 0.0f;
  const float sum = warp_reduce(storage).sum(x);  // in all 8 lanes of the row
  if (row < rows && col == 0) sums[row] = sum;
}
// docs:end warp_reduce

int main() {
  example::exit_77_without_gpu();
  const int n = 5000;
  std::vector<int> ints(n);
  std::vector<float> floats(n);
  std::vector<std::int8_t> bytes(n);
  std::vector<unsigned> words(n);
  long long sum = 0;
  int least = INT_MAX, magnitude = 0;
  unsigned parity = 0;
  for (int i = 0; i < n; ++i) {
    ints[i] = (i * 37) % 201 - 100;
    floats[i] = static_cast<float>(ints[i]);
    bytes[i] = static_cast<std::int8_t>(127 - i % 3);
    words[i] = static_cast<unsigned>(i) * 2654435761u;
    sum += ints[i];
    least = ints[i] < least ? ints[i] : least;
    magnitude = std::abs(ints[i]) > magnitude ? std::abs(ints[i]) : magnitude;
    parity ^= words[i];
  }
  int* d_ints = example::to_device(ints);
  float* d_floats = example::to_device(floats);
  std::int8_t* d_bytes = example::to_device(bytes);
  unsigned* d_words = example::to_device(words);
  float* d_fsum = example::to_device(std::vector<float>(1));
  std::int64_t* d_i64 = example::to_device(std::vector<std::int64_t>(1));
  int* d_int = example::to_device(std::vector<int>(1));
  unsigned* d_u = example::to_device(std::vector<unsigned>(1));

  {  // segmented: rows of i % 7 items
    std::vector<int> offsets{0};
    while (offsets.back() < n) offsets.push_back(std::min(n, offsets.back() + int(offsets.size() % 7)));
    const std::size_t rows = offsets.size() - 1;
    int* d_offsets = example::to_device(offsets);
    float* d_rows = example::to_device(std::vector<float>(rows));
    EXAMPLE_CHECK(row_sums(d_floats, d_offsets, d_rows, rows, 0));
    const auto got = example::to_host(d_rows, rows);
    for (std::size_t r = 0; r < rows; ++r) {
      float t = 0;
      for (int i = offsets[r]; i < offsets[r + 1]; ++i) t += floats[i];
      EXAMPLE_EXPECT(got[r] == t);
    }
  }

  EXAMPLE_CHECK(sum_floats(d_floats, d_fsum, n, 0));
  EXAMPLE_EXPECT(example::to_host(d_fsum, 1)[0] == static_cast<float>(sum));
  EXAMPLE_CHECK(sum_bytes(d_bytes, d_i64, n, 0));
  long long byte_sum = 0;
  for (auto b : bytes) byte_sum += b;
  EXAMPLE_EXPECT(example::to_host(d_i64, 1)[0] == byte_sum);
  EXAMPLE_CHECK(smallest(d_ints, d_int, n, 0));
  EXAMPLE_EXPECT(example::to_host(d_int, 1)[0] == least);
  EXAMPLE_CHECK(largest_magnitude(d_ints, d_int, n, 0));
  EXAMPLE_EXPECT(example::to_host(d_int, 1)[0] == magnitude);
  EXAMPLE_CHECK(xor_of_all(d_words, d_u, n, 0));
  EXAMPLE_EXPECT(example::to_host(d_u, 1)[0] == parity);

  const int tiles = (n + 1023) / 1024;
  int* d_partials = example::to_device(std::vector<int>(tiles));
  tile_sums<<<tiles, 256>>>(d_ints, d_partials, n);
  EXAMPLE_CHECK(cudaGetLastError());
  long long tile_total = 0;
  for (int p : example::to_host(d_partials, tiles)) tile_total += p;
  EXAMPLE_EXPECT(tile_total == sum);

  const int rows = n / 8;
  float* d_rows = example::to_device(std::vector<float>(rows));
  row_sums<<<(rows * 8 + 127) / 128, 128>>>(d_floats, d_rows, rows);
  EXAMPLE_CHECK(cudaGetLastError());
  const std::vector<float> row = example::to_host(d_rows, rows);
  for (int r = 0; r < rows; ++r) {
    float expect = 0;
    for (int c = 0; c < 8; ++c) expect += floats[r * 8 + c];
    EXAMPLE_EXPECT(row[r] == expect);
  }
  std::puts("reduce_examples: ok");
  return 0;
}
