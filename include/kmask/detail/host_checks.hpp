#ifndef KMASK_DETAIL_HOST_CHECKS_HPP
#define KMASK_DETAIL_HOST_CHECKS_HPP

// Host-side argument validation and aliasing analysis, shared by every public call. Compiled once
// in src/host_checks.cpp: none of it depends on the execution space, only on addresses and extents.

#include <kmask/types.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kmask {
namespace detail {

// What validation needs to know of a view: where its words start and how many there are.
struct extent_info {
  const void* data;
  size_type words;
};

template <class View>
extent_info extent_of(const View& v) {
  return {static_cast<const void*>(v.data()), static_cast<size_type>(v.extent(0))};
}

template <class View>
std::vector<extent_info> extents_of(const std::vector<View>& views) {
  std::vector<extent_info> out;
  out.reserve(views.size());
  for (const auto& v : views) out.push_back(extent_of(v));
  return out;
}

// Bit positions and sizes above this are refused, so that a begin plus a size never overflows.
constexpr size_type max_bits = static_cast<size_type>(~std::uint64_t{0} >> 2);

// The whole of check_sources()' condition for one source, for loops that validate as they go
// (and call check_sources() for the message only when this fails).
inline bool source_is_valid(const void* data, size_type words, size_type begin_bit, size_type size_bits) {
  return begin_bit >= 0 && begin_bit <= max_bits && (size_bits == 0 || data != nullptr) &&
         begin_bit + size_bits <= words * word_bits;
}

// `fn` is the public function's name ("kmask::segmented_binop"); it starts every message.
void check_size_bits(const char* fn, size_type size_bits);

// masks.size() == begin_bits.size(), each begin_bits[i] >= 0, and each masks[i] holds
// [begin_bits[i], begin_bits[i] + size_bits) (a null view is refused when size_bits > 0).
void check_sources(const char* fn, const std::vector<extent_info>& masks, const std::vector<size_type>& begin_bits,
                   size_type size_bits);

// Non-empty, non-decreasing, every entry in [0, num_masks].
void check_segment_offsets(const char* fn, const std::vector<size_type>& segment_offsets, size_type num_masks);

// One destination per segment, each non-null (when size_bits > 0) and holding num_words(size_bits) words.
// `what` names the argument in messages ("destinations", "children").
void check_destinations(const char* fn, const std::vector<extent_info>& destinations, size_type num_segments,
                        size_type size_bits, const char* what = "destinations");

// A begin bit given apart from its size (superimpose's parent): non-negative and small enough that
// adding a size to it cannot overflow.
void check_begin_bit(const char* fn, const char* what, size_type begin_bit);

// A single mask argument that must hold bits [begin_bit, end_bit); `what` names it ("mask", "parent").
void check_bit_range(const char* fn, const char* what, extent_info mask, size_type begin_bit, size_type end_bit);

// ranges = {begin0, end0, begin1, end1, ...} over `mask`.
void check_ranges(const char* fn, extent_info mask, const std::vector<size_type>& ranges);

// A counter view `what` of `extent` entries that must hold `needed`.
void check_counter_extent(const char* fn, const char* what, size_type extent, size_type needed, bool is_null);

// Refuses two destinations that share a word (their results would race), and returns, in increasing
// order, the index of every source that a destination overlaps, except a source that is its own
// segment's destination read from bit 0 (each word is then read and written by the same thread).
// Those sources must be staged through a temporary before any destination is written.
std::vector<size_type> sources_to_stage(const char* fn, const std::vector<extent_info>& destinations,
                                        const std::vector<extent_info>& masks,
                                        const std::vector<size_type>& begin_bits, size_type size_bits,
                                        const std::vector<size_type>& segment_offsets);

}  // namespace detail
}  // namespace kmask

#endif
