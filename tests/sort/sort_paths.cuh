// Every path of the sort (detail::radix_path: the rank sort, the bucketed rank sort, the fused
// single-launch sort, the onesweep passes with one-wave and with many-wave tiles), forced in turn
// through the internal entry point at sizes that the sanitizers can run, so that each is tested
// whatever the plan would choose on this GPU: every key width, keys and uint32 pairs, whole and
// partial windows, both orders, bitwise against CUB. The cases: device_sort_paths_*.cu, a few
// key types per TU.
#pragma once

#include "sort/device_sort_common.cuh"

namespace sort_test {

/// Each path forced in turn: keys and uint32 pairs, two windows, both orders, against CUB.
template <class Key>
void check_every_path() {
  using gpuprim::detail::radix_path;
  namespace gd = gpuprim::detail;
  using many = typename gd::radix_configs<Key, gd::no_values>::many_waves;
  using many_pairs = typename gd::radix_configs<Key, std::uint32_t>::many_waves;
  // Small mode (the sanitizer runs, where racecheck takes seconds a sort): one size a path,
  // uniform keys, one window and order a path.
  const bool small = gpuprim_test::small_mode();
  struct path_sizes {
    radix_path path;
    std::vector<std::size_t> sizes;
  };
  // Past its own range too: 131073 is the smallest input past the fused sort (64 tiles of 2048);
  // 300007 holds more one-wave tiles than a small GPU holds at once; whole many-wave tiles (the
  // last tile full) of keys and of pairs.
  const std::vector<path_sizes> cases = {
      {radix_path::rank, small ? std::vector<std::size_t>{4097} : std::vector<std::size_t>{1, 1000, 7001, 16384}},
      {radix_path::bucket, small ? std::vector<std::size_t>{16384} : std::vector<std::size_t>{33, 6144, 16384}},
      {radix_path::fused, small ? std::vector<std::size_t>{20000} : std::vector<std::size_t>{16385, 131072, 300007}},
      {radix_path::one_wave, small ? std::vector<std::size_t>{131073} : std::vector<std::size_t>{20000, 131073, 300007}},
      {radix_path::many_waves,
       small ? std::vector<std::size_t>{131073}
             : std::vector<std::size_t>{20000, 300007, std::size_t(20) * many::tile_items,
                                        std::size_t(20) * many_pairs::tile_items}},
  };
  std::vector<distribution> distributions = {distribution::uniform};
  if (!small) distributions.push_back(distribution::few_distinct);
  // Keys below 2^20: a skipped pass.
  if (key_bits<Key> >= 32) distributions.push_back(distribution::low_20_bits);
  int index = 0;
  for (const path_sizes& p : cases) {
    INFO("forced path: " << path_name(p.path));
    const int small_window = index++ % 2;
    for_each_window_case<Key>(p.sizes, distributions, 7,
                              [&](const std::vector<Key>& keys, const std::vector<std::uint32_t>& values, sort_call c,
                                  int window, distribution) {
                                if (small && (window != small_window || c.descending != (window == 1))) return;
                                c.path = p.path;
                                check_sort<Key>(keys, {}, c);
                                check_sort<Key, std::uint32_t>(keys, values, c);
                              });
  }
}

}  // namespace sort_test
