#ifndef KMASK_TEST_SUPPORT_HPP
#define KMASK_TEST_SUPPORT_HPP

// Moving masks between the host and the space under test, random masks, poison, and the
// segmented cases most tests are built from.

#include "reference.hpp"

#include <kmask/kmask.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace kmask_test {

using kmask::size_type;
using kmask::word_type;

// The device twin of ref::op.
struct bit_xnor {
  KOKKOS_INLINE_FUNCTION word_type operator()(word_type a, word_type b) const { return ~(a ^ b); }
  KOKKOS_INLINE_FUNCTION static constexpr word_type identity() { return ~word_type{0}; }
};

constexpr word_type poison = 0xDEADBEEFu;

// Seeds are fixed per test (reproducible) unless KMASK_TEST_SEED is set; every check prints it.
inline std::uint64_t base_seed() {
  const char* s = std::getenv("KMASK_TEST_SEED");
  return s ? std::strtoull(s, nullptr, 10) : 20261129u;
}

inline std::string seed_note(std::uint64_t seed) {
  std::ostringstream os;
  os << "seed = " << seed << " (rerun with KMASK_TEST_SEED to vary)";
  return os.str();
}

// What a skipped check names, "a; b; c".
inline std::string join_skipped(const std::vector<std::string>& skipped) {
  std::string why;
  for (const auto& s : skipped) why += (why.empty() ? "" : "; ") + s;
  return why;
}

// Random words with a random density, so AND/OR results are neither all zero nor all one.
inline ref::words random_words(std::mt19937_64& rng, std::size_t n) {
  ref::words w(n);
  const int density = static_cast<int>(rng() % 5);
  for (auto& x : w) {
    word_type v = static_cast<word_type>(rng());
    if (density == 0) v |= static_cast<word_type>(rng());  // mostly valid
    if (density == 1) v &= static_cast<word_type>(rng());  // mostly null
    x = v;
  }
  return w;
}

template <class ExecSpace>
using view_t = Kokkos::View<word_type*, typename ExecSpace::memory_space>;

#if defined(KMASK_TEST_EXACT_HOST_ALLOCATIONS)
// The sanitized build (KMASK_ENABLE_SANITIZERS) defines KMASK_TEST_EXACT_HOST_ALLOCATIONS: test
// arrays in host-accessible memory are then plain `new T[n]` buffers of exactly n elements, wrapped
// in unmanaged views, so AddressSanitizer's redzone starts right after element n - 1 and a read or
// write one element past a mask is reported. (A Kokkos HostSpace allocation carries a header in
// front and alignment slack behind, where such a read goes unnoticed.) The buffers belong to this
// registry, which the listener installed by test_main.cpp empties when each test ends: the views
// of one test stay valid for the whole test and nothing outlives it (LeakSanitizer is on).
class exact_host_buffers {
 public:
  static exact_host_buffers& instance() {
    static exact_host_buffers registry;
    return registry;
  }
  template <class T>
  T* allocate(std::size_t n) {
    T* p = new T[n];
    owned_.push_back(std::shared_ptr<void>(p, std::default_delete<T[]>()));
    return p;
  }
  std::size_t live() const { return owned_.size(); }
  void release_all() {
    Kokkos::fence();  // nothing may still be reading or writing them
    owned_.clear();
  }

 private:
  std::vector<std::shared_ptr<void>> owned_;
};

class exact_host_buffers_listener : public ::testing::EmptyTestEventListener {
  void OnTestEnd(const ::testing::TestInfo&) override { exact_host_buffers::instance().release_all(); }
};
#endif

// An array of exactly `n` elements in MemorySpace, uninitialised: a Kokkos allocation, or in the
// sanitized build an exact-size host buffer (see above) when MemorySpace is host-accessible.
template <class T, class MemorySpace>
Kokkos::View<T*, MemorySpace> exact_view(std::size_t n, const std::string& label) {
#if defined(KMASK_TEST_EXACT_HOST_ALLOCATIONS)
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible) {
    return Kokkos::View<T*, MemorySpace>(exact_host_buffers::instance().allocate<T>(n), n);  // unmanaged
  }
