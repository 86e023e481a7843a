// Concurrency benchmarks (issue 14): T host threads (1, 2, 4, 8), each with an execution space
// instance of its own (CUDA: Kokkos::Cuda on a stream of its own), each making the same number of
// calls of one form: the allocating segmented_binop, inplace_segmented_binop, or a plan's execute.
// Each thread owns its masks, destinations, counts and plan. The reported time is per call: the
// wall time of the region (every instance fenced before and after it) / the calls made in it.
// speedup_vs_serial = the time of the same calls made one after another from one thread (the
// team's first, round-robin over the same T instances) / the time with T threads, both measured in each
// iteration (in alternating order). Counters: T, calls (per region), bytes (per call: each
// source word read once + each destination word written once), GB/s (all threads together),
// serial_us (per call, one thread), speedup_vs_serial.
//
// Names: concurrency/<alloc|inplace|plan>/segments:S/masks:M/bits:B/host_threads:T, on 100 x 4 x
// 2^20 bits and 2000 x 8 x 128 bits, AND, sources at shifted bit offsets. Diagnostic forms split
// the in-place call: host_pass (its host work alone), empty_launch (one Kokkos launch of a kernel
// that does nothing: what launches from T threads can gain at all), empty_launch_per_thread (the
// same, each thread launching a kernel type of its own: Kokkos' per-type launch lock out of the
// way) and, on CUDA, empty_cuda_launch (the kernel launched with <<<>>>: the driver's share).
//
// Where this Kokkos has no independent instances of the space (Kokkos 3.4's Serial and OpenMP),
// every case is skipped with the reason.

#include "bench_support.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>
#include <utility>

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#include <unistd.h>
#endif

namespace kmask_bench {
namespace {

struct concurrency_shape {
  size_type segments;
  size_type masks_per_segment;
  size_type size_bits;
};

// The call forms, and two diagnostic forms that split the in-place call: host_pass is its host
// work alone (describe + encode into host memory: no lease, no upload, no launch); empty_launch
// one Kokkos launch of a kernel that does nothing, and, on CUDA, empty_cuda_launch the same
// launched with <<<>>> on the stream (so the driver's part and Kokkos' part of a launch separate).
// empty_launch_per_thread is empty_launch with a kernel type per thread (up to 8).
enum class call_form { allocating, in_place, plan, host_pass, empty_launch, empty_launch_per_thread, empty_cuda_launch };

const char* form_name(call_form f) {
  switch (f) {
    case call_form::allocating: return "alloc";
    case call_form::in_place: return "inplace";
    case call_form::plan: return "plan";
    case call_form::host_pass: return "host_pass";
    case call_form::empty_launch: return "empty_launch";
    case call_form::empty_launch_per_thread: return "empty_launch_per_thread";
    default: return "empty_cuda_launch";
  }
}

// Calls each thread makes per timed region (and the one thread, per instance, in the serial region).
constexpr int calls_per_thread = 8;

// Sources at shifted bit offsets, as bench_segmented_binop's unaligned cases.
size_type begin_bit_of(size_type j) { return 1 + (j * 7) % 31; }

// Per thread: the sources, a destination per segment and the allocating form's result.
size_type working_set_bytes(const concurrency_shape& c) {
  return c.segments * (c.masks_per_segment + 2) * kmask::allocation_size_bytes(c.size_bits + 32);
}

double bytes_per_call(const concurrency_shape& c) {
  return static_cast<double>(c.segments) * static_cast<double>(c.masks_per_segment + 1) *
         static_cast<double>(kmask::num_words(c.size_bits)) * sizeof(word_type);
}

// SkipWithMessage where the installed Google Benchmark has it (1.8 on), SkipWithError before.
template <class State>
auto skip_with(State& state, const std::string& why, int) -> decltype(state.SkipWithMessage(why), void()) {
  state.SkipWithMessage(why);
}
template <class State>
void skip_with(State& state, const std::string& why, long) {
  state.SkipWithError(why.c_str());
}

// One thread's problem, made on its instance outside every timed region.
struct thread_case {
  exec_space exec;
  int thread = 0;
  std::vector<Kokkos::View<word_type*, memory_space>> sources, destinations;
  std::vector<size_type> begin_bits, offsets;
  Kokkos::View<size_type*, memory_space> null_counts;
  std::unique_ptr<kmask::segmented_binop_plan<exec_space>> plan;
  mutable std::vector<std::uint64_t> host_buffers[2];  // host_pass's descriptor memory
};

std::unique_ptr<thread_case> prepare(const exec_space& exec, const concurrency_shape& c, call_form form, int thread) {
  auto p  = std::make_unique<thread_case>();
  p->exec   = exec;
  p->thread = thread;
  const bool launch_only = form == call_form::empty_launch || form == call_form::empty_launch_per_thread ||
                           form == call_form::empty_cuda_launch;
  for (size_type s = 0; s < (launch_only ? 0 : c.segments); ++s) {
    p->offsets.push_back(static_cast<size_type>(p->sources.size()));
    for (size_type k = 0; k < c.masks_per_segment; ++k) {
      const size_type j = static_cast<size_type>(p->sources.size());
      const size_type b = begin_bit_of(j + thread);
      Kokkos::View<word_type*, memory_space> m(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "bench::source"),
                                               kmask::num_words(b + c.size_bits));
      fill_random(exec, m, static_cast<std::uint64_t>(thread) * 1000003u + static_cast<std::uint64_t>(j));
      p->sources.push_back(m);
      p->begin_bits.push_back(b);
    }
    if (form != call_form::allocating)
      p->destinations.push_back(Kokkos::View<word_type*, memory_space>(
          Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "bench::destination"), kmask::num_words(c.size_bits)));
  }
  p->offsets.push_back(static_cast<size_type>(p->sources.size()));
  p->null_counts = Kokkos::View<size_type*, memory_space>(Kokkos::view_alloc(exec, "bench::null_counts"), c.segments);
  if (form == call_form::plan)
    p->plan = std::make_unique<kmask::segmented_binop_plan<exec_space>>(exec, p->destinations, p->sources,
                                                                        p->begin_bits, c.size_bits, p->offsets);
  exec.fence();
  return p;
}

