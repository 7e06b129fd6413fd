// LAMMPS's write_restart, read_restart and `restart N` with wafermd's own restart files: the checkpoint
// format (md/run/checkpoint_state.cpp), read back as LAMMPS reads a restart — box, boundary, atom types and
// masses, groups, atoms with velocities and image flags, step, time and timestep — after which the script
// defines the potential, fixes and outputs again. A run continued this way repeats, bit for bit, the run the
// same input would have made without stopping: the next `run`'s set-up rebuilds everything else from these.
#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "base/root_read.hpp"
#include "md/run/checkpoint_check.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

std::string expand_step(std::string name, int64_t step) {
  const size_t star = name.find('*');
  if (star != std::string::npos) name.replace(star, 1, std::to_string(step));
  return name;
}

// LAMMPS's binary restart files begin with this magic string (read_restart.cpp, MAGIC_STRING).
bool is_lammps_restart(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[16] = {};
  in.read(head, 15);
  return std::memcmp(head, "LammpS RestartT", 15) == 0;
}

}  // namespace

void Simulation::write_restart_file(const std::string& path) {
  // A '*' in the name is the step (the two-file form has none: LAMMPS overwrites the pair in turn).
  io::CheckpointData d = checkpoint_data();
  std::string faces;
  for (int k = 0; k < 3; ++k)
    faces += std::string(k ? " " : "") + static_cast<char>(state.box.face[k][0]) +
             static_cast<char>(state.box.face[k][1]);
  d.texts["box/boundary"] = faces;
  std::string file = expand_step(path, state.step);
  if (dry_run) file = dry_restart_path(file);
  if (comm.root()) io::write_checkpoint(file, d);
  comm.barrier();
}

void Simulation::schedule_restarts() {
  RestartOutput& r = restart_output;
  if (!r.var_single.empty())
    r.next_single = output_step_from(r.var_single, r.pos_single, "restart v_" + r.var_single,
                                     "Restart variable returned a bad timestep");
  if (!r.var_double.empty())
    r.next_double = output_step_from(r.var_double, r.pos_double, "restart v_" + r.var_double,
                                     "Restart variable returned a bad timestep");
}

void Simulation::write_restarts_due() {
  // Steps that are multiples of N, never a run's first (LAMMPS's next_restart), or a variable's steps.
  RestartOutput& r = restart_output;
  if (state.step == run_start_step) return;
  const bool single = r.var_single.empty() ? r.every_single > 0 && state.step % r.every_single == 0
                                           : state.step == r.next_single;
  const bool twin = r.var_double.empty() ? r.every_double > 0 && state.step % r.every_double == 0
                                         : state.step == r.next_double;
  if (single) write_restart_file(r.single);
  if (twin) {
    write_restart_file(r.pair[r.next]);
    r.next = 1 - r.next;
  }
  if (single && !r.var_single.empty())
    r.next_single = output_step_from(r.var_single, r.pos_single, "restart v_" + r.var_single,
                                     "Restart variable returned a bad timestep");
  if (twin && !r.var_double.empty())
    r.next_double = output_step_from(r.var_double, r.pos_double, "restart v_" + r.var_double,
                                     "Restart variable returned a bad timestep");
}

std::string Simulation::dry_restart_path(const std::string& file) {
  if (dry_restart_dir_.empty()) {
    if (comm.root()) {
      std::string tmpl = (std::filesystem::temp_directory_path() / "wafermd-dry-XXXXXX").string();
      if (!mkdtemp(tmpl.data()))
        throw RunError("cannot make a scratch directory for the dry run's restart files");
      dry_restart_dir_ = tmpl;
    }
    comm.broadcast(dry_restart_dir_);
  }
  std::string name;
  for (char ch : file) name += ch == '/' ? '_' : ch;  // one flat name per path
  return dry_restart_dir_ + "/" + name;
}

