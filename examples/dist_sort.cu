// gpuprim::dist: a sort and a sum of keys spread over the GPUs of this machine, one rank a GPU.
//   dist_sort [threads|processes] [keys per GPU]
// threads (the default): one process drives every GPU, a host thread a rank (ncclCommInitAll).
// processes: one process a GPU (forked; ncclGetUniqueId in rank 0, ncclCommInitRank in each), as
// an MPI or torchrun job would run it. Each rank checks its slice: sorted, and within the global
// order (its first key not below the previous rank's last). Exits 77 without a GPU.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gpuprim/dist.cuh>

namespace {

#define CHECK(call)                                                                                  \
  do {                                                                                               \
    const cudaError_t e_ = (call);                                                                   \
    if (e_ != cudaSuccess) {                                                                         \
      std::fprintf(stderr, "rank %d: %s failed: %s\n", rank, #call, gpuprim::dist::error_string(e_)); \
      return 1;                                                                                      \
    }                                                                                                \
  } while (0)

/// One rank's work: random keys, dist::radix_sort_keys, dist::sum of the sorted keys' low bits;
/// checks its slice and the boundary with the rank before (through a 1-key all-gather).
int run_rank(ncclComm_t comm, int rank, int ranks, std::size_t n) {
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  std::vector<std::uint32_t> h(n);
  std::mt19937 rng(1234u + unsigned(rank));
  for (auto& k : h) k = rng();
  std::uint32_t *in, *out, *edges;
  std::uint64_t* total;
  CHECK(cudaMalloc(&in, n * sizeof(std::uint32_t)));
  CHECK(cudaMalloc(&out, n * sizeof(std::uint32_t)));
  CHECK(cudaMalloc(&edges, 2 * ranks * sizeof(std::uint32_t)));
  CHECK(cudaMalloc(&total, sizeof(std::uint64_t)));
  CHECK(cudaMemcpy(in, h.data(), n * sizeof(std::uint32_t), cudaMemcpyHostToDevice));

  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventRecord(start, stream));
  CHECK(gpuprim::dist::radix_sort_keys(in, out, n, comm, 0, 32, stream));  // allocating form
  CHECK(cudaEventRecord(stop, stream));
  // The sum of the keys over every rank (as 64-bit sums of the sorted keys).
  CHECK(gpuprim::dist::reduce(out, total, n, std::uint64_t{0}, gpuprim::plus{}, comm, stream));
  // Every rank's first and last key, for the boundary check.
  CHECK(cudaMemcpyAsync(edges + 2 * rank, out, sizeof(std::uint32_t), cudaMemcpyDeviceToDevice, stream));
  CHECK(cudaMemcpyAsync(edges + 2 * rank + 1, out + n - 1, sizeof(std::uint32_t), cudaMemcpyDeviceToDevice, stream));
  CHECK(gpuprim::dist::from_nccl(ncclAllGather(edges + 2 * rank, edges, 2, ncclUint32, comm, stream)));
  CHECK(cudaStreamSynchronize(stream));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, start, stop));

  std::vector<std::uint32_t> sorted(n), e(2 * ranks);
  std::uint64_t sum = 0;
  CHECK(cudaMemcpy(sorted.data(), out, n * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(e.data(), edges, e.size() * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&sum, total, sizeof(sum), cudaMemcpyDeviceToHost));
  bool ok = true;
  for (std::size_t i = 1; i < n; ++i) ok = ok && sorted[i - 1] <= sorted[i];
  if (rank > 0) ok = ok && e[2 * (rank - 1) + 1] <= e[2 * rank];
  std::printf("rank %d of %d: %zu keys sorted in %.2f ms, %s; sum of all keys %llu\n", rank, ranks, n, ms,
              ok ? "in global order" : "NOT SORTED", static_cast<unsigned long long>(sum));
  (void)cudaFree(in);
  (void)cudaFree(out);
  (void)cudaFree(edges);
  (void)cudaFree(total);
  (void)cudaStreamDestroy(stream);
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "threads";
  const std::size_t n = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : (std::size_t{1} << 24);
  if (mode == "processes") {
    // No CUDA call in this process before the forks (CUDA must start in each child): a first child
    // counts the GPUs; rank 0's child makes the unique id and hands it to the others through pipes
    // (an MPI job would broadcast it).
    const pid_t probe = fork();
    if (probe == 0) {
      int count = 0;
      _exit(cudaGetDeviceCount(&count) == cudaSuccess ? (count < 64 ? count : 64) : 0);
    }
    int status = 0;
    waitpid(probe, &status, 0);
    const int ranks = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
    if (ranks == 0) {
      std::printf("no CUDA GPU: skipped\n");
      return 77;
    }
    std::vector<int> pipes(2 * ranks);
    for (int r = 0; r < ranks; ++r) {
      if (pipe(&pipes[2 * r]) != 0) return 1;
    }
    std::vector<pid_t> children;
    for (int rank = 0; rank < ranks; ++rank) {
      const pid_t pid = fork();
      if (pid == 0) {
        ncclUniqueId id;
        if (rank == 0) {
          if (ncclGetUniqueId(&id) != ncclSuccess) _exit(1);
          for (int r = 1; r < ranks; ++r) {
            if (write(pipes[2 * r + 1], &id, sizeof(id)) != ssize_t(sizeof(id))) _exit(1);
          }
        } else if (read(pipes[2 * rank], &id, sizeof(id)) != ssize_t(sizeof(id))) {
          _exit(1);
        }
        ncclComm_t comm;
        if (cudaSetDevice(rank) != cudaSuccess || ncclCommInitRank(&comm, ranks, id, rank) != ncclSuccess) _exit(1);
        const int rc = run_rank(comm, rank, ranks, n);
        (void)ncclCommDestroy(comm);
        _exit(rc);
      }
      children.push_back(pid);
    }
    int failed = 0;
    for (pid_t pid : children) {
      waitpid(pid, &status, 0);
      failed += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    return failed == 0 ? 0 : 1;
  }
  int ranks = 0;
  if (cudaGetDeviceCount(&ranks) != cudaSuccess || ranks == 0) {
    std::printf("no CUDA GPU: skipped\n");
    return 77;
  }
  std::vector<ncclComm_t> comms(ranks);
  std::vector<int> devices(ranks);
  for (int r = 0; r < ranks; ++r) devices[r] = r;
  if (ncclCommInitAll(comms.data(), ranks, devices.data()) != ncclSuccess) return 1;
  std::vector<int> rc(ranks, 1);
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r) {
    threads.emplace_back([&, r] {
      if (cudaSetDevice(r) == cudaSuccess) rc[r] = run_rank(comms[r], r, ranks, n);
    });
  }
  for (auto& t : threads) t.join();
  int failed = 0;
  for (int r = 0; r < ranks; ++r) {
    failed += rc[r] != 0;
    (void)ncclCommDestroy(comms[r]);
  }
  return failed == 0 ? 0 : 1;
}
