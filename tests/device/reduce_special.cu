// Tests gpuprim::reduce beyond raw pointers and one stream: fancy iterators, a device lambda,
// concurrent streams, graph capture, bitwise determinism, a misaligned workspace, n > 2^31.
#include "reduce_common.cuh"
#include "reliability/large_inputs.cuh"

#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cmath>
#include <cstring>
#include <vector>

using namespace reduce_test;

namespace {

struct square_to_i64 {
  __host__ __device__ long long operator()(int x) const { return static_cast<long long>(x) * x; }
};

/// Extended __device__ lambdas live in a plain named function, not in a Catch-generated one.
void run_device_lambda_case();

}  // namespace

TEST_CASE("reduce: counting_iterator input", "[device][reduce][iterators]")
{
  const std::size_t n = 1000003;
  device_vector<long long> d_out(1);
  const long long start = -500000;
  const long long expected_sum = start * (long long)n + (long long)n * ((long long)n - 1) / 2;
  {
    INFO("counting_iterator<long long>, plus");
    thrust::counting_iterator<long long> first(start);
    check_reduce(first, n, 0LL, gpuprim::plus{}, expected_sum, d_out);
    check_sum(first, n, expected_sum, d_out);
  }
  {
    INFO("counting_iterator<int> into a long long accumulator, maximum");
    thrust::counting_iterator<int> first(static_cast<int>(start));
    check_reduce(first, n, -(1LL << 40), gpuprim::maximum{}, start + (long long)n - 1, d_out);
    check_reduce(first, n, 0LL, gpuprim::plus{}, expected_sum, d_out);
  }
}

TEST_CASE("reduce: transform_iterator input", "[device][reduce][iterators]")
{
  const std::size_t n = 65521;
  const std::vector<int> h = random_vector<int>(n, -30000, 30000);
  device_vector<int> d_in(h);
  device_vector<long long> d_out(1);
  long long expected = 5;
  for (int x : h) expected += static_cast<long long>(x) * x;
  {
    INFO("over a device pointer");
    const int* p = d_in.data();
    auto first = thrust::make_transform_iterator(p, square_to_i64{});
    check_reduce(first, n, 5LL, gpuprim::plus{}, expected, d_out);
  }
  {
    INFO("over a counting_iterator");
    auto first = thrust::make_transform_iterator(thrust::counting_iterator<int>(0), square_to_i64{});
    long long e = 0;
    for (std::size_t i = 0; i < n; ++i) e += static_cast<long long>(i) * static_cast<long long>(i);
    check_reduce(first, n, 0LL, gpuprim::plus{}, e, d_out);
  }
}

TEST_CASE("reduce: __device__ lambda operator with trailing return type", "[device][reduce][lambda]")
{
  run_device_lambda_case();
}

namespace {

void run_device_lambda_case()
{
  const std::size_t n = 1000003;
  const std::vector<int> h = random_vector<int>(n, -1000000, 1000000);
  device_vector<int> d_in(h);
  device_vector<long long> d_out(1);
  const int* first = d_in.data();

  auto max_op = [] __device__(long long a, long long b) -> long long { return a < b ? b : a; };
  long long expected = -(1LL << 40);
  for (int x : h) expected = std::max<long long>(expected, x);
  check_reduce(first, n, -(1LL << 40), max_op, expected, d_out);

  // A plain sum lambda: int items reach it through long long parameters.
  auto sum_op = [] __device__(long long a, long long b) -> long long { return a + b; };
  long long s = 11;
  for (int x : h) s += x;
  check_reduce(first, n, 11LL, sum_op, s, d_out);
}

}  // namespace

TEST_CASE("reduce: two streams at once", "[device][reduce][streams]")
{
  const std::size_t n = (std::size_t(1) << 22) + 5;
  const std::vector<float> h1 = random_exact_vector<float>(n);
  const std::vector<float> h2 = random_exact_vector<float>(n);
  device_vector<float> d1(h1), d2(h2);
  device_vector<float> out(4);
  const float e1 = host_reduce(h1.data(), h1.data() + n, 1.0f, ref_plus{});
  const float e2 = host_reduce(h2.data(), h2.data() + n, 2.0f, ref_plus{});
  const float* p1 = d1.data();
  const float* p2 = d2.data();

  scoped_stream s1, s2;
  std::size_t b1 = 0, b2 = 0;
  REQUIRE_CUDA(gpuprim::reduce(nullptr, b1, p1, out.data(), n, 1.0f, gpuprim::plus{}, s1.get()));
  REQUIRE_CUDA(gpuprim::reduce(nullptr, b2, p2, out.data() + 1, n, 2.0f, gpuprim::plus{}, s2.get()));
  device_vector<unsigned char> t1(std::max<std::size_t>(b1, 1)), t2(std::max<std::size_t>(b2, 1));
  out.poison();
  // Workspace form on both streams, then the allocating form on both, with no host sync between.
  REQUIRE_CUDA(gpuprim::reduce(t1.data(), b1, p1, out.data(), n, 1.0f, gpuprim::plus{}, s1.get()));
  REQUIRE_CUDA(gpuprim::reduce(t2.data(), b2, p2, out.data() + 1, n, 2.0f, gpuprim::plus{}, s2.get()));
  REQUIRE_CUDA(gpuprim::reduce(p1, out.data() + 2, n, 1.0f, gpuprim::plus{}, s1.get()));
  REQUIRE_CUDA(gpuprim::reduce(p2, out.data() + 3, n, 2.0f, gpuprim::plus{}, s2.get()));
  REQUIRE_CUDA(cudaStreamSynchronize(s1));
  REQUIRE_CUDA(cudaStreamSynchronize(s2));
  check_equal_vectors(std::vector<float>{e1, e2, e1, e2}, out.download());
}