// Descriptor memory in plain host memory the thread owns, for host_pass: encode() writes into it
// as into a lease, and nothing is uploaded.
struct host_words_store {
  std::vector<std::uint64_t>* words;
  std::uint64_t* host() const { return words->data(); }
  std::uint64_t* device() const { return words->data(); }
  void upload(std::size_t, std::size_t) const {}
};
struct host_words_stores {
  using store = host_words_store;
  std::vector<std::uint64_t>* buffers;  // two: descriptors, scratch
  store operator()(const exec_space&, std::size_t device_words, std::size_t host_words, const char* what) const {
    std::vector<std::uint64_t>& b = buffers[std::string(what) == "scratch" ? 1 : 0];
    if (b.size() < std::max(device_words, host_words)) b.resize(std::max(device_words, host_words));
    return {&b};
  }
};

#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDACC__)
__global__ void empty_cuda_kernel() {}
#endif

// An empty kernel of a type of its own per Slot.
template <int Slot>
struct empty_slot_kernel {
  Kokkos::View<size_type*, memory_space> counts;
  KOKKOS_FUNCTION void operator()(size_type) const {}
};

template <int... Slots>
void launch_empty_of_slot(const thread_case& p, std::integer_sequence<int, Slots...>) {
  const int slot = p.thread % static_cast<int>(sizeof...(Slots));
  const auto launch = [&](auto kernel) {
    Kokkos::parallel_for("bench::empty_launch_per_thread",
                         Kokkos::RangePolicy<exec_space, Kokkos::IndexType<size_type>>(p.exec, 0, 1), kernel);
  };
  (void)((slot == Slots ? (launch(empty_slot_kernel<Slots>{p.null_counts}), true) : false) || ...);
}

// One call of `form` on the thread's instance. The allocating form waits for its result before
// releasing it (as an engine reading it would, and as bench_segmented_binop's allocating case does).
void call_once(const thread_case& p, const concurrency_shape& c, call_form form) {
  switch (form) {
    case call_form::allocating: {
      const auto r = kmask::segmented_binop(p.exec, kmask::bit_and{}, p.sources, p.begin_bits, c.size_bits, p.offsets);
      p.exec.fence();
      break;
    }
    case call_form::in_place:
      kmask::inplace_segmented_binop(p.exec, kmask::bit_and{}, p.destinations, p.sources, p.begin_bits, c.size_bits,
                                     p.offsets, p.null_counts);
      break;
    case call_form::plan: p.plan->execute(p.exec, kmask::bit_and{}, p.null_counts); break;
    case call_form::host_pass: {
      using views = Kokkos::View<word_type*, memory_space>;
      const auto e = kmask::detail::encode(
          p.exec,
          kmask::detail::describe(kmask::detail::arg_names{"bench::host_pass"},
                                  kmask::detail::view_sources<views>{p.sources.data(), p.begin_bits.data(),
                                                                      p.sources.size()},
                                  kmask::detail::view_dests<views>{p.destinations.data(), p.destinations.size()},
                                  c.size_bits, p.offsets),
          host_words_stores{p.host_buffers});
      benchmark::DoNotOptimize(e.num_segments);
      break;
    }
    case call_form::empty_cuda_launch:
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDACC__)
      empty_cuda_kernel<<<1, 1, 0, p.exec.cuda_stream()>>>();
#endif
      break;
    case call_form::empty_launch_per_thread: launch_empty_of_slot(p, std::make_integer_sequence<int, 8>{}); break;
    case call_form::empty_launch: {
      // The floor under every asynchronous call: one Kokkos kernel launch that does nothing.
      const auto counts = p.null_counts;
      Kokkos::parallel_for(
          "bench::empty_launch", Kokkos::RangePolicy<exec_space, Kokkos::IndexType<size_type>>(p.exec, 0, 1),
          KOKKOS_LAMBDA(size_type) { (void)counts; });
      break;
    }
  }
}

