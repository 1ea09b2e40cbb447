// Helpers of the radix sort tests, written independently of the library: key traits (raw bits,
// names), the bit-ordered transform of the sort contract, a host reference stable sort, key
// distributions (special floats included), payloads and the sizes swept.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "support/catch.hpp"
#include "support/test_util.cuh"

namespace sort_test {

// ---------------------------------------------------------------------------------------------
// Key types

enum class key_kind { unsigned_integer, signed_integer, floating };

/// bits_type: the unsigned integer of the key's size; mantissa_bits: for floating keys.
template <class Key>
struct key_traits;

#define GPUPRIM_SORT_TEST_KEY(type, bits_t, kind_, mantissa, name_)  \
  template <>                                                        \
  struct key_traits<type> {                                          \
    using bits_type = bits_t;                                        \
    static constexpr key_kind kind = key_kind::kind_;                \
    static constexpr int mantissa_bits = mantissa;                   \
    static const char* name() { return name_; }                      \
  };
GPUPRIM_SORT_TEST_KEY(std::uint8_t, std::uint8_t, unsigned_integer, 0, "uint8")
GPUPRIM_SORT_TEST_KEY(std::uint16_t, std::uint16_t, unsigned_integer, 0, "uint16")
GPUPRIM_SORT_TEST_KEY(std::uint32_t, std::uint32_t, unsigned_integer, 0, "uint32")
GPUPRIM_SORT_TEST_KEY(std::uint64_t, std::uint64_t, unsigned_integer, 0, "uint64")
GPUPRIM_SORT_TEST_KEY(std::int8_t, std::uint8_t, signed_integer, 0, "int8")
GPUPRIM_SORT_TEST_KEY(std::int16_t, std::uint16_t, signed_integer, 0, "int16")
GPUPRIM_SORT_TEST_KEY(std::int32_t, std::uint32_t, signed_integer, 0, "int32")
GPUPRIM_SORT_TEST_KEY(std::int64_t, std::uint64_t, signed_integer, 0, "int64")
GPUPRIM_SORT_TEST_KEY(float, std::uint32_t, floating, 23, "float")
GPUPRIM_SORT_TEST_KEY(double, std::uint64_t, floating, 52, "double")
GPUPRIM_SORT_TEST_KEY(__half, std::uint16_t, floating, 10, "__half")
GPUPRIM_SORT_TEST_KEY(__nv_bfloat16, std::uint16_t, floating, 7, "__nv_bfloat16")
#undef GPUPRIM_SORT_TEST_KEY

template <class Key>
using bits_t = typename key_traits<Key>::bits_type;
template <class Key>
constexpr int key_bits = 8 * static_cast<int>(sizeof(Key));
template <class Key>
constexpr bool is_floating_key = key_traits<Key>::kind == key_kind::floating;
template <class Key>
constexpr bits_t<Key> sign_bit = static_cast<bits_t<Key>>(bits_t<Key>(1) << (key_bits<Key> - 1));

template <class Key>
bits_t<Key> to_bits(const Key& key) {
  bits_t<Key> b;
  std::memcpy(&b, &key, sizeof(Key));
  return b;
}
template <class Key>
Key from_bits(bits_t<Key> b) {
  Key key;
  std::memcpy(static_cast<void*>(&key), &b, sizeof(Key));
  return key;
}

/// A key as hex bits, for messages (also for __half and bf16, which Catch cannot print).
template <class Key>
std::string hex(const Key& key) {
  std::ostringstream os;
  os << "0x" << std::hex << std::setw(2 * int(sizeof(Key))) << std::setfill('0')
     << static_cast<std::uint64_t>(to_bits(key));
  return os.str();
}

// ---------------------------------------------------------------------------------------------
// The order of the sort contract

/// The bit-ordered transform: unsigned keys as they are; signed: sign bit flipped; floating: all
/// bits inverted when the sign is set, else the sign bit flipped. Descending inverts the result.
/// -0.0 and +0.0 must compare equal: after the (optional) inversion, the pattern the two zeros
/// straddle (0b0111..1 / 0b1000..0) is read as 0b1000..0 (the library's convention, that of CUB's
/// Onesweep; see radix_traits.cuh). With the whole key in the window either choice orders alike.
template <class Key>
bits_t<Key> ordered_bits(const Key& key, bool descending) {
  using B = bits_t<Key>;
  constexpr B sign = sign_bit<Key>;
  B b = to_bits(key);
  if constexpr (is_floating_key<Key>) {
    b = (b & sign) ? static_cast<B>(~b) : static_cast<B>(b ^ sign);
  } else if constexpr (key_traits<Key>::kind == key_kind::signed_integer) {
    b = static_cast<B>(b ^ sign);
  }
  if (descending) b = static_cast<B>(~b);
  if constexpr (is_floating_key<Key>) {
    if (b == static_cast<B>(sign - 1)) b = sign;
  }
  return b;
}

/// Bits [begin_bit, end_bit) of the ordered key: what the sort compares.
template <class Key>
std::uint64_t window_bits(const Key& key, bool descending, int begin_bit, int end_bit) {
  const int width = end_bit - begin_bit;
  if (width <= 0) return 0;
  const std::uint64_t b = static_cast<std::uint64_t>(ordered_bits(key, descending)) >> begin_bit;
  return width >= 64 ? b : (b & ((std::uint64_t(1) << width) - 1));
}

/// The permutation a stable sort by window_bits applies: out[i] = in[order[i]].
template <class Key>
std::vector<std::uint32_t> reference_order(const Key* keys, std::size_t n, bool descending, int begin_bit,
                                           int end_bit) {
  std::vector<std::pair<std::uint64_t, std::uint32_t>> tagged(n);
  for (std::size_t i = 0; i < n; ++i) {
    tagged[i] = {window_bits(keys[i], descending, begin_bit, end_bit), static_cast<std::uint32_t>(i)};
  }
  std::sort(tagged.begin(), tagged.end());  // the index breaks ties: stable
  std::vector<std::uint32_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = tagged[i].second;
  return order;
}

/// A window [begin_bit, end_bit) of a key, for messages.
struct bit_window {
  int begin_bit;
  int end_bit;
};
inline std::ostream& operator<<(std::ostream& os, const bit_window& w) {
  return os << "bits [" << w.begin_bit << ", " << w.end_bit << ")";
}

/// The windows swept for a key of B bits: [0, B), [B/4, B-3), [0, 1), [B-1, B), the empty
/// [B/2, B/2), and one random window.
template <class Key>
std::vector<bit_window> test_windows(std::mt19937_64& rng) {
  constexpr int b = key_bits<Key>;
  const int lo = std::uniform_int_distribution<int>(0, b)(rng);
  const int hi = std::uniform_int_distribution<int>(lo, b)(rng);
  return {{0, b}, {b / 4, b - 3}, {0, 1}, {b - 1, b}, {b / 2, b / 2}, {lo, hi}};
}

// ---------------------------------------------------------------------------------------------
// Random keys

/// A random engine for one test case: the run's seed mixed with the case's own numbers, so that
/// GPUPRIM_TEST_SEED=<seed> repeats any one case whatever runs before it.
inline std::mt19937_64 case_rng(std::uint64_t a, std::uint64_t b = 0, std::uint64_t c = 0) {
  std::seed_seq seq{gpuprim_test::test_seed(), gpuprim_test::test_seed() >> 32, a, a >> 32, b, b >> 32, c};
  return std::mt19937_64(seq);
}

/// A small stable hash of a string (a type name) for case_rng.
inline std::uint64_t name_hash(const char* s) {
  std::uint64_t h = 1469598103934665603ull;
  for (; *s; ++s) h = (h ^ static_cast<unsigned char>(*s)) * 1099511628211ull;
  return h;
}

enum class distribution {
  uniform,         // random bits (for floats: NaNs, infinities and denormals included)
  few_distinct,    // three random values
  sorted,          // uniform, then sorted ascending
  reverse_sorted,  // uniform, then sorted descending
  all_equal,       // one random value
  sparse_bits,     // AND of three random words: few ones, many equal high digits
  low_20_bits,     // [0, 2^20) as raw bits (32- and 64-bit keys)
  float_specials,  // +-0, +-inf, NaNs with several payloads, denormals, extremes, random bits
  // Random bits with every eighth key (on average) a zero of one sign and no zero of the other:
  // for an ascending (descending) sort of the whole key, -0.0 (+0.0) is the key that the -0.0
  // fix-up changes, which this sort's passes need not apply. Not in distributions_for.
  float_negative_zeros,
  float_positive_zeros,
};

inline const char* distribution_name(distribution d) {
  switch (d) {
    case distribution::uniform: return "uniform";
    case distribution::few_distinct: return "few distinct";
    case distribution::sorted: return "sorted";
    case distribution::reverse_sorted: return "reverse sorted";
    case distribution::all_equal: return "all equal";
    case distribution::sparse_bits: return "sparse bits";
    case distribution::low_20_bits: return "low 20 bits";
    case distribution::float_negative_zeros: return "random bits, zeros all -0.0";
    case distribution::float_positive_zeros: return "random bits, zeros all +0.0";
    default: return "float specials";
  }
}

/// The distributions that apply to Key.
template <class Key>
std::vector<distribution> distributions_for() {
  std::vector<distribution> ds = {distribution::uniform,   distribution::few_distinct,
                                  distribution::sorted,    distribution::reverse_sorted,
                                  distribution::all_equal, distribution::sparse_bits};
  if (sizeof(Key) >= 4) ds.push_back(distribution::low_20_bits);
  if (is_floating_key<Key>) ds.push_back(distribution::float_specials);
  return ds;
}

/// One special floating key (as bits): +-0, +-inf, NaNs (quiet, payloads, both signs),
/// denormals, the smallest normal, the largest finite, or random bits.
template <class Key>
bits_t<Key> special_bits(std::mt19937_64& rng) {
  using B = bits_t<Key>;
  constexpr int m = key_traits<Key>::mantissa_bits;
  constexpr B sign = sign_bit<Key>;
  constexpr B mantissa = static_cast<B>((B(1) << m) - 1);
  constexpr B exponent = static_cast<B>(~sign & ~mantissa);
  const B r = static_cast<B>(rng());
  const B s = (rng() & 1) ? sign : B(0);
  switch (rng() % 11) {
    case 0: return s;                                                  // +-0
    case 1: return static_cast<B>(s | exponent);                       // +-inf
    case 2: return static_cast<B>(s | exponent | (B(1) << (m - 1)));   // quiet NaN
    case 3: return static_cast<B>(s | exponent | (r & mantissa) | 1);  // NaN, random payload
    case 4: return static_cast<B>(s | exponent | 1);                   // signalling NaN, payload 1
    case 5: return static_cast<B>(s | (r & mantissa) | 1);             // denormal
    case 6: return static_cast<B>(s | 1);                              // smallest denormal
    case 7: return static_cast<B>(s | mantissa);                       // largest denormal
    case 8: return static_cast<B>(s | (B(1) << m));                    // smallest normal
    case 9: return static_cast<B>(s | (exponent - (B(1) << m)) | mantissa);  // largest finite
    default: return r;
  }
}

/// n keys of distribution d drawn from rng.
template <class Key>
std::vector<Key> make_keys(std::size_t n, distribution d, std::mt19937_64& rng) {
  using B = bits_t<Key>;
  std::vector<Key> keys(n);
  auto random_bits = [&] { return static_cast<B>(rng()); };
  switch (d) {
    case distribution::few_distinct: {
      const B v[3] = {random_bits(), random_bits(), random_bits()};
      for (auto& k : keys) k = from_bits<Key>(v[rng() % 3]);
      break;
    }
    case distribution::all_equal: {
      const Key v = from_bits<Key>(random_bits());
      std::fill(keys.begin(), keys.end(), v);
      break;
    }
    case distribution::sparse_bits:
      for (auto& k : keys) k = from_bits<Key>(static_cast<B>(random_bits() & random_bits() & random_bits()));
      break;
    case distribution::low_20_bits:
      for (auto& k : keys) k = from_bits<Key>(static_cast<B>(rng() & ((1u << 20) - 1)));
      break;
    case distribution::float_specials:
    case distribution::float_negative_zeros:
    case distribution::float_positive_zeros:
      if constexpr (is_floating_key<Key>) {
        if (d == distribution::float_specials) {
          for (auto& k : keys) k = from_bits<Key>(special_bits<Key>(rng));
        } else {
          const B zero = d == distribution::float_negative_zeros ? sign_bit<Key> : B(0);
          for (auto& k : keys) {
            const B r = random_bits();
            const bool random_zero = static_cast<B>(r & ~sign_bit<Key>) == 0;
            k = from_bits<Key>(rng() % 8 == 0 || random_zero ? zero : r);
          }
        }
        break;
      }
      [[fallthrough]];
    default:  // uniform, sorted, reverse_sorted
      for (auto& k : keys) k = from_bits<Key>(random_bits());
      break;
  }
  if (d == distribution::sorted || d == distribution::reverse_sorted) {
    const bool descending = d == distribution::reverse_sorted;
    std::stable_sort(keys.begin(), keys.end(), [&](const Key& a, const Key& b) {
      return ordered_bits(a, descending) < ordered_bits(b, descending);
    });
  }
  return keys;
}

/// Replaces +-0.0 by the smallest denormal of the same sign (see the device sort runner: CUB's
/// own paths disagree where the zeros go in a partial window of a descending sort).
template <class Key>
void remove_zeros(std::vector<Key>& keys) {
  if constexpr (is_floating_key<Key>) {
    for (auto& k : keys) {
      const bits_t<Key> b = to_bits(k);
      if (static_cast<bits_t<Key>>(b & ~sign_bit<Key>) == 0) k = from_bits<Key>(static_cast<bits_t<Key>>(b | 1));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Payloads

/// Payload types of pairs: uint32 (the input index), uint64 (index and random high bits), and the
/// 12-byte gpuprim_test::triple. index_of recovers the index, to check stability.
template <class Value>
std::vector<Value> make_values(std::size_t n, std::mt19937_64& rng) {
  std::vector<Value> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto idx = static_cast<std::uint32_t>(i);
    if constexpr (std::is_same_v<Value, std::uint32_t>) {
      v[i] = idx;
    } else if constexpr (std::is_same_v<Value, std::uint64_t>) {
      v[i] = (rng() << 32) | idx;
    } else {
      static_assert(std::is_same_v<Value, gpuprim_test::triple>, "payloads: uint32, uint64, triple");
      v[i] = {static_cast<int>(idx), static_cast<int>(~idx), static_cast<int>(idx * 2654435761u)};
    }
  }
  return v;
}

// ---------------------------------------------------------------------------------------------
// Sizes

/// The sizes of the device sweeps: tiny; around the rank sort's warp slices (64 and 128 sort
/// values), the limits of its unrolled form (512 keys of 8 bytes, 1024 of up to 4), its limit
/// (16384 keys) and the start of its bucketed form (6144), and sizes that
/// ranked in one block in earlier versions (1024, 2048, 4096, 5120, 8192); multiples of
/// onesweep-sized tiles (384 x 25 = 9600, 384 x 19 = 7296, 384 x 20 = 7680, 384 x 16 = 6144 items,
/// two and three of them; 384 x 12 = 4608, an earlier tile; 384 x 23 = 8832 as CUB's), which up to
/// 131072 items the rank sort or the fused kernel (in its own 2048- or 1024-item tiles) sort;
/// partial last onesweep tiles (384 x 26 and 384 x 18 for pairs among them) come from the sizes
/// above 131072: primes and (unless GPUPRIM_TEST_SMALL=1) sizes above 2^20.
inline std::vector<std::size_t> device_sizes() {
  std::vector<std::size_t> sizes = {0,      1,      2,      17,     63,     64,     65,     127,    128,    129,
                                    255,    256,    257,    511,    512,    513,    1023,   1024,   1025,   2047,
                                    2048,   2049,   4095,
                                    4096,   4097,   4607,   4608,   4609,   5119,   5120,   5121,   6143,   6144,
                                    6145,   7295,   7296,   7297,   7679,   7680,   7681,   8191,   8192,   8193,
                                    8831,   8832,   8833,   9599,   9600,   9601,   12287,  12288,  12289,  14591,
                                    14592,  14593,  15359,  15360,  15361,  16383,  16384,  16385,  17663,  17664,
                                    17665,  18431,  18432,  18433,  19199,  19200,  19201,  21889,  26497,  28801,
                                    65535,  65536,  65537,  131071, 131072, 131073, 999983};
  if (!gpuprim_test::small_mode()) {
    sizes.push_back((std::size_t(1) << 20) + 7);
    sizes.push_back(3000017);
  }
  return sizes;
}

/// Counts the items where a and b differ bytewise, describing the first few.
template <class T>
std::size_t count_bitwise_mismatches(const T* expected, const T* actual, std::size_t n, std::string& first) {
  std::size_t mismatches = 0;
  std::ostringstream os;
  for (std::size_t i = 0; i < n; ++i) {
    if (std::memcmp(&expected[i], &actual[i], sizeof(T)) != 0) {
      if (mismatches < 5) {
        os << "  [" << i << "]";
        if constexpr (std::is_same_v<T, gpuprim_test::triple>) {
          os << " expected " << Catch::Detail::stringify(expected[i]) << ", got "
             << Catch::Detail::stringify(actual[i]);
        } else {
          os << " expected " << hex(expected[i]) << ", got " << hex(actual[i]);
        }
        os << "\n";
      }
      ++mismatches;
    }
  }
  first = os.str();
  return mismatches;
}

/// CHECKs that two arrays are bitwise equal (one assertion, the first mismatches in the message).
template <class T>
void check_bitwise_equal(const char* what, const T* expected, const T* actual, std::size_t n) {
  std::string first;
  const std::size_t mismatches = count_bitwise_mismatches(expected, actual, n, first);
  INFO(what << ": " << mismatches << " mismatches of " << n << "\n" << first);
  CHECK(mismatches == 0);
}

}  // namespace sort_test
