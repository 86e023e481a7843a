// The main job: what a columnar engine does to a struct column's validity.
//
// A table holds a struct column (a parent validity mask) with several children, some of them
// slices of larger columns (their rows start at a non-zero bit offset). A struct child must be
// null wherever its parent is null, so the engine
//   1. materialises the sliced children at bit 0 (copy_bitmask),
//   2. pushes the parent's nulls into every child in place, in one launch (superimpose_nulls),
//   3. ANDs the children row-wise in batches of rows — one segment per batch — to find the rows
//      where every field is valid, with a null count per batch (segmented_binop),
//   4. filters the table: gathers every mask of the struct column at the surviving rows (gather_bits),
// then checks every count and every bit against a plain host computation and reports the time
// and bandwidth of each step. A second, nested struct column (structs of structs, 3 levels, some
// nodes sliced) then gets the nulls of every ancestor pushed down to every node in one call
// (superimpose_nulls_tree), checked the same way.

#include <kmask/kmask.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <vector>

namespace {

using kmask::size_type;
using kmask::word_type;
using exec_space = Kokkos::DefaultExecutionSpace;
using mask_t     = Kokkos::View<word_type*, exec_space::memory_space>;

struct options {
  size_type rows       = 1 << 24;
  size_type children   = 6;
  size_type batch_rows = 1 << 20;
  std::uint64_t seed   = 42;
};

void usage(std::ostream& os) {
  os << "usage: struct_column_nulls [--rows N] [--children K] [--batch-rows B] [--seed S] [--help]\n"
        "  --rows N        rows in the table (default 16777216)\n"
        "  --children K    struct children, every other one sliced (default 6)\n"
        "  --batch-rows B  rows per segment of the row-wise AND (default 1048576)\n"
        "  --seed S        random seed of the nulls (default 42)\n"
        "Kokkos options (--kokkos-threads=N, ...) are accepted too.\n";
}

bool parse_number(const char* s, long long min, long long& out) {
  char* end = nullptr;
  out       = std::strtoll(s, &end, 10);
  return end != s && *end == '\0' && out >= min;
}

// Returns 0 to run, or the exit code to stop with.
int parse(int argc, char* argv[], options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--kokkos", 0) == 0) continue;
    if (a == "--help" || a == "-h") {
      usage(std::cout);
      return -1;
    }
    long long v = 0;
    const bool has_value = i + 1 < argc;
    if (a == "--rows" && has_value && parse_number(argv[++i], 1, v)) o.rows = v;
    else if (a == "--children" && has_value && parse_number(argv[++i], 1, v)) o.children = v;
    else if (a == "--batch-rows" && has_value && parse_number(argv[++i], 1, v)) o.batch_rows = v;
    else if (a == "--seed" && has_value && parse_number(argv[++i], 0, v)) o.seed = static_cast<std::uint64_t>(v);
    else {
      std::cerr << "struct_column_nulls: bad argument '" << a << "'" << (has_value ? "" : " (missing value?)") << "\n";
      usage(std::cerr);
      return 2;
    }
  }
  return 0;
}

std::vector<word_type> random_mask(std::mt19937_64& rng, size_type bits, double null_fraction) {
  std::vector<word_type> m(static_cast<std::size_t>(kmask::num_words(bits)), 0);
  std::bernoulli_distribution valid(1.0 - null_fraction);
  for (size_type i = 0; i < bits; ++i)
    if (valid(rng)) m[i / 32] |= word_type{1} << (i % 32);
  return m;
}

int bit(const std::vector<word_type>& m, size_type i) { return (m[i / 32] >> (i % 32)) & 1; }

mask_t upload(const std::vector<word_type>& h, const std::string& label) {
  mask_t d(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), h.size());
  Kokkos::deep_copy(d, Kokkos::View<const word_type*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                           h.data(), h.size()));
  return d;
}

std::vector<word_type> download(const mask_t& d) {
  std::vector<word_type> h(d.extent(0));
  Kokkos::deep_copy(Kokkos::View<word_type*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(h.data(),
                                                                                                        h.size()),
                    d);
  return h;
}

