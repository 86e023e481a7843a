// set_bits, set_bits_bulk, copy_bits, segmented_copy_bits, concatenate and inplace_concatenate,
// against the bit-by-bit reference: random offsets on both sides, sizes around word boundaries,
// ranges ending at a view's last bit, adjacent ranges sharing words, thousands of pieces, absent
// pieces, aliasing; destinations hold random words ("poison") that must survive outside the
// written bits. Uses errors::untouched / expect_rejected from test_errors.hpp.

#include <cstdlib>
#include <sstream>

namespace {
namespace move_bits {

using MS        = typename TEST_EXECSPACE::memory_space;
using cview     = Kokkos::View<const word_type*, MS>;
using counter_t = Kokkos::View<size_type*, MS>;

// Sizes at and around word boundaries, thousands, and not multiples of 32.
inline size_type random_size(std::mt19937_64& rng) {
  static const size_type fixed[] = {0, 1, 31, 32, 33, 63, 64, 65, 1000, 4099, 7777};
  if (rng() % 3 == 0) return static_cast<size_type>(rng() % 300);
  return fixed[rng() % (sizeof(fixed) / sizeof(fixed[0]))];
}
inline size_type random_offset(std::mt19937_64& rng) {
  return rng() % 4 == 0 ? 32 * static_cast<size_type>(rng() % 7) : static_cast<size_type>(rng() % 201);
}

inline ::testing::AssertionResult same(const ref::words& expected, const ref::words& got, const char* what) {
  if (expected.size() != got.size())
    return ::testing::AssertionFailure() << what << ": " << got.size() << " words, expected " << expected.size();
  for (std::size_t w = 0; w < expected.size(); ++w)
    if (expected[w] != got[w]) {
      // One stream: AssertionResult streams each part on its own, so std::hex would not reach the words.
      std::ostringstream os;
      os << what << " word " << w << ": expected 0x" << std::hex << expected[w] << " got 0x" << got[w];
      return ::testing::AssertionFailure() << os.str();
    }
  return ::testing::AssertionSuccess();
}

inline kmask::dest_mask as_dest(const view_t<TEST_EXECSPACE>& v) {
  return {v.data(), static_cast<size_type>(v.extent(0))};
}
inline kmask::source_mask as_src(const cview& v, size_type begin) {
  return {v.data(), static_cast<size_type>(v.extent(0)), begin};
}

// Disjoint ranges [b, e) over [0, bits): consecutive cuts, some left out, many sharing a word.
inline std::vector<std::pair<size_type, size_type>> random_ranges(std::mt19937_64& rng, size_type bits,
                                                                  size_type max_len) {
  std::vector<std::pair<size_type, size_type>> out;
  size_type at = static_cast<size_type>(rng() % 40);
  while (at < bits) {
    size_type len = 1 + static_cast<size_type>(rng() % static_cast<std::uint64_t>(max_len));
    if (rng() % 8 == 0) len = 0;
    const size_type e = std::min(bits, at + len);
    if (rng() % 5 != 0) out.push_back({at, e});
    at = e + (rng() % 3 == 0 ? static_cast<size_type>(rng() % 50) : 0);
  }
  std::shuffle(out.begin(), out.end(), rng);
  return out;
}

// The pieces reordered by destination address and begin bit (the order engines usually give, which
// the list calls take in one pass without sorting); `order` from dest_order.
template <class View>
std::vector<std::size_t> dest_order(const std::vector<View>& dests, const std::vector<size_type>& begins) {
  std::vector<std::size_t> order(dests.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const auto pa = reinterpret_cast<std::uintptr_t>(dests[a].data()), pb = reinterpret_cast<std::uintptr_t>(dests[b].data());
    return pa != pb ? pa < pb : begins[a] < begins[b];
  });
  return order;
}
template <class T>
void permute(std::vector<T>& v, const std::vector<std::size_t>& order) {
  std::vector<T> out;
  out.reserve(v.size());
  for (std::size_t k : order) out.push_back(v[k]);
  v = out;
}

// Word w becomes a hash of w (a device kernel: the huge test's source).
inline void fill_hash(const TEST_EXECSPACE& exec, const Kokkos::View<word_type*, MS>& v) {
  Kokkos::parallel_for(Kokkos::RangePolicy<TEST_EXECSPACE, Kokkos::IndexType<size_type>>(exec, 0, v.extent(0)),
                       KOKKOS_LAMBDA(size_type w) { v(w) = static_cast<word_type>(w * 2654435761u) ^ 0x5bd1e995u; });
}

}  // namespace move_bits
}  // namespace

TEST(TEST_CATEGORY, set_bits_random_ranges_keep_other_bits) {
  using namespace move_bits;
  TEST_EXECSPACE exec;
  const auto seed = base_seed() + 1501;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  for (int iter = 0; iter < 80; ++iter) {
    const size_type size = random_size(rng), begin = random_offset(rng);
    // Exact length most of the time: the range ends in (or at the end of) the view's last word.
    const size_type words = kmask::num_words(begin + size) + static_cast<size_type>(rng() % 2);
    auto host             = random_words(rng, static_cast<std::size_t>(std::max<size_type>(words, 1)));
    const auto dev        = to_device<TEST_EXECSPACE>(host);
    const bool valid      = rng() % 2 == 0;
    SCOPED_TRACE(::testing::Message() << "set_bits [" << begin << ", " << begin + size << ") to " << valid);
    if (iter % 3 == 0) kmask::set_bits(exec, as_dest(dev), begin, begin + size, valid);
    else if (iter % 3 == 1) kmask::set_bits(exec, dev, begin, begin + size, valid);
    else kmask::set_bits(dev, begin, begin + size, valid);
    exec.fence();
    Kokkos::fence();
    ref::set_range(host, begin, begin + size, valid);
    ASSERT_TRUE(same(host, to_host(dev), "set_bits"));
  }
}

