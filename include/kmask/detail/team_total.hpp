#ifndef KMASK_DETAIL_TEAM_TOTAL_HPP
#define KMASK_DETAIL_TEAM_TOTAL_HPP

// A launch's total over its teams without a Kokkos reduction (the counts, the making and moving
// kernels' null counts): each part (a team's or a warp's) adds to a running total with one atomic
// and takes a ticket; the part that takes the last one writes the total and leaves both words zero
// again, so they can live in a staging lease's zeroed words (staging_pool::lease::zeroed) and the
// result can go straight to page-locked host memory.

#include <kmask/detail/compat.hpp>
#include <kmask/types.hpp>

namespace kmask {
namespace detail {

// Called once per part (a team's, inside Kokkos::single(PerTeam), or a warp's), `parts` parts in
// all; scratch[0] is the running total, scratch[1] the ticket, both zero before the launch.
// take_team_part: true for the part that takes the last ticket, with the total in `total`.
KOKKOS_INLINE_FUNCTION bool take_team_part(size_type* scratch, size_type parts, size_type part, size_type& total) {
  atomic_add_count(&scratch[0], part);
  Kokkos::memory_fence();  // the add is visible before the ticket that announces it
  if (atomic_fetch_add_count(&scratch[1], 1) != parts - 1) return false;
  Kokkos::memory_fence();  // every other part's add is visible to the last one
  total = atomic_exchange_count(&scratch[0], 0);
  atomic_exchange_count(&scratch[1], 0);
  return true;
}
KOKKOS_INLINE_FUNCTION void add_team_part(size_type* scratch, size_type parts, size_type part, size_type* out) {
  size_type total = 0;
  if (take_team_part(scratch, parts, part, total)) *out = total;
}

// The same with the running total (low 48 bits) and the ticket (high 16) in one word, scratch[0]:
// a part is one atomic, with no fences and no second word, and the part that takes the last
// ticket writes the total and clears the word. Only where every total is below 2^47 and there are
// fewer than 2^15 parts (packs_team_parts).
constexpr int packed_ticket_shift = 48;
KOKKOS_INLINE_FUNCTION constexpr bool packs_team_parts(size_type parts, size_type most_total) {
  return parts < (size_type{1} << 15) && most_total < (size_type{1} << 47);
}
// take_packed_part: true for the part that takes the last ticket, with the total in `total`.
KOKKOS_INLINE_FUNCTION bool take_packed_part(size_type* scratch, size_type parts, size_type part, size_type& total) {
  const size_type add = (size_type{1} << packed_ticket_shift) + part;
  const size_type old = atomic_fetch_add_count(&scratch[0], add);
  if ((old >> packed_ticket_shift) != parts - 1) return false;
  total      = (old + add) & ((size_type{1} << packed_ticket_shift) - 1);
  scratch[0] = 0;  // every other part is in: nothing else touches the word in this launch
  return true;
}
KOKKOS_INLINE_FUNCTION void add_packed_part(size_type* scratch, size_type parts, size_type part, size_type* out) {
  size_type total = 0;
  if (take_packed_part(scratch, parts, part, total)) *out = total;
}

// Either way, packed where packs_team_parts(parts, most_total) allows it: every part of one total
// must pass the same `parts` and `most_total`, so all take the same way.
KOKKOS_INLINE_FUNCTION bool take_part(size_type* scratch, size_type parts, size_type most_total, size_type part,
                                      size_type& total) {
  return packs_team_parts(parts, most_total) ? take_packed_part(scratch, parts, part, total)
                                             : take_team_part(scratch, parts, part, total);
}
KOKKOS_INLINE_FUNCTION void add_part(size_type* scratch, size_type parts, size_type most_total, size_type part,
                                     size_type* out) {
  size_type total = 0;
  if (take_part(scratch, parts, most_total, part, total)) *out = total;
}

}  // namespace detail
}  // namespace kmask

#endif
