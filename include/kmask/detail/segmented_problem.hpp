#ifndef KMASK_DETAIL_SEGMENTED_PROBLEM_HPP
#define KMASK_DETAIL_SEGMENTED_PROBLEM_HPP

// One validated description of a segmented call, built by one host pass over its arguments:
// describe() checks the shape (size, offsets, destinations) and the source pass checks every
// source while it writes the source's reference for the kernel form, so no argument is checked
// twice. What aliases a destination is found from the same description.

#include <kmask/detail/compat.hpp>
#include <kmask/detail/launch_shape.hpp>
#include <kmask/detail/mask_lists.hpp>
#include <kmask/detail/validation.hpp>
#include <kmask/detail/word_access.hpp>

#include <algorithm>
#include <cstdint>
#include <new>
#include <type_traits>
#include <vector>

namespace kmask {
namespace detail {

template <class Sources, class Dests>
struct segmented_problem {
  arg_names names;
  Sources sources;
  Dests dests;               // empty (no_dests) for calls that write rows they allocate
  size_type size_bits;
  const size_type* offsets;  // num_segments + 1 entries, checked
  size_type num_segments;
  // A source read from a later bit of its own segment's destination, fewer than this many words
  // (plus one) ahead, is not staged for overlapping that destination: the kernel reads it in
  // place, ahead of its writes (the CPU tree walk with halos, tree_kernels.hpp). 0: always staged.
  size_type own_forward_words = 0;
};

// A counter view the call writes one count per segment into, checked with the shape.
struct counter_arg {
  const char* name;
  size_type extent;
  bool is_null;
};

// Checks the shape: size, offsets and (in-place calls) the counters. The sources and then the
// destinations are checked by encode(), in its pass over them, and the overlaps after that.
template <class Sources, class Dests>
segmented_problem<Sources, Dests> describe(const arg_names& names, const Sources& sources, const Dests& dests,
                                           size_type size_bits, const std::vector<size_type>& segment_offsets,
                                           const counter_arg* counts = nullptr) {
  check_size_bits(names.fn, size_bits);
  check_segment_offsets(names.fn, segment_offsets.data(), segment_offsets.size(),
                        static_cast<size_type>(sources.size()));
  const size_type num_segments = static_cast<size_type>(segment_offsets.size()) - 1;
  if (counts != nullptr) check_counter_extent(names.fn, counts->name, counts->extent, num_segments, counts->is_null);
  return {names, sources, dests, size_bits, segment_offsets.data(), num_segments};
}

template <class Sources, class Dests>
void check_destinations(const segmented_problem<Sources, Dests>& p) {
  if constexpr (!std::is_same<Dests, no_dests>::value) {
    check_destination_count(p.names, p.dests.size(), p.num_segments);
    for (std::size_t s = 0; s < p.dests.size(); ++s) check_destination(p.names, s, p.dests[s], p.size_bits);
  }
}

// The reference of a source for the kernels, or a null reference for an absent (all-valid) one,
// which patch_absent() later points at words of ones. An inverted source keeps its flag in the
// reference, an absent one too (it then reads the ones complemented: all null). False if the form
// cannot hold the address.
inline bool write_ref(source_ref* ref, const source_mask& m) {
  new (ref) source_ref{m.words, (m.words == nullptr ? 0 : m.begin_bit) | (m.invert ? source_ref::invert_flag : 0)};
  return true;
}
inline bool write_ref(packed_source_ref* ref, const source_mask& m) {
  new (ref) packed_source_ref{m.invert ? packed_source_ref::invert_bit : 0};
  return m.words == nullptr || ref->pack(m.words, m.begin_bit, m.invert);
}
inline bool is_absent_ref(const source_ref& r) { return r.data == nullptr; }
inline bool is_absent_ref(const packed_source_ref& r) { return r.first() == nullptr; }
inline bool is_inverted_ref(const source_ref& r) { return r.flip() != 0; }
inline bool is_inverted_ref(const packed_source_ref& r) { return r.flip() != 0; }

// Which sources a pass met first that were not plain: the first invalid one (or one whose address
// the form cannot hold) and the first absent one; `none` if there was none.
struct pass_result {
  static constexpr std::size_t none = ~std::size_t{0};
  std::size_t first_bad    = none;
  std::size_t first_absent = none;
};

// Below this many sources the pass stays on the calling thread: starting host threads costs more.
constexpr std::size_t parallel_pass_min_sources = 4096;
// A device call's pass would borrow the application's host threads, which then spin-wait for
// milliseconds and slow its other threads three-fold: only a whole upload chunk is worth that.
constexpr std::size_t device_call_parallel_pass_min_sources = 32768;

// Where a call on ExecSpace runs its threaded host pass: a host ExecSpace's own instance (the
// caller chose its threads), otherwise the default host execution space, when this thread may.
template <class ExecSpace>
using host_pass_space = std::conditional_t<runs_on_host<ExecSpace>(), ExecSpace, Kokkos::DefaultHostExecutionSpace>;

template <class ExecSpace>
bool threaded_pass_allowed(const ExecSpace&) {
  if constexpr (runs_on_host<ExecSpace>()) return true;
  else return may_run_host_parallel();
}

// Checks sources [first, last) and writes their references into refs[first, last). The pass
// streams the caller's arrays (24 bytes a view, 8 a begin bit) and writes 8 or 16 bytes a source:
// 6-8 MB for 160,000 sources, so large calls spread it over host threads.
template <class ExecSpace, class Sources, class Ref>
pass_result source_pass(const ExecSpace& exec, const Sources& sources, size_type size_bits, Ref* refs,
                        std::size_t first, std::size_t last) {
  constexpr bool prechecked = sources_prechecked<Sources>::value;
  const std::size_t n       = sources.size();
  // 0..n-1: invalid at j; n..2n-1: absent at j - n; 2n: plain. The minimum is what the pass reports.
  const auto key = [=](std::size_t j) -> std::size_t {
    const source_mask m     = sources[j];
    const source_status st  = prechecked ? (m.words == nullptr ? source_status::absent : source_status::ok)
                                         : check_source(m, size_bits);
    if (st == source_status::invalid || !write_ref(refs + j, m)) return j;
    return st == source_status::absent ? n + j : 2 * n;
  };
  std::size_t found = 2 * n;
  constexpr std::size_t min_sources =
      runs_on_host<ExecSpace>() ? parallel_pass_min_sources : device_call_parallel_pass_min_sources;
  if (last - first < min_sources || !threaded_pass_allowed(exec)) {
    for (std::size_t j = first; j < last; ++j) {
      const std::size_t k = key(j);
      if (k < found) found = k;
      if (found < n) break;
    }
  } else {
    using space = host_pass_space<ExecSpace>;
    space host_space;
    if constexpr (runs_on_host<ExecSpace>()) host_space = exec;
    Kokkos::parallel_reduce(
        "kmask::describe_sources",
        Kokkos::RangePolicy<space, Kokkos::IndexType<std::size_t>>(host_space, first, last),
        [=](std::size_t j, std::size_t& lowest) {
          const std::size_t k = key(j);
          if (k < lowest) lowest = k;
        },
        Kokkos::Min<std::size_t>(found));
  }
  pass_result r;
  if (found < n) r.first_bad = found;
  else if (found < 2 * n) r.first_absent = found - n;
  return r;
}

// Whether refs[first, last) holds an absent reference.
template <class Ref>
bool has_absent(const Ref* refs, std::size_t first, std::size_t last) {
  for (std::size_t j = first; j < last; ++j)
    if (is_absent_ref(refs[j])) return true;
  return false;
}

// Points the absent references among refs[first, last) at `ones` (num_words(size_bits) words of ~0),
// keeping each one's invert flag.
template <class Ref>
void patch_absent(Ref* refs, std::size_t first, std::size_t last, const word_type* ones) {
  for (std::size_t j = first; j < last; ++j)
    if (is_absent_ref(refs[j])) write_ref(refs + j, source_mask{ones, 0, 0, is_inverted_ref(refs[j])});
}

// [first, last) word addresses bits [begin, begin + size) of a mask occupy; empty when size == 0.
struct word_range {
  std::uintptr_t first;
  std::uintptr_t last;
};
inline word_range words_of(const void* data, size_type begin_bit, size_type size_bits) {
  const auto base = reinterpret_cast<std::uintptr_t>(data);
  if (size_bits <= 0 || data == nullptr) return {base, base};
  const auto first = static_cast<std::uintptr_t>(begin_bit / word_bits);
  const auto last  = static_cast<std::uintptr_t>((begin_bit + size_bits - 1) / word_bits + 1);
  return {base + first * sizeof(word_type), base + last * sizeof(word_type)};
}

// The destinations' word ranges, found by address: each range is filed under the blocks of
// 2^shift bytes it touches (a block at least as large as one destination, so a range touches at
// most two and a block holds parts of at most three), in an open-addressing table. A lookup is a
// few probes whatever the number of destinations, where a binary search over thousands of them
// cost ~30 ns a source in cache misses and branches (a measured half-millisecond per call for
// 16,000 sources).
class destination_index {
 public:
  destination_index(std::size_t count, std::size_t range_bytes) {
    shift_ = 6;
    while ((std::size_t{1} << shift_) < range_bytes) ++shift_;
    std::size_t slots = 16;
    while (slots < 4 * count + 4) slots *= 2;
    keys_.assign(slots, empty);
    heads_.assign(slots, -1);
    ranges_.reserve(count);
    nodes_.reserve(2 * count);
  }

