// The bit-moving calls (move_bits.hpp) at 2^24 and 2^26 bits, aligned (every offset a multiple of
// 32) and unaligned (source and destination offsets off word boundaries, and different), each with
// vs_copy against a deep_copy of the same bytes measured in the same run; plus small work (10000
// pieces of 32-128 bits) with its GPU and host times per call.

#include "bench_support.hpp"

#include <algorithm>
#include <random>
#include <type_traits>
#include <vector>

namespace kmask_bench {
namespace {

using mask_t  = Kokkos::View<word_type*, memory_space>;
using cmask_t = Kokkos::View<const word_type*, memory_space>;

mask_t random_mask(const exec_space& exec, size_type words, std::uint64_t salt) {
  mask_t m(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "bench::mask"), words);
  fill_random(exec, m, salt);
  return m;
}


// Median GPU time of one call, between CUDA events recorded on the instance's stream (what the
// kernels alone take, without the host's part of the call); 0 on other backends.
template <class Call>
double gpu_median(const exec_space& exec, const Call& call) {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same<exec_space, Kokkos::Cuda>::value) {
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    std::vector<double> t;
    for (int r = 0; r < 21; ++r) {
      exec.fence();
      cudaEventRecord(start, exec.cuda_stream());
      call();
      cudaEventRecord(stop, exec.cuda_stream());
      exec.fence();
      float ms = 0;
      cudaEventElapsedTime(&ms, start, stop);
      t.push_back(1e-3 * static_cast<double>(ms));
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  }
#endif
  (void)exec;
  (void)call;
  return 0;
}

// One fenced call per iteration (host wall time), then the median host time, the GPU time per call
// (CUDA) and the same-run same-bytes vs_copy (of the host-timed median).
template <class Call>
void time_and_report(benchmark::State& state, const exec_space& exec, double bytes, const Call& call) {
  timed_calls(state, exec, call);  // host p50/p90/p99; gpu_us below is the median of its own runs
  const double ours = time_median(exec, call);
  set_rates(state, bytes);
  state.counters["median_us"] = ours * 1e6;
  state.counters["gpu_us"]    = gpu_median(exec, call) * 1e6;
  state.counters["vs_copy"]   = same_bytes_copy_time(exec, static_cast<size_type>(bytes)) / ours;
}

// Offsets of the unaligned cases: destination and source off word boundaries, by different amounts.
constexpr size_type dest_skew = 5, src_skew = 19;

// set_bits over all but the skew of 2^range(0) bits. Writes the bits' bytes (and reads only the two
// edge words): vs_copy compares with a copy moving as many bytes in all.
void set_bits_bench(benchmark::State& state) {
  const exec_space exec = bench_exec();
  const size_type bits = size_type{1} << state.range(0);
  const bool aligned   = state.range(1) == 0;
  if (too_big(state, bits / 8)) return;
  const auto m      = random_mask(exec, kmask::num_words(bits), 1);
  const size_type b = aligned ? 0 : dest_skew, e = aligned ? bits : bits - 7;
  bool valid        = false;
  time_and_report(state, exec, static_cast<double>((e - b) / 8), [&] {
    kmask::set_bits(exec, m, b, e, valid);
    valid = !valid;
  });
}

// copy_bits of 2^range(0) bits: reads and writes them.
void copy_bits_bench(benchmark::State& state) {
  const exec_space exec = bench_exec();
  const size_type bits = size_type{1} << state.range(0);
  const bool aligned   = state.range(1) == 0;
  if (too_big(state, bits / 4 + 64)) return;
  const size_type db = aligned ? 0 : dest_skew, sb = aligned ? 0 : src_skew;
  const auto dest    = random_mask(exec, kmask::num_words(bits + db), 1);
  const cmask_t src  = random_mask(exec, kmask::num_words(bits + sb), 2);
  time_and_report(state, exec, static_cast<double>(bits / 4),
                  [&] { kmask::copy_bits(exec, dest, db, src, sb, bits); });
}

// `pieces` pieces tiling 2^bits bits, from `pieces` sources; unaligned: every piece's length is off
// a multiple of 32 (so neighbours share destination words) and sources start at odd offsets.
struct tiling {
  std::vector<cmask_t> srcs;
  std::vector<size_type> src_begins, dest_begins, sizes;
  size_type total = 0;
};
tiling make_tiling(const exec_space& exec, size_type bits, size_type pieces, bool aligned) {
  tiling t;
  const size_type step = bits / pieces;
  for (size_type p = 0; p < pieces; ++p) {
    const size_type size = aligned ? step / 32 * 32 : step - 1 - p % 13;
    const size_type sb   = aligned ? 0 : (src_skew + 7 * p) % 32;
    t.srcs.push_back(random_mask(exec, kmask::num_words(sb + size), static_cast<std::uint64_t>(p) + 3));
    t.src_begins.push_back(sb);
    t.dest_begins.push_back(t.total + (aligned ? 0 : dest_skew));
    t.sizes.push_back(size);
    t.total += size;
  }
  return t;
}

void segmented_copy_bits_bench(benchmark::State& state) {
  const exec_space exec = bench_exec();
  const size_type bits = size_type{1} << state.range(0), pieces = state.range(2);
  const bool aligned   = state.range(1) == 0;
  if (too_big(state, bits / 4 + 64 * pieces)) return;
  const tiling t  = make_tiling(exec, bits, pieces, aligned);
  const auto dest = random_mask(exec, kmask::num_words(t.total + dest_skew), 1);
  const std::vector<mask_t> dests(static_cast<std::size_t>(pieces), dest);
  time_and_report(state, exec, static_cast<double>(t.total / 4),
                  [&] { kmask::segmented_copy_bits(exec, dests, t.dest_begins, t.srcs, t.src_begins, t.sizes); });
}

void inplace_concatenate_bench(benchmark::State& state) {
  const exec_space exec = bench_exec();
  const size_type bits = size_type{1} << state.range(0), pieces = state.range(2);
  const bool aligned   = state.range(1) == 0;
  if (too_big(state, bits / 4 + 64 * pieces)) return;
  const tiling t  = make_tiling(exec, bits, pieces, aligned);
  const auto dest = random_mask(exec, kmask::num_words(t.total), 1);
  const Kokkos::View<size_type*, memory_space> count(Kokkos::view_alloc(exec, "bench::null_count"), 1);
  time_and_report(state, exec, static_cast<double>(t.total / 4),
                  [&] { kmask::inplace_concatenate(exec, dest, t.srcs, t.src_begins, t.sizes, count); });
}

// Small work: 10000 pieces of 32-128 bits at random offsets, back to back in one destination (one
// launch and one upload per call). range(0): 0 set_bits_bulk, 1 segmented_copy_bits, 2 inplace_concatenate.
void small_pieces_bench(benchmark::State& state) {
  const exec_space exec = bench_exec();
  const size_type pieces = 10000;
  std::mt19937_64 rng(42);
  const auto pool = random_mask(exec, 64, 9);  // sources: 128-bit windows of one small mask
  std::vector<cmask_t> srcs(static_cast<std::size_t>(pieces), pool);
  std::vector<mask_t> dests;
  std::vector<size_type> sb, db, sizes, ends;
  std::vector<bool> valid;
  size_type at = 0;
  for (size_type p = 0; p < pieces; ++p) {
    const size_type size = 32 + static_cast<size_type>(rng() % 97);
    sb.push_back(static_cast<size_type>(rng() % (64 * 32 - 128)));
    db.push_back(at);
    sizes.push_back(size);
    ends.push_back(at + size);
    valid.push_back(p % 2 == 0);
    at += size;
  }
  const auto dest = random_mask(exec, kmask::num_words(at), 1);
  dests.assign(static_cast<std::size_t>(pieces), dest);
  const Kokkos::View<size_type*, memory_space> count(Kokkos::view_alloc(exec, "bench::null_count"), 1);
  const double bytes = static_cast<double>(at / 4);
  switch (state.range(0)) {
    case 0:
      time_and_report(state, exec, static_cast<double>(at / 8), [&] { kmask::set_bits_bulk(exec, dests, db, ends, valid); });
      break;
    case 1:
      time_and_report(state, exec, bytes, [&] { kmask::segmented_copy_bits(exec, dests, db, srcs, sb, sizes); });
      break;
    default:
      time_and_report(state, exec, bytes, [&] { kmask::inplace_concatenate(exec, dest, srcs, sb, sizes, count); });
      break;
  }
}

}  // namespace