TEST(TEST_CATEGORY, set_bits_bulk_adjacent_ranges_all_land) {
  using namespace move_bits;
  TEST_EXECSPACE exec;
  const auto seed = base_seed() + 1502;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  for (int iter = 0; iter < 12; ++iter) {
    const int nmasks = 1 + static_cast<int>(rng() % 3);
    std::vector<ref::words> host;
    std::vector<view_t<TEST_EXECSPACE>> devs, views;  // devs[m]: mask m; views[i]: range i's mask
    std::vector<kmask::dest_mask> raw;
    std::vector<size_type> begins, ends;
    std::vector<std::size_t> mask_of;
    std::vector<bool> valid;
    for (int m = 0; m < nmasks; ++m) {
      // Once a mask past several host chunks (8192 words each), so shared words meet at team seams.
      const size_type bits = 32 * static_cast<size_type>(iter == 0 && m == 0 ? 40000 : 1 + rng() % 2000);
      host.push_back(random_words(rng, static_cast<std::size_t>(bits / 32)));
      devs.push_back(to_device<TEST_EXECSPACE>(host.back()));
      // Short ranges: thousands of them, most sharing a word with a neighbour.
      for (const auto& r : random_ranges(rng, bits, iter % 2 ? 40 : 300)) {
        views.push_back(devs.back());
        raw.push_back(as_dest(devs.back()));
        begins.push_back(r.first);
        ends.push_back(r.second);
        mask_of.push_back(static_cast<std::size_t>(m));
        valid.push_back(rng() % 2 == 0);
      }
    }
    // Half the rounds in destination order: the one-pass path (shuffled rounds take the sorting one).
    const bool ordered = iter % 4 >= 2;
    if (ordered) {
      const auto order = dest_order(views, begins);
      permute(views, order), permute(raw, order), permute(begins, order), permute(ends, order);
      permute(mask_of, order), permute(valid, order);
    }
    SCOPED_TRACE(::testing::Message() << views.size() << " ranges over " << nmasks << " masks"
                                      << (ordered ? ", in destination order" : ""));
    if (iter % 2 == 0) kmask::set_bits_bulk(exec, views, begins, ends, valid);
    else kmask::set_bits_bulk(exec, raw, begins, ends, valid);
    exec.fence();
    for (std::size_t i = 0; i < views.size(); ++i) ref::set_range(host[mask_of[i]], begins[i], ends[i], valid[i]);
    for (std::size_t m = 0; m < devs.size(); ++m) ASSERT_TRUE(same(host[m], to_host(devs[m]), "set_bits_bulk mask"));
  }
}

TEST(TEST_CATEGORY, copy_bits_any_offsets_keep_other_bits) {
  using namespace move_bits;
  TEST_EXECSPACE exec;
  const auto seed = base_seed() + 1503;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  for (int iter = 0; iter < 120; ++iter) {
    const size_type size = random_size(rng), db = random_offset(rng), sb = random_offset(rng);
    auto dhost = random_words(rng, static_cast<std::size_t>(std::max<size_type>(kmask::num_words(db + size), 1)) +
                                       rng() % 2);
    const auto shost = random_words(rng, static_cast<std::size_t>(std::max<size_type>(kmask::num_words(sb + size), 1)));
    const auto dest  = to_device<TEST_EXECSPACE>(dhost);
    const bool absent = iter % 11 == 5;
    const cview src   = absent ? cview() : cview(to_device<TEST_EXECSPACE>(shost));
    SCOPED_TRACE(::testing::Message() << "copy " << size << " bits from " << sb << " to " << db
                                      << (absent ? " (absent source)" : ""));
    switch (iter % 3) {
      case 0: kmask::copy_bits(exec, dest, db, src, sb, size); break;
      case 1: kmask::copy_bits(exec, as_dest(dest), db, as_src(src, sb), size); break;
      default: kmask::copy_bits(dest, db, src, sb, size); break;
    }
    exec.fence();
    Kokkos::fence();
    ref::copy_range(dhost, db, absent ? nullptr : &shost, sb, size);
    ASSERT_TRUE(same(dhost, to_host(dest), "copy_bits"));
  }
}

TEST(TEST_CATEGORY, copy_bits_overlapping_source_reads_contents_before_the_call) {
  using namespace move_bits;
  TEST_EXECSPACE exec;
  const auto seed = base_seed() + 1504;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  for (int iter = 0; iter < 60; ++iter) {
    const std::size_t words = 8 + rng() % 300;
    auto host               = random_words(rng, words);
    const auto dev          = to_device<TEST_EXECSPACE>(host);
    const size_type total   = 32 * static_cast<size_type>(words);
    // Source and destination in the same view, shifted either way by a few bits or words.
    const size_type size = static_cast<size_type>(rng() % static_cast<std::uint64_t>(total / 2));
    const size_type sb   = static_cast<size_type>(rng() % static_cast<std::uint64_t>(total - size));
    size_type db         = sb + (static_cast<size_type>(rng() % 200) - 100);
    db                   = std::max<size_type>(0, std::min(db, total - size));
    // A source view that starts a few words into the destination's view: other data pointer.
    const std::size_t skip = rng() % 3;
    const cview src        = Kokkos::subview(cview(dev), std::make_pair(skip, words));
    const size_type sb_in  = std::max<size_type>(0, sb - 32 * static_cast<size_type>(skip));
    SCOPED_TRACE(::testing::Message() << "copy " << size << " bits from " << sb_in << " (+" << skip << " words) to "
                                      << db);
    if (iter % 2) kmask::copy_bits(exec, dev, db, src, sb_in, size);
    else kmask::copy_bits(exec, as_dest(dev), db, as_src(src, sb_in), size);
    exec.fence();
    ref::copy_range(host, db, &host, sb_in + 32 * static_cast<size_type>(skip), size);
    ASSERT_TRUE(same(host, to_host(dev), "copy_bits aliased"));
  }
}

