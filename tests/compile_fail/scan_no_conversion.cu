// exclusive_sum of ints into an output of structs (no conversion from int).
// expect: the items (the input iterator's value type) must convert to the accumulator type
#include <gpuprim/scan.cuh>

struct pair2 {
  int a, b;
};

cudaError_t bad(void* temp, std::size_t& bytes, const int* in, pair2* out, std::size_t n) {
  return gpuprim::exclusive_sum(temp, bytes, in, out, n);
}
