#include "md/mesh/mesh_backend.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

#include "base/error.hpp"
#include "md/eam_atom_kernels.hpp"
#include "md/mesh/pe_kernels.hpp"

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
// A table instead of divisions: this runs once per neighbour per pass.
struct ShiftTable {
  int8_t v[27][3];
  ShiftTable() {
    for (int s = 0; s < 27; ++s) v[s][0] = s % 3 - 1, v[s][1] = (s / 3) % 3 - 1, v[s][2] = s / 9 - 1;
  }
};
const ShiftTable kShifts;
void unpack_shift(int8_t s, int& sx, int& sy, int& sz) {
  sx = kShifts.v[s][0];
  sy = kShifts.v[s][1];
  sz = kShifts.v[s][2];
}

}  // namespace

/// Transports, fp32 tables and streaming buffers: the emulator's machinery, not PE state.
struct MeshBackend::Impl {
  std::unique_ptr<FastTransport> pos, fp, scan, check, sum, swap;
  FloatTables ft;
  std::vector<uint32_t> pos_payload, fp_payload, buf, buf2;
  std::vector<double> epe;  // per-PE energy of the last force pass
  std::vector<double> vpe;  // per-PE virial (6)
};

MeshBackend::MeshBackend(MeshOptions opt) : opt_(std::move(opt)), impl_(std::make_unique<Impl>()) {
  hw_ = fabric::load_hardware(opt_.wafer);
}

MeshBackend::~MeshBackend() = default;

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
}

void MeshBackend::setup(State& s, const potentials::EamTables& tables, const NeighborSettings& nb,
                        bool eatom) {
  tables_ = &tables;
  nb_ = nb;
  stats_ = NeighborStats{};
  times_ = PhaseTimes{};
  validate(s, tables, nb);
  cutneigh_ = tables.cutmax + nb.skin;
  if (!opt_.fp64) impl_->ft = make_float_tables(tables);
  // The PE assignment persists between runs of one system (it lives on the wafer); a new system is mapped.
  bool same = map_.size() > 0 && map_.pe_of.size() == s.atoms.size();
  for (int d = 0; d < 3 && same; ++d) same = box_lo_[d] == s.box.lo[d] && box_hi_[d] == s.box.hi[d];
  for (int d = 0; d < 3; ++d) box_lo_[d] = s.box.lo[d], box_hi_[d] = s.box.hi[d];
  const bool restored = restored_;
  if (restored)
    rebuild_restored(s);
  else
    rebuild(s, !same);
  const MeshCounters saved = counters_;
  if (opt_.fp64)
    forces<double>(s, eatom);
  else
    forces<float>(s, eatom);
  // The saved run counted this force pass at the step it checkpointed: the report continues, not repeats.
  if (restored) counters_ = saved;
}

NamedArrays MeshBackend::save_state() const {
  const MeshCounters& c = counters_;
  auto d = [](auto v) { return static_cast<double>(v); };
  return {{"grid", {d(map_.width), d(map_.height), d(map_.wrap ? 1 : 0)}},
          {"atom_of", std::vector<double>(map_.atom_of.begin(), map_.atom_of.end())},
          {"window_b", {d(b_)}},
          {"ago", {d(ago_)}},
          {"xhold", xhold_},
          {"precision", {d(opt_.fp64 ? 64 : 32)}},
          {"counters",
           {d(c.steps), d(c.forces), d(c.rebuilds), d(c.step_rebuilds), d(c.swaps), d(c.remaps), d(c.checks),
            c.remap_cycles, c.sum_candidates_max, c.sum_in_cut_max, d(c.max_b)}}};
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
  const auto& ao = get("atom_of", 0);
  map_.atom_of.assign(ao.begin(), ao.end());
  b_ = static_cast<int>(get("window_b", 1)[0]);
  ago_ = static_cast<int>(get("ago", 1)[0]);
  xhold_ = get("xhold", 0);
  const auto& c = get("counters", 11);
  counters_.steps = static_cast<int64_t>(c[0]), counters_.forces = static_cast<int64_t>(c[1]);
  counters_.rebuilds = static_cast<int64_t>(c[2]), counters_.step_rebuilds = static_cast<int64_t>(c[3]);
  counters_.swaps = static_cast<int64_t>(c[4]), counters_.remaps = static_cast<int64_t>(c[5]);
  counters_.checks = static_cast<int64_t>(c[6]);
  counters_.remap_cycles = c[7], counters_.sum_candidates_max = c[8], counters_.sum_in_cut_max = c[9];
  counters_.max_b = static_cast<int>(c[10]);
  restored_ = true;
}

