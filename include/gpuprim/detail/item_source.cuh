// Input ranges seen as 16-byte vectors plus a few loose items, so raw pointers take vector loads at
// any alignment while other iterators are read one item at a time: split at the first 16-byte
// boundary (vector_source), or by logical index whatever the alignment (logical_vector_source).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <type_traits>

#include "config.cuh"
#include "shuffle.cuh"

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

  // The logical_vector_source interface: every item is a vector, there is no tail.
  static constexpr bool shifted = false;
  template <bool Checked>
  GPUPRIM_DEVICE void load_vector(std::size_t q, item_type (&items)[1]) const {
    if (!Checked || q < vectors) items[0] = in[q];
  }
  GPUPRIM_HOST_DEVICE int tail_items() const { return 0; }
  GPUPRIM_DEVICE item_type tail_item(int) const { return in[0]; }  // never called: no tail
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

/// `n` items at a raw pointer read by logical index, whatever its alignment: vector `q` holds items
/// `[q V, q V + V)` (V = vector_items) and the `n % V` items after the last vector are the tail.
/// Which items a thread gets is then a function of the index alone, so a reduce over it groups
/// the same items the same way at every address. Aligned (`Shifted` false), vector q is the
/// 16-byte vector at `in + q V`. `Shifted`: `in` lies `shift` bytes past a 16-byte boundary, so
/// vector q spans the aligned vectors q and q + 1 counted from that boundary; each lane loads
/// vector q and gets vector q + 1 from the next lane by a shuffle (the warp's last lane from one
/// load that all lanes issue at the same address, a single request), then cuts its 16 bytes out
/// at the warp-uniform shift. One load per lane as in the aligned case, plus one per warp.
template <class T, bool Shifted>
struct logical_vector_source {
  using item_type = T;
  static constexpr int vector_items = vector_items_v<T>;
  static constexpr bool shifted = Shifted;
  static_assert(vector_items > 1, "logical_vector_source needs a type that tiles 16 bytes");

  const T* in;
  std::size_t n;
  std::size_t vectors;      ///< Full logical vectors: n / vector_items.
  std::size_t aligned_end;  ///< Shifted: the aligned vectors 1 .. aligned_end - 1 lie wholly in the input.
  int tail;                 ///< Items after the last vector: n % vector_items.
  int shift;                ///< Bytes from the 16-byte boundary below `in` to `in` (0 unless Shifted).

  static GPUPRIM_HOST_DEVICE logical_vector_source make(const T* in, std::size_t n) {
    const int shift = static_cast<int>(reinterpret_cast<std::uintptr_t>(in) % 16);
    const std::size_t vectors = n / vector_items;
    // The input ends shift + n * sizeof(T) bytes past the boundary below `in`.
    const std::size_t aligned_end = (std::size_t(shift) + n * sizeof(T)) / 16;
    return logical_vector_source{in, n, vectors, aligned_end, static_cast<int>(n % vector_items),
                                 Shifted ? shift : 0};
  }

  /// Logical vector `q` into `items`; warp-collective: all 32 lanes call together, lane l with
  /// `q = q0 + l`. Unchecked (the fast path), every lane's vector must be a full one, and when
  /// Shifted also `1 <= q0` and `q0 + 32 < aligned_end` (every aligned vector read is wholly in the
  /// input). Checked, any `q` is allowed: lanes with `q >= vectors` get unspecified items, and
  /// nothing outside the input is read (partial aligned vectors are read item by item).
  template <bool Checked>
  GPUPRIM_DEVICE void load_vector(std::size_t q, T (&items)[vector_items]) const {
    if constexpr (!Shifted) {
      if (!Checked || q < vectors) {
        const int4 raw = __ldg(reinterpret_cast<const int4*>(in) + q);
        std::memcpy(items, &raw, sizeof(raw));
      }
    } else {
      const unsigned lane = lane_id();
      const std::size_t after = q - lane + 32;  // the aligned vector after the warp's last one
      const int4 here = Checked ? aligned_vector_checked(q) : __ldg(aligned() + q);
      const int4 beyond = Checked ? aligned_vector_checked(after) : __ldg(aligned() + after);
      // Aligned vector q + 1: the next lane's, or for the last lane the one after the warp's.
      const int4 next = lane_select(lane == 31, beyond, shfl_down(here, 1));
      cut(here, next, items);
    }
  }

  GPUPRIM_HOST_DEVICE int tail_items() const { return tail; }
  GPUPRIM_DEVICE T tail_item(int j) const { return in[vectors * vector_items + j]; }

 private:
  GPUPRIM_DEVICE const int4* aligned() const {
    return reinterpret_cast<const int4*>(reinterpret_cast<std::uintptr_t>(in) - std::uintptr_t(shift));
  }

  // Aligned vector p (counted from the boundary below `in`): one load where it lies wholly in the
  // input, else its items that are in the input (the first vector, which starts before `in`, and
  // the one the input ends in), zeros elsewhere: never a byte outside the input.
  GPUPRIM_DEVICE int4 aligned_vector_checked(std::size_t p) const {
    if (p >= 1 && p < aligned_end) return __ldg(aligned() + p);
    T items[vector_items] = {};
    const std::size_t offset = std::size_t(shift) / sizeof(T);  // items of vector 0 before `in`
    if (p <= vectors) {
#pragma unroll
      for (int k = 0; k < vector_items; ++k) {
        const std::size_t at = p * vector_items + k;  // `in + at - offset` is that item
        if (at >= offset && at - offset < n) items[k] = in[at - offset];
      }
    }
    int4 raw;
    std::memcpy(&raw, items, sizeof(raw));
    return raw;
  }

  // Bytes [shift, shift + 16) of the 32 bytes lo, hi (little-endian): word k of the result is
  // words w + k and w + k + 1 shifted right by the shift's bytes within a word (w = shift / 4).
  // `shift` is uniform over the launch, so the selects never diverge.
  GPUPRIM_DEVICE void cut(const int4& lo, const int4& hi, T (&items)[vector_items]) const {
    const unsigned x[8] = {unsigned(lo.x), unsigned(lo.y), unsigned(lo.z), unsigned(lo.w),
                           unsigned(hi.x), unsigned(hi.y), unsigned(hi.z), unsigned(hi.w)};
    unsigned out[4];
    if constexpr (sizeof(T) == 8) {
      // An 8-byte item's only misalignment is 8 bytes.
#pragma unroll
      for (int k = 0; k < 4; ++k) out[k] = x[k + 2];
    } else {
      const int w = shift >> 2;
      unsigned y[6], z[5];
#pragma unroll
      for (int j = 0; j < 6; ++j) y[j] = (w & 2) ? x[j + 2] : x[j];
#pragma unroll
      for (int j = 0; j < 5; ++j) z[j] = (w & 1) ? y[j + 1] : y[j];
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        if constexpr (sizeof(T) == 4) {
          out[k] = z[k];  // 4-byte items shift by whole words
        } else {
          out[k] = __funnelshift_r(z[k], z[k + 1], unsigned(shift & 3) * 8);
        }
      }
    }
    std::memcpy(items, out, sizeof(out));
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
