// The differential fuzz test against CUB: draws seeded random configurations of every device
// algorithm (fuzz_*.cu run one each), compares each result with CUB's bitwise, and reports every
// mismatch with its full config and the line that replays it alone.
//
// Environment:
//   GPUPRIM_FUZZ_SEED=<n>       run seed (default: fresh from std::random_device; always printed)
//   GPUPRIM_FUZZ_CONFIGS=<n>    configs to run (default 300, the short run of the normal suite;
//                               40 with GPUPRIM_TEST_SMALL=1)
//   GPUPRIM_FUZZ_SECONDS=<s>    stop drawing new configs after s seconds (default: no limit)
//   GPUPRIM_FUZZ_ONLY=<i>       run only config i of the seed (replays one failure)
//   GPUPRIM_FUZZ_ALGORITHM=<s>  run only the configs whose algorithm name contains s (indices,
//                               and so replay lines, are those of the unfiltered run)
//   GPUPRIM_FUZZ_VERBOSE=1      print each config before it runs (names a crash or a hang)
//   GPUPRIM_FUZZ_HANG_SECONDS=<s>  a call not finished after s seconds (default 60) is a hang:
//                               the config is printed and the process exits with status 1
//   GPUPRIM_TEST_SMALL=1        (compute-sanitizer runs) sizes capped at 2^16 items
#include <cuda_runtime.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <thread>

#include "fuzz/fuzz_common.cuh"
#include "support/catch.hpp"

