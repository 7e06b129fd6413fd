// fix langevin Tstart Tstop damp seed [keywords] (LAMMPS semantics): after the forces, each atom of the group
// gets F += −(m/damp)·v/ratio + γ2·(u − ½) per component, γ2 = √(24 kB T m/(damp·dt)/ratio), T ramped from
// Tstart to Tstop over the run (or an equal- or atom-style variable), at the set-up and every step.
//
// The noise is one-rank LAMMPS's, whatever the rank count: LAMMPS draws from RanMars(seed + rank) three
// uniforms per group atom in its local atom order; on one rank that is RanMars(seed) over all group atoms
// in one-rank LAMMPS's order, which wafermd keeps for every atom (Atoms::order, md/core/lammps_order.hpp).
// Every rank generates that whole stream (3 draws per group atom and call, ~7.5 ns each) and takes its own
// atoms' draws by their place among the group's atoms in that order. The places are cached and checked
// every step against the atoms' orders, ids, types and the group's size (one 2-value reduction), and
// re-gathered when they changed (a sort — the run loop sorts before post_force, as LAMMPS before the step's
// forces —, deletion, deposition, a dynamic group). So 1, 2 and 3 ranks, and both backends, give the same
// forces to round-off, and the same bits in deterministic mode.
//
// Keywords: `zero yes` subtracts the group's mean random force (summed on every rank over the whole stream
// in LAMMPS's order, so one-rank LAMMPS's sum; a TermSum with a biased temperature or an atom-style T);
// `tally yes` accumulates the energy exchanged with the reservoir (f_ID, LAMMPS's compute_scalar, reset at
// a run's first step when read there); `scale type ratio` divides that type's damping; `fix_modify temp`
// with a biased temperature compute thermostats the thermal velocities only. `gjf vfull|vhalf` (the
// Grønbech-Jensen–Farago integrator, whose per-atom state would have to travel with the atoms) and
// `omega`/`angmom` (finite-size particles, which atom_style atomic lacks) are refused. wafermd's extension
// `noise hashed` draws instead from a hash of (seed, atom id, step, component): the same statistics at O(1)
// per atom and no per-step reduction (huge groups on many ranks, the wafer), not LAMMPS's numbers.
// Known difference: lmp also restarts the tally at a `minimize`'s first step when f_ID is read there; this
// fix gets no hook in a minimisation (wafermd calls no Fix::init there) and keeps it.
#include <algorithm>
#include <cmath>

#include "base/units.hpp"
#include "md/core/hashed_random.hpp"
#include "md/core/random_mars.hpp"
#include "md/styles/fix.hpp"
#include "md/styles/fix_state_reader.hpp"
#include "md/styles/fixes/one_rank_order.hpp"
#include "md/styles/fixes/thermostat_temperature.hpp"

namespace wmd::md {
namespace {

struct LangevinParams {
  double t_start = 0.0, t_stop = 0.0, damp = 1.0;
  int seed = 1;
  std::string tvar;           // Tstart as v_name (without v_); empty: the numbers
  std::vector<double> ratio;  // [type] `scale` ratios (1 unless given)
  bool zero = false, tally = false, hashed = false;
  SourcePos at;
};

// A group atom as every rank sees it when the places are gathered (trivially copyable for allgather).
class FixLangevin : public Fix {
 public:
  FixLangevin(const FixArgs& f, LangevinParams p)
      : Fix(f.id, f.style, f.group), p_(std::move(p)), rng_(p_.seed) {}

  bool reads_energy() const override { return false; }
  OutputShape shape() const override { return {true, 0, -1, true}; }  // reservoir energy: extensive

  bool modify_param(const std::string& key, io::ArgCursor& a, const StyleLookup& styles) override {
    if (key != "temp") return false;
    temp_id_ = read_temperature_compute(a, styles);
    return true;
  }

  void setup(FixContext& c) override {
    state_ = &c.s;
    // A run continued from a checkpoint is the interrupted run going on: its set-up draws nothing and its
    // first step is not the run's first (no tally reset).
    const bool continuing = c.continuing;
    begin_ = continuing ? -1 : c.run_begin;
    check_variable(c);
    if (!p_.hashed) gather_places(c);
    const RandomMars before = rng_;
    apply(c, /*check=*/false);  // LAMMPS's setup calls post_force: its draws count
    if (continuing) rng_ = before;
    if (p_.tally) eo_now_ = reservoir_power(c);
  }
  void post_force(FixContext& c) override { apply(c, /*check=*/true); }
  void end_of_step(FixContext& c) override {
    if (!p_.tally) return;
    energy_onestep_ = eo_now_ = reservoir_power(c);
    energy_ += energy_onestep_ * c.s.dt;
  }

