#ifndef KMASK_TEST_SUPPORT_HPP
#define KMASK_TEST_SUPPORT_HPP

// Moving masks between the host and the space under test, random masks, poison, and the
// segmented cases most tests are built from.

#include "reference.hpp"

#include <kmask/kmask.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
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

// A device copy of exactly `host.size()` words (no padding: a read past it is a read past the view).
template <class ExecSpace>
view_t<ExecSpace> to_device(const ref::words& host, const std::string& label = "test::mask") {
  view_t<ExecSpace> d(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), host.size());
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
  Kokkos::View<size_type*, typename ExecSpace::memory_space> c(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("test::counts")), n);
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
    view_t<ExecSpace> d(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("test::destination")),
                        kmask::num_words(size_bits) + extra);
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

}  // namespace kmask_test

#endif
