// Checkpoints and restarts: everything later arithmetic depends on, gathered in rank order (so a restart on
// the same rank count restores each rank's atom order), written by rank 0 through io/checkpoint; on restart
// rank 0 reads, broadcasts, and each rank keeps its own atoms.
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <sstream>
#include <stdexcept>

#include "md/run/checkpoint_check.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

template <class T>
std::vector<T> gather_all(const Comm* c, const std::vector<T>& v) {
  return c ? c->gather(v) : v;
}

template <class T, class U>
std::vector<T> convert(const std::vector<U>& v) {
  return std::vector<T>(v.begin(), v.end());
}

std::string join_lines(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : "\n") + x;
  return s;
}

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> v;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) v.push_back(l);
  return v;
}

// Named arrays of every rank under `prefix`/name, concatenated in rank order with per-rank counts.
void put_ranked(io::CheckpointData& d, const Comm* c, const std::string& prefix, const NamedArrays& mine) {
  for (const auto& [name, v] : mine) {
    const auto all = gather_all(c, v);
    const auto counts = gather_all(c, std::vector<int64_t>{static_cast<int64_t>(v.size())});
    d.reals[prefix + "/" + name] = all;
    d.ints[prefix + "/" + name + ".counts"] = counts;
  }
}

// This rank's slice of the arrays put_ranked wrote under `prefix`.
NamedArrays take_ranked(const io::CheckpointData& d, const std::string& prefix, int rank) {
  NamedArrays out;
  const std::string p = prefix + "/";
  for (const auto& [key, v] : d.reals) {
    if (key.compare(0, p.size(), p) != 0) continue;
    const std::string name = key.substr(p.size());
    if (name.find('/') != std::string::npos) continue;
    auto c = d.ints.find(key + ".counts");
    if (c == d.ints.end() || rank >= static_cast<int>(c->second.size())) continue;
    int64_t off = 0;
    for (int r = 0; r < rank; ++r) off += c->second[r];
    out[name].assign(v.begin() + off, v.begin() + off + c->second[rank]);
  }
  return out;
}

}  // namespace

NamedArrays Simulation::ranked_arrays(const io::CheckpointData& d, const std::string& prefix, int rank) {
  return take_ranked(d, prefix, rank);
}

std::string Simulation::physics_hash() const {
  std::string text = physics_text_;
  text +=
      "backend=" + settings.backend + "\ndeterministic=" + (settings.deterministic ? "1" : "0") +
      "\nprecision=" + (settings.backend == "mesh" ? settings.mesh_precision : settings.cluster_precision) +
      "\nskin=" + (settings.neighbor_skin ? fmt::format("{}", *settings.neighbor_skin) : "input") + "\n";
  return io::fnv1a_hex(text);
}

void Simulation::record_physics(const io::Command& c, bool physics) {
  if (physics) physics_text_ += c.text + "\n";
}

void Simulation::write_checkpoint() {
  const io::CheckpointData d = checkpoint_data();
  if (comm.root())
    io::write_checkpoint(
        settings.output_dir.empty() ? "checkpoint.h5" : settings.output_dir + "/checkpoint.h5", d);
  comm.barrier();
  last_checkpoint_step_ = state.step;
}

