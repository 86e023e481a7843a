#ifndef KMASK_SEGMENTED_BINOP_HPP
#define KMASK_SEGMENTED_BINOP_HPP

/// \file segmented_binop.hpp
/// \brief Combining many source masks into many destinations in one launch, with null counts.
///
/// A *segment* `s` combines sources `masks[segment_offsets[s]] .. masks[segment_offsets[s+1] - 1]`
/// word by word with an associative operator `op` (bit_and, bit_or, bit_xor or any type with the
/// same shape, see operators.hpp). Source `j` is read from bit `begin_bits[j]`; every destination
/// starts at bit 0, holds `size_bits` bits, has the bits of its last word past `size_bits` written
/// as 0, and words past num_words(size_bits) untouched. An empty segment yields `op.identity()`
/// (AND: all valid; OR, XOR: all null). A segment's null count is the number of unset bits in
/// [0, size_bits).
///
/// **Aliasing.** A destination may be a source of its own segment read from bit 0 (superimposing
/// nulls in place): no copy is made. Any other overlap between a destination and a source is
/// detected on the host and the source is staged through a temporary first, so the result is
/// always the one defined by the sources' contents before the call. Two destinations that share a
/// word are refused.
///
/// **Errors.** Every argument is validated on the host before any device work; a rejected call
/// throws std::invalid_argument (std::out_of_range for a range past a view's extent) with a message
/// that starts with the function's name and names the argument and index, and writes nothing.

#include <kmask/detail/compat.hpp>
#include <kmask/detail/host_checks.hpp>
#include <kmask/detail/segmented_descriptors.hpp>
#include <kmask/detail/segmented_kernels.hpp>
#include <kmask/operators.hpp>
#include <kmask/types.hpp>

#include <memory>
#include <string>
#include <utility>
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
/// descriptors to `ExecSpace`'s memory. execute() then only launches kernels, so repeated runs
/// over the same masks (or benchmarks) pay no host work. The plan keeps the views alive; it reads
/// the masks' contents at each execute(), not at construction.
template <class ExecSpace = Kokkos::DefaultExecutionSpace>
class segmented_binop_plan {
 public:
  /// The execution space the plan launches on.
  using execution_space = ExecSpace;
  /// `ExecSpace`'s memory space: where the descriptors, the masks and the null counts live.
  using memory_space    = typename ExecSpace::memory_space;

  /// \brief Validates and uploads a segmented binop over `destinations` and `masks`.
  ///
  /// The arguments mean what they mean for inplace_segmented_binop(); the views are kept alive by
  /// the plan. Uploads are enqueued on `exec`.
  /// \throws std::invalid_argument / std::out_of_range as inplace_segmented_binop() does (the
  ///         messages start with "kmask::segmented_binop_plan").
  template <class DestView, class SourceView>
  segmented_binop_plan(const ExecSpace& exec, const std::vector<DestView>& destinations,
                       const std::vector<SourceView>& masks, const std::vector<size_type>& begin_bits,
                       size_type size_bits, const std::vector<size_type>& segment_offsets)
      : segmented_binop_plan("kmask::segmented_binop_plan", exec, destinations, masks, begin_bits, size_bits,
                             segment_offsets, true) {}

  /// Runs the binop with `op`, writing every destination and `null_counts[0, num_segments())`.
  /// Asynchronous on `exec`. Runs of one plan must not overlap in time: they share the plan's
  /// per-segment count scratch, so enqueue them on one execution space instance (or fence between
  /// runs on different ones), as the destinations they all write require anyway.
  /// \throws std::out_of_range if `null_counts` is shorter than num_segments().
  template <class Op>
  void execute(const ExecSpace& exec, const Op& op, const Kokkos::View<size_type*, memory_space>& null_counts) const {
    static_assert(is_word_operator_v<Op>,
                  "kmask::segmented_binop_plan::execute: op needs word_type operator()(word_type, word_type) and "
                  "identity()");
    detail::check_counter_extent("kmask::segmented_binop_plan::execute", "null_counts",
                                 static_cast<size_type>(null_counts.extent(0)), d_.num_segments,
                                 null_counts.data() == nullptr);
    run("kmask::segmented_binop_plan::execute", exec, op, null_counts);
  }

