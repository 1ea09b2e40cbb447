// Device side of programmatic dependent launch (sm_90+): a kernel lets the next one start, or
// waits for the previous one's results. No-ops where the launch was an ordinary one.
#pragma once

#include "config.cuh"

GPUPRIM_NAMESPACE_BEGIN
namespace detail {

/// Lets the next kernel in the stream start now.
GPUPRIM_DEVICE void allow_next_grid() {
#if GPUPRIM_HAS_PDL
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/// Waits until the previous kernel in the stream has finished and its writes are visible.
GPUPRIM_DEVICE void wait_for_previous_grid() {
#if GPUPRIM_HAS_PDL
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

}  // namespace detail
GPUPRIM_NAMESPACE_END
