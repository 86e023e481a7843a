// The messages of superimpose_nulls_tree()'s own checks (detail/tree_validation.hpp), and the depth
// order of its forest, built in the same pass that looks for cycles.

#include <kmask/detail/tree_validation.hpp>
#include <kmask/detail/validation.hpp>

#include "messages.hpp"

#include <sstream>
#include <stdexcept>
#include <string>

namespace kmask {
namespace detail {
namespace {

// "2 -> 4 -> 3 -> 2" for the cycle that starts at cycle[0]; long cycles are elided in the middle.
std::string describe_cycle(const std::vector<size_type>& cycle) {
  constexpr std::size_t shown = 8;
  std::ostringstream os;
  if (cycle.size() <= shown) {
    for (size_type k : cycle) os << k << " -> ";
  } else {
    for (std::size_t i = 0; i < shown - 2; ++i) os << cycle[i] << " -> ";
    os << "... (" << cycle.size() << " nodes) -> " << cycle.back() << " -> ";
  }
  os << cycle.front();
  return os.str();
}

}  // namespace

void check_tree_parent_count(const char* fn, std::size_t parents, std::size_t masks) {
  if (parents != masks)
    throw std::invalid_argument(
        messages::message(fn, "parents.size() = ", parents, " differs from masks.size() = ", masks));
}

tree_order order_tree(const char* fn, const size_type* parents, std::size_t n) {
  const size_type count = static_cast<size_type>(n);
  for (std::size_t k = 0; k < n; ++k)
    if (parents[k] < -1 || parents[k] >= count)
      throw std::out_of_range(messages::message(fn, "parents[", k, "] = ", parents[k], " is outside [-1, masks.size() = ",
                                           count, ") (-1 marks a root)"));
  // depth[k]: -1 not yet known, -2 on the chain being walked.
  constexpr size_type unknown = -1, walking = -2;
  std::vector<size_type> depth(n, unknown);
  std::vector<size_type> chain;
  for (std::size_t start = 0; start < n; ++start) {
    if (depth[start] != unknown) continue;
    chain.clear();
    size_type k = static_cast<size_type>(start);
    while (k != -1 && depth[static_cast<std::size_t>(k)] == unknown) {
      depth[static_cast<std::size_t>(k)] = walking;
      chain.push_back(k);
      k = parents[k];
    }
    if (k != -1 && depth[static_cast<std::size_t>(k)] == walking) {
      // The cycle is the chain from k on; it is reported from its lowest node.
      std::size_t at = 0;
      while (chain[at] != k) ++at;
      std::vector<size_type> cycle(chain.begin() + static_cast<std::ptrdiff_t>(at), chain.end());
      std::size_t low = 0;
      for (std::size_t i = 1; i < cycle.size(); ++i)
        if (cycle[i] < cycle[low]) low = i;
      std::vector<size_type> from_low(cycle.begin() + static_cast<std::ptrdiff_t>(low), cycle.end());
      from_low.insert(from_low.end(), cycle.begin(), cycle.begin() + static_cast<std::ptrdiff_t>(low));
      throw std::invalid_argument(messages::message(fn, "parents[", from_low[0], "] = ", parents[from_low[0]],
                                               " closes a cycle (", describe_cycle(from_low),
                                               "): every parent chain must end at a root (-1)"));
    }
    size_type d = k == -1 ? -1 : depth[static_cast<std::size_t>(k)];
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) depth[static_cast<std::size_t>(*it)] = ++d;
  }
  // Counting sort by depth, stable in the node index.
  tree_order t;
  size_type levels = 0;
  for (size_type d : depth) levels = d + 1 > levels ? d + 1 : levels;
  t.level_offsets.assign(static_cast<std::size_t>(levels) + 1, 0);
  for (size_type d : depth) ++t.level_offsets[static_cast<std::size_t>(d) + 1];
  for (std::size_t l = 0; l < static_cast<std::size_t>(levels); ++l) {
    const size_type width = t.level_offsets[l + 1];
    if (width > t.max_level_width) t.max_level_width = width;
    t.level_offsets[l + 1] += t.level_offsets[l];
  }
  t.order.resize(n);
  t.parent_of.resize(n);
  std::vector<size_type> next(t.level_offsets.begin(), t.level_offsets.end() - 1);
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = static_cast<std::size_t>(next[static_cast<std::size_t>(depth[k])]++);
    t.order[i]          = static_cast<size_type>(k);
    t.parent_of[i]      = parents[k];
  }
  return t;
}

void check_tree_source(const char* fn, std::size_t k, const dest_mask& m, size_type begin_bit, size_type size_bits) {
  if (begin_bit < 0) throw std::invalid_argument(messages::message(fn, "begin_bits[", k, "] = ", begin_bit, " is negative"));
  if (begin_bit > max_bits)
    throw std::invalid_argument(messages::message(fn, "begin_bits[", k, "] = ", begin_bit, " is too large"));
  if (m.extent_words < 0)
    throw std::invalid_argument(messages::message(fn, "masks[", k, "].extent_words = ", m.extent_words, " is negative"));
  if (m.words == nullptr) {
    if (m.extent_words != 0)
      throw std::invalid_argument(messages::message(fn, "masks[", k, "] is a null pointer but its extent is ",
                                               m.extent_words, " words (only an empty null mask reads as all valid)"));
    return;  // absent: all valid (and refused later as a destination if bits are written)
  }
  if (begin_bit + size_bits > capacity_bits(m.extent_words))
    throw std::out_of_range(messages::message(fn, "begin_bits[", k, "] + size_bits = ", begin_bit, " + ", size_bits,
                                         " is past the ", capacity_bits(m.extent_words), " bits of masks[", k, "] (",
                                         m.extent_words, " words)"));
}

}  // namespace detail
}  // namespace kmask