// The saved run's neighbour slots came from the window scan of its last rebuild: scan again from exactly
// those positions (xhold) on the saved PE assignment. No wrapping or swaps here — those would change the
// bits.
void MeshBackend::rebuild_restored(State& s) {
  restored_ = false;
  const auto t0 = std::chrono::steady_clock::now();
  Atoms& a = s.atoms;
  const int n = static_cast<int>(a.size());
  const int npe = map_.size();
  if (map_.atom_of.size() != static_cast<size_t>(npe) || xhold_.size() != 3 * static_cast<size_t>(npe))
    throw RunError("checkpoint's mesh state does not hold one entry per PE");
  map_.pe_of.assign(n, -1);
  for (int p = 0; p < npe; ++p) {
    const int i = map_.atom_of[p];
    if (i < -1 || i >= n || (i >= 0 && map_.pe_of[i] >= 0))
      throw RunError("checkpoint's mesh PE assignment is not one atom per PE");
    if (i >= 0) map_.pe_of[i] = p;
  }
  for (int i = 0; i < n; ++i)
    if (map_.pe_of[i] < 0) throw RunError("checkpoint's mesh PE assignment leaves atoms without a PE");
  make_transports();
  type_.assign(npe, 0);
  id_.assign(npe, 0);
  std::vector<double> cur(3 * static_cast<size_t>(n));
  for (int p = 0; p < npe; ++p) {
    const int i = map_.atom_of[p];
    if (i < 0) continue;
    type_[p] = a.type[i];
    id_[p] = a.id[i];
    cur[3 * i] = a.x[i], cur[3 * i + 1] = a.y[i], cur[3 * i + 2] = a.z[i];
    a.x[i] = xhold_[3 * p], a.y[i] = xhold_[3 * p + 1], a.z[i] = xhold_[3 * p + 2];
  }
  scan_windows(s);
  for (int i = 0; i < n; ++i) a.x[i] = cur[3 * i], a.y[i] = cur[3 * i + 1], a.z[i] = cur[3 * i + 2];
  ++stats_.builds;
  stats_.pairs = static_cast<int64_t>(nbr_src_.size());
  stats_.ghosts = 0;
  times_.neigh += seconds_since(t0);
}

void MeshBackend::validate(const State& s, const potentials::EamTables& tables,
                           const NeighborSettings& nb) const {
  // The PE grid is not tiled over ranks yet: every PE must live in this process.
  int mpi_on = 0, ranks = 1;
  MPI_Initialized(&mpi_on);
  if (mpi_on) MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (ranks > 1)
    fail_input(SourcePos{"<mesh>", 0},
               fmt::format("the mesh backend runs on one MPI rank in this build (its tiling of the "
                           "PE grid over ranks is not built); got {} ranks: run it without mpirun, "
                           "or use the cluster backend",
                           ranks));
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
  choose_grid(static_cast<int64_t>(s.atoms.size()), s.box, hw_.grid_width, hw_.grid_height, hw_.pe_count,
              hw_.name, w, h);
  if (restored_ && (w != map_.width || h != map_.height))
    fail_input(SourcePos{"<checkpoint>", 0},
               fmt::format("the checkpoint's PE grid is {}x{}, but this run maps onto {}x{} (another "
                           "wafer?): restart on the wafer that wrote it",
                           map_.width, map_.height, w, h));
}

void MeshBackend::compute(State& s, bool eatom) {
  ++counters_.steps;
  if (rebuild_due(s)) {
    rebuild(s, false);
    ++counters_.step_rebuilds;
  }
  if (opt_.fp64)
    forces<double>(s, eatom);
  else
    forces<float>(s, eatom);
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
  const int npe = map_.size();
  std::vector<uint32_t>& flags = impl_->buf2;
  flags.assign(npe, float_bits(0.0f));
  for (int p = 0; p < npe; ++p) {
    const int i = map_.atom_of[p];
    if (i < 0) continue;
    const double dx = a.x[i] - xhold_[3 * p], dy = a.y[i] - xhold_[3 * p + 1],
                 dz = a.z[i] - xhold_[3 * p + 2];
    if (dx * dx + dy * dy + dz * dz > trigger) flags[p] = float_bits(1.0f);
  }
  uint32_t any = 0;
  impl_->check->reduce(flags.data(), &any);
  ++counters_.checks;
  times_.comm += seconds_since(t0);
  if (bits_float(any) > 0.5f) {
    if (ago_ == std::max(nb_.every, nb_.delay)) ++stats_.dangerous;
    return true;
  }
  return false;
}

