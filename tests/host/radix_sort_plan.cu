// The host side of the small-input sort by counting comparisons (detail/radix_rank_sort.cuh):
// the bit-window mask of the sort values, the limits of the unrolled form, the block size chosen
// for n keys on a device, and the grid, shared memory and split layout of the bucketed form; and
// the onesweep sort's choice of how pairs move their values and the workspace that holds every
// pass shape.
#include <gpuprim/detail/radix_sort_kernels.cuh>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "support/catch.hpp"

namespace {

using gpuprim::detail::rank_sort_window;

/// Bits [begin, end) set, one bit at a time.
template <class Word>
Word bits_between(int begin, int end) {
  Word w = 0;
  for (int b = begin; b < end; ++b) w = static_cast<Word>(w | (Word(1) << b));
  return w;
}

TEST_CASE("rank sort: the bit window of the sort values", "[host][sort]") {
  for (int begin = 0; begin <= 32; ++begin) {
    for (int end = begin; end <= 32; ++end) {
      CAPTURE(begin, end);
      CHECK(rank_sort_window<std::uint32_t>(begin, end) == bits_between<std::uint32_t>(begin, end));
    }
  }
  for (int begin = 0; begin <= 64; begin += 3) {
    for (int end : {begin, begin + 1, 63, 64}) {
      if (end < begin || end > 64) continue;
      CAPTURE(begin, end);
      CHECK(rank_sort_window<std::uint64_t>(begin, end) == bits_between<std::uint64_t>(begin, end));
    }
  }
}

TEST_CASE("rank sort: the block size puts the fewest keys on the busiest SM", "[host][sort]") {
  constexpr std::size_t per_warp = gpuprim::detail::rank_sort_keys_per_warp;
  // Keys owned by the busiest SM when blocks of `threads` are spread evenly over `sms` SMs.
  auto busiest = [](std::size_t n, std::size_t sms, unsigned threads) {
    const std::size_t keys_per_block = threads / 32 * per_warp;
    const std::size_t blocks = (n + keys_per_block - 1) / keys_per_block;
    return (blocks + sms - 1) / sms * keys_per_block;
  };
  for (int sms : {1, 16, 78, 114, 132, 144}) {
    for (std::size_t n = 1; n <= gpuprim::detail::rank_sort_max_items; n += 97) {
      CAPTURE(sms, n);
      const unsigned t = gpuprim::detail::rank_sort_block_threads(n, sms);
      REQUIRE((t == 256 || t == 512 || t == 1024));
      for (unsigned other : {256u, 512u, 1024u}) {
        CHECK(busiest(n, sms, t) <= busiest(n, sms, other));
        if (other > t) CHECK(busiest(n, sms, t) < busiest(n, sms, other));  // ties go to the larger block
      }
    }
  }
  CHECK(gpuprim::detail::rank_sort_block_threads(12288, 132) == 256);
  CHECK(gpuprim::detail::rank_sort_block_threads(16384, 132) == 1024);
}

TEST_CASE("rank sort: the unrolled form's limits and shared memory", "[host][sort]") {
  using gpuprim::detail::rank_sort_small_items;
  using gpuprim::detail::rank_sort_smem_bytes;
  // 8 slices of 32 lanes x 16 bytes: 1024 sort values of 4 bytes, 512 of 8.
  CHECK(rank_sort_small_items<std::uint8_t> == 1024);
  CHECK(rank_sort_small_items<std::int16_t> == 1024);
  CHECK(rank_sort_small_items<std::uint32_t> == 1024);
  CHECK(rank_sort_small_items<float> == 1024);
  CHECK(rank_sort_small_items<std::uint64_t> == 512);
  CHECK(rank_sort_small_items<double> == 512);
  // Its padded shared memory: 4 KiB, under the default 48 KiB (no attribute to raise), and the
  // same as the general form's for as many keys.
  CHECK(rank_sort_smem_bytes<std::uint32_t>(rank_sort_small_items<std::uint32_t>) == 4096);
  CHECK(rank_sort_smem_bytes<std::uint64_t>(rank_sort_small_items<std::uint64_t>) == 4096);
  // The unrolled form lies wholly below the bucketed one, and its warps' keys within one slice.
  STATIC_REQUIRE(rank_sort_small_items<std::uint32_t> < gpuprim::detail::bucket_sort_min_items);
  STATIC_REQUIRE(64 % gpuprim::detail::rank_sort_small_keys_per_warp == 0);
  STATIC_REQUIRE(gpuprim::detail::rank_sort_small_threads % 32 == 0);
}

TEST_CASE("rank sort: the bucketed form covers every key with one block per SM where it can", "[host][sort]") {
  using gpuprim::detail::bucket_sort_threads;
  constexpr std::size_t warps_per_block = bucket_sort_threads / 32;
  for (int sms : {0, 1, 7, 16, 78, 114, 132, 144}) {
    for (std::size_t n = gpuprim::detail::bucket_sort_min_items; n <= gpuprim::detail::rank_sort_max_items; n += 61) {
      CAPTURE(sms, n);
      const auto plan = gpuprim::detail::plan_bucket_sort(n, sms);
      REQUIRE(plan.keys_per_warp >= 1);
      REQUIRE(plan.keys_per_warp <= 32);  // one owned key per lane
      const std::size_t per_block = warps_per_block * static_cast<std::size_t>(plan.keys_per_warp);
      CHECK(plan.grid * per_block >= n);           // every key has an owner
      CHECK((plan.grid - 1) * per_block < n);      // and every block owns keys
      const std::size_t usable = static_cast<std::size_t>(sms > 0 ? sms : 1);
      if (n <= usable * warps_per_block * 32) {
        CHECK(plan.grid <= usable);  // each block repeats the bucketing: never two on one SM
        if (plan.keys_per_warp > 1) {  // and no fewer keys per warp would do
          CHECK(usable * warps_per_block * static_cast<std::size_t>(plan.keys_per_warp - 1) < n);
        }
      } else {
        CHECK(plan.keys_per_warp == 32);
      }
    }
  }
  CHECK(gpuprim::detail::plan_bucket_sort(16384, 132).grid == 128);
  CHECK(gpuprim::detail::plan_bucket_sort(16384, 132).keys_per_warp == 4);
}

TEST_CASE("rank sort: shared memory of the bucketed form", "[host][sort]") {
  using gpuprim::detail::bucket_count;
  using gpuprim::detail::bucket_sort_smem_bytes;
  // (value, index) pairs: 8 bytes for sort values of up to 32 bits, 12 for 64-bit ones; the
  // bucket starts and an end entry; for integer keys of up to 32 bits, which may split a crowded
  // bucket, two arrays of starts (buckets and parts) of bucket_count + 32 entries each (the end
  // entry's place in the spread layout lies in the 32 after the buckets).
  CHECK(bucket_sort_smem_bytes<std::uint32_t>(16384) == 16384 * 8 + 2 * (bucket_count + 32) * 4);
  CHECK(bucket_sort_smem_bytes<std::int8_t>(100) == 100 * 8 + 2 * (bucket_count + 32) * 4);
  CHECK(bucket_sort_smem_bytes<float>(16384) == 16384 * 8 + (bucket_count + 1) * 4);
  CHECK(bucket_sort_smem_bytes<double>(16384) == 16384 * 12 + (bucket_count + 1) * 4);
  // Hopper's 227 KiB a block fits the largest.
  CHECK(bucket_sort_smem_bytes<std::uint64_t>(gpuprim::detail::bucket_sort_max_items) <= 227 * 1024);
  CHECK(bucket_sort_smem_bytes<std::uint32_t>(gpuprim::detail::bucket_sort_max_items) <= 227 * 1024);
}

TEST_CASE("rank sort: the spread layout of a split bucketed sort", "[host][sort]") {
  using gpuprim::detail::bucket_count;
  using gpuprim::detail::bucket_spread;
  // A permutation of each run of 32 entries (so of the buckets, and of the 32 entries after them,
  // which hold the end entry)...
  for (unsigned run = 0; run < bucket_count + 32; run += 32) {
    std::vector<int> seen(32, 0);
    for (unsigned b = run; b < run + 32; ++b) {
      const unsigned at = bucket_spread(b);
      REQUIRE(at / 32 == run / 32);
      ++seen[at % 32];
    }
    for (int s : seen) CHECK(s == 1);
  }
  // ...that puts bucket 0 and the single-bit buckets (the crowded ones of sparse keys) into distinct
  // banks.
  std::vector<unsigned> banks;
  for (unsigned b = 0; b < bucket_count; b = b == 0 ? 1 : 2 * b) banks.push_back(bucket_spread(b) % 32);
  std::sort(banks.begin(), banks.end());
  CHECK(std::adjacent_find(banks.begin(), banks.end()) == banks.end());
}

}  // namespace

