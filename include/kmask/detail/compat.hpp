#ifndef KMASK_DETAIL_COMPAT_HPP
#define KMASK_DETAIL_COMPAT_HPP

// Every difference between the Kokkos versions kmask builds with (3.4.01, the one the project's
// scripts install, through current 4.x) lives here and nowhere else.

#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_OPENMP)
#include <omp.h>
#endif

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace kmask {
namespace detail {

// Number of set bits in one 32-bit word, on host and device. The host branch matters: without a
// target that has the instruction (-mpopcnt, -march=...), __builtin_popcount is a libgcc call per
// word, which made host kernels several times slower than their memory traffic; the SWAR form is a
// dozen integer operations that vectorise with the loop around them.
KOKKOS_FORCEINLINE_FUNCTION int popcount32(std::uint32_t x) noexcept {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return __popc(x);
#elif defined(__POPCNT__) && (defined(__GNUC__) || defined(__clang__))
  return __builtin_popcount(x);
#else
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  x = (x + (x >> 4)) & 0x0F0F0F0Fu;
  return static_cast<int>((x * 0x01010101u) >> 24);
#endif
}

// The unsigned 64-bit type Kokkos' native device atomics are declared for. Kokkos 3.4 implements a
// signed 64-bit atomic add on CUDA as a CAS loop and has native overloads for `unsigned long long`
// only; Kokkos 4 (desul) has native PTX for the fixed-width `std::uint64_t` / `std::int64_t` and
// sends `unsigned long long` (a distinct type on LP64 targets) to a CAS loop instead. Either CAS
// loop collapses when hundreds of teams add into one counter (measured: 20x slower end to end on
// 3.4; 3-6x on 4.6.01's struct tree), so every 64-bit counter atomic goes through this type.
#if KOKKOS_VERSION < 40000
using atomic_u64 = unsigned long long;
#else
using atomic_u64 = std::uint64_t;
#endif
static_assert(sizeof(atomic_u64) == sizeof(std::int64_t), "64-bit counters");

// Adds v to *p atomically (native unsigned 64-bit add; the same two's-complement result).
KOKKOS_FORCEINLINE_FUNCTION void atomic_add_count(std::int64_t* p, std::int64_t v) noexcept {
  Kokkos::atomic_add(reinterpret_cast<atomic_u64*>(p), static_cast<atomic_u64>(v));
}

// *p += v atomically, returning the old value.
KOKKOS_FORCEINLINE_FUNCTION std::int64_t atomic_fetch_add_count(std::int64_t* p, std::int64_t v) noexcept {
  return static_cast<std::int64_t>(Kokkos::atomic_fetch_add(reinterpret_cast<atomic_u64*>(p), static_cast<atomic_u64>(v)));
}

// Replaces *p by v atomically, returning the old value.
KOKKOS_FORCEINLINE_FUNCTION std::int64_t atomic_exchange_count(std::int64_t* p, std::int64_t v) noexcept {
  return static_cast<std::int64_t>(Kokkos::atomic_exchange(reinterpret_cast<atomic_u64*>(p), static_cast<atomic_u64>(v)));
}

// *p = max(*p, v) atomically, for non-negative values.
KOKKOS_FORCEINLINE_FUNCTION void atomic_max_count(std::int64_t* p, std::int64_t v) noexcept {
  Kokkos::atomic_fetch_max(reinterpret_cast<atomic_u64*>(p), static_cast<atomic_u64>(v));
}

// *p = min(*p, v) atomically, for non-negative values.
KOKKOS_FORCEINLINE_FUNCTION void atomic_min_count(std::int64_t* p, std::int64_t v) noexcept {
  Kokkos::atomic_fetch_min(reinterpret_cast<atomic_u64*>(p), static_cast<atomic_u64>(v));
}

// Word `v` of lane `src` of this 32-lane CUDA warp; all 32 lanes must call it together. Only in
// CUDA device code (KMASK_HAS_LANE_SHUFFLE); callers keep a portable path beside it.
#if defined(__CUDA_ARCH__)
#define KMASK_HAS_LANE_SHUFFLE 1
__device__ __forceinline__ std::uint32_t word_from_lane(std::uint32_t v, int src) {
  return __shfl_sync(0xffffffffu, v, src);
}
// The sum of `v` over this 32-lane CUDA warp, in lane 0; all 32 lanes must call it together.
__device__ __forceinline__ std::int64_t warp_sum(std::int64_t v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}
#else
#define KMASK_HAS_LANE_SHUFFLE 0
#endif

// Host memory the execution space's memory can be copied from asynchronously: page-locked where
// the backend has such a space (a pageable source makes the copy synchronous and slower), plain
// host memory otherwise. Kokkos 3.4 and 4.x both spell the CUDA one Kokkos::CudaHostPinnedSpace.
template <class ExecSpace>
struct staging_host_space {
  using type = Kokkos::HostSpace;
};
#if defined(KOKKOS_ENABLE_CUDA)
template <>
struct staging_host_space<Kokkos::Cuda> {
  using type = Kokkos::CudaHostPinnedSpace;
};
#endif

// When the work a call enqueued on an execution space instance has finished, asked without
// waiting and without keeping the instance: kmask's reusable staging memory goes back to its pool
// with one of these, and the next call that finds it finished may reuse that memory. CUDA records
// an event on the caller's stream (cudaEventQuery answers later, even once the stream is gone).
// Elsewhere the caller's own instance is fenced at release: host spaces run their kernels before
// returning anyway, and a device backend without an event here stays correct, only synchronous.
template <class ExecSpace>
class completion_marker {
 public:
  void record(const ExecSpace& exec) { exec.fence(); }
  void mark_finished() {}
  bool known_finished() const { return true; }
  bool finished() const { return true; }
  void wait() const {}
};

// An identity for the queue (stream) an instance enqueues on, compared and never dereferenced, and
// never given to two queues of one process: work enqueued under one identity runs in the order it
// was enqueued. Staging memory last used on the caller's own queue is what a call may wait for when
// the pool is exhausted, and what a scratch lease may take without asking (staging_pool). 0 where
// instances have no queue of their own, or no identity that a later queue could not reuse.
template <class ExecSpace>
std::uintptr_t queue_identity(const ExecSpace&) {
  return 0;
}

#if defined(KOKKOS_ENABLE_CUDA)
template <>
class completion_marker<Kokkos::Cuda> {
 public:
  completion_marker() {
    if (cudaEventCreateWithFlags(&event_, cudaEventDisableTiming) != cudaSuccess) event_ = nullptr;
  }
  ~completion_marker() {
    if (event_ != nullptr) cudaEventDestroy(event_);
  }
  completion_marker(const completion_marker&)            = delete;
  completion_marker& operator=(const completion_marker&) = delete;
  void record(const Kokkos::Cuda& exec) {
    done_ = false;
    if (event_ == nullptr || cudaEventRecord(event_, exec.cuda_stream()) != cudaSuccess) {
      exec.fence();  // no event: fall back to the caller's own stream, still correct
      recorded_ = false;
      return;
    }
    recorded_ = true;
  }
  // The caller fenced the stream after its last use: nothing to record or ask.
  void mark_finished() { recorded_ = false; }
  // Answered from memory once the event has been seen complete: a query is a driver call.
  bool known_finished() const { return !recorded_ || done_; }
  bool finished() const {
    if (!known_finished() && cudaEventQuery(event_) != cudaErrorNotReady) done_ = true;
    return known_finished();
  }
  void wait() const {
    if (!known_finished()) cudaEventSynchronize(event_);
    done_ = true;
  }

 private:
  cudaEvent_t event_ = nullptr;
  bool recorded_     = false;
  mutable bool done_ = false;
};

// CUDA 12's stream id, unique for the process's life: a stream handle's address can come back for
// a stream created after the first was destroyed with work still running. The null stream gets 0
// (under --default-stream per-thread it names a different stream on every host thread).
template <>
inline std::uintptr_t queue_identity<Kokkos::Cuda>(const Kokkos::Cuda& exec) {
#if defined(CUDART_VERSION) && CUDART_VERSION >= 12000
  cudaStream_t stream = exec.cuda_stream();
  unsigned long long id = 0;
  if (stream == nullptr) return 0;
  if (cudaStreamGetId(stream, &id) != cudaSuccess) {
    cudaGetLastError();  // leave no error behind for Kokkos' next check
    return 0;
  }
  return static_cast<std::uintptr_t>(id) + 1;  // +1: never 0, whatever ids the runtime uses
#else
  (void)exec;
  return 0;
#endif
}
#endif

// Whether the backend's launch holds a lock per kernel type around the launch itself, so that host
// threads launching one kernel type concurrently queue behind each other. Kokkos 3.4 and 4.x CUDA
// both do (a function-local static mutex in CudaParallelLaunchImpl::launch_kernel, held across the
// <<<>>>); a launch-bound kmask kernel is then instantiated once per launch slot
// (launch_tuning::launch_slots), so that threads in different slots never share that lock.
template <class ExecSpace>
constexpr bool launch_locked_per_kernel_type() {
#if defined(KOKKOS_ENABLE_CUDA)
  return std::is_same<ExecSpace, Kokkos::Cuda>::value;
#else
  return false;
#endif
}

// A launch whose functor carries its own descriptors (a list of a few dozen pieces, up to a few
// KiB): the functor goes with the launch as the kernel's arguments, nothing uploaded before it.
// Kokkos sends a functor over 512 bytes through constant memory by default, which its CUDA backend
// guards with one process-wide lock and a wait for the previous such launch (callers on separate
// streams would wait for each other); the light-weight hint keeps functors under
// argument_launch_max_bytes in the arguments instead. Kokkos 3.4 and 4.x spell it alike
// (Experimental::require, WorkItemProperty::HintLightWeight); backends without such launches ignore it.
template <class Policy>
auto argument_launch(const Policy& policy) {
  return Kokkos::Experimental::require(policy, Kokkos::Experimental::WorkItemProperty::HintLightWeight);
}
// The largest launch (functor and policy) carried in a kernel's arguments: Kokkos' CUDA and HIP
// KernelArgumentLimit, 4 KiB in 3.4 and in 4.x (4.x builds with grid constants allow more).
constexpr std::size_t argument_launch_max_bytes = 4096;

// Whether the calling thread may run a parallel region of Kokkos::DefaultHostExecutionSpace now.
// Kokkos 3.x's OpenMP can only be entered from the thread that initialised it (its per-thread
// instance pointer is null on every other thread, and the call aborts); from Kokkos 4.4 an OpenMP
// instance may be used from several threads (kokkos#6151), so any thread not already inside a
// parallel region may. Without OpenMP the pass stays on the calling thread.
// Kokkos::OpenMP::in_parallel() is deprecated in 4.x and gone without Kokkos_ENABLE_DEPRECATED_CODE_4
// (Kokkos 5): for the default instance, created outside any parallel region, it was
// omp_get_level() > 0, which is what 4.4+ asks OpenMP directly.
inline bool may_run_host_parallel() {
#if defined(KOKKOS_ENABLE_OPENMP)
  if (!std::is_same<Kokkos::DefaultHostExecutionSpace, Kokkos::OpenMP>::value) return false;
#if KOKKOS_VERSION < 40400
  return Kokkos::OpenMP::impl_is_initialized() && !Kokkos::OpenMP::in_parallel();
#else
  return omp_get_level() == 0;
#endif
#else
  return false;  // no threaded host space: the pass stays on the calling thread
#endif
}

// A profiling region open for one scope, so Kokkos Tools attribute the kernels inside it to the
// kmask call (Kokkos::Profiling::ScopedRegion exists only from 4.1; push/pop exist everywhere).
class scoped_region {
 public:
  explicit scoped_region(const std::string& name) { Kokkos::Profiling::pushRegion(name); }
  ~scoped_region() { Kokkos::Profiling::popRegion(); }
  scoped_region(const scoped_region&)            = delete;
  scoped_region& operator=(const scoped_region&) = delete;
};

}  // namespace detail
}  // namespace kmask

