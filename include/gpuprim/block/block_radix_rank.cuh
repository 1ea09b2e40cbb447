// Block-wide digit ranking for radix sorts ("early counts", as in CUB's Onesweep): every warp
// counts its digits in its own shared-memory counters; one block-wide exclusive scan of all
// counters in (digit, warp) order gives each warp the first place of each digit; then each group
// of equal digits in a warp (one ballot per digit bit) takes its places with one atomic.
#pragma once

#include "../detail/config.cuh"
#include "block_scan.cuh"

GPUPRIM_NAMESPACE_BEGIN

/// Ranks `ItemsPerThread` digits (each in [0, 2^RadixBits)) per thread of a 1D block of
/// `BlockThreads` threads (a multiple of 32 up to 1024), given in WARP-STRIPED arrangement: item
/// i of lane l of warp w is the block's item w * 32 * ItemsPerThread + i * 32 + l. A key's rank is
/// its position in a stable sort of the block's items by digit.
///
/// Counter layout: warp w's counter of digit d sits at d * counter_stride + w, with an odd
/// counter_stride (warps | 1), so the leaders of one warp, each with a different digit, hit
/// different banks; and the scan of the counters in index order is the scan in (digit, warp)
/// order that the ranks need (the padding counters stay zero).
///
/// Every thread of the block calls each member together. `rank` holds `__syncthreads()` calls;
/// call `__syncthreads()` before reusing `temp_storage` after it.
template <int BlockThreads, int ItemsPerThread, int RadixBits = 8>
class block_radix_rank {
  static_assert(BlockThreads % 32 == 0 && BlockThreads >= 32 && BlockThreads <= 1024,
                "BlockThreads must be a multiple of 32 in [32, 1024]");
  static_assert(ItemsPerThread >= 1, "ItemsPerThread must be at least 1");
  static_assert(RadixBits >= 1 && RadixBits <= 8, "RadixBits must be in [1, 8]");

 public:
  static constexpr int block_threads = BlockThreads;                ///< Threads per block.
  static constexpr int items_per_thread = ItemsPerThread;           ///< Digits per thread.
  static constexpr int tile_items = BlockThreads * ItemsPerThread;  ///< Digits per block.
  static constexpr int bins = 1 << RadixBits;                       ///< Distinct digits.
  static constexpr int warps = BlockThreads / 32;                   ///< Warps per block.
  static constexpr int counter_stride = warps | 1;                  ///< Counters per digit (odd).
  static constexpr int counter_count = bins * counter_stride;       ///< Counters in all.
  /// Digits whose counters each thread scans in `scan_counters` (up to 12 warps).
  static constexpr int digits_per_thread = (bins + BlockThreads - 1) / BlockThreads;

  /// Shared memory: the counters, a block_scan's storage and the total. Place it in `__shared__`.
  struct temp_storage {
    unsigned counters[counter_count];                                ///< Digit counts, then places.
    typename block_scan<unsigned, BlockThreads>::temp_storage scan;  ///< For `scan_counters`.
    unsigned total;                                                  ///< Items counted.
  };

  /// Binds the shared storage that the members use.
  GPUPRIM_DEVICE explicit block_radix_rank(temp_storage& storage) : storage_(storage) {}

  /// ranks[i] = stable rank of digits[i] within the block's tile.
  GPUPRIM_DEVICE void rank(const unsigned (&digits)[ItemsPerThread], unsigned (&ranks)[ItemsPerThread]) {
    rank([&](int i) { return digits[i]; }, ranks);
  }
  /// As above with the digits given by `digit_of(i)` (recomputed rather than held in registers).
  template <class DigitOf>
  GPUPRIM_DEVICE void rank(DigitOf digit_of, unsigned (&ranks)[ItemsPerThread]) {
    count(digit_of);
    scan_counters();
    finish(digit_of, ranks);
  }

  // ---- The three phases of `rank`, for kernels that act between them -----------------------
  // Only the digits (or the keys they come from) live in registers until phase 3, which keeps
  // register pressure low while a kernel publishes counts or looks back between the phases.

  /// Phase 1 (`digit_of(i)`: digit of item i): every warp counts its digits in its own counters.
  /// Ends with `__syncthreads()`; afterwards `bin_count` works until `scan_counters`.
  template <class DigitOf>
  GPUPRIM_DEVICE void count(DigitOf digit_of) {
    for (int k = threadIdx.x; k < counter_count; k += BlockThreads) storage_.counters[k] = 0;
    __syncthreads();
    const unsigned warp = threadIdx.x / 32;
#pragma unroll
    for (int i = 0; i < ItemsPerThread; ++i) atomicAdd(&storage_.counters[digit_of(i) * counter_stride + warp], 1u);
    __syncthreads();
  }

