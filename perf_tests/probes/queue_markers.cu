// What does it cost the host to mark a point of a stream and later ask whether the stream has
// passed it? kmask's staging pool gives a buffer back with such a marker and asks it at the next
// lease. A raw-CUDA probe of the ways to do it, in host time per operation:
//   - an event: cudaEventRecord, then cudaEventQuery (what the pool does);
//   - a stream memory write: cuStreamWriteValue32 of a sequence number into mapped page-locked host
//     memory, then a plain read of that word;
//   - cudaStreamGetId (how the pool tells streams apart);
// each alone, then inside a call-shaped loop (launch an empty kernel, mark, fence; the next round
// asks the marker) against the same loop with no marker.
// Not part of the library: it gives the costs a design is judged against.
// Build: nvcc -O3 -arch=sm_90 -std=c++17 queue_markers.cu -lcuda -o queue_markers
// PROBE_REPS=n operations a measurement (default 20000).
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "check.hpp"
#define CHECK_CU(x)                                                      \
  do {                                                                   \
    CUresult r_ = (x);                                                   \
    if (r_ != CUDA_SUCCESS) {                                            \
      std::fprintf(stderr, "%s:%d %s: %d\n", __FILE__, __LINE__, #x, r_); \
      std::exit(1);                                                      \
    }                                                                    \
  } while (0)

__global__ void empty_kernel() {}

using clock_type = std::chrono::steady_clock;

// Nanoseconds per call of f over `reps` calls, median of five such runs.
double ns_per(int reps, const std::function<void(int)>& f) {
  std::vector<double> runs;
  for (int r = 0; r < 5; ++r) {
    const auto t0 = clock_type::now();
    for (int i = 0; i < reps; ++i) f(i);
    const auto t1 = clock_type::now();
    runs.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / reps);
  }
  std::sort(runs.begin(), runs.end());
  return runs[2];
}

int main() {
  const char* s  = std::getenv("PROBE_REPS");
  const int reps = s ? std::atoi(s) : 20000;
  CHECK(cudaSetDevice(0));
  CHECK(cudaFree(nullptr));
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  cudaEvent_t event;
  CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  std::uint32_t* word = nullptr;
  CHECK(cudaHostAlloc(reinterpret_cast<void**>(&word), 64, cudaHostAllocMapped));
  std::uint32_t* dword = nullptr;
  CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&dword), word, 0));
  *word = 0;
  CUdevice dev;
  CHECK_CU(cuDeviceGet(&dev, 0));
  int mem_ops = 0;
  CHECK_CU(cuDeviceGetAttribute(&mem_ops, CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1, dev));
  std::printf("stream memory operations supported: %d\n", mem_ops);
  volatile std::uint32_t* seen = word;
  std::uint32_t seq            = 0;

  // Each operation alone (the stream idle, so every marker has passed when asked).
  const double record = ns_per(reps, [&](int) { CHECK(cudaEventRecord(event, stream)); });
  CHECK(cudaStreamSynchronize(stream));
  const double query = ns_per(reps, [&](int) {
    if (cudaEventQuery(event) != cudaSuccess) std::exit(2);
  });
  const double write = ns_per(reps, [&](int) {
    CHECK_CU(cuStreamWriteValue32(stream, reinterpret_cast<CUdeviceptr>(dword), ++seq, CU_STREAM_WRITE_VALUE_DEFAULT));
  });
  CHECK(cudaStreamSynchronize(stream));
  std::uint32_t sink = 0;
  const double read  = ns_per(reps, [&](int) { sink += *seen; });
  unsigned long long id = 0;
  const double get_id   = ns_per(reps, [&](int) { CHECK(cudaStreamGetId(stream, &id)); });
  std::printf("last sequence written %u, read %u (sink %u)\n", seq, *seen, sink & 1u);
  std::printf("alone, ns per operation: cudaEventRecord %.0f, cudaEventQuery (passed) %.0f, "
              "cuStreamWriteValue32 %.0f, read of the written word %.1f, cudaStreamGetId %.0f\n",
              record, query, write, read, get_id);

  // Call-shaped: ask the previous round's marker, launch, mark, fence.
  const int calls    = reps / 4;
  const double plain = ns_per(calls, [&](int) {
    empty_kernel<<<1, 32, 0, stream>>>();
    CHECK(cudaStreamSynchronize(stream));
  });
  const double by_event = ns_per(calls, [&](int) {
    if (cudaEventQuery(event) != cudaSuccess) std::exit(3);
    empty_kernel<<<1, 32, 0, stream>>>();
    CHECK(cudaEventRecord(event, stream));
    CHECK(cudaStreamSynchronize(stream));
  });
  const double by_write = ns_per(calls, [&](int) {
    if (*seen != seq) std::exit(4);
    empty_kernel<<<1, 32, 0, stream>>>();
    CHECK_CU(cuStreamWriteValue32(stream, reinterpret_cast<CUdeviceptr>(dword), ++seq, CU_STREAM_WRITE_VALUE_DEFAULT));
    CHECK(cudaStreamSynchronize(stream));
  });
  std::printf("call-shaped, ns per round: launch + fence %.0f; + event query and record %.0f (+%.0f); "
              "+ word read and stream write %.0f (+%.0f)\n",
              plain, by_event, by_event - plain, by_write, by_write - plain);
  CHECK(cudaEventDestroy(event));
  CHECK(cudaStreamDestroy(stream));
  CHECK(cudaFreeHost(word));
  return 0;
}
