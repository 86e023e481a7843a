// libFuzzer target for kmask's segmented binop family on hostile inputs.
//
// Each input is decoded (FuzzedDataProvider) into one call of the public API on Kokkos::Serial:
// inplace_segmented_binop (most inputs), segmented_binop_plan + execute (twice), segmented_binop,
// inplace_binop, binop, superimpose_nulls, count_set_bits / count_unset_bits, copy_bitmask,
// segmented_count_set_bits or superimpose_nulls_tree (view or dest_mask form: the destinations
// are the nodes, each read from its own begin bit, with parents that may be out of range, cyclic,
// or of the wrong count), then, on the bytes left, gather_bits / inplace_gather_bits, with bad
// sizes, bad bit offsets, short or null views, bad segment
// offsets, short counters, and destinations that alias sources or each other. Sources (and the
// single mask of superimpose / count / copy) are often absent: a null view of extent 0, which
// reads as all valid (cudf's column without a null mask); a null view with an extent is refused.
//
// Oracles, all independent of the library:
//  * an argument predicate written from the documented contract: the call must throw
//    std::invalid_argument / std::out_of_range (or std::length_error) exactly when the predicate
//    says the arguments are invalid, and the message must start with "kmask::". Which exception
//    and message wins when several arguments are bad at once is not part of the contract, so the
//    type is not checked;
//  * a rejected call writes nothing: every buffer word and counter equals a snapshot taken before;
//  * an accepted call writes exactly what a bit-by-bit reference computes from that snapshot:
//    destination words [0, num_words(size_bits)) with the bits past size_bits clear, every other
//    word of every buffer untouched, null counts [0, num_segments) and nothing past them. An
//    absent source reads as all ones.
// A failure prints the decoded call and the reason, then __builtin_trap().
//
// Every mask and counter lives in a plain `new T[n]` of exactly the words it needs, wrapped in an
// unmanaged Kokkos::View: ASan then sees the exact bounds. (A managed Kokkos 3.4 HostSpace view
// would not do: its allocation carries the 128-byte SharedAllocationHeader in front and padding
// behind, so a one-word over- or under-read stays inside the allocation and ASan is silent.)
//
// Negated sources: when the bytes left after the call above is decoded start (from the end, as
// FuzzedDataProvider reads integers) with the 32-bit marker kInvertMarker, one more bool per
// source says whether it is inverted (source_mask::invert), and the call goes through the raw
// (source_mask / dest_mask) forms; the reference then reads those sources complemented (an inverted
// absent one as all zeros). Inputs written before the marker existed decode exactly as they did:
// their leftover bytes are not the marker (checked for the committed corpus), so no source is
// inverted and the view forms run.
//
// KMASK_FUZZ_VERBOSE=1 prints every decoded call (useful with a single input to reproduce).

#include <kmask/kmask.hpp>

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using kmask::size_type;
using kmask::word_type;
using exec_space = Kokkos::Serial;
using mem_space  = Kokkos::HostSpace;
using unmanaged  = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
using dest_view  = Kokkos::View<word_type*, mem_space, unmanaged>;
using src_view   = Kokkos::View<const word_type*, mem_space, unmanaged>;
using count_view = Kokkos::View<size_type*, mem_space>;

constexpr size_type kMaxBits = std::numeric_limits<size_type>::max() / 2;  // the library's limit
constexpr size_type kI64Max  = std::numeric_limits<size_type>::max();
constexpr size_type kI64Min  = std::numeric_limits<size_type>::min();
constexpr std::uint32_t kInvertMarker = 0x4E4F5421u;  // "NOT!": the inverted-sources extension follows

bool verbose = false;

size_type words_for(size_type bits) { return bits <= 0 ? 0 : (bits + 31) / 32; }

// ---------------------------------------------------------------------------------------------
// The reference: bit by bit over word vectors (bit i is bit i % 32 of word i / 32).
int get_bit(const std::vector<word_type>& m, size_type i) { return static_cast<int>((m[i / 32] >> (i % 32)) & 1u); }
void set_bit(std::vector<word_type>& m, size_type i, int v) {
  if (v) m[i / 32] |= word_type{1} << (i % 32);
  else m[i / 32] &= ~(word_type{1} << (i % 32));
}
int identity_bit(int op) { return op == 0 ? 1 : 0; }  // 0 and, 1 or, 2 xor
int apply(int op, int a, int b) { return op == 0 ? (a & b) : op == 1 ? (a | b) : (a ^ b); }
const char* op_name(int op) { return op == 0 ? "bit_and" : op == 1 ? "bit_or" : "bit_xor"; }

// ---------------------------------------------------------------------------------------------
// Buffers (exact-size heap arrays) and views into them.

struct Buffer {
  std::unique_ptr<word_type[]> p;
  size_type n;
};

// A view: buffer index (-1: null data pointer), first word in the buffer, extent in words.
struct Ref {
  int buf       = -1;
  size_type off = 0;
  size_type len = 0;
};

struct World {
  std::vector<Buffer> bufs;
  std::vector<std::vector<word_type>> snap;
  std::unique_ptr<size_type[]> counts;
  size_type ncounts = 0;       // extent of the null_counts view
  bool counts_null  = false;   // pass a view with a null data pointer
  std::vector<size_type> counts_snap;

  int add(size_type n, FuzzedDataProvider& in) {
    Buffer b{std::unique_ptr<word_type[]>(new word_type[static_cast<std::size_t>(n)]), n};
    // Seeded per buffer (the index is mixed in): no two buffers hold the same words even when
    // the input has run out of bytes, so reading the wrong mask shows.
    std::uint64_t x = (in.ConsumeIntegral<std::uint32_t>() + (bufs.size() << 32)) * 0x9E3779B97F4A7C15ull + 1;
    const int fill   = in.ConsumeIntegralInRange<int>(0, 7);
    for (size_type i = 0; i < n; ++i) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      word_type w = static_cast<word_type>(x >> 16);
      if (fill == 0) w = ~word_type{0};
      else if (fill == 1) w = 0;
      else if (fill == 2) w = 0xAAAAAAAAu ^ static_cast<word_type>(i);
      b.p[i] = w;
    }
    bufs.push_back(std::move(b));
    return static_cast<int>(bufs.size()) - 1;
  }
  word_type* ptr(const Ref& r) const { return r.buf < 0 ? nullptr : bufs[r.buf].p.get() + r.off; }
  src_view src(const Ref& r) const { return src_view(ptr(r), static_cast<std::size_t>(r.len)); }
  dest_view dst(const Ref& r) const { return dest_view(ptr(r), static_cast<std::size_t>(r.len)); }
  kmask::source_mask raw_src(const Ref& r, size_type begin, bool inv) const { return {ptr(r), r.len, begin, inv}; }
  kmask::dest_mask raw_dst(const Ref& r) const { return {ptr(r), r.len}; }
  count_view count_arg() const {
    return Kokkos::View<size_type*, mem_space, unmanaged>(counts_null ? nullptr : counts.get(),
                                                          static_cast<std::size_t>(ncounts));
  }
  void make_counts(size_type n, bool null, FuzzedDataProvider& in) {
    ncounts     = n;
    counts_null = null;
    counts.reset(new size_type[static_cast<std::size_t>(n)]);
    const size_type poison = static_cast<size_type>(in.ConsumeIntegral<std::uint16_t>()) - 7777;
    for (size_type i = 0; i < n; ++i) counts[i] = poison + 1000 * i;
  }
  void snapshot() {
    snap.clear();
    for (const auto& b : bufs) snap.emplace_back(b.p.get(), b.p.get() + b.n);
    counts_snap.assign(counts.get(), counts.get() + ncounts);
  }
  // Bit i of a view read from `begin`, in the snapshot; a null view (absent mask: the call accepted
  // it only with extent 0) reads as all ones.
  int snap_bit(const Ref& r, size_type begin, size_type i) const {
    return r.buf < 0 ? 1 : get_bit(snap[r.buf], r.off * 32 + begin + i);
  }
  // The same read complemented when `inv` (an inverted absent mask reads as all zeros).
  int snap_bit(const Ref& r, size_type begin, size_type i, bool inv) const { return snap_bit(r, begin, i) ^ (inv ? 1 : 0); }
};

