// Argument validation and aliasing analysis for every kmask call (see detail/host_checks.hpp).
// Everything is checked before any device work is enqueued, so a rejected call writes nothing.

#include <kmask/detail/host_checks.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

namespace kmask {
namespace detail {
namespace {

template <class... Parts>
std::string message(const char* fn, const Parts&... parts) {
  std::ostringstream os;
  os << fn << ": ";
  (void)std::initializer_list<int>{((os << parts), 0)...};
  return os.str();
}

template <class... Parts>
[[noreturn]] void invalid(const char* fn, const Parts&... parts) {
  throw std::invalid_argument(message(fn, parts...));
}

template <class... Parts>
[[noreturn]] void out_of_range(const char* fn, const Parts&... parts) {
  throw std::out_of_range(message(fn, parts...));
}

size_type capacity_bits(const extent_info& v) { return v.words * word_bits; }

// [first, last) word addresses a mask's bits [begin, begin + size) occupy; empty when size == 0.
struct word_range {
  std::uintptr_t first;
  std::uintptr_t last;
  bool empty() const { return first >= last; }
};

word_range words_read(const void* data, size_type begin_bit, size_type size_bits) {
  const auto base = reinterpret_cast<std::uintptr_t>(data);
  if (size_bits <= 0 || data == nullptr) return {base, base};
  const auto first = static_cast<std::uintptr_t>(begin_bit / word_bits);
  const auto last  = static_cast<std::uintptr_t>((begin_bit + size_bits - 1) / word_bits + 1);
  return {base + first * sizeof(word_type), base + last * sizeof(word_type)};
}

}  // namespace

void check_size_bits(const char* fn, size_type size_bits) {
  if (size_bits < 0) invalid(fn, "size_bits = ", size_bits, " is negative");
  if (size_bits > max_bits) invalid(fn, "size_bits = ", size_bits, " is too large");
}

void check_begin_bit(const char* fn, const char* what, size_type begin_bit) {
  if (begin_bit < 0) invalid(fn, what, " begin_bit = ", begin_bit, " is negative");
  if (begin_bit > max_bits) invalid(fn, what, " begin_bit = ", begin_bit, " is too large");
}

void check_bit_range(const char* fn, const char* what, extent_info mask, size_type begin_bit, size_type end_bit) {
  if (begin_bit < 0) invalid(fn, what, " begin_bit = ", begin_bit, " is negative");
  if (end_bit < begin_bit) invalid(fn, what, " end_bit = ", end_bit, " is less than begin_bit = ", begin_bit);
  if (end_bit > max_bits) invalid(fn, what, " end_bit = ", end_bit, " is too large");
  if (end_bit > begin_bit && mask.data == nullptr) invalid(fn, what, " is a null view but bits are read from it");
  if (end_bit > capacity_bits(mask))
    out_of_range(fn, what, " bit range [", begin_bit, ", ", end_bit, ") is past the ", capacity_bits(mask),
                 " bits of the view (", mask.words, " words)");
}

void check_sources(const char* fn, const std::vector<extent_info>& masks, const std::vector<size_type>& begin_bits,
                   size_type size_bits) {
  check_size_bits(fn, size_bits);
  if (masks.size() != begin_bits.size())
    invalid(fn, "masks.size() = ", masks.size(), " differs from begin_bits.size() = ", begin_bits.size());
  for (std::size_t i = 0; i < masks.size(); ++i) {
    const size_type b = begin_bits[i];
    if (source_is_valid(masks[i].data, masks[i].words, b, size_bits)) continue;
    if (b < 0) invalid(fn, "begin_bits[", i, "] = ", b, " is negative");
    if (b > max_bits) invalid(fn, "begin_bits[", i, "] = ", b, " is too large");
    if (size_bits > 0 && masks[i].data == nullptr)
      invalid(fn, "masks[", i, "] is a null view but size_bits = ", size_bits, " bits are read from it");
    if (b + size_bits > capacity_bits(masks[i]))
      out_of_range(fn, "begin_bits[", i, "] + size_bits = ", b, " + ", size_bits, " is past the ",
                   capacity_bits(masks[i]), " bits of masks[", i, "] (", masks[i].words, " words)");
    invalid(fn, "masks[", i, "] is invalid");  // unreachable: the checks above cover source_is_valid
  }
}

void check_segment_offsets(const char* fn, const std::vector<size_type>& segment_offsets, size_type num_masks) {
  if (segment_offsets.empty())
    invalid(fn, "segment_offsets is empty (it needs num_segments + 1 entries; {0} means zero segments)");
  for (std::size_t s = 0; s < segment_offsets.size(); ++s) {
    const size_type o = segment_offsets[s];
    if (o < 0 || o > num_masks)
      out_of_range(fn, "segment_offsets[", s, "] = ", o, " is outside [0, masks.size() = ", num_masks, "]");
    if (s > 0 && o < segment_offsets[s - 1])
      invalid(fn, "segment_offsets[", s, "] = ", o, " is less than segment_offsets[", s - 1,
              "] = ", segment_offsets[s - 1], " (offsets must not decrease)");
  }
}

void check_destinations(const char* fn, const std::vector<extent_info>& destinations, size_type num_segments,
                        size_type size_bits, const char* what) {
  if (static_cast<size_type>(destinations.size()) != num_segments)
    invalid(fn, what, ".size() = ", destinations.size(), " differs from the number of segments = ", num_segments);
  const size_type words = num_words(size_bits);
  for (std::size_t s = 0; s < destinations.size(); ++s) {
    if (words > 0 && destinations[s].data == nullptr)
      invalid(fn, what, "[", s, "] is a null view but size_bits = ", size_bits, " bits are written to it");
    if (destinations[s].words < words)
      out_of_range(fn, what, "[", s, "] has ", destinations[s].words, " words but size_bits = ", size_bits,
                   " needs ", words);
  }
}

void check_ranges(const char* fn, extent_info mask, const std::vector<size_type>& ranges) {
  if (ranges.size() % 2 != 0)
    invalid(fn, "ranges.size() = ", ranges.size(), " is odd (ranges are {begin0, end0, begin1, end1, ...})");
  for (std::size_t i = 0; i < ranges.size(); i += 2) {
    const size_type b = ranges[i], e = ranges[i + 1];
    if (b < 0) invalid(fn, "ranges[", i, "] = ", b, " is negative");
    if (e < b) invalid(fn, "ranges[", i + 1, "] = ", e, " is less than ranges[", i, "] = ", b);
    if (e > max_bits) invalid(fn, "ranges[", i + 1, "] = ", e, " is too large");
    if (e > b && mask.data == nullptr) invalid(fn, "mask is a null view but ranges[", i, "] reads bits from it");
    if (e > capacity_bits(mask))
      out_of_range(fn, "ranges[", i + 1, "] = ", e, " is past the ", capacity_bits(mask), " bits of mask (",
                   mask.words, " words)");
  }
}

void check_counter_extent(const char* fn, const char* what, size_type extent, size_type needed, bool is_null) {
  if (needed > 0 && is_null) invalid(fn, what, " is a null view but ", needed, " counts are written to it");
  if (extent < needed) out_of_range(fn, what, ".extent(0) = ", extent, " is less than the ", needed, " needed");
}

std::vector<size_type> sources_to_stage(const char* fn, const std::vector<extent_info>& destinations,
                                        const std::vector<extent_info>& masks,
                                        const std::vector<size_type>& begin_bits, size_type size_bits,
                                        const std::vector<size_type>& segment_offsets) {
  std::vector<size_type> staged;
  if (size_bits == 0 || destinations.empty()) return staged;

  // Destinations sorted by address; disjointness makes both their starts and ends increasing.
  struct interval {
    word_range r;
    size_type segment;
  };
  std::vector<interval> dest;
  dest.reserve(destinations.size());
  for (std::size_t s = 0; s < destinations.size(); ++s)
    dest.push_back({words_read(destinations[s].data, 0, size_bits), static_cast<size_type>(s)});
  std::sort(dest.begin(), dest.end(), [](const interval& a, const interval& b) { return a.r.first < b.r.first; });
  for (std::size_t i = 1; i < dest.size(); ++i)
    if (dest[i].r.first < dest[i - 1].r.last) {
      const auto a = std::min(dest[i - 1].segment, dest[i].segment), b = std::max(dest[i - 1].segment, dest[i].segment);
      invalid(fn, "destinations[", b, "] overlaps destinations[", a, "]: both would be written at once");
    }

  const std::size_t num_segments = segment_offsets.size() - 1;
  for (std::size_t s = 0; s < num_segments; ++s) {
    for (size_type j = segment_offsets[s]; j < segment_offsets[s + 1]; ++j) {
      const word_range src = words_read(masks[j].data, begin_bits[j], size_bits);
      // Last destination starting before the source ends; walk down while it still reaches into it.
      auto it = std::lower_bound(dest.begin(), dest.end(), src.last,
                                 [](const interval& d, std::uintptr_t v) { return d.r.first < v; });
      bool stage = false;
      while (it != dest.begin()) {
        --it;
        if (it->r.last <= src.first) break;
        const bool own_in_place = it->segment == static_cast<size_type>(s) && begin_bits[j] == 0 &&
                                  masks[j].data == destinations[s].data;
        if (!own_in_place) {
          stage = true;
          break;
        }
      }
      if (stage) staged.push_back(j);
    }
  }
  std::sort(staged.begin(), staged.end());
  staged.erase(std::unique(staged.begin(), staged.end()), staged.end());
  return staged;
}

}  // namespace detail
}  // namespace kmask
