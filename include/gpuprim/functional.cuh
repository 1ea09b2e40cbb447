// Transparent binary function objects: plus, minimum, maximum.
#pragma once

#include <type_traits>

#include "detail/config.cuh"

GPUPRIM_NAMESPACE_BEGIN

/// `a + b` for any two argument types (an `int64_t` accumulator with `int8_t` items gives `int64_t`).
struct plus {
  /// Returns `a + b`.
  template <class A, class B>
  GPUPRIM_HOST_DEVICE constexpr auto operator()(const A& a, const B& b) const -> decltype(a + b) {
    return a + b;
  }
};

/// The smaller of `a` and `b` in their common type; `a` when neither is smaller.
struct minimum {
  /// Returns `b < a ? b : a`, both converted to their common type.
  template <class A, class B>
  GPUPRIM_HOST_DEVICE constexpr std::common_type_t<A, B> operator()(const A& a, const B& b) const {
    using R = std::common_type_t<A, B>;
    return static_cast<R>(b) < static_cast<R>(a) ? static_cast<R>(b) : static_cast<R>(a);
  }
};

/// The larger of `a` and `b` in their common type; `a` when neither is larger.
struct maximum {
  /// Returns `a < b ? b : a`, both converted to their common type.
  template <class A, class B>
  GPUPRIM_HOST_DEVICE constexpr std::common_type_t<A, B> operator()(const A& a, const B& b) const {
    using R = std::common_type_t<A, B>;
    return static_cast<R>(a) < static_cast<R>(b) ? static_cast<R>(b) : static_cast<R>(a);
  }
};

GPUPRIM_NAMESPACE_END
