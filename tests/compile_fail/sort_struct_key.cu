// A struct as a radix sort key: one message, once.
// expect: the key must be an 8/16/32/64-bit integer, float, double, __half or
// expect-once
#include <gpuprim/radix_sort.cuh>

struct record {
  int id;
  float score;
};

cudaError_t bad(void* temp, std::size_t& bytes, const record* in, record* out, std::size_t n) {
  return gpuprim::radix_sort_keys(temp, bytes, in, out, n);
}
