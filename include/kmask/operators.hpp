#ifndef KMASK_OPERATORS_HPP
#define KMASK_OPERATORS_HPP

/// \file operators.hpp
/// \brief Word operators for binop() and segmented_binop().
///
/// An operator is any copyable type with a device-callable `word_type operator()(word_type, word_type)`
/// that is associative, and a device-callable `identity()` member giving the word `e` with
/// `op(e, x) == x` for every `x`. The identity is what an empty segment produces.

#include <kmask/types.hpp>

#include <type_traits>

namespace kmask {

/// Bitwise AND: a bit is valid where it is valid in every source. Identity: all ones.
struct bit_and {
  /// Returns `a & b`: the two words combined bit by bit. Callable on host and device.
  KOKKOS_INLINE_FUNCTION constexpr word_type operator()(word_type a, word_type b) const noexcept {
    return a & b;
  }
  /// The identity word, all ones: `bit_and{}(identity(), x) == x`; what an empty segment produces.
  KOKKOS_INLINE_FUNCTION static constexpr word_type identity() noexcept { return ~word_type{0}; }
};

/// Bitwise OR: a bit is valid where it is valid in any source. Identity: all zeros.
struct bit_or {
  /// Returns `a | b`: the two words combined bit by bit. Callable on host and device.
  KOKKOS_INLINE_FUNCTION constexpr word_type operator()(word_type a, word_type b) const noexcept {
    return a | b;
  }
  /// The identity word, zero: `bit_or{}(identity(), x) == x`; what an empty segment produces.
  KOKKOS_INLINE_FUNCTION static constexpr word_type identity() noexcept { return word_type{0}; }
};

/// Bitwise XOR: a bit is set where an odd number of sources have it set. Identity: all zeros.
struct bit_xor {
  /// Returns `a ^ b`: the two words combined bit by bit. Callable on host and device.
  KOKKOS_INLINE_FUNCTION constexpr word_type operator()(word_type a, word_type b) const noexcept {
    return a ^ b;
  }
  /// The identity word, zero: `bit_xor{}(identity(), x) == x`; what an empty segment produces.
  KOKKOS_INLINE_FUNCTION static constexpr word_type identity() noexcept { return word_type{0}; }
};

namespace detail {
template <class Op, class = void>
struct is_word_operator : std::false_type {};
template <class Op>
struct is_word_operator<
    Op, std::enable_if_t<std::is_convertible<decltype(std::declval<const Op&>()(word_type{}, word_type{})),
                                             word_type>::value &&
                         std::is_convertible<decltype(std::declval<const Op&>().identity()), word_type>::value>>
    : std::true_type {};
}  // namespace detail

/// True when `Op` has the shape of a kmask word operator (see the file comment).
template <class Op>
constexpr bool is_word_operator_v = detail::is_word_operator<Op>::value;

}  // namespace kmask

#endif
