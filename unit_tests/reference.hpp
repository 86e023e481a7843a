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

}  // namespace ref

#endif
