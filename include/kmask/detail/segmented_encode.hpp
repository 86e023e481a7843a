#ifndef KMASK_DETAIL_SEGMENTED_ENCODE_HPP
#define KMASK_DETAIL_SEGMENTED_ENCODE_HPP

// Writes a described segmented call into the words its kernels read: segment offsets, the count
// scratch, destination pointers and one reference per source in the kernel form's encoding
// (source_ref_for<ExecSpace>), plus the staged copies of aliased sources and the ones absent
// sources read. The memory comes from a Store: a staging_pool lease for one call, or memory a
// plan owns. Validation of the sources happens here, in the same pass that writes them.

#include <kmask/detail/segmented_kernels.hpp>
#include <kmask/detail/segmented_problem.hpp>
#include <kmask/detail/staging_pool.hpp>

#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kmask {
namespace detail {

// Words [0, words) of `to` are copied from `from` before the binop runs.
struct stage_ref {
  const word_type* from;
  word_type* to;
  size_type words;
};

// Descriptor memory a plan owns: device words and the host words they are uploaded from (one
// allocation when the kernels run on the host).
template <class ExecSpace>
class owned_words {
 public:
  using memory_space = typename ExecSpace::memory_space;
  static constexpr bool direct = runs_on_host<ExecSpace>();
  owned_words(const ExecSpace& exec, std::size_t device_words, std::size_t host_words, const std::string& label)
      : exec_(exec) {
    device_ = Kokkos::View<std::uint64_t*, memory_space>(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, label),
                                                         device_words);
    if (!direct)
      host_ = Kokkos::View<std::uint64_t*, Kokkos::HostSpace>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::host"), host_words);
  }
  std::uint64_t* host() const { return direct ? device_.data() : host_.data(); }
  std::uint64_t* device() const { return device_.data(); }
  void upload(std::size_t begin, std::size_t end) const {
    if (!direct) copy_words(exec_, device_, host_, begin, end);
  }
  // The plan keeps the words, not the instance it was built on.
  void forget_instance() { exec_ = ExecSpace{}; }

 private:
  ExecSpace exec_;
  Kokkos::View<std::uint64_t*, memory_space> device_;
  Kokkos::View<std::uint64_t*, Kokkos::HostSpace> host_;
};

// How stores are made, from the staging pool (one call) or owned (a plan): a store of `device_words` words the kernels read, of which the host writes the first
// `host_words`; `what` ends its allocations' labels ("<fn>::descriptors").
template <class ExecSpace>
struct pool_stores {
  using store = typename staging_pool<ExecSpace>::lease;
  const char* fn;
  store operator()(const ExecSpace& exec, std::size_t device_words, std::size_t host_words, const char* what) const {
    return staging_pool<ExecSpace>::acquire(exec, device_words, host_words, std::string(fn) + "::" + what);
  }
};
template <class ExecSpace>
struct owned_stores {
  using store = owned_words<ExecSpace>;
  const char* fn;
  store operator()(const ExecSpace& exec, std::size_t device_words, std::size_t host_words, const char* what) const {
    return store(exec, device_words, host_words, std::string(fn) + "::" + what);
  }
};

// What the kernels of ExecSpace read, in a Store the encoded call keeps.
template <class ExecSpace, class Store>
struct encoded_call {
  using memory_space = typename ExecSpace::memory_space;
  using ref_type     = source_ref_for<ExecSpace>;
  using unmanaged    = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  Store words;
  std::optional<Store> scratch;  // stage records and buffer, ones; only when needed
  Kokkos::View<const size_type*, memory_space, unmanaged> offsets;
  Kokkos::View<size_type*, memory_space, unmanaged> count_scratch;
  Kokkos::View<const ref_type*, memory_space, unmanaged> sources;
  Kokkos::View<const destination_ref*, memory_space, unmanaged> destinations;
  Kokkos::View<const stage_ref*, memory_space, unmanaged> stages;
  std::size_t result_word = 0;  // a count the synchronous calls read back
  size_type num_segments  = 0;
  size_type size_bits     = 0;
  size_type num_staged    = 0;
  word_type* ones         = nullptr;  // num_words(size_bits) words of ~0 absent sources read