  /// Number of segments, hence of destinations and of null counts execute() writes.
  size_type num_segments() const { return d_.num_segments; }
  /// Bits every destination receives.
  size_type size_bits() const { return d_.size_bits; }
  /// Sources copied to a temporary at each run because a destination overlaps them.
  size_type num_staged_sources() const { return d_.num_staged; }
  /// The uploaded descriptors (for benchmarks and tools that launch their own kernels on them).
  const detail::segmented_descriptors<ExecSpace>& descriptors() const { return d_; }

  /// \cond INTERNAL
  template <class DestView, class SourceView>
  segmented_binop_plan(const char* fn, const ExecSpace& exec, const std::vector<DestView>& destinations,
                       const std::vector<SourceView>& masks, const std::vector<size_type>& begin_bits,
                       size_type size_bits, const std::vector<size_type>& segment_offsets,
                       bool open_region = false)
      : d_([&] {
          // Called from a public function, the caller's region is open already.
          std::unique_ptr<detail::scoped_region> region;
          if (open_region) region = std::make_unique<detail::scoped_region>(fn);
          return detail::build_descriptors(fn, exec, destinations, masks, begin_bits, size_bits, segment_offsets);
        }()),
        keep_destinations_(destinations.begin(), destinations.end()),
        keep_sources_(masks.begin(), masks.end()) {
    static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                  "kmask::segmented_binop_plan: ExecSpace must be a Kokkos execution space");
    KMASK_CHECK_MASK_VIEW("kmask::segmented_binop_plan", DestView, ExecSpace, "destinations");
    KMASK_CHECK_MASK_VIEW("kmask::segmented_binop_plan", SourceView, ExecSpace, "masks");
    static_assert(!std::is_const<typename DestView::value_type>::value,
                  "kmask::segmented_binop_plan: destinations must be writable views");
  }

  // `fn` names the public call in messages (the launch can still refuse more teams than an int holds).
  template <class Op>
  void run(const char* fn, const ExecSpace& exec, const Op& op,
           const Kokkos::View<size_type*, memory_space>& null_counts) const {
    detail::stage_sources(exec, d_);
    detail::segmented_args_for<ExecSpace, Op, detail::pointer_destinations<memory_space>> a{
        op,          d_.offsets,     d_.sources, detail::pointer_destinations<memory_space>{d_.destinations},
        null_counts, d_.num_segments, d_.size_bits, num_words(d_.size_bits), num_words(d_.size_bits),
        d_.count_scratch};
    detail::launch_segmented_binop(fn, exec, a);
  }
  /// \endcond

 private:
  detail::segmented_descriptors<ExecSpace> d_;
  std::vector<Kokkos::View<const word_type*, memory_space>> keep_destinations_;
  std::vector<Kokkos::View<const word_type*, memory_space>> keep_sources_;
};

/// \brief Combines each segment's sources into its destination, in place; null counts stay on the device.
///
/// Segment `s` writes `destinations[s]` (at least num_words(size_bits) words) and
/// `null_counts(s)`. Asynchronous: enqueued on `exec`, no host synchronisation; the results are
/// valid after `exec.fence()`. See the file comment for layout, aliasing and errors.
/// \throws std::invalid_argument for mismatched sizes, negative bits, null views, bad offsets,
///         `destinations.size()` != number of segments, or two destinations sharing a word.
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
  detail::scoped_region region(fn);
  detail::check_segment_offsets(fn, segment_offsets, static_cast<size_type>(masks.size()));
  detail::check_counter_extent(fn, "null_counts", static_cast<size_type>(null_counts.extent(0)),
                               static_cast<size_type>(segment_offsets.size()) - 1, null_counts.data() == nullptr);
  const segmented_binop_plan<ExecSpace> plan(fn, exec, destinations, masks, begin_bits, size_bits, segment_offsets);
  plan.run(fn, exec, op, null_counts);
}

