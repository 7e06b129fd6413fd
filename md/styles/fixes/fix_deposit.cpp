// fix deposit N type M seed region ID [id max|next] [global lo hi] [local lo hi delta] [near R] [attempt Q]
// [rate V] [vx lo hi] [vy lo hi] [vz lo hi] [target x y z] [units lattice|box], as LAMMPS fix deposit for
// single atoms: every M steps, N times in all, one atom of the type is inserted at a random point of the
// region (static, with a bounding box inside the simulation box), tried up to Q times until it lies farther
// than R from every atom. The random sequence is LAMMPS's: RanPark with the seed, the same on every rank, so
// the positions, velocities and ids equal lmp's at any rank count. The atom joins rank 0's atoms before the
// step's forces and the backend re-neighbours at that step (LAMMPS's pre_exchange and next_reneighbor),
// migrating it to its owner. No outputs (as the 29 Sep 2021 LAMMPS). Molecules (mol) are refused; the
// cluster backend only. On a triclinic box the region's bounding box must lie in the box's bounding box,
// distances take LAMMPS's triclinic minimum image, and an atom LAMMPS would create on no processor (its
// fractional coordinates outside the box) stops the run with exit 2, where LAMMPS stops with "Lost atoms".
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "md/core/random_park.hpp"
#include "md/styles/fix.hpp"
#include "md/styles/fix_state_reader.hpp"
#include "md/styles/style_args.hpp"

namespace wmd::md {
namespace {

struct DepositSpec {
  int64_t ninsert = 0, nfreq = 1;
  int type = 1, seed = 1;
  Region region;
  double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};  // the region's bounding box
  bool id_next = false, global = false, local = false, rated = false, targeted = false;
  double vlo = 0.0, vhi = 0.0, deltasq = 0.0, nearsq = 0.0, rate = 0.0;  // vlo/vhi: global/local lo hi
  int max_attempt = 10;
  double v[3][2] = {{0, 0}, {0, 0}, {0, 0}};
  double target[3] = {0, 0, 0};
};

class FixDeposit : public Fix {
 public:
  FixDeposit(const FixArgs& f, const DepositSpec& p, int64_t max_tag)
      : Fix(f.id, f.style, f.group), p_(p), rng_(p.seed), at_(f.a.pos()) {
    // LAMMPS warms the generator up 30 draws so that consecutive seeds give uncorrelated first positions.
    for (int i = 0; i < 30; ++i) rng_.uniform();
    next_ = f.ctx.s.step + 1;
    first_ = next_ - p_.nfreq;
    max_tag_ = max_tag;
  }
  bool time_dependent() const override { return true; }
  bool keeps_restart_state() const override { return true; }  // LAMMPS writes it to restart files
  bool reads_energy() const override { return false; }
  unsigned backends() const override { return kOnCluster; }

  void setup(FixContext& c) override {
    // LAMMPS's setup_pre_exchange: the next insertion on the fix's own schedule.
    next_ = inserted_ < p_.ninsert ? first_ + ((c.s.step - first_) / p_.nfreq) * p_.nfreq + p_.nfreq : 0;
  }