io::CheckpointData Simulation::checkpoint_data() const {
  const Comm* c = &comm;
  const Atoms& a = state.atoms;
  io::CheckpointData d;
  d.texts["meta/physics_hash"] = physics_hash();
  d.texts["meta/backend"] = backend->name();
  d.texts["meta/wafermd_version"] = WAFERMD_VERSION;
  d.texts["meta/input_file"] = input_name_;
  d.texts["meta/input"] = input_text_;
  d.ints["meta/step"] = {state.step};
  d.ints["meta/run_index"] = {runs_started_};
  d.ints["meta/ranks"] = {c ? c->size() : 1};
  d.ints["meta/ntypes"] = {state.ntypes};
  d.reals["meta/time"] = {state.time};
  d.reals["meta/dt"] = {state.dt};
  d.reals["types/mass"] = state.mass;
  d.reals["box/lo"] = {state.box.lo[0], state.box.lo[1], state.box.lo[2]};
  d.reals["box/hi"] = {state.box.hi[0], state.box.hi[1], state.box.hi[2]};
  d.reals["box/min_lo"] = {state.box.min_lo[0], state.box.min_lo[1], state.box.min_lo[2]};
  d.reals["box/min_hi"] = {state.box.min_hi[0], state.box.min_hi[1], state.box.min_hi[2]};
  d.reals["box/tilt"] = {state.box.xy, state.box.xz, state.box.yz, state.box.triclinic ? 1.0 : 0.0,
                         state.box.tilt_large ? 1.0 : 0.0};
  d.texts["groups/names"] = join_lines(state.group_names);
  // Where `balance` moved the cuts: which rank owns which atoms, and so the bits of the sums that follow.
  for (int k = 0; k < 3; ++k) d.reals[std::string("decomposition/cuts_") + "xyz"[k]] = decomp.cuts(k);
  // Per-atom arrays in rank order, with each rank's count.
  d.ints["atoms/rank_counts"] = gather_all(c, std::vector<int64_t>{static_cast<int64_t>(a.size())});
  int64_t natoms = 0;
  for (int64_t k : d.ints["atoms/rank_counts"]) natoms += k;
  d.ints["meta/natoms"] = {natoms};
  const std::pair<const char*, const std::vector<double>*> reals[] = {
      {"x", &a.x},   {"y", &a.y},   {"z", &a.z},   {"vx", &a.vx}, {"vy", &a.vy},
      {"vz", &a.vz}, {"fx", &a.fx}, {"fy", &a.fy}, {"fz", &a.fz}};
  for (const auto& [name, v] : reals) d.reals[std::string("atoms/") + name] = gather_all(c, *v);
  d.ints["atoms/id"] = gather_all(c, a.id);
  d.ints["atoms/type"] = convert<int64_t>(gather_all(c, a.type));
  d.ints["atoms/ix"] = convert<int64_t>(gather_all(c, a.ix));
  d.ints["atoms/iy"] = convert<int64_t>(gather_all(c, a.iy));
  d.ints["atoms/iz"] = convert<int64_t>(gather_all(c, a.iz));
  d.ints["atoms/mask"] = convert<int64_t>(gather_all(c, a.mask));
  d.ints["atoms/order"] = gather_all(c, a.order);
  d.ints["lammps_order/next_sort"] = {atom_sort.next_step};  // a continued run keeps the sort schedule
  put_ranked(d, c, "backend", backend->save_state());
  std::string fix_ids;
  for (const auto& fp : fixes) {
    const Fix& f = *fp;
    fix_ids += (fix_ids.empty() ? "" : "\n") + f.id();
    d.texts["fixes/" + f.id() + "/style"] = f.style();
    NamedArrays state_of_fix;
    f.save_state(state_of_fix);
    put_ranked(d, c, "fixes/" + f.id(), state_of_fix);
  }
  d.texts["fixes/ids"] = fix_ids;
  // Computes whose later values depend on the past (msd's, vacf's and displace/atom's reference positions,
  // voronoi/atom's occupation sites), as LAMMPS keeps them in its restart files through their fix STORE.
  std::string compute_ids;
  for (const auto& cp : computes) {
    NamedArrays state_of_compute;
    cp->save_state(state_of_compute);
    if (!c->any(!state_of_compute.empty())) continue;  // collective: every rank has the computes
    compute_ids += (compute_ids.empty() ? "" : "\n") + cp->id();
    d.texts["computes/" + cp->id() + "/style"] = cp->style();
    put_ranked(d, c, "computes/" + cp->id(), state_of_compute);
  }
  d.texts["computes/ids"] = compute_ids;
  if (cascade.defects) {
    for (const auto& [k, v] : cascade.defects->save_state()) d.reals["cascade/defects/" + k] = v;
  }
  if (cascade.report.is_object()) d.texts["cascade/report"] = cascade.report.dump();
  d.texts["cascade/element"] = cascade.element;
  d.reals["cascade/stop_time"] = {cascade.stop_time};
  for (const H5mdDump& h : h5md) {
    const std::string key = "output/trajectory/" + (h.id.empty() ? std::string("output.trajectory") : h.id);
    d.ints[key + "/frames"] = {h.writer ? h.writer->frames() : 0};
    d.ints[key + "/last_step"] = {h.last_step};
  }
  return d;
}

