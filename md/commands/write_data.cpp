// `write_data file [nocoeff] [nofix] [pair ii|ij]`: the state as a LAMMPS data file, atoms by id, written by
// rank 0.
#include <algorithm>

#include "io/lammps_data.hpp"
#include "md/core/boundaries.hpp"
#include "md/run/command_registry.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

void cmd_write_data(Simulation& sim, const io::Command& c) {
  sim.require_box(c);
  io::ArgCursor a(c);
  const std::string path = a.word("a data file name");
  while (!a.done()) {
    const std::string key = a.choice("a write_data keyword", {"nocoeff", "nofix", "pair"});
    if (key == "pair") a.word("ii or ij");
  }
  // LAMMPS's write_data first applies pbc and reset_box to the system itself: atoms are wrapped into the box
  // and shrink-wrapped faces fitted to them, so the file's box holds its atoms and the run goes on from
  // there.
  if (wrap_and_fit_box(sim.state, sim.comm)) ++sim.state.edits;
  // Rows gathered to rank 0, which writes them by id.
  constexpr int kCols = 11;
  const Atoms& at = sim.state.atoms;
  std::vector<double> rows;
  rows.reserve(kCols * at.size());
  for (size_t i = 0; i < at.size(); ++i) {
    const double p[3] = {at.x[i], at.y[i], at.z[i]};
    const int im[3] = {at.ix[i], at.iy[i], at.iz[i]};
    rows.insert(rows.end(), {static_cast<double>(at.id[i]), static_cast<double>(at.type[i]), p[0], p[1], p[2],
                             static_cast<double>(im[0]), static_cast<double>(im[1]),
                             static_cast<double>(im[2]), at.vx[i], at.vy[i], at.vz[i]});
  }
  const std::vector<double> all = sim.comm.gather(rows);
  const std::string out = sim.dry_written(path);  // collective: the dry run's scratch directory
  if (!sim.comm.root()) return;
  io::DataFile d;
  d.timestep = sim.state.step;
  d.ntypes = sim.state.ntypes;
  for (int k = 0; k < 3; ++k) d.lo[k] = sim.state.box.lo[k], d.hi[k] = sim.state.box.hi[k];
  d.triclinic = sim.state.box.triclinic;
  d.xy = sim.state.box.xy, d.xz = sim.state.box.xz, d.yz = sim.state.box.yz;
  d.mass = sim.state.mass;
  const size_t n = all.size() / kCols;
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t p, size_t q) { return all[kCols * p] < all[kCols * q]; });
  d.has_velocities = true;
  for (size_t i : order) {
    const double* r = &all[kCols * i];
    d.id.push_back(static_cast<int64_t>(r[0])), d.type.push_back(static_cast<int>(r[1]));
    d.x.push_back(r[2]), d.y.push_back(r[3]), d.z.push_back(r[4]);
    d.ix.push_back(static_cast<int>(r[5])), d.iy.push_back(static_cast<int>(r[6])),
        d.iz.push_back(static_cast<int>(r[7]));
    d.vx.push_back(r[8]), d.vy.push_back(r[9]), d.vz.push_back(r[10]);
  }
  // The dry run writes into its scratch directory: a read_data of this name later in the script reads it.
  if (!io::write_lammps_data(out, d)) throw RunError("cannot write data file '" + path + "'");
}

}  // namespace

WMD_COMMAND("write_data", cmd_write_data, kNoPhysics)

}  // namespace wmd::md