  // Where the kernels write a count that is read back (inplace_binop, binop): a lease's result word.
  Kokkos::View<size_type*, memory_space, unmanaged> result() const {
    auto* word = reinterpret_cast<size_type*>(words.result_word(result_word));
    return Kokkos::View<size_type*, memory_space, unmanaged>(word, 1);
  }
  // Waits for the caller's own instance (the lease's): synchronous calls return a count.
  size_type read_result() const { return static_cast<size_type>(words.read_result(result_word)); }
};

// Sources described per upload of a large one-shot call: each chunk's copy to the device runs
// while the next chunk is described.
constexpr std::size_t upload_chunk_sources = 32768;
static_assert(device_call_parallel_pass_min_sources <= upload_chunk_sources, "kmask: a device call's pass can thread");

// Fills `n` words at `w` with ~0 on `exec`.
template <class ExecSpace>
void fill_ones(const ExecSpace& exec, word_type* w, size_type n) {
  if (n == 0) return;
  Kokkos::parallel_for(
      "kmask::absent_sources::ones", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<size_type>>(exec, 0, n),
      KOKKOS_LAMBDA(size_type i) { w[i] = ~word_type{0}; });
}

// Describes problem `p` into stores made by `make`. Throws (before any destination or counter is
// written) for the first invalid source, an address the form cannot hold, a bad destination, or
// overlapping destinations. Calls without destinations upload their sources chunk by chunk while
// later ones are described (no staging can change a reference after the pass).
template <class ExecSpace, class Sources, class Dests, class Make>
encoded_call<ExecSpace, typename Make::store> encode(const ExecSpace& exec, const segmented_problem<Sources, Dests>& p,
                                                     const Make& make) {
  using ref_type                  = source_ref_for<ExecSpace>;
  using memory_space              = typename ExecSpace::memory_space;
  using unmanaged                 = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  constexpr std::size_t ref_words = sizeof(ref_type) / sizeof(std::uint64_t);
  static_assert(sizeof(ref_type) % sizeof(std::uint64_t) == 0 && sizeof(size_type) == sizeof(std::uint64_t) &&
                    sizeof(destination_ref) == sizeof(std::uint64_t) && sizeof(stage_ref) == 3 * sizeof(std::uint64_t),
                "kmask: descriptor layout");
  constexpr bool has_dests = !std::is_same<Dests, no_dests>::value;

  const std::size_t num_offsets = static_cast<std::size_t>(p.num_segments) + 1;
  const std::size_t num_sources = p.sources.size();
  const std::size_t num_dests   = p.dests.size();
  // Destinations are checked after the sources; their pointers are written only once both pass.
  // offsets | count scratch (zeros) | result word | destination pointers | source references
  const std::size_t at_scratch = num_offsets, at_result = at_scratch + 2 * (num_offsets - 1);
  const std::size_t at_dests = at_result + 1, at_sources = at_dests + num_dests;
  const std::size_t total    = at_sources + ref_words * num_sources;

  encoded_call<ExecSpace, typename Make::store> e{make(exec, total, total, "descriptors")};
  e.num_segments = p.num_segments;
  e.size_bits    = p.size_bits;
  e.result_word  = at_result;
  std::uint64_t* host = e.words.host();
  std::memcpy(host, p.offsets, num_offsets * sizeof(size_type));
  std::fill(host + at_scratch, host + at_dests, std::uint64_t{0});
  ref_type* refs = reinterpret_cast<ref_type*>(host + at_sources);

  const size_type ones_words = num_words(p.size_bits);
  const std::size_t ones_u64 = static_cast<std::size_t>((ones_words + 1) / 2);
  // Only the sources some segment reads get ones: an absent mask nobody reads costs nothing.
  const std::size_t read_first = static_cast<std::size_t>(p.offsets[0]);
  const std::size_t read_last  = static_cast<std::size_t>(p.offsets[p.num_segments]);
  std::size_t uploaded         = 0;
  std::size_t first_absent     = pass_result::none;
  for (std::size_t first = 0; first < num_sources || first == 0; first += upload_chunk_sources) {
    const std::size_t last = std::min(num_sources, first + upload_chunk_sources);
    const pass_result r    = source_pass(exec, p.sources, p.size_bits, refs, first, last);
    if (r.first_bad != pass_result::none) report_source(p.names, r.first_bad, p.sources[r.first_bad], p.size_bits);
    // The read absent sources of this chunk, if any: [lo, hi).
    const std::size_t lo = std::max(r.first_absent, read_first), hi = std::min(last, read_last);
    const bool absent_read = r.first_absent != pass_result::none && lo < hi && has_absent(refs, lo, hi);
    if (absent_read && first_absent == pass_result::none) first_absent = lo;
    if constexpr (!has_dests) {
      // No staging can follow: absent sources get their ones now, and the chunk goes up.
      if (absent_read) {
        if (!e.scratch) {
          e.scratch.emplace(make(exec, ones_u64, 0, "scratch"));
          e.ones = reinterpret_cast<word_type*>(e.scratch->device());
          fill_ones(exec, e.ones, ones_words);
        }
        patch_absent(refs, lo, hi, e.ones);
      }
      const std::size_t end = last == num_sources ? total : at_sources + ref_words * last;
      e.words.upload(uploaded, end);
      uploaded = end;
    }
    if (last >= num_sources) break;
  }

  if constexpr (has_dests) {
    check_destinations(p);
    for (std::size_t s = 0; s < num_dests; ++s) new (host + at_dests + s) destination_ref{p.dests[s].words};
    const std::vector<size_type> staged = sources_to_stage(p);
    std::size_t stage_u64               = 0;
    for (size_type j : staged) {
      const source_mask m = p.sources[static_cast<std::size_t>(j)];
      stage_u64 += static_cast<std::size_t>((num_words(m.begin_bit % word_bits + p.size_bits) + 1) / 2);
    }
    const std::size_t records = 3 * staged.size();
    const std::size_t need    = records + stage_u64 + (first_absent != pass_result::none ? ones_u64 : 0);
    if (need > 0) {
      e.scratch.emplace(make(exec, need, records, "scratch"));
      std::uint64_t* sh = e.scratch->host();
      std::uint64_t* sd = e.scratch->device();
      word_type* buffer = reinterpret_cast<word_type*>(sd + records);
      // Each staged source keeps its bit offset within its first word (and its invert flag), so the
      // kernels read the copy exactly as they would have read the original.
      for (std::size_t k = 0; k < staged.size(); ++k) {
        const std::size_t j = static_cast<std::size_t>(staged[k]);
        const source_mask m = p.sources[j];
        const size_type w   = num_words(m.begin_bit % word_bits + p.size_bits);
        new (sh + 3 * k) stage_ref{m.words + m.begin_bit / word_bits, buffer, w};
        write_ref(refs + j, source_mask{buffer, w, m.begin_bit % word_bits, m.invert});
        buffer += (w + 1) / 2 * 2;
      }
      e.scratch->upload(0, records);
      e.num_staged = static_cast<size_type>(staged.size());
      e.stages     = Kokkos::View<const stage_ref*, memory_space, unmanaged>(reinterpret_cast<const stage_ref*>(sd),
                                                                         staged.size());
      if (first_absent != pass_result::none) {
        e.ones = reinterpret_cast<word_type*>(sd + records + stage_u64);
        fill_ones(exec, e.ones, ones_words);
        patch_absent(refs, first_absent, read_last, e.ones);
      }
    }
    e.words.upload(0, total);
  }

  const std::uint64_t* dev = e.words.device();
  using offsets_view = decltype(e.offsets);
  using scratch_view = decltype(e.count_scratch);
  using dests_view   = decltype(e.destinations);
  using sources_view = decltype(e.sources);
  e.offsets          = offsets_view(reinterpret_cast<const size_type*>(dev), num_offsets);
  e.count_scratch =
      scratch_view(reinterpret_cast<size_type*>(const_cast<std::uint64_t*>(dev + at_scratch)), 2 * (num_offsets - 1));
  e.destinations = dests_view(reinterpret_cast<const destination_ref*>(dev + at_dests), num_dests);
  e.sources      = sources_view(reinterpret_cast<const ref_type*>(dev + at_sources), num_sources);
  return e;
}