const io::CheckpointData& Simulation::restart_data(const SourcePos& at) {
  if (!restart_data_) restart_data_ = std::make_unique<io::CheckpointData>(read_broadcast(restart_path_, at));
  return *restart_data_;
}

io::CheckpointData Simulation::read_broadcast(const std::string& path, const SourcePos& at) const {
  const Comm* c = &comm;
  io::CheckpointData d;
  // Rank 0 reads; a file it cannot use fails every rank with its message (the others would otherwise wait in
  // the broadcast below for ever).
  std::string problem;
  if (!c || c->root()) {
    try {
      d = io::read_checkpoint(path, at);
    } catch (const InputError& e) {
      problem = e.message();
    } catch (const std::exception& e) {
      problem = "cannot read checkpoint '" + path + "': " + e.what();
    }
  }
  if (c) c->broadcast(problem);
  if (!problem.empty()) fail_input(at, problem);
  if (c) {
    std::vector<char> bytes = (c->root() ? d.to_bytes() : std::vector<char>{});
    uint64_t nbytes = bytes.size();
    c->broadcast(&nbytes, 1);
    bytes.resize(nbytes);
    c->broadcast(bytes.data(), nbytes);
    if (!c->root()) d = io::CheckpointData::from_bytes(bytes);
  }
  // Every rank holds the same data, so every rank refuses it alike (none is left waiting).
  check_checkpoint(d, "checkpoint '" + path + "'", at);
  return d;
}

bool Simulation::skip_or_load_restart(const SourcePos& at) {
  ++runs_started_;
  if (!restart_pending()) return false;
  // Checkpoints from before the run index was recorded were written in the input's first run.
  const auto& ints = restart_data(at).ints;
  const auto it = ints.find("meta/run_index");
  const int64_t written_in = it == ints.end() || it->second.empty() ? 1 : it->second[0];
  if (runs_started_ < written_in) {
    // Runs before the checkpoint's are skipped (their results are in it).
    if (!dry_run)
      log.line(fmt::format("Restart: skipping run {} of the input (the checkpoint was written during run {})",
                           runs_started_, written_in));
    return true;
  }
  load_checkpoint(at);
  return false;
}

