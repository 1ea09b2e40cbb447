// Fuzz family: gpuprim::reduce (plus, minimum, maximum) and gpuprim::sum against
// cub::DeviceReduce::Reduce / Sum, bitwise. Types: int32, uint32, int64, float, double, and uint8
// items into a uint32 accumulator.
#include <cstddef>
#include <cstdint>
#include <cub/device/device_reduce.cuh>
#include <gpuprim/reduce.cuh>
#include <sstream>
#include <vector>

#include "fuzz/fuzz_arith.cuh"
#include "fuzz/fuzz_common.cuh"

namespace fuzz {
namespace {

template <class In, class T, op_kind O>
result reduce_case(context& ctx, rng& r, algorithm a) {
  const bool is_sum = a == algorithm::sum;
  result res;
  // Sizes: the tile of the default shape, and (rarely) the size at which the grid stops growing.
  const std::size_t tile = gpuprim::detail::reduce_default_shape<In>::tile_items;
  std::vector<std::size_t> edges{tile};
  if (r.chance(0.05)) edges = {std::size_t(ctx.sm_count) * gpuprim::detail::reduce_blocks_per_sm * tile};
  const std::size_t in_off = draw_offset(r), out_off = draw_offset(r);
  const std::size_t n = draw_size(r, ctx.max_n, edges, head_items<In>(in_off));
  const distribution d = draw_value_distribution(r);
  std::int64_t lo, hi;
  value_range<In, T>(O, n + 1, lo, hi);
  const T init = is_sum ? T{} : static_cast<T>(r.between(lo, hi));
  const stream_choice st = draw_stream(r, ctx);
  const workspace_choice w = draw_workspace(r);
  const bool null_input = n == 0 && r.chance(0.5);
  const bool default_stream_argument = st.kind == stream_kind::legacy_default && r.chance(0.5);
  const auto poison = static_cast<unsigned char>(r.next());
  res.n = n;
  {
    std::ostringstream os;
    os << algorithm_name(a) << " in " << type_name<In>() << " -> " << type_name<T>();
    if (!is_sum) os << ", op " << op_name(O) << ", init " << show(init);
    os << ", n = " << n << ", " << distribution_name(d) << " in [" << lo << ", " << hi << "]"
       << ", input offset " << in_off << (null_input ? " (null input pointer)" : "") << ", output offset " << out_off
       << ", " << stream_name(st) << (default_stream_argument ? " (default argument)" : "") << ", " << form_name(w)
       << ", poison 0x" << std::hex << int(poison);
    res.config = os.str();
  }
  ctx.announce(res.config);

  // Input, outputs (poisoned), CUB's result, all ready before the call under test.
  In* h_in = ctx.pinned<In>(h_keys_in, n);
  In* d_in = ctx.dev<In>(d_keys_in, in_off + n);
  const guarded<T> out = make_guarded<T>(ctx, d_keys_out, 1, out_off);
  T* d_ref = ctx.dev<T>(d_keys_ref, 1);
  T* h_out = ctx.pinned<T>(h_keys_out, out.total);
  T* h_ref = ctx.pinned<T>(h_keys_ref, 1);
  if (!h_in || !d_in || !out.base || !d_ref || !h_out || !h_ref) {
    res.problems.push_back("test buffers could not be allocated");
    return res;
  }
  fill_values(h_in, n, r, d, lo, hi);
  const In* in = d_in + in_off;
  if (n > 0 && cuda_failed(res, cudaMemcpyAsync(d_in + in_off, h_in, n * sizeof(In), cudaMemcpyHostToDevice, ctx.setup),
                           "upload"))
    return res;
  if (cuda_failed(res, cudaMemsetAsync(out.base, poison, out.total * sizeof(T), ctx.setup), "poison")) return res;

  const auto cop = cub_op<O>();
  std::size_t cub_bytes = 0;
  cudaError_t e = is_sum ? cub::DeviceReduce::Sum(nullptr, cub_bytes, in, d_ref, n, ctx.setup)
                         : cub::DeviceReduce::Reduce(nullptr, cub_bytes, in, d_ref, n, cop, init, ctx.setup);
  if (cuda_failed(res, e, "CUB size query")) return res;
  void* cub_temp = ctx.device[d_cub_temp].get(cub_bytes);
  if (cub_temp == nullptr) {
    res.problems.push_back("CUB's workspace could not be allocated");
    return res;
  }
  e = is_sum ? cub::DeviceReduce::Sum(cub_temp, cub_bytes, in, d_ref, n, ctx.setup)
             : cub::DeviceReduce::Reduce(cub_temp, cub_bytes, in, d_ref, n, cop, init, ctx.setup);
  if (cuda_failed(res, e, "CUB reduce")) return res;

  // The call under test.
  const auto op = gpuprim_op<O>();
  const In* call_in = null_input ? nullptr : in;
  if (w.form == call_form::allocating) {
    if (cuda_failed(res, cudaStreamSynchronize(ctx.setup), "setup")) return res;
    if (is_sum) {
      e = default_stream_argument ? gpuprim::sum(call_in, out.out, n) : gpuprim::sum(call_in, out.out, n, st.stream);
    } else {
      e = default_stream_argument ? gpuprim::reduce(call_in, out.out, n, init, op)
                                  : gpuprim::reduce(call_in, out.out, n, init, op, st.stream);
    }
  } else {
    auto workspace_call = [&](void* temp, std::size_t& bytes) -> cudaError_t {
      if (is_sum) {
        return default_stream_argument ? gpuprim::sum(temp, bytes, call_in, out.out, n)
                                       : gpuprim::sum(temp, bytes, call_in, out.out, n, st.stream);
      }
      return default_stream_argument ? gpuprim::reduce(temp, bytes, call_in, out.out, n, init, op)
                                     : gpuprim::reduce(temp, bytes, call_in, out.out, n, init, op, st.stream);
    };
    if (!call_workspace_form(ctx, w, static_cast<unsigned char>(~poison), res, workspace_call, e)) return res;
  }
  if (cuda_failed(res, e, "gpuprim call")) return res;
  if (cuda_failed(res, ctx.wait(st.stream, res.config), "gpuprim execution")) return res;

  if (cuda_failed(res, cudaMemcpyAsync(h_out, out.base, out.total * sizeof(T), cudaMemcpyDeviceToHost, ctx.setup),
                  "download"))
    return res;
  if (cuda_failed(res, cudaMemcpyAsync(h_ref, d_ref, sizeof(T), cudaMemcpyDeviceToHost, ctx.setup), "download"))
    return res;
  if (cuda_failed(res, cudaStreamSynchronize(ctx.setup), "download")) return res;
  compare_bitwise(res, "result", h_ref, h_out + out.before, 1);
  check_guards(res, "result", h_out, out, 1, poison);
  return res;
}

template <class In, class T>
result reduce_type(context& ctx, rng& r, algorithm a) {
  if (a == algorithm::sum) return reduce_case<In, T, op_kind::plus>(ctx, r, a);
  switch (r.below(3)) {
    case 0: return reduce_case<In, T, op_kind::plus>(ctx, r, a);
    case 1: return reduce_case<In, T, op_kind::minimum>(ctx, r, a);
    default: return reduce_case<In, T, op_kind::maximum>(ctx, r, a);
  }
}

}  // namespace

result run_reduce(context& ctx, rng& r, algorithm a) {
  switch (r.below(6)) {
    case 0: return reduce_type<std::int32_t, std::int32_t>(ctx, r, a);
    case 1: return reduce_type<std::uint32_t, std::uint32_t>(ctx, r, a);
    case 2: return reduce_type<std::int64_t, std::int64_t>(ctx, r, a);
    case 3: return reduce_type<float, float>(ctx, r, a);
    case 4: return reduce_type<double, double>(ctx, r, a);
    default: return reduce_type<std::uint8_t, std::uint32_t>(ctx, r, a);
  }
}

}  // namespace fuzz