template <class F>
double seconds(const exec_space& exec, F&& f) {
  exec.fence();
  const auto t0 = std::chrono::steady_clock::now();
  f();
  exec.fence();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void report(const char* step, double s, double bytes) {
  std::cout << "  " << step << ": " << s * 1e3 << " ms, " << bytes / 1e9 / s << " GB/s (" << bytes / 1e6
            << " MB moved)\n";
}

// 4. FILTER: the engine keeps the rows a filter selects (here every row whose hash is not 0 mod 3),
// so every mask of the struct column is gathered at the surviving row indices (gather_bits with
// gather_policy::check: the parent read as a slice from its offset, the children as they are after
// step 2). Checked against the host computation; returns the mismatches.
size_type filter_step(const exec_space& exec, const mask_t& parent, const std::vector<word_type>& parent_h,
                      size_type parent_offset, const std::vector<mask_t>& children,
                      const std::vector<std::vector<word_type>>& child_h, const std::vector<size_type>& child_offset,
                      size_type rows) {
  std::vector<std::int64_t> kept;
  for (size_type i = 0; i < rows; ++i)
    if ((static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull >> 40) % 3 != 0) kept.push_back(i);
  Kokkos::View<std::int64_t*, exec_space::memory_space> indices(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("example::filter_indices")), kept.size());
  Kokkos::deep_copy(indices, Kokkos::View<const std::int64_t*, Kokkos::HostSpace,
                                          Kokkos::MemoryTraits<Kokkos::Unmanaged>>(kept.data(), kept.size()));
  const size_type n = static_cast<size_type>(kept.size());
  std::vector<std::pair<mask_t, size_type>> gathered(children.size() + 1);
  const kmask::source_mask parent_slice{parent.data(), static_cast<size_type>(parent.extent(0)), parent_offset};
  const double t = seconds(exec, [&] {
    gathered[0] = kmask::gather_bits(exec, parent_slice, 0, rows, indices, kmask::gather_policy::check);
    for (std::size_t c = 0; c < children.size(); ++c)
      gathered[c + 1] = kmask::gather_bits(exec, Kokkos::View<const word_type*, exec_space::memory_space>(children[c]),
                                           0, rows, indices, kmask::gather_policy::check);
  });
  size_type errors = 0;
  for (std::size_t m = 0; m < gathered.size(); ++m) {
    const auto got  = download(gathered[m].first);
    size_type nulls = 0;
    for (size_type r = 0; r < n; ++r) {
      const size_type i = kept[static_cast<std::size_t>(r)];
      int want          = bit(parent_h, parent_offset + i);
      if (m > 0) want &= bit(child_h[m - 1], child_offset[m - 1] + i);
      nulls += 1 - want;
      errors += bit(got, r) != want;
    }
    errors += gathered[m].second != nulls;
  }
  std::cout << "filter: " << n << " of " << rows << " rows survive; parent nulls after the filter: "
            << gathered[0].second << "\n";
  // Each gather reads the indices (8 bytes a row) and writes the new mask; the source bits are
  // read at random, at most a word per surviving row.
  report("gather_bits (filter, parent + children)", t,
         static_cast<double>(gathered.size()) * (8.0 * static_cast<double>(n) + static_cast<double>(n) / 8));
  return errors;
}

