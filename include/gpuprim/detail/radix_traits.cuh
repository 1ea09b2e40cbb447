// Radix sort key traits: which key types sort, and the bit-ordered transform that makes unsigned
// comparison of the transformed bits order the keys as CUB's DeviceRadixSort orders them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "config.cuh"

GPUPRIM_NAMESPACE_BEGIN
namespace detail {

template <int Bytes>
struct unsigned_bits;
template <>
struct unsigned_bits<1> {
  using type = std::uint8_t;
};
template <>
struct unsigned_bits<2> {
  using type = std::uint16_t;
};
template <>
struct unsigned_bits<4> {
  using type = std::uint32_t;
};
template <>
struct unsigned_bits<8> {
  using type = std::uint64_t;
};

template <class Key>
inline constexpr bool is_radix_float_v = std::is_same_v<Key, float> || std::is_same_v<Key, double> ||
                                         std::is_same_v<Key, __half> || std::is_same_v<Key, __nv_bfloat16>;

/// Keys a radix sort accepts: 8/16/32/64-bit integers (not bool), float, double, __half, bf16.
template <class Key>
inline constexpr bool is_radix_key_v =
    (std::is_integral_v<Key> && !std::is_same_v<Key, bool> &&
     (sizeof(Key) == 1 || sizeof(Key) == 2 || sizeof(Key) == 4 || sizeof(Key) == 8)) ||
    is_radix_float_v<Key>;

/// The bit-ordered form of a key: unsigned keys as they are; signed keys with the sign bit flipped;
/// floating keys with every bit inverted when negative, else the sign bit flipped. Descending sorts
/// invert the transformed bits. Only the digits of a key are read through `digit_bits`, which maps
/// -0.0 onto +0.0 (after the optional inversion, exactly as CUB's Onesweep does), so the two zeros
/// compare equal and keep their input order while the key itself keeps its bits.
template <class Key>
struct radix_key {
  static_assert(is_radix_key_v<Key>, "radix sort keys: 8/16/32/64-bit integers, float, double, __half, bf16");
  using bits_t = typename unsigned_bits<sizeof(Key)>::type;
  static constexpr int bits = 8 * static_cast<int>(sizeof(Key));
  static constexpr bits_t high_bit = static_cast<bits_t>(bits_t(1) << (bits - 1));
  static constexpr bits_t all_ones = static_cast<bits_t>(~bits_t(0));
  static constexpr bool is_float = is_radix_float_v<Key>;
  static constexpr bool is_signed_integer = std::is_integral_v<Key> && std::is_signed_v<Key>;

  // By value: a memcpy from a reference into global memory compiles to byte loads.
  GPUPRIM_HOST_DEVICE static bits_t to_bits(Key key) {
    bits_t b;
    std::memcpy(&b, &key, sizeof(Key));
    return b;
  }
  GPUPRIM_HOST_DEVICE static Key from_bits(bits_t b) {
    Key key;
    std::memcpy(&key, &b, sizeof(Key));
    return key;
  }