namespace onesweep_plan {

namespace gd = gpuprim::detail;

/// The workspace a sort asks for (the narrowest shape's) holds the layout of every pass shape the
/// launch may take for `Key`/`Value`, for either look-back state width.
template <class Key, class Value, class State>
void check_workspace_holds_every_shape() {
  using path = gd::radix_values_path;
  std::uint64_t x = 0x9e3779b97f4a7c15ull;
  for (int trial = 0; trial < 200; ++trial) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const std::size_t n = trial < 50 ? std::size_t(trial) * 3001 + 1 : std::size_t(x >> 33);
    CAPTURE(n, sizeof(Key), sizeof(Value), sizeof(State));
    const std::size_t needed = gd::onesweep_workspace<Key, Value, State>(n).bytes();
    CHECK(gd::onesweep_workspace<Key, Value, State, gd::onesweep_shape<Key, Value, false>>(n).bytes() <= needed);
    CHECK(gd::onesweep_workspace<Key, Value, State, gd::onesweep_shape<Key, Value, true>>(n).bytes() <= needed);
    CHECK(gd::onesweep_workspace<Key, Value, State, gd::onesweep_shape<Key, Value, true, path::direct_narrow>>(n)
              .bytes() <= needed);
    CHECK(gd::onesweep_workspace<Key, Value, State, gd::onesweep_shape<Key, Value, true, path::held>>(n).bytes() <=
          needed);
    CHECK(gd::onesweep_workspace<Key, Value, State, gd::radix_few_tiles_one_wave<Key, Value>>(n).bytes() <= needed);
  }
}

