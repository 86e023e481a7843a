#ifndef KMASK_DETAIL_MOVE_BITS_LIST_CALLS_HPP
#define KMASK_DETAIL_MOVE_BITS_LIST_CALLS_HPP

// The calls that take lists of pieces (set_bits_bulk, segmented_copy_bits, concatenate): checked
// and described in one serial pass (run_piece_list), or, for a long list on a threaded host space,
// by that space's threads (move_bits_threaded_list.hpp), which leave any list they do not take to
// the serial pass.

#include <kmask/detail/move_bits_calls.hpp>
#include <kmask/detail/move_bits_threaded_list.hpp>

#include <string>
#include <vector>

namespace kmask {
namespace detail {

template <class ExecSpace, class Dests>
void set_bits_bulk_call(const ExecSpace& exec, const move_names& n, const Dests& masks,
                        const std::vector<size_type>& begin_bits, const std::vector<size_type>& end_bits,
                        const std::vector<bool>& valid) {
  check_list_lengths(n.fn, n.dests, masks.size(), "begin_bits", begin_bits.size());
  check_list_lengths(n.fn, n.dests, masks.size(), "end_bits", end_bits.size());
  check_list_lengths(n.fn, n.dests, masks.size(), "valid", valid.size());
  size_type unused = 0;
  const auto ok = [&](std::size_t i) { return move_dest_ok(true, masks[i], begin_bits[i], end_bits[i]); };
  const auto at = [&](std::size_t i) {
    return constant_piece(masks[i], begin_bits[i], end_bits[i] - begin_bits[i], valid[i], i);
  };
  if (run_threaded_piece_list(n.fn, exec, masks.size(), ok, at, nullptr, false, unused)) return;
  run_piece_list(n, exec, masks.size(), true, [&](bool check, const auto& sink) {
    for (std::size_t i = 0; i < masks.size(); ++i) {
      // The inline test first: the check's call (which builds the message) only for a failing piece.
      if (check && !ok(i)) check_move_dest(n, i, masks[i], begin_bits[i], end_bits[i]);
      sink(at(i));
    }
  }, nullptr);
}

template <class ExecSpace, class Dests, class Sources>
void segmented_copy_bits_call(const ExecSpace& exec, const move_names& n, const Dests& dests,
                              const std::vector<size_type>& dest_begin_bits, const Sources& srcs,
                              const std::vector<size_type>& sizes_bits) {
  check_list_lengths(n.fn, n.dests, dests.size(), n.dest_begins, dest_begin_bits.size());
  check_list_lengths(n.fn, n.dests, dests.size(), n.srcs, srcs.size());
  check_list_lengths(n.fn, n.dests, dests.size(), n.sizes, sizes_bits.size());
  size_type unused = 0;
  const auto ok = [&](std::size_t i) {
    return move_dest_ok(false, dests[i], dest_begin_bits[i], sizes_bits[i]) &&
           check_source(srcs[i], sizes_bits[i]) != source_status::invalid;
  };
  const auto at = [&](std::size_t i) {
    return copy_piece(dests[i], dest_begin_bits[i], srcs[i], sizes_bits[i], false, i);
  };
  if (run_threaded_piece_list(n.fn, exec, dests.size(), ok, at, nullptr, false, unused)) return;
  run_piece_list(n, exec, dests.size(), true, [&](bool check, const auto& sink) {
    for (std::size_t i = 0; i < dests.size(); ++i) {
      // The inline tests first: the checks' calls (which build messages) only for a failing piece.
      if (check && !ok(i)) {
        check_move_dest(n, i, dests[i], dest_begin_bits[i], sizes_bits[i]);
        check_move_source(n, i, srcs[i], sizes_bits[i]);
      }
      sink(at(i));
    }
  }, nullptr);
}

// concatenate's pieces back to back into `dest` from bit 0, then zeros to the end of the last
// word (and, for a new mask, through its padding): `fill_to_words` words are written in all.
template <class ExecSpace, class Sources>
size_type concatenate_call(const ExecSpace& exec, const move_names& n, const dest_mask* dest, const Sources& masks,
                           const std::vector<size_type>& sizes_bits, size_type* null_count, bool read_count,
                           Kokkos::View<word_type*, typename ExecSpace::memory_space>* allocated) {
  check_list_lengths(n.fn, n.srcs, masks.size(), n.sizes, sizes_bits.size());
  const std::size_t m = masks.size();
  size_type total     = 0;
  const auto source_ok = [&](std::size_t i) {
    return check_source(masks[i], sizes_bits[i]) != source_status::invalid;
  };
  // The sources' checks in order, naming the first bad one (the sizes already checked).
  const auto check_sources_in_order = [&] {
    for (std::size_t i = 0; i < m; ++i)
      if (!source_ok(i)) check_move_source(n, i, masks[i], sizes_bits[i]);
  };
  // A long list on a threaded host space: the sizes summed here, the sources tested by the
  // threaded pass's first pass (its `ok`); a size out of range goes to the checks below, and a bad
  // source, once the threaded pass declines the list, to check_sources_in_order, so either error
  // names the first bad argument as the serial checks do.
  bool threaded = threaded_list_pays(exec, m + 1);
  std::vector<size_type> starts;
  if (threaded) {
    starts.resize(m);
    std::size_t sized = 0;
    for (; sized < m; ++sized) {
      const size_type s = sizes_bits[sized];
      if (s < 0 || s > max_bits || total + s > max_bits) break;
      starts[sized] = total;
      total += s;
    }
    threaded = sized == m;
  }
  if (!threaded) {
    total = 0;
    for (std::size_t i = 0; i < m; ++i) {
      const size_type s = sizes_bits[i];
      if (s < 0) check_move_dest(n, i, dest_mask{}, 0, s);  // throws: "<sizes>[i] = -1 is negative"
      if (s > max_bits) check_move_dest(n, i, dest_mask{}, 0, s);
      total += s;
      check_concatenate_total(n.fn, total);
      if (!source_ok(i)) check_move_source(n, i, masks[i], s);
    }
  }
  dest_mask d;
  if (allocated != nullptr) {
    const size_type padded = allocation_size_bytes(total) / static_cast<size_type>(sizeof(word_type));
    *allocated = Kokkos::View<word_type*, typename ExecSpace::memory_space>(
        Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, std::string(n.fn) + "::mask"), padded);
    d = {allocated->data(), padded};
  } else {
    d = *dest;
    try {
      check_concatenate_dest(n.fn, n.pointers, d, total);
    } catch (...) {
      // A threaded list's sources are not checked yet, and their errors come before the destination's.
      if (threaded) check_sources_in_order();
      throw;
    }
  }
  const size_type fill_to = allocated != nullptr ? d.extent_words * word_bits : num_words(total) * word_bits;
  if (threaded) {
    size_type count = 0;
    const auto ok   = [&](std::size_t i) { return i >= m || source_ok(i); };
    const auto at   = [&](std::size_t i) {
      return i < m ? copy_piece(d, starts[i], masks[i], sizes_bits[i], true, i)
                   : constant_piece(d, total, fill_to - total, false, m);
    };
    if (run_threaded_piece_list(n.fn, exec, m + 1, ok, at, null_count, read_count, count)) return count;
    check_sources_in_order();  // the threaded pass declined the list: perhaps for a bad source
  }
  // Checked above (the total sizes the destination); back to back, so never overlapping.
  return run_piece_list(n, exec, masks.size() + 1, false, [&](bool, const auto& sink) {
    size_type at = 0;
    for (std::size_t i = 0; i < masks.size(); ++i) {
      sink(copy_piece(d, at, masks[i], sizes_bits[i], true, i));
      at += sizes_bits[i];
    }
    sink(constant_piece(d, total, fill_to - total, false, masks.size()));
  }, null_count, read_count);
}

}  // namespace detail
}  // namespace kmask

#endif
