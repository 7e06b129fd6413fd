// H5MD trajectories (output.trajectory and `dump … h5md`): per-atom arrays gathered to rank 0 in id order,
// box edges, observables; rank 0 writes one file.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "base/units.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

// Rank 0 gets every rank's values concatenated in rank order; without MPI, the local values.
template <class T>
std::vector<T> gather_to_root(const Comm* comm, const std::vector<T>& local) {
  return comm ? comm->gather(local) : local;
}

// Reorders rows of `width` values by `order`.
template <class T>
std::vector<T> permute(const std::vector<T>& v, const std::vector<size_t>& order, size_t width) {
  std::vector<T> out(v.size());
  for (size_t k = 0; k < order.size(); ++k)
    for (size_t c = 0; c < width; ++c) out[width * k + c] = v[width * order[k] + c];
  return out;
}

}  // namespace

void Simulation::add_observable(const std::string& name, const std::string& unit,
                                std::function<double()> value) {
  for (auto& o : observables_) {
    if (o.name == name) {
      o.unit = unit, o.value = std::move(value);
      return;
    }
  }
  observables_.push_back(Observable{name, unit, std::move(value)});
}

void Simulation::open_trajectories() {
  const Comm* c = &comm;
  const bool root = c->root();
  const int64_t natoms =
      c ? c->sum(static_cast<int64_t>(state.atoms.size())) : static_cast<int64_t>(state.atoms.size());
  for (H5mdDump& h : h5md) {
    if (h.opened) continue;
    int64_t last = -1;
    if (root) {
      io::H5mdSetup setup;
      setup.path = h.file;
      setup.fields = h.fields;
      setup.natoms = natoms;
      for (int d = 0; d < 3; ++d) setup.periodic[d] = state.box.periodic(d);
      if (!h.author.empty()) setup.author = h.author;
      setup.creator_version = WAFERMD_VERSION;
      setup.input_name = input_name_;
      setup.input_text = input_text_;
      h.writer = std::make_unique<io::H5mdWriter>();
      if (restart_step_ >= 0) {
        const int64_t kept = h.writer->reopen(setup, restart_step_);
        const auto rec = restart_frames_.find(h.id.empty() ? std::string("output.trajectory") : h.id);
        if (rec != restart_frames_.end() && rec->second != kept) {
          log.line(
              fmt::format("WARNING: {} holds {} frames up to the checkpoint, which recorded {}; appending",
                          h.file, kept, rec->second));
        }
      } else {
        h.writer->create(setup);
      }
      last = h.writer->last_step();
    }
    if (c) c->broadcast(&last, 1);
    h.last_step = last;
    h.opened = true;
  }
}

void Simulation::write_trajectories(bool force_all) {
  for (H5mdDump& h : h5md) {
    if (!h.opened) continue;
    if (!force_all && state.step % h.every != 0) continue;
    if (state.step <= h.last_step) continue;  // written already (a run's set-up step, or before a restart)
    io::H5mdFrame f = gather_frame(h);
    if (h.writer) h.writer->write_frame(f);
    h.last_step = state.step;
  }
}

io::H5mdFrame Simulation::gather_frame(const H5mdDump& h) {
  const Comm* c = &comm;
  const Atoms& a = state.atoms;
  const size_t n = a.size();
  auto has = [&](const char* f) {
    return f == std::string("position") || std::count(h.fields.begin(), h.fields.end(), f) > 0;
  };
  io::H5mdFrame fr;
  fr.step = state.step;
  fr.time = state.time;
  for (int d = 0; d < 3; ++d) fr.edges[d] = state.box.prd(d);
  fr.tilt[0] = state.box.xy, fr.tilt[1] = state.box.xz, fr.tilt[2] = state.box.yz;
  const std::vector<int64_t> ids = gather_to_root(c, a.id);
  std::vector<size_t> order(ids.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t p, size_t q) { return ids[p] < ids[q]; });
  auto vec3 = [&](const std::vector<double>& x, const std::vector<double>& y, const std::vector<double>& z) {
    std::vector<double> local(3 * n);
    for (size_t i = 0; i < n; ++i) local[3 * i] = x[i], local[3 * i + 1] = y[i], local[3 * i + 2] = z[i];
    return permute(gather_to_root(c, local), order, 3);
  };
  if (has("position")) fr.position = vec3(a.x, a.y, a.z);
  if (has("velocity")) fr.velocity = vec3(a.vx, a.vy, a.vz);
  if (has("force")) fr.force = vec3(a.fx, a.fy, a.fz);
  if (has("image")) {
    std::vector<int> local(3 * n);
    for (size_t i = 0; i < n; ++i)
      local[3 * i] = a.ix[i], local[3 * i + 1] = a.iy[i], local[3 * i + 2] = a.iz[i];
    fr.image = permute(gather_to_root(c, local), order, 3);
  }
  if (has("species")) fr.species = permute(gather_to_root(c, a.type), order, 1);
  if (has("id")) fr.id = permute(ids, order, 1);
  // Built-in observables from the thermo keywords, then those other code registered.
  ThermoContext ctx{&state, forces_current ? &backend->result() : nullptr, 0.0, run_start_step, false};
  const struct {
    const char *name, *keyword, *unit;
  } thermo_obs[] = {{"temperature", "temp", "K"},
                    {"potential_energy", "pe", "eV"},
                    {"kinetic_energy", "ke", "eV"},
                    {"total_energy", "etotal", "eV"},
                    {"pressure", "press", "bar"}};
  for (const auto& t : thermo_obs) {
    double v = 0.0;
    thermo_value(t.keyword, ctx, v);
    fr.observables.push_back(io::H5mdObservable{t.name, t.unit, v});
  }
  for (const auto& o : observables_) fr.observables.push_back(io::H5mdObservable{o.name, o.unit, o.value()});
  return fr;
}

}  // namespace wmd::md