void Simulation::load_checkpoint(const SourcePos& at) {
  const Comm* c = &comm;
  restart_data(at);
  const io::CheckpointData d = std::move(*restart_data_);
  restart_data_.reset();
  const std::string what = "checkpoint '" + restart_path_ + "'";
  auto text = [&](const std::string& k) {
    auto it = d.texts.find(k);
    if (it == d.texts.end()) fail_input(at, what + " lacks " + k);
    return it->second;
  };
  auto ints = [&](const std::string& k) -> const std::vector<int64_t>& {
    auto it = d.ints.find(k);
    if (it == d.ints.end()) fail_input(at, what + " lacks " + k);
    return it->second;
  };
  auto reals = [&](const std::string& k) -> const std::vector<double>& {
    auto it = d.reals.find(k);
    if (it == d.reals.end()) fail_input(at, what + " lacks " + k);
    return it->second;
  };
  const int ranks = c ? c->size() : 1;
  if (text("meta/backend") != backend->name())
    fail_input(at, what + " was written by the " + text("meta/backend") + " backend; this run uses " +
                       backend->name());
  if (ints("meta/ranks")[0] != ranks)
    fail_input(at, what + " was written on " + std::to_string(ints("meta/ranks")[0]) +
                       " MPI ranks; restart on the same number (this run has " + std::to_string(ranks) + ")");
  if (ints("meta/ntypes")[0] != state.ntypes)
    fail_input(at, what + " has " + std::to_string(ints("meta/ntypes")[0]) +
                       " atom types; the input defines " + std::to_string(state.ntypes));
  if (text("meta/physics_hash") != physics_hash())
    fail_input(at, what +
                       " does not match this input: the physics (box, atoms, potential, fixes, neighbour "
                       "settings, timestep) differs from the run that wrote it (hash " +
                       text("meta/physics_hash") + ", this input " + physics_hash() + ")");
  const int64_t natoms = ints("meta/natoms")[0];
  if (static_cast<int64_t>(reals("atoms/x").size()) != natoms ||
      static_cast<int64_t>(ints("atoms/id").size()) != natoms)
    fail_input(at, what + " is inconsistent: atom arrays do not hold meta/natoms atoms");
  state.step = ints("meta/step")[0];
  state.time = reals("meta/time")[0];
  state.dt = reals("meta/dt")[0];
  state.mass = reals("types/mass");
  for (int k = 0; k < 3; ++k) {
    state.box.lo[k] = reals("box/lo")[k], state.box.hi[k] = reals("box/hi")[k];
    state.box.min_lo[k] = reals("box/min_lo")[k], state.box.min_hi[k] = reals("box/min_hi")[k];
  }
  restore_box_tilt(d, state.box);  // a checkpoint of an orthogonal box may have none
  state.group_names = split_lines(text("groups/names"));
  if (d.ints.count("lammps_order/next_sort") && !d.ints.at("lammps_order/next_sort").empty())
    atom_sort.next_step = d.ints.at("lammps_order/next_sort")[0];
  for (int k = 0; k < 3; ++k) {
    // Checkpoints from before `balance` have none: uniform cuts, as their runs had.
    const auto it = d.reals.find(std::string("decomposition/cuts_") + "xyz"[k]);
    if (it == d.reals.end() || it->second == decomp.cuts(k)) continue;
    const std::vector<double>& v = it->second;
    const bool uniform = v.size() >= 2 && v == Decomposition::uniform_cuts(static_cast<int>(v.size()) - 1);
    if (uniform && v.size() != decomp.cuts(k).size()) continue;  // another grid, never balanced: allowed
    try {
      decomp.set_cuts(k, v);
    } catch (const std::invalid_argument&) {
      fail_input(at, what + " was balanced with " + std::to_string(v.size() - 1) + " sub-domains along " +
                         "xyz"[k] + "; restart on the same grid (this run's is " + decomp.grid_text() + ")");
    }
  }
  keep_my_restored_atoms(d, c ? c->rank() : 0);
  {
    // Every atom's, not only this rank's: the set-up may migrate atoms between ranks.
    const std::vector<int64_t>& id = ints("atoms/id");
    const std::vector<double>&fx = reals("atoms/fx"), &fy = reals("atoms/fy"), &fz = reals("atoms/fz");
    restart_forces_.clear();
    restart_forces_.reserve(id.size());
    for (size_t k = 0; k < id.size(); ++k) restart_forces_[id[k]] = {fx[k], fy[k], fz[k]};
    restart_dt_ = state.dt;
    continuing_run_ = true;
  }
  const int rank = c ? c->rank() : 0;
  backend->restore_state(take_ranked(d, "backend", rank));
  // Each style checks its own state (FixStateReader); every rank learns whether any refused it, so that none
  // goes on into a collective call while another ends, and reports the first refusing rank's own message (it
  // names the style and the key).
  auto restore_checked = [&](const std::function<void()>& restore) {
    std::string problem;
    try {
      restore();
    } catch (const InputError& e) {
      problem = e.message();
    }
    if (c ? c->any(!problem.empty()) : !problem.empty()) {
      if (c) {
        const int64_t first = c->min(static_cast<int64_t>(problem.empty() ? c->size() : rank));
        const std::string mine = rank == first ? problem : std::string();
        const std::vector<char> all = c->allgather(std::vector<char>(mine.begin(), mine.end()));
        problem.assign(all.begin(), all.end());
      }
      fail_input(at, what + ": " + problem);
    }
  };
  const auto saved_fixes = split_lines(text("fixes/ids"));
  for (auto& fp : fixes) {
    Fix& f = *fp;
    if (std::find(saved_fixes.begin(), saved_fixes.end(), f.id()) == saved_fixes.end())
      fail_input(at, what + " has no state for fix '" + f.id() + "'");
    restore_checked([&] { f.restore_state(take_ranked(d, "fixes/" + f.id(), rank)); });
  }
  // Checkpoints from before computes had state hold none: those computes start again, as they did then.
  const auto saved_computes =
      d.texts.count("computes/ids") ? split_lines(d.texts.at("computes/ids")) : std::vector<std::string>{};
  for (auto& cp : computes) {
    if (std::find(saved_computes.begin(), saved_computes.end(), cp->id()) == saved_computes.end()) continue;
    restore_checked([&] { cp->restore_state(take_ranked(d, "computes/" + cp->id(), rank)); });
  }
  // A cascade continues with the reference lattice, samples and PKA of the run that wrote the checkpoint
  // (when the input is re-run, `defects` and `cascade` have acted on the state before it was loaded).
  const std::string dk = "cascade/defects/";
  NamedArrays defects;
  for (const auto& [key, v] : d.reals)
    if (key.compare(0, dk.size(), dk) == 0) defects[key.substr(dk.size())] = v;
  if (cascade.defects && !defects.empty()) cascade.defects->restore_state(defects);
  if (d.texts.count("cascade/report")) cascade.report = nlohmann::json::parse(d.texts.at("cascade/report"));
  if (d.texts.count("cascade/element")) cascade.element = d.texts.at("cascade/element");
  if (d.reals.count("cascade/stop_time")) cascade.stop_time = d.reals.at("cascade/stop_time").at(0);
  const std::string traj = "output/trajectory/";
  for (const auto& [key, v] : d.ints) {
    if (key.compare(0, traj.size(), traj) == 0 && key.size() > 7 && key.substr(key.size() - 7) == "/frames" &&
        !v.empty())
      restart_frames_[key.substr(traj.size(), key.size() - traj.size() - 7)] = v[0];
  }
  forces_current = false;
  restart_loaded_ = true;
  restart_step_ = state.step;
  last_checkpoint_step_ = state.step;
  if (!dry_run)
    log.line(fmt::format("Restarting from {} at step {} (time {} ps, {} atoms)", restart_path_, state.step,
                         state.time, natoms));
}

