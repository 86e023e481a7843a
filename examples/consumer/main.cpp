// How to use kmask from your own project: AND two validity masks and count the nulls.
#include <kmask/kmask.hpp>

#include <iostream>
#include <vector>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  using exec_space = Kokkos::DefaultExecutionSpace;
  exec_space exec;
  const kmask::size_type rows = 1000;

  // Rows 0..999 valid in `a`; every third row null in `b`.
  auto a = kmask::create_mask(exec, rows, kmask::mask_state::all_valid);
  auto b = kmask::create_mask(exec, rows, kmask::mask_state::all_valid);
  auto b_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, b);
  for (kmask::size_type i = 0; i < rows; i += 3) b_host(i / 32) &= ~(kmask::word_type{1} << (i % 32));
  Kokkos::deep_copy(b, b_host);

  const std::vector<Kokkos::View<const kmask::word_type*, exec_space::memory_space>> masks{a, b};
  const auto result = kmask::binop(exec, kmask::bit_and{}, masks, {0, 0}, rows);
  const kmask::size_type expected = (rows + 2) / 3;
  std::cout << "kmask " << kmask::version() << ": " << result.second << " null rows of " << rows << " (expected "
            << expected << ")" << std::endl;
  return result.second == expected && kmask::count_unset_bits(exec, result.first, 0, rows) == expected ? 0 : 1;
}
