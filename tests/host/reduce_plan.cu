// Host logic of device reduce: its grouping (a function of n alone), the grid plan, the logical
// source split and the workspace layout.
#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include <gpuprim/reduce.cuh>

#include "support/catch.hpp"

namespace {

template <class T>
using tile_for = gpuprim::detail::reduce_chunk<gpuprim::detail::reduce_default_shape<T>,
                                               gpuprim::detail::logical_vector_source<T, false>, T, gpuprim::plus>;

// Grids of the GPUs whose plans the GPU test runs (SMs x blocks of 512 threads an SM), and others.
const std::size_t grids[] = {1, 2, 7, 40, 80, 58, 174, 114, 456, 132, 264, 528, 1056, 4096, 100000};

template <class T>
void check_plans(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  using tile_t = tile_for<T>;
  const std::size_t tile_items = tile_t::tile_vectors * tile_t::vector_items;
  const std::size_t max_chunks = gpuprim::detail::reduce_max_chunks;
  std::vector<std::size_t> sizes = {0, 1, 15, 16, 17, tile_items - 1, tile_items, tile_items + 1,
                                    max_chunks * tile_items - 1, max_chunks * tile_items,
                                    max_chunks * tile_items + 1, std::size_t(1) << 28, (std::size_t(1) << 28) + 7,
                                    std::size_t(3) << 31};
  for (int trial = 0; trial < 300; ++trial) {
    sizes.push_back(trial < 40 ? std::size_t(trial) * tile_items / 8 + trial % 3 : rng() % (64 * tile_items));
  }
  for (int trial = 0; trial < 20; ++trial) sizes.push_back(rng() % (std::size_t(1) << 34));

  for (const std::size_t n : sizes) {
    INFO("n=" << n);
    const auto logical = gpuprim::detail::make_reduce_plan<tile_t>(n, 1);
    // The grouping covers the n items exactly, in chunks of whole tiles, at most max_chunks.
    REQUIRE(logical.vectors * tile_t::vector_items + std::size_t(logical.tail) == n);
    REQUIRE(logical.tiles * tile_t::tile_vectors >= logical.vectors);
    REQUIRE((logical.tiles == 0 || (logical.tiles - 1) * tile_t::tile_vectors < logical.vectors));
    REQUIRE(logical.chunks <= max_chunks);
    REQUIRE(logical.chunks == (n == 0 ? 0 : logical.tiles == 0 ? 1 : (logical.tiles + logical.tiles_per_chunk - 1) /
                                                                           logical.tiles_per_chunk));
    if (logical.tiles <= max_chunks) REQUIRE(logical.tiles_per_chunk == 1);
    std::size_t next_tile = 0;
    for (std::size_t c = 0; c < logical.chunks; ++c) {
      REQUIRE(logical.first_tile(c) == next_tile);
      REQUIRE((logical.end_tile(c) > logical.first_tile(c) || logical.tiles == 0));
      REQUIRE(logical.end_tile(c) - logical.first_tile(c) <= logical.tiles_per_chunk);
      next_tile = logical.end_tile(c);
      if (c + 1 < logical.chunks) {
        REQUIRE(logical.valid_threads(c) == tile_t::block_threads);
        // A non-last chunk holds only full tiles: the fast path never meets the input's end.
        REQUIRE(logical.end_tile(c) * tile_t::tile_vectors < logical.vectors);
      }
    }
    REQUIRE(next_tile == logical.tiles);
    if (logical.chunks > 0) {
      const int valid = logical.valid_threads(logical.chunks - 1);
      REQUIRE(valid >= 1);
      REQUIRE(valid <= tile_t::block_threads);
    }
    // The workspace (from n alone) holds one partial per chunk whenever there are several.
    const auto layout = gpuprim::detail::reduce_workspace<tile_t, T>(n);
    if (logical.chunks > 1) REQUIRE(layout.part_bytes[0] >= logical.chunks * sizeof(T));
    if (logical.chunks <= 1) REQUIRE(layout.bytes() == 0);

    for (const std::size_t max_grid : grids) {
      INFO("max_grid=" << max_grid);
      const auto plan = gpuprim::detail::make_reduce_plan<tile_t>(n, max_grid);
      // Only the grid depends on it.
      REQUIRE(plan.vectors == logical.vectors);
      REQUIRE(plan.tail == logical.tail);
      REQUIRE(plan.tiles == logical.tiles);
      REQUIRE(plan.tiles_per_chunk == logical.tiles_per_chunk);
      REQUIRE(plan.chunks == logical.chunks);
      REQUIRE(plan.grid >= 1);
      REQUIRE(plan.grid <= std::max<std::size_t>(max_grid, 1));
      REQUIRE((plan.grid <= plan.chunks || plan.chunks == 0));
      // Every chunk is run by exactly one (block, round), every block runs at least one.
      std::vector<int> runs(plan.chunks, 0);
      for (unsigned b = 0; b < plan.grid; ++b) {
        unsigned round = 0;
        for (; plan.chunk_of(b, round) < plan.chunks; ++round) ++runs[plan.chunk_of(b, round)];
        REQUIRE((round > 0 || plan.chunks == 0));
      }
      for (std::size_t c = 0; c < plan.chunks; ++c) REQUIRE(runs[c] == 1);
    }
  }
}

}  // namespace

