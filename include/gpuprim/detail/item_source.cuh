// Input ranges seen as aligned 16-byte vectors plus a few loose items, so raw pointers take
// vector loads at any alignment while other iterators are read one item at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <type_traits>

#include "config.cuh"

GPUPRIM_NAMESPACE_BEGIN
namespace detail {

template <class It>
using iterator_value_t = typename std::iterator_traits<It>::value_type;

/// Whether `it` is a null raw pointer (other iterators never are).
template <class It>
bool is_null_iterator(const It& it) {
  if constexpr (std::is_pointer_v<It>) {
    return it == nullptr;
  } else {
    return false;
  }
}

/// Items of `T` in one 16-byte vector, or 1 when `T` does not tile 16 bytes. Only naturally
/// aligned types qualify, so that any `T*` reaches a 16-byte boundary after a short head.
template <class T>
inline constexpr int vector_items_v =
    (sizeof(T) < 16 && 16 % sizeof(T) == 0 && alignof(T) == sizeof(T)) ? int(16 / sizeof(T)) : 1;

/// `n` items read through any random-access iterator, one item per "vector".
template <class InputIt>
struct iterator_source {
  using item_type = iterator_value_t<InputIt>;
  static constexpr int vector_items = 1;

  InputIt in;
  std::size_t vectors;

  GPUPRIM_DEVICE void load(std::size_t v, item_type (&items)[1]) const { items[0] = in[v]; }
  GPUPRIM_HOST_DEVICE int loose_items() const { return 0; }
  GPUPRIM_DEVICE item_type loose_item(int) const { return in[0]; }  // never called: no loose items
};

/// `n` items at a raw pointer: a head of up to 15 bytes before the first 16-byte boundary, then
/// aligned vectors, then a tail shorter than one vector. Head and tail are the loose items.
template <class T>
struct vector_source {
  using item_type = T;
  static constexpr int vector_items = vector_items_v<T>;
  static_assert(vector_items > 1, "vector_source needs a type that tiles 16 bytes");

  const T* in;
  std::size_t vectors;
  int head;
  int tail;

  static GPUPRIM_HOST_DEVICE vector_source make(const T* in, std::size_t n) {
    const std::uintptr_t misalignment = reinterpret_cast<std::uintptr_t>(in) % 16;
    std::size_t head = misalignment == 0 ? 0 : (16 - misalignment) / sizeof(T);
    if (head > n) head = n;
    const std::size_t body = n - head;
    return vector_source{in, body / vector_items, static_cast<int>(head), static_cast<int>(body % vector_items)};
  }

  GPUPRIM_DEVICE void load(std::size_t v, T (&items)[vector_items]) const {
    const int4 raw = __ldg(reinterpret_cast<const int4*>(in + head) + v);
    std::memcpy(items, &raw, sizeof(raw));
  }
  GPUPRIM_HOST_DEVICE int loose_items() const { return head + tail; }
  GPUPRIM_DEVICE T loose_item(int i) const {
    return i < head ? in[i] : in[head + vectors * vector_items + (i - head)];
  }
};

template <class InputIt>
inline constexpr bool takes_vector_path_v =
    std::is_pointer_v<InputIt> && vector_items_v<std::remove_cv_t<std::remove_pointer_t<InputIt>>> > 1;

/// The source for `n` items at `in`: vectors for raw pointers to types that tile 16 bytes.
template <class InputIt>
GPUPRIM_HOST_DEVICE auto make_item_source(InputIt in, std::size_t n) {
  if constexpr (takes_vector_path_v<InputIt>) {
    using T = std::remove_cv_t<std::remove_pointer_t<InputIt>>;
    return vector_source<T>::make(in, n);
  } else {
    return iterator_source<InputIt>{in, n};
  }
}

}  // namespace detail
GPUPRIM_NAMESPACE_END
