// `replicate nx ny nz [bbox]`: the system copied nx·ny·nz times, as LAMMPS does it: positions unwrapped by
// their image flags, shifted by whole old box lengths and remapped into the new box; replica (i, j, k) of
// atom `id` gets id + (k·ny·nx + j·nx + i)·maxid; the copies follow LAMMPS's loop (i outermost, old atoms in
// LAMMPS's order innermost), which fixes their place in its order.
#include <fmt/format.h>

#include <algorithm>

#include "base/memory_budget.hpp"
#include "md/core/lammps_order.hpp"
#include "md/core/lattice.hpp"
#include "md/run/command_registry.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

void cmd_replicate(Simulation& sim, const io::Command& c) {
  sim.require_box(c);
  io::ArgCursor a(c);
  int n[3];
  for (int d = 0; d < 3; ++d)
    n[d] = static_cast<int>(a.integer(std::string("the copies along ") + "xyz"[d], 1, 1000000));
  while (!a.done()) {
    const std::string key = a.choice("a replicate keyword", {"bbox", "bondlist"});
    if (key == "bondlist") a.fail("replicate bondlist needs bonds; wafermd's atom_style is atomic");
  }
  const int64_t nrep = static_cast<int64_t>(n[0]) * n[1] * n[2];
  Box& box = sim.state.box;
  for (int d = 0; d < 3; ++d)
    if (n[d] > 1 && !box.periodic(d) && !sim.dry_run)
      sim.log.line(std::string("WARNING: replicating in the non-periodic ") + "xyz"[d] + " direction");
  const int64_t maxtag = sim.comm.max(sim.state.atoms.max_id());
  const int64_t nold = sim.natoms();
  if (maxtag + (nrep - 1) * nold > 2147483647LL)
    a.fail(
        fmt::format("replicate would make atom ids up to {}, above 2147483647", maxtag + (nrep - 1) * nold));
  // Each rank keeps its share of the copies (an even share is what a rank must at least hold): the budget
  // is asked before millions of atoms are built rather than failing inside.
  memory::check_allocation(
      fmt::format("replicate to {} atoms", nrep * nold),
      static_cast<double>(nrep) * static_cast<double>(nold) * kAtomBytes / sim.comm.size(), a.pos());

  // Every rank builds every copy from all atoms (in LAMMPS's order) and keeps those it owns.
  Atoms& at = sim.state.atoms;
  std::vector<double> packed(at.size() * Atoms::kPackSize);
  for (size_t i = 0; i < at.size(); ++i) at.pack(i, packed.data() + i * Atoms::kPackSize);
  const std::vector<double> all_packed = sim.comm.allgather(packed);
  Atoms old;
  for (size_t k = 0; k + Atoms::kPackSize <= all_packed.size(); k += Atoms::kPackSize)
    old.unpack(&all_packed[k]);
  std::vector<int> by_order(old.size());
  for (size_t k = 0; k < old.size(); ++k) by_order[k] = static_cast<int>(k);
  std::sort(by_order.begin(), by_order.end(), [&old](int p, int q) { return old.order[p] < old.order[q]; });

  double prd[3];
  const Box old_box = box;
  for (int d = 0; d < 3; ++d) {
    prd[d] = box.prd(d);
    box.hi[d] = box.lo[d] + n[d] * prd[d];
    box.min_lo[d] = box.lo[d], box.min_hi[d] = box.hi[d];
  }
  // A triclinic box: the tilts grow with the copies along the second direction (LAMMPS's xy·ny, xz·nz,
  // yz·nz), copies are placed by the old edge vectors and judged in fractional coordinates.
  const bool tri = box.triclinic;
  box.xy *= n[1], box.xz *= n[2], box.yz *= n[2];
  const std::string bad = triclinic_box_problem(box);
  if (!bad.empty()) a.fail("replicate: " + bad);
  // LAMMPS admits copies within a millionth of the box beyond the periodic faces (round-off).
  double sublo[3], subhi[3];
  for (int d = 0; d < 3; ++d) {
    sublo[d] = tri ? 0.0 : box.lo[d], subhi[d] = tri ? 1.0 : box.hi[d];
    const double eps = tri ? 1.0e-6 : box.prd(d) * 1.0e-6;
    if (box.periodic(d)) sublo[d] -= eps, subhi[d] += eps;
  }
  sim.set_decomposition(c);
  Atoms fresh;
  int64_t created = 0;
  const std::vector<int>* img_old[3] = {&old.ix, &old.iy, &old.iz};
  const std::vector<double>* pos_old[3] = {&old.x, &old.y, &old.z};
  for (int ix = 0; ix < n[0]; ++ix)
    for (int iy = 0; iy < n[1]; ++iy)
      for (int iz = 0; iz < n[2]; ++iz) {
        const int rep[3] = {ix, iy, iz};
        const int64_t offset =
            (static_cast<int64_t>(iz) * n[1] * n[0] + static_cast<int64_t>(iy) * n[0] + ix) * maxtag;
        const int64_t rep_index = (static_cast<int64_t>(ix) * n[1] + iy) * n[2] + iz;
        for (int k : by_order) {
          double x[3];
          int image[3] = {0, 0, 0};
          double c[3];  // the coordinates judged against the bounds: fractional on a triclinic box
          if (tri) {
            // Domain::unmap in place (x += h·image), the copy's shift, then Domain::remap.
            const int im[3] = {old.ix[k], old.iy[k], old.iz[k]};
            const Box& o = old_box;
            x[0] = old.x[k] + (o.prd(0) * im[0] + o.xy * im[1] + o.xz * im[2]);
            x[1] = old.y[k] + (o.prd(1) * im[1] + o.yz * im[2]);
            x[2] = old.z[k] + o.prd(2) * im[2];
            x[0] = x[0] + ix * prd[0] + iy * o.xy + iz * o.xz;
            x[1] = x[1] + iy * prd[1] + iz * o.yz;
            x[2] = x[2] + iz * prd[2];
            remap_point(box, x, image);
            box.to_lamda(x, c);
          } else {
            for (int d = 0; d < 3; ++d) {
              // Domain::unmap, the shift, then Domain::remap (while loops and the lower clamp).
              x[d] = (*pos_old[d])[k] + (*img_old[d])[k] * prd[d];
              x[d] = x[d] + rep[d] * prd[d];
              if (box.periodic(d)) {
                while (x[d] < box.lo[d]) x[d] += box.prd(d), --image[d];
                while (x[d] >= box.hi[d]) x[d] -= box.prd(d), ++image[d];
                x[d] = std::max(x[d], box.lo[d]);
              }
              c[d] = x[d];
            }
          }
          if (c[0] < sublo[0] || c[0] >= subhi[0] || c[1] < sublo[1] || c[1] >= subhi[1] || c[2] < sublo[2] ||
              c[2] >= subhi[2])
            continue;
          ++created;
          if (!sim.decomp.owns(box, x[0], x[1], x[2])) continue;
          fresh.add(old.id[k] + offset, old.type[k], x[0], x[1], x[2], rep_index * nold + old.order[k]);
          fresh.vx.back() = old.vx[k], fresh.vy.back() = old.vy[k], fresh.vz.back() = old.vz[k];
          fresh.ix.back() = image[0], fresh.iy.back() = image[1], fresh.iz.back() = image[2];
          fresh.mask.back() = old.mask[k];
        }
      }
  if (created != nrep * nold)
    a.fail(fmt::format("replicate placed {} of {} atoms: atoms lie outside the non-periodic faces of the box",
                       created, nrep * nold));
  at = std::move(fresh);
  ++sim.state.edits;
  sim.forces_current = false;
  if (!sim.dry_run) {
    sim.log.line(fmt::format("Replicating atoms ...\n  {}x{}x{} = {} times larger system, {} atoms", n[0],
                             n[1], n[2], nrep, created));
  }
}

}  // namespace

WMD_COMMAND("replicate", cmd_replicate, kNoFlags)

}  // namespace wmd::md