TEST_CASE("reduce plan: the grouping depends on n alone, every chunk runs once on any grid", "[host][reduce]") {
  const std::uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  check_plans<std::int8_t>(seed);
  check_plans<std::int32_t>(seed);
  check_plans<double>(seed);
}

TEST_CASE("reduce plan: the workspace does not depend on the input's address", "[host][reduce]") {
  // The size query is made before the pointer is known to be aligned or not: both sources' tiles
  // must cut the same chunks.
  using aligned = tile_for<float>;
  using shifted = gpuprim::detail::reduce_chunk<gpuprim::detail::reduce_default_shape<float>,
                                                gpuprim::detail::logical_vector_source<float, true>, float,
                                                gpuprim::plus>;
  STATIC_REQUIRE(aligned::tile_vectors == shifted::tile_vectors);
  STATIC_REQUIRE(aligned::vector_items == shifted::vector_items);
  // 4-byte items at every misalignment: the logical split is the same.
  for (std::uintptr_t offset = 0; offset < 16; offset += 4) {
    const float* in = reinterpret_cast<const float*>((std::uintptr_t(1) << 20) + offset);
    const auto a = gpuprim::detail::logical_vector_source<float, true>::make(in, 1000003);
    REQUIRE(a.vectors == 1000003 / 4);
    REQUIRE(a.tail == 1000003 % 4);
    REQUIRE(a.shift == int(offset));
    REQUIRE(a.aligned_end >= a.vectors);  // the fast path's last read, vector q0 + 32, lies inside
    // Aligned vectors 1 .. aligned_end - 1 lie in [in, in + n); aligned_end itself does not.
    const std::uintptr_t base = (std::uintptr_t(1) << 20);
    const std::uintptr_t end = reinterpret_cast<std::uintptr_t>(in + 1000003);
    REQUIRE(base + 16 * a.aligned_end <= end);
    REQUIRE(base + 16 * (a.aligned_end + 1) > end);
  }
}

TEST_CASE("workspace layout: parts aligned, any base alignment, too small refused", "[host]") {
  gpuprim::detail::workspace_layout<3> layout;
  layout.part_bytes[0] = 4;
  layout.part_bytes[1] = 0;
  layout.part_bytes[2] = 1000;
  const std::size_t bytes = layout.bytes();
  for (std::uintptr_t misalign = 0; misalign < 300; misalign += 7) {
    void* base = reinterpret_cast<void*>(std::uintptr_t(1) << 24 | misalign);
    void* parts[3];
    REQUIRE(layout.carve(base, bytes, parts) == cudaSuccess);
    REQUIRE(reinterpret_cast<std::uintptr_t>(parts[0]) % 256 == 0);
    REQUIRE(parts[1] == nullptr);
    REQUIRE(reinterpret_cast<std::uintptr_t>(parts[2]) % 256 == 0);
    REQUIRE(reinterpret_cast<std::uintptr_t>(parts[0]) >= reinterpret_cast<std::uintptr_t>(base));
    REQUIRE(reinterpret_cast<std::uintptr_t>(parts[2]) + 1000 <= reinterpret_cast<std::uintptr_t>(base) + bytes);
    REQUIRE(layout.carve(base, bytes - 1, parts) == cudaErrorInvalidValue);
  }
  void* parts[3];
  REQUIRE(layout.carve(nullptr, bytes, parts) == cudaErrorInvalidValue);
}
