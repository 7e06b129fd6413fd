// fix dt/reset N Tmin Tmax Xmax [emax E] [units lattice|box] (LAMMPS semantics): every N steps the timestep
// becomes the largest for which no atom of the group moves more than Xmax (nor, with emax, gains more than E
// eV), clamped to [Tmin, Tmax] (NULL: no bound). Simulated time is accumulated step by step by the run loop.
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "base/units.hpp"
#include "md/styles/fix.hpp"
#include "md/styles/fix_state_reader.hpp"

namespace wmd::md {
namespace {

class FixDtReset : public Fix {
 public:
  FixDtReset(const std::string& id, uint32_t group, int every, double tmin, double tmax, double xmax,
             double emax)
      : Fix(id, "dt/reset", group), every_(every), tmin_(tmin), tmax_(tmax), xmax_(xmax), emax_(emax) {}

  bool time_dependent() const override { return true; }
  bool reads_energy() const override { return false; }
  OutputShape shape() const override { return {true, 0, -1, false}; }

  void setup(FixContext& c) override { reset(c); }
  void end_of_step(FixContext& c) override {
    if (c.s.step % every_ == 0) reset(c);
  }
  // f_ID: LAMMPS's laststep, the last step the timestep changed at (a run's set-up included), not a count.
  bool scalar(double& v) const override {
    v = static_cast<double>(last_reset_);
    return true;
  }
  void save_state(FixStateMap& out) const override { out["last_reset"] = {static_cast<double>(last_reset_)}; }
  void restore_state(const FixStateMap& in) override {
    // A step: an integer, not negative (f_ID reports it).
    const FixStateReader r(in, *this);
    if (const std::vector<double>* v = r.sized("last_reset", {1}))
      last_reset_ = r.integer(*v, 0, "last_reset", 0, FixStateReader::kMaxStep);
  }

 private:
  // One atom's timestep, in LAMMPS's arithmetic (FixDtReset::end_of_step).
  double atom_dt(const Atoms& a, size_t i, double massinv) const {
    const double big = std::numeric_limits<double>::max();
    const double vsq = a.vx[i] * a.vx[i] + a.vy[i] * a.vy[i] + a.vz[i] * a.vz[i];
    const double fsq = a.fx[i] * a.fx[i] + a.fy[i] * a.fy[i] + a.fz[i] * a.fz[i];
    double dtv = big, dtf = big;
    if (vsq > 0.0) dtv = xmax_ / std::sqrt(vsq);
    if (fsq > 0.0) dtf = std::sqrt(2.0 * xmax_ / (units::ftm2v * std::sqrt(fsq) * massinv));
    double dt = std::min(dtv, dtf);
    if (emax_ > 0.0 && vsq * fsq > 0.0) {
      const double dte = emax_ / std::sqrt(fsq * vsq) / std::sqrt(units::ftm2v * units::mvv2e);
      dt = std::min(dt, dte);
    }
    const double dtsq = dt * dt;
    const double dx = dt * a.vx[i] + 0.5 * dtsq * massinv * a.fx[i] * units::ftm2v;
    const double dy = dt * a.vy[i] + 0.5 * dtsq * massinv * a.fy[i] * units::ftm2v;
    const double dz = dt * a.vz[i] + 0.5 * dtsq * massinv * a.fz[i] * units::ftm2v;
    const double delr = std::sqrt(dx * dx + dy * dy + dz * dz);
    if (delr > xmax_) dt *= xmax_ / delr;
    return dt;
  }

