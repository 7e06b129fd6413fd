#include "md/mesh/mesh_backend.hpp"

#include <fmt/format.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

#include "base/error.hpp"
#include "fabric/cost_model.hpp"
#include "md/force/eam_atom_kernels.hpp"
#include "md/mesh/pe_kernels.hpp"
#include "md/mesh/pe_kernels32.hpp"

namespace wmd::md::mesh {
namespace {

using fabric::FastTransport;
using fabric::ReduceOp;
using fabric::ScheduleKind;
using fabric::ScheduleSpec;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

constexpr int swap_words = 11;            // atom record: handle, x, y, z, vx, vy, vz, type, id, 2 spare
constexpr size_t word_budget = 1u << 22;  // words per streamed receive buffer (16 MB)

uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float bits_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

int8_t pack_shift(int sx, int sy, int sz) {
  return static_cast<int8_t>((sx + 1) + 3 * (sy + 1) + 9 * (sz + 1));
}
}  // namespace

/// Transports, fp32 tables and streaming buffers: the emulator's machinery, not PE state.
struct MeshBackend::Impl {
  std::unique_ptr<FastTransport> pos, fp, scan, check, sum, swap;
  PeTables32 pt;  // fp32 PE tables (fp32 mode)
  std::vector<uint32_t> pos_payload, fp_payload, buf, buf2;
  std::vector<std::vector<uint32_t>>
      ring;                 // fp32: received positions of the chunks awaiting their force pass
  std::vector<double> epe;  // per-PE energy of the last force pass (band)
  std::vector<double> vpe;  // per-PE virial (6) (band)
  // Halo plan: runs of whole PE rows received from / sent to other ranks each multicast.
  struct Run {
    int rank, row0, rows;
  };
  std::vector<Run> recv, send;
  Comm::Requests halo;  // the halo messages in flight (none between exchanges; kept for its storage)
};

/// Every rank's atoms at a rebuild, gathered in rank order (rank r's atoms from first[r]): the mapping's
/// upkeep reads them on every rank alike.
struct MeshBackend::AllAtoms {
  std::vector<double> x, y, z;
  std::vector<int64_t> id;
  std::vector<int> type;
  std::vector<int64_t> first;  // per rank, and the total at the end
  int size() const { return static_cast<int>(x.size()); }
};

namespace {

// Wraps atom i into the periodic box (its image count follows) or reports it lost through a fixed face, as
// its PE does when the atom's reference resets; a non-finite coordinate ends the run.
void wrap_or_lose(Atoms& a, const Box& box, int64_t step, int i) {
  static const char* axis[] = {"x", "y", "z"};
  double* pos[3] = {a.x.data(), a.y.data(), a.z.data()};
  int* img[3] = {a.ix.data(), a.iy.data(), a.iz.data()};
  for (int d = 0; d < 3; ++d) {
    if (!std::isfinite(pos[d][i]))
      throw RunError(
          fmt::format("atom {} has a non-finite {} coordinate at step {}", a.id[i], axis[d], step));
    if (box.periodic(d)) {
      const int before = img[d][i];
      wrap_periodic(pos[d][i], img[d][i], box.lo[d], box.hi[d]);
      remap_velocity(box, d, a.mask[i], before, img[d][i], d == 0 ? a.vx[i] : d == 1 ? a.vy[i] : a.vz[i]);
    } else if (pos[d][i] < box.lo[d] || pos[d][i] >= box.hi[d]) {
      throw RunError(
          fmt::format("lost atom {}: it left the box through the non-periodic {} boundary at step {} "
                      "({} = {})",
                      a.id[i], axis[d], step, axis[d], pos[d][i]));
    }
  }
}

// Gathers the atoms' positions (as they are now), ids and types from every rank.
void gather_atoms(const Comm& comm, const Atoms& a, MeshBackend::AllAtoms& g) {
  g.x = comm.allgather(a.x);
  g.y = comm.allgather(a.y);
  g.z = comm.allgather(a.z);
  g.id = comm.allgather(a.id);
  g.type = comm.allgather(a.type);
  const std::vector<int64_t> counts = comm.allgather(std::vector<int64_t>{static_cast<int64_t>(a.size())});
  g.first.assign(counts.size() + 1, 0);
  for (size_t r = 0; r < counts.size(); ++r) g.first[r + 1] = g.first[r] + counts[r];
}

// Index of each id among `ids` (ids unique): a dense table when the ids are compact, else a sorted copy.
class IdIndex {
 public:
  explicit IdIndex(const std::vector<int64_t>& ids) {
    int64_t mx = 0;
    for (int64_t v : ids) mx = std::max(mx, v);
    if (mx <= 4 * static_cast<int64_t>(ids.size()) + 64) {
      dense_.assign(static_cast<size_t>(mx) + 1, -1);
      for (size_t k = 0; k < ids.size(); ++k) dense_[ids[k]] = static_cast<int32_t>(k);
    } else {
      sorted_.resize(ids.size());
      for (size_t k = 0; k < ids.size(); ++k) sorted_[k] = {ids[k], static_cast<int32_t>(k)};
      std::sort(sorted_.begin(), sorted_.end());
    }
  }
  /// Index of `id`, −1 when absent.
  int32_t find(int64_t id) const {
    if (!dense_.empty()) return id >= 0 && id < static_cast<int64_t>(dense_.size()) ? dense_[id] : -1;
    auto it = std::lower_bound(sorted_.begin(), sorted_.end(), std::pair<int64_t, int32_t>{id, -1});
    return it != sorted_.end() && it->first == id ? it->second : -1;
  }

