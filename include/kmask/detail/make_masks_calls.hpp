#ifndef KMASK_DETAIL_MAKE_MASKS_CALLS_HPP
#define KMASK_DETAIL_MAKE_MASKS_CALLS_HPP

// The calls behind make_masks.hpp: checks, then the launches of make_masks_kernels.hpp, into a new
// padded mask (counts read back through a staging lease) or into the caller's destination.
// Included by make_masks.hpp after it defines gather_policy.

#include <kmask/detail/allocate_mask.hpp>
#include <kmask/detail/make_masks_kernels.hpp>
#include <kmask/detail/make_masks_validation.hpp>
#include <kmask/detail/mask_lists.hpp>
#include <kmask/detail/staging_pool.hpp>
#include <kmask/detail/validation.hpp>
#include <kmask/types.hpp>

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

namespace kmask {

namespace detail {

template <class MemorySpace>
using mask_and_count = std::pair<Kokkos::View<word_type*, MemorySpace>, size_type>;

// Rank-1 views of std::int32_t or std::int64_t: gather indices.
template <class V, class = void>
struct is_index_view : std::false_type {};
template <class V>
struct is_index_view<V, std::enable_if_t<Kokkos::is_view<V>::value>>
    : std::integral_constant<bool, V::rank == 1 &&
                                       (std::is_same<typename V::non_const_value_type, std::int32_t>::value ||
                                        std::is_same<typename V::non_const_value_type, std::int64_t>::value)> {};

template <class View>
void check_counter(const char* fn, const View& null_count) {
  check_counter_extent(fn, "null_count", static_cast<size_type>(null_count.extent(0)), 1, null_count.data() == nullptr);
}

// Into a new padded mask of `size_bits` bits labelled "<fn>::mask": the null count and (reporting
// gathers) the first bad position come back through a staging lease. Synchronous.
template <class ExecSpace, class Bits>
mask_and_count<typename ExecSpace::memory_space> build_new_mask(const char* fn, const ExecSpace& exec,
                                                                const Bits& bits, size_type size_bits,
                                                                size_type* first_bad = nullptr) {
  const std::string label = std::string(fn) + "::mask";
  auto mask               = allocate_mask(exec, size_bits, mask_state::uninitialized, label);
  const auto lease        = staging_pool<ExecSpace>::acquire(exec, 2, 2, std::string(fn) + "::counts");
  // The first bad position is an atomic minimum: device memory, preset and copied back.
  size_type* bad_word = reinterpret_cast<size_type*>(lease.device() + 1);
  if (Bits::reports_bad) {
    lease.host()[1] = static_cast<std::uint64_t>(no_bad_position);
    lease.upload(1, 2);
  }
  enqueue_build(fn, exec, bits, mask.data(), size_bits, static_cast<size_type>(mask.extent(0)),
                reinterpret_cast<size_type*>(lease.result_word(0)), bad_word);
  if (Bits::reports_bad) lease.download(1, 2);
  const auto nulls = static_cast<size_type>(lease.read_result(0));
  if (first_bad != nullptr) *first_bad = static_cast<size_type>(lease.host()[1]);
  return {mask, nulls};
}

// Into the caller's `dest` (num_words(size_bits) words), the count into null_count(0). Asynchronous.
template <class ExecSpace, class Bits>
void build_in_place(const char* fn, const ExecSpace& exec, const Bits& bits, const dest_mask& dest,
                    size_type size_bits, const Kokkos::View<size_type*, typename ExecSpace::memory_space>& null_count) {
  enqueue_build(fn, exec, bits, dest.words, size_bits, num_words(size_bits), null_count.data(), nullptr);
}

template <class ExecSpace, class Pred>
mask_and_count<typename ExecSpace::memory_space> valid_if_call(const char* fn, const ExecSpace& exec,
                                                               size_type size_bits, const Pred& pred) {
  check_size_bits(fn, size_bits);
  mask_and_count<typename ExecSpace::memory_space> r;
  with_predicate_bits(pred, size_bits, [&](const auto& bits) { r = build_new_mask(fn, exec, bits, size_bits); });
  return r;
}

template <class ExecSpace, class Pred>
void inplace_valid_if_call(const char* fn, const ExecSpace& exec, const dest_mask& dest, size_type size_bits,
                           const Pred& pred,
                           const Kokkos::View<size_type*, typename ExecSpace::memory_space>& null_count) {
  check_size_bits(fn, size_bits);
  check_single_dest(fn, "dest", dest, "size_bits", size_bits);
  check_counter(fn, null_count);
  with_predicate_bits(pred, size_bits,
                      [&](const auto& bits) { build_in_place(fn, exec, bits, dest, size_bits, null_count); });
}

template <class ExecSpace, class T>
mask_and_count<typename ExecSpace::memory_space> bools_to_mask_call(
    const char* fn, const ExecSpace& exec, const Kokkos::View<const T*, typename ExecSpace::memory_space>& values) {
  const size_type n = static_cast<size_type>(values.extent(0));
  check_input_array(fn, "values", n, values.data() == nullptr);
  mask_and_count<typename ExecSpace::memory_space> r;
  with_bool_bits<ExecSpace>(values.data(), n, [&](const auto& bits) { r = build_new_mask(fn, exec, bits, n); });
  return r;
}

template <class ExecSpace, class T>
void inplace_bools_to_mask_call(const char* fn, const ExecSpace& exec, const dest_mask& dest,
                                const Kokkos::View<const T*, typename ExecSpace::memory_space>& values,
                                const Kokkos::View<size_type*, typename ExecSpace::memory_space>& null_count) {
  const size_type n = static_cast<size_type>(values.extent(0));
  check_input_array(fn, "values", n, values.data() == nullptr);
  check_single_dest(fn, "dest", dest, "values.extent(0)", n);
  check_counter(fn, null_count);
  with_bool_bits<ExecSpace>(values.data(), n,
                            [&](const auto& bits) { build_in_place(fn, exec, bits, dest, n, null_count); });
}

// Bits [begin_bit, end_bit) of `mask` into out[0, end_bit - begin_bit), `out` checked.
template <class ExecSpace>
void mask_to_bools_into(const char* fn, const ExecSpace& exec, bool* out, const source_mask& mask,
                        size_type begin_bit, size_type end_bit) {
  const bool present = mask.words != nullptr;
  enqueue_mask_to_bools(fn, exec, out, present ? mask.words : nullptr, present ? mask.begin_bit + begin_bit : 0,
                        end_bit - begin_bit, mask.invert);
}

template <class ExecSpace>
Kokkos::View<bool*, typename ExecSpace::memory_space> mask_to_bools_call(const char* fn, const ExecSpace& exec,
                                                                         const source_mask& mask, size_type begin_bit,
                                                                         size_type end_bit) {
  check_bit_range(fn, "mask", mask, begin_bit, end_bit);
  Kokkos::View<bool*, typename ExecSpace::memory_space> out(
      Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, std::string(fn) + "::bools"), end_bit - begin_bit);
  mask_to_bools_into(fn, exec, out.data(), mask, begin_bit, end_bit);
  return out;
}

template <class ExecSpace>
void inplace_mask_to_bools_call(const char* fn, const ExecSpace& exec,
                                const Kokkos::View<bool*, typename ExecSpace::memory_space>& out,
                                const source_mask& mask, size_type begin_bit, size_type end_bit) {
  check_bit_range(fn, "mask", mask, begin_bit, end_bit);
  check_bool_output(fn, "out", static_cast<size_type>(out.extent(0)), out.data() == nullptr, end_bit - begin_bit);
  mask_to_bools_into(fn, exec, out.data(), mask, begin_bit, end_bit);
}

// The gather's checks common to both forms; returns the absolute bit of source bit 0.
template <class Indices>
size_type check_gather(const char* fn, const source_mask& mask, size_type begin_bit, size_type size_bits,
                       const Indices& indices, gather_policy policy, bool in_place) {
  check_gather_policy(fn, static_cast<int>(policy), in_place);
  check_size_bits(fn, size_bits);
  const bool present = check_bit_span(fn, "mask", mask, begin_bit, size_bits);
  check_input_array(fn, "indices", static_cast<size_type>(indices.extent(0)), indices.data() == nullptr);
  return present ? mask.begin_bit + begin_bit : 0;
}

// Calls `f(bits)` with the gathered_bits of `policy` (`check` reporting unless `in_place`).
template <class Index, class F>
void with_gather_bits(const source_mask& mask, size_type base, size_type size_bits, const Index* indices,
                      gather_policy policy, const F& f) {
  const word_type* m    = mask.words;
  const word_type flip = mask.invert ? 1u : 0u;
  switch (policy) {
    case gather_policy::check: f(gathered_bits<Index, true, true>{m, base, size_bits, indices, flip}); break;
    case gather_policy::nullify: f(gathered_bits<Index, true, false>{m, base, size_bits, indices, flip}); break;
    default: f(gathered_bits<Index, false, false>{m, base, size_bits, indices, flip}); break;
  }
}

template <class ExecSpace, class Indices>
mask_and_count<typename ExecSpace::memory_space> gather_bits_call(const char* fn, const ExecSpace& exec,
                                                                  const source_mask& mask, size_type begin_bit,
                                                                  size_type size_bits, const Indices& indices,
                                                                  gather_policy policy) {
  using memory_space = typename ExecSpace::memory_space;
  using Index        = typename Indices::non_const_value_type;
  const Kokkos::View<const Index*, memory_space> idx = indices;
  const size_type base = check_gather(fn, mask, begin_bit, size_bits, idx, policy, false);
  const size_type n    = static_cast<size_type>(idx.extent(0));
  mask_and_count<memory_space> r;
  size_type first_bad = no_bad_position;
  with_gather_bits(mask, base, size_bits, idx.data(), policy, [&](const auto& bits) {
    r = build_new_mask(fn, exec, bits, n, policy == gather_policy::check ? &first_bad : nullptr);
  });
  if (first_bad != no_bad_position) {
    // Only the offending index comes back; the result is dropped.
    Kokkos::View<Index, Kokkos::HostSpace> value(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(fn) + "::bad_index"));
    Kokkos::deep_copy(value, Kokkos::subview(idx, first_bad));
    report_gather_index(fn, first_bad, static_cast<size_type>(value()), size_bits);
  }
  return r;
}

template <class ExecSpace, class Indices>
void inplace_gather_bits_call(const char* fn, const ExecSpace& exec, const dest_mask& dest, const source_mask& mask,
                              size_type begin_bit, size_type size_bits, const Indices& indices, gather_policy policy,
                              const Kokkos::View<size_type*, typename ExecSpace::memory_space>& null_count) {
  using memory_space = typename ExecSpace::memory_space;
  using Index        = typename Indices::non_const_value_type;
  const Kokkos::View<const Index*, memory_space> idx = indices;
  const size_type base = check_gather(fn, mask, begin_bit, size_bits, idx, policy, true);
  const size_type n    = static_cast<size_type>(idx.extent(0));
  check_single_dest(fn, "dest", dest, "indices.extent(0)", n);
  check_counter(fn, null_count);
  check_gather_overlap(fn, dest, mask, begin_bit, size_bits);
  with_gather_bits(mask, base, size_bits, idx.data(), policy,
                   [&](const auto& bits) { build_in_place(fn, exec, bits, dest, n, null_count); });
}

}  // namespace detail
}  // namespace kmask

#endif
