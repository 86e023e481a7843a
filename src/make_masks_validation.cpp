// The messages of the mask-making calls' checks (detail/make_masks_validation.hpp), in the shapes
// of the README's error table. Every check runs before device work is enqueued, so a rejected call
// writes nothing; gather_policy::check's report comes after its kernel, which wrote only memory
// the call itself allocated.

#include <kmask/detail/make_masks_validation.hpp>

#include "messages.hpp"

#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

namespace kmask {
namespace detail {
void check_single_dest(const char* fn, const char* what, const dest_mask& d, const char* size_name,
                       size_type size_bits) {
  const size_type words = num_words(size_bits);
  if (d.extent_words < 0) throw std::invalid_argument(messages::message(fn, what, ".extent_words = ", d.extent_words, " is negative"));
  if (words > 0 && d.words == nullptr)
    throw std::invalid_argument(messages::message(fn, what, " is null but ", size_name, " = ", size_bits, " bits are written to it"));
  if (d.extent_words < words)
    throw std::out_of_range(
        messages::message(fn, what, " has ", d.extent_words, " words but ", size_name, " = ", size_bits, " needs ", words));
}

void check_bool_output(const char* fn, const char* what, size_type extent, bool is_null, size_type needed) {
  if (needed > 0 && is_null)
    throw std::invalid_argument(messages::message(fn, what, " is a null view but ", needed, " values are written to it"));
  if (extent < needed)
    throw std::out_of_range(messages::message(fn, what, ".extent(0) = ", extent, " is less than the ", needed, " needed"));
}

void check_input_array(const char* fn, const char* what, size_type extent, bool is_null) {
  if (is_null && extent != 0)
    throw std::invalid_argument(messages::message(fn, what, " is a null view but its extent is ", extent));
}

void check_gather_policy(const char* fn, int policy, bool in_place) {
  if (policy < 0 || policy > 2)
    throw std::invalid_argument(messages::message(fn, "policy = ", policy, " is not a kmask::gather_policy"));
  if (in_place && policy == 0)
    throw std::invalid_argument(
        messages::message(fn, "policy = gather_policy::check cannot be used in place (the indices are checked on the device, "
                 "after dest would be written); use gather_bits, or nullify / dont_check"));
}

void check_gather_overlap(const char* fn, const dest_mask& dest, const source_mask& mask, size_type begin_bit,
                          size_type size_bits) {
  if (dest.words == nullptr || mask.words == nullptr || size_bits == 0 || dest.extent_words == 0) return;
  const auto a0 = reinterpret_cast<std::uintptr_t>(dest.words);
  const auto a1 = a0 + static_cast<std::uintptr_t>(dest.extent_words) * sizeof(word_type);
  const size_type first = (mask.begin_bit + begin_bit) / word_bits;
  const size_type last  = (mask.begin_bit + begin_bit + size_bits - 1) / word_bits + 1;
  const auto b0 = reinterpret_cast<std::uintptr_t>(mask.words + first);
  const auto b1 = reinterpret_cast<std::uintptr_t>(mask.words + last);
  if (a0 < b1 && b0 < a1)
    throw std::invalid_argument(messages::message(fn, "dest overlaps the words of mask it gathers from"));
}

void report_gather_index(const char* fn, size_type position, size_type value, size_type size_bits) {
  throw std::out_of_range(messages::message(fn, "indices[", position, "] = ", value, " is outside [0, size_bits = ", size_bits,
                               ") (gather_policy::check)"));
}

}  // namespace detail
}  // namespace kmask
