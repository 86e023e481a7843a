#pragma once
namespace kmask { namespace detail {
template <> struct launch_tuning<Kokkos::Cuda> : launch_tuning<Kokkos::Cuda, launch_tuning_defaults> {
  static constexpr int gather_gpu_min_teams_per_sm = 8;
  static constexpr size_type make_gpu_teams_per_sm = 8;
};
}}
