// Loads and stores that go through L2 only, for values one block writes and another reads within
// a kernel.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "config.cuh"

GPUPRIM_NAMESPACE_BEGIN
namespace detail {

// A value of any trivially copyable type written to / read from L2 (st.cg / ld.cg), word by word
// where the type allows, so that no stale L1 line of another SM's write is ever read.
template <class T>
GPUPRIM_DEVICE void l2_store(T* p, const T& value) {
  if constexpr (sizeof(T) % 4 == 0 && alignof(T) >= 4) {
    unsigned words[sizeof(T) / 4];
    std::memcpy(words, &value, sizeof(T));
#pragma unroll
    for (int i = 0; i < int(sizeof(T) / 4); ++i) __stcg(reinterpret_cast<unsigned*>(p) + i, words[i]);
  } else {
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
#pragma unroll
    for (int i = 0; i < int(sizeof(T)); ++i) __stcg(reinterpret_cast<unsigned char*>(p) + i, bytes[i]);
  }
}
template <class T>
GPUPRIM_DEVICE T l2_load(const T* p) {
  T value;
  if constexpr (sizeof(T) % 4 == 0 && alignof(T) >= 4) {
    unsigned words[sizeof(T) / 4];
#pragma unroll
    for (int i = 0; i < int(sizeof(T) / 4); ++i) words[i] = __ldcg(reinterpret_cast<const unsigned*>(p) + i);
    std::memcpy(&value, words, sizeof(T));
  } else {
    unsigned char bytes[sizeof(T)];
#pragma unroll
    for (int i = 0; i < int(sizeof(T)); ++i) bytes[i] = __ldcg(reinterpret_cast<const unsigned char*>(p) + i);
    std::memcpy(&value, bytes, sizeof(T));
  }
  return value;
}

}  // namespace detail
GPUPRIM_NAMESPACE_END
