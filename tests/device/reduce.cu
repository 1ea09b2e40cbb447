// Tests gpuprim::reduce / gpuprim::sum over typed cases: sizes around tile boundaries, every
// operator, both forms, misaligned inputs, n == 0, bad arguments, a reused workspace.
#include "reduce_common.cuh"

#include <vector>

using namespace reduce_test;

namespace {

/// Sizes around plausible tiles (256 x 16 = 4096, 2048, 8192, 16384), a grid of 132 tiles,
/// primes, and 2^24 + 3 (left out in small mode).
std::vector<std::size_t> test_sizes()
{
  std::vector<std::size_t> sizes = {0, 1, 31, 32, 33};
  for (std::size_t tile : {2048u, 4096u, 8192u, 16384u}) {
    sizes.push_back(tile - 1);
    sizes.push_back(tile);
    sizes.push_back(tile + 1);
  }
  sizes.push_back(65521);
  sizes.push_back(132 * 4096 + 1);
  sizes.push_back(1000003);
  if (!small_mode()) sizes.push_back((std::size_t(1) << 24) + 3);
  return sizes;
}

}  // namespace

TEMPLATE_TEST_CASE("reduce: sizes x operators x forms", "[device][reduce]", i8_into_i64, i32, u32, i64, f32, f64,
                   struct12)
{
  using In = typename TestType::in_t;
  using Acc = typename TestType::acc_t;
  device_vector<Acc> d_out(1);
  for (std::size_t n : test_sizes()) {
    INFO("n = " << n);
    const std::vector<In> h = exact_items<TestType>(n);
    device_vector<In> d_in(h);
    const In* first = d_in.data();
    const In* hb = h.data();
    const In* he = h.data() + n;
    const Acc init = make_init<Acc>(3);
    {
      INFO("plus");
      check_reduce(first, n, init, gpuprim::plus{}, host_reduce(hb, he, init, ref_plus{}), d_out);
    }
    {
      INFO("minimum");
      check_reduce(first, n, init, gpuprim::minimum{}, host_reduce(hb, he, init, ref_min{}), d_out);
    }
    {
      INFO("maximum");
      check_reduce(first, n, init, gpuprim::maximum{}, host_reduce(hb, he, init, ref_max{}), d_out);
    }
    {
      INFO("custom functor");
      check_reduce(first, n, init, custom_op_t<Acc>{}, host_reduce(hb, he, init, custom_op_t<Acc>{}), d_out);
    }
    check_sum(first, n, host_reduce(hb, he, Acc{}, ref_plus{}), d_out);
  }
}

TEMPLATE_TEST_CASE("reduce: misaligned input pointers", "[device][reduce][misaligned]", i8_into_i64, i32, u32, i64,
                   f32, f64, struct12)
{
  using In = typename TestType::in_t;
  using Acc = typename TestType::acc_t;
  constexpr std::size_t max_offset = sizeof(In) == 1 ? 15 : 7;  // 1..15 bytes for 1-byte items
  const std::size_t max_n = 100003;
  const std::vector<In> h = exact_items<TestType>(max_n + max_offset);
  device_vector<In> d_in(h);
  device_vector<Acc> d_out(1);
  const Acc init = make_init<Acc>(3);
  for (std::size_t n : {std::size_t(1), std::size_t(33), std::size_t(4097), max_n}) {
    for (std::size_t k = 1; k <= max_offset; ++k) {
      INFO("n = " << n << ", offset " << k << " items");
      const In* hb = h.data() + k;
      const In* first = d_in.data() + k;
      check_sum(first, n, host_reduce(hb, hb + n, Acc{}, ref_plus{}), d_out);
      check_reduce(first, n, init, gpuprim::maximum{},
                   host_reduce(hb, hb + n, init, ref_max{}), d_out);
    }
  }
}

TEMPLATE_TEST_CASE("reduce: n == 0 writes init", "[device][reduce][empty]", i8_into_i64, i32, u32, i64, f32, f64,
                   struct12)
{
  using In = typename TestType::in_t;
  using Acc = typename TestType::acc_t;
  device_vector<In> d_in(16);
  device_vector<Acc> d_out(1);
  const Acc init = make_init<Acc>(7);
  {
    INFO("valid input pointer");
    const In* first = d_in.data();
    check_reduce(first, 0, init, gpuprim::plus{}, init, d_out);
    check_reduce(first, 0, init, gpuprim::maximum{}, init, d_out);
    check_sum(first, 0, Acc{}, d_out);
  }
  {
    INFO("null input pointer");
    const In* first = nullptr;
    check_reduce(first, 0, init, gpuprim::plus{}, init, d_out);
    check_sum(first, 0, Acc{}, d_out);
  }
}

