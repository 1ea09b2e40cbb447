// In-process A/B: gpuprima (HEAD), gpuprimb (working tree) and CUB on the same inputs, CUDA events,
// medians over rounds; every case checked bitwise against CUB first.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cub/cub.cuh>
#include <gpuprima/radix_sort.cuh>
#include <gpuprimb/radix_sort.cuh>
#include <random>
#include <string>
#include <vector>
#define CK(x)                                                           \
  do {                                                                  \
    cudaError_t e_ = (x);                                               \
    if (e_ != cudaSuccess) {                                            \
      printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      exit(1);                                                          \
    }                                                                   \
  } while (0)

struct Bufs {
  unsigned *k, *ko, *v, *vo;
  void* t;
  size_t tb;
};

template <class F>
float time_it(F f) {
  static cudaEvent_t e0, e1;
  static bool init = false;
  if (!init) {
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    init = true;
  }
  CK(cudaEventRecord(e0));
  f();
  CK(cudaEventRecord(e1));
  CK(cudaEventSynchronize(e1));
  float ms;
  CK(cudaEventElapsedTime(&ms, e0, e1));
  return ms * 1000;
}
static float med(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// CUB's output, then A's and B's into poisoned outputs: bit 0 set where A differs, bit 1 where B.
template <class RA, class RB, class RC>
int check_against_cub(RA runA, RB runB, RC runC, Bufs& b, size_t n, size_t kb, bool pairs, std::vector<unsigned>& ck,
                      std::vector<unsigned>& cv, std::vector<unsigned>& gk, std::vector<unsigned>& gv) {
  runC();
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(ck.data(), b.ko, n * kb, cudaMemcpyDeviceToHost));
  if (pairs) CK(cudaMemcpy(cv.data(), b.vo, n * 4, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int which = 0; which < 2; ++which) {
    CK(cudaMemset(b.ko, 0xab, n * kb));
    CK(cudaMemset(b.vo, 0xab, n * 4));
    which == 0 ? runA() : runB();
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(gk.data(), b.ko, n * kb, cudaMemcpyDeviceToHost));
    if (pairs) CK(cudaMemcpy(gv.data(), b.vo, n * 4, cudaMemcpyDeviceToHost));
    if (memcmp(gk.data(), ck.data(), n * kb) || (pairs && memcmp(gv.data(), cv.data(), n * 4))) bad |= 1 << which;
  }
  return bad;
}

/// Session 38: signed keys (5 i32 keys, 6 i32/u32 pairs, 7 i64/u32 pairs) on the input bits.
template <class K, bool Pairs>
void run_signed_as(const char* name, size_t n, int rounds, Bufs& b, std::vector<unsigned>& ck, std::vector<unsigned>& cv,
                   std::vector<unsigned>& gk, std::vector<unsigned>& gv) {
  K* k = reinterpret_cast<K*>(b.k);
  K* ko = reinterpret_cast<K*>(b.ko);
  const size_t kb = sizeof(K);
  auto runA = [&] {
    if constexpr (Pairs) CK(gpuprima::radix_sort_pairs(b.t, b.tb, k, ko, b.v, b.vo, n));
    else CK(gpuprima::radix_sort_keys(b.t, b.tb, k, ko, n));
  };
  auto runB = [&] {
    if constexpr (Pairs) CK(gpuprimb::radix_sort_pairs(b.t, b.tb, k, ko, b.v, b.vo, n));
    else CK(gpuprimb::radix_sort_keys(b.t, b.tb, k, ko, n));
  };
  auto runC = [&] {
    size_t tbb = b.tb;
    if constexpr (Pairs) CK(cub::DeviceRadixSort::SortPairs(b.t, tbb, k, ko, b.v, b.vo, int(n)));
    else CK(cub::DeviceRadixSort::SortKeys(b.t, tbb, k, ko, int(n)));
  };
  const int bad = check_against_cub(runA, runB, runC, b, n, kb, Pairs, ck, cv, gk, gv);
  std::vector<float> ta, tb2, tc;
  for (int r = 0; r < rounds; ++r) {
    for (int q = 0; q < 3; ++q) {
      int w = (q + r) % 3;
      if (w == 0) ta.push_back(time_it(runA));
      else if (w == 1) tb2.push_back(time_it(runB));
      else tc.push_back(time_it(runC));
    }
  }
  float A = med(ta), B = med(tb2), C = med(tc);
  printf("%-7s uniform n=%10zu A %9.1f B %9.1f CUB %9.1f  B/A %.3f  CUB/A %.3f CUB/B %.3f %s\n", name, n, A, B, C, B / A,
         C / A, C / B, bad ? (bad == 1 ? "A-MISMATCH" : bad == 2 ? "B-MISMATCH" : "AB-MISMATCH") : "ok");
}
void run_signed(int kind, size_t n, int rounds, Bufs& b, std::vector<unsigned>& ck, std::vector<unsigned>& cv,
                std::vector<unsigned>& gk, std::vector<unsigned>& gv) {
  if (kind == 5) run_signed_as<int, false>("i32", n, rounds, b, ck, cv, gk, gv);
  if (kind == 6) run_signed_as<int, true>("i32/u32", n, rounds, b, ck, cv, gk, gv);
  if (kind == 7) run_signed_as<long long, true>("i64/u32", n, rounds, b, ck, cv, gk, gv);
}

