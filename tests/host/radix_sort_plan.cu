// The radix sort's plan (device/radix_sort_plan.cuh) read as a table: the path, tiles and grid
// chosen for sizes, key types and device facts (an H100 or H200, an L4, a T4), forced paths, and
// the workspace that holds both onesweep tiles; and the host side of the small-input sort by
// counting comparisons (device/radix_rank_sort.cuh): the bit-window mask of the sort values, the
// block size chosen for n keys on a device, and the grid, shared memory and split layout of the
// bucketed form.
#include <gpuprim/radix_sort.cuh>

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

namespace plan_table {

namespace gd = gpuprim::detail;
using gd::radix_path;

// Device facts: SMs, opt-in shared memory a block, one-wave pass blocks an SM.
const gd::radix_device_facts h200{132, 232448, 3};  // an H100 SXM has the same facts
const gd::radix_device_facts l4{58, 101376, 2};
const gd::radix_device_facts t4{40, 65536, 2};

template <class Key, class Value = gd::no_values>
radix_path path_of(std::size_t n, const gd::radix_device_facts& facts, int begin_bit = 0,
                   int end_bit = 8 * static_cast<int>(sizeof(Key)), radix_path want = radix_path::automatic) {
  return gd::plan_radix_sort<Key, Value>(n, begin_bit, end_bit, facts, want).path;
}

TEST_CASE("radix plan: the path by size, key type and device", "[host][sort]") {
  using u32 = std::uint32_t;
  using u64 = std::uint64_t;
  // The fused sort takes up to 64 tiles of 2048 items (u32 keys and u32/u32 pairs), 1024 for
  // 12-byte items; one wave of one-wave tiles holds sms x blocks x 7296 u32 keys (19 items), 7680
  // u32/u32 pairs and u64 keys (20 items), 6144 u64/u32 pairs (16 items).
  struct row {
    std::size_t n;
    radix_path h200, l4, t4;
  };
  const row u32_keys[] = {
      {0, radix_path::none, radix_path::none, radix_path::none},
      {1, radix_path::rank, radix_path::rank, radix_path::rank},
      {6143, radix_path::rank, radix_path::rank, radix_path::rank},
      {6144, radix_path::bucket, radix_path::rank, radix_path::rank},  // its 148 KiB fit Hopper only
      {16384, radix_path::bucket, radix_path::rank, radix_path::rank},
      {16385, radix_path::fused, radix_path::fused, radix_path::fused},
      {131072, radix_path::fused, radix_path::fused, radix_path::fused},
      {131073, radix_path::one_wave, radix_path::one_wave, radix_path::one_wave},
      {583680, radix_path::one_wave, radix_path::one_wave, radix_path::one_wave},  // T4: 80 x 7296
      {583681, radix_path::one_wave, radix_path::one_wave, radix_path::many_waves},
      {846336, radix_path::one_wave, radix_path::one_wave, radix_path::many_waves},  // L4: 116 x 7296
      {846337, radix_path::one_wave, radix_path::many_waves, radix_path::many_waves},
      {2889216, radix_path::one_wave, radix_path::many_waves, radix_path::many_waves},  // H200: 396 x 7296
      {2889217, radix_path::many_waves, radix_path::many_waves, radix_path::many_waves},
      {std::size_t(1) << 28, radix_path::many_waves, radix_path::many_waves, radix_path::many_waves},
      {(std::size_t(1) << 32) + 1, radix_path::many_waves, radix_path::many_waves, radix_path::many_waves},
  };
  for (const row& r : u32_keys) {
    CAPTURE(r.n);
    CHECK(path_of<u32>(r.n, h200) == r.h200);
    CHECK(path_of<u32>(r.n, l4) == r.l4);
    CHECK(path_of<u32>(r.n, t4) == r.t4);
    CHECK(path_of<float>(r.n, h200) == r.h200);  // floating and signed keys plan as unsigned ones
    CHECK(path_of<std::int32_t>(r.n, l4) == r.l4);
  }
  // Pairs and wider keys: other tiles.
  CHECK(path_of<u32, u32>(131072, h200) == radix_path::fused);
  CHECK(path_of<u32, u32>(132 * 3 * 7680, h200) == radix_path::one_wave);
  CHECK(path_of<u32, u32>(132 * 3 * 7680 + 1, h200) == radix_path::many_waves);
  CHECK(path_of<u64>(65536, h200) == radix_path::fused);  // 8-byte items: tiles of 2048 too
  CHECK(path_of<u64, u32>(65536, h200) == radix_path::fused);  // 12-byte items: tiles of 1024
  CHECK(path_of<u64, u32>(65537, h200) == radix_path::one_wave);
  CHECK(path_of<u64>(132 * 3 * 7680, h200) == radix_path::one_wave);
  CHECK(path_of<u64>(132 * 3 * 7680 + 1, h200) == radix_path::many_waves);
  // 8-byte keys sort by 64-bit words in the rank sort; their bucketed form needs 12 bytes a key.
  CHECK(path_of<u64>(16384, h200) == radix_path::bucket);
  CHECK(path_of<u64>(6144, l4) == radix_path::rank);  // 48 KiB of 64-bit sort values: the default limit
  CHECK(path_of<u64>(8192, l4) == radix_path::rank);    // 64 KiB of the L4's 99
  CHECK(path_of<u64>(16384, l4) == radix_path::fused);  // 128 KiB: more than a block may take
  CHECK(path_of<u64>(16384, t4) == radix_path::fused);
  // An empty bit range is a copy at any size; a partial one plans by size as the whole key does.
  CHECK(path_of<u32>(5, h200, 7, 7) == radix_path::copy);
  CHECK(path_of<u32>(std::size_t(1) << 28, h200, 32, 32) == radix_path::copy);
  CHECK(path_of<u32>(6144, h200, 3, 9) == radix_path::bucket);
  CHECK(path_of<u32>(std::size_t(1) << 24, h200, 4, 20) == radix_path::many_waves);
}

TEST_CASE("radix plan: passes, tiles and grids", "[host][sort]") {
  using u32 = std::uint32_t;
  const gd::radix_plan big = gd::plan_radix_sort<u32, gd::no_values>(std::size_t(1) << 28, 0, 32, h200);
  CHECK(big.passes == 4);
  CHECK(big.tiles == ((std::size_t(1) << 28) + 12287) / 12288);  // 384 x 32
  const gd::radix_plan window = gd::plan_radix_sort<u32, gd::no_values>(1000, 3, 20, h200);
  CHECK(window.passes == 3);  // 17 bits
  CHECK(window.path == radix_path::rank);
  CHECK(window.grid * window.block_threads / 32 * gd::rank_sort_keys_per_warp >= 1000);
  const gd::radix_plan fused = gd::plan_radix_sort<u32, u32>(100000, 0, 32, l4);
  CHECK(fused.tiles == (100000 + 2047) / 2048);
  const gd::radix_plan bucket = gd::plan_radix_sort<u32, gd::no_values>(16384, 0, 32, h200);
  CHECK(bucket.grid == 128);
  CHECK(bucket.keys_per_warp == 4);
  CHECK(bucket.block_threads == gd::bucket_sort_threads);
}

TEST_CASE("radix plan: forced paths, and those that cannot take the input", "[host][sort]") {
  using u32 = std::uint32_t;
  CHECK(path_of<u32>(16384, h200, 0, 32, radix_path::rank) == radix_path::rank);
  CHECK(path_of<u32>(16385, h200, 0, 32, radix_path::rank) == radix_path::invalid);
  CHECK(path_of<u32>(100, h200, 0, 32, radix_path::bucket) == radix_path::bucket);
  CHECK(path_of<u32>(100, l4, 0, 32, radix_path::bucket) == radix_path::invalid);  // shared memory
  CHECK(path_of<u32>(std::size_t(1) << 20, h200, 0, 32, radix_path::fused) == radix_path::fused);
  CHECK(path_of<u32>(20000, h200, 0, 32, radix_path::many_waves) == radix_path::many_waves);
  CHECK(path_of<u32>(std::size_t(1) << 24, h200, 0, 32, radix_path::one_wave) == radix_path::one_wave);
  // n == 0 and empty windows take their own paths whatever is asked.
  CHECK(path_of<u32>(0, h200, 0, 32, radix_path::fused) == radix_path::none);
  CHECK(path_of<u32>(100, h200, 9, 9, radix_path::many_waves) == radix_path::copy);
}

/// The workspace that the size query reports (radix_workspace_path: no device facts) holds the
/// workspace of the path that the plan chooses on any device, and never shrinks as n grows (a
/// workspace sized for n serves every smaller n).
template <class Key, class Value>
void check_size_query_workspace() {
  std::size_t previous = 0;
  for (std::size_t n = 1; n < (std::size_t(1) << 36); n = n * 9 / 8 + 1) {
    CAPTURE(n, sizeof(Key), sizeof(Value));
    const radix_path sized = gd::radix_workspace_path<Key, Value>(n, 0, 8 * sizeof(Key));
    const gd::workspace_layout<5> layout = gd::radix_workspace<Key, Value>(sized, n);
    CHECK(layout.bytes() >= previous);
    previous = layout.bytes();
    for (const gd::radix_device_facts& facts : {h200, l4, t4}) {
      const gd::radix_plan plan = gd::plan_radix_sort<Key, Value>(n, 0, 8 * sizeof(Key), facts);
      CAPTURE(facts.sm_count, static_cast<int>(plan.path));
      CHECK(plan.path != radix_path::invalid);
      const gd::workspace_layout<5> used = gd::radix_workspace<Key, Value>(plan.path, n);
      CHECK(used.bytes() <= layout.bytes());
      if (used.bytes() == 0) continue;
      CHECK(used.part_bytes[1] >= plan.tiles * gd::radix_bins * sizeof(unsigned long long));
      CHECK(used.part_bytes[2] == n * sizeof(Key));
      // The low-memory form's workspace: the same states, no n-item buffer.
      const gd::workspace_layout<5> lean = gd::radix_workspace<Key, Value>(plan.path, n, gd::radix_spares::none);
      CHECK(lean.part_bytes[1] == used.part_bytes[1]);
      CHECK(lean.part_bytes[2] + lean.part_bytes[3] + lean.part_bytes[4] == 0);
    }
    // One and many waves take the same bytes (the device decides between them).
    CHECK(gd::radix_workspace<Key, Value>(radix_path::one_wave, n).bytes() ==
          gd::radix_workspace<Key, Value>(radix_path::many_waves, n).bytes());
  }
  CHECK(gd::radix_workspace_path<Key, Value>(0, 0, 8) == radix_path::none);
  CHECK(gd::radix_workspace_path<Key, Value>(1000000, 3, 3) == radix_path::none);
}

/// The low-memory sorts' workspace at 2^28 items (issue target: at most 64 MB for u32 keys and
/// u32/u32 pairs), and argsort's spare keys.
TEST_CASE("radix plan: the low-memory workspace at 2^28 items", "[host][sort]") {
  constexpr std::size_t n = std::size_t(1) << 28;
  const auto lean_bytes = [](auto key, auto value) {
    using Key = decltype(key);
    using Value = decltype(value);
    const radix_path sized = gd::radix_workspace_path<Key, Value>(n, 0, 8 * sizeof(Key));
    return gd::radix_workspace<Key, Value>(sized, n, gd::radix_spares::none).bytes();
  };
  CHECK(lean_bytes(std::uint32_t{}, gd::no_values{}) <= 64'000'000);
  CHECK(lean_bytes(std::uint32_t{}, std::uint32_t{}) <= 64'000'000);
  const radix_path sized = gd::radix_workspace_path<std::uint32_t, std::uint32_t>(n, 0, 32);
  const auto argsort = gd::radix_workspace<std::uint32_t, std::uint32_t>(sized, n, gd::radix_spares::alternates_and_keys);
  CHECK(argsort.part_bytes[4] == n * sizeof(std::uint32_t));
  // No plan takes one-wave tiles past the bound the size query assumes.
  for (const gd::radix_device_facts& facts : {h200, l4, t4}) {
    for (std::size_t m = 1; m < (std::size_t(1) << 34); m = m * 5 / 4 + 1) {
      const gd::radix_plan plan = gd::plan_radix_sort<std::uint32_t, gd::no_values>(m, 0, 32, facts);
      if (plan.path == radix_path::one_wave) CHECK(plan.tiles <= gd::radix_one_wave_max_tiles);
    }
  }
}

TEST_CASE("radix plan: the size query's workspace holds every plan's and grows with n", "[host][sort]") {
  check_size_query_workspace<std::uint32_t, gd::no_values>();
  check_size_query_workspace<std::uint32_t, std::uint32_t>();
  check_size_query_workspace<std::uint64_t, std::uint32_t>();
  check_size_query_workspace<std::uint8_t, gd::no_values>();
  check_size_query_workspace<double, std::uint64_t>();
}

TEST_CASE("radix plan: signed and floating keys take the tiles of unsigned ones", "[host][sort]") {
  CHECK(gd::radix_configs<std::int32_t, gd::no_values>::one_wave::tile_items ==
        gd::radix_configs<std::uint32_t, gd::no_values>::one_wave::tile_items);
  CHECK(gd::radix_configs<float, std::uint32_t>::many_waves::tile_items ==
        gd::radix_configs<std::uint32_t, std::uint32_t>::many_waves::tile_items);
  CHECK(gd::radix_configs<std::int64_t, std::uint32_t>::many_waves::tile_items ==
        gd::radix_configs<std::uint64_t, std::uint32_t>::many_waves::tile_items);
  // Look-back: four states a step, one for pairs in many waves (their passes are bound by L2).
  CHECK(gd::radix_configs<std::uint32_t, gd::no_values>::many_waves::lookback_window == 4);
  CHECK(gd::radix_configs<std::uint32_t, std::uint32_t>::one_wave::lookback_window == 4);
  CHECK(gd::radix_configs<std::uint32_t, std::uint32_t>::many_waves::lookback_window == 1);
  CHECK(gd::radix_configs<std::uint32_t, std::uint32_t>::fused::lookback_window == 4);
}

}  // namespace plan_table
