#ifndef KMASK_SEGMENTED_BINOP_HPP
#define KMASK_SEGMENTED_BINOP_HPP

/// \file segmented_binop.hpp
/// \brief Combining many source masks into many destinations in one launch, with null counts.
///
/// A *segment* `s` combines sources `masks[segment_offsets[s]] .. masks[segment_offsets[s+1] - 1]`
/// word by word with an associative operator `op` (bit_and, bit_or, bit_xor or any type with the
/// same shape, see operators.hpp). Source `j` is read from bit `begin_bits[j]` (or, given as a
/// source_mask, from its `begin_bit`); every destination starts at bit 0, holds `size_bits` bits,
/// has the bits of its last word past `size_bits` written as 0, and words past
/// num_words(size_bits) untouched. An empty segment yields `op.identity()` (AND: all valid; OR,
/// XOR: all null). A segment's null count is the number of unset bits in [0, size_bits).
///
/// **Absent masks.** A source that is a null view, or a source_mask with `words == nullptr` and
/// `extent_words == 0`, reads as all valid (cudf's convention for a column without a null mask).
///
/// **Negated sources.** A source_mask with `invert` set (kmask::inverted()) is read complemented,
/// in every form here and in the plan: AND-NOT is bit_and over {a, inverted(b)}. Bits past
/// `size_bits` are cleared and uncounted as for any source; an inverted absent source is all null.
///
/// **Aliasing.** A destination may be a source of its own segment read from bit 0 (superimposing
/// nulls in place): no copy is made. Any other overlap between a destination and a source is
/// detected on the host and the source is staged through a temporary first, so the result is
/// always the one defined by the sources' contents before the call. Two destinations that share a
/// word are refused.
///
/// **Errors.** Every argument is validated on the host before any device work; a rejected call
/// throws std::invalid_argument (std::out_of_range for a range past a mask's extent) with a message
/// that starts with the function's name and names the argument and index, and writes nothing.
///
/// **Threads.** Any of these calls may run from several host threads at once, each on its own
/// execution space instance; nothing of a call is kept past it (README: thread safety).

#include <kmask/detail/segmented_calls.hpp>
#include <kmask/operators.hpp>
#include <kmask/types.hpp>

#include <vector>

namespace kmask {

/// The result of segmented_binop(): one mask per segment, all in one allocation.
template <class MemorySpace>
struct segmented_result {
  /// Row `s` is segment `s`'s mask; rows are padded to 64 bytes (extent(1) words each).
  Kokkos::View<word_type**, Kokkos::LayoutRight, MemorySpace> masks;
  /// `null_counts(s)` is the number of unset bits in row `s`'s [0, size_bits).
  Kokkos::View<size_type*, MemorySpace> null_counts;
};

/// \brief A validated, uploaded segmented binop that can run many times.
///
/// Construction does what inplace_segmented_binop() does before it launches: validates every
/// argument (same exceptions), analyses aliasing, and uploads the segment, source and destination
/// descriptors into memory the plan owns. execute() then only launches kernels, so repeated runs
/// over the same masks pay no host work. View arguments are kept alive by the plan; raw
/// source_mask / dest_mask memory must outlive it. The plan reads the masks' contents at each
/// execute(), not at construction. A plan keeps none of the caller's execution space instances.
template <class ExecSpace = Kokkos::DefaultExecutionSpace>
class segmented_binop_plan {
 public:
  /// The execution space the plan launches on.
  using execution_space = ExecSpace;
  /// `ExecSpace`'s memory space: where the descriptors, the masks and the null counts live.
  using memory_space = typename ExecSpace::memory_space;

  /// \brief Validates and uploads a segmented binop over `destinations` and `masks`.
  ///
  /// The arguments mean what they mean for inplace_segmented_binop(). Uploads are enqueued on `exec`.
  /// \throws std::invalid_argument / std::out_of_range as inplace_segmented_binop() does (the
  ///         messages start with "kmask::segmented_binop_plan").
  template <class DestView, class SourceView>
  segmented_binop_plan(const ExecSpace& exec, const std::vector<DestView>& destinations,
                       const std::vector<SourceView>& masks, const std::vector<size_type>& begin_bits,
                       size_type size_bits, const std::vector<size_type>& segment_offsets)
      : e_(build(exec, destinations, masks, begin_bits, size_bits, segment_offsets)),
        keep_destinations_(destinations.begin(), destinations.end()),
        keep_sources_(masks.begin(), masks.end()) {}

