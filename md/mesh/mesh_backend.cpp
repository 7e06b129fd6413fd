#include "md/mesh/mesh_backend.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <limits>

#include "base/error.hpp"
#include "fabric/cost_model.hpp"
#include "md/core/boundaries.hpp"
#include "md/mesh/lattice_patches.hpp"
#include "md/mesh/mapping_upkeep.hpp"
#include "md/mesh/mesh_checkpoint.hpp"
#include "md/mesh/window_scan.hpp"

namespace wmd::md::mesh {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

bool shrink_face(Face f) {
  return f == Face::shrink || f == Face::shrink_min;
}

// A face that follows the atoms (s, m): LAMMPS fits it at every re-neighbouring (Domain::reset_box).
bool shrink_wrapped(const Box& box) {
  for (int d = 0; d < 3; ++d)
    if (shrink_face(box.face[d][0]) || shrink_face(box.face[d][1])) return true;
  return false;
}

}  // namespace

MeshBackend::MeshBackend(MeshOptions opt, const Comm* comm)
    : opt_(std::move(opt)), comm_(comm ? comm : &Comm::local()), bands_(*comm_), passes_(bands_, pes_) {
  hw_ = fabric::load_hardware(opt_.wafer);
  trigger_.configure(nb_, opt_.deterministic);
  timeline_.configure(opt_.timeline_every);
  if (opt_.audit_lists && comm_->size() > 1)
    fail_input(SourcePos{"--set", 0}, "mesh.audit checks every pair on one rank: run it without mpirun");
}

MeshBackend::~MeshBackend() = default;

void MeshBackend::setup(State& s, const potentials::EamTables& tables, const NeighborSettings& nb,
                        bool eatom) {
  tables_ = &tables;
  nb_ = nb;
  // Shrink-wrapped faces are fitted at LAMMPS's re-neighbouring steps, and the volume (and so the pressure)
  // thermo prints is the box of the last one: the global decision tells when, as in deterministic mode.
  shrink_ = shrink_wrapped(s.box);
  trigger_.configure(nb, opt_.deterministic || shrink_);
  account_.start_run();
  validate(s, tables, nb);
  cutneigh_ = tables.cutmax + nb.skin;
  passes_.configure(tables, opt_.fp64, opt_.chunk_pes);
  // The PE assignment persists between runs of one system (it lives on the wafer); a new system is mapped.
  const int64_t natoms = comm_->sum(static_cast<int64_t>(s.atoms.size()));
  // A shrink-wrapped face moves with the atoms (box fits are no new system; commands that edit the box
  // bump State::edits).
  bool same = !pe_id_.empty() && mapped_atoms_ == natoms;
  for (int d = 0; d < 3 && same; ++d)
    same = (shrink_face(s.box.face[d][0]) || box_lo_[d] == s.box.lo[d]) &&
           (shrink_face(s.box.face[d][1]) || box_hi_[d] == s.box.hi[d]);
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
  // Each run chooses its trigger from its own start, as a script read back would.
  if (!restored)
    trigger_.choose(pes_, bands_, fabric::Grid{map_.width, map_.height}, map_.wrap, b_, opt_.fp64, hw_);
  if (edited && !restored)
    charge_edit_remap(old_pe_id, old_width, old_height, pe_id_, map_, bands_.swap(), account_);
  mapped_edits_ = s.edits;
  const MeshCounters saved = account_.counters();
  forces(s, eatom);
  // The saved run counted this force pass at the step it checkpointed: the report continues, not repeats.
  if (restored) account_.set_counters(saved);
  // A restored run continues the saved timeline: the straight run had no set-up here to sample.
  if (!restored) timeline_.sample(s.step, s.time, b_, account_.counters(), true);
}

void MeshBackend::validate(const State& s, const potentials::EamTables& tables,
                           const NeighborSettings& nb) const {
  // The mesh places atoms on PEs by their x and y in an orthogonal box (the wafer's rows and columns of a
  // crystal's planes); a sheared cell would need tilted PE patches and neighbour offsets that change with
  // the tilt — not built: refused, the cluster backend runs triclinic boxes.
  if (s.box.triclinic)
    fail_input(
        SourcePos{"--backend", 0},
        "the mesh backend maps orthogonal boxes only; this box is triclinic (tilt factors xy xz yz): run "
        "it on the cluster backend");
  check_single_image(s.box, tables.cutmax + nb.skin);
  int w = 0, h = 0;
  choose_grid(comm_->sum(static_cast<int64_t>(s.atoms.size())), s.box, hw_.grid_width, hw_.grid_height,
              hw_.pe_count, hw_.name, w, h);
  if (sites_) w = map_.width, h = map_.height;  // the site patches' grid, which must fit the wafer
  if (restored_ && (w != map_.width || h != map_.height || w > hw_.grid_width || h > hw_.grid_height))
    fail_input(SourcePos{"<checkpoint>", 0},
               fmt::format("the checkpoint's PE grid is {}x{}, but this run maps onto {}x{} (another "
                           "wafer?): restart on the wafer that wrote it",
                           map_.width, map_.height, w, h));
}

