// Host-side launch helpers: device facts, launches with optional programmatic dependence,
// error checks after each launch, the GPUPRIM_DEBUG_SYNC switch and stream-ordered workspaces.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <tuple>
#include <utility>

#include <cuda.h>  // the driver's types only: its entry points come from the runtime
#include <cuda_runtime.h>

#include "config.cuh"
#include "grid_dependency.cuh"

GPUPRIM_NAMESPACE_BEGIN
namespace detail {

/// What a dispatch needs to know about the current device.
struct device_facts {
  int ordinal = 0;
  int sm_count = 0;
  int cc_major = 0;
};

/// Devices whose answers the launch helpers cache (ordinals at or above it are queried each time).
inline constexpr int cached_devices = 64;

/// A value per device, queried once and then cached: 0 means not known yet, so `query(int&)` must
/// give a positive value (or an error, which is returned and not cached). Each caller owns its
/// `cache` (a function-local static, one per kernel where the answer depends on the kernel).
template <class Query>
[[nodiscard]] cudaError_t cached_per_device(std::atomic<int> (&cache)[cached_devices], int device, int& value,
                                            Query&& query) {
  const bool cacheable = device >= 0 && device < cached_devices;
  value = cacheable ? cache[device].load(std::memory_order_relaxed) : 0;
  if (value != 0) return cudaSuccess;
  const cudaError_t e = query(value);
  if (e != cudaSuccess) return e;
  if (cacheable) cache[device].store(value, std::memory_order_relaxed);
  return cudaSuccess;
}

/// The current device's facts: one runtime call, the rest cached per device (they never change),
/// since host time spent here is GPU idle time for small inputs.
[[nodiscard]] inline cudaError_t current_device_facts(device_facts& facts) {
  static std::atomic<int> cache[cached_devices] = {};  // sm_count << 8 | cc_major
  cudaError_t e = cudaGetDevice(&facts.ordinal);
  if (e != cudaSuccess) return e;
  const int device = facts.ordinal;
  int packed = 0;
  e = cached_per_device(cache, device, packed, [&](int& v) {
    int sm_count = 0, cc_major = 0;
    cudaError_t q = cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device);
    if (q == cudaSuccess) q = cudaDeviceGetAttribute(&cc_major, cudaDevAttrComputeCapabilityMajor, device);
    v = sm_count << 8 | (cc_major & 0xff);
    return q;
  });
  facts.sm_count = packed >> 8;
  facts.cc_major = packed & 0xff;
  return e;
}

/// Checks a launch's outcome; with GPUPRIM_DEBUG_SYNC also waits for the stream (unless it is
/// being captured) so that a faulting kernel is reported by the call that launched it.
[[nodiscard]] inline cudaError_t after_launch(cudaError_t launch_error, cudaStream_t stream) {
  if (launch_error != cudaSuccess) return launch_error;
  cudaError_t e = cudaPeekAtLastError();
  if (e != cudaSuccess) return e;
#if defined(GPUPRIM_DEBUG_SYNC)
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  e = cudaStreamIsCapturing(stream, &capture);
  if (e != cudaSuccess) return e;
  if (capture == cudaStreamCaptureStatusNone) e = cudaStreamSynchronize(stream);
#else
  (void)stream;
#endif
  return e;
}