  // The smallest atom_dt of the group without three square roots and divisions per atom: the atoms holding
  // the largest squared speed, acceleration and (with emax) their product bound the minimum from above (U);
  // an atom's timestep is at least half its first estimate min(dtv, dtf, dte) (the move it predicts is at
  // most xmax from v and xmax from a), so only atoms whose squared keys could put that estimate below 2U
  // (with a margin for rounding) are evaluated exactly. The minimum is that of the full loop, bit for bit.
  double group_min_dt(const FixContext& c) {
    const Atoms& a = c.s.atoms;
    const double big = std::numeric_limits<double>::max();
    // 1/m per type, the quotient LAMMPS forms per atom (a divide per atom and pass was a third of the time).
    massinv_.resize(c.s.mass.size());
    for (size_t t = 0; t < massinv_.size(); ++t) massinv_[t] = 1.0 / c.s.mass[t];
    size_t arg[3] = {SIZE_MAX, SIZE_MAX, SIZE_MAX};
    double key_max[3] = {-1.0, -1.0, -1.0};
    for (size_t i = 0; i < a.size(); ++i) {
      if (!selected(c.s, i)) continue;
      const double massinv = massinv_[a.type[i]];
      const double vsq = a.vx[i] * a.vx[i] + a.vy[i] * a.vy[i] + a.vz[i] * a.vz[i];
      const double fsq = a.fx[i] * a.fx[i] + a.fy[i] * a.fy[i] + a.fz[i] * a.fz[i];
      const double key[3] = {vsq, fsq * massinv * massinv, fsq * vsq};
      for (int k = 0; k < 3; ++k)
        if (key[k] > key_max[k]) key_max[k] = key[k], arg[k] = i;
    }
    if (arg[0] == SIZE_MAX) return big;  // no atom of the group here
    double upper = big;
    for (size_t i : arg)
      if (i != SIZE_MAX) upper = std::min(upper, atom_dt(a, i, 1.0 / c.s.mass[a.type[i]]));
    double dtmin = upper;
    if (!(upper < big / 16)) {  // nothing moves: every atom's estimate is huge; evaluate them all
      for (size_t i = 0; i < a.size(); ++i)
        if (selected(c.s, i)) dtmin = std::min(dtmin, atom_dt(a, i, 1.0 / c.s.mass[a.type[i]]));
      return dtmin;
    }
    // An estimate above w = 2U·(1 + margin) leaves the atom's timestep above U: dtv > w ⟺ vsq < (xmax/w)²,
    // dtf > w ⟺ fsq·massinv² < (2 xmax/(ftm2v w²))², dte > w ⟺ fsq·vsq < (emax/(w √(ftm2v mvv2e)))².
    const double w = 2.0 * upper * 1.01;
    const double tv = (xmax_ / w) * (xmax_ / w) * 0.99;
    const double ta0 = 2.0 * xmax_ / (units::ftm2v * w * w);
    const double ta = ta0 * ta0 * 0.99;
    const double te0 = emax_ / (w * std::sqrt(units::ftm2v * units::mvv2e));
    const double te = emax_ > 0.0 ? te0 * te0 * 0.99 : big;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!selected(c.s, i)) continue;
      const double massinv = massinv_[a.type[i]];
      const double vsq = a.vx[i] * a.vx[i] + a.vy[i] * a.vy[i] + a.vz[i] * a.vz[i];
      const double fsq = a.fx[i] * a.fx[i] + a.fy[i] * a.fy[i] + a.fz[i] * a.fz[i];
      if (vsq < tv && fsq * massinv * massinv < ta && fsq * vsq < te) continue;
      dtmin = std::min(dtmin, atom_dt(a, i, massinv));
    }
    return dtmin;
  }

  void reset(FixContext& c) {
    const double big = std::numeric_limits<double>::max();
    const double dtmin = group_min_dt(c);
    double dt = c.comm.min(dtmin);
    if (tmin_ > 0.0) dt = std::max(dt, tmin_);
    if (tmax_ > 0.0) dt = std::min(dt, tmax_);
    if (dt == big) return;  // no atom moves or feels a force: keep the timestep
    // LAMMPS goes on with whatever its formula gives; a timestep of 0 (an Xmax whose square overflows, say)
    // or a non-finite one would stop the clock or poison every position, so the run fails here instead.
    if (!(dt > 0.0) || !std::isfinite(dt))
      throw RunError(
          fmt::format("fix dt/reset {}: the timestep it computes at step {} is {}, not a positive finite "
                      "time (Xmax {:g} Å; give Tmin or a smaller Xmax)",
                      id(), c.s.step, dt, xmax_));
    if (dt == c.s.dt) return;
    c.s.dt = dt;
    last_reset_ = c.s.step;
  }

  int every_;
  double tmin_, tmax_, xmax_, emax_;
  int64_t last_reset_ = 0;
  std::vector<double> massinv_;
};

}  // namespace

static std::unique_ptr<Fix> make_fix_dt_reset(const FixArgs& f) {
  const std::string& id = f.id;
  const uint32_t group = f.group;
  io::ArgCursor& a = f.a;
  const FixBuildContext& ctx = f.ctx;
  const int every = static_cast<int>(a.integer("N (steps between resets)", 1, 2000000000));
  auto bound = [&](const std::string& what) {
    if (a.peek() == "NULL") {
      a.word(what);
      return -1.0;
    }
    return a.positive(what);
  };
  const double tmin = bound("Tmin (ps) or NULL");
  const double tmax = bound("Tmax (ps) or NULL");
  if (tmin > 0 && tmax > 0 && tmin > tmax) a.fail("fix dt/reset: Tmin is larger than Tmax");
  double xmax = a.positive("Xmax (distance)");
  double emax = -1.0;
  bool lattice_units = true;
  while (!a.done()) {
    const std::string k = a.choice("a fix dt/reset keyword", {"emax", "units"});
    if (k == "emax")
      emax = a.positive("emax (eV)");
    else
      lattice_units = a.choice("units", {"lattice", "box"}) == "lattice";
  }
  if (lattice_units) xmax *= ctx.xlattice;  // `lattice none 1.0` (LAMMPS's default) scales by 1
  return std::make_unique<FixDtReset>(id, group, every, tmin, tmax, xmax, emax);
}

WMD_FIX_STYLE("dt/reset", make_fix_dt_reset)

}  // namespace wmd::md
