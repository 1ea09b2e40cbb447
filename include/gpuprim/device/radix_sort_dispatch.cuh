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

/// The fused single-launch sort.
template <class Key, class Value, bool Descending, class Shape>
cudaError_t launch_fused(const device_facts& device, const radix_plan& plan, const radix_sort_args<Key, Value>& a,
                         unsigned long long* states, bool keep_parity, cudaStream_t stream) {
  using config = typename radix_configs<Key, Value, Shape>::fused;
  constexpr auto kernel = radix_fused_kernel<Key, Value, Descending, config>;
  constexpr std::size_t smem = sizeof(fused_storage<Key, Value, config>);
  int resident = 0;
  const cudaError_t e = allow_smem_and_count_resident<kernel>(smem, config::block_threads, device.ordinal, resident);
  if (e != cudaSuccess) return e;
  // Resident blocks only (each loops over work items), at most one per work item.
  const std::size_t work = plan.tiles * static_cast<std::size_t>(plan.passes + 1);
  const std::size_t most = std::size_t(device.sm_count) * static_cast<std::size_t>(resident > 0 ? resident : 1);
  const auto grid = static_cast<unsigned>(work < most ? work : most);
  return launch_with_smem(kernel, grid, config::block_threads, smem, stream, launch_mode::plain, a, plan.passes,
                          static_cast<unsigned>(plan.tiles), states, keep_parity);
}

/// The onesweep sort: the upfront histogram, then one launch per pass with `Config`'s tiles. Passes
/// the histogram dropped are still launched (deciding on the host would need a host sync); their
/// blocks read the pass count and leave.
template <class Key, class Value, bool Descending, class Shape, class Config>
cudaError_t launch_onesweep(const device_facts& device, const radix_plan& plan, const radix_sort_args<Key, Value>& a,
                            unsigned long long* states, bool keep_parity, cudaStream_t stream) {
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
  // The histogram zeroes the look-back states.
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
             reinterpret_cast<uint4*>(states), clear_vectors, keep_parity);
  const launch_mode chained = device.cc_major >= 9 ? launch_mode::overlap_previous : launch_mode::plain;
  for (int slot = 0; slot < plan.passes && e == cudaSuccess; ++slot) {
    e = launch_with_smem(pass, static_cast<unsigned>(plan.tiles), Config::block_threads, launch_smem, stream, chained,
                         a, slot, states);
  }
  return e;
}

/// Writes the identity permutation: an argsort over an empty bit range.
template <class Index>
__global__ void radix_iota_kernel(Index* out, std::size_t n) {
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    out[i] = static_cast<Index>(i);
  }
}

