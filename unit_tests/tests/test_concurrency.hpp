// kmask called from several host threads at once, each thread on an execution space instance of its
// own (CUDA: a stream of its own), and called again after the instances (streams) of earlier calls
// are gone. Every result is checked against the scalar reference, bit for bit, null counts too.
//
// The threads touch nothing of Kokkos but their own instance: masks go up and come back through
// deep copies on that instance (host memory spaces are read and written directly), and views are
// allocated with it and without initialisation, so a failure here is kmask's, not the harness's.
// (A Kokkos 3.4 host mirror would be initialised on the default host space, which aborts when
// entered from a second thread.)

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

namespace {
namespace concurrency {

// Failures of one thread (or one phase), reported by the main thread once the threads are joined.
struct problems {
  std::vector<std::string> messages;
  std::size_t total = 0;
  std::string context;
  void add(const std::string& m) {
    if (++total <= 20) messages.push_back(context + ": " + m);
  }
  void report() const {
    for (const auto& m : messages) ADD_FAILURE() << m;
    if (total > messages.size()) ADD_FAILURE() << (total - messages.size()) << " more failures not shown";
  }
};

template <class ExecSpace>
constexpr bool host_accessible() {
  return Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;
}

// `n` uninitialised elements in ExecSpace's memory, allocated with `exec`. The sanitized build's
// exact-size host buffers come from one registry shared by all threads: taken under a lock.
template <class T, class ExecSpace>
Kokkos::View<T*, typename ExecSpace::memory_space> allocate(const ExecSpace& exec, std::size_t n,
                                                            const std::string& label) {
  using memory_space = typename ExecSpace::memory_space;
#if defined(KMASK_TEST_EXACT_HOST_ALLOCATIONS)
  if constexpr (host_accessible<ExecSpace>()) {
    static std::mutex registry_lock;
    const std::lock_guard<std::mutex> lock(registry_lock);
    return exact_view<T, memory_space>(n, label);
  }
#endif
  return Kokkos::View<T*, memory_space>(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, label), n);
}

template <class T>
using host_unmanaged = Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

template <class T, class ExecSpace>
Kokkos::View<T*, typename ExecSpace::memory_space> upload(const ExecSpace& exec, const std::vector<T>& host,
                                                          const std::string& label) {
  auto d = allocate<T>(exec, host.size(), label);
  if constexpr (host_accessible<ExecSpace>()) {
    std::copy(host.begin(), host.end(), d.data());
  } else {
    Kokkos::deep_copy(exec, d, host_unmanaged<const T>(host.data(), host.size()));
    exec.fence();  // `host` is pageable memory the copy reads
  }
  return d;
}

// `n` elements from `p` in ExecSpace's memory, after everything enqueued on `exec`.
template <class T, class ExecSpace>
std::vector<T> download(const ExecSpace& exec, const T* p, std::size_t n) {
  std::vector<T> out(n);
  if constexpr (host_accessible<ExecSpace>()) {
    exec.fence();
    std::copy(p, p + n, out.begin());
  } else {
    Kokkos::deep_copy(exec, host_unmanaged<T>(out.data(), n),
                      Kokkos::View<const T*, typename ExecSpace::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(p, n));
    exec.fence();
  }
  return out;
}

template <class T, class ExecSpace>
void fill(const ExecSpace& exec, const Kokkos::View<T*, typename ExecSpace::memory_space>& d, T value) {
  if constexpr (host_accessible<ExecSpace>()) {
    std::fill_n(d.data(), d.extent(0), value);
  } else {
    Kokkos::deep_copy(exec, d, value);
  }
}

// Rows of one poisoned allocation, `words` words each, one poisoned word between rows.
template <class ExecSpace>
std::pair<view_t<ExecSpace>, std::vector<view_t<ExecSpace>>> poisoned_rows(const ExecSpace& exec, size_type rows,
                                                                             size_type words) {
  const size_type stride = words + 1;
  auto backing           = allocate<word_type>(exec, static_cast<std::size_t>(rows * stride), "test::concurrency::rows");
  fill(exec, backing, poison);
  std::vector<view_t<ExecSpace>> out;
  for (size_type s = 0; s < rows; ++s)
    out.push_back(Kokkos::subview(backing, std::make_pair(static_cast<std::size_t>(s * stride),
                                                          static_cast<std::size_t>(s * stride + words))));
  return {backing, out};
}

// Compares segment `s`'s words from `got` (at `at`, `words` of them, then `tail` words that must
// equal `tail_value`) with the reference.
inline void compare_row(problems& p, const char* fn, size_type s, const ref::result& e, const std::vector<word_type>& got,
                        std::size_t at, std::size_t tail, word_type tail_value) {
  for (std::size_t w = 0; w < e.mask.size() + tail; ++w) {
    const word_type want = w < e.mask.size() ? e.mask[w] : tail_value;
    if (got[at + w] != want) {
      std::ostringstream os;
      os << fn << ": segment " << s << " word " << w << (w < e.mask.size() ? "" : " (past the mask)") << ": expected 0x"
         << std::hex << want << " got 0x" << got[at + w];
      p.add(os.str());
      return;
    }
  }
}

inline void compare_count(problems& p, const char* fn, size_type s, size_type want, size_type got) {
  if (want != got) {
    std::ostringstream os;
    os << fn << ": segment " << s << " count " << got << ", expected " << want;
    p.add(os.str());
  }
}

// One round of every kmask call family on `exec`, over a random shape (small, or ~2^16 bits when
// `wide`) with sources at shifted bit offsets: segmented_binop, inplace_segmented_binop, a plan's
// execute (twice, the last op wins), binop, inplace_binop, copy_bitmask, count_set_bits,
// segmented_count_set_bits, concatenate, bools_to_mask, gather_bits and superimpose_nulls, each
// checked against the reference.
template <class ExecSpace, class Op>
void every_call_once(const ExecSpace& exec, Op op, std::mt19937_64& rng, bool wide, problems& p) {
  using memory_space = typename ExecSpace::memory_space;
  using source_view  = Kokkos::View<const word_type*, memory_space>;
  const size_type bits = wide ? (size_type{1} << 16) + static_cast<size_type>(rng() % 97)
                              : 1 + static_cast<size_type>(rng() % 300);
  const size_type segs = wide ? 1 + static_cast<size_type>(rng() % 3) : 1 + static_cast<size_type>(rng() % 12);
  const host_case c    = random_case(rng, segs, wide ? 3 : 5, bits);
  const auto o         = ref_op(op);
  const size_type S = c.num_segments(), words = kmask::num_words(bits);
  const size_type row_words = kmask::allocation_size_bytes(bits) / static_cast<size_type>(sizeof(word_type));
  {
    std::ostringstream os;
    os << "; segments = " << S << ", size_bits = " << bits << ", op " << static_cast<int>(o);
    p.context += os.str();
  }
  std::vector<source_view> masks;
  for (const auto& s : c.sources) masks.push_back(upload(exec, s, "test::concurrency::source"));
  std::vector<ref::result> expected;
  for (size_type s = 0; s < S; ++s) expected.push_back(c.expected(o, s));

  {  // The allocating form: rows padded to 64 bytes, padding 0.
    const auto res = kmask::segmented_binop(exec, op, masks, c.begin_bits, bits, c.offsets);
    if (static_cast<size_type>(res.masks.extent(0)) != S || static_cast<size_type>(res.masks.extent(1)) != row_words ||
        static_cast<size_type>(res.null_counts.extent(0)) != S) {
      p.add("segmented_binop: result extents");
    } else {
      const auto rows   = download(exec, res.masks.data(), static_cast<std::size_t>(S * row_words));
      const auto counts = download(exec, res.null_counts.data(), static_cast<std::size_t>(S));
      for (size_type s = 0; s < S; ++s) {
        compare_row(p, "segmented_binop", s, expected[s], rows, static_cast<std::size_t>(s * row_words),
                    static_cast<std::size_t>(row_words - words), 0u);
        compare_count(p, "segmented_binop", s, expected[s].nulls, counts[s]);
      }
    }
  }
  {  // In place, into poisoned rows; the counter after the last segment stays poisoned.
    const auto dests = poisoned_rows(exec, S, words);
    auto counts      = allocate<size_type>(exec, static_cast<std::size_t>(S + 1), "test::concurrency::counts");
    fill(exec, counts, size_type{-777});
    kmask::inplace_segmented_binop(exec, op, dests.second, masks, c.begin_bits, bits, c.offsets, counts);
    const auto got     = download(exec, dests.first.data(), dests.first.extent(0));
    const auto got_cnt = download(exec, counts.data(), counts.extent(0));
    for (size_type s = 0; s < S; ++s) {
      compare_row(p, "inplace_segmented_binop", s, expected[s], got, static_cast<std::size_t>(s * (words + 1)), 1,
                  poison);
      compare_count(p, "inplace_segmented_binop", s, expected[s].nulls, got_cnt[s]);
    }
    compare_count(p, "inplace_segmented_binop (counter past the segments)", S, -777, got_cnt[S]);
  }
  {  // A plan of this thread's, run twice on its instance: XOR first, then `op`.
    const auto dests = poisoned_rows(exec, S, words);
    auto counts      = allocate<size_type>(exec, static_cast<std::size_t>(S + 1), "test::concurrency::counts");
    fill(exec, counts, size_type{-777});
    const kmask::segmented_binop_plan<ExecSpace> plan(exec, dests.second, masks, c.begin_bits, bits, c.offsets);
    plan.execute(exec, kmask::bit_xor{}, counts);
    plan.execute(exec, op, counts);
    const auto got     = download(exec, dests.first.data(), dests.first.extent(0));
    const auto got_cnt = download(exec, counts.data(), counts.extent(0));
    for (size_type s = 0; s < S; ++s) {
      compare_row(p, "segmented_binop_plan::execute", s, expected[s], got, static_cast<std::size_t>(s * (words + 1)), 1,
                  poison);
      compare_count(p, "segmented_binop_plan::execute", s, expected[s].nulls, got_cnt[s]);
    }
    compare_count(p, "segmented_binop_plan::execute (counter past the segments)", S, -777, got_cnt[S]);
  }
  {  // binop and inplace_binop over the first segment's sources (possibly none: the identity).
    const std::vector<source_view> seg(masks.begin() + c.offsets[0], masks.begin() + c.offsets[1]);
    const std::vector<size_type> begins(c.begin_bits.begin() + c.offsets[0], c.begin_bits.begin() + c.offsets[1]);
    const auto r = kmask::binop(exec, op, seg, begins, bits);
    if (static_cast<size_type>(r.first.extent(0)) != row_words) {
      p.add("binop: result extent");
    } else {
      compare_row(p, "binop", 0, expected[0], download(exec, r.first.data(), r.first.extent(0)), 0,
                  static_cast<std::size_t>(row_words - words), 0u);
    }
    compare_count(p, "binop", 0, expected[0].nulls, r.second);
    const auto dest = poisoned_rows(exec, 1, words);
    compare_count(p, "inplace_binop", 0, expected[0].nulls, kmask::inplace_binop(exec, op, dest.second[0], seg, begins, bits));
    compare_row(p, "inplace_binop", 0, expected[0], download(exec, dest.first.data(), dest.first.extent(0)), 0, 1, poison);
  }
  if (!c.sources.empty()) {  // copy_bitmask and the counts over a random range of one source
    const std::size_t j  = static_cast<std::size_t>(rng() % c.sources.size());
    const auto& src      = c.sources[j];
    const size_type cap  = 32 * static_cast<size_type>(src.size());
    const size_type b    = static_cast<size_type>(rng() % static_cast<std::uint64_t>(cap));
    const size_type e    = b + static_cast<size_type>(rng() % static_cast<std::uint64_t>(cap - b + 1));
    const auto copy      = kmask::copy_bitmask(exec, masks[j], b, e);
    const auto want_copy = ref::slice(src, b, e);
    const auto got_copy  = download(exec, copy.data(), copy.extent(0));
    if (static_cast<size_type>(got_copy.size()) != kmask::allocation_size_bytes(e - b) / 4) {
      p.add("copy_bitmask: result extent");
    } else {
      compare_row(p, "copy_bitmask", 0, ref::result{want_copy, 0}, got_copy, 0, got_copy.size() - want_copy.size(), 0u);
    }
    compare_count(p, "count_set_bits", 0, ref::count_set(src, b, e), kmask::count_set_bits(exec, masks[j], b, e));
    std::vector<size_type> ranges;
    for (int r = 0; r < 5; ++r) {
      const size_type rb = static_cast<size_type>(rng() % static_cast<std::uint64_t>(cap + 1));
      ranges.push_back(rb);
      ranges.push_back(rb + static_cast<size_type>(rng() % static_cast<std::uint64_t>(cap - rb + 1)));
    }
    const auto counts = kmask::segmented_count_set_bits(exec, masks[j], ranges);
    const auto got    = download(exec, counts.data(), counts.extent(0));
    if (got.size() != ranges.size() / 2) {
      p.add("segmented_count_set_bits: result extent");
    } else {
      for (std::size_t r = 0; r < got.size(); ++r)
        compare_count(p, "segmented_count_set_bits", static_cast<size_type>(r),
                      ref::count_set(src, ranges[2 * r], ranges[2 * r + 1]), got[r]);
    }
  }
  if (!c.sources.empty()) {  // the synchronous calls that return a count the kernel writes for the host
    // concatenate: 3 pieces (carried in the launch's arguments) or, wide, 70 (an uploaded list).
    const std::size_t pieces = wide ? 70 : 3;
    std::vector<source_view> piece_views;
    std::vector<const ref::words*> piece_refs;
    std::vector<size_type> begins, sizes;
    for (std::size_t k = 0; k < pieces; ++k) {
      const std::size_t j = static_cast<std::size_t>(rng() % c.sources.size());
      const size_type cap = 32 * static_cast<size_type>(c.sources[j].size());
      const size_type b   = static_cast<size_type>(rng() % static_cast<std::uint64_t>(cap + 1));
      const size_type most = std::min<size_type>(cap - b, 300);
      const size_type n    = static_cast<size_type>(rng() % static_cast<std::uint64_t>(most + 1));
      piece_views.push_back(masks[j]);
      piece_refs.push_back(&c.sources[j]);
      begins.push_back(b);
      sizes.push_back(n);
    }
    const auto cat      = kmask::concatenate(exec, piece_views, begins, sizes);
    const auto want_cat = ref::concatenate(piece_refs, begins, sizes);
    compare_row(p, "concatenate", 0, want_cat, download(exec, cat.first.data(), cat.first.extent(0)), 0, 0, 0u);
    compare_count(p, "concatenate", 0, want_cat.nulls, cat.second);
    // bools_to_mask of bytes that start 0 or 1 byte past the allocation (aligned or shifted loads).
    const std::size_t n_bytes = static_cast<std::size_t>(rng() % (wide ? 70000 : 700));
    const std::size_t skip    = static_cast<std::size_t>(rng() % 2);
    std::vector<std::uint8_t> bytes(n_bytes + skip);
    for (auto& v : bytes) v = static_cast<std::uint8_t>(rng() % 3 == 0 ? 0 : rng() % 256);
    const auto all_bytes = upload(exec, bytes, "test::concurrency::bytes");
    const Kokkos::View<const std::uint8_t*, memory_space> values =
        Kokkos::subview(all_bytes, std::make_pair(skip, skip + n_bytes));
    const auto made      = kmask::bools_to_mask(exec, values);
    const auto want_made =
        ref::from_bytes(std::vector<std::uint8_t>(bytes.begin() + static_cast<std::ptrdiff_t>(skip), bytes.end()));
    compare_row(p, "bools_to_mask", 0, want_made, download(exec, made.first.data(), made.first.extent(0)), 0, 0, 0u);
    compare_count(p, "bools_to_mask", 0, want_made.nulls, made.second);
    // gather_bits of one source: checked indices all in range (the reporting form), then nullify
    // with some out of range.
    const std::size_t j   = static_cast<std::size_t>(rng() % c.sources.size());
    const size_type cap   = 32 * static_cast<size_type>(c.sources[j].size());
    const size_type gb    = static_cast<size_type>(rng() % static_cast<std::uint64_t>(cap));
    const size_type gsize = cap - gb;
    for (const auto policy : {kmask::gather_policy::check, kmask::gather_policy::nullify}) {
      const bool nullify = policy == kmask::gather_policy::nullify;
      std::vector<std::int32_t> idx(static_cast<std::size_t>(rng() % (wide ? 5000 : 200)));
      std::vector<std::int64_t> idx64;
      const std::uint64_t spread = static_cast<std::uint64_t>(gsize + (nullify ? 4 : 0));
      for (auto& i : idx) {
        i = static_cast<std::int32_t>(rng() % spread) - (nullify ? 2 : 0);
        idx64.push_back(i);
      }
      const auto dev_idx = upload(exec, idx, "test::concurrency::indices");
      const Kokkos::View<const std::int32_t*, memory_space> indices = dev_idx;
      const auto got  = kmask::gather_bits(exec, masks[j], gb, gsize, indices, policy);
      const auto want = ref::gather(&c.sources[j], gb, gsize, idx64);
      const char* fn  = nullify ? "gather_bits (nullify)" : "gather_bits (check)";
      compare_row(p, fn, 0, want, download(exec, got.first.data(), got.first.extent(0)), 0, 0, 0u);
      compare_count(p, fn, 0, want.nulls, got.second);
    }
  }
  {  // superimpose_nulls: a parent read from a shifted bit onto 1..3 children, each one word longer.
    const size_type pb       = random_begin(rng);
    const auto parent_host   = random_words(rng, static_cast<std::size_t>(std::max<size_type>(kmask::num_words(pb + bits), 1)));
    const auto parent        = upload(exec, parent_host, "test::concurrency::parent");
    const size_type children = 1 + static_cast<size_type>(rng() % 3);
    std::vector<ref::words> children_host;
    std::vector<view_t<ExecSpace>> children_dev;
    for (size_type k = 0; k < children; ++k) {
      children_host.push_back(random_words(rng, static_cast<std::size_t>(words + 1)));
      children_dev.push_back(upload(exec, children_host.back(), "test::concurrency::child"));
    }
    auto counts = allocate<size_type>(exec, static_cast<std::size_t>(children), "test::concurrency::counts");
    kmask::superimpose_nulls(exec, parent, pb, children_dev, bits, counts);
    const auto got_cnt = download(exec, counts.data(), counts.extent(0));
    for (size_type k = 0; k < children; ++k) {
      const auto e = ref::combine(ref::op::and_, {&parent_host, &children_host[k]}, {pb, 0}, bits);
      compare_row(p, "superimpose_nulls", k, e, download(exec, children_dev[k].data(), children_dev[k].extent(0)), 0, 1,
                  children_host[k][static_cast<std::size_t>(words)]);
      compare_count(p, "superimpose_nulls", k, e.nulls, got_cnt[k]);
    }
  }
}

// every_call_once with the `index`-th of AND, OR, XOR, XNOR; exceptions become failures.
template <class ExecSpace>
void every_call_once_with_op(const ExecSpace& exec, int index, std::mt19937_64& rng, bool wide, problems& p) {
  try {
    switch (index % 4) {
      case 0: every_call_once(exec, kmask::bit_and{}, rng, wide, p); break;
      case 1: every_call_once(exec, kmask::bit_or{}, rng, wide, p); break;
      case 2: every_call_once(exec, kmask::bit_xor{}, rng, wide, p); break;
      default: every_call_once(exec, bit_xnor{}, rng, wide, p); break;
    }
  } catch (const std::exception& e) {
    p.add(std::string("exception: ") + e.what());
  }
}

}  // namespace concurrency
}  // namespace

