// Tests the contract's reproducibility clause for reduce and sum: the same bits for the same input
// at every input alignment and on the grids (resident blocks) that other GPUs would run.
#include "reduce_common.cuh"

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

using namespace reduce_test;

namespace {

/// Grid limits of other GPUs (SMs x blocks of 512 threads an SM): T4, L4, H100 PCIe; and odd ones.
/// Each is capped at what the GPU at hand holds at once (the cooperative launch needs residency).
const std::size_t other_grids[] = {40 * 2, 58 * 3, 114 * 4, 1, 7, 133};

std::vector<std::size_t> float_sizes()
{
  std::vector<std::size_t> sizes = {1, 1000, (std::size_t(1) << 16) + 3, (std::size_t(1) << 20) + 1};
  if (!small_mode()) {
    sizes.push_back((std::size_t(1) << 24) + 7);
    sizes.push_back(std::size_t(1) << 28);
  }
  return sizes;
}

/// Items whose sum depends on its grouping: random signs, mantissas and exponents over a wide range.
template <class T>
std::vector<T> wide_range_items(std::size_t n)
{
  constexpr int max_exp = sizeof(T) == 4 ? 20 : 60;
  std::vector<T> v(n);
  auto& rng = test_rng();
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(-max_exp, max_exp);
  for (auto& x : v) x = static_cast<T>(std::ldexp(rng() & 1 ? mantissa(rng) : -mantissa(rng), exponent(rng)));
  return v;
}

/// reduce through the detail entry on at most `max_grid` blocks (workspace form, output poisoned).
template <class T, class Acc, class Op>
Acc run_on_grid(const T* d_in, std::size_t n, Acc init, Op op, std::size_t max_grid, device_vector<Acc>& d_out,
                const Acc* avoid = nullptr)
{
  std::size_t bytes = 0;
  REQUIRE_CUDA(gpuprim::detail::reduce_on_grid<gpuprim::detail::use_default_shape>(nullptr, bytes, true, d_in,
                                                                                   d_out.data(), n, init, op, 0,
                                                                                   max_grid));
  device_vector<unsigned char> temp(std::max<std::size_t>(bytes, 1));
  if (avoid != nullptr) {
    d_out.poison_unlike(*avoid);
  } else {
    d_out.poison();
  }
  REQUIRE_CUDA(gpuprim::detail::reduce_on_grid<gpuprim::detail::use_default_shape>(temp.data(), bytes, false, d_in,
                                                                                   d_out.data(), n, init, op, 0,
                                                                                   max_grid));
  REQUIRE_CUDA(cudaDeviceSynchronize());
  return d_out.download_one();
}

/// The same input at every element offset (so that the address modulo 16 takes each value its
/// type allows), checked against `expected` through sum, reduce and every grid limit.
template <class T, class Acc, class Op>
void check_everywhere(const std::vector<T>& h, Acc init, Op op, const Acc& expected, bool is_sum)
{
  const std::size_t n = h.size();
  constexpr std::size_t offsets = 16 / sizeof(T);
  device_vector<T> d_buf(n + offsets);
  device_vector<Acc> d_out(1);
  for (std::size_t k = 0; k < offsets; ++k) {
    const T* first = d_buf.data() + k;
    INFO("n = " << n << ", address mod 16 = " << reinterpret_cast<std::uintptr_t>(first) % 16);
    REQUIRE_CUDA(cudaMemcpy(d_buf.data() + k, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    {
      INFO("public reduce, allocating form");
      d_out.poison_unlike(expected);
      REQUIRE_CUDA(gpuprim::reduce(first, d_out.data(), n, init, op));
      REQUIRE_CUDA(cudaDeviceSynchronize());
      CHECK(bitwise_equal(d_out.download_one(), expected));
    }
    if (is_sum) {
      INFO("public sum, allocating form");
      d_out.poison_unlike(expected);
      REQUIRE_CUDA(gpuprim::sum(first, d_out.data(), n));
      REQUIRE_CUDA(cudaDeviceSynchronize());
      CHECK(bitwise_equal(d_out.download_one(), expected));
    }
    for (std::size_t grid : other_grids) {
      INFO("grid limit " << grid);
      CHECK(bitwise_equal(run_on_grid(first, n, init, op, grid, d_out, &expected), expected));
    }
  }
}

}  // namespace

TEMPLATE_TEST_CASE("reduce: float sums give the same bits at every alignment and grid", "[device][reduce][reproducible]",
                   float, double)
{
  using T = TestType;
  bool grouping_matters = false;  // the test's teeth: a serial sum differs for some size
  for (std::size_t n : float_sizes()) {
    INFO("n = " << n);
    const std::vector<T> h = wide_range_items<T>(n);
    device_vector<T> d_in(h);  // cudaMalloc: 256-byte aligned
    device_vector<T> d_out(1);
    const T reference = run_on_grid(d_in.data(), n, T{}, gpuprim::plus{}, gpuprim::detail::device_grid, d_out);
    T serial{};
    long double exact = 0, magnitude = 0;
    for (T x : h) {
      serial = static_cast<T>(serial + x);
      exact += x;
      magnitude += std::fabs(x);
    }
    if (!bitwise_equal(serial, reference)) grouping_matters = true;
    {
      INFO("device " << double(reference) << ", host serial " << double(serial) << ", exact " << double(exact));
      CHECK(std::fabs(double(reference) - double(exact)) <=
            8.0 * std::log2(double(n) + 1) * std::numeric_limits<T>::epsilon() * double(magnitude));
    }
    check_everywhere(h, T{}, gpuprim::plus{}, reference, true);
    {
      INFO("maximum");
      const T largest = *std::max_element(h.begin(), h.end());
      check_everywhere(h, T(-1e30), gpuprim::maximum{}, largest, false);
    }
  }
  CHECK(grouping_matters);
}

TEST_CASE("reduce: byte sums at all 16 alignments and every grid (index arithmetic)", "[device][reduce][reproducible]")
{
  for (std::size_t n : {std::size_t(1), std::size_t(15), std::size_t(17), std::size_t(1000), std::size_t(32767),
                        std::size_t(32769), (std::size_t(1) << 20) + 1, (std::size_t(1) << 24) + 7}) {
    if (small_mode() && n > (std::size_t(1) << 21)) continue;
    const std::vector<std::uint8_t> u = random_vector<std::uint8_t>(n, 0, 255);
    std::vector<char> c(n);
    std::memcpy(c.data(), u.data(), n);
    {
      INFO("uint8_t into uint64_t");
      check_everywhere(u, std::uint64_t(5), gpuprim::plus{}, host_reduce(u.data(), u.data() + n, std::uint64_t(5), ref_plus{}),
                       false);
    }
    {
      INFO("char into long long");
      check_everywhere(c, 0ll, gpuprim::plus{}, host_reduce(c.data(), c.data() + n, 0ll, ref_plus{}), false);
    }
    {
      INFO("uint8_t sum (wraps modulo 256)");
      check_everywhere(u, std::uint8_t(0), gpuprim::plus{}, host_reduce(u.data(), u.data() + n, std::uint8_t(0), ref_plus{}),
                       true);
    }
  }
}
