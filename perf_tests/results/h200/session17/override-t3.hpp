#pragma once
namespace kmask { namespace detail {
template <> struct launch_tuning<Kokkos::Cuda> : launch_tuning<Kokkos::Cuda, launch_tuning_defaults> {
  static constexpr size_type count_gpu_teams_per_sm = 3;
};
}}
