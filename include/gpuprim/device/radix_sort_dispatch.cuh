// Host side of the device radix sort: argument checks, the device's facts, the plan
// (radix_sort_plan.cuh), the workspace, and one launch sequence per path.
#pragma once

#include <cstddef>
#include <type_traits>

#include <cuda_runtime.h>

#include "../detail/config.cuh"
#include "../detail/launch.cuh"
#include "../detail/radix_traits.cuh"
#include "../detail/workspace.cuh"
#include "radix_rank_sort.cuh"
#include "radix_sort_kernels.cuh"
#include "radix_sort_plan.cuh"

GPUPRIM_NAMESPACE_BEGIN
namespace detail {

template <class Key>
bool radix_bits_valid(int begin_bit, int end_bit) {
  return begin_bit >= 0 && end_bit <= radix_key<Key>::bits && begin_bit <= end_bit;
}

template <class Key, class Value>
bool radix_pointers_valid(const Key* keys_in, const Key* keys_out, const Value* values_in, const Value* values_out,
                          std::size_t n) {
  constexpr bool has_values = !std::is_same_v<Value, no_values>;
  return n == 0 || (keys_in != nullptr && keys_out != nullptr &&
                    (!has_values || (values_in != nullptr && values_out != nullptr)));
}

/// Lets pass kernel `Pass` of `Config` (`smem` bytes of storage) take its dynamic shared memory: the
/// one-wave passes up to the device's opt-in limit, since they may be launched with more than they
/// use (see launch_onesweep). Every caller asks for the same size; the allowance only rises.
template <auto Pass, class Config>
[[nodiscard]] cudaError_t allow_pass_smem(std::size_t smem, int device) {
  if constexpr (!Config::early_scatter) {
    int optin = 0;
    const cudaError_t e = max_smem_per_block_optin(device, optin);
    if (e != cudaSuccess) return e;
    if (std::size_t(optin) > smem) smem = std::size_t(optin);
  }
  return allow_dynamic_smem<Pass>(smem, device);
}

/// The facts a plan needs of the current device and, for inputs past the fused sort's
/// (`onesweep`), of the one-wave pass kernel of `Key`/`Value` (cached: host time here is GPU idle
/// time for small inputs).
template <class Key, class Value, bool Descending, class Shape>
[[nodiscard]] cudaError_t radix_sort_facts(bool onesweep, device_facts& device, radix_device_facts& facts) {
  using config = typename radix_configs<Key, Value, Shape>::one_wave;
  constexpr auto pass = radix_pass_kernel<Key, Value, Descending, config>;
  constexpr std::size_t smem = sizeof(onesweep_storage<Key, Value, config>);
  cudaError_t e = current_device_facts(device);
  if (e == cudaSuccess) e = max_smem_per_block_optin(device.ordinal, facts.smem_optin);
  if (e == cudaSuccess && onesweep) e = allow_pass_smem<pass, config>(smem, device.ordinal);
  if (e == cudaSuccess && onesweep) {
    e = resident_blocks_per_sm<pass>(config::block_threads, device.ordinal, facts.one_wave_blocks_per_sm, smem);
  }
  facts.sm_count = device.sm_count;
  return e;
}

/// The rank sorts: one launch, no workspace.
template <class Key, class Value, bool Descending>
cudaError_t launch_rank_sort(const device_facts& device, const radix_plan& plan, const radix_sort_args<Key, Value>& a,
                             cudaStream_t stream) {
  constexpr bool has_values = !std::is_same_v<Value, no_values>;
  using args_t = radix_sort_args<Key, Value>;
  if (plan.path == radix_path::bucket) {
    constexpr auto kernel = radix_bucket_sort_kernel<Key, has_values, Descending, args_t>;
    const cudaError_t e = allow_dynamic_smem<kernel>(bucket_sort_smem_bytes<Key>(bucket_sort_max_items), device.ordinal);
    if (e != cudaSuccess) return e;
    return launch_with_smem(kernel, plan.grid, plan.block_threads, bucket_sort_smem_bytes<Key>(a.n), stream,
                            launch_mode::plain, a, plan.keys_per_warp);
  }
  constexpr auto kernel = radix_rank_sort_kernel<Key, has_values, Descending, args_t>;
  const cudaError_t e = allow_dynamic_smem<kernel>(rank_sort_smem_bytes<Key>(a.n), device.ordinal);
  if (e != cudaSuccess) return e;
  return launch_with_smem(kernel, plan.grid, plan.block_threads, rank_sort_smem_bytes<Key>(a.n), stream,
                          launch_mode::plain, a);
}

/// Carves the workspace of `path` into `a` and the two look-back state regions, and zeroes the
/// control block's counters (the first kernel zeroes the rest that needs it).
template <class Key, class Value, class Shape>
cudaError_t prepare_passes(radix_path path, void* temp, std::size_t temp_bytes, radix_sort_args<Key, Value>& a,
                           unsigned long long*& states_even, unsigned long long*& states_odd, cudaStream_t stream) {
  void* parts[5];
  cudaError_t e = radix_workspace<Key, Value, Shape>(path, a.n).carve(temp, temp_bytes, parts);
  if (e != cudaSuccess) return e;
  a.control = static_cast<radix_sort_control*>(parts[0]);
  a.keys_alt = static_cast<typename radix_key<Key>::bits_t*>(parts[3]);
  if constexpr (!std::is_same_v<Value, no_values>) a.values_alt = static_cast<Value*>(parts[4]);
  states_even = static_cast<unsigned long long*>(parts[1]);
  states_odd = static_cast<unsigned long long*>(parts[2]);
  return cudaMemsetAsync(&a.control->head, 0, sizeof(radix_sort_counters), stream);
}

/// The fused single-launch sort.
template <class Key, class Value, bool Descending, class Shape>
cudaError_t launch_fused(const device_facts& device, const radix_plan& plan, void* temp, std::size_t temp_bytes,
                         radix_sort_args<Key, Value> a, cudaStream_t stream) {
  using config = typename radix_configs<Key, Value, Shape>::fused;
  constexpr auto kernel = radix_fused_kernel<Key, Value, Descending, config>;
  constexpr std::size_t smem = sizeof(fused_storage<Key, Value, config>);
  int resident = 0;
  cudaError_t e = allow_smem_and_count_resident<kernel>(smem, config::block_threads, device.ordinal, resident);
  unsigned long long* states_even = nullptr;
  unsigned long long* states_odd = nullptr;
  if (e == cudaSuccess) e = prepare_passes<Key, Value, Shape>(plan.path, temp, temp_bytes, a, states_even, states_odd, stream);
  if (e != cudaSuccess) return e;
  // Resident blocks only (each loops over work items), at most one per work item.
  const std::size_t work = plan.tiles * static_cast<std::size_t>(plan.passes + 1);
  const std::size_t most = std::size_t(device.sm_count) * static_cast<std::size_t>(resident > 0 ? resident : 1);
  const auto grid = static_cast<unsigned>(work < most ? work : most);
  return launch_with_smem(kernel, grid, config::block_threads, smem, stream, launch_mode::plain, a, plan.passes,
                          static_cast<unsigned>(plan.tiles), states_even, states_odd);
}

/// The onesweep sort: the upfront histogram, then one launch per pass with `Config`'s tiles. Passes
/// the histogram dropped are still launched (deciding on the host would need a host sync); their
/// blocks read the pass count and leave.
template <class Key, class Value, bool Descending, class Shape, class Config>
cudaError_t launch_onesweep(const device_facts& device, const radix_plan& plan, void* temp, std::size_t temp_bytes,
                            radix_sort_args<Key, Value> a, cudaStream_t stream) {
  constexpr auto pass = radix_pass_kernel<Key, Value, Descending, Config>;
  constexpr std::size_t smem = sizeof(onesweep_storage<Key, Value, Config>);
  cudaError_t e = allow_pass_smem<pass, Config>(smem, device.ordinal);
  if (e != cudaSuccess) return e;
  // One-wave grids: at most as many blocks on an SM as the grid needs, so that a pass spreads over
  // every SM. Each pass's blocks are placed while the kernel before it still runs (programmatic
  // dependent launch), and the scheduler packed them onto the SMs with room. H200, 2026-11-23, in
  // the same process as CUB: u32/u32 pairs at 2^20 0.85x the time, 4-byte keys at 2^21 0.96x.
  std::size_t launch_smem = smem;
  if constexpr (!Config::early_scatter) {
    int resident = 0;
    e = resident_blocks_per_sm<pass>(Config::block_threads, device.ordinal, resident, smem);
    const std::size_t sms = std::size_t(device.sm_count > 0 ? device.sm_count : 1);
    if (e == cudaSuccess) {
      e = smem_capping_blocks_per_sm(device.ordinal, smem, resident, (plan.tiles + sms - 1) / sms, launch_smem);
    }
    if (e != cudaSuccess) return e;
  }
  unsigned long long* states_even = nullptr;
  unsigned long long* states_odd = nullptr;
  e = prepare_passes<Key, Value, Shape>(plan.path, temp, temp_bytes, a, states_even, states_odd, stream);
  if (e != cudaSuccess) return e;
  // The histogram zeroes the first pass's look-back states.
  static_assert(radix_bins * sizeof(unsigned long long) % sizeof(uint4) == 0, "whole vectors of states");
  const std::size_t clear_vectors = plan.tiles * radix_bins * sizeof(unsigned long long) / sizeof(uint4);
  constexpr auto histogram = radix_histogram_kernel<Key, Descending>;
  int resident = 0;
  e = resident_blocks_per_sm<histogram>(radix_histogram_threads, device.ordinal, resident);
  if (e != cudaSuccess) return e;
  constexpr std::size_t chunk = std::size_t(radix_histogram_threads) * radix_histogram_items;
  const std::size_t chunks = (a.n + chunk - 1) / chunk;
  const std::size_t most = std::size_t(device.sm_count) * static_cast<std::size_t>(resident > 0 ? resident : 1);
  e = launch(histogram, static_cast<unsigned>(chunks < most ? chunks : most), radix_histogram_threads, stream,
             launch_mode::plain, a.keys_in, a.n, a.begin_bit, a.end_bit, a.control,
             reinterpret_cast<uint4*>(states_even), clear_vectors);
  const launch_mode chained = device.cc_major >= 9 ? launch_mode::overlap_previous : launch_mode::plain;
  for (int slot = 0; slot < plan.passes && e == cudaSuccess; ++slot) {
    e = launch_with_smem(pass, static_cast<unsigned>(plan.tiles), Config::block_threads, launch_smem, stream, chained,
                         a, slot, states_even, states_odd);
  }
  return e;
}

/// Runs `plan` (made for these arguments) in a workspace of at least
/// radix_workspace(plan.path, n).bytes() bytes.
template <bool Descending, class Shape, class Key, class Value>
cudaError_t radix_sort_run(const device_facts& device, const radix_plan& plan, void* temp, std::size_t temp_bytes,
                           const radix_sort_args<Key, Value>& a, cudaStream_t stream) {
  using configs = radix_configs<Key, Value, Shape>;
  switch (plan.path) {
    case radix_path::none:
      return cudaSuccess;
    case radix_path::copy: {
      cudaError_t e = cudaMemcpyAsync(a.keys_out, a.keys_in, a.n * sizeof(Key), cudaMemcpyDeviceToDevice, stream);
      if constexpr (!std::is_same_v<Value, no_values>) {
        if (e == cudaSuccess) {
          e = cudaMemcpyAsync(a.values_out, a.values_in, a.n * sizeof(Value), cudaMemcpyDeviceToDevice, stream);
        }
      }
      return e;
    }
    case radix_path::rank:
    case radix_path::bucket:
      return launch_rank_sort<Key, Value, Descending>(device, plan, a, stream);
    case radix_path::fused:
      return launch_fused<Key, Value, Descending, Shape>(device, plan, temp, temp_bytes, a, stream);
    case radix_path::one_wave:
      return launch_onesweep<Key, Value, Descending, Shape, typename configs::one_wave>(device, plan, temp, temp_bytes,
                                                                                        a, stream);
    case radix_path::many_waves:
      return launch_onesweep<Key, Value, Descending, Shape, typename configs::many_waves>(device, plan, temp,
                                                                                         temp_bytes, a, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

/// The whole sort, for both forms: with `size_query` only sets `temp_bytes`. `want` forces a path
/// (tests; radix_path::automatic lets the plan choose); a path that cannot take the input gives
/// cudaErrorInvalidValue.
template <bool Descending, class Shape = use_default_shape, class Key, class Value>
cudaError_t radix_sort(void* temp, std::size_t& temp_bytes, bool size_query, const Key* keys_in, Key* keys_out,
                       const Value* values_in, Value* values_out, std::size_t n, int begin_bit, int end_bit,
                       cudaStream_t stream, radix_path want = radix_path::automatic) {
  static_assert(valid_shape_argument_v<Shape>, "the sort's Shape must be a gpuprim::shape<BlockThreads, Items>");
  if (!radix_bits_valid<Key>(begin_bit, end_bit)) return cudaErrorInvalidValue;
  if (!size_query && !radix_pointers_valid(keys_in, keys_out, values_in, values_out, n)) return cudaErrorInvalidValue;
  // The size query needs no GPU: the workspace of a path class that holds every plan's.
  const radix_path sized = n == 0 || end_bit <= begin_bit ? radix_path::none
                           : want == radix_path::automatic ? radix_workspace_path<Key, Value, Shape>(n, begin_bit, end_bit)
                                                           : want;
  const std::size_t needed = radix_workspace<Key, Value, Shape>(sized, n).bytes();
  if (size_query) {
    temp_bytes = needed;
    return cudaSuccess;
  }
  if (needed > 0 && (temp == nullptr || temp_bytes < needed)) return cudaErrorInvalidValue;
  if (n == 0) return cudaSuccess;
  const bool onesweep = sized == radix_path::one_wave || sized == radix_path::many_waves;
  device_facts device;
  radix_device_facts facts;
  cudaError_t e = radix_sort_facts<Key, Value, Descending, Shape>(onesweep, device, facts);
  if (e != cudaSuccess) return e;
  const radix_plan plan = plan_radix_sort<Key, Value, Shape>(n, begin_bit, end_bit, facts, want);
  if (plan.path == radix_path::invalid || radix_workspace<Key, Value, Shape>(plan.path, n).bytes() > temp_bytes) {
    return cudaErrorInvalidValue;
  }
  const radix_sort_args<Key, Value> a{keys_in, keys_out, nullptr, values_in, values_out, nullptr, n, begin_bit,
                                      end_bit, nullptr};
  return radix_sort_run<Descending, Shape>(device, plan, temp, temp_bytes, a, stream);
}

}  // namespace detail
GPUPRIM_NAMESPACE_END
