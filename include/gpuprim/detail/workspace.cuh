// Device workspace layout: parts aligned to 256 bytes, shared by the size query and the launch.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "config.cuh"

GPUPRIM_NAMESPACE_BEGIN
namespace detail {

/// A workspace of `Parts` parts. `bytes()` is what callers must provide; it includes slack so
/// that a base pointer with any alignment still works. `carve()` checks the size and hands out
/// each part's pointer, aligned to `alignment`.
template <int Parts>
struct workspace_layout {
  static constexpr std::size_t alignment = 256;
  std::size_t part_bytes[Parts] = {};

  static constexpr std::size_t round_up(std::size_t x) { return (x + alignment - 1) / alignment * alignment; }

  constexpr std::size_t bytes() const {
    std::size_t total = 0;
    for (int i = 0; i < Parts; ++i) total += round_up(part_bytes[i]);
    return total == 0 ? 0 : total + alignment - 1;
  }

  /// `cudaErrorInvalidValue` (and no pointer set) when `available` is less than `bytes()`.
  cudaError_t carve(void* base, std::size_t available, void* (&parts)[Parts]) const {
    if (bytes() == 0) {
      for (int i = 0; i < Parts; ++i) parts[i] = nullptr;
      return cudaSuccess;
    }
    if (base == nullptr || available < bytes()) return cudaErrorInvalidValue;
    std::uintptr_t p = (reinterpret_cast<std::uintptr_t>(base) + alignment - 1) / alignment * alignment;
    for (int i = 0; i < Parts; ++i) {
      parts[i] = part_bytes[i] == 0 ? nullptr : reinterpret_cast<void*>(p);
      p += round_up(part_bytes[i]);
    }
    return cudaSuccess;
  }
};

}  // namespace detail
GPUPRIM_NAMESPACE_END
