// The device radix sort runner: one call of a gpuprim sort (either form, either order, keys or
// pairs, any bit window, any stream) and of cub::DeviceRadixSort on the same input, compared
// bitwise; outputs poisoned, guard items past the end untouched, inputs unchanged. Also the
// sweeps that every key type goes through.
#pragma once

#include <gpuprim/radix_sort.cuh>

#include <cub/device/device_radix_sort.cuh>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "sort/sort_test_util.cuh"
#include "support/catch.hpp"
#include "support/test_util.cuh"

namespace sort_test {

/// The Value of a keys-only sort.
struct keys_only {};

enum class call_form { workspace, allocating };

/// One sort call. end_bit < 0 means the whole key; on the default stream that call also leaves
/// begin_bit, end_bit and stream to their default arguments.
struct sort_call {
  bool descending = false;
  int begin_bit = 0;
  int end_bit = -1;
  call_form form = call_form::workspace;
  cudaStream_t stream = 0;
  std::size_t offset = 0;          // items before every input and output array (misalignment)
  std::size_t workspace_skew = 0;  // bytes before the workspace (misalignment)
  /// A path forced through the internal entry point (workspace form only); automatic: the plan's.
  gpuprim::detail::radix_path path = gpuprim::detail::radix_path::automatic;
};

/// The path names of describe().
inline const char* path_name(gpuprim::detail::radix_path p) {
  using gpuprim::detail::radix_path;
  switch (p) {
    case radix_path::rank: return "rank sort";
    case radix_path::bucket: return "bucketed rank sort";
    case radix_path::fused: return "fused sort";
    case radix_path::one_wave: return "onesweep, one-wave tiles";
    case radix_path::many_waves: return "onesweep, many-wave tiles";
    default: return "the plan's path";
  }
}

inline constexpr std::size_t guard_items = 16;

template <class Key, class Value>
std::string describe(std::size_t n, const sort_call& c, int end_bit) {
  std::ostringstream os;
  os << key_traits<Key>::name() << (std::is_same_v<Value, keys_only> ? " keys" : " pairs")
     << (c.descending ? ", descending" : ", ascending") << ", n = " << n << ", "
     << bit_window{c.begin_bit, end_bit} << (c.end_bit < 0 ? " (default)" : "")
     << (c.form == call_form::allocating ? ", allocating form" : ", workspace form")
     << (c.stream != 0 ? ", own stream" : ", default stream");
  if (c.offset != 0) os << ", arrays offset by " << c.offset << " items";
  if (c.workspace_skew != 0) os << ", workspace offset by " << c.workspace_skew << " bytes";
  if (c.path != gpuprim::detail::radix_path::automatic) os << ", forced: " << path_name(c.path);
  os << " (GPUPRIM_TEST_SEED=" << gpuprim_test::test_seed() << ")";
  return os.str();
}

/// The gpuprim sort of call c, workspace form (temp == nullptr: size query).
template <class Key, class Value>
cudaError_t gpuprim_sort(void* temp, std::size_t& bytes, const Key* keys_in, Key* keys_out, const Value* values_in,
                         Value* values_out, std::size_t n, const sort_call& c) {
  const int end_bit = c.end_bit < 0 ? key_bits<Key> : c.end_bit;
  const bool defaults = c.end_bit < 0 && c.begin_bit == 0 && c.stream == 0;
  if (c.path != gpuprim::detail::radix_path::automatic) {
    // The internal entry point with a forced path, as the public workspace form calls it.
    using lib_value = std::conditional_t<std::is_same_v<Value, keys_only>, gpuprim::detail::no_values, Value>;
    const auto* v_in = reinterpret_cast<const lib_value*>(values_in);
    auto* v_out = reinterpret_cast<lib_value*>(values_out);
    const bool size_query = temp == nullptr;
    const cudaError_t e =
        c.descending ? gpuprim::detail::radix_sort<true>(temp, bytes, size_query, keys_in, keys_out, v_in, v_out, n,
                                                         c.begin_bit, end_bit, c.stream, c.path)
                     : gpuprim::detail::radix_sort<false>(temp, bytes, size_query, keys_in, keys_out, v_in, v_out, n,
                                                          c.begin_bit, end_bit, c.stream, c.path);
    if (e == cudaSuccess && size_query && bytes == 0) bytes = 1;
    return e;
  }
  if constexpr (std::is_same_v<Value, keys_only>) {
    if (c.descending) {
      return defaults ? gpuprim::radix_sort_keys_descending(temp, bytes, keys_in, keys_out, n)
                      : gpuprim::radix_sort_keys_descending(temp, bytes, keys_in, keys_out, n, c.begin_bit, end_bit,
                                                            c.stream);
    }
    return defaults ? gpuprim::radix_sort_keys(temp, bytes, keys_in, keys_out, n)
                    : gpuprim::radix_sort_keys(temp, bytes, keys_in, keys_out, n, c.begin_bit, end_bit, c.stream);
  } else {
    if (c.descending) {
      return defaults ? gpuprim::radix_sort_pairs_descending(temp, bytes, keys_in, keys_out, values_in, values_out, n)
                      : gpuprim::radix_sort_pairs_descending(temp, bytes, keys_in, keys_out, values_in, values_out, n,
                                                             c.begin_bit, end_bit, c.stream);
    }
    return defaults ? gpuprim::radix_sort_pairs(temp, bytes, keys_in, keys_out, values_in, values_out, n)
                    : gpuprim::radix_sort_pairs(temp, bytes, keys_in, keys_out, values_in, values_out, n, c.begin_bit,
                                                end_bit, c.stream);
  }
}

/// The gpuprim sort of call c, allocating form.
template <class Key, class Value>
cudaError_t gpuprim_sort_allocating(const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out,
                                    std::size_t n, const sort_call& c) {
  const int end_bit = c.end_bit < 0 ? key_bits<Key> : c.end_bit;
  const bool defaults = c.end_bit < 0 && c.begin_bit == 0 && c.stream == 0;
  if constexpr (std::is_same_v<Value, keys_only>) {
    if (c.descending) {
      return defaults ? gpuprim::radix_sort_keys_descending(keys_in, keys_out, n)
                      : gpuprim::radix_sort_keys_descending(keys_in, keys_out, n, c.begin_bit, end_bit, c.stream);
    }
    return defaults ? gpuprim::radix_sort_keys(keys_in, keys_out, n)
                    : gpuprim::radix_sort_keys(keys_in, keys_out, n, c.begin_bit, end_bit, c.stream);
  } else {
    if (c.descending) {
      return defaults ? gpuprim::radix_sort_pairs_descending(keys_in, keys_out, values_in, values_out, n)
                      : gpuprim::radix_sort_pairs_descending(keys_in, keys_out, values_in, values_out, n, c.begin_bit,
                                                             end_bit, c.stream);
    }
    return defaults ? gpuprim::radix_sort_pairs(keys_in, keys_out, values_in, values_out, n)
                    : gpuprim::radix_sort_pairs(keys_in, keys_out, values_in, values_out, n, c.begin_bit, end_bit,
                                                c.stream);
  }
}

/// cub::DeviceRadixSort with the same order and bits (temp == nullptr: size query).
template <class Key, class Value>
cudaError_t cub_sort(void* temp, std::size_t& bytes, const Key* keys_in, Key* keys_out, const Value* values_in,
                     Value* values_out, std::size_t n, bool descending, int begin_bit, int end_bit,
                     cudaStream_t stream) {
  if constexpr (std::is_same_v<Value, keys_only>) {
    return descending
               ? cub::DeviceRadixSort::SortKeysDescending(temp, bytes, keys_in, keys_out, n, begin_bit, end_bit, stream)
               : cub::DeviceRadixSort::SortKeys(temp, bytes, keys_in, keys_out, n, begin_bit, end_bit, stream);
  } else {
    return descending ? cub::DeviceRadixSort::SortPairsDescending(temp, bytes, keys_in, keys_out, values_in,
                                                                  values_out, n, begin_bit, end_bit, stream)
                      : cub::DeviceRadixSort::SortPairs(temp, bytes, keys_in, keys_out, values_in, values_out, n,
                                                        begin_bit, end_bit, stream);
  }
}

/// CUB's sorted keys (and values) of host arrays.
template <class Key, class Value>
void cub_reference(const std::vector<Key>& keys, const std::vector<Value>& values, bool descending, int begin_bit,
                   int end_bit, std::vector<Key>& sorted_keys, std::vector<Value>& sorted_values) {
  constexpr bool pairs = !std::is_same_v<Value, keys_only>;
  const std::size_t n = keys.size();
  gpuprim_test::device_vector<Key> in(keys), out(n);
  gpuprim_test::device_vector<Value> values_in(values), values_out(pairs ? n : 0);
  std::size_t bytes = 0;
  REQUIRE_CUDA((cub_sort<Key, Value>(nullptr, bytes, in.data(), out.data(), values_in.data(), values_out.data(), n,
                                     descending, begin_bit, end_bit, 0)));
  gpuprim_test::device_vector<unsigned char> temp(bytes);
  REQUIRE_CUDA((cub_sort<Key, Value>(temp.data(), bytes, in.data(), out.data(), values_in.data(), values_out.data(),
                                     n, descending, begin_bit, end_bit, 0)));
  gpuprim_test::require_sync();
  sorted_keys = out.download();
  if constexpr (pairs) sorted_values = values_out.download();
}

/// Whether the bytes of items [first, last) all equal `pattern`; counts those that do not.
template <class T>
std::size_t count_touched(const std::vector<T>& items, std::size_t first, unsigned char pattern) {
  std::size_t touched = 0;
  for (std::size_t i = first; i < items.size(); ++i) {
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &items[i], sizeof(T));
    for (unsigned char b : bytes) touched += b != pattern;
  }
  return touched;
}

