// Rearranges a block's items between the blocked, striped and warp-striped arrangements through
// shared memory, swizzled so that both sides of each exchange are free of bank conflicts.
#pragma once

#include <cstring>
#include <type_traits>

#include <cuda_runtime.h>

#include "../detail/config.cuh"

GPUPRIM_NAMESPACE_BEGIN
namespace detail {

/// An integer or vector type of exactly `Bytes` bytes (void for other sizes), so that a granule
/// of items moves through shared memory in one access.
template <int Bytes>
struct granule_word {
  using type = void;
};
template <>
struct granule_word<1> {
  using type = unsigned char;
};
template <>
struct granule_word<2> {
  using type = unsigned short;
};
template <>
struct granule_word<4> {
  using type = unsigned;
};
template <>
struct granule_word<8> {
  using type = uint2;
};
template <>
struct granule_word<16> {
  using type = uint4;
};

}  // namespace detail

/// Moves `ItemsPerThread` items per thread of a 1D block of `BlockThreads` threads between
/// arrangements (thread t, item i, block tile item k):
/// - blocked:      k = t * ItemsPerThread + i
/// - striped:      k = i * BlockThreads + t
/// - warp-striped: each warp owns the 32 * ItemsPerThread consecutive items from
///                 warp * 32 * ItemsPerThread; with granules of G items (G divides
///                 ItemsPerThread), items [j * G, (j + 1) * G) of lane l are the warp's granule
///                 j * 32 + l (G = 1: item i of lane l is the warp's item i * 32 + l). Granules of
///                 16 bytes make coalesced vector loads and stores.
/// Every thread of the block (warp-striped forms: of the warp) calls each member together. Input
/// and output may be the same array. The block-wide forms hold one `__syncthreads()`; the
/// warp-striped forms only a `__syncwarp()`, and each warp uses only its own part of the storage.
/// Before reusing the storage: `__syncthreads()` (`__syncwarp()` between warp-striped calls).
template <class T, int BlockThreads, int ItemsPerThread>
class block_exchange {
  static_assert(BlockThreads % 32 == 0 && BlockThreads >= 32 && BlockThreads <= 1024,
                "BlockThreads must be a multiple of 32 in [32, 1024]");
  static_assert(ItemsPerThread >= 1, "ItemsPerThread must be positive");
  static_assert(std::is_trivially_copyable_v<T>, "block_exchange needs a trivially copyable T");
  static constexpr int tile_items = BlockThreads * ItemsPerThread;

 public:
  static constexpr int block_threads = BlockThreads;       ///< Threads per block.
  static constexpr int items_per_thread = ItemsPerThread;  ///< Items per thread.
  /// Shared memory for one tile of `T` (no padding: swizzled). Place it in `__shared__` memory.
  struct temp_storage {
    alignas(alignof(T) > 16 ? alignof(T) : 16) unsigned char bytes[sizeof(T) * tile_items];  ///< The tile, swizzled.
  };

  /// Binds the shared storage that the members use.
  GPUPRIM_DEVICE explicit block_exchange(temp_storage& storage) : storage_(storage) {}

  /// Blocked to striped, block-wide (one `__syncthreads()`).
  GPUPRIM_DEVICE void blocked_to_striped(const T (&in)[ItemsPerThread], T (&out)[ItemsPerThread]) {
    const int t = static_cast<int>(threadIdx.x);
#pragma unroll
    for (int i = 0; i < ItemsPerThread; ++i) put<1>(t * ItemsPerThread + i, &in[i]);
    __syncthreads();
#pragma unroll
    for (int i = 0; i < ItemsPerThread; ++i) get<1>(i * BlockThreads + t, &out[i]);
  }

  /// Striped to blocked, block-wide (one `__syncthreads()`).
  GPUPRIM_DEVICE void striped_to_blocked(const T (&in)[ItemsPerThread], T (&out)[ItemsPerThread]) {
    const int t = static_cast<int>(threadIdx.x);
#pragma unroll
    for (int i = 0; i < ItemsPerThread; ++i) put<1>(i * BlockThreads + t, &in[i]);
    __syncthreads();
#pragma unroll
    for (int i = 0; i < ItemsPerThread; ++i) get<1>(t * ItemsPerThread + i, &out[i]);
  }