  /// Whether `order` (and `unorder`) is an XOR with one mask for every key: true for integer keys,
  /// false for floating ones (whose negative keys invert every bit, the others only the sign bit).
  static constexpr bool order_is_xor = !is_float;
  /// The mask of an integer key's order transform, which is also its inverse's:
  /// `order(b, descending) == b ^ order_mask(descending)`. The sign bit for signed keys, none for
  /// unsigned ones; every bit inverted when `descending`. The onesweep pass's scatter undoes the
  /// transform in the last pass only by XORing every key with this mask or 0: a per-item
  /// `last ? unorder(key) : key` made nvcc compile the scatter twice.
  GPUPRIM_HOST_DEVICE static constexpr bits_t order_mask(bool descending) {
    static_assert(order_is_xor, "floating keys' order is not an XOR");
    return static_cast<bits_t>((is_signed_integer ? high_bit : bits_t(0)) ^ (descending ? all_ones : bits_t(0)));
  }
  /// Key bits -> bit-ordered bits (inverted when `descending`).
  GPUPRIM_HOST_DEVICE static bits_t order(bits_t b, bool descending) {
    if constexpr (is_float) {
      b = static_cast<bits_t>((b & high_bit) ? static_cast<bits_t>(~b) : static_cast<bits_t>(b ^ high_bit));
      return descending ? static_cast<bits_t>(~b) : b;
    } else {
      return static_cast<bits_t>(b ^ order_mask(descending));
    }
  }
  /// The inverse of `order`.
  GPUPRIM_HOST_DEVICE static bits_t unorder(bits_t b, bool descending) {
    if constexpr (is_float) {
      if (descending) b = static_cast<bits_t>(~b);
      return static_cast<bits_t>((b & high_bit) ? static_cast<bits_t>(b ^ high_bit) : static_cast<bits_t>(~b));
    } else {
      return static_cast<bits_t>(b ^ order_mask(descending));
    }
  }
  /// The bits digits are taken from: ordered bits with -0.0 mapped onto +0.0. (Ascending, -0.0
  /// orders to high_bit - 1 and +0.0 to high_bit; descending, +0.0 orders to high_bit - 1 and
  /// -0.0 to high_bit. Either way both become high_bit.)
  GPUPRIM_HOST_DEVICE static bits_t digit_bits(bits_t ordered) {
    if constexpr (is_float) {
#if defined(__CUDA_ARCH__)
      // On the device, in volatile PTX: nvcc cannot hoist the fix-up out of the sort's phases and
      // keep every key's fixed-up copy live beside the key (from C++ the f32 onesweep kernel
      // spilled 136 bytes at 19 items per thread; with this, none at 19 and as much as u32 at 25).
      if constexpr (sizeof(bits_t) == 4) {
        unsigned fixed;
        asm volatile(
            "{\n\t.reg .pred z;\n\tsetp.eq.u32 z, %1, 0x7fffffff;\n\tselp.b32 %0, 0x80000000, %1, z;\n\t}"
            : "=r"(fixed)
            : "r"(static_cast<unsigned>(ordered)));
        return static_cast<bits_t>(fixed);
      } else if constexpr (sizeof(bits_t) == 8) {
        unsigned long long fixed;
        asm volatile(
            "{\n\t.reg .pred z;\n\tsetp.eq.u64 z, %1, 0x7fffffffffffffff;\n\tselp.b64 %0, 0x8000000000000000, %1, "
            "z;\n\t}"
            : "=l"(fixed)
            : "l"(static_cast<unsigned long long>(ordered)));
        return static_cast<bits_t>(fixed);
      }
#endif
      return digit_bits_scheduled(ordered);
    } else {
      return ordered;
    }
  }
  /// `digit_bits` in plain C++, which the compiler may schedule as it likes: for kernels that take
  /// each key's digit bits once. Branch-free (add the comparison): the select form made nvcc keep
  /// more registers in the onesweep kernel and spill 180 bytes (f32 2^28 on the H200: 8.09 ms;
  /// this form 7.43 ms).
  GPUPRIM_HOST_DEVICE static bits_t digit_bits_scheduled(bits_t ordered) {
    return static_cast<bits_t>(ordered + static_cast<bits_t>(needs_fixup(ordered)));
  }
  /// Digit of `num_bits` bits (1..8) at `shift` of an ordered key.
  GPUPRIM_HOST_DEVICE static unsigned digit(bits_t ordered, int shift, int num_bits) {
    return digit_of_bits(digit_bits(ordered), shift, num_bits);
  }
  /// `digit`, computed afresh wherever it is used: on the device the shift is volatile PTX, so
  /// nvcc cannot compute each key's digit once and keep it live beside the key through a kernel's
  /// phases (the onesweep pass takes every key's digit when it counts and again when it ranks). With
  /// it the early-scatter onesweep kernel of u32 keys holds 32 items per thread at 56 registers
  /// without spilling (plain `digit`: 156 bytes spilled from 30 items), u64 keys 30 at 80 (plain:
  /// 40 bytes spilled at 24). Floating keys already get this from `digit_bits`.
  GPUPRIM_HOST_DEVICE static unsigned digit_fresh(bits_t ordered, int shift, int num_bits) {
    if constexpr (is_float) {
      return digit(ordered, shift, num_bits);
    } else {
      return digit_fresh_unfixed(ordered, shift, num_bits);
    }
  }
  /// `digit_fresh` without the -0.0 fix-up of floating keys (the same for other keys): for sorts
  /// that hold no key ordered as `high_bit - 1`, the one pattern `digit_bits` changes.
  GPUPRIM_HOST_DEVICE static unsigned digit_fresh_unfixed(bits_t ordered, int shift, int num_bits) {
#if defined(__CUDA_ARCH__)
    if constexpr (sizeof(bits_t) <= 4) {
      unsigned v;
      asm volatile("shr.b32 %0, %1, %2;" : "=r"(v) : "r"(static_cast<unsigned>(ordered)), "r"(shift));
      return v & ((1u << num_bits) - 1u);
    } else {
      unsigned long long v;
      asm volatile("shr.b64 %0, %1, %2;" : "=l"(v) : "l"(static_cast<unsigned long long>(ordered)), "r"(shift));
      return static_cast<unsigned>(v) & ((1u << num_bits) - 1u);
    }
#else
    return digit_of_bits(ordered, shift, num_bits);
#endif
  }
  /// True for the one ordered pattern that `digit_bits` changes (a -0.0 key ascending, +0.0
  /// descending); false for every key of non-floating types.
  GPUPRIM_HOST_DEVICE static bool needs_fixup(bits_t ordered) {
    if constexpr (is_float) {
      return ordered == static_cast<bits_t>(high_bit - 1);
    } else {
      return false;
    }
  }
  /// The digit of bits already taken through `digit_bits` (where one key's digits of several
  /// positions are wanted: the fix-up once).
  GPUPRIM_HOST_DEVICE static unsigned digit_of_bits(bits_t bits, int shift, int num_bits) {
    return static_cast<unsigned>(bits >> shift) & ((1u << num_bits) - 1u);
  }
};

/// Value `idx` of a sort's input: `values_in[idx]`, or, where argsort makes the values
/// (`values_in == nullptr`, integer values only), the position itself.
template <class Value>
GPUPRIM_HOST_DEVICE Value radix_input_value(const Value* values_in, std::size_t idx) {
  if constexpr (std::is_integral_v<Value>) {
    if (values_in == nullptr) return static_cast<Value>(idx);
  }
  return values_in[idx];
}

}  // namespace detail
GPUPRIM_NAMESPACE_END