  bool scalar(double& v) const override {
    v = 0.0;
    if (!p_.tally || !allocated_ || !state_) return true;
    // LAMMPS's compute_scalar: read at the run's first step, it restarts the tally from that step's power.
    if (state_->step == begin_) energy_onestep_ = eo_now_, energy_ = 0.5 * eo_now_ * state_->dt;
    v = -(energy_ - 0.5 * energy_onestep_ * state_->dt);
    return true;
  }

  void save_state(FixStateMap& out) const override {
    out["random"] = rng_.state();
    out["tally"] = {energy_, energy_onestep_, eo_now_, allocated_ ? 1.0 : 0.0};
  }
  // LAMMPS's fix langevin writes nothing into restart files: defined after read_restart it starts a new
  // RanMars from its seed. A checkpoint's state continues the interrupted run.
  void restore_state(const FixStateMap& in) override {
    // The generator's state must be one it could have written (finite, indices in range), the tally finite.
    const FixStateReader r(in, *this);
    const std::vector<double>* rs = r.sized_finite("random", {RandomMars::kStateSize});
    const std::vector<double>* t = r.sized_finite("tally", {4});
    if (rs) {
      r.integer(*rs, 97, "random", 1, 97), r.integer(*rs, 98, "random", 1, 97);
      RandomMars check = rng_;
      if (!check.set_state(*rs)) r.fail("random", "is not a RanMars state (its indices lie outside 1..97)");
      rng_ = check;
    }
    if (t) {
      energy_ = (*t)[0], energy_onestep_ = (*t)[1], eo_now_ = (*t)[2];
      allocated_ = (*t)[3] != 0.0;
    }
  }

 private:
  // Checks at a run's set-up that Tstart's variable exists (LAMMPS's init).
  void check_variable(FixContext& c) {
    if (p_.tvar.empty()) return;
    const bool atom = c.styles && c.styles->has_atom_variable(p_.tvar);
    const bool equal = !atom && c.styles && c.styles->has_variable(p_.tvar);
    if (!equal && !atom)
      fail_input(p_.at,
                 "fix langevin: variable " + p_.tvar + " does not exist or is neither equal- nor atom-style");
    atom_t_ = atom;
  }

  // LAMMPS's compute_target: the ramped or variable target temperature of this call.
  void target(FixContext& c) {
    if (p_.tvar.empty()) {
      tsqrt_ = std::sqrt(p_.t_start + c.run_fraction() * (p_.t_stop - p_.t_start));
      return;
    }
    c.styles->clearstep_computes();
    if (!atom_t_) {
      const double t = c.styles->variable(p_.tvar);
      if (t < 0.0)
        throw RunError("fix langevin " + id_ + ": variable " + p_.tvar + " returned a negative temperature");
      tsqrt_ = std::sqrt(t);
      return;
    }
    c.styles->atom_variable(p_.tvar, p_.at, tforce_);
    for (size_t i = 0; i < c.s.atoms.size(); ++i)
      if (selected(c.s, i) && tforce_[i] < 0.0)
        throw RunError("fix langevin " + id_ + ": variable " + p_.tvar + " returned a negative temperature");
  }

  void gather_places(FixContext& c) {
    places_.gather(c.s.atoms, c.comm, [&](size_t i) { return selected(c.s, i); });
  }
  // True when the places hold; lists the group's local atoms and their slots (local_, slots_) either way.
  bool places_current(FixContext& c) {
    if (places_.current(
            c.s.atoms, c.comm, [&](size_t i) { return selected(c.s, i); }, &local_, &slots_))
      return true;
    list_group(c);
    return false;
  }
  // The group's local atoms, ascending, and (LAMMPS's stream) their slots.
  void list_group(FixContext& c) {
    local_.clear(), slots_.clear();
    for (size_t i = 0; i < c.s.atoms.size(); ++i) {
      if (!selected(c.s, i)) continue;
      local_.push_back(static_cast<uint32_t>(i));
      slots_.push_back(p_.hashed ? -1 : places_.slot(c.s.atoms.id[i]));
    }
  }

