#ifndef KMASK_BINOP_HPP
#define KMASK_BINOP_HPP

/// \file binop.hpp
/// \brief One combination of several masks (binop, inplace_binop) and superimposing a parent's
/// nulls onto its children (superimpose_nulls): thin forms of the segmented binop.

#include <kmask/create_mask.hpp>
#include <kmask/segmented_binop.hpp>

#include <string>
#include <utility>
#include <vector>

namespace kmask {

namespace detail {
template <class ExecSpace>
size_type read_count(const ExecSpace& exec, const Kokkos::View<size_type*, typename ExecSpace::memory_space>& c) {
  size_type host = 0;
  Kokkos::View<size_type, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> out(&host);
  Kokkos::deep_copy(exec, out, Kokkos::subview(c, 0));
  exec.fence();
  return host;
}

// Sources `masks` (one segment) combined with `op` into a new mask of `size_bits` bits, labelled
// "<fn>::mask", and its null count on the device ("<fn>::null_count"). The sources are described
// into the reusable staging buffers, as segmented_binop() does (no descriptor allocation, one
// asynchronous upload), which are released once the kernel that reads them is enqueued.
template <class ExecSpace, class Op, class SourceView>
std::pair<Kokkos::View<word_type*, typename ExecSpace::memory_space>,
          Kokkos::View<size_type*, typename ExecSpace::memory_space>>
combine_into_new_mask(const char* fn, const ExecSpace& exec, const Op& op, const std::vector<SourceView>& masks,
                      const std::vector<size_type>& begin_bits, size_type size_bits) {
  using memory_space = typename ExecSpace::memory_space;
  const std::string prefix(fn);
  const auto d    = stage_descriptors(fn, exec, masks, begin_bits, size_bits, {0, static_cast<size_type>(masks.size())});
  const auto mask = allocate_mask(exec, size_bits, mask_state::uninitialized, prefix + "::mask");
  const Kokkos::View<size_type*, memory_space> count(
      Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, prefix + "::null_count"), 1);
  segmented_args_for<ExecSpace, Op, strided_destinations> a{
      op,    d.offsets, d.sources, strided_destinations{mask.data(), 0}, count, 1, size_bits,
      num_words(size_bits), static_cast<size_type>(mask.extent(0)), d.count_scratch};
  launch_segmented_binop(fn, exec, a);
  return {mask, count};
}

}  // namespace detail

/// \brief Combines `masks` (each from its `begin_bits`) with `op` into a new mask of `size_bits` bits.
///
/// Returns the new mask (a padded allocation, as create_mask() makes; padding words zero) and its
/// null count. Synchronous: the count is copied to the host. No source can alias the new mask.
/// Like segmented_binop(), it describes the sources into shared staging buffers: calls from several
/// host threads queue on them.
/// \throws std::invalid_argument / std::out_of_range as segmented_binop() for the sources.
template <class ExecSpace, class Op, class SourceView>
std::pair<Kokkos::View<word_type*, typename ExecSpace::memory_space>, size_type> binop(
    const ExecSpace& exec, const Op& op, const std::vector<SourceView>& masks, const std::vector<size_type>& begin_bits,
    size_type size_bits) {
  constexpr const char* fn = "kmask::binop";
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "kmask::binop: the first argument must be a Kokkos execution space");
  static_assert(is_word_operator_v<Op>,
                "kmask::binop: op needs word_type operator()(word_type, word_type) and identity()");
  KMASK_CHECK_MASK_VIEW("kmask::binop", SourceView, ExecSpace, "masks");
  detail::scoped_region region(fn);
  const auto made = detail::combine_into_new_mask(fn, exec, op, masks, begin_bits, size_bits);
  return {made.first, detail::read_count(exec, made.second)};
}

/// binop() on the default execution space.
template <class Op, class SourceView>
std::pair<Kokkos::View<word_type*, Kokkos::DefaultExecutionSpace::memory_space>, size_type> binop(
    const Op& op, const std::vector<SourceView>& masks, const std::vector<size_type>& begin_bits, size_type size_bits) {
  return binop(Kokkos::DefaultExecutionSpace{}, op, masks, begin_bits, size_bits);
}