  /// The same over raw destinations and sources (source `j` read from `masks[j].begin_bit`).
  segmented_binop_plan(const ExecSpace& exec, const std::vector<dest_mask>& destinations,
                       const std::vector<source_mask>& masks, size_type size_bits,
                       const std::vector<size_type>& segment_offsets)
      : e_(build(exec, destinations, masks, size_bits, segment_offsets)) {}

  /// Runs the binop with `op`, writing every destination and `null_counts[0, num_segments())`.
  /// Asynchronous on `exec`. Runs of one plan must not overlap in time: they share the plan's
  /// per-segment count scratch (and its staging copies), so enqueue them on one execution space
  /// instance, or fence between runs on different ones, as the destinations they all write
  /// require anyway.
  /// \throws std::out_of_range if `null_counts` is shorter than num_segments().
  template <class Op>
  void execute(const ExecSpace& exec, const Op& op, const Kokkos::View<size_type*, memory_space>& null_counts) const {
    static_assert(is_word_operator_v<Op>,
                  "kmask::segmented_binop_plan::execute: op needs word_type operator()(word_type, word_type) and "
                  "identity()");
    constexpr const char* fn = "kmask::segmented_binop_plan::execute";
    detail::scoped_region region(fn);
    detail::check_counter_extent(fn, "null_counts", static_cast<size_type>(null_counts.extent(0)), e_.num_segments,
                                 null_counts.data() == nullptr);
    detail::launch_in_place(fn, exec, op, e_, null_counts);
  }

  /// Number of segments, hence of destinations and of null counts execute() writes.
  size_type num_segments() const { return e_.num_segments; }
  /// Bits every destination receives.
  size_type size_bits() const { return e_.size_bits; }
  /// Sources copied to a temporary at each run because a destination overlaps them.
  size_type num_staged_sources() const { return e_.num_staged; }

 private:
  friend struct detail::plan_access;
  using encoded = detail::encoded_call<ExecSpace, detail::owned_words<ExecSpace>>;

  template <class DestView, class SourceView>
  static encoded build(const ExecSpace& exec, const std::vector<DestView>& destinations,
                       const std::vector<SourceView>& masks, const std::vector<size_type>& begin_bits,
                       size_type size_bits, const std::vector<size_type>& segment_offsets) {
    constexpr const char* fn = "kmask::segmented_binop_plan";
    static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                  "kmask::segmented_binop_plan: ExecSpace must be a Kokkos execution space");
    KMASK_CHECK_MASK_VIEW("kmask::segmented_binop_plan", DestView, ExecSpace, "destinations");
    KMASK_CHECK_MASK_VIEW("kmask::segmented_binop_plan", SourceView, ExecSpace, "masks");
    static_assert(!std::is_const<typename DestView::value_type>::value,
                  "kmask::segmented_binop_plan: destinations must be writable views");
    detail::scoped_region region(fn);
    detail::check_same_size(fn, masks.size(), begin_bits.size());
    return detail::plan_encode(exec, detail::describe(detail::arg_names{fn},
                                                      detail::view_sources<SourceView>{masks.data(), begin_bits.data(),
                                                                                       masks.size()},
                                                      detail::view_dests<DestView>{destinations.data(),
                                                                                   destinations.size()},
                                                      size_bits, segment_offsets));
  }
  static encoded build(const ExecSpace& exec, const std::vector<dest_mask>& destinations,
                       const std::vector<source_mask>& masks, size_type size_bits,
                       const std::vector<size_type>& segment_offsets) {
    constexpr const char* fn = "kmask::segmented_binop_plan";
    detail::scoped_region region(fn);
    detail::arg_names names{fn};
    names.pointers = true;
    return detail::plan_encode(exec, detail::describe(names, detail::pointer_sources{masks.data(), masks.size()},
                                                      detail::pointer_dests{destinations.data(), destinations.size()},
                                                      size_bits, segment_offsets));
  }

