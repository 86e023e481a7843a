// Long piece lists (set_bits_bulk, segmented_copy_bits, concatenate, inplace_concatenate) on a
// threaded host space are described by the space's threads (move_bits_threaded_list.hpp), which
// leave every list they do not take to the serial pass. Here: the results of lists each route
// takes, against the reference; which route ran (its kernel labels); and, for lists with a bad
// piece anywhere (first, last, a block seam, two bad pieces), that the message is the serial
// pass's, naming the first bad argument, and nothing is written. Uses move_bits:: helpers
// (test_move_bits.hpp), errors::expect_rejected (test_errors.hpp) and profiling_labels::recording.

namespace {
namespace threaded_lists {

using namespace move_bits;

using profiling_labels::kernels_of;
using profiling_labels::launched;

// Whether the space under test describes a list of `n` pieces with its threads.
inline bool threaded(std::size_t n) { return kmask::detail::threaded_list_pays(TEST_EXECSPACE{}, n); }

// A list of `n` pieces in destination order over one destination of `dest_bits` bits: piece i
// writes [begins[i], begins[i] + sizes[i]) (some empty, neighbours sharing words), reading
// `srcs[i]` (a pool of separate allocations; some absent, some inverted) from bit src_begins[i].
struct list_case {
  ref::words dest_host;
  std::vector<ref::words> pool;
  std::vector<cview> pool_dev;
  std::vector<long> pick;  // pool index, or -1: absent
  std::vector<bool> invert;
  std::vector<size_type> begins, src_begins, sizes;
};

inline list_case make_list(std::mt19937_64& rng, std::size_t n) {
  list_case c;
  for (int p = 0; p < 9; ++p) {
    c.pool.push_back(random_words(rng, 40 + rng() % 200));
    c.pool_dev.push_back(to_device<TEST_EXECSPACE>(c.pool.back()));
  }
  size_type at = static_cast<size_type>(rng() % 40);
  for (std::size_t i = 0; i < n; ++i) {
    const size_type size = rng() % 9 == 0 ? 0 : 1 + static_cast<size_type>(rng() % 150);
    long pick            = static_cast<long>(rng() % c.pool.size());
    if (rng() % 11 == 0) pick = -1;
    const size_type cap = pick < 0 ? size : 32 * static_cast<size_type>(c.pool[static_cast<std::size_t>(pick)].size());
    c.pick.push_back(pick);
    c.invert.push_back(rng() % 7 == 0);
    c.begins.push_back(at);
    c.src_begins.push_back(pick < 0 ? 0 : static_cast<size_type>(rng() % static_cast<std::uint64_t>(cap - size + 1)));
    c.sizes.push_back(size);
    at += size + (rng() % 4 == 0 ? static_cast<size_type>(rng() % 70) : 0);
  }
  c.dest_host = random_words(rng, static_cast<std::size_t>(kmask::num_words(at) + 2));
  return c;
}

inline kmask::source_mask source_of(const list_case& c, std::size_t i) {
  if (c.pick[i] < 0) return kmask::source_mask{nullptr, 0, 0, c.invert[i]};
  const cview& v = c.pool_dev[static_cast<std::size_t>(c.pick[i])];
  return kmask::source_mask{v.data(), static_cast<size_type>(v.extent(0)), c.src_begins[i], c.invert[i]};
}
inline ref::words inverted_words(ref::words w) {
  for (auto& x : w) x = ~x;
  return w;
}

}  // namespace threaded_lists
}  // namespace