 private:
  std::vector<int32_t> dense_;
  std::vector<std::pair<int64_t, int32_t>> sorted_;
};

}  // namespace

MeshBackend::MeshBackend(MeshOptions opt, const Comm* comm)
    : opt_(std::move(opt)), comm_(comm ? comm : &Comm::local()), impl_(std::make_unique<Impl>()) {
  hw_ = fabric::load_hardware(opt_.wafer);
}

MeshBackend::~MeshBackend() = default;

// Bands of whole PE rows, as equal as the row count allows, in rank order.
void MeshBackend::set_bands() {
  const int R = comm_->size(), H = map_.height, W = map_.width;
  if (H < R)
    fail_input(SourcePos{"<mesh>", 0},
               fmt::format("the mesh's {} PE rows cannot be tiled over {} MPI ranks (one band of rows per "
                           "rank): run on at most {} ranks",
                           H, R, H));
  rank_of_row_.assign(H, 0);
  for (int r = 0; r < R; ++r)
    for (int y = static_cast<int>(static_cast<int64_t>(r) * H / R);
         y < static_cast<int>(static_cast<int64_t>(r + 1) * H / R); ++y)
      rank_of_row_[y] = r;
  const int me = comm_->rank();
  row0_ = static_cast<int>(static_cast<int64_t>(me) * H / R);
  row1_ = static_cast<int>(static_cast<int64_t>(me + 1) * H / R);
  pe0_ = row0_ * W, pe1_ = row1_ * W;
}

void MeshBackend::make_transports() {
  Impl& I = *impl_;
  const fabric::Grid g{map_.width, map_.height};
  const int pw = opt_.fp64 ? 6 : 3, fw = opt_.fp64 ? 2 : 1;
  if (2 * b_ + 1 > g.width || 2 * b_ + 1 > g.height) {
    throw RunError(
        fmt::format("mesh: the window radius b = {} needs a grid of at least {}x{} PEs, but the system "
                    "maps onto {}x{}; use the cluster backend for so few atoms",
                    b_, 2 * b_ + 1, 2 * b_ + 1, g.width, g.height));
  }
  I.pos =
      std::make_unique<FastTransport>(ScheduleSpec{ScheduleKind::WindowMulticast, g, b_, pw, map_.wrap}, hw_);
  I.fp =
      std::make_unique<FastTransport>(ScheduleSpec{ScheduleKind::WindowMulticast, g, b_, fw, map_.wrap}, hw_);
  I.scan = std::make_unique<FastTransport>(
      ScheduleSpec{ScheduleKind::WindowMulticast, g, b_, pw + 2, map_.wrap}, hw_);
  I.check = std::make_unique<FastTransport>(
      ScheduleSpec{ScheduleKind::Reduction, g, 1, 1, map_.wrap, ReduceOp::Max}, hw_);
  I.sum = std::make_unique<FastTransport>(
      ScheduleSpec{ScheduleKind::Reduction, g, 1, 7, map_.wrap, ReduceOp::Sum}, hw_);
  I.swap = std::make_unique<FastTransport>(
      ScheduleSpec{ScheduleKind::NeighbourSwap, g, 1, swap_words, map_.wrap}, hw_);
  counters_.max_b = std::max(counters_.max_b, b_);
  // Halo plan: the rows within b of each band (wrapped on the torus) that other bands own.
  I.recv.clear(), I.send.clear();
  const int R = comm_->size(), H = map_.height, me = comm_->rank();
  if (R == 1) return;
  auto needed = [&](int r) {
    std::vector<char> need(H, 0);
    const int r0 = static_cast<int>(static_cast<int64_t>(r) * H / R),
              r1 = static_cast<int>(static_cast<int64_t>(r + 1) * H / R);
    for (int y = r0 - b_; y < r1 + b_; ++y) {
      const int yy = map_.wrap ? ((y % H) + H) % H : y;
      if (yy >= 0 && yy < H && rank_of_row_[yy] != r) need[yy] = 1;
    }
    return need;
  };
  // Maximal runs of rows owned by `owner` among `need`, ascending (both sides compute the same runs).
  auto runs = [&](const std::vector<char>& need, int owner, int peer, std::vector<Impl::Run>& out) {
    for (int y = 0; y < H;) {
      if (!need[y] || rank_of_row_[y] != owner) {
        ++y;
        continue;
      }
      int e = y;
      while (e < H && need[e] && rank_of_row_[e] == owner) ++e;
      out.push_back({peer, y, e - y});
      y = e;
    }
  };
  const std::vector<char> mine = needed(me);
  for (int q = 0; q < R; ++q) {
    if (q == me) continue;
    runs(mine, q, q, I.recv);
    runs(needed(q), me, q, I.send);
  }
}

// The halo rows of a multicast payload (PE × words over the whole grid) from the ranks that own them. A
// rank's receives and sends are planned independently, so each run is tagged with its first row.
void MeshBackend::halo_exchange(std::vector<uint32_t>& payload, int words) const {
  Impl& I = *impl_;
  if (I.recv.empty() && I.send.empty()) return;
  const size_t row_words = static_cast<size_t>(map_.width) * words;
  for (const Impl::Run& r : I.recv)
    comm_->post_receive(payload.data() + r.row0 * row_words, r.rows * row_words, r.rank, r.row0, I.halo);
  for (const Impl::Run& r : I.send)
    comm_->post_send(payload.data() + r.row0 * row_words, r.rows * row_words, r.rank, r.row0, I.halo);
  comm_->finish(I.halo);
}

// A fabric reduction of the band's per-PE words: this band's row folds, every band's rows shared (each
// physical row is folded by exactly one rank), then the column fold — reduce()'s bits at any rank count.
void MeshBackend::fabric_reduce(FastTransport& t, const uint32_t* band_values, uint32_t* out) const {
  const int words = t.spec().words;
  std::vector<uint32_t> rows(static_cast<size_t>(map_.height) * words, 0u);
  t.reduce_rows(band_values, row0_, row1_, rows.data());
  comm_->bit_or(rows.data(), static_cast<int>(rows.size()));  // the other ranks' rows are zero here
  t.fold_rows(rows.data(), out);
}

void MeshBackend::setup(State& s, const potentials::EamTables& tables, const NeighborSettings& nb,
                        bool eatom) {
  tables_ = &tables;
  nb_ = nb;
  stats_ = NeighborStats{};
  times_ = PhaseTimes{};
  validate(s, tables, nb);
  cutneigh_ = tables.cutmax + nb.skin;
  if (!opt_.fp64) impl_->pt = make_pe_tables32(tables);
  // The PE assignment persists between runs of one system (it lives on the wafer); a new system is mapped.
  const int64_t natoms = comm_->sum(static_cast<int64_t>(s.atoms.size()));
  bool same = !pe_id_.empty() && mapped_atoms_ == natoms;
  for (int d = 0; d < 3 && same; ++d) same = box_lo_[d] == s.box.lo[d] && box_hi_[d] == s.box.hi[d];
  for (int d = 0; d < 3; ++d) box_lo_[d] = s.box.lo[d], box_hi_[d] = s.box.hi[d];
  const bool restored = restored_;
  // Atoms created, deleted or moved by commands since the last mapping (State::edits) are mapped afresh; the
  // atoms already on the wafer travel to their new PEs through the fabric, which the cycle account charges
  // as a remap.
  const bool edited = !pe_id_.empty() && s.edits != mapped_edits_;
  std::vector<int64_t> old_pe_id;
  const int old_width = map_.width, old_height = map_.height;
  if (edited) old_pe_id = pe_id_;
  if (restored)
    rebuild_restored(s);
  else
    rebuild(s, !same || edited);
  if (!restored) choose_trigger();  // each run chooses from its own start, as a script read back would
  if (edited && !restored) charge_edit_remap(old_pe_id, old_width, old_height);
  mapped_edits_ = s.edits;
  const MeshCounters saved = counters_;
  forces(s, eatom);
  // The saved run counted this force pass at the step it checkpointed: the report continues, not repeats.
  if (restored) counters_ = saved;
}

NamedArrays MeshBackend::save_state() const {
  const MeshCounters& c = counters_;
  auto d = [](auto v) { return static_cast<double>(v); };
  // Every rank writes the whole PE assignment and its band's hold positions (restarts run on the same rank
  // count, which the checkpoint reader enforces, so each rank takes back its own copy).
  return {
      {"grid", {d(map_.width), d(map_.height), d(map_.wrap ? 1 : 0)}},
      {"pe_atom_id", std::vector<double>(pe_id_.begin(), pe_id_.end())},
      {"window_b", {d(b_)}},
      {"ago", {d(ago_)}},
      {"xhold", xhold_},
      {"precision", {d(opt_.fp64 ? 64 : 32)}},
      {"counters",
       {d(c.steps), d(c.forces), d(c.rebuilds), d(c.step_rebuilds), d(c.swaps), d(c.remaps), d(c.checks),
        c.remap_cycles, c.sum_candidates_max, c.sum_in_cut_max, d(c.max_b)}},
      {"style_reductions", {d(c.style_reductions), c.style_reduction_cycles}},
      {"zbl_pairs", {c.sum_zbl_max}},
      {"active", std::vector<double>(active_.begin(), active_.end())},
      {"local_trigger", {d(c.rescan_steps), d(c.pe_rescans), d(c.guard_misses), d(local_choice_ ? 1 : 0)}}};
}

void MeshBackend::restore_state(const NamedArrays& state) {
  auto get = [&](const char* k, size_t n) -> const std::vector<double>& {
    auto it = state.find(k);
    if (it == state.end() || (n > 0 && it->second.size() != n))
      throw RunError(fmt::format("checkpoint lacks the mesh backend's state '{}'", k));
    return it->second;
  };
  const int saved_bits = static_cast<int>(get("precision", 1)[0]), bits = opt_.fp64 ? 64 : 32;
  // Another precision scans other windows and sums other bits: that run would not be the saved one's.
  if (saved_bits != bits)
    fail_input(SourcePos{"<checkpoint>", 0},
               fmt::format("the checkpoint was written with mesh.precision=fp{}; this run uses fp{}: "
                           "restart with the same precision",
                           saved_bits, bits));
  const auto& g = get("grid", 3);
  map_.width = static_cast<int>(g[0]);
  map_.height = static_cast<int>(g[1]);
  map_.wrap = g[2] != 0;
  const auto& ids = get("pe_atom_id", 0);
  pe_id_.assign(ids.begin(), ids.end());
  b_ = static_cast<int>(get("window_b", 1)[0]);
  const auto mapping_only = state.find("wafermd_mapping_only");
  if (mapping_only != state.end() && mapping_only->second.size() == 6) {
    // read_restart: the atoms stay on the PEs they held when the file was written (the wafer keeps them
    // between runs), and the next set-up rebuilds from there as the run after the written one would have.
    for (int d = 0; d < 3; ++d)
      box_lo_[d] = mapping_only->second[d], box_hi_[d] = mapping_only->second[3 + d];
    mapped_atoms_ = 0;
    for (const int64_t id : pe_id_) mapped_atoms_ += id != 0;
    mapped_edits_ = 0;
    set_bands();
    make_transports();
    return;
  }
  ago_ = static_cast<int>(get("ago", 1)[0]);
  xhold_ = get("xhold", 0);
  const auto& c = get("counters", 11);
  counters_.steps = static_cast<int64_t>(c[0]), counters_.forces = static_cast<int64_t>(c[1]);
  counters_.rebuilds = static_cast<int64_t>(c[2]), counters_.step_rebuilds = static_cast<int64_t>(c[3]);
  counters_.swaps = static_cast<int64_t>(c[4]), counters_.remaps = static_cast<int64_t>(c[5]);
  counters_.checks = static_cast<int64_t>(c[6]);
  counters_.remap_cycles = c[7], counters_.sum_candidates_max = c[8], counters_.sum_in_cut_max = c[9];
  counters_.max_b = static_cast<int>(c[10]);
  const auto sr = state.find("style_reductions");
  if (sr != state.end() && sr->second.size() == 2)
    counters_.style_reductions = static_cast<int64_t>(sr->second[0]),
    counters_.style_reduction_cycles = sr->second[1];
  const auto zp = state.find("zbl_pairs");  // absent from checkpoints of runs without a ZBL term
  if (zp != state.end() && zp->second.size() == 1) counters_.sum_zbl_max = zp->second[0];
  const auto act = state.find("active");
  if (act != state.end()) active_.assign(act->second.begin(), act->second.end());
  const auto lt = state.find("local_trigger");
  if (lt != state.end() && lt->second.size() == 4)
    counters_.rescan_steps = static_cast<int64_t>(lt->second[0]),
    counters_.pe_rescans = static_cast<int64_t>(lt->second[1]),
    counters_.guard_misses = static_cast<int64_t>(lt->second[2]), local_choice_ = lt->second[3] != 0;
  restored_ = true;
}

// The saved run's neighbour slots came from the window scan of its last rebuild: scan again from exactly
// those positions (xhold) on the saved PE assignment. No wrapping or swaps here — those would change the
// bits. Each rank holds its band's atoms already (a checkpoint restores every rank's own atoms).
void MeshBackend::rebuild_restored(State& s) {
  restored_ = false;
  const auto t0 = std::chrono::steady_clock::now();
  Atoms& a = s.atoms;
  const int n = static_cast<int>(a.size());
  const int npe = map_.size();
  set_bands();
  if (pe_id_.size() != static_cast<size_t>(npe) || xhold_.size() != 3 * static_cast<size_t>(pe1_ - pe0_))
    throw RunError("checkpoint's mesh state does not hold one entry per PE");
  make_transports();
  index_band(s);
  int64_t placed = 0;
  for (int p = 0; p < npe; ++p) placed += pe_id_[p] != 0;
  mapped_atoms_ = placed;
  if (comm_->sum(static_cast<int64_t>(n)) != placed)
    throw RunError("checkpoint's mesh PE assignment does not hold every atom once");
  std::vector<double> cur(3 * static_cast<size_t>(n));
  for (int q = 0; q < pe1_ - pe0_; ++q) {
    const int i = local_[q];
    if (i < 0) continue;
    cur[3 * i] = a.x[i], cur[3 * i + 1] = a.y[i], cur[3 * i + 2] = a.z[i];
    a.x[i] = xhold_[3 * q], a.y[i] = xhold_[3 * q + 1], a.z[i] = xhold_[3 * q + 2];
  }
  AllAtoms g;
  gather_atoms(*comm_, a, g);
  for (int i = 0; i < n; ++i) a.x[i] = cur[3 * i], a.y[i] = cur[3 * i + 1], a.z[i] = cur[3 * i + 2];
  const IdIndex where(g.id);
  map_.atom_of.assign(npe, -1);
  for (int p = 0; p < npe; ++p) map_.atom_of[p] = pe_id_[p] ? where.find(pe_id_[p]) : -1;
  scan_windows(s.box, g);
  map_.atom_of.clear(), map_.atom_of.shrink_to_fit();
  ++stats_.builds;
  stats_.pairs = static_cast<int64_t>(nbr_src_.size());
  stats_.ghosts = 0;
  times_.neigh += seconds_since(t0);
}

void MeshBackend::validate(const State& s, const potentials::EamTables& tables,
                           const NeighborSettings& nb) const {
  for (int d = 0; d < 3; ++d) {
    for (int side = 0; side < 2; ++side) {
      const Face f = s.box.face[d][side];
      if (f != Face::periodic && f != Face::fixed)
        fail_input(
            SourcePos{"<mesh>", 0},
            "the mesh backend supports periodic (p) and fixed (f) boundaries only; shrink-wrapped faces "
            "(s, m) need the cluster backend");
    }
  }
  check_single_image(s.box, tables.cutmax + nb.skin);
  int w = 0, h = 0;
  choose_grid(comm_->sum(static_cast<int64_t>(s.atoms.size())), s.box, hw_.grid_width, hw_.grid_height,
              hw_.pe_count, hw_.name, w, h);
  if (restored_ && (w != map_.width || h != map_.height))
    fail_input(SourcePos{"<checkpoint>", 0},
               fmt::format("the checkpoint's PE grid is {}x{}, but this run maps onto {}x{} (another "
                           "wafer?): restart on the wafer that wrote it",
                           map_.width, map_.height, w, h));
}

void MeshBackend::compute(State& s, bool eatom, bool tally) {
  ++counters_.steps;
  if (local_trigger()) {
    local_upkeep(s);
  } else if (rebuild_due(s)) {
    rebuild(s, false);
    ++counters_.step_rebuilds;
  }
  if (opt_.audit_lists) audit_lists(s);
  forces(s, eatom, tally);
}

// The local rebuild criterion (docs/fabric.md, "The mesh backend"): no PE waits for a global vote. A PE's
// lists hold every pair whose reference positions lie within cutoff + skin. Each PE resets its atom's
// reference to the atom's position when the atom has moved more than skin/2 from it, and says so in the flag
// word of this step's positions multicast; every PE whose window holds a flagged PE rescans its window from
// the references. Neighbour pairs where a PE flagged at the last check exchange atoms (an odd-even round)
// at this one, and a PE whose atom changed flags too. The emulator reaches the same decisions from the
// flagged PEs directly; the host-side guard checks the window still covers every reference pair.
void MeshBackend::local_upkeep(State& s) {
  ++ago_;
  if (ago_ < nb_.delay || ago_ % nb_.every != 0) return;
  const auto t0 = std::chrono::steady_clock::now();
  Atoms& a = s.atoms;
  const int npe = map_.size(), nb = pe1_ - pe0_, n = static_cast<int>(a.size());
  const double trigger = 0.25 * nb_.skin * nb_.skin;
  if (active_.size() != static_cast<size_t>(npe)) active_.assign(npe, 0u);
  std::vector<uint32_t> flag(npe, 0u);
  int64_t moved = 0;
  for (int q = 0; q < nb; ++q) {
    const int i = local_[q];
    if (i < 0) continue;
    const double dx = a.x[i] - xhold_[3 * q], dy = a.y[i] - xhold_[3 * q + 1],
                 dz = a.z[i] - xhold_[3 * q + 2];
    if (dx * dx + dy * dy + dz * dz > trigger) flag[pe0_ + q] = 1u, ++moved;
  }
  bool any_active = false;
  for (int p = 0; p < npe && !any_active; ++p) any_active = active_[p] != 0;
  // Whether anything happens anywhere is the emulator's bookkeeping (it skips the work), not a PE's input.
  if (comm_->sum(moved) == 0 && !any_active) return;
  comm_->bit_or(flag.data(), npe);
  // A flagged atom is wrapped (periodic) or reported lost (fixed faces) as its reference resets.
  for (int q = 0; q < nb; ++q) {
    const int i = local_[q];
    if (i >= 0 && flag[pe0_ + q]) wrap_or_lose(a, s.box, s.step, i);
  }
  // Positions (swap keys) and references (what the lists are built from) of every atom.
  AllAtoms g;
  gather_atoms(*comm_, a, g);
  std::vector<double> hx(n), hy(n), hz(n);
  for (int q = 0; q < nb; ++q) {
    const int i = local_[q];
    if (i >= 0) hx[i] = xhold_[3 * q], hy[i] = xhold_[3 * q + 1], hz[i] = xhold_[3 * q + 2];
  }
  AllAtoms ref;
  ref.x = comm_->allgather(hx), ref.y = comm_->allgather(hy), ref.z = comm_->allgather(hz);
  ref.id = g.id, ref.type = g.type, ref.first = g.first;
  const int nall = g.size();
  link_gathered(g);
  std::vector<uint32_t> swapped(npe, 0u);
  if (any_active) swap_round(s.box, g, &active_, &swapped);
  for (int p = 0; p < npe; ++p) {
    flag[p] |= swapped[p];
    const int k = map_.atom_of[p];
    if (flag[p] && k >= 0) ref.x[k] = g.x[k], ref.y[k] = g.y[k], ref.z[k] = g.z[k];
  }
  // The host-side guard: every pair within cutoff + skin of the references inside the window.
  if (required_window(map_, s.box, ref.x.data(), ref.y.data(), ref.z.data(), nall, cutneigh_) > b_) {
    ++counters_.guard_misses;
    if (!opt_.guard_report_only) {  // a global rebuild from the current positions (remap, b may grow)
      times_.neigh += seconds_since(t0);
      rebuild(s, false);
      ++counters_.step_rebuilds;
      ++counters_.rescan_steps;
      counters_.pe_rescans += npe;
      return;
    }
  }
  for (int p = 0; p < npe; ++p)
    if (map_.atom_of[p] >= 0) pe_id_[p] = g.id[map_.atom_of[p]];
  distribute(s, g);
  index_band(s);
  for (int q = 0; q < nb; ++q) {
    const int i = local_[q];
    if (i >= 0 && flag[pe0_ + q])
      xhold_[3 * q] = a.x[i], xhold_[3 * q + 1] = a.y[i], xhold_[3 * q + 2] = a.z[i];
  }
  // Every PE within b of a flagged PE rescans (its window holds a changed reference or atom).
  std::vector<char> rescan(nb, 0);
  const fabric::MeshMap& mm = impl_->scan->map();
  int64_t rescans = 0;
  for (int p = 0; p < npe; ++p) {
    if (!flag[p]) continue;
    const int px = p % map_.width, py = p / map_.width;
    for (int dy = -b_; dy <= b_; ++dy) {
      const int y = mm.y.step(py, dy);
      if (y < row0_ || y >= row1_) continue;
      for (int dx = -b_; dx <= b_; ++dx) {
        const int x = mm.x.step(px, dx);
        if (x < 0) continue;
        char& r = rescan[y * map_.width + x - pe0_];
        rescans += r == 0;
        r = 1;
      }
    }
  }
  scan_windows(s.box, ref, &rescan);
  map_.atom_of.clear(), map_.atom_of.shrink_to_fit();
  map_.pe_of.clear(), map_.pe_of.shrink_to_fit();
  active_.swap(flag);
  ++counters_.rescan_steps;
  ++counters_.step_rebuilds;
  counters_.pe_rescans += comm_->sum(rescans);
  ++stats_.builds;
  stats_.pairs = static_cast<int64_t>(nbr_src_.size());
  times_.neigh += seconds_since(t0);
}

// `check yes` without a vote costs every PE a flag check per window slot and step; the vote costs a chain
// reduction over the grid. Each system takes the cheaper on its wafer (priced by the step's PE program from
// the busiest PE's slots of the first scan), as the wafer's program would be chosen per input.
void MeshBackend::choose_trigger() {
  local_choice_ = forced_trigger_ != 0;
  if (!nb_.check || nb_.once || opt_.deterministic || forced_trigger_ >= 0) return;
  int cand = 0;
  for (int q = 0; q < pe1_ - pe0_; ++q) cand = std::max(cand, nbr_off_[q + 1] - nbr_off_[q]);
  StepWork w;
  w.grid = fabric::Grid{map_.width, map_.height};
  w.wrap = map_.wrap;
  w.b = b_;
  w.position_words = opt_.fp64 ? 6 : 3;
  w.fp_words = opt_.fp64 ? 2 : 1;
  w.candidates = static_cast<double>(comm_->max(static_cast<int64_t>(cand)));
  w.in_cut = 0.5 * w.candidates;  // [E] the in-cut share does not enter the choice: both pay the same passes
  w.rebuild_interval = 20;
  w.checks_per_step = 1.0 / std::max(1, nb_.every);
  const double vote = account_step(w, hw_).total;
  w.local_trigger = true;
  local_choice_ = account_step(w, hw_).total <= vote;
}

// Every pair within the cutoff (current positions, nearest image) must sit in the lists of both its PEs.
void MeshBackend::audit_lists(const State& s) {
  if (comm_->size() != 1) throw RunError("mesh: the list audit runs on one rank");
  const Atoms& a = s.atoms;
  const int n = static_cast<int>(a.size()), nb = pe1_ - pe0_;
  std::vector<int> pe_of(n, -1);
  for (int q = 0; q < nb; ++q)
    if (local_[q] >= 0) pe_of[local_[q]] = q;
  auto listed = [&](int i, int j) {
    const int q = pe_of[i];
    const int64_t id = a.id[j];
    const int32_t* b = nbr_src_.data() + nbr_off_[q];
    const int32_t* e = nbr_src_.data() + nbr_off_[q + 1];
    const int32_t* it = std::lower_bound(b, e, id, [&](int32_t src, int64_t v) { return pe_id_[src] < v; });
    return it != e && pe_id_[*it] == id;
  };
  int64_t missing = 0;
  for_each_pair(s.box, a.x.data(), a.y.data(), a.z.data(), n, tables_->cutmax, [&](int i, int j) {
    missing += !listed(i, j);
    missing += !listed(j, i);
  });
  counters_.audit_missing += missing;
  ++counters_.audit_steps;
}

bool MeshBackend::rebuild_due(State& s) {
  ++ago_;
  if (nb_.once) return false;
  if (ago_ < nb_.delay || ago_ % nb_.every != 0) return false;
  if (!nb_.check) return true;
  // Each PE flags a displacement beyond skin/2 since the last build; a fabric max-reduction tells every PE.
  const auto t0 = std::chrono::steady_clock::now();
  const double trigger = 0.25 * nb_.skin * nb_.skin;
  const Atoms& a = s.atoms;
  const int nb = pe1_ - pe0_;
  std::vector<uint32_t>& flags = impl_->buf2;
  flags.assign(nb, float_bits(0.0f));
  for (int q = 0; q < nb; ++q) {
    const int i = local_[q];
    if (i < 0) continue;
    const double dx = a.x[i] - xhold_[3 * q], dy = a.y[i] - xhold_[3 * q + 1],
                 dz = a.z[i] - xhold_[3 * q + 2];
    if (dx * dx + dy * dy + dz * dz > trigger) flags[q] = float_bits(1.0f);
  }
  uint32_t any = 0;
  fabric_reduce(*impl_->check, flags.data(), &any);
  ++counters_.checks;
  times_.comm += seconds_since(t0);
  if (bits_float(any) > 0.5f) {
    if (ago_ == std::max(nb_.every, nb_.delay)) ++stats_.dangerous;
    return true;
  }
  return false;
}

void MeshBackend::link_gathered(const AllAtoms& g) {
  const int npe = map_.size();
  const IdIndex where(g.id);
  map_.atom_of.assign(npe, -1);
  map_.pe_of.assign(g.size(), -1);
  for (int p = 0; p < npe; ++p) {
    if (!pe_id_[p]) continue;
    const int32_t k = where.find(pe_id_[p]);
    if (k < 0) throw RunError(fmt::format("mesh: atom {} of PE {} is missing", pe_id_[p], p));
    map_.atom_of[p] = k, map_.pe_of[k] = p;
  }
}

void MeshBackend::rebuild(State& s, bool first) {
  const auto t0 = std::chrono::steady_clock::now();
  Atoms& a = s.atoms;
  const int n = static_cast<int>(a.size());
  // Each PE wraps its own atom (periodic) or reports it lost (fixed faces).
  for (int i = 0; i < n; ++i) wrap_or_lose(a, s.box, s.step, i);
  // The mapping's upkeep reads every atom: each rank runs it on the same gathered copy.
  AllAtoms g;
  gather_atoms(*comm_, a, g);
  const int nall = g.size();
  if (first) {
    int w = 0, h = 0;
    choose_grid(nall, s.box, hw_.grid_width, hw_.grid_height, hw_.pe_count, hw_.name, w, h);
    map_ = map_atoms(s.box, g.x.data(), g.y.data(), g.z.data(), g.id.data(), nall, w, h);
    b_ = required_window(map_, s.box, g.x.data(), g.y.data(), g.z.data(), nall, cutneigh_);
    set_bands();
    make_transports();
  } else {
    link_gathered(g);
    swap_round(s.box, g);
    remap_if_needed(s.box, g);
  }
  const int npe = map_.size();
  pe_id_.assign(npe, 0);
  for (int p = 0; p < npe; ++p)
    if (map_.atom_of[p] >= 0) pe_id_[p] = g.id[map_.atom_of[p]];
  mapped_atoms_ = nall;
  distribute(s, g);
  index_band(s);
  const int nb = pe1_ - pe0_;
  xhold_.assign(3 * static_cast<size_t>(nb), 0.0);
  for (int q = 0; q < nb; ++q) {
    const int i = local_[q];
    if (i < 0) continue;
    xhold_[3 * q] = a.x[i], xhold_[3 * q + 1] = a.y[i], xhold_[3 * q + 2] = a.z[i];
  }
  scan_windows(s.box, g);
  // Only the grid and wrap stay: the PE assignment lives in pe_id_ between rebuilds.
  map_.atom_of.clear(), map_.atom_of.shrink_to_fit();
  map_.pe_of.clear(), map_.pe_of.shrink_to_fit();
  ago_ = 0;
  active_.assign(npe, 0u);
  ++stats_.builds;
  ++counters_.rebuilds;
  stats_.pairs = static_cast<int64_t>(nbr_src_.size());
  stats_.ghosts = 0;
  times_.neigh += seconds_since(t0);
}

// Moves every atom to the rank whose band holds its PE (atoms a swap or remap carried across a band edge).
void MeshBackend::distribute(State& s, const AllAtoms& g) {
  const int R = comm_->size();
  if (R == 1) return;
  Atoms& a = s.atoms;
  const int me = comm_->rank(), n = static_cast<int>(a.size());
  std::vector<std::vector<double>> out(R);
  std::vector<char> keep(n, 1);
  for (int i = 0; i < n; ++i) {
    const int p = map_.pe_of[g.first[me] + i];
    const int r = rank_of_row_[p / map_.width];
    if (r == me) continue;
    keep[i] = 0;
    std::vector<double>& buf = out[r];
    buf.resize(buf.size() + Atoms::kPackSize);
    a.pack(i, buf.data() + buf.size() - Atoms::kPackSize);
  }
  const std::vector<double> rbuf = comm_->all_to_all(out);  // arrivals in rank order
  a.compact(keep);
  for (size_t k = 0; k + Atoms::kPackSize <= rbuf.size(); k += Atoms::kPackSize) a.unpack(rbuf.data() + k);
}

// The band's PEs ↔ this rank's atoms, and each PE's atom type.
void MeshBackend::index_band(const State& s) {
  const Atoms& a = s.atoms;
  const IdIndex where(a.id);
  const int nb = pe1_ - pe0_;
  local_.assign(nb, -1);
  type_.assign(nb, 0);
  int placed = 0;
  for (int q = 0; q < nb; ++q) {
    const int64_t id = pe_id_[pe0_ + q];
    if (!id) continue;
    const int32_t i = where.find(id);
    if (i < 0)
      throw RunError(
          fmt::format("mesh: rank {} holds PE {} but not its atom {}", comm_->rank(), pe0_ + q, id));
    local_[q] = i, type_[q] = a.type[i];
    ++placed;
  }
  if (placed != static_cast<int>(a.size()))
    throw RunError(fmt::format("mesh: rank {} holds {} atoms but its band's PEs hold {}", comm_->rank(),
                               a.size(), placed));
}

// One odd-even transposition round through the neighbour-swap schedule: x pairs from even then odd columns,
// then y pairs likewise. A pair swaps its atoms when they are out of order along that axis, keeping the
// mapping sorted (and so local) as atoms move. Every rank runs the whole grid's round on the gathered atoms.
void MeshBackend::swap_round(const Box& box, const AllAtoms& g, const std::vector<uint32_t>* active,
                             std::vector<uint32_t>* swapped) {
  Impl& I = *impl_;
  bool exchanged = false;
  const int W = map_.width, H = map_.height, npe = map_.size();
  std::vector<uint32_t> payload(static_cast<size_t>(npe) * swap_words, 0u);
  std::vector<int32_t> off(npe + 1), src;
  std::vector<uint32_t> got;
  auto key = [&](int atom, int axis, int coord) {
    const double v = axis == 0 ? g.x[atom] : g.y[atom];
    if (!box.periodic(axis)) return v;
    const double len = box.prd(axis), n = axis == 0 ? W : H;
    const double ref = box.lo[axis] + (coord + 0.5) * len / n;
    double d = v - ref;
    d -= len * std::round(d / len);
    return ref + d;
  };
  for (int phase = 0; phase < 4; ++phase) {
    const int axis = phase / 2, parity = phase % 2;
    for (int p = 0; p < npe; ++p) {
      const int i = map_.atom_of[p];
      uint32_t* r = &payload[static_cast<size_t>(p) * swap_words];
      if (i < 0) {
        std::fill(r, r + swap_words, 0u);
        r[0] = 0xffffffffu;
        continue;
      }
      // The record a PE hands over (velocity words travel too on the wafer; the emulator charges them).
      r[0] = static_cast<uint32_t>(i);
      r[1] = float_bits(static_cast<float>(g.x[i])), r[2] = float_bits(static_cast<float>(g.y[i]));
      r[3] = float_bits(static_cast<float>(g.z[i]));
      r[7] = static_cast<uint32_t>(g.type[i]), r[8] = static_cast<uint32_t>(g.id[i]);
    }
    std::vector<int> partner(npe, -1);
    src.clear();
    for (int p = 0; p < npe; ++p) {
      off[p] = static_cast<int32_t>(src.size());
      const int c = p % W, row = p / W, coord = axis == 0 ? c : row, n = axis == 0 ? W : H;
      const int q = ((coord % 2) == parity) ? coord + 1 : coord - 1;
      if (q < 0 || q >= n || map_.atom_of[p] < 0) continue;
      const int qpe = axis == 0 ? row * W + q : q * W + c;
      if (map_.atom_of[qpe] < 0) continue;
      // Under the local trigger a pair exchanges only when one of its PEs reset its atom's reference at the
      // last check: both learnt that from the flag word of the positions multicast.
      if (active && !(*active)[p] && !(*active)[qpe]) continue;
      partner[p] = qpe;
      exchanged = true;
      src.push_back(qpe);
    }
    off[npe] = static_cast<int32_t>(src.size());
    got.resize(src.size() * swap_words);
    I.swap->deliver_requested_range(0, npe, off.data(), src.data(), payload.data(), got.data());
    std::vector<int32_t> next = map_.atom_of;
    for (int p = 0; p < npe; ++p) {
      if (partner[p] < 0) continue;
      const uint32_t* r = &got[static_cast<size_t>(off[p]) * swap_words];
      const int mine = map_.atom_of[p], theirs = static_cast<int>(r[0]);
      const int q = partner[p];
      const int cp = axis == 0 ? p % W : p / W, cq = axis == 0 ? q % W : q / W;
      const double km = key(mine, axis, cp), kt = key(theirs, axis, cq);
      const bool lower = cp < cq;
      if (lower ? km > kt : kt > km) {
        next[p] = theirs;
        if (lower) ++counters_.swaps;
        if (swapped) (*swapped)[p] = 1;
      }
    }
    map_.atom_of.swap(next);
  }
  if (exchanged || !active) I.swap->charge();  // the schedule's four phases are the four rounds above
  for (int p = 0; p < npe; ++p)
    if (map_.atom_of[p] >= 0) map_.pe_of[map_.atom_of[p]] = p;
}

// After commands edited the atoms between runs: the atoms that were on the wafer move from their old PEs to
// the new mapping's, priced as the swap rounds that carry the farthest one (atoms new to the system come from
// the host, as at the first load, and are not charged).
void MeshBackend::charge_edit_remap(const std::vector<int64_t>& old_pe_id, int old_width, int old_height) {
  std::vector<std::pair<int64_t, int>> old_at;  // (id, old PE), sorted by id
  for (size_t p = 0; p < old_pe_id.size(); ++p)
    if (old_pe_id[p]) old_at.push_back({old_pe_id[p], static_cast<int>(p)});
  std::sort(old_at.begin(), old_at.end());
  int rounds = 0;
  for (size_t q = 0; q < pe_id_.size(); ++q) {
    if (!pe_id_[q]) continue;
    const auto it = std::lower_bound(old_at.begin(), old_at.end(), std::pair<int64_t, int>{pe_id_[q], -1});
    if (it == old_at.end() || it->first != pe_id_[q]) continue;
    const int p = it->second;
    int dx = std::abs(p % old_width - static_cast<int>(q) % map_.width);
    int dy = std::abs(p / old_width - static_cast<int>(q) / map_.width);
    if (map_.wrap && old_width == map_.width && old_height == map_.height)
      dx = std::min(dx, map_.width - dx), dy = std::min(dy, map_.height - dy);
    rounds = std::max(rounds, dx + dy);
  }
  counters_.remap_cycles += static_cast<double>(rounds) * static_cast<double>(impl_->swap->schedule_cycles());
  ++counters_.remaps;
}

// The emulator's guard that no interaction is ever lost: every pair within cutoff + skin must lie inside the
// window. If the swaps could not keep up (a fast knock-on atom), the atoms are remapped from scratch through
// the fabric (priced as the swap rounds that carry the farthest atom to its new PE) and b grows if it must.
void MeshBackend::remap_if_needed(const Box& box, const AllAtoms& g) {
  const int n = g.size();
  const int need = required_window(map_, box, g.x.data(), g.y.data(), g.z.data(), n, cutneigh_);
  if (need <= b_) return;
  Mapping fresh = map_atoms(box, g.x.data(), g.y.data(), g.z.data(), g.id.data(), n, map_.width, map_.height);
  int rounds = 0;
  for (int i = 0; i < n; ++i) {
    const int p = map_.pe_of[i], q = fresh.pe_of[i];
    int dx = std::abs(p % map_.width - q % map_.width), dy = std::abs(p / map_.width - q / map_.width);
    if (map_.wrap) dx = std::min(dx, map_.width - dx), dy = std::min(dy, map_.height - dy);
    rounds = std::max(rounds, dx + dy);
  }
  counters_.remap_cycles += static_cast<double>(rounds) * static_cast<double>(impl_->swap->schedule_cycles());
  ++counters_.remaps;
  map_ = std::move(fresh);
  const int need2 = required_window(map_, box, g.x.data(), g.y.data(), g.z.data(), n, cutneigh_);
  if (need2 > b_) {
    b_ = need2;
    make_transports();
  }
}

// At a rebuild each PE of the band receives its whole window (position, type, id) and keeps the atoms within
// cutoff + skin, each with the periodic image that brings it closest, in ascending global id.
void MeshBackend::scan_windows(const Box& box, const AllAtoms& g, const std::vector<char>* only) {
  Impl& I = *impl_;
  const int npe = map_.size();
  const bool fp64 = opt_.fp64;
  const int pw = fp64 ? 6 : 3, sw = pw + 2;
  // Every PE's record (the gathered atoms hold them all, so no halo exchange is needed here).
  std::vector<uint32_t> payload(static_cast<size_t>(npe) * sw, 0u);
  for (int p = 0; p < npe; ++p) {
    const int i = map_.atom_of[p];
    uint32_t* r = &payload[static_cast<size_t>(p) * sw];
    if (i < 0) continue;
    if (fp64) {
      const double v[3] = {g.x[i], g.y[i], g.z[i]};
      std::memcpy(r, v, sizeof v);
    } else {
      const float v[3] = {static_cast<float>(g.x[i]), static_cast<float>(g.y[i]), static_cast<float>(g.z[i])};
      std::memcpy(r, v, sizeof v);
    }
    r[pw] = static_cast<uint32_t>(g.type[i]);
    r[pw + 1] = static_cast<uint32_t>(g.id[i]);
  }
  const int side = 2 * b_ + 1, slots = side * side;
  const int chunk = std::max<int>(1, static_cast<int>(word_budget / (static_cast<size_t>(slots) * sw)));
  const double cutsq = cutneigh_ * cutneigh_;
  double L[3];
  bool per[3];
  for (int d = 0; d < 3; ++d) L[d] = box.prd(d), per[d] = box.periodic(d);
  const int nb = pe1_ - pe0_;
  // A partial scan keeps the slots of the PEs it does not scan.
  std::vector<int32_t> old_off, old_src;
  std::vector<int8_t> old_shift, old_type;
  if (only)
    old_off.swap(nbr_off_), old_src.swap(nbr_src_), old_shift.swap(nbr_shift_), old_type.swap(nbr_type_);
  nbr_off_.assign(nb + 1, 0);
  // Sized from the last scan (or, the first time, after the first chunk) so the slot arrays do not double.
  const size_t last = only ? old_src.size() : nbr_src_.size();
  nbr_src_.clear();
  nbr_shift_.clear();
  nbr_type_.clear();
  auto reserve = [&](size_t want) {
    nbr_src_.reserve(want), nbr_shift_.reserve(want), nbr_type_.reserve(want);
  };
  reserve(last + last / 16);
  struct Cand {
    int64_t id;
    int32_t slot;
    int8_t shift, type;
  };
  std::vector<Cand> cand;
  const fabric::MeshMap& mm = I.scan->map();
  for (int d0 = pe0_; d0 < pe1_;) {
    int d1 = std::min(pe1_, d0 + chunk);
    if (only) {  // a run of PEs to scan, or of PEs that keep their slots
      const char scan = (*only)[d0 - pe0_];
      int e = d0 + 1;
      while (e < d1 && (*only)[e - pe0_] == scan) ++e;
      d1 = e;
      if (!scan) {
        for (int p = d0; p < d1; ++p) {
          const int q = p - pe0_;
          nbr_off_[q] = static_cast<int32_t>(nbr_src_.size());
          nbr_src_.insert(nbr_src_.end(), old_src.begin() + old_off[q], old_src.begin() + old_off[q + 1]);
          nbr_shift_.insert(nbr_shift_.end(), old_shift.begin() + old_off[q],
                            old_shift.begin() + old_off[q + 1]);
          nbr_type_.insert(nbr_type_.end(), old_type.begin() + old_off[q], old_type.begin() + old_off[q + 1]);
        }
        d0 = d1;
        continue;
      }
    }
    I.buf.resize(static_cast<size_t>(d1 - d0) * slots * sw);
    I.scan->deliver_window_range(d0, d1, payload.data(), I.buf.data());
    for (int p = d0; p < d1; ++p) {
      nbr_off_[p - pe0_] = static_cast<int32_t>(nbr_src_.size());
      const int i = map_.atom_of[p];
      if (i < 0) continue;
      const uint32_t* own = &payload[static_cast<size_t>(p) * sw];
      const uint32_t* win = &I.buf[static_cast<size_t>(p - d0) * slots * sw];
      cand.clear();
      for (int slot = 0; slot < slots; ++slot) {
        if (slot == slots / 2) continue;  // the PE itself
        const uint32_t* r = win + static_cast<size_t>(slot) * sw;
        if (r[pw] == 0) continue;  // empty PE or off the edge
        int sh[3] = {0, 0, 0};
        double rsq = 0;
        if (fp64) {
          double xi[3], xj[3];
          std::memcpy(xi, own, sizeof xi);
          std::memcpy(xj, r, sizeof xj);
          for (int d = 0; d < 3; ++d) {
            const double dd = xi[d] - xj[d];
            if (per[d]) sh[d] = dd > 0.5 * L[d] ? 1 : (dd < -0.5 * L[d] ? -1 : 0);
            const double e = periodic_delta(xi[d], xj[d], sh[d], L[d]);
            rsq += e * e;
          }
        } else {
          float xi[3], xj[3];
          std::memcpy(xi, own, sizeof xi);
          std::memcpy(xj, r, sizeof xj);
          float fr = 0.0f;
          for (int d = 0; d < 3; ++d) {
            const float Lf = static_cast<float>(L[d]);
            const float dd = xi[d] - xj[d];
            if (per[d]) sh[d] = dd > 0.5f * Lf ? 1 : (dd < -0.5f * Lf ? -1 : 0);
            const float e = dd - static_cast<float>(sh[d]) * Lf;
            fr += e * e;
          }
          rsq = fr;
        }
        if (rsq < cutsq)
          cand.push_back({static_cast<int64_t>(r[pw + 1]), slot, pack_shift(sh[0], sh[1], sh[2]),
                          static_cast<int8_t>(r[pw])});
      }
      std::sort(cand.begin(), cand.end(), [](const Cand& x, const Cand& y) { return x.id < y.id; });
      const int px = p % map_.width, py = p / map_.width;
      for (const Cand& c : cand) {
        const int dx = c.slot % side - b_, dy = c.slot / side - b_;
        nbr_src_.push_back(mm.y.step(py, dy) * map_.width + mm.x.step(px, dx));
        nbr_shift_.push_back(c.shift);
        nbr_type_.push_back(c.type);
      }
    }
    if (last == 0 && d0 == pe0_ && d1 > d0)
      reserve(nbr_src_.size() * static_cast<size_t>(nb) / static_cast<size_t>(d1 - d0) * 17 / 16 + 64);
    d0 = d1;
  }
  nbr_off_[nb] = static_cast<int32_t>(nbr_src_.size());
  if (!only) I.scan->charge();  // a partial scan reads the window from the positions multicast's flag word
  // Every request of the new slots is checked against the window multicast's coverage here, once: the slots
  // stay fixed until the next scan, so the per-step deliveries only copy.
  I.pos->approve_requests(pe0_, pe1_, nbr_off_.data(), nbr_src_.data());
  I.fp->approve_requests(pe0_, pe1_, nbr_off_.data(), nbr_src_.data());
}

namespace {

using Policy = Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>;

// Neighbour slots an fp64 PE kernel holds on its stack.
constexpr int kHood = 512;

}  // namespace

// An fp64 PE's neighbourhood: its slots' displacements from positions received at rx (request k at
// rx[(k − k0)·3]) with each slot's periodic image, and their types. Plain pointers, copied into the kernels.
struct MeshBackend::Hood64 {
  const double* own;  // the positions payload: 3 per PE of the grid
  int p0;             // the band's first PE
  const int32_t* off;
  const int8_t* shift;
  const int8_t* type;
  double lx, ly, lz;
  // Fills PE q's (band index) slots into hx, hy, hz, ht and returns their count.
  int operator()(int q, int32_t k0, const double* rx, double* hx, double* hy, double* hz, int* ht) const {
    double xi[3];
    std::memcpy(xi, own + 3 * static_cast<size_t>(p0 + q), sizeof xi);
    const int32_t b = off[q], e = off[q + 1];
    for (int32_t k = b; k < e; ++k) {
      const double* xj = rx + 3 * static_cast<size_t>(k - k0);
      const int code = shift[k];
      hx[k - b] = pe_delta(xi[0], xj[0], code % 3 - 1, lx);
      hy[k - b] = pe_delta(xi[1], xj[1], (code / 3) % 3 - 1, ly);
      hz[k - b] = pe_delta(xi[2], xj[2], code / 9 - 1, lz);
      ht[k - b] = type[k];
    }
    return static_cast<int>(e - b);
  }
};

void MeshBackend::forces(State& s, bool eatom, bool tally) {
  const auto t0 = std::chrono::steady_clock::now();
  Impl& I = *impl_;
  // fp64 always tallies: its per-PE virial is part of the kernel, and the host reads the sums out anyway.
  if (opt_.fp64) tally = true;
  StepLoad load;
  if (opt_.fp64)
    multicast_positions<double>(s.atoms, load);
  else
    multicast_positions<float>(s.atoms, load);
  const int nb = pe1_ - pe0_;
  rho_.assign(nb, 0.0);
  fp_.assign(nb, 0.0);
  I.epe.assign(nb, 0.0);
  if (tally) I.vpe.assign(6 * static_cast<size_t>(nb), 0.0);
  for (int q = 0; q < nb; ++q) load.busiest_cand = std::max(load.busiest_cand, nbr_off_[q + 1] - nbr_off_[q]);
  if (opt_.fp64)
    pe_passes_fp64(s.box, s.atoms, load);
  else
    pe_passes_fp32(s.box, s.atoms, tally, load);
  I.fp->charge();
  ++counters_.forces;
  count_busiest_pe(load);
  result_ = ForceResult{};
  result_.tallied = tally;
  if (opt_.fp64)
    sum_energy_virial_fp64();
  else if (tally)  // the wafer, too, sums energy and virial only on the steps that report them
    sum_energy_virial_fp32();
  if (eatom) {
    result_.eatom.assign(s.atoms.size(), 0.0);
    for (int q = 0; q < nb; ++q)
      if (local_[q] >= 0) result_.eatom[local_[q]] = I.epe[q];
  }
  times_.comm += load.halo_seconds;
  times_.pair += seconds_since(t0) - load.halo_seconds;
}

// Each PE loads its own atom's position: the state row of an atom is that PE's memory. The payload spans the
// whole grid; this rank fills its band and receives the halo rows. Only occupied PEs are ever requested, so
// stale words elsewhere are never read: no clearing per step (nor of the F' payload, sized here too).
template <class Real>
void MeshBackend::multicast_positions(const Atoms& a, StepLoad& load) {
  Impl& I = *impl_;
  constexpr int pw = 3 * sizeof(Real) / 4, fw = sizeof(Real) / 4;
  const int npe = map_.size(), nb = pe1_ - pe0_;
  I.pos_payload.resize(static_cast<size_t>(npe) * pw);
  I.fp_payload.resize(static_cast<size_t>(npe) * fw);
  for (int q = 0; q < nb; ++q) {
    const int i = local_[q];
    if (i < 0) continue;
    const Real v[3] = {static_cast<Real>(a.x[i]), static_cast<Real>(a.y[i]), static_cast<Real>(a.z[i])};
    std::memcpy(&I.pos_payload[static_cast<size_t>(pe0_ + q) * pw], v, sizeof v);
  }
  const auto th = std::chrono::steady_clock::now();
  halo_exchange(I.pos_payload, pw);
  load.halo_seconds += seconds_since(th);
}

// The band's destinations in chunks whose requests (pw words each) fit the buffer budget: chunk c is
// [bounds[c], bounds[c + 1]).
std::vector<int> MeshBackend::chunk_bounds(int pw) const {
  const int32_t* off = nbr_off_.data();
  const int p0 = pe0_;
  std::vector<int> bounds;
  for (int d0 = pe0_; d0 < pe1_;) {
    int d1 = d0 + 1;
    while (d1 < pe1_ && d1 - d0 < opt_.chunk_pes &&
           static_cast<size_t>(off[d1 + 1 - p0] - off[d0 - p0]) * pw < word_budget)
      ++d1;
    bounds.push_back(d0);
    d0 = d1;
  }
  bounds.push_back(pe1_);
  return bounds;
}

// fp32: a wavefront over the band's chunks, as the PEs keep what they received: a chunk's force pass runs
// from the positions its density pass received, as soon as every PE within b rows has its F' (a ring of
// received chunks). Chunks whose window reaches past the band (or wraps) wait for the F' halo and receive
// their positions again.
void MeshBackend::pe_passes_fp32(const Box& box, Atoms& a, bool tally, StepLoad& load) {
  Impl& I = *impl_;
  double L[3];
  for (int d = 0; d < 3; ++d) L[d] = box.prd(d);
  const ShiftOffsets32 shifts = make_shift_offsets32(L);
  const std::vector<int> cb = chunk_bounds(3);
  const int nc = static_cast<int>(cb.size()) - 1, W = map_.width;
  auto chunk_of = [&](int pe) {
    return static_cast<int>(std::upper_bound(cb.begin(), cb.end() - 1, pe) - cb.begin()) - 1;
  };
  std::vector<int> need(nc, -1);  // pass 1 of chunks up to need[c] gives chunk c its F'; −1: after the halo
  int ring = 1;
  for (int c = 0; c < nc; ++c) {
    const int lo = cb[c] / W - b_, hi = (cb[c + 1] - 1) / W + b_;
    if (lo < row0_ || hi >= row1_) continue;
    need[c] = chunk_of(std::min(pe1_ - 1, (hi + 1) * W - 1));
    ring = std::max(ring, need[c] - c + 1);
  }
  std::vector<std::vector<uint32_t>>& held = I.ring;
  if (static_cast<int>(held.size()) < ring) held.resize(ring);
  std::vector<int> later;
  int next = 0;
  for (int c = 0; c < nc; ++c) {
    density_chunk_fp32(cb[c], cb[c + 1], shifts, held[c % ring], load);
    while (next <= c && (need[next] < 0 || need[next] <= c)) {
      if (need[next] < 0)
        later.push_back(next);
      else
        force_chunk_fp32(cb[next], cb[next + 1], shifts, held[next % ring], tally, a, load);
      ++next;
    }
  }
  for (; next < nc; ++next) later.push_back(next);
  I.pos->charge();
  const auto th = std::chrono::steady_clock::now();
  halo_exchange(I.fp_payload, 1);
  load.halo_seconds += seconds_since(th);
  for (int c : later) {
    receive_positions_fp32(cb[c], cb[c + 1], I.buf);
    force_chunk_fp32(cb[c], cb[c + 1], shifts, I.buf, tally, a, load);
  }
}

// The positions of destinations [d0, d1)'s requests as x, y, z planes (request k at plane[k − k0]).
void MeshBackend::receive_positions_fp32(int d0, int d1, std::vector<uint32_t>& planes) {
  Impl& I = *impl_;
  const int32_t* off = nbr_off_.data();
  const size_t nreq = static_cast<size_t>(off[d1 - pe0_] - off[d0 - pe0_]);
  planes.resize(nreq * 3);
  I.pos->deliver_approved_range(d0, d1, &off[d0 - pe0_], nbr_src_.data(), I.pos_payload.data(), planes.data(),
                                nreq);
}

// Pass 1 of destinations [d0, d1): their positions into `planes`, then each PE's density and embedding; its
// F' goes into the F' payload at once.
void MeshBackend::density_chunk_fp32(int d0, int d1, const ShiftOffsets32& shifts,
                                     std::vector<uint32_t>& planes, StepLoad& load) {
  Impl& I = *impl_;
  const int p0 = pe0_;
  receive_positions_fp32(d0, d1, planes);
  const int cut_max = pe_density_pass32(I.pt, shifts, band32(d0, planes, nullptr), d0 - p0, d1 - p0,
                                        rho_.data(), fp_.data(), I.epe.data(), I.fp_payload.data());
  load.busiest_cut = std::max(load.busiest_cut, cut_max);
}

// Pass 2 of destinations [d0, d1) from the positions pass 1 delivered into `planes`: F' of the slots, then
// each PE's force over its full neighbourhood (and its virial when tallied).
void MeshBackend::force_chunk_fp32(int d0, int d1, const ShiftOffsets32& shifts,
                                   const std::vector<uint32_t>& planes, bool tally, Atoms& a,
                                   StepLoad& load) {
  Impl& I = *impl_;
  const int p0 = pe0_;
  const int32_t* off = nbr_off_.data();
  const size_t nreq = static_cast<size_t>(off[d1 - p0] - off[d0 - p0]);
  I.buf2.resize(nreq);
  I.fp->deliver_approved_range(d0, d1, &off[d0 - p0], nbr_src_.data(), I.fp_payload.data(), I.buf2.data());
  const int zbl_max = pe_force_pass32(
      I.pt, shifts, band32(d0, planes, reinterpret_cast<const float*>(I.buf2.data())), d0 - p0, d1 - p0,
      fp_.data(), I.epe.data(), tally ? I.vpe.data() : nullptr, a.fx.data(), a.fy.data(), a.fz.data());
  load.busiest_zbl = std::max(load.busiest_zbl, zbl_max);
}

// The slots of the chunk from destination d0 for the fp32 PE kernels: the position planes (one third of
// `planes` each) and, in the force pass, F'.
PeBand32 MeshBackend::band32(int d0, const std::vector<uint32_t>& planes, const float* fp) const {
  PeBand32 b;
  b.k0 = nbr_off_[d0 - pe0_];
  const size_t nreq = planes.size() / 3;
  const float* bx = reinterpret_cast<const float*>(planes.data());
  b.off = nbr_off_.data(), b.shift = nbr_shift_.data(), b.type = nbr_type_.data();
  b.px = bx, b.py = bx + nreq, b.pz = bx + 2 * nreq, b.fp = fp;
  b.own = impl_->pos_payload.data(), b.p0 = pe0_, b.local = local_.data(), b.atype = type_.data();
  return b;
}

// fp64: the density pass over the band, the F' halo, then the force pass (positions received again). Kernels
// over PEs with each PE's displacements on its stack (the sums run in slot order, as the cluster's
// deterministic mode).
void MeshBackend::pe_passes_fp64(const Box& box, Atoms& a, StepLoad& load) {
  Impl& I = *impl_;
  if (load.busiest_cand > kHood)
    throw RunError(
        fmt::format("mesh fp64: a PE has {} neighbour slots, more than the {} its kernel holds "
                    "(use fp32, or a smaller skin)",
                    load.busiest_cand, kHood));
  const Hood64 hood{reinterpret_cast<const double*>(I.pos_payload.data()),
                    pe0_,
                    nbr_off_.data(),
                    nbr_shift_.data(),
                    nbr_type_.data(),
                    box.prd(0),
                    box.prd(1),
                    box.prd(2)};
  const std::vector<int> cb = chunk_bounds(6);
  const int nc = static_cast<int>(cb.size()) - 1;
  for (int c = 0; c < nc; ++c) density_chunk_fp64(cb[c], cb[c + 1], hood, load);
  I.pos->charge();
  const auto th = std::chrono::steady_clock::now();
  halo_exchange(I.fp_payload, 2);
  load.halo_seconds += seconds_since(th);
  for (int c = 0; c < nc; ++c) force_chunk_fp64(cb[c], cb[c + 1], hood, a, load);
}

// Density pass of destinations [d0, d1): their positions, then each PE's density and embedding; its F' goes
// into the F' payload at once.
void MeshBackend::density_chunk_fp64(int d0, int d1, const Hood64& hood, StepLoad& load) {
  Impl& I = *impl_;
  const int p0 = pe0_;
  const int* local = local_.data();
  const int* type = type_.data();
  const int32_t* off = nbr_off_.data();
  double* rho = rho_.data();
  double* fpv = fp_.data();
  double* epe = I.epe.data();
  const potentials::EamTables* tab = tables_;
  const double cutsq = tables_->cutmax * tables_->cutmax;
  uint32_t* fpay = I.fp_payload.data();
  const int32_t k0 = off[d0 - p0];
  I.buf.resize(static_cast<size_t>(off[d1 - p0] - k0) * 6);
  I.pos->deliver_approved_range(d0, d1, &off[d0 - p0], nbr_src_.data(), I.pos_payload.data(), I.buf.data());
  const double* rx = reinterpret_cast<const double*>(I.buf.data());
  int cut_max = 0;
  Kokkos::parallel_reduce(
      "mesh_pe_density64", Policy(d0 - p0, d1 - p0),
      [=](const int q, int& busiest) {
        if (local[q] < 0) return;
        double hx[kHood], hy[kHood], hz[kHood];
        int ht[kHood];
        const int n = hood(q, k0, rx, hx, hy, hz, ht);
        int in_cut = 0;
        for (int k = 0; k < n; ++k) in_cut += hx[k] * hx[k] + hy[k] * hy[k] + hz[k] * hz[k] < cutsq;
        busiest = std::max(busiest, in_cut);
        double fpi = 0.0;
        const double r = atom_density(*tab, type[q], n, hx, hy, hz, ht);
        rho[q] = r;
        epe[q] = atom_embed(*tab, type[q], r, fpi);
        fpv[q] = fpi;
        std::memcpy(fpay + 2 * static_cast<size_t>(p0 + q), &fpi, sizeof fpi);
      },
      Kokkos::Max<int>(cut_max));
  load.busiest_cut = std::max(load.busiest_cut, cut_max);
}

// Force pass of destinations [d0, d1): their positions again and their F', then each PE's force and virial
// over its full neighbourhood.
void MeshBackend::force_chunk_fp64(int d0, int d1, const Hood64& hood, Atoms& a, StepLoad& load) {
  Impl& I = *impl_;
  const int p0 = pe0_;
  const int* local = local_.data();
  const int* type = type_.data();
  const int32_t* off = nbr_off_.data();
  const double* fpv = fp_.data();
  double* epe = I.epe.data();
  double* vpe = I.vpe.data();
  const potentials::EamTables* tab = tables_;
  double* fx = a.fx.data();
  double* fy = a.fy.data();
  double* fz = a.fz.data();
  const int32_t k0 = off[d0 - p0];
  const size_t nreq = static_cast<size_t>(off[d1 - p0] - k0);
  I.buf.resize(nreq * 6);
  I.buf2.resize(nreq * 2);
  I.pos->deliver_approved_range(d0, d1, &off[d0 - p0], nbr_src_.data(), I.pos_payload.data(), I.buf.data());
  I.fp->deliver_approved_range(d0, d1, &off[d0 - p0], nbr_src_.data(), I.fp_payload.data(), I.buf2.data());
  const double* rx = reinterpret_cast<const double*>(I.buf.data());
  const double* rfp = reinterpret_cast<const double*>(I.buf2.data());
  int zbl_max = 0;
  Kokkos::parallel_reduce(
      "mesh_pe_force64", Policy(d0 - p0, d1 - p0),
      [=](const int q, int& busiest) {
        const int i = local[q];
        if (i < 0) return;
        double hx[kHood], hy[kHood], hz[kHood];
        int ht[kHood];
        const int n = hood(q, k0, rx, hx, hy, hz, ht);
        double f[3] = {0, 0, 0};
        int nz = 0;
        epe[q] += atom_force(*tab, type[q], fpv[q], n, hx, hy, hz, ht, rfp + (off[q] - k0), f,
                             vpe + 6 * static_cast<size_t>(q), &nz);
        busiest = std::max(busiest, nz);
        fx[i] = f[0], fy[i] = f[1], fz[i] = f[2];
      },
      Kokkos::Max<int>(zbl_max));
  load.busiest_zbl = std::max(load.busiest_zbl, zbl_max);
}

// The busiest PE anywhere prices the step.
void MeshBackend::count_busiest_pe(const StepLoad& load) {
  int most[3] = {load.busiest_cand, load.busiest_cut, load.busiest_zbl};
  comm_->max(most, 3);
  counters_.sum_candidates_max += most[0];
  counters_.sum_in_cut_max += most[1];
  counters_.sum_zbl_max += most[2];
}

// fp64: the fabric's words are fp32 and cannot carry an fp64 sum, so the host reads the per-PE energy and
// virial out and sums them row by row in PE order, then the rows in order (the thermo read-out; the same bits
// for any tiling in bands of rows).
void MeshBackend::sum_energy_virial_fp64() {
  const Impl& I = *impl_;
  const int W = map_.width;
  std::vector<double> rows(7 * static_cast<size_t>(map_.height), 0.0);
  for (int y = row0_; y < row1_; ++y) {
    double* r = &rows[7 * static_cast<size_t>(y)];
    for (int p = y * W; p < (y + 1) * W; ++p) {
      const int q = p - pe0_;
      r[0] += I.epe[q];
      for (int c = 0; c < 6; ++c) r[1 + c] += I.vpe[6 * static_cast<size_t>(q) + c];
    }
  }
  // Each row is summed on exactly one rank and the others hold +0.0, so the rank-ordered sum is exact.
  comm_->sum_in_rank_order(rows.data(), static_cast<int>(rows.size()));
  for (int y = 0; y < map_.height; ++y) {
    result_.energy += rows[7 * static_cast<size_t>(y)];
    for (int c = 0; c < 6; ++c) result_.virial[c] += rows[7 * static_cast<size_t>(y) + 1 + c];
  }
}

// fp32: the per-PE energy and virial as fp32 words through the fabric's 7-word sum, as the wafer would.
void MeshBackend::sum_energy_virial_fp32() {
  Impl& I = *impl_;
  const int nb = pe1_ - pe0_;
  std::vector<uint32_t>& words = I.buf2;
  words.assign(7 * static_cast<size_t>(nb), 0u);
  for (int q = 0; q < nb; ++q) {
    words[7 * static_cast<size_t>(q)] = float_bits(static_cast<float>(I.epe[q]));
    for (int c = 0; c < 6; ++c)
      words[7 * static_cast<size_t>(q) + 1 + c] =
          float_bits(static_cast<float>(I.vpe[6 * static_cast<size_t>(q) + c]));
  }
  uint32_t out[7];
  fabric_reduce(*I.sum, words.data(), out);
  result_.energy = bits_float(out[0]);
  for (int c = 0; c < 6; ++c) result_.virial[c] = bits_float(out[1 + c]);
}

void MeshBackend::charge(const MeshWork& work) {
  if (work.reductions <= 0 || map_.width == 0) return;
  // Each reduction combines its share of the values, one 32-bit word each (the PEs' fp32).
  const int words = std::max(1, (work.words + work.reductions - 1) / work.reductions);
  const fabric::ScheduleSpec spec{fabric::ScheduleKind::Reduction,
                                  fabric::Grid{map_.width, map_.height},
                                  1,
                                  words,
                                  map_.wrap,
                                  fabric::ReduceOp::Sum};
  counters_.style_reductions += work.reductions;
  counters_.style_reduction_cycles +=
      work.reductions * static_cast<double>(fabric::model_schedule(spec, hw_).cycles);
}

StepCycles MeshBackend::step_cycles() const {
  StepWork w;
  w.grid = fabric::Grid{map_.width, map_.height};
  w.wrap = map_.wrap;
  w.b = b_;
  w.position_words = opt_.fp64 ? 6 : 3;
  w.fp_words = opt_.fp64 ? 2 : 1;
  w.swap_words = swap_words;
  const double forces = std::max<double>(1.0, static_cast<double>(counters_.forces));
  w.candidates = counters_.sum_candidates_max / forces;
  w.in_cut = counters_.sum_in_cut_max / forces;
  w.zbl = tables_ && tables_->zbl.active();
  w.zbl_pairs = counters_.sum_zbl_max / forces;
  const double steps = std::max<double>(1.0, static_cast<double>(counters_.steps));
  w.rebuild_interval = steps / std::max<double>(1.0, static_cast<double>(counters_.step_rebuilds));
  w.checks_per_step = counters_.steps > 0 ? static_cast<double>(counters_.checks) / steps : 1.0;
  w.local_trigger = local_trigger();
  w.remap_cycles_per_step = counters_.remap_cycles / steps;
  w.style_reduction_cycles_per_step = counters_.style_reduction_cycles / steps;
  return account_step(w, hw_);
}

nlohmann::json MeshBackend::fabric_json() const {
  const StepCycles c = step_cycles();
  return {
      {"wafer", hw_.name},
      {"grid", {map_.width, map_.height}},
      {"window_b", b_},
      {"wrap", map_.wrap},
      {"precision", opt_.fp64 ? "fp64" : "fp32"},
      {"deterministic", opt_.fp64},  // fp64 PEs sum in ascending global id: the cluster's deterministic order
      {"cycles_per_step", cycles_json(c)},
      {"predicted_steps_per_second", c.steps_per_second},
      {"energy_per_step_joules", c.energy_per_step_j},
      {"swaps", counters_.swaps},
      {"remaps", counters_.remaps},
      {"rebuilds", counters_.rebuilds},
      {"rebuild_checks", counters_.checks},
      {"style_reductions", counters_.style_reductions},
      {"remap_cycles", counters_.remap_cycles},
      {"rebuild_trigger", local_trigger() ? "local" : (nb_.check && !nb_.once ? "vote" : "interval")},
      {"rescan_steps", counters_.rescan_steps},
      {"pe_rescans", counters_.pe_rescans},
      {"guard_misses", counters_.guard_misses}};
}

std::vector<std::string> MeshBackend::setup_notes() const {
  return {
      fmt::format("Mesh: {} atoms on a {}x{} PE grid of the {} wafer ({}), window radius b = {} "
                  "({} PEs per window), PE arithmetic {}",
                  mapped_atoms_, map_.width, map_.height, hw_.name, map_.wrap ? "folded torus" : "no wrap",
                  b_, (2 * b_ + 1) * (2 * b_ + 1), opt_.fp64 ? "fp64" : "fp32")};
}

}  // namespace wmd::md::mesh