// T host threads that each run job(t) once per round. Between rounds they sleep on a condition
// variable; a round first wakes them and waits until all are spinning at the start line, then
// starts the clock and lets them go, so waking them is not timed; the clock stops when the last
// one has finished (its job ends with a fence of its instance).
class thread_team {
 public:
  thread_team(int n, std::function<void(int)> job) : n_(n), job_(std::move(job)) {
    for (int t = 0; t < n_; ++t) threads_.emplace_back([this, t] { work(t); });
  }
  ~thread_team() {
    {
      const std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& th : threads_) th.join();
  }
  thread_team(const thread_team&)            = delete;
  thread_team& operator=(const thread_team&) = delete;

  // Seconds from the start signal to the last thread's end (after `before`, untimed, once all wait).
  template <class Before>
  double run_round(Before&& before) {
    armed_.store(0);
    done_.store(0);
    go_.store(false);
    {
      const std::lock_guard<std::mutex> lock(m_);
      ++round_;
    }
    cv_.notify_all();
    while (armed_.load(std::memory_order_acquire) < n_) std::this_thread::yield();
    before();
    const auto start = std::chrono::steady_clock::now();
    go_.store(true, std::memory_order_release);
    while (done_.load(std::memory_order_acquire) < n_) std::this_thread::yield();
    const auto stop = std::chrono::steady_clock::now();
    if (error_) {
      const auto e = error_;
      error_       = nullptr;
      std::rethrow_exception(e);
    }
    return std::chrono::duration<double>(stop - start).count();
  }

 private:
  // With OMP_PROC_BIND set, the OpenMP runtime binds the thread that initialised Kokkos to one core
  // and every std::thread it starts inherits that one-core mask: the T "parallel" callers would
  // share a core (measured on the H200 host: host-bound calls were T times slower per call). A
  // caller thread of an application is not bound so; neither are these.
  static void use_every_core() {
#if defined(__linux__)
    cpu_set_t all;
    CPU_ZERO(&all);
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    for (long c = 0; c < n && c < CPU_SETSIZE; ++c) CPU_SET(static_cast<int>(c), &all);
    pthread_setaffinity_np(pthread_self(), sizeof(all), &all);
#endif
  }

  void work(int t) {
    use_every_core();
    long seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(m_);
        cv_.wait(lock, [&] { return stop_ || round_ != seen; });
        if (stop_) return;
        seen = round_;
      }
      armed_.fetch_add(1, std::memory_order_acq_rel);
      while (!go_.load(std::memory_order_acquire)) std::this_thread::yield();
      try {
        job_(t);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(m_);
        if (!error_) error_ = std::current_exception();
      }
      done_.fetch_add(1, std::memory_order_acq_rel);
    }
  }

  int n_;
  std::function<void(int)> job_;
  std::vector<std::thread> threads_;
  std::mutex m_;
  std::condition_variable cv_;
  long round_ = 0;
  bool stop_  = false;
  std::atomic<int> armed_{0}, done_{0};
  std::atomic<bool> go_{false};
  std::exception_ptr error_;
};

