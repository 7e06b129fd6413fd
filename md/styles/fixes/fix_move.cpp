// fix move linear Vx Vy Vz | wiggle Ax Ay Az period [units lattice|box], as LAMMPS fix move: the group's
// atoms follow a prescribed path from their unwrapped positions when the fix was defined — x0 + V·t, or
// x0 + A·sin(2πt/period) with velocity A·ω·cos(ωt) — in each set component, with t the time since then; a
// NULL component is integrated with velocity Verlet from the forces. The new position is placed in the
// periodic image nearest the old one (LAMMPS's remap_near). It integrates its atoms (no nve on them too).
// Other styles (rotate, transrot, variable) are refused.
#include <cmath>
#include <unordered_map>

#include "base/units.hpp"
#include "md/styles/computes/reference_positions.hpp"
#include "md/styles/fix.hpp"
#include "md/styles/fix_state_reader.hpp"

namespace wmd::md {
namespace {

class FixMove : public Fix {
 public:
  FixMove(const FixArgs& f, bool wiggle, const double value[3], const bool set[3], double period)
      : Fix(f.id, f.style, f.group), wiggle_(wiggle), omega_(wiggle ? 2.0 * M_PI / period : 0.0) {
    for (int d = 0; d < 3; ++d) value_[d] = value[d], set_[d] = set[d];
    time_origin_ = f.ctx.s.step;
    ref_.take(f.ctx.s, f.ctx.comm ? *f.ctx.comm : Comm::local(), f.group);
  }
  bool integrates() const override { return true; }
  bool keeps_restart_state() const override { return true; }  // LAMMPS writes it to restart files
  bool reads_energy() const override { return false; }

  void initial_integrate(FixContext& c) override {
    State& s = c.s;
    Atoms& a = s.atoms;
    const double dt = s.dt, dtf = 0.5 * dt * units::ftm2v;
    const double delta = static_cast<double>(s.step - time_origin_) * dt;
    const double sine = wiggle_ ? std::sin(omega_ * delta) : 0.0,
                 cosine = wiggle_ ? std::cos(omega_ * delta) : 0.0;
    double* x[3] = {a.x.data(), a.y.data(), a.z.data()};
    double* v[3] = {a.vx.data(), a.vy.data(), a.vz.data()};
    const double* f[3] = {a.fx.data(), a.fy.data(), a.fz.data()};
    for (size_t i = 0; i < a.size(); ++i) {
      if (!(a.mask[i] & group_)) continue;
      const std::array<double, 3>* x0 = ref_.find(a.id[i]);
      const double old[3] = {x[0][i], x[1][i], x[2][i]};
      const double dtfm = dtf / s.mass[a.type[i]];
      for (int d = 0; d < 3; ++d) {
        if (set_[d] && x0) {
          if (wiggle_) {
            v[d][i] = value_[d] * omega_ * cosine;
            x[d][i] = (*x0)[d] + value_[d] * sine;
          } else {
            v[d][i] = value_[d];
            x[d][i] = (*x0)[d] + value_[d] * delta;
          }
        } else {
          v[d][i] += dtfm * f[d][i];
          x[d][i] += dt * v[d][i];
        }
        if (s.box.periodic(d) && !s.box.triclinic) x[d][i] = remap_near(x[d][i], old[d], s.box.prd(d));
      }
      if (s.box.triclinic) {
        double xnew[3] = {x[0][i], x[1][i], x[2][i]};
        remap_near_triclinic(s.box, xnew, old);
        x[0][i] = xnew[0], x[1][i] = xnew[1], x[2][i] = xnew[2];
      }
    }
  }
  void final_integrate(FixContext& c) override {
    State& s = c.s;
    Atoms& a = s.atoms;
    const double dtf = 0.5 * s.dt * units::ftm2v;
    double* v[3] = {a.vx.data(), a.vy.data(), a.vz.data()};
    const double* f[3] = {a.fx.data(), a.fy.data(), a.fz.data()};
    for (size_t i = 0; i < a.size(); ++i) {
      if (!(a.mask[i] & group_)) continue;
      const double dtfm = dtf / s.mass[a.type[i]];
      for (int d = 0; d < 3; ++d)
        if (!set_[d]) v[d][i] += dtfm * f[d][i];
    }
  }
  void save_state(FixStateMap& out) const override {
    ref_.save(out);
    out["time_origin"] = {static_cast<double>(time_origin_)};
  }
  void restore_state(const FixStateMap& in) override {
    // Checked before use: the original positions whole finite records, the time origin a step.
    const FixStateReader r(in, *this);
    int64_t origin = time_origin_;
    if (const std::vector<double>* t = r.sized("time_origin", {1}))
      origin = r.integer(*t, 0, "time_origin", 0, FixStateReader::kMaxStep);
    ref_.restore(r);
    time_origin_ = origin;
  }

