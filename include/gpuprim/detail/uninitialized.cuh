// Raw, suitably aligned storage for values placed in __shared__ memory without construction.
#pragma once

#include <cstddef>

#include "config.cuh"

GPUPRIM_NAMESPACE_BEGIN
namespace detail {

/// `N` values of `T` in raw storage: usable in `__shared__` for any trivially copyable `T`,
/// including types without a trivial default constructor.
template <class T, int N>
struct uninitialized_array {
  alignas(T) unsigned char bytes[sizeof(T) * N];

  GPUPRIM_DEVICE T& operator[](int i) { return reinterpret_cast<T*>(bytes)[i]; }
  GPUPRIM_DEVICE const T& operator[](int i) const { return reinterpret_cast<const T*>(bytes)[i]; }
};

}  // namespace detail
GPUPRIM_NAMESPACE_END
