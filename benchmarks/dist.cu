// gpuprim::dist on a communicator of one GPU beside the same algorithm on one GPU without NCCL:
// what the dist layer adds (the partial's all-gather and fold, the sort's copies and host wait).
// The runs across several GPUs (weak and strong scaling) need one host thread a rank; they are the
// example's (examples/dist_sort.cu) until a machine of several GPUs is lent (docs/dist.md).
// Names: "dist/<sum|exclusive_sum|inclusive_sum>/<f32|i32>/<gpuprim|dist>/<n>",
//        "dist/radix_sort_keys/u32/<gpuprim|dist>/<n>", "dist/allgather_16B/<ranks>".
#include "bench_common.cuh"

#include <gpuprim/dist.cuh>

namespace gpuprim_bench {
namespace {

enum class side { gpuprim, dist };
enum class algo { sum, exclusive_sum, inclusive_sum, sort };

/// The communicator of GPU 0 alone, made once.
ncclComm_t one_gpu_comm() {
  static ncclComm_t comm = [] {
    ncclComm_t c = nullptr;
    int dev = device().ordinal;
    if (ncclCommInitAll(&c, 1, &dev) != ncclSuccess) c = nullptr;
    return c;
  }();
  return comm;
}

template <algo A, class T, side S>
void bm(benchmark::State& state, std::size_t n) {
  cuda_env env;
  if (!env.init(state)) return;
  const ncclComm_t comm = one_gpu_comm();
  if (comm == nullptr) {
    fail(state, "ncclCommInitAll failed");
    return;
  }
  pool_view<T> pool;
  if (!acquire_pool(state, n, pool)) return;
  device_buffer out, temp;
  GPUPRIM_BENCH_CHECK(state, out.allocate(A == algo::sum ? sizeof(T) : n * sizeof(T)));
  const auto call = [&](void* t, std::size_t& bytes, std::size_t i) -> cudaError_t {
    const T* in = pool.copy(i);
    T* o = out.get<T>();
    const cudaStream_t s = env.stream();
    if constexpr (A == algo::sum) {
      return S == side::dist ? gpuprim::dist::sum(t, bytes, in, o, n, comm, s) : gpuprim::sum(t, bytes, in, o, n, s);
    } else if constexpr (A == algo::exclusive_sum) {
      return S == side::dist ? gpuprim::dist::exclusive_sum(t, bytes, in, o, n, comm, s)
                             : gpuprim::exclusive_sum(t, bytes, in, o, n, s);
    } else if constexpr (A == algo::inclusive_sum) {
      return S == side::dist ? gpuprim::dist::inclusive_sum(t, bytes, in, o, n, comm, s)
                             : gpuprim::inclusive_sum(t, bytes, in, o, n, s);
    } else {
      return S == side::dist ? gpuprim::dist::radix_sort_keys(t, bytes, in, o, n, comm, 0, 32, s)
                             : gpuprim::radix_sort_keys(t, bytes, in, o, n, 0, 32, s);
    }
  };
  std::size_t bytes = 0;
  GPUPRIM_BENCH_CHECK(state, call(nullptr, bytes, 0));
  GPUPRIM_BENCH_CHECK(state, temp.allocate(bytes));
  GPUPRIM_BENCH_CHECK(state, call(temp.get(), bytes, 0));
  GPUPRIM_BENCH_CHECK(state, cudaStreamSynchronize(env.stream()));
  if (!env.timed_loop(state, 1, [&](std::size_t i) { return call(temp.get(), bytes, i); })) return;
  const std::size_t moved = A == algo::sum ? n * sizeof(T) : 2 * n * sizeof(T);
  set_counters(state, n, moved);
  state.counters["workspace_MB"] = benchmark::Counter(double(bytes) / 1e6);
}

/// An all-gather of 16 bytes on the one-GPU communicator: the floor of what dist adds to a reduce.
void bm_allgather(benchmark::State& state) {
  cuda_env env;
  if (!env.init(state)) return;
  const ncclComm_t comm = one_gpu_comm();
  device_buffer buf;
  GPUPRIM_BENCH_CHECK(state, buf.allocate(256));
  const auto run = [&](std::size_t) {
    return gpuprim::dist::from_nccl(ncclAllGather(buf.get(), buf.get(), 16, ncclUint8, comm, env.stream()));
  };
  GPUPRIM_BENCH_CHECK(state, run(0));
  if (!env.timed_loop(state, 1, run)) return;
}

template <algo A, class T>
void add_pair(const std::string& stem, std::size_t n) {
  add(stem + "gpuprim/" + std::to_string(n), [n](benchmark::State& st) { bm<A, T, side::gpuprim>(st, n); });
  add(stem + "dist/" + std::to_string(n), [n](benchmark::State& st) { bm<A, T, side::dist>(st, n); });
}

void register_all() {
  for (int e : {20, 24, 28}) {
    const std::size_t n = std::size_t{1} << e;
    add_pair<algo::sum, float>("dist/sum/f32/", n);
    add_pair<algo::exclusive_sum, int>("dist/exclusive_sum/i32/", n);
    add_pair<algo::inclusive_sum, int>("dist/inclusive_sum/i32/", n);
    add_pair<algo::sort, unsigned>("dist/radix_sort_keys/u32/", n);
  }
  add("dist/allgather_16B/1", bm_allgather);
}

}  // namespace
}  // namespace gpuprim_bench

int main(int argc, char** argv) { return gpuprim_bench::run_main(argc, argv, gpuprim_bench::register_all); }