int run(const options& o) {
  exec_space exec;
  std::mt19937_64 rng(o.seed);
  const size_type rows = o.rows, K = o.children;
  const size_type parent_offset = 13;  // the struct column itself is a slice
  std::cout << "kmask " << kmask::version() << " on " << exec_space::name() << " (" << kmask::kokkos_configuration()
            << ")\n"
            << "table: " << rows << " rows, struct column with " << K << " children, parent sliced at row "
            << parent_offset << ", every other child sliced\n";

  // Host truth: the parent and each child's original mask with its slice offset.
  const auto parent_h = random_mask(rng, parent_offset + rows, 0.1);
  std::vector<std::vector<word_type>> child_h;
  std::vector<size_type> child_offset;
  for (size_type c = 0; c < K; ++c) {
    child_offset.push_back(c % 2 == 1 ? 1 + static_cast<size_type>(rng() % 200) : 0);
    child_h.push_back(random_mask(rng, child_offset.back() + rows, 0.05 + 0.02 * static_cast<double>(c)));
  }
  const mask_t parent = upload(parent_h, "example::parent");
  std::vector<mask_t> child_storage;
  for (size_type c = 0; c < K; ++c) child_storage.push_back(upload(child_h[c], "example::child"));

  // 1. Materialise the sliced children at bit 0.
  std::vector<mask_t> children(static_cast<std::size_t>(K));
  double bytes_copied = 0;
  const double t_copy = seconds(exec, [&] {
    for (size_type c = 0; c < K; ++c) {
      if (child_offset[c] == 0) {
        children[c] = child_storage[c];
      } else {
        children[c] = kmask::copy_bitmask(exec, child_storage[c], child_offset[c], child_offset[c] + rows);
        bytes_copied += 2.0 * static_cast<double>(kmask::num_words(rows)) * 4;
      }
    }
  });
  // 2. Parent nulls into every child, in place, one launch.
  Kokkos::View<size_type*, exec_space::memory_space> child_nulls("example::child_null_counts", K);
  const double t_super = seconds(
      exec, [&] { kmask::superimpose_nulls(exec, parent, parent_offset, children, rows, child_nulls); });
  // 3. Row-wise AND of all children, one segment per batch of rows.
  const size_type batches = (rows + o.batch_rows - 1) / o.batch_rows;
  std::vector<Kokkos::View<const word_type*, exec_space::memory_space>> sources;
  std::vector<size_type> begin_bits, offsets{0};
  for (size_type b = 0; b < batches; ++b) {
    for (size_type c = 0; c < K; ++c) {
      sources.push_back(children[c]);
      begin_bits.push_back(b * o.batch_rows);
    }
    offsets.push_back(static_cast<size_type>(sources.size()));
  }
  // Every batch is batch_rows long; the last one reads its rows from a padded copy instead of past
  // the end, so it is computed on its own below.
  const size_type full = rows / o.batch_rows;
  offsets.resize(static_cast<std::size_t>(full) + 1);
  sources.resize(static_cast<std::size_t>(full * K));
  begin_bits.resize(static_cast<std::size_t>(full * K));
  kmask::segmented_result<exec_space::memory_space> all_valid;
  std::pair<mask_t, size_type> tail;
  const size_type tail_rows = rows - full * o.batch_rows;
  const double t_and = seconds(exec, [&] {
    all_valid = kmask::segmented_binop(exec, kmask::bit_and{}, sources, begin_bits, o.batch_rows, offsets);
    if (tail_rows > 0) {
      std::vector<Kokkos::View<const word_type*, exec_space::memory_space>> tail_sources(children.begin(),
                                                                                          children.end());
      tail = kmask::binop(exec, kmask::bit_and{}, tail_sources, std::vector<size_type>(K, full * o.batch_rows),
                          tail_rows);
    }
  });

  // Check everything against the host.
  const auto nulls = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, child_nulls);
  const auto batch_nulls = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, all_valid.null_counts);
  const auto batch_masks = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, all_valid.masks);
  std::vector<std::vector<word_type>> got_children;
  for (const auto& c : children) got_children.push_back(download(c));
  const auto tail_mask = tail_rows > 0 ? download(tail.first) : std::vector<word_type>{};
  size_type errors = 0, total_all_valid = 0;
  std::vector<size_type> expect_child_nulls(static_cast<std::size_t>(K), 0), expect_batch_nulls(
                                                                               static_cast<std::size_t>(full), 0);
  size_type expect_tail_nulls = 0;
  for (size_type i = 0; i < rows; ++i) {
    int all = 1;
    for (size_type c = 0; c < K; ++c) {
      const int v = bit(parent_h, parent_offset + i) & bit(child_h[c], child_offset[c] + i);
      if (!v) ++expect_child_nulls[c];
      if (bit(got_children[c], i) != v) ++errors;
      all &= v;
    }
    total_all_valid += all;
    const size_type b = i / o.batch_rows;
    if (b < full) {
      if (!all) ++expect_batch_nulls[b];
      const size_type j = i - b * o.batch_rows;
      if (((batch_masks(b, j / 32) >> (j % 32)) & 1) != static_cast<word_type>(all)) ++errors;
    } else {
      if (!all) ++expect_tail_nulls;
      const size_type j = i - full * o.batch_rows;
      if (((tail_mask[j / 32] >> (j % 32)) & 1) != static_cast<word_type>(all)) ++errors;
    }
  }
  for (size_type c = 0; c < K; ++c) errors += nulls(c) != expect_child_nulls[c];
  for (size_type b = 0; b < full; ++b) errors += batch_nulls(b) != expect_batch_nulls[b];
  if (tail_rows > 0) errors += tail.second != expect_tail_nulls;
  errors += filter_step(exec, parent, parent_h, parent_offset, children, child_h, child_offset, rows);

  std::cout << "child null counts after superimposing the parent:";
  for (size_type c = 0; c < K; ++c) std::cout << " " << nulls(c);
  std::cout << "\nrows with every field valid: " << total_all_valid << " of " << rows << " (" << full
            << " batches of " << o.batch_rows << " rows" << (tail_rows ? " + a tail of " + std::to_string(tail_rows) : "")
            << ")\n";
  const double words = static_cast<double>(kmask::num_words(rows)) * 4;
  std::cout << "timings (fenced, first call, includes allocation and descriptor upload):\n";
  if (bytes_copied > 0) report("copy_bitmask of sliced children", t_copy, bytes_copied);
  report("superimpose_nulls", t_super, static_cast<double>(2 * K) * words);
  report("segmented_binop (row-wise AND)", t_and, static_cast<double>(K + 1) * words);
  if (errors != 0) {
    std::cout << "VERIFICATION FAILED: " << errors << " mismatches against the host computation\n";
    return 1;
  }
  std::cout << "verified: every bit and every null count matches the host computation\n";
  return 0;
}

