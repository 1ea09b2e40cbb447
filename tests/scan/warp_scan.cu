// Tests gpuprim::warp_scan: every logical warp size, 1/3/4 items per lane, inclusive and exclusive
// scans and sums with and without aggregates, in place, and a non-commutative operator.
#include <gpuprim/functional.cuh>
#include <gpuprim/warp/warp_scan.cuh>

#include <cstdint>
#include <type_traits>
#include <vector>

#include "scan/scan_test_util.cuh"
#include "support/catch.hpp"
#include "support/test_util.cuh"

namespace {

using namespace gpuprim_test;
using scan_test::affine;
using scan_test::compose;

constexpr int block_threads = 96;  // three hardware warps per block
constexpr int grid_blocks = 4;
constexpr int total_threads = block_threads * grid_blocks;

/// Where each form writes: per item (total_threads * N) or per lane (total_threads).
template <class T>
struct outputs {
  T* inclusive;           // inclusive_scan(in, out, op, aggregate)
  T* inclusive_in_place;  // inclusive_scan(items, items, op)
  T* exclusive;           // exclusive_scan(in, out, init, op, aggregate)
  T* exclusive_in_place;  // exclusive_scan(items, items, init, op)
  T* no_init;             // exclusive_scan(in, out, op, aggregate): lane 0's first item undefined
  T* no_init_in_place;    // exclusive_scan(items, items, op)
  T* aggregates;          // 3 per lane: from the inclusive, exclusive and no-init forms
};

/// Sum: the *_sum members (init T{}); no-init forms are skipped.
template <class T, int W, int N, bool Sum, class Op>
__global__ void __launch_bounds__(block_threads) warp_scan_kernel(const T* in, outputs<T> out, T init, Op op) {
  using warp_scan_t = gpuprim::warp_scan<T, W>;
  __shared__ typename warp_scan_t::temp_storage storage[block_threads / W];
  const int gid = blockIdx.x * block_threads + threadIdx.x;
  warp_scan_t scan(storage[threadIdx.x / W]);
  T items[N];
  for (int i = 0; i < N; ++i) items[i] = in[gid * N + i];
  T result[N], copy[N], aggregate[3];
  auto store = [&](T* dst, const T (&v)[N]) {
    for (int i = 0; i < N; ++i) dst[gid * N + i] = v[i];
  };

  if constexpr (N == 1) {
    // One item: the scalar overloads.
    if constexpr (Sum) {
      scan.inclusive_sum(items[0], result[0], aggregate[0]);
      store(out.inclusive, result);
      scan.inclusive_sum(items[0], copy[0]);
      store(out.inclusive_in_place, copy);
      scan.exclusive_sum(items[0], result[0], aggregate[1]);
      store(out.exclusive, result);
      scan.exclusive_sum(items[0], copy[0]);
      store(out.exclusive_in_place, copy);
    } else {
      scan.inclusive_scan(items[0], result[0], op, aggregate[0]);
      store(out.inclusive, result);
      copy[0] = items[0];
      scan.inclusive_scan(copy[0], copy[0], op);
      store(out.inclusive_in_place, copy);
      scan.exclusive_scan(items[0], result[0], init, op, aggregate[1]);
      store(out.exclusive, result);
      copy[0] = items[0];
      scan.exclusive_scan(copy[0], copy[0], init, op);
      store(out.exclusive_in_place, copy);
      scan.exclusive_scan(items[0], result[0], op, aggregate[2]);
      store(out.no_init, result);
      copy[0] = items[0];
      scan.exclusive_scan(copy[0], copy[0], op);
      store(out.no_init_in_place, copy);
    }
  } else {
    auto reset = [&] {
      for (int i = 0; i < N; ++i) copy[i] = items[i];
    };
    if constexpr (Sum) {
      scan.inclusive_sum(items, result, aggregate[0]);
      store(out.inclusive, result);
      reset();
      scan.inclusive_sum(copy, copy);
      store(out.inclusive_in_place, copy);
      scan.exclusive_sum(items, result, aggregate[1]);
      store(out.exclusive, result);
      reset();
      scan.exclusive_sum(copy, copy);
      store(out.exclusive_in_place, copy);
    } else {
      scan.inclusive_scan(items, result, op, aggregate[0]);
      store(out.inclusive, result);
      reset();
      scan.inclusive_scan(copy, copy, op);
      store(out.inclusive_in_place, copy);
      scan.exclusive_scan(items, result, init, op, aggregate[1]);
      store(out.exclusive, result);
      reset();
      scan.exclusive_scan(copy, copy, init, op);
      store(out.exclusive_in_place, copy);
      scan.exclusive_scan(items, result, op, aggregate[2]);
      store(out.no_init, result);
      reset();
      scan.exclusive_scan(copy, copy, op);
      store(out.no_init_in_place, copy);
    }
  }
  for (int k = 0; k < 3; ++k) {
    if (!Sum || k < 2) out.aggregates[gid * 3 + k] = aggregate[k];
  }
}

template <class T, int W, int N, bool Sum, class Op, class RefOp>
void run_case(const std::vector<T>& in, T init, Op op, RefOp ref_op) {
  INFO("logical warp threads " << W << ", items per lane " << N << (Sum ? ", sums" : ""));
  const std::size_t items = std::size_t(total_threads) * N;
  REQUIRE(in.size() == items);
  const std::size_t segment = std::size_t(W) * N;  // items of one logical warp

  std::vector<T> inclusive(items), exclusive(items), aggregates(std::size_t(total_threads) * 3);
  for (std::size_t s = 0; s < items / segment; ++s) {
    const std::size_t first = s * segment;
    T running_incl = in[first];
    T running_excl = init;
    for (std::size_t k = 0; k < segment; ++k) {
      if (k > 0) running_incl = ref_op(running_incl, in[first + k]);
      inclusive[first + k] = running_incl;
      exclusive[first + k] = running_excl;
      running_excl = ref_op(running_excl, in[first + k]);
    }
    for (int l = 0; l < W; ++l) {
      for (int k = 0; k < 3; ++k) aggregates[(s * W + l) * 3 + k] = running_incl;
    }
  }

  device_vector<T> d_in(in);
  std::vector<device_vector<T>> d(6);
  for (auto& v : d) {
    REQUIRE(v.allocate(items));
    v.poison();
  }
  device_vector<T> d_aggregates(aggregates.size());
  d_aggregates.poison();
  const outputs<T> out{d[0].data(), d[1].data(), d[2].data(), d[3].data(), d[4].data(), d[5].data(),
                       d_aggregates.data()};
  warp_scan_kernel<T, W, N, Sum><<<grid_blocks, block_threads>>>(d_in.data(), out, init, op);
  require_sync();

  {
    INFO("inclusive (aggregate form)");
    check_equal_vectors(inclusive, d[0].download());
  }
  {
    INFO("inclusive (in place)");
    check_equal_vectors(inclusive, d[1].download());
  }
  {
    INFO("exclusive with init (aggregate form)");
    check_equal_vectors(exclusive, d[2].download());
  }
  {
    INFO("exclusive with init (in place)");
    check_equal_vectors(exclusive, d[3].download());
  }
  std::vector<T> got_aggregates = d_aggregates.download();
  if (!Sum) {
    // Without init, lane 0's first item is undefined and the rest is init-free: compare
    // op(init, got) with the exclusive reference, and skip the undefined item.
    for (int f = 4; f < 6; ++f) {
      INFO((f == 4 ? "exclusive without init (aggregate form)" : "exclusive without init (in place)"));
      std::vector<T> got = d[f].download();
      std::vector<T> expected = exclusive;
      for (std::size_t k = 0; k < items; ++k) {
        if (k % segment == 0) {
          got[k] = expected[k];
        } else {
          got[k] = ref_op(init, got[k]);
        }
      }
      check_equal_vectors(expected, got);
    }
  } else {
    for (int l = 0; l < total_threads; ++l) got_aggregates[l * 3 + 2] = aggregates[l * 3 + 2];  // not written
  }
  {
    INFO("aggregates");
    check_equal_vectors(aggregates, got_aggregates);
  }
}

template <class T>
struct ref_plus {
  T operator()(const T& a, const T& b) const { return static_cast<T>(a + b); }
};
template <class T>
struct ref_max {
  T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};

template <int W>
using lw = std::integral_constant<int, W>;

}  // namespace

