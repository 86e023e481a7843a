#ifndef KMASK_DETAIL_MAKE_MASKS_VALIDATION_HPP
#define KMASK_DETAIL_MAKE_MASKS_VALIDATION_HPP

// Host-side checks of the mask-making calls (make_masks.hpp) whose messages the core's checks
// (validation.hpp) do not already build; the messages are compiled once in
// src/make_masks_validation.cpp. Each runs before anything is enqueued.

#include <kmask/types.hpp>

namespace kmask {
namespace detail {

// The single destination `what` ("dest") of `size_bits` bits, a size the caller's argument
// `size_name` ("size_bits", "values.extent(0)") gives: non-null when bits are written, and holding
// num_words(size_bits) words.
void check_single_dest(const char* fn, const char* what, const dest_mask& d, const char* size_name,
                       size_type size_bits);
// A boolean output `what` ("out") of `extent` elements that `needed` values are written to.
void check_bool_output(const char* fn, const char* what, size_type extent, bool is_null, size_type needed);
// An input array `what` ("values", "indices") given as a view: a null view must be empty.
void check_input_array(const char* fn, const char* what, size_type extent, bool is_null);
// gather_policy values (0 check, 1 nullify, 2 dont_check); `in_place` refuses `check`.
void check_gather_policy(const char* fn, int policy, bool in_place);
// The destination of a gather must not share words with the mask it reads.
void check_gather_overlap(const char* fn, const dest_mask& dest, const source_mask& mask, size_type begin_bit,
                          size_type size_bits);
// What gather_policy::check found on the device: indices[position] = value is outside [0, size_bits).
[[noreturn]] void report_gather_index(const char* fn, size_type position, size_type value, size_type size_bits);

}  // namespace detail
}  // namespace kmask

#endif