// ---------------------------------------------------------------------------------------------
// The decoded call.

enum Api {
  api_inplace_segmented,
  api_plan,
  api_segmented,
  api_inplace_binop,
  api_binop,
  api_superimpose,
  api_count,
  api_copy,
  api_segmented_count,
  api_tree,
};
const char* api_name(int a) {
  static const char* names[] = {"inplace_segmented_binop", "segmented_binop_plan+execute x2", "segmented_binop",
                                "inplace_binop", "binop", "superimpose_nulls", "count_set_bits/count_unset_bits",
                                "copy_bitmask", "segmented_count_set_bits", "superimpose_nulls_tree"};
  return names[a];
}

struct Call {
  int api = 0, op = 0;
  size_type size = 0;
  std::vector<Ref> dests;
  std::vector<Ref> srcs;
  std::vector<size_type> begins;
  std::vector<size_type> offsets;
  size_type bit_begin = 0, bit_end = 0;  // count / copy; superimpose: parent begin = bit_begin
  std::vector<size_type> ranges;         // segmented_count_set_bits
  std::vector<bool> inv;                 // per source, when the inverted extension is present
  bool raw = false;                      // the raw forms run (any source inverted)
  std::size_t leftover = 0;              // bytes left before the extension (where its marker goes)
  bool inverted(std::size_t j) const { return j < inv.size() && inv[j]; }
  // superimpose_nulls_tree: node k is dests[k] read from tree_begins[k]; its parent parents[k].
  std::vector<size_type> tree_begins;
  std::vector<size_type> parents;
  bool tree_pointer = false;  // the dest_mask form
};

// `source`: a null view of extent 0 is shown as absent (it reads as all valid).
std::string show_ref(const World& w, const Ref& r, bool source = false) {
  std::ostringstream os;
  if (source && r.buf < 0 && r.len == 0) os << "absent (null, extent 0)";
  else if (r.buf < 0) os << "null(extent " << r.len << ")";
  else os << "buf" << r.buf << "[" << r.off << ", +" << r.len << ") of " << w.bufs[r.buf].n;
  return os.str();
}

std::string describe(const World& w, const Call& c) {
  std::ostringstream os;
  os << "api=" << api_name(c.api) << " op=" << op_name(c.op) << " size_bits=" << c.size << "\n";
  for (std::size_t s = 0; s < c.dests.size(); ++s) os << "  dest[" << s << "] = " << show_ref(w, c.dests[s]) << "\n";
  for (std::size_t j = 0; j < c.srcs.size(); ++j)
    os << "  mask[" << j << "] = " << show_ref(w, c.srcs[j], true)
       << " begin=" << (j < c.begins.size() ? std::to_string(c.begins[j]) : std::string("(none)"))
       << (c.inverted(j) ? " inverted" : "") << "\n";
  if (c.raw) os << "  raw (source_mask / dest_mask) forms\n";
  if (c.begins.size() > c.srcs.size()) os << "  begin_bits has " << c.begins.size() << " entries\n";
  os << "  segment_offsets = {";
  for (auto o : c.offsets) os << " " << o;
  os << " }\n  null_counts: " << (w.counts_null ? "null, " : "") << "extent " << w.ncounts << "\n";
  os << "  bit_begin=" << c.bit_begin << " bit_end=" << c.bit_end << " ranges={";
  for (auto r : c.ranges) os << " " << r;
  os << " }\n  bytes left before the inverted-sources marker: " << c.leftover << "\n";
  if (c.api == api_tree) {
    os << "  tree (" << (c.tree_pointer ? "dest_mask" : "view") << " form): begins={";
    for (auto b : c.tree_begins) os << " " << b;
    os << " } parents={";
    for (auto p : c.parents) os << " " << p;
    os << " }\n";
  }
  for (std::size_t b = 0; b < w.bufs.size(); ++b) {
    os << "  buf" << b << " (" << w.bufs[b].n << " words):";
    for (size_type i = 0; i < w.bufs[b].n && i < 24; ++i) {
      char t[16];
      std::snprintf(t, sizeof t, " %08x", static_cast<unsigned>(w.bufs[b].p[i]));
      os << t;
    }
    os << "\n";
  }
  return os.str();
}

const World* g_world = nullptr;
std::string g_desc;  // the call as decoded, before it ran

[[noreturn]] void fail(const std::string& why) {
  std::fprintf(stderr, "\n==== kmask fuzz failure: %s\n%s", why.c_str(), g_desc.c_str());
  if (g_world) {
    std::fprintf(stderr, "  after the call:\n");
    for (std::size_t b = 0; b < g_world->bufs.size(); ++b) {
      std::fprintf(stderr, "  buf%zu:", b);
      for (size_type i = 0; i < g_world->bufs[b].n && i < 24; ++i)
        std::fprintf(stderr, " %08x", static_cast<unsigned>(g_world->bufs[b].p[i]));
      std::fprintf(stderr, "\n");
    }
  }
  std::fflush(stderr);
  __builtin_trap();
}

// ---------------------------------------------------------------------------------------------
// Decoding.

size_type pick_special(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 7)) {
    case 0: return -1;
    case 1: return -32;
    case 2: return kI64Min;
    case 3: return kMaxBits;
    case 4: return kMaxBits + 1;
    case 5: return kI64Max;
    case 6: return kMaxBits - 1;
    default: return 1 << 20;
  }
}
size_type pick_begin(FuzzedDataProvider& in) {
  const int m = in.ConsumeIntegralInRange<int>(0, 31);
  if (m == 0) return pick_special(in);
  return in.ConsumeIntegralInRange<size_type>(0, 100);
}
size_type pick_size(FuzzedDataProvider& in) {
  const int m = in.ConsumeIntegralInRange<int>(0, 63);
  if (m == 0) return pick_special(in);
  // Rarely, just past 8192 words: the host launch shape's chunk, so a segment spans two teams
  // (two atomic null-count updates, a second team reading in-place words).
  if (m == 1) return in.ConsumeIntegralInRange<size_type>(8191 * 32, 8194 * 32);
  if (m < 16) return in.ConsumeIntegralInRange<size_type>(0, 40);
  return in.ConsumeIntegralInRange<size_type>(0, 600);
}
size_type small_extra(FuzzedDataProvider& in) {  // mostly 0
  const int m = in.ConsumeIntegralInRange<int>(0, 7);
  return m < 5 ? 0 : m - 4;
}
bool sane(size_type v) { return v >= 0 && v <= 100000; }

// A view over an existing buffer starting at word `off` (clipped), running to the buffer's end
// or `len` words, whichever is less.
Ref view_into(const World& w, int buf, size_type off, size_type len) {
  const size_type n = w.bufs[buf].n;
  off               = off < 0 ? 0 : off > n ? n : off;
  if (len < 0 || len > n - off) len = n - off;
  return {buf, off, len};
}