// Copies every staged source into its buffer, a team per chunk of a source: a team per source
// left most of the device idle. Each GPU thread's loads all go out before its stores.
template <class ExecSpace>
struct stage_functor {
  using member_type         = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  static constexpr int items = static_cast<int>(launch_tuning<ExecSpace>::stage_gpu_items);
  static constexpr bool host = runs_on_host<ExecSpace>();
  Kokkos::View<const stage_ref*, typename ExecSpace::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>> stages;
  size_type parts;  // chunks per staged source
  size_type chunk;  // words per chunk

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& m) const {
    const size_type r     = m.league_rank();
    const stage_ref st    = stages(r / parts);
    const size_type begin = (r % parts) * chunk;
    const size_type end   = begin + chunk < st.words ? begin + chunk : st.words;
    if (begin >= end) return;
    if constexpr (host) {
      for (size_type w = begin; w < end; ++w) st.to[w] = st.from[w];
    } else {
      const size_type threads = static_cast<size_type>(m.team_size());
      Kokkos::parallel_for(Kokkos::TeamThreadRange(m, m.team_size()), [&](int g) {
        word_type v[items];
        for (int i = 0; i < items; ++i) {
          const size_type w = begin + g + i * threads;
          v[i]              = w < end ? st.from[w] : word_type{0};
        }
        for (int i = 0; i < items; ++i) {
          const size_type w = begin + g + i * threads;
          if (w < end) st.to[w] = v[i];
        }
      });
    }
  }
};

