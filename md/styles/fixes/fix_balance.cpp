// fix balance Nfreq thresh shift dimstr Niter stopthresh (LAMMPS semantics, shift style): the cluster
// backend moves its sub-domain cuts so that each holds about as many atoms, at the set-up of every run and
// every Nfreq steps (forcing a neighbour rebuild there). Cuts follow from positions alone, so runs and
// restarts stay reproducible; the group is ignored, as in LAMMPS. f_ID is the imbalance factor after the last
// balancing step (LAMMPS's scalar).
#include "md/core/balance.hpp"
#include "md/styles/fix.hpp"
#include "md/styles/fix_state_reader.hpp"

namespace wmd::md {
namespace {

class FixBalance : public Fix {
 public:
  FixBalance(const std::string& id, uint32_t group, const LoadBalance& lb, const Decomposition* dec)
      : Fix(id, "balance", group), lb_(lb), dec_(dec) {}
  bool reads_energy() const override { return false; }
  OutputShape shape() const override { return {true, 0, -1, false}; }  // imbalance factor
  const LoadBalance* load_balance() const override { return &lb_; }
  // The backend balanced inside this step's rebuild (or the set-up's); atoms have not moved since. A restart
  // keeps the saved factor, as its set-up does not rebalance.
  void setup(FixContext& c) override {
    if (!restored_) measure(c);
    restored_ = false;
  }
  void end_of_step(FixContext& c) override {
    if (lb_.due(c.s.step)) measure(c);
  }
  bool scalar(double& v) const override {
    v = imbalance_;
    return true;
  }
  void save_state(FixStateMap& out) const override { out["imbalance"] = {imbalance_}; }
  void restore_state(const FixStateMap& in) override {
    // Checked before use: the imbalance factor (max/mean atoms per rank) is finite and not negative.
    const FixStateReader r(in, *this);
    if (const std::vector<double>* v = r.sized("imbalance", {1}))
      imbalance_ = r.at_least(*v, 0, "imbalance", 0.0), restored_ = true;
  }

 private:
  void measure(FixContext& c) {
    if (dec_) imbalance_ = imbalance_factor(c.comm, *dec_, c.s.box, c.s.atoms);
  }
  LoadBalance lb_;
  const Decomposition* dec_;  // null off the cluster backend: nothing to balance, factor 1
  double imbalance_ = 1.0;
  bool restored_ = false;
};

}  // namespace

static std::unique_ptr<Fix> make_fix_balance(const FixArgs& f) {
  const std::string& id = f.id;
  const uint32_t group = f.group;
  io::ArgCursor& a = f.a;
  const FixBuildContext& ctx = f.ctx;
  LoadBalance lb;
  lb.every =
      static_cast<int>(a.integer("Nfreq (steps between rebalancing; 0: at set-up only)", 0, 2000000000));
  lb.shift = read_shift_balance(a, "fix balance");
  return std::make_unique<FixBalance>(id, group, lb, ctx.decomposition);
}

WMD_FIX_STYLE("balance", make_fix_balance)

}  // namespace wmd::md
