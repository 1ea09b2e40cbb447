// Inputs of the reduce and scan fuzz families: integer-valued items (also for float and double)
// bounded so that every order and grouping of a sum is exact (unsigned sums wrap, exactly), so
// that gpuprim and CUB must agree bitwise; the operators on both sides; and affine maps with their
// composition, a non-commutative operator for the scans.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cuda/functional>
#include <cuda/std/functional>
#include <gpuprim/functional.cuh>
#include <limits>
#include <type_traits>

#include "fuzz/fuzz_common.cuh"

namespace fuzz {

enum class op_kind { plus, minimum, maximum, compose };

inline const char* op_name(op_kind o) {
  switch (o) {
    case op_kind::plus: return "plus";
    case op_kind::minimum: return "minimum";
    case op_kind::maximum: return "maximum";
    default: return "compose (affine maps, not commutative)";
  }
}

/// The map x -> a * x + b (mod 2^32): the items of the non-commutative scans.
struct affine {
  std::uint32_t a, b;
};

/// compose(f, g) = "f, then g": x -> g.a * (f.a * x + f.b) + g.b. Associative, not commutative,
/// exact in integers: a scan with it matches bitwise only if it combines the items in order, as
/// CUB's scans do (they support non-commutative operators).
struct compose_op {
  __host__ __device__ affine operator()(const affine& f, const affine& g) const { return {g.a * f.a, g.a * f.b + g.b}; }
};

/// A random map with an odd factor (compositions of such maps never collapse to constants).
inline affine random_affine(rng& r) {
  const std::uint64_t z = r.next();
  return {static_cast<std::uint32_t>(z) | 1u, static_cast<std::uint32_t>(z >> 32)};
}

/// n maps with distribution d: few distinct, all equal, or (uniform) independent random maps.
inline void fill_affines(affine* out, std::size_t n, rng& r, distribution d) {
  if (d == distribution::few_distinct || d == distribution::all_equal) {
    const affine v[3] = {random_affine(r), random_affine(r), random_affine(r)};
    for (std::size_t i = 0; i < n; ++i) out[i] = v[d == distribution::all_equal ? 0 : r.below(3)];
    return;
  }
  for (std::size_t i = 0; i < n; ++i) out[i] = random_affine(r);
}

template <class T>
const char* type_name() {
  if constexpr (std::is_same_v<T, std::uint8_t>)
    return "uint8";
  else if constexpr (std::is_same_v<T, std::int32_t>)
    return "int32";
  else if constexpr (std::is_same_v<T, std::uint32_t>)
    return "uint32";
  else if constexpr (std::is_same_v<T, std::int64_t>)
    return "int64";
  else if constexpr (std::is_same_v<T, float>)
    return "float";
  else if constexpr (std::is_same_v<T, double>)
    return "double";
  else if constexpr (std::is_same_v<T, affine>)
    return "affine map {uint32 a, b}";
  else
    return "?";
}

/// The range [lo, hi] of items of In for `count` items combined by `op` in Acc: with plus, any
/// partial sum stays exact (floats: below 2^digits; signed: no overflow; uint8 into an unsigned
/// accumulator: also within int, the accumulator of CUB's sums of uint8); with minimum/maximum,
/// a wide range. Unsigned 32-bit sums may wrap: wrapping is exact and order-independent.
template <class In, class Acc>
void value_range(op_kind op, std::size_t count, std::int64_t& lo, std::int64_t& hi) {
  const double c = static_cast<double>(count < 1 ? 1 : count);
  auto clamp = [](double limit, double cap) {
    const double m = std::floor(limit < cap ? limit : cap);
    return static_cast<std::int64_t>(m < 1 ? 1 : m);
  };
  if constexpr (std::is_same_v<In, std::uint8_t>) {
    lo = 0;
    hi = op == op_kind::plus ? clamp(2147483647.0 / c, 255) : 255;
  } else if constexpr (std::is_same_v<In, std::uint32_t>) {
    lo = 0;
    hi = std::numeric_limits<std::uint32_t>::max();
  } else if constexpr (std::is_same_v<In, std::int32_t>) {
    const std::int64_t m = op == op_kind::plus ? clamp(2147483647.0 / c, 1 << 30) : 2147483647;
    lo = -m;
    hi = m;
  } else if constexpr (std::is_same_v<In, std::int64_t>) {
    const std::int64_t m = op == op_kind::plus ? clamp(9.2e18 / c, 0x1p40) : (std::int64_t(1) << 62);
    lo = -m;
    hi = m;
  } else {
    static_assert(std::is_floating_point_v<In>, "value types: uint8, int32, uint32, int64, float, double");
    const double digits = std::numeric_limits<Acc>::digits;
    const std::int64_t m =
        op == op_kind::plus ? clamp(std::ldexp(1.0, int(digits)) / c, 0x1p30) : (std::int64_t(1) << 40);
    lo = -m;
    hi = m;
  }
}

/// n items of In in [lo, hi] with distribution d (no -0.0: floats come from integers).
template <class In>
void fill_values(In* out, std::size_t n, rng& r, distribution d, std::int64_t lo, std::int64_t hi) {
  switch (d) {
    case distribution::few_distinct: {
      const In v[3] = {static_cast<In>(r.between(lo, hi)), static_cast<In>(r.between(lo, hi)),
                       static_cast<In>(r.between(lo, hi))};
      for (std::size_t i = 0; i < n; ++i) out[i] = v[r.below(3)];
      break;
    }
    case distribution::all_equal: {
      const In v = static_cast<In>(r.between(lo, hi));
      for (std::size_t i = 0; i < n; ++i) out[i] = v;
      break;
    }
    case distribution::ascending:
    case distribution::descending: {
      const double span = static_cast<double>(hi) - static_cast<double>(lo);
      for (std::size_t i = 0; i < n; ++i) {
        const double f = n > 1 ? static_cast<double>(i) / static_cast<double>(n - 1) : 0.0;
        const double x = d == distribution::ascending ? f : 1.0 - f;
        // The offset reaches 2^63 over int64's widest range, past what int64 holds: compared in
        // double before it is converted (UBSan found the overflow).
        const double offset = std::floor(x * span);
        std::int64_t v = offset >= span ? hi : lo + static_cast<std::int64_t>(offset);
        if (v > hi) v = hi;
        out[i] = static_cast<In>(v);
      }
      break;
    }
    default:
      for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<In>(r.between(lo, hi));
      break;
  }
}

inline distribution draw_value_distribution(rng& r) {
  static const distribution ds[] = {distribution::uniform,   distribution::uniform,   distribution::few_distinct,
                                    distribution::all_equal, distribution::ascending, distribution::descending};
  return ds[r.below(6)];
}

/// gpuprim's operator for o, and CUB's (from libcu++, independent of gpuprim's).
/// (compose: the test's own functor on both sides.)
template <op_kind O>
auto gpuprim_op() {
  if constexpr (O == op_kind::plus)
    return gpuprim::plus{};
  else if constexpr (O == op_kind::minimum)
    return gpuprim::minimum{};
  else if constexpr (O == op_kind::maximum)
    return gpuprim::maximum{};
  else
    return compose_op{};
}
template <op_kind O>
auto cub_op() {
  if constexpr (O == op_kind::plus)
    return cuda::std::plus<>{};
  else if constexpr (O == op_kind::minimum)
    return cuda::minimum<>{};
  else if constexpr (O == op_kind::maximum)
    return cuda::maximum<>{};
  else
    return compose_op{};
}

}  // namespace fuzz
