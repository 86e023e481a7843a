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

// Bits [begin, end) of m become v; nothing else changes (set_bits).
inline void set_range(words& m, std::int64_t begin, std::int64_t end, int v) {
  for (std::int64_t i = begin; i < end; ++i) set_bit(m, i, v);
}

// dest bits [dest_begin, dest_begin + size) get src bits [src_begin, src_begin + size), read from a
// copy taken before any bit is written (so src may be dest itself); src == nullptr reads as ones.
inline void copy_range(words& dest, std::int64_t dest_begin, const words* src, std::int64_t src_begin,
                       std::int64_t size) {
  const words before = src ? *src : words();
  for (std::int64_t i = 0; i < size; ++i) set_bit(dest, dest_begin + i, src ? get_bit(before, src_begin + i) : 1);
}

// The pieces back to back from bit 0 (a null piece is ones), in words of exactly ceil(total/32)
// with bits past the total zero, and the number of zeros among the total bits.
inline result concatenate(const std::vector<const words*>& pieces, const std::vector<std::int64_t>& begins,
                          const std::vector<std::int64_t>& sizes) {
  std::int64_t total = 0;
  for (auto s : sizes) total += s;
  result r{words(static_cast<std::size_t>((total + 31) / 32), 0u), 0};
  std::int64_t at = 0;
  for (std::size_t p = 0; p < pieces.size(); ++p)
    for (std::int64_t i = 0; i < sizes[p]; ++i, ++at) {
      const int bit = pieces[p] ? get_bit(*pieces[p], begins[p] + i) : 1;
      set_bit(r.mask, at, bit);
      if (!bit) ++r.nulls;
    }
  return r;
}

// superimpose_nulls_tree: node k's new bits [0, size) are valid where node k and every ancestor
// (parents[a], up to a root, -1) were valid before, each node a read from its bit begins[a].
inline std::vector<result> superimpose_tree(const std::vector<words>& masks, const std::vector<std::int64_t>& begins,
                                            const std::vector<std::int64_t>& parents, std::int64_t size) {
  std::vector<result> out;
  for (std::size_t k = 0; k < masks.size(); ++k) {
    result r{words(static_cast<std::size_t>((size + 31) / 32), 0u), 0};
    for (std::int64_t i = 0; i < size; ++i) {
      int bit = 1;
      for (std::int64_t a = static_cast<std::int64_t>(k); a != -1; a = parents[static_cast<std::size_t>(a)])
        bit &= get_bit(masks[static_cast<std::size_t>(a)], begins[static_cast<std::size_t>(a)] + i);
      set_bit(r.mask, i, bit);
      if (!bit) ++r.nulls;
    }
    out.push_back(r);
  }
  return out;
}

// ---- Making masks (valid_if, bools_to_mask, mask_to_bools, gather_bits), bit by bit.

// Bit i = pred(i) for i in [0, size): words of exactly ceil(size/32), bits past size zero.
template <class Pred>
result from_predicate(std::int64_t size, const Pred& pred) {
  result r{words(static_cast<std::size_t>((size + 31) / 32), 0u), 0};
  for (std::int64_t i = 0; i < size; ++i) {
    const int bit = pred(i) ? 1 : 0;
    set_bit(r.mask, i, bit);
    if (!bit) ++r.nulls;
  }
  return r;
}

// Bit i = values[i] != 0.
inline result from_bytes(const std::vector<std::uint8_t>& values) {
  return from_predicate(static_cast<std::int64_t>(values.size()),
                        [&](std::int64_t i) { return values[static_cast<std::size_t>(i)] != 0; });
}

// Element i = bit begin + i of m, for i in [0, end - begin); m == nullptr reads as all valid.
inline std::vector<int> to_bools(const words* m, std::int64_t begin, std::int64_t end) {
  std::vector<int> out;
  for (std::int64_t i = begin; i < end; ++i) out.push_back(m == nullptr ? 1 : get_bit(*m, i));
  return out;
}

// Bit i = bit begin + indices[i] of m (m == nullptr: all valid) when indices[i] is in [0, size);
// an index outside it gives 0 (nullify). The first such position, or -1, goes to *first_bad.
inline result gather(const words* m, std::int64_t begin, std::int64_t size, const std::vector<std::int64_t>& indices,
                     std::int64_t* first_bad = nullptr) {
  if (first_bad != nullptr) *first_bad = -1;
  return from_predicate(static_cast<std::int64_t>(indices.size()), [&](std::int64_t i) {
    const std::int64_t j = indices[static_cast<std::size_t>(i)];
    if (j < 0 || j >= size) {
      if (first_bad != nullptr && *first_bad < 0) *first_bad = i;
      return false;
    }
    return m == nullptr || get_bit(*m, begin + j) == 1;
  });
}


}  // namespace ref

#endif
