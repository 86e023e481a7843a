#ifndef KMASK_DETAIL_HOST_RANGE_COUNT_HPP
#define KMASK_DETAIL_HOST_RANGE_COUNT_HPP

// Segmented counts of a long list of ranges on a host space (the CPU form), checked and counted by
// the space's own threads. The batch launch (batch_count.hpp) checks and plans every range on the
// calling thread and runs a Kokkos team per range or block of one: tens of nanoseconds a range,
// which for lists of short ranges is many times the counting itself. Here:
//  1. "<fn>::check": blocks of the list, each testing its ranges with range_bounds_ok() (the
//     predicate of the host and device checks), copying them, from the mask's bit 0, into a
//     staging lease, and summing their words and longest range; the caller joins the blocks and
//     throws the message of the first refused range (nothing has been written);
//  2. "<fn>::ranges": one thread counts a whole range and writes its count, ranges handed out in
//     dynamic chunks.
// A list whose longest range is a large share of a thread's words goes to the batch launch
// instead, which cuts ranges into blocks that threads share.

#include <kmask/detail/count_kernels.hpp>
#include <kmask/detail/launch_shape.hpp>
#include <kmask/detail/staging_pool.hpp>
#include <kmask/detail/validation.hpp>
#include <kmask/types.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace kmask {
namespace detail {

// Whether a list of n ranges on `exec` is checked and counted by the passes above.
template <class ExecSpace>
bool host_range_list_pays(std::size_t n) {
  if constexpr (!uses_cpu_kernels<ExecSpace>()) return false;
  else return n >= static_cast<std::size_t>(launch_tuning<ExecSpace>::count_cpu_list_min_ranges);
}

// The checked list: its ranges from the mask's bit 0 in the lease (2 words a range), and whether
// one thread a range balances (`whole`) or the batch launch must split ranges.
template <class ExecSpace>
struct host_range_list {
  typename staging_pool<ExecSpace>::lease lease;
  std::size_t n = 0;
  bool whole    = false;
};

// One block's sums (the check pass).
struct range_block_sums {
  std::size_t bad   = ~std::size_t{0};  // the first refused range, if any
  size_type words   = 0;                // words its ranges touch
  size_type longest = 0;                // the most words one range touches
};

// Pass 1 over the num_bounds / 2 ranges at `bounds` (host memory, a list check_range_list()
// accepted): throws the first refused range's message. Waits for `exec`.
template <class ExecSpace>
host_range_list<ExecSpace> check_host_ranges(const char* fn, const ExecSpace& exec, const source_mask& mask,
                                             const size_type* bounds, std::size_t num_bounds) {
  using tuning          = launch_tuning<ExecSpace>;
  const std::size_t n   = num_bounds / 2;
  const auto threads    = static_cast<std::size_t>(std::max(1, static_cast<int>(exec.concurrency())));
  const std::size_t nb  = std::max<std::size_t>(
      1, std::min(threads * tuning::count_cpu_list_blocks_per_thread,
                  n / static_cast<std::size_t>(tuning::count_cpu_list_block_ranges)));
  host_range_list<ExecSpace> list{staging_pool<ExecSpace>::acquire(exec, 2 * n, 2 * n, std::string(fn) + "::ranges"),
                                  n, false};
  size_type* const out      = reinterpret_cast<size_type*>(list.lease.host());
  const bool absent         = mask.words == nullptr;
  const size_type base      = absent ? 0 : mask.begin_bit;
  std::vector<range_block_sums> sums(nb);
  range_block_sums* const at = sums.data();
  Kokkos::parallel_for(
      std::string(fn) + "::check", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::size_t>>(exec, 0, nb),
      [=](std::size_t blk) {
        range_block_sums s;
        for (std::size_t r = n * blk / nb, end = n * (blk + 1) / nb; r < end; ++r) {
          const size_type b = bounds[2 * r], e = bounds[2 * r + 1];
          if (!range_bounds_ok(mask, b, e)) {
            s.bad = r;
            break;
          }
          const size_type lo = base + b, hi = base + e;
          out[2 * r] = lo, out[2 * r + 1] = hi;
          const size_type words = absent || hi <= lo ? 0 : (hi - 1) / word_bits + 1 - lo / word_bits;
          s.words += words;
          s.longest = std::max(s.longest, words);
        }
        at[blk] = s;
      });
  exec.fence();
  size_type words = 0, longest = 0;
  for (const range_block_sums& s : sums) {
    if (s.bad != ~std::size_t{0}) report_refused_range(fn, mask, s.bad, bounds[2 * s.bad], bounds[2 * s.bad + 1]);
    words += s.words;
    longest = std::max(longest, s.longest);
  }
  // One thread has nothing to balance; a range of one chunk is what count_set_bits gives a thread
  // anyway; beyond that, whole ranges balance while the longest is at most a quarter of a thread's
  // share.
  list.whole = threads == 1 || longest <= tuning::count_cpu_chunk_words ||
               longest <= words / static_cast<size_type>(4 * threads);
  return list;
}

// Pass 2: enqueues counts(r) = set bits (or, `unset`, unset bits) of range r of a `whole` list,
// a thread a range.
template <class ExecSpace>
void count_host_ranges(const char* fn, const ExecSpace& exec, const host_range_list<ExecSpace>& list,
                       const source_mask& mask, bool unset,
                       const Kokkos::View<size_type*, typename ExecSpace::memory_space>& counts) {
  const std::size_t n   = list.n;
  const auto threads    = static_cast<std::size_t>(std::max(1, static_cast<int>(exec.concurrency())));
  const int chunk       = static_cast<int>(
      std::max<std::size_t>(1, n / (threads * launch_tuning<ExecSpace>::count_cpu_list_chunks_per_thread)));
  const size_type* bounds = reinterpret_cast<const size_type*>(list.lease.device());
  const word_type* m      = mask.words;
  unset                   = unset != mask.invert;  // the set bits of a complement are the unset bits
  Kokkos::parallel_for(
      std::string(fn) + "::ranges",
      Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>, Kokkos::IndexType<size_type>>(
          exec, 0, static_cast<size_type>(n), Kokkos::ChunkSize(chunk)),
      [=](size_type r) {
        const size_type lo = bounds[2 * r], hi = bounds[2 * r + 1];
        size_type set      = 0;
        if (m != nullptr && hi > lo) set = count_words_on_cpu(m, lo / word_bits, (hi - 1) / word_bits + 1, lo, hi);
        counts(r) = range_count_start(hi - lo, m == nullptr, unset) + (unset ? -set : set);
      });
}

}  // namespace detail
}  // namespace kmask

#endif
