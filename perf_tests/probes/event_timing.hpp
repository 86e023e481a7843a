// The probes' GPU event timing: the median of `reps` launches, each between two events on the
// stream, after five unmeasured ones.
#ifndef KMASK_PROBES_EVENT_TIMING_HPP
#define KMASK_PROBES_EVENT_TIMING_HPP

#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "check.hpp"

template <class F>
float median_us(F&& launch, int reps, cudaStream_t s) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int r = 0; r < 5; ++r) launch();
  CHECK(cudaStreamSynchronize(s));
  std::vector<float> v;
  for (int r = 0; r < reps; ++r) {
    CHECK(cudaEventRecord(a, s));
    launch();
    CHECK(cudaEventRecord(b, s));
    CHECK(cudaEventSynchronize(b));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    v.push_back(1000 * ms);
  }
  std::sort(v.begin(), v.end());
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  return v[v.size() / 2];
}

#endif
