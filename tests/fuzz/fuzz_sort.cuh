// The radix sort fuzz runner: one random config of a gpuprim radix sort (keys or pairs, either
// order, any bit window, either form, any stream, misaligned arrays) against
// cub::DeviceRadixSort on the same input, bitwise: keys, values (index payloads make stability
// visible), guards around both outputs, and both inputs unchanged.
#pragma once

#include <cuda_bf16.h>  // before CUB: its radix sorts of __nv_bfloat16 and __half need the types
#include <cuda_fp16.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <cub/device/device_radix_sort.cuh>
#include <gpuprim/radix_sort.cuh>
#include <sstream>
#include <type_traits>
#include <vector>

#include "fuzz/fuzz_common.cuh"

namespace fuzz {

/// The Value of a keys-only sort.
struct no_value {};

/// A 12-byte sort value (no padding): the item's input index and 8 random bytes. Any trivially
/// copyable value travels with its key; the index makes stability visible.
struct value12 {
  std::uint32_t index, a, b;
};

// ---------------------------------------------------------------------------------------------
// Keys, written independently of the library

template <class Key>
struct key_info;

#define GPUPRIM_FUZZ_KEY(type, bits_type, kind_, mantissa, name_)             \
  template <>                                                                 \
  struct key_info<type> {                                                     \
    using bits = bits_type;                                                   \
    static constexpr int kind = kind_; /* 0 unsigned, 1 signed, 2 floating */ \
    static constexpr int mantissa_bits = mantissa;                            \
    static const char* name() { return name_; }                               \
  };
GPUPRIM_FUZZ_KEY(std::uint8_t, std::uint8_t, 0, 0, "uint8")
GPUPRIM_FUZZ_KEY(std::int8_t, std::uint8_t, 1, 0, "int8")
GPUPRIM_FUZZ_KEY(std::uint16_t, std::uint16_t, 0, 0, "uint16")
GPUPRIM_FUZZ_KEY(std::int16_t, std::uint16_t, 1, 0, "int16")
GPUPRIM_FUZZ_KEY(std::uint32_t, std::uint32_t, 0, 0, "uint32")
GPUPRIM_FUZZ_KEY(std::int32_t, std::uint32_t, 1, 0, "int32")
GPUPRIM_FUZZ_KEY(std::uint64_t, std::uint64_t, 0, 0, "uint64")
GPUPRIM_FUZZ_KEY(std::int64_t, std::uint64_t, 1, 0, "int64")
GPUPRIM_FUZZ_KEY(__half, std::uint16_t, 2, 10, "__half")
GPUPRIM_FUZZ_KEY(__nv_bfloat16, std::uint16_t, 2, 7, "__nv_bfloat16")
GPUPRIM_FUZZ_KEY(float, std::uint32_t, 2, 23, "float")
GPUPRIM_FUZZ_KEY(double, std::uint64_t, 2, 52, "double")
#undef GPUPRIM_FUZZ_KEY

template <class Key>
using key_bits_t = typename key_info<Key>::bits;
template <class Key>
inline constexpr int key_bit_count = 8 * static_cast<int>(sizeof(Key));
template <class Key>
inline constexpr bool is_floating_key = key_info<Key>::kind == 2;

template <class Key>
Key key_from_bits(key_bits_t<Key> b) {
  Key k;
  std::memcpy(static_cast<void*>(&k), &b, sizeof(Key));
  return k;
}
template <class Key>
key_bits_t<Key> key_to_bits(const Key& k) {
  key_bits_t<Key> b;
  std::memcpy(&b, &k, sizeof(Key));
  return b;
}

/// Inverse of the ascending bit-ordered transform (unsigned order of the result = key order):
/// ordered bits -> key bits.
template <class Key>
key_bits_t<Key> unorder(key_bits_t<Key> o) {
  using B = key_bits_t<Key>;
  constexpr B sign = static_cast<B>(B(1) << (key_bit_count<Key> - 1));
  if constexpr (key_info<Key>::kind == 1) return static_cast<B>(o ^ sign);
  if constexpr (key_info<Key>::kind == 2) return (o & sign) ? static_cast<B>(o ^ sign) : static_cast<B>(~o);
  return o;
}

/// A special floating key (as bits): +-0, +-inf, NaNs of several kinds, denormals, extremes.
template <class Key>
key_bits_t<Key> special_bits(rng& r) {
  using B = key_bits_t<Key>;
  constexpr int m = key_info<Key>::mantissa_bits;
  constexpr B sign = static_cast<B>(B(1) << (key_bit_count<Key> - 1));
  constexpr B mantissa = static_cast<B>((B(1) << m) - 1);
  constexpr B exponent = static_cast<B>(~sign & ~mantissa);
  const B x = static_cast<B>(r.next());
  const B s = r.chance(0.5) ? sign : B(0);
  switch (r.below(10)) {
    case 0: return s;                                                         // +-0
    case 1: return s;                                                         // +-0 (twice as likely)
    case 2: return static_cast<B>(s | exponent);                              // +-inf
    case 3: return static_cast<B>(s | exponent | (B(1) << (m - 1)));          // quiet NaN
    case 4: return static_cast<B>(s | exponent | (x & mantissa) | 1);         // NaN, random payload
    case 5: return static_cast<B>(s | (x & mantissa) | 1);                    // denormal
    case 6: return static_cast<B>(s | 1);                                     // smallest denormal
    case 7: return static_cast<B>(s | mantissa);                              // largest denormal
    case 8: return static_cast<B>(s | (B(1) << m));                           // smallest normal
    default: return static_cast<B>(s | (exponent - (B(1) << m)) | mantissa);  // largest finite
  }
}

/// A random key (as bits): for floating keys a special with probability `special_rate`.
template <class Key>
key_bits_t<Key> random_key_bits(rng& r, double special_rate) {
  if constexpr (is_floating_key<Key>) {
    if (special_rate > 0 && r.chance(special_rate)) return special_bits<Key>(r);
  }
  return static_cast<key_bits_t<Key>>(r.next());
}

template <class Key>
void fill_keys(Key* out, std::size_t n, rng& r, distribution d, double special_rate) {
  using B = key_bits_t<Key>;
  switch (d) {
    case distribution::few_distinct: {
      const int k = 2 + static_cast<int>(r.below(4));
      B v[5];
      for (int i = 0; i < k; ++i) v[i] = random_key_bits<Key>(r, special_rate);
      for (std::size_t i = 0; i < n; ++i) out[i] = key_from_bits<Key>(v[r.below(k)]);
      break;
    }
    case distribution::all_equal: {
      const Key v = key_from_bits<Key>(random_key_bits<Key>(r, special_rate));
      for (std::size_t i = 0; i < n; ++i) out[i] = v;
      break;
    }
    case distribution::ascending:
    case distribution::descending: {
      // o_i = floor((i + u_i) / n * M) is non-decreasing in i (rounding is monotone): sorted
      // keys without a sort, with duplicates where n > M.
      const double max_ordered = static_cast<double>(static_cast<B>(~B(0)));
      for (std::size_t i = 0; i < n; ++i) {
        const double f = (static_cast<double>(i) + r.uniform()) / static_cast<double>(n);
        const double x = f * max_ordered;
        B o = x >= max_ordered ? static_cast<B>(~B(0)) : static_cast<B>(x);
        if (d == distribution::descending) o = static_cast<B>(~o);
        out[i] = key_from_bits<Key>(unorder<Key>(o));
      }
      break;
    }
    case distribution::sparse_bits:
      for (std::size_t i = 0; i < n; ++i) out[i] = key_from_bits<Key>(static_cast<B>(r.next() & r.next() & r.next()));
      break;
    case distribution::digit_subset: {
      // Only some bytes vary: the other digit positions hold one value (passes skipped).
      const B base = static_cast<B>(r.next());
      B mask = 0;
      for (int byte = 0; byte < int(sizeof(Key)); ++byte) {
        if (r.chance(0.4)) mask = static_cast<B>(mask | (B(0xff) << (8 * byte)));
      }
      for (std::size_t i = 0; i < n; ++i)
        out[i] = key_from_bits<Key>(static_cast<B>(base ^ (static_cast<B>(r.next()) & mask)));
      break;
    }
    default:
      for (std::size_t i = 0; i < n; ++i) out[i] = key_from_bits<Key>(random_key_bits<Key>(r, special_rate));
      break;
  }
}

/// Replaces +-0.0 by the smallest denormal of the same sign. CUB's own paths disagree where the
/// zeros of a descending sort over a partial bit window go (Onesweep reads both as -0.0 after
/// the inversion, its single-tile and multi-pass kernels as +0.0; tests/sort/device_sort_common.cuh),
/// so CUB is no reference there.
template <class Key>
std::size_t remove_zeros(Key* keys, std::size_t n) {
  std::size_t replaced = 0;
  if constexpr (is_floating_key<Key>) {
    using B = key_bits_t<Key>;
    constexpr B sign = static_cast<B>(B(1) << (key_bit_count<Key> - 1));
    for (std::size_t i = 0; i < n; ++i) {
      const B b = key_to_bits(keys[i]);
      if (static_cast<B>(b & ~sign) == 0) {
        keys[i] = key_from_bits<Key>(static_cast<B>(b | 1));
        ++replaced;
      }
    }
  }
  return replaced;
}

template <class Value>
const char* value_name() {
  if constexpr (std::is_same_v<Value, std::uint32_t>)
    return "uint32";
  else if constexpr (std::is_same_v<Value, std::uint64_t>)
    return "uint64";
  else if constexpr (std::is_same_v<Value, value12>)
    return "12-byte struct";
  else
    return "none";
}

// ---------------------------------------------------------------------------------------------
// The calls

template <bool Descending, class Key, class Value>
cudaError_t cub_sort(void* temp, std::size_t& bytes, const Key* keys_in, Key* keys_out, const Value* values_in,
                     Value* values_out, std::size_t n, int begin_bit, int end_bit, cudaStream_t s) {
  if constexpr (std::is_same_v<Value, no_value>) {
    if constexpr (Descending) {
      return cub::DeviceRadixSort::SortKeysDescending(temp, bytes, keys_in, keys_out, n, begin_bit, end_bit, s);
    } else {
      return cub::DeviceRadixSort::SortKeys(temp, bytes, keys_in, keys_out, n, begin_bit, end_bit, s);
    }
  } else if constexpr (Descending) {
    return cub::DeviceRadixSort::SortPairsDescending(temp, bytes, keys_in, keys_out, values_in, values_out, n,
                                                     begin_bit, end_bit, s);
  } else {
    return cub::DeviceRadixSort::SortPairs(temp, bytes, keys_in, keys_out, values_in, values_out, n, begin_bit, end_bit,
                                           s);
  }
}

/// gpuprim's workspace form (temp == nullptr: size query); `defaults` leaves the bit range and
/// the stream to their default arguments.
template <bool Descending, class Key, class Value>
cudaError_t gpuprim_sort(void* temp, std::size_t& bytes, const Key* keys_in, Key* keys_out, const Value* values_in,
                         Value* values_out, std::size_t n, int begin_bit, int end_bit, cudaStream_t s, bool defaults) {
  if constexpr (std::is_same_v<Value, no_value>) {
    if constexpr (Descending) {
      return defaults ? gpuprim::radix_sort_keys_descending(temp, bytes, keys_in, keys_out, n)
                      : gpuprim::radix_sort_keys_descending(temp, bytes, keys_in, keys_out, n, begin_bit, end_bit, s);
    } else {
      return defaults ? gpuprim::radix_sort_keys(temp, bytes, keys_in, keys_out, n)
                      : gpuprim::radix_sort_keys(temp, bytes, keys_in, keys_out, n, begin_bit, end_bit, s);
    }
  } else if constexpr (Descending) {
    return defaults ? gpuprim::radix_sort_pairs_descending(temp, bytes, keys_in, keys_out, values_in, values_out, n)
                    : gpuprim::radix_sort_pairs_descending(temp, bytes, keys_in, keys_out, values_in, values_out, n,
                                                           begin_bit, end_bit, s);
  } else {
    return defaults ? gpuprim::radix_sort_pairs(temp, bytes, keys_in, keys_out, values_in, values_out, n)
                    : gpuprim::radix_sort_pairs(temp, bytes, keys_in, keys_out, values_in, values_out, n, begin_bit,
                                                end_bit, s);
  }
}

/// gpuprim's allocating form.
template <bool Descending, class Key, class Value>
cudaError_t gpuprim_sort_allocating(const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out,
                                    std::size_t n, int begin_bit, int end_bit, cudaStream_t s, bool defaults) {
  if constexpr (std::is_same_v<Value, no_value>) {
    if constexpr (Descending) {
      return defaults ? gpuprim::radix_sort_keys_descending(keys_in, keys_out, n)
                      : gpuprim::radix_sort_keys_descending(keys_in, keys_out, n, begin_bit, end_bit, s);
    } else {
      return defaults ? gpuprim::radix_sort_keys(keys_in, keys_out, n)
                      : gpuprim::radix_sort_keys(keys_in, keys_out, n, begin_bit, end_bit, s);
    }
  } else if constexpr (Descending) {
    return defaults ? gpuprim::radix_sort_pairs_descending(keys_in, keys_out, values_in, values_out, n)
                    : gpuprim::radix_sort_pairs_descending(keys_in, keys_out, values_in, values_out, n, begin_bit,
                                                           end_bit, s);
  } else {
    return defaults ? gpuprim::radix_sort_pairs(keys_in, keys_out, values_in, values_out, n)
                    : gpuprim::radix_sort_pairs(keys_in, keys_out, values_in, values_out, n, begin_bit, end_bit, s);
  }
}

// ---------------------------------------------------------------------------------------------
// One config

template <class Key, class Value, bool Descending>
result sort_case(context& ctx, rng& r) {
  constexpr bool pairs = !std::is_same_v<Value, no_value>;
  constexpr int bits = key_bit_count<Key>;
  using lib_value = std::conditional_t<pairs, Value, gpuprim::detail::no_values>;
  result res;

  // Sizes: the rank sort's limit, its warp slice (32 x 16 bytes of sort values) and the start of
  // its bucketed form, the onesweep tiles, the histogram chunk and the fused kernel's tile and
  // limit of gpuprim.
  using configs = gpuprim::detail::radix_configs<Key, lib_value>;
  const std::vector<std::size_t> edges = {
      std::size_t(32 * 16 / sizeof(gpuprim::detail::rank_sort_word<Key>)),
      gpuprim::detail::rank_sort_max_items,
      gpuprim::detail::bucket_sort_min_items,
      std::size_t(configs::one_wave::tile_items),
      std::size_t(configs::many_waves::tile_items),
      std::size_t(gpuprim::detail::radix_histogram_threads) * gpuprim::detail::radix_histogram_items,
      std::size_t(configs::fused::tile_items),
      gpuprim::detail::radix_fused_max_tiles * configs::fused::tile_items};
  const std::size_t n = draw_size(r, ctx.max_n, edges);
  const std::size_t k_in_off = draw_offset(r), k_out_off = draw_offset(r);
  const std::size_t v_in_off = pairs ? draw_offset(r) : 0, v_out_off = pairs ? draw_offset(r) : 0;

  static const distribution ds[] = {distribution::uniform,     distribution::uniform,     distribution::few_distinct,
                                    distribution::all_equal,   distribution::ascending,   distribution::descending,
                                    distribution::sparse_bits, distribution::digit_subset};
  const distribution d = ds[r.below(8)];
  const double special_rates[] = {0.0, 1.0 / 64, 0.25};
  const double special_rate = is_floating_key<Key> ? special_rates[r.below(3)] : 0.0;

  // Bit window: the whole key (half of those through the default arguments), empty, or random.
  int begin_bit = 0, end_bit = bits;
  const double u = r.uniform();
  if (u < 0.1) {
    begin_bit = end_bit = static_cast<int>(r.below(bits + 1));
  } else if (u < 0.55) {
    begin_bit = static_cast<int>(r.below(bits));
    end_bit = r.chance(0.5) ? static_cast<int>(r.between(begin_bit + 1, begin_bit + 8 < bits ? begin_bit + 8 : bits))
                            : static_cast<int>(r.between(begin_bit + 1, bits));
  }
  const stream_choice st = draw_stream(r, ctx);
  const bool whole_key = begin_bit == 0 && end_bit == bits;
  const bool defaults = whole_key && st.kind == stream_kind::legacy_default && r.chance(0.5);
  const workspace_choice w = draw_workspace(r);
  const bool null_pointers = n == 0 && r.chance(0.5);
  const auto poison = static_cast<unsigned char>(r.next());
  res.n = n;

  Key* h_in = ctx.pinned<Key>(h_keys_in, n);
  Value* hv_in = pairs ? ctx.pinned<Value>(h_values_in, n) : nullptr;
  if (h_in == nullptr || (pairs && hv_in == nullptr)) {
    res.config = "(host buffers could not be allocated)";
    res.problems.push_back("test buffers could not be allocated");
    return res;
  }
  fill_keys(h_in, n, r, d, special_rate);
  const bool zeros_removed = is_floating_key<Key> && Descending && begin_bit < end_bit && !whole_key;
  const std::size_t zeros = zeros_removed ? remove_zeros(h_in, n) : 0;
  if constexpr (pairs) {
    for (std::size_t i = 0; i < n; ++i) {
      if constexpr (std::is_same_v<Value, std::uint64_t>) {
        hv_in[i] = (r.next() << 32) | static_cast<std::uint32_t>(i);
      } else if constexpr (std::is_same_v<Value, value12>) {
        const std::uint64_t z = r.next();
        hv_in[i] = {static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(z), static_cast<std::uint32_t>(z >> 32)};
      } else {
        hv_in[i] = static_cast<Value>(i);
      }
    }
  }
  {
    std::ostringstream os;
    os << (pairs ? "radix_sort_pairs" : "radix_sort_keys") << (Descending ? "_descending" : "") << " key "
       << key_info<Key>::name() << ", value " << value_name<Value>() << ", n = " << n << ", bits [" << begin_bit << ", "
       << end_bit << ")" << (defaults ? " (default arguments)" : "") << ", " << distribution_name(d);
    if (is_floating_key<Key>) os << ", specials rate " << special_rate;
    if (zeros_removed) os << " (" << zeros << " zeros made denormal)";
    os << ", key offsets in " << k_in_off << " out " << k_out_off;
    if (pairs) os << ", value offsets in " << v_in_off << " out " << v_out_off;
    os << (null_pointers ? " (null pointers)" : "") << ", " << stream_name(st) << ", " << form_name(w) << ", poison 0x"
       << std::hex << int(poison);
    res.config = os.str();
  }
  ctx.announce(res.config);

  Key* d_in = ctx.dev<Key>(d_keys_in, k_in_off + n);
  const guarded<Key> out = make_guarded<Key>(ctx, d_keys_out, n, k_out_off);
  Key* d_ref = ctx.dev<Key>(d_keys_ref, n);
  Key* h_out = ctx.pinned<Key>(h_keys_out, out.total);
  Key* h_ref = ctx.pinned<Key>(h_keys_ref, n);
  Key* h_after = ctx.pinned<Key>(h_keys_after, n);
  if (!d_in || !out.base || !d_ref || !h_out || !h_ref || !h_after) {
    res.problems.push_back("test buffers could not be allocated");
    return res;
  }
  Value* dv_in = nullptr;
  guarded<Value> vout;
  Value* dv_ref = nullptr;
  Value* hv_out = nullptr;
  Value* hv_ref = nullptr;
  Value* hv_after = nullptr;
  if constexpr (pairs) {
    dv_in = ctx.dev<Value>(d_values_in, v_in_off + n);
    vout = make_guarded<Value>(ctx, d_values_out, n, v_out_off);
    dv_ref = ctx.dev<Value>(d_values_ref, n);
    hv_out = ctx.pinned<Value>(h_values_out, vout.total);
    hv_ref = ctx.pinned<Value>(h_values_ref, n);
    hv_after = ctx.pinned<Value>(h_values_after, n);
    if (!dv_in || !vout.base || !dv_ref || !hv_out || !hv_ref || !hv_after) {
      res.problems.push_back("test buffers could not be allocated");
      return res;
    }
  }

  const Key* k_in = d_in + k_in_off;
  const Value* v_in = pairs ? dv_in + v_in_off : nullptr;
  if (n > 0 &&
      cuda_failed(res, cudaMemcpyAsync(d_in + k_in_off, h_in, n * sizeof(Key), cudaMemcpyHostToDevice, ctx.setup),
                  "upload"))
    return res;
  if (cuda_failed(res, cudaMemsetAsync(out.base, poison, out.total * sizeof(Key), ctx.setup), "poison")) return res;
  if constexpr (pairs) {
    if (n > 0 &&
        cuda_failed(res, cudaMemcpyAsync(dv_in + v_in_off, hv_in, n * sizeof(Value), cudaMemcpyHostToDevice, ctx.setup),
                    "upload"))
      return res;
    if (cuda_failed(res, cudaMemsetAsync(vout.base, poison, vout.total * sizeof(Value), ctx.setup), "poison"))
      return res;
  }

  // CUB's result.
  std::size_t cub_bytes = 0;
  if (cuda_failed(res,
                  (cub_sort<Descending, Key, Value>(nullptr, cub_bytes, k_in, d_ref, v_in, dv_ref, n, begin_bit,
                                                    end_bit, ctx.setup)),
                  "CUB size query"))
    return res;
  void* cub_temp = ctx.device[d_cub_temp].get(cub_bytes);
  if (cub_temp == nullptr) {
    res.problems.push_back("CUB's workspace could not be allocated");
    return res;
  }
  if (cuda_failed(res,
                  (cub_sort<Descending, Key, Value>(cub_temp, cub_bytes, k_in, d_ref, v_in, dv_ref, n, begin_bit,
                                                    end_bit, ctx.setup)),
                  "CUB sort"))
    return res;

  // The call under test.
  const Key* call_k_in = null_pointers ? nullptr : k_in;
  Key* call_k_out = null_pointers ? nullptr : out.out;
  const Value* call_v_in = null_pointers ? nullptr : v_in;
  Value* call_v_out = null_pointers || !pairs ? nullptr : vout.out;
  cudaError_t e;
  if (w.form == call_form::allocating) {
    if (cuda_failed(res, cudaStreamSynchronize(ctx.setup), "setup")) return res;
    e = gpuprim_sort_allocating<Descending, Key, Value>(call_k_in, call_k_out, call_v_in, call_v_out, n, begin_bit,
                                                        end_bit, st.stream, defaults);
  } else {
    auto workspace_call = [&](void* temp, std::size_t& bytes) {
      return gpuprim_sort<Descending, Key, Value>(temp, bytes, call_k_in, call_k_out, call_v_in, call_v_out, n,
                                                  begin_bit, end_bit, st.stream, defaults);
    };
    if (!call_workspace_form(ctx, w, static_cast<unsigned char>(~poison), res, workspace_call, e)) return res;
  }
  if (cuda_failed(res, e, "gpuprim call")) return res;
  if (cuda_failed(res, ctx.wait(st.stream, res.config), "gpuprim execution")) return res;

  // Read back and compare.
  auto download = [&](void* dst, const void* src, std::size_t bytes) {
    return bytes == 0 ||
           !cuda_failed(res, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, ctx.setup), "download");
  };
  if (!download(h_out, out.base, out.total * sizeof(Key)) || !download(h_ref, d_ref, n * sizeof(Key)) ||
      !download(h_after, k_in, n * sizeof(Key))) {
    return res;
  }
  if constexpr (pairs) {
    if (!download(hv_out, vout.base, vout.total * sizeof(Value)) || !download(hv_ref, dv_ref, n * sizeof(Value)) ||
        !download(hv_after, v_in, n * sizeof(Value))) {
      return res;
    }
  }
  if (cuda_failed(res, cudaStreamSynchronize(ctx.setup), "download")) return res;
  compare_bitwise(res, "keys", h_ref, h_out + out.before, n);
  check_guards(res, "keys", h_out, out, n, poison);
  compare_bitwise(res, "input keys after the sort", h_in, h_after, n);
  if constexpr (pairs) {
    compare_bitwise(res, "values", hv_ref, hv_out + vout.before, n);
    check_guards(res, "values", hv_out, vout, n, poison);
    compare_bitwise(res, "input values after the sort", hv_in, hv_after, n);
  }
  return res;
}

/// Both orders of one key and value type.
template <class Key, class Value>
result sort_order(context& ctx, rng& r, bool descending) {
  return descending ? sort_case<Key, Value, true>(ctx, r) : sort_case<Key, Value, false>(ctx, r);
}

}  // namespace fuzz