void MeshBackend::compute(State& s, bool eatom, bool tally) {
  account_.step();
  if (trigger_.local()) {
    local_upkeep(s);
  } else if (trigger_.rebuild_due(s.atoms, pes_, bands_, account_)) {
    rebuild(s, false);
    account_.step_rebuild();
  }
  if (opt_.audit_lists) account_.audit(audit_lists(s, pes_, pe_id_, bands_, tables_->cutmax));
  forces(s, eatom, tally);
  timeline_.sample(s.step, s.time, b_, account_.counters(), false);
}

// The box's extent is a fabric max-reduction of six words (−x, −y, −z, x, y, z of each PE's atom) run at the
// global rebuilds; its cycles are charged with the outputs' reductions (the program does not hold it).
void MeshBackend::fit_box(State& s) {
  wrap_and_fit_box(s, *comm_);
  charge_reductions(1, 6, fabric::ReduceOp::Max);
}

void MeshBackend::charge_reductions(int n, int words, fabric::ReduceOp op) {
  if (map_.width == 0 || n <= 0) return;  // the first mapping: the grid is not chosen yet (set-up's work)
  const fabric::ScheduleSpec spec{
      fabric::ScheduleKind::Reduction, fabric::Grid{map_.width, map_.height}, 1, words, map_.wrap, op};
  account_.style_reductions(n, static_cast<double>(fabric::model_schedule(spec, hw_).cycles));
}

bool MeshBackend::map_sites(const Box& box, const AllAtoms& g, Mapping& m, int& b) {
  if (!opt_.lattice) {
    site_reason_ = "no lattice";
    return false;
  }
  PatchMapping pm;
  std::string why;
  if (!map_lattice_patches(box, *opt_.lattice, g.x.data(), g.y.data(), g.z.data(), g.size(), hw_.grid_width,
                           hw_.grid_height, cutneigh_, pm, &why)) {
    site_reason_ = why;
    return false;
  }
  m = std::move(pm.map);
  b = pm.b;
  return true;
}

void MeshBackend::remap_sites(const Box& box, const AllAtoms& g) {
  const int n = g.size();
  auto fresh = [&] {
    Mapping m;
    int b = 0;
    const bool mapped = map_sites(box, g, m, b);
    if (mapped && m.width == map_.width && m.height == map_.height) return m;
    if (mapped)
      site_reason_ = fmt::format("the sites now need a {}x{} grid, not {}x{}", m.width, m.height, map_.width,
                                 map_.height);
    sites_ = false;  // from here on the coordinate bisection, with its swaps
    return map_atoms(box, g.x.data(), g.y.data(), g.z.data(), g.id.data(), n, map_.width, map_.height);
  };
  if (remap_if_needed(map_, box, g, cutneigh_, b_, fresh, bands_.swap(), account_)) connect();
}

void MeshBackend::connect() {
  bands_.connect(map_.wrap, b_, opt_.fp64, hw_);
  account_.window(b_);
}

void MeshBackend::scan(const Box& box, const AllAtoms& g, const std::vector<char>* only) {
  scan_windows(ScanInput{box, map_, g, b_, cutneigh_, opt_.fp64}, bands_, pes_.slots, only);
}

