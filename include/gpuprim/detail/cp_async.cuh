// Per-thread asynchronous copies from global into shared memory (cp.async, sm_80 and up): an item
// goes from global memory straight to a place in shared memory without passing through a register.
// On older targets the copies are plain loads and stores.
#pragma once

#include "config.cuh"

GPUPRIM_NAMESPACE_BEGIN
namespace detail {

/// One thread: starts copying one `T` (4 or 8 naturally aligned bytes) from global `src` to shared
/// `dst`. The copy has landed after async_copy_wait_all(); older targets copy at once.
template <class T>
GPUPRIM_DEVICE void async_copy_item(T* dst, const T* src) {
  static_assert((sizeof(T) == 4 || sizeof(T) == 8) && alignof(T) == sizeof(T), "cp.async copies 4 or 8 aligned bytes");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(static_cast<unsigned>(__cvta_generic_to_shared(dst))),
               "l"(src), "n"(sizeof(T))
               : "memory");
#else
  *dst = *src;
#endif
}

/// Waits until every async_copy_item of this thread has landed. Other threads see the copied
/// items after a block barrier that follows.
GPUPRIM_DEVICE void async_copy_wait_all() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;" ::: "memory");
#endif
}

}  // namespace detail
GPUPRIM_NAMESPACE_END
