#ifndef KMASK_DETAIL_SEGMENTED_CALLS_HPP
#define KMASK_DETAIL_SEGMENTED_CALLS_HPP

// The three ways a described segmented call runs: in place on the caller's destinations, into
// rows it allocates, or encoded once into a plan that launches many times. Every public
// segmented, binop, copy and superimpose call ends in one of these.

#include <kmask/detail/compat.hpp>
#include <kmask/detail/segmented_encode.hpp>
#include <kmask/operators.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kmask {
namespace detail {

// The execution space a default-space overload runs on: the one of the views' memory space
// (HostSpace: the default host space; CudaSpace: Cuda).
template <class View>
using space_of = typename View::memory_space::execution_space;

template <class ExecSpace, class Store, class Op>
void launch_in_place(const char* fn, const ExecSpace& exec, const Op& op, const encoded_call<ExecSpace, Store>& e,
                     const Kokkos::View<size_type*, typename ExecSpace::memory_space>& null_counts) {
  using memory_space = typename ExecSpace::memory_space;
  launch(fn, exec, op, e, pointer_destinations<memory_space>{e.destinations}, null_counts, num_words(e.size_bits));
}

// In place, one shot: descriptors in a staging lease, released (marked) once the launch is enqueued.
template <class ExecSpace, class Op, class Sources, class Dests>
void inplace_call(const ExecSpace& exec, const Op& op, const segmented_problem<Sources, Dests>& p,
                  const Kokkos::View<size_type*, typename ExecSpace::memory_space>& null_counts) {
  const auto e = encode(exec, p, pool_stores<ExecSpace>{p.names.fn});
  launch_in_place(p.names.fn, exec, op, e, null_counts);
}

// The counter argument of an in-place call, for describe().
template <class View>
counter_arg counter_of(const char* name, const View& v) {
  return {name, static_cast<size_type>(v.extent(0)), v.data() == nullptr};
}

// In place into one destination, returning its null count (synchronous: inplace_binop, superimpose
// of one child): the count is written into the lease and read back from it, nothing allocated.
template <class ExecSpace, class Op, class Sources, class Dests>
size_type inplace_call_counted(const ExecSpace& exec, const Op& op, const segmented_problem<Sources, Dests>& p) {
  const auto e = encode(exec, p, pool_stores<ExecSpace>{p.names.fn});
  launch_in_place(p.names.fn, exec, op, e, e.result());
  return e.read_result();
}

// Padded words of one mask row of `size_bits` bits, as create_mask() allocates.
inline size_type padded_words(size_type size_bits) {
  return allocation_size_bytes(size_bits) / static_cast<size_type>(sizeof(word_type));
}

template <class MemorySpace>
struct allocated_rows {
  Kokkos::View<word_type**, Kokkos::LayoutRight, MemorySpace> masks;
  Kokkos::View<size_type*, MemorySpace> null_counts;
};

// Into rows it allocates (segmented_binop): the sources cannot alias them, so nothing is staged.
template <class ExecSpace, class Op, class Sources>
allocated_rows<typename ExecSpace::memory_space> allocating_call(const ExecSpace& exec, const Op& op,
                                                                 const segmented_problem<Sources, no_dests>& p) {
  using memory_space = typename ExecSpace::memory_space;
  const std::string fn(p.names.fn);
  const auto e              = encode(exec, p, pool_stores<ExecSpace>{p.names.fn});
  const size_type row_words = padded_words(p.size_bits);
  allocated_rows<memory_space> r{
      Kokkos::View<word_type**, Kokkos::LayoutRight, memory_space>(
          Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, fn + "::masks"), p.num_segments, row_words),
      Kokkos::View<size_type*, memory_space>(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, fn + "::null_counts"),
                                             p.num_segments)};
  // Rows are padded to 64 bytes; the kernel writes the padding words as 0 so no row carries garbage.
  launch(p.names.fn, exec, op, e, strided_destinations{r.masks.data(), row_words}, r.null_counts, row_words);
  return r;
}

// One segment into a new padded mask labelled "<fn>::mask" (binop, copy_bitmask); the null count
// is left in the lease and read back only when `want_count`.
template <class ExecSpace, class Op, class Sources>
std::pair<Kokkos::View<word_type*, typename ExecSpace::memory_space>, size_type> new_mask_call(
    const ExecSpace& exec, const Op& op, const segmented_problem<Sources, no_dests>& p, bool want_count) {
  using memory_space = typename ExecSpace::memory_space;
  const auto e       = encode(exec, p, pool_stores<ExecSpace>{p.names.fn});
  const Kokkos::View<word_type*, memory_space> mask(
      Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, std::string(p.names.fn) + "::mask"),
      padded_words(p.size_bits));
  launch(p.names.fn, exec, op, e, strided_destinations{mask.data(), 0}, e.result(),
         static_cast<size_type>(mask.extent(0)));
  return {mask, want_count ? e.read_result() : 0};
}

// The parent is `base` read from its bit `begin_bit` on.
template <class ExecSpace, class Children>
void superimpose_call(const ExecSpace& exec, const arg_names& names, const source_mask& base, size_type begin_bit,
                      const Children& children, size_type size_bits,
                      const Kokkos::View<size_type*, typename ExecSpace::memory_space>& child_null_counts) {
  std::vector<size_type> offsets(children.size() + 1);
  for (std::size_t c = 0; c < offsets.size(); ++c) offsets[c] = static_cast<size_type>(2 * c);
  // Summed without overflow; used only once check_bit_span() below has accepted both.
  const source_mask parent{base.words, base.extent_words,
                           static_cast<size_type>(static_cast<std::uint64_t>(base.begin_bit) +
                                                  static_cast<std::uint64_t>(begin_bit)),
                           base.invert};
  const counter_arg counts = counter_of("child_null_counts", child_null_counts);
  const auto p =
      describe(names, superimpose_sources<Children>{parent, children}, children, size_bits, offsets, &counts);
  check_bit_span(names.fn, "parent", base, begin_bit, size_bits);
  inplace_call(exec, bit_and{}, p, child_null_counts);
}

// A plan's descriptors, in memory the plan owns; absent sources' ones are filled once here.
template <class ExecSpace, class Sources, class Dests>
encoded_call<ExecSpace, owned_words<ExecSpace>> plan_encode(const ExecSpace& exec,
                                                            const segmented_problem<Sources, Dests>& p) {
  auto e = encode(exec, p, owned_stores<ExecSpace>{p.names.fn});
  e.words.forget_instance();
  if (e.scratch) e.scratch->forget_instance();
  return e;
}

// What tools and benchmarks may read of a plan (the warp-per-segment baseline launches its own
// kernel on the plan's descriptors).
struct plan_access {
  template <class Plan>
  static const auto& descriptors(const Plan& plan) {
    return plan.e_;
  }
};

}  // namespace detail
}  // namespace kmask

#endif
