// The scan fuzz runner: one random config of exclusive_scan, inclusive_scan, exclusive_sum or
// inclusive_sum (either form, any stream, misaligned or in place) against cub::DeviceScan, bitwise.
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

/// One config of scan `a` of In items into Out (the accumulator: Out for exclusive scans and
/// sums, In for inclusive_scan) with operator O (plus for the sums).
template <algorithm A, class In, class Out, op_kind O>
result scan_case(context& ctx, rng& r) {
  constexpr algorithm a = A;
  constexpr bool same_type = std::is_same_v<In, Out>;
  constexpr bool exclusive = A == algorithm::exclusive_scan || A == algorithm::exclusive_sum;
  constexpr bool is_sum = A == algorithm::exclusive_sum || A == algorithm::inclusive_sum;
  result res;
  const std::size_t tile = gpuprim::detail::scan_default_shape<Out>::tile_items;
  const bool in_place = same_type && r.chance(0.15);
  const std::size_t out_off = draw_offset(r);
  const std::size_t in_off = in_place ? out_off : draw_offset(r);
  const std::size_t n = draw_size(r, ctx.max_n, {tile}, head_items<In>(in_off));
  const distribution d = draw_value_distribution(r);
  std::int64_t lo, hi;
  value_range<In, Out>(O, n + 1, lo, hi);
  const Out init = exclusive && !is_sum ? static_cast<Out>(r.between(lo, hi)) : Out{};
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
    os << ", n = " << n << ", " << distribution_name(d) << " in [" << lo << ", " << hi << "]";
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
  fill_values(h_in, n, r, d, lo, hi);
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
/// the sums).
template <algorithm A, op_kind O>
result scan_random_type(context& ctx, rng& r) {
  switch (r.below(6)) {
    case 0: return scan_case<A, std::int32_t, std::int32_t, O>(ctx, r);
    case 1: return scan_case<A, std::uint32_t, std::uint32_t, O>(ctx, r);
    case 2: return scan_case<A, std::int64_t, std::int64_t, O>(ctx, r);
    case 3: return scan_case<A, float, float, O>(ctx, r);
    case 4: return scan_case<A, double, double, O>(ctx, r);
    default:
      // uint8 items into uint32 outputs. An inclusive_scan accumulates in the items' type (uint8,
      // the contract) where CUB accumulates plus in int: only maximum is comparable there.
      if constexpr (A == algorithm::inclusive_scan) {
        return scan_case<A, std::uint8_t, std::uint32_t, op_kind::maximum>(ctx, r);
      } else {
        return scan_case<A, std::uint8_t, std::uint32_t, O>(ctx, r);
      }
  }
}

}  // namespace fuzz
