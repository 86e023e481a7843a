#ifndef KMASK_DETAIL_MOVE_BITS_THREADED_LIST_HPP
#define KMASK_DETAIL_MOVE_BITS_THREADED_LIST_HPP

// A long piece list on a threaded host space, described by that space's own threads. The serial
// pass (run_piece_list) costs 25-50 ns a piece, which on a 16-core host is many times the copy
// itself; here two parallel passes over blocks of the list do its work for the common case: every
// piece valid, the destinations in address order and disjoint, no source inside a destination's
// words. Anything else (a rejected argument, pieces out of order or overlapping, a source that
// meets a destination) is left to the serial pass, which reports or handles it exactly as before:
// nothing is enqueued until the list is known to be one of the common case.
//
// The first pass tests every piece and sums, per block, its non-empty pieces, their words, the
// span of their destination words and whether they are in order; the blocks are joined on the
// calling thread; the second pass writes each piece and its work offset where its block's sums
// place it, and notes the blocks with a source inside the destinations' span (a third pass then
// looks those sources up among the destinations). Only the CPU form: the GPU form's pieces start
// at group-aligned items, which makes every offset depend on the one before.

#include <kmask/detail/move_bits_calls.hpp>

#include <algorithm>
#include <cstdint>
#include <new>
#include <string>
#include <vector>

