#ifndef KMASK_DETAIL_SEGMENTED_DESCRIPTORS_HPP
#define KMASK_DETAIL_SEGMENTED_DESCRIPTORS_HPP

// The device-side description of one segmented binop: segment offsets, source references, the
// destinations, and the sources that must be staged through a temporary because a destination
// overlaps them. Built once on the host (validated there first), then launched any number of times.

#include <kmask/detail/descriptor_staging.hpp>
#include <kmask/detail/host_checks.hpp>
#include <kmask/detail/segmented_kernels.hpp>
#include <kmask/detail/word_access.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace kmask {
namespace detail {

// Words [0, words) of `to` are copied from `from` before the binop runs.
struct stage_ref {
  const word_type* from;
  word_type* to;
  size_type words;
};

// Compile-time checks of a mask-view type, with messages naming the public function.
#define KMASK_CHECK_MASK_VIEW(FN, VIEW, EXEC, WHAT)                                                          \
  static_assert(Kokkos::is_view<VIEW>::value, FN ": " WHAT " must be Kokkos::View");                        \
  static_assert(VIEW::rank == 1, FN ": " WHAT " must be rank-1 views of words");                           \
  static_assert(std::is_same<typename VIEW::non_const_value_type, ::kmask::word_type>::value,              \
                FN ": " WHAT " must hold kmask::word_type");                                                \
  static_assert(Kokkos::SpaceAccessibility<EXEC, typename VIEW::memory_space>::accessible,                 \
                FN ": " WHAT " must be accessible from the execution space")

template <class ExecSpace>
struct segmented_descriptors {
  using memory_space = typename ExecSpace::memory_space;
  std::vector<Kokkos::View<std::uint64_t*, memory_space>> storage;  // owns the record views below
  Kokkos::View<size_type*, memory_space> offsets;
  Kokkos::View<size_type*, memory_space> count_scratch;  // segmented_binop_args::count_scratch
  Kokkos::View<source_ref_for<ExecSpace>*, memory_space> sources;
  Kokkos::View<destination_ref*, memory_space> destinations;
  Kokkos::View<stage_ref*, memory_space> stages;
  Kokkos::View<word_type*, memory_space> stage_buffer;
  size_type num_segments = 0;
  size_type size_bits    = 0;
  size_type num_staged   = 0;
};

// Uploads a host-built array to a fresh device view (no copy when the space is the host's).
template <class T, class ExecSpace>
Kokkos::View<T*, typename ExecSpace::memory_space> upload(const ExecSpace& exec, const std::vector<T>& host,
                                                          const std::string& label) {
  static_assert(std::is_arithmetic<T>::value, "upload: use upload_records for structs");
  Kokkos::View<T*, typename ExecSpace::memory_space> dev(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, label),
                                                         host.size());
  Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> src(host.data(), host.size());
  Kokkos::deep_copy(exec, dev, src);
  return dev;
}

// Uploads an array of trivially copyable records. The storage is a labelled view of 64-bit words
// (Kokkos 3.4 runs an unlabelled "destruction" kernel, with a fence, when a managed view of a
// struct is freed); `records` is an untracked view of T over it, kept alive by `storage`.
template <class T, class MemorySpace>
struct uploaded_records {
  Kokkos::View<std::uint64_t*, MemorySpace> storage;
  Kokkos::View<T*, MemorySpace> records;
};

template <class T, class ExecSpace>
uploaded_records<T, typename ExecSpace::memory_space> upload_records(const ExecSpace& exec,
                                                                     const std::vector<T>& host,
                                                                     const std::string& label) {
  static_assert(std::is_trivially_copyable<T>::value && sizeof(T) % sizeof(std::uint64_t) == 0,
                "upload_records: records must be trivially copyable 64-bit multiples");
  using MS = typename ExecSpace::memory_space;
  const std::size_t words = host.size() * (sizeof(T) / sizeof(std::uint64_t));
  std::vector<std::uint64_t> raw(words);
  if (words) std::memcpy(raw.data(), host.data(), words * sizeof(std::uint64_t));
  uploaded_records<T, MS> u;
  u.storage = upload(exec, raw, label);
  u.records = Kokkos::View<T*, MS>(
      Kokkos::View<T*, MS, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(reinterpret_cast<T*>(u.storage.data()), host.size()));
  return u;
}

