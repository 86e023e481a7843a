#ifndef KMASK_TEST_REFERENCE_HPP
#define KMASK_TEST_REFERENCE_HPP

// The scalar reference every kernel is checked against. Written bit by bit, independently of the
// library (it includes nothing from kmask): one obviously-correct loop per operation.

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace ref {

using word  = std::uint32_t;
using words = std::vector<word>;

enum class op { and_, or_, xor_, xnor_ };

inline int get_bit(const words& m, std::int64_t i) { return static_cast<int>((m[i / 32] >> (i % 32)) & 1u); }

inline void set_bit(words& m, std::int64_t i, int v) {
  if (v) m[i / 32] |= word{1} << (i % 32);
  else m[i / 32] &= ~(word{1} << (i % 32));
}

inline int identity_bit(op o) { return (o == op::and_ || o == op::xnor_) ? 1 : 0; }

inline int apply(op o, int a, int b) {
  switch (o) {
    case op::and_: return a & b;
    case op::or_: return a | b;
    case op::xor_: return a ^ b;
    case op::xnor_: return a == b ? 1 : 0;
  }
  throw std::logic_error("unknown op");
}

inline std::int64_t count_set(const words& m, std::int64_t begin, std::int64_t end) {
  std::int64_t n = 0;
  for (std::int64_t i = begin; i < end; ++i) n += get_bit(m, i);
  return n;
}

// The combined mask of one segment: words of exactly ceil(size/32), bits past size zero.
struct result {
  words mask;
  std::int64_t nulls;
};

inline result combine(op o, const std::vector<const words*>& sources, const std::vector<std::int64_t>& begins,
                      std::int64_t size) {
  result r{words(static_cast<std::size_t>((size + 31) / 32), 0u), 0};
  for (std::int64_t i = 0; i < size; ++i) {
    int bit = identity_bit(o);
    for (std::size_t j = 0; j < sources.size(); ++j) bit = apply(o, bit, get_bit(*sources[j], begins[j] + i));
    set_bit(r.mask, i, bit);
    if (!bit) ++r.nulls;
  }
  return r;
}

// Bits [begin, end) of m, moved to start at bit 0.
inline words slice(const words& m, std::int64_t begin, std::int64_t end) {
  words out(static_cast<std::size_t>((end - begin + 31) / 32), 0u);
  for (std::int64_t i = begin; i < end; ++i) set_bit(out, i - begin, get_bit(m, i));
  return out;
}

// A source as a call reads it: bits of *m from `begin` (m == nullptr: an absent mask, all ones),
// complemented bit by bit when `invert`.
struct read_source {
  const words* m;
  std::int64_t begin;
  bool invert;
};

inline int read_bit(const read_source& s, std::int64_t i) {
  const int b = s.m == nullptr ? 1 : get_bit(*s.m, s.begin + i);
  return s.invert ? 1 - b : b;
}

// combine() over sources read as read_source.
inline result combine_read(op o, const std::vector<read_source>& sources, std::int64_t size) {
  result r{words(static_cast<std::size_t>((size + 31) / 32), 0u), 0};
  for (std::int64_t i = 0; i < size; ++i) {
    int bit = identity_bit(o);
    for (const auto& s : sources) bit = apply(o, bit, read_bit(s, i));
    set_bit(r.mask, i, bit);
    if (!bit) ++r.nulls;
  }
  return r;
}

// Set bits of a read source's bits [0, size).
inline std::int64_t count_set_read(const read_source& s, std::int64_t size) {
  std::int64_t n = 0;
  for (std::int64_t i = 0; i < size; ++i) n += read_bit(s, i);
  return n;
}

}  // namespace ref

#endif