namespace kmask {
namespace detail {

// Pieces from which the threaded pass runs: below, its two parallel regions (a few us each on
// 16 threads) would cost about what they save (512 pieces are 10-25 us of serial pass at the
// 20-50 ns a piece measured; the crossing itself is not measured).
constexpr std::size_t threaded_list_min_pieces = 512;
// Pieces a block takes at least: its summary and the join are then a small share of its work.
constexpr std::size_t threaded_list_block_pieces = 128;
// Blocks a thread takes (about): pieces of very different sizes still spread over the threads.
constexpr std::size_t threaded_list_blocks_per_thread = 4;

// One block's sums (first pass).
struct list_block {
  std::size_t bad    = ~std::size_t{0};  // the first piece failing its test, if any
  std::size_t pieces = 0;                // non-empty pieces
  size_type words    = 0;                // their work items (destination words)
  bool in_order = true, overlap = false;  // among the block's own pieces
  bit_key first_begin{}, last_begin{}, last_end{};
  std::uintptr_t dest_lo = ~std::uintptr_t{0}, dest_hi = 0;
};

// Whether the calling thread should describe a list of `count` pieces on `exec` with its threads.
template <class ExecSpace>
bool threaded_list_pays(const ExecSpace& exec, std::size_t count) {
  if constexpr (!uses_cpu_kernels<ExecSpace>()) return false;
  else return count >= threaded_list_min_pieces && exec.concurrency() > 1;
}

// Describes and launches the list of `count` requests, request i being at(i) (size 0: no piece)
// and valid when ok(i), as run_piece_list would; returns false, with nothing enqueued, when the
// list is not one this pass takes (the caller then runs run_piece_list). The count, if any, is in
// `result` when read_count.
template <class ExecSpace, class Ok, class At>
bool run_threaded_piece_list_on_host(const char* fn, const ExecSpace& exec, std::size_t count, const Ok& ok,
                                     const At& at, size_type* null_count, bool read_count, size_type& result) {
  if (!threaded_list_pays(exec, count)) return false;
  using policy          = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::size_t>>;
  const auto threads    = static_cast<std::size_t>(exec.concurrency());
  const std::size_t nb  = std::max<std::size_t>(
      1, std::min(threads * threaded_list_blocks_per_thread, count / threaded_list_block_pieces));
  const auto first_of   = [=](std::size_t b) { return count * b / nb; };
  std::vector<list_block> sums(nb);
  list_block* const out = sums.data();
  Kokkos::parallel_for(std::string(fn) + "::describe", policy(exec, 0, nb), [=](std::size_t b) {
    list_block s;
    for (std::size_t i = first_of(b), end = first_of(b + 1); i < end; ++i) {
      if (!ok(i)) {
        s.bad = i;
        break;
      }
      const move_request q = at(i);
      if (q.size == 0) continue;
      const bit_key begin = key_of(q.dest.words, q.dest_begin), end_key = key_of(q.dest.words, q.dest_begin + q.size);
      if (s.pieces == 0) s.first_begin = begin;
      else if (begin < s.last_begin) s.in_order = false;
      else if (begin < s.last_end) s.overlap = true;
      s.last_begin = begin, s.last_end = end_key;
      ++s.pieces;
      s.words += num_words(bit_in_word(q.dest_begin) + q.size);
      const auto d = word_span(q.dest.words, q.dest_begin, q.size);
      s.dest_lo = std::min(s.dest_lo, d.first), s.dest_hi = std::max(s.dest_hi, d.second);
    }
    out[b] = s;
  });
  exec.fence();
  // The join: in order and disjoint across blocks too (then the destinations' word ends rise with
  // the pieces, which the source search below relies on), and where each block's pieces go.
  std::vector<std::size_t> piece_at(nb);
  std::vector<size_type> word_at(nb);
  std::size_t n = 0;
  size_type total = 0;
  bool any = false;
  bit_key prev_begin{}, prev_end{};
  std::uintptr_t dest_lo = ~std::uintptr_t{0}, dest_hi = 0;
  for (std::size_t b = 0; b < nb; ++b) {
    const list_block& s = sums[b];
    if (s.bad != ~std::size_t{0} || !s.in_order || s.overlap) return false;
    piece_at[b] = n, word_at[b] = total;
    if (s.pieces == 0) continue;
    if (any && (s.first_begin < prev_begin || s.first_begin < prev_end)) return false;
    any = true, prev_begin = s.last_begin, prev_end = s.last_end;
    n += s.pieces, total += s.words;
    dest_lo = std::min(dest_lo, s.dest_lo), dest_hi = std::max(dest_hi, s.dest_hi);
  }
  if (n == 0) return false;
  const std::size_t at_off     = at_offsets(n);
  const std::size_t host_words = at_off + n + 1;
  auto lease = staging_pool<ExecSpace>::acquire(exec, host_words, host_words, std::string(fn) + "::descriptors");
  std::uint64_t* host = lease.host();
  host[0] = host[1] = host[2] = 0;
  move_piece* const pieces  = reinterpret_cast<move_piece*>(host + at_pieces);
  size_type* const offsets  = reinterpret_cast<size_type*>(host + at_off);
  const std::size_t* places = piece_at.data();
  const size_type* words_at = word_at.data();
  // Per block: whether one of its sources has words within the destinations' span (only those
  // can meet a destination; sources of other allocations, the usual case, never do).
  std::vector<unsigned char> near(nb, 0);
  unsigned char* const near_of = near.data();
  Kokkos::parallel_for(std::string(fn) + "::place", policy(exec, 0, nb), [=](std::size_t b) {
    std::size_t k = places[b];
    size_type w   = words_at[b];
    bool close    = false;
    for (std::size_t i = first_of(b), end = first_of(b + 1); i < end; ++i) {
      const move_request q = at(i);
      if (q.size == 0) continue;
      move_piece* p = new (pieces + k) move_piece;
      position_piece(q, *p);
      offsets[k++] = w;
      w += place_piece(*p, w, false);
      if (!q.constant) {
        const auto s = word_span(q.src.words, q.src.begin_bit, q.size);
        close        = close || (s.first < dest_hi && s.second > dest_lo);
      }
    }
    near_of[b] = close ? 1 : 0;
  });
  exec.fence();
  // Sources with words within the destinations' span: each is looked up among the pieces'
  // destination words (in address order); one that meets them needs the staging of the serial pass.
  if (std::any_of(near.begin(), near.end(), [](unsigned char c) { return c != 0; })) {
    std::size_t meets = 0;
    Kokkos::parallel_reduce(
        std::string(fn) + "::aliasing", policy(exec, 0, n),
        [=](std::size_t k, std::size_t& found) {
          const move_piece& p = pieces[k];
          if (p.src == nullptr) return;
          const auto s = word_span(p.src, p.src_shift, p.size);
          // The first piece whose destination words end past the source's first word.
          std::size_t lo = 0, hi = n;
          while (lo < hi) {
            const std::size_t mid = lo + (hi - lo) / 2;
            if (word_span(pieces[mid].dest, pieces[mid].dest_shift, pieces[mid].size).second > s.first) hi = mid;
            else lo = mid + 1;
          }
          if (lo < n && reinterpret_cast<std::uintptr_t>(pieces[lo].dest) < s.second) found = 1;
        },
        Kokkos::Max<std::size_t>(meets));
    exec.fence();
    if (meets != 0) return false;
  }
  offsets[n] = total;
  lease.upload(0, at_off + n + 1);
  result = launch_leased(fn, exec, lease, at_pieces, at_off, n, total, null_count, read_count, true);
  return true;
}

// The entry point, instantiating the host passes (host lambdas) only for the CPU form.
template <class ExecSpace, class Ok, class At>
bool run_threaded_piece_list(const char* fn, const ExecSpace& exec, std::size_t count, const Ok& ok, const At& at,
                             size_type* null_count, bool read_count, size_type& result) {
  if constexpr (uses_cpu_kernels<ExecSpace>())
    return run_threaded_piece_list_on_host(fn, exec, count, ok, at, null_count, read_count, result);
  else return false;
}

}  // namespace detail
}  // namespace kmask

#endif
