// compute stress/atom temp-ID|NULL [ke] [pair] [virial]: each group atom's stress tensor times its volume,
// −(m v_a v_b + W_ab) in bar·Å³ (xx yy zz xy xz yz), as LAMMPS compute stress/atom: the kinetic part from
// the atom's velocity, the pair part half of r_ij ⊗ f_ij summed over its EAM neighbours (LAMMPS's
// per-atom virial; with pair_style hybrid/overlay … zbl, or zbl alone, also the ZBL pairs'). Summed over all
// atoms and divided by 3V it gives the pressure. A temperature compute
// with a bias (temp/partial, temp/com, temp/region) is refused: its bias would be removed from the kinetic
// part. 0 outside the group.
#include <cmath>
#include <unordered_map>

#include "base/units.hpp"
#include "md/styles/compute.hpp"
#include "md/styles/computes/all_neighbors.hpp"

namespace wmd::md {
namespace {

class ComputeStressAtom : public Compute {
 public:
  ComputeStressAtom(const ComputeArgs& c, bool ke, bool pair)
      : Compute(c.id, c.style, c.group), ke_(ke), pair_(pair) {}
  OutputShape shape() const override { return {false, 0, 6, false}; }

  void compute_peratom(const ComputeContext& c) override {
    invoked_peratom = c.s.step;
    const Atoms& a = c.s.atoms;
    peratom_.assign(6 * a.size(), 0.0);
    if (pair_ && c.tables) pair_virial(c);
    for (size_t i = 0; i < a.size(); ++i) {
      double* s = &peratom_[6 * i];
      if (!in_group(a, i)) {
        for (int k = 0; k < 6; ++k) s[k] = 0.0;
        continue;
      }
      if (ke_) {
        const double m = units::mvv2e * c.s.mass[a.type[i]];
        const double v[3] = {a.vx[i], a.vy[i], a.vz[i]};
        s[0] += m * v[0] * v[0], s[1] += m * v[1] * v[1], s[2] += m * v[2] * v[2];
        s[3] += m * v[0] * v[1], s[4] += m * v[0] * v[2], s[5] += m * v[1] * v[2];
      }
      for (int k = 0; k < 6; ++k) s[k] *= -units::nktv2p;
    }
  }

 private:
  // LAMMPS pair eam's forces, pair by pair, each atom taking half of r_ij ⊗ f_ij (del = x_i − x_j).
  void pair_virial(const ComputeContext& c) {
    const potentials::EamTables& t = *c.tables;
    const Atoms& a = c.s.atoms;
    const AllNeighbors nb(c.s, c.comm, t.cutmax);
    // F'(ρ) of every atom (a neighbour's is needed too): this rank's, then all ranks' by id.
    struct Fp {
      int64_t id;
      double fp;
    };
    std::vector<Fp> mine(a.size());
    for (size_t i = 0; i < a.size(); ++i) {
      double rho = 0.0;
      nb.for_each(c.s, i, [&](const AllNeighbors::Site& p, double, double, double, double rsq) {
        rho += t.density(p.type, a.type[i], std::sqrt(rsq));
      });
      mine[i] = {a.id[i], t.embed_deriv(a.type[i], rho)};
    }
    std::unordered_map<int64_t, double> fp;
    for (const Fp& f : c.comm.allgather(mine)) fp[f.id] = f.fp;
    for (size_t i = 0; i < a.size(); ++i) {
      double* s = &peratom_[6 * i];
      const int ti = a.type[i];
      const double fpi = mine[i].fp;
      nb.for_each(c.s, i, [&](const AllNeighbors::Site& p, double dx, double dy, double dz, double rsq) {
        const double r = std::sqrt(rsq);
        double rhoip = 0.0, rhojp = 0.0, phip = 0.0;
        t.density(ti, p.type, r, &rhoip);
        t.density(p.type, ti, r, &rhojp);
        t.pair(ti, p.type, r, &phip);
        double fpair = -(fpi * rhojp + fp.at(p.id) * rhoip + phip) / r;
        // The ZBL sub-style's pairs (hybrid/overlay … zbl, or zbl alone) add their own virial.
        if (t.zbl.active() && rsq < t.zbl.outer_sq) {
          double fz;
          potentials::zbl_pair(t.zbl.at(ti, p.type), t.zbl.inner, t.zbl.inner_sq, rsq, fz);
          fpair += fz;
        }
        // del = x_i − x_j = −d
        const double h = 0.5 * fpair;
        s[0] += h * dx * dx, s[1] += h * dy * dy, s[2] += h * dz * dz;
        s[3] += h * dx * dy, s[4] += h * dx * dz, s[5] += h * dy * dz;
      });
    }
  }

  bool ke_, pair_;
};

std::unique_ptr<Compute> make(const ComputeArgs& c) {
  const std::string temp = c.a.word("a temperature compute ID or NULL");
  if (temp != "NULL") {
    const Compute* t = c.ctx.styles ? c.ctx.styles->compute(temp) : nullptr;
    if (!t) c.a.fail("compute stress/atom: compute " + temp + " does not exist");
    if (!t->is_temperature()) c.a.fail("compute stress/atom: compute " + temp + " is not a temperature");
    if (t->has_bias())
      c.a.fail("compute stress/atom: the temperature compute " + temp +
               " has a velocity bias, which is not supported (use NULL or an unbiased temperature)");
  }
  bool ke = true, pair = true;
  if (!c.a.done()) {
    ke = pair = false;
    while (!c.a.done()) {
      const std::string k = c.a.word("a keyword");
      if (k == "ke") {
        ke = true;
      } else if (k == "pair" || k == "virial") {
        pair = true;
      } else if (k == "bond" || k == "angle" || k == "dihedral" || k == "improper" || k == "kspace" ||
                 k == "fix") {
        // atom_style atomic, EAM, and no fix adds a virial: these parts are zero
      } else {
        c.a.fail("compute stress/atom: keyword '" + k +
                 "' is not supported (ke, pair, bond, angle, dihedral, improper, kspace, fix, virial)");
      }
    }
  }
  return std::make_unique<ComputeStressAtom>(c, ke, pair);
}

}  // namespace

WMD_COMPUTE_STYLE("stress/atom", make)

}  // namespace wmd::md