/// \brief Combines `masks` with `op` into `destination` (num_words(size_bits) words written) and
/// returns its null count.
///
/// `destination` may be one of the sources read from bit 0 without a copy; any other overlap is
/// staged. Synchronous (the count comes back to the host).
/// \throws as inplace_segmented_binop().
template <class ExecSpace, class Op, class DestView, class SourceView>
size_type inplace_binop(const ExecSpace& exec, const Op& op, const DestView& destination,
                        const std::vector<SourceView>& masks, const std::vector<size_type>& begin_bits,
                        size_type size_bits) {
  constexpr const char* fn = "kmask::inplace_binop";
  using memory_space       = typename ExecSpace::memory_space;
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "kmask::inplace_binop: the first argument must be a Kokkos execution space");
  static_assert(is_word_operator_v<Op>,
                "kmask::inplace_binop: op needs word_type operator()(word_type, word_type) and identity()");
  detail::scoped_region region(fn);
  const std::vector<DestView> destinations{destination};
  const std::vector<size_type> one_segment{0, static_cast<size_type>(masks.size())};
  const segmented_binop_plan<ExecSpace> plan(fn, exec, destinations, masks, begin_bits, size_bits, one_segment);
  Kokkos::View<size_type*, memory_space> count(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing,
                                                                  "kmask::inplace_binop::null_count"),
                                               1);
  plan.run(fn, exec, op, count);
  return detail::read_count(exec, count);
}

/// inplace_binop() on the default execution space.
template <class Op, class DestView, class SourceView>
size_type inplace_binop(const Op& op, const DestView& destination, const std::vector<SourceView>& masks,
                        const std::vector<size_type>& begin_bits, size_type size_bits) {
  return inplace_binop(Kokkos::DefaultExecutionSpace{}, op, destination, masks, begin_bits, size_bits);
}

/// \brief ANDs a parent's validity into each child in place: child bit `i` &= parent bit
/// `parent_begin_bit + i`, for `i` in [0, size_bits); `child_null_counts(c)` gets child `c`'s new
/// null count.
///
/// The nested-column operation (a struct child is null wherever its parent is): one segmented
/// launch with segment `c` = {parent, children[c]} written into children[c]. Children are read and
/// written in place (no copy); a parent that overlaps a child is staged first. Asynchronous.
/// \throws std::invalid_argument / std::out_of_range naming `parent`, `children[c]` or
///         `child_null_counts`, as inplace_segmented_binop() does for its arguments.
template <class ExecSpace, class ParentView, class ChildView>
void superimpose_nulls(const ExecSpace& exec, const ParentView& parent, size_type parent_begin_bit,
                       const std::vector<ChildView>& children, size_type size_bits,
                       const Kokkos::View<size_type*, typename ExecSpace::memory_space>& child_null_counts) {
  constexpr const char* fn = "kmask::superimpose_nulls";
  using memory_space       = typename ExecSpace::memory_space;
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "kmask::superimpose_nulls: the first argument must be a Kokkos execution space");
  KMASK_CHECK_MASK_VIEW("kmask::superimpose_nulls", ParentView, ExecSpace, "parent");
  detail::scoped_region region(fn);
  detail::check_size_bits(fn, size_bits);
  detail::check_begin_bit(fn, "parent", parent_begin_bit);  // before the sum below can overflow
  detail::check_bit_range(fn, "parent", detail::extent_of(parent), parent_begin_bit, parent_begin_bit + size_bits);
  const size_type n = static_cast<size_type>(children.size());
  detail::check_destinations(fn, detail::extents_of(children), n, size_bits, "children");
  detail::check_counter_extent(fn, "child_null_counts", static_cast<size_type>(child_null_counts.extent(0)), n,
                               child_null_counts.data() == nullptr);
  std::vector<Kokkos::View<const word_type*, memory_space>> masks;
  std::vector<size_type> begin_bits, offsets{0};
  masks.reserve(2 * children.size());
  for (const auto& child : children) {
    masks.push_back(parent);
    begin_bits.push_back(parent_begin_bit);
    masks.push_back(child);
    begin_bits.push_back(0);
    offsets.push_back(static_cast<size_type>(masks.size()));
  }
  const segmented_binop_plan<ExecSpace> plan(fn, exec, children, masks, begin_bits, size_bits, offsets);
  plan.run(fn, exec, bit_and{}, child_null_counts);
}

/// superimpose_nulls() on the default execution space.
template <class ParentView, class ChildView>
void superimpose_nulls(const ParentView& parent, size_type parent_begin_bit, const std::vector<ChildView>& children,
                       size_type size_bits,
                       const Kokkos::View<size_type*, Kokkos::DefaultExecutionSpace::memory_space>& child_null_counts) {
  superimpose_nulls(Kokkos::DefaultExecutionSpace{}, parent, parent_begin_bit, children, size_bits, child_null_counts);
}

}  // namespace kmask

#endif
