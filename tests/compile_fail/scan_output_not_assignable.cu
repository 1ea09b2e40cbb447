// inclusive_scan of ints into an output that cannot be assigned an int.
// expect: the output must be assignable from the accumulator type
#include <gpuprim/scan.cuh>

struct label {
  const char* text;
};

cudaError_t bad(void* temp, std::size_t& bytes, const int* in, label* out, std::size_t n) {
  return gpuprim::inclusive_scan(temp, bytes, in, out, n, gpuprim::plus{});
}
