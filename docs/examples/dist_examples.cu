// docs/dist.md: one rank's calls of gpuprim::dist, run on a communicator of every GPU here (one
// host thread a rank), checked against the host. Exits 77 without a GPU.
#include <algorithm>
#include <cstdio>
#include <thread>
#include <vector>

#include <gpuprim/dist.cuh>

#include "example_util.cuh"

// docs:begin dist_rank
// Every rank calls this at once, with its own slice (n may differ from rank to rank).
cudaError_t sort_and_sum(const float* d_keys, float* d_sorted, std::size_t n, double* d_total, ncclComm_t comm,
                         cudaStream_t stream) {
  // The sum over every rank's keys, on every rank (the same bits on all of them).
  cudaError_t e = gpuprim::dist::reduce(d_keys, d_total, n, 0.0, gpuprim::plus{}, comm, stream);
  // Rank r gets the r-th slice of the sorted sequence: n keys, the same count it gave.
  if (e == cudaSuccess) e = gpuprim::dist::radix_sort_keys(d_keys, d_sorted, n, comm, 0, 32, stream);
  if (gpuprim::dist::is_nccl_error(e)) {
    std::fprintf(stderr, "%s: %s\n", gpuprim::dist::error_string(e), gpuprim::dist::last_nccl_error(comm));
  }
  return e;
}
// docs:end dist_rank

int main() {
  example::exit_77_without_gpu();
  int ranks = 0;
  EXAMPLE_CHECK(cudaGetDeviceCount(&ranks));
  std::vector<ncclComm_t> comms(ranks);
  std::vector<int> devices(ranks);
  for (int r = 0; r < ranks; ++r) devices[r] = r;
  if (ncclCommInitAll(comms.data(), ranks, devices.data()) != ncclSuccess) return 1;
  const std::size_t n = 100003;
  std::vector<std::vector<float>> sorted(ranks);
  std::vector<double> totals(ranks);
  std::vector<float> all;
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r) {
    std::vector<float> h(n + r);
    for (std::size_t i = 0; i < h.size(); ++i) h[i] = float((i * 7919 + r * 104729) % 10007) - 5000.0f;
    all.insert(all.end(), h.begin(), h.end());
    threads.emplace_back([&, r, h] {
      EXAMPLE_CHECK(cudaSetDevice(r));
      cudaStream_t stream;
      EXAMPLE_CHECK(cudaStreamCreate(&stream));
      float* keys = example::to_device(h);
      float* out = nullptr;
      double* total = nullptr;
      EXAMPLE_CHECK(cudaMalloc(&out, h.size() * sizeof(float)));
      EXAMPLE_CHECK(cudaMalloc(&total, sizeof(double)));
      EXAMPLE_CHECK(sort_and_sum(keys, out, h.size(), total, comms[r], stream));
      EXAMPLE_CHECK(cudaStreamSynchronize(stream));
      sorted[r] = example::to_host(out, h.size());
      totals[r] = example::to_host(total, 1)[0];
      EXAMPLE_CHECK(cudaFree(keys));
      EXAMPLE_CHECK(cudaFree(out));
      EXAMPLE_CHECK(cudaFree(total));
      EXAMPLE_CHECK(cudaStreamDestroy(stream));
    });
  }
  for (auto& t : threads) t.join();
  std::sort(all.begin(), all.end());
  double want = 0;
  for (float x : all) want += x;
  std::size_t at = 0;
  for (int r = 0; r < ranks; ++r) {
    EXAMPLE_EXPECT(totals[r] == want);  // integers: exact in any order
    EXAMPLE_EXPECT(std::equal(sorted[r].begin(), sorted[r].end(), all.begin() + at));
    at += sorted[r].size();
    (void)ncclCommDestroy(comms[r]);
  }
  std::printf("%d ranks: sorted and summed\n", ranks);
  return 0;
}
