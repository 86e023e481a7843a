// The messages of kmask's argument checks (detail/validation.hpp). Every check runs before any
// device work is enqueued, so a rejected call writes nothing.

#include <kmask/detail/validation.hpp>

#include "messages.hpp"

#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

namespace kmask {
namespace detail {
namespace {

using messages::invalid;
using messages::out_of_range;

// A single mask argument `what`'s extent: not negative, and none for a null mask (an absent mask,
// all valid). Returns whether the mask has words.
bool check_mask_words(const char* fn, const char* what, const source_mask& mask) {
  if (mask.extent_words < 0) invalid(fn, what, ".extent_words = ", mask.extent_words, " is negative");
  if (mask.words != nullptr) return true;
  if (mask.extent_words != 0)
    invalid(fn, what, " is null but its extent is ", mask.extent_words,
            " words (only an empty null mask reads as all valid)");
  return false;
}

// "begin_bits[3]" or "masks[3].begin_bit".
std::string begin_name(const arg_names& n, std::size_t j) {
  std::ostringstream os;
  if (n.pointers) os << n.sources << "[" << j << "].begin_bit";
  else os << "begin_bits[" << j << "]";
  return os.str();
}

const char* null_kind(const arg_names& n) { return n.pointers ? "a null pointer" : "a null view"; }

}  // namespace

void check_size_bits(const char* fn, size_type size_bits) {
  if (size_bits < 0) invalid(fn, "size_bits = ", size_bits, " is negative");
  if (size_bits > max_bits) invalid(fn, "size_bits = ", size_bits, " is too large");
}

void check_same_size(const char* fn, std::size_t masks, std::size_t begin_bits) {
  if (masks != begin_bits) invalid(fn, "masks.size() = ", masks, " differs from begin_bits.size() = ", begin_bits);
}

namespace {
// check_bit_range() once [begin_bit, end_bit) itself is known to be a well-formed range.
bool check_mask_range(const char* fn, const char* what, const source_mask& mask, size_type begin_bit,
                      size_type end_bit) {
  if (mask.begin_bit < 0) invalid(fn, what, ".begin_bit = ", mask.begin_bit, " is negative");
  if (mask.begin_bit > max_bits - end_bit) invalid(fn, what, ".begin_bit = ", mask.begin_bit, " is too large");
  if (!check_mask_words(fn, what, mask)) return false;  // absent: all valid
  const size_type b = mask.begin_bit + begin_bit, e = mask.begin_bit + end_bit;
  if (e > capacity_bits(mask.extent_words))
    out_of_range(fn, what, " bit range [", b, ", ", e, ") is past the ", capacity_bits(mask.extent_words),
                 " bits of the view (", mask.extent_words, " words)");
  return true;
}
}  // namespace

bool check_bit_range(const char* fn, const char* what, const source_mask& mask, size_type begin_bit,
                     size_type end_bit) {
  if (begin_bit < 0) invalid(fn, what, " begin_bit = ", begin_bit, " is negative");
  if (end_bit < begin_bit) invalid(fn, what, " end_bit = ", end_bit, " is less than begin_bit = ", begin_bit);
  if (end_bit > max_bits) invalid(fn, what, " end_bit = ", end_bit, " is too large");
  return check_mask_range(fn, what, mask, begin_bit, end_bit);
}

bool check_bit_span(const char* fn, const char* what, const source_mask& mask, size_type begin_bit,
                    size_type size_bits) {
  if (begin_bit < 0) invalid(fn, what, " begin_bit = ", begin_bit, " is negative");
  if (begin_bit > max_bits) invalid(fn, what, " begin_bit = ", begin_bit, " is too large");
  if (begin_bit + size_bits > max_bits)
    invalid(fn, what, " end_bit = ", begin_bit, " + ", size_bits, " is too large");
  return check_mask_range(fn, what, mask, begin_bit, begin_bit + size_bits);
}

void check_segment_offsets(const char* fn, const size_type* offsets, std::size_t num_offsets, size_type num_masks) {
  if (num_offsets == 0)
    invalid(fn, "segment_offsets is empty (it needs num_segments + 1 entries; {0} means zero segments)");
  for (std::size_t s = 0; s < num_offsets; ++s) {
    const size_type o = offsets[s];
    if (o < 0 || o > num_masks)
      out_of_range(fn, "segment_offsets[", s, "] = ", o, " is outside [0, masks.size() = ", num_masks, "]");
    if (s > 0 && o < offsets[s - 1])
      invalid(fn, "segment_offsets[", s, "] = ", o, " is less than segment_offsets[", s - 1, "] = ", offsets[s - 1],
              " (offsets must not decrease)");
  }
}

void check_destination_count(const arg_names& n, std::size_t num_dests, size_type num_segments) {
  if (static_cast<size_type>(num_dests) != num_segments)
    invalid(n.fn, n.dests, ".size() = ", num_dests, " differs from the number of segments = ", num_segments);
}

void check_destination(const arg_names& n, std::size_t s, const dest_mask& d, size_type size_bits) {
  const size_type words = num_words(size_bits);
  if (words > 0 && d.words == nullptr)
    invalid(n.fn, n.dests, "[", s, "] is ", null_kind(n), " but size_bits = ", size_bits, " bits are written to it");
  if (d.extent_words < words)
    out_of_range(n.fn, n.dests, "[", s, "] has ", d.extent_words, " words but size_bits = ", size_bits, " needs ",
                 words);
}

void check_counter_extent(const char* fn, const char* what, size_type extent, size_type needed, bool is_null) {
  if (needed > 0 && is_null) invalid(fn, what, " is a null view but ", needed, " counts are written to it");
  if (extent < needed) out_of_range(fn, what, ".extent(0) = ", extent, " is less than the ", needed, " needed");
}

void check_range_list(const char* fn, const source_mask& mask, std::size_t num_bounds) {
  if (num_bounds % 2 != 0)
    invalid(fn, "ranges.size() = ", num_bounds, " is odd (ranges are {begin0, end0, begin1, end1, ...})");
  if (mask.begin_bit < 0) invalid(fn, "mask.begin_bit = ", mask.begin_bit, " is negative");
  if (mask.begin_bit > max_bits) invalid(fn, "mask.begin_bit = ", mask.begin_bit, " is too large");
  check_mask_words(fn, "mask", mask);
}

void check_range_bounds(const char* fn, const source_mask& mask, std::size_t i, size_type b, size_type e) {
  if (b < 0) invalid(fn, "ranges[", i, "] = ", b, " is negative");
  if (e < b) invalid(fn, "ranges[", i + 1, "] = ", e, " is less than ranges[", i, "] = ", b);
  if (e > max_bits - mask.begin_bit) invalid(fn, "ranges[", i + 1, "] = ", e, " is too large");
  if (mask.words != nullptr && e > capacity_bits(mask.extent_words) - mask.begin_bit)
    out_of_range(fn, "ranges[", i + 1, "] = ", e, " is past the ", capacity_bits(mask.extent_words),
                 " bits of mask (", mask.extent_words, " words)");
}

void report_refused_range(const char* fn, const source_mask& mask, std::size_t r, size_type b, size_type e) {
  check_range_bounds(fn, mask, 2 * r, b, e);
  throw std::logic_error(std::string(fn) + ": range " + std::to_string(r) +
                         " was refused by a check that the host check accepts");
}

void check_range_view(const char* fn, std::size_t num_bounds, bool is_null) {
  if (num_bounds > 0 && is_null) invalid(fn, "ranges is a null view but its extent is ", num_bounds);
}

void check_range_pairs(const char* fn, const source_mask& mask, const size_type* bounds, std::size_t num_bounds) {
  for (std::size_t i = 0; i + 1 < num_bounds; i += 2) {
    const size_type b = bounds[i], e = bounds[i + 1];
    if (!range_bounds_ok(mask, b, e)) check_range_bounds(fn, mask, i, b, e);
  }
}

void report_source(const arg_names& n, std::size_t j, const source_mask& m, size_type size_bits) {
  const std::string b = begin_name(n, j);
  if (m.begin_bit < 0) invalid(n.fn, b, " = ", m.begin_bit, " is negative");
  if (m.begin_bit > max_bits) invalid(n.fn, b, " = ", m.begin_bit, " is too large");
  if (m.extent_words < 0) invalid(n.fn, n.sources, "[", j, "].extent_words = ", m.extent_words, " is negative");
  if (m.words == nullptr && m.extent_words != 0)
    invalid(n.fn, n.sources, "[", j, "] is ", null_kind(n), " but its extent is ", m.extent_words,
            " words (only an empty null mask reads as all valid)");
  if (m.words != nullptr && m.begin_bit + size_bits > capacity_bits(m.extent_words))
    out_of_range(n.fn, b, " + size_bits = ", m.begin_bit, " + ", size_bits, " is past the ",
                 capacity_bits(m.extent_words), " bits of ", n.sources, "[", j, "] (", m.extent_words, " words)");
  // check_source() passed: what failed is the GPU form's 8-byte reference.
  std::ostringstream addr;
  addr << static_cast<const void*>(m.words);
  invalid(n.fn, n.sources, "[", j, "] starts at address ", addr.str(),
          ", outside the range an 8-byte device source reference holds (its top five bits must agree)");
}

void check_league_size(const char* fn, size_type league) {
  if (league > std::numeric_limits<int>::max())
    throw std::length_error(std::string(fn) + ": " + std::to_string(league) +
                            " teams of work exceed the int range of Kokkos::TeamPolicy");
}

void report_overlapping_destinations(const arg_names& n, size_type a, size_type b) {
  invalid(n.fn, n.dests, "[", b, "] overlaps ", n.dests, "[", a, "]: both would be written at once");
}

void check_batch_sizes(const arg_names& n, std::size_t num_masks, const std::vector<size_type>& sizes_bits) {
  if (sizes_bits.size() != num_masks)
    invalid(n.fn, "sizes_bits.size() = ", sizes_bits.size(), " differs from ", n.sources, ".size() = ", num_masks);
  for (std::size_t j = 0; j < sizes_bits.size(); ++j) {
    if (sizes_bits[j] < 0) invalid(n.fn, "sizes_bits[", j, "] = ", sizes_bits[j], " is negative");
    if (sizes_bits[j] > max_bits) invalid(n.fn, "sizes_bits[", j, "] = ", sizes_bits[j], " is too large");
  }
}

void report_batch_source(const arg_names& n, std::size_t j, const source_mask& m, size_type size_bits) {
  if (m.words != nullptr && m.begin_bit >= 0 && m.begin_bit <= max_bits && m.extent_words >= 0 &&
      m.begin_bit + size_bits > capacity_bits(m.extent_words))
    out_of_range(n.fn, begin_name(n, j), " + sizes_bits[", j, "] = ", m.begin_bit, " + ", size_bits, " is past the ",
                 capacity_bits(m.extent_words), " bits of ", n.sources, "[", j, "] (", m.extent_words, " words)");
  report_source(n, j, m, size_bits);  // every other refusal reads as it does for any source
}

}  // namespace detail
}  // namespace kmask
