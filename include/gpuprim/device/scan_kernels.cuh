// Device-wide scan: the plan (tiles and workspace), the kernels and their dispatch.
//
// One pass, chained scan with decoupled look-back (Merrill & Garland 2016): block i scans tile i
// and finds its prefix in the tile states of the workspace (tile/scan_tile.cuh,
// detail/lookback.cuh). A memset marks every tile state invalid first. A single tile takes one
// block, one launch, no workspace.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cuda_runtime.h>

#include "../detail/config.cuh"
#include "../detail/item_source.cuh"
#include "../detail/launch.cuh"
#include "../detail/lookback.cuh"
#include "../detail/workspace.cuh"
#include "../shape.cuh"
#include "../tile/scan_streaming.cuh"
#include "../tile/scan_tile.cuh"

GPUPRIM_NAMESPACE_BEGIN
namespace detail {

/// The accumulator of exclusive_sum / inclusive_sum: the output's type for raw pointer outputs
/// (as gpuprim::sum), else the input's value type.
template <class InputIt, class OutputIt>
using sum_accumulator_t = std::remove_cv_t<
    std::conditional_t<std::is_pointer_v<OutputIt>, std::remove_pointer_t<OutputIt>, iterator_value_t<InputIt>>>;

/// Bytes before the tile states in the status part: the streaming scan's ticket counter and the
/// count of its warps that have zeroed the tile states.
inline constexpr std::size_t scan_ticket_bytes = 16;

/// The workspace of a device scan of `n` items: a ticket counter and the tile states, for
/// ceil(n / tile_items) tiles (the most any alignment of the pointers gives; the streaming scan's
/// tiles are never smaller). Depends only on `n` and the types, so the size query and the launch
/// agree.
struct scan_plan {
  std::size_t max_tiles = 0;
  workspace_layout<3> layout;  // parts: status words, aggregates, inclusive prefixes
  enum part { status_part, aggregates_part, prefixes_part };
};

/// The most tiles a scan launches (blocks in one grid dimension).
inline constexpr std::size_t scan_max_tiles = 0x7fffffff;

template <class Shape, class AccT>
scan_plan make_scan_plan(std::size_t n) {
  using states_t = tile_states_t<AccT>;
  scan_plan plan;
  plan.max_tiles = n / Shape::tile_items + (n % Shape::tile_items != 0 ? 1 : 0);
  if (plan.max_tiles > 1 && plan.max_tiles <= scan_max_tiles) {
    plan.layout.part_bytes[scan_plan::status_part] =
        scan_ticket_bytes + plan.max_tiles * states_t::status_bytes_per_tile;
    plan.layout.part_bytes[scan_plan::aggregates_part] = plan.max_tiles * states_t::value_bytes_per_tile;
    plan.layout.part_bytes[scan_plan::prefixes_part] = plan.max_tiles * states_t::value_bytes_per_tile;
  }
  return plan;
}

template <class AccT>
tile_states_t<AccT> make_tile_states(void* const (&parts)[3]) {
  void* const status = static_cast<unsigned char*>(parts[scan_plan::status_part]) + scan_ticket_bytes;
  if constexpr (sizeof(AccT) <= 16) {
    return {static_cast<unsigned long long*>(status)};
  } else {
    return {static_cast<unsigned*>(status), static_cast<AccT*>(parts[scan_plan::aggregates_part]),
            static_cast<AccT*>(parts[scan_plan::prefixes_part])};
  }
}

/// Items before the first 16-byte boundary at `p` (0 when aligned).
template <class T>
std::size_t items_before_16_byte_boundary(const T* p) {
  const std::uintptr_t misalignment = reinterpret_cast<std::uintptr_t>(p) % 16;
  return misalignment == 0 ? 0 : (16 - misalignment) / sizeof(T);
}

/// False for null input or output pointers when there are items to scan.
template <class InputIt, class OutputIt>
bool scan_arguments_valid(const InputIt& in, const OutputIt& out, std::size_t n) {
  return n == 0 || (!is_null_iterator(in) && !is_null_iterator(out));
}

/// Blocks per SM the scan kernel is compiled for (its register cap): striped tiles of 256 threads
/// get 4 (64 registers) for accumulators of up to 4 bytes and 3 (80) for 8 bytes; other tiles
/// what the compiler picks. H200: the cap gave i32 2^28 757 us instead of 778 (3 blocks).
template <class Shape, class Params>
inline constexpr int scan_min_blocks_per_sm =
    !scan_tile<Shape, Params>::striped || Shape::block_threads != 256 ? 1
    : sizeof(typename Params::acc_type) <= 4                           ? 4
    : sizeof(typename Params::acc_type) <= 8                           ? 3
                                                                       : 1;

template <class Shape, class Params>
__global__ void __launch_bounds__(Shape::block_threads, (scan_min_blocks_per_sm<Shape, Params>))
    scan_kernel(const Params params) {
  using tile_t = scan_tile<Shape, Params>;
  __shared__ typename tile_t::temp_storage storage;
  tile_t(storage, params).process(blockIdx.x);
}

/// The `Shape` argument that makes a device scan stream whenever its types allow (tests reach the
/// streaming scan with small inputs through it); otherwise the default shape.
struct scan_force_streaming {};

/// Launches the streaming scan when this device and the kernel's code support it (`launched`
/// tells). Only the ticket bytes are zeroed first (a memset of 16 bytes); the kernel zeroes the
/// tile states itself, on a cooperative grid (scan_streaming.cuh).
template <class Params>
cudaError_t launch_streaming_scan(const Params& params, void* const (&parts)[3], std::size_t body_vectors, int tail,
                                  cudaStream_t stream, bool& launched) {
  using stream_t = streaming_scan<Params>;
  constexpr auto kernel = streaming_scan_kernel<Params>;
  device_facts device;
  cudaError_t e = prepare_sm90_kernel<kernel>(stream_t::smem_bytes, device, launched);
  if (e != cudaSuccess || !launched) return e;
  unsigned* counters = static_cast<unsigned*>(parts[scan_plan::status_part]);  // ticket, cleared
  static_assert(scan_ticket_bytes >= 2 * sizeof(unsigned), "the ticket bytes hold both counters");
  e = cudaMemsetAsync(counters, 0, scan_ticket_bytes, stream);
  if (e != cudaSuccess) return e;
  const streaming_scan_params<Params> sp{params, counters, counters + 1, body_vectors, tail};
  const unsigned grid = params.tiles < unsigned(device.sm_count) ? params.tiles : unsigned(device.sm_count);
  return launch_with_smem(kernel, grid, stream_t::block_threads, stream_t::smem_bytes, stream,
                          launch_mode::cooperative, sp);
}

/// Every device scan ends here. `InitT` is the accumulator type `AccT` for exclusive scans and
/// `no_init` for inclusive ones. With `size_query` only `temp_bytes` is written; then no pointer is
/// checked and no CUDA call is made.
template <class AccT, class Shape, class InputIt, class OutputIt, class InitT, class Op>
cudaError_t scan(void* temp, std::size_t& temp_bytes, bool size_query, InputIt in, OutputIt out, std::size_t n,
                 InitT init, Op op, cudaStream_t stream) {
  constexpr bool force_streaming = std::is_same_v<Shape, scan_force_streaming>;
  using shape_arg = std::conditional_t<force_streaming, use_default_shape, Shape>;
  static_assert(valid_shape_argument_v<shape_arg>,
                "the first template argument of the gpuprim scans is a gpuprim::shape<...>, not a value type");
  using shape_t = shape_or_default<shape_arg, scan_default_shape<AccT>>;
  using params_t = scan_params<InputIt, OutputIt, AccT, InitT, Op>;
  using tile_t = scan_tile<shape_t, params_t>;
  using states_t = tile_states_t<AccT>;

  const scan_plan plan = make_scan_plan<shape_t, AccT>(n);
  if (plan.max_tiles > scan_max_tiles) return cudaErrorInvalidValue;
  if (size_query) {
    temp_bytes = plan.layout.bytes();
    return cudaSuccess;
  }
  if (!scan_arguments_valid(in, out, n)) return cudaErrorInvalidValue;
  void* parts[3];
  cudaError_t e = plan.layout.carve(temp, temp_bytes, parts);
  if (e != cudaSuccess) return e;
  if (n == 0) return cudaSuccess;

  // Peel the head so that tiles start 16-byte aligned on the side that moves vectors (the input
  // first); stores take vectors only when the output is then aligned as well.
  std::size_t head = 0;
  if constexpr (tile_t::vector_loads) {
    head = items_before_16_byte_boundary(in);
  } else if constexpr (tile_t::vector_stores) {
    head = items_before_16_byte_boundary(out);
  }
  if (head > n) head = n;
  bool vector_store = false;
  if constexpr (tile_t::vector_stores) vector_store = items_before_16_byte_boundary(out + head) == 0;
  const std::size_t tiles = (n - head + shape_t::tile_items - 1) / shape_t::tile_items;

  // Large inputs with the default shape stream through shared memory on sm_90 and up.
  using stream_t = streaming_scan<params_t>;
  if constexpr (stream_t::applicable && tile_t::striped && std::is_same_v<shape_arg, use_default_shape> &&
                stream_t::tile_items >= shape_t::tile_items) {
    const std::size_t body_vectors = (n - head) / stream_t::G;
    const std::size_t stream_tiles = (body_vectors + stream_t::tile_vectors - 1) / stream_t::tile_vectors;
    const bool large = force_streaming || n - head >= streaming_scan_min_items<16 / stream_t::G>;
    if (vector_store && large && stream_tiles > 1) {
      const params_t params{in, out, n, static_cast<int>(head), static_cast<unsigned>(stream_tiles), true,
                            init, op, make_tile_states<AccT>(parts)};
      bool launched = false;
      e = launch_streaming_scan(params, parts, body_vectors, static_cast<int>((n - head) % stream_t::G), stream,
                                launched);
      if (e != cudaSuccess || launched) return e;
    }
  }

  const params_t params{in, out, n, static_cast<int>(head), static_cast<unsigned>(tiles), vector_store,
                        init, op, make_tile_states<AccT>(parts)};
  auto* kernel = scan_kernel<shape_t, params_t>;
  if (tiles <= 1) return launch(kernel, 1, shape_t::block_threads, stream, launch_mode::plain, params);

  // Mark every tile state INVALID (all zero bits) first; this kernel takes no ticket, so the
  // ticket's bytes are left out. H200: a memset of up to 4096 bytes costs the host 0.8 us, a larger
  // one 2.8-3.5 us (a kernel launch: 3.1 us), and the GPU waits for it; without the ticket's 16
  // bytes, i32 at 2^22 (512 tiles) and 8-byte items at 2^20 (256 tiles) stay at 4096 bytes:
  // 24.0 -> 19.9 us and 19.5 -> 15.1 us. A memset costs 2.4 us less
  // than an init kernel overlapped with programmatic dependent launch (i32, 2^20).
  e = cudaMemsetAsync(static_cast<unsigned char*>(parts[scan_plan::status_part]) + scan_ticket_bytes, 0,
                      tiles * states_t::status_bytes_per_tile, stream);
  if (e != cudaSuccess) return e;
  return launch(kernel, static_cast<unsigned>(tiles), shape_t::block_threads, stream, launch_mode::plain, params);
}

}  // namespace detail
GPUPRIM_NAMESPACE_END
