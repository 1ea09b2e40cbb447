// Tests the streaming scan (tile/scan_streaming.cuh) at every size, not only the large inputs
// that reach it by default: detail::scan_force_streaming makes every call with suitable types
// stream (raw pointers to 4- or 8-byte items on both sides, a reorderable operator). Sizes around the
// streaming tile (32 KiB of input), heads and tails from misaligned pointers, in place, and calls
// that must not stream (other item sizes, operators that cannot be reordered) still scanning
// right through the tile-per-block scan. And with the default shape just above the size from which
// the scans stream, every pair of input and output offsets within 16 bytes.
#include <gpuprim/scan.cuh>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "scan/device_scan_common.cuh"
#include "scan/scan_test_util.cuh"
#include "support/catch.hpp"
#include "support/test_util.cuh"

using namespace scan_test;
using gpuprim_test::device_vector;
using gpuprim_test::random_exact_vector;
using gpuprim_test::random_vector;
using gpuprim_test::require_sync;
using streaming = gpuprim::detail::scan_force_streaming;

namespace {

template <class T>
constexpr std::size_t streaming_tile() {
  using params = gpuprim::detail::scan_params<const T*, T*, T, T, gpuprim::plus>;
  return gpuprim::detail::streaming_scan<params>::tile_items;
}

// Sizes: around one and two streaming tiles, a prime spanning several, and many tiles.
std::vector<std::size_t> streaming_sizes(std::size_t tile) {
  return {1, 2, 31, 33, tile - 1, tile, tile + 1, 2 * tile - 3, 2 * tile, 2 * tile + 5, 7 * tile + 13, 1000003};
}

// Every size at input/output offsets (0, 0), (1, 1) and (3, 1): aligned, a common head, and an
// output that stays misaligned after the head (no vector stores: the tile-per-block scan).
template <api A, class T, class Make, class Op, class HostOp>
void check_streaming(Make make_input, T init, Op op, HostOp host_op) {
  const std::size_t offsets[][2] = {{0, 0}, {1, 1}, {3, 1}};
  for (std::size_t n : streaming_sizes(streaming_tile<T>())) {
    for (const auto& o : offsets) check_scan<A, T, T, streaming>(make_input(n), init, op, host_op, o[0], o[1]);
  }
}

}  // namespace

TEST_CASE("streaming scan: 8-byte items", "[scan][device][streaming]") {
  SECTION("int64 exclusive_sum") {
    auto exact = [](std::size_t n) { return random_exact_vector<std::int64_t>(n); };
    check_streaming<api::exclusive_sum>(exact, std::int64_t(0), gpuprim::plus{}, host_plus{});
  }
  SECTION("double inclusive_sum (integer-valued, exact)") {
    auto exact = [](std::size_t n) { return random_exact_vector<double>(n); };
    check_streaming<api::inclusive_sum>(exact, 0.0, gpuprim::plus{}, host_plus{});
  }
  SECTION("uint64 exclusive_scan, minimum, init 2^63") {
    auto wide = [](std::size_t n) { return random_vector<std::uint64_t>(n, 0, 1LL << 62); };
    check_streaming<api::exclusive_scan>(wide, std::uint64_t(1) << 63, gpuprim::minimum{}, host_min{});
  }
}

TEST_CASE("streaming scan: 4-byte items", "[scan][device][streaming]") {
  SECTION("int32 exclusive_sum") {
    auto exact = [](std::size_t n) { return random_exact_vector<std::int32_t>(n); };
    check_streaming<api::exclusive_sum>(exact, std::int32_t(0), gpuprim::plus{}, host_plus{});
  }
  SECTION("float inclusive_sum (integer-valued, exact)") {
    auto exact = [](std::size_t n) { return random_exact_vector<float>(n); };
    check_streaming<api::inclusive_sum>(exact, 0.0f, gpuprim::plus{}, host_plus{});
  }
  SECTION("uint32 inclusive_scan, maximum") {
    auto words = [](std::size_t n) { return random_vector<std::uint32_t>(n, 0, 0xffffffffLL); };
    check_streaming<api::inclusive_scan>(words, 0u, gpuprim::maximum{}, host_max{});
  }
  SECTION("int32 exclusive_scan, minimum, init 7") {
    auto ints = [](std::size_t n) { return random_vector<std::int32_t>(n, -2147483647LL - 1, 2147483647LL); };
    check_streaming<api::exclusive_scan>(ints, std::int32_t(7), gpuprim::minimum{}, host_min{});
  }
}

