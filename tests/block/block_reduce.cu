// Tests gpuprim::block_reduce: block sizes that are and are not powers of two, 1/3/4 items per
// thread, full and partial tiles, several reductions in a row through one temp_storage.
#include <gpuprim/block/block_reduce.cuh>
#include <gpuprim/functional.cuh>

#include "support/catch.hpp"
#include "support/test_util.cuh"

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace {

using namespace gpuprim_test;

constexpr int grid_blocks = 5;
constexpr int reps = 3;  // consecutive reductions per block reusing one temp_storage
constexpr int tiles = grid_blocks * reps;

/// Selects block_reduce::sum instead of reduce(..., op).
struct sum_tag {};

/// Each block reduces `reps` consecutive tiles of B * N items (blocked arrangement) through the
/// same temp_storage; valid_items < 0 means a full tile (only N == 1 has a partial form).
template <class T, int B, int N, class Op>
__global__ void __launch_bounds__(B) block_reduce_kernel(const T* in, T* out, int valid_items, Op op)
{
  using block_reduce_t = gpuprim::block_reduce<T, B>;
  __shared__ typename block_reduce_t::temp_storage storage;
  for (int r = 0; r < reps; ++r) {
    const int tile = blockIdx.x * reps + r;
    const T* tile_in = in + static_cast<std::size_t>(tile) * B * N;
    T items[N];
    for (int i = 0; i < N; ++i) items[i] = tile_in[threadIdx.x * N + i];
    block_reduce_t br(storage);
    T result;
    if constexpr (N == 1) {
      if constexpr (std::is_same<Op, sum_tag>::value) {
        result = valid_items < 0 ? br.sum(items[0]) : br.sum(items[0], valid_items);
      } else {
        result = valid_items < 0 ? br.reduce(items[0], op) : br.reduce(items[0], op, valid_items);
      }
    } else {
      if constexpr (std::is_same<Op, sum_tag>::value) {
        result = br.sum(items);
      } else {
        result = br.reduce(items, op);
      }
    }
    if (threadIdx.x == 0) out[tile] = result;
    __syncthreads();  // temp_storage is reused by the next reduction
  }
}

/// Items beyond valid_items: large values of both signs that would change any tested result.
template <class T>
T outlier(int i)
{
  const long long big = sizeof(T) == 1 ? 100 : 1000000;
  return value_traits<T>::from_int(i % 2 == 0 ? big : -(big / 2 + 1));
}

template <class T>
struct ref_plus {
  T operator()(const T& a, const T& b) const { return static_cast<T>(a + b); }
};
template <class T>
struct ref_min {
  T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};
template <class T>
struct ref_max {
  T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};

template <class T, int B, int N, class Op, class RefOp>
void run_case(Op op, RefOp ref_op, long long lo, long long hi)
{
  constexpr int tile_items = B * N;
  INFO("block threads " << B << ", items per thread " << N);
  const std::vector<T> base = random_vector<T>(std::size_t(tiles) * tile_items, lo, hi);
  device_vector<T> d_in(base.size()), d_out(tiles);

  auto check_tile_count = [&](int valid_items) {  // valid_items < 0: full tiles
    INFO("valid items " << valid_items);
    std::vector<T> in = base;
    std::vector<T> expected(tiles);
    const int valid = valid_items < 0 ? tile_items : valid_items;
    for (int t = 0; t < tiles; ++t) {
      T* tile = in.data() + std::size_t(t) * tile_items;
      for (int i = valid; i < tile_items; ++i) tile[i] = outlier<T>(i);
      T acc = tile[0];
      for (int i = 1; i < valid; ++i) acc = ref_op(acc, tile[i]);
      expected[t] = acc;
    }
    d_in.upload(in);
    d_out.poison();
    block_reduce_kernel<T, B, N, Op><<<grid_blocks, B>>>(d_in.data(), d_out.data(), valid_items, op);
    require_sync();
    check_equal_vectors(expected, d_out.download());
  };

  check_tile_count(-1);
  if constexpr (N == 1) {
    std::vector<int> counts = {1, 31, 33, B / 2 + 1, B - 1, B};
    counts.erase(std::remove_if(counts.begin(), counts.end(), [](int c) { return c < 1 || c > B; }), counts.end());
    std::sort(counts.begin(), counts.end());
    counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
    for (int c : counts) check_tile_count(c);
  }
}

template <int B>
using bt = std::integral_constant<int, B>;

}  // namespace

TEMPLATE_TEST_CASE("block_reduce: full and partial tiles, temp_storage reuse", "[block][block_reduce]",
                   bt<32>, bt<64>, bt<96>, bt<128>, bt<160>, bt<224>, bt<256>, bt<480>, bt<992>, bt<1024>)
{
  constexpr int B = TestType::value;
  SECTION("int sum, 1 item") { run_case<int, B, 1>(sum_tag{}, ref_plus<int>{}, -1000, 1000); }
  SECTION("int sum, 3 items") { run_case<int, B, 3>(sum_tag{}, ref_plus<int>{}, -1000, 1000); }
  SECTION("int maximum, 1 item") { run_case<int, B, 1>(gpuprim::maximum{}, ref_max<int>{}, -1000, 1000); }
  SECTION("uint8 sum (wraps), 4 items") {
    run_case<std::uint8_t, B, 4>(sum_tag{}, ref_plus<std::uint8_t>{}, 0, 255);
  }
  SECTION("float minimum, 4 items") { run_case<float, B, 4>(gpuprim::minimum{}, ref_min<float>{}, -1000, 1000); }
  SECTION("double plus, 1 item") { run_case<double, B, 1>(gpuprim::plus{}, ref_plus<double>{}, -1000, 1000); }
  SECTION("int64 maximum, 3 items") {
    run_case<std::int64_t, B, 3>(gpuprim::maximum{}, ref_max<std::int64_t>{}, -(1LL << 40), 1LL << 40);
  }
  SECTION("12-byte struct, custom op, 1 item") { run_case<triple, B, 1>(triple_op{}, triple_op{}, -1000, 1000); }
  SECTION("12-byte struct, custom op, 4 items") { run_case<triple, B, 4>(triple_op{}, triple_op{}, -1000, 1000); }
}