void Simulation::keep_my_restored_atoms(const io::CheckpointData& d, int rank) {
  const auto& counts = d.ints.at("atoms/rank_counts");
  int64_t off = 0;
  for (int r = 0; r < rank; ++r) off += counts[r];
  const int64_t n = counts[rank];
  Atoms a;
  auto r = [&](const char* k) { return d.reals.at(std::string("atoms/") + k); };
  auto i = [&](const char* k) { return d.ints.at(std::string("atoms/") + k); };
  const auto x = r("x"), y = r("y"), z = r("z"), vx = r("vx"), vy = r("vy"), vz = r("vz"), fx = r("fx"),
             fy = r("fy"), fz = r("fz");
  const auto id = i("id"), type = i("type"), ix = i("ix"), iy = i("iy"), iz = i("iz"), mask = i("mask");
  // Checkpoints written before the LAMMPS order was kept restore it from the ids.
  const auto order_it = d.ints.find("atoms/order");
  const std::vector<int64_t> none;
  const std::vector<int64_t>& order = order_it == d.ints.end() ? none : order_it->second;
  for (int64_t k = off; k < off + n; ++k) {
    a.add(id[k], static_cast<int>(type[k]), x[k], y[k], z[k], order.empty() ? -1 : order[k]);
    a.vx.back() = vx[k], a.vy.back() = vy[k], a.vz.back() = vz[k];
    a.fx.back() = fx[k], a.fy.back() = fy[k], a.fz.back() = fz[k];
    a.ix.back() = static_cast<int>(ix[k]), a.iy.back() = static_cast<int>(iy[k]),
    a.iz.back() = static_cast<int>(iz[k]);
    a.mask.back() = static_cast<uint32_t>(mask[k]);
  }
  state.atoms = std::move(a);
}

}  // namespace wmd::md
