// The reliability tests' catalogue of gpuprim calls (see catalogue.cuh). Host references are
// written here independently of the library: std:: algorithms over the host inputs.
#include "reliability/catalogue.cuh"

#include <gpuprim/radix_sort.cuh>
#include <gpuprim/reduce.cuh>
#include <gpuprim/scan.cuh>

#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>
#include <sstream>

namespace reliability {
namespace {

/// splitmix64: a fast, seedable generator for host inputs.
struct splitmix {
  std::uint64_t s;
  std::uint64_t operator()() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

template <class T>
std::vector<T> as(const std::vector<unsigned char>& bytes) {
  std::vector<T> v(bytes.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), bytes.data(), v.size() * sizeof(T));
  return v;
}

template <class T>
std::vector<unsigned char> bytes_of(const std::vector<T>& v) {
  std::vector<unsigned char> b(v.size() * sizeof(T));
  if (!b.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

template <class T>
std::vector<T> draw(std::size_t n, splitmix& rng, T (*make)(std::uint64_t)) {
  std::vector<T> v(n);
  for (auto& x : v) x = make(rng());
  return v;
}

std::size_t item_bytes_out(algo a) {
  switch (a) {
    case algo::exclusive_sum_i64:
    case algo::inclusive_sum_f64:
    case algo::sort_pairs_desc_u64:
      return 8;
    default:
      return 4;
  }
}

template <class T>
const T* in_as(const device_args& d) {
  return static_cast<const T*>(d.in);
}
template <class T>
T* out_as(const device_args& d) {
  return static_cast<T*>(d.out);
}

// Runs `call(temp, bytes)` in the workspace form or `alloc()` in the allocating form.
template <class WorkspaceCall, class AllocatingCall>
cudaError_t either(form f, void* temp, std::size_t& bytes, WorkspaceCall&& call, AllocatingCall&& alloc) {
  return f == form::workspace ? call(temp, bytes) : alloc();
}

constexpr int pairs_u64_begin_bit = 4;
constexpr int pairs_u64_end_bit = 60;

}  // namespace

const char* name(algo a) {
  static const char* names[algo_count] = {"sum int32",          "reduce max float",   "exclusive_sum int64",
                                          "inclusive_scan max int32", "exclusive_scan plus uint32",
                                          "inclusive_sum double", "radix_sort_keys uint32",
                                          "radix_sort_keys_descending int32", "radix_sort_pairs uint32/uint32",
                                          "radix_sort_pairs_descending uint64/uint32 bits [4,60)"};
  return names[static_cast<int>(a)];
}

buffer_sizes sizes_for(algo a, std::size_t n) {
  buffer_sizes s;
  switch (a) {
    case algo::sum_i32:
    case algo::reduce_max_f32:
      s.in = 4 * n;
      s.out = 4;
      break;
    case algo::exclusive_sum_i64:
    case algo::inclusive_sum_f64:
      s.in = s.out = 8 * n;
      break;
    case algo::inclusive_max_i32:
    case algo::exclusive_scan_u32:
    case algo::sort_keys_u32:
    case algo::sort_keys_desc_i32:
      s.in = s.out = 4 * n;
      break;
    case algo::sort_pairs_u32:
      s.in = s.out = s.values_in = s.values_out = 4 * n;
      break;
    case algo::sort_pairs_desc_u64:
      s.in = s.out = 8 * n;
      s.values_in = s.values_out = 4 * n;
      break;
  }
  return s;
}

job make_job(algo a, std::size_t n, std::uint64_t seed) {
  job j;
  j.a = a;
  j.n = n;
  splitmix rng{seed ^ (0xA5A5ull << 40) ^ (std::uint64_t(a) << 56)};
  std::vector<std::uint32_t> index(n);
  std::iota(index.begin(), index.end(), 0u);
  switch (a) {
    case algo::sum_i32: {
      const auto v = draw<int>(n, rng, [](std::uint64_t r) { return int(r % 2001) - 1000; });
      long long s = 0;
      for (int x : v) s += x;
      j.in = bytes_of(v);
      j.expect = bytes_of(std::vector<int>{static_cast<int>(s)});
      break;
    }
    case algo::reduce_max_f32: {
      const auto v = draw<float>(n, rng, [](std::uint64_t r) { return float(std::int32_t(r)) * 0.001f; });
      float m = -std::numeric_limits<float>::infinity();
      for (float x : v) m = std::max(m, x);
      j.in = bytes_of(v);
      j.expect = bytes_of(std::vector<float>{m});
      break;
    }
    case algo::exclusive_sum_i64: {
      const auto v = draw<long long>(n, rng, [](std::uint64_t r) { return (long long)(r >> 23) - (1ll << 40); });
      std::vector<long long> e(n);
      std::exclusive_scan(v.begin(), v.end(), e.begin(), 0ll);
      j.in = bytes_of(v);
      j.expect = bytes_of(e);
      break;
    }
    case algo::inclusive_max_i32: {
      const auto v = draw<int>(n, rng, [](std::uint64_t r) { return int(std::uint32_t(r)); });
      std::vector<int> e(n);
      std::partial_sum(v.begin(), v.end(), e.begin(), [](int x, int y) { return std::max(x, y); });
      j.in = bytes_of(v);
      j.expect = bytes_of(e);
      break;
    }
    case algo::exclusive_scan_u32: {
      const auto v = draw<std::uint32_t>(n, rng, [](std::uint64_t r) { return std::uint32_t(r >> 7); });
      std::vector<std::uint32_t> e(n);
      std::exclusive_scan(v.begin(), v.end(), e.begin(), std::uint32_t(7));  // wraps in uint32
      j.in = bytes_of(v);
      j.expect = bytes_of(e);
      break;
    }
    case algo::inclusive_sum_f64: {
      const auto v = draw<double>(n, rng, [](std::uint64_t r) { return double(std::int64_t(r % 2000001) - 1000000); });
      std::vector<double> e(n);
      std::partial_sum(v.begin(), v.end(), e.begin());
      j.in = bytes_of(v);
      j.expect = bytes_of(e);
      break;
    }
    case algo::sort_keys_u32: {
      auto v = draw<std::uint32_t>(n, rng, [](std::uint64_t r) { return std::uint32_t(r) & std::uint32_t(r >> 32); });
      j.in = bytes_of(v);
      std::stable_sort(v.begin(), v.end());
      j.expect = bytes_of(v);
      break;
    }
    case algo::sort_keys_desc_i32: {
      auto v = draw<int>(n, rng, [](std::uint64_t r) { return int(std::uint32_t(r)); });
      j.in = bytes_of(v);
      std::stable_sort(v.begin(), v.end(), [](int x, int y) { return x > y; });
      j.expect = bytes_of(v);
      break;
    }
    case algo::sort_pairs_u32: {
      const auto k = draw<std::uint32_t>(n, rng, [](std::uint64_t r) { return std::uint32_t(r & 0xFFFF); });
      std::vector<std::uint32_t> order = index;
      std::stable_sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) { return k[x] < k[y]; });
      std::vector<std::uint32_t> keys(n);
      for (std::size_t i = 0; i < n; ++i) keys[i] = k[order[i]];
      j.in = bytes_of(k);
      j.values_in = bytes_of(index);
      j.expect = bytes_of(keys);
      j.expect_values = bytes_of(order);
      break;
    }
    case algo::sort_pairs_desc_u64: {
      // Few distinct values inside the window [4, 60), random bits outside it: equal window keys
      // differ as full keys, so a sort that looked outside the window would be caught.
      const auto k = draw<std::uint64_t>(n, rng, [](std::uint64_t r) -> std::uint64_t {
        const std::uint64_t window = ((r >> 8) % 61) * 0x0123456789ull;
        return (r & 0xF00000000000000Full) | ((window << 4) & 0x0FFFFFFFFFFFFFF0ull);  // window bits [4, 60)
      });
      auto digit = [](std::uint64_t key) { return (key >> pairs_u64_begin_bit) & ((1ull << 56) - 1); };
      std::vector<std::uint32_t> order = index;
      std::stable_sort(order.begin(), order.end(),
                       [&](std::uint32_t x, std::uint32_t y) { return digit(k[x]) > digit(k[y]); });
      std::vector<std::uint64_t> keys(n);
      for (std::size_t i = 0; i < n; ++i) keys[i] = k[order[i]];
      j.in = bytes_of(k);
      j.values_in = bytes_of(index);
      j.expect = bytes_of(keys);
      j.expect_values = bytes_of(order);
      break;
    }
  }
  return j;
}

cudaError_t run(algo a, form f, void* temp, std::size_t& bytes, const device_args& d, std::size_t n,
                cudaStream_t s) {
  switch (a) {
    case algo::sum_i32:
      return either(
          f, temp, bytes, [&](void* t, std::size_t& b) { return gpuprim::sum(t, b, in_as<int>(d), out_as<int>(d), n, s); },
          [&] { return gpuprim::sum(in_as<int>(d), out_as<int>(d), n, s); });
    case algo::reduce_max_f32: {
      const float init = -std::numeric_limits<float>::infinity();
      return either(
          f, temp, bytes,
          [&](void* t, std::size_t& b) {
            return gpuprim::reduce(t, b, in_as<float>(d), out_as<float>(d), n, init, gpuprim::maximum{}, s);
          },
          [&] { return gpuprim::reduce(in_as<float>(d), out_as<float>(d), n, init, gpuprim::maximum{}, s); });
    }
    case algo::exclusive_sum_i64:
      return either(
          f, temp, bytes,
          [&](void* t, std::size_t& b) {
            return gpuprim::exclusive_sum(t, b, in_as<long long>(d), out_as<long long>(d), n, s);
          },
          [&] { return gpuprim::exclusive_sum(in_as<long long>(d), out_as<long long>(d), n, s); });
    case algo::inclusive_max_i32:
      return either(
          f, temp, bytes,
          [&](void* t, std::size_t& b) {
            return gpuprim::inclusive_scan(t, b, in_as<int>(d), out_as<int>(d), n, gpuprim::maximum{}, s);
          },
          [&] { return gpuprim::inclusive_scan(in_as<int>(d), out_as<int>(d), n, gpuprim::maximum{}, s); });
    case algo::exclusive_scan_u32:
      return either(
          f, temp, bytes,
          [&](void* t, std::size_t& b) {
            return gpuprim::exclusive_scan(t, b, in_as<std::uint32_t>(d), out_as<std::uint32_t>(d), n,
                                           std::uint32_t(7), gpuprim::plus{}, s);
          },
          [&] {
            return gpuprim::exclusive_scan(in_as<std::uint32_t>(d), out_as<std::uint32_t>(d), n, std::uint32_t(7),
                                           gpuprim::plus{}, s);
          });
    case algo::inclusive_sum_f64:
      return either(
          f, temp, bytes,
          [&](void* t, std::size_t& b) {
            return gpuprim::inclusive_sum(t, b, in_as<double>(d), out_as<double>(d), n, s);
          },
          [&] { return gpuprim::inclusive_sum(in_as<double>(d), out_as<double>(d), n, s); });
    case algo::sort_keys_u32:
      return either(
          f, temp, bytes,
          [&](void* t, std::size_t& b) {
            return gpuprim::radix_sort_keys(t, b, in_as<std::uint32_t>(d), out_as<std::uint32_t>(d), n, 0, 32, s);
          },
          [&] { return gpuprim::radix_sort_keys(in_as<std::uint32_t>(d), out_as<std::uint32_t>(d), n, 0, 32, s); });
    case algo::sort_keys_desc_i32:
      return either(
          f, temp, bytes,
          [&](void* t, std::size_t& b) {
            return gpuprim::radix_sort_keys_descending(t, b, in_as<int>(d), out_as<int>(d), n, 0, 32, s);
          },
          [&] { return gpuprim::radix_sort_keys_descending(in_as<int>(d), out_as<int>(d), n, 0, 32, s); });
    case algo::sort_pairs_u32: {
      const auto* vin = static_cast<const std::uint32_t*>(d.values_in);
      auto* vout = static_cast<std::uint32_t*>(d.values_out);
      return either(
          f, temp, bytes,
          [&](void* t, std::size_t& b) {
            return gpuprim::radix_sort_pairs(t, b, in_as<std::uint32_t>(d), out_as<std::uint32_t>(d), vin, vout, n,
                                             0, 32, s);
          },
          [&] {
            return gpuprim::radix_sort_pairs(in_as<std::uint32_t>(d), out_as<std::uint32_t>(d), vin, vout, n, 0, 32,
                                             s);
          });
    }
    case algo::sort_pairs_desc_u64: {
      const auto* vin = static_cast<const std::uint32_t*>(d.values_in);
      auto* vout = static_cast<std::uint32_t*>(d.values_out);
      return either(
          f, temp, bytes,
          [&](void* t, std::size_t& b) {
            return gpuprim::radix_sort_pairs_descending(t, b, in_as<std::uint64_t>(d), out_as<std::uint64_t>(d),
                                                        vin, vout, n, pairs_u64_begin_bit, pairs_u64_end_bit, s);
          },
          [&] {
            return gpuprim::radix_sort_pairs_descending(in_as<std::uint64_t>(d), out_as<std::uint64_t>(d), vin, vout,
                                                        n, pairs_u64_begin_bit, pairs_u64_end_bit, s);
          });
    }
  }
  return cudaErrorInvalidValue;
}

std::size_t workspace_bytes(algo a, std::size_t n) {
  std::size_t bytes = 0;
  const device_args none;
  if (run(a, form::workspace, nullptr, bytes, none, n, 0) != cudaSuccess) return 0;
  return bytes;
}

std::string check(const job& j, const std::vector<unsigned char>& out, const std::vector<unsigned char>& values_out) {
  auto compare = [&](const char* what, const std::vector<unsigned char>& expect, const std::vector<unsigned char>& got,
                     std::size_t item) -> std::string {
    if (got.size() != expect.size()) {
      std::ostringstream m;
      m << what << ": " << got.size() << " bytes, expected " << expect.size();
      return m.str();
    }
    for (std::size_t i = 0; i < expect.size(); i += item) {
      if (std::memcmp(&expect[i], &got[i], item) != 0) {
        std::uint64_t e = 0, g = 0;
        std::memcpy(&e, &expect[i], item);
        std::memcpy(&g, &got[i], item);
        std::ostringstream m;
        m << name(j.a) << ", n = " << j.n << ": " << what << "[" << i / item << "] = 0x" << std::hex << g
          << ", expected 0x" << e;
        return m.str();
      }
    }
    return {};
  };
  std::string m = compare("out", j.expect, out, item_bytes_out(j.a));
  if (m.empty() && !j.expect_values.empty()) m = compare("values_out", j.expect_values, values_out, 4);
  return m;
}

slot::~slot() {
  for (void* p : {static_cast<void*>(in_), static_cast<void*>(values_in_), static_cast<void*>(out_),
                  static_cast<void*>(values_out_), temp_}) {
    if (p != nullptr) (void)cudaFree(p);
  }
}

cudaError_t slot::reserve(std::size_t capacity, std::size_t workspace) {
  const std::size_t bytes = 8 * capacity + guard_bytes;
  for (unsigned char** p : {&in_, &values_in_, &out_, &values_out_}) {
    const cudaError_t e = cudaMalloc(reinterpret_cast<void**>(p), bytes);
    if (e != cudaSuccess) return e;
  }
  capacity_ = capacity;
  temp_bytes_ = workspace;
  return workspace > 0 ? cudaMalloc(&temp_, workspace) : cudaSuccess;
}

device_args slot::args() const { return {in_, values_in_, out_, values_out_}; }

cudaError_t slot::stage(const job& j, cudaStream_t stream) {
  if (j.n > capacity_) return cudaErrorInvalidValue;
  const buffer_sizes s = sizes_for(j.a, j.n);
  cudaError_t e = cudaSuccess;
  if (s.in > 0) e = cudaMemcpyAsync(in_, j.in.data(), s.in, cudaMemcpyHostToDevice, stream);
  if (e == cudaSuccess && s.values_in > 0) {
    e = cudaMemcpyAsync(values_in_, j.values_in.data(), s.values_in, cudaMemcpyHostToDevice, stream);
  }
  if (e == cudaSuccess) e = cudaMemsetAsync(out_, poison_byte, s.out + guard_bytes, stream);
  if (e == cudaSuccess) e = cudaMemsetAsync(values_out_, poison_byte, s.values_out + guard_bytes, stream);
  return e;
}

cudaError_t slot::download(const job& j, cudaStream_t stream, std::vector<unsigned char>& out,
                           std::vector<unsigned char>& values_out) const {
  const buffer_sizes s = sizes_for(j.a, j.n);
  out.assign(s.out + guard_bytes, 0);
  values_out.assign(s.values_out + guard_bytes, 0);
  cudaError_t e = cudaMemcpyAsync(out.data(), out_, out.size(), cudaMemcpyDeviceToHost, stream);
  if (e == cudaSuccess) e = cudaMemcpyAsync(values_out.data(), values_out_, values_out.size(), cudaMemcpyDeviceToHost, stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
  return e;
}

std::string slot::untouched(const job& j, cudaStream_t stream) {
  std::vector<unsigned char> out, values_out;
  const cudaError_t e = download(j, stream, out, values_out);
  if (e != cudaSuccess) return std::string(name(j.a)) + ": " + cudaGetErrorName(e);
  for (const auto* v : {&out, &values_out}) {
    for (unsigned char b : *v) {
      if (b != poison_byte) return std::string(name(j.a)) + ": an output was written";
    }
  }
  return {};
}

std::string slot::verify(const job& j, cudaStream_t stream) {
  const buffer_sizes s = sizes_for(j.a, j.n);
  std::vector<unsigned char> out, values_out;
  const cudaError_t e = download(j, stream, out, values_out);
  if (e != cudaSuccess) return std::string(name(j.a)) + ": " + cudaGetErrorName(e);
  for (const auto* v : {&out, &values_out}) {
    for (std::size_t i = v->size() - guard_bytes; i < v->size(); ++i) {
      if ((*v)[i] != poison_byte) {
        std::ostringstream m;
        m << name(j.a) << ", n = " << j.n << ": wrote past the end of " << (v == &out ? "out" : "values_out");
        return m.str();
      }
    }
  }
  out.resize(s.out);
  values_out.resize(s.values_out);
  return check(j, out, values_out);
}

}  // namespace reliability