TEST(TEST_CATEGORY, segmented_copy_bits_many_pieces_sharing_words) {
  using namespace move_bits;
  TEST_EXECSPACE exec;
  const auto seed = base_seed() + 1505;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  for (int iter = 0; iter < 10; ++iter) {
    const bool aliased = iter % 3 == 2;  // sources drawn from the destinations themselves
    std::vector<ref::words> dhost;
    std::vector<view_t<TEST_EXECSPACE>> ddev;
    for (int m = 0; m < 1 + iter % 3; ++m) {
      dhost.push_back(random_words(rng, 1 + rng() % 1500));
      ddev.push_back(to_device<TEST_EXECSPACE>(dhost.back()));
    }
    std::vector<ref::words> pool;
    std::vector<cview> pool_dev;
    for (int p = 0; p < 7; ++p) {
      pool.push_back(random_words(rng, 1 + rng() % 400));
      pool_dev.push_back(to_device<TEST_EXECSPACE>(pool.back()));
    }
    std::vector<view_t<TEST_EXECSPACE>> dests;
    std::vector<cview> srcs;
    std::vector<kmask::dest_mask> rdests;
    std::vector<kmask::source_mask> rsrcs;
    std::vector<size_type> dbs, sbs, sizes;
    std::vector<std::size_t> dpick;
    std::vector<long> spick;  // -1: absent; >= 1000: destination spick - 1000
    for (std::size_t m = 0; m < ddev.size(); ++m) {
      for (const auto& r : random_ranges(rng, 32 * static_cast<size_type>(dhost[m].size()), iter % 2 ? 30 : 400)) {
        const size_type size = r.second - r.first;
        long pick            = static_cast<long>(rng() % pool.size());
        if (rng() % 13 == 0) pick = -1;
        if (aliased && rng() % 2) pick = 1000 + static_cast<long>(rng() % ddev.size());
        const size_type cap = pick < 0 ? size + 200 : 32 * static_cast<size_type>(pick >= 1000 ? dhost[pick - 1000].size() : pool[pick].size());
        if (pick >= 0 && cap < size) pick = -1;
        const size_type sb = pick < 0 ? 0 : static_cast<size_type>(rng() % static_cast<std::uint64_t>(cap - size + 1));
        const cview sv     = pick < 0 ? cview() : pick >= 1000 ? cview(ddev[pick - 1000]) : pool_dev[pick];
        dests.push_back(ddev[m]);
        srcs.push_back(sv);
        rdests.push_back(as_dest(ddev[m]));
        rsrcs.push_back(as_src(sv, sb));
        dbs.push_back(r.first);
        sbs.push_back(sb);
        sizes.push_back(size);
        dpick.push_back(m);
        spick.push_back(pick);
      }
    }
    // Some rounds in destination order: the one-pass path, unless a source overlaps a destination.
    const bool ordered = iter % 4 >= 2;
    if (ordered) {
      const auto order = dest_order(dests, dbs);
      permute(dests, order), permute(srcs, order), permute(rdests, order), permute(rsrcs, order);
      permute(dbs, order), permute(sbs, order), permute(sizes, order), permute(dpick, order), permute(spick, order);
    }
    SCOPED_TRACE(::testing::Message() << dests.size() << " pieces" << (aliased ? ", aliased" : "")
                                      << (ordered ? ", in destination order" : ""));
    if (iter % 2 == 0) kmask::segmented_copy_bits(exec, dests, dbs, srcs, sbs, sizes);
    else kmask::segmented_copy_bits(exec, rdests, dbs, rsrcs, sizes);
    exec.fence();
    const std::vector<ref::words> before = dhost;
    for (std::size_t i = 0; i < dests.size(); ++i) {
      const ref::words* s = spick[i] < 0 ? nullptr : spick[i] >= 1000 ? &before[spick[i] - 1000] : &pool[spick[i]];
      ref::copy_range(dhost[dpick[i]], dbs[i], s, sbs[i], sizes[i]);
    }
    for (std::size_t m = 0; m < ddev.size(); ++m) ASSERT_TRUE(same(dhost[m], to_host(ddev[m]), "segmented_copy_bits"));
  }
}