void MeshBackend::rebuild(State& s, bool first) {
  const auto t0 = std::chrono::steady_clock::now();
  Atoms& a = s.atoms;
  const int n = static_cast<int>(a.size());
  // Each PE wraps its own atom (periodic) or reports it lost (fixed faces).
  static const char* axis[] = {"x", "y", "z"};
  double* pos[3] = {a.x.data(), a.y.data(), a.z.data()};
  int* img[3] = {a.ix.data(), a.iy.data(), a.iz.data()};
  for (int i = 0; i < n; ++i) {
    for (int d = 0; d < 3; ++d) {
      if (!std::isfinite(pos[d][i]))
        throw RunError(
            fmt::format("atom {} has a non-finite {} coordinate at step {}", a.id[i], axis[d], s.step));
      if (s.box.periodic(d)) {
        wrap_periodic(pos[d][i], img[d][i], s.box.lo[d], s.box.hi[d]);
      } else if (pos[d][i] < s.box.lo[d] || pos[d][i] >= s.box.hi[d]) {
        throw RunError(
            fmt::format("lost atom {}: it left the box through the non-periodic {} boundary at step {} "
                        "({} = {})",
                        a.id[i], axis[d], s.step, axis[d], pos[d][i]));
      }
    }
  }
  if (first) {
    int w = 0, h = 0;
    choose_grid(n, s.box, hw_.grid_width, hw_.grid_height, hw_.pe_count, hw_.name, w, h);
    map_ = map_atoms(s.box, a.x.data(), a.y.data(), a.z.data(), a.id.data(), n, w, h);
    b_ = required_window(map_, s.box, a.x.data(), a.y.data(), a.z.data(), n, cutneigh_);
    make_transports();
  } else {
    swap_round(s);
    remap_if_needed(s);
  }
  const int npe = map_.size();
  type_.assign(npe, 0);
  id_.assign(npe, 0);
  xhold_.assign(3 * static_cast<size_t>(npe), 0.0);
  for (int p = 0; p < npe; ++p) {
    const int i = map_.atom_of[p];
    if (i < 0) continue;
    type_[p] = a.type[i];
    id_[p] = a.id[i];
    xhold_[3 * p] = a.x[i], xhold_[3 * p + 1] = a.y[i], xhold_[3 * p + 2] = a.z[i];
  }
  scan_windows(s);
  ago_ = 0;
  ++stats_.builds;
  ++counters_.rebuilds;
  stats_.pairs = static_cast<int64_t>(nbr_src_.size());
  stats_.ghosts = 0;
  times_.neigh += seconds_since(t0);
}

// One odd-even transposition round through the neighbour-swap schedule: x pairs from even then odd columns,
// then y pairs likewise. A pair swaps its atoms when they are out of order along that axis, keeping the
// mapping sorted (and so local) as atoms move.
void MeshBackend::swap_round(State& s) {
  Impl& I = *impl_;
  const Atoms& a = s.atoms;
  const int W = map_.width, H = map_.height, npe = map_.size();
  std::vector<uint32_t> payload(static_cast<size_t>(npe) * swap_words, 0u);
  std::vector<int32_t> off(npe + 1), src;
  std::vector<uint32_t> got;
  auto key = [&](int atom, int axis, int coord) {
    const double v = axis == 0 ? a.x[atom] : a.y[atom];
    if (!s.box.periodic(axis)) return v;
    const double len = s.box.prd(axis), n = axis == 0 ? W : H;
    const double ref = s.box.lo[axis] + (coord + 0.5) * len / n;
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
      r[0] = static_cast<uint32_t>(i);
      r[1] = float_bits(static_cast<float>(a.x[i])), r[2] = float_bits(static_cast<float>(a.y[i]));
      r[3] = float_bits(static_cast<float>(a.z[i]));
      r[4] = float_bits(static_cast<float>(a.vx[i])), r[5] = float_bits(static_cast<float>(a.vy[i]));
      r[6] = float_bits(static_cast<float>(a.vz[i]));
      r[7] = static_cast<uint32_t>(a.type[i]), r[8] = static_cast<uint32_t>(a.id[i]);
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
      partner[p] = qpe;
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
      }
    }
    map_.atom_of.swap(next);
  }
  I.swap->charge();  // the schedule's four phases are the four rounds above
  for (int p = 0; p < npe; ++p)
    if (map_.atom_of[p] >= 0) map_.pe_of[map_.atom_of[p]] = p;
}

