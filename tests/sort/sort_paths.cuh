// The onesweep pass has two shapes (launch_onesweep): grids of one wave of resident tiles keep
// each tile's ranks in registers; larger grids store every key at its rank in shared memory as the
// ranking finds it (onesweep_shape::early_scatter). Pairs of 4-byte keys and 4-byte values have
// three early-scatter shapes: wide and narrow tiles whose values are copied straight to their
// places (onesweep_shape::direct_values; the narrow ones for grids of a few waves), and tiles that
// hold the values' ranks (devices with less DRAM bandwidth per SM than the H200), and the packed
// passes, whose first pass (wide tiles) writes each pair as one 8-byte word for the passes after
// it (launch_onesweep_packed; outputs not aligned to 8 bytes take the wide tiles). Pairs whose
// early-scatter grid is a few waves take a form of their shape that reads four look-back states a
// step (onesweep_shape's FewWaves); one-wave grids of no more tiles than SMs take narrower tiles
// where a type has two (onesweep_shape's FewTiles). Which one a sort takes depends on the device and n
// (an H200 takes the early one from about 3.8M 4-byte keys), so this case forces each in turn
// through the test hook detail::onesweep_shape_override, at sizes that the sanitizers can run:
// every key width, keys and pairs, whole and partial windows, both orders, bitwise against CUB.
// The cases: device_sort_onesweep_shapes_*.cu, a few key types per TU.
#pragma once

#include "sort/device_sort_common.cuh"

namespace sort_test {

/// Every shape forced in turn: keys and uint32 pairs, two windows, both orders, against CUB.
template <class Key>
void check_both_onesweep_shapes() {
  // 131073 items: the smallest input past the fused single-launch sort (64 tiles of 2048), so the
  // onesweep passes run; 300007: more tiles than a small GPU holds at once. Small mode (the
  // sanitizer runs, where racecheck takes ~4 s a sort): one size, uniform keys, and per shape one
  // window and order (one wave: whole key ascending; early scatter: partial window descending).
  const bool small = gpuprim_test::small_mode();
  // Outside small mode also whole early-scatter tiles of keys and of pairs (20 of each: the last
  // tile full).
  std::vector<std::size_t> sizes = {131073};
  if (!small) {
    namespace gd = gpuprim::detail;
    sizes.push_back(300007);
    sizes.push_back(std::size_t(20) * gd::onesweep_shape<Key, gd::no_values, true>::tile_items);
    sizes.push_back(std::size_t(20) * gd::onesweep_shape<Key, std::uint32_t, true>::tile_items);
    using narrow_pairs = gd::onesweep_shape<Key, std::uint32_t, true, gd::radix_values_path::direct_narrow>;
    sizes.push_back(std::size_t(20) * narrow_pairs::tile_items);
  }
  std::vector<distribution> distributions = {distribution::uniform};
  if (!small) distributions.push_back(distribution::few_distinct);
  // Keys below 2^20: a skipped pass, and a pass whose digits differ only in their low 4 bits
  // (ranked with 4 ballots in whole keys-only tiles).
  if (key_bits<Key> >= 32) distributions.push_back(distribution::low_20_bits);
  // Shapes 2 (narrow, values direct), 3 (values' ranks held) and 4 (packed passes) differ from 1
  // (wide, values direct) only for pairs that can move their values directly. Shape 5 is the
  // few-waves form of 4 (of 1 for other pairs), whose look-back reads four states a step; it
  // differs only for pairs.
  constexpr bool direct_pairs = gpuprim::detail::onesweep_shape<Key, std::uint32_t, true>::direct_values;
  for (int shape : {0, 1, 2, 3, 4, 5, 6}) {
    if (shape >= 2 && shape <= 4 && !direct_pairs) continue;
    INFO("onesweep shape forced: " << (shape == 0   ? "one wave (ranks in registers)"
                                       : shape == 1 ? "early scatter"
                                       : shape == 2 ? "narrow early scatter, values direct"
                                       : shape == 3 ? "early scatter, values' ranks held"
                                       : shape == 4 ? "packed passes"
                                       : shape == 5 ? "early scatter or packed passes, few waves"
                                                    : "one wave, the narrower tiles of few-tile grids"));
    // 0: one wave, 1: early scatter, 2: narrow early scatter, 3: values' ranks held, 4: packed,
    // 5: few waves (pairs), 6: one wave with the tiles of few-tile grids
    const scoped_hook forced(gpuprim::detail::onesweep_shape_override, shape);
    for_each_window_case<Key>(sizes, distributions, 7,
                              [&](const std::vector<Key>& keys, const std::vector<std::uint32_t>& values,
                                  const sort_call& c, int window, distribution) {
                                // Small mode: one window and order per shape (shapes 2 and 3: pairs only).
                                // (Shape 6: as shape 0, the whole key ascending.)
                                const int small_window = shape == 6 ? 0 : shape >= 2 ? 1 : shape;
                                if (small && (window != small_window || c.descending != (window == 1))) {
                                  return;
                                }
                                if (shape < 2 || shape == 6) check_sort<Key>(keys, {}, c);
                                check_sort<Key, std::uint32_t>(keys, values, c);
                                if (shape >= 4 && window == 1) {
                                  // Outputs one item off 8-byte alignment: the wide tiles instead.
                                  sort_call misaligned = c;
                                  misaligned.offset = 1;
                                  check_sort<Key, std::uint32_t>(keys, values, misaligned);
                                }
                              });
  }
}

}  // namespace sort_test