void run_concurrency(benchmark::State& state, concurrency_shape c, call_form form, int threads) {
  if (!kmask::detail::independent_instances_supported<exec_space>()) {
    skip_with(state, "independent instances unsupported: " +
                         kmask::detail::independent_instances_unsupported_reason<exec_space>(), 0);
    return;
  }
  if (threads * working_set_bytes(c) > max_bytes()) {
    skip_with(state, "working set exceeds KMASK_BENCH_MAX_BYTES", 0);
    return;
  }
  kmask::detail::execution_space_instances<exec_space> instances(threads);
  std::vector<std::unique_ptr<thread_case>> cases;
  try {
    for (int t = 0; t < threads; ++t) cases.push_back(prepare(instances[t], c, form, t));
  } catch (const std::exception& e) {
    state.SkipWithError((std::string("preparing the case failed: ") + e.what()).c_str());
    return;
  }
  const int calls = threads * calls_per_thread;

  double threaded_total = 0, serial_total = 0;
  {
    // Both orders run on the team's threads: in a serial round thread 0 makes all the calls,
    // round-robin over the instances, and the others stay idle. (Made from this thread instead,
    // one worker's calls at T = 1 read 0.73-0.84 of the same calls here: each round ran on
    // another core than the one before it.)
    std::atomic<bool> serial{false};
    thread_team team(threads, [&](int t) {
      if (serial.load(std::memory_order_acquire)) {
        if (t != 0) return;
        for (int k = 0; k < calls_per_thread; ++k)
          for (int u = 0; u < threads; ++u) call_once(*cases[static_cast<std::size_t>(u)], c, form);
        instances.fence();
        return;
      }
      const thread_case& p = *cases[static_cast<std::size_t>(t)];
      for (int k = 0; k < calls_per_thread; ++k) call_once(p, c, form);
      p.exec.fence();
    });
    // Every instance fenced before the clock starts; each thread fences its own before it is done,
    // and all are fenced again inside the region (a no-op by then, timed all the same).
    const auto timed_round = [&](bool serial_order) {
      serial.store(serial_order, std::memory_order_release);
      const double seconds = team.run_round([&] { instances.fence(); });
      const auto start = std::chrono::steady_clock::now();
      instances.fence();
      return seconds + std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    const auto serial_round   = [&] { return timed_round(true); };
    const auto threaded_round = [&] { return timed_round(false); };
    try {
      serial_round();  // warm-up: first calls on each instance, first wake-up of the threads
      threaded_round();
      bool serial_first = true;
      for (auto _ : state) {
        if (serial_first) serial_total += serial_round();
        const double threaded = threaded_round();
        if (!serial_first) serial_total += serial_round();
        serial_first = !serial_first;
        threaded_total += threaded;
        state.SetIterationTime(threaded / calls);
      }
    } catch (const std::exception& e) {
      state.SkipWithError((std::string("kmask call failed: ") + e.what()).c_str());
    }
  }
  set_rates(state, bytes_per_call(c));
  state.counters["T"]     = threads;
  state.counters["calls"] = calls;
  if (state.iterations() > 0 && threaded_total > 0) {
    const double iterations            = static_cast<double>(state.iterations());
    state.counters["serial_us"]         = 1e6 * serial_total / (iterations * calls);
    state.counters["speedup_vs_serial"] = serial_total / threaded_total;
  }
  cases.clear();
  instances.release();
}

std::string case_name(call_form form, const concurrency_shape& c, int threads) {
  std::ostringstream os;
  os << "concurrency/" << form_name(form) << "/segments:" << c.segments << "/masks:" << c.masks_per_segment
     << "/bits:" << c.size_bits << "/host_threads:" << threads;
  return os.str();
}

// Registered before main() (benchmark_main.cpp calls the other files' registrations), so these run
// first in an unfiltered run.
bool register_concurrency_benchmarks() {
  for (const concurrency_shape& c : {concurrency_shape{100, 4, size_type{1} << 20}, concurrency_shape{2000, 8, 128}})
    for (int threads : {1, 2, 4, 8})
      for (call_form form : {call_form::allocating, call_form::in_place, call_form::plan, call_form::host_pass,
                             call_form::empty_launch, call_form::empty_launch_per_thread,
                             call_form::empty_cuda_launch}) {
        const bool shape_free = form == call_form::empty_launch || form == call_form::empty_launch_per_thread ||
                                form == call_form::empty_cuda_launch;
        if (shape_free && c.segments != 100) continue;  // once per T
#if !defined(KOKKOS_ENABLE_CUDA)
        if (form == call_form::empty_cuda_launch) continue;
#endif
        benchmark::RegisterBenchmark(case_name(form, c, threads).c_str(),
                                     [c, form, threads](benchmark::State& s) { run_concurrency(s, c, form, threads); })
            ->UseManualTime()
            ->Unit(benchmark::kMicrosecond);
      }
  return true;
}

[[maybe_unused]] const bool registered = register_concurrency_benchmarks();

}  // namespace
}  // namespace kmask_bench
