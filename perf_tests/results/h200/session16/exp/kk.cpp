// Exploratory: kmask's count kernel against variants, event time and host wall, on the H200.
#include <kmask/kmask.hpp>
#include <kmask/detail/count_calls.hpp>
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

using kmask::size_type;
using kmask::word_type;
using Exec = Kokkos::Cuda;

// count_stride_functor with a branch-free pass where the whole pass is inside.
template <int Items, bool Fast>
struct fast_functor {
  using member_type = Kokkos::TeamPolicy<Exec>::member_type;
  const word_type* m;
  size_type u0, u1, threads;
  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team, size_type& acc) const {
    const size_type g = static_cast<size_type>(team.league_rank()) * team.team_size() + team.team_rank();
    size_type set = 0;
    for (size_type pass = u0 + g; pass < u1; pass += Items * threads) {
      word_type w[Items][4];
      if (Fast && pass + (Items - 1) * threads < u1) {
#pragma unroll
        for (int i = 0; i < Items; ++i) kmask::detail::load_four_words(m + (pass + i * threads) * 4, w[i]);
      } else {
#pragma unroll
        for (int i = 0; i < Items; ++i) {
          const size_type u = pass + i * threads;
          if (u < u1) kmask::detail::load_four_words(m + u * 4, w[i]);
          else for (int k = 0; k < 4; ++k) w[i][k] = 0;
        }
      }
#pragma unroll
      for (int i = 0; i < Items; ++i)
        for (int k = 0; k < 4; ++k) set += kmask::detail::popcount32(w[i][k]);
    }
    acc += set;
  }
};

template <int Items, bool Fast, int MinBlocks>
size_type run_variant(const Exec& exec, const word_type* m, size_type words, int teams_per_sm, int team,
                      const Kokkos::View<size_type, Kokkos::CudaHostPinnedSpace>& result) {
  const size_type u1 = words / 4;
  const int league = teams_per_sm * 132;
  fast_functor<Items, Fast> f{m, 0, u1, static_cast<size_type>(league) * team};
  if (MinBlocks > 0) {
    Kokkos::TeamPolicy<Exec, Kokkos::LaunchBounds<256, (MinBlocks > 0 ? MinBlocks : 1)>> p(exec, league, team);
    Kokkos::parallel_reduce("exp::fast", p, f, result);
  } else {
    Kokkos::TeamPolicy<Exec> p(exec, league, team);
    Kokkos::parallel_reduce("exp::fast", p, f, result);
  }
  exec.fence();
  return result();
}


// parallel_for form: a team's sum goes to a device total with one atomic; the team taking the last
// ticket writes the total to pinned host memory and returns total and ticket to zero.
template <int Items>
struct ticket_functor {
  using member_type = Kokkos::TeamPolicy<Exec>::member_type;
  const word_type* m;
  size_type u0, u1, threads;
  size_type* scratch;   // total, ticket: zero before the launch, zero after it
  size_type* result;    // pinned host
  size_type league;
  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    size_type set = 0;
    Kokkos::parallel_reduce(Kokkos::TeamThreadRange(team, team.team_size()), [&](int r, size_type& acc) {
      const size_type g = static_cast<size_type>(team.league_rank()) * team.team_size() + r;
      size_type s = 0;
      for (size_type pass = u0 + g; pass < u1; pass += Items * threads) {
        word_type w[Items][4];
        if (pass + (Items - 1) * threads < u1) {
#pragma unroll
          for (int i = 0; i < Items; ++i) kmask::detail::load_four_words(m + (pass + i * threads) * 4, w[i]);
        } else {
#pragma unroll
          for (int i = 0; i < Items; ++i) {
            const size_type u = pass + i * threads;
            if (u < u1) kmask::detail::load_four_words(m + u * 4, w[i]);
            else for (int k = 0; k < 4; ++k) w[i][k] = 0;
          }
        }
#pragma unroll
        for (int i = 0; i < Items; ++i)
          for (int k = 0; k < 4; ++k) s += kmask::detail::popcount32(w[i][k]);
      }
      acc += s;
    }, set);
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      Kokkos::atomic_add(&scratch[0], set);
      Kokkos::memory_fence();
      if (Kokkos::atomic_fetch_add(&scratch[1], size_type{1}) != league - 1) return;
      Kokkos::memory_fence();
      *result = Kokkos::atomic_exchange(&scratch[0], size_type{0});
      scratch[1] = 0;
    });
  }
};