TEST(TEST_CATEGORY, concatenate_pieces_and_null_count) {
  using namespace move_bits;
  TEST_EXECSPACE exec;
  const auto seed = base_seed() + 1506;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  // 63 and 64 pieces (64 and 65 with the closing zeros): the GPU form's lists in the kernel's
  // arguments end at 64 pieces (argument_pieces), longer ones travel in a lease.
  const std::size_t piece_counts[] = {0, 1, 2, 7, 63, 64, 100, 3000};
  for (int iter = 0; iter < 24; ++iter) {
    const std::size_t n = piece_counts[iter % 8];
    std::vector<ref::words> host(n);
    std::vector<cview> masks;
    std::vector<kmask::source_mask> raw;
    std::vector<const ref::words*> rp;
    std::vector<size_type> begins, sizes;
    for (std::size_t p = 0; p < n; ++p) {
      const size_type size = n > 100 ? static_cast<size_type>(rng() % 100) : random_size(rng);
      const size_type b    = random_offset(rng);
      const bool absent    = rng() % 9 == 0;
      host[p]              = random_words(rng, static_cast<std::size_t>(std::max<size_type>(kmask::num_words(b + size), 1)));
      masks.push_back(absent ? cview() : cview(to_device<TEST_EXECSPACE>(host[p])));
      raw.push_back(as_src(masks.back(), b));
      rp.push_back(absent ? nullptr : &host[p]);
      begins.push_back(b);
      sizes.push_back(size);
    }
    const auto e = ref::concatenate(rp, begins, sizes);
    size_type total = 0;
    for (auto s : sizes) total += s;
    SCOPED_TRACE(::testing::Message() << n << " pieces, " << total << " bits");
    // The allocating form: padded, bits past the total and padding zero.
    const auto got = iter % 2 ? kmask::concatenate(exec, masks, begins, sizes) : kmask::concatenate(exec, raw, sizes);
    const auto words = to_host(got.first);
    ASSERT_EQ(static_cast<size_type>(words.size()), kmask::allocation_size_bytes(total) / 4);
    ASSERT_TRUE(same(e.mask, ref::words(words.begin(), words.begin() + static_cast<long>(e.mask.size())), "concatenate"));
    for (std::size_t w = e.mask.size(); w < words.size(); ++w) ASSERT_EQ(words[w], 0u) << "padding word " << w;
    EXPECT_EQ(got.second, e.nulls);
    // In place into a poisoned destination with two words to spare: they keep their poison.
    auto dest        = poisoned_destinations<TEST_EXECSPACE>(1, total, 2)[0];
    const auto count = poisoned_counts<TEST_EXECSPACE>(2);
    if (iter % 3 == 0) kmask::inplace_concatenate(exec, dest, masks, begins, sizes, count);
    else if (iter % 3 == 1) kmask::inplace_concatenate(exec, as_dest(dest), raw, sizes, count);
    else kmask::inplace_concatenate(dest, masks, begins, sizes, count);
    exec.fence();
    Kokkos::fence();
    auto expect_dest = e.mask;
    expect_dest.push_back(poison);
    expect_dest.push_back(poison);
    ASSERT_TRUE(same(expect_dest, to_host(dest), "inplace_concatenate"));
    const auto c = counts_to_host(count);
    EXPECT_EQ(c[0], e.nulls);
    EXPECT_EQ(c[1], -777) << "a counter past null_count(0) was written";
  }
}

// Piece lists at and around the most the GPU form carries in the kernel's arguments
// (argument_pieces: 64), each in both routes: set_bits_bulk and segmented_copy_bits over ranges
// that share words (uncounted), and inplace_concatenate into a poisoned destination (counted on
// the device); a list whose sources overlap its destinations is staged and goes the lease's way.
TEST(TEST_CATEGORY, piece_lists_around_the_argument_capacity) {
  using namespace move_bits;
  TEST_EXECSPACE exec;
  const auto seed = base_seed() + 1510;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  constexpr std::size_t cap = kmask::detail::argument_pieces::capacity;
  for (const std::size_t n : {std::size_t{4}, std::size_t{5}, cap - 1, cap, cap + 1, 2 * cap})
    for (const bool aliased : {false, true}) {
      SCOPED_TRACE(::testing::Message() << n << " pieces" << (aliased ? ", sources inside the destination" : ""));
      // n adjacent ranges of 1-70 bits over one mask, starting anywhere in a word.
      std::vector<size_type> begins, ends, sizes, sbegins;
      size_type at = static_cast<size_type>(rng() % 40);
      for (std::size_t i = 0; i < n; ++i) {
        const size_type len = 1 + static_cast<size_type>(rng() % 70);
        begins.push_back(at), ends.push_back(at + len), sizes.push_back(len);
        at += len;
      }
      const size_type bits = at + 200;  // room for every source range below
      auto host            = random_words(rng, static_cast<std::size_t>(kmask::num_words(bits)));
      const auto src_host  = random_words(rng, static_cast<std::size_t>(kmask::num_words(bits)) + 2);
      const cview src      = to_device<TEST_EXECSPACE>(src_host);
      std::vector<bool> valid;
      for (std::size_t i = 0; i < n; ++i) valid.push_back(rng() % 2 == 0);

      auto bulk_host = host;
      const auto bulk = to_device<TEST_EXECSPACE>(bulk_host);
      kmask::set_bits_bulk(exec, std::vector<view_t<TEST_EXECSPACE>>(n, bulk), begins, ends, valid);

      // segmented_copy_bits: piece i from bit sbegins[i] of `src`, or of the destination itself.
      auto copy_host  = host;
      const auto copy = to_device<TEST_EXECSPACE>(copy_host);
      std::vector<cview> srcs;
      for (std::size_t i = 0; i < n; ++i) {
        sbegins.push_back(static_cast<size_type>(rng() % 60));
        srcs.push_back(aliased && i % 2 ? cview(copy) : src);
      }
      kmask::segmented_copy_bits(exec, std::vector<view_t<TEST_EXECSPACE>>(n, copy), begins, srcs, sbegins, sizes);

      // inplace_concatenate of the same pieces, read from `src` (or from its own destination).
      const size_type total = at - begins[0];
      auto cat              = poisoned_destinations<TEST_EXECSPACE>(1, total, 1)[0];
      const auto cat_before = to_host(cat);
      const auto count      = poisoned_counts<TEST_EXECSPACE>(1);
      std::vector<cview> cat_srcs;
      const auto from_cat = [&](std::size_t i) {
        return aliased && i % 3 == 0 && sbegins[i] + sizes[i] <= 32 * static_cast<size_type>(cat.extent(0));
      };
      for (std::size_t i = 0; i < n; ++i) cat_srcs.push_back(from_cat(i) ? cview(cat) : src);
      kmask::inplace_concatenate(exec, cat, cat_srcs, sbegins, sizes, count);
      exec.fence();

      for (std::size_t i = 0; i < n; ++i) ref::set_range(bulk_host, begins[i], ends[i], valid[i]);
      ASSERT_TRUE(same(bulk_host, to_host(bulk), "set_bits_bulk"));
      const auto copy_before = copy_host;
      for (std::size_t i = 0; i < n; ++i)
        ref::copy_range(copy_host, begins[i], aliased && i % 2 ? &copy_before : &src_host, sbegins[i], sizes[i]);
      ASSERT_TRUE(same(copy_host, to_host(copy), "segmented_copy_bits"));
      std::vector<const ref::words*> rp;
      for (std::size_t i = 0; i < n; ++i) rp.push_back(from_cat(i) ? &cat_before : &src_host);
      const auto e     = ref::concatenate(rp, sbegins, sizes);
      auto expect_cat  = e.mask;
      expect_cat.push_back(poison);
      ASSERT_TRUE(same(expect_cat, to_host(cat), "inplace_concatenate"));
      EXPECT_EQ(counts_to_host(count)[0], e.nulls);
    }
}