// A global rebuild: shrink-wrapped faces are fitted to the atoms (LAMMPS's reset_box), each PE wraps its own
// atom (periodic) or reports it lost (fixed faces); the first maps the atoms afresh, later ones run a swap
// round and remap if the window no longer holds every pair; then every window is scanned from the current
// positions, which become the references.
void MeshBackend::rebuild(State& s, bool first) {
  const auto t0 = std::chrono::steady_clock::now();
  Atoms& a = s.atoms;
  const int n = static_cast<int>(a.size());
  if (shrink_) fit_box(s);
  for (int i = 0; i < n; ++i) wrap_or_lose(a, s.box, s.step, i);
  // The mapping's upkeep reads every atom: each rank runs it on the same gathered copy.
  AllAtoms g;
  bands_.gather(a, g);
  const int nall = g.size();
  if (first) {
    int w = 0, h = 0;
    choose_grid(nall, s.box, hw_.grid_width, hw_.grid_height, hw_.pe_count, hw_.name, w, h);
    planes_ = opt_.mapping == MappingKind::lattice
                  ? find_lattice_planes(s.box, g.x.data(), g.y.data(), g.z.data(), nall)
                  : LatticePlanes{};
    sites_ = opt_.mapping == MappingKind::sites && map_sites(s.box, g, map_, b_);
    if (!sites_) {
      map_ = map_atoms_lattice(s.box, g.x.data(), g.y.data(), g.z.data(), g.id.data(), nall, w, h, planes_);
      b_ = required_window(map_, s.box, g.x.data(), g.y.data(), g.z.data(), nall, cutneigh_);
    }
    bands_.tile(map_.width, map_.height);
    connect();
  } else if (sites_) {
    // Atoms keep their sites: no swaps. A window that no longer holds every pair maps the sites afresh
    // (b may grow), or, where the atoms no longer sit one per site, falls back to the coordinate bisection.
    link_gathered(map_, pe_id_, g);
    remap_sites(s.box, g);
  } else {
    link_gathered(map_, pe_id_, g);
    if (planes_.found()) {
      // The planes follow the crystal (strain, drift): per open axis five sums, in each of two passes.
      planes_ = follow_planes(planes_, map_, g);
      int open = 0;
      for (const AxisPlanes& ap : planes_.axis) open += ap.found() && ap.period == 0;
      charge_reductions(open > 0 ? 2 : 0, 5 * open, fabric::ReduceOp::Sum);
    }
    swap_round(map_, s.box, g, planes_, bands_.swap(), account_);
    auto fresh = [&] {
      return map_atoms_lattice(s.box, g.x.data(), g.y.data(), g.z.data(), g.id.data(), nall, map_.width,
                               map_.height, planes_);
    };
    if (remap_if_needed(map_, s.box, g, cutneigh_, b_, fresh, bands_.swap(), account_)) connect();
  }
  const int npe = map_.size();
  pe_id_.assign(npe, 0);
  for (int p = 0; p < npe; ++p)
    if (map_.atom_of[p] >= 0) pe_id_[p] = g.id[map_.atom_of[p]];
  mapped_atoms_ = nall;
  bands_.distribute(a, g, map_.pe_of);
  index_band(a, pe_id_, bands_, pes_);
  const int nb = bands_.band_pes();
  pes_.xhold.assign(3 * static_cast<size_t>(nb), 0.0);
  for (int q = 0; q < nb; ++q) {
    const int i = pes_.local[q];
    if (i < 0) continue;
    pes_.xhold[3 * q] = a.x[i], pes_.xhold[3 * q + 1] = a.y[i], pes_.xhold[3 * q + 2] = a.z[i];
  }
  scan(s.box, g);
  // Only the grid and wrap stay: the PE assignment lives in pe_id_ between rebuilds.
  map_.atom_of.clear(), map_.atom_of.shrink_to_fit();
  map_.pe_of.clear(), map_.pe_of.shrink_to_fit();
  trigger_.rebuilt(npe);
  account_.rebuild();
  account_.lists_built(static_cast<int64_t>(pes_.slots.src.size()));
  account_.neighbour_seconds(seconds_since(t0));
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
  bands_.tile(map_.width, map_.height);
  if (pe_id_.size() != static_cast<size_t>(npe) ||
      pes_.xhold.size() != 3 * static_cast<size_t>(bands_.band_pes()))
    throw RunError("checkpoint's mesh state does not hold one entry per PE");
  connect();
  index_band(a, pe_id_, bands_, pes_);
  int64_t placed = 0;
  for (int p = 0; p < npe; ++p) placed += pe_id_[p] != 0;
  mapped_atoms_ = placed;
  if (comm_->sum(static_cast<int64_t>(n)) != placed)
    throw RunError("checkpoint's mesh PE assignment does not hold every atom once");
  std::vector<double> cur(3 * static_cast<size_t>(n));
  const std::vector<double>& xh = pes_.xhold;
  for (int q = 0; q < bands_.band_pes(); ++q) {
    const int i = pes_.local[q];
    if (i < 0) continue;
    cur[3 * i] = a.x[i], cur[3 * i + 1] = a.y[i], cur[3 * i + 2] = a.z[i];
    a.x[i] = xh[3 * q], a.y[i] = xh[3 * q + 1], a.z[i] = xh[3 * q + 2];
  }
  AllAtoms g;
  bands_.gather(a, g);
  for (int i = 0; i < n; ++i) a.x[i] = cur[3 * i], a.y[i] = cur[3 * i + 1], a.z[i] = cur[3 * i + 2];
  const IdIndex where(g.id);
  map_.atom_of.assign(npe, -1);
  for (int p = 0; p < npe; ++p) map_.atom_of[p] = pe_id_[p] ? where.find(pe_id_[p]) : -1;
  scan(s.box, g);
  map_.atom_of.clear(), map_.atom_of.shrink_to_fit();
  account_.lists_built(static_cast<int64_t>(pes_.slots.src.size()));
  account_.neighbour_seconds(seconds_since(t0));
}