struct two_shorts {
  std::uint16_t a, b;
};

TEST_CASE("onesweep: values move directly only for 4-byte keys with 4-byte aligned values", "[host][sort]") {
  CHECK(gd::onesweep_shape<std::uint32_t, std::uint32_t, true>::direct_values);
  CHECK(gd::onesweep_shape<float, int, true>::direct_values);
  CHECK(gd::onesweep_shape<std::uint32_t, float, true, gd::radix_values_path::direct_narrow>::narrow);
  CHECK_FALSE(gd::onesweep_shape<std::uint32_t, std::uint32_t, true, gd::radix_values_path::held>::direct_values);
  CHECK_FALSE(gd::onesweep_shape<std::uint32_t, std::uint32_t, false>::direct_values);  // one-wave tiles
  CHECK(gd::onesweep_shape<std::int32_t, std::uint32_t, true>::direct_values);          // signed keys too
  CHECK_FALSE(gd::onesweep_shape<std::uint32_t, two_shorts, true>::direct_values);      // 2-byte aligned
  CHECK_FALSE(gd::onesweep_shape<std::uint64_t, std::uint32_t, true>::direct_values);   // 12-byte items
  CHECK_FALSE(gd::onesweep_shape<std::uint32_t, gd::no_values, true>::direct_values);   // keys only
}

TEST_CASE("onesweep: signed keys take the tiles of unsigned ones", "[host][sort]") {
  using path = gd::radix_values_path;
  CHECK(gd::onesweep_shape<std::int32_t, gd::no_values, false>::tile_items ==
        gd::onesweep_shape<std::uint32_t, gd::no_values, false>::tile_items);
  CHECK(gd::onesweep_shape<std::int32_t, std::uint32_t, false>::tile_items ==
        gd::onesweep_shape<std::uint32_t, std::uint32_t, false>::tile_items);
  CHECK(gd::onesweep_shape<std::int32_t, std::uint32_t, true, path::direct_packed>::packed_out);
  CHECK(gd::onesweep_shape<std::int64_t, std::uint32_t, true>::tile_items ==
        gd::onesweep_shape<std::uint64_t, std::uint32_t, true>::tile_items);
  CHECK(gd::onesweep_shape<std::int16_t, std::uint16_t, true>::tile_items ==
        gd::onesweep_shape<std::uint16_t, std::uint16_t, true>::tile_items);
}