TEST(TEST_CATEGORY, inplace_concatenate_from_its_own_destination) {
  using namespace move_bits;
  TEST_EXECSPACE exec;
  const auto seed = base_seed() + 1507;
  SCOPED_TRACE(seed_note(seed));
  std::mt19937_64 rng(seed);
  for (int iter = 0; iter < 20; ++iter) {
    auto host      = random_words(rng, 20 + rng() % 200);
    const auto dev = to_device<TEST_EXECSPACE>(host);
    const size_type cap = 32 * static_cast<size_type>(host.size());
    std::vector<cview> masks;
    std::vector<size_type> begins, sizes;
    std::vector<const ref::words*> rp;
    size_type total = 0;
    for (int p = 0; p < 1 + iter % 5; ++p) {
      const size_type size = static_cast<size_type>(rng() % static_cast<std::uint64_t>(cap / 6));
      masks.push_back(dev);
      begins.push_back(static_cast<size_type>(rng() % static_cast<std::uint64_t>(cap - size)));
      sizes.push_back(size);
      rp.push_back(&host);
      total += size;
    }
    const auto e     = ref::concatenate(rp, begins, sizes);
    const auto count = poisoned_counts<TEST_EXECSPACE>(1);
    kmask::inplace_concatenate(exec, dev, masks, begins, sizes, count);
    exec.fence();
    auto expect = host;
    for (std::size_t w = 0; w < e.mask.size(); ++w) expect[w] = e.mask[w];
    ASSERT_TRUE(same(expect, to_host(dev), "inplace_concatenate aliased"));
    EXPECT_EQ(counts_to_host(count)[0], e.nulls);
  }
}

