// The mask-making calls at 2^24 and 2^26 rows (2^16 for the smoke test), each with its vs_copy
// against a deep_copy of the bytes it reads and writes, measured in the same run:
//   inplace_valid_if (i % 3 != 0)  writes rows / 8 bytes (the predicate reads nothing); vs_plain
//                                  against a plain one-word-per-iteration kernel of the predicate
//   inplace_bools_to_mask (uint8)  reads rows bytes, writes rows / 8
//   inplace_mask_to_bools          reads rows / 8 bytes, writes rows
//   inplace_gather_bits (int32)    reads 4 x rows index bytes, writes rows / 8 (the source bits are
//                                  read at random: not counted, they are what the gather costs)

#include "bench_support.hpp"

namespace kmask_bench {
namespace {

struct not_multiple_of_3 {
  KOKKOS_INLINE_FUNCTION bool operator()(size_type i) const { return i % 3 != 0; }
};



Kokkos::View<word_type*, memory_space> words_of(const exec_space& exec, size_type bits) {
  return Kokkos::View<word_type*, memory_space>(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "bench::mask"),
                                                kmask::num_words(bits));
}

Kokkos::View<size_type*, memory_space> one_count(const exec_space& exec) {
  return Kokkos::View<size_type*, memory_space>(Kokkos::view_alloc(exec, "bench::null_count"), 1);
}

void valid_if_mod3(benchmark::State& state) {
  const exec_space exec = bench_exec();
  const size_type rows = size_type{1} << state.range(0);
  if (too_big(state, rows / 8)) return;
  const auto dest  = words_of(exec, rows);
  const auto count = one_count(exec);
  const auto call  = [&] { kmask::inplace_valid_if(exec, dest, rows, not_multiple_of_3{}, count); };
  time_and_report(state, exec, static_cast<double>(rows / 8), call);
  // The plainest valid_if one could write (a word per iteration from its 32 predicate calls, no
  // count), in the same run: what evaluating the predicate once per row and storing the words
  // costs. vs_plain near 1 says the predicate, not the memory or kmask, is the call's limit.
  const Kokkos::View<word_type*, memory_space> plain = words_of(exec, rows);
  const auto plain_call = [&] {
    Kokkos::parallel_for(
        "bench::plain_valid_if", Kokkos::RangePolicy<exec_space, Kokkos::IndexType<size_type>>(exec, 0, rows / 32),
        KOKKOS_LAMBDA(size_type w) {
          word_type v = 0;
          for (int k = 0; k < 32; ++k) v |= static_cast<word_type>(not_multiple_of_3{}(32 * w + k) ? 1u : 0u) << k;
          plain(w) = v;
        });
  };
  const double plain_s       = time_median(exec, plain_call);
  state.counters["plain_us"] = plain_s * 1e6;
  state.counters["vs_plain"] = plain_s / time_median(exec, call);
}

// range(1): bytes the values start past an aligned allocation (1: the unaligned form).
void bools_to_mask_u8(benchmark::State& state) {
  const exec_space exec = bench_exec();
  const size_type rows = size_type{1} << state.range(0);
  const size_type skip = state.range(1);
  if (too_big(state, rows + rows / 8)) return;
  Kokkos::View<std::uint8_t*, memory_space> all(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "bench::values"),
                                                rows + skip);
  const Kokkos::View<std::uint8_t*, memory_space> values = Kokkos::subview(all, std::make_pair(skip, rows + skip));
  Kokkos::parallel_for(
      "bench::fill_values", Kokkos::RangePolicy<exec_space, Kokkos::IndexType<size_type>>(exec, 0, rows),
      KOKKOS_LAMBDA(size_type i) { values(i) = static_cast<std::uint8_t>((i * 2654435761u >> 13) % 4); });
  const Kokkos::View<const std::uint8_t*, memory_space> cvalues = values;
  const auto dest  = words_of(exec, rows);
  const auto count = one_count(exec);
  const auto call  = [&] { kmask::inplace_bools_to_mask(exec, dest, cvalues, count); };
  time_and_report(state, exec, static_cast<double>(rows + rows / 8), call);
}