// The local rebuild criterion (rebuild_trigger.hpp; docs/fabric.md, "The mesh backend"): no PE waits for a
// global vote. The emulator reaches the PEs' decisions from the flagged PEs directly; the host-side guard
// checks the window still covers every reference pair.
void MeshBackend::local_upkeep(State& s) {
  if (!trigger_.local_check_due()) return;
  const auto t0 = std::chrono::steady_clock::now();
  Atoms& a = s.atoms;
  const int npe = map_.size(), nb = bands_.band_pes(), pe0 = bands_.pe0(), n = static_cast<int>(a.size());
  std::vector<uint32_t> flag;
  const int64_t moved = trigger_.flag_moved(a, pes_, bands_, npe, flag);
  const bool any_active = trigger_.any_active();
  // Whether anything happens anywhere is the emulator's bookkeeping (it skips the work), not a PE's input.
  if (comm_->sum(moved) == 0 && !any_active) return;
  comm_->bit_or(flag.data(), npe);
  // A flagged atom is wrapped (periodic) or reported lost (fixed faces) as its reference resets.
  for (int q = 0; q < nb; ++q) {
    const int i = pes_.local[q];
    if (i >= 0 && flag[pe0 + q]) wrap_or_lose(a, s.box, s.step, i);
  }
  // Positions (swap keys) and references (what the lists are built from) of every atom.
  AllAtoms g;
  bands_.gather(a, g);
  std::vector<double> hx(n), hy(n), hz(n);
  for (int q = 0; q < nb; ++q) {
    const int i = pes_.local[q];
    if (i >= 0) hx[i] = pes_.xhold[3 * q], hy[i] = pes_.xhold[3 * q + 1], hz[i] = pes_.xhold[3 * q + 2];
  }
  AllAtoms ref;
  ref.x = comm_->allgather(hx), ref.y = comm_->allgather(hy), ref.z = comm_->allgather(hz);
  ref.id = g.id, ref.type = g.type, ref.first = g.first;
  const int nall = g.size();
  link_gathered(map_, pe_id_, g);
  std::vector<uint32_t> swapped(npe, 0u);
  if (any_active && !sites_)
    swap_round(map_, s.box, g, planes_, bands_.swap(), account_, &trigger_.active(), &swapped);
  for (int p = 0; p < npe; ++p) {
    flag[p] |= swapped[p];
    const int k = map_.atom_of[p];
    if (flag[p] && k >= 0) ref.x[k] = g.x[k], ref.y[k] = g.y[k], ref.z[k] = g.z[k];
  }
  // The host-side guard: every pair within cutoff + skin of the references inside the window.
  if (required_window(map_, s.box, ref.x.data(), ref.y.data(), ref.z.data(), nall, cutneigh_) > b_) {
    account_.guard_miss();
    if (!opt_.guard_report_only) {  // a global rebuild from the current positions (remap, b may grow)
      account_.neighbour_seconds(seconds_since(t0));
      rebuild(s, false);
      account_.rescan_step(npe);
      return;
    }
  }
  for (int p = 0; p < npe; ++p)
    if (map_.atom_of[p] >= 0) pe_id_[p] = g.id[map_.atom_of[p]];
  bands_.distribute(a, g, map_.pe_of);
  index_band(a, pe_id_, bands_, pes_);
  for (int q = 0; q < nb; ++q) {
    const int i = pes_.local[q];
    if (i >= 0 && flag[pe0 + q])
      pes_.xhold[3 * q] = a.x[i], pes_.xhold[3 * q + 1] = a.y[i], pes_.xhold[3 * q + 2] = a.z[i];
  }
  int64_t rescans = 0;
  const std::vector<char> rescan = trigger_.rescan_set(flag, bands_, b_, rescans);
  scan(s.box, ref, &rescan);
  map_.atom_of.clear(), map_.atom_of.shrink_to_fit();
  map_.pe_of.clear(), map_.pe_of.shrink_to_fit();
  trigger_.checked(flag);
  account_.rescan_step(comm_->sum(rescans));
  account_.lists_built(static_cast<int64_t>(pes_.slots.src.size()));
  account_.neighbour_seconds(seconds_since(t0));
}