// Writes the reference to a source whose bits start at `begin_bit` of `data` into *ref; false if
// the form cannot hold it (a packed reference, an address whose top four bits differ).
inline bool describe_source(source_ref* ref, const word_type* data, size_type begin_bit) {
  new (ref) source_ref{data, begin_bit};
  return true;
}
inline bool describe_source(packed_source_ref* ref, const word_type* data, size_type begin_bit) {
  new (ref) packed_source_ref{0};
  return ref->pack(data, begin_bit);
}

// The reference to masks[j] (already validated); throws if its form cannot hold the address.
template <class Ref>
Ref source_reference(const char* fn, std::size_t j, const word_type* data, size_type begin_bit) {
  Ref ref;
  if (!describe_source(&ref, data, begin_bit)) {
    std::ostringstream msg;
    msg << fn << ": masks[" << j << "] starts at address " << static_cast<const void*>(data)
        << ", outside the range an 8-byte device source reference holds (its top four bits must agree)";
    throw std::invalid_argument(msg.str());
  }
  return ref;
}

// Validates everything (throwing before any device work), then builds the descriptors.
// In-place calls (the plan): destinations, aliasing analysis and staging included.
template <class ExecSpace, class DestView, class SourceView>
segmented_descriptors<ExecSpace> build_descriptors(const char* fn, const ExecSpace& exec,
                                                   const std::vector<DestView>& destinations,
                                                   const std::vector<SourceView>& masks,
                                                   const std::vector<size_type>& begin_bits, size_type size_bits,
                                                   const std::vector<size_type>& segment_offsets) {
  const auto mask_extents = extents_of(masks);
  check_sources(fn, mask_extents, begin_bits, size_bits);
  check_segment_offsets(fn, segment_offsets, static_cast<size_type>(masks.size()));
  const size_type num_segments = static_cast<size_type>(segment_offsets.size()) - 1;

  const auto dest_extents = extents_of(destinations);
  check_destinations(fn, dest_extents, num_segments, size_bits);
  const std::vector<size_type> staged =
      sources_to_stage(fn, dest_extents, mask_extents, begin_bits, size_bits, segment_offsets);
  std::vector<destination_ref> dest_refs;
  dest_refs.reserve(destinations.size());
  for (const auto& d : destinations) dest_refs.push_back({d.data()});

  const std::string prefix = std::string(fn) + "::";
  segmented_descriptors<ExecSpace> d;
  d.num_segments = num_segments;
  d.size_bits    = size_bits;
  d.num_staged   = static_cast<size_type>(staged.size());

  // Only the sources some segment reads are described; offsets are rebased onto them.
  // The count scratch (zeros) travels in the offsets' upload, so it costs no launch of its own.
  const size_type base = segment_offsets.front();
  std::vector<size_type> offsets(segment_offsets.size() + 2 * static_cast<std::size_t>(num_segments), 0);
  for (std::size_t s = 0; s < segment_offsets.size(); ++s) offsets[s] = segment_offsets[s] - base;
  using ref_type = source_ref_for<ExecSpace>;
  std::vector<ref_type> sources;
  sources.reserve(static_cast<std::size_t>(segment_offsets.back() - base));
  for (size_type j = base; j < segment_offsets.back(); ++j)
    sources.push_back(source_reference<ref_type>(fn, static_cast<std::size_t>(j), masks[j].data(), begin_bits[j]));

  if (!staged.empty()) {
    // Each staged source keeps its bit offset within the first word it occupies, so the kernel
    // reads the copy exactly as it would have read the original.
    std::vector<stage_ref> stages;
    size_type total = 0;
    for (size_type j : staged) total += num_words(begin_bits[j] % word_bits + size_bits);
    d.stage_buffer = Kokkos::View<word_type*, typename ExecSpace::memory_space>(
        Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, prefix + "stage_buffer"), total);
    size_type at = 0;
    for (size_type j : staged) {
      const size_type words = num_words(begin_bits[j] % word_bits + size_bits);
      stages.push_back({masks[j].data() + begin_bits[j] / word_bits, d.stage_buffer.data() + at, words});
      sources[j - base] = source_reference<ref_type>(fn, static_cast<std::size_t>(j), d.stage_buffer.data() + at,
                                                     begin_bits[j] % word_bits);
      at += words;
    }
    auto st = upload_records(exec, stages, prefix + "stages");
    d.storage.push_back(st.storage);
    d.stages = st.records;
  }
  const auto uploaded = upload(exec, offsets, prefix + "segment_offsets");
  using range         = Kokkos::pair<std::size_t, std::size_t>;
  d.offsets           = Kokkos::subview(uploaded, range(0, segment_offsets.size()));
  d.count_scratch     = Kokkos::subview(uploaded, range(segment_offsets.size(), offsets.size()));
  auto src = upload_records(exec, sources, prefix + "sources");
  d.storage.push_back(src.storage);
  d.sources = src.records;
  auto dst = upload_records(exec, dest_refs, prefix + "destinations");
  d.storage.push_back(dst.storage);
  d.destinations = dst.records;
  return d;
}

