// The segmented sort's tiers and workspace bounds (device/segmented_sort.cuh) read as a table: for
// segment sizes of every kind, a host model of the classification (a chunk of 256 segments counts
// its packed keys into windows, its solo segments into tiles of their own, its big segments into
// Onesweep tiles) never needs more queue entries, warp-queue entries, slots or tiles than the bounds
// the workspace is sized by, and no packed window's segments overrun a tile.
#include <gpuprim/radix_sort.cuh>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "support/catch.hpp"

namespace {

namespace gd = gpuprim::detail;

struct counts {
  std::size_t queue = 0, warp_queue = 0, slots = 0, tiles = 0;
};

/// The classification of `sizes` as the kernels do it; checks every packed window's span.
counts classify(const std::vector<std::size_t>& sizes, std::size_t onesweep_tile) {
  counts c;
  for (std::size_t chunk = 0; chunk * gd::segment_chunk < sizes.size(); ++chunk) {
    std::vector<std::size_t> starts, lengths;  // the chunk's packed line
    std::size_t packed = 0, solo = 0;
    for (std::size_t s = chunk * gd::segment_chunk; s < std::min(sizes.size(), (chunk + 1) * gd::segment_chunk); ++s) {
      const std::size_t len = sizes[s];
      switch (gd::tier_of(len)) {
        case gd::segment_tier::thread:
          REQUIRE(len <= std::size_t(gpuprim::detail::segment_sort_thread_max));
          break;
        case gd::segment_tier::warp:
          ++c.warp_queue;
          break;
        case gd::segment_tier::packed:
          starts.push_back(packed);
          lengths.push_back(len);
          packed += len;
          break;
        case gd::segment_tier::solo:
          REQUIRE(len <= std::size_t(gd::segment_tile_items));
          ++solo;
          break;
        case gd::segment_tier::big:
          ++c.slots;
          c.tiles += (len + onesweep_tile - 1) / onesweep_tile;
          break;
      }
    }
    const std::size_t windows = (packed + gd::segment_window - 1) / gd::segment_window;
    for (std::size_t k = 0; k < windows; ++k) {
      std::size_t first = ~std::size_t(0), end = 0, owned = 0;
      for (std::size_t g = 0; g < starts.size(); ++g) {
        if (starts[g] / gd::segment_window != k) continue;
        first = std::min(first, starts[g]);
        end = std::max(end, starts[g] + lengths[g]);
        ++owned;
      }
      if (owned == 0) continue;
      CHECK(end - first <= std::size_t(gd::segment_tile_items));
      CHECK(owned < std::size_t(1) << gd::segment_index_bits);
    }
    c.queue += windows + solo;
  }
  return c;
}

void check(const std::vector<std::size_t>& sizes) {
  std::size_t n = 0;
  for (std::size_t len : sizes) n += len;
  n += sizes.size() % 7;  // gaps
  constexpr std::size_t onesweep_tile = gd::segmented_pass_config<std::uint32_t, std::uint32_t>::tile_items;
  const counts c = classify(sizes, onesweep_tile);
  const gd::segmented_sort_bounds b = gd::bound_segmented_sort(n, sizes.size(), onesweep_tile);
  CAPTURE(n, sizes.size(), c.queue, b.queue, c.warp_queue, b.warp_queue, c.slots, b.slots, c.tiles, b.tiles);
  CHECK(c.queue <= b.queue);
  CHECK(c.warp_queue <= b.warp_queue);
  CHECK(c.slots <= b.slots);
  CHECK(c.tiles <= b.tiles);
}

}  // namespace

TEST_CASE("segmented sort: the tiers' counts stay within the workspace's bounds", "[sort][host][segmented]") {
  std::mt19937_64 rng(7);
  for (std::size_t size : {0, 1, 8, 9, 128, 129, 1024, 1025, 3072, 3073, 4096, 4097, 12288, 12289, 100000}) {
    CAPTURE(size);
    for (std::size_t count : {1, 255, 256, 257, 1000}) check(std::vector<std::size_t>(count, size));
  }
  for (int round = 0; round < 200; ++round) {
    std::vector<std::size_t> sizes(1 + rng() % 3000);
    const int kind = round % 4;
    for (auto& s : sizes) {
      const double u = double(rng() % 1000000 + 1) / 1e6;
      s = kind == 0 ? rng() % 5000 : kind == 1 ? static_cast<std::size_t>(std::pow(u, -1.2)) - 1
                   : kind == 2 ? (rng() % 2 ? 1025 + rng() % 100 : 9 + rng() % 10) : 4097 + rng() % 20000;
    }
    check(sizes);
  }
  // The workspace size query needs no GPU and grows with n.
  std::size_t small = 0, large = 0;
  const std::uint32_t* k = nullptr;
  std::uint32_t* out = nullptr;
  const long long* o = nullptr;
  REQUIRE(gpuprim::segmented_radix_sort_keys(nullptr, small, k, out, 1000, 10, o, o) == cudaSuccess);
  REQUIRE(gpuprim::segmented_radix_sort_keys(nullptr, large, k, out, 1000000, 10, o, o) == cudaSuccess);
  CHECK(small > 0);
  CHECK(large > small);
  std::size_t none = 0;
  REQUIRE(gpuprim::segmented_radix_sort_keys(nullptr, none, k, out, 1000, 10, o, o, 0, 33) ==
          cudaErrorInvalidValue);
}