TEST(TEST_CATEGORY, move_bits_reject_bad_input_and_write_nothing) {
  using namespace move_bits;
  using IA = std::invalid_argument;
  using OR = std::out_of_range;
  using errors::expect_rejected;
  TEST_EXECSPACE exec;
  const size_type too_large = errors::too_large;
  errors::untouched<TEST_EXECSPACE> kept;
  auto d0 = poisoned_destinations<TEST_EXECSPACE>(1, 128, 0)[0];  // 4 words
  auto d1 = poisoned_destinations<TEST_EXECSPACE>(1, 128, 0)[0];
  kept.poisoned = {d0, d1};
  const auto count = poisoned_counts<TEST_EXECSPACE>(1);
  kept.counters    = {count};
  const ref::words shost{0x12345678u, 0x9abcdef0u, 0x0f0f0f0fu, 0xf0f0f0f0u};
  const cview s    = to_device<TEST_EXECSPACE>(shost);
  kept.sources     = {{s, shost}};
  const view_t<TEST_EXECSPACE> null_view;
  const kmask::dest_mask nd{nullptr, 0}, neg{d0.data(), -2};
  const kmask::source_mask null_ext{nullptr, 4, 0};

  // set_bits
  const std::string sb = "kmask::set_bits: ";
  expect_rejected<IA>(kept, [&] { kmask::set_bits(exec, d0, -1, 5, true); }, sb + "begin_bit = -1 is negative");
  expect_rejected<IA>(kept, [&] { kmask::set_bits(exec, d0, 10, 5, true); }, sb + "end_bit = 5 is less than begin_bit = 10");
  expect_rejected<IA>(kept, [&] { kmask::set_bits(exec, d0, 0, too_large, true); }, sb + "end_bit = 4611686018427387904 is too large");
  expect_rejected<OR>(kept, [&] { kmask::set_bits(exec, d0, 100, 129, false); },
                      sb + "end_bit = 129 is past the 128 bits of mask (4 words)");
  expect_rejected<IA>(kept, [&] { kmask::set_bits(exec, null_view, 0, 1, true); },
                      sb + "mask is a null view but 1 bits are written to it");
  expect_rejected<IA>(kept, [&] { kmask::set_bits(exec, nd, 0, 1, true); },
                      sb + "mask is a null pointer but 1 bits are written to it");
  expect_rejected<IA>(kept, [&] { kmask::set_bits(exec, neg, 0, 1, true); }, sb + "mask.extent_words = -2 is negative");

  // set_bits_bulk
  const std::string bb = "kmask::set_bits_bulk: ";
  const std::vector<view_t<TEST_EXECSPACE>> two{d0, d0};
  expect_rejected<IA>(kept, [&] { kmask::set_bits_bulk(exec, two, {0}, {1, 2}, {true, true}); },
                      bb + "masks.size() = 2 differs from begin_bits.size() = 1");
  expect_rejected<IA>(kept, [&] { kmask::set_bits_bulk(exec, two, {0, 5}, {1}, {true}); },
                      bb + "masks.size() = 2 differs from end_bits.size() = 1");
  expect_rejected<IA>(kept, [&] { kmask::set_bits_bulk(exec, two, {0, 5}, {1, 6}, {true}); },
                      bb + "masks.size() = 2 differs from valid.size() = 1");
  expect_rejected<IA>(kept, [&] { kmask::set_bits_bulk(exec, two, {0, -3}, {1, 6}, {true, true}); },
                      bb + "begin_bits[1] = -3 is negative");
  expect_rejected<IA>(kept, [&] { kmask::set_bits_bulk(exec, two, {0, 9}, {1, 6}, {true, true}); },
                      bb + "end_bits[1] = 6 is less than begin_bits[1] = 9");
  expect_rejected<OR>(kept, [&] { kmask::set_bits_bulk(exec, two, {0, 9}, {1, 200}, {true, true}); },
                      bb + "end_bits[1] = 200 is past the 128 bits of masks[1] (4 words)");
  expect_rejected<IA>(kept, [&] { kmask::set_bits_bulk(exec, two, {40, 10}, {50, 41}, {true, false}); },
                      bb + "masks[1] bits [10, 41) overlap masks[0] bits [40, 50): both would be written at once");
  // More pieces than a launch carries in its arguments: in order (found in the one pass, also against
  // a piece further back than the last) and shuffled (found by sorting).
  const std::vector<view_t<TEST_EXECSPACE>> six(6, d0);
  expect_rejected<IA>(kept, [&] { kmask::set_bits_bulk(exec, six, {0, 10, 20, 30, 35, 60}, {10, 20, 30, 40, 45, 70}, std::vector<bool>(6, true)); },
                      bb + "masks[4] bits [35, 45) overlap masks[3] bits [30, 40): both would be written at once");
  expect_rejected<IA>(kept, [&] { kmask::set_bits_bulk(exec, six, {0, 5, 8, 12, 14, 50}, {40, 8, 12, 14, 20, 60}, std::vector<bool>(6, false)); },
                      bb + "masks[1] bits [5, 8) overlap masks[0] bits [0, 40): both would be written at once");
  expect_rejected<IA>(kept, [&] { kmask::set_bits_bulk(exec, six, {60, 0, 10, 20, 35, 30}, {70, 10, 20, 30, 45, 40}, std::vector<bool>(6, true)); },
                      bb + "masks[5] bits [30, 40) overlap masks[4] bits [35, 45): both would be written at once");
  expect_rejected<IA>(kept, [&] { kmask::set_bits_bulk(exec, std::vector<kmask::dest_mask>{as_dest(d1), nd}, {0, 0}, {1, 6}, {true, true}); },
                      bb + "masks[1] is a null pointer but 6 bits are written to it");

  // copy_bits
  const std::string cb = "kmask::copy_bits: ";
  expect_rejected<IA>(kept, [&] { kmask::copy_bits(exec, d0, 0, s, 0, -1); }, cb + "size_bits = -1 is negative");
  expect_rejected<IA>(kept, [&] { kmask::copy_bits(exec, d0, 0, s, 0, too_large); },
                      cb + "size_bits = 4611686018427387904 is too large");
  expect_rejected<IA>(kept, [&] { kmask::copy_bits(exec, d0, -2, s, 0, 5); }, cb + "dest_begin_bit = -2 is negative");
  expect_rejected<IA>(kept, [&] { kmask::copy_bits(exec, d0, 0, s, -2, 5); }, cb + "src_begin_bit = -2 is negative");
  expect_rejected<OR>(kept, [&] { kmask::copy_bits(exec, d0, 100, s, 0, 29); },
                      cb + "dest_begin_bit + size_bits = 100 + 29 is past the 128 bits of dest (4 words)");
  expect_rejected<OR>(kept, [&] { kmask::copy_bits(exec, d0, 0, s, 29, 100); },
                      cb + "src_begin_bit + size_bits = 29 + 100 is past the 128 bits of src (4 words)");
  expect_rejected<IA>(kept, [&] { kmask::copy_bits(exec, null_view, 0, s, 0, 3); },
                      cb + "dest is a null view but 3 bits are written to it");
  expect_rejected<IA>(kept, [&] { kmask::copy_bits(exec, as_dest(d0), 0, null_ext, 3); },
                      cb + "src is a null pointer but its extent is 4 words (only an empty null mask reads as all valid)");
  expect_rejected<IA>(kept, [&] { kmask::copy_bits(exec, as_dest(d0), 0, kmask::source_mask{s.data(), 4, -1}, 3); },
                      cb + "src.begin_bit = -1 is negative");
  expect_rejected<OR>(kept, [&] { kmask::copy_bits(exec, as_dest(d0), 0, kmask::source_mask{s.data(), 4, 100}, 29); },
                      cb + "src.begin_bit + size_bits = 100 + 29 is past the 128 bits of src (4 words)");

  // segmented_copy_bits
  const std::string sc = "kmask::segmented_copy_bits: ";
  const std::vector<cview> srcs{s, s};
  const std::vector<view_t<TEST_EXECSPACE>> dd{d0, d1};
  expect_rejected<IA>(kept, [&] { kmask::segmented_copy_bits(exec, dd, {0, 0}, srcs, {0}, {1, 1}); },
                      sc + "srcs.size() = 2 differs from src_begin_bits.size() = 1");
  expect_rejected<IA>(kept, [&] { kmask::segmented_copy_bits(exec, dd, {0}, srcs, {0, 0}, {1, 1}); },
                      sc + "dests.size() = 2 differs from dest_begin_bits.size() = 1");
  expect_rejected<IA>(kept, [&] { kmask::segmented_copy_bits(exec, dd, {0, 0}, srcs, {0, 0}, {1}); },
                      sc + "dests.size() = 2 differs from sizes_bits.size() = 1");
  expect_rejected<IA>(kept, [&] { kmask::segmented_copy_bits(exec, dd, {0, 0}, srcs, {0, 0}, {1, -4}); },
                      sc + "sizes_bits[1] = -4 is negative");
  expect_rejected<OR>(kept, [&] { kmask::segmented_copy_bits(exec, dd, {0, 100}, srcs, {0, 0}, {1, 29}); },
                      sc + "dest_begin_bits[1] + sizes_bits[1] = 100 + 29 is past the 128 bits of dests[1] (4 words)");
  expect_rejected<OR>(kept, [&] { kmask::segmented_copy_bits(exec, dd, {0, 0}, srcs, {0, 100}, {1, 29}); },
                      sc + "src_begin_bits[1] + sizes_bits[1] = 100 + 29 is past the 128 bits of srcs[1] (4 words)");
  expect_rejected<IA>(kept, [&] { kmask::segmented_copy_bits(exec, two, {0, 31}, srcs, {0, 0}, {32, 20}); },
                      sc + "dests[1] bits [31, 51) overlap dests[0] bits [0, 32): both would be written at once");
  const std::vector<cview> srcs6(6, s);
  expect_rejected<IA>(kept, [&] { kmask::segmented_copy_bits(exec, six, {0, 10, 20, 30, 35, 60}, srcs6, {0, 1, 2, 3, 4, 5}, {10, 10, 10, 10, 10, 10}); },
                      sc + "dests[4] bits [35, 45) overlap dests[3] bits [30, 40): both would be written at once");
  expect_rejected<IA>(kept, [&] { kmask::segmented_copy_bits(exec, six, {60, 0, 10, 20, 35, 30}, srcs6, {0, 1, 2, 3, 4, 5}, {10, 10, 10, 10, 10, 10}); },
                      sc + "dests[5] bits [30, 40) overlap dests[4] bits [35, 45): both would be written at once");
  // A bad piece after an overlap: the per-piece checks come first, as they do in every order.
  expect_rejected<OR>(kept, [&] { kmask::segmented_copy_bits(exec, six, {0, 10, 20, 30, 35, 100}, srcs6, {0, 1, 2, 3, 4, 5}, {10, 10, 10, 10, 10, 29}); },
                      sc + "dest_begin_bits[5] + sizes_bits[5] = 100 + 29 is past the 128 bits of dests[5] (4 words)");
  expect_rejected<IA>(kept, [&] {
    kmask::segmented_copy_bits(exec, std::vector<kmask::dest_mask>{as_dest(d0), as_dest(d1)}, {0, 0},
                               std::vector<kmask::source_mask>{as_src(s, 0), null_ext}, {1, 1});
  }, sc + "srcs[1] is a null pointer but its extent is 4 words");

  // concatenate / inplace_concatenate
  const std::string ca = "kmask::concatenate: ", ic = "kmask::inplace_concatenate: ";
  expect_rejected<IA>(kept, [&] { kmask::concatenate(exec, srcs, {0}, {1, 1}); },
                      ca + "masks.size() = 2 differs from begin_bits.size() = 1");
  expect_rejected<IA>(kept, [&] { kmask::concatenate(exec, srcs, {0, 0}, {1}); },
                      ca + "masks.size() = 2 differs from sizes_bits.size() = 1");
  expect_rejected<IA>(kept, [&] { kmask::concatenate(exec, srcs, {0, 0}, {1, -1}); }, ca + "sizes_bits[1] = -1 is negative");
  expect_rejected<IA>(kept, [&] { kmask::concatenate(exec, srcs, {0, -1}, {1, 1}); }, ca + "begin_bits[1] = -1 is negative");
  expect_rejected<OR>(kept, [&] { kmask::concatenate(exec, srcs, {0, 100}, {1, 29}); },
                      ca + "begin_bits[1] + sizes_bits[1] = 100 + 29 is past the 128 bits of masks[1] (4 words)");
  const std::vector<cview> absent2{cview(), cview()};
  expect_rejected<IA>(kept, [&] { kmask::concatenate(exec, absent2, {0, 0}, {too_large - 1, too_large - 1}); },
                      ca + "sizes_bits add up to");
  expect_rejected<IA>(kept, [&] { kmask::inplace_concatenate(exec, d0, srcs, {0, 0}, {1, 1}, counter_t()); },
                      ic + "null_count is a null view but 1 counts are written to it");
  expect_rejected<OR>(kept, [&] { kmask::inplace_concatenate(exec, d0, srcs, {0, 0}, {100, 29}, count); },
                      ic + "dest has 4 words but the pieces' 129 bits need 5");
  expect_rejected<IA>(kept, [&] { kmask::inplace_concatenate(exec, null_view, srcs, {0, 0}, {1, 1}, count); },
                      ic + "dest is a null view but the pieces' 2 bits are written to it");
  expect_rejected<IA>(kept, [&] { kmask::inplace_concatenate(exec, as_dest(d0), std::vector<kmask::source_mask>{as_src(s, -5)}, {1}, count); },
                      ic + "masks[0].begin_bit = -5 is negative");
}