// LAMMPS's read_restart of a name with '*': the existing file whose '*' stands for the largest timestep
// (the name itself when none matches, so the error names it).
static std::string latest_restart(const std::string& pattern) {
  const size_t star = pattern.find('*');
  if (star == std::string::npos) return pattern;
  const std::filesystem::path p(pattern);
  const std::string dir = p.has_parent_path() ? p.parent_path().string() : ".";
  const std::string name = p.filename().string();
  const size_t nstar = name.find('*');
  const std::string head = name.substr(0, nstar), tail = name.substr(nstar + 1);
  std::error_code ec;
  long long best = -1;
  std::string found = pattern;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string f = e.path().filename().string();
    if (f.size() <= head.size() + tail.size() || f.compare(0, head.size(), head) != 0 ||
        f.compare(f.size() - tail.size(), tail.size(), tail) != 0)
      continue;
    const std::string mid = f.substr(head.size(), f.size() - head.size() - tail.size());
    if (mid.empty() || mid.find_first_not_of("0123456789") != std::string::npos) continue;
    const long long step = std::stoll(mid);
    if (step > best) best = step, found = e.path().string();
  }
  return found;
}

std::string Simulation::dry_readable(const std::string& file) {
  if (!dry_run || dry_restart_dir_.empty()) return file;
  const std::string scratch = dry_restart_path(file);
  // Rank 0 wrote the scratch copy and reads the file (base/root_read.hpp): it decides which one.
  return read_on_root("the dry run's copy of '" + file + "'",
                      [&] { return std::filesystem::exists(scratch) ? scratch : file; });
}

