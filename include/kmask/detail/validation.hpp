#ifndef KMASK_DETAIL_VALIDATION_HPP
#define KMASK_DETAIL_VALIDATION_HPP

// Host-side argument checks, each run once per argument by the call's single describing pass
// (detail/segmented_problem.hpp). The conditions that run per source are inline here; building
// and throwing a message is compiled once in src/validation.cpp.

#include <kmask/types.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kmask {
namespace detail {

// Bit positions and sizes above this are refused, so that a begin plus a size never overflows.
constexpr size_type max_bits = static_cast<size_type>(~std::uint64_t{0} >> 2);

// How a call names its arguments in messages: the public function, its list of sources and of
// destinations, and whether masks come as views (begin bits in `begin_bits[j]`) or as
// source_mask / dest_mask (begin bit in `masks[j].begin_bit`).
struct arg_names {
  const char* fn;
  const char* sources = "masks";
  const char* dests   = "destinations";
  bool pointers       = false;
};

// Bits an allocation of `words` words holds, capped at max_bits (so a sum with it cannot overflow).
KOKKOS_INLINE_FUNCTION size_type capacity_bits(size_type words) {
  return words > max_bits / word_bits ? max_bits : words * word_bits;
}

// What the per-source check found. Ordered: the describing pass keeps the first index whose
// status is not `ok` and, if none, the first absent one.
enum class source_status : int { invalid = 0, absent = 1, ok = 2 };

// The whole per-source condition: begin in [0, max_bits], an absent mask (null words, extent 0)
// reads as all valid, a present one holds [begin, begin + size_bits) within its extent.
// `size_bits` is already checked.
KOKKOS_INLINE_FUNCTION source_status check_source(const source_mask& m, size_type size_bits) {
  if (m.begin_bit < 0 || m.begin_bit > max_bits || m.extent_words < 0) return source_status::invalid;
  if (m.words == nullptr) return m.extent_words == 0 ? source_status::absent : source_status::invalid;
  return m.begin_bit + size_bits <= capacity_bits(m.extent_words) ? source_status::ok : source_status::invalid;
}

void check_size_bits(const char* fn, size_type size_bits);
// masks.size() == begin_bits.size() (view forms only).
void check_same_size(const char* fn, std::size_t masks, std::size_t begin_bits);
// Non-empty, non-decreasing, every entry in [0, num_masks].
void check_segment_offsets(const char* fn, const size_type* offsets, std::size_t num_offsets, size_type num_masks);
// `names.dests`.size() == num_segments.
void check_destination_count(const arg_names& names, std::size_t num_dests, size_type num_segments);
// Destination `s` is non-null (when bits are written) and holds num_words(size_bits) words.
void check_destination(const arg_names& names, std::size_t s, const dest_mask& d, size_type size_bits);
// A counter view `what` of `extent` entries that must hold `needed`.
void check_counter_extent(const char* fn, const char* what, size_type extent, size_type needed, bool is_null);
// A single mask argument `what` ("mask", "parent") read over its bits [begin_bit, end_bit)
// (bit 0 being the mask's own begin_bit); an absent mask reads as all valid. Returns false when
// the mask is absent.
bool check_bit_range(const char* fn, const char* what, const source_mask& mask, size_type begin_bit,
                     size_type end_bit);
// The same over [begin_bit, begin_bit + size_bits), `size_bits` checked: the begin bit is checked
// before the sum is formed (superimpose's parent).
bool check_bit_span(const char* fn, const char* what, const source_mask& mask, size_type begin_bit,
                    size_type size_bits);
// The list's shape and the mask of a segmented count: an odd ranges.size() (`num_bounds`), the
// mask's begin bit and words. Throws.
void check_range_list(const char* fn, const source_mask& mask, std::size_t num_bounds);
// Whether ranges {b, e} (at positions i, i + 1 of the list) is a range of `mask` (counted from its
// begin_bit) that check_range_bounds() accepts: the one predicate the host check and the device
// check of ranges in device memory share. The mask's begin_bit is checked (check_range_list).
// The largest end it accepts, range_end_limit(mask), is the lesser of the two end checks'.
KOKKOS_INLINE_FUNCTION size_type range_end_limit(const source_mask& mask) {
  const size_type most = max_bits - mask.begin_bit;
  if (mask.words == nullptr) return most;
  const size_type held = capacity_bits(mask.extent_words) - mask.begin_bit;
  return held < most ? held : most;
}
// range_within(b, e, range_end_limit(mask)) is that predicate; a loop over many ranges of one mask
// hoists the limit (and, with no branch, vectorises).
KOKKOS_INLINE_FUNCTION bool range_within(size_type b, size_type e, size_type limit) {
  return (b >= 0) & (e >= b) & (e <= limit);
}
KOKKOS_INLINE_FUNCTION bool range_bounds_ok(const source_mask& mask, size_type b, size_type e) {
  return range_within(b, e, range_end_limit(mask));
}
// Throws the README's message for the first bound of {b, e} that range_bounds_ok() refuses.
void check_range_bounds(const char* fn, const source_mask& mask, std::size_t i, size_type b, size_type e);
// Throws the message of range r ({b, e}, at positions 2r, 2r + 1 of the list), which
// range_bounds_ok() refused (a logic_error should the host check accept it).
[[noreturn]] void report_refused_range(const char* fn, const source_mask& mask, std::size_t r, size_type b, size_type e);
// Every pair {bounds[i], bounds[i + 1]} of a list check_range_list() passed, in order.
void check_range_pairs(const char* fn, const source_mask& mask, const size_type* bounds, std::size_t num_bounds);
// Ranges given as a view: a null one with bounds in it (num_bounds > 0).
void check_range_view(const char* fn, std::size_t num_bounds, bool is_null);

// Throws the message for source `j`, which check_source() refused, or, when it passed, which the
// GPU form's 8-byte reference cannot hold (`unpackable`).
// Kokkos indexes teams with int: refuses (before any work) a launch that would not fit.
void check_league_size(const char* fn, size_type league);

[[noreturn]] void report_source(const arg_names& names, std::size_t j, const source_mask& m, size_type size_bits);
[[noreturn]] void report_overlapping_destinations(const arg_names& names, size_type a, size_type b);

// batch_count_*: sizes_bits.size() == num_masks and every sizes_bits[j] in [0, max_bits].
void check_batch_sizes(const arg_names& names, std::size_t num_masks, const std::vector<size_type>& sizes_bits);
// Throws the message for mask `j` of a batch count, which check_source(m, size_bits) refused
// (`size_bits` being sizes_bits[j]).
[[noreturn]] void report_batch_source(const arg_names& names, std::size_t j, const source_mask& m,
                                      size_type size_bits);

}  // namespace detail
}  // namespace kmask

#endif