// superimpose_nulls_tree's begin bits and parents for the decoded destinations (the nodes): mostly
// aligned nodes and acyclic parents (each below its child, or each above it), sometimes a sliced
// node, a parent out of range, a cycle, or lists of the wrong length.
void decode_tree(Call& c, FuzzedDataProvider& in) {
  const size_type n = static_cast<size_type>(c.dests.size());
  c.tree_pointer    = in.ConsumeBool();
  for (size_type k = 0; k < n; ++k) {
    c.tree_begins.push_back(in.ConsumeIntegralInRange<int>(0, 3) == 0 ? pick_begin(in) : 0);
    const int m = in.ConsumeIntegralInRange<int>(0, 15);
    c.parents.push_back(m < 4 || k == 0 ? -1 : in.ConsumeIntegralInRange<size_type>(0, k - 1));
  }
  if (in.ConsumeBool()) {  // parents above their children: node k becomes node n - 1 - k
    std::vector<size_type> flipped(static_cast<std::size_t>(n));
    for (size_type k = 0; k < n; ++k) {
      const size_type p                             = c.parents[static_cast<std::size_t>(k)];
      flipped[static_cast<std::size_t>(n - 1 - k)] = p < 0 ? -1 : n - 1 - p;
    }
    c.parents = flipped;
  }
  switch (in.ConsumeIntegralInRange<int>(0, 15)) {
    case 0:
      if (n > 0) c.parents[in.ConsumeIntegralInRange<std::size_t>(0, c.parents.size() - 1)] = in.ConsumeBool() ? -2 : n;
      break;
    case 1:  // any parent: a cycle when it is the node itself or one of its descendants
      if (n > 0)
        c.parents[in.ConsumeIntegralInRange<std::size_t>(0, c.parents.size() - 1)] =
            in.ConsumeIntegralInRange<size_type>(0, n - 1);
      break;
    case 2:
      if (in.ConsumeBool() && !c.parents.empty()) c.parents.pop_back();
      else c.parents.push_back(-1);
      break;
    case 3:
      if (in.ConsumeBool() && !c.tree_begins.empty()) c.tree_begins.pop_back();
      else c.tree_begins.push_back(0);
      break;
    default: break;
  }
}

Call decode(World& w, FuzzedDataProvider& in) {
  Call c;
  const int a = in.ConsumeIntegralInRange<int>(0, 15);
  c.api       = a <= 6 ? api_inplace_segmented : static_cast<Api>(a - 6);
  if (c.api > api_tree) c.api = api_inplace_segmented;
  c.op   = in.ConsumeIntegralInRange<int>(0, 2);
  c.size = pick_size(in);
  const size_type nw = sane(c.size) ? words_for(c.size) : 1;  // for sizing buffers only

  // Destinations (children for superimpose_nulls).
  const int ns = in.ConsumeIntegralInRange<int>(0, 8);
  for (int s = 0; s < ns; ++s) {
    const int m = in.ConsumeIntegralInRange<int>(0, 15);
    const Ref d = s > 0 ? c.dests[in.ConsumeIntegralInRange<int>(0, s - 1)] : Ref{};
    if (m >= 13 && d.buf >= 0) {  // near or on an earlier destination (overlapping, adjacent, ...)
      const size_type off = d.off + in.ConsumeIntegralInRange<size_type>(-2, nw + 1);
      c.dests.push_back(view_into(w, d.buf, off, nw + small_extra(in)));
    } else if (m == 12) {
      c.dests.push_back({-1, 0, in.ConsumeBool() ? 0 : nw});
    } else if (m == 11) {
      const size_type n = nw > 0 ? nw - 1 : 0;
      c.dests.push_back({w.add(n, in), 0, n});
    } else {
      const size_type pre = small_extra(in), post = small_extra(in);
      const size_type tail = in.ConsumeIntegralInRange<int>(0, 3) == 0 ? nw + 1 : 0;
      const int b          = w.add(pre + nw + post + tail, in);
      c.dests.push_back({b, pre, nw + post});
    }
  }

  // Sources: `prefix` unused ones, then each segment's, then `suffix` unused ones.
  const size_type prefix = small_extra(in);
  std::vector<int> per_segment(static_cast<std::size_t>(ns));
  for (auto& k : per_segment) k = in.ConsumeIntegralInRange<int>(0, 5);
  const size_type suffix = small_extra(in);
  std::vector<int> owner;  // segment of each source, -1 for unused ones
  for (size_type i = 0; i < prefix; ++i) owner.push_back(-1);
  for (int s = 0; s < ns; ++s)
    for (int k = 0; k < per_segment[s]; ++k) owner.push_back(s);
  for (size_type i = 0; i < suffix; ++i) owner.push_back(-1);
  // superimpose_nulls / count / copy read one mask; make sure there is one most of the time.
  if (owner.empty() && in.ConsumeIntegralInRange<int>(0, 7) != 0) owner.push_back(ns > 0 ? 0 : -1);

  for (std::size_t j = 0; j < owner.size(); ++j) {
    const int s       = owner[j];
    size_type begin   = pick_begin(in);
    const int m       = in.ConsumeIntegralInRange<int>(0, 15);
    const Ref* own    = s >= 0 && s < static_cast<int>(c.dests.size()) ? &c.dests[s] : nullptr;
    Ref r;
    if ((m == 8 || m == 9) && own) {  // the own destination, in place from bit 0
      r     = *own;
      begin = 0;
    } else if ((m == 10 || m == 11) && own && own->buf >= 0) {  // the own destination's buffer, shifted
      r = view_into(w, own->buf, own->off - in.ConsumeIntegralInRange<size_type>(0, 2), -1);
    } else if (m == 12 && !c.dests.empty()) {  // any destination's buffer
      const Ref& d = c.dests[in.ConsumeIntegralInRange<std::size_t>(0, c.dests.size() - 1)];
      if (d.buf >= 0) r = view_into(w, d.buf, d.off + in.ConsumeIntegralInRange<size_type>(-2, 2), -1);
      else r = d;
    } else if (m == 13 && j > 0) {  // the same view as an earlier source
      r = c.srcs[in.ConsumeIntegralInRange<std::size_t>(0, j - 1)];
    } else if (m == 14) {  // absent (extent 0: all valid) or a null view with an extent (refused)
      r = {-1, 0, in.ConsumeBool() ? 0 : nw > 0 ? nw : 1 + small_extra(in)};
    } else if (m == 15 && !w.bufs.empty()) {  // anywhere in any buffer
      const int b = in.ConsumeIntegralInRange<int>(0, static_cast<int>(w.bufs.size()) - 1);
      r           = view_into(w, b, in.ConsumeIntegralInRange<size_type>(0, 30), in.ConsumeIntegralInRange<int>(-1, 30));
    } else {  // a fresh mask of exactly the words it needs, or one more / one less / none
      size_type need = sane(begin) && sane(c.size) ? words_for(begin + c.size) : nw;
      bool absent    = false;
      switch (in.ConsumeIntegralInRange<int>(0, 15)) {
        case 0: need = need > 0 ? need - 1 : 0; break;
        case 1: need += 1 + small_extra(in); break;
        case 2: need = 0; break;
        case 3:
        case 4: absent = true; break;  // absent: a null view of extent 0
        default: break;
      }
      r = absent ? Ref{} : Ref{w.add(need, in), 0, need};
    }
    c.srcs.push_back(r);
    c.begins.push_back(begin);
  }

  // Segment offsets, then the corruptions.
  c.offsets.push_back(prefix);
  for (int s = 0; s < ns; ++s) c.offsets.push_back(c.offsets.back() + per_segment[s]);
  const size_type M = static_cast<size_type>(c.srcs.size());
  switch (in.ConsumeIntegralInRange<int>(0, 31)) {
    case 0: c.offsets.clear(); break;
    case 1:
      if (c.offsets.size() >= 2) {
        const std::size_t i = in.ConsumeIntegralInRange<std::size_t>(0, c.offsets.size() - 2);
        std::swap(c.offsets[i], c.offsets[i + 1]);
      }
      break;
    case 2: c.offsets[in.ConsumeIntegralInRange<std::size_t>(0, c.offsets.size() - 1)] = -1; break;
    case 3:
      c.offsets[in.ConsumeIntegralInRange<std::size_t>(0, c.offsets.size() - 1)] = M + 1 + small_extra(in);
      break;
    case 4: c.offsets.pop_back(); break;
    case 5: c.offsets.push_back(c.offsets.back()); break;
    case 6:
      if (!c.dests.empty() && in.ConsumeBool()) c.dests.pop_back();
      else c.dests.push_back(c.dests.empty() ? Ref{w.add(nw, in), 0, nw} : c.dests.back());
      break;
    case 7:
      if (!c.begins.empty() && in.ConsumeBool()) c.begins.pop_back();
      else c.begins.push_back(0);
      break;
    case 8: c.offsets[in.ConsumeIntegralInRange<std::size_t>(0, c.offsets.size() - 1)] = kI64Min; break;
    default: break;
  }

  // null_counts (child_null_counts): one per segment, or hostile.
  const size_type want = c.api == api_superimpose || c.api == api_tree     ? static_cast<size_type>(c.dests.size())
                         : c.offsets.empty()                                ? static_cast<size_type>(ns)
                                                                            : static_cast<size_type>(c.offsets.size()) - 1;
  switch (in.ConsumeIntegralInRange<int>(0, 15)) {
    case 0: w.make_counts(0, true, in); break;
    case 1: w.make_counts(want, true, in); break;
    case 2: w.make_counts(want > 0 ? want - 1 : 0, false, in); break;
    case 3: w.make_counts(want + 1 + small_extra(in), false, in); break;
    default: w.make_counts(want, false, in); break;
  }

  // count / copy ranges.
  c.bit_begin = c.begins.empty() ? pick_begin(in) : c.begins[0];
  if (in.ConsumeIntegralInRange<int>(0, 15) == 0) c.bit_end = pick_special(in);
  else if (sane(c.bit_begin) && sane(c.size)) c.bit_end = c.bit_begin + c.size;
  else c.bit_end = c.size;
  if (c.api == api_segmented_count) {
    const int n = in.ConsumeIntegralInRange<int>(0, 9);
    for (int i = 0; i < n; ++i) {
      if (i % 2 == 0) c.ranges.push_back(pick_begin(in));
      else {
        const size_type b = c.ranges.back();
        c.ranges.push_back(in.ConsumeIntegralInRange<int>(0, 15) == 0 ? pick_special(in)
                           : sane(b) ? b + in.ConsumeIntegralInRange<size_type>(0, 600)
                                     : in.ConsumeIntegralInRange<size_type>(0, 600));
      }
    }
  }
  if (c.api == api_tree) {
    decode_tree(c, in);
  } else {
    // The inverted-sources extension (after everything older inputs decode). The raw forms carry one
    // begin bit per source, so a call with a begin_bits list of another length stays a view call.
    c.leftover = in.remaining_bytes();
    if (in.remaining_bytes() >= 4 && in.ConsumeIntegral<std::uint32_t>() == kInvertMarker &&
        c.begins.size() == c.srcs.size()) {
      for (std::size_t j = 0; j < c.srcs.size(); ++j) c.inv.push_back(in.ConsumeBool());
      c.raw = true;
    }
  }
  return c;
}