/// inplace_segmented_binop() with a prepared plan: launches only.
template <class ExecSpace, class Op>
void inplace_segmented_binop(const ExecSpace& exec, const Op& op, const segmented_binop_plan<ExecSpace>& plan,
                             const Kokkos::View<size_type*, typename ExecSpace::memory_space>& null_counts) {
  detail::scoped_region region("kmask::inplace_segmented_binop");
  plan.execute(exec, op, null_counts);
}

/// inplace_segmented_binop() on the default execution space.
template <class Op, class DestView, class SourceView>
void inplace_segmented_binop(const Op& op, const std::vector<DestView>& destinations,
                             const std::vector<SourceView>& masks, const std::vector<size_type>& begin_bits,
                             size_type size_bits, const std::vector<size_type>& segment_offsets,
                             const Kokkos::View<size_type*, Kokkos::DefaultExecutionSpace::memory_space>& null_counts) {
  inplace_segmented_binop(Kokkos::DefaultExecutionSpace{}, op, destinations, masks, begin_bits, size_bits,
                          segment_offsets, null_counts);
}

/// \brief Combines each segment's sources into a new mask per segment, all rows of one allocation.
///
/// Returns `segmented_result` with `masks` of extent (number of segments) x (padded words) and
/// `null_counts`. Asynchronous: valid after `exec.fence()`. The sources cannot alias the fresh
/// result, so no staging is ever needed. Same errors as inplace_segmented_binop() for the sources
/// and offsets. The host validates and describes every source before the launch: on `exec` itself
/// when it is a host space, otherwise on Kokkos::DefaultHostExecutionSpace (its threads share
/// the work from 4096 sources on), and a device's descriptors are uploaded in chunks while later
/// sources are still being described. So a GPU call uses the host space too: calls from several
/// host threads queue on the staging buffers, and the host space is shared with the caller's other
/// Kokkos host work as any Kokkos call shares it.
template <class ExecSpace, class Op, class SourceView>
segmented_result<typename ExecSpace::memory_space> segmented_binop(const ExecSpace& exec, const Op& op,
                                                                   const std::vector<SourceView>& masks,
                                                                   const std::vector<size_type>& begin_bits,
                                                                   size_type size_bits,
                                                                   const std::vector<size_type>& segment_offsets) {
  constexpr const char* fn = "kmask::segmented_binop";
  using memory_space       = typename ExecSpace::memory_space;
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "kmask::segmented_binop: the first argument must be a Kokkos execution space");
  static_assert(is_word_operator_v<Op>,
                "kmask::segmented_binop: op needs word_type operator()(word_type, word_type) and identity()");
  KMASK_CHECK_MASK_VIEW("kmask::segmented_binop", SourceView, ExecSpace, "masks");
  detail::scoped_region region(fn);
  auto d = detail::stage_descriptors(fn, exec, masks, begin_bits, size_bits, segment_offsets);
  const size_type row_words = allocation_size_bytes(size_bits) / static_cast<size_type>(sizeof(word_type));
  segmented_result<memory_space> result{
      Kokkos::View<word_type**, Kokkos::LayoutRight, memory_space>(
          Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "kmask::segmented_binop::masks"), d.num_segments,
          row_words),
      Kokkos::View<size_type*, memory_space>(
          Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "kmask::segmented_binop::null_counts"),
          d.num_segments)};
  // Rows are padded to 64 bytes; the kernel writes the padding words as 0 so no row carries garbage.
  const size_type words = num_words(size_bits);
  detail::segmented_args_for<ExecSpace, Op, detail::strided_destinations> a{
      op,          d.offsets,      d.sources,   detail::strided_destinations{result.masks.data(), row_words},
      result.null_counts, d.num_segments, size_bits, words, row_words, d.count_scratch};
  detail::launch_segmented_binop(fn, exec, a);
  return result;
}

/// segmented_binop() on the default execution space.
template <class Op, class SourceView>
segmented_result<Kokkos::DefaultExecutionSpace::memory_space> segmented_binop(
    const Op& op, const std::vector<SourceView>& masks, const std::vector<size_type>& begin_bits, size_type size_bits,
    const std::vector<size_type>& segment_offsets) {
  return segmented_binop(Kokkos::DefaultExecutionSpace{}, op, masks, begin_bits, size_bits, segment_offsets);
}

}  // namespace kmask

#endif
