// Host logic of device reduce: the item source split, the grid plan and the workspace layout.
#include <cstdint>
#include <random>

#include <gpuprim/reduce.cuh>

#include "support/catch.hpp"

namespace {

template <class T>
using tile_for = gpuprim::detail::reduce_tile<gpuprim::detail::reduce_default_shape<T>,
                                              gpuprim::detail::vector_source<T>, T, gpuprim::plus>;

template <class T>
void check_plans(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  using tile_t = tile_for<T>;
  const std::size_t tile_items = tile_t::tile_vectors * tile_t::vector_items;
  for (int trial = 0; trial < 2000; ++trial) {
    const std::size_t n = trial < 40 ? std::size_t(trial) * tile_items / 8 + trial % 3 : rng() % (64 * tile_items);
    const std::size_t offset = rng() % 16 / sizeof(T);  // items past a 16-byte boundary
    const T* in = reinterpret_cast<const T*>(std::uintptr_t(1) << 20) + offset;
    const std::size_t max_grid = 1 + rng() % 1200;
    INFO("n=" << n << " offset=" << offset << " max_grid=" << max_grid);

    const auto source = gpuprim::detail::vector_source<T>::make(in, n);
    // Head + vectors + tail cover exactly n items, the vectors start on a 16-byte boundary.
    REQUIRE(source.head + source.vectors * tile_t::vector_items + source.tail == n);
    if (source.vectors > 0) REQUIRE((reinterpret_cast<std::uintptr_t>(in + source.head) % 16) == 0);
    REQUIRE(source.loose_items() < 2 * tile_t::vector_items);

    const auto plan = gpuprim::detail::make_reduce_plan<tile_t>(source, max_grid);
    REQUIRE(plan.grid >= 1);
    REQUIRE(plan.grid <= max_grid);
    // Every block owns a full tile or the remainder, so every partial is defined.
    const bool remainder = source.vectors % tile_t::tile_vectors != 0 || source.loose_items() != 0;
    for (unsigned b = 0; b < plan.grid; ++b) {
      const bool owns_tile = b < plan.full_tiles;
      const bool owns_remainder = remainder && b == plan.full_tiles % plan.grid;
      REQUIRE((owns_tile || owns_remainder || n == 0));
    }
    // The workspace (sized from n alone) holds one partial per block whenever there are several.
    const auto layout = gpuprim::detail::reduce_workspace<tile_t, T>(n, max_grid);
    if (plan.grid > 1) REQUIRE(layout.part_bytes[0] >= plan.grid * sizeof(T));
  }
}

}  // namespace

TEST_CASE("reduce plan: every block owns work and the workspace fits", "[host][reduce]") {
  const std::uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  check_plans<std::int8_t>(seed);
  check_plans<std::int32_t>(seed);
  check_plans<double>(seed);
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
