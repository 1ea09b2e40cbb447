// Asynchronous copies from global into shared memory: Hopper's (sm_90) shared-memory mbarriers and
// bulk copies (cp.async.bulk, the non-tensor form of the TMA), and the bulk prefetch into L2. On
// older targets they compile to nothing (the host launches code that uses them only on sm_90 and
// up).
#pragma once

#include "config.cuh"

GPUPRIM_NAMESPACE_BEGIN
namespace detail {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define GPUPRIM_HAS_BULK_COPY 1
#else
#define GPUPRIM_HAS_BULK_COPY 0
#endif

/// The shared-memory address (state space ::shared::cta) of a generic pointer into it.
GPUPRIM_DEVICE unsigned shared_address(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

/// One thread: sets up `bar` to complete a phase after `arrivals` arrivals (and the bytes they
/// announce). Follow with mbarrier_init_fence() and a block barrier before any other use.
GPUPRIM_DEVICE void mbarrier_init(unsigned long long* bar, unsigned arrivals) {
#if GPUPRIM_HAS_BULK_COPY
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(bar)), "r"(arrivals) : "memory");
#else
  (void)bar;
  (void)arrivals;
#endif
}

/// Makes initialised mbarriers visible to the asynchronous proxy (the bulk copies).
GPUPRIM_DEVICE void mbarrier_init_fence() {
#if GPUPRIM_HAS_BULK_COPY
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
}

/// One arrival on `bar` (release: this thread's earlier writes are seen by the phase's waiters).
GPUPRIM_DEVICE void mbarrier_arrive(unsigned long long* bar) {
#if GPUPRIM_HAS_BULK_COPY
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(shared_address(bar)) : "memory");
#else
  (void)bar;
#endif
}

/// One poll of the phase of `bar` with the given parity: true once it has completed (acquire).
/// A barrier's first phase has parity 0; polling for parity 1 on a fresh barrier returns true.
/// While the phase is open the thread is suspended until it completes or for at most the hint
/// (10 ms): waiters that poll without it flood the shared-memory pipe that the working warps'
/// loads and shuffles go through (measured: a tile's reduction took 41 us instead of ~1).
GPUPRIM_DEVICE bool mbarrier_try_wait(unsigned long long* bar, unsigned parity) {
#if GPUPRIM_HAS_BULK_COPY
  constexpr unsigned suspend_hint_ns = 10000000;
  unsigned done = 0;
  asm volatile(
      "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2, %3; selp.u32 %0, 1, 0, p; }"
      : "=r"(done)
      : "r"(shared_address(bar)), "r"(parity), "r"(suspend_hint_ns)
      : "memory");
  return done != 0;
#else
  (void)bar;
  (void)parity;
  return true;
#endif
}

/// One thread waits until the phase of `bar` with the given parity has completed (acquire).
GPUPRIM_DEVICE void mbarrier_wait(unsigned long long* bar, unsigned parity) {
  while (!mbarrier_try_wait(bar, parity)) {
  }
}

/// A whole (converged) warp waits until the phase of `bar` with the given parity has completed;
/// every lane acquires. The loop's exit is warp-uniform: a completed phase stays completed until
/// the waiters arrive again, so the lanes leave together, and the warp stays converged. A lane
/// polling alone behind a lane-divergent branch left the warp split for good on the H100: every
/// later shuffle took the slow diverged path (ncu: BRA.DIV taken, WARPSYNC.COLLECTIVE), and a
/// 4-byte streaming scan ran at 0.6x of the tile-per-block scan.
GPUPRIM_DEVICE void mbarrier_wait_warp(unsigned long long* bar, unsigned parity) {
  while (!__all_sync(0xffffffffu, mbarrier_try_wait(bar, parity))) {
  }
}

/// One thread: arrives on `bar`, announcing `bytes`, and starts copying them from global `src`
/// to shared `dst` (both 16-byte aligned, `bytes` a positive multiple of 16); the phase
/// completes when they have landed.
GPUPRIM_DEVICE void bulk_copy_to_shared(void* dst, const void* src, unsigned bytes, unsigned long long* bar) {
#if GPUPRIM_HAS_BULK_COPY
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(bar)), "r"(bytes)
               : "memory");
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                   shared_address(dst)),
               "l"(src), "r"(bytes), "r"(shared_address(bar))
               : "memory");
#else
  (void)dst;
  (void)src;
  (void)bytes;
  (void)bar;
#endif
}

/// One thread: asks L2 to fetch `bytes` from global `src` (16-byte aligned, `bytes` a positive
/// multiple of 16) without waiting for them (cp.async.bulk.prefetch.L2).
GPUPRIM_DEVICE void bulk_prefetch_l2(const void* src, unsigned bytes) {
#if GPUPRIM_HAS_BULK_COPY
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(src), "r"(bytes) : "memory");
#else
  (void)src;
  (void)bytes;
#endif
}

}  // namespace detail
GPUPRIM_NAMESPACE_END