// ---------------------------------------------------------------------------------------------
// The documented contract, as predicates on the decoded arguments.

size_type cap_bits(const Ref& r) { return r.len * 32; }
bool size_ok(size_type size) { return size >= 0 && size <= kMaxBits; }
// A null view: absent (all valid) with extent 0, refused with any other extent.
bool absent(const Ref& r) { return r.buf < 0 && r.len == 0; }
bool null_with_extent(const Ref& r) { return r.buf < 0 && r.len != 0; }
// Every source (used by a segment or not): one begin per mask, each >= 0 and <= the limit; an
// absent source then reads as all valid (no extent to check); a null view with an extent is
// refused; any other source holds [begin, begin + size) within its view.
bool sources_ok(const Call& c, size_type size) {
  if (!size_ok(size) || c.srcs.size() != c.begins.size()) return false;
  for (std::size_t j = 0; j < c.srcs.size(); ++j) {
    const size_type b = c.begins[j];
    if (b < 0 || b > kMaxBits) return false;
    if (null_with_extent(c.srcs[j])) return false;
    if (absent(c.srcs[j])) continue;
    if (b + size > cap_bits(c.srcs[j])) return false;
  }
  return true;
}
bool offsets_ok(const std::vector<size_type>& o, size_type M) {
  if (o.empty()) return false;
  for (std::size_t s = 0; s < o.size(); ++s) {
    if (o[s] < 0 || o[s] > M) return false;
    if (s > 0 && o[s] < o[s - 1]) return false;
  }
  return true;
}
// One destination per segment, non-null when written, long enough, no two sharing a word.
bool dests_ok(const std::vector<Ref>& d, size_type ns, size_type size) {
  if (static_cast<size_type>(d.size()) != ns) return false;
  const size_type nw = words_for(size);
  for (const auto& r : d) {
    if (nw > 0 && r.buf < 0) return false;
    if (r.len < nw) return false;
  }
  if (size > 0)
    for (std::size_t a = 0; a < d.size(); ++a)
      for (std::size_t b = a + 1; b < d.size(); ++b)
        if (d[a].buf == d[b].buf && d[a].off < d[b].off + nw && d[b].off < d[a].off + nw) return false;
  return true;
}
bool counts_ok(const World& w, size_type needed) {
  if (needed > 0 && w.counts_null) return false;
  return w.ncounts >= needed;
}
// The single mask of count_set_bits / copy_bitmask read over [begin, end): a well-formed range
// below the limit; a null mask is refused unless its extent is 0 (even for an empty range), and an
// absent one then skips the extent check.
bool bit_range_ok(const Ref& r, size_type begin, size_type end) {
  if (begin < 0 || end < begin || end > kMaxBits) return false;
  if (null_with_extent(r)) return false;
  return absent(r) || end <= cap_bits(r);
}
// segmented_count_*: an even number of entries; the mask refused if null with an extent, even
// with no ranges; each range well formed below the limit and, unless the mask is absent, inside it.
bool ranges_ok(const Ref& r, const std::vector<size_type>& ranges) {
  if (ranges.size() % 2 != 0 || null_with_extent(r)) return false;
  for (std::size_t i = 0; i + 1 < ranges.size(); i += 2)
    if (!bit_range_ok(r, ranges[i], ranges[i + 1])) return false;
  return true;
}
// superimpose_nulls' parent read over [pb, pb + size): pb in [0, limit] and pb + size within the
// limit (tested without overflowing here), not null with an extent, and within the view unless
// absent. `size` must already be valid.
bool parent_ok(const Ref& r, size_type pb, size_type size) {
  if (!size_ok(size) || pb < 0 || pb > kMaxBits || size > kMaxBits - pb) return false;
  if (null_with_extent(r)) return false;
  return absent(r) || pb + size <= cap_bits(r);
}

// ---------------------------------------------------------------------------------------------
// Running a call against the oracles.

using Image = std::vector<std::vector<word_type>>;

