// Consumer translation unit A: instantiates gpuprim::sum<const int*, int>.
#include <gpuprim/gpuprim.cuh>

#include <cstddef>

cudaError_t consumer_sum_a(const int* d_in, int* d_out, std::size_t n) {
  return gpuprim::sum(d_in, d_out, n);
}
