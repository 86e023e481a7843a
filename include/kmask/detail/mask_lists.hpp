#ifndef KMASK_DETAIL_MASK_LISTS_HPP
#define KMASK_DETAIL_MASK_LISTS_HPP

// A call's sources and destinations however the caller gave them (vectors of views plus begin
// bits, or source_mask / dest_mask arrays), read one entry at a time as source_mask / dest_mask.
// The View overloads are these adapters over the pointer-and-extent core: nothing is copied.

#include <kmask/types.hpp>

#include <cstddef>
#include <type_traits>
#include <vector>

namespace kmask {
namespace detail {

// Compile-time checks of a mask-view type, with messages naming the public function.
#define KMASK_CHECK_MASK_VIEW(FN, VIEW, EXEC, WHAT)                                                          \
  static_assert(Kokkos::is_view<VIEW>::value, FN ": " WHAT " must be Kokkos::View");                        \
  static_assert(VIEW::rank == 1, FN ": " WHAT " must be rank-1 views of words");                           \
  static_assert(std::is_same<typename VIEW::non_const_value_type, ::kmask::word_type>::value,              \
                FN ": " WHAT " must hold kmask::word_type");                                                \
  static_assert(Kokkos::SpaceAccessibility<EXEC, typename VIEW::memory_space>::accessible,                 \
                FN ": " WHAT " must be accessible from the execution space")

template <class View>
source_mask as_source(const View& v, size_type begin_bit = 0) {
  return {v.data(), static_cast<size_type>(v.extent(0)), begin_bit};
}
template <class View>
dest_mask as_dest(const View& v) {
  return {v.data(), static_cast<size_type>(v.extent(0))};
}

// Sources as views, each read from its begin bit.
template <class View>
struct view_sources {
  const View* views;
  const size_type* begin_bits;
  std::size_t n;
  std::size_t size() const { return n; }
  source_mask operator[](std::size_t j) const { return as_source(views[j], begin_bits[j]); }
};

// Sources as source_mask.
struct pointer_sources {
  const source_mask* masks;
  std::size_t n;
  std::size_t size() const { return n; }
  source_mask operator[](std::size_t j) const { return masks[j]; }
};

// superimpose_nulls' sources: segment c is {parent, children[c] from bit 0}, already checked as
// the parent and as destinations, so the describing pass only encodes them.
template <class Dests>
struct superimpose_sources {
  source_mask parent;
  Dests children;
  std::size_t size() const { return 2 * children.size(); }
  source_mask operator[](std::size_t j) const {
    if (j % 2 == 0) return parent;
    const dest_mask d = children[j / 2];
    return {d.words, d.extent_words, 0};
  }
};

// Sources the call has already checked as ranges of one mask (copy_bitmask): encoded only.
template <class Inner>
struct prechecked {
  Inner inner;
  std::size_t size() const { return inner.size(); }
  source_mask operator[](std::size_t j) const { return inner[j]; }
};

template <class Sources>
struct sources_prechecked : std::false_type {};
template <class Dests>
struct sources_prechecked<superimpose_sources<Dests>> : std::true_type {};
template <class Inner>
struct sources_prechecked<prechecked<Inner>> : std::true_type {};

// Destinations as views or as dest_mask.
template <class View>
struct view_dests {
  const View* views;
  std::size_t n;
  std::size_t size() const { return n; }
  dest_mask operator[](std::size_t s) const { return as_dest(views[s]); }
};
struct pointer_dests {
  const dest_mask* masks;
  std::size_t n;
  std::size_t size() const { return n; }
  dest_mask operator[](std::size_t s) const { return masks[s]; }
};
// Calls that write rows they allocate.
struct no_dests {
  std::size_t size() const { return 0; }
  dest_mask operator[](std::size_t) const { return {}; }
};

}  // namespace detail
}  // namespace kmask

#endif