  /// The lanes of this warp whose digit equals `d` (a bit per lane; `d` in `[0, 2^RadixBits)`).
  /// Every lane of the warp calls it together. One ballot per digit bit; see the private
  /// two-argument form, which `finish` uses with the all-ones word taken once per tile.
  static GPUPRIM_DEVICE unsigned match_digit(unsigned d) { return match_digit<RadixBits>(d, opaque_all_ones()); }

  /// Between phases 1 and 2: how many of the tile's items have digit `bin`.
  GPUPRIM_DEVICE unsigned bin_count(int bin) const {
    unsigned c = 0;
#pragma unroll
    for (int w = 0; w < warps; ++w) c += storage_.counters[bin * counter_stride + w];
    return c;
  }

  /// Phase 2: exclusive scan of the counters in (digit, warp) order. Ends with
  /// `__syncthreads()`; afterwards `bin_start` and `scanned_bin_count` work until `finish` changes
  /// the counters (put a `__syncthreads()` between the last of those reads and `finish`).
  ///
  /// Up to 12 warps, each thread owns `digits_per_thread` consecutive digits: it adds up their
  /// warps' counters, one block-wide scan of those sums gives each digit's start, and the thread
  /// writes its digits' per-warp places (a warp's 32 digits hit 32 banks: the stride is odd).
  /// From 16 warps on, the digit owners' chains get long, and every thread scans an equal run of
  /// the counter array instead. Measured on the H200 (ncu): the onesweep pass (12 warps) 2.5%
  /// faster with the digit owners, the one-block sort of 4096 keys (16 warps) 11% slower.
  GPUPRIM_DEVICE void scan_counters() {
    if constexpr (scan_by_digit) {
      scan_digit_owned();
    } else {
      scan_even_runs();
    }
  }

  /// After phase 2: position of the first item with digit `bin` in the tile's sorted order.
  GPUPRIM_DEVICE unsigned bin_start(int bin) const { return storage_.counters[bin * counter_stride]; }
  /// After phase 2: how many items have digit `bin`.
  GPUPRIM_DEVICE unsigned scanned_bin_count(int bin) const {
    const unsigned end = bin + 1 < bins ? storage_.counters[(bin + 1) * counter_stride] : storage_.total;
    return end - bin_start(bin);
  }

  /// Phase 3: ranks[i] = rank of item i in the tile. Each group of equal digits in a warp (one
  /// ballot per digit bit) takes its places with one atomic on its warp's scanned counter; the
  /// warp's items take them in item order (the shuffle keeps the warp converged between items).
  /// Call once after `scan_counters`: it consumes the counters.
  ///
  /// `MatchBits` (default: all `RadixBits`): where the caller knows that all the block's digits
  /// agree on their bits from `MatchBits` up (a radix sort pass whose keys' digits differ only in
  /// their low bits), the groups are found with `MatchBits` ballots instead of `RadixBits`.
  template <int MatchBits = RadixBits, class DigitOf>
  GPUPRIM_DEVICE void finish(DigitOf digit_of, unsigned (&ranks)[ItemsPerThread]) {
    finish_each<MatchBits>(digit_of, [&](int i, unsigned rank) { ranks[i] = rank; });
  }

  /// Phase 3 as above, handing each item's rank to `place(i, rank)` as soon as it is known (a
  /// kernel can store the item at its rank at once instead of holding every rank in registers;
  /// `place` must not touch `temp_storage`).
  template <int MatchBits = RadixBits, class DigitOf, class Place>
  GPUPRIM_DEVICE void finish_each(DigitOf digit_of, Place place) {
    static_assert(MatchBits >= 1 && MatchBits <= RadixBits, "MatchBits must be in [1, RadixBits]");
    const unsigned lane = threadIdx.x % 32;
    const unsigned warp = threadIdx.x / 32;
    const unsigned lanes_before = (1u << lane) - 1u;
    const unsigned all_ones = opaque_all_ones();
#pragma unroll
    for (int i = 0; i < ItemsPerThread; ++i) {
      const unsigned d = digit_of(i);
      const unsigned peers = match_digit<MatchBits>(d, all_ones);
      const unsigned leader = 31u - __clz(peers);  // the group's highest lane (one FLO)
      const unsigned before = leader_add(lane == leader, &storage_.counters[d * counter_stride + warp], __popc(peers));
      place(i, __shfl_sync(0xffffffffu, before, leader) + __popc(peers & lanes_before));
    }
  }