// ---- Device properties for launch shapes (detail::launch_tuning's users) ----

#include <vector>

namespace kmask {
namespace detail {

// What a launch shape needs of a device: its multiprocessors and the threads one keeps resident.
struct device_shape {
  std::int64_t multiprocessors;
  std::int64_t threads_per_multiprocessor;
};

// Any space without a query of its own: concurrency() as SMs of 2048 threads (at least one SM;
// fewer threads make one SM of that many), which is exact on NVIDIA GPUs of 2048 threads per SM.
template <class ExecSpace>
device_shape device_shape_of(const ExecSpace& exec) {
  const std::int64_t threads = static_cast<std::int64_t>(exec.concurrency());
  if (threads < 2048) return {1, threads > 1 ? threads : 1};
  return {threads / 2048, 2048};
}

#if defined(KOKKOS_ENABLE_CUDA)
// CUDA: the instance's device, asked once per device id (cudaDeviceGetAttribute, in Kokkos 3.4 and
// 4.x alike); the table is built by the first caller, thread-safely, and only read afterwards.
inline device_shape device_shape_of(const Kokkos::Cuda& exec) {
  const auto query = [](int device, device_shape& shape) {
    int sms = 0, threads = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerMultiProcessor, device) != cudaSuccess ||
        sms <= 0 || threads <= 0) {
      cudaGetLastError();  // leave no error behind for Kokkos' next check
      return false;
    }
    shape = {sms, threads};
    return true;
  };
  // One entry per device (multiprocessors 0: the query failed).
  static const std::vector<device_shape> known = [&] {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
      cudaGetLastError();
      count = 0;
    }
    std::vector<device_shape> shapes(static_cast<std::size_t>(count > 0 ? count : 0), device_shape{0, 0});
    for (int d = 0; d < count; ++d) query(d, shapes[static_cast<std::size_t>(d)]);
    return shapes;
  }();
  const int device = exec.cuda_device();
  if (device >= 0 && static_cast<std::size_t>(device) < known.size() &&
      known[static_cast<std::size_t>(device)].multiprocessors > 0)
    return known[static_cast<std::size_t>(device)];
  device_shape shape{};
  if (query(device, shape)) return shape;
  return device_shape_of<Kokkos::Cuda>(exec);  // the generic estimate from concurrency()
}
#endif