/// How many blocks of `block_threads` threads of `Kernel` (with `dynamic_smem` bytes of dynamic
/// shared memory) fit on one SM of `device`. The answer depends on the compiled kernel and on those
/// two, so each kernel and device caches a positive answer together with the configuration it was
/// asked for (one 64-bit word: a valid bit, the threads, the bytes, the blocks); a call with another
/// block size or shared-memory size queries again instead of reading another configuration's
/// answer. The cache is keyed on the kernel itself (a template argument), not on its signature:
/// two kernels with the same parameters differ.
template <auto Kernel>
[[nodiscard]] cudaError_t resident_blocks_per_sm(int block_threads, int device, int& blocks,
                                                 std::size_t dynamic_smem = 0) {
  static std::atomic<std::uint64_t> cache[cached_devices] = {};
  constexpr std::uint64_t valid = std::uint64_t(1) << 63;
  const bool cacheable = device >= 0 && device < cached_devices && block_threads > 0 && block_threads < (1 << 15) &&
                         dynamic_smem < (std::size_t(1) << 32);
  const std::uint64_t asked = valid | std::uint64_t(block_threads) << 48 | std::uint64_t(dynamic_smem) << 16;
  if (cacheable) {
    const std::uint64_t known = cache[device].load(std::memory_order_relaxed);
    if ((known & ~std::uint64_t(0xffff)) == asked) {
      blocks = static_cast<int>(known & 0xffff);
      return cudaSuccess;
    }
  }
  blocks = 0;
  const cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, Kernel, block_threads, dynamic_smem);
  if (e != cudaSuccess) return e;
  // 0 is not kept: it can come from a size not yet allowed (allow_dynamic_smem), and the next
  // call, after the allowance, must ask again.
  if (cacheable && blocks > 0 && blocks <= 0xffff) cache[device].store(asked | std::uint64_t(blocks), std::memory_order_relaxed);
  return cudaSuccess;
}

/// Lets `Kernel` take `bytes` of dynamic shared memory on `device` (needed above 48 KiB). The
/// attribute only ever rises: each kernel and device remembers the most it has allowed, a call
/// within that returns at once, and a call for more sets it again, under a lock so that two
/// threads asking for different sizes cannot leave the smaller one set while the larger is
/// remembered.
template <auto Kernel>
[[nodiscard]] cudaError_t allow_dynamic_smem(std::size_t bytes, int device) {
  constexpr std::size_t default_limit = 48 * 1024;
  if (bytes <= default_limit) return cudaSuccess;
  static std::atomic<std::size_t> allowed[cached_devices] = {};
  const bool cacheable = device >= 0 && device < cached_devices;
  if (cacheable && allowed[device].load(std::memory_order_acquire) >= bytes) return cudaSuccess;
  static std::mutex raising;
  const std::lock_guard<std::mutex> hold(raising);
  if (cacheable && allowed[device].load(std::memory_order_relaxed) >= bytes) return cudaSuccess;
  // The attribute belongs to the kernel on the current device, which is `device` for every caller.
  const cudaError_t e = cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
  if (e == cudaSuccess && cacheable) allowed[device].store(bytes, std::memory_order_release);
  return e;
}

/// Lets `Kernel` take `smem` bytes of dynamic shared memory on `device` (allow_dynamic_smem) and
/// sets `resident` to how many of its blocks of `block_threads` threads one SM holds with them.
template <auto Kernel>
[[nodiscard]] cudaError_t allow_smem_and_count_resident(std::size_t smem, int block_threads, int device,
                                                        int& resident) {
  const cudaError_t e = allow_dynamic_smem<Kernel>(smem, device);
  if (e != cudaSuccess) return e;
  return resident_blocks_per_sm<Kernel>(block_threads, device, resident, smem);
}

/// How a kernel is launched beyond grid, block and stream.
enum class launch_mode {
  plain,
  /// Programmatic dependent launch (sm_90+): the kernel may start before the previous kernel
  /// in the stream ends, and calls `wait_for_previous_grid()` before using its results.
  overlap_previous,
  /// Cooperative: all blocks are resident at once, so the kernel may use a grid-wide barrier.
  cooperative,
};

/// Calls `use(pointers)` with an array of pointers to copies of `args` converted to the kernel's
/// parameter types `Params`, the form cuLaunchKernel and kernel graph nodes take them in.
template <class... Params, class Use, class... Args>
decltype(auto) with_kernel_params(Use&& use, Args&&... args) {
  std::tuple<Params...> values(std::forward<Args>(args)...);
  return std::apply(
      [&](auto&... value) {
        void* pointers[sizeof...(Params) > 0 ? sizeof...(Params) : 1] = {static_cast<void*>(&value)...};
        return use(pointers);
      },
      values);
}