#endif
  return Kokkos::View<T*, MemorySpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), n);
}

// A device copy of exactly `host.size()` words (no padding: a read past it is a read past the view,
// reported by AddressSanitizer in the sanitized build).
template <class ExecSpace>
view_t<ExecSpace> to_device(const ref::words& host, const std::string& label = "test::mask") {
  view_t<ExecSpace> d = exact_view<word_type, typename ExecSpace::memory_space>(host.size(), label);
  auto m = Kokkos::create_mirror_view(d);
  for (std::size_t i = 0; i < host.size(); ++i) m(i) = host[i];
  Kokkos::deep_copy(d, m);
  return d;
}

template <class View>
ref::words to_host(const View& d) {
  auto m = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, d);
  ref::words out(d.extent(0));
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = m(i);
  return out;
}

template <class View>
std::vector<size_type> counts_to_host(const View& d) {
  auto m = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, d);
  return std::vector<size_type>(m.data(), m.data() + m.extent(0));
}

template <class ExecSpace>
Kokkos::View<size_type*, typename ExecSpace::memory_space> poisoned_counts(size_type n) {
  auto c = exact_view<size_type, typename ExecSpace::memory_space>(static_cast<std::size_t>(n), "test::counts");
  Kokkos::deep_copy(ExecSpace{}, c, size_type{-777});
  ExecSpace{}.fence();
  return c;
}

// A random segmented problem on the host.
struct host_case {
  std::vector<ref::words> sources;
  std::vector<size_type> begin_bits;
  std::vector<size_type> offsets;
  size_type size_bits = 0;

  size_type num_segments() const { return static_cast<size_type>(offsets.size()) - 1; }
  ref::result expected(ref::op o, size_type s) const {
    std::vector<const ref::words*> srcs;
    std::vector<std::int64_t> begins;
    for (size_type j = offsets[s]; j < offsets[s + 1]; ++j) {
      srcs.push_back(&sources[j]);
      begins.push_back(begin_bits[j]);
    }
    return ref::combine(o, srcs, begins, size_bits);
  }
};

// Begin bits across 0..31, word multiples and beyond; occasionally the exact end of the source.
inline size_type random_begin(std::mt19937_64& rng) {
  switch (rng() % 4) {
    case 0: return 0;
    case 1: return static_cast<size_type>(rng() % 32);
    case 2: return 32 * static_cast<size_type>(rng() % 4);
    default: return static_cast<size_type>(rng() % 300);
  }
}

inline host_case random_case(std::mt19937_64& rng, size_type segments, size_type max_sources, size_type size_bits) {
  host_case c;
  c.size_bits = size_bits;
  // A mask before the first segment is validated but never read; keep one sometimes to prove it.
  const size_type lead = static_cast<size_type>(rng() % 2);
  for (size_type j = 0; j < lead; ++j) {
    c.sources.push_back(random_words(rng, static_cast<std::size_t>(std::max<size_type>(kmask::num_words(size_bits), 1))));
    c.begin_bits.push_back(0);
  }
  c.offsets.push_back(static_cast<size_type>(c.sources.size()));
  for (size_type s = 0; s < segments; ++s) {
    const size_type k = max_sources == 0 ? 0 : static_cast<size_type>(rng() % (max_sources + 1));
    for (size_type j = 0; j < k; ++j) {
      const size_type b = random_begin(rng);
      // Exact length for most sources: a kernel that reads a word too far reads past the view.
      const size_type words = kmask::num_words(b + size_bits) + (rng() % 3 == 0 ? 1 : 0);
      c.sources.push_back(random_words(rng, static_cast<std::size_t>(std::max<size_type>(words, 1))));
      c.begin_bits.push_back(b);
    }
    c.offsets.push_back(static_cast<size_type>(c.sources.size()));
  }
  return c;
}

