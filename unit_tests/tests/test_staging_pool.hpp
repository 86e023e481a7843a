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