  // The drag and noise of one call (LAMMPS's post_force_templated without GJF, per-type masses).
  void apply(FixContext& c, bool check) {
    Atoms& a = c.s.atoms;
    const size_t n = a.size();
    target(c);
    Compute* temp = nullptr;  // a biased temperature (fix_modify temp): the drag acts on thermal velocities
    if (!temp_id_.empty()) {
      temp = c.styles ? c.styles->compute(temp_id_) : nullptr;
      if (!temp) throw RunError("fix langevin " + id_ + ": temperature compute " + temp_id_ + " was deleted");
      if (!temp->has_bias())
        temp = nullptr;
      else
        temp->compute_scalar(c.compute_context());
    }
    // Per-type prefactors (LAMMPS's gfactor1, gfactor2 at the current timestep).
    const int ntypes = c.s.ntypes;
    gfactor1_.assign(ntypes + 1, 0.0), gfactor2_.assign(ntypes + 1, 0.0);
    for (int t = 1; t <= ntypes; ++t) {
      const double m = c.s.mass[t];
      gfactor1_[t] = -m / p_.damp / units::ftm2v;
      gfactor2_[t] =
          std::sqrt(m) * std::sqrt(24.0 * units::boltz / p_.damp / c.s.dt / units::mvv2e) / units::ftm2v;
      gfactor1_[t] *= 1.0 / p_.ratio[t];
      gfactor2_[t] *= 1.0 / std::sqrt(p_.ratio[t]);
    }
    int64_t count = 0;
    if (p_.hashed || !check) {
      list_group(c);
    } else if (!places_current(c)) {
      gather_places(c);
      list_group(c);
    }
    if (!p_.hashed) {
      count = static_cast<int64_t>(places_.size());
      draws_.resize(3 * places_.size());
      rng_.uniforms(draws_.data(), draws_.size());
    }
    // `zero yes`: the group's total random force, in LAMMPS's order over the whole stream where every
    // rank knows each term; through a TermSum where a term depends on another rank's atom.
    const bool summed_here = !p_.hashed && !temp && !atom_t_;
    double fsum[3] = {0.0, 0.0, 0.0};
    if (p_.zero && summed_here) {
      for (size_t k = 0; k < places_.size(); ++k) {
        const double gamma2 = gfactor2_[places_.type(k)] * tsqrt_;
        for (int d = 0; d < 3; ++d) fsum[d] += gamma2 * (draws_[3 * k + d] - 0.5);
      }
    }
    TermSum partial(c.comm, 4);  // random force x, y, z and the count (hashed noise, bias, atom-style T)
    if (p_.tally) flangevin_.assign(3 * n, 0.0), allocated_ = true;
    std::vector<double>* v[3] = {&a.vx, &a.vy, &a.vz};
    std::vector<double>* f[3] = {&a.fx, &a.fy, &a.fz};
    for (size_t q = 0; q < local_.size(); ++q) {
      const size_t i = local_[q];
      const double tsqrt = atom_t_ ? std::sqrt(tforce_[i]) : tsqrt_;
      const double gamma1 = gfactor1_[a.type[i]];
      const double gamma2 = gfactor2_[a.type[i]] * tsqrt;
      double fran[3];
      if (p_.hashed) {
        for (int d = 0; d < 3; ++d) fran[d] = gamma2 * (hashed_uniform(p_.seed, a.id[i], c.s.step, d) - 0.5);
      } else {
        const double* u = &draws_[3 * static_cast<size_t>(slots_[q])];
        for (int d = 0; d < 3; ++d) fran[d] = gamma2 * (u[d] - 0.5);
      }
      double fdrag[3];
      if (temp) temp->remove_bias(c.s, i);
      for (int d = 0; d < 3; ++d) fdrag[d] = gamma1 * (*v[d])[i];
      if (temp) {
        // LAMMPS: a component the bias removed entirely (v = 0) gets no noise either.
        for (int d = 0; d < 3; ++d)
          if ((*v[d])[i] == 0.0) fran[d] = 0.0;
        temp->restore_bias(c.s, i);
      }
      for (int d = 0; d < 3; ++d) (*f[d])[i] += fdrag[d] + fran[d];
      if (p_.zero && !summed_here) {
        for (int d = 0; d < 3; ++d) partial.add(d, fran[d]);
      }
      if (p_.tally)
        for (int d = 0; d < 3; ++d) flangevin_[3 * i + d] = fdrag[d] + fran[d];
    }
    if (!p_.zero) return;
    if (!summed_here) {
      for (size_t i = 0; i < n; ++i)
        if (selected(c.s, i)) partial.add(3, 1.0);
      const std::vector<double> t = partial.total();
      fsum[0] = t[0], fsum[1] = t[1], fsum[2] = t[2];
      count = static_cast<int64_t>(t[3]);
    }
    if (count == 0) throw RunError("fix langevin " + id_ + ": cannot zero the Langevin force of 0 atoms");
    for (double& x : fsum) x /= count;
    for (size_t i = 0; i < n; ++i) {
      if (!selected(c.s, i)) continue;
      for (int d = 0; d < 3; ++d) (*f[d])[i] -= fsum[d];
      if (p_.tally)
        for (int d = 0; d < 3; ++d) flangevin_[3 * i + d] -= fsum[d];
    }
  }