  bool pre_exchange(FixContext& c) override {
    if (next_ != c.s.step) return false;
    const State& s = c.s;
    const Atoms& a = s.atoms;
    const double offset = p_.rated ? static_cast<double>(s.step - first_) * s.dt * p_.rate : 0.0;
    if (!p_.id_next) max_tag_ = max_id(c);
    bool success = false;
    double coord[3], vnew[3];
    for (int attempt = 0; attempt < p_.max_attempt && !success; ++attempt) {
      do {
        for (int d = 0; d < 3; ++d) coord[d] = p_.lo[d] + rng_.uniform() * (p_.hi[d] - p_.lo[d]);
      } while (!p_.region.match(coord[0], coord[1], coord[2]));
      coord[2] += offset;
      if (p_.global || p_.local) {
        // lo..hi above the highest atom (local: the highest within delta laterally).
        double top = s.box.lo[2];
        for (size_t i = 0; i < a.size(); ++i) {
          if (p_.local) {
            double dx = coord[0] - a.x[i], dy = coord[1] - a.y[i];
            if (s.box.triclinic) {
              double dz = 0.0;
              s.box.minimum_image(dx, dy, dz);
            } else {
              min_image(s.box, 0, dx), min_image(s.box, 1, dy);
            }
            if (dx * dx + dy * dy > p_.deltasq) continue;
          }
          top = std::max(top, a.z[i]);
        }
        top = c.comm.max(top);
        coord[2] = top + p_.vlo + rng_.uniform() * (p_.vhi - p_.vlo);
      }
      int near = 0;
      for (size_t i = 0; i < a.size() && !near; ++i) {
        double d[3] = {coord[0] - a.x[i], coord[1] - a.y[i], coord[2] - a.z[i]};
        if (s.box.triclinic)
          s.box.minimum_image(d[0], d[1], d[2]);
        else
          for (int k = 0; k < 3; ++k) min_image(s.box, k, d[k]);
        near = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] < p_.nearsq;
      }
      c.comm.max(&near, 1);
      if (near) continue;
      for (int d = 0; d < 3; ++d) vnew[d] = p_.v[d][0] + rng_.uniform() * (p_.v[d][1] - p_.v[d][0]);
      if (p_.targeted) {
        const double speed = std::sqrt(vnew[0] * vnew[0] + vnew[1] * vnew[1] + vnew[2] * vnew[2]);
        const double del[3] = {p_.target[0] - coord[0], p_.target[1] - coord[1], p_.target[2] - coord[2]};
        const double rsq = del[0] * del[0] + del[1] * del[1] + del[2] * del[2];
        if (rsq > 0.0) {
          const double rinv = std::sqrt(1.0 / rsq);
          for (int d = 0; d < 3; ++d) vnew[d] = del[d] * rinv * speed;
        }
      }
      success = true;
    }
    if (success && s.box.triclinic && !created_in_triclinic_box(s.box, coord))
      fail_input(at_, "fix deposit " + id_ +
                          fmt::format(": the atom to insert at ({:.6g}, {:.6g}, {:.6g})", coord[0], coord[1],
                                      coord[2]) +
                          " lies outside the triclinic box in fractional coordinates; LAMMPS creates it on "
                          "no processor and stops with \"Lost atoms\" (keep the deposition region inside "
                          "the box)");
    if (success) {
      // One-rank LAMMPS appends the atom after all others: its place in that order is the atom count.
      const int64_t slot = c.comm.sum(static_cast<int64_t>(a.size()));
      if (c.comm.root()) {
        Atoms& at = c.s.atoms;
        at.add(max_tag_ + 1, p_.type, coord[0], coord[1], coord[2], slot);
        at.mask.back() = 1u | group_;
        at.vx.back() = vnew[0], at.vy.back() = vnew[1], at.vz.back() = vnew[2];
      }
      ++max_tag_;
      ++inserted_;
    } else if (warn_ && c.styles) {
      c.styles->print_line("WARNING: Particle deposition was unsuccessful");
      warn_ = false;
    }
    next_ = inserted_ < p_.ninsert ? next_ + p_.nfreq : 0;
    return true;  // LAMMPS re-neighbours at every insertion step, a failed one too (next_reneighbor)
  }

  void save_state(FixStateMap& out) const override {
    out["deposit"] = {static_cast<double>(rng_.state()), static_cast<double>(inserted_),
                      static_cast<double>(first_), static_cast<double>(next_), static_cast<double>(max_tag_)};
  }
  void restore_state(const FixStateMap& in) override {
    // Checked before use: a Park-Miller seed in [1, 2^31-2], counts and steps integers in range.
    const FixStateReader r(in, *this);
    const std::vector<double>* v = r.sized("deposit", {5});
    if (!v) return;
    const int64_t seed = r.integer(*v, 0, "deposit", 1, 2147483646);
    const int64_t inserted = r.integer(*v, 1, "deposit", 0, FixStateReader::kMaxStep);
    const int64_t first = r.integer(*v, 2, "deposit", -FixStateReader::kMaxStep, FixStateReader::kMaxStep);
    const int64_t next = r.integer(*v, 3, "deposit", 0, FixStateReader::kMaxStep);
    const int64_t max_tag = r.integer(*v, 4, "deposit", 0, FixStateReader::kMaxStep);
    rng_ = RandomPark(static_cast<int>(seed));
    inserted_ = inserted, first_ = first, next_ = next, max_tag_ = max_tag;
  }

 private:
  static void min_image(const Box& box, int d, double& del) {  // LAMMPS's minimum_image (orthogonal)
    if (box.periodic(d) && std::fabs(del) > 0.5 * box.prd(d)) del += del < 0.0 ? box.prd(d) : -box.prd(d);
  }
  // Whether LAMMPS's pre_exchange creates the atom on a triclinic box: its fractional coordinates lie in
  // the box (in some rank's sub-domain), or above it — where LAMMPS compares the fractional z with the
  // box's Cartesian zhi — with x and y in it.
  static bool created_in_triclinic_box(const Box& b, const double coord[3]) {
    double l[3];
    b.to_lamda(coord, l);
    const auto in = [](double v) { return v >= 0.0 && v < 1.0; };
    return in(l[0]) && in(l[1]) && (in(l[2]) || l[2] >= b.hi[2]);
  }
  static int64_t max_id(const FixContext& c) {
    int64_t m = 0;
    for (int64_t id : c.s.atoms.id) m = std::max(m, id);
    return c.comm.max(m);
  }