  /// Blocked to warp-striped in granules of `GranuleItems` items, within each warp (`__syncwarp()`).
  template <int GranuleItems = 1>
  GPUPRIM_DEVICE void blocked_to_warp_striped(const T (&in)[ItemsPerThread], T (&out)[ItemsPerThread]) {
    constexpr int granules = granules_per_thread<GranuleItems>;
    const int first = warp_first_granule<GranuleItems>();
    const int lane = static_cast<int>(threadIdx.x) % 32;
#pragma unroll
    for (int j = 0; j < granules; ++j) put<GranuleItems>(first + lane * granules + j, &in[j * GranuleItems]);
    __syncwarp();
#pragma unroll
    for (int j = 0; j < granules; ++j) get<GranuleItems>(first + j * 32 + lane, &out[j * GranuleItems]);
  }

  /// Warp-striped to blocked in granules of `GranuleItems` items, within each warp (`__syncwarp()`).
  template <int GranuleItems = 1>
  GPUPRIM_DEVICE void warp_striped_to_blocked(const T (&in)[ItemsPerThread], T (&out)[ItemsPerThread]) {
    constexpr int granules = granules_per_thread<GranuleItems>;
    const int first = warp_first_granule<GranuleItems>();
    const int lane = static_cast<int>(threadIdx.x) % 32;
#pragma unroll
    for (int j = 0; j < granules; ++j) put<GranuleItems>(first + j * 32 + lane, &in[j * GranuleItems]);
    __syncwarp();
#pragma unroll
    for (int j = 0; j < granules; ++j) get<GranuleItems>(first + lane * granules + j, &out[j * GranuleItems]);
  }

 private:
  template <int G>
  static constexpr int granules_per_thread = ItemsPerThread / G;

  template <int G>
  static GPUPRIM_DEVICE int warp_first_granule() {
    static_assert(G >= 1 && ItemsPerThread % G == 0, "GranuleItems must divide ItemsPerThread");
    return static_cast<int>(threadIdx.x) / 32 * 32 * granules_per_thread<G>;
  }

  // Granule g of `Bytes` bytes is stored at g ^ (row % row_granules), row = g / row_granules,
  // where a row is 128 bytes (all 32 banks): a permutation inside each row. Striped accesses
  // touch consecutive granules of one row (conflict-free for any permutation); blocked accesses
  // touch one granule in each of consecutive rows, which the xor spreads over different banks.
  // The rows tile every warp's part exactly when Bytes is 4, 8 or 16; other sizes are not swizzled.
  template <int Bytes>
  static GPUPRIM_DEVICE int swizzle(int g) {
    if constexpr (Bytes == 4 || Bytes == 8 || Bytes == 16) {
      constexpr int row_granules = 128 / Bytes;
      return g ^ ((g / row_granules) % row_granules);
    } else {
      return g;
    }
  }

  template <int G>
  GPUPRIM_DEVICE void put(int granule, const T* items) {
    constexpr int bytes = G * int(sizeof(T));
    using word = typename detail::granule_word<bytes>::type;
    const int slot = swizzle<bytes>(granule);
    if constexpr (!std::is_void_v<word>) {
      word w;
      std::memcpy(&w, items, sizeof(word));
      reinterpret_cast<word*>(storage_.bytes)[slot] = w;
    } else {
#pragma unroll
      for (int e = 0; e < G; ++e) reinterpret_cast<T*>(storage_.bytes)[slot * G + e] = items[e];
    }
  }

  template <int G>
  GPUPRIM_DEVICE void get(int granule, T* items) const {
    constexpr int bytes = G * int(sizeof(T));
    using word = typename detail::granule_word<bytes>::type;
    const int slot = swizzle<bytes>(granule);
    if constexpr (!std::is_void_v<word>) {
      const word w = reinterpret_cast<const word*>(storage_.bytes)[slot];
      std::memcpy(items, &w, sizeof(word));
    } else {
#pragma unroll
      for (int e = 0; e < G; ++e) items[e] = reinterpret_cast<const T*>(storage_.bytes)[slot * G + e];
    }
  }

  temp_storage& storage_;
};

GPUPRIM_NAMESPACE_END