TEST(TEST_CATEGORY, long_piece_lists_on_host_threads_match_the_reference) {
  using namespace threaded_lists;
  TEST_EXECSPACE exec;
  const auto seed = base_seed() + 2101;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  // Around the threshold, and lists of many blocks.
  const std::size_t sizes[] = {kmask::detail::threaded_list_min_pieces - 2, kmask::detail::threaded_list_min_pieces + 1,
                               3001, 9000};
  for (std::size_t n : sizes) {
    SCOPED_TRACE(::testing::Message() << n << " pieces" << (threaded(n) ? " (threaded pass)" : " (serial pass)"));
    const list_case c = make_list(rng, n);
    // segmented_copy_bits and set_bits_bulk into one poisoned-by-random-words destination.
    {
      const auto dest = to_device<TEST_EXECSPACE>(c.dest_host);
      std::vector<kmask::dest_mask> dests(n, as_dest(dest));
      std::vector<kmask::source_mask> srcs;
      for (std::size_t i = 0; i < n; ++i) srcs.push_back(source_of(c, i));
      const auto k = kernels_of([&] { kmask::segmented_copy_bits(exec, dests, c.begins, srcs, c.sizes); });
      EXPECT_EQ(launched(k, "kmask::segmented_copy_bits::place"), threaded(n));
      // Sources of other allocations lie outside the destinations' span: none is looked up.
      EXPECT_FALSE(launched(k, "kmask::segmented_copy_bits::aliasing"));
      ref::words want = c.dest_host;
      for (std::size_t i = 0; i < n; ++i) {
        if (c.pick[i] < 0) {
          ref::set_range(want, c.begins[i], c.begins[i] + c.sizes[i], c.invert[i] ? 0 : 1);
          continue;
        }
        const ref::words src = c.invert[i] ? inverted_words(c.pool[static_cast<std::size_t>(c.pick[i])])
                                           : c.pool[static_cast<std::size_t>(c.pick[i])];
        ref::copy_range(want, c.begins[i], &src, c.src_begins[i], c.sizes[i]);
      }
      ASSERT_TRUE(same(want, to_host(dest), "segmented_copy_bits"));
    }
    {
      const auto dest = to_device<TEST_EXECSPACE>(c.dest_host);
      std::vector<size_type> ends;
      std::vector<bool> valid;
      for (std::size_t i = 0; i < n; ++i) ends.push_back(c.begins[i] + c.sizes[i]), valid.push_back(rng() % 2 == 0);
      const auto k = kernels_of([&] {
        kmask::set_bits_bulk(exec, std::vector<view_t<TEST_EXECSPACE>>(n, dest), c.begins, ends, valid);
      });
      EXPECT_EQ(launched(k, "kmask::set_bits_bulk::place"), threaded(n));
      ref::words want = c.dest_host;
      for (std::size_t i = 0; i < n; ++i) ref::set_range(want, c.begins[i], ends[i], valid[i] ? 1 : 0);
      ASSERT_TRUE(same(want, to_host(dest), "set_bits_bulk"));
    }
    // concatenate (allocating, its count read back) and inplace_concatenate (count on the device).
    {
      std::vector<kmask::source_mask> srcs;
      std::vector<ref::words> inverted(n);
      std::vector<const ref::words*> refs;
      std::vector<std::int64_t> rb, rs;
      for (std::size_t i = 0; i < n; ++i) {
        srcs.push_back(source_of(c, i));
        if (c.pick[i] >= 0 && c.invert[i]) inverted[i] = inverted_words(c.pool[static_cast<std::size_t>(c.pick[i])]);
        if (c.pick[i] < 0 && c.invert[i]) inverted[i] = ref::words(static_cast<std::size_t>(kmask::num_words(c.sizes[i]) + 1), 0u);
        refs.push_back(c.invert[i] ? &inverted[i] : c.pick[i] < 0 ? nullptr : &c.pool[static_cast<std::size_t>(c.pick[i])]);
        rb.push_back(c.pick[i] < 0 ? 0 : c.src_begins[i]);
        rs.push_back(c.sizes[i]);
      }
      const ref::result want = ref::concatenate(refs, rb, rs);
      std::pair<view_t<TEST_EXECSPACE>, size_type> got;
      const auto k = kernels_of([&] { got = kmask::concatenate(exec, srcs, c.sizes); });
      EXPECT_EQ(launched(k, "kmask::concatenate::place"), threaded(n + 1));
      ref::words head = to_host(got.first);
      ASSERT_GE(head.size(), want.mask.size());
      for (std::size_t w = want.mask.size(); w < head.size(); ++w) ASSERT_EQ(head[w], 0u) << "padding word " << w;
      head.resize(want.mask.size());
      ASSERT_TRUE(same(want.mask, head, "concatenate"));
      EXPECT_EQ(got.second, want.nulls);

      auto dest        = poisoned_destinations<TEST_EXECSPACE>(1, 32 * static_cast<size_type>(want.mask.size()), 3)[0];
      const auto count = poisoned_counts<TEST_EXECSPACE>(1);
      kmask::inplace_concatenate(exec, as_dest(dest), srcs, c.sizes, count);
      exec.fence();
      ref::words full = want.mask;
      for (int x = 0; x < 3; ++x) full.push_back(poison);
      ASSERT_TRUE(same(full, to_host(dest), "inplace_concatenate"));
      EXPECT_EQ(counts_to_host(count)[0], want.nulls);
    }
  }
}