// A nested struct column: `order` {customer {name, address, phone}, payment {method, amount},
// shipping {street, city, zip}}; `order`, `address`, `payment` and `zip` are slices (their rows
// start past bit 0). Every node must end up null wherever it or any enclosing struct is null: one
// superimpose_nulls_tree call, which writes each node's rows from bit 0 of its mask.
int run_nested(const options& o) {
  exec_space exec;
  std::mt19937_64 rng(o.seed + 1);
  const size_type rows = o.rows;
  const std::vector<std::string> names{"order", "customer", "payment", "shipping", "name", "address",
                                       "phone", "method", "amount", "street", "city", "zip"};
  const std::vector<size_type> parents{-1, 0, 0, 0, 1, 1, 1, 2, 2, 3, 3, 3};
  const std::vector<size_type> begin_bits{7, 0, 19, 0, 0, 5, 0, 0, 0, 0, 0, 40};
  const std::size_t n = names.size();
  std::vector<std::vector<word_type>> node_h;
  std::vector<mask_t> nodes;
  for (std::size_t k = 0; k < n; ++k) {
    node_h.push_back(random_mask(rng, begin_bits[k] + rows, 0.02 + 0.01 * static_cast<double>(k)));
    nodes.push_back(upload(node_h.back(), "example::nested::" + names[k]));
  }
  std::cout << "nested struct column: " << n << " nodes in 3 levels (order > customer, payment, shipping > 8 fields), "
            << "4 of them sliced\n";
  Kokkos::View<size_type*, exec_space::memory_space> node_nulls("example::nested::null_counts", n);
  const double t_tree = seconds(
      exec, [&] { kmask::superimpose_nulls_tree(exec, nodes, begin_bits, parents, rows, node_nulls); });

  // Host truth, row by row: a node is valid where it and its parent's new value are (parents come
  // before their children in `names`).
  const auto nulls = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, node_nulls);
  std::vector<std::vector<word_type>> got;
  for (const auto& m : nodes) got.push_back(download(m));
  std::vector<size_type> expect_nulls(n, 0);
  std::vector<int> v(n);
  size_type errors = 0;
  for (size_type i = 0; i < rows; ++i) {
    for (std::size_t k = 0; k < n; ++k) {
      v[k] = bit(node_h[k], begin_bits[k] + i) & (parents[k] < 0 ? 1 : v[static_cast<std::size_t>(parents[k])]);
      if (!v[k]) ++expect_nulls[k];
      if (bit(got[k], i) != v[k]) ++errors;
    }
  }
  for (std::size_t k = 0; k < n; ++k) errors += nulls(k) != expect_nulls[k];
  std::cout << "null counts after pushing the nulls down:";
  for (std::size_t k = 0; k < n; ++k) std::cout << " " << names[k] << "=" << nulls(k);
  std::cout << "\n";
  report("superimpose_nulls_tree (nested struct)", t_tree,
         2.0 * static_cast<double>(n) * static_cast<double>(kmask::num_words(rows)) * 4);
  if (errors != 0) {
    std::cout << "VERIFICATION FAILED: " << errors << " mismatches in the nested struct column\n";
    return 1;
  }
  std::cout << "verified: every node's bits and null count match the host computation\n";
  return 0;
}

}  // namespace

int main(int argc, char* argv[]) {
  options o;
  const int parsed = parse(argc, argv, o);
  if (parsed != 0) return parsed < 0 ? 0 : parsed;
  Kokkos::initialize(argc, argv);
  int rc = 0;
  try {
    rc = run(o);
    if (rc == 0) rc = run_nested(o);
  } catch (const std::exception& e) {
    std::cerr << "struct_column_nulls: " << e.what() << "\n";
    rc = 1;
  }
  Kokkos::finalize();
  return rc;
}
