// Tests gpuprim::warp_reduce: every logical warp size, full and partial reductions, result in every lane.
#include <gpuprim/functional.cuh>
#include <gpuprim/warp/warp_reduce.cuh>

#include "support/catch.hpp"
#include "support/test_util.cuh"

#include <cstdint>
#include <type_traits>
#include <vector>

namespace {

using namespace gpuprim_test;

constexpr int block_threads = 96;  // three hardware warps per block
constexpr int grid_blocks = 16;
constexpr int total_threads = block_threads * grid_blocks;

/// Selects warp_reduce::sum instead of reduce(x, op).
struct sum_tag {};

/// full: every lane valid; uniform: valid_lanes for every logical warp;
/// varying: logical warp g (global index) has 1 + g % W valid lanes.
enum class mode : int { full, uniform, varying };

template <int W>
__host__ __device__ int valid_lanes_of(mode m, int uniform_valid, int global_warp)
{
  return m == mode::full ? W : m == mode::uniform ? uniform_valid : 1 + global_warp % W;
}

template <class T, int W, class Op>
__global__ void __launch_bounds__(block_threads)
    warp_reduce_kernel(const T* in, T* out, mode m, int uniform_valid, Op op)
{
  using warp_reduce_t = gpuprim::warp_reduce<T, W>;
  __shared__ typename warp_reduce_t::temp_storage storage[block_threads / W];
  const int gid = blockIdx.x * block_threads + threadIdx.x;
  const int valid = valid_lanes_of<W>(m, uniform_valid, gid / W);
  warp_reduce_t wr(storage[threadIdx.x / W]);
  const T x = in[gid];
  T r;
  if constexpr (std::is_same<Op, sum_tag>::value) {
    r = m == mode::full ? wr.sum(x) : wr.sum(x, valid);
  } else {
    r = m == mode::full ? wr.reduce(x, op) : wr.reduce(x, op, valid);
  }
  out[gid] = r;
}

/// Items of invalid lanes: large values of both signs that would change any of the tested
/// reductions (their sum never cancels) if a lane's input were wrongly included.
template <class T>
T outlier(int i)
{
  const long long big = sizeof(T) == 1 ? 100 : 1000000;
  return value_traits<T>::from_int(i % 2 == 0 ? big : -(big / 2 + 1));
}

template <class T, int W, class Op, class RefOp>
void run_case(Op op, RefOp ref_op, long long lo, long long hi)
{
  INFO("logical warp threads " << W);
  const std::vector<T> base = random_vector<T>(total_threads, lo, hi);
  device_vector<T> d_in(total_threads), d_out(total_threads);

  auto check_mode = [&](mode m, int uniform_valid) {
    INFO("mode " << int(m) << ", uniform valid lanes " << uniform_valid);
    std::vector<T> in = base;
    std::vector<T> expected(total_threads);
    for (int g = 0; g < total_threads / W; ++g) {
      const int valid = valid_lanes_of<W>(m, uniform_valid, g);
      for (int l = valid; l < W; ++l) in[g * W + l] = outlier<T>(g * W + l);
      T acc = in[g * W];
      for (int l = 1; l < valid; ++l) acc = ref_op(acc, in[g * W + l]);
      for (int l = 0; l < W; ++l) expected[g * W + l] = acc;
    }
    d_in.upload(in);
    d_out.poison();
    warp_reduce_kernel<T, W, Op><<<grid_blocks, block_threads>>>(d_in.data(), d_out.data(), m, uniform_valid, op);
    require_sync();
    check_equal_vectors(expected, d_out.download());
  };

  check_mode(mode::full, W);
  for (int v = 1; v <= W; ++v) check_mode(mode::uniform, v);
  check_mode(mode::varying, 0);
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

template <int W>
using lw = std::integral_constant<int, W>;

}  // namespace

TEMPLATE_TEST_CASE("warp_reduce: full and partial, result in every lane", "[warp][warp_reduce]",
                   lw<1>, lw<2>, lw<4>, lw<8>, lw<16>, lw<32>)
{
  constexpr int W = TestType::value;
  SECTION("int sum") { run_case<int, W>(sum_tag{}, ref_plus<int>{}, -1000, 1000); }
  SECTION("int maximum") { run_case<int, W>(gpuprim::maximum{}, ref_max<int>{}, -1000, 1000); }
  // 32-bit integers over whole warps take one REDUX instruction (sm_80+) for plus, minimum and
  // maximum: signed and unsigned order over the whole range, and plus through reduce().
  SECTION("int minimum, whole range") {
    run_case<int, W>(gpuprim::minimum{}, ref_min<int>{}, -2147483647LL - 1, 2147483647LL);
  }
  SECTION("uint32 maximum, whole range") {
    run_case<std::uint32_t, W>(gpuprim::maximum{}, ref_max<std::uint32_t>{}, 0, 0xFFFFFFFFLL);
  }
  SECTION("uint32 minimum, whole range") {
    run_case<std::uint32_t, W>(gpuprim::minimum{}, ref_min<std::uint32_t>{}, 0, 0xFFFFFFFFLL);
  }
  SECTION("int plus through reduce") { run_case<int, W>(gpuprim::plus{}, ref_plus<int>{}, -1000, 1000); }
  SECTION("uint32 sum (wraps)") {
    run_case<std::uint32_t, W>(sum_tag{}, ref_plus<std::uint32_t>{}, 0, 0xFFFFFFFFLL);
  }
  SECTION("uint8 sum (wraps)") { run_case<std::uint8_t, W>(sum_tag{}, ref_plus<std::uint8_t>{}, 0, 255); }
  SECTION("int64 minimum") {
    run_case<std::int64_t, W>(gpuprim::minimum{}, ref_min<std::int64_t>{}, -(1LL << 40), 1LL << 40);
  }
  SECTION("float sum") { run_case<float, W>(sum_tag{}, ref_plus<float>{}, -1000, 1000); }
  SECTION("double plus") { run_case<double, W>(gpuprim::plus{}, ref_plus<double>{}, -1000, 1000); }
  SECTION("12-byte struct, custom op") { run_case<triple, W>(triple_op{}, triple_op{}, -1000, 1000); }
  SECTION("24-byte struct, custom op") { run_case<wide, W>(wide_op{}, wide_op{}, -1000, 1000); }
}