template <class ExecSpace>
std::vector<Kokkos::View<const word_type*, typename ExecSpace::memory_space>> sources_on_device(const host_case& c) {
  std::vector<Kokkos::View<const word_type*, typename ExecSpace::memory_space>> out;
  for (const auto& s : c.sources) out.push_back(to_device<ExecSpace>(s));
  return out;
}

// Destination views with `extra` poisoned words past the end, so a write past num_words shows.
template <class ExecSpace>
std::vector<view_t<ExecSpace>> poisoned_destinations(size_type n, size_type size_bits, size_type extra) {
  std::vector<view_t<ExecSpace>> out;
  for (size_type s = 0; s < n; ++s) {
    // No zero-fill: each fill is a kernel, and tens of thousands of them dominate a test otherwise.
    view_t<ExecSpace> d = exact_view<word_type, typename ExecSpace::memory_space>(
        static_cast<std::size_t>(kmask::num_words(size_bits) + extra), "test::destination");
    Kokkos::deep_copy(ExecSpace{}, d, poison);
    out.push_back(d);
  }
  ExecSpace{}.fence();
  return out;
}

// The word-for-word comparison of one computed mask with the reference.
inline ::testing::AssertionResult same_words(const ref::words& expected, const ref::words& got, size_type segment) {
  for (std::size_t w = 0; w < expected.size(); ++w)
    if (expected[w] != got[w])
      return ::testing::AssertionFailure() << "segment " << segment << " word " << w << ": expected 0x" << std::hex
                                           << expected[w] << " got 0x" << got[w];
  return ::testing::AssertionSuccess();
}

inline ref::op ref_op(kmask::bit_and) { return ref::op::and_; }
inline ref::op ref_op(kmask::bit_or) { return ref::op::or_; }
inline ref::op ref_op(kmask::bit_xor) { return ref::op::xor_; }
inline ref::op ref_op(bit_xnor) { return ref::op::xnor_; }

// A segmented problem whose sources are drawn from a small pool of host masks, so that a million
// segments need a few dozen device views rather than millions: source j is pool[pick[j]] read
// from begin_bits[j]. Sources before offsets[0] are validated but never read.
struct pooled_case {
  // pick[j] == absent: source j is an absent mask (a null view), which reads as all valid.
  static constexpr std::size_t absent = ~std::size_t{0};
  std::vector<ref::words> pool;
  std::vector<std::size_t> pick;
  std::vector<size_type> begin_bits;
  std::vector<size_type> offsets;  // num_segments + 1
  size_type size_bits = 0;

  size_type num_segments() const { return static_cast<size_type>(offsets.size()) - 1; }
  size_type capacity_bits(std::size_t j) const { return 32 * static_cast<size_type>(pool[pick[j]].size()); }
  ref::result expected(ref::op o, size_type s) const {
    std::vector<const ref::words*> srcs;
    std::vector<std::int64_t> begins;
    ref::words ones;
    for (size_type j = offsets[s]; j < offsets[s + 1]; ++j)
      if (pick[j] == absent)
        ones.resize(std::max(ones.size(), static_cast<std::size_t>(kmask::num_words(begin_bits[j] + size_bits))),
                    ~word_type{0});
    for (size_type j = offsets[s]; j < offsets[s + 1]; ++j) {
      srcs.push_back(pick[j] == absent ? &ones : &pool[pick[j]]);
      begins.push_back(begin_bits[j]);
    }
    return ref::combine(o, srcs, begins, size_bits);
  }
};

// A begin bit for `size_bits` bits of a mask of `capacity_bits`: 0, inside the first word, past
// the first word, exactly so that the range ends at the view's last bit, or anywhere that fits.
inline size_type begin_within(std::mt19937_64& rng, size_type capacity_bits, size_type size_bits) {
  const size_type room = capacity_bits - size_bits;  // the largest valid begin bit
  switch (rng() % 5) {
    case 0: return 0;
    case 1: return std::min<size_type>(room, static_cast<size_type>(rng() % 32));
    case 2: return std::min<size_type>(room, 32 * static_cast<size_type>(1 + rng() % 3) + static_cast<size_type>(rng() % 32));
    case 3: return room;
    default: return room == 0 ? 0 : static_cast<size_type>(rng() % static_cast<std::uint64_t>(room + 1));
  }
}

