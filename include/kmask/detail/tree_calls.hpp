#ifndef KMASK_DETAIL_TREE_CALLS_HPP
#define KMASK_DETAIL_TREE_CALLS_HPP

// superimpose_nulls_tree() as a segmented problem: segment k is node k's mask read from its begin
// bit, written into the same mask from bit 0. The core describes and checks it (sources,
// destinations, overlaps), and decides which sources must be staged: only those a node other
// than their own overlaps, or their own from a bit other than 0 (shifting in place) — an
// ancestor's mask is not one of them, because the tree kernels never read a node at a word
// another owner writes (detail/tree_kernels.hpp). The forest's depth order travels behind the
// core's descriptors, in the same staging lease and the same upload.

#include <kmask/detail/segmented_calls.hpp>
#include <kmask/detail/tree_aligned_kernel.hpp>
#include <kmask/detail/tree_kernels.hpp>
#include <kmask/detail/tree_validation.hpp>

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kmask {
namespace detail {

// A staging lease with `extra` words after the `body` words encode() writes; its upload of the
// body carries them along.
template <class ExecSpace>
class tree_store {
 public:
  using lease = typename staging_pool<ExecSpace>::lease;
  tree_store(lease l, std::size_t body, std::size_t extra) : l_(std::move(l)), body_(body), extra_(extra) {}
  std::uint64_t* host() const { return l_.host(); }
  std::uint64_t* device() const { return l_.device(); }
  void upload(std::size_t begin, std::size_t end) const { l_.upload(begin, end == body_ ? end + extra_ : end); }
  void download(std::size_t begin, std::size_t end) const { l_.download(begin, end); }
  const std::uint64_t* extra_device() const { return l_.device() + body_; }

 private:
  lease l_;
  std::size_t body_;
  std::size_t extra_;
};

// encode()'s store maker: its descriptors get `extra` appended (written here, uploaded with them).
template <class ExecSpace>
struct tree_stores {
  using store = tree_store<ExecSpace>;
  const char* fn;
  const std::vector<std::uint64_t>* extra;
  store operator()(const ExecSpace& exec, std::size_t device_words, std::size_t host_words, const char* what) const {
    const std::size_t x = std::strcmp(what, "descriptors") == 0 ? extra->size() : 0;
    auto l = staging_pool<ExecSpace>::acquire(exec, device_words + x, x > 0 ? device_words + x : host_words,
                                              std::string(fn) + "::" + what);
    if (x > 0) std::memcpy(l.host() + device_words, extra->data(), x * sizeof(std::uint64_t));
    return store(std::move(l), device_words, x);
  }
};

// The pointer form's nodes: mask k (written from bit 0) read from begin_bits[k], already checked.
struct tree_pointer_sources {
  const dest_mask* masks;
  const size_type* begin_bits;
  std::size_t n;
  std::size_t size() const { return n; }
  source_mask operator[](std::size_t k) const { return {masks[k].words, masks[k].extent_words, begin_bits[k]}; }
};

// The walk the kernels take: the forest depth first (roots, and each node's children, in increasing
// index), so a node comes right after its parent or its previous sibling's subtree and the
// parent's new words are fresh; parent_slot[i] says where the GPU form finds them when positions
// come in batches of `batch`.
struct tree_walk {
  std::vector<size_type> order, parent_of, parent_slot;
};

inline tree_walk depth_first(const tree_order& t, const size_type* parents, size_type batch) {
  const std::size_t n = t.order.size();
  // Children of each node in increasing index: counting sort of the nodes by parent.
  std::vector<size_type> first_child(n + 2, 0), children(n);
  for (std::size_t k = 0; k < n; ++k) ++first_child[static_cast<std::size_t>(parents[k] + 2)];
  for (std::size_t k = 1; k < n + 2; ++k) first_child[k] += first_child[k - 1];
  for (std::size_t k = 0; k < n; ++k) children[static_cast<std::size_t>(first_child[static_cast<std::size_t>(parents[k] + 1)]++)] = static_cast<size_type>(k);
  // Placing moved each start to its bucket's end: node c's children are now
  // children[first_child[c] .. first_child[c + 1]), the roots' children[0 .. first_child[0]).
  tree_walk w;
  w.order.reserve(n);
  w.parent_of.reserve(n);
  w.parent_slot.reserve(n);
  std::vector<size_type> position(n, -1);
  std::vector<std::pair<size_type, size_type>> stack;  // (next child index, end) of each open node
  stack.emplace_back(0, first_child[0]);
  while (!stack.empty()) {
    auto& top = stack.back();
    if (top.first == top.second) {
      stack.pop_back();
      continue;
    }
    const size_type k = children[static_cast<std::size_t>(top.first++)];
    const size_type p = parents[k];
    const size_type i = static_cast<size_type>(w.order.size());
    position[static_cast<std::size_t>(k)] = i;
    w.order.push_back(k);
    w.parent_of.push_back(p);
    const size_type at = p < 0 ? -1 : position[static_cast<std::size_t>(p)];
    w.parent_slot.push_back(p < 0 ? tree_no_parent : at / batch == i / batch ? at % batch : tree_parent_in_memory);
    stack.emplace_back(first_child[static_cast<std::size_t>(k)], first_child[static_cast<std::size_t>(k) + 1]);
  }
  return w;
}

// Whether the forest takes the aligned walk (tree_aligned_kernel.hpp): a GPU form, masks of 1 to
// tree_tuning::gpu_aligned_max_words words, few enough nodes for its steps in team scratch, and
// every node read from bit 0 of its own mask, not inverted (so no source is staged: the core
// refuses nodes that share a word).
template <class ExecSpace, class Sources, class Dests>
bool tree_takes_aligned_walk(const Sources& sources, const Dests& dests, size_type words) {
  using tuning = tree_tuning<ExecSpace>;
  if constexpr (uses_cpu_kernels<ExecSpace>()) {
    return false;  // a constant, so that nvcc does not warn of the unreachable loop in CPU forms
  } else {
    const std::size_t n = sources.size();
    if (n == 0 || n > static_cast<std::size_t>(tuning::gpu_aligned_max_nodes) || words == 0 ||
        words > tuning::gpu_aligned_max_words)
      return false;
    for (std::size_t k = 0; k < n; ++k) {
      const source_mask m = sources[k];
      if (m.begin_bit != 0 || m.invert || m.words != dests[k].words) return false;
    }
    return true;
  }
}

// The aligned walk's segments (a root alone; a child of a root with its subtree) over the
// depth-first positions, and their work units: each segment gets lines of runs in proportion to
// its nodes, so the `resident` teams' warps each take about one unit, at least one line a segment
// and at most one a run.
struct aligned_units {
  std::vector<size_type> seg_begin, unit_begin;
  size_type league = 0;
};

inline aligned_units share_aligned_units(const tree_walk& walk, const size_type* parents, size_type runs,
                                         size_type resident, int rows) {
  const size_type n     = static_cast<size_type>(walk.order.size());
  const size_type warps = resident * rows;
  aligned_units u;
  for (size_type i = 0; i < n; ++i) {
    const size_type p = walk.parent_of[static_cast<std::size_t>(i)];
    if (p < 0 || parents[p] < 0) u.seg_begin.push_back(i);
  }
  u.seg_begin.push_back(n);
  u.unit_begin.push_back(0);
  for (std::size_t s = 0; s + 1 < u.seg_begin.size(); ++s) {
    const size_type nodes = u.seg_begin[s + 1] - u.seg_begin[s];
    const size_type lines = std::min(runs, std::max<size_type>(1, (warps * nodes + n / 2) / n));
    u.unit_begin.push_back(u.unit_begin.back() + lines);
  }
  u.league = std::min(resident, (u.unit_begin.back() + rows - 1) / rows);
  return u;
}

// The tree kernels' arguments from an encoded call.
template <class ExecSpace, class E>
tree_args<ExecSpace> tree_args_of(const E& e, const Kokkos::View<size_type*, typename ExecSpace::memory_space>& null_counts) {
  return tree_args<ExecSpace>{bit_and{},
                              e.offsets,
                              e.sources,
                              pointer_destinations<typename ExecSpace::memory_space>{e.destinations},
                              null_counts,
                              e.num_segments,
                              e.size_bits,
                              num_words(e.size_bits),
                              num_words(e.size_bits),
                              e.count_scratch};
}

// CPU form: the nodes read from a later bit of their own mask, fewer than
// tree_tuning::cpu_halo_max_words words ahead, in masks of more than one unit: each gets a halo
// slot (the others -1), and the call's problem lets them go unstaged (own_forward_words). A
// one-unit mask needs no halo: its one iteration reads each word before it writes it.
struct in_place_halos {
  std::vector<std::int64_t> slot;     // per node; empty when no node has one
  std::vector<const word_type*> from;  // per slot: the node's mask
  std::vector<size_type> ahead;        // per slot: words ahead its source starts
  size_type words = 0;                 // a unit's halo: the largest ahead + 1
  size_type units = 0;
};

template <class ExecSpace, class Sources, class Dests>
in_place_halos plan_halos(const Sources& sources, const Dests& dests, size_type size_bits,
                          size_type& own_forward_words) {
  in_place_halos h;
  if constexpr (uses_cpu_kernels<ExecSpace>()) {
    using tuning          = tree_tuning<ExecSpace>;
    const size_type words = num_words(size_bits);
    h.units = (words + tuning::cpu_unit_words - 1) / tuning::cpu_unit_words;
    if (h.units <= 1) {
      own_forward_words = words;
      return h;
    }
    own_forward_words = tuning::cpu_halo_max_words;
    for (std::size_t k = 0; k < sources.size(); ++k) {
      const source_mask m = sources[k];
      const size_type ahead = m.begin_bit / word_bits;
      const bool in_place   = m.words != nullptr && m.words == dests[k].words && m.begin_bit > 0 &&
                            ahead < own_forward_words && ahead < words;
      if (!in_place) continue;
      if (h.slot.empty()) h.slot.assign(sources.size(), -1);
      h.slot[k] = static_cast<std::int64_t>(h.from.size());
      h.from.push_back(m.words);
      h.ahead.push_back(ahead);
      h.words = std::max(h.words, ahead + 1);
    }
  }
  return h;
}

// Copies every halo before the walk: slot s, unit u < units - 1, is words [b, b + ahead + 1) of its
// node's mask, b the start of unit u + 1. Returns the lease holding them (host memory: CPU form).
template <class ExecSpace>
typename staging_pool<ExecSpace>::lease take_halos(const char* fn, const ExecSpace& exec, const in_place_halos& h) {
  constexpr size_type unit = tree_tuning<ExecSpace>::cpu_unit_words;
  const size_type per_slot = (h.units - 1) * h.words;
  const auto total         = static_cast<std::size_t>(per_slot) * h.from.size();
  auto lease = staging_pool<ExecSpace>::acquire(exec, (total + 1) / 2, (total + 1) / 2, std::string(fn) + "::halo");
  word_type* to = reinterpret_cast<word_type*>(lease.host());
  const word_type* const* from = h.from.data();
  const size_type* ahead       = h.ahead.data();
  const size_type units = h.units, stride = h.words;
  Kokkos::parallel_for(std::string(fn) + "::halo",
                       Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<size_type>>(
                           exec, 0, static_cast<size_type>(h.from.size()) * (units - 1)),
                       [=](size_type i) {
                         const size_type s = i / (units - 1), u = i % (units - 1);
                         const word_type* src = from[s] + (u + 1) * unit;
                         word_type* dst       = to + (s * (units - 1) + u) * stride;
                         for (size_type j = 0; j <= ahead[s]; ++j) dst[j] = src[j];
                       });
  return lease;
}

// Runs the tree whose node k is read as sources[k] and written as dests[k]; parents checked here.
// `check_sources` runs (after the shape and the counters) for sources the core does not check.
template <class ExecSpace, class Sources, class Dests, class CheckSources>
void superimpose_tree_call(const ExecSpace& exec, const arg_names& names, const Sources& sources, const Dests& dests,
                           const std::vector<size_type>& parents, size_type size_bits,
                           const Kokkos::View<size_type*, typename ExecSpace::memory_space>& null_counts,
                           const CheckSources& check_sources) {
  using memory_space = typename ExecSpace::memory_space;
  const std::size_t n = sources.size();
  check_tree_parent_count(names.fn, parents.size(), n);
  check_size_bits(names.fn, size_bits);
  const tree_order t = order_tree(names.fn, parents.data(), n);
  const counter_arg counts = counter_of("null_counts", null_counts);
  check_counter_extent(names.fn, counts.name, counts.extent, static_cast<size_type>(n), counts.is_null);
  check_sources();
  std::vector<size_type> offsets(n + 1);
  for (std::size_t k = 0; k <= n; ++k) offsets[k] = static_cast<size_type>(k);
  auto p = describe(names, sources, dests, size_bits, offsets, &counts);

  const size_type words = num_words(size_bits);
  if (tree_takes_aligned_walk<ExecSpace>(sources, dests, words)) {
    // order | parent of each position | segment starts | unit starts (tree_aligned_kernel.hpp)
    const tree_walk walk  = depth_first(t, parents.data(), 1);
    const aligned_units u = share_aligned_units(walk, parents.data(), tree_aligned_functor<ExecSpace>::runs_of(words),
                                                tree_aligned_resident_teams(exec), tree_aligned_rows<ExecSpace>());
    std::vector<std::uint64_t> extra;
    extra.reserve(2 * n + 2 * u.seg_begin.size());
    for (const auto* list : {&walk.order, &walk.parent_of, &u.seg_begin, &u.unit_begin})
      for (size_type v : *list) extra.push_back(static_cast<std::uint64_t>(v));
    const auto e = encode(exec, p, tree_stores<ExecSpace>{names.fn, &extra});
    const auto* dev = reinterpret_cast<const std::int64_t*>(e.words.extra_device());
    const size_type segments = static_cast<size_type>(u.seg_begin.size()) - 1;
    const tree_aligned_layout layout{dev, dev + n, dev + 2 * n, dev + 2 * n + segments + 1, static_cast<size_type>(n),
                                     segments};
    launch_tree_aligned(names.fn, exec, tree_args_of<ExecSpace>(e, null_counts), layout, u.unit_begin.back(), u.league);
    return;
  }

  // order | parent of each position | its parent's slot (tree_kernels.hpp) [| halo slot of each node]
  const tree_walk walk = depth_first(t, parents.data(), tree_tuning<ExecSpace>::gpu_batch);
  const in_place_halos halos = plan_halos<ExecSpace>(sources, dests, size_bits, p.own_forward_words);
  std::vector<std::uint64_t> extra;
  extra.reserve(4 * n);
  for (const auto* list : {&walk.order, &walk.parent_of, &walk.parent_slot})
    for (size_type v : *list) extra.push_back(static_cast<std::uint64_t>(v));
  for (std::int64_t v : halos.slot) extra.push_back(static_cast<std::uint64_t>(v));
  const auto e = encode(exec, p, tree_stores<ExecSpace>{names.fn, &extra});
  if (n == 0) return;

  const auto* dev = reinterpret_cast<const std::int64_t*>(e.words.extra_device());
  tree_layout layout{dev, dev + n, dev + 2 * n, static_cast<size_type>(n)};
  std::optional<typename staging_pool<ExecSpace>::lease> halo_buffer;  // held until the walk is enqueued
  if constexpr (uses_cpu_kernels<ExecSpace>()) {
    if (!halos.from.empty()) {
      halo_buffer.emplace(take_halos(names.fn, exec, halos));
      layout.halo_slot  = dev + 3 * n;
      layout.halo       = reinterpret_cast<const word_type*>(halo_buffer->host());
      layout.halo_words = halos.words;
    }
  }
  stage_sources(exec, e);
  launch_tree(names.fn, exec, tree_args_of<ExecSpace>(e, null_counts), layout);
}

}  // namespace detail
}  // namespace kmask

#endif