void MeshBackend::forces(State& s, bool eatom, bool tally) {
  const auto t0 = std::chrono::steady_clock::now();
  const StepLoad load = passes_.step(s.box, s.atoms, b_, tally, eatom, result_);
  account_.force_pass(load.busiest_cand, load.busiest_cut, load.busiest_zbl);
  account_.comm_seconds(load.halo_seconds);
  account_.pair_seconds(seconds_since(t0) - load.halo_seconds);
}

void MeshBackend::charge(const MeshWork& work) {
  if (work.reductions <= 0 || map_.width == 0) return;
  // Each reduction combines its share of the values, one 32-bit word each (the PEs' fp32). A share beyond one
  // schedule's payload (a compute that gathers every atom's values, counted as one sum) goes in several.
  int64_t n = work.reductions;
  int64_t words = std::max<int64_t>(1, (static_cast<int64_t>(work.words) + n - 1) / n);
  if (words > fabric::kMaxPayloadWords) {
    const int64_t pieces = (words + fabric::kMaxPayloadWords - 1) / fabric::kMaxPayloadWords;
    n *= pieces;
    words = (words + pieces - 1) / pieces;
  }
  const fabric::ScheduleSpec spec{fabric::ScheduleKind::Reduction,
                                  fabric::Grid{map_.width, map_.height},
                                  1,
                                  static_cast<int>(words),
                                  map_.wrap,
                                  fabric::ReduceOp::Sum};
  account_.style_reductions(static_cast<int>(std::min<int64_t>(n, std::numeric_limits<int>::max())),
                            static_cast<double>(fabric::model_schedule(spec, hw_).cycles));
}

StepWork MeshBackend::step_shape() const {
  StepWork w;
  w.grid = fabric::Grid{map_.width, map_.height};
  w.wrap = map_.wrap;
  w.b = b_;
  w.position_words = opt_.fp64 ? 6 : 3;
  w.fp_words = opt_.fp64 ? 2 : 1;
  w.swap_words = kSwapWords;
  w.zbl = tables_ && tables_->zbl.active();
  w.local_trigger = trigger_.local();
  return w;
}

StepCycles MeshBackend::step_cycles() const {
  return account_.step_cycles(step_shape(), hw_);
}

nlohmann::json MeshBackend::fabric_json() const {
  nlohmann::json j = account_.report(step_shape(), hw_);
  j["wafer"] = hw_.name;
  j["grid"] = {map_.width, map_.height};
  j["window_b"] = b_;
  j["wrap"] = map_.wrap;
  j["precision"] = opt_.fp64 ? "fp64" : "fp32";
  j["deterministic"] = opt_.fp64;  // fp64 PEs sum in ascending global id: the cluster's deterministic order
  j["rebuild_trigger"] = trigger_.name();
  j["mapping"] = sites_ ? "sites" : opt_.mapping == MappingKind::lattice ? "lattice" : "bisection";
  if (opt_.mapping == MappingKind::sites && !sites_) j["site_mapping_left"] = site_reason_;
  if (opt_.audit_lists) {
    j["audit_steps"] = account_.counters().audit_steps;
    j["audit_missing_pairs"] = account_.counters().audit_missing;
  }
  j["lattice_planes"] = {planes_.axis[0].centre.size(), planes_.axis[1].centre.size(),
                         planes_.axis[2].centre.size()};
  if (timeline_.active() && tables_) {
    // Priced with the potential's tables in the PE's memory, as `wafermd model` prices a program.
    StepWork shape = step_shape();
    shape.tables = table_shape(*tables_);
    shape.one_species = tables_->ntypes <= 1;
    j["timeline"] = timeline_.report(shape, hw_, account_.counters());
  }
  return j;
}