// Lists the threaded pass leaves to the serial one: out of destination order, and sources that are
// words of the destinations being written (the result follows the contents before the call); and
// one it keeps: sources in the destinations' span that meet none of their words.
TEST(TEST_CATEGORY, long_piece_lists_out_of_order_or_aliased_take_the_serial_pass) {
  using namespace threaded_lists;
  TEST_EXECSPACE exec;
  const auto seed = base_seed() + 2102;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  const std::size_t n = 2 * kmask::detail::threaded_list_min_pieces + 77;
  for (int kind = 0; kind < 3; ++kind) {
    // One view: pieces write 40 bits in every second 64-bit stretch and read 40 bits from the
    // stretches between (kind 1: no destination word is read), from the next piece's
    // destination (kind 2), or in order but shuffled (kind 0).
    ref::words host = random_words(rng, 4 * n + 4);
    const auto dev  = to_device<TEST_EXECSPACE>(host);
    std::vector<size_type> db, sb, sizes(n, 40);
    for (std::size_t i = 0; i < n; ++i) {
      db.push_back(128 * static_cast<size_type>(i) + 3);
      sb.push_back(kind == 2 ? 128 * static_cast<size_type>(i + 1) + 10 : 128 * static_cast<size_type>(i) + 64 + 7);
    }
    std::vector<std::size_t> order(n);
    for (std::size_t i = 0; i < n; ++i) order[i] = i;
    if (kind == 0) std::shuffle(order.begin(), order.end(), rng);
    permute(db, order), permute(sb, order);
    SCOPED_TRACE(kind == 0 ? "shuffled" : kind == 1 ? "sources between the destinations" : "sources meet destinations");
    const auto k = kernels_of([&] {
      kmask::segmented_copy_bits(exec, std::vector<view_t<TEST_EXECSPACE>>(n, dev), db, std::vector<cview>(n, dev), sb,
                                 sizes);
    });
    if (threaded(n)) {
      EXPECT_EQ(launched(k, "kmask::segmented_copy_bits::place"), kind != 0);
      EXPECT_EQ(launched(k, "kmask::segmented_copy_bits::aliasing"), kind != 0);
      // Staged sources: only the serial pass stages them.
      EXPECT_EQ(launched(k, "kmask::segmented_copy_bits::stage_sources"), kind == 2);
    }
    const ref::words before = host;
    for (std::size_t i = 0; i < n; ++i) ref::copy_range(host, db[i], &before, sb[i], 40);
    ASSERT_TRUE(same(host, to_host(dev), "segmented_copy_bits"));
  }
}