// Runs `call`; returns true when it threw (after checking that it was right to and wrote nothing).
template <class F>
bool run_checked(World& w, bool valid, F&& call) {
  exec_space exec;
  std::string msg, what;
  bool threw = false;
  try {
    call();
    exec.fence();
  } catch (const std::invalid_argument& e) {
    threw = true, what = e.what(), msg = "std::invalid_argument: " + what;
  } catch (const std::out_of_range& e) {
    threw = true, what = e.what(), msg = "std::out_of_range: " + what;
  } catch (const std::length_error& e) {
    threw = true, what = e.what(), msg = "std::length_error: " + what;
  }
  if (verbose) std::fprintf(stderr, "  -> %s\n", threw ? msg.c_str() : "accepted");
  if (threw) {
    for (std::size_t b = 0; b < w.bufs.size(); ++b)
      for (size_type i = 0; i < w.bufs[b].n; ++i)
        if (w.bufs[b].p[i] != w.snap[b][i])
          fail("rejected call wrote buf" + std::to_string(b) + " word " + std::to_string(i) + " (" + msg + ")");
    for (size_type i = 0; i < w.ncounts; ++i)
      if (w.counts[i] != w.counts_snap[i]) fail("rejected call wrote null_counts(" + std::to_string(i) + ")");
    if (valid) fail("valid call rejected: " + msg);
    if (what.rfind("kmask::", 0) != 0) fail("message does not start with the function name: " + msg);
  } else if (!valid) {
    fail("invalid call accepted");
  }
  return threw;
}

void compare_world(const World& w, const Image& want, const std::vector<size_type>& want_counts) {
  for (std::size_t b = 0; b < w.bufs.size(); ++b)
    for (size_type i = 0; i < w.bufs[b].n; ++i)
      if (w.bufs[b].p[i] != want[b][i]) {
        char t[128];
        std::snprintf(t, sizeof t, "buf%zu word %lld is %08x, reference %08x (snapshot %08x)", b,
                      static_cast<long long>(i), static_cast<unsigned>(w.bufs[b].p[i]), static_cast<unsigned>(want[b][i]),
                      static_cast<unsigned>(w.snap[b][i]));
        fail(t);
      }
  for (size_type i = 0; i < w.ncounts; ++i)
    if (w.counts[i] != want_counts[i])
      fail("null_counts(" + std::to_string(i) + ") = " + std::to_string(w.counts[i]) + ", reference " +
           std::to_string(want_counts[i]));
}

// The segment's combined bits (bits past size clear) and null count, from the snapshot.
std::vector<word_type> reference_segment(const World& w, const Call& c, int op, const std::vector<Ref>& srcs,
                                         const std::vector<size_type>& begins, size_type first, size_type last,
                                         size_type size, size_type* nulls) {
  std::vector<word_type> out(static_cast<std::size_t>(words_for(size)), 0u);
  *nulls = 0;
  for (size_type i = 0; i < size; ++i) {
    int bit = identity_bit(op);
    for (size_type j = first; j < last; ++j)
      bit = apply(op, bit, w.snap_bit(srcs[j], begins[j], i, c.inverted(static_cast<std::size_t>(j))));
    set_bit(out, i, bit);
    *nulls += !bit;
  }
  return out;
}

// Reference for the in-place forms: every destination's words [0, nw) replaced, counts [0, ns).
// `counts` false: the call took no null_counts view (inplace_binop returns its count instead).
void check_inplace(const World& w, const Call& c, const std::vector<Ref>& dests, const std::vector<size_type>& offsets,
                   bool counts = true) {
  Image want                       = w.snap;
  std::vector<size_type> want_counts = w.counts_snap;
  for (std::size_t s = 0; s + 1 < offsets.size(); ++s) {
    size_type nulls = 0;
    const auto row  = reference_segment(w, c, c.op, c.srcs, c.begins, offsets[s], offsets[s + 1], c.size, &nulls);
    for (std::size_t i = 0; i < row.size(); ++i) want[dests[s].buf][dests[s].off + i] = row[i];
    if (counts) want_counts[s] = nulls;
  }
  compare_world(w, want, want_counts);
}

template <class Op>
void run_segmented(World& w, const Call& c, const Op& op) {
  exec_space exec;
  std::vector<dest_view> dests;
  for (const auto& r : c.dests) dests.push_back(w.dst(r));
  std::vector<src_view> masks;
  for (const auto& r : c.srcs) masks.push_back(w.src(r));
  // The raw forms (c.raw: begins has one entry per source).
  std::vector<kmask::dest_mask> raw_dests;
  for (const auto& r : c.dests) raw_dests.push_back(w.raw_dst(r));
  std::vector<kmask::source_mask> raw_masks;
  if (c.raw)
    for (std::size_t j = 0; j < c.srcs.size(); ++j) raw_masks.push_back(w.raw_src(c.srcs[j], c.begins[j], c.inverted(j)));
  const size_type M  = static_cast<size_type>(c.srcs.size());
  const bool offs_ok = offsets_ok(c.offsets, M);
  const size_type ns = offs_ok ? static_cast<size_type>(c.offsets.size()) - 1 : -1;
  const bool args_ok = offs_ok && sources_ok(c, c.size) && dests_ok(c.dests, ns, c.size);
  // segmented_binop and binop allocate their result: with no sources, or only absent ones, to bound
  // it, a valid size_bits up to 2^62 asks for up to 2^59 bytes, which must fail to allocate (not a
  // kmask bug). Valid calls that large are not made; invalid ones still are (they must throw before
  // allocating).
  const bool allocates_huge = size_ok(c.size) && c.size > (size_type{1} << 22);
  if (allocates_huge && (c.api == api_segmented || c.api == api_binop) && sources_ok(c, c.size) &&
      (c.api == api_binop || offs_ok))
    return;
  switch (c.api) {
    case api_inplace_segmented: {
      w.snapshot();
      const bool valid = args_ok && counts_ok(w, ns);
      if (!run_checked(w, valid, [&] {
            if (c.raw) kmask::inplace_segmented_binop(exec, op, raw_dests, raw_masks, c.size, c.offsets, w.count_arg());
            else kmask::inplace_segmented_binop(exec, op, dests, masks, c.begins, c.size, c.offsets, w.count_arg());
          }))
        check_inplace(w, c, c.dests, c.offsets);
      break;
    }
    case api_plan: {
      w.snapshot();
      std::unique_ptr<kmask::segmented_binop_plan<exec_space>> plan;
      if (run_checked(w, args_ok, [&] {
            if (c.raw) plan.reset(new kmask::segmented_binop_plan<exec_space>(exec, raw_dests, raw_masks, c.size, c.offsets));
            else plan.reset(new kmask::segmented_binop_plan<exec_space>(exec, dests, masks, c.begins, c.size, c.offsets));
          }))
        break;
      if (plan->num_segments() != ns || plan->size_bits() != c.size) fail("plan reports the wrong shape");
      if (verbose) std::fprintf(stderr, "  plan stages %lld sources\n", static_cast<long long>(plan->num_staged_sources()));
      for (int round = 0; round < 2; ++round) {  // the second run reads what the first one wrote
        w.snapshot();
        if (!run_checked(w, counts_ok(w, ns), [&] { kmask::inplace_segmented_binop(exec, op, *plan, w.count_arg()); }))
          check_inplace(w, c, c.dests, c.offsets);
      }
      break;
    }
    case api_segmented: {
      w.snapshot();
      const bool valid = offs_ok && sources_ok(c, c.size);
      kmask::segmented_result<mem_space> r;
      if (run_checked(w, valid, [&] {
            r = c.raw ? kmask::segmented_binop(exec, op, raw_masks, c.size, c.offsets)
                      : kmask::segmented_binop(exec, op, masks, c.begins, c.size, c.offsets);
          }))
        break;
      compare_world(w, w.snap, w.counts_snap);  // sources untouched
      const size_type row_words = (words_for(c.size) * 4 + 63) / 64 * 16;
      if (static_cast<size_type>(r.masks.extent(0)) != ns || static_cast<size_type>(r.masks.extent(1)) != row_words ||
          static_cast<size_type>(r.null_counts.extent(0)) != ns)
        fail("segmented_binop result has the wrong extents");
      for (size_type s = 0; s < ns; ++s) {
        size_type nulls = 0;
        auto row        = reference_segment(w, c, c.op, c.srcs, c.begins, c.offsets[s], c.offsets[s + 1], c.size, &nulls);
        row.resize(static_cast<std::size_t>(row_words), 0u);
        for (size_type i = 0; i < row_words; ++i)
          if (r.masks(s, i) != row[i]) fail("segmented_binop row " + std::to_string(s) + " word " + std::to_string(i));
        if (r.null_counts(s) != nulls) fail("segmented_binop null_counts(" + std::to_string(s) + ")");
      }
      break;
    }
    case api_inplace_binop:
    case api_binop: {
      // One segment of every mask; inplace_binop writes the first destination (or a null view).
      const Ref d            = c.dests.empty() ? Ref{} : c.dests[0];
      const bool srcs_valid  = sources_ok(c, c.size);
      const std::vector<size_type> one{0, M};
      w.snapshot();
      if (c.api == api_inplace_binop) {
        size_type count  = -1;
        const bool valid = srcs_valid && dests_ok({d}, 1, c.size);
        if (!run_checked(w, valid, [&] {
              count = c.raw ? kmask::inplace_binop(exec, op, w.raw_dst(d), raw_masks, c.size)
                            : kmask::inplace_binop(exec, op, w.dst(d), masks, c.begins, c.size);
            })) {
          check_inplace(w, c, {d}, one, false);
          size_type nulls = 0;
          reference_segment(w, c, c.op, c.srcs, c.begins, 0, M, c.size, &nulls);
          if (count != nulls) fail("inplace_binop returned " + std::to_string(count) + ", reference " + std::to_string(nulls));
        }
      } else {
        std::pair<Kokkos::View<word_type*, mem_space>, size_type> r;
        if (!run_checked(w, srcs_valid, [&] {
              r = c.raw ? kmask::binop(exec, op, raw_masks, c.size) : kmask::binop(exec, op, masks, c.begins, c.size);
            })) {
          compare_world(w, w.snap, w.counts_snap);
          size_type nulls = 0;
          auto row        = reference_segment(w, c, c.op, c.srcs, c.begins, 0, M, c.size, &nulls);
          row.resize(static_cast<std::size_t>((words_for(c.size) * 4 + 63) / 64 * 16), 0u);
          if (r.first.extent(0) != row.size()) fail("binop mask extent");
          for (std::size_t i = 0; i < row.size(); ++i)
            if (r.first(i) != row[i]) fail("binop word " + std::to_string(i));
          if (r.second != nulls) fail("binop count");
        }
      }
      break;
    }
    default: break;
  }
}