namespace {

struct graph_guard {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  ~graph_guard()
  {
    if (exec != nullptr) (void)cudaGraphExecDestroy(exec);
    if (graph != nullptr) (void)cudaGraphDestroy(graph);
  }
};

}  // namespace

TEST_CASE("reduce: workspace form captured in a CUDA graph, replayed with new input", "[device][reduce][graph]")
{
  const std::size_t n = 1000003;
  device_vector<int> d_in(n);
  device_vector<long long> d_out(2);
  const int* first = d_in.data();
  scoped_stream s;

  std::size_t b_max = 0, b_sum = 0;
  REQUIRE_CUDA(gpuprim::reduce(nullptr, b_max, first, d_out.data(), n, -(1LL << 40), gpuprim::maximum{}, s.get()));
  REQUIRE_CUDA(gpuprim::sum(nullptr, b_sum, first, d_out.data() + 1, n, s.get()));
  device_vector<unsigned char> temp(std::max<std::size_t>({b_max, b_sum, std::size_t(1)}));

  graph_guard g;
  // No REQUIRE between begin and end: a failure must not leave the stream capturing.
  REQUIRE_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  const cudaError_t e_max =
      gpuprim::reduce(temp.data(), b_max, first, d_out.data(), n, -(1LL << 40), gpuprim::maximum{}, s.get());
  const cudaError_t e_sum = gpuprim::sum(temp.data(), b_sum, first, d_out.data() + 1, n, s.get());
  const cudaError_t e_end = cudaStreamEndCapture(s, &g.graph);
  CHECK(e_max == cudaSuccess);
  CHECK(e_sum == cudaSuccess);
  REQUIRE(e_end == cudaSuccess);
  REQUIRE_CUDA(cudaGraphInstantiate(&g.exec, g.graph, 0));

  for (int replay = 0; replay < 3; ++replay) {
    INFO("replay " << replay);
    const std::vector<int> h = random_vector<int>(n, -1000 * (replay + 1), 1000 * (replay + 1));
    d_in.upload(h);
    d_out.poison();
    long long m = -(1LL << 40), sum = 0;
    for (int x : h) {
      m = std::max<long long>(m, x);
      sum += x;
    }
    REQUIRE_CUDA(cudaGraphLaunch(g.exec, s));
    REQUIRE_CUDA(cudaStreamSynchronize(s));
    check_equal_vectors(std::vector<long long>{m, sum}, d_out.download());
  }
}

TEMPLATE_TEST_CASE("reduce: bitwise deterministic for non-integer floating point", "[device][reduce][determinism]",
                   float, double)
{
  using T = TestType;
  const std::size_t n = small_mode() ? 1000003 : (std::size_t(1) << 22) + 17;
  const std::vector<T> h = random_reals<T>(n, -1.0, 1.0);
  device_vector<T> d_in(h);
  device_vector<T> d_out(1);
  const T* first = d_in.data();

  long double exact = 0, magnitude = 0;
  for (T x : h) {
    exact += x;
    magnitude += std::fabs(x);
  }
  const double tolerance = 8.0 * std::log2(double(n)) * std::numeric_limits<T>::epsilon() * double(magnitude);

  std::size_t bytes = 0;
  REQUIRE_CUDA(gpuprim::sum(nullptr, bytes, first, d_out.data(), n));
  device_vector<unsigned char> temp(std::max<std::size_t>(bytes, 1));

  for (int form = 0; form < 2; ++form) {
    INFO((form == 0 ? "workspace form" : "allocating form"));
    T reference{};
    for (int run = 0; run < 10; ++run) {
      INFO("run " << run);
      d_out.poison();
      std::size_t b = bytes;
      REQUIRE_CUDA(form == 0 ? gpuprim::sum(temp.data(), b, first, d_out.data(), n)
                             : gpuprim::sum(first, d_out.data(), n));
      REQUIRE_CUDA(cudaDeviceSynchronize());
      const T got = d_out.download_one();
      if (run == 0) {
        reference = got;
        INFO("host sum " << double(exact) << ", tolerance " << tolerance);
        CHECK(std::fabs(double(got) - double(exact)) <= tolerance);
      } else {
        CHECK(bitwise_equal(got, reference));
      }
    }
  }
}

