// The messages of the bit-moving calls' checks (detail/move_bits_validation.hpp), in the README's
// shapes. Every check runs before any device work is enqueued, so a rejected call writes nothing.

#include <kmask/detail/move_bits_validation.hpp>

#include "messages.hpp"

#include <sstream>
#include <stdexcept>
#include <string>

namespace kmask {
namespace detail {
namespace {

using messages::invalid;
using messages::out_of_range;

// "dests[3]", or "dest" for a single call, then `suffix`: written only into a message, so a call
// that passes its checks builds no string (a string per argument was most of the host time of a
// 1000-piece segmented_copy_bits).
struct at {
  const char* list;
  std::size_t i;
  const char* suffix = "";
};
std::ostream& operator<<(std::ostream& os, const at& a) {
  os << a.list;
  if (a.i != no_index) os << "[" << a.i << "]";
  return os << a.suffix;
}
const char* null_kind(bool pointers) { return pointers ? "a null pointer" : "a null view"; }

void check_position(const char* fn, const at& what, size_type v) {
  if (v < 0) invalid(fn, what, " = ", v, " is negative");
  if (v > max_bits) invalid(fn, what, " = ", v, " is too large");
}

}  // namespace

void check_list_lengths(const char* fn, const char* a, std::size_t na, const char* b, std::size_t nb) {
  if (na != nb) invalid(fn, a, ".size() = ", na, " differs from ", b, ".size() = ", nb);
}

size_type check_move_dest(const move_names& n, std::size_t i, const dest_mask& d, size_type begin,
                          size_type size_or_end) {
  const at b{n.dest_begins, i}, s{n.sizes, i}, dn{n.dests, i};
  check_position(n.fn, b, begin);
  size_type size = size_or_end;
  if (n.ends) {
    if (size_or_end < begin) invalid(n.fn, s, " = ", size_or_end, " is less than ", b, " = ", begin);
    if (size_or_end > max_bits) invalid(n.fn, s, " = ", size_or_end, " is too large");
    size = size_or_end - begin;
  } else {
    check_position(n.fn, s, size_or_end);
    if (begin + size > max_bits) invalid(n.fn, b, " + ", s, " = ", begin, " + ", size, " is too large");
  }
  if (d.extent_words < 0) invalid(n.fn, dn, ".extent_words = ", d.extent_words, " is negative");
  if (size > 0 && d.words == nullptr)
    invalid(n.fn, dn, " is ", null_kind(n.pointers), " but ", size, " bits are written to it");
  if (begin + size > capacity_bits(d.extent_words)) {
    if (n.ends)
      out_of_range(n.fn, s, " = ", begin + size, " is past the ", capacity_bits(d.extent_words), " bits of ", dn, " (",
                   d.extent_words, " words)");
    out_of_range(n.fn, b, " + ", s, " = ", begin, " + ", size, " is past the ", capacity_bits(d.extent_words),
                 " bits of ", dn, " (", d.extent_words, " words)");
  }
  return size;
}

bool check_move_source(const move_names& n, std::size_t i, const source_mask& m, size_type size) {
  const at sn{n.srcs, i}, s{n.sizes, i};
  const at b = n.pointers ? at{n.srcs, i, ".begin_bit"} : at{n.src_begins, i};
  check_position(n.fn, b, m.begin_bit);
  if (m.extent_words < 0) invalid(n.fn, sn, ".extent_words = ", m.extent_words, " is negative");
  if (m.words == nullptr) {
    if (m.extent_words != 0)
      invalid(n.fn, sn, " is ", null_kind(n.pointers), " but its extent is ", m.extent_words,
              " words (only an empty null mask reads as all valid)");
    return false;
  }
  if (m.begin_bit + size > capacity_bits(m.extent_words))
    out_of_range(n.fn, b, " + ", s, " = ", m.begin_bit, " + ", size, " is past the ", capacity_bits(m.extent_words),
                 " bits of ", sn, " (", m.extent_words, " words)");
  return true;
}

void report_overlapping_ranges(const move_names& n, std::size_t a, size_type a_begin, size_type a_end, std::size_t b,
                               size_type b_begin, size_type b_end) {
  invalid(n.fn, at{n.dests, b}, " bits [", b_begin, ", ", b_end, ") overlap ", at{n.dests, a}, " bits [", a_begin,
          ", ", a_end, "): both would be written at once");
}

void check_concatenate_total(const char* fn, size_type total) {
  if (total > max_bits) invalid(fn, "sizes_bits add up to ", total, " bits, which is too large");
}

void check_concatenate_dest(const char* fn, bool pointers, const dest_mask& d, size_type total) {
  if (d.extent_words < 0) invalid(fn, "dest.extent_words = ", d.extent_words, " is negative");
  if (total > 0 && d.words == nullptr)
    invalid(fn, "dest is ", null_kind(pointers), " but the pieces' ", total, " bits are written to it");
  if (d.extent_words < num_words(total))
    out_of_range(fn, "dest has ", d.extent_words, " words but the pieces' ", total, " bits need ", num_words(total));
}

}  // namespace detail
}  // namespace kmask
