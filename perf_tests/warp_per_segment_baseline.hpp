#ifndef KMASK_BENCH_WARP_BASELINE_HPP
#define KMASK_BENCH_WARP_BASELINE_HPP

// The mapping kmask replaces, kept as a baseline: one team of one warp (32 threads) per segment,
// striding over the segment's words, the segment's null count reduced in that team. Its
// parallelism is capped at num_segments * 32 threads whatever the mask size. On host backends the
// analogue is one thread per segment.

#include <kmask/kmask.hpp>

namespace kmask_bench {

template <class ExecSpace, class Op>
void warp_per_segment_binop(const ExecSpace& exec, const Op& op, const kmask::segmented_binop_plan<ExecSpace>& plan,
                            const Kokkos::View<kmask::size_type*, typename ExecSpace::memory_space>& null_counts) {
  using kmask::size_type;
  using kmask::word_type;
  using member_type     = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  const auto& d         = kmask::detail::plan_access::descriptors(plan);
  const auto offsets    = d.offsets;
  const auto sources    = d.sources;
  const auto dests      = d.destinations;
  const size_type bits  = d.size_bits;
  const size_type words = kmask::num_words(bits);
  const int team        = kmask::detail::runs_on_host<ExecSpace>() ? 1 : 32;
  Kokkos::parallel_for(
      "kmask_bench::warp_per_segment", Kokkos::TeamPolicy<ExecSpace>(exec, static_cast<int>(d.num_segments), team),
      KOKKOS_LAMBDA(const member_type& m) {
        const size_type s = m.league_rank();
        const size_type first = offsets(s), last = offsets(s + 1);
        word_type* out  = dests(s).data;
        size_type nulls = 0;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(m, words),
            [&](size_type w, size_type& acc) {
              const word_type word = kmask::detail::combine_word(op, sources.data(), first, last, w, bits);
              out[w]               = word;
              acc += kmask::detail::nulls_in_word(word, w, bits);
            },
            nulls);
        Kokkos::single(Kokkos::PerTeam(m), [&]() { null_counts(s) = nulls; });
      });
}

}  // namespace kmask_bench

#endif