// `segments` segments of 0..max_sources sources each, drawn from a pool of `pool_size` masks of
// num_words(size_bits) .. num_words(size_bits) + 3 words.
inline pooled_case random_pooled_case(std::mt19937_64& rng, size_type segments, size_type max_sources,
                                      size_type size_bits, std::size_t pool_size = 61) {
  pooled_case c;
  c.size_bits = size_bits;
  for (std::size_t i = 0; i < pool_size; ++i)
    c.pool.push_back(random_words(rng, static_cast<std::size_t>(kmask::num_words(size_bits)) + i % 4));
  auto add_source = [&](std::size_t p) {
    c.pick.push_back(p);
    c.begin_bits.push_back(begin_within(rng, 32 * static_cast<size_type>(c.pool[p].size()), size_bits));
  };
  if (rng() % 2) add_source(rng() % pool_size);  // a mask before the first segment
  c.offsets.push_back(static_cast<size_type>(c.pick.size()));
  for (size_type s = 0; s < segments; ++s) {
    const size_type k = static_cast<size_type>(rng() % static_cast<std::uint64_t>(max_sources + 1));
    for (size_type j = 0; j < k; ++j) add_source(rng() % pool_size);
    c.offsets.push_back(static_cast<size_type>(c.pick.size()));
  }
  return c;
}

template <class ExecSpace>
std::vector<Kokkos::View<const word_type*, typename ExecSpace::memory_space>> pooled_sources_on_device(
    const pooled_case& c) {
  std::vector<view_t<ExecSpace>> pool;
  for (const auto& p : c.pool) pool.push_back(to_device<ExecSpace>(p));
  std::vector<Kokkos::View<const word_type*, typename ExecSpace::memory_space>> masks;
  masks.reserve(c.pick.size());
  for (std::size_t p : c.pick)
    masks.push_back(p == pooled_case::absent ? Kokkos::View<const word_type*, typename ExecSpace::memory_space>()
                                             : pool[p]);
  return masks;
}

// What check_forms runs: the allocating segmented_binop, inplace_segmented_binop, the plan.
enum form : unsigned { form_allocating = 1, form_in_place = 2, form_plan = 4, all_forms = 7 };

// The words one in-place or plan run left in its destinations and counters. The destinations are
// rows of one poisoned allocation, each followed by one poisoned word (a write past a row shows).
struct in_place_run {
  ref::words backing;
  std::vector<size_type> counts;
};

template <class ExecSpace, class Op>
in_place_run run_in_place(const pooled_case& c, const std::vector<Kokkos::View<const word_type*, typename ExecSpace::memory_space>>& masks,
                          Op op, bool through_plan) {
  ExecSpace exec;
  const size_type S = c.num_segments(), words = kmask::num_words(c.size_bits), stride = words + 1;
  auto backing = exact_view<word_type, typename ExecSpace::memory_space>(static_cast<std::size_t>(S * stride),
                                                                         "test::rows");
  Kokkos::deep_copy(exec, backing, poison);
  std::vector<view_t<ExecSpace>> dests;
  dests.reserve(static_cast<std::size_t>(S));
  for (size_type s = 0; s < S; ++s)
    dests.push_back(Kokkos::subview(backing, std::make_pair(static_cast<std::size_t>(s * stride),
                                                            static_cast<std::size_t>(s * stride + words))));
  const auto counts = poisoned_counts<ExecSpace>(S + 1);
  if (through_plan) {
    const kmask::segmented_binop_plan<ExecSpace> plan(exec, dests, masks, c.begin_bits, c.size_bits, c.offsets);
    plan.execute(exec, op, counts);
  } else {
    kmask::inplace_segmented_binop(exec, op, dests, masks, c.begin_bits, c.size_bits, c.offsets, counts);
  }
  exec.fence();
  return {to_host(backing), counts_to_host(counts)};
}

