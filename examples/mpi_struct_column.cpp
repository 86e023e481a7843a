// A struct column's validity over MPI ranks: kmask is node-local, so a table too big for one GPU
// is split by rows over ranks, each rank runs kmask on its rows, and the counts are summed.
//
// The table: a parent validity mask (a slice: its rows start at bit 13) and K children, each a
// slice of a larger column (its own bit offset). Rank r holds rows [lo_r, hi_r), partitions of
// uneven size (rank r's share grows with r), and of each mask only the words that hold its rows,
// so a rank's piece of a mask starts at a bit offset of its own (the global offset + lo_r, mod 32).
// Each rank, with kmask on its default execution space:
//   1. materialises its sliced child pieces at bit 0 (copy_bitmask),
//   2. pushes the parent's nulls into every child piece in place, with each child's null count
//      (superimpose_nulls),
//   3. ANDs the children row-wise into "every field valid" with its null count (binop),
//   4. checks every bit it produced against the host truth of its rows.
// MPI_Allreduce sums the null counts and the bit errors. Rank 0 then computes the same counts in
// one process twice, with kmask over the whole table and bit by bit on the host, and compares.
//
// One GPU per rank: with CUDA, a rank that was not given a device (--kokkos-device-id=N, or in
// Kokkos 4 --kokkos-map-device-id-by=...) takes device (node-local rank % GPUs on the node); the
// node-local rank comes from MPI_Comm_split_type, not from a launcher's environment variable.

#include <kmask/kmask.hpp>

#include <mpi.h>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <vector>

namespace {

using kmask::size_type;
using kmask::word_type;
using exec_space   = Kokkos::DefaultExecutionSpace;
using mask_t       = Kokkos::View<word_type*, exec_space::memory_space>;
using const_mask_t = Kokkos::View<const word_type*, exec_space::memory_space>;
using host_words   = std::vector<word_type>;

struct options {
  size_type rows     = 1000003;
  size_type children = 4;
  std::uint64_t seed = 7;
};

bool parse_number(const char* s, long long min, long long& out) {
  char* end = nullptr;
  out       = std::strtoll(s, &end, 10);
  return end != s && *end == '\0' && out >= min;
}

// 0 to run, else the exit code (printed by rank 0 only).
int parse(int argc, char* argv[], options& o, bool talk) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--kokkos", 0) == 0) continue;
    long long v          = 0;
    const bool has_value = i + 1 < argc;
    if (a == "--rows" && has_value && parse_number(argv[++i], 1, v)) o.rows = v;
    else if (a == "--children" && has_value && parse_number(argv[++i], 1, v)) o.children = v;
    else if (a == "--seed" && has_value && parse_number(argv[++i], 0, v)) o.seed = static_cast<std::uint64_t>(v);
    else {
      if (talk)
        std::cerr << "mpi_struct_column: bad argument '" << a << "'\n"
                  << "usage: mpiexec -n P mpi_struct_column [--rows N] [--children K] [--seed S] [--kokkos-...]\n";
      return 2;
    }
  }
  return 0;
}

int bit(const host_words& m, size_type i) { return (m[static_cast<std::size_t>(i / 32)] >> (i % 32)) & 1; }

host_words random_mask(std::mt19937_64& rng, size_type bits, double null_fraction) {
  host_words m(static_cast<std::size_t>(kmask::num_words(bits)), 0);
  std::bernoulli_distribution valid(1.0 - null_fraction);
  for (size_type i = 0; i < bits; ++i)
    if (valid(rng)) m[static_cast<std::size_t>(i / 32)] |= word_type{1} << (i % 32);
  return m;
}

mask_t upload(const word_type* h, size_type words, const std::string& label) {
  mask_t d(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), static_cast<std::size_t>(words));
  Kokkos::deep_copy(d, Kokkos::View<const word_type*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                           h, static_cast<std::size_t>(words)));
  return d;
}

host_words download(const mask_t& d) {
  host_words h(d.extent(0));
  Kokkos::deep_copy(
      Kokkos::View<word_type*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(h.data(), h.size()), d);
  return h;
}

// The whole table (every rank makes the same one from the seed; a real engine would read only
// its own rows).
struct table {
  size_type rows          = 0;
  size_type parent_offset = 13;
  host_words parent;
  std::vector<host_words> child;
  std::vector<size_type> child_offset;
};

table make_table(const options& o) {
  table t;
  t.rows = o.rows;
  std::mt19937_64 rng(o.seed);
  t.parent = random_mask(rng, t.parent_offset + t.rows, 0.1);
  for (size_type c = 0; c < o.children; ++c) {
    t.child_offset.push_back(c % 2 == 1 ? 1 + static_cast<size_type>(rng() % 200) : 0);
    t.child.push_back(random_mask(rng, t.child_offset.back() + t.rows, 0.03 + 0.02 * static_cast<double>(c)));
  }
  return t;
}

