// The type requirements of the public entry points, as static_asserts with one plain sentence per
// broken requirement. Each entry point tests `check()` in an `if constexpr`, so that a broken
// requirement stops there: no kernel is instantiated and no cascade of template errors follows.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

#include "config.cuh"
#include "item_source.cuh"
#include "radix_traits.cuh"

GPUPRIM_NAMESPACE_BEGIN
namespace detail {

template <class It>
using iterator_item_t = std::remove_cv_t<iterator_value_t<It>>;

/// Whether `out[i] = value` (how the algorithms write) compiles for an output iterator `OutputIt`
/// and a `T`.
template <class OutputIt, class T, class = void>
inline constexpr bool output_accepts_v = false;
template <class OutputIt, class T>
inline constexpr bool output_accepts_v<
    OutputIt, T, std::void_t<decltype(std::declval<const OutputIt&>()[std::size_t(0)] = std::declval<const T&>())>> =
    true;

template <class T>
inline constexpr bool copyable_v = std::is_copy_constructible_v<T> && std::is_copy_assignable_v<T>;

/// reduce / sum: items of InputIt folded into `T` (of `*d_out`), starting from an `Init`.
template <class InputIt, class T, class Init>
struct reduce_requirements {
  using item_t = iterator_item_t<InputIt>;
  static constexpr bool check() {
    static_assert(std::is_same_v<T, Init>,
                  "gpuprim::reduce: init and *d_out must have the same type, the accumulator type; the types "
                  "deduced for them (T from d_out, Init from init) differ: see [with ... T=..., Init=...]");
    static_assert(copyable_v<T>, "gpuprim::reduce: the accumulator type (of init and *d_out) must be copyable");
    static_assert(!copyable_v<T> || std::is_constructible_v<T, const item_t&>,
                  "gpuprim::reduce: the items (the input iterator's value type) must convert to the accumulator "
                  "type (of init and *d_out)");
    return std::is_same_v<T, Init> && copyable_v<T> && std::is_constructible_v<T, const item_t&>;
  }
};

/// exclusive_scan / inclusive_scan and the sums: items of InputIt scanned in `Acc`, written to
/// OutputIt.
template <class InputIt, class OutputIt, class Acc>
struct scan_requirements {
  using item_t = iterator_item_t<InputIt>;
  static constexpr bool check() {
    static_assert(copyable_v<Acc>, "gpuprim scan: the accumulator type (of init, or the items') must be copyable");
    static_assert(!copyable_v<Acc> || std::is_constructible_v<Acc, const item_t&>,
                  "gpuprim scan: the items (the input iterator's value type) must convert to the accumulator type "
                  "(the type of init; for the sums, the output's item type)");
    static_assert(!copyable_v<Acc> || output_accepts_v<OutputIt, Acc>,
                  "gpuprim scan: the output must be assignable from the accumulator type (d_out[i] = acc)");
    return copyable_v<Acc> && std::is_constructible_v<Acc, const item_t&> && output_accepts_v<OutputIt, Acc>;
  }
};

/// Whether keys of KeysIt compare with ==.
template <class KeysIt, class = void>
inline constexpr bool keys_comparable_v = false;
template <class KeysIt>
inline constexpr bool keys_comparable_v<KeysIt, std::void_t<decltype(bool(std::declval<iterator_item_t<KeysIt>>() ==
                                                                           std::declval<iterator_item_t<KeysIt>>()))>> =
    true;

/// The scans and reduce by key: the scan's requirements of the values, and keys that compare.
template <class KeysIt, class ValuesIt, class OutputIt, class Acc>
struct by_key_requirements {
  static constexpr bool check() {
    static_assert(keys_comparable_v<KeysIt>, "gpuprim by-key algorithms: the keys must compare with ==");
    return keys_comparable_v<KeysIt> && scan_requirements<ValuesIt, OutputIt, Acc>::check();
  }
};

/// segmented_reduce / segmented_sum: the reduce's requirements, an output that takes the
/// accumulator, and integer offsets.
template <class InputIt, class OutputIt, class BeginIt, class EndIt, class Acc>
struct segmented_reduce_requirements {
  using item_t = iterator_item_t<InputIt>;
  static constexpr bool offsets_ok = std::is_integral_v<iterator_item_t<BeginIt>> && std::is_integral_v<iterator_item_t<EndIt>>;
  static constexpr bool check() {
    static_assert(offsets_ok, "gpuprim::segmented_reduce: the segment offsets must be integers (int, int64_t, size_t)");
    static_assert(copyable_v<Acc>, "gpuprim::segmented_reduce: the accumulator type (of init) must be copyable");
    static_assert(!copyable_v<Acc> || std::is_constructible_v<Acc, const item_t&>,
                  "gpuprim::segmented_reduce: the items (the input iterator's value type) must convert to the "
                  "accumulator type (the type of init; for segmented_sum, the output's item type)");
    static_assert(!copyable_v<Acc> || output_accepts_v<OutputIt, Acc>,
                  "gpuprim::segmented_reduce: the output must be assignable from the accumulator type");
    return offsets_ok && copyable_v<Acc> && std::is_constructible_v<Acc, const item_t&> &&
           output_accepts_v<OutputIt, Acc>;
  }
};

/// The radix sorts: keys and values.
template <class Key, class Value>
struct radix_sort_requirements {
  static constexpr bool check() {
    static_assert(is_radix_key_v<Key>,
                  "gpuprim radix sort: the key must be an 8/16/32/64-bit integer, float, double, __half or "
                  "__nv_bfloat16");
    static_assert(std::is_trivially_copyable_v<Value>, "gpuprim radix sort: the values must be trivially copyable");
    return is_radix_key_v<Key> && std::is_trivially_copyable_v<Value>;
  }
};

}  // namespace detail
GPUPRIM_NAMESPACE_END