TEST(TEST_CATEGORY, copy_bits_past_2_to_the_32_bits) {
  if (std::getenv("KMASK_TEST_SKIP_HUGE")) GTEST_SKIP() << "KMASK_TEST_SKIP_HUGE is set (needs ~1.1 GB)";
  TEST_EXECSPACE exec;
  using MS = typename TEST_EXECSPACE::memory_space;
  // 2^32 + 77 bits from source bit 19 to destination bit (2^31 + 5): both ranges cross 2^32.
  const size_type size = (size_type{1} << 32) + 77, sb = 19, db = (size_type{1} << 31) + 5;
  const size_type swords = kmask::num_words(sb + size), dwords = kmask::num_words(db + size) + 1;
  Kokkos::View<word_type*, MS> src(Kokkos::view_alloc(Kokkos::WithoutInitializing, "src"), swords);
  Kokkos::View<word_type*, MS> dest(Kokkos::view_alloc(Kokkos::WithoutInitializing, "dest"), dwords);
  move_bits::fill_hash(exec, src);  // the destination starts as poison
  Kokkos::deep_copy(exec, dest, poison);
  kmask::copy_bits(exec, dest, db, src, sb, size);
  exec.fence();
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, dest);
  const auto s = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, src);
  const auto bit = [](const auto& v, size_type i) { return (v(i / 32) >> (i % 32)) & 1u; };
  // Every bit near both ends and around 2^32 on each side, and a sparse sample of the middle.
  std::vector<size_type> probes;
  for (size_type i = 0; i < 5000; ++i) {
    probes.push_back(i);
    probes.push_back(size - 1 - i);
    probes.push_back((size_type{1} << 32) - db - 2500 + i);
    probes.push_back((size_type{1} << 32) - sb - 2500 + i);
  }
  for (size_type i = 0; i < size; i += 999983) probes.push_back(i);
  for (size_type i : probes)
    if (i < size && bit(h, db + i) != bit(s, sb + i)) FAIL() << "bit " << i << " of the copy (of " << size << ")";
  // The poison around the range survives.
  for (size_type i = db - 64; i < db; ++i) ASSERT_EQ(bit(h, i), (poison >> (i % 32)) & 1u) << "bit " << i << " before";
  for (size_type i = db + size; i < 32 * dwords; ++i) ASSERT_EQ(bit(h, i), (poison >> (i % 32)) & 1u) << "bit " << i << " after";
  // Middle words wholly inside the range, checked word for word.
  for (size_type w = db / 32 + 1; w < (db + size) / 32 - 1; w += 4093) {
    word_type want = 0;
    for (int k = 0; k < 32; ++k) want |= static_cast<word_type>(bit(s, sb + (32 * w + k - db))) << k;
    ASSERT_EQ(h(w), want) << "word " << w;
  }
}