// Rank r of p holds rows [lo, hi): shares 1 : 2 : ... : p, so no two ranks hold the same number.
void partition(size_type rows, int rank, int ranks, size_type& lo, size_type& hi) {
  const auto before = [&](int r) { return rows * (static_cast<size_type>(r) * (r + 1) / 2) / (ranks * (ranks + 1) / 2); };
  lo = before(rank);
  hi = before(rank + 1);
}

// Rows [lo, lo + n) of a mask whose row 0 is bit `offset`: the words holding them, as a device
// mask, and the bit in it where row lo is.
mask_t piece(const host_words& m, size_type offset, size_type lo, size_type n, size_type& begin_bit,
             const std::string& label) {
  const size_type first = (offset + lo) / 32;
  begin_bit             = (offset + lo) % 32;
  return upload(m.data() + first, kmask::num_words(begin_bit + n), label);
}

// Steps 1-3 on rows [lo, lo + n) of the table; returns the counts (K child null counts, then the
// null count of "every field valid") and, in `bit_errors`, how many produced bits differ from
// the host truth.
std::vector<size_type> combine_rows(const exec_space& exec, const table& t, size_type lo, size_type n,
                                    size_type& bit_errors) {
  const size_type K = static_cast<size_type>(t.child.size());
  size_type parent_begin = 0;
  const mask_t parent    = piece(t.parent, t.parent_offset, lo, n, parent_begin, "example::parent");
  std::vector<mask_t> children;
  for (size_type c = 0; c < K; ++c) {
    size_type begin = 0;
    mask_t p        = piece(t.child[static_cast<std::size_t>(c)], t.child_offset[static_cast<std::size_t>(c)], lo, n,
                            begin, "example::child");
    children.push_back(begin == 0 ? p : kmask::copy_bitmask(exec, const_mask_t(p), begin, begin + n));
  }
  Kokkos::View<size_type*, exec_space::memory_space> child_nulls("example::child_null_counts",
                                                                 static_cast<std::size_t>(K));
  kmask::superimpose_nulls(exec, const_mask_t(parent), parent_begin, children, n, child_nulls);
  const std::vector<const_mask_t> sources(children.begin(), children.end());
  const auto all_valid = kmask::binop(exec, kmask::bit_and{}, sources, std::vector<size_type>(children.size(), 0), n);

  const auto nulls = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, child_nulls);
  std::vector<size_type> counts;
  for (size_type c = 0; c < K; ++c) counts.push_back(nulls(c));
  counts.push_back(all_valid.second);

  std::vector<host_words> got;
  for (const auto& c : children) got.push_back(download(c));
  const host_words got_all = download(all_valid.first);
  bit_errors               = 0;
  for (size_type i = 0; i < n; ++i) {
    int all = 1;
    for (size_type c = 0; c < K; ++c) {
      const int v = bit(t.parent, t.parent_offset + lo + i) &
                    bit(t.child[static_cast<std::size_t>(c)], t.child_offset[static_cast<std::size_t>(c)] + lo + i);
      bit_errors += bit(got[static_cast<std::size_t>(c)], i) != v;
      all &= v;
    }
    bit_errors += bit(got_all, i) != all;
  }
  return counts;
}

// The counts bit by bit on the host, over the whole table.
std::vector<size_type> host_counts(const table& t) {
  const size_type K = static_cast<size_type>(t.child.size());
  std::vector<size_type> counts(static_cast<std::size_t>(K + 1), 0);
  for (size_type i = 0; i < t.rows; ++i) {
    int all = 1;
    for (size_type c = 0; c < K; ++c) {
      const int v = bit(t.parent, t.parent_offset + i) &
                    bit(t.child[static_cast<std::size_t>(c)], t.child_offset[static_cast<std::size_t>(c)] + i);
      counts[static_cast<std::size_t>(c)] += !v;
      all &= v;
    }
    counts[static_cast<std::size_t>(K)] += !all;
  }
  return counts;
}

// Where this rank runs: with CUDA the device Kokkos chose and its PCI bus id (distinct ids show the
// ranks on distinct GPUs), else the execution space's name.
std::string device_of_this_rank() {
#if defined(KOKKOS_ENABLE_CUDA)
  int device = -1;
  char bus[32] = {0};
  if (cudaGetDevice(&device) == cudaSuccess && cudaDeviceGetPCIBusId(bus, sizeof bus, device) == cudaSuccess)
    return "CUDA device " + std::to_string(device) + ", PCI bus id " + bus;
  cudaGetLastError();
  return "CUDA device unknown";
#else
  return exec_space::name();
#endif
}