// Runs `c` with `op` through the forms asked for and checks every segment's words and null count
// against the reference, the allocating form's row padding (0), the words after each in-place row
// and the counter after the last segment (poison).
template <class ExecSpace, class Op>
void check_forms(const pooled_case& c, Op op, unsigned forms = all_forms) {
  ExecSpace exec;
  const auto o       = ref_op(op);
  const size_type S  = c.num_segments(), words = kmask::num_words(c.size_bits), stride = words + 1;
  const size_type row_words = kmask::allocation_size_bytes(c.size_bits) / 4;
  SCOPED_TRACE(::testing::Message() << "segments = " << S << ", size_bits = " << c.size_bits << ", sources = "
                                    << c.pick.size() << ", op " << static_cast<int>(o));
  const auto masks = pooled_sources_on_device<ExecSpace>(c);

  Kokkos::View<word_type**, Kokkos::LayoutRight, Kokkos::HostSpace> rows;
  std::vector<size_type> row_counts;
  if (forms & form_allocating) {
    const auto res = kmask::segmented_binop(exec, op, masks, c.begin_bits, c.size_bits, c.offsets);
    exec.fence();
    ASSERT_EQ(static_cast<size_type>(res.masks.extent(0)), S);
    ASSERT_EQ(static_cast<size_type>(res.masks.extent(1)), row_words);
    ASSERT_EQ(static_cast<size_type>(res.null_counts.extent(0)), S);
    rows = Kokkos::View<word_type**, Kokkos::LayoutRight, Kokkos::HostSpace>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("test::rows_on_host")), S, row_words);
    Kokkos::deep_copy(rows, res.masks);
    row_counts = counts_to_host(res.null_counts);
  }
  in_place_run in_place, plan;
  if (forms & form_in_place) in_place = run_in_place<ExecSpace>(c, masks, op, false);
  if (forms & form_plan) plan = run_in_place<ExecSpace>(c, masks, op, true);
  if (::testing::Test::HasFatalFailure()) return;

  for (size_type s = 0; s < S; ++s) {
    const auto e = c.expected(o, s);
    if (forms & form_allocating) {
      for (size_type w = 0; w < row_words; ++w) {
        const word_type want = w < words ? e.mask[w] : 0u;
        if (rows(s, w) != want)
          FAIL() << "segmented_binop: segment " << s << " word " << w << (w < words ? "" : " (padding)")
                 << ": expected 0x" << std::hex << want << " got 0x" << rows(s, w);
      }
      if (row_counts[s] != e.nulls)
        FAIL() << "segmented_binop: segment " << s << " null count " << row_counts[s] << ", expected " << e.nulls;
    }
    for (const auto* run : {&in_place, &plan}) {
      if (!(forms & (run == &in_place ? form_in_place : form_plan))) continue;
      const char* name = run == &in_place ? "inplace_segmented_binop" : "segmented_binop_plan";
      for (size_type w = 0; w <= words; ++w) {
        const word_type want = w < words ? e.mask[w] : poison;
        const word_type got  = run->backing[s * stride + w];
        if (got != want)
          FAIL() << name << ": segment " << s << " word " << w << (w < words ? "" : " (past the destination)")
                 << ": expected 0x" << std::hex << want << " got 0x" << got;
      }
      if (run->counts[s] != e.nulls)
        FAIL() << name << ": segment " << s << " null count " << run->counts[s] << ", expected " << e.nulls;
    }
  }
  if (forms & form_in_place) ASSERT_EQ(in_place.counts[S], -777) << "a counter past the segments was written";
  if (forms & form_plan) ASSERT_EQ(plan.counts[S], -777) << "a counter past the segments was written";
}

}  // namespace kmask_test

#endif
