// The block_scan test kernel and runner, shared by the TUs that split the block sizes: each
// block scans several tiles in a row through one temp_storage, with every form of the API and a
// running prefix callback carried from tile to tile.
#pragma once

#include <gpuprim/block/block_scan.cuh>
#include <gpuprim/functional.cuh>

#include <cstdint>
#include <type_traits>
#include <vector>

#include "scan/scan_test_util.cuh"
#include "support/catch.hpp"
#include "support/test_util.cuh"

namespace block_scan_test {

using namespace gpuprim_test;

constexpr int grid_blocks = 3;
constexpr int reps = 3;  // tiles per block, scanned one after another through one temp_storage
constexpr int tiles = grid_blocks * reps;

/// A running prefix over the tiles of one block: returns the total so far, then adds the tile's
/// aggregate (CUB's BlockPrefixCallbackOp). Every lane of warp 0 keeps the same running value.
template <class T, class Op>
struct running_prefix {
  T running;
  Op op;
  __device__ T operator()(const T& aggregate) {
    const T prefix = running;
    running = static_cast<T>(op(running, aggregate));
    return prefix;
  }
};

/// Outputs per item (tiles * B * N) and per tile.
template <class T>
struct outputs {
  T* inclusive;           // inclusive_scan(in, out, op, aggregate)
  T* inclusive_in_place;  // inclusive_scan(items, items, op)
  T* exclusive;           // exclusive_scan(in, out, init, op, aggregate)
  T* exclusive_in_place;  // exclusive_scan(items, items, init, op)
  T* exclusive_running;   // exclusive_scan(items, items, op, prefix_op), running from init
  T* inclusive_running;   // inclusive_scan(items, items, op, prefix_op), running from init
  T* aggregates;          // 2 per tile: from the inclusive and exclusive forms, thread B - 1's
};

template <class T, int B, int N, bool Sum, class Op>
__global__ void __launch_bounds__(B) block_scan_kernel(const T* in, outputs<T> out, T init, Op op) {
  using block_scan_t = gpuprim::block_scan<T, B>;
  __shared__ typename block_scan_t::temp_storage storage;
  running_prefix<T, Op> exclusive_prefix{init, op}, inclusive_prefix{init, op};
  for (int r = 0; r < reps; ++r) {
    const int tile = blockIdx.x * reps + r;
    const std::size_t first = (std::size_t(tile) * B + threadIdx.x) * N;
    T items[N], result[N], copy[N], aggregate[2];
    for (int i = 0; i < N; ++i) items[i] = in[first + i];
    auto store = [&](T* dst, const T (&v)[N]) {
      for (int i = 0; i < N; ++i) dst[first + i] = v[i];
    };
    auto reset = [&] {
      for (int i = 0; i < N; ++i) copy[i] = items[i];
    };
    block_scan_t scan(storage);

    if constexpr (N == 1) {
      if constexpr (Sum) {
        scan.inclusive_sum(items[0], result[0], aggregate[0]);
      } else {
        scan.inclusive_scan(items[0], result[0], op, aggregate[0]);
      }
      store(out.inclusive, result);
      __syncthreads();
      reset();
      if constexpr (Sum) {
        scan.inclusive_sum(copy[0], copy[0]);
      } else {
        scan.inclusive_scan(copy[0], copy[0], op);
      }
      store(out.inclusive_in_place, copy);
      __syncthreads();
      if constexpr (Sum) {
        scan.exclusive_sum(items[0], result[0], aggregate[1]);
      } else {
        scan.exclusive_scan(items[0], result[0], init, op, aggregate[1]);
      }
      store(out.exclusive, result);
      __syncthreads();
      reset();
      if constexpr (Sum) {
        scan.exclusive_sum(copy[0], copy[0]);
      } else {
        scan.exclusive_scan(copy[0], copy[0], init, op);
      }
      store(out.exclusive_in_place, copy);
      __syncthreads();
      reset();
      if constexpr (Sum) {
        scan.exclusive_sum(copy[0], copy[0], exclusive_prefix);
      } else {
        scan.exclusive_scan(copy[0], copy[0], op, exclusive_prefix);
      }
      store(out.exclusive_running, copy);
      __syncthreads();
      reset();
      if constexpr (Sum) {
        scan.inclusive_sum(copy[0], copy[0], inclusive_prefix);
      } else {
        scan.inclusive_scan(copy[0], copy[0], op, inclusive_prefix);
      }
      store(out.inclusive_running, copy);
    } else {
      if constexpr (Sum) {
        scan.inclusive_sum(items, result, aggregate[0]);
      } else {
        scan.inclusive_scan(items, result, op, aggregate[0]);
      }
      store(out.inclusive, result);
      __syncthreads();
      reset();
      if constexpr (Sum) {
        scan.inclusive_sum(copy, copy);
      } else {
        scan.inclusive_scan(copy, copy, op);
      }
      store(out.inclusive_in_place, copy);
      __syncthreads();
      if constexpr (Sum) {
        scan.exclusive_sum(items, result, aggregate[1]);
      } else {
        scan.exclusive_scan(items, result, init, op, aggregate[1]);
      }
      store(out.exclusive, result);
      __syncthreads();
      reset();
      if constexpr (Sum) {
        scan.exclusive_sum(copy, copy);
      } else {
        scan.exclusive_scan(copy, copy, init, op);
      }
      store(out.exclusive_in_place, copy);
      __syncthreads();
      reset();
      if constexpr (Sum) {
        scan.exclusive_sum(copy, copy, exclusive_prefix);
      } else {
        scan.exclusive_scan(copy, copy, op, exclusive_prefix);
      }
      store(out.exclusive_running, copy);
      __syncthreads();
      reset();
      if constexpr (Sum) {
        scan.inclusive_sum(copy, copy, inclusive_prefix);
      } else {
        scan.inclusive_scan(copy, copy, op, inclusive_prefix);
      }
      store(out.inclusive_running, copy);
    }
    // The aggregate reaches every thread: the last thread reports it.
    if (threadIdx.x == B - 1) {
      out.aggregates[tile * 2] = aggregate[0];
      out.aggregates[tile * 2 + 1] = aggregate[1];
    }
    __syncthreads();  // temp_storage is reused by the next tile
  }
}

template <class T, int B, int N, bool Sum, class Op, class RefOp>
void run_case(const std::vector<T>& in, T init, Op op, RefOp ref_op) {
  INFO("block threads " << B << ", items per thread " << N << (Sum ? ", sums" : ""));
  constexpr std::size_t tile_items = std::size_t(B) * N;
  const std::size_t items = tile_items * tiles;
  REQUIRE(in.size() == items);

  std::vector<T> inclusive(items), exclusive(items), exclusive_running(items), inclusive_running(items);
  std::vector<T> aggregates(std::size_t(tiles) * 2);
  for (int b = 0; b < grid_blocks; ++b) {
    T running = init;  // over the block's tiles
    for (int r = 0; r < reps; ++r) {
      const int t = b * reps + r;
      const std::size_t first = std::size_t(t) * tile_items;
      T incl = in[first];
      T excl = init;
      for (std::size_t k = 0; k < tile_items; ++k) {
        if (k > 0) incl = ref_op(incl, in[first + k]);
        inclusive[first + k] = incl;
        exclusive[first + k] = excl;
        excl = ref_op(excl, in[first + k]);
        exclusive_running[first + k] = running;
        running = ref_op(running, in[first + k]);
        inclusive_running[first + k] = running;
      }
      aggregates[t * 2] = incl;
      aggregates[t * 2 + 1] = incl;
    }
  }

  device_vector<T> d_in(in);
  std::vector<device_vector<T>> d(7);
  for (std::size_t f = 0; f < d.size(); ++f) {
    REQUIRE(d[f].allocate(f < 6 ? items : aggregates.size()));
    d[f].poison();
  }
  const outputs<T> out{d[0].data(), d[1].data(), d[2].data(), d[3].data(), d[4].data(), d[5].data(), d[6].data()};
  block_scan_kernel<T, B, N, Sum><<<grid_blocks, B>>>(d_in.data(), out, init, op);
  require_sync();

  const char* names[] = {"inclusive (aggregate form)", "inclusive (in place)", "exclusive with init (aggregate form)",
                         "exclusive with init (in place)", "exclusive, running prefix callback",
                         "inclusive, running prefix callback", "aggregates"};
  const std::vector<T>* expected[] = {&inclusive, &inclusive, &exclusive, &exclusive,
                                      &exclusive_running, &inclusive_running, &aggregates};
  for (int f = 0; f < 7; ++f) {
    INFO(names[f]);
    check_equal_vectors(*expected[f], d[f].download());
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

/// The cases every block size runs.
template <int B>
void run_all_cases() {
  using scan_test::affine;
  using scan_test::compose;
  constexpr int t = tiles * B;
  SECTION("int sums, 1 item") { run_case<int, B, 1, true>(random_vector<int>(t, -1000, 1000), 0, gpuprim::plus{}, ref_plus<int>{}); }
  SECTION("int sums, 4 items") {
    run_case<int, B, 4, true>(random_vector<int>(t * 4, -1000, 1000), 0, gpuprim::plus{}, ref_plus<int>{});
  }
  SECTION("int maximum, 3 items") {
    run_case<int, B, 3, false>(random_vector<int>(t * 3, -1000000, 1000000), -2000000000, gpuprim::maximum{},
                               ref_max<int>{});
  }
  SECTION("affine maps (non-commutative), 1 item") {
    run_case<affine, B, 1, false>(scan_test::random_affines(t), scan_test::random_affines(1)[0], compose{}, compose{});
  }
  SECTION("affine maps (non-commutative), 3 items") {
    run_case<affine, B, 3, false>(scan_test::random_affines(t * 3), scan_test::random_affines(1)[0], compose{},
                                  compose{});
  }
  SECTION("uint8 sums (wrap), 4 items") {
    run_case<std::uint8_t, B, 4, true>(random_vector<std::uint8_t>(t * 4, 0, 255), std::uint8_t(0), gpuprim::plus{},
                                       ref_plus<std::uint8_t>{});
  }
  SECTION("double plus, 3 items") {
    run_case<double, B, 3, false>(random_vector<double>(t * 3, -1000, 1000), 0.5, gpuprim::plus{}, ref_plus<double>{});
  }
  SECTION("12-byte struct, custom op, 1 item") {
    run_case<triple, B, 1, false>(random_vector<triple>(t, -1000, 1000), triple{1, 5000, -5000}, triple_op{},
                                  triple_op{});
  }
}

}  // namespace block_scan_test