namespace fuzz {

void context::announce(const std::string& config) const {
  if (!verbose) return;
  std::printf("  %s\n", config.c_str());
  std::fflush(stdout);
}

cudaError_t context::wait(cudaStream_t stream, const std::string& config) const {
  const auto start = std::chrono::steady_clock::now();
  for (int polls = 0;; ++polls) {
    const cudaError_t e = cudaStreamQuery(stream);
    if (e != cudaErrorNotReady) {
      // In case a "not ready" answer lingers as the thread's last error: the next library call's
      // launch check must not take it for its own.
      if (polls > 0 && cudaPeekAtLastError() == cudaErrorNotReady) (void)cudaGetLastError();
      return e;
    }
    if (polls < 200) {
      std::this_thread::yield();
      continue;
    }
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (waited > hang_seconds) {
      std::printf("HANG: not finished after %.0f s: %s\n  replay: %s\n", waited, config.c_str(), replay.c_str());
      std::fflush(stdout);
      std::_Exit(1);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

namespace {

std::uint64_t env_u64(const char* name, std::uint64_t fallback, bool* set = nullptr) {
  const char* v = std::getenv(name);
  if (set != nullptr) *set = v != nullptr && *v != '\0';
  if (v == nullptr || *v == '\0') return fallback;
  return std::strtoull(v, nullptr, 0);
}

std::string executable_path() {
  char buf[4096];
  const ssize_t len = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (len <= 0) return "./fuzz_cub";
  buf[len] = '\0';
  return buf;
}

/// Draws the algorithm (and for sorts the key and value types) of a config, then runs it.
result run_config(context& ctx, rng& r, algorithm& a) {
  a = static_cast<algorithm>(r.below(static_cast<std::uint64_t>(algorithm::count)));
  switch (a) {
    case algorithm::reduce:
    case algorithm::sum: return run_reduce(ctx, r, a);
    case algorithm::exclusive_scan:
    case algorithm::exclusive_sum: return run_exclusive_scan(ctx, r, a);
    case algorithm::inclusive_scan:
    case algorithm::inclusive_sum: return run_inclusive_scan(ctx, r, a);
    default: break;
  }
  const bool descending = a == algorithm::radix_sort_keys_descending || a == algorithm::radix_sort_pairs_descending;
  const bool pairs = a == algorithm::radix_sort_pairs || a == algorithm::radix_sort_pairs_descending;
  static const key_type all_keys[] = {key_type::u8,  key_type::i8,  key_type::i16, key_type::u16,
                                      key_type::f16, key_type::bf16, key_type::u32, key_type::i32,
                                      key_type::f32, key_type::u64, key_type::i64, key_type::f64};
  // Pairs: a third with uint64 payloads, a sixth with 12-byte struct payloads, the rest uint32.
  if (pairs && r.chance(1.0 / 3)) {
    static const key_type u64_keys[] = {key_type::i16, key_type::u32, key_type::f32, key_type::u64, key_type::f64};
    return run_sort_pairs_u64(ctx, r, u64_keys[r.below(5)], descending);
  }
  if (pairs && r.chance(0.25)) {
    static const key_type struct_keys[] = {key_type::u8, key_type::u16, key_type::i32, key_type::f32, key_type::f64};
    return run_sort_pairs_struct(ctx, r, struct_keys[r.below(5)], descending);
  }
  const key_type k = all_keys[r.below(sizeof(all_keys) / sizeof(all_keys[0]))];
  const bool small = k == key_type::i8 || k == key_type::u16 || k == key_type::bf16;
  const bool narrow =
      k == key_type::u8 || k == key_type::i16 || k == key_type::f16 || k == key_type::u32 || k == key_type::i32;
  if (small) return pairs ? run_sort_pairs_small(ctx, r, k, descending) : run_sort_keys_small(ctx, r, k, descending);
  if (pairs) return narrow ? run_sort_pairs_narrow(ctx, r, k, descending) : run_sort_pairs_wide(ctx, r, k, descending);
  return narrow ? run_sort_keys_narrow(ctx, r, k, descending) : run_sort_keys_wide(ctx, r, k, descending);
}

struct tally {
  std::uint64_t configs = 0;
  std::uint64_t items = 0;
  std::uint64_t failed = 0;
};

}  // namespace
}  // namespace fuzz

TEST_CASE("differential fuzz against CUB: random configs of every device algorithm", "[fuzz]") {
  using namespace fuzz;
  bool seed_given = false, only_given = false;
  std::uint64_t seed = env_u64("GPUPRIM_FUZZ_SEED", 0, &seed_given);
  if (!seed_given) {
    std::random_device rd;
    seed = (std::uint64_t(rd()) << 32) ^ std::uint64_t(rd());
  }
  const std::uint64_t only = env_u64("GPUPRIM_FUZZ_ONLY", 0, &only_given);
  const char* seconds_env = std::getenv("GPUPRIM_FUZZ_SECONDS");
  const double seconds = seconds_env != nullptr && *seconds_env != '\0' ? std::strtod(seconds_env, nullptr) : 0.0;
  const char* filter_env = std::getenv("GPUPRIM_FUZZ_ALGORITHM");
  const std::string filter = filter_env != nullptr ? filter_env : "";
  const char* small_env = std::getenv("GPUPRIM_TEST_SMALL");
  const bool small = small_env != nullptr && std::strcmp(small_env, "1") == 0;
  const std::uint64_t configs = env_u64("GPUPRIM_FUZZ_CONFIGS", small ? 40 : 300);

  context ctx;
  ctx.verbose = env_u64("GPUPRIM_FUZZ_VERBOSE", 0) != 0;
  ctx.hang_seconds = static_cast<double>(env_u64("GPUPRIM_FUZZ_HANG_SECONDS", 60));
  ctx.max_n = small ? (std::size_t(1) << 16) : ~std::size_t(0);
  int device = 0;
  REQUIRE(cudaGetDevice(&device) == cudaSuccess);
  REQUIRE(cudaDeviceGetAttribute(&ctx.sm_count, cudaDevAttrMultiProcessorCount, device) == cudaSuccess);
  REQUIRE(cudaStreamCreateWithFlags(&ctx.setup, cudaStreamNonBlocking) == cudaSuccess);
  for (auto& s : ctx.own) REQUIRE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);

  const std::string exe = executable_path();
  const std::string env_prefix =
      std::string(small ? "GPUPRIM_TEST_SMALL=1 " : "") + "GPUPRIM_FUZZ_SEED=" + std::to_string(seed);
  std::printf(
      "gpuprim fuzz against CUB: seed %llu, %s", static_cast<unsigned long long>(seed),
      only_given ? ("only config #" + std::to_string(only)).c_str() : (std::to_string(configs) + " configs").c_str());
  if (seconds > 0) std::printf(", at most %.0f s", seconds);
  if (!filter.empty()) std::printf(", algorithms matching \"%s\"", filter.c_str());
  std::printf("\n  repeat: %s GPUPRIM_FUZZ_CONFIGS=%llu %s\n", env_prefix.c_str(),
              static_cast<unsigned long long>(configs), exe.c_str());
  std::fflush(stdout);

  tally per_algorithm[static_cast<int>(algorithm::count)];
  std::uint64_t ran = 0, failed = 0, skipped = 0;
  bool fatal = false, out_of_time = false;
  std::ostringstream first_failures;
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  const std::uint64_t first = only_given ? only : 0;
  const std::uint64_t last = only_given ? only + 1 : configs;
  for (std::uint64_t index = first; index < last; ++index) {
    if (seconds > 0 && elapsed() > seconds) {
      out_of_time = true;
      break;
    }
    rng r(config_seed(seed, index));
    if (!filter.empty()) {
      // Peek at the algorithm with a copy of the engine: the config itself is unchanged.
      rng peek = r;
      const auto a = static_cast<algorithm>(peek.below(static_cast<std::uint64_t>(algorithm::count)));
      if (std::string(algorithm_name(a)).find(filter) == std::string::npos) {
        ++skipped;
        continue;
      }
    }
    ctx.replay = env_prefix + " GPUPRIM_FUZZ_ONLY=" + std::to_string(index) + " " + exe;
    if (ctx.verbose) std::printf("config #%llu\n", static_cast<unsigned long long>(index));
    algorithm a;
    const result res = run_config(ctx, r, a);
    ++ran;
    tally& t = per_algorithm[static_cast<int>(a)];
    ++t.configs;
    t.items += res.n;
    if (!res.problems.empty()) {
      ++failed;
      ++t.failed;
      std::printf("MISMATCH in config #%llu: %s\n", static_cast<unsigned long long>(index), res.config.c_str());
      for (const std::string& p : res.problems) std::printf("    %s\n", p.c_str());
      std::printf("  replay: %s\n", ctx.replay.c_str());
      std::fflush(stdout);
      if (failed <= 5) first_failures << "#" << index << ": " << res.config << "\n";
    }
    if (res.fatal) {
      fatal = true;
      std::printf("the device is unusable after config #%llu: stopping\n", static_cast<unsigned long long>(index));
      break;
    }
    if (!only_given && configs >= 2000 && (index + 1) % 1000 == 0) {
      std::printf("  %llu configs, %llu mismatches, %.1f s\n", static_cast<unsigned long long>(index + 1),
                  static_cast<unsigned long long>(failed), elapsed());
      std::fflush(stdout);
    }
  }

  const double total = elapsed();
  std::printf("gpuprim fuzz: %llu configs in %.2f s (%.2f ms each), %llu mismatching%s%s\n",
              static_cast<unsigned long long>(ran), total, ran ? 1000.0 * total / double(ran) : 0.0,
              static_cast<unsigned long long>(failed), out_of_time ? " (stopped by GPUPRIM_FUZZ_SECONDS)" : "",
              skipped ? (", " + std::to_string(skipped) + " filtered out").c_str() : "");
  for (int i = 0; i < static_cast<int>(algorithm::count); ++i) {
    const tally& t = per_algorithm[i];
    if (t.configs == 0) continue;
    std::printf("  %-28s %6llu configs, %12llu items, %llu mismatching\n", algorithm_name(static_cast<algorithm>(i)),
                static_cast<unsigned long long>(t.configs), static_cast<unsigned long long>(t.items),
                static_cast<unsigned long long>(t.failed));
  }
  std::printf("  seed %llu: %s GPUPRIM_FUZZ_CONFIGS=%llu %s\n", static_cast<unsigned long long>(seed),
              env_prefix.c_str(), static_cast<unsigned long long>(configs), exe.c_str());
  std::fflush(stdout);

  (void)cudaStreamDestroy(ctx.setup);
  for (auto& s : ctx.own) (void)cudaStreamDestroy(s);
  INFO("seed " << seed << "; first mismatching configs:\n" << first_failures.str());
  CHECK_FALSE(fatal);
  REQUIRE(failed == 0);
}
