// ab: the A/B driver: times gpuprim OLD (a git revision's include, renamed gpuprim_old), gpuprim NEW
// (by default the working tree's include at build time, renamed gpuprim_new) and
// cub::DeviceRadixSort in one process, on the rows of benchmarks/radix_sort.cu. Built by
// scripts/ab/build.sh into build/ab/ab. Per case: CUB's output of pool copy 0 (checked sorted, stable for
// pairs), then OLD's and NEW's into poisoned outputs, compared bit for bit (keys, and values for
// pairs); then R rounds, each running every contender once in a shuffled order (std::mt19937),
// events around each single sort; medians reported.
//
// Usage: ab [rounds=15] [filter regex]      (the filter is matched against "<case>/<n>")
// Env:   AB_FILTER   regex on "<case>/<n>" (argv[2] wins), e.g. 'keys/u32/uniform/(1024|4864)$'
//        AB_SIZES    comma-separated sizes replacing the default list
//        AB_MAX_LOG2_64  largest log2 n for u64 keys and u64/u32 pairs (default 28)
//        AB_OUT      CSV path (default ./ab.csv)
//        AB_SEED     seed of the round order (default 63); AB_KEY_SEED seed of the keys (default 0)
//        AB_CUB      both (default: int and size_t counts timed, cub_us = the faster) | int | size_t
//        AB_ROTATE_MIN  key bytes from which inputs rotate through a pool >= 4x L2 (default 0:
//                    every size, as the benchmark does; e.g. 52428800 to rotate only above L2)
//        AB_QUEUED   1: hold the stream with a spin kernel while the sort is queued (the
//                    benchmark's --timing=queued), hiding launch overhead
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <regex>
#include <string>
#include <type_traits>
#include <vector>

#include "iface.h"

static std::string g_current = "setup";  // the case being run, for CK's message

#define CK(x)                                                                                     \
  do {                                                                                            \
    cudaError_t e_ = (x);                                                                         \
    if (e_ != cudaSuccess) {                                                                      \
      std::fprintf(stderr, "%s:%d: %s: %s (during %s)\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_), \
                   g_current.c_str());                                                           \
      std::exit(2);                                                                               \
    }                                                                                             \
  } while (0)

namespace {

enum key_dist { uniform, and2, and3, bits20 };

// ---- inputs: as benchmarks/radix_sort.cu (splitmix64 words of (seed, i), values = positions) ----
__host__ __device__ inline std::uint64_t random_word(std::uint64_t seed, std::uint64_t i, unsigned w) {
  std::uint64_t z = seed + w * 0xD1B54A32D192ED03ull + (i + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

template <class Key>
__device__ Key make_key(std::uint64_t seed, std::uint64_t i, int d) {
  std::uint64_t bits = random_word(seed, i, 0);
  if (d == bits20) return static_cast<Key>(bits >> 44);
  if (d == and2 || d == and3) bits &= random_word(seed, i, 1);
  if (d == and3) bits &= random_word(seed, i, 2);
  if constexpr (std::is_same_v<Key, float>) {
    std::uint32_t u = static_cast<std::uint32_t>(bits >> 32);
    if ((u & 0x7f800000u) == 0x7f800000u) u ^= 0x40000000u;  // finite only
    return __uint_as_float(u);
  } else {
    return static_cast<Key>(bits >> (64 - 8 * sizeof(Key)));
  }
}

template <class Key>
__global__ void fill_keys_kernel(Key* out, std::size_t total, std::size_t n, std::uint64_t seed, int d) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride)
    out[i] = make_key<Key>(seed, i % n, d);
}
__global__ void fill_values_kernel(unsigned* out, std::size_t total, std::size_t n) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride)
    out[i] = unsigned(i % n);
}

// ---- checks on the device: the smallest flagged position through atomicMin ----
__device__ inline std::uint32_t radix_order(std::uint32_t k) { return k; }
__device__ inline std::uint64_t radix_order(std::uint64_t k) { return k; }
__device__ inline std::uint32_t radix_order(float k) {
  std::uint32_t u = __float_as_uint(k);
  if (u == 0x80000000u) u = 0;
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}
template <class Key>
__global__ void flag_unsorted_kernel(const Key* keys, const unsigned* values, std::size_t n,
                                     unsigned long long* first) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x + 1; i < n; i += stride) {
    const auto a = radix_order(keys[i - 1]);
    const auto b = radix_order(keys[i]);
    if (a > b || (values != nullptr && a == b && values[i - 1] >= values[i])) atomicMin(first, i);
  }
}
__global__ void flag_different_kernel(const unsigned* a, const unsigned* b, std::size_t n, unsigned long long* first) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    if (a[i] != b[i]) atomicMin(first, i);
}