/// Runs `plan` with the buffers of `a` (the passes' alternates and control block set where the
/// plan needs them) and the look-back `states`.
template <bool Descending, class Shape, class Key, class Value>
cudaError_t radix_sort_run(const device_facts& device, const radix_plan& plan, const radix_sort_args<Key, Value>& a,
                           unsigned long long* states, bool keep_parity, cudaStream_t stream) {
  using configs = radix_configs<Key, Value, Shape>;
  switch (plan.path) {
    case radix_path::none:
      return cudaSuccess;
    case radix_path::copy: {
      cudaError_t e = cudaSuccess;
      if (static_cast<const void*>(a.keys_in) != static_cast<const void*>(a.keys_out) && !a.keys_discarded) {
        e = cudaMemcpyAsync(a.keys_out, a.keys_in, a.n * sizeof(Key), cudaMemcpyDeviceToDevice, stream);
      }
      if constexpr (!std::is_same_v<Value, no_values>) {
        if (e == cudaSuccess && a.values_in == nullptr) {
          if constexpr (std::is_integral_v<Value>) {
            e = launch(radix_iota_kernel<Value>, static_cast<unsigned>(device.sm_count > 0 ? device.sm_count * 4 : 4),
                       256, stream, launch_mode::plain, a.values_out, a.n);
          }
        } else if (e == cudaSuccess && static_cast<const void*>(a.values_in) != static_cast<const void*>(a.values_out)) {
          e = cudaMemcpyAsync(a.values_out, a.values_in, a.n * sizeof(Value), cudaMemcpyDeviceToDevice, stream);
        }
      }
      return e;
    }
    case radix_path::rank:
    case radix_path::bucket:
      return launch_rank_sort<Key, Value, Descending>(device, plan, a, stream);
    case radix_path::fused:
      return launch_fused<Key, Value, Descending, Shape>(device, plan, a, states, keep_parity, stream);
    case radix_path::one_wave:
      return launch_onesweep<Key, Value, Descending, Shape, typename configs::one_wave>(device, plan, a, states,
                                                                                        keep_parity, stream);
    case radix_path::many_waves:
      return launch_onesweep<Key, Value, Descending, Shape, typename configs::many_waves>(device, plan, a, states,
                                                                                         keep_parity, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

/// The part of every sort after its pointer checks: the size query, the device's facts, the plan,
/// the workspace (control block, states and `spares`, carved into `a`), then the launches.
/// `place(plan, a)` sets the key and value pointers of `a` once the plan is known (a low-memory
/// sort's result buffer depends on it) and returns whether the passes keep their parity
/// (radix_choose_passes). `want` forces a path (tests; radix_path::automatic lets the plan
/// choose); a path that cannot take the input gives cudaErrorInvalidValue.
template <bool Descending, class Shape, class Key, class Value, class Place>
cudaError_t radix_sort_with(void* temp, std::size_t& temp_bytes, bool size_query, std::size_t n, int begin_bit,
                            int end_bit, radix_spares spares, radix_path want, cudaStream_t stream, Place place) {
  static_assert(valid_shape_argument_v<Shape>, "the sort's Shape must be a gpuprim::shape<BlockThreads, Items>");
  if (!radix_bits_valid<Key>(begin_bit, end_bit)) return cudaErrorInvalidValue;
  // The size query needs no GPU: the workspace of a path class that holds every plan's.
  const radix_path sized = n == 0 || end_bit <= begin_bit ? radix_path::none
                           : want == radix_path::automatic ? radix_workspace_path<Key, Value, Shape>(n, begin_bit, end_bit)
                                                           : want;
  const workspace_layout<5> needed = radix_workspace<Key, Value, Shape>(sized, n, spares);
  if (size_query) {
    temp_bytes = needed.bytes();
    return cudaSuccess;
  }
  if (needed.bytes() > 0 && (temp == nullptr || temp_bytes < needed.bytes())) return cudaErrorInvalidValue;
  if (n == 0) return cudaSuccess;
  const bool onesweep = sized == radix_path::one_wave || sized == radix_path::many_waves;
  device_facts device;
  radix_device_facts facts;
  cudaError_t e = radix_sort_facts<Key, Value, Descending, Shape>(onesweep, device, facts);
  if (e != cudaSuccess) return e;
  const radix_plan plan = plan_radix_sort<Key, Value, Shape>(n, begin_bit, end_bit, facts, want);
  const workspace_layout<5> layout = radix_workspace<Key, Value, Shape>(plan.path, n, spares);
  if (plan.path == radix_path::invalid || layout.bytes() > temp_bytes) return cudaErrorInvalidValue;
  void* parts[5] = {};
  e = layout.carve(temp, temp_bytes, parts);
  if (e != cudaSuccess) return e;
  radix_sort_args<Key, Value> a{nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, n, begin_bit, end_bit,
                                static_cast<radix_sort_control*>(parts[0])};
  a.keys_alt = static_cast<typename radix_key<Key>::bits_t*>(parts[2]);
  if constexpr (!std::is_same_v<Value, no_values>) a.values_alt = static_cast<Value*>(parts[3]);
  // Argsort without keys out: the passes sort the keys into the spare buffer. (Storing no keys in
  // the last pass saved 2.1% at 2^28, H200 2026-12-02, 7152 against 7308 us: not kept.)
  if (parts[4] != nullptr) a.keys_out = static_cast<Key*>(parts[4]);
  const bool keep_parity = place(plan, a);
  // The control block's counters start at zero (the first kernel zeroes the rest that needs it).
  if (a.control != nullptr) e = cudaMemsetAsync(&a.control->head, 0, sizeof(radix_sort_counters), stream);
  if (e != cudaSuccess) return e;
  return radix_sort_run<Descending, Shape>(device, plan, a, static_cast<unsigned long long*>(parts[1]), keep_parity,
                                           stream);
}

/// The sort from a const input to an output (both forms): with `size_query` only sets
/// `temp_bytes`. `want`: as radix_sort_with.
template <bool Descending, class Shape = use_default_shape, class Key, class Value>
cudaError_t radix_sort(void* temp, std::size_t& temp_bytes, bool size_query, const Key* keys_in, Key* keys_out,
                       const Value* values_in, Value* values_out, std::size_t n, int begin_bit, int end_bit,
                       cudaStream_t stream, radix_path want = radix_path::automatic) {
  if (!size_query && !radix_pointers_valid(keys_in, keys_out, values_in, values_out, n)) return cudaErrorInvalidValue;
  return radix_sort_with<Descending, Shape, Key, Value>(
      temp, temp_bytes, size_query, n, begin_bit, end_bit, radix_spares::alternates, want, stream,
      [&](const radix_plan&, radix_sort_args<Key, Value>& a) {
        a.keys_in = keys_in;
        a.keys_out = keys_out;
        a.values_in = values_in;
        a.values_out = values_out;
        return false;
      });
}

/// Argsort (both forms): `indices_out[i]` is the input position of the i-th key in sorted order;
/// `keys_out` may be nullptr (the sorted keys then go to the workspace, and the last pass stores
/// none). The indices are made in the first pass: no index array is read.
template <bool Descending, class Shape = use_default_shape, class Key, class Index>
cudaError_t radix_argsort(void* temp, std::size_t& temp_bytes, bool size_query, const Key* keys_in, Key* keys_out,
                          Index* indices_out, std::size_t n, int begin_bit, int end_bit, cudaStream_t stream,
                          radix_path want = radix_path::automatic) {
  static_assert(std::is_same_v<Index, std::uint32_t> || std::is_same_v<Index, std::uint64_t>,
                "argsort indices are uint32_t or uint64_t");
  if (!size_query && n > 0 && (keys_in == nullptr || indices_out == nullptr)) return cudaErrorInvalidValue;
  if (n > 0 && n - 1 > std::size_t(~Index(0))) return cudaErrorInvalidValue;  // a position must fit an Index
  const radix_spares spares = keys_out == nullptr ? radix_spares::alternates_and_keys : radix_spares::alternates;
  return radix_sort_with<Descending, Shape, Key, Index>(
      temp, temp_bytes, size_query, n, begin_bit, end_bit, spares, want, stream,
      [&](const radix_plan&, radix_sort_args<Key, Index>& a) {
        a.keys_in = keys_in;
        // No keys out: the passes sort the keys into the workspace's spare buffer (set above), the
        // rank sorts and the copy store none.
        if (a.keys_out == nullptr) a.keys_out = keys_out;
        a.keys_discarded = a.keys_out == nullptr;
        a.values_in = nullptr;  // made from the positions
        a.values_out = indices_out;
        return false;
      });
}

/// The low-memory sort (both forms): sorts the n items in `keys_cur` (and `values_cur`), using
/// `keys_alt` (and `values_alt`) as the second buffer; sets `in_alternate` to whether the result
/// lies in the alternates. The plan decides it on the host: the rank sorts write the alternates;
/// the passes ping-pong from the current buffers so that the last of the plan's passes writes the
/// alternates when their count is odd, and the histogram keeps the count's parity
/// (radix_choose_passes: `keep_parity`).
template <bool Descending, class Shape = use_default_shape, class Key, class Value>
cudaError_t radix_sort_low_memory(void* temp, std::size_t& temp_bytes, bool size_query, Key* keys_cur, Key* keys_alt,
                                  Value* values_cur, Value* values_alt, std::size_t n, int begin_bit, int end_bit,
                                  cudaStream_t stream, bool& in_alternate, radix_path want = radix_path::automatic) {
  using bits_t = typename radix_key<Key>::bits_t;
  constexpr bool has_values = !std::is_same_v<Value, no_values>;
  if (!size_query && n > 0 &&
      (keys_cur == nullptr || keys_alt == nullptr || keys_cur == keys_alt ||
       (has_values && (values_cur == nullptr || values_alt == nullptr || values_cur == values_alt)))) {
    return cudaErrorInvalidValue;
  }
  bool alternate = false;
  const cudaError_t e = radix_sort_with<Descending, Shape, Key, Value>(
      temp, temp_bytes, size_query, n, begin_bit, end_bit, radix_spares::none, want, stream,
      [&](const radix_plan& plan, radix_sort_args<Key, Value>& a) {
        const bool passes = plan.path == radix_path::fused || plan.path == radix_path::one_wave ||
                            plan.path == radix_path::many_waves;
        alternate = passes ? (plan.passes & 1) != 0 : plan.path == radix_path::rank || plan.path == radix_path::bucket;
        a.keys_in = keys_cur;
        a.keys_out = alternate ? keys_alt : keys_cur;
        a.keys_alt = reinterpret_cast<bits_t*>(alternate ? keys_cur : keys_alt);
        a.values_in = values_cur;
        a.values_out = alternate ? values_alt : values_cur;
        a.values_alt = alternate ? values_cur : values_alt;
        return true;
      });
  if (e == cudaSuccess && !size_query) in_alternate = alternate;
  return e;
}

}  // namespace detail
GPUPRIM_NAMESPACE_END