// Four host threads, each with an instance of its own, run every call family at once over random
// shapes; every result must equal the reference. Where this Kokkos has no independent instances of
// the space (Kokkos 3.4 Serial and OpenMP), skipped with the reason.
TEST(TEST_CATEGORY, concurrent_calls_from_four_threads) {
  using namespace concurrency;
  if (!kmask::detail::independent_instances_supported<TEST_EXECSPACE>())
    GTEST_SKIP() << kmask::detail::independent_instances_unsupported_reason<TEST_EXECSPACE>();
  constexpr int threads = 4, iterations = 6;
  const auto seed = base_seed() + 1401;
  kmask::detail::execution_space_instances<TEST_EXECSPACE> instances(threads);
  std::vector<problems> found(threads);
  std::atomic<int> ready{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      const TEST_EXECSPACE& exec = instances[t];
      std::mt19937_64 rng(seed + static_cast<std::uint64_t>(t));
      // Start together, so the calls overlap.
      ready.fetch_add(1);
      while (ready.load() < threads) std::this_thread::yield();
      for (int i = 0; i < iterations; ++i) {
        std::ostringstream os;
        os << "thread " << t << ", iteration " << i << ", " << seed_note(seed);
        found[static_cast<std::size_t>(t)].context = os.str();
        every_call_once_with_op(exec, t + i, rng, i % 2 == 1, found[static_cast<std::size_t>(t)]);
      }
      try {
        exec.fence();
      } catch (const std::exception& e) {
        found[static_cast<std::size_t>(t)].add(std::string("fence: ") + e.what());
      }
    });
  }
  for (auto& th : pool) th.join();
  instances.release();
  for (const auto& f : found) f.report();
}