void Simulation::read_restart_file(const std::string& given, const SourcePos& at) {
  // The dry run reads what its own write_restart made of that name, if it made one.
  const std::string scratch_pattern = dry_run && !dry_restart_dir_.empty() ? dry_restart_path(given) : "";
  // Rank 0 picks the file (its directory, its scratch copies) and reads it (read_broadcast): the others take
  // its choice and its refusal (base/root_read.hpp).
  const std::string path = read_on_root("restart file '" + given + "'", [&] {
    std::string found = latest_restart(given);
    if (!scratch_pattern.empty()) {
      const std::string scratch = latest_restart(scratch_pattern);
      if (std::filesystem::exists(scratch)) found = scratch;
    }
    if (is_lammps_restart(found))
      fail_input(at, "'" + found +
                         "' is a LAMMPS binary restart file, which wafermd cannot read: convert it with "
                         "`lmp -r2data " +
                         found + " data.file` and use read_data data.file");
    return found;
  });
  const io::CheckpointData d = read_broadcast(path, at);
  const std::string what = "restart file '" + given + "'";
  auto ints = [&](const std::string& k) -> const std::vector<int64_t>& {
    auto it = d.ints.find(k);
    if (it == d.ints.end() || it->second.empty()) fail_input(at, what + " lacks " + k);
    return it->second;
  };
  auto reals = [&](const std::string& k) -> const std::vector<double>& {
    auto it = d.reals.find(k);
    if (it == d.reals.end() || it->second.empty()) fail_input(at, what + " lacks " + k);
    return it->second;
  };
  const int64_t natoms = ints("meta/natoms")[0];
  for (const char* k : {"atoms/x", "atoms/y", "atoms/z", "atoms/vx", "atoms/vy", "atoms/vz"})
    if (static_cast<int64_t>(reals(k).size()) != natoms) fail_input(at, what + " is inconsistent: " + k);
  for (const char* k : {"atoms/id", "atoms/type", "atoms/ix", "atoms/iy", "atoms/iz", "atoms/mask"})
    if (static_cast<int64_t>(ints(k).size()) != natoms) fail_input(at, what + " is inconsistent: " + k);
  state.step = ints("meta/step")[0];
  // LAMMPS's restart files do not carry the elapsed time: after read_restart `time` is step·dt until a run
  // starts and counts from 0 at that run's first step (a native checkpoint continuation, --restart, keeps
  // it).
  state.time = 0.0;
  state.time_lag_from = 0;
  state.dt = reals("meta/dt")[0];
  state.ntypes = static_cast<int>(ints("meta/ntypes")[0]);
  state.mass = reals("types/mass");
  if (static_cast<int>(state.mass.size()) != state.ntypes + 1)
    fail_input(at, what + " is inconsistent: types/mass");
  Box& b = state.box;
  for (int k = 0; k < 3; ++k) {
    b.lo[k] = reals("box/lo")[k], b.hi[k] = reals("box/hi")[k];
    b.min_lo[k] = reals("box/min_lo")[k], b.min_hi[k] = reals("box/min_hi")[k];
  }
  restore_box_tilt(d, b);
  const auto faces = d.texts.find("box/boundary");
  if (faces != d.texts.end()) {
    std::istringstream w(faces->second);
    for (int k = 0; k < 3; ++k) {
      std::string f;
      w >> f;
      if (f.size() != 2) fail_input(at, what + " is inconsistent: box/boundary");
      b.face[k][0] = static_cast<Face>(f[0]), b.face[k][1] = static_cast<Face>(f[1]);
    }
  }
  // LAMMPS's read_restart calls set_initial_box on the box it reads: the shrink-wrap margin (1e-4 of the
  // initial length) is taken from that box, not from the one the writing script created. wafermd keeps that
  // length as min_lo..min_hi, which 'm' faces also use as their bounds: those keep the stored ones.
  for (int k = 0; k < 3; ++k)
    if (b.face[k][0] != Face::shrink_min && b.face[k][1] != Face::shrink_min)
      b.min_lo[k] = b.lo[k], b.min_hi[k] = b.hi[k];
  b.defined = true;
  {
    std::vector<std::string> names;
    std::istringstream in(d.texts.count("groups/names") ? d.texts.at("groups/names") : "all");
    for (std::string l; std::getline(in, l);) names.push_back(l);
    state.group_names = names;
  }
  const auto sort = d.ints.find("lammps_order/next_sort");
  if (sort != d.ints.end() && !sort->second.empty()) atom_sort.next_step = sort->second[0];
  set_decomposition(io::Command{"read_restart", {path}, at, ""});
  // The cuts `balance` had moved decide which rank sums which atoms: kept when the grid is the same.
  for (int k = 0; k < 3; ++k) {
    const auto it = d.reals.find(std::string("decomposition/cuts_") + "xyz"[k]);
    if (it == d.reals.end() || it->second.size() != decomp.cuts(k).size()) continue;
    try {
      decomp.set_cuts(k, it->second);
    } catch (const std::invalid_argument&) {
    }
  }
  const int64_t saved_ranks = ints("meta/ranks")[0];
  if (saved_ranks == comm.size()) {
    // The same rank count: each rank takes back its atoms in their saved order, as the run that wrote
    // them held them (the sums of the next run then add in the same order).
    keep_my_restored_atoms(d, comm.rank());
  } else {
    // Another rank count: every rank keeps the atoms its sub-domain owns (the next set-up migrates any
    // stragglers).
    Atoms a;
    const auto &x = reals("atoms/x"), &y = reals("atoms/y"), &z = reals("atoms/z");
    const auto &vx = reals("atoms/vx"), &vy = reals("atoms/vy"), &vz = reals("atoms/vz");
    const auto &id = ints("atoms/id"), &type = ints("atoms/type"), &mask = ints("atoms/mask");
    const auto &ix = ints("atoms/ix"), &iy = ints("atoms/iy"), &iz = ints("atoms/iz");
    const auto order = d.ints.find("atoms/order");
    for (int64_t k = 0; k < natoms; ++k) {
      if (!decomp.owns(b, x[k], y[k], z[k])) continue;
      a.add(id[k], static_cast<int>(type[k]), x[k], y[k], z[k],
            order == d.ints.end() ? -1 : order->second[k]);
      a.vx.back() = vx[k], a.vy.back() = vy[k], a.vz.back() = vz[k];
      a.ix.back() = static_cast<int>(ix[k]), a.iy.back() = static_cast<int>(iy[k]),
      a.iz.back() = static_cast<int>(iz[k]);
      a.mask.back() = static_cast<uint32_t>(mask[k]);
    }
    state.atoms = std::move(a);
  }
  // Fix states, and compute states (msd's, vacf's, displace/atom's references: LAMMPS's fix STORE of such a
  // compute), taken back by fixes and computes defined later with the same ID and style.
  restart_fix_states = saved_states(d, "fixes", saved_ranks);
  restart_compute_states = saved_states(d, "computes", saved_ranks);
  for (int64_t t : ints("atoms/type"))
    if (t < 1 || t > state.ntypes) fail_input(at, what + " is inconsistent: an atom type out of range");
  // The mesh keeps each atom on its PE between runs: the same backend on the same ranks takes back the
  // PE assignment, so the next run sums in the order the uninterrupted one would have. (The cluster
  // backend rebuilds everything at a run's set-up from the atoms alone.)
  const auto saved_backend = d.texts.find("meta/backend");
  if (backend->name() == "mesh" && saved_backend != d.texts.end() && saved_backend->second == "mesh" &&
      saved_ranks == comm.size()) {
    NamedArrays st = ranked_arrays(d, "backend", comm.rank());
    // Another precision maps alike but sums other bits: nothing to keep then.
    const auto prec = st.find("precision");
    const double bits = settings.mesh_precision == "fp64" ? 64 : 32;
    if (prec != st.end() && prec->second.size() == 1 && prec->second[0] == bits) {
      st["wafermd_mapping_only"] = {b.lo[0], b.lo[1], b.lo[2], b.hi[0], b.hi[1], b.hi[2]};
      backend->restore_state(st);
    }
  }
  forces_current = false;
  if (!dry_run)
    log.line(fmt::format("Reading restart file {} (step {}, {} atoms, {} atom types)", path, state.step,
                         natoms, state.ntypes));
}