int run(const options& o, int rank, int ranks) {
  exec_space exec;
  const table t = make_table(o);
  size_type lo = 0, hi = 0;
  partition(t.rows, rank, ranks, lo, hi);
  size_type local_errors = 0;
  std::vector<size_type> local = combine_rows(exec, t, lo, hi - lo, local_errors);
  local.push_back(local_errors);
  local.push_back(hi - lo);  // the rows held, summed to check the partition covers the table

  std::vector<size_type> global(local.size(), 0);
  static_assert(sizeof(size_type) == sizeof(std::int64_t), "MPI_INT64_T carries kmask::size_type");
  MPI_Allreduce(local.data(), global.data(), static_cast<int>(local.size()), MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  for (int r = 0; r < ranks; ++r) {
    if (r == rank)
      std::cout << "rank " << rank << "/" << ranks << " (" << device_of_this_rank() << "): rows [" << lo << ", " << hi
                << "), " << local_errors << " bit errors, null count of every-field-valid " << local[t.child.size()]
                << std::endl;
    MPI_Barrier(MPI_COMM_WORLD);
  }

  int failed = 0;
  if (rank == 0) {
    const size_type K = static_cast<size_type>(t.child.size());
    size_type ignored = 0;
    const auto one_process = combine_rows(exec, t, 0, t.rows, ignored);  // kmask, whole table, one process
    const auto truth       = host_counts(t);
    std::cout << "kmask " << kmask::version() << " on " << exec_space::name() << ", " << ranks << " ranks, " << t.rows
              << " rows, " << K << " children\n";
    for (size_type c = 0; c <= K; ++c) {
      const auto i = static_cast<std::size_t>(c);
      std::cout << (c < K ? "  child " + std::to_string(c) + " nulls" : std::string("  rows with a null field"))
                << ": ranks summed " << global[i] << ", one process " << one_process[i] << ", host " << truth[i]
                << "\n";
      failed |= global[i] != truth[i] || one_process[i] != truth[i];
    }
    failed |= global[static_cast<std::size_t>(K + 1)] != 0 || ignored != 0;
    failed |= global[static_cast<std::size_t>(K + 2)] != t.rows;
    if (failed)
      std::cout << "VERIFICATION FAILED (bit errors over all ranks: " << global[static_cast<std::size_t>(K + 1)]
                << ", one process: " << ignored << ", rows held: " << global[static_cast<std::size_t>(K + 2)] << ")\n";
    else
      std::cout << "verified: the ranks' summed null counts equal one process's and the host's, every bit matches\n";
  }
  MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return failed ? 1 : 0;
}

// The rank's place on its node, from MPI itself (MPI-3), for the device choice.
int node_local_rank() {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int local = 0;
  MPI_Comm_rank(node, &local);
  MPI_Comm_free(&node);
  return local;
}

}  // namespace

int main(int argc, char* argv[]) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  options o;
  const int parsed = parse(argc, argv, o, rank == 0);
  if (parsed != 0) {
    MPI_Finalize();
    return parsed;
  }

  // One GPU per rank. --kokkos-device-id=N is read by Kokkos 3.4 and 4.x alike (Kokkos 4 also
  // offers InitializationSettings().set_device_id(N)); a device the user chose is kept.
  std::vector<std::string> args(argv, argv + argc);
  const int local_rank = node_local_rank();
#if defined(KOKKOS_ENABLE_CUDA)
  bool device_given = false;
  for (const auto& a : args)
    device_given |= a.rfind("--kokkos-device-id", 0) == 0 || a.rfind("--kokkos-map-device-id-by", 0) == 0 ||
                    a.rfind("--kokkos-num-devices", 0) == 0;
  int gpus = 0;
  if (!device_given && cudaGetDeviceCount(&gpus) == cudaSuccess && gpus > 0)
    args.push_back("--kokkos-device-id=" + std::to_string(local_rank % gpus));
#endif
  std::vector<char*> kargv;
  for (auto& a : args) kargv.push_back(&a[0]);
  kargv.push_back(nullptr);
  int kargc = static_cast<int>(args.size());
  Kokkos::initialize(kargc, kargv.data());
  int rc = 0;
  try {
    rc = run(o, rank, ranks);
  } catch (const std::exception& e) {
    std::cerr << "mpi_struct_column (rank " << rank << ", node-local rank " << local_rank << "): " << e.what()
              << "\n";
    rc = 1;
    Kokkos::finalize();
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  Kokkos::finalize();
  MPI_Finalize();
  return rc;
}
