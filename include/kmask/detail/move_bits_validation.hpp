#ifndef KMASK_DETAIL_MOVE_BITS_VALIDATION_HPP
#define KMASK_DETAIL_MOVE_BITS_VALIDATION_HPP

// Host checks of the bit-moving calls (move_bits.hpp). Each piece is a destination range and a
// source range (or a constant); the messages are built in src/move_bits_validation.cpp.

#include <kmask/detail/validation.hpp>
#include <kmask/types.hpp>

#include <cstddef>

namespace kmask {
namespace detail {

// How a moving call names its arguments. Lists are indexed ("dests[3]"); a single call's
// arguments are not (`index` = no_index). `ends`: the sizes are end bits (set_bits).
struct move_names {
  const char* fn;
  const char* dests       = "dests";
  const char* dest_begins = "dest_begin_bits";
  const char* srcs        = "srcs";
  const char* src_begins  = "src_begin_bits";
  const char* sizes       = "sizes_bits";
  bool pointers           = false;
  bool ends               = false;
};
constexpr std::size_t no_index = ~std::size_t{0};

// "<a>.size() = 3 differs from <b>.size() = 2".
void check_list_lengths(const char* fn, const char* a, std::size_t na, const char* b, std::size_t nb);
// Checks piece `i`'s destination range [begin, begin + size) (or [begin, end) with names.ends, where
// `size_or_end` is the end), and returns its size.
size_type check_move_dest(const move_names& n, std::size_t i, const dest_mask& d, size_type begin,
                          size_type size_or_end);
// Checks piece `i`'s source over `size` bits from its begin_bit (size checked); false when absent.
bool check_move_source(const move_names& n, std::size_t i, const source_mask& s, size_type size);
// Whether check_move_dest would pass, without a message: the threaded list pass
// (move_bits_threaded_list.hpp) tests pieces with it and sends any that fail back to the checks
// above, which name them. A source's test is check_source (validation.hpp) != invalid.
inline bool move_dest_ok(bool ends, const dest_mask& d, size_type begin, size_type size_or_end) {
  if (begin < 0 || begin > max_bits) return false;
  size_type size = size_or_end;
  if (ends) {
    if (size_or_end < begin || size_or_end > max_bits) return false;
    size = size_or_end - begin;
  } else if (size < 0 || size > max_bits || begin + size > max_bits) {
    return false;
  }
  if (d.extent_words < 0 || (size > 0 && d.words == nullptr)) return false;
  return begin + size <= capacity_bits(d.extent_words);
}
[[noreturn]] void report_overlapping_ranges(const move_names& n, std::size_t a, size_type a_begin, size_type a_end,
                                            std::size_t b, size_type b_begin, size_type b_end);
// concatenate's destination and the pieces' total.
void check_concatenate_total(const char* fn, size_type total);
void check_concatenate_dest(const char* fn, bool pointers, const dest_mask& d, size_type total);

}  // namespace detail
}  // namespace kmask

#endif