template <int Items>
size_type run_ticket(const Exec& exec, const word_type* m, size_type words, int teams_per_sm, int team,
                     size_type* scratch, size_type* result) {
  const size_type u1 = words / 4;
  const int league = teams_per_sm * 132;
  ticket_functor<Items> f{m, 0, u1, static_cast<size_type>(league) * team, scratch, result, league};
  Kokkos::parallel_for("exp::ticket", Kokkos::TeamPolicy<Exec>(exec, league, team), f);
  exec.fence();
  return *result;
}

template <int ITEMS>
__global__ void raw_strided(const uint4* p, long n, unsigned long long* scratch, unsigned long long* result) {
  const long T = (long)gridDim.x * blockDim.x, g = (long)blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long s = 0;
  for (long pass = g; pass < n; pass += ITEMS * T) {
    uint4 w[ITEMS];
    if (pass + (ITEMS - 1) * T < n) {
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) w[i] = p[pass + i * T];
    } else {
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) { long u = pass + i * T; w[i] = u < n ? p[u] : make_uint4(0, 0, 0, 0); }
    }
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) s += __popc(w[i].x) + __popc(w[i].y) + __popc(w[i].z) + __popc(w[i].w);
  }
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
  __shared__ unsigned long long ws[32];
  if ((threadIdx.x & 31) == 0) ws[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long t = 0;
    for (int i = 0; i < blockDim.x / 32; ++i) t += ws[i];
    atomicAdd(&scratch[0], t);
    __threadfence();
    if (atomicAdd(&scratch[1], 1ull) == gridDim.x - 1) {
      __threadfence();
      *result = atomicExch(&scratch[0], 0ull);
      scratch[1] = 0;
    }
  }
}