  encoded e_;
  std::vector<Kokkos::View<const word_type*, memory_space>> keep_destinations_;
  std::vector<Kokkos::View<const word_type*, memory_space>> keep_sources_;
};

/// \brief Combines each segment's sources into its destination, in place; null counts stay on the device.
///
/// Segment `s` writes `destinations[s]` (at least num_words(size_bits) words) and
/// `null_counts(s)`. Asynchronous: enqueued on `exec`, no host synchronisation; the results are
/// valid after `exec.fence()`. See the file comment for layout, absent masks, aliasing and errors.
/// \throws std::invalid_argument for mismatched sizes, negative bits, null destinations, bad
///         offsets, `destinations.size()` != number of segments, or two destinations sharing a word.
/// \throws std::out_of_range for a source range past its view, a destination or `null_counts`
///         too short, or an offset outside [0, masks.size()].
template <class ExecSpace, class Op, class DestView, class SourceView>
void inplace_segmented_binop(const ExecSpace& exec, const Op& op, const std::vector<DestView>& destinations,
                             const std::vector<SourceView>& masks, const std::vector<size_type>& begin_bits,
                             size_type size_bits, const std::vector<size_type>& segment_offsets,
                             const Kokkos::View<size_type*, typename ExecSpace::memory_space>& null_counts) {
  constexpr const char* fn = "kmask::inplace_segmented_binop";
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "kmask::inplace_segmented_binop: the first argument must be a Kokkos execution space");
  static_assert(is_word_operator_v<Op>,
                "kmask::inplace_segmented_binop: op needs word_type operator()(word_type, word_type) and identity()");
  KMASK_CHECK_MASK_VIEW("kmask::inplace_segmented_binop", DestView, ExecSpace, "destinations");
  KMASK_CHECK_MASK_VIEW("kmask::inplace_segmented_binop", SourceView, ExecSpace, "masks");
  detail::scoped_region region(fn);
  detail::check_same_size(fn, masks.size(), begin_bits.size());
  const detail::counter_arg counts = detail::counter_of("null_counts", null_counts);
  detail::inplace_call(exec, op,
                       detail::describe(detail::arg_names{fn},
                                        detail::view_sources<SourceView>{masks.data(), begin_bits.data(), masks.size()},
                                        detail::view_dests<DestView>{destinations.data(), destinations.size()},
                                        size_bits, segment_offsets, &counts),
                       null_counts);
}

/// inplace_segmented_binop() over raw destinations and sources (source `j` read from
/// `masks[j].begin_bit`); the same contract and errors, naming `masks[j].begin_bit`.
template <class ExecSpace, class Op>
void inplace_segmented_binop(const ExecSpace& exec, const Op& op, const std::vector<dest_mask>& destinations,
                             const std::vector<source_mask>& masks, size_type size_bits,
                             const std::vector<size_type>& segment_offsets,
                             const Kokkos::View<size_type*, typename ExecSpace::memory_space>& null_counts) {
  constexpr const char* fn = "kmask::inplace_segmented_binop";
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "kmask::inplace_segmented_binop: the first argument must be a Kokkos execution space");
  static_assert(is_word_operator_v<Op>,
                "kmask::inplace_segmented_binop: op needs word_type operator()(word_type, word_type) and identity()");
  detail::scoped_region region(fn);
  detail::arg_names names{fn};
  names.pointers                   = true;
  const detail::counter_arg counts = detail::counter_of("null_counts", null_counts);
  detail::inplace_call(exec, op,
                       detail::describe(names, detail::pointer_sources{masks.data(), masks.size()},
                                        detail::pointer_dests{destinations.data(), destinations.size()}, size_bits,
                                        segment_offsets, &counts),
                       null_counts);
}

/// inplace_segmented_binop() with a prepared plan: launches only.
template <class ExecSpace, class Op>
void inplace_segmented_binop(const ExecSpace& exec, const Op& op, const segmented_binop_plan<ExecSpace>& plan,
                             const Kokkos::View<size_type*, typename ExecSpace::memory_space>& null_counts) {
  detail::scoped_region region("kmask::inplace_segmented_binop");
  plan.execute(exec, op, null_counts);
}