void register_move_bits_benchmarks() {
  const auto reg = [](const char* name, void (*fn)(benchmark::State&)) {
    return benchmark::RegisterBenchmark(name, fn)->UseManualTime()->Unit(benchmark::kMicrosecond);
  };
  for (int log_bits : {24, 26})
    for (int unaligned : {0, 1}) {
      reg("move_bits/set_bits", set_bits_bench)->Args({log_bits, unaligned})->ArgNames({"log_bits", "unaligned"});
      reg("move_bits/copy_bits", copy_bits_bench)->Args({log_bits, unaligned})->ArgNames({"log_bits", "unaligned"});
      reg("move_bits/segmented_copy_bits", segmented_copy_bits_bench)
          ->Args({log_bits, unaligned, 1000})
          ->ArgNames({"log_bits", "unaligned", "pieces"});
      for (int pieces : {10, 100, 10000})
        reg("move_bits/inplace_concatenate", inplace_concatenate_bench)
            ->Args({log_bits, unaligned, pieces})
            ->ArgNames({"log_bits", "unaligned", "pieces"});
    }
  reg("move_bits/small/set_bits_bulk", small_pieces_bench)->Arg(0)->ArgName("pieces_10000_bits_32_128");
  reg("move_bits/small/segmented_copy_bits", small_pieces_bench)->Arg(1)->ArgName("pieces_10000_bits_32_128");
  reg("move_bits/small/inplace_concatenate", small_pieces_bench)->Arg(2)->ArgName("pieces_10000_bits_32_128");
}

}  // namespace kmask_bench