__global__ void hold_stream(const volatile int* release, volatile int* gave_up, long long limit) {
  const long long start = clock64();
  while (*release == 0) {
    if (clock64() - start > limit) {
      *gave_up = 1;
      return;
    }
  }
}

struct case_def {
  const char* name;
  int kind;
  int dist;
};
const case_def all_cases[] = {
    {"radix_sort_keys/u32/uniform", K_U32, uniform},          {"radix_sort_keys/u32/and2", K_U32, and2},
    {"radix_sort_keys/u32/and3", K_U32, and3},                {"radix_sort_keys/u32/bits20", K_U32, bits20},
    {"radix_sort_keys/f32/uniform", K_F32, uniform},          {"radix_sort_keys/u64/uniform", K_U64, uniform},
    {"radix_sort_pairs/u32_u32/uniform", P_U32_U32, uniform}, {"radix_sort_pairs/u64_u32/uniform", P_U64_U32, uniform},
};
std::size_t key_bytes(int kind) { return (kind == K_U64 || kind == P_U64_U32) ? 8 : 4; }
bool has_values(int kind) { return kind == P_U32_U32 || kind == P_U64_U32; }

/// A device buffer that only grows (reallocated outside timing).
struct dbuf {
  void* p = nullptr;
  std::size_t bytes = 0;
  void* get(std::size_t b) {
    if (b > bytes) {
      if (p) CK(cudaFree(p));
      p = nullptr;
      bytes = 0;
      CK(cudaMalloc(&p, b));
      bytes = b;
    }
    return p;
  }
};

const char* env_or(const char* k, const char* d) {
  const char* v = std::getenv(k);
  return v && *v ? v : d;
}

std::string csv_field(std::string x) {
  std::replace(x.begin(), x.end(), ',', ';');
  return x;
}

double median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (double(v[m - 1]) + v[m]);
}

enum contender { OLD = 0, NEW = 1, CUB = 2, CUB64 = 3, NCONT = 4 };
const char* cont_name[NCONT] = {"old", "new", "cub", "cub64"};

