// The plan of a device radix sort: which path, tiles, grid and passes, as a pure function of the
// input size, the key and value types, the bit range and the device's facts, so that a host test
// reads it like a table and a test can force a path by asking for it.
#pragma once

#include <cstddef>
#include <type_traits>

#include "../detail/config.cuh"
#include "../detail/radix_traits.cuh"
#include "../detail/workspace.cuh"
#include "../shape.cuh"
#include "../tile/onesweep_tile.cuh"
#include "radix_rank_sort.cuh"

GPUPRIM_NAMESPACE_BEGIN
namespace detail {

/// The ways a sort runs, from the smallest inputs up.
enum class radix_path {
  automatic,   ///< (a request only) let the plan choose
  invalid,     ///< the requested path cannot take this input
  none,        ///< n == 0: nothing to do
  copy,        ///< an empty bit range: a stable copy
  rank,        ///< counting comparisons against all n keys (radix_rank_sort_kernel)
  bucket,      ///< counting comparisons within buckets (radix_bucket_sort_kernel)
  fused,       ///< histogram and every pass in one launch (radix_fused_kernel)
  one_wave,    ///< histogram, then a launch per pass, each pass's tiles resident at once
  many_waves,  ///< as one_wave, with tiles that store keys at their ranks as they are found
};

/// The most tiles of a one-wave pass on any GPU (an H200 holds 396): a bound that keeps the
/// workspace of a size query, which knows no device, to the many-wave tiles' states for large n.
inline constexpr std::size_t radix_one_wave_max_tiles = 4096;

/// What a plan needs to know about the device and the one-wave pass kernel of the sort's types.
struct radix_device_facts {
  int sm_count = 0;
  int smem_optin = 0;               ///< cudaDevAttrMaxSharedMemoryPerBlockOptin
  int one_wave_blocks_per_sm = 0;   ///< resident blocks of the one-wave pass kernel
};

/// The plan of one sort.
struct radix_plan {
  radix_path path = radix_path::invalid;
  int passes = 0;              ///< digit passes over the bit range (before skipping)
  std::size_t tiles = 0;       ///< tiles of each pass (fused and onesweep paths)
  unsigned grid = 0;           ///< blocks of the rank sorts and of the fused kernel
  unsigned block_threads = 0;  ///< of the rank sorts
  int keys_per_warp = 0;       ///< of the bucketed rank sort
};

/// Block size of a rank sort of n keys on sm_count SMs: of 1024, 512 and 256 threads, the one
/// whose grid puts the fewest owned keys on the busiest SM (ties to the larger block: every block
/// loads all n keys), so that 12288 keys spread over 384 blocks of 256 rather than 96 of 1024.
inline unsigned rank_sort_block_threads(std::size_t n, int sm_count) {
  const std::size_t sms = sm_count > 0 ? static_cast<std::size_t>(sm_count) : 1;
  unsigned best = 1024;
  std::size_t best_load = ~std::size_t(0);
  for (unsigned threads : {1024u, 512u, 256u}) {
    const std::size_t keys_per_block = std::size_t(threads / 32) * rank_sort_keys_per_warp;
    const std::size_t blocks = (n + keys_per_block - 1) / keys_per_block;
    const std::size_t load = (blocks + sms - 1) / sms * keys_per_block;
    if (load < best_load) {
      best = threads;
      best_load = load;
    }
  }
  return best;
}

/// Grid and keys per warp of a bucketed rank sort of n keys: every block repeats the bucketing of
/// all n keys, so as few blocks as cover the keys with up to one block per SM (more only where 32
/// keys per warp do not suffice).
struct bucket_sort_plan {
  unsigned grid;
  int keys_per_warp;
};
inline bucket_sort_plan plan_bucket_sort(std::size_t n, int sm_count) {
  constexpr std::size_t warps_per_block = bucket_sort_threads / 32;
  const std::size_t warps = std::size_t(sm_count > 0 ? sm_count : 1) * warps_per_block;
  std::size_t per_warp = (n + warps - 1) / warps;
  if (per_warp > 32) per_warp = 32;
  if (per_warp < 1) per_warp = 1;
  const std::size_t per_block = warps_per_block * per_warp;
  return {static_cast<unsigned>((n + per_block - 1) / per_block), static_cast<int>(per_warp)};
}

/// The pass configurations of a sort of `Key`/`Value` (Shape: the caller's tile, or the defaults).
template <class Key, class Value, class Shape = use_default_shape>
struct radix_configs {
  static_assert(shape_or_default<Shape, shape<384, 1>>::radix_bits == 0 || shape_or_default<Shape, shape<384, 1>>::radix_bits == radix_bits,
                "the sort's digits are 8 bits");
  static constexpr int key_bytes = static_cast<int>(sizeof(Key));
  static constexpr int value_bytes = radix_value_bytes<Value>;
  using one_wave = onesweep_config<Key, Value, shape_or_default<Shape, radix_one_wave_shape<key_bytes, value_bytes>>,
                                   false>;
  using many_waves =
      onesweep_config<Key, Value, shape_or_default<Shape, radix_many_waves_shape<key_bytes, value_bytes>>, true>;
  using fused = onesweep_config<Key, Value, radix_fused_shape<key_bytes, value_bytes>, false, 4>;
};

/// The path of a sort of n keys of `Key` (and `Value`s) over bits [begin_bit, end_bit) on a device
/// with `facts`, or `want` where that path can take the input (else radix_path::invalid). The
/// bit range must be valid (radix_bits_valid).
template <class Key, class Value, class Shape = use_default_shape>
radix_plan plan_radix_sort(std::size_t n, int begin_bit, int end_bit, const radix_device_facts& facts,
                           radix_path want = radix_path::automatic) {
  using configs = radix_configs<Key, Value, Shape>;
  radix_plan plan;
  plan.passes = (end_bit - begin_bit + radix_bits - 1) / radix_bits;
  const std::size_t fused_tiles = (n + configs::fused::tile_items - 1) / configs::fused::tile_items;
  const std::size_t one_wave_tiles = (n + configs::one_wave::tile_items - 1) / configs::one_wave::tile_items;
  const std::size_t sms = std::size_t(facts.sm_count > 0 ? facts.sm_count : 1);
  const std::size_t smem = std::size_t(facts.smem_optin) > 48 * 1024 ? std::size_t(facts.smem_optin) : 48 * 1024;
  const bool bucket_fits = smem >= bucket_sort_smem_bytes<Key>(bucket_sort_max_items);
  const bool rank_fits = n <= rank_sort_max_items && smem >= rank_sort_smem_bytes<Key>(n);
  radix_path path = want;
  if (n == 0) {
    path = radix_path::none;
  } else if (plan.passes == 0) {
    path = radix_path::copy;
  } else if (want == radix_path::automatic) {
    path = n <= rank_sort_max_items && n >= bucket_sort_min_items && bucket_fits ? radix_path::bucket
           : rank_fits                                                           ? radix_path::rank
           : fused_tiles <= radix_fused_max_tiles                                ? radix_path::fused
           : one_wave_tiles <= sms * std::size_t(facts.one_wave_blocks_per_sm > 0 ? facts.one_wave_blocks_per_sm : 1) &&
                     one_wave_tiles <= radix_one_wave_max_tiles
               ? radix_path::one_wave
               : radix_path::many_waves;
  }
  switch (path) {
    case radix_path::rank: {
      if (!rank_fits) path = radix_path::invalid;
      plan.block_threads = rank_sort_block_threads(n, facts.sm_count);
      const std::size_t per_block = plan.block_threads / 32 * rank_sort_keys_per_warp;
      plan.grid = static_cast<unsigned>((n + per_block - 1) / per_block);
      break;
    }
    case radix_path::bucket: {
      if (n > rank_sort_max_items || !bucket_fits) path = radix_path::invalid;
      const bucket_sort_plan b = plan_bucket_sort(n, facts.sm_count);
      plan.block_threads = bucket_sort_threads;
      plan.grid = b.grid;
      plan.keys_per_warp = b.keys_per_warp;
      break;
    }
    case radix_path::fused:
      plan.tiles = fused_tiles;
      break;
    case radix_path::one_wave:
      if (one_wave_tiles > radix_one_wave_max_tiles) path = radix_path::invalid;
      plan.tiles = one_wave_tiles;
      break;
    case radix_path::many_waves:
      plan.tiles = (n + configs::many_waves::tile_items - 1) / configs::many_waves::tile_items;
      break;
    default:
      break;
  }
  plan.path = path;
  return plan;
}

/// The n-item buffers a sort's workspace holds beside its control block and look-back states.
enum class radix_spares {
  alternates,           ///< the alternate keys and values (the sorts from a const input)
  none,                 ///< none: a low-memory sort ping-pongs between the caller's two buffers
  alternates_and_keys,  ///< also the sorted keys nobody wants (argsort without keys out)
};

/// The workspace of a sort of n keys by `path`: control block, the look-back states of the widest
/// tile count a plan may take for n (one word per tile and digit, shared by the passes; never
/// fewer than the fused sort's most tiles, so that the size never shrinks as n grows), and the
/// `spares`: the alternate keys and values, and the spare keys. The rank sorts and the copy need
/// none.
template <class Key, class Value, class Shape = use_default_shape>
workspace_layout<5> radix_workspace(radix_path path, std::size_t n, radix_spares spares = radix_spares::alternates) {
  using configs = radix_configs<Key, Value, Shape>;
  workspace_layout<5> layout;
  if (path != radix_path::fused && path != radix_path::one_wave && path != radix_path::many_waves) return layout;
  const auto tiles_of = [n](std::size_t tile_items) { return (n + tile_items - 1) / tile_items; };
  std::size_t tiles = radix_fused_max_tiles;
  if (path == radix_path::fused) {
    tiles = tiles_of(configs::fused::tile_items) > tiles ? tiles_of(configs::fused::tile_items) : tiles;
  } else {
    const std::size_t one_wave = tiles_of(configs::one_wave::tile_items);
    const std::size_t bounded = one_wave < radix_one_wave_max_tiles ? one_wave : radix_one_wave_max_tiles;
    const std::size_t many_waves = tiles_of(configs::many_waves::tile_items);
    tiles = bounded > tiles ? bounded : tiles;
    tiles = many_waves > tiles ? many_waves : tiles;
  }
  layout.part_bytes[0] = sizeof(radix_sort_control);
  layout.part_bytes[1] = tiles * radix_bins * sizeof(unsigned long long);
  if (spares != radix_spares::none) {
    layout.part_bytes[2] = n * sizeof(Key);
    layout.part_bytes[3] = n * radix_value_bytes<Value>;
  }
  if (spares == radix_spares::alternates_and_keys) layout.part_bytes[4] = n * sizeof(Key);
  return layout;
}

/// The least shared memory a block may opt in to on any supported GPU (sm_75: 64 KiB).
inline constexpr std::size_t radix_least_smem_optin = 64 * 1024;

/// The path whose workspace a size query reports, without device facts (so that it needs no
/// GPU): none for an empty input or bit range; the rank sorts' (none) where the plain rank sort
/// fits every supported GPU; else the fused sort's or the onesweep sort's, by n. Every path the
/// plan may choose on any device for these arguments needs no more (its rank sorts none).
template <class Key, class Value, class Shape = use_default_shape>
radix_path radix_workspace_path(std::size_t n, int begin_bit, int end_bit) {
  using configs = radix_configs<Key, Value, Shape>;
  if (n == 0 || end_bit <= begin_bit) return radix_path::none;
  if (n <= rank_sort_max_items && rank_sort_smem_bytes<Key>(n) <= radix_least_smem_optin) return radix_path::rank;
  return (n + configs::fused::tile_items - 1) / configs::fused::tile_items <= radix_fused_max_tiles
             ? radix_path::fused
             : radix_path::many_waves;
}

}  // namespace detail
GPUPRIM_NAMESPACE_END