namespace {
namespace move_bits {

// Runs the CPU form's chunk functor over `list` with chunks of `chunk` work items on `exec` and
// returns the counted zeros: small chunks put chunk boundaries between the pieces that share a word.
template <class ExecSpace>
size_type run_cpu_chunks(const ExecSpace& exec, const kmask::detail::uploaded_pieces& list, size_type total,
                         size_type chunk) {
  const kmask::detail::move_chunk_functor<kmask::detail::uploaded_pieces> f{list, total, chunk};
  size_type nulls = 0;
  Kokkos::parallel_reduce(
      "test::cpu_chunks", Kokkos::RangePolicy<ExecSpace>(exec, 0, (total + chunk - 1) / chunk),
      KOKKOS_LAMBDA(size_type c, size_type & n) { f(c, n); }, nulls);
  exec.fence();
  return nulls;
}

template <class ExecSpace>
void check_ordered_cpu_chunks() {
  using namespace kmask::detail;
  ExecSpace exec;
  std::mt19937_64 rng(base_seed() + 63);
  for (int iter = 0; iter < 12; ++iter) {
    // Pieces of 1-70 bits in address order, mostly back to back (so neighbours share edge words,
    // several pieces inside one word at times), some with gaps whose bits must survive.
    const std::size_t dest_words = 200 + rng() % 200;
    const ref::words src         = random_words(rng, 400);
    const ref::words start       = random_words(rng, dest_words);
    std::vector<word_type> dest(start.begin(), start.end());
    ref::words want = start;
    std::vector<move_piece> pieces;
    std::vector<size_type> offsets{0};
    size_type at = static_cast<size_type>(rng() % 40), nulls = 0;
    while (true) {
      const size_type size = 1 + static_cast<size_type>(rng() % (rng() % 4 == 0 ? 70 : 12));
      if (at + size > static_cast<size_type>(32 * dest_words)) break;
      move_piece p{};
      p.dest       = dest.data() + at / 32;
      p.dest_shift = static_cast<std::int32_t>(at % 32);
      p.size       = size;
      p.counted    = static_cast<std::uint16_t>(rng() % 2);
      const int kind = static_cast<int>(rng() % 3);  // 0: copy, 1: copy inverted, 2: constant
      p.fill         = kind == 0 ? 0u : kind == 1 ? ~0u : (rng() % 2 ? ~0u : 0u);
      if (kind < 2) {
        const size_type sb = static_cast<size_type>(rng() % (32 * 400 - 80));
        p.src              = reinterpret_cast<const word_type*>(src.data()) + sb / 32;
        p.src_shift        = static_cast<std::int32_t>(sb % 32);
        for (size_type i = 0; i < size; ++i) ref::set_bit(want, at + i, ref::get_bit(src, sb + i) ^ (kind == 1));
      } else {
        ref::set_range(want, at, at + size, p.fill != 0 ? 1 : 0);
      }
      if (p.counted) nulls += size - ref::count_set(want, at, at + size);
      pieces.push_back(p);
      offsets.push_back(offsets.back() + piece_words(p));
      at += size + (rng() % 8 == 0 ? static_cast<size_type>(rng() % 40) : 0);
    }
    const uploaded_pieces list{pieces.data(), offsets.data(), static_cast<size_type>(pieces.size()), true};
    for (const size_type chunk : {1, 2, 3, 5, 8, 64, 100000}) {
      std::copy(start.begin(), start.end(), dest.begin());
      const size_type got = run_cpu_chunks(exec, list, offsets.back(), chunk);
      for (std::size_t w = 0; w < dest_words; ++w)
        ASSERT_EQ(dest[w], want[w]) << "word " << w << " of " << pieces.size() << " ordered pieces, chunks of " << chunk
                                    << " items; " << seed_note(base_seed());
      ASSERT_EQ(got, nulls) << pieces.size() << " pieces, chunks of " << chunk;
    }
  }
}

}  // namespace move_bits
}  // namespace

// The CPU form writes an edge word that only its own chunk's pieces touch with a plain
// read-modify-write (ordered lists): pieces sharing words, at every chunk boundary, on every thread
// count, against the reference; bits between pieces survive.
TEST(TEST_CATEGORY, move_bits_cpu_chunks_of_ordered_pieces_keep_shared_words) {
  if constexpr (!kmask::detail::uses_cpu_kernels<TEST_EXECSPACE>()) {
    GTEST_SKIP() << "the GPU form has no chunks (its edge words always merge atomically); the host spaces' "
                    "instantiations check the CPU form";
  } else {
    move_bits::check_ordered_cpu_chunks<TEST_EXECSPACE>();
  }
}