// A bad piece anywhere in a long list gets the serial pass's message, naming the first bad
// argument, and the call writes nothing.
TEST(TEST_CATEGORY, long_piece_lists_report_the_first_bad_piece) {
  using namespace threaded_lists;
  using IA = std::invalid_argument;
  using OR = std::out_of_range;
  TEST_EXECSPACE exec;
  const auto seed = base_seed() + 2103;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  const std::size_t n = 3 * kmask::detail::threaded_list_min_pieces + 8;  // 40 n bits: whole words
  const size_type piece = 40, dest_bits = piece * static_cast<size_type>(n);
  errors::untouched<TEST_EXECSPACE> kept;
  const auto dest = poisoned_destinations<TEST_EXECSPACE>(1, dest_bits, 0)[0];
  kept.poisoned   = {dest};
  const auto count = poisoned_counts<TEST_EXECSPACE>(1);
  kept.counters    = {count};
  const ref::words shost = random_words(rng, 64);
  const cview src        = to_device<TEST_EXECSPACE>(shost);
  kept.sources           = {{src, shost}};
  const std::vector<view_t<TEST_EXECSPACE>> dests(n, dest);
  const std::vector<cview> srcs(n, src);
  std::vector<size_type> db, sb, sizes(n, piece), ends;
  for (std::size_t i = 0; i < n; ++i) {
    db.push_back(piece * static_cast<size_type>(i));
    sb.push_back(static_cast<size_type>(rng() % 2000));
    ends.push_back(db.back() + piece);
  }
  const std::string sc = "kmask::segmented_copy_bits: ", bb = "kmask::set_bits_bulk: ", ic = "kmask::inplace_concatenate: ";
  const std::vector<bool> valid(n, true);
  // First, last, a block's first and last pieces, a random one.
  const std::size_t blocks = n / kmask::detail::threaded_list_block_pieces;
  const std::size_t places[] = {0, n - 1, n / blocks, n / blocks - 1, 1 + rng() % (n - 2)};
  for (std::size_t p : places) {
    SCOPED_TRACE(::testing::Message() << "bad piece " << p << " of " << n);
    const std::string at = "[" + std::to_string(p) + "]";
    auto b = db;
    b[p]   = -3;
    errors::expect_rejected<IA>(kept, [&] { kmask::segmented_copy_bits(exec, dests, b, srcs, sb, sizes); },
                                sc + "dest_begin_bits" + at + " = -3 is negative");
    auto s = sizes;
    s[p]   = piece + 1;  // past the destination's end, or over the next piece
    if (p + 1 == n)
      errors::expect_rejected<OR>(kept, [&] { kmask::segmented_copy_bits(exec, dests, db, srcs, sb, s); },
                                  sc + "dest_begin_bits" + at + " + sizes_bits" + at + " = " + std::to_string(db[p]) +
                                      " + 41 is past the " + std::to_string(dest_bits) + " bits of dests" + at);
    else
      errors::expect_rejected<IA>(kept, [&] { kmask::segmented_copy_bits(exec, dests, db, srcs, sb, s); },
                                  sc + "dests[" + std::to_string(p + 1) + "] bits [" + std::to_string(db[p + 1]) +
                                      ", " + std::to_string(ends[p + 1]) + ") overlap dests" + at + " bits [" +
                                      std::to_string(db[p]) + ", " + std::to_string(db[p] + piece + 1) + ")");
    auto r = sb;
    r[p]   = 2048 - 10;  // the source's 2048 bits end inside the piece
    errors::expect_rejected<OR>(kept, [&] { kmask::segmented_copy_bits(exec, dests, db, srcs, r, sizes); },
                                sc + "src_begin_bits" + at + " + sizes_bits" + at + " = 2038 + 40 is past the 2048 bits of srcs" + at);
    // A per-piece error after an overlap: the per-piece checks come first.
    if (p >= 2) {
      auto o = db;
      o[p]   = -1;
      o[1]   = 20;
      errors::expect_rejected<IA>(kept, [&] { kmask::segmented_copy_bits(exec, dests, o, srcs, sb, sizes); },
                                  sc + "dest_begin_bits" + at + " = -1 is negative");
    }
    auto e = ends;
    e[p]   = db[p] - 1;
    errors::expect_rejected<IA>(kept, [&] { kmask::set_bits_bulk(exec, dests, db, e, valid); },
                                bb + "end_bits" + at + " = " + std::to_string(db[p] - 1) + " is less than begin_bits" + at);
    // concatenate: a bad source before a bad size, and before a too-short destination.
    auto cb = sb;
    cb[p]   = -7;
    auto cs = sizes;
    if (p + 1 < n) cs[n - 1] = -1;
    errors::expect_rejected<IA>(kept, [&] { kmask::inplace_concatenate(exec, dest, srcs, cb, cs, count); },
                                ic + "begin_bits" + at + " = -7 is negative");
    const view_t<TEST_EXECSPACE> short_dest = Kokkos::subview(dest, std::make_pair(std::size_t{0}, dest.extent(0) - 1));
    errors::expect_rejected<IA>(kept, [&] { kmask::inplace_concatenate(exec, short_dest, srcs, cb, sizes, count); },
                                ic + "begin_bits" + at + " = -7 is negative");
    // The allocating form: its sources are checked by the threaded pass, after the allocation.
    errors::expect_rejected<IA>(kept, [&] { (void)kmask::concatenate(exec, srcs, cb, sizes); },
                                "kmask::concatenate: begin_bits" + at + " = -7 is negative");
  }
  // Two bad pieces in different blocks: the first is named.
  auto two = db;
  two[n - 3] = -5, two[n / 2] = -6;
  errors::expect_rejected<IA>(kept, [&] { kmask::segmented_copy_bits(exec, dests, two, srcs, sb, sizes); },
                              sc + "dest_begin_bits[" + std::to_string(n / 2) + "] = -6 is negative");
  // Valid pieces into a destination one word short: the destination's message.
  const view_t<TEST_EXECSPACE> short_dest = Kokkos::subview(dest, std::make_pair(std::size_t{0}, dest.extent(0) - 1));
  errors::expect_rejected<OR>(kept, [&] { kmask::inplace_concatenate(exec, short_dest, srcs, sb, sizes, count); },
                              ic + "dest has " + std::to_string(dest.extent(0) - 1) + " words but the pieces' " +
                                  std::to_string(dest_bits) + " bits need " + std::to_string(dest.extent(0)));
}
