// The staging pool, kmask's one piece of process-wide state, from many host threads at once: every
// lease is exclusive (no two threads ever hold the same words), buffers grow for larger calls, and
// what a thread wrote through its lease is what it reads back before giving it up. Runs on every
// backend (the pool does not launch kernels), so the ThreadSanitizer build checks it with Kokkos 3.4
// too, where Kokkos' own host spaces cannot run kernels from two threads at once.

#include <atomic>
#include <thread>

TEST(TEST_CATEGORY, staging_pool_leases_are_exclusive_across_threads) {
  using pool             = kmask::detail::staging_pool<TEST_EXECSPACE>;
  constexpr int threads  = 8;
  constexpr int rounds   = 300;
  std::atomic<int> wrong{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([t, &wrong] {
      std::mt19937_64 rng(base_seed() + 700 + static_cast<std::uint64_t>(t));
      const TEST_EXECSPACE exec;
      for (int r = 0; r < rounds; ++r) {
        // Sizes across the growth steps, from one word to a quarter of a megabyte.
        const std::size_t words = std::size_t{1} << (rng() % 16);
        auto lease              = pool::acquire(exec, words, words, "kmask_test::staging_pool");
        std::uint64_t* host     = lease.host();
        const std::uint64_t tag = (static_cast<std::uint64_t>(t) << 32) | static_cast<std::uint64_t>(r);
        for (std::size_t w = 0; w < words; ++w) host[w] = tag ^ w;
        std::this_thread::yield();  // let other threads take and write their leases meanwhile
        for (std::size_t w = 0; w < words; ++w)
          if (host[w] != (tag ^ w)) {
            ++wrong;
            break;
          }
      }
    });
  for (auto& w : workers) w.join();
  EXPECT_EQ(wrong.load(), 0) << "a lease's words were written by another thread while it held them";
}

// A scratch lease (words only the call's kernels touch) takes the buffer its own queue gave back
// last, even where another queue gave back a smaller one since, which a plain lease would take; and
// two scratch leases held at once on one queue never share a buffer. Only where instances have
// queues with an identity of their own (CUDA streams with CUDA 12's stream ids).
TEST(TEST_CATEGORY, staging_pool_scratch_leases_take_their_queues_buffer) {
  using pool = kmask::detail::staging_pool<TEST_EXECSPACE>;
  kmask::detail::execution_space_instances<TEST_EXECSPACE> instances(2);
  const auto& a = instances[0];
  const auto& b = instances[1];
  if (kmask::detail::queue_identity(a) == 0 || kmask::detail::queue_identity(b) == 0)
    GTEST_SKIP() << TEST_EXECSPACE::name()
                 << ": its instances have no queue identity (host spaces run each call's kernels before it returns, "
                    "so no lease can be taken while earlier work on its queue is running)";
  ASSERT_NE(kmask::detail::queue_identity(a), kmask::detail::queue_identity(b));
  std::uint64_t* on_a = nullptr;
  {
    // Held together, so they are two buffers; a's is the larger, b's given back last.
    auto la = pool::acquire(a, 1 << 12, 1 << 12, "kmask_test::staging_pool::a");
    auto lb = pool::acquire(b, 1, 1, "kmask_test::staging_pool::b");
    on_a    = la.host();
    ASSERT_NE(on_a, lb.host());
    (void)la.zeroed();  // enqueues work on a, so its buffer goes back with a marker to ask
  }
  {
    auto s1 = pool::acquire_scratch(a, "kmask_test::staging_pool::scratch");
    EXPECT_EQ(s1.host(), on_a) << "a scratch lease did not take the buffer its own queue gave back last";
    auto s2 = pool::acquire_scratch(a, "kmask_test::staging_pool::scratch");
    EXPECT_NE(s2.host(), s1.host()) << "two scratch leases held at once share a buffer";
  }
  instances.fence();
}

// A buffer's completion marker says finished only once everything enqueued on its queue before the
// marker has run: the last kernel before it writes a round number into page-locked memory, behind
// a long kernel, and the host reads that number as soon as the marker says finished (CUDA: a stream
// memory write, or an event where those are refused).
namespace {
// The round the marker said finished at, and the round the host then read (outside the TEST body:
// CUDA's extended lambdas cannot sit in a private member function).
inline std::pair<std::uint64_t, std::uint64_t> marker_rounds(const TEST_EXECSPACE& exec) {
  using pool = kmask::detail::staging_pool<TEST_EXECSPACE>;
  // Filled on `exec`: a default-initialised host View would be filled by the default host space,
  // whose OpenMP threads ThreadSanitizer cannot follow.
  Kokkos::View<std::uint64_t*, typename pool::staging_space> seen(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "kmask_test::marker::seen"), 1);
  Kokkos::View<std::uint64_t*, typename TEST_EXECSPACE::memory_space> busy(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "kmask_test::marker::busy"), std::size_t{1} << 22);
  Kokkos::parallel_for("kmask_test::marker::clear", Kokkos::RangePolicy<TEST_EXECSPACE>(exec, 0, busy.extent(0)),
                       KOKKOS_LAMBDA(std::size_t i) {
                         busy(i) = i;
                         if (i == 0) seen(0) = 0;
                       });
  kmask::detail::completion_marker<TEST_EXECSPACE> marker;
  for (std::uint64_t round = 1; round <= 20; ++round) {
    Kokkos::parallel_for("kmask_test::marker::busy", Kokkos::RangePolicy<TEST_EXECSPACE>(exec, 0, busy.extent(0)),
                         KOKKOS_LAMBDA(std::size_t i) { busy(i) = busy(i) * 3 + round + i; });
    Kokkos::parallel_for("kmask_test::marker::last", Kokkos::RangePolicy<TEST_EXECSPACE>(exec, 0, 1),
                         KOKKOS_LAMBDA(std::size_t) { seen(0) = round; });
    marker.record(exec);
    while (!marker.finished()) std::this_thread::yield();
    const std::uint64_t got = *static_cast<const volatile std::uint64_t*>(seen.data());
    if (got != round) return {round, got};
  }
  marker.wait();
  exec.fence();
  return {0, 0};
}
}  // namespace

TEST(TEST_CATEGORY, staging_pool_marker_passes_after_earlier_work) {
  using pool = kmask::detail::staging_pool<TEST_EXECSPACE>;
  if (!pool::results_in_host_words)
    GTEST_SKIP() << TEST_EXECSPACE::name() << ": kernels cannot write the page-locked words the check reads";
  kmask::detail::execution_space_instances<TEST_EXECSPACE> instances(1);
  const auto r = marker_rounds(instances[0]);
  EXPECT_EQ(r.first, r.second) << "round " << r.first << ": the marker said finished before the kernel enqueued "
                               << "ahead of it had written (read " << r.second << ")";
}