TEMPLATE_TEST_CASE("reduce: bad arguments return cudaErrorInvalidValue and launch nothing",
                   "[device][reduce][errors]", i8_into_i64, i32, u32, i64, f32, f64, struct12)
{
  using In = typename TestType::in_t;
  using Acc = typename TestType::acc_t;
  const std::size_t n = 1000003;  // many blocks for every type: a real workspace is needed
  const std::vector<In> h = exact_items<TestType>(n);
  device_vector<In> d_in(h);
  device_vector<Acc> d_out(1);
  const Acc init = make_init<Acc>(3);
  const Acc expected = host_reduce(h.data(), h.data() + n, init, ref_plus{});
  const In* good_in = d_in.data();
  const In* null_in = nullptr;
  Acc* null_out = nullptr;

  std::size_t bytes = 0;
  REQUIRE_CUDA(gpuprim::reduce(nullptr, bytes, good_in, d_out.data(), n, init, gpuprim::plus{}));
  std::size_t sum_bytes = 0;
  REQUIRE_CUDA(gpuprim::sum(nullptr, sum_bytes, good_in, d_out.data(), n));
  device_vector<unsigned char> temp(std::max<std::size_t>({bytes, sum_bytes, std::size_t(1)}));

  // Each call must fail up front: the poisoned output stays as it was and no error is left behind.
  auto expect_rejected = [&](cudaError_t e, const Acc& poison) {
    CHECK(e == cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaSuccess);
    REQUIRE_CUDA(cudaDeviceSynchronize());
    CHECK(bitwise_equal(d_out.download_one(), poison));
  };

  SECTION("null input with n > 0")
  {
    Acc poison = d_out.poison_unlike(expected);
    std::size_t b = bytes;
    expect_rejected(gpuprim::reduce(temp.data(), b, null_in, d_out.data(), n, init, gpuprim::plus{}), poison);
    expect_rejected(gpuprim::reduce(null_in, d_out.data(), n, init, gpuprim::plus{}), poison);
    b = sum_bytes;
    expect_rejected(gpuprim::sum(temp.data(), b, null_in, d_out.data(), n), poison);
    expect_rejected(gpuprim::sum(null_in, d_out.data(), n), poison);
  }
  SECTION("null output")
  {
    for (std::size_t count : {n, std::size_t(0)}) {
      INFO("n = " << count);
      std::size_t b = bytes;
      CHECK(gpuprim::reduce(temp.data(), b, good_in, null_out, count, init, gpuprim::plus{}) ==
            cudaErrorInvalidValue);
      CHECK(gpuprim::reduce(good_in, null_out, count, init, gpuprim::plus{}) == cudaErrorInvalidValue);
      b = sum_bytes;
      CHECK(gpuprim::sum(temp.data(), b, good_in, null_out, count) == cudaErrorInvalidValue);
      CHECK(gpuprim::sum(good_in, null_out, count) == cudaErrorInvalidValue);
      CHECK(cudaGetLastError() == cudaSuccess);
      REQUIRE_CUDA(cudaDeviceSynchronize());
    }
  }
  SECTION("workspace one byte too small")
  {
    if (bytes == 0 || sum_bytes == 0) {
      WARN("the workspace query returned 0 bytes; nothing can be too small");
    } else {
      Acc poison = d_out.poison_unlike(expected);
      std::size_t b = bytes - 1;
      expect_rejected(gpuprim::reduce(temp.data(), b, good_in, d_out.data(), n, init, gpuprim::plus{}), poison);
      b = sum_bytes - 1;
      expect_rejected(gpuprim::sum(temp.data(), b, good_in, d_out.data(), n), poison);
    }
  }
  // The same arguments, made valid again, still work (nothing sticky).
  check_reduce(good_in, n, init, gpuprim::plus{}, expected, d_out);
}

TEMPLATE_TEST_CASE("reduce: twenty calls through one workspace", "[device][reduce][workspace]", i8_into_i64, i32,
                   f64, struct12)
{
  using In = typename TestType::in_t;
  using Acc = typename TestType::acc_t;
  constexpr int calls = 20;
  const std::size_t n = 100003;
  const std::vector<In> h = exact_items<TestType>(n * calls);
  device_vector<In> d_in(h);
  device_vector<Acc> d_out(calls);
  const Acc init = make_init<Acc>(3);
  std::vector<Acc> expected(calls);
  for (int i = 0; i < calls; ++i) {
    expected[i] = host_reduce(h.data() + i * n, h.data() + (i + 1) * n, init, ref_plus{});
  }

  const In* base = d_in.data();
  std::size_t bytes = 0;
  REQUIRE_CUDA(gpuprim::reduce(nullptr, bytes, base, d_out.data(), n, init, gpuprim::plus{}));
  device_vector<unsigned char> temp(std::max<std::size_t>(bytes, 1));
  d_out.poison();
  scoped_stream s;
  // Queued back to back: each call must be stream-ordered after the previous one's use of temp.
  for (int i = 0; i < calls; ++i) {
    const In* first = base + i * n;
    REQUIRE_CUDA(gpuprim::reduce(temp.data(), bytes, first, d_out.data() + i, n, init, gpuprim::plus{}, s.get()));
  }
  REQUIRE_CUDA(cudaStreamSynchronize(s));
  check_equal_vectors(expected, d_out.download());
}
