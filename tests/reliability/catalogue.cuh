// A catalogue of gpuprim calls for the reliability tests: ten device algorithms (reduce, scan and
// radix sort over several types and operators), each runnable in the workspace or the allocating
// form on any stream, with host inputs drawn from a seed and an independent host reference. The
// definitions live in catalogue.cu (compiled once); the tests see only these declarations, and
// nothing here uses Catch2, so that the calls can be made and checked from several host threads.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace reliability {

enum class algo {
  sum_i32,             // gpuprim::sum, int -> int
  reduce_max_f32,      // gpuprim::reduce with maximum, init -inf
  exclusive_sum_i64,   // gpuprim::exclusive_sum, int64
  inclusive_max_i32,   // gpuprim::inclusive_scan with maximum
  exclusive_scan_u32,  // gpuprim::exclusive_scan with plus, init 7 (wrapping)
  inclusive_sum_f64,   // gpuprim::inclusive_sum, integer-valued doubles (exact)
  sort_keys_u32,       // gpuprim::radix_sort_keys, whole key
  sort_keys_desc_i32,  // gpuprim::radix_sort_keys_descending, whole key
  sort_pairs_u32,      // gpuprim::radix_sort_pairs, uint32 keys, uint32 index payload
  sort_pairs_desc_u64  // gpuprim::radix_sort_pairs_descending, uint64 keys, bits [4, 60), index payload
};
constexpr int algo_count = 10;

const char* name(algo a);

enum class form { workspace, allocating };

/// Bytes of each device buffer that `a` needs for n items: the keys or items in, the values in
/// (0 for non-sorts and keys-only sorts), the output, the values out.
struct buffer_sizes {
  std::size_t in = 0, values_in = 0, out = 0, values_out = 0;
};
buffer_sizes sizes_for(algo a, std::size_t n);

/// Device pointers of one call (any alignment the item types allow).
struct device_args {
  const void* in = nullptr;
  const void* values_in = nullptr;
  void* out = nullptr;
  void* values_out = nullptr;
};

/// One call: what it runs and its host data (inputs and, after `expect`, the expected output).
struct job {
  algo a = algo::sum_i32;
  std::size_t n = 0;
  std::vector<unsigned char> in, values_in;        // host inputs, sizes_for(a, n) bytes
  std::vector<unsigned char> expect, expect_values;  // reference outputs (bytes)
};

/// A job for `a` with n random items drawn from `seed` and its expected output.
job make_job(algo a, std::size_t n, std::uint64_t seed);

/// Runs the job's algorithm on device buffers. Workspace form: `temp == nullptr` is the size query
/// (sets `temp_bytes`). Allocating form: `temp` and `temp_bytes` are ignored.
cudaError_t run(algo a, form f, void* temp, std::size_t& temp_bytes, const device_args& args, std::size_t n,
                cudaStream_t stream);

/// Workspace bytes of `a` for n items (its size query).
std::size_t workspace_bytes(algo a, std::size_t n);

/// Compares downloaded outputs with the job's expectation: an empty string when they match, else
/// a description of the first mismatch.
std::string check(const job& j, const std::vector<unsigned char>& out, const std::vector<unsigned char>& values_out);

/// Device buffers for one job at a time of any algorithm, up to `capacity` items, each output
/// followed by guard bytes; plus a workspace. Errors are returned, never thrown or asserted, so
/// that a slot can be used from any host thread.
class slot {
public:
  static constexpr std::size_t guard_bytes = 64;
  static constexpr unsigned char poison_byte = 0xCD;

  slot() = default;
  slot(const slot&) = delete;
  slot& operator=(const slot&) = delete;
  ~slot();

  /// Allocates buffers for up to `capacity` items and a workspace of `workspace` bytes.
  cudaError_t reserve(std::size_t capacity, std::size_t workspace);
  device_args args() const;
  void* temp() const { return temp_; }
  std::size_t temp_bytes() const { return temp_bytes_; }

  /// Queues the job's inputs and poisons the outputs and their guards, on `stream`.
  cudaError_t stage(const job& j, cudaStream_t stream);
  /// Waits for `stream`, downloads the outputs and compares them with the job's expectation and
  /// the guards with the poison: an empty string when all is well, else what is wrong.
  std::string verify(const job& j, cudaStream_t stream);
  /// Waits for `stream` and checks that the outputs and guards still hold the poison.
  std::string untouched(const job& j, cudaStream_t stream);

private:
  cudaError_t download(const job& j, cudaStream_t stream, std::vector<unsigned char>& out,
                       std::vector<unsigned char>& values_out) const;

  std::size_t capacity_ = 0;
  unsigned char* in_ = nullptr;
  unsigned char* values_in_ = nullptr;
  unsigned char* out_ = nullptr;
  unsigned char* values_out_ = nullptr;
  void* temp_ = nullptr;
  std::size_t temp_bytes_ = 0;
};

}  // namespace reliability