// Plain launches go through the driver's cuLaunchKernel where they can: on the H200's host it
// takes ~0.3 us less a launch than the runtime's cudaLaunchKernel(Ex) or <<<>>>, timed with events
// around single launches of the 1024-key sort as the benchmarks time them, and ~0.2-0.4 us less
// host time. The entry points come from the runtime
// (cudaGetDriverEntryPointByVersion: nothing links libcuda), and each thread caches the kernel's
// CUfunction together with the unique id of the context it belongs to, so that another device,
// a context of the user's or a new primary context after cudaDeviceReset looks it up afresh.
// Where anything of this is missing (CUDA before 12.5, no current context in the thread yet, a
// kernel the runtime cannot resolve) or the driver's launch fails, the runtime launches instead
// and reports as it always does. -DGPUPRIM_RUNTIME_LAUNCH keeps every launch on the runtime.
#if !defined(GPUPRIM_RUNTIME_LAUNCH) && defined(CUDART_VERSION) && CUDART_VERSION >= 12050
#define GPUPRIM_DRIVER_LAUNCH 1
#else
#define GPUPRIM_DRIVER_LAUNCH 0
#endif

#if GPUPRIM_DRIVER_LAUNCH
/// The driver entry points of a launch; all null where the runtime did not give every one.
struct driver_launch_api {
  CUresult (*launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                     void**, void**) = nullptr;
  CUresult (*current_context)(CUcontext*) = nullptr;
  CUresult (*context_id)(CUcontext, unsigned long long*) = nullptr;
};

/// The entry points, queried once. PerThread: the translation unit's default stream is the
/// per-thread one (--default-stream per-thread), so stream 0 must mean it in cuLaunchKernel too.
template <bool PerThread>
const driver_launch_api& driver_launch_entry_points() {
  static const driver_launch_api api = [] {
    constexpr unsigned long long flags = PerThread ? cudaEnablePerThreadDefaultStream : cudaEnableLegacyStream;
    void* symbols[3] = {};
    const char* names[3] = {"cuLaunchKernel", "cuCtxGetCurrent", "cuCtxGetId"};
    for (int i = 0; i < 3; ++i) {
      cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
      if (cudaGetDriverEntryPointByVersion(names[i], &symbols[i], 12000, flags, &found) != cudaSuccess ||
          found != cudaDriverEntryPointSuccess || symbols[i] == nullptr) {
        return driver_launch_api{};
      }
    }
    driver_launch_api a;
    a.launch = reinterpret_cast<decltype(a.launch)>(symbols[0]);
    a.current_context = reinterpret_cast<decltype(a.current_context)>(symbols[1]);
    a.context_id = reinterpret_cast<decltype(a.context_id)>(symbols[2]);
    return a;
  }();
  return api;
}

/// One entry of a thread's cache of driver functions.
struct driver_function_slot {
  const void* kernel = nullptr;
  unsigned long long context = 0;
  CUfunction function = nullptr;
};
/// Kernels a thread's cache holds at once (direct-mapped; a collision only looks up again).
inline constexpr std::size_t driver_function_slots = 64;

/// The driver's function of `kernel` (a __global__ function's address) in the calling thread's
/// current context, or null where it is not known (no context current yet, or the runtime
/// cannot resolve the kernel: the caller then launches through the runtime).
inline CUfunction driver_function(const driver_launch_api& api, const void* kernel) {
  CUcontext context = nullptr;
  unsigned long long id = 0;
  if (api.current_context(&context) != CUDA_SUCCESS || context == nullptr ||
      api.context_id(context, &id) != CUDA_SUCCESS) {
    return nullptr;
  }
  thread_local driver_function_slot slots[driver_function_slots];
  const auto address = reinterpret_cast<std::uintptr_t>(kernel);
  driver_function_slot& slot = slots[(address >> 4 ^ address >> 10) % driver_function_slots];
  if (slot.kernel == kernel && slot.context == id) return slot.function;
  cudaFunction_t function = nullptr;
  if (cudaGetFuncBySymbol(&function, kernel) != cudaSuccess || function == nullptr) return nullptr;
  slot.kernel = kernel;
  slot.context = id;
  slot.function = reinterpret_cast<CUfunction>(function);
  return slot.function;
}
#endif

