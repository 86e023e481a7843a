#ifndef KMASK_DETAIL_MOVE_BITS_CALLS_HPP
#define KMASK_DETAIL_MOVE_BITS_CALLS_HPP

// The host side of the bit-moving calls: their arguments become a list of pieces (a destination
// range and a source range or a constant), checked once, then one lease from the staging pool
// carries the pieces, their word offsets, the staged copies of sources that overlap a destination
// and the count scratch, and one kernel (move_bits_kernel.hpp) writes every piece. In the GPU form
// a list of at most 64 pieces with nothing to stage travels in the kernel's arguments instead (no
// upload; a count takes only a lease's zeroed words), and a few uncounted pieces may first give
// their whole-word middles to the backend's copy and fill routines (bulk_words.hpp;
// write_with_bulk_runs says when), the kernel writing what is left.

#include <kmask/detail/bulk_words.hpp>
#include <kmask/detail/compat.hpp>
#include <kmask/detail/mask_lists.hpp>
#include <kmask/detail/move_bits_kernel.hpp>
#include <kmask/detail/move_bits_validation.hpp>
#include <kmask/detail/staging_pool.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <utility>
#include <vector>

namespace kmask {
namespace detail {

// One checked piece: `size` bits of `dest` from bit `dest_begin` get the bits of `src` from its
// begin_bit on XOR `fill` (0, or ~0 for an inverted source), or `fill`'s when `constant`. `index` is the argument it came from (messages).
struct move_request {
  dest_mask dest;
  size_type dest_begin;
  source_mask src;
  size_type size;
  bool constant;
  word_type fill;
  bool counted;
  std::size_t index;
};

// The word holding checked (non-negative) bit `bit`, and the bit's place in it: unsigned, so that
// each is one instruction (a signed division by 32 is five, and the host pass does a few a piece).
inline size_type word_of_bit(size_type bit) {
  return static_cast<size_type>(static_cast<std::uint64_t>(bit) / word_bits);
}
inline std::int32_t bit_in_word(size_type bit) {
  return static_cast<std::int32_t>(static_cast<std::uint64_t>(bit) % word_bits);
}

// The word addresses [first, last) a range of `size` > 0 bits from bit `begin` of `words` occupies.
inline std::pair<std::uintptr_t, std::uintptr_t> word_span(const void* words, size_type begin, size_type size) {
  const auto base = reinterpret_cast<std::uintptr_t>(words);
  return {base + static_cast<std::uintptr_t>(word_of_bit(begin)) * sizeof(word_type),
          base + static_cast<std::uintptr_t>(word_of_bit(begin + size - 1) + 1) * sizeof(word_type)};
}

// A bit position in memory, ordered: (address of its word, bit within the word).
using bit_key = std::pair<std::uintptr_t, size_type>;
inline bit_key key_of(const word_type* words, size_type bit) {
  return {reinterpret_cast<std::uintptr_t>(words + word_of_bit(bit)), bit_in_word(bit)};
}

// What a message names of a piece: its argument and destination range.
struct piece_name {
  std::size_t index;
  size_type dest_begin, size;
};
inline piece_name name_of(const move_request& q) { return {q.index, q.dest_begin, q.size}; }

// Two pieces whose destination bits overlap, named in argument order.
[[noreturn]] inline void report_overlap(const move_names& n, const piece_name& x, const piece_name& y) {
  const piece_name& a = x.index < y.index ? x : y;
  const piece_name& b = x.index < y.index ? y : x;
  report_overlapping_ranges(n, a.index, a.dest_begin, a.dest_begin + a.size, b.index, b.dest_begin,
                            b.dest_begin + b.size);
}

// Refuses two pieces whose destination bits overlap (sharing a word is fine: the kernel merges
// edge words atomically). Sorted by start (pieces given in order, the usual case, are not
// re-sorted), so each piece is compared with the furthest end so far.
inline void check_disjoint_dests(const move_names& n, const std::vector<move_request>& r) {
  struct span {
    bit_key begin, end;
    std::size_t i;
  };
  std::vector<span> order;
  order.reserve(r.size());
  for (std::size_t i = 0; i < r.size(); ++i)
    if (r[i].size > 0)
      order.push_back({key_of(r[i].dest.words, r[i].dest_begin), key_of(r[i].dest.words, r[i].dest_begin + r[i].size), i});
  const auto before = [](const span& a, const span& b) { return a.begin != b.begin ? a.begin < b.begin : a.i < b.i; };
  if (!std::is_sorted(order.begin(), order.end(), before)) std::sort(order.begin(), order.end(), before);
  std::size_t furthest = 0;
  for (std::size_t k = 0; k < order.size(); ++k) {
    if (k > 0 && order[k].begin < order[furthest].end)
      report_overlap(n, name_of(r[order[k].i]), name_of(r[order[furthest].i]));
    if (k == 0 || order[k].end > order[furthest].end) furthest = k;
  }
}

// The pieces whose source words overlap any piece's destination words: they are copied aside
// before any destination is written, so every result follows the sources' contents before the call.
// A source outside the span of all destination words (separate allocations, the usual case) is
// decided without a search.
inline std::vector<std::size_t> sources_overlapping_dests(const std::vector<move_request>& r) {
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> dests;
  dests.reserve(r.size());
  for (const auto& q : r)
    if (q.size > 0) dests.push_back(word_span(q.dest.words, q.dest_begin, q.size));
  std::vector<std::size_t> staged;
  if (dests.empty()) return staged;
  if (!std::is_sorted(dests.begin(), dests.end())) std::sort(dests.begin(), dests.end());
  std::vector<std::uintptr_t> reach(dests.size());  // the furthest end among dests[0..k]
  for (std::size_t k = 0; k < dests.size(); ++k)
    reach[k] = std::max(dests[k].second, k > 0 ? reach[k - 1] : std::uintptr_t{0});
  const std::uintptr_t lowest = dests.front().first, highest = reach.back();
  for (std::size_t i = 0; i < r.size(); ++i) {
    if (r[i].size == 0 || r[i].constant) continue;
    const auto s = word_span(r[i].src.words, r[i].src.begin_bit, r[i].size);
    if (s.second <= lowest || s.first >= highest) continue;
    // Destinations starting before the source ends; one of them must reach past its start.
    const std::size_t k = static_cast<std::size_t>(
        std::lower_bound(dests.begin(), dests.end(), std::make_pair(s.second, std::uintptr_t{0})) - dests.begin());
    if (k > 0 && reach[k - 1] > s.first) staged.push_back(i);
  }
  return staged;
}

// Words [0, words) of `to` are copied from `from` before the pieces are written.
struct move_stage {
  const word_type* from;
  word_type* to;
  size_type words;
};

// A checked request as the kernel's piece: its first destination and source words and the bit
// offsets in them. Every field is assigned in place (no temporary copied in: its narrow stores
// read back as wide loads stall the host's store forwarding, once per piece).
inline void position_piece(const move_request& q, move_piece& p) {
  p.dest       = q.dest.words + word_of_bit(q.dest_begin);
  p.dest_shift = bit_in_word(q.dest_begin);
  p.size       = q.size;
  p.fill       = q.fill;
  p.counted    = q.counted ? 1u : 0u;
  p.lead       = 0;
  p.src        = q.constant ? nullptr : q.src.words + word_of_bit(q.src.begin_bit);
  p.src_shift  = q.constant ? 0 : bit_in_word(q.src.begin_bit);
}

inline constexpr std::size_t words64(std::size_t bytes) { return (bytes + 7) / 8; }

// `q` cut at its destination's word boundaries when its middle can be a bulk run (bulk_words.hpp):
// the destination words wholly inside it, when they are a plain copy of source words (the source
// bits sit where they land in their words, not inverted) or, with `fills`, all zeros or all ones.
// `head` and `tail` are its parts in the edge words (size 0 where it starts or ends on a word
// boundary). Returns the run's words; 0 (nothing set) when it has none.
inline size_type split_for_bulk(const move_request& q, bool fills, bulk_run& run, move_request& head,
                                move_request& tail) {
  const bool copy = !q.constant && q.fill == 0 && q.src.begin_bit % word_bits == q.dest_begin % word_bits;
  const bool fill = q.constant && fills && (q.fill == 0 || q.fill == ~word_type{0});
  if ((!copy && !fill) || q.counted) return 0;
  const size_type lead = (word_bits - q.dest_begin % word_bits) % word_bits;
  if (q.size < lead + word_bits) return 0;
  const size_type words = (q.size - lead) / word_bits, done = lead + words * word_bits;
  run  = {q.dest.words + (q.dest_begin + lead) / word_bits,
          copy ? q.src.words + (q.src.begin_bit + lead) / word_bits : nullptr, words, q.fill};
  head = q, tail = q;
  head.size       = lead;
  tail.dest_begin = q.dest_begin + done;
  tail.size       = q.size - done;
  if (copy) tail.src.begin_bit = q.src.begin_bit + done;
  return words;
}

// `n` <= List::capacity requests as a list carried in the kernel's arguments; returns its work items.
template <class ExecSpace, class List>
size_type fill_argument_list(List& list, const move_request* const* q, std::size_t n) {
  list.num_pieces = static_cast<size_type>(n);
  size_type total = 0;
  for (std::size_t k = 0; k < n; ++k) {
    position_piece(*q[k], list.pieces[k]);
    list.offsets[k] = total;
    total += place_piece(list.pieces[k], total, !uses_cpu_kernels<ExecSpace>());
  }
  list.offsets[n] = total;
  return total;
}

// Launches `n` <= inline_pieces::capacity requests with their pieces in the kernel's arguments.
template <class ExecSpace>
void launch_inline(const char* fn, const ExecSpace& exec, const move_request* const* q, std::size_t n) {
  inline_pieces list{};
  const size_type total = fill_argument_list<ExecSpace>(list, q, n);
  launch_move(fn, exec, list, total, move_count{nullptr, nullptr});
}

// GPU form: `n` <= argument_pieces::capacity requests, none staged, with their pieces in the
// kernel's arguments, counted as run_moves says. Nothing is uploaded: a count takes its running
// total and ticket from a lease's zeroed words, and a count read back is the lease's result word.
template <class ExecSpace>
size_type launch_in_arguments(const char* fn, const ExecSpace& exec, const move_request* const* q, std::size_t n,
                              size_type* null_count, bool read_count) {
  argument_pieces list{};
  const size_type total = fill_argument_list<ExecSpace>(list, q, n);
  if (null_count == nullptr && !read_count) {
    launch_move(fn, exec, list, total, move_count{nullptr, nullptr});
    return 0;
  }
  const auto lease   = staging_pool<ExecSpace>::acquire_scratch(exec, std::string(fn) + "::count");
  size_type* scratch = reinterpret_cast<size_type*>(lease.zeroed());
  size_type* out     = read_count ? reinterpret_cast<size_type*>(lease.result_word(0)) : null_count;
  launch_move(fn, exec, list, total, move_count{out, scratch});
  return read_count ? static_cast<size_type>(lease.read_result(0)) : 0;
}

// The GPU form of a few uncounted pieces, none of whose sources overlap a destination: middles of
// at least move_bulk_min_words words (or a lone piece that is nothing but whole words) go to the
// backend's copy and fill routines, then the rest to one launch. False (nothing enqueued) when no
// piece has such a middle, or its edges would not fit one launch's arguments.
template <class ExecSpace>
bool write_with_bulk_runs(const char* fn, const ExecSpace& exec, const std::vector<move_request>& r,
                          const std::vector<std::size_t>& live) {
  constexpr std::size_t capacity = inline_pieces::capacity;
  bulk_run runs[capacity];
  move_request parts[3 * capacity];
  const move_request* rest[3 * capacity];
  std::size_t nr = 0, np = 0, nrest = 0;
  for (std::size_t i : live) {
    bulk_run run{};
    move_request& head = parts[np++];
    move_request& tail = parts[np++];
    const size_type words = split_for_bulk(r[i], bulk_fills_possible<ExecSpace>(), run, head, tail);
    const bool alone      = live.size() == 1 && words > 0 && head.size == 0 && tail.size == 0;
    if (words >= launch_tuning<ExecSpace>::move_bulk_min_words || alone) {
      runs[nr++] = run;
      if (head.size > 0) rest[nrest++] = &head;
      if (tail.size > 0) rest[nrest++] = &tail;
    } else {
      rest[nrest++] = &r[i];
    }
  }
  if (nr == 0 || nrest > capacity) return false;
  for (std::size_t k = 0; k < nr; ++k) {
    if (write_bulk_run(exec, runs[k])) continue;
    // The backend declined the fill: the kernel writes it, in a launch of its own.
    move_request& whole = parts[np++];
    whole = {dest_mask{runs[k].dest, runs[k].words}, 0, source_mask{}, runs[k].words * word_bits, true, runs[k].fill,
             false, 0};
    const move_request* one[1] = {&whole};
    launch_inline(fn, exec, one, 1);
  }
  if (nrest > 0) launch_inline(fn, exec, rest, nrest);
  return true;
}

// A leased launch's host words: [0, 3) count scratch and read-back slot, then `n` pieces, then
// their n + 1 offsets.
constexpr std::size_t at_pieces = 3;
inline constexpr std::size_t at_offsets(std::size_t n) { return at_pieces + words64(n * sizeof(move_piece)); }

// Launches `n` pieces already written (and uploaded) at words at_pieces / at_offsets of `lease`;
// the count as run_moves describes.
template <class ExecSpace, class Lease>
size_type launch_leased(const char* fn, const ExecSpace& exec, const Lease& lease, std::size_t at_pieces_,
                        std::size_t at_offsets_, std::size_t n, size_type total, size_type* null_count,
                        bool read_count, bool ordered = false) {
  std::uint64_t* dev = lease.device();
  auto* count_slot   = reinterpret_cast<size_type*>(lease.result_word(2));
  const uploaded_pieces list{reinterpret_cast<const move_piece*>(dev + at_pieces_),
                             reinterpret_cast<const size_type*>(dev + at_offsets_), static_cast<size_type>(n),
                             ordered};
  launch_move(fn, exec, list, total,
              move_count{read_count ? count_slot : null_count, reinterpret_cast<size_type*>(dev)});
  return read_count ? static_cast<size_type>(lease.read_result(2)) : 0;
}

// Writes every piece of `r` in one launch (plus one copying the staged sources, only when a source
// overlaps a destination). The null count of the counted pieces goes to `null_count` (device) when
// given; with `read_count` it is read back and returned (a synchronous call).
template <class ExecSpace>
size_type run_moves(const char* fn, const ExecSpace& exec, const std::vector<move_request>& r,
                    size_type* null_count, bool read_count = false) {
  using memory_space = typename ExecSpace::memory_space;
  using unmanaged    = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  std::vector<std::size_t> live;
  live.reserve(r.size());
  for (std::size_t i = 0; i < r.size(); ++i)
    if (r[i].size > 0) live.push_back(i);
  const std::vector<std::size_t> staged = sources_overlapping_dests(r);
  std::vector<size_type> stage_offset(r.size(), -1);
  size_type staged_words = 0;
  for (std::size_t i : staged) {
    stage_offset[i] = staged_words;
    const auto s    = word_span(r[i].src.words, r[i].src.begin_bit, r[i].size);
    staged_words += static_cast<size_type>((s.second - s.first) / sizeof(word_type));
  }
  const std::size_t n = live.size();
  // A few pieces with nothing to stage or count travel in the kernel's arguments: no lease, no upload.
  if (n <= static_cast<std::size_t>(inline_pieces::capacity) && staged.empty() && null_count == nullptr && !read_count) {
    if constexpr (!uses_cpu_kernels<ExecSpace>())
      if (write_with_bulk_runs(fn, exec, r, live)) return 0;
    const move_request* q[inline_pieces::capacity];
    for (std::size_t k = 0; k < n; ++k) q[k] = &r[live[k]];
    launch_inline(fn, exec, q, n);
    return 0;
  }
  // GPU form: a list of a few dozen pieces with nothing to stage, counted or not, travels in the
  // kernel's arguments too (an upload and a search of device memory per thread were most of a
  // short list's time).
  if constexpr (!uses_cpu_kernels<ExecSpace>()) {
    if (n <= static_cast<std::size_t>(argument_pieces::capacity) && staged.empty()) {
      const move_request* q[argument_pieces::capacity];
      for (std::size_t k = 0; k < n; ++k) q[k] = &r[live[k]];
      return launch_in_arguments(fn, exec, q, n, null_count, read_count);
    }
  }
  // Host words: count scratch and read-back slot, pieces, offsets, then stage records.
  const std::size_t at_offsets = detail::at_offsets(n);
  const std::size_t at_stages  = at_offsets + n + 1;
  const std::size_t host_words = at_stages + words64(staged.size() * sizeof(move_stage));
  const std::size_t device_words = host_words + words64(static_cast<std::size_t>(staged_words) * sizeof(word_type));
  const auto lease = staging_pool<ExecSpace>::acquire(exec, device_words, host_words, std::string(fn) + "::descriptors");
  std::uint64_t* host = lease.host();
  std::uint64_t* dev  = lease.device();
  host[0] = host[1] = host[2] = 0;
  auto* pieces    = reinterpret_cast<move_piece*>(host + at_pieces);
  auto* offsets   = reinterpret_cast<size_type*>(host + at_offsets);
  auto* stages    = reinterpret_cast<move_stage*>(host + at_stages);
  auto* stage_buf = reinterpret_cast<word_type*>(dev + host_words);
  size_type total = 0;
  std::size_t ns  = 0;
  for (std::size_t k = 0; k < n; ++k) {
    move_piece* p = new (pieces + k) move_piece;
    position_piece(r[live[k]], *p);
    if (stage_offset[live[k]] >= 0) {
      word_type* to = stage_buf + stage_offset[live[k]];
      new (stages + ns++) move_stage{p->src, to, num_words(p->src_shift + p->size)};
      p->src = to;
    }
    offsets[k] = total;
    total += place_piece(*p, total, !uses_cpu_kernels<ExecSpace>());
  }
  offsets[n] = total;
  lease.upload(0, host_words);
  if (ns > 0) {
    const Kokkos::View<const move_stage*, memory_space, unmanaged> st(
        reinterpret_cast<const move_stage*>(dev + at_stages), ns);
    using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
    const int team    = runs_on_host<ExecSpace>() ? 1 : 256;
    Kokkos::parallel_for(std::string(fn) + "::stage_sources",
                         Kokkos::TeamPolicy<ExecSpace>(exec, static_cast<int>(ns), team),
                         KOKKOS_LAMBDA(const member_type& m) {
                           const move_stage s = st(m.league_rank());
                           Kokkos::parallel_for(Kokkos::TeamThreadRange(m, s.words),
                                                [&](size_type w) { s.to[w] = s.from[w]; });
                         });
  }
  return launch_leased(fn, exec, lease, at_pieces, at_offsets, n, total, null_count, read_count);
}

// A list call's pieces in one pass: `emit(check, sink)` produces every request in argument order,
// validating it when `check` (a throw leaves nothing enqueued), and sink(request) writes it as a
// kernel piece straight into the lease's host words, tracking what run_moves would otherwise find
// in passes of its own: whether the destinations are in order and disjoint (`disjoint`: refuse
// overlapping ones, as check_disjoint_dests) and, while they are in order, the union of their
// words as a few merged address ranges (one per destination mask when its pieces tile it), which
// each piece's source words are then checked against. Pieces out of order, or a source that
// overlaps a destination (the rare cases), go through check_disjoint_dests and run_moves, the
// requests emitted again unchecked.
template <class ExecSpace, class Emit>
size_type run_piece_list(const move_names& names, const ExecSpace& exec, std::size_t max_pieces, bool disjoint,
                         const Emit& emit, size_type* null_count, bool read_count = false) {
  const char* fn = names.fn;
  const auto requests = [&] {
    std::vector<move_request> r;
    r.reserve(max_pieces);
    emit(false, [&](const move_request& q) { r.push_back(q); });
    return r;
  };
  // Lists short enough for the kernel's arguments (run_moves): checked as requests, no lease.
  const bool in_arguments = !uses_cpu_kernels<ExecSpace>()
                                ? max_pieces <= static_cast<std::size_t>(argument_pieces::capacity)
                                : max_pieces <= static_cast<std::size_t>(inline_pieces::capacity) &&
                                      null_count == nullptr && !read_count;
  if (in_arguments) {
    std::vector<move_request> r;
    emit(true, [&](const move_request& q) { r.push_back(q); });
    if (disjoint) check_disjoint_dests(names, r);
    return run_moves(fn, exec, r, null_count, read_count);
  }
  const std::size_t at_off     = at_offsets(max_pieces);
  const std::size_t host_words = at_off + max_pieces + 1;
  auto lease = staging_pool<ExecSpace>::acquire(exec, host_words, host_words, std::string(fn) + "::descriptors");
  std::uint64_t* host = lease.host();
  host[0] = host[1] = host[2] = 0;
  auto* pieces      = reinterpret_cast<move_piece*>(host + at_pieces);
  auto* offsets     = reinterpret_cast<size_type*>(host + at_off);
  const bool groups = !uses_cpu_kernels<ExecSpace>();
  std::size_t n = 0;
  size_type total = 0;
  bool in_order = true, overlap = false;
  bit_key last_begin{}, furthest_end{};
  piece_name furthest{}, overlap_a{}, overlap_b{};
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> dest_words;  // merged, in address order
  // The span of every source word: separate from the destinations' (the usual case), no piece's
  // source is looked up among them.
  std::pair<std::uintptr_t, std::uintptr_t> src_words{~std::uintptr_t{0}, 0};
  emit(true, [&](const move_request& q) {
    if (q.size == 0) return;
    const bit_key b = key_of(q.dest.words, q.dest_begin), e = key_of(q.dest.words, q.dest_begin + q.size);
    if (n > 0 && b < last_begin) in_order = false;
    if (n > 0 && in_order && !overlap && b < furthest_end) overlap = true, overlap_a = furthest, overlap_b = name_of(q);
    if (n == 0 || e > furthest_end) furthest_end = e, furthest = name_of(q);
    last_begin = b;
    if (in_order) {
      const auto span = word_span(q.dest.words, q.dest_begin, q.size);
      if (!dest_words.empty() && span.first <= dest_words.back().second)
        dest_words.back().second = std::max(dest_words.back().second, span.second);
      else
        dest_words.push_back(span);
    }
    move_piece* p = new (pieces + n) move_piece;
    position_piece(q, *p);
    if (p->src != nullptr) {
      const auto s = word_span(p->src, p->src_shift, p->size);
      src_words    = {std::min(src_words.first, s.first), std::max(src_words.second, s.second)};
    }
    offsets[n++] = total;
    total += place_piece(*p, total, groups);
  });
  if (!in_order) {
    const std::vector<move_request> r = requests();
    if (disjoint) check_disjoint_dests(names, r);
    if (!sources_overlapping_dests(r).empty()) return run_moves(fn, exec, r, null_count, read_count);
  } else {
    if (disjoint && overlap) report_overlap(names, overlap_b, overlap_a);
    const bool may_meet = !dest_words.empty() && src_words.first < dest_words.back().second &&
                          src_words.second > dest_words.front().first;
    for (std::size_t k = 0; may_meet && k < n; ++k) {
      if (pieces[k].src == nullptr) continue;
      const auto s = word_span(pieces[k].src, pieces[k].src_shift, pieces[k].size);
      // The first merged range ending past the source's first word: the only one it can meet.
      const auto d = std::upper_bound(dest_words.begin(), dest_words.end(), s.first,
                                      [](std::uintptr_t a, const std::pair<std::uintptr_t, std::uintptr_t>& w) {
                                        return a < w.second;
                                      });
      if (d != dest_words.end() && d->first < s.second) return run_moves(fn, exec, requests(), null_count, read_count);
    }
  }
  offsets[n] = total;
  lease.upload(0, at_off + n + 1);
  return launch_leased(fn, exec, lease, at_pieces, at_off, n, total, null_count, read_count, in_order && !overlap);
}

// ---- the calls ------------------------------------------------------------------------------

// How each public call names its arguments in messages.
inline move_names set_bits_names() {
  move_names n{"kmask::set_bits"};
  n.dests = "mask", n.dest_begins = "begin_bit", n.sizes = "end_bit", n.ends = true;
  return n;
}
inline move_names set_bits_bulk_names(bool pointers) {
  move_names n{"kmask::set_bits_bulk"};
  n.dests = "masks", n.dest_begins = "begin_bits", n.sizes = "end_bits", n.ends = true, n.pointers = pointers;
  return n;
}
inline move_names copy_bits_names(bool pointers) {
  move_names n{"kmask::copy_bits"};
  n.dests = "dest", n.dest_begins = "dest_begin_bit", n.srcs = "src", n.src_begins = "src_begin_bit",
  n.sizes = "size_bits", n.pointers = pointers;
  return n;
}
inline move_names segmented_copy_bits_names(bool pointers) {
  move_names n{"kmask::segmented_copy_bits"};
  n.pointers = pointers;
  return n;
}
inline move_names concatenate_names(const char* fn, bool pointers) {
  move_names n{fn};
  n.dests = "dest", n.srcs = "masks", n.src_begins = "begin_bits", n.pointers = pointers;
  return n;
}


inline move_request constant_piece(const dest_mask& d, size_type begin, size_type size, bool valid, std::size_t i) {
  return {d, begin, source_mask{}, size, true, valid ? ~word_type{0} : word_type{0}, false, i};
}

// A copy piece; an absent source is a constant piece of ones.
inline move_request copy_piece(const dest_mask& d, size_type begin, const source_mask& s, size_type size,
                               bool counted, std::size_t i) {
  // An inverted source is read complemented: `fill` is XORed into its words (an inverted absent
  // source is a constant piece of zeros).
  const word_type flip = s.invert ? ~word_type{0} : word_type{0};
  if (s.words == nullptr) return {d, begin, source_mask{}, size, true, static_cast<word_type>(~flip), counted, i};
  return {d, begin, s, size, false, flip, counted, i};
}

template <class ExecSpace>
void set_bits_call(const ExecSpace& exec, const move_names& n, const dest_mask& mask, size_type begin_bit,
                   size_type end_bit, bool valid) {
  const size_type size = check_move_dest(n, no_index, mask, begin_bit, end_bit);
  run_moves(n.fn, exec, {constant_piece(mask, begin_bit, size, valid, 0)}, nullptr);
}

template <class ExecSpace>
void copy_bits_call(const ExecSpace& exec, const move_names& n, const dest_mask& dest, size_type dest_begin_bit,
                    const source_mask& src, size_type size_bits) {
  check_move_dest(n, no_index, dest, dest_begin_bit, size_bits);
  check_move_source(n, no_index, src, size_bits);
  run_moves(n.fn, exec, {copy_piece(dest, dest_begin_bit, src, size_bits, false, 0)}, nullptr);
}

}  // namespace detail
}  // namespace kmask

#endif