/// Sorts `keys` (and `values`, unless Value is keys_only) with gpuprim as call c says and checks
/// the result bitwise against CUB's: keys, values (index payloads prove stability), guard items
/// past the end still poisoned, inputs unchanged. Keys of 1 or 2 bytes are sorted twice over
/// outputs poisoned with different bytes, so that an unwritten item cannot pass for a key.
///
/// Float keys, descending, partial window: CUB's own paths disagree about where +-0.0 go (its
/// Onesweep reads both zeros as -0.0 after the inversion, its single-tile and multi-pass kernels
/// as +0.0), so the zeros are replaced by denormals here; device_sort_semantics.cu tests them
/// against the host reference instead.
template <class Key, class Value = keys_only>
void check_sort(std::vector<Key> keys, const std::vector<Value>& values, const sort_call& c) {
  constexpr bool pairs = !std::is_same_v<Value, keys_only>;
  using gpuprim_test::device_vector;
  const std::size_t n = keys.size();
  const int end_bit = c.end_bit < 0 ? key_bits<Key> : c.end_bit;
  INFO((describe<Key, Value>(n, c, end_bit)));
  if constexpr (pairs) REQUIRE(values.size() == n);
  if (c.descending && c.begin_bit < end_bit && (c.begin_bit != 0 || end_bit != key_bits<Key>)) remove_zeros(keys);

  std::vector<Key> expected_keys;
  std::vector<Value> expected_values;
  cub_reference<Key, Value>(keys, values, c.descending, c.begin_bit, end_bit, expected_keys, expected_values);

  // Inputs and outputs, `offset` items into their buffers; never null (n == 0 included).
  const std::size_t off = c.offset;
  device_vector<Key> keys_in(off + n + 1), keys_out(off + n + guard_items);
  device_vector<Value> values_in(pairs ? off + n + 1 : 0), values_out(pairs ? off + n + guard_items : 0);
  keys_in.upload(keys, off);
  if constexpr (pairs) values_in.upload(values, off);
  const Key* k_in = keys_in.data() + off;
  Key* k_out = keys_out.data() + off;
  const Value* v_in = pairs ? values_in.data() + off : nullptr;
  Value* v_out = pairs ? values_out.data() + off : nullptr;

  std::size_t bytes = 0;
  device_vector<unsigned char> temp;
  if (c.form == call_form::workspace) {
    REQUIRE_CUDA((gpuprim_sort<Key, Value>(nullptr, bytes, k_in, k_out, v_in, v_out, n, c)));
    REQUIRE(bytes >= 1);
    REQUIRE(temp.allocate(bytes + c.workspace_skew));
  }

  const unsigned char patterns[] = {0xCD, 0x32};
  const int runs = sizeof(Key) <= 2 ? 2 : 1;
  for (int r = 0; r < runs; ++r) {
    INFO("outputs poisoned with 0x" << std::hex << int(patterns[r]));
    keys_out.poison(patterns[r]);
    values_out.poison(patterns[r]);
    if (c.form == call_form::workspace) {
      std::size_t b = bytes;
      REQUIRE_CUDA((gpuprim_sort<Key, Value>(temp.data() + c.workspace_skew, b, k_in, k_out, v_in, v_out, n, c)));
    } else {
      REQUIRE_CUDA((gpuprim_sort_allocating<Key, Value>(k_in, k_out, v_in, v_out, n, c)));
    }
    REQUIRE_CUDA(cudaStreamSynchronize(c.stream));
    gpuprim_test::require_sync();

    const std::vector<Key> got_keys = keys_out.download(off, n + guard_items);
    check_bitwise_equal("keys", expected_keys.data(), got_keys.data(), n);
    INFO("key bytes written past the end: " << count_touched(got_keys, n, patterns[r]));
    CHECK(count_touched(got_keys, n, patterns[r]) == 0);
    if constexpr (pairs) {
      const std::vector<Value> got_values = values_out.download(off, n + guard_items);
      check_bitwise_equal("values", expected_values.data(), got_values.data(), n);
      INFO("value bytes written past the end: " << count_touched(got_values, n, patterns[r]));
      CHECK(count_touched(got_values, n, patterns[r]) == 0);
    }
  }
  const std::vector<Key> keys_after = keys_in.download(off, n);
  check_bitwise_equal("input keys after the sort", keys.data(), keys_after.data(), n);
  if constexpr (pairs) {
    const std::vector<Value> values_after = values_in.download(off, n);
    check_bitwise_equal("input values after the sort", values.data(), values_after.data(), n);
  }
}