template <class F>
void measure(const char* name, const Exec& exec, double bytes, double copy_us, F&& f) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<double> ev, wall;
  f();
  for (int r = 0; r < 60; ++r) {
    exec.fence();
    const auto t0 = std::chrono::steady_clock::now();
    cudaEventRecord(a, exec.cuda_stream());
    f();
    cudaEventRecord(b, exec.cuda_stream());
    cudaEventSynchronize(b);
    const auto t1 = std::chrono::steady_clock::now();
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    ev.push_back(ms * 1e3);
    wall.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  std::sort(ev.begin(), ev.end());
  std::sort(wall.begin(), wall.end());
  printf("%-34s gpu %7.2f us (%.2f TB/s)  wall %7.2f us  wall_vs_copy %.3f\n", name, ev[30], bytes / (ev[30] * 1e6),
         wall[30], copy_us / wall[30]);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
}

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    Exec exec;
    Kokkos::View<size_type, Kokkos::CudaHostPinnedSpace> result("result");
    Kokkos::View<size_type[2], Kokkos::CudaSpace> scr("scr");
    for (int lg : {20, 24, 27, 30, 33}) {
      const size_type bits = size_type{1} << lg, words = bits / 32;
      Kokkos::View<word_type*, Kokkos::CudaSpace> m("m", words), c("c", words / 2), d("d", words / 2);
      Kokkos::deep_copy(m, 0x5a5a5a5au);
      const double bytes = bits / 8;
      // same-bytes copy wall (deep_copy then fence), as the benchmark's
      std::vector<double> cw;
      for (int r = 0; r < 40; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        Kokkos::deep_copy(exec, d, c);
        exec.fence();
        cw.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
      }
      std::sort(cw.begin(), cw.end());
      const double copy_us = cw[20];
      printf("== 2^%d bits: copy wall %.2f us\n", lg, copy_us);
      measure("deep_copy", exec, bytes, copy_us, [&] { Kokkos::deep_copy(exec, d, c); exec.fence(); });
      measure("kmask::count_set_bits(3,bits)", exec, bytes, copy_us,
              [&] { result() = kmask::count_set_bits(exec, m, 3, bits); });
      measure("kmask::count_set_bits(0,bits)", exec, bytes, copy_us,
              [&] { result() = kmask::count_set_bits(exec, m, 0, bits); });
      const word_type* p = m.data();
      measure("slow 8 x4 256", exec, bytes, copy_us, [&] { run_variant<8, false, 0>(exec, p, words, 4, 256, result); });
      measure("fast 8 x4 256", exec, bytes, copy_us, [&] { run_variant<8, true, 0>(exec, p, words, 4, 256, result); });
      measure("fast 8 x2 256", exec, bytes, copy_us, [&] { run_variant<8, true, 0>(exec, p, words, 2, 256, result); });
      measure("fast 8 x2 256 lb2", exec, bytes, copy_us, [&] { run_variant<8, true, 2>(exec, p, words, 2, 256, result); });
      measure("fast 8 x4 256 lb4", exec, bytes, copy_us, [&] { run_variant<8, true, 4>(exec, p, words, 4, 256, result); });
      measure("fast 4 x4 256", exec, bytes, copy_us, [&] { run_variant<4, true, 0>(exec, p, words, 4, 256, result); });
      measure("fast 4 x8 256", exec, bytes, copy_us, [&] { run_variant<4, true, 0>(exec, p, words, 8, 256, result); });
      measure("fast 16 x2 256", exec, bytes, copy_us, [&] { run_variant<16, true, 0>(exec, p, words, 2, 256, result); });
      measure("fast 8 x1 256", exec, bytes, copy_us, [&] { run_variant<8, true, 0>(exec, p, words, 1, 256, result); });
      size_type* res = result.data();
      measure("ticket 8 x1 256", exec, bytes, copy_us, [&] { run_ticket<8>(exec, p, words, 1, 256, scr.data(), res); });
      measure("ticket 8 x2 256", exec, bytes, copy_us, [&] { run_ticket<8>(exec, p, words, 2, 256, scr.data(), res); });
      measure("ticket 8 x4 256", exec, bytes, copy_us, [&] { run_ticket<8>(exec, p, words, 4, 256, scr.data(), res); });
      measure("ticket 4 x4 256", exec, bytes, copy_us, [&] { run_ticket<4>(exec, p, words, 4, 256, scr.data(), res); });
      measure("ticket 4 x8 256", exec, bytes, copy_us, [&] { run_ticket<4>(exec, p, words, 8, 256, scr.data(), res); });
      measure("ticket 8 x2 512", exec, bytes, copy_us, [&] { run_ticket<8>(exec, p, words, 2, 512, scr.data(), res); });
      measure("ticket 8 x1 1024", exec, bytes, copy_us, [&] { run_ticket<8>(exec, p, words, 1, 1024, scr.data(), res); });
      printf("check ticket %lld\n", (long long)run_ticket<8>(exec, p, words, 2, 256, scr.data(), res));
      for (int bps : {1, 2, 4}) {
        char nm[64]; snprintf(nm, 64, "raw 8 x%d 256", bps);
        measure(nm, exec, bytes, copy_us, [&] {
          raw_strided<8><<<132 * bps, 256, 0, exec.cuda_stream()>>>(reinterpret_cast<const uint4*>(p), words / 4,
              reinterpret_cast<unsigned long long*>(scr.data()), reinterpret_cast<unsigned long long*>(res));
          exec.fence(); });
      }
      printf("check raw %lld\n", (long long)*res);
      printf("check %lld %lld\n", (long long)run_variant<8, true, 0>(exec, p, words, 4, 256, result),
             (long long)kmask::count_set_bits(exec, m, 0, bits));
    }
  }
  Kokkos::finalize();
}
