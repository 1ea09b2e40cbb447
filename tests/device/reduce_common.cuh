// Shared pieces of the device-wide reduce tests: typed cases, operators, host references, checks.
#pragma once

#include <gpuprim/functional.cuh>
#include <gpuprim/reduce.cuh>

#include "support/catch.hpp"
#include "support/test_util.cuh"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace reduce_test {

using namespace gpuprim_test;

/// One typed case: items of In reduced into an accumulator (and init) of Acc; Bound is the
/// arithmetic type whose range bounds the exact sums of the random data.
template <class In, class Acc, class Bound = Acc>
struct reduce_case {
  using in_t = In;
  using acc_t = Acc;
  using bound_t = Bound;
};

using i8_into_i64 = reduce_case<std::int8_t, std::int64_t>;
using i32 = reduce_case<std::int32_t, std::int32_t>;
using u32 = reduce_case<std::uint32_t, std::uint32_t>;
using i64 = reduce_case<std::int64_t, std::int64_t>;
using f32 = reduce_case<float, float>;
using f64 = reduce_case<double, double>;
using struct12 = reduce_case<triple, triple, int>;

/// A user functor (not gpuprim's): max(|a|, |b|) in the promoted type of a + b. Associative and
/// commutative, differs from plus/min/max, and takes mixed argument types.
struct abs_max {
  template <class A, class B>
  __host__ __device__ auto operator()(const A& a, const B& b) const -> decltype(a + b)
  {
    using R = decltype(a + b);
    R x = a, y = b;
    if constexpr (std::is_signed<R>::value) {
      x = x < 0 ? -x : x;
      y = y < 0 ? -y : y;
    }
    return x < y ? y : x;
  }
};

/// The custom operator of a case: abs_max for arithmetic accumulators, triple_op for the struct.
template <class Acc>
using custom_op_t = std::conditional_t<std::is_same<Acc, triple>::value, triple_op, abs_max>;

// Host references (independent of gpuprim's functors).
struct ref_plus {
  template <class T>
  T operator()(const T& a, const T& b) const { return static_cast<T>(a + b); }
};
struct ref_min {
  template <class T>
  T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};
struct ref_max {
  template <class T>
  T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};

/// Left fold of [first, last) into Acc, every item converted to Acc first.
template <class Acc, class In, class Op>
Acc host_reduce(const In* first, const In* last, Acc init, Op op)
{
  Acc acc = init;
  for (; first != last; ++first) acc = static_cast<Acc>(op(acc, static_cast<Acc>(*first)));
  return acc;
}

template <class Acc>
Acc make_init(long long v)
{
  return value_traits<Acc>::from_int(v);
}

/// Integer-valued random items for case C whose sums in any order are exact.
template <class C>
std::vector<typename C::in_t> exact_items(std::size_t n)
{
  return random_exact_vector<typename C::in_t, typename C::bound_t>(n);
}

/// Runs reduce in the workspace form (size query, then the call) and in the allocating form on
/// stream s, poisoning the output before each, and CHECKs the result against expected.
template <class Acc, class InputIt, class Op>
void check_reduce(InputIt d_in, std::size_t n, Acc init, Op op, const Acc& expected, device_vector<Acc>& d_out,
                  cudaStream_t s = 0)
{
  {
    INFO("workspace form");
    std::size_t bytes = 0;
    REQUIRE_CUDA(gpuprim::reduce(nullptr, bytes, d_in, d_out.data(), n, init, op, s));
    device_vector<unsigned char> temp(std::max<std::size_t>(bytes, 1));
    d_out.poison_unlike(expected);
    REQUIRE_CUDA(gpuprim::reduce(temp.data(), bytes, d_in, d_out.data(), n, init, op, s));
    REQUIRE_CUDA(cudaStreamSynchronize(s));
    CHECK(d_out.download_one() == expected);
  }
  {
    INFO("allocating form");
    d_out.poison_unlike(expected);
    REQUIRE_CUDA(gpuprim::reduce(d_in, d_out.data(), n, init, op, s));
    REQUIRE_CUDA(cudaStreamSynchronize(s));
    CHECK(d_out.download_one() == expected);
  }
}

/// The same for gpuprim::sum (init Acc{}, plus).
template <class Acc, class InputIt>
void check_sum(InputIt d_in, std::size_t n, const Acc& expected, device_vector<Acc>& d_out, cudaStream_t s = 0)
{
  {
    INFO("sum, workspace form");
    std::size_t bytes = 0;
    REQUIRE_CUDA(gpuprim::sum(nullptr, bytes, d_in, d_out.data(), n, s));
    device_vector<unsigned char> temp(std::max<std::size_t>(bytes, 1));
    d_out.poison_unlike(expected);
    REQUIRE_CUDA(gpuprim::sum(temp.data(), bytes, d_in, d_out.data(), n, s));
    REQUIRE_CUDA(cudaStreamSynchronize(s));
    CHECK(d_out.download_one() == expected);
  }
  {
    INFO("sum, allocating form");
    d_out.poison_unlike(expected);
    REQUIRE_CUDA(gpuprim::sum(d_in, d_out.data(), n, s));
    REQUIRE_CUDA(cudaStreamSynchronize(s));
    CHECK(d_out.download_one() == expected);
  }
}

}  // namespace reduce_test
