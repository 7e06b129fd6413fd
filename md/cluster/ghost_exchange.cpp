#include "md/cluster/ghost_exchange.hpp"

#include <algorithm>
#include <cmath>

#include "base/error.hpp"

namespace wmd::md {
namespace {

// What a ghost needs: the owner's unshifted position, identity, type and its accumulated box shift.
struct GhostMsg {
  double x[3];
  int64_t tag;
  int type;
  int shift[3];
};

double coord(const PosRec& r, int d) {
  return d == 0 ? r.x : d == 1 ? r.y : r.z;
}

// dst[k·w + c] = v[idx[k]·w + c], w = N, or n when N is 0: a width known at compile time makes each row w
// plain moves.
template <int N>
void gather_width(const double* v, int n, const int* idx, size_t m, double* dst) {
  const int w = N ? N : n;
  for (size_t k = 0; k < m; ++k) {
    const double* src = v + static_cast<size_t>(idx[k]) * w;
    for (int c = 0; c < w; ++c) dst[k * w + c] = src[c];
  }
}

// Gathers m rows of n doubles of v, rows idx[0..m), into dst (the widths the backends use, 1 and 3,
// unrolled).
void gather_rows(const double* v, int n, const int* idx, size_t m, double* dst) {
  if (n == 1) return gather_width<1>(v, n, idx, m, dst);
  if (n == 3) return gather_width<3>(v, n, idx, m, dst);
  gather_width<0>(v, n, idx, m, dst);
}

// v[idx[k]·w + c] += in[k·w + c] in k order, w as in gather_width.
template <int N>
void add_width(double* v, int n, const int* idx, size_t m, const double* in) {
  const int w = N ? N : n;
  for (size_t k = 0; k < m; ++k) {
    double* dst = v + static_cast<size_t>(idx[k]) * w;
    for (int c = 0; c < w; ++c) dst[c] += in[k * w + c];
  }
}

// Adds m rows of n doubles, in[k·n ..], onto rows idx[k] of v, in k order (widths 1 and 3 unrolled).
void add_rows(double* v, int n, const int* idx, size_t m, const double* in) {
  if (n == 1) return add_width<1>(v, n, idx, m, in);
  if (n == 3) return add_width<3>(v, n, idx, m, in);
  add_width<0>(v, n, idx, m, in);
}

// dst[q] = the position of rec[send[q]] moved by `off` along D (x, y or z).
template <int D>
void shifted_positions(const PosRec* rec, const int* send, size_t m, double off, PosRec* dst) {
  for (size_t q = 0; q < m; ++q) {
    const PosRec& src = rec[send[q]];
    dst[q].x = D == 0 ? src.x + off : src.x;
    dst[q].y = D == 1 ? src.y + off : src.y;
    dst[q].z = D == 2 ? src.z + off : src.z;
  }
}

// dst[q] = the position of rec[send[q]] moved by the vector v (a triclinic box's edge b or c).
void edge_shifted_positions(const PosRec* rec, const int* send, size_t m, const double v[3], PosRec* dst) {
  for (size_t q = 0; q < m; ++q) {
    const PosRec& src = rec[send[q]];
    dst[q].x = src.x + v[0], dst[q].y = src.y + v[1], dst[q].z = src.z + v[2];
  }
}

}  // namespace

void migrate_atoms(const Comm& comm, const Decomposition& dec, const Box& box, Atoms& a) {
  const double* pos[3] = {a.x.data(), a.y.data(), a.z.data()};
  for (int d = 0; d < 3; ++d) {
    if (dec.grid()[d] == 1) continue;
    const int lower = dec.neighbor(box, d, -1), upper = dec.neighbor(box, d, +1);
    const int mine = dec.coord()[d];
    // This rank's slab by cell_of's own comparisons (the end cells reach past their bounds): two compares
    // settle the atoms that stay, which are nearly all.
    const double lo = dec.bound(box, d, mine), hi = dec.bound(box, d, mine + 1);
    const bool first = mine == 0, last = mine == dec.grid()[d] - 1;
    // Atoms more than one sub-domain away hop again until every rank's slab along d holds only its own.
    for (;;) {
      const size_t n = a.size();
      pos[0] = a.x.data(), pos[1] = a.y.data(), pos[2] = a.z.data();
      std::vector<char> keep(n, 1);
      std::vector<double> down, up;
      bool moving = false;
      for (size_t i = 0; i < n; ++i) {
        const double x = pos[d][i];
        if ((first || x >= lo) && (last || x < hi)) continue;
        const int c = dec.cell_of(box, d, x);
        std::vector<double>& buf = c < mine ? down : up;
        buf.resize(buf.size() + Atoms::kPackSize);
        a.pack(i, buf.data() + buf.size() - Atoms::kPackSize);
        keep[i] = 0;
        moving = true;
      }
      if (!comm.any(moving)) break;
      a.compact(keep);
      const std::vector<double> from_upper = comm.sendrecv(down, lower, upper);
      const std::vector<double> from_lower = comm.sendrecv(up, upper, lower);
      for (const auto* in : {&from_upper, &from_lower}) {
        for (size_t k = 0; k + Atoms::kPackSize <= in->size(); k += Atoms::kPackSize)
          a.unpack(in->data() + k);
      }
    }
  }
}

void GhostExchange::build(const Comm& comm, const Decomposition& dec, const Box& box, const Atoms& a,
                          double cut, GhostImages& g) {
  const double cuts[3] = {cut, cut, cut};
  build(comm, dec, box, a, cuts, g);
}

void GhostExchange::build(const Comm& comm, const Decomposition& dec, const Box& box, const Atoms& a,
                          const double cut_d[3], GhostImages& g) {
  const int nlocal = static_cast<int>(a.size());
  g.nlocal = nlocal;
  g.rec.resize(nlocal);
  g.shift.clear();
  raw_.resize(3 * static_cast<size_t>(nlocal));
  tag_.assign(a.id.begin(), a.id.end());
  for (int i = 0; i < nlocal; ++i) {
    g.rec[i] = PosRec{a.x[i], a.y[i], a.z[i], a.type[i], static_cast<int>(a.id[i])};
    raw_[3 * i] = a.x[i], raw_[3 * i + 1] = a.y[i], raw_[3 * i + 2] = a.z[i];
  }
  std::vector<int> shift_all(3 * static_cast<size_t>(nlocal), 0);
  const double L[3] = {box.prd(0), box.prd(1), box.prd(2)};
  complete_sends(comm);  // the staging belongs to the old swaps
  swaps_.clear();
  // Appends the ghosts of one swap: `sent` records (with extra shift `k` along d) arrive as `in`.
  auto append = [&](Swap& sw, const std::vector<GhostMsg>& in) {
    sw.first = static_cast<int>(g.rec.size());
    sw.count = static_cast<int>(in.size());
    for (const GhostMsg& m : in) {
      PosRec r;
      r.x = m.x[0] + m.shift[0] * L[0];
      r.y = m.x[1] + m.shift[1] * L[1];
      r.z = m.x[2] + m.shift[2] * L[2];
      r.type = m.type;
      r.owner = static_cast<int>(m.tag);
      g.rec.push_back(r);
      raw_.insert(raw_.end(), {m.x[0], m.x[1], m.x[2]});
      tag_.push_back(m.tag);
      shift_all.insert(shift_all.end(), {m.shift[0], m.shift[1], m.shift[2]});
    }
  };
  auto message = [&](int j, int d, int k) {
    GhostMsg m;
    for (int e = 0; e < 3; ++e) m.x[e] = raw_[3 * j + e], m.shift[e] = shift_all[3 * j + e];
    m.shift[d] += k;
    m.tag = tag_[j];
    m.type = g.rec[j].type;
    return m;
  };
  // Directions this rank spans alone (periodic images of its own atoms) come first, those shared with other
  // ranks last: then every image is made before the first message to another rank, and owned atoms far
  // from the shared faces can be computed while that message is in flight (ClusterBackend's split).
  int order[3], k = 0;
  for (int d = 0; d < 3; ++d)
    if (dec.grid()[d] == 1) order[k++] = d;
  for (int d = 0; d < 3; ++d)
    if (dec.grid()[d] > 1) order[k++] = d;
  shift_by_swaps_ = true;
  for (int e = 0; e < 3; ++e) dim_order_[e] = order[e];
  int stage = 0;  // swaps of one stage are independent of each other and travel together
  for (const int d : order) {
    const double cut = cut_d[d];
    // Records present when direction d starts (owned and earlier directions' ghosts) are the ones scanned.
    const int nscan = static_cast<int>(g.rec.size());
    if (dec.grid()[d] == 1) {
      if (!box.periodic(d)) continue;
      // One cell along d: this rank is its own neighbour; several images when the box is thinner than cut.
      const int kmax = static_cast<int>(std::ceil(cut / L[d])) + 1;
      for (int k = -kmax; k <= kmax; ++k) {
        if (k == 0) continue;
        Swap sw;
        sw.dim = d;
        sw.stage = stage;
        sw.k = k;
        sw.to = sw.from = comm.rank();
        sw.local = true;
        std::vector<GhostMsg> msgs;
        for (int j = 0; j < nscan; ++j) {
          const double c = coord(g.rec[j], d) + k * L[d];
          if (c < box.lo[d] - cut || c >= box.hi[d] + cut) continue;
          sw.send.push_back(j);
          msgs.push_back(message(j, d, k));
        }
        append(sw, msgs);
        swaps_.push_back(std::move(sw));
      }
      ++stage;
      continue;
    }
    // Shared with other ranks: hop after hop (LAMMPS's maxneed[d] swaps per side), each forwarding the
    // ghosts the previous hop brought, until every rank holds every image within cut of its sub-domain
    // however thin the sub-domains are. The first hop scans the records present when d starts; a later hop
    // only the ghosts of the hop before, and of them only those that came from the other side (the
    // midpoint test), so nothing goes back where it came from and no image arrives twice.
    const int p = dec.grid()[d], me = dec.coord()[d];
    const double sublo = dec.bound(box, d, me), subhi = dec.bound(box, d, me + 1);
    const double mid = 0.5 * (sublo + subhi);
    const int hops = dec.max_reach(box, d, cut);  // the same on every rank: every rank knows every cut
    // A ghost crosses the periodic face at most once in p hops. More hops than sub-domains may shift one
    // twice along d, and x + s·L then differs in bits from (x + s₁·L) + s₂·L: the record forward places
    // images from owner coordinates instead (decided from the grid alone, so alike on every rank).
    if (hops > p) shift_by_swaps_ = false;
    // Hops the neighbour below (above) still needs from this side; past them this rank sends nothing.
    const int need_below = dec.reach(box, d, (me - 1 + p) % p, +1, cut);
    const int need_above = dec.reach(box, d, (me + 1) % p, -1, cut);
    int nfirst = 0, nlast = nscan;
    for (int hop = 0; hop < hops; ++hop, ++stage) {
      if (hop > 0) nfirst = nlast, nlast = static_cast<int>(g.rec.size());
      for (int dir : {-1, +1}) {
        Swap sw;
        sw.dim = d;
        sw.stage = stage;
        sw.to = dec.neighbor(box, d, dir);
        sw.from = dec.neighbor(box, d, -dir);
        // Crossing the periodic face: the receiver sees the atom one box length away.
        int k = 0;
        if (dir < 0 && me == 0) k = 1;
        if (dir > 0 && me == p - 1) k = -1;
        sw.k = k;
        std::vector<GhostMsg> msgs;
        if (sw.to >= 0 && hop < (dir < 0 ? need_below : need_above)) {
          for (int j = nfirst; j < nlast; ++j) {
            const double c = coord(g.rec[j], d);
            if (dir < 0 ? c >= sublo + cut || (hop > 0 && c < mid) : c < subhi - cut || (hop > 0 && c >= mid))
              continue;
            sw.send.push_back(j);
            msgs.push_back(message(j, d, k));
          }
        }
        append(sw, comm.sendrecv(msgs, sw.to, sw.from));
        swaps_.push_back(std::move(sw));
      }
    }
  }
  g.shift.assign(shift_all.begin() + 3 * static_cast<size_t>(nlocal), shift_all.end());
}

void GhostExchange::forward_positions(const Comm& comm, const Box& box, const Atoms& a, GhostImages& g) {
  const int nlocal = g.nlocal;
  for (int i = 0; i < nlocal; ++i) {
    g.rec[i].x = raw_[3 * i] = a.x[i];
    g.rec[i].y = raw_[3 * i + 1] = a.y[i];
    g.rec[i].z = raw_[3 * i + 2] = a.z[i];
  }
  forward(comm, raw_.data(), 3);
  place_images(box, g, nlocal, g.nall());
}

bool GhostExchange::forward_records_begin(const Comm& comm, const Box& box, const Atoms& a, GhostImages& g,
                                          const double* hold, double trigger) {
  if (pending_.active) throw RunError("internal error: a ghost exchange started before the last one ended");
  const int nlocal = g.nlocal;
  PosRec* rec = g.rec.data();
  bool moved = false;
  if (hold) {
    for (int i = 0; i < nlocal; ++i) {
      const double x = a.x[i], y = a.y[i], z = a.z[i];
      rec[i].x = x, rec[i].y = y, rec[i].z = z;
      const double dx = x - hold[3 * i], dy = y - hold[3 * i + 1], dz = z - hold[3 * i + 2];
      moved |= dx * dx + dy * dy + dz * dz > trigger;
    }
  } else {
    for (int i = 0; i < nlocal; ++i) rec[i].x = a.x[i], rec[i].y = a.y[i], rec[i].z = a.z[i];
  }
  if (!shift_by_swaps_) {
    // Some ghost took two box shifts along one direction: owner coordinates + shift·L, as build placed them
    // (the same bits whatever the rank count), at once; the end has nothing left to do.
    forward_positions(comm, box, a, g);
    open_pending(nullptr, 3, &g, open_outbox(comm, &g));
    return moved;
  }
  Outbox& ob = open_outbox(comm, &g);
  open_pending(nullptr, 3, &g, ob);
  forward_groups_begin(
      comm, [&](size_t b, size_t e, Comm::Requests& recv) { post_records(comm, box, g, b, e, ob, recv); });
  return moved;
}

void GhostExchange::forward_records_end(const Comm& comm, const Box& box, GhostImages& g) {
  Outbox& ob = *pending_.out;
  forward_groups_end(
      comm, [&](size_t b, size_t e, Comm::Requests& recv) { post_records(comm, box, g, b, e, ob, recv); },
      [&](size_t b, size_t e) { unpack_records(g, b, e); });
}

void GhostExchange::open_pending(double* v, int n, GhostImages* g, Outbox& ob) {
  pending_.v = v, pending_.n = n, pending_.g = g, pending_.out = &ob;
  pending_.b = pending_.e = swaps_.size();
  pending_.active = true;
}

void GhostExchange::forward_groups_begin(const Comm& comm, const PostGroup& post) {
  for (size_t b = 0; b < swaps_.size();) {
    const size_t e = group_end(b);
    post(b, e, pending_.req);  // a group of local swaps posts nothing: copied in place
    if (remote(comm, b, e)) {
      pending_.b = b, pending_.e = e;
      return;
    }
    b = e;
  }
}

void GhostExchange::forward_groups_end(const Comm& comm, const PostGroup& post, const Received& received) {
  comm.finish(pending_.req);
  if (pending_.e > pending_.b && received) received(pending_.b, pending_.e);
  for (size_t b = pending_.e; b < swaps_.size();) {
    const size_t e = group_end(b);
    post(b, e, pending_.req);
    comm.finish(pending_.req);
    if (received) received(b, e);
    b = e;
  }
  pending_.active = false;
}

// Images this rank makes itself are copied record to record; coordinates for other ranks are staged with
// the shift added, as the receiver would add it (x + k·L along the swap's direction). The source's own
// coordinate along it is unshifted unless the ghost goes round the box twice (build then clears
// shift_by_swaps_ and this path is not taken), so the sum has build's bits, x + s·L.
void GhostExchange::post_records(const Comm& comm, const Box& box, GhostImages& g, size_t b, size_t e,
                                 Outbox& ob, Comm::Requests& recv) {
  PosRec* rec = g.rec.data();
  std::vector<Comm::Transfer> t;
  for (size_t s = b; s < e; ++s) {
    const Swap& sw = swaps_[s];
    const double off = sw.k * box.prd(sw.dim);
    const int d = sw.dim;
    const size_t m = sw.send.size();
    // A triclinic box's edge vector b or c: the x (and y) coordinates move too (LAMMPS's pbc forward with
    // xy, xz, yz); otherwise one coordinate moves by off.
    const bool tilted = box.triclinic && sw.k != 0 && d > 0;
    double v[3] = {0.0, 0.0, 0.0};
    if (tilted) box.edge(d, sw.k, v);
    if (sw.local) {
      PosRec* dst = rec + sw.first;
      if (tilted) edge_shifted_positions(rec, sw.send.data(), m, v, dst);
      if (tilted) continue;
      if (d == 0) shifted_positions<0>(rec, sw.send.data(), m, off, dst);
      if (d == 1) shifted_positions<1>(rec, sw.send.data(), m, off, dst);
      if (d == 2) shifted_positions<2>(rec, sw.send.data(), m, off, dst);
      continue;
    }
    std::vector<double>& out = ob.bufs[s];
    std::vector<double>& in = inbufs_[s];
    out.resize(3 * m);
    in.resize(3 * static_cast<size_t>(sw.count));
    for (size_t q = 0; q < m; ++q) {
      const PosRec& src = rec[sw.send[q]];
      double* o = &out[3 * q];
      o[0] = src.x, o[1] = src.y, o[2] = src.z;
      if (tilted)
        o[0] += v[0], o[1] += v[1], o[2] += v[2];
      else
        o[d] += off;
    }
    t.push_back(Comm::Transfer{out.data(), out.size() * sizeof(double), sw.to, in.data(),
                               in.size() * sizeof(double), sw.from});
  }
  comm.start(t, recv, ob.req);
}

void GhostExchange::unpack_records(GhostImages& g, size_t b, size_t e) const {
  for (size_t s = b; s < e; ++s) {
    const Swap& sw = swaps_[s];
    if (sw.local || sw.from < 0) continue;
    const double* in = inbufs_[s].data();
    PosRec* dst = g.rec.data() + sw.first;
    for (int q = 0; q < sw.count; ++q)
      dst[q].x = in[3 * q], dst[q].y = in[3 * q + 1], dst[q].z = in[3 * q + 2];
  }
}

void GhostExchange::to_cartesian(const Box& box, GhostImages& g) {
  for (size_t j = 0; j < g.rec.size(); ++j) {
    double p[3] = {g.rec[j].x, g.rec[j].y, g.rec[j].z};
    box.from_lamda(p, p);
    g.rec[j].x = p[0], g.rec[j].y = p[1], g.rec[j].z = p[2];
    box.from_lamda(&raw_[3 * j], &raw_[3 * j]);
  }
}

void GhostExchange::place_images(const Box& box, GhostImages& g, int j0, int j1) const {
  if (box.triclinic) {
    // Owner + one edge vector per shifted direction, in the order the swaps added them.
    for (int j = j0; j < j1; ++j) {
      const int* s = g.shift_of(j);
      double p[3] = {raw_[3 * j], raw_[3 * j + 1], raw_[3 * j + 2]};
      for (const int d : dim_order_) {
        if (s[d] == 0) continue;
        double v[3];
        box.edge(d, s[d], v);
        p[0] += v[0], p[1] += v[1], p[2] += v[2];
      }
      g.rec[j].x = p[0], g.rec[j].y = p[1], g.rec[j].z = p[2];
    }
    return;
  }
  const double lx = box.prd(0), ly = box.prd(1), lz = box.prd(2);
  for (int j = j0; j < j1; ++j) {
    const int* s = g.shift_of(j);
    g.rec[j].x = raw_[3 * j] + s[0] * lx;
    g.rec[j].y = raw_[3 * j + 1] + s[1] * ly;
    g.rec[j].z = raw_[3 * j + 2] + s[2] * lz;
  }
}

size_t GhostExchange::group_end(size_t b) const {
  size_t e = b;
  while (e < swaps_.size() && swaps_[e].stage == swaps_[b].stage) ++e;
  return e;
}

size_t GhostExchange::group_begin(size_t e) const {
  size_t b = e;
  while (b > 0 && swaps_[b - 1].stage == swaps_[e - 1].stage) --b;
  return b;
}

bool GhostExchange::remote(const Comm& comm, size_t b, size_t e) const {
  for (size_t s = b; s < e; ++s) {
    const Swap& sw = swaps_[s];
    if ((sw.to >= 0 && sw.to != comm.rank()) || (sw.from >= 0 && sw.from != comm.rank())) return true;
  }
  return false;
}

GhostExchange::Outbox& GhostExchange::open_outbox(const Comm& comm, const void* key) {
  Outbox* ob = nullptr;
  for (Outbox& o : outboxes_)
    if (o.key == key) ob = &o;
  if (!ob) {
    outboxes_.emplace_back();
    ob = &outboxes_.back();
    ob->key = key;
  }
  // The previous exchange of this array is long over on the partner too: its sends complete at once.
  comm.finish(ob->req);
  ob->bufs.resize(swaps_.size());
  inbufs_.resize(swaps_.size());
  return *ob;
}

void GhostExchange::complete_sends(const Comm& comm) {
  for (Outbox& ob : outboxes_) comm.finish(ob.req);
  outboxes_.clear();  // keys may change with the arrays; staging is re-sized for the new swaps anyway
}

// The swaps of one stage are independent (each sends only records that existed before the stage started:
// a direction's local images, or one hop of a shared direction), so they travel together: one
// synchronisation per stage and exchange.
void GhostExchange::post_forward(const Comm& comm, double* v, int n, size_t b, size_t e, Outbox& ob,
                                 Comm::Requests& recv) {
  std::vector<Comm::Transfer> t;
  for (size_t s = b; s < e; ++s) {
    const Swap& sw = swaps_[s];
    if (sw.local) {
      // A stage's sources precede its ghosts, so the copy reads nothing it writes.
      gather_rows(v, n, sw.send.data(), sw.send.size(), v + static_cast<size_t>(sw.first) * n);
      continue;
    }
    std::vector<double>& out = ob.bufs[s];
    out.resize(sw.send.size() * n);
    gather_rows(v, n, sw.send.data(), sw.send.size(), out.data());
    t.push_back(Comm::Transfer{out.data(), out.size() * sizeof(double), sw.to,
                               v + static_cast<size_t>(sw.first) * n,
                               static_cast<size_t>(sw.count) * n * sizeof(double), sw.from});
  }
  comm.start(t, recv, ob.req);
}

// Ghost values are staged before they are sent, so the caller may write to the array again as soon as
// the exchange has ended, whatever the state of the sends.
void GhostExchange::post_reverse(const Comm& comm, double* v, int n, size_t b, size_t e, Outbox& ob,
                                 Comm::Requests& recv) {
  std::vector<Comm::Transfer> t;
  for (size_t s = b; s < e; ++s) {
    const Swap& sw = swaps_[s];
    if (sw.local) continue;  // added in place by add_reverse
    std::vector<double>& out = ob.bufs[s];
    const double* ghosts = v + static_cast<size_t>(sw.first) * n;
    out.assign(ghosts, ghosts + static_cast<size_t>(sw.count) * n);
    std::vector<double>& in = inbufs_[s];
    in.resize(sw.send.size() * n);
    t.push_back(Comm::Transfer{out.data(), out.size() * sizeof(double), sw.from, in.data(),
                               in.size() * sizeof(double), sw.to});
  }
  comm.start(t, recv, ob.req);
}

void GhostExchange::add_reverse(double* v, int n, size_t b, size_t e) const {
  // Added in reverse swap order, as a one-swap-at-a-time exchange would.
  for (size_t s = e; s-- > b;) {
    const Swap& sw = swaps_[s];
    // A local swap's ghosts are read in place: the sums land on records before the stage's ghosts.
    const double* in = sw.local ? v + static_cast<size_t>(sw.first) * n : inbufs_[s].data();
    add_rows(v, n, sw.send.data(), sw.send.size(), in);
  }
}

void GhostExchange::forward(const Comm& comm, double* v, int n) {
  forward_begin(comm, v, n);
  forward_end(comm);
}

void GhostExchange::reverse(const Comm& comm, double* v, int n) {
  reverse_begin(comm, v, n);
  reverse_end(comm);
}

void GhostExchange::forward_begin(const Comm& comm, double* v, int n) {
  if (pending_.active) throw RunError("internal error: a ghost exchange started before the last one ended");
  Outbox& ob = open_outbox(comm, v);
  open_pending(v, n, nullptr, ob);
  forward_groups_begin(
      comm, [&](size_t b, size_t e, Comm::Requests& recv) { post_forward(comm, v, n, b, e, ob, recv); });
}

void GhostExchange::forward_end(const Comm& comm) {
  double* v = pending_.v;
  const int n = pending_.n;
  Outbox& ob = *pending_.out;
  forward_groups_end(
      comm, [&](size_t b, size_t e, Comm::Requests& recv) { post_forward(comm, v, n, b, e, ob, recv); }, {});
}

void GhostExchange::reverse_begin(const Comm& comm, double* v, int n) {
  if (pending_.active) throw RunError("internal error: a ghost exchange started before the last one ended");
  // The last stage (a hop shared with another rank) is posted now; the earlier stages fold in reverse_end.
  // Without one, everything waits for reverse_end, so values added in between still reach their owners.
  Outbox& ob = open_outbox(comm, v);
  open_pending(v, n, nullptr, ob);
  size_t last = 0;  // end of the last shared stage's swaps; 0: none
  for (size_t e = swaps_.size(); e > 0 && last == 0;) {
    const size_t b = group_begin(e);
    if (remote(comm, b, e)) last = e;
    e = b;
  }
  if (last == 0) return;
  // build() puts the shared directions last, so nothing is folded before the post: between begin and end
  // every record still holds what was accumulated on it (ClusterBackend reads the virial there).
  if (last != swaps_.size()) throw RunError("internal error: a local ghost direction follows a shared one");
  pending_.b = group_begin(last), pending_.e = last;
  post_reverse(comm, v, n, pending_.b, pending_.e, ob, pending_.req);
}

void GhostExchange::reverse_end(const Comm& comm) {
  comm.finish(pending_.req);
  if (pending_.e > pending_.b) add_reverse(pending_.v, pending_.n, pending_.b, pending_.e);
  for (size_t e = pending_.b; e > 0;) {
    const size_t b = group_begin(e);
    post_reverse(comm, pending_.v, pending_.n, b, e, *pending_.out, pending_.req);
    comm.finish(pending_.req);
    add_reverse(pending_.v, pending_.n, b, e);
    e = b;
  }
  pending_.active = false;
}

int GhostExchange::first_remote_record(const Comm& comm, int nall) const {
  for (size_t b = 0; b < swaps_.size();) {
    const size_t e = group_end(b);
    if (remote(comm, b, e)) return swaps_[b].first;
    b = e;
  }
  return nall;
}

}  // namespace wmd::md