TEST_CASE("streaming scan: in place", "[scan][device][streaming]") {
  const std::size_t tile = streaming_tile<double>();
  for (std::size_t n : {tile + 1, 3 * tile + 2, std::size_t(300001)}) {
    for (std::size_t offset : {0, 1}) {
      const auto wide = random_exact_vector<double>(n);
      check_in_place<api::exclusive_sum, streaming>(n, offset, 0.0, gpuprim::plus{}, host_plus{}, wide);
      check_in_place<api::inclusive_sum, streaming>(n, offset, 0.0, gpuprim::plus{}, host_plus{}, wide);
    }
  }
  const std::size_t int_tile = streaming_tile<std::int32_t>();
  for (std::size_t n : {int_tile + 3, 2 * int_tile - 1}) {
    for (std::size_t offset : {0, 3}) {
      const auto ints = random_exact_vector<std::int32_t>(n);
      check_in_place<api::exclusive_sum, streaming>(n, offset, 0, gpuprim::plus{}, host_plus{}, ints);
      check_in_place<api::inclusive_sum, streaming>(n, offset, 0, gpuprim::plus{}, host_plus{}, ints);
    }
  }
}

TEST_CASE("streaming scan: calls that do not stream still scan in order", "[scan][device][streaming]") {
  using affine_params = gpuprim::detail::scan_params<const affine*, affine*, affine, affine, compose>;
  using int_params = gpuprim::detail::scan_params<const int*, int*, int, int, gpuprim::plus>;
  using long_params = gpuprim::detail::scan_params<const long long*, long long*, long long, long long, gpuprim::plus>;
  using short_params = gpuprim::detail::scan_params<const short*, short*, short, short, gpuprim::plus>;
  using widening_params = gpuprim::detail::scan_params<const std::uint8_t*, unsigned*, unsigned, unsigned, gpuprim::plus>;
  static_assert(!gpuprim::detail::streaming_scan<affine_params>::applicable);
  static_assert(gpuprim::detail::streaming_scan<int_params>::applicable);
  static_assert(gpuprim::detail::streaming_scan<long_params>::applicable);
  static_assert(!gpuprim::detail::streaming_scan<short_params>::applicable);
  static_assert(!gpuprim::detail::streaming_scan<widening_params>::applicable);  // 16 items in, 4 out per vector
  static_assert(!gpuprim::detail::streaming_scan_reorders<gpuprim::maximum, double>);  // NaN order
  static_assert(gpuprim::detail::streaming_scan_reorders<gpuprim::plus, double>);
  const std::size_t tile = streaming_tile<double>();
  for (std::size_t n : {tile + 1, 5 * tile + 3}) {
    check_scan<api::inclusive_scan, affine, affine, streaming>(random_affines(n), affine_identity(), compose{},
                                                                compose{});
    const auto bytes = random_vector<std::uint8_t>(n, 0, 255);
    check_scan<api::exclusive_sum, std::uint32_t, std::uint32_t, streaming>(bytes, 0u, gpuprim::plus{}, host_plus{});
    auto wide = [](std::size_t m) { return random_vector<double>(m, -1000000, 1000000); };
    check_scan<api::inclusive_scan, double, double, streaming>(wide(n), 0.0, gpuprim::maximum{}, host_max{});
  }
}

namespace {

/// The default-shape streaming threshold of items of T (n minus the peeled head must reach it).
template <class T>
constexpr std::size_t streaming_threshold() {
  return gpuprim::detail::streaming_scan_min_items<sizeof(T)>;
}

/// Every (input, output) pair of item offsets within 16 bytes at n items with the default shape:
/// pairs with the same offset (modulo 16 bytes) stream, the others take the tile-per-block scan
/// (a misaligned output after the head); both must scan right. Small mode (compute-sanitizer):
/// the pairs (0, 0) and (1, 1) only.
template <api A, class T, class Op, class HostOp>
void check_every_offset(const std::vector<T>& h_in, T init, Op op, HostOp host_op) {
  constexpr std::size_t per_16 = 16 / sizeof(T);
  const bool small = gpuprim_test::small_mode();
  for (std::size_t in = 0; in < per_16; ++in) {
    for (std::size_t out = 0; out < per_16; ++out) {
      if (small && !(in == out && in < 2)) continue;
      check_scan<A, T, T>(h_in, init, op, host_op, in, out);
    }
  }
}

}  // namespace

TEST_CASE("streaming scan: every input and output offset just above the streaming threshold",
          "[scan][device][streaming]") {
  SECTION("int32 exclusive_sum") {
    // Above the threshold by a tile and 3 items for every head (at most 3 items of 4 bytes).
    const std::size_t n = streaming_threshold<std::int32_t>() + streaming_tile<std::int32_t>() + 3 + 3;
    check_every_offset<api::exclusive_sum>(random_exact_vector<std::int32_t>(n), std::int32_t(0), gpuprim::plus{},
                                           host_plus{});
  }
  SECTION("double inclusive_sum (integer-valued, exact)") {
    const std::size_t n = streaming_threshold<double>() + streaming_tile<double>() + 1 + 1;
    check_every_offset<api::inclusive_sum>(random_exact_vector<double>(n), 0.0, gpuprim::plus{}, host_plus{});
  }
}
