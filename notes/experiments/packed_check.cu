// Session 34: the packed pair passes (onesweep_shape_override 4) against the wide direct tiles (1) and
// CUB: bitwise checks at odd/even sizes, windows, orders, f32 keys, then timings.
#include <cstdio>
#include <gpuprim/radix_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <random>
#include <vector>
#include <algorithm>
#include <functional>
#include <cstring>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1);} } while (0)
static cudaEvent_t e0, e1;
static float time_us(const std::function<void()>& f, int reps) {
  std::vector<float> t;
  f(); CK(cudaDeviceSynchronize());
  for (int r = 0; r < reps; ++r) {
    CK(cudaEventRecord(e0)); f(); CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1));
    float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); t.push_back(ms * 1000);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}
template <class K>
int check(size_t n, int dist, int b, int e, bool desc, int shape, size_t koff, void* t, size_t tb, unsigned* dk, unsigned* dko, unsigned* dv, unsigned* dvo, unsigned* rk, unsigned* rv, std::mt19937& g) {
  std::vector<unsigned> hk(n), hv(n);
  for (size_t i = 0; i < n; ++i) {
    unsigned x = g();
    if (dist == 1) x &= 0xfffff;
    if (dist == 2) x = x % 7 == 0 ? 0x80000000u : (x % 7 == 1 ? 0u : (x % 7 == 2 ? 0x7fc00000u : x));
    hk[i] = x; hv[i] = unsigned(i);
  }
  CK(cudaMemcpy(dk, hk.data(), n * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dv, hv.data(), n * 4, cudaMemcpyHostToDevice));
  const K* kin = reinterpret_cast<const K*>(dk);
  K* kout = reinterpret_cast<K*>(dko + koff);
  unsigned* vout = dvo + koff;
  CK(cudaMemset(dko, 0xab, (n + 2) * 4)); CK(cudaMemset(dvo, 0xcd, (n + 2) * 4));
  gpuprim::detail::onesweep_shape_override.store(shape);
  if (desc) CK(gpuprim::radix_sort_pairs_descending(t, tb, kin, kout, dv, vout, n, b, e));
  else CK(gpuprim::radix_sort_pairs(t, tb, kin, kout, dv, vout, n, b, e));
  gpuprim::detail::onesweep_shape_override.store(-1);
  size_t cb = tb;
  K* rkk = reinterpret_cast<K*>(rk);
  if (desc) CK(cub::DeviceRadixSort::SortPairsDescending(t, cb, kin, rkk, dv, rv, n, b, e));
  else CK(cub::DeviceRadixSort::SortPairs(t, cb, kin, rkk, dv, rv, n, b, e));
  std::vector<unsigned> a1(n), a2(n), b1(n), b2(n);
  CK(cudaMemcpy(a1.data(), dko + koff, n * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(a2.data(), dvo + koff, n * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(b1.data(), rk, n * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(b2.data(), rv, n * 4, cudaMemcpyDeviceToHost));
  std::vector<unsigned> in2(n);
  CK(cudaMemcpy(in2.data(), dk, n * 4, cudaMemcpyDeviceToHost));
  bool ok = a1 == b1 && a2 == b2 && in2 == hk;
  if (!ok) {
    size_t i = 0; while (i < n && a1[i] == b1[i] && a2[i] == b2[i]) ++i;
    printf("MISMATCH %s n %zu dist %d [%d,%d) desc %d shape %d off %zu at %zu: %08x/%u vs %08x/%u\n", sizeof(K) == 4 && std::is_same_v<K, float> ? "f32" : "u32", n, dist, b, e, desc, shape, koff, i, i < n ? a1[i] : 0, i < n ? a2[i] : 0, i < n ? b1[i] : 0, i < n ? b2[i] : 0);
    return 1;
  }
  return 0;
}
int main(int argc, char** argv) {
  CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  const size_t nmax = size_t(1) << 28;
  unsigned *dk, *dko, *dv, *dvo, *rk, *rv;
  CK(cudaMalloc(&dk, nmax * 4)); CK(cudaMalloc(&dko, (nmax + 2) * 4)); CK(cudaMalloc(&dv, nmax * 4)); CK(cudaMalloc(&dvo, (nmax + 2) * 4));
  CK(cudaMalloc(&rk, nmax * 4)); CK(cudaMalloc(&rv, nmax * 4));
  size_t tb = 0, t1 = 0;
  CK(gpuprim::radix_sort_pairs(nullptr, tb, dk, dko, dv, dvo, nmax));
  CK(cub::DeviceRadixSort::SortPairs(nullptr, t1, dk, dko, dv, dvo, nmax)); tb = std::max(tb, t1);
  void* t; CK(cudaMalloc(&t, tb));
  std::mt19937 g(12345);
  int bad = 0, runs = 0;
  const bool quick = argc > 1 && std::string(argv[1]) == "quick";
  for (size_t n : {size_t(131073), size_t(300007), size_t(20 * 12288), size_t(1000001), size_t(4194305), size_t(1) << 24}) {
    for (int dist : {0, 1}) for (int w = 0; w < 3; ++w) for (int desc : {0, 1}) {
      int b = w == 0 ? 0 : (w == 1 ? 8 : 0), e = w == 0 ? 32 : (w == 1 ? 29 : 24);
      bad += check<unsigned>(n, dist, b, e, desc, 4, 0, t, tb, dk, dko, dv, dvo, rk, rv, g); ++runs;
    }
    for (int desc : {0, 1}) { bad += check<float>(n, 2, 0, 32, desc, 4, 0, t, tb, dk, dko, dv, dvo, rk, rv, g); ++runs; }
    bad += check<unsigned>(n, 0, 0, 32, 0, 4, 1, t, tb, dk, dko, dv, dvo, rk, rv, g); ++runs;  // misaligned: not packed
    bad += check<unsigned>(n, 0, 0, 32, 1, 1, 0, t, tb, dk, dko, dv, dvo, rk, rv, g); ++runs;  // wide direct
  }
  for (int desc : {0, 1}) { bad += check<unsigned>(nmax, 0, 0, 32, desc, -1, 0, t, tb, dk, dko, dv, dvo, rk, rv, g); ++runs; }
  bad += check<float>(nmax - 1, 2, 0, 32, 0, -1, 0, t, tb, dk, dko, dv, dvo, rk, rv, g); ++runs;
  bad += check<unsigned>(nmax - 3, 1, 0, 32, 1, -1, 0, t, tb, dk, dko, dv, dvo, rk, rv, g); ++runs;
  printf("checks: %d of %d bad\n", bad, runs);
  // timings: uniform u32/u32
  std::vector<unsigned> h(nmax);
  for (auto& x : h) x = g();
  CK(cudaMemcpy(dk, h.data(), nmax * 4, cudaMemcpyHostToDevice));
  for (auto& x : h) x = g();
  CK(cudaMemcpy(dv, h.data(), nmax * 4, cudaMemcpyHostToDevice));
  for (int round = 0; round < 2; ++round) {
    for (size_t n : {size_t(1) << 24, size_t(1) << 26, size_t(1) << 28}) {
      auto run = [&](int shape) { return [&, shape] { gpuprim::detail::onesweep_shape_override.store(shape); CK(gpuprim::radix_sort_pairs(t, tb, dk, dko, dv, dvo, n)); gpuprim::detail::onesweep_shape_override.store(-1); }; };
      auto cubint = [&] { size_t b = tb; CK(cub::DeviceRadixSort::SortPairs(t, b, dk, dko, dv, dvo, int(n))); };
      float wide = time_us(run(1), 9), packed = time_us(run(4), 9), c = time_us(cubint, 9), def = time_us(run(-1), 9);
      printf("n 2^%d: wide %.1f packed %.1f default %.1f cub(int) %.1f | packed/wide %.3f  cub/packed %.3f cub/wide %.3f\n", __builtin_ctzll(n), wide, packed, def, c, packed / wide, c / packed, c / wide);
    }
  }
  return bad != 0;
}