TEST_CASE("reduce: misaligned workspace pointer", "[device][reduce][workspace]")
{
  const std::size_t n = 1000003;
  const std::vector<int> h = random_exact_vector<int>(n);
  device_vector<int> d_in(h);
  device_vector<int> d_out(1);
  const int* first = d_in.data();
  const int expected = host_reduce(h.data(), h.data() + n, 0, ref_plus{});
  std::size_t bytes = 0;
  REQUIRE_CUDA(gpuprim::reduce(nullptr, bytes, first, d_out.data(), n, 0, gpuprim::plus{}));
  device_vector<unsigned char> temp(bytes + 256);
  for (std::size_t k : {1, 4, 8, 100, 255}) {
    INFO("workspace offset " << k << " bytes, size exactly the queried " << bytes);
    std::size_t b = bytes;
    d_out.poison_unlike(expected);
    REQUIRE_CUDA(gpuprim::reduce(temp.data() + k, b, first, d_out.data(), n, 0, gpuprim::plus{}));
    REQUIRE_CUDA(cudaDeviceSynchronize());
    CHECK(d_out.download_one() == expected);
  }
}

TEST_CASE("reduce: more than 2^32 items from fancy iterators (no memory)", "[device][reduce][large]")
{
  if (small_mode()) {
    WARN("skipped in small mode (GPUPRIM_TEST_SMALL=1)");
    return;
  }
  const std::size_t n = (std::size_t(1) << 32) + (std::size_t(1) << 20) + 7;
  device_vector<long long> d_out(1);
  {
    INFO("constant_iterator<int8_t>(1), sum into int64");
    thrust::constant_iterator<std::int8_t> ones(1);
    check_reduce(ones, n, 0LL, gpuprim::plus{}, static_cast<long long>(n), d_out);
  }
  {
    INFO("counting_iterator<long long>, maximum is the last item");
    thrust::counting_iterator<long long> first(0);
    check_reduce(first, n, -1LL, gpuprim::maximum{}, static_cast<long long>(n) - 1, d_out);
  }
}

TEST_CASE("reduce: more than 2^31 int8 items in memory into int64", "[device][reduce][large]")
{
  if (small_mode()) {
    WARN("skipped in small mode (GPUPRIM_TEST_SMALL=1)");
    return;
  }
  const std::size_t n = (std::size_t(1) << 31) + (std::size_t(1) << 20) + 7;
  const std::size_t margin = std::size_t(512) << 20;  // workspace and everything else
  if (free_device_memory() < n + margin) {
    GPUPRIM_LARGE_SKIP("skipped: " << free_device_memory() << " bytes free on the device, " << n + margin << " needed");
    return;
  }
  device_vector<std::int8_t> d_in;
  if (!d_in.allocate(n)) {
    GPUPRIM_LARGE_SKIP("skipped: cudaMalloc of " << n << " bytes failed");
    return;
  }

  // Items in [-127, 126] except one 127 and one -128, both beyond 2^31, so that maximum and
  // minimum see them only if every item is read.
  const std::size_t max_pos = n - 3;
  const std::size_t min_pos = (std::size_t(1) << 31) + 12345;
  std::uint64_t state = test_rng()() | 1;
  long long sum = 0;
  std::vector<std::int8_t> chunk(std::size_t(64) << 20);
  for (std::size_t offset = 0; offset < n; offset += chunk.size()) {
    const std::size_t count = std::min(chunk.size(), n - offset);
    for (std::size_t i = 0; i < count; i += 8) {
      state ^= state >> 12;  // xorshift64*
      state ^= state << 25;
      state ^= state >> 27;
      std::uint64_t bits = state * 0x2545F4914F6CDD1DULL;
      for (std::size_t j = i; j < std::min(i + 8, count); ++j, bits >>= 8) {
        chunk[j] = static_cast<std::int8_t>(static_cast<int>(((bits & 0xFF) * 254) >> 8) - 127);
      }
    }
    if (max_pos >= offset && max_pos < offset + count) chunk[max_pos - offset] = 127;
    if (min_pos >= offset && min_pos < offset + count) chunk[min_pos - offset] = -128;
    for (std::size_t j = 0; j < count; ++j) sum += chunk[j];
    d_in.upload(chunk.data(), count, offset);
  }

  const std::int8_t* first = d_in.data();
  device_vector<long long> d_out(1);
  check_sum(first, n, sum, d_out);
  check_reduce(first, n, 5LL, gpuprim::plus{}, sum + 5, d_out);
  check_reduce(first, n, -1000LL, gpuprim::maximum{}, 127LL, d_out);
  check_reduce(first, n, 1000LL, gpuprim::minimum{}, -128LL, d_out);
}
