// fix langevin (LAMMPS semantics): F += −(m/damp)·v + uniform noise of variance 24·kB·T·m/(damp·dt), target
// temperature ramped from Tstart to Tstop over the run. Noise is drawn per atom id and step (hashed_uniform)
// rather than from LAMMPS's per-rank RanMars stream, so results do not depend on the decomposition; the
// statistics are the same, the numbers are not LAMMPS's.
#include <cmath>

#include "base/units.hpp"
#include "md/core/hashed_random.hpp"
#include "md/styles/fix.hpp"

namespace wmd::md {
namespace {

class FixLangevin : public Fix {
 public:
  FixLangevin(const std::string& id, uint32_t group, double t0, double t1, double damp, int seed, bool zero)
      : Fix(id, "langevin", group), t_start_(t0), t_stop_(t1), damp_(damp), seed_(seed), zero_(zero) {}

  bool reads_energy() const override { return false; }

  void setup(FixContext& c) override { post_force(c); }

  void post_force(FixContext& c) override {
    Atoms& a = c.s.atoms;
    const double t_target = t_start_ + c.run_fraction() * (t_stop_ - t_start_);
    const double tsqrt = std::sqrt(t_target);
    const size_t n = a.size();
    fran_.assign(3 * n, 0.0);
    double fsum[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < n; ++i) {
      if (!selected(c.s, i)) continue;
      const double m = c.s.mass[a.type[i]];
      const double gamma1 = -m / damp_ / units::ftm2v;
      const double gamma2 = std::sqrt(m) * std::sqrt(24.0 * units::boltz / damp_ / c.s.dt / units::mvv2e) /
                            units::ftm2v * tsqrt;
      double* fr = &fran_[3 * i];
      for (int d = 0; d < 3; ++d) fr[d] = gamma2 * (hashed_uniform(seed_, a.id[i], c.s.step, d) - 0.5);
      fsum[0] += fr[0], fsum[1] += fr[1], fsum[2] += fr[2], fsum[3] += 1.0;
      a.fx[i] += gamma1 * a.vx[i];
      a.fy[i] += gamma1 * a.vy[i];
      a.fz[i] += gamma1 * a.vz[i];
    }
    if (zero_) {
      // `zero yes`: the random forces of the group sum to zero (no drift of the centre of mass).
      c.comm.sum(fsum, 4);
      if (fsum[3] > 0) fsum[0] /= fsum[3], fsum[1] /= fsum[3], fsum[2] /= fsum[3];
    }
    for (size_t i = 0; i < n; ++i) {
      if (!selected(c.s, i)) continue;
      const double* fr = &fran_[3 * i];
      a.fx[i] += fr[0] - (zero_ ? fsum[0] : 0.0);
      a.fy[i] += fr[1] - (zero_ ? fsum[1] : 0.0);
      a.fz[i] += fr[2] - (zero_ ? fsum[2] : 0.0);
    }
  }

 private:
  double t_start_, t_stop_, damp_;
  int seed_;
  bool zero_;
  std::vector<double> fran_;
};

}  // namespace

static std::unique_ptr<Fix> make_fix_langevin(const FixArgs& f) {
  const std::string& id = f.id;
  const uint32_t group = f.group;
  io::ArgCursor& a = f.a;
  const double t0 = a.non_negative("Tstart (K)");
  const double t1 = a.non_negative("Tstop (K)");
  const double damp = a.positive("damp (ps)");
  const int seed = static_cast<int>(a.integer("the random seed", 1, 2147483647));
  bool zero = false;
  while (!a.done()) {
    const std::string k = a.choice("a fix langevin keyword", {"zero", "tally", "gjf", "omega", "angmom"});
    if (k == "zero") {
      zero = a.yes_no("zero");
    } else {
      const std::string v = a.word(k);
      if (v != "no")
        a.fail("fix langevin keyword '" + k + " " + v + "' is not supported (only '" + k + " no')");
    }
  }
  return std::make_unique<FixLangevin>(id, group, t0, t1, damp, seed, zero);
}

WMD_FIX_STYLE("langevin", make_fix_langevin)

}  // namespace wmd::md