  // Files destination `s`'s range; returns the index of a filed destination it overlaps, or -1.
  size_type add(const word_range& r, size_type s) {
    const size_type hit = find(r, -1);
    if (hit >= 0) return hit;
    ranges_.push_back({r, s});
    for (std::uintptr_t b = r.first >> shift_; b <= (r.last - 1) >> shift_; ++b)
      nodes_.push_back({static_cast<std::int32_t>(ranges_.size() - 1), exchange_head(b, nodes_.size())});
    return -1;
  }

  // A filed destination other than `except` that `r` overlaps, or -1.
  size_type find(const word_range& r, size_type except) const {
    if (r.first >= r.last) return -1;
    for (std::uintptr_t b = r.first >> shift_; b <= (r.last - 1) >> shift_; ++b) {
      for (std::int32_t n = head(b); n >= 0; n = nodes_[static_cast<std::size_t>(n)].next) {
        const filed& d = ranges_[static_cast<std::size_t>(nodes_[static_cast<std::size_t>(n)].range)];
        if (d.segment != except && d.r.first < r.last && r.first < d.r.last) return d.segment;
      }
    }
    return -1;
  }

 private:
  static constexpr std::uintptr_t empty = ~std::uintptr_t{0};
  struct filed {
    word_range r;
    size_type segment;
  };
  struct node {
    std::int32_t range;
    std::int32_t next;
  };
  std::size_t slot_of(std::uintptr_t block) const {
    std::size_t i = static_cast<std::size_t>((block * 0x9E3779B97F4A7C15ull) >> 20) & (keys_.size() - 1);
    while (keys_[i] != empty && keys_[i] != block) i = (i + 1) & (keys_.size() - 1);
    return i;
  }
  std::int32_t head(std::uintptr_t block) const {
    const std::size_t i = slot_of(block);
    return keys_[i] == block ? heads_[i] : -1;
  }
  std::int32_t exchange_head(std::uintptr_t block, std::size_t node_index) {
    const std::size_t i = slot_of(block);
    keys_[i]            = block;
    const std::int32_t old = heads_[i];
    heads_[i]              = static_cast<std::int32_t>(node_index);
    return old;
  }
  unsigned shift_ = 6;
  std::vector<std::uintptr_t> keys_;
  std::vector<std::int32_t> heads_;
  std::vector<filed> ranges_;
  std::vector<node> nodes_;
};

// Refuses two destinations that share a word (their results would race) and returns, in
// increasing order, every source a destination overlaps, except a source that is its own
// segment's destination read from bit 0 (each word is then read and written by one thread).
// Those sources are copied to a temporary before any destination is written. Sources checked.
template <class Sources, class Dests>
std::vector<size_type> sources_to_stage(const segmented_problem<Sources, Dests>& p) {
  std::vector<size_type> staged;
  if (p.size_bits == 0 || p.dests.size() == 0) return staged;
  // A source's range is at most one word longer than a destination's (its bit offset).
  const std::size_t bytes = static_cast<std::size_t>(num_words(p.size_bits)) * sizeof(word_type);
  destination_index dests(p.dests.size(), bytes + sizeof(word_type));
  for (std::size_t s = 0; s < p.dests.size(); ++s) {
    const size_type other = dests.add(words_of(p.dests[s].words, 0, p.size_bits), static_cast<size_type>(s));
    if (other >= 0)
      report_overlapping_destinations(p.names, std::min<size_type>(other, static_cast<size_type>(s)),
                                      std::max<size_type>(other, static_cast<size_type>(s)));
  }
  for (size_type s = 0; s < p.num_segments; ++s) {
    for (size_type j = p.offsets[s]; j < p.offsets[s + 1]; ++j) {
      const source_mask m     = p.sources[static_cast<std::size_t>(j)];
      const bool own          = m.words == p.dests[static_cast<std::size_t>(s)].words;
      const bool own_in_place = own && (m.begin_bit == 0 || m.begin_bit / word_bits < p.own_forward_words);
      if (dests.find(words_of(m.words, m.begin_bit, p.size_bits), own_in_place ? s : -1) >= 0) staged.push_back(j);
    }
  }
  std::sort(staged.begin(), staged.end());
  staged.erase(std::unique(staged.begin(), staged.end()), staged.end());
  return staged;
}

}  // namespace detail
}  // namespace kmask

#endif