/// inplace_segmented_binop() on the execution space of the views' memory space
/// (`MemorySpace::execution_space`: a HostSpace view runs on the default host space).
template <class Op, class DestView, class SourceView,
          class = std::enable_if_t<Kokkos::is_view<DestView>::value && Kokkos::is_view<SourceView>::value>>
void inplace_segmented_binop(
    const Op& op, const std::vector<DestView>& destinations, const std::vector<SourceView>& masks,
    const std::vector<size_type>& begin_bits, size_type size_bits, const std::vector<size_type>& segment_offsets,
    const Kokkos::View<size_type*, typename detail::space_of<DestView>::memory_space>& null_counts) {
  inplace_segmented_binop(detail::space_of<DestView>{}, op, destinations, masks, begin_bits, size_bits,
                          segment_offsets, null_counts);
}

/// \brief Combines each segment's sources into a new mask per segment, all rows of one allocation.
///
/// Returns `segmented_result` with `masks` of extent (number of segments) x (padded words) and
/// `null_counts`. Asynchronous: valid after `exec.fence()`. The sources cannot alias the fresh
/// result, so no staging is ever needed. Same errors as inplace_segmented_binop() for the sources
/// and offsets. The host validates and describes every source before the launch, from 4096
/// sources on with the threads of the default host execution space where the calling thread may
/// use them (see README: thread safety), and a device's descriptors are uploaded in chunks while
/// later sources are still being described.
template <class ExecSpace, class Op, class SourceView>
segmented_result<typename ExecSpace::memory_space> segmented_binop(const ExecSpace& exec, const Op& op,
                                                                   const std::vector<SourceView>& masks,
                                                                   const std::vector<size_type>& begin_bits,
                                                                   size_type size_bits,
                                                                   const std::vector<size_type>& segment_offsets) {
  constexpr const char* fn = "kmask::segmented_binop";
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "kmask::segmented_binop: the first argument must be a Kokkos execution space");
  static_assert(is_word_operator_v<Op>,
                "kmask::segmented_binop: op needs word_type operator()(word_type, word_type) and identity()");
  KMASK_CHECK_MASK_VIEW("kmask::segmented_binop", SourceView, ExecSpace, "masks");
  detail::scoped_region region(fn);
  detail::check_same_size(fn, masks.size(), begin_bits.size());
  const auto r = detail::allocating_call(
      exec, op,
      detail::describe(detail::arg_names{fn},
                       detail::view_sources<SourceView>{masks.data(), begin_bits.data(), masks.size()},
                       detail::no_dests{}, size_bits, segment_offsets));
  return {r.masks, r.null_counts};
}

/// segmented_binop() over raw sources (source `j` read from `masks[j].begin_bit`).
template <class ExecSpace, class Op, class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
segmented_result<typename ExecSpace::memory_space> segmented_binop(const ExecSpace& exec, const Op& op,
                                                                   const std::vector<source_mask>& masks,
                                                                   size_type size_bits,
                                                                   const std::vector<size_type>& segment_offsets) {
  constexpr const char* fn = "kmask::segmented_binop";
  static_assert(is_word_operator_v<Op>,
                "kmask::segmented_binop: op needs word_type operator()(word_type, word_type) and identity()");
  detail::scoped_region region(fn);
  detail::arg_names names{fn};
  names.pointers = true;
  const auto r = detail::allocating_call(exec, op,
                                         detail::describe(names, detail::pointer_sources{masks.data(), masks.size()},
                                                          detail::no_dests{}, size_bits, segment_offsets));
  return {r.masks, r.null_counts};
}

/// segmented_binop() on the execution space of the views' memory space.
template <class Op, class SourceView, class = std::enable_if_t<Kokkos::is_view<SourceView>::value>>
segmented_result<typename detail::space_of<SourceView>::memory_space> segmented_binop(
    const Op& op, const std::vector<SourceView>& masks, const std::vector<size_type>& begin_bits, size_type size_bits,
    const std::vector<size_type>& segment_offsets) {
  return segmented_binop(detail::space_of<SourceView>{}, op, masks, begin_bits, size_bits, segment_offsets);
}

}  // namespace kmask

#endif
