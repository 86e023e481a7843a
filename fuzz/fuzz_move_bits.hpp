// The bit-moving calls (move_bits.hpp) in the fuzz target: inputs starting with "MV" decode into
// one call of set_bits, set_bits_bulk, copy_bits, segmented_copy_bits, concatenate or
// inplace_concatenate on Kokkos::Serial, over the same exact-size buffers, with the same oracles:
// the contract's predicate decides accepted or rejected, a rejected call writes nothing, an
// accepted one writes exactly what a bit-by-bit reference computes from the snapshot (sources read
// as before the call, so aliasing a destination is covered) and nothing else.
// Included by fuzz_segmented_binop.cpp after its World, Ref and oracle helpers.

namespace move_fuzz {

enum MoveApi { set_bits_one, set_bits_bulk, copy_one, segmented_copy, concatenate, inplace_concatenate, num_apis };
const char* name(int a) {
  static const char* n[] = {"set_bits", "set_bits_bulk", "copy_bits", "segmented_copy_bits", "concatenate",
                            "inplace_concatenate"};
  return n[a];
}

struct Piece {
  Ref dest;
  size_type dest_begin = 0;  // set_bits: begin bit
  Ref src;
  size_type src_begin = 0;
  size_type size      = 0;   // set_bits: end bit
  bool valid          = false;
};

struct MoveCall {
  int api = 0;
  std::vector<Piece> pieces;
  Ref dest;  // inplace_concatenate
};

size_type small_or_special(FuzzedDataProvider& in, size_type max) {
  return in.ConsumeIntegralInRange<int>(0, 31) == 0 ? pick_special(in) : in.ConsumeIntegralInRange<size_type>(0, max);
}

// A view: null (absent or with an extent), or part of a fresh or an existing buffer (aliasing).
Ref pick_ref(World& w, FuzzedDataProvider& in) {
  const int m = in.ConsumeIntegralInRange<int>(0, 15);
  if (m == 0) return {-1, 0, in.ConsumeBool() ? 0 : 1 + small_extra(in)};
  if (m < 8 && !w.bufs.empty()) {
    const int b = in.ConsumeIntegralInRange<int>(0, static_cast<int>(w.bufs.size()) - 1);
    return view_into(w, b, in.ConsumeIntegralInRange<size_type>(0, 4), in.ConsumeIntegralInRange<int>(-1, 40));
  }
  const size_type n = in.ConsumeIntegralInRange<size_type>(0, 40);
  return {w.add(n, in), 0, n};
}

MoveCall decode_move(World& w, FuzzedDataProvider& in) {
  MoveCall c;
  c.api = in.ConsumeIntegralInRange<int>(0, num_apis - 1);
  for (int b = in.ConsumeIntegralInRange<int>(0, 3); b > 0; --b) w.add(in.ConsumeIntegralInRange<size_type>(0, 40), in);
  int n = in.ConsumeIntegralInRange<int>(0, 12);
  if (c.api == set_bits_one || c.api == copy_one) n = 1;
  for (int i = 0; i < n; ++i) {
    Piece p;
    p.dest       = pick_ref(w, in);
    p.src        = in.ConsumeIntegralInRange<int>(0, 3) == 0 && i > 0 ? c.pieces[i - 1].dest : pick_ref(w, in);
    p.dest_begin = small_or_special(in, 700);
    p.src_begin  = small_or_special(in, 300);
    // Sometimes an end bit just past the begin (the set_bits calls take end bits).
    p.size       = in.ConsumeIntegralInRange<int>(0, 7) == 0 && sane(p.dest_begin)
                       ? p.dest_begin + in.ConsumeIntegralInRange<size_type>(0, 64)
                       : small_or_special(in, 500);
    p.valid      = in.ConsumeBool();
    c.pieces.push_back(p);
  }
  c.dest = pick_ref(w, in);
  if (c.api == inplace_concatenate) w.make_counts(in.ConsumeIntegralInRange<int>(0, 2), in.ConsumeIntegralInRange<int>(0, 7) == 0, in);
  else w.make_counts(0, false, in);
  return c;
}

bool pos_ok(size_type v) { return v >= 0 && v <= kMaxBits; }
bool dest_ok(const Ref& d, size_type begin, size_type size) {
  if (!pos_ok(begin) || !pos_ok(size) || begin + size > kMaxBits) return false;
  if (size > 0 && d.buf < 0) return false;
  return begin + size <= cap_bits(d);
}
bool src_ok(const Ref& s, size_type begin, size_type size) {
  if (!pos_ok(begin) || null_with_extent(s)) return false;
  return absent(s) || begin + size <= cap_bits(s);
}
// The size of piece p (set_bits calls give an end bit), or -1 when the pair is malformed.
size_type size_of(const MoveCall& c, const Piece& p) {
  if (c.api != set_bits_one && c.api != set_bits_bulk) return p.size;
  if (!pos_ok(p.dest_begin) || p.size < p.dest_begin || p.size > kMaxBits) return -1;
  return p.size - p.dest_begin;
}
// No two non-empty destination ranges share a bit (ranges in different buffers never do).
bool disjoint(const MoveCall& c) {
  for (std::size_t a = 0; a < c.pieces.size(); ++a)
    for (std::size_t b = a + 1; b < c.pieces.size(); ++b) {
      const Piece &x = c.pieces[a], &y = c.pieces[b];
      const size_type sx = size_of(c, x), sy = size_of(c, y);
      if (sx <= 0 || sy <= 0 || x.dest.buf != y.dest.buf) continue;
      const size_type bx = 32 * x.dest.off + x.dest_begin, by = 32 * y.dest.off + y.dest_begin;
      if (bx < by + sy && by < bx + sx) return false;
    }
  return true;
}

void set_want(Image& want, const Ref& d, size_type bit, int v) { set_bit(want[d.buf], 32 * d.off + bit, v); }

void run(World& w, const MoveCall& c) {
  exec_space exec;
  std::vector<dest_view> dests;
  std::vector<src_view> srcs;
  std::vector<kmask::dest_mask> rdests;
  std::vector<kmask::source_mask> rsrcs;
  std::vector<size_type> db, sb, sizes;
  std::vector<bool> valid;
  for (const auto& p : c.pieces) {
    dests.push_back(w.dst(p.dest));
    srcs.push_back(w.src(p.src));
    rdests.push_back({w.ptr(p.dest), p.dest.len});
    rsrcs.push_back({w.ptr(p.src), p.src.len, p.src_begin});
    db.push_back(p.dest_begin);
    sb.push_back(p.src_begin);
    sizes.push_back(p.size);
    valid.push_back(p.valid);
  }
  const bool raw = !c.pieces.empty() && c.pieces[0].valid;  // which form, from the input
  bool ok        = true;
  w.snapshot();
  Image want     = w.snap;
  std::vector<size_type> want_counts = w.counts_snap;
  switch (c.api) {
    case set_bits_one:
    case set_bits_bulk:
    case copy_one:
    case segmented_copy: {
      const bool copies = c.api == copy_one || c.api == segmented_copy;
      for (const auto& p : c.pieces) {
        const size_type s = size_of(c, p);
        ok = ok && s >= 0 && dest_ok(p.dest, p.dest_begin, s) && (!copies || src_ok(p.src, p.src_begin, s));
      }
      ok = ok && disjoint(c);
      if (ok)
        for (const auto& p : c.pieces)
          for (size_type i = 0, s = size_of(c, p); i < s; ++i)
            set_want(want, p.dest, p.dest_begin + i, copies ? w.snap_bit(p.src, p.src_begin, i) : p.valid);
      const Piece p0 = c.pieces.empty() ? Piece{} : c.pieces[0];  // the single calls have one piece
      if (!run_checked(w, ok, [&] {
            switch (c.api) {
              case set_bits_one:
                if (raw) kmask::set_bits(exec, rdests[0], p0.dest_begin, p0.size, p0.valid);
                else kmask::set_bits(exec, dests[0], p0.dest_begin, p0.size, p0.valid);
                break;
              case set_bits_bulk:
                if (raw) kmask::set_bits_bulk(exec, rdests, db, sizes, valid);
                else kmask::set_bits_bulk(exec, dests, db, sizes, valid);
                break;
              case copy_one:
                if (raw) kmask::copy_bits(exec, rdests[0], p0.dest_begin, rsrcs[0], p0.size);
                else kmask::copy_bits(exec, dests[0], p0.dest_begin, srcs[0], p0.src_begin, p0.size);
                break;
              default:
                if (raw) kmask::segmented_copy_bits(exec, rdests, db, rsrcs, sizes);
                else kmask::segmented_copy_bits(exec, dests, db, srcs, sb, sizes);
            }
          }))
        compare_world(w, want, want_counts);
      break;
    }
    case concatenate:
    case inplace_concatenate: {
      size_type total = 0;
      for (const auto& p : c.pieces) {
        ok = ok && pos_ok(p.size) && src_ok(p.src, p.src_begin, p.size) && p.size <= kMaxBits - total;
        if (ok) total += p.size;
      }
      const bool in_place = c.api == inplace_concatenate;
      if (in_place) ok = ok && counts_ok(w, 1) && (total == 0 || c.dest.buf >= 0) && c.dest.len >= words_for(total);
      // A valid allocating call of more than 2^22 bits (absent pieces) would only test the allocator.
      if (!in_place && ok && total > (size_type{1} << 22)) return;
      std::vector<word_type> out(static_cast<std::size_t>(ok ? words_for(total) : 0), 0u);
      size_type nulls = 0, at = 0;
      if (ok)
        for (const auto& p : c.pieces)
          for (size_type i = 0; i < p.size; ++i, ++at) {
            const int bit = w.snap_bit(p.src, p.src_begin, i);
            set_bit(out, at, bit);
            nulls += !bit;
          }
      std::pair<kmask::mask_view<mem_space>, size_type> got;
      const bool threw = run_checked(w, ok, [&] {
        if (!in_place) got = raw ? kmask::concatenate(exec, rsrcs, sizes) : kmask::concatenate(exec, srcs, sb, sizes);
        else if (raw) kmask::inplace_concatenate(exec, kmask::dest_mask{w.ptr(c.dest), c.dest.len}, rsrcs, sizes, w.count_arg());
        else kmask::inplace_concatenate(exec, w.dst(c.dest), srcs, sb, sizes, w.count_arg());
      });
      if (threw) break;
      if (in_place) {
        for (std::size_t i = 0; i < out.size(); ++i) want[c.dest.buf][c.dest.off + i] = out[i];
        want_counts[0] = nulls;
        compare_world(w, want, want_counts);
      } else {
        compare_world(w, want, want_counts);
        const size_type padded = kmask::allocation_size_bytes(total) / 4;
        if (static_cast<size_type>(got.first.extent(0)) != padded) fail("concatenate: wrong extent");
        for (size_type i = 0; i < padded; ++i)
          if (got.first(i) != (i < static_cast<size_type>(out.size()) ? out[i] : 0u))
            fail("concatenate: word " + std::to_string(i) + " differs from the reference");
        if (got.second != nulls) fail("concatenate: null count " + std::to_string(got.second) + ", reference " + std::to_string(nulls));
      }
      break;
    }
  }
}

std::string describe_move(const World& w, const MoveCall& c) {
  std::ostringstream os;
  os << "api=" << name(c.api) << " pieces=" << c.pieces.size() << "\n";
  for (std::size_t i = 0; i < c.pieces.size(); ++i) {
    const Piece& p = c.pieces[i];
    os << "  piece[" << i << "] dest=" << show_ref(w, p.dest) << " dest_begin=" << p.dest_begin
       << " src=" << show_ref(w, p.src, true) << " src_begin=" << p.src_begin << " size/end=" << p.size
       << " valid=" << p.valid << "\n";
  }
  os << "  dest=" << show_ref(w, c.dest) << " null_count: " << (w.counts_null ? "null, " : "") << "extent "
     << w.ncounts << "\n";
  return os.str();
}

// One "MV" input.
void one_input(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  World w;
  const MoveCall c = decode_move(w, in);
  g_world          = &w;
  g_desc           = describe_move(w, c);
  if (verbose) std::fprintf(stderr, "%s", g_desc.c_str());
  run(w, c);
  g_world = nullptr;
}

}  // namespace move_fuzz
