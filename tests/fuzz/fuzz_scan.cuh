// The scan fuzz runner: one random config of exclusive_scan, inclusive_scan, exclusive_sum or
// inclusive_sum (either form, any stream, misaligned or in place; plus, minimum, maximum, or the
// composition of affine maps, which is not commutative) against cub::DeviceScan, bitwise. Sizes
// include tile edges and, where the types and operator allow the streaming scan, the sizes from
// which the default shape streams.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cub/device/device_scan.cuh>
#include <gpuprim/scan.cuh>
#include <sstream>
#include <type_traits>
#include <vector>

#include "fuzz/fuzz_arith.cuh"
#include "fuzz/fuzz_common.cuh"

namespace fuzz {

/// Whether the default shape may take the streaming scan for In -> Out with operator O (raw
/// pointers, 4- or 8-byte items on both sides, an operator it may reorder): then it streams from
/// streaming_scan_min_items on, when the output is 16-byte aligned after the input's head.
template <class In, class Out, op_kind O>
inline constexpr bool may_stream =
    std::is_same_v<In, Out> &&
    gpuprim::detail::streaming_scan<
        gpuprim::detail::scan_params<const In*, Out*, Out, Out, decltype(gpuprim_op<O>())>>::applicable;

/// One config of scan `a` of In items into Out (the accumulator: Out for exclusive scans and
/// sums, In for inclusive_scan) with operator O (plus for the sums).
template <algorithm A, class In, class Out, op_kind O>
result scan_case(context& ctx, rng& r) {
  constexpr algorithm a = A;
  constexpr bool same_type = std::is_same_v<In, Out>;
  constexpr bool exclusive = A == algorithm::exclusive_scan || A == algorithm::exclusive_sum;
  constexpr bool is_sum = A == algorithm::exclusive_sum || A == algorithm::inclusive_sum;
  constexpr bool maps = std::is_same_v<In, affine>;
  static_assert(!maps || (same_type && O == op_kind::compose && !is_sum),
                "affine maps: exclusive_scan / inclusive_scan with compose");
  result res;
  const std::size_t tile = gpuprim::detail::scan_default_shape<Out>::tile_items;
  const bool in_place = same_type && r.chance(0.15);
  const std::size_t out_off = draw_offset(r);
  const std::size_t in_off = in_place ? out_off : draw_offset(r);
  // Size edges: the tile; for half of the configs that may stream, also the streaming threshold
  // and one streaming tile either side of it (sizes of 2-5 million items, so not always).
  std::vector<std::size_t> edges{tile};
  if constexpr (may_stream<In, Out, O>) {
    if (r.chance(0.5)) {
      using params = gpuprim::detail::scan_params<const In*, Out*, Out, Out, decltype(gpuprim_op<O>())>;
      constexpr std::size_t threshold = gpuprim::detail::streaming_scan_min_items<sizeof(In)>;
      constexpr std::size_t stream_tile = gpuprim::detail::streaming_scan<params>::tile_items;
      edges = {tile, threshold, threshold - stream_tile, threshold + stream_tile};
    }
  }
  const std::size_t n = draw_size(r, ctx.max_n, edges, head_items<In>(in_off));
  const distribution drawn = draw_value_distribution(r);
  const bool ordered = drawn == distribution::ascending || drawn == distribution::descending;
  const distribution d = maps && ordered ? distribution::uniform : drawn;  // maps have no order
  std::int64_t lo = 0, hi = 0;
  Out init{};
  if constexpr (maps) {
    if (exclusive) init = random_affine(r);
  } else {
    value_range<In, Out>(O, n + 1, lo, hi);
    init = exclusive && !is_sum ? static_cast<Out>(r.between(lo, hi)) : Out{};
  }
  const stream_choice st = draw_stream(r, ctx);
  const workspace_choice w = draw_workspace(r);
  const bool null_pointers = n == 0 && r.chance(0.5);
  const auto poison = static_cast<unsigned char>(r.next());
  res.n = n;
  {
    std::ostringstream os;
    os << algorithm_name(a) << " in " << type_name<In>() << " -> " << type_name<Out>();
    if (!is_sum) os << ", op " << op_name(O);
    if (exclusive && !is_sum) os << ", init " << show(init);
    os << ", n = " << n << ", " << distribution_name(d);
    if (!maps) os << " in [" << lo << ", " << hi << "]";
    if (in_place) {
      os << ", in place at offset " << out_off;
    } else {
      os << ", input offset " << in_off << ", output offset " << out_off;
    }
    os << (null_pointers ? " (null pointers)" : "") << ", " << stream_name(st) << ", " << form_name(w) << ", poison 0x"
       << std::hex << int(poison);
    res.config = os.str();
  }
  ctx.announce(res.config);

  In* h_in = ctx.pinned<In>(h_keys_in, n);
  In* d_in = ctx.dev<In>(d_keys_in, in_off + n);
  const guarded<Out> out = make_guarded<Out>(ctx, d_keys_out, n, out_off);
  Out* d_ref = ctx.dev<Out>(d_keys_ref, n);
  Out* h_out = ctx.pinned<Out>(h_keys_out, out.total);
  Out* h_ref = ctx.pinned<Out>(h_keys_ref, n);
  In* h_after = ctx.pinned<In>(h_keys_after, n);
  if (!h_in || !d_in || !out.base || !d_ref || !h_out || !h_ref || !h_after) {
    res.problems.push_back("test buffers could not be allocated");
    return res;
  }
  if constexpr (maps) {
    fill_affines(h_in, n, r, d);
  } else {
    fill_values(h_in, n, r, d, lo, hi);
  }
  const In* in = d_in + in_off;
  const std::size_t in_bytes = n * sizeof(In);
  if (in_bytes > 0 &&
      cuda_failed(res, cudaMemcpyAsync(d_in + in_off, h_in, in_bytes, cudaMemcpyHostToDevice, ctx.setup), "upload"))
    return res;
  if (cuda_failed(res, cudaMemsetAsync(out.base, poison, out.total * sizeof(Out), ctx.setup), "poison")) return res;
  if (in_place && in_bytes > 0 &&
      cuda_failed(res, cudaMemcpyAsync(out.out, h_in, in_bytes, cudaMemcpyHostToDevice, ctx.setup), "upload")) {
    return res;
  }

  // CUB's result, from its own copy of the input.
  const auto cop = cub_op<O>();
  auto cub_call = [&](void* temp, std::size_t& bytes) -> cudaError_t {
    if constexpr (A == algorithm::exclusive_sum) {
      return cub::DeviceScan::ExclusiveSum(temp, bytes, in, d_ref, n, ctx.setup);
    } else if constexpr (A == algorithm::inclusive_sum) {
      return cub::DeviceScan::InclusiveSum(temp, bytes, in, d_ref, n, ctx.setup);
    } else if constexpr (A == algorithm::exclusive_scan) {
      return cub::DeviceScan::ExclusiveScan(temp, bytes, in, d_ref, cop, init, n, ctx.setup);
    } else {
      return cub::DeviceScan::InclusiveScan(temp, bytes, in, d_ref, cop, n, ctx.setup);
    }
  };
  std::size_t cub_bytes = 0;
  if (cuda_failed(res, cub_call(nullptr, cub_bytes), "CUB size query")) return res;
  void* cub_temp = ctx.device[d_cub_temp].get(cub_bytes);
  if (cub_temp == nullptr) {
    res.problems.push_back("CUB's workspace could not be allocated");
    return res;
  }
  if (cuda_failed(res, cub_call(cub_temp, cub_bytes), "CUB scan")) return res;

  // The call under test.
  const auto op = gpuprim_op<O>();
  const In* call_in = null_pointers ? nullptr : in_place ? reinterpret_cast<const In*>(out.out) : in;
  Out* call_out = null_pointers ? nullptr : out.out;
  const cudaStream_t s = st.stream;
  auto workspace_call = [&](void* temp, std::size_t& bytes) -> cudaError_t {
    if constexpr (A == algorithm::exclusive_sum) {
      return gpuprim::exclusive_sum(temp, bytes, call_in, call_out, n, s);
    } else if constexpr (A == algorithm::inclusive_sum) {
      return gpuprim::inclusive_sum(temp, bytes, call_in, call_out, n, s);
    } else if constexpr (A == algorithm::exclusive_scan) {
      return gpuprim::exclusive_scan(temp, bytes, call_in, call_out, n, init, op, s);
    } else {
      return gpuprim::inclusive_scan(temp, bytes, call_in, call_out, n, op, s);
    }
  };
  cudaError_t e;
  if (w.form == call_form::allocating) {
    if (cuda_failed(res, cudaStreamSynchronize(ctx.setup), "setup")) return res;
    if constexpr (A == algorithm::exclusive_sum) {
      e = gpuprim::exclusive_sum(call_in, call_out, n, s);
    } else if constexpr (A == algorithm::inclusive_sum) {
      e = gpuprim::inclusive_sum(call_in, call_out, n, s);
    } else if constexpr (A == algorithm::exclusive_scan) {
      e = gpuprim::exclusive_scan(call_in, call_out, n, init, op, s);
    } else {
      e = gpuprim::inclusive_scan(call_in, call_out, n, op, s);
    }
  } else if (!call_workspace_form(ctx, w, static_cast<unsigned char>(~poison), res, workspace_call, e)) {
    return res;
  }
  if (cuda_failed(res, e, "gpuprim call")) return res;
  if (cuda_failed(res, ctx.wait(s, res.config), "gpuprim execution")) return res;

  if (cuda_failed(res, cudaMemcpyAsync(h_out, out.base, out.total * sizeof(Out), cudaMemcpyDeviceToHost, ctx.setup),
                  "download"))
    return res;
  if (n > 0 &&
      cuda_failed(res, cudaMemcpyAsync(h_ref, d_ref, n * sizeof(Out), cudaMemcpyDeviceToHost, ctx.setup), "download"))
    return res;
  if (!in_place && in_bytes > 0 &&
      cuda_failed(res, cudaMemcpyAsync(h_after, in, in_bytes, cudaMemcpyDeviceToHost, ctx.setup), "download")) {
    return res;
  }
  if (cuda_failed(res, cudaStreamSynchronize(ctx.setup), "download")) return res;
  compare_bitwise(res, "output", h_ref, h_out + out.before, n);
  check_guards(res, "output", h_out, out, n, poison);
  if (!in_place) compare_bitwise(res, "input after the scan", h_in, h_after, n);
  return res;
}

/// Scan A over a random value type; O is the operator of exclusive_scan / inclusive_scan (plus for
/// the sums; not compose).
template <algorithm A, op_kind O>
result scan_random_type(context& ctx, rng& r) {
  static_assert(O != op_kind::compose, "compose takes affine maps (scan_operator)");
  switch (r.below(6)) {
    case 0: return scan_case<A, std::int32_t, std::int32_t, O>(ctx, r);
    case 1: return scan_case<A, std::uint32_t, std::uint32_t, O>(ctx, r);
    case 2: return scan_case<A, std::int64_t, std::int64_t, O>(ctx, r);
    case 3: return scan_case<A, float, float, O>(ctx, r);
    case 4: return scan_case<A, double, double, O>(ctx, r);
    default:
      // uint8 items into uint32 outputs. An inclusive_scan accumulates in the items' type (uint8,
      // the contract) where CUB accumulates plus in int: there plus is replaced by maximum
      // (minimum and maximum give the same in either type).
      if constexpr (A == algorithm::inclusive_scan && O == op_kind::plus) {
        return scan_case<A, std::uint8_t, std::uint32_t, op_kind::maximum>(ctx, r);
      } else {
        return scan_case<A, std::uint8_t, std::uint32_t, O>(ctx, r);
      }
  }
}

/// exclusive_scan or inclusive_scan (A) with a random operator: plus 3/8, maximum and minimum 2/8
/// each (over a random value type), compose 1/8 (over affine maps).
template <algorithm A>
result scan_operator(context& ctx, rng& r) {
  switch (r.below(8)) {
    case 0:
    case 1:
    case 2: return scan_random_type<A, op_kind::plus>(ctx, r);
    case 3:
    case 4: return scan_random_type<A, op_kind::maximum>(ctx, r);
    case 5:
    case 6: return scan_random_type<A, op_kind::minimum>(ctx, r);
    default: return scan_case<A, affine, affine, op_kind::compose>(ctx, r);
  }
}

}  // namespace fuzz