// The descriptors of a one-shot call that writes rows it allocated, in the reusable staging
// buffers. Holding it holds the buffers; release it once the kernel that reads them is enqueued.
template <class ExecSpace>
struct staged_descriptors {
  using memory_space = typename ExecSpace::memory_space;
  typename descriptor_staging<ExecSpace>::lease lease;
  Kokkos::View<const size_type*, memory_space> offsets;
  Kokkos::View<const source_ref_for<ExecSpace>*, memory_space> sources;
  Kokkos::View<size_type*, memory_space> count_scratch;  // zeros, uploaded with the rest
  size_type num_segments;
};

// Where a call on ExecSpace runs its host-side passes: a host ExecSpace's own instance (the caller
// chose its threads), otherwise the default host execution space (OpenMP where Kokkos has it).
template <class ExecSpace>
using host_pass_space = std::conditional_t<runs_on_host<ExecSpace>(), ExecSpace, Kokkos::DefaultHostExecutionSpace>;

template <class ExecSpace>
host_pass_space<ExecSpace> host_pass_instance(const ExecSpace& exec) {
  if constexpr (runs_on_host<ExecSpace>()) return exec;
  else return host_pass_space<ExecSpace>{};
}

// Below this many sources the pass stays on the calling thread: starting host threads costs more.
constexpr std::size_t parallel_pass_min_sources = 4096;

// Validates sources [first, last) and writes their references into refs[first, last); false if
// any of them is invalid or cannot be described. The pass streams the views (24 bytes each), the
// begin bits and the references (8 or 16 bytes): 6-8 MB for 160,000 sources, which one core of
// the H200's host took ~0.5-0.65 ms over, so large calls spread it over host threads.
template <class ExecSpace, class SourceView, class Ref>
bool write_source_refs(const ExecSpace& exec, const std::vector<SourceView>& masks,
                       const std::vector<size_type>& begin_bits, size_type size_bits, Ref* refs, std::size_t first,
                       std::size_t last) {
  const SourceView* m  = masks.data();
  const size_type* b   = begin_bits.data();
  const auto write_one = [=](std::size_t j) {
    return source_is_valid(m[j].data(), static_cast<size_type>(m[j].extent(0)), b[j], size_bits) &&
           describe_source(refs + j, m[j].data(), b[j]);
  };
  if (last - first < parallel_pass_min_sources) {
    bool valid = true;
    for (std::size_t j = first; j < last; ++j) valid = write_one(j) && valid;
    return valid;
  }
  using space     = host_pass_space<ExecSpace>;
  std::size_t bad = 0;
  Kokkos::parallel_reduce(
      "kmask::segmented_binop::describe_sources",
      Kokkos::RangePolicy<space, Kokkos::IndexType<std::size_t>>(host_pass_instance(exec), first, last),
      [=](std::size_t j, std::size_t& invalid) { invalid += write_one(j) ? 0 : 1; }, bad);
  return bad == 0;
}

// Sources described per upload of a large call: each chunk's copy to the device runs while the
// next chunk is described, so the upload (1.5 MB for 160,000 sources) hides behind the host pass.
constexpr std::size_t upload_chunk_sources = 32768;