  DepositSpec p_;
  RandomPark rng_;
  int64_t next_ = 0, first_ = 0, inserted_ = 0, max_tag_ = 0;
  bool warn_ = true;
  SourcePos at_;
};

std::unique_ptr<Fix> make(const FixArgs& f) {
  DepositSpec p;
  io::ArgCursor& a = f.a;
  p.ninsert = a.integer("the number of atoms to insert N", 0, 2000000000);
  p.type = static_cast<int>(a.integer("the atom type", 1, f.ctx.s.ntypes));
  p.nfreq = a.integer("the insertion interval M (steps)", 1, 2000000000);
  p.seed = static_cast<int>(a.integer("the random seed (positive)", 1, 2147483646));
  bool have_region = false, lattice_units = true;
  while (!a.done()) {
    const std::string k = a.peek();
    if (k == "mol" || k == "molfrac" || k == "rigid" || k == "shake" || k == "orient")
      a.fail("fix deposit: " + k + " (molecules) is not supported; wafermd deposits single atoms");
    const std::string key =
        a.choice("a fix deposit keyword", {"region", "id", "global", "local", "near", "attempt", "rate", "vx",
                                           "vy", "vz", "target", "units", "gaussian"});
    if (key == "region") {
      p.region = region_arg(a, f.ctx.regions, "fix deposit");
      have_region = true;
    } else if (key == "id") {
      p.id_next = a.choice("id (max or next)", {"max", "next"}) == "next";
    } else if (key == "global" || key == "local") {
      p.global = key == "global", p.local = key == "local";
      p.vlo = a.real("lo (distance)");
      p.vhi = a.real("hi (distance)");
      if (p.local) {
        const double delta = a.real("delta (distance)");
        p.deltasq = delta * delta;
      }
    } else if (key == "near") {
      const double r = a.real("near R (distance)");
      p.nearsq = r * r;
    } else if (key == "attempt") {
      p.max_attempt = static_cast<int>(a.integer("attempt Q (at most 1000000 here)", 0, 1000000));
    } else if (key == "rate") {
      p.rated = true;
      p.rate = a.real("rate V (velocity)");
    } else if (key == "vx" || key == "vy" || key == "vz") {
      const int d = key[1] - 'x';
      p.v[d][0] = a.real(key + " lo (velocity)");
      p.v[d][1] = a.real(key + " hi (velocity)");
    } else if (key == "target") {
      p.targeted = true;
      for (double& t : p.target) t = a.real("target x y z (distance)");
    } else if (key == "units") {
      lattice_units = a.choice("units (lattice or box)", {"lattice", "box"}) == "lattice";
    } else {
      a.fail("fix deposit: gaussian is not supported");
    }
  }
  if (!have_region) a.fail("fix deposit needs a region (LAMMPS: \"Must specify a region in fix deposit\")");
  if (p.region.dynamic()) a.fail("fix deposit: the region cannot be dynamic (LAMMPS)");
  if (!p.region.extent(p.lo, p.hi))
    a.fail("fix deposit: region " + p.region.id +
           " has no bounding box (LAMMPS needs an interior region with one)");
  const Box& box = f.ctx.s.box;
  for (int d = 0; d < 3; ++d) {
    // A triclinic box: LAMMPS checks against its bounding box.
    const double lo = box.triclinic ? box.bound_lo(d) : box.lo[d],
                 hi = box.triclinic ? box.bound_hi(d) : box.hi[d];
    if (p.lo[d] < lo || p.hi[d] > hi)
      a.fail("fix deposit: the deposition region extends outside the simulation box (LAMMPS)");
  }
  // LAMMPS scales lengths and velocities by the lattice spacings (`none 1.0` without a lattice).
  double sc[3];
  for (int d = 0; d < 3; ++d) sc[d] = lattice_units && f.ctx.lattice[d] > 0.0 ? f.ctx.lattice[d] : 1.0;
  p.vlo *= sc[2], p.vhi *= sc[2], p.rate *= sc[2];
  p.deltasq *= sc[0] * sc[0];
  p.nearsq *= sc[0] * sc[0];
  for (int d = 0; d < 3; ++d) p.v[d][0] *= sc[d], p.v[d][1] *= sc[d], p.target[d] *= sc[d];
  // id next: ids continue from the largest at the fix's definition.
  int64_t max_tag = 0;
  for (int64_t id : f.ctx.s.atoms.id) max_tag = std::max(max_tag, id);
  if (f.ctx.comm) max_tag = f.ctx.comm->max(max_tag);
  return std::make_unique<FixDeposit>(f, p, max_tag);
}

}  // namespace

WMD_FIX_STYLE("deposit", make)

}  // namespace wmd::md