std::vector<std::string> MeshBackend::setup_notes() const {
  std::string mapping = "coordinate bisection";
  if (sites_) {
    mapping = "lattice sites (each cell column on a patch of PEs)";
  } else if (planes_.found()) {
    const char* axis = "xyz";
    std::string which;
    for (int d = 0; d < 3; ++d)
      which += fmt::format("{}{} {}", which.empty() ? "" : ", ", planes_.axis[d].centre.size(), axis[d]);
    mapping = "lattice planes (" + which + ")";
  }
  if (opt_.mapping == MappingKind::sites && !sites_) mapping += " (lattice sites: " + site_reason_ + ")";
  return {
      fmt::format("Mesh: {} atoms on a {}x{} PE grid of the {} wafer ({}), window radius b = {} "
                  "({} PEs per window), PE arithmetic {}, mapped by {}",
                  mapped_atoms_, map_.width, map_.height, hw_.name, map_.wrap ? "folded torus" : "no wrap",
                  b_, (2 * b_ + 1) * (2 * b_ + 1), opt_.fp64 ? "fp64" : "fp32", mapping)};
}

// Every rank writes the whole PE assignment and its band's hold positions (restarts run on the same rank
// count, which the checkpoint reader enforces, so each rank takes back its own copy).
NamedArrays MeshBackend::save_state() const {
  MeshCheckpoint c;
  c.width = map_.width, c.height = map_.height, c.wrap = map_.wrap;
  c.pe_atom_id = pe_id_;
  c.window_b = b_;
  c.precision = opt_.fp64 ? 64 : 32;
  c.ago = trigger_.ago();
  c.xhold = pes_.xhold;
  c.active = trigger_.active();
  c.local_trigger = trigger_.local_choice();
  c.counters = account_.counters();
  c.planes = planes_;
  c.sites = sites_;
  if (timeline_.active()) c.timeline = timeline_.state();
  return checkpoint_arrays(c);
}

void MeshBackend::restore_state(const NamedArrays& state) {
  MeshCheckpoint c;  // what an older layout lacks keeps its value
  c.active = trigger_.active();
  c.local_trigger = trigger_.local_choice();
  c.counters = account_.counters();
  read_checkpoint(state, opt_.fp64 ? 64 : 32, c);
  map_.width = c.width, map_.height = c.height, map_.wrap = c.wrap;
  // The saved run's planes key its swaps and remaps from here on (mesh.mapping bisection: none).
  planes_ = opt_.mapping == MappingKind::lattice ? c.planes : LatticePlanes{};
  sites_ = opt_.mapping == MappingKind::sites && c.sites;
  pe_id_ = c.pe_atom_id;
  b_ = c.window_b;
  if (c.mapping_only) {
    // read_restart: the atoms stay on the PEs they held when the file was written (the wafer keeps them
    // between runs), and the next set-up rebuilds from there as the run after the written one would have.
    for (int d = 0; d < 3; ++d) box_lo_[d] = c.box_lo[d], box_hi_[d] = c.box_hi[d];
    mapped_atoms_ = 0;
    for (const int64_t id : pe_id_) mapped_atoms_ += id != 0;
    mapped_edits_ = 0;
    bands_.tile(map_.width, map_.height);
    connect();
    return;
  }
  trigger_.set_ago(c.ago);
  pes_.xhold = c.xhold;
  trigger_.set_active(c.active);
  trigger_.set_local_choice(c.local_trigger);
  account_.set_counters(c.counters);
  // A timeline the settings ask for continues from the saved samples (a malformed one starts over).
  if (timeline_.active() && !c.timeline.empty() && !timeline_.set_state(c.timeline))
    throw RunError("checkpoint's mesh state 'timeline' is malformed");
  restored_ = true;
}

WMD_BACKEND("mesh", kNoBackendTraits, [](const BackendArgs& a) -> std::unique_ptr<Backend> {
  MeshOptions o;
  o.wafer = a.settings.mesh_wafer, o.fp64 = a.settings.mesh_precision == "fp64";
  o.deterministic = a.settings.deterministic;
  o.mapping = a.settings.mesh_mapping == "bisection" ? MappingKind::bisection
              : a.settings.mesh_mapping == "sites"   ? MappingKind::sites
                                                     : MappingKind::lattice;
  o.lattice = a.lattice;
  o.audit_lists = a.settings.mesh_audit;
  o.timeline_every = a.settings.mesh_timeline_every;
  return std::make_unique<MeshBackend>(o, a.comm);
})

}  // namespace wmd::md::mesh