// range(1): bytes the output starts past an aligned allocation.
void mask_to_bools(benchmark::State& state) {
  const exec_space exec = bench_exec();
  const size_type rows = size_type{1} << state.range(0);
  const size_type skip = state.range(1);
  if (too_big(state, rows + rows / 8)) return;
  const auto mask = words_of(exec, rows);
  fill_random(exec, mask, 3);
  const Kokkos::View<const word_type*, memory_space> cmask = mask;
  Kokkos::View<bool*, memory_space> all(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "bench::bools"),
                                        rows + skip);
  const Kokkos::View<bool*, memory_space> out = Kokkos::subview(all, std::make_pair(skip, rows + skip));
  const auto call = [&] { kmask::inplace_mask_to_bools(exec, out, cmask, 0, rows); };
  time_and_report(state, exec, static_cast<double>(rows + rows / 8), call);
}

// range(1): 0 sorted indices (a filter keeping two rows of every three of a 1.5 x rows source),
// 1 random indices into a source of `rows` bits.
void gather(benchmark::State& state) {
  const exec_space exec = bench_exec();
  const size_type rows = size_type{1} << state.range(0);
  const bool sorted    = state.range(1) == 0;
  const size_type size = sorted ? rows + rows / 2 : rows;
  if (too_big(state, 4 * rows + rows / 8 + size / 8)) return;
  const auto source = words_of(exec, size);
  fill_random(exec, source, 5);
  const Kokkos::View<const word_type*, memory_space> csource = source;
  Kokkos::View<std::int32_t*, memory_space> indices(
      Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "bench::indices"), rows);
  Kokkos::parallel_for(
      "bench::fill_indices", Kokkos::RangePolicy<exec_space, Kokkos::IndexType<size_type>>(exec, 0, rows),
      KOKKOS_LAMBDA(size_type i) {
        std::uint64_t x = static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull;
        x ^= x >> 29;
        indices(i) = static_cast<std::int32_t>(sorted ? i + i / 2 : static_cast<size_type>(x % static_cast<std::uint64_t>(size)));
      });
  const auto dest  = words_of(exec, rows);
  const auto count = one_count(exec);
  const auto call  = [&] {
    kmask::inplace_gather_bits(exec, dest, csource, 0, size, indices, kmask::gather_policy::nullify, count);
  };
  time_and_report(state, exec, static_cast<double>(4 * rows + rows / 8), call);
}

}  // namespace

void register_make_masks_benchmarks() {
  for (int log_rows : {16, 24, 26}) {
    benchmark::RegisterBenchmark("make_masks/inplace_valid_if/mod3", valid_if_mod3)
        ->Arg(log_rows)->UseManualTime()->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("make_masks/inplace_bools_to_mask/uint8", bools_to_mask_u8)
        ->Args({log_rows, 0})->UseManualTime()->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("make_masks/inplace_mask_to_bools", mask_to_bools)
        ->Args({log_rows, 0})->UseManualTime()->Unit(benchmark::kMicrosecond);
    if (log_rows == 24) {
      benchmark::RegisterBenchmark("make_masks/inplace_bools_to_mask/uint8/unaligned", bools_to_mask_u8)
          ->Args({log_rows, 1})->UseManualTime()->Unit(benchmark::kMicrosecond);
      benchmark::RegisterBenchmark("make_masks/inplace_mask_to_bools/unaligned", mask_to_bools)
          ->Args({log_rows, 1})->UseManualTime()->Unit(benchmark::kMicrosecond);
    }
    if (log_rows != 26)
      for (int random : {0, 1})
        benchmark::RegisterBenchmark(random ? "make_masks/inplace_gather_bits/int32/random"
                                            : "make_masks/inplace_gather_bits/int32/sorted",
                                     gather)
            ->Args({log_rows, random})->UseManualTime()->Unit(benchmark::kMicrosecond);
  }
}

}  // namespace kmask_bench