// Launch-bound kernels come in one copy per launch slot where the backend locks each kernel type's
// launch (launch_tuning::launch_slots): threads take slots in turn, so four threads that start one
// after another hold four different slots, and each keeps its slot.
TEST(TEST_CATEGORY, launch_slots_differ_between_threads) {
  constexpr int slots = 4;
  std::vector<int> first(slots, -1), again(slots, -1);
  for (int t = 0; t < slots; ++t)
    std::thread([&, t] {
      first[static_cast<std::size_t>(t)] = kmask::detail::launch_slot_of_this_thread(slots);
      again[static_cast<std::size_t>(t)] = kmask::detail::launch_slot_of_this_thread(slots);
    }).join();
  EXPECT_EQ(first, again);
  std::vector<int> sorted = first;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, (std::vector<int>{0, 1, 2, 3}));
}

// Calls on instances (CUDA: streams) that the application then fences and destroys; later calls on
// the default instance must neither touch the destroyed ones nor fail. Without independent
// instances the earlier calls run on default instances: then this checks that no call depends on
// an earlier call's instance.
TEST(TEST_CATEGORY, calls_after_earlier_streams_are_destroyed) {
  using namespace concurrency;
  const auto seed = base_seed() + 1402;
  std::mt19937_64 rng(seed);
  {
    kmask::detail::execution_space_instances<TEST_EXECSPACE> instances(3);
    for (int i = 0; i < instances.size(); ++i) {
      problems p;
      p.context = "on instance " + std::to_string(i) + " before it was destroyed, " + seed_note(seed);
      every_call_once_with_op(instances[i], i, rng, i == 1, p);
      p.report();
    }
    instances.fence();
    instances.release();  // the instances, then their streams
  }
  TEST_EXECSPACE exec;
  for (int i = 0; i < 4; ++i) {
    problems p;
    p.context = "on the default instance after the others were destroyed, round " + std::to_string(i) + ", " +
                seed_note(seed);
    every_call_once_with_op(exec, i, rng, i % 2 == 0, p);
    p.report();
  }
  exec.fence();
  Kokkos::fence();
}
