// Session 55: the device sum at middle sizes, by tile shape. bench_reduce had sum f64 at 2^22
// below CUB in two runs running (0.95x, 0.97x: 18.83 us against 18.19), while 2^20 and 2^24 are
// above it. The default shape for 8-byte items is 256 threads x 8 items (four 16-byte loads a
// thread): at 2^22 that is 2048 tiles for a grid of 1056 blocks (8 an SM), two rounds with 64
// blocks idle in the second. This program times gpuprim::sum with other shapes (the public
// Shape parameter; no library change) beside cub::DeviceReduce::Sum, timed as the benchmark
// times calls (launch timing: events around each call, inputs rotated through copies spanning
// 4x L2), the variants interleaved call by call, after checking every variant's sum once.
// nvcc -std=c++17 -O3 -arch=sm_90 -I include -o build/exp/reduce_mid notes/experiments/reduce_mid.cu
// ./reduce_mid [rounds] (session 55: run once, 3000 rounds, before the library took 512 threads;
// data in notes/data/h200_reduce_mid/; "lib" is the default shape of then, now written out)
#include "check.cuh"
#include <gpuprim/reduce.cuh>
#include <cub/device/device_reduce.cuh>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

template <class T>
struct pool {
  std::size_t n = 0, copies = 0;
  T* data = nullptr;
  long long sum = 0;  // of one copy (every copy is the same)
  explicit pool(std::size_t n_) : n(n_) {
    copies = copies_spanning_4x_l2(n * sizeof(T));
    std::vector<T> h(n);
    for (std::size_t i = 0; i < n; ++i) {
      h[i] = static_cast<T>(static_cast<int>((i * 2654435761u) % 9) - 4);
      sum += static_cast<long long>(h[i]);
    }
    CK(cudaMalloc(&data, copies * n * sizeof(T)));
    for (std::size_t c = 0; c < copies; ++c) CK(cudaMemcpy(data + c * n, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  }
  ~pool() { cudaFree(data); }
  const T* copy(std::size_t i) const { return data + (i % copies) * n; }
};

template <class T>
struct variant {
  std::string name;
  std::function<cudaError_t(void*, std::size_t&, const T*, T*, std::size_t, cudaStream_t)> call;
};

template <class T, class Shape>
variant<T> shaped(const char* name) {
  return {name, [](void* t, std::size_t& b, const T* in, T* out, std::size_t n, cudaStream_t s) {
            return gpuprim::sum<Shape>(t, b, in, out, n, s);
          }};
}

template <class T>
void run_size(std::size_t n, int rounds, const std::vector<variant<T>>& vs, const timing_env& env) {
  pool<T> p(n);
  T* d_out;
  CK(cudaMalloc(&d_out, sizeof(T)));
  std::size_t bytes = 0;
  for (const auto& v : vs) {
    std::size_t b = 0;
    CK(v.call(nullptr, b, p.copy(0), d_out, n, env.s));
    bytes = std::max(bytes, b);
  }
  void* temp;
  CK(cudaMalloc(&temp, bytes + 16));
  for (const auto& v : vs) {
    CK(cudaMemset(d_out, 0x7b, sizeof(T)));
    std::size_t b = bytes;
    CK(v.call(temp, b, p.copy(1), d_out, n, env.s));
    CK(cudaStreamSynchronize(env.s));
    T got;
    CK(cudaMemcpy(&got, d_out, sizeof(T), cudaMemcpyDeviceToHost));
    if (static_cast<long long>(got) != p.sum) {
      std::printf("%s: wrong sum at n = %zu\n", v.name.c_str(), n);
      std::exit(1);
    }
  }
  std::size_t call = 0;
  auto t = interleaved_times(rounds, static_cast<int>(vs.size()), env, [&](int v) {
    std::size_t b = bytes;
    CK(vs[v].call(temp, b, p.copy(++call), d_out, n, env.s));
  });
  const float cub = t.back()[t.back().size() / 2];
  for (std::size_t v = 0; v < vs.size(); ++v) {
    const auto& x = t[v];
    const float med = x[x.size() / 2];
    std::printf("%-4s n=2^%-2d %-10s median %8.2f us  p10 %8.2f  p90 %8.2f  cub/this %.3f\n",
                sizeof(T) == 8 ? "f64" : "i32", __builtin_ctzll(n), vs[v].name.c_str(), med, x[x.size() / 10],
                x[x.size() * 9 / 10], cub / med);
  }
  CK(cudaFree(temp));
  CK(cudaFree(d_out));
}

template <class T>
variant<T> cub_sum() {
  return {"cub", [](void* t, std::size_t& b, const T* in, T* out, std::size_t n, cudaStream_t s) {
            return cub::DeviceReduce::Sum(t, b, in, out, static_cast<int>(n), s);
          }};
}

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 2000;
  timing_env env;
  using gpuprim::shape;
  const std::vector<variant<double>> f64 = {
      shaped<double, shape<256, 8>>("256x8 (lib)"), shaped<double, shape<256, 16>>("256x16"),
      shaped<double, shape<512, 8>>("512x8"), shaped<double, shape<128, 16>>("128x16"),
      shaped<double, shape<256, 32>>("256x32"), cub_sum<double>()};
  const std::vector<variant<int>> i32 = {
      shaped<int, shape<256, 16>>("256x16 (lib)"), shaped<int, shape<256, 32>>("256x32"),
      shaped<int, shape<512, 16>>("512x16"), shaped<int, shape<256, 64>>("256x64"), cub_sum<int>()};
  for (int pass = 0; pass < 2; ++pass) {
    for (int e : {20, 21, 22, 23, 24}) run_size<double>(std::size_t(1) << e, rounds, f64, env);
    for (int e : {21, 22, 23, 24, 25}) run_size<int>(std::size_t(1) << e, rounds, i32, env);
  }
  return 0;
}