 private:
  /// `match_digit(d)` over the digit's low `Bits` bits, with `all_ones` from `opaque_all_ones()`:
  /// one ballot per digit bit
  /// (__match_any_sync made the whole sort 2x slower on the H200), in PTX so that
  /// each bit costs a bit test into a predicate (ptxas sets seven at once with R2P), the ballot
  /// and a predicated complement (from C++, nvcc tested every bit twice). The ranking is bound by
  /// the ALU pipe, which issues at half the rate of the scheduler, so beyond its ballot a bit
  /// costs half an ALU instruction:
  /// - the lanes whose bit is clear complement the ballot with an IMAD on the FMA pipe
  ///   (~x == x * -1 + -1; `all_ones` comes from a ballot, so ptxas cannot fold it back into a
  ///   logic instruction);
  /// - the ballots are ANDed three at a time (lop3), not one at a time.
  /// H200, 2^28 keys: u32 keys 0.93x the time, f32 0.94x, u64 0.96x,
  /// u32/u32 pairs 0.98x.
  template <int Bits>
  static GPUPRIM_DEVICE unsigned match_digit(unsigned d, unsigned all_ones) {
    unsigned same[Bits];
#pragma unroll
    for (int b = 0; b < Bits; ++b) {
      asm("{\n\t"
          ".reg .pred set;\n\t"
          ".reg .b32 bit;\n\t"
          "and.b32 bit, %1, %2;\n\t"
          "setp.ne.u32 set, bit, 0;\n\t"
          "vote.sync.ballot.b32 %0, set, 0xffffffff;\n\t"
          "@!set mad.lo.u32 %0, %0, %3, %3;\n\t"
          "}"
          : "=r"(same[b])
          : "r"(d), "r"(1u << b), "r"(all_ones));
    }
    unsigned peers = same[0];
    int b = 1;
#pragma unroll
    for (; b + 1 < Bits; b += 2) {
      asm("lop3.b32 %0, %1, %2, %3, 0x80;" : "=r"(peers) : "r"(peers), "r"(same[b]), "r"(same[b + 1]));
    }
    if (b < Bits) peers &= same[b];
    return peers;
  }

  /// All 32 bits set, as a value ptxas cannot see as a constant (a ballot of the whole warp).
  static GPUPRIM_DEVICE unsigned opaque_all_ones() {
    unsigned v;
    asm("vote.sync.ballot.b32 %0, 1, 0xffffffff;" : "=r"(v));
    return v;
  }

  static constexpr bool scan_by_digit = warps <= 12;
  /// Counters each thread scans in `scan_even_runs`.
  static constexpr int counters_per_thread = (counter_count + BlockThreads - 1) / BlockThreads;

  GPUPRIM_DEVICE void scan_digit_owned() {
    const int first = static_cast<int>(threadIdx.x) * digits_per_thread;
    unsigned sum = 0;
#pragma unroll
    for (int j = 0; j < digits_per_thread; ++j) {
      if (first + j < bins) sum += bin_count(first + j);
    }
    unsigned before, total;
    block_scan<unsigned, BlockThreads>(storage_.scan).exclusive_sum(sum, before, total);
#pragma unroll
    for (int j = 0; j < digits_per_thread; ++j) {
      if (first + j < bins) {
#pragma unroll
        for (int w = 0; w < warps; ++w) {
          unsigned& counter = storage_.counters[(first + j) * counter_stride + w];
          const unsigned c = counter;
          counter = before;
          before += c;
        }
      }
    }
    if (threadIdx.x == 0) storage_.total = total;
    __syncthreads();
  }

  GPUPRIM_DEVICE void scan_even_runs() {
    unsigned local[counters_per_thread];
    unsigned sum = 0;
    const int first = static_cast<int>(threadIdx.x) * counters_per_thread;
#pragma unroll
    for (int k = 0; k < counters_per_thread; ++k) {
      const int idx = first + k;
      local[k] = idx < counter_count ? storage_.counters[idx] : 0u;
      sum += local[k];
    }
    unsigned before, total;
    block_scan<unsigned, BlockThreads>(storage_.scan).exclusive_sum(sum, before, total);
#pragma unroll
    for (int k = 0; k < counters_per_thread; ++k) {
      const int idx = first + k;
      if (idx < counter_count) storage_.counters[idx] = before;
      before += local[k];
    }
    if (threadIdx.x == 0) storage_.total = total;
    __syncthreads();
  }

  /// `atomicAdd(counter, amount)` in the lanes where `leader` holds, 0 elsewhere: a predicated
  /// shared atomic (from C++, nvcc branched around it, four instructions per item).
  static GPUPRIM_DEVICE unsigned leader_add(bool leader, unsigned* counter, unsigned amount) {
    unsigned old;
    asm volatile(
        "{\n\t"
        ".reg .pred lead;\n\t"
        "setp.ne.u32 lead, %1, 0;\n\t"
        "mov.u32 %0, 0;\n\t"
        "@lead atom.shared.add.u32 %0, [%2], %3;\n\t"
        "}"
        : "=r"(old)
        : "r"(static_cast<unsigned>(leader)), "r"(static_cast<unsigned>(__cvta_generic_to_shared(counter))),
          "r"(amount)
        : "memory");
    return old;
  }

  temp_storage& storage_;
};

GPUPRIM_NAMESPACE_END