/// Launches `kernel<<<grid, block, dynamic_smem, stream>>>(args...)` in the given mode (plain
/// launches through the driver where they can: see GPUPRIM_DRIVER_LAUNCH above).
template <class... Params, class... Args>
[[nodiscard]] cudaError_t launch_with_smem(void (*kernel)(Params...), unsigned grid, unsigned block,
                                           std::size_t dynamic_smem, cudaStream_t stream, launch_mode mode,
                                           Args&&... args) {
#if GPUPRIM_DRIVER_LAUNCH
#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
  constexpr bool per_thread_default_stream = true;
#else
  constexpr bool per_thread_default_stream = false;
#endif
  if (mode == launch_mode::plain) {
    const driver_launch_api& api = driver_launch_entry_points<per_thread_default_stream>();
    const CUfunction function =
        api.launch != nullptr ? driver_function(api, reinterpret_cast<const void*>(kernel)) : nullptr;
    if (function != nullptr) {
      // The arguments are copied, not forwarded: the runtime launch below still needs them.
      const CUresult r = with_kernel_params<Params...>(
          [&](void** pointers) {
            return api.launch(function, grid, 1, 1, block, 1, 1, static_cast<unsigned>(dynamic_smem), stream,
                              pointers, nullptr);
          },
          args...);
      // A failed launch enqueued nothing; the runtime's own launch then reports the error.
      if (r == CUDA_SUCCESS) return after_launch(cudaSuccess, stream);
    }
  }
#endif
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(grid);
  config.blockDim = dim3(block);
  config.dynamicSmemBytes = dynamic_smem;
  config.stream = stream;
  cudaLaunchAttribute attribute[1] = {};
  if (mode == launch_mode::overlap_previous) {
    attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute[0].val.programmaticStreamSerializationAllowed = 1;
  } else if (mode == launch_mode::cooperative) {
    attribute[0].id = cudaLaunchAttributeCooperative;
    attribute[0].val.cooperative = 1;
  }
  config.attrs = attribute;
  config.numAttrs = mode == launch_mode::plain ? 0 : 1;
  return after_launch(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...), stream);
}

/// The PTX version (e.g. 90) that `Kernel`'s code for `device` was compiled from: a kernel whose
/// body needs sm_90 features is compiled empty for older targets, and code JIT-compiled from
/// older PTX must not be used for it even on a newer GPU. Cached per kernel and device.
template <auto Kernel>
[[nodiscard]] cudaError_t kernel_ptx_version(int device, int& version) {
  static std::atomic<int> cache[cached_devices] = {};
  return cached_per_device(cache, device, version, [](int& v) {
    cudaFuncAttributes attributes{};
    const cudaError_t e = cudaFuncGetAttributes(&attributes, Kernel);
    v = attributes.ptxVersion;
    return e;
  });
}

/// The most shared memory a block of `device` may opt in to (cudaDevAttrMaxSharedMemoryPerBlockOptin),
/// queried once per device and cached.
[[nodiscard]] inline cudaError_t max_smem_per_block_optin(int device, int& bytes) {
  static std::atomic<int> cache[cached_devices] = {};
  return cached_per_device(cache, device, bytes, [device](int& v) {
    return cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  });
}

/// The shared memory of one SM of `device` (cudaDevAttrMaxSharedMemoryPerMultiprocessor) and what
/// the system reserves of it for each resident block (cudaDevAttrReservedSharedMemoryPerBlock),
/// queried once per device and cached.
[[nodiscard]] inline cudaError_t smem_per_sm(int device, int& bytes, int& reserved_per_block) {
  static std::atomic<int> cache[cached_devices] = {};
  static std::atomic<int> reserved_cache[cached_devices] = {};
  cudaError_t e = cached_per_device(cache, device, bytes, [device](int& v) {
    return cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device);
  });
  if (e != cudaSuccess) return e;
  // Stored plus one: a cached 0 would read as "not queried yet".
  int reserved_plus_one = 0;
  e = cached_per_device(reserved_cache, device, reserved_plus_one, [device](int& v) {
    const cudaError_t q = cudaDeviceGetAttribute(&v, cudaDevAttrReservedSharedMemoryPerBlock, device);
    ++v;
    return q;
  });
  reserved_per_block = reserved_plus_one - 1;
  return e;
}