// The descriptors of calls that write masks they allocate (segmented_binop, binop, copy_bitmask),
// in one pass: each source is validated as its reference is written into page-locked staging
// memory (no intermediate vectors, no allocation), and uploaded by asynchronous copies, chunk by
// chunk. Offsets are not rebased: every mask gets a
// reference, read or not. Same checks, same messages, same order as build_descriptors(): nothing is
// launched before every argument is checked (a rejected call only leaves copies into the staging
// buffers behind, which the next call waits for).
template <class ExecSpace, class SourceView>
staged_descriptors<ExecSpace> stage_descriptors(const char* fn, const ExecSpace& exec,
                                                const std::vector<SourceView>& masks,
                                                const std::vector<size_type>& begin_bits, size_type size_bits,
                                                const std::vector<size_type>& segment_offsets) {
  using ref_type                 = source_ref_for<ExecSpace>;
  constexpr std::size_t ref_words = sizeof(ref_type) / sizeof(std::uint64_t);
  static_assert(sizeof(ref_type) % sizeof(std::uint64_t) == 0 && sizeof(size_type) == sizeof(std::uint64_t),
                "stage_descriptors: descriptor layout");
  using memory_space = typename ExecSpace::memory_space;
  check_size_bits(fn, size_bits);
  if (masks.size() != begin_bits.size()) check_sources(fn, extents_of(masks), begin_bits, size_bits);
  const std::size_t num_offsets = segment_offsets.size(), num_sources = masks.size();
  const std::size_t num_scratch = num_offsets > 0 ? 2 * (num_offsets - 1) : 0;
  // Layout: offsets | count scratch | source references; the first two go with the first chunk.
  const std::size_t header = num_offsets + num_scratch;
  const std::size_t words  = header + ref_words * num_sources;

  auto lease          = descriptor_staging<ExecSpace>::acquire(exec, words);
  std::uint64_t* host = lease.host();
  if (num_offsets) std::memcpy(host, segment_offsets.data(), num_offsets * sizeof(size_type));
  std::fill(host + num_offsets, host + header, std::uint64_t{0});
  ref_type* refs       = reinterpret_cast<ref_type*>(host + header);
  std::size_t uploaded = 0;
  bool valid           = true;
  for (std::size_t first = 0; valid && first < num_sources; first += upload_chunk_sources) {
    const std::size_t last = std::min(num_sources, first + upload_chunk_sources);
    valid                  = write_source_refs(exec, masks, begin_bits, size_bits, refs, first, last);
    if (valid && last < num_sources) {
      lease.upload(uploaded, header + ref_words * last);
      uploaded = header + ref_words * last;
    }
  }
  if (!valid) check_sources(fn, extents_of(masks), begin_bits, size_bits);  // throws, naming the source
  check_segment_offsets(fn, segment_offsets, static_cast<size_type>(num_sources));
  // Every source is valid: what failed is an address the reference cannot hold (throws, naming it).
  for (std::size_t j = 0; !valid && j < num_sources; ++j)
    source_reference<ref_type>(fn, j, masks[j].data(), begin_bits[j]);
  lease.upload(uploaded, words);

  const std::uint64_t* dev = lease.device();
  using unmanaged          = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  return {std::move(lease),
          Kokkos::View<const size_type*, memory_space, unmanaged>(reinterpret_cast<const size_type*>(dev), num_offsets),
          Kokkos::View<const ref_type*, memory_space, unmanaged>(reinterpret_cast<const ref_type*>(dev + header),
                                                                num_sources),
          // The kernel writes the scratch back to zeros; the lease keeps it for this call alone.
          Kokkos::View<size_type*, memory_space, unmanaged>(
              reinterpret_cast<size_type*>(const_cast<std::uint64_t*>(dev + num_offsets)), num_scratch),
          static_cast<size_type>(num_offsets) - 1};
}

// Copies every staged source into the stage buffer; ordered before the binop on the same instance.
template <class ExecSpace>
void stage_sources(const ExecSpace& exec, const segmented_descriptors<ExecSpace>& d) {
  if (d.num_staged == 0) return;
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  const auto stages = d.stages;
  const int team    = runs_on_host<ExecSpace>() ? 1 : 256;
  Kokkos::parallel_for(
      "kmask::segmented_binop::stage_sources",
      Kokkos::TeamPolicy<ExecSpace>(exec, static_cast<int>(d.num_staged), team),
      KOKKOS_LAMBDA(const member_type& m) {
        const stage_ref st = stages(m.league_rank());
        Kokkos::parallel_for(Kokkos::TeamThreadRange(m, st.words), [&](size_type w) { st.to[w] = st.from[w]; });
      });
}

}  // namespace detail
}  // namespace kmask

#endif