 private:
  // LAMMPS's Domain::remap_near along one periodic direction: the image of xnew within half a period of xold.
  static double remap_near(double xnew, double xold, double period) {
    const double half = 0.5 * period;
    double dx = xnew - xold;
    if (dx > half) xnew -= static_cast<int>(dx / period + 0.5) * period;
    dx = xnew - xold;
    if (dx < -half) xnew += static_cast<int>(-dx / period + 0.5) * period;
    return xnew;
  }

  // LAMMPS's Domain::remap_near on a triclinic box: both points in fractional coordinates, xnew moved by
  // whole periods to within half of one of xold along each periodic direction, and back (the round trip
  // is taken even when nothing moves, as LAMMPS takes it).
  static void remap_near_triclinic(const Box& b, double xnew[3], const double xold[3]) {
    double ln[3], lo[3];
    b.to_lamda(xnew, ln);
    b.to_lamda(xold, lo);
    for (int d = 0; d < 3; ++d) {
      if (!b.periodic(d)) continue;
      if (ln[d] - lo[d] > 1.0) ln[d] -= static_cast<int>(ln[d] - lo[d]);
      while (ln[d] - lo[d] > 0.5) ln[d] -= 1.0;
      if (lo[d] - ln[d] > 1.0) ln[d] += static_cast<int>(lo[d] - ln[d]);
      while (lo[d] - ln[d] > 0.5) ln[d] += 1.0;
    }
    b.from_lamda(ln, xnew);
  }

  bool wiggle_;
  double omega_;
  double value_[3] = {0, 0, 0};
  bool set_[3] = {false, false, false};
  int64_t time_origin_ = 0;
  ReferencePositions ref_;
};

std::unique_ptr<Fix> make(const FixArgs& f) {
  io::ArgCursor& a = f.a;
  const std::string style = a.word("a fix move style");
  if (style != "linear" && style != "wiggle")
    a.fail("fix move: style '" + style + "' is not supported (linear, wiggle)");
  const bool wiggle = style == "wiggle";
  double value[3] = {0, 0, 0}, period = 0.0;
  bool set[3] = {false, false, false};
  for (int d = 0; d < 3; ++d) {
    const std::string w = a.peek();
    if (w == "NULL") {
      a.word("NULL");
      continue;
    }
    value[d] = a.real(wiggle ? "an amplitude (or NULL)" : "a velocity (or NULL)");
    set[d] = true;
  }
  if (wiggle) period = a.positive("the period");
  bool lattice_units = true;
  while (!a.done()) {
    a.choice("a fix move keyword", {"units"});
    lattice_units = a.choice("units", {"lattice", "box"}) == "lattice";
  }
  if (lattice_units)  // LAMMPS's lattice `none 1.0` without a lattice command
    for (int d = 0; d < 3; ++d) value[d] *= f.ctx.lattice[d] > 0.0 ? f.ctx.lattice[d] : 1.0;
  return std::make_unique<FixMove>(f, wiggle, value, set, period);
}

}  // namespace

WMD_FIX_STYLE("move", make)

}  // namespace wmd::md