/// Dynamic shared memory for launches of a kernel that needs `smem` bytes a block, raised where
/// that keeps any SM from holding more than `cap` of its blocks at once (with `smem` alone it
/// holds `resident`): grids of a few blocks per SM then spread over all SMs, instead of the
/// scheduler packing blocks that start while another kernel still runs onto the SMs with room.
[[nodiscard]] inline cudaError_t smem_capping_blocks_per_sm(int device, std::size_t smem, int resident, std::size_t cap,
                                                           std::size_t& launch_smem) {
  launch_smem = smem;
  if (cap == 0 || cap >= static_cast<std::size_t>(resident)) return cudaSuccess;
  int per_sm = 0, reserved = 0, optin = 0;
  cudaError_t e = smem_per_sm(device, per_sm, reserved);
  if (e == cudaSuccess) e = max_smem_per_block_optin(device, optin);
  if (e != cudaSuccess) return e;
  // The least whole multiple of 128 bytes of which cap + 1 blocks (each with its reservation) do
  // not fit in the SM.
  const std::size_t share = std::size_t(per_sm) / (cap + 1) + 1;
  const std::size_t want = (share > std::size_t(reserved) ? share - reserved + 127 : 127) / 128 * 128;
  if (want > smem && want <= std::size_t(optin)) launch_smem = want;
  return cudaSuccess;
}

/// Readies `Kernel`, whose body needs sm_90 (compiled empty for older targets), to run on the
/// current device with `smem` bytes of dynamic shared memory: `ready` is true when the device has
/// compute capability 9.0 or newer, the kernel's code for it came from PTX 9.0 or newer and the
/// device allows that much shared memory per block (the attribute is then set). Otherwise the
/// caller takes another path; errors are CUDA errors.
template <auto Kernel>
[[nodiscard]] cudaError_t prepare_sm90_kernel(std::size_t smem, device_facts& device, bool& ready) {
  ready = false;
  cudaError_t e = current_device_facts(device);
  if (e != cudaSuccess || device.cc_major < 9) return e;
  int ptx = 0;
  e = kernel_ptx_version<Kernel>(device.ordinal, ptx);
  if (e != cudaSuccess || ptx < 90) return e;
  int smem_limit = 0;
  e = max_smem_per_block_optin(device.ordinal, smem_limit);
  if (e != cudaSuccess || std::size_t(smem_limit) < smem) return e;
  e = allow_dynamic_smem<Kernel>(smem, device.ordinal);
  ready = e == cudaSuccess;
  return e;
}

/// Launches `kernel<<<grid, block, 0, stream>>>(args...)` in the given mode.
template <class... Params, class... Args>
[[nodiscard]] cudaError_t launch(void (*kernel)(Params...), unsigned grid, unsigned block, cudaStream_t stream,
                                 launch_mode mode, Args&&... args) {
  return launch_with_smem(kernel, grid, block, 0, stream, mode, std::forward<Args>(args)...);
}

/// Runs `call(void* temp, std::size_t bytes, bool size_query)` (returning cudaError_t, writing the
/// bytes it needs into `bytes` when `size_query`) with memory taken stream-ordered on `stream`.
template <class Call>
[[nodiscard]] cudaError_t with_stream_ordered_workspace(cudaStream_t stream, Call&& call) {
  std::size_t bytes = 0;
  cudaError_t e = call(nullptr, bytes, true);
  if (e != cudaSuccess) return e;
  if (bytes == 0) return call(nullptr, bytes, false);
  void* temp = nullptr;
  e = cudaMallocAsync(&temp, bytes, stream);
  if (e != cudaSuccess) {
    // Reported through the return value; cleared so that it does not linger as the thread's
    // last error (a later launch check would otherwise take it for its own). Running out of
    // memory is not sticky: the context stays usable.
    if (e == cudaErrorMemoryAllocation) (void)cudaGetLastError();
    return e;
  }
  e = call(temp, bytes, false);
  const cudaError_t freed = cudaFreeAsync(temp, stream);
  return e != cudaSuccess ? e : freed;
}

}  // namespace detail
GPUPRIM_NAMESPACE_END