TEST_CASE("onesweep: one-wave grids of few tiles take the narrower tiles where a type has two", "[host][sort]") {
  // 4-byte keys 19 items against 25, 8-byte pairs 20 against 26, 9-16-byte pairs 16 against 18.
  CHECK(gd::radix_few_tiles_one_wave<std::uint32_t, gd::no_values>::items_per_thread == 19);
  CHECK(gd::onesweep_shape<std::uint32_t, gd::no_values, false>::items_per_thread == 25);
  CHECK(gd::radix_few_tiles_one_wave<float, gd::no_values>::items_per_thread == 19);
  CHECK(gd::radix_few_tiles_one_wave<std::uint32_t, std::uint32_t>::items_per_thread == 20);
  CHECK(gd::onesweep_shape<std::uint32_t, std::uint32_t, false>::items_per_thread == 26);
  CHECK(gd::radix_few_tiles_one_wave<std::uint64_t, std::uint32_t>::items_per_thread == 16);
  CHECK(gd::onesweep_shape<std::uint64_t, std::uint32_t, false>::items_per_thread == 18);
  // Where the type has one one-wave tile, the same shape (no second kernel).
  CHECK(std::is_same_v<gd::radix_few_tiles_one_wave<std::uint64_t, gd::no_values>,
                       gd::onesweep_shape<std::uint64_t, gd::no_values, false>>);
  CHECK(std::is_same_v<gd::radix_few_tiles_one_wave<std::uint16_t, gd::no_values>,
                       gd::onesweep_shape<std::uint16_t, gd::no_values, false>>);
  // The early-scatter shapes ignore FewTiles.
  CHECK(gd::onesweep_shape<std::uint32_t, gd::no_values, true, gd::radix_values_path::direct, false, true>::tile_items ==
        gd::onesweep_shape<std::uint32_t, gd::no_values, true>::tile_items);
}

TEST_CASE("onesweep: look-back states read a step, by shape", "[host][sort]") {
  using path = gd::radix_values_path;
  // Keys only: four a step in every shape.
  CHECK(gd::onesweep_shape<std::uint32_t, gd::no_values, false>::lookback_window == 4);
  CHECK(gd::onesweep_shape<std::uint32_t, gd::no_values, true>::lookback_window == 4);
  CHECK(gd::onesweep_shape<gd::packed_pair<std::uint32_t>, gd::no_values, true>::lookback_window == 4);
  // Pairs: four in one wave and in few waves, one in many waves (L2 traffic).
  CHECK(gd::onesweep_shape<std::uint64_t, std::uint32_t, false>::lookback_window == 4);
  CHECK(gd::onesweep_shape<std::uint64_t, std::uint32_t, true>::lookback_window == 1);
  CHECK(gd::onesweep_shape<std::uint64_t, std::uint32_t, true, path::direct, true>::lookback_window == 4);
  CHECK(gd::onesweep_shape<std::uint32_t, std::uint32_t, true, path::direct_packed>::lookback_window == 1);
  CHECK(gd::onesweep_shape<std::uint32_t, std::uint32_t, true, path::direct_packed, true>::lookback_window == 4);
  // The few-waves form changes nothing else.
  CHECK(gd::onesweep_shape<std::uint64_t, std::uint32_t, true, path::direct, true>::tile_items ==
        gd::onesweep_shape<std::uint64_t, std::uint32_t, true>::tile_items);
  CHECK(gd::fused_shape<std::uint64_t, std::uint32_t>::lookback_window == 4);
}

TEST_CASE("onesweep: the workspace holds the layout of every pass shape", "[host][sort]") {
  check_workspace_holds_every_shape<std::uint32_t, std::uint32_t, unsigned>();
  check_workspace_holds_every_shape<std::uint32_t, std::uint32_t, unsigned long long>();
  check_workspace_holds_every_shape<float, int, unsigned>();
  check_workspace_holds_every_shape<std::uint32_t, gd::no_values, unsigned>();
  check_workspace_holds_every_shape<std::uint64_t, std::uint32_t, unsigned>();
  check_workspace_holds_every_shape<std::uint8_t, std::uint32_t, unsigned long long>();
  check_workspace_holds_every_shape<std::int32_t, std::uint32_t, unsigned>();
}

}  // namespace onesweep_plan