// Copies every staged source into its buffer; ordered before the binop on the same instance.
template <class ExecSpace, class Store>
void stage_sources(const ExecSpace& exec, const encoded_call<ExecSpace, Store>& e) {
  if (e.num_staged == 0) return;
  using tuning          = launch_tuning<ExecSpace>;
  constexpr bool host   = runs_on_host<ExecSpace>();
  const int team        = host ? 1 : static_cast<int>(tuning::stage_gpu_team);
  const size_type chunk = host ? tuning::stage_cpu_chunk_words : tuning::stage_gpu_team * tuning::stage_gpu_items;
  // A staged source is at most one word longer than the call's words (its bit offset).
  const size_type parts = (num_words(e.size_bits) + 1 + chunk - 1) / chunk;
  check_league_size("kmask::segmented_binop::stage_sources", e.num_staged * parts);
  Kokkos::parallel_for("kmask::segmented_binop::stage_sources",
                       Kokkos::TeamPolicy<ExecSpace>(exec, static_cast<int>(e.num_staged * parts), team),
                       stage_functor<ExecSpace>{e.stages, parts, chunk});
}

// Launches the binop of an encoded call into `out` (pointer or strided destinations) with its
// null counts in `null_counts`; `row_words` words are written per destination.
template <class ExecSpace, class Store, class Op, class Destinations>
void launch(const char* fn, const ExecSpace& exec, const Op& op, const encoded_call<ExecSpace, Store>& e,
            const Destinations& out, const Kokkos::View<size_type*, typename ExecSpace::memory_space>& null_counts,
            size_type row_words) {
  stage_sources(exec, e);
  segmented_args_for<ExecSpace, Op, Destinations> a{op,
                                                    e.offsets,
                                                    e.sources,
                                                    out,
                                                    null_counts,
                                                    e.num_segments,
                                                    e.size_bits,
                                                    num_words(e.size_bits),
                                                    row_words,
                                                    e.count_scratch};
  launch_segmented_binop(fn, exec, a);
}

}  // namespace detail
}  // namespace kmask

#endif
