// The benchmark executable: Kokkos around Google Benchmark, with the Kokkos configuration in the
// JSON context so every result file says what it ran on.

#include "bench_support.hpp"

#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

namespace kmask_bench {
void register_segmented_binop_benchmarks();
void register_count_copy_benchmarks();
void register_batch_count_benchmarks();
void register_move_bits_benchmarks();
void register_make_masks_benchmarks();
}  // namespace kmask_bench

namespace {
// KMASK_BENCH_KEEP_POOL=1 (CUDA): the device's default memory pool keeps what it has freed
// instead of returning it at every synchronisation (its release threshold, 0 by default, set to
// the maximum), as an application built on Kokkos_ENABLE_IMPL_CUDA_MALLOC_ASYNC may configure it.
// Returns what the run used, for the JSON context.
std::string configure_memory_pool() {
  const char* keep = std::getenv("KMASK_BENCH_KEEP_POOL");
  if (keep == nullptr || std::string(keep) != "1") return "default";
#if defined(KOKKOS_ENABLE_CUDA)
  int device = 0;
  cudaMemPool_t pool;
  std::uint64_t threshold = UINT64_MAX;
  if (cudaGetDevice(&device) == cudaSuccess && cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess &&
      cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold) == cudaSuccess)
    return "release threshold max";
  return "release threshold not set (CUDA error)";
#else
  return "default (no CUDA)";
#endif
}
}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::initialize(argc, argv);
  {
    benchmark::Initialize(&argc, argv);
    benchmark::AddCustomContext("memory_pool", configure_memory_pool());
    benchmark::AddCustomContext("kmask_version", kmask::version());
    benchmark::AddCustomContext("kokkos", kmask::kokkos_configuration());
    benchmark::AddCustomContext("execution_space", Kokkos::DefaultExecutionSpace::name());
    std::ostringstream concurrency;
    concurrency << Kokkos::DefaultExecutionSpace().concurrency();
    benchmark::AddCustomContext("concurrency", concurrency.str());
    // Host-side passes (descriptor staging for a GPU) run on the default host space's threads.
    benchmark::AddCustomContext("host_execution_space", Kokkos::DefaultHostExecutionSpace::name());
    benchmark::AddCustomContext("host_concurrency", std::to_string(Kokkos::DefaultHostExecutionSpace().concurrency()));
    kmask_bench::register_segmented_binop_benchmarks();
    kmask_bench::register_count_copy_benchmarks();
    kmask_bench::register_batch_count_benchmarks();
    kmask_bench::register_move_bits_benchmarks();
    kmask_bench::register_make_masks_benchmarks();
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
  }
  Kokkos::finalize();
  return 0;
}
