#ifndef KMASK_DETAIL_HOST_RANGE_COUNT_HPP
#define KMASK_DETAIL_HOST_RANGE_COUNT_HPP

// Counts of a long list of ranges on a host space (the CPU form): a segmented count's ranges of
// one mask, or a batch count's masks. The batch launch (batch_count.hpp) checks and plans every
// range on the calling thread and runs a Kokkos team per range or block of one: tens of
// nanoseconds a range, which for lists of short ranges is many times the counting itself. Here
// the space's own threads do it in two passes:
//  1. "<fn>::check": blocks of the list, each testing its entries with the predicate the call's
//     host check uses, writing each entry's descriptor into a staging lease, and summing their
//     words and longest range; the caller joins the blocks and, when an entry failed, throws the
//     call's message for it (nothing has been written);
//  2. "<fn>::ranges": one thread counts a whole range and writes its count, chunks of ranges dealt
//     out round robin.
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
#include <type_traits>
#include <vector>

namespace kmask {
namespace detail {

// Whether a list of n ranges on `exec` is checked and counted by the passes above.
template <class ExecSpace>
bool host_range_list_pays(std::size_t n) {
  if constexpr (!uses_cpu_kernels<ExecSpace>()) return false;
  else return n >= static_cast<std::size_t>(launch_tuning<ExecSpace>::count_cpu_list_min_ranges);
}

// A segmented count's range, from the mask's bit 0 (its mask and sense are the call's).
struct bit_bounds {
  size_type lo, hi;
};

// The checked list: entry j's descriptor (Desc) in the lease, the first entry that failed its
// test (n when none did), and whether one thread a range balances (`whole`) or the batch launch
// must split ranges.
template <class ExecSpace, class Desc>
struct host_range_list {
  typename staging_pool<ExecSpace>::lease lease;
  std::size_t n   = 0;
  std::size_t bad = 0;
  bool whole      = false;
  const Desc* descriptors() const { return reinterpret_cast<const Desc*>(list_words()); }
  const std::uint64_t* list_words() const { return lease.device(); }
};

// One block's sums (the check pass).
struct range_block_sums {
  std::size_t bad   = ~std::size_t{0};  // the first entry failing its test, if any
  size_type words   = 0;                // words its ranges touch
  size_type longest = 0;                // the most words one range touches
};

// Pass 1 over entries [0, n): describe(j, d) tests entry j and, when it passes, sets its
// descriptor d and returns the words its range touches; it returns -1 when the entry fails.
// Reads the caller's arguments, so it waits for `exec`.
template <class Desc, class ExecSpace, class Describe>
host_range_list<ExecSpace, Desc> check_host_list(const char* fn, const ExecSpace& exec, std::size_t n,
                                                 const Describe& describe) {
  static_assert(std::is_trivially_copyable<Desc>::value && sizeof(Desc) % sizeof(std::uint64_t) == 0,
                "kmask: a range descriptor is whole words");
  using tuning             = launch_tuning<ExecSpace>;
  constexpr std::size_t dw = sizeof(Desc) / sizeof(std::uint64_t);
  const auto threads       = static_cast<std::size_t>(std::max(1, static_cast<int>(exec.concurrency())));
  const std::size_t nb     = std::max<std::size_t>(
      1, std::min(threads * tuning::count_cpu_list_blocks_per_thread,
                  n / static_cast<std::size_t>(tuning::count_cpu_list_block_ranges)));
  host_range_list<ExecSpace, Desc> list{
      staging_pool<ExecSpace>::acquire(exec, dw * n, dw * n, std::string(fn) + "::ranges"), n, n, false};
  Desc* const out = reinterpret_cast<Desc*>(list.lease.host());
  std::vector<range_block_sums> sums(nb);
  range_block_sums* const at = sums.data();
  Kokkos::parallel_for(
      std::string(fn) + "::check", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::size_t>>(exec, 0, nb),
      [=](std::size_t blk) {
        range_block_sums s;
        for (std::size_t j = n * blk / nb, end = n * (blk + 1) / nb; j < end; ++j) {
          const size_type words = describe(j, out[j]);
          if (words < 0) {
            s.bad = j;
            break;
          }
          s.words += words;
          s.longest = std::max(s.longest, words);
        }
        at[blk] = s;
      });
  exec.fence();
  size_type words = 0, longest = 0;
  for (const range_block_sums& s : sums) {
    if (s.bad != ~std::size_t{0}) {
      list.bad = s.bad;
      return list;
    }
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

// Set bits of bits [lo, hi) (absolute positions) of `m`, 0 when the range is empty; m present.
KOKKOS_INLINE_FUNCTION size_type set_bits_of_range(const word_type* m, size_type lo, size_type hi) {
  if (hi <= lo) return 0;
#if defined(KMASK_HOST_POPCNT)
  if (host_has_popcnt()) return host_popcount_range(m, lo, hi);  // the edge words by popcnt too
#endif
  return count_words_on_cpu(m, lo / word_bits, (hi - 1) / word_bits + 1, lo, hi);
}

// Pass 2: enqueues counts(j) = count_of(descriptor j) for every entry of a checked `whole` list,
// a thread a range. The list is cut into chunks of consecutive entries, about
// count_cpu_list_chunks_per_thread a thread, dealt out round robin: a static schedule gives each
// thread a contiguous run of iterations, and iteration i takes chunk (i % T) x R + i / T, so a
// thread's chunks come from across the whole list (ranges sorted by length still balance). Not a
// dynamic schedule: Kokkos 3.4's OpenMP one starts with a rendezvous whose spin-wait sleeps, which
// cost ~1 ms a call on 16 threads (call 32.1).
template <class ExecSpace, class Desc, class CountOf>
void count_host_list(const char* fn, const ExecSpace& exec, const host_range_list<ExecSpace, Desc>& list,
                     const Kokkos::View<size_type*, typename ExecSpace::memory_space>& counts, const CountOf& count_of) {
  const auto n       = static_cast<size_type>(list.n);
  const auto threads = static_cast<size_type>(std::max(1, static_cast<int>(exec.concurrency())));
  const size_type per_chunk =
      std::max<size_type>(
      1, n / (threads * static_cast<size_type>(launch_tuning<ExecSpace>::count_cpu_list_chunks_per_thread)));
  const size_type chunks = (n + per_chunk - 1) / per_chunk;
  const size_type rounds = (chunks + threads - 1) / threads;  // R: chunks a thread takes, at most
  const Desc* d          = list.descriptors();
  Kokkos::parallel_for(std::string(fn) + "::ranges",
                       Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<size_type>>(exec, 0, threads * rounds),
                       [=](size_type i) {
                         const size_type c = (i % threads) * rounds + i / threads;
                         if (c >= chunks) return;
                         const size_type end = std::min(n, (c + 1) * per_chunk);
                         for (size_type j = c * per_chunk; j < end; ++j) counts(j) = count_of(d[j]);
                       });
}

// A segmented count's pass 1 over the num_bounds / 2 ranges at `bounds` (host memory, a list
// check_range_list() accepted): throws the first refused range's message.
template <class ExecSpace>
host_range_list<ExecSpace, bit_bounds> check_host_ranges(const char* fn, const ExecSpace& exec,
                                                         const source_mask& mask, const size_type* bounds,
                                                         std::size_t num_bounds) {
  const bool absent    = mask.words == nullptr;
  const size_type base = absent ? 0 : mask.begin_bit;
  auto list = check_host_list<bit_bounds>(fn, exec, num_bounds / 2, [=](std::size_t r, bit_bounds& d) -> size_type {
    const size_type b = bounds[2 * r], e = bounds[2 * r + 1];
    if (!range_bounds_ok(mask, b, e)) return -1;
    d = {base + b, base + e};
    return absent ? 0 : words_of_bits(d.lo, d.hi);
  });
  if (list.bad != list.n) report_refused_range(fn, mask, list.bad, bounds[2 * list.bad], bounds[2 * list.bad + 1]);
  return list;
}

// A segmented count's pass 2: counts(r) = set bits (or, `unset`, unset bits) of range r.
template <class ExecSpace>
void count_host_ranges(const char* fn, const ExecSpace& exec, const host_range_list<ExecSpace, bit_bounds>& list,
                       const source_mask& mask, bool unset,
                       const Kokkos::View<size_type*, typename ExecSpace::memory_space>& counts) {
  const word_type* m = mask.words;
  unset              = unset != mask.invert;  // the set bits of a complement are the unset bits
  count_host_list(fn, exec, list, counts, [=](const bit_bounds& r) {
    const size_type set = m == nullptr ? 0 : set_bits_of_range(m, r.lo, r.hi);
    return range_count_start(r.hi - r.lo, m == nullptr, unset) + (unset ? -set : set);
  });
}

}  // namespace detail
}  // namespace kmask

#endif