/// For each n of `sizes` and each of `distributions`: random keys and uint32 values (case_rng with
/// `seed`), then `visit(keys, values, call, window, distribution)` for the windows [0, B) (0) and
/// [B/4, B - 3) (1), each in both orders (the call's begin_bit, end_bit and descending set).
template <class Key, class Visit>
void for_each_window_case(const std::vector<std::size_t>& sizes, const std::vector<distribution>& distributions,
                          int seed, Visit&& visit) {
  for (std::size_t n : sizes) {
    std::mt19937_64 rng = case_rng(name_hash(key_traits<Key>::name()), n, seed);
    for (distribution d : distributions) {
      INFO("distribution: " << distribution_name(d));
      const std::vector<Key> keys = make_keys<Key>(n, d, rng);
      const std::vector<std::uint32_t> values = make_values<std::uint32_t>(n, rng);
      for (int window : {0, 1}) {
        sort_call c;
        c.begin_bit = window == 0 ? 0 : key_bits<Key> / 4;
        c.end_bit = window == 0 ? -1 : key_bits<Key> - 3;
        for (bool descending : {false, true}) {
          c.descending = descending;
          visit(keys, values, c, window, d);
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The sweeps of every key type

/// Every size of device_sizes(), uniform random keys, the whole key, both orders, keys and
/// pairs (uint32 index payload); the calls rotate through both forms, the default and an own
/// stream, and the default bit arguments.
template <class Key>
void sweep_sizes() {
  gpuprim_test::scoped_stream stream;
  const std::vector<std::size_t> sizes = device_sizes();
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const std::size_t n = sizes[i];
    std::mt19937_64 rng = case_rng(name_hash(key_traits<Key>::name()), n, 1);
    const std::vector<Key> keys = make_keys<Key>(n, distribution::uniform, rng);
    const std::vector<std::uint32_t> values = make_values<std::uint32_t>(n, rng);
    sort_call c;
    c.form = i % 2 == 0 ? call_form::workspace : call_form::allocating;
    c.stream = (i / 2) % 2 == 0 ? cudaStream_t(0) : stream.get();
    c.end_bit = i % 3 == 0 ? -1 : key_bits<Key>;
    for (bool descending : {false, true}) {
      c.descending = descending;
      check_sort<Key>(keys, {}, c);
      check_sort<Key, std::uint32_t>(keys, values, c);
    }
  }
}

/// Every distribution for Key x the windows of test_windows x both orders: pairs at 17, 4097 and
/// 65537 items, keys only at 4097; and the whole key at 999983 items (not in small mode).
template <class Key>
void sweep_distributions_and_windows() {
  for (distribution d : distributions_for<Key>()) {
    INFO("distribution: " << distribution_name(d));
    for (std::size_t n : {std::size_t(17), std::size_t(4097), std::size_t(65537)}) {
      std::mt19937_64 rng = case_rng(name_hash(key_traits<Key>::name()), n, 100 + static_cast<int>(d));
      const std::vector<Key> keys = make_keys<Key>(n, d, rng);
      const std::vector<std::uint32_t> values = make_values<std::uint32_t>(n, rng);
      for (const bit_window& w : test_windows<Key>(rng)) {
        for (bool descending : {false, true}) {
          sort_call c;
          c.descending = descending;
          c.begin_bit = w.begin_bit;
          c.end_bit = w.end_bit;
          check_sort<Key, std::uint32_t>(keys, values, c);
          if (n == 4097) check_sort<Key>(keys, {}, c);
        }
      }
    }
    if (gpuprim_test::small_mode()) continue;
    const std::size_t n = 999983;
    std::mt19937_64 rng = case_rng(name_hash(key_traits<Key>::name()), n, 200 + static_cast<int>(d));
    const std::vector<Key> keys = make_keys<Key>(n, d, rng);
    const std::vector<std::uint32_t> values = make_values<std::uint32_t>(n, rng);
    for (bool descending : {false, true}) {
      sort_call c;
      c.descending = descending;
      c.end_bit = key_bits<Key>;
      check_sort<Key, std::uint32_t>(keys, values, c);
    }
  }
}

}  // namespace sort_test