// Sets `bytes` bytes from `dest` to `byte`, ordered on the instance's queue, by the backend's own
// fill routine; false where kmask knows none for the space (the caller then writes them itself).
template <class ExecSpace>
bool fill_bytes_async(const ExecSpace&, void*, int, std::size_t) {
  return false;
}

#if defined(KOKKOS_ENABLE_CUDA)
// CUDA: cudaMemsetAsync on the instance's stream, from its own device only (a stream of another
// device is not the current device's to fill on); any failure leaves the work to the caller.
inline bool fill_bytes_async(const Kokkos::Cuda& exec, void* dest, int byte, std::size_t bytes) {
  int current = -1;
  if (cudaGetDevice(&current) != cudaSuccess || current != exec.cuda_device()) {
    cudaGetLastError();
    return false;
  }
  if (cudaMemsetAsync(dest, byte, bytes, exec.cuda_stream()) != cudaSuccess) {
    cudaGetLastError();  // leave no error behind for Kokkos' next check
    return false;
  }
  return true;
}
#endif

}  // namespace detail
}  // namespace kmask

// ---- Execution space instances that separate host threads may use at once (tests, benchmarks) ----

#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace kmask {
namespace detail {

// How Kokkos reports an allocation that no memory can satisfy (kmask lets it through; the
// resource-failure test checks it). Kokkos 3.x catches its own std::bad_alloc and rethrows a
// std::runtime_error that starts with a fixed sentence naming the label and the memory space;
// Kokkos 4 versions throw either a std::bad_alloc or a std::runtime_error naming the label.
struct allocation_failure_report {
  static constexpr bool may_be_bad_alloc = KOKKOS_VERSION >= 40000;
  // The start of the runtime_error's message for `label` in `space`, or "" where the versions'
  // wording differs and only the label is certain to be in it.
  static std::string runtime_error_prefix(const std::string& label, const std::string& space) {
#if KOKKOS_VERSION < 40000
    return "Kokkos failed to allocate memory for label \"" + label + "\".  Allocation using MemorySpace named \"" +
           space + "\" failed";
#else
    (void)label;
    (void)space;
    return {};
#endif
  }
};

// Kokkos::initialize with a number of host threads and warnings on or off, for programs that have
// no command line to pass (the fuzz targets): Kokkos::InitArguments through 3.x (deprecated in 4,
// gone without Kokkos_ENABLE_DEPRECATED_CODE_4), Kokkos::InitializationSettings from 4.0.
inline void initialize_kokkos(int num_threads, bool disable_warnings) {
#if KOKKOS_VERSION < 40000
  Kokkos::InitArguments args;
  args.num_threads      = num_threads;
  args.disable_warnings = disable_warnings;
  Kokkos::initialize(args);
#else
  Kokkos::initialize(
      Kokkos::InitializationSettings().set_num_threads(num_threads).set_disable_warnings(disable_warnings));
#endif
}

// "3.4.01" for KOKKOS_VERSION 30401.
inline std::string kokkos_version_string() {
  const int v = KOKKOS_VERSION;
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + (v % 100 < 10 ? "0" : "") +
         std::to_string(v % 100);
}

// How to make an instance of ExecSpace that one host thread may call into while other threads call
// into other instances, without Kokkos serialising or corrupting them. `make(count, release)`
// returns one of `count` such instances and may set `release` to what frees its backing once no
// copy of the instance is left. Unknown spaces: not independent (make gives the default instance).
template <class ExecSpace>
struct instance_support {
  static constexpr bool independent = false;
  static std::string why_not() {
    return std::string(ExecSpace::name()) + ": kmask knows no independent instances of this execution space";
  }
  static ExecSpace make(int /*count*/, std::function<void()>& /*release*/) { return ExecSpace(); }
};

#if defined(KOKKOS_ENABLE_CUDA)
// CUDA: Kokkos::Cuda(stream) on a stream made here (Kokkos 3.4 and 4.x alike; the stream is not
// Kokkos-managed, so `release` destroys it, after the instance's last copy is gone).
template <>
struct instance_support<Kokkos::Cuda> {
  static constexpr bool independent = true;
  static std::string why_not() { return {}; }
  static Kokkos::Cuda make(int /*count*/, std::function<void()>& release) {
    cudaStream_t stream = nullptr;
    const cudaError_t e = cudaStreamCreate(&stream);
    if (e != cudaSuccess) {
      cudaGetLastError();
      throw std::runtime_error(std::string("kmask: cudaStreamCreate failed: ") + cudaGetErrorString(e));
    }
    release = [stream] { cudaStreamDestroy(stream); };
    return Kokkos::Cuda(stream);
  }
};
#endif

#if defined(KOKKOS_ENABLE_SERIAL)
// Serial: Serial(NewInstance) exists from Kokkos 4.2, its TeamPolicy runs on the given instance from
// 4.3.01 (kokkos#6951) and submission is thread-safe from 4.4.00 (kokkos#7080). Before that one
// global team/reduction scratch (3.4: g_serial_thread_team_data) serves every call.
template <>
struct instance_support<Kokkos::Serial> {
#if KOKKOS_VERSION >= 40400
  static constexpr bool independent = true;
  static std::string why_not() { return {}; }
  static Kokkos::Serial make(int /*count*/, std::function<void()>& /*release*/) {
    return Kokkos::Serial(Kokkos::NewInstance{});
  }
#else
  static constexpr bool independent = false;
  static std::string why_not() {
    return "Kokkos " + kokkos_version_string() +
           " Serial has one global team/reduction scratch (g_serial_thread_team_data), so it cannot run calls from "
           "two threads at once; independent Serial instances (Serial(NewInstance)) are safe from Kokkos 4.4.00";
  }
  static Kokkos::Serial make(int /*count*/, std::function<void()>& /*release*/) { return Kokkos::Serial(); }
#endif
};
#endif

#if defined(KOKKOS_ENABLE_OPENMP)
// OpenMP: from Kokkos 4.4.00 (kokkos#6151) an instance of its own pool (OpenMP(pool_size), a share
// of the threads) may be called from any host thread; 3.x enters OpenMP only from the thread that
// initialised Kokkos (any other thread aborts: "in parallel or not initialized").
template <>
struct instance_support<Kokkos::OpenMP> {
#if KOKKOS_VERSION >= 40400
  static constexpr bool independent = true;
  static std::string why_not() { return {}; }
  static Kokkos::OpenMP make(int count, std::function<void()>& /*release*/) {
    const int threads = Kokkos::OpenMP().concurrency();
    return Kokkos::OpenMP(count > 0 && threads / count > 1 ? threads / count : 1);
  }
#else
  static constexpr bool independent = false;
  static std::string why_not() {
    return "Kokkos " + kokkos_version_string() +
           " OpenMP can only be entered from the thread that initialised Kokkos; OpenMP instances callable from "
           "other host threads need Kokkos 4.4.00";
  }
  static Kokkos::OpenMP make(int /*count*/, std::function<void()>& /*release*/) { return Kokkos::OpenMP(); }
#endif
};
#endif

// Whether ExecSpace has independent instances in this Kokkos, and if not, why not.
template <class ExecSpace>
constexpr bool independent_instances_supported() {
  return instance_support<ExecSpace>::independent;
}
template <class ExecSpace>
std::string independent_instances_unsupported_reason() {
  return instance_support<ExecSpace>::why_not();
}

// `count` instances of ExecSpace, one per host thread: independent ones where supported, otherwise
// `count` copies of the default instance (independent() says which). release() and the destructor
// fence them, drop every copy held here, then free their backing (CUDA streams), in that order.
template <class ExecSpace>
class execution_space_instances {
 public:
  explicit execution_space_instances(int count) {
    try {
      for (int i = 0; i < count; ++i) {
        std::function<void()> release;
        ExecSpace made = instance_support<ExecSpace>::make(count, release);
        if (release) releases_.push_back(std::move(release));
        spaces_.push_back(std::move(made));
      }
    } catch (...) {
      release();
      throw;
    }
  }
  ~execution_space_instances() { release(); }
  execution_space_instances(const execution_space_instances&)            = delete;
  execution_space_instances& operator=(const execution_space_instances&) = delete;

  static constexpr bool independent() { return independent_instances_supported<ExecSpace>(); }
  int size() const { return static_cast<int>(spaces_.size()); }
  const ExecSpace& operator[](int i) const { return spaces_[static_cast<std::size_t>(i)]; }
  void fence() const {
    for (const auto& s : spaces_) s.fence();
  }
  // The instances end here; copies kept elsewhere (a plan, a caller) then point at freed streams.
  void release() {
    fence();
    spaces_.clear();
    for (auto& r : releases_) r();
    releases_.clear();
  }

 private:
  std::vector<ExecSpace> spaces_;
  std::vector<std::function<void()>> releases_;
};

}  // namespace detail
}  // namespace kmask

#endif