// The emulator's guard that no interaction is ever lost: every pair within cutoff + skin must lie inside the
// window. If the swaps could not keep up (a fast knock-on atom), the atoms are remapped from scratch through
// the fabric (priced as the swap rounds that carry the farthest atom to its new PE) and b grows if it must.
void MeshBackend::remap_if_needed(State& s) {
  const Atoms& a = s.atoms;
  const int n = static_cast<int>(a.size());
  const int need = required_window(map_, s.box, a.x.data(), a.y.data(), a.z.data(), n, cutneigh_);
  if (need <= b_) return;
  Mapping fresh =
      map_atoms(s.box, a.x.data(), a.y.data(), a.z.data(), a.id.data(), n, map_.width, map_.height);
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
  const int need2 = required_window(map_, s.box, a.x.data(), a.y.data(), a.z.data(), n, cutneigh_);
  if (need2 > b_) {
    b_ = need2;
    make_transports();
  }
}

// At a rebuild each PE receives its whole window (position, type, id) and keeps the atoms within cutoff +
// skin, each with the periodic image that brings it closest, in ascending global id.
void MeshBackend::scan_windows(const State& s) {
  Impl& I = *impl_;
  const Atoms& a = s.atoms;
  const int npe = map_.size();
  const bool fp64 = opt_.fp64;
  const int pw = fp64 ? 6 : 3, sw = pw + 2;
  std::vector<uint32_t> payload(static_cast<size_t>(npe) * sw, 0u);
  for (int p = 0; p < npe; ++p) {
    const int i = map_.atom_of[p];
    uint32_t* r = &payload[static_cast<size_t>(p) * sw];
    if (i < 0) continue;
    if (fp64) {
      const double v[3] = {a.x[i], a.y[i], a.z[i]};
      std::memcpy(r, v, sizeof v);
    } else {
      const float v[3] = {static_cast<float>(a.x[i]), static_cast<float>(a.y[i]), static_cast<float>(a.z[i])};
      std::memcpy(r, v, sizeof v);
    }
    r[pw] = static_cast<uint32_t>(a.type[i]);
    r[pw + 1] = static_cast<uint32_t>(a.id[i]);
  }
  const int side = 2 * b_ + 1, slots = side * side;
  const int chunk = std::max<int>(1, static_cast<int>(word_budget / (static_cast<size_t>(slots) * sw)));
  const double cutsq = cutneigh_ * cutneigh_;
  double L[3];
  bool per[3];
  for (int d = 0; d < 3; ++d) L[d] = s.box.prd(d), per[d] = s.box.periodic(d);
  nbr_off_.assign(npe + 1, 0);
  nbr_src_.clear();
  nbr_shift_.clear();
  nbr_type_.clear();
  struct Cand {
    int64_t id;
    int32_t slot;
    int8_t shift, type;
  };
  std::vector<Cand> cand;
  const fabric::MeshMap& mm = I.scan->map();
  for (int d0 = 0; d0 < npe; d0 += chunk) {
    const int d1 = std::min(npe, d0 + chunk);
    I.buf.resize(static_cast<size_t>(d1 - d0) * slots * sw);
    I.scan->deliver_window_range(d0, d1, payload.data(), I.buf.data());
    for (int p = d0; p < d1; ++p) {
      nbr_off_[p] = static_cast<int32_t>(nbr_src_.size());
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
  }
  nbr_off_[npe] = static_cast<int32_t>(nbr_src_.size());
  I.scan->charge();
}

template <class Real>
void MeshBackend::forces(State& s, bool eatom) {
  const auto t0 = std::chrono::steady_clock::now();
  Impl& I = *impl_;
  Atoms& a = s.atoms;
  const int npe = map_.size();
  constexpr int pw = 3 * sizeof(Real) / 4, fw = sizeof(Real) / 4;
  Real L[3];
  for (int d = 0; d < 3; ++d) L[d] = static_cast<Real>(s.box.prd(d));
  // Each PE loads its own atom's position: the state row of an atom is that PE's memory.
  I.pos_payload.assign(static_cast<size_t>(npe) * pw, 0u);
  for (int p = 0; p < npe; ++p) {
    const int i = map_.atom_of[p];
    if (i < 0) continue;
    const Real v[3] = {static_cast<Real>(a.x[i]), static_cast<Real>(a.y[i]), static_cast<Real>(a.z[i])};
    std::memcpy(&I.pos_payload[static_cast<size_t>(p) * pw], v, sizeof v);
  }
  rho_.assign(npe, 0.0);
  fp_.assign(npe, 0.0);
  I.epe.assign(npe, 0.0);
  I.vpe.assign(6 * static_cast<size_t>(npe), 0.0);
  int max_nb = 0;
  for (int p = 0; p < npe; ++p) max_nb = std::max(max_nb, nbr_off_[p + 1] - nbr_off_[p]);
  std::vector<Real> dx(max_nb), dy(max_nb), dz(max_nb), fpj(max_nb);
  std::vector<int> tj(max_nb);
  int busiest_cand = 0, busiest_cut = 0;
  const Real cutsq = static_cast<Real>(tables_->cutmax * tables_->cutmax);

  // Streams destinations [d0, d1) whose requests fit the buffer budget.
  auto chunks = [&](auto&& body) {
    for (int d0 = 0; d0 < npe;) {
      int d1 = d0 + 1;
      while (d1 < npe && d1 - d0 < opt_.chunk_pes &&
             static_cast<size_t>(nbr_off_[d1 + 1] - nbr_off_[d0]) * pw < word_budget)
        ++d1;
      body(d0, d1);
      d0 = d1;
    }
  };
  // Displacements of PE p's neighbours from the received positions (request k at buf[(k − k0)·pw]).
  auto displacements = [&](int p, int32_t k0) {
    Real xi[3];
    std::memcpy(xi, &I.pos_payload[static_cast<size_t>(p) * pw], sizeof xi);
    const int32_t b = nbr_off_[p], e = nbr_off_[p + 1];
    for (int32_t k = b; k < e; ++k) {
      Real xj[3];
      std::memcpy(xj, &I.buf[static_cast<size_t>(k - k0) * pw], sizeof xj);
      int sx, sy, sz;
      unpack_shift(nbr_shift_[k], sx, sy, sz);
      dx[k - b] = pe_delta(xi[0], xj[0], sx, L[0]);
      dy[k - b] = pe_delta(xi[1], xj[1], sy, L[1]);
      dz[k - b] = pe_delta(xi[2], xj[2], sz, L[2]);
      tj[k - b] = nbr_type_[k];
    }
    return static_cast<int>(e - b);
  };

  // Pass 1: positions multicast, density and embedding.
  chunks([&](int d0, int d1) {
    const int32_t k0 = nbr_off_[d0];
    I.buf.resize(static_cast<size_t>(nbr_off_[d1] - k0) * pw);
    I.pos->deliver_requested_range(d0, d1, &nbr_off_[d0], nbr_src_.data(), I.pos_payload.data(),
                                   I.buf.data());
    for (int p = d0; p < d1; ++p) {
      if (map_.atom_of[p] < 0) continue;
      const int n = displacements(p, k0);
      int in_cut = 0;
      for (int k = 0; k < n; ++k) in_cut += dx[k] * dx[k] + dy[k] * dy[k] + dz[k] * dz[k] < cutsq;
      busiest_cand = std::max(busiest_cand, n);
      busiest_cut = std::max(busiest_cut, in_cut);
      double fpi = 0.0;
      if constexpr (std::is_same_v<Real, double>) {
        const double rho = atom_density(*tables_, type_[p], n, dx.data(), dy.data(), dz.data(), tj.data());
        rho_[p] = rho;
        I.epe[p] = atom_embed(*tables_, type_[p], rho, fpi);
      } else {
        const float rho = f32_density(I.ft, type_[p], n, dx.data(), dy.data(), dz.data(), tj.data());
        rho_[p] = rho;
        float f = 0.0f;
        I.epe[p] = f32_embed(I.ft, type_[p], rho, f);
        fpi = f;
      }
      fp_[p] = fpi;
    }
  });
  I.pos->charge();
  // F' multicast (one fp32 word, two in fp64).
  I.fp_payload.assign(static_cast<size_t>(npe) * fw, 0u);
  for (int p = 0; p < npe; ++p) {
    const Real v = static_cast<Real>(fp_[p]);
    std::memcpy(&I.fp_payload[static_cast<size_t>(p) * fw], &v, sizeof v);
  }
  // Pass 2: each PE's own force over its full neighbourhood. The PE kept the positions it received in pass 1;
  // the emulator streams them again rather than hold them all (charged once per step, above).
  chunks([&](int d0, int d1) {
    const int32_t k0 = nbr_off_[d0];
    const size_t nreq = static_cast<size_t>(nbr_off_[d1] - k0);
    I.buf.resize(nreq * pw);
    I.buf2.resize(nreq * fw);
    I.pos->deliver_requested_range(d0, d1, &nbr_off_[d0], nbr_src_.data(), I.pos_payload.data(),
                                   I.buf.data());
    I.fp->deliver_requested_range(d0, d1, &nbr_off_[d0], nbr_src_.data(), I.fp_payload.data(), I.buf2.data());
    for (int p = d0; p < d1; ++p) {
      const int i = map_.atom_of[p];
      if (i < 0) continue;
      const int n = displacements(p, k0);
      for (int k = 0; k < n; ++k)
        std::memcpy(&fpj[k], &I.buf2[static_cast<size_t>(nbr_off_[p] + k - k0) * fw], sizeof(Real));
      double* vir = &I.vpe[6 * static_cast<size_t>(p)];
      if constexpr (std::is_same_v<Real, double>) {
        double f[3] = {0, 0, 0};
        I.epe[p] += atom_force(*tables_, type_[p], fp_[p], n, dx.data(), dy.data(), dz.data(), tj.data(),
                               fpj.data(), f, vir);
        a.fx[i] = f[0], a.fy[i] = f[1], a.fz[i] = f[2];
      } else {
        float f[3] = {0, 0, 0}, v[6] = {0, 0, 0, 0, 0, 0};
        I.epe[p] += f32_force(I.ft, type_[p], static_cast<float>(fp_[p]), n, dx.data(), dy.data(), dz.data(),
                              tj.data(), fpj.data(), f, v);
        a.fx[i] = f[0], a.fy[i] = f[1], a.fz[i] = f[2];
        for (int c = 0; c < 6; ++c) vir[c] = v[c];
      }
    }
  });
  I.fp->charge();
  ++counters_.forces;
  counters_.sum_candidates_max += busiest_cand;
  counters_.sum_in_cut_max += busiest_cut;

  // Global energy and virial. fp32: a 7-word fabric sum (as the wafer would). fp64: the fabric's words are
  // fp32, so the host reads the per-PE values out and sums them in PE order (the thermo readout).
  result_ = ForceResult{};
  if constexpr (std::is_same_v<Real, double>) {
    for (int p = 0; p < npe; ++p) {
      result_.energy += I.epe[p];
      for (int c = 0; c < 6; ++c) result_.virial[c] += I.vpe[6 * static_cast<size_t>(p) + c];
    }
  } else {
    std::vector<uint32_t>& words = I.buf2;
    words.assign(7 * static_cast<size_t>(npe), 0u);
    for (int p = 0; p < npe; ++p) {
      words[7 * static_cast<size_t>(p)] = float_bits(static_cast<float>(I.epe[p]));
      for (int c = 0; c < 6; ++c)
        words[7 * static_cast<size_t>(p) + 1 + c] =
            float_bits(static_cast<float>(I.vpe[6 * static_cast<size_t>(p) + c]));
    }
    uint32_t out[7];
    I.sum->reduce(words.data(), out);
    result_.energy = bits_float(out[0]);
    for (int c = 0; c < 6; ++c) result_.virial[c] = bits_float(out[1 + c]);
  }
  if (eatom) {
    result_.eatom.assign(a.size(), 0.0);
    for (int p = 0; p < npe; ++p)
      if (map_.atom_of[p] >= 0) result_.eatom[map_.atom_of[p]] = I.epe[p];
  }
  times_.pair += seconds_since(t0);
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
  const double steps = std::max<double>(1.0, static_cast<double>(counters_.steps));
  w.rebuild_interval = steps / std::max<double>(1.0, static_cast<double>(counters_.step_rebuilds));
  w.checks_per_step = counters_.steps > 0 ? static_cast<double>(counters_.checks) / steps : 1.0;
  w.remap_cycles_per_step = counters_.remap_cycles / steps;
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
      {"remap_cycles", counters_.remap_cycles}};
}

std::vector<std::string> MeshBackend::setup_notes() const {
  return {fmt::format(
      "Mesh: {} atoms on a {}x{} PE grid of the {} wafer ({}), window radius b = {} "
      "({} PEs per window), PE arithmetic {}",
      map_.pe_of.size(), map_.width, map_.height, hw_.name, map_.wrap ? "folded torus" : "no wrap", b_,
      (2 * b_ + 1) * (2 * b_ + 1), opt_.fp64 ? "fp64" : "fp32")};
}

}  // namespace wmd::md::mesh
