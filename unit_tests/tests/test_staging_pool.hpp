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