RestartStates Simulation::saved_states(const io::CheckpointData& d, const std::string& kind,
                                       int saved_ranks) const {
  RestartStates out;
  const auto list = d.texts.find(kind + "/ids");
  if (list == d.texts.end()) return out;
  std::istringstream ids(list->second);
  for (std::string id; std::getline(ids, id);) {
    const auto style = d.texts.find(kind + "/" + id + "/style");
    if (id.empty() || style == d.texts.end()) continue;
    NamedArrays mine = ranked_arrays(d, kind + "/" + id, saved_ranks == comm.size() ? comm.rank() : 0);
    bool empty = true;
    for (const auto& [k, v] : ranked_arrays(d, kind + "/" + id, 0)) empty = empty && v.empty();
    if (saved_ranks != comm.size() && !empty)
      mine = {{"wafermd_restart_ranks", {static_cast<double>(saved_ranks)}}};
    out[id] = {style->second, mine};
  }
  return out;
}

void Simulation::take_restart_state(RestartStates& states, const std::string& kind, const std::string& id,
                                    const std::string& style, io::ArgCursor& a,
                                    const std::function<void(const NamedArrays&)>& restore) {
  const auto saved = states.find(id);
  if (saved == states.end() || saved->second.first != style) return;
  const NamedArrays& st = saved->second.second;
  if (st.count("wafermd_restart_ranks"))
    a.fail(kind + " " + id + ": its state in the restart file was written on " +
           std::to_string(static_cast<int>(st.at("wafermd_restart_ranks")[0])) +
           " MPI ranks; read it back on as many ranks (or give the " + kind +
           " another ID to start it afresh)");
  try {
    restore(st);
  } catch (const InputError& e) {
    a.fail("the restart file's state of " + kind + " " + id + " is refused: " + e.message());
  }
  states.erase(saved);
}

}  // namespace wmd::md
