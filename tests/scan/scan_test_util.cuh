// Helpers of the scan tests: host reference scans, a non-commutative operator (composition of
// affine maps mod 2^32), device-readable counting/transform iterators and an output iterator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <ostream>
#include <random>
#include <vector>

#include "support/test_util.cuh"

namespace scan_test {

/// x -> a * x + b (mod 2^32).
struct affine {
  std::uint32_t a, b;
};
__host__ __device__ inline bool operator==(const affine& f, const affine& g) { return f.a == g.a && f.b == g.b; }
__host__ __device__ inline bool operator!=(const affine& f, const affine& g) { return !(f == g); }
inline std::ostream& operator<<(std::ostream& os, const affine& f) { return os << "{" << f.a << ", " << f.b << "}"; }

/// compose(f, g) = "f, then g": x -> g.a * (f.a * x + f.b) + g.b. Associative, not commutative.
struct compose {
  __host__ __device__ affine operator()(const affine& f, const affine& g) const { return {g.a * f.a, g.a * f.b + g.b}; }
};

/// The identity map, a natural init for compose.
inline affine affine_identity() { return {1u, 0u}; }

/// Random affine maps with odd `a` (so compositions never collapse to constants).
inline std::vector<affine> random_affines(std::size_t n) {
  std::vector<affine> v(n);
  auto& rng = gpuprim_test::test_rng();
  for (auto& f : v) {
    const std::uint64_t r = rng();
    f = {static_cast<std::uint32_t>(r) | 1u, static_cast<std::uint32_t>(r >> 32)};
  }
  return v;
}

/// out[i] = init op in[0] op ... op in[i - 1], accumulated in Acc, stored as Out.
template <class Out, class Acc, class In, class Op>
std::vector<Out> reference_exclusive(const std::vector<In>& in, Acc init, Op op) {
  std::vector<Out> out(in.size());
  Acc running = init;
  for (std::size_t i = 0; i < in.size(); ++i) {
    out[i] = static_cast<Out>(running);
    running = static_cast<Acc>(op(running, static_cast<Acc>(in[i])));
  }
  return out;
}

/// out[i] = in[0] op ... op in[i], accumulated in Acc, stored as Out.
template <class Out, class Acc, class In, class Op>
std::vector<Out> reference_inclusive(const std::vector<In>& in, Op op) {
  std::vector<Out> out(in.size());
  if (in.empty()) return out;
  Acc running = static_cast<Acc>(in[0]);
  out[0] = static_cast<Out>(running);
  for (std::size_t i = 1; i < in.size(); ++i) {
    running = static_cast<Acc>(op(running, static_cast<Acc>(in[i])));
    out[i] = static_cast<Out>(running);
  }
  return out;
}

/// Host functors with the device semantics (the result cast back to the accumulator).
struct host_plus {
  template <class A, class B>
  A operator()(const A& a, const B& b) const {
    return static_cast<A>(a + b);
  }
};
struct host_max {
  template <class A>
  A operator()(const A& a, const A& b) const {
    return a < b ? b : a;
  }
};
struct host_min {
  template <class A>
  A operator()(const A& a, const A& b) const {
    return b < a ? b : a;
  }
};

/// start, start + step, start + 2 * step, ... (wrapping in T); readable on the device.
template <class T>
struct counting_iterator {
  using value_type = T;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = T;
  using iterator_category = std::random_access_iterator_tag;

  T start;
  T step;

  __host__ __device__ T operator[](std::size_t i) const { return static_cast<T>(start + static_cast<T>(i) * step); }
  __host__ __device__ counting_iterator operator+(std::size_t i) const { return {(*this)[i], step}; }
};

/// f(base[i]) for a device-readable base iterator.
template <class It, class F, class T>
struct transform_iterator {
  using value_type = T;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = T;
  using iterator_category = std::random_access_iterator_tag;

  It base;
  F f;

  __host__ __device__ T operator[](std::size_t i) const { return f(base[i]); }
  __host__ __device__ transform_iterator operator+(std::size_t i) const { return {base + i, f}; }
};

/// x -> (x * 7) % 23 - 11 as int: small values of both signs, from a counting sequence.
struct scramble {
  __host__ __device__ int operator()(long long x) const { return static_cast<int>((x * 7) % 23) - 11; }
};

/// A writable output iterator that is not a raw pointer: item i goes to p[i].
template <class T>
struct pointer_output {
  using value_type = T;
  using difference_type = std::ptrdiff_t;
  using pointer = T*;
  using reference = T&;
  using iterator_category = std::random_access_iterator_tag;

  T* p;

  __host__ __device__ T& operator[](std::size_t i) const { return p[i]; }
  __host__ __device__ pointer_output operator+(std::size_t i) const { return {p + i}; }
};

/// The sizes every device scan is tested at, for a tile of `tile` items.
inline std::vector<std::size_t> test_sizes(std::size_t tile) {
  return {0,        1,        31,       32,          33,           tile - 1, tile,    tile + 1,
          2 * tile, 2 * tile + 17, 1009, 65537,    999983,       17 * tile + 5};
}

}  // namespace scan_test