int main(int argc, char** argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 7;
  std::string mode = argc > 2 ? argv[2] : "big";
  std::vector<size_t> sizes;
  if (mode == "big")
    sizes = {size_t(1) << 21, 3000017,         size_t(1) << 22, 6000011,        size_t(1) << 23,
             12000007,        size_t(1) << 24, size_t(1) << 26, size_t(1) << 28};
  else if (mode == "small")
    sizes = {1024, 6144, 8192, 12288, 16384};
  else if (mode == "tiny")
    sizes = {256, 1024, 2048, 3001, 4096, 6143};
  else if (mode == "mid")  // the fused kernel's sizes and one-wave passes: every kind, uniform
    sizes = {20000, 65536, 131072, size_t(1) << 18, size_t(1) << 19};
  else if (mode == "midpairs")  // session 35: u32/u32 and u64/u32 pairs, fused and one-wave sizes
    sizes = {20000, 65536, 131072, size_t(1) << 18, size_t(1) << 19, size_t(1) << 20, size_t(1) << 21, 3000017};
  else if (mode == "bigp64")  // session 35: u64/u32 pairs, early-scatter sizes
    sizes = {size_t(1) << 21, 3000017, size_t(1) << 22, size_t(1) << 23, size_t(1) << 24, size_t(1) << 26};
  else if (mode == "keysbig")  // keys only: u32 (uniform, below 2^20), f32 and u64 (uniform)
    sizes = {size_t(1) << 22, size_t(1) << 24, size_t(1) << 26, size_t(1) << 28};
  else if (mode == "signed")  // session 38: int32 keys, int32/u32 and int64/u32 pairs (u32 keys and pairs as controls)
    sizes = {size_t(1) << 18, size_t(1) << 20, size_t(1) << 21, 3000017, size_t(1) << 22, size_t(1) << 24,
             size_t(1) << 26, size_t(1) << 28};
  else if (mode == "onewave")  // session 38: one-wave sizes past the fused kernel, u32 keys, f32 keys, u32/u32 pairs
    sizes = {150001, 200003, size_t(1) << 18, 350003, 450003, 600011, 800011, size_t(1) << 20};
  else if (mode == "zeros")  // session 37: f32 keys, random bits without zeros, with one -0.0, with both zeros
    sizes = {size_t(1) << 22, size_t(1) << 24, size_t(1) << 26, size_t(1) << 28};
  else
    sizes = {size_t(1) << 26};
  size_t nmax = *std::max_element(sizes.begin(), sizes.end());
  Bufs b{};
  CK(cudaMalloc(&b.k, nmax * 8));  // 8 bytes a key: room for u64 keys
  CK(cudaMalloc(&b.ko, nmax * 8));
  CK(cudaMalloc(&b.v, nmax * 4));
  CK(cudaMalloc(&b.vo, nmax * 4));
  size_t tb = 0, x = 0;
  CK(gpuprima::radix_sort_pairs(nullptr, x, b.k, b.ko, b.v, b.vo, nmax));
  tb = std::max(tb, x);
  CK(gpuprimb::radix_sort_pairs(nullptr, x, b.k, b.ko, b.v, b.vo, nmax));
  tb = std::max(tb, x);
  CK(cub::DeviceRadixSort::SortPairs(nullptr, x, b.k, b.ko, b.v, b.vo, int(nmax)));
  tb = std::max(tb, x);
  CK(cub::DeviceRadixSort::SortKeys(nullptr, x, b.k, b.ko, int(nmax)));
  tb = std::max(tb, x);
  {
    auto* wk = reinterpret_cast<unsigned long long*>(b.k);
    CK(cub::DeviceRadixSort::SortPairs(nullptr, x, wk, wk, b.v, b.vo, int(nmax)));
    tb = std::max(tb, x);
    CK(gpuprima::radix_sort_pairs(nullptr, x, wk, wk, b.v, b.vo, nmax));
    tb = std::max(tb, x);
    CK(gpuprimb::radix_sort_pairs(nullptr, x, wk, wk, b.v, b.vo, nmax));
    tb = std::max(tb, x);
    CK(cub::DeviceRadixSort::SortKeys(nullptr, x, wk, wk, int(nmax)));
    tb = std::max(tb, x);
    CK(gpuprima::radix_sort_keys(nullptr, x, wk, wk, nmax));
    tb = std::max(tb, x);
    CK(gpuprimb::radix_sort_keys(nullptr, x, wk, wk, nmax));
    tb = std::max(tb, x);
  }
  {
    auto* ik = reinterpret_cast<long long*>(b.k);
    CK(gpuprima::radix_sort_pairs(nullptr, x, ik, ik, b.v, b.vo, nmax));
    tb = std::max(tb, x);
    CK(gpuprimb::radix_sort_pairs(nullptr, x, ik, ik, b.v, b.vo, nmax));
    tb = std::max(tb, x);
    CK(cub::DeviceRadixSort::SortPairs(nullptr, x, ik, ik, b.v, b.vo, int(nmax)));
    tb = std::max(tb, x);
  }
  CK(cudaMalloc(&b.t, tb));
  b.tb = tb;
  std::vector<unsigned> hk(2 * nmax), hv(nmax), ck(2 * nmax), cv(nmax), gk(2 * nmax), gv(nmax);
  std::mt19937 g(12345);
  std::vector<const char*> dists = {"uniform", "bits20"};
  if (mode == "small") dists = {"uniform", "and2", "and3", "bits20"};
  if (mode == "tiny" || mode == "mid" || mode == "midpairs" || mode == "bigp64" || mode == "signed" ||
      mode == "onewave")
    dists = {"uniform"};
  if (mode == "zeros") dists = {"nozero", "negzero", "bothzero"};
  for (const char* dist : dists) {
    for (auto& y : hk) y = g();
    if (!strcmp(dist, "bits20"))
      for (auto& y : hk) y &= (1u << 20) - 1;
    if (!strcmp(dist, "and2") || !strcmp(dist, "and3"))
      for (auto& y : hk) y &= g();
    if (!strcmp(dist, "and3"))
      for (auto& y : hk) y &= g();
    if (mode == "zeros") {  // float bits: no zero but those placed below every size
      for (auto& y : hk)
        if ((y & 0x7fffffffu) == 0) y |= 1;
      if (strcmp(dist, "nozero")) hk[12345] = 0x80000000u;  // -0.0
      if (!strcmp(dist, "bothzero")) hk[777] = 0;           // +0.0
    }
    for (size_t i = 0; i < nmax; ++i) hv[i] = unsigned(i);
    CK(cudaMemcpy(b.k, hk.data(), nmax * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(b.v, hv.data(), nmax * 4, cudaMemcpyHostToDevice));
    for (size_t n : sizes) {
      // 0 pairs, 1 keys, 2 f32 keys, 3 u64 keys, 4 u64/u32 pairs, 5 i32 keys, 6 i32/u32 pairs, 7 i64/u32 pairs
      for (int kind = 0; kind < 8; ++kind) {
        if ((kind >= 5) != (mode == "signed") && !(mode == "signed" && kind <= 1)) continue;
        if (mode == "signed") {
          if (kind >= 5) {
            run_signed(kind, n, rounds, b, ck, cv, gk, gv);
          }
          if (kind >= 2) continue;
        }
        if (kind == 4 && mode != "midpairs" && mode != "bigp64") continue;
        if (mode == "midpairs" && kind != 0 && kind != 4) continue;
        if (mode == "bigp64" && kind != 4) continue;
        const bool few = mode == "small" || mode == "tiny" || mode == "mid" || mode == "onewave";
        if (mode == "onewave" && kind == 3) continue;
        const bool keys_only = mode == "keysbig" || mode == "zeros";
        if (mode == "zeros" && kind != 2) continue;
        if (keys_only && kind == 0) continue;
        if (!few && !keys_only && kind == 1 && strcmp(dist, "uniform")) continue;
        if (kind >= 2 && kind != 4 && (!(few || keys_only) || (strcmp(dist, "uniform") && mode != "zeros"))) continue;
        float* fk = reinterpret_cast<float*>(b.k);
        float* fko = reinterpret_cast<float*>(b.ko);
        auto* wk = reinterpret_cast<unsigned long long*>(b.k);
        auto* wko = reinterpret_cast<unsigned long long*>(b.ko);
        const size_t kb = kind >= 3 ? 8 : 4;  // bytes a key
        auto runA = [&] {
          CK(kind == 4   ? gpuprima::radix_sort_pairs(b.t, b.tb, wk, wko, b.v, b.vo, n)
             : kind == 0 ? gpuprima::radix_sort_pairs(b.t, b.tb, b.k, b.ko, b.v, b.vo, n)
             : kind == 1 ? gpuprima::radix_sort_keys(b.t, b.tb, b.k, b.ko, n)
             : kind == 2 ? gpuprima::radix_sort_keys(b.t, b.tb, fk, fko, n)
                         : gpuprima::radix_sort_keys(b.t, b.tb, wk, wko, n));
        };
        auto runB = [&] {
          CK(kind == 4   ? gpuprimb::radix_sort_pairs(b.t, b.tb, wk, wko, b.v, b.vo, n)
             : kind == 0 ? gpuprimb::radix_sort_pairs(b.t, b.tb, b.k, b.ko, b.v, b.vo, n)
             : kind == 1 ? gpuprimb::radix_sort_keys(b.t, b.tb, b.k, b.ko, n)
             : kind == 2 ? gpuprimb::radix_sort_keys(b.t, b.tb, fk, fko, n)
                         : gpuprimb::radix_sort_keys(b.t, b.tb, wk, wko, n));
        };
        auto runC = [&] {
          size_t tbb = b.tb;
          CK(kind == 4   ? cub::DeviceRadixSort::SortPairs(b.t, tbb, wk, wko, b.v, b.vo, int(n))
             : kind == 0 ? cub::DeviceRadixSort::SortPairs(b.t, tbb, b.k, b.ko, b.v, b.vo, int(n))
             : kind == 1 ? cub::DeviceRadixSort::SortKeys(b.t, tbb, b.k, b.ko, int(n))
             : kind == 2 ? cub::DeviceRadixSort::SortKeys(b.t, tbb, fk, fko, int(n))
                         : cub::DeviceRadixSort::SortKeys(b.t, tbb, wk, wko, int(n)));
        };
        // check
        const int bad = check_against_cub(runA, runB, runC, b, n, kb, kind == 0 || kind == 4, ck, cv, gk, gv);
        std::vector<float> ta, tb2, tc;
        for (int r = 0; r < rounds; ++r) {
          int o = r % 3;
          for (int q = 0; q < 3; ++q) {
            int w = (q + o) % 3;
            if (w == 0)
              ta.push_back(time_it(runA));
            else if (w == 1)
              tb2.push_back(time_it(runB));
            else
              tc.push_back(time_it(runC));
          }
        }
        float A = med(ta), B = med(tb2), C = med(tc);
        printf("%-5s %-7s n=%10zu A %9.1f B %9.1f CUB %9.1f  B/A %.3f  CUB/A %.3f CUB/B %.3f %s\n",
               kind == 4 ? "p64" : kind == 3 ? "u64" : kind == 2 ? "f32" : kind ? "keys" : "pairs", dist, n, A, B, C, B / A, C / A, C / B,
               bad ? (bad == 1   ? "A-MISMATCH"
                      : bad == 2 ? "B-MISMATCH"
                                 : "AB-MISMATCH")
                   : "ok");
        fflush(stdout);
      }
    }
  }
  return 0;
}