cudaError_t run_sort(int c, int kind, void* t, std::size_t& b, const void* ki, void* ko, const unsigned* vi,
                     unsigned* vo, std::size_t n, cudaStream_t s) {
  switch (c) {
    case OLD: return ab_old_sort(kind, t, b, ki, ko, vi, vo, n, s);
    case NEW: return ab_new_sort(kind, t, b, ki, ko, vi, vo, n, s);
    case CUB: return ab_cub_sort(false, kind, t, b, ki, ko, vi, vo, n, s);
    default: return ab_cub_sort(true, kind, t, b, ki, ko, vi, vo, n, s);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 15;
  const std::string filter = argc > 2 ? argv[2] : env_or("AB_FILTER", "");
  const std::regex re(filter.empty() ? std::string(".*") : filter, std::regex::ECMAScript);
  const std::string out_path = env_or("AB_OUT", "./ab.csv");
  const unsigned order_seed = unsigned(std::strtoul(env_or("AB_SEED", "63"), nullptr, 0));
  const std::uint64_t key_seed = std::strtoull(env_or("AB_KEY_SEED", "0"), nullptr, 0);
  const int max_log2_64 = std::atoi(env_or("AB_MAX_LOG2_64", "28"));
  const std::string cub_mode = env_or("AB_CUB", "both");
  const std::size_t rotate_min = std::strtoull(env_or("AB_ROTATE_MIN", "0"), nullptr, 0);
  const bool queued = std::atoi(env_or("AB_QUEUED", "0")) != 0;

  std::vector<std::size_t> sizes = {std::size_t(1) << 10, 2048, 4096, 4864, 8192, std::size_t(1) << 14,
                                    std::size_t(1) << 16, std::size_t(1) << 18, std::size_t(1) << 20,
                                    std::size_t(1) << 22, std::size_t(1) << 24, std::size_t(1) << 26,
                                    std::size_t(1) << 28};
  if (const char* s = std::getenv("AB_SIZES"); s && *s) {
    sizes.clear();
    for (const char* p = s; *p;) {
      char* e;
      const unsigned long long v = std::strtoull(p, &e, 0);
      if (e == p) break;
      if (v) sizes.push_back(std::size_t(v));
      p = *e ? e + 1 : e;
    }
  }

  std::vector<int> conts = {OLD, NEW};
  if (cub_mode != "size_t") conts.push_back(CUB);
  if (cub_mode != "int") conts.push_back(CUB64);

  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const std::size_t l2 = std::size_t(prop.l2CacheSize);
  const std::size_t pool_target = 4 * std::max<std::size_t>(l2, std::size_t(50) << 20);
  std::printf("# old: %s\n# new: %s\n", ab_old_info(), ab_new_info());
  std::printf("# ab on %s (%d SMs, L2 %.1f MB), rounds %d, filter '%s', cub %s, order seed %u, %s timing\n",
              prop.name, prop.multiProcessorCount, l2 / 1048576.0, rounds, filter.c_str(), cub_mode.c_str(),
              order_seed, queued ? "queued" : "launch");
  std::printf("%-34s %10s %10s %10s %10s %8s %8s  %s\n", "case", "n", "old_us", "new_us", "cub_us", "new/old",
              "cub/new", "check, cub_int/cub64 us, wall s");
  std::fflush(stdout);

  FILE* csv = std::fopen(out_path.c_str(), "w");
  if (!csv) std::fprintf(stderr, "cannot write %s\n", out_path.c_str());
  if (csv)
    std::fprintf(csv,
                 "case,n,old_us,new_us,cub_us,new_over_old,cub_over_new,cub_int_us,cub64_us,old_min_us,new_min_us,"
                 "rounds,key_copies,check\n");

  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  volatile int* hold = nullptr;
  int* hold_dev = nullptr;
  long long hold_limit = 0;
  if (queued) {
    void* p;
    CK(cudaHostAlloc(&p, 2 * sizeof(int), cudaHostAllocMapped));
    hold = static_cast<volatile int*>(p);
    void* d;
    CK(cudaHostGetDevicePointer(&d, p, 0));
    hold_dev = static_cast<int*>(d);
    int khz = 0;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0) != cudaSuccess || khz <= 0) khz = 1980000;
    hold_limit = 2000LL * khz;
  }
  unsigned long long* d_first;
  CK(cudaMalloc(&d_first, sizeof *d_first));
  const int fill_blocks = prop.multiProcessorCount * 8;

  dbuf pool_k, pool_v, out_k, out_v, ref_k, ref_v, temp;
  std::mt19937 order_rng(order_seed);
  std::vector<double> ratios;
  double worst = 0;
  std::string worst_row;
  int fails = 0, rows = 0;

  // The smallest position where words differ (n_words when none).
  auto first_diff = [&](const void* a, const void* b, std::size_t n_words) {
    CK(cudaMemsetAsync(d_first, 0xff, sizeof *d_first, s));
    flag_different_kernel<<<fill_blocks, 256, 0, s>>>(static_cast<const unsigned*>(a), static_cast<const unsigned*>(b),
                                                      n_words, d_first);
    CK(cudaGetLastError());
    unsigned long long f;
    CK(cudaMemcpyAsync(&f, d_first, sizeof f, cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    return f == ~0ull ? n_words : std::size_t(f);
  };

  for (const case_def& cd : all_cases) {
    for (const std::size_t n : sizes) {
      const std::string row = std::string(cd.name) + "/" + std::to_string(n);
      if (!std::regex_search(row, re)) continue;
      const std::size_t kb = key_bytes(cd.kind);
      const bool pairs = has_values(cd.kind);
      if (kb == 8 && max_log2_64 < 63 && n > (std::size_t(1) << max_log2_64)) continue;
      const auto t_case = std::chrono::steady_clock::now();
      g_current = row;

      // Pools of identical copies, laid end to end; sort number i reads copy i % copies.
      auto copies_for = [&](std::size_t bytes) -> std::size_t {
        if (bytes < rotate_min || bytes >= pool_target) return 1;
        return (pool_target + bytes - 1) / bytes;
      };
      const std::size_t kcopies = copies_for(n * kb), vcopies = pairs ? copies_for(n * 4) : 0;
      std::size_t need = (kcopies + 2) * n * kb + (pairs ? (vcopies + 2) * n * 4 : 0);
      {
        std::size_t fr, tot;
        CK(cudaMemGetInfo(&fr, &tot));
        const std::size_t held = pool_k.bytes + pool_v.bytes + out_k.bytes + out_v.bytes + ref_k.bytes + ref_v.bytes;
        if (need + 3 * n * (kb + 4) + (std::size_t(1) << 30) > fr + held) {
          std::printf("%-34s %10zu SKIP: needs %.2f GiB, %.2f GiB free\n", cd.name, n, need / 1073741824.0,
                      fr / 1073741824.0);
          continue;
        }
      }
      char* pk = static_cast<char*>(pool_k.get(kcopies * n * kb));
      unsigned* pv = pairs ? static_cast<unsigned*>(pool_v.get(vcopies * n * 4)) : nullptr;
      void* ko = out_k.get(n * kb);
      unsigned* vo = static_cast<unsigned*>(out_v.get(n * 4));
      void* rk = ref_k.get(n * kb);
      unsigned* rv = static_cast<unsigned*>(ref_v.get(n * 4));
      switch (cd.kind) {
        case K_F32:
          fill_keys_kernel<float><<<fill_blocks, 256, 0, s>>>(reinterpret_cast<float*>(pk), kcopies * n, n, key_seed,
                                                               cd.dist);
          break;
        case K_U64:
        case P_U64_U32:
          fill_keys_kernel<std::uint64_t><<<fill_blocks, 256, 0, s>>>(reinterpret_cast<std::uint64_t*>(pk),
                                                                       kcopies * n, n, key_seed, cd.dist);
          break;
        default:
          fill_keys_kernel<std::uint32_t><<<fill_blocks, 256, 0, s>>>(reinterpret_cast<std::uint32_t*>(pk),
                                                                       kcopies * n, n, key_seed, cd.dist);
      }
      CK(cudaGetLastError());
      if (pairs) {
        fill_values_kernel<<<fill_blocks, 256, 0, s>>>(pv, vcopies * n, n);
        CK(cudaGetLastError());
      }
      auto kin = [&](std::size_t i) -> const void* { return pk + (i % kcopies) * n * kb; };
      auto vin = [&](std::size_t i) -> const unsigned* { return pairs ? pv + (i % vcopies) * n : nullptr; };
      unsigned* vout = pairs ? vo : nullptr;
      unsigned* rvout = pairs ? rv : nullptr;

      // Workspaces: each contender's size query; one shared buffer of the largest (grown here, untimed).
      std::size_t tbytes[NCONT] = {};
      std::string check;
      for (int c = 0; c < NCONT; ++c) {
        // CUB64 is always queried: it is the reference. CUB (int count) only when timed.
        if (c == CUB && (std::find(conts.begin(), conts.end(), c) == conts.end() || n > std::size_t(INT32_MAX)))
          continue;
        cudaError_t e = run_sort(c, cd.kind, nullptr, tbytes[c], kin(0), ko, vin(0), vout, n, s);
        if (e != cudaSuccess) {
          check += std::string(" ") + cont_name[c] + "-size-query:" + cudaGetErrorString(e);
          tbytes[c] = 0;
        }
      }
      void* t = temp.get(std::max({tbytes[0], tbytes[1], tbytes[2], tbytes[3], std::size_t(1)}));
      CK(cudaStreamSynchronize(s));

      // Reference: CUB with a size_t count (any n) into ref, checked sorted (stable for pairs).
      bool ok = check.empty();
      {
        std::size_t b = tbytes[CUB64];
        cudaError_t e = run_sort(CUB64, cd.kind, t, b, kin(0), rk, vin(0), rvout, n, s);
        if (e != cudaSuccess) {
          check += std::string(" cub-ref:") + cudaGetErrorString(e);
          ok = false;
        }
        CK(cudaStreamSynchronize(s));
        CK(cudaGetLastError());
        CK(cudaMemsetAsync(d_first, 0xff, sizeof *d_first, s));
        switch (cd.kind) {
          case K_F32:
            flag_unsorted_kernel<float><<<fill_blocks, 256, 0, s>>>(static_cast<const float*>(rk), nullptr, n, d_first);
            break;
          case K_U64:
          case P_U64_U32:
            flag_unsorted_kernel<std::uint64_t><<<fill_blocks, 256, 0, s>>>(static_cast<const std::uint64_t*>(rk),
                                                                             rvout, n, d_first);
            break;
          default:
            flag_unsorted_kernel<std::uint32_t><<<fill_blocks, 256, 0, s>>>(static_cast<const std::uint32_t*>(rk),
                                                                             rvout, n, d_first);
        }
        CK(cudaGetLastError());
        unsigned long long f;
        CK(cudaMemcpyAsync(&f, d_first, sizeof f, cudaMemcpyDeviceToHost, s));
        CK(cudaStreamSynchronize(s));
        if (f != ~0ull) {
          check += " cub-unsorted@" + std::to_string(f);
          ok = false;
        }
      }
      // Every timed contender into a poisoned output, compared with the reference bit for bit
      // (doubles as the warm-up: lazy module loading happens here).
      for (int c : conts) {
        if (c == CUB && n > std::size_t(INT32_MAX)) continue;
        CK(cudaMemsetAsync(ko, 0x7b, n * kb, s));
        if (pairs) CK(cudaMemsetAsync(vo, 0x7b, n * 4, s));
        std::size_t b = tbytes[c];
        cudaError_t e = run_sort(c, cd.kind, t, b, kin(0), ko, vin(0), vout, n, s);
        CK(cudaStreamSynchronize(s));
        CK(cudaGetLastError());
        if (e != cudaSuccess) {
          check += std::string(" ") + cont_name[c] + ":" + cudaGetErrorString(e);
          ok = false;
          continue;
        }
        const std::size_t dk = first_diff(ko, rk, n * kb / 4);
        if (dk != n * kb / 4) {
          check += std::string(" ") + cont_name[c] + "-keys@" + std::to_string(dk * 4 / kb);
          ok = false;
        } else if (pairs) {
          const std::size_t dv = first_diff(vo, rv, n);
          if (dv != n) {
            check += std::string(" ") + cont_name[c] + "-values@" + std::to_string(dv);
            ok = false;
          }
        }
      }
      if (!ok) {
        ++fails;
        std::printf("FAIL %s n=%zu:%s\n", cd.name, n, check.c_str());
        std::fflush(stdout);
      }

      // Timing: R rounds, each a shuffled order of the contenders, one sort each, events around it.
      std::vector<float> times[NCONT];
      std::vector<int> order;
      for (int c : conts)
        if (c != CUB || n <= std::size_t(INT32_MAX)) order.push_back(c);
      std::size_t next_copy = 1;  // copy 0 was just read by the checks
      bool timing_ok = true;
      for (int r = 0; r < rounds && timing_ok; ++r) {
        std::shuffle(order.begin(), order.end(), order_rng);
        for (int c : order) {
          const std::size_t i = next_copy++;
          std::size_t b = tbytes[c];
          if (queued) {
            hold[0] = 0;
            hold[1] = 0;
            hold_stream<<<1, 1, 0, s>>>(hold_dev, hold_dev + 1, hold_limit);
          }
          CK(cudaEventRecord(e0, s));
          cudaError_t e = run_sort(c, cd.kind, t, b, kin(i), ko, vin(i), vout, n, s);
          CK(cudaEventRecord(e1, s));
          if (queued) hold[0] = 1;
          CK(cudaEventSynchronize(e1));
          if (e != cudaSuccess) {
            timing_ok = false;
            break;
          }
          if (queued && hold[1]) std::printf("# warning: held kernel gave up (%s n=%zu)\n", cd.name, n);
          float ms;
          CK(cudaEventElapsedTime(&ms, e0, e1));
          times[c].push_back(ms * 1000.0f);
        }
      }
      if (!timing_ok) {
        std::printf("%-34s %10zu not timed (sort error)\n", cd.name, n);
        continue;
      }
      CK(cudaGetLastError());
      double med[NCONT] = {NAN, NAN, NAN, NAN}, mn[NCONT] = {NAN, NAN, NAN, NAN};
      for (int c : order) {
        med[c] = median(times[c]);
        mn[c] = *std::min_element(times[c].begin(), times[c].end());
      }
      const double cub_us = std::fmin(std::isnan(med[CUB]) ? INFINITY : med[CUB],
                                      std::isnan(med[CUB64]) ? INFINITY : med[CUB64]);
      const double r_no = med[NEW] / med[OLD], r_cn = cub_us / med[NEW];
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_case).count();
      std::printf("%-34s %10zu %10.1f %10.1f %10.1f %8.3f %8.3f  %s  %.1f/%.1f  %.1fs\n", cd.name, n, med[OLD],
                  med[NEW], cub_us, r_no, r_cn, ok ? "ok" : "FAIL", med[CUB], med[CUB64], wall);
      std::fflush(stdout);
      if (csv) {
        std::fprintf(csv, "%s,%zu,%.3f,%.3f,%.3f,%.5f,%.5f,%.3f,%.3f,%.3f,%.3f,%d,%zu,%s\n", cd.name, n, med[OLD],
                     med[NEW], cub_us, r_no, r_cn, med[CUB], med[CUB64], mn[OLD], mn[NEW], rounds, kcopies,
                     ok ? "ok" : csv_field("FAIL" + check).c_str());
        std::fflush(csv);
      }
      ++rows;
      if (ok) {
        ratios.push_back(r_no);
        if (r_no > worst) {
          worst = r_no;
          worst_row = row;
        }
      }
    }
  }
  if (csv) std::fclose(csv);
  double lg = 0;
  for (double r : ratios) lg += std::log(r);
  if (!ratios.empty())
    std::printf("# geomean new/old %.4f over %zu rows; worst %s at %.3f; %d FAIL; csv %s\n",
                std::exp(lg / ratios.size()), ratios.size(), worst_row.c_str(), worst, fails, out_path.c_str());
  else
    std::printf("# no rows passed (%d timed, %d FAIL); csv %s\n", rows, fails, out_path.c_str());
  return fails ? 1 : 0;
}