TEMPLATE_TEST_CASE("warp_scan: every logical warp size", "[warp][warp_scan][scan]", lw<1>, lw<2>, lw<4>, lw<8>,
                   lw<16>, lw<32>) {
  constexpr int W = TestType::value;
  SECTION("int sums, 1 item") {
    run_case<int, W, 1, true>(random_vector<int>(total_threads, -1000, 1000), 0, gpuprim::plus{}, ref_plus<int>{});
  }
  SECTION("int sums, 3 items") {
    run_case<int, W, 3, true>(random_vector<int>(total_threads * 3, -1000, 1000), 0, gpuprim::plus{},
                              ref_plus<int>{});
  }
  SECTION("int maximum, 4 items") {
    run_case<int, W, 4, false>(random_vector<int>(total_threads * 4, -1000000, 1000000), -2000000000,
                               gpuprim::maximum{}, ref_max<int>{});
  }
  SECTION("affine maps (non-commutative), 1 item") {
    run_case<affine, W, 1, false>(scan_test::random_affines(total_threads), scan_test::random_affines(1)[0], compose{},
                                  compose{});
  }
  SECTION("affine maps (non-commutative), 3 items") {
    run_case<affine, W, 3, false>(scan_test::random_affines(total_threads * 3), scan_test::random_affines(1)[0],
                                  compose{}, compose{});
  }
  SECTION("uint8 sums (wrap), 4 items") {
    run_case<std::uint8_t, W, 4, true>(random_vector<std::uint8_t>(total_threads * 4, 0, 255), std::uint8_t(0),
                                       gpuprim::plus{}, ref_plus<std::uint8_t>{});
  }
  SECTION("double plus, 1 item") {
    run_case<double, W, 1, false>(random_vector<double>(total_threads, -1000, 1000), 0.5, gpuprim::plus{},
                                  ref_plus<double>{});
  }
  SECTION("12-byte struct, custom op, 3 items") {
    run_case<triple, W, 3, false>(random_vector<triple>(total_threads * 3, -1000, 1000), triple{1, 5000, -5000},
                                  triple_op{}, triple_op{});
  }
}