  // Σ F_langevin·v over the group (LAMMPS's energy_onestep), global.
  double reservoir_power(FixContext& c) const {
    const Atoms& a = c.s.atoms;
    TermSum s(c.comm, 1);
    for (size_t i = 0; i < a.size() && 3 * i < flangevin_.size(); ++i)
      if (selected(c.s, i))
        s.add(0, flangevin_[3 * i] * a.vx[i] + flangevin_[3 * i + 1] * a.vy[i] +
                     flangevin_[3 * i + 2] * a.vz[i]);
    return s.total()[0];
  }

  LangevinParams p_;
  RandomMars rng_;
  std::string temp_id_;
  // The group's places in LAMMPS's order (every rank: all group atoms).
  OneRankOrder places_;          // the group's atoms in one-rank LAMMPS's order (the random stream's order)
  std::vector<uint32_t> local_;  // this call's group atoms here, ascending
  std::vector<int32_t> slots_;   // their places in the stream (−1 with hashed noise)
  std::vector<double> draws_, gfactor1_, gfactor2_, tforce_, flangevin_;
  double tsqrt_ = 0.0;
  bool atom_t_ = false;
  // tally: LAMMPS's energy and energy_onestep (global here), the power at the last hook, the run's first
  // step.
  mutable double energy_ = 0.0, energy_onestep_ = 0.0;
  double eo_now_ = 0.0;
  bool allocated_ = false;
  int64_t begin_ = -1;
  const State* state_ = nullptr;
};

}  // namespace

static std::unique_ptr<Fix> make_fix_langevin(const FixArgs& f) {
  io::ArgCursor& a = f.a;
  LangevinParams p;
  p.at = a.pos();
  if (a.peek().rfind("v_", 0) == 0)
    p.tvar = a.word("Tstart").substr(2);
  else
    p.t_start = a.non_negative("Tstart (K)");
  p.t_stop = a.non_negative("Tstop (K)");
  p.damp = a.positive("damp (ps)");
  // RanMars takes seeds 1..900000000 (LAMMPS: "Invalid seed for Marsaglia random # generator").
  p.seed = static_cast<int>(a.integer("the random seed", 1, 900000000));
  p.ratio.assign(f.ctx.s.ntypes + 1, 1.0);
  while (!a.done()) {
    const std::string k =
        a.choice("a fix langevin keyword", {"zero", "tally", "scale", "gjf", "omega", "angmom", "noise"});
    if (k == "zero") {
      p.zero = a.yes_no("zero");
    } else if (k == "tally") {
      p.tally = a.yes_no("tally");
    } else if (k == "scale") {
      const int t = static_cast<int>(a.integer("the atom type to scale", 1, std::max(1, f.ctx.s.ntypes)));
      p.ratio[t] = a.positive("the damping ratio");
    } else if (k == "noise") {
      p.hashed = a.choice("noise lammps|hashed", {"lammps", "hashed"}) == "hashed";
    } else if (k == "gjf") {
      const std::string v = a.choice("gjf no|vfull|vhalf", {"no", "vfull", "vhalf"});
      if (v != "no")
        a.fail(
            "fix langevin gjf " + v +
            " is not supported (the Gronbech-Jensen-Farago integrator's per-atom state does not travel with "
            "wafermd's atoms); use gjf no");
    } else if (k == "omega") {
      if (a.yes_no("omega"))
        a.fail("fix langevin omega yes needs finite-size particles (atom_style sphere), which wafermd lacks");
    } else {
      const std::string v = a.word("angmom");
      if (v != "no")
        a.fail("fix langevin angmom " + v +
               " needs finite-size particles (atom_style ellipsoid), which wafermd lacks");
    }
  }
  return std::make_unique<FixLangevin>(f, std::move(p));
}

WMD_FIX_STYLE("langevin", make_fix_langevin)

}  // namespace wmd::md