void run_superimpose(World& w, const Call& c) {
  exec_space exec;
  const Ref parent = c.srcs.empty() ? Ref{} : c.srcs[0];
  const size_type pb = c.bit_begin;
  const bool pinv = c.inverted(0);
  std::vector<dest_view> children;
  for (const auto& r : c.dests) children.push_back(w.dst(r));
  std::vector<kmask::dest_mask> raw_children;
  for (const auto& r : c.dests) raw_children.push_back(w.raw_dst(r));
  const size_type n = static_cast<size_type>(c.dests.size());
  w.snapshot();
  const bool valid = parent_ok(parent, pb, c.size) && dests_ok(c.dests, n, c.size) && counts_ok(w, n);
  if (run_checked(w, valid,
                  [&] {
                    if (c.raw) kmask::superimpose_nulls(exec, w.raw_src(parent, pb, pinv), raw_children, c.size, w.count_arg());
                    else kmask::superimpose_nulls(exec, w.src(parent), pb, children, c.size, w.count_arg());
                  }))
    return;
  Image want                         = w.snap;
  std::vector<size_type> want_counts = w.counts_snap;
  for (size_type k = 0; k < n; ++k) {
    const Ref& d = c.dests[k];
    std::vector<word_type> row(static_cast<std::size_t>(words_for(c.size)), 0u);
    size_type nulls = 0;
    for (size_type i = 0; i < c.size; ++i) {
      const int bit = w.snap_bit(d, 0, i) & w.snap_bit(parent, pb, i, pinv);
      set_bit(row, i, bit);
      nulls += !bit;
    }
    for (std::size_t i = 0; i < row.size(); ++i) want[d.buf][d.off + i] = row[i];
    want_counts[k] = nulls;
  }
  compare_world(w, want, want_counts);
}

// Parents in [-1, n) and acyclic (every chain reaches -1 within n steps).
bool parents_ok(const std::vector<size_type>& parents) {
  const size_type n = static_cast<size_type>(parents.size());
  for (size_type p : parents)
    if (p < -1 || p >= n) return false;
  for (size_type k = 0; k < n; ++k) {
    size_type a = k, steps = 0;
    while (a != -1 && steps <= n) a = parents[static_cast<std::size_t>(a)], ++steps;
    if (a != -1) return false;
  }
  return true;
}

void run_tree(World& w, const Call& c) {
  exec_space exec;
  const size_type n = static_cast<size_type>(c.dests.size());
  std::vector<dest_view> views;
  std::vector<kmask::dest_mask> raw;
  for (const auto& r : c.dests) {
    views.push_back(w.dst(r));
    raw.push_back({w.ptr(r), r.len});
  }
  w.snapshot();
  bool valid = size_ok(c.size) && static_cast<size_type>(c.tree_begins.size()) == n &&
               static_cast<size_type>(c.parents.size()) == n && parents_ok(c.parents) && counts_ok(w, n) &&
               dests_ok(c.dests, n, c.size);
  for (size_type k = 0; valid && k < n; ++k) {
    const size_type b = c.tree_begins[static_cast<std::size_t>(k)];
    const Ref& r      = c.dests[static_cast<std::size_t>(k)];
    valid = b >= 0 && b <= kMaxBits && !null_with_extent(r) && (absent(r) || b + c.size <= cap_bits(r));
  }
  if (run_checked(w, valid, [&] {
        if (c.tree_pointer)
          kmask::superimpose_nulls_tree(exec, raw, c.tree_begins, c.parents, c.size, w.count_arg());
        else
          kmask::superimpose_nulls_tree(exec, views, c.tree_begins, c.parents, c.size, w.count_arg());
      }))
    return;
  Image want                         = w.snap;
  std::vector<size_type> want_counts = w.counts_snap;
  for (size_type k = 0; k < n; ++k) {
    const Ref& d = c.dests[static_cast<std::size_t>(k)];
    std::vector<word_type> row(static_cast<std::size_t>(words_for(c.size)), 0u);
    size_type nulls = 0;
    for (size_type i = 0; i < c.size; ++i) {
      int bit = 1;
      for (size_type a = k; a != -1; a = c.parents[static_cast<std::size_t>(a)])
        bit &= w.snap_bit(c.dests[static_cast<std::size_t>(a)], c.tree_begins[static_cast<std::size_t>(a)], i);
      set_bit(row, i, bit);
      nulls += !bit;
    }
    for (std::size_t i = 0; i < row.size(); ++i) want[d.buf][d.off + i] = row[i];
    want_counts[k] = nulls;
  }
  compare_world(w, want, want_counts);
}

// Set bits of `m` in its bits [begin, end) in the snapshot; an absent mask has every bit set (its
// ranges may be up to 2^62 bits long: not walked).
size_type reference_set_bits(const World& w, const Ref& m, size_type begin, size_type end, bool inv = false) {
  if (absent(m)) return inv ? 0 : end - begin;
  size_type n = 0;
  for (size_type i = begin; i < end; ++i) n += w.snap_bit(m, 0, i, inv);
  return n;
}

void run_reads(World& w, const Call& c) {
  exec_space exec;
  const Ref m = c.srcs.empty() ? Ref{} : c.srcs[0];
  const src_view mv = w.src(m);
  const bool inv    = c.inverted(0);
  const kmask::source_mask rm = w.raw_src(m, 0, inv);  // the raw form (c.raw), from the view's bit 0
  w.snapshot();
  if (c.api == api_count) {
    const bool valid = bit_range_ok(m, c.bit_begin, c.bit_end);
    size_type set = -1, unset = -1;
    if (run_checked(w, valid, [&] {
          set   = c.raw ? kmask::count_set_bits(exec, rm, c.bit_begin, c.bit_end)
                        : kmask::count_set_bits(exec, mv, c.bit_begin, c.bit_end);
          unset = c.raw ? kmask::count_unset_bits(exec, rm, c.bit_begin, c.bit_end)
                        : kmask::count_unset_bits(exec, mv, c.bit_begin, c.bit_end);
        }))
      return;
    compare_world(w, w.snap, w.counts_snap);
    const size_type want = reference_set_bits(w, m, c.bit_begin, c.bit_end, inv);
    if (set != want || unset != (c.bit_end - c.bit_begin) - want)
      fail("count_set_bits = " + std::to_string(set) + ", count_unset_bits = " + std::to_string(unset) +
           ", reference set " + std::to_string(want));
  } else if (c.api == api_copy) {
    const bool valid = bit_range_ok(m, c.bit_begin, c.bit_end);
    // An absent mask makes a copy of up to 2^62 - 1 bits valid: the new mask must fail to allocate
    // (not a kmask bug), so those valid calls are not made, as run_segmented() does for binop.
    if (valid && c.bit_end - c.bit_begin > (size_type{1} << 22)) return;
    Kokkos::View<word_type*, mem_space> out;
    if (run_checked(w, valid, [&] {
          out = c.raw ? kmask::copy_bitmask(exec, rm, c.bit_begin, c.bit_end)
                      : kmask::copy_bitmask(exec, mv, c.bit_begin, c.bit_end);
        }))
      return;
    compare_world(w, w.snap, w.counts_snap);
    const size_type size = c.bit_end - c.bit_begin;
    std::vector<word_type> want(static_cast<std::size_t>((words_for(size) * 4 + 63) / 64 * 16), 0u);
    for (size_type i = 0; i < size; ++i) set_bit(want, i, w.snap_bit(m, c.bit_begin, i, inv));
    if (out.extent(0) != want.size()) fail("copy_bitmask extent");
    for (std::size_t i = 0; i < want.size(); ++i)
      if (out(i) != want[i]) fail("copy_bitmask word " + std::to_string(i));
  } else {  // segmented_count_set_bits + segmented_count_unset_bits
    const bool valid = ranges_ok(m, c.ranges);
    Kokkos::View<size_type*, mem_space> set, unset;
    if (run_checked(w, valid, [&] {
          set   = c.raw ? kmask::segmented_count_set_bits(exec, rm, c.ranges)
                        : kmask::segmented_count_set_bits(exec, mv, c.ranges);
          unset = c.raw ? kmask::segmented_count_unset_bits(exec, rm, c.ranges)
                        : kmask::segmented_count_unset_bits(exec, mv, c.ranges);
        }))
      return;
    compare_world(w, w.snap, w.counts_snap);
    if (set.extent(0) != c.ranges.size() / 2 || unset.extent(0) != c.ranges.size() / 2) fail("segmented count extent");
    for (std::size_t r = 0; r < c.ranges.size() / 2; ++r) {
      const size_type want = reference_set_bits(w, m, c.ranges[2 * r], c.ranges[2 * r + 1], inv);
      if (set(r) != want || unset(r) != c.ranges[2 * r + 1] - c.ranges[2 * r] - want)
        fail("segmented_count range " + std::to_string(r));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// gather_bits / inplace_gather_bits: a second call on its own World, decoded from the bytes the
// first call left (an input the first call used up runs only that call, as before). Hostile
// sizes and begin bits, absent / null-with-extent / short masks, int32 and int64 indices with
// out-of-range values (negative, size_bits, far past it), every policy and an invalid one, short,
// null and mask-overlapping destinations, short or null counters, View and raw forms.
// Oracle: the documented contract (gather_policy::check throws std::out_of_range when an index is
// out of range, and is refused in place; dont_check is called only when every index is in range),
// nothing written on rejection, and a bit-by-bit reference from the snapshot when accepted.

struct Gather {
  size_type size = 0, begin = 0, split = 0;  // split: the part of `begin` a raw form's begin_bit holds
  Ref mask, dest;
  std::vector<std::int64_t> idx;
  bool int64 = false, in_place = false, raw = false;
  int policy = 0;
};

std::string describe_gather(const World& w, const Gather& g) {
  std::ostringstream os;
  os << "api=" << (g.in_place ? "inplace_gather_bits" : "gather_bits") << (g.raw ? " (raw forms)" : "")
     << " policy=" << g.policy << " size_bits=" << g.size << " begin_bit=" << g.begin << " split=" << g.split
     << (g.int64 ? " int64" : " int32") << " indices={";
  for (auto i : g.idx) os << " " << i;
  os << " }\n  mask = " << show_ref(w, g.mask, true) << "\n";
  if (g.in_place)
    os << "  dest = " << show_ref(w, g.dest) << "\n  null_count: " << (w.counts_null ? "null, " : "") << "extent "
       << w.ncounts << "\n";
  return os.str();
}

Gather decode_gather(World& w, FuzzedDataProvider& in) {
  Gather g;
  g.size     = pick_size(in);
  g.begin    = pick_begin(in);
  g.int64    = in.ConsumeBool();
  g.in_place = in.ConsumeBool();
  g.raw      = in.ConsumeBool();
  g.policy   = in.ConsumeIntegralInRange<int>(0, 7);
  if (g.policy > 3) g.policy = 1;  // mostly nullify / check / dont_check; 3 is no gather_policy
  g.split = sane(g.begin) ? in.ConsumeIntegralInRange<size_type>(0, g.begin) : 0;
  const size_type need = sane(g.size) && sane(g.begin) ? words_for(g.begin + g.size) : 1;
  switch (in.ConsumeIntegralInRange<int>(0, 7)) {
    case 0: g.mask = {}; break;  // absent: all valid
    case 1: g.mask = {-1, 0, 1 + small_extra(in)}; break;  // null with an extent: refused
    case 2: {
      const size_type n = need > 0 ? need - 1 : 0;
      g.mask            = {w.add(n, in), 0, n};
      break;
    }
    default: {
      const size_type pre = small_extra(in), post = small_extra(in);
      g.mask = {w.add(pre + need + post, in), pre, need + post};
    }
  }
  const int n = in.ConsumeIntegralInRange<int>(0, in.ConsumeBool() ? 40 : 300);
  const std::int64_t far = g.int64 ? (std::int64_t{1} << 40) : std::numeric_limits<std::int32_t>::max();
  const std::int64_t low = g.int64 ? kI64Min : std::numeric_limits<std::int32_t>::min();
  for (int i = 0; i < n; ++i) {
    const int m = in.ConsumeIntegralInRange<int>(0, 31);
    std::int64_t v;
    if (m == 0) v = -1;
    else if (m == 1) v = g.size;
    else if (m == 2) v = far;
    else if (m == 3) v = low;
    else if (g.size > 0) v = in.ConsumeIntegralInRange<std::int64_t>(0, std::min<size_type>(g.size, far) - 1);
    else v = 0;
    if (!g.int64 && (v < low || v > far)) v = far;  // representable in int32
    g.idx.push_back(v);
  }
  if (g.in_place) {
    const size_type nw = words_for(n);
    switch (in.ConsumeIntegralInRange<int>(0, 7)) {
      case 0: g.dest = {-1, 0, in.ConsumeBool() ? 0 : nw}; break;
      case 1: g.dest = {w.add(nw > 0 ? nw - 1 : 0, in), 0, nw > 0 ? nw - 1 : 0}; break;
      case 2:  // inside the mask's buffer: overlapping the bits read, or past them
        if (g.mask.buf >= 0) {
          g.dest = view_into(w, g.mask.buf, in.ConsumeIntegralInRange<size_type>(0, w.bufs[g.mask.buf].n), nw);
          break;
        }
        [[fallthrough]];
      default: {
        const size_type pre = small_extra(in), post = small_extra(in);
        g.dest = {w.add(pre + nw + post + 1, in), pre, nw + post};
      }
    }
    switch (in.ConsumeIntegralInRange<int>(0, 7)) {
      case 0: w.make_counts(0, true, in); break;
      case 1: w.make_counts(0, false, in); break;
      default: w.make_counts(1 + small_extra(in), false, in);
    }
  }
  return g;
}

template <class Index>
void call_gather(const World& w, const Gather& g, Kokkos::View<word_type*, mem_space>& out, size_type& nulls) {
  exec_space exec;
  Kokkos::View<Index*, mem_space> idx("fuzz::indices", g.idx.size());
  for (std::size_t i = 0; i < g.idx.size(); ++i) idx(i) = static_cast<Index>(g.idx[i]);
  const auto policy = static_cast<kmask::gather_policy>(g.policy);
  const kmask::source_mask raw{w.ptr(g.mask), g.mask.len, g.split};
  if (g.in_place) {
    if (g.raw)
      kmask::inplace_gather_bits(exec, kmask::dest_mask{w.ptr(g.dest), g.dest.len}, raw, g.begin - g.split, g.size,
                                 idx, policy, w.count_arg());
    else
      kmask::inplace_gather_bits(exec, w.dst(g.dest), w.src(g.mask), g.begin, g.size, idx, policy, w.count_arg());
    return;
  }
  const auto r = g.raw ? kmask::gather_bits(exec, raw, g.begin - g.split, g.size, idx, policy)
                       : kmask::gather_bits(exec, w.src(g.mask), g.begin, g.size, idx, policy);
  out   = r.first;
  nulls = r.second;
}

void run_gather(World& w, const Gather& g) {
  const size_type n = static_cast<size_type>(g.idx.size());
  bool out_of_range = false;
  for (auto v : g.idx) out_of_range |= v < 0 || v >= g.size;
  // dont_check with an out-of-range index breaks the caller's promise: not a call to make.
  if (g.policy == 2 && out_of_range) return;
  bool valid = g.policy >= 0 && g.policy <= 2 && !(g.in_place && g.policy == 0);
  valid      = valid && size_ok(g.size) && g.begin >= 0 && g.begin <= kMaxBits && g.size <= kMaxBits - g.begin;
  valid      = valid && !null_with_extent(g.mask) && (absent(g.mask) || g.begin + g.size <= cap_bits(g.mask));
  if (g.in_place) {
    const size_type nw = words_for(n);
    valid = valid && !(nw > 0 && g.dest.buf < 0) && g.dest.len >= nw && counts_ok(w, 1);
    // The destination's words must not meet the words the gather reads.
    if (valid && g.size > 0 && g.dest.buf >= 0 && g.dest.buf == g.mask.buf && g.dest.len > 0) {
      const size_type first = g.mask.off + g.begin / 32, last = g.mask.off + (g.begin + g.size - 1) / 32 + 1;
      if (g.dest.off < last && first < g.dest.off + g.dest.len) valid = false;
    }
  } else if (g.policy == 0 && out_of_range) {
    valid = false;  // check: std::out_of_range naming the first bad position
  }
  w.snapshot();
  Kokkos::View<word_type*, mem_space> out;
  size_type nulls = -1;
  if (run_checked(w, valid, [&] {
        if (g.int64) call_gather<std::int64_t>(w, g, out, nulls);
        else call_gather<std::int32_t>(w, g, out, nulls);
      }))
    return;
  std::vector<word_type> want(static_cast<std::size_t>(words_for(n)), 0u);
  size_type want_nulls = 0;
  for (size_type i = 0; i < n; ++i) {
    const std::int64_t j = g.idx[static_cast<std::size_t>(i)];
    const int b          = j < 0 || j >= g.size ? 0 : w.snap_bit(g.mask, g.begin, j);
    set_bit(want, i, b);
    want_nulls += 1 - b;
  }
  Image image = w.snap;
  std::vector<size_type> want_counts = w.counts_snap;
  if (g.in_place) {
    for (std::size_t k = 0; k < want.size(); ++k) image[g.dest.buf][g.dest.off + k] = want[k];
    want_counts[0] = want_nulls;
    compare_world(w, image, want_counts);
    return;
  }
  compare_world(w, image, want_counts);
  want.resize(static_cast<std::size_t>((words_for(n) * 4 + 63) / 64 * 16), 0u);
  if (out.extent(0) != want.size()) fail("gather_bits extent " + std::to_string(out.extent(0)));
  for (std::size_t k = 0; k < want.size(); ++k)
    if (out(k) != want[k]) fail("gather_bits word " + std::to_string(k));
  if (nulls != want_nulls)
    fail("gather_bits null count " + std::to_string(nulls) + ", reference " + std::to_string(want_nulls));
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  static bool initialized = false;  // once per process; never finalize-then-reinitialize
  if (!initialized) {
    kmask::detail::initialize_kokkos(1, true);  // one thread, no warnings (compat.hpp: per Kokkos version)
    initialized = true;
  }
  const char* v = std::getenv("KMASK_FUZZ_VERBOSE");
  verbose       = v != nullptr && v[0] != '\0' && v[0] != '0';
  return 0;
}

#include "fuzz_move_bits.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // Inputs starting with "MV" are calls of the bit-moving functions (fuzz_move_bits.hpp).
  if (size >= 2 && data[0] == 'M' && data[1] == 'V') {
    move_fuzz::one_input(data + 2, size - 2);
    return 0;
  }
  FuzzedDataProvider in(data, size);
  World w;
  const Call c = decode(w, in);
  g_world      = &w;
  g_desc       = describe(w, c);
  if (verbose) std::fprintf(stderr, "%s", g_desc.c_str());
  switch (c.api) {
    case api_superimpose: run_superimpose(w, c); break;
    case api_tree: run_tree(w, c); break;
    case api_count:
    case api_copy:
    case api_segmented_count: run_reads(w, c); break;
    default:
      switch (c.op) {
        case 0: run_segmented(w, c, kmask::bit_and{}); break;
        case 1: run_segmented(w, c, kmask::bit_or{}); break;
        default: run_segmented(w, c, kmask::bit_xor{}); break;
      }
  }
  // The gather path, on the bytes left (none: the first call was the whole input).
  if (in.remaining_bytes() > 0 && in.ConsumeIntegralInRange<int>(0, 3) != 0) {
    World gw;
    const Gather g = decode_gather(gw, in);
    g_world        = &gw;
    g_desc         = describe_gather(gw, g);
    if (verbose) std::fprintf(stderr, "%s", g_desc.c_str());
    run_gather(gw, g);
  }
  g_world = nullptr;
  return 0;
}
