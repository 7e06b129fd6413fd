// fix balance Nfreq thresh shift dimstr Niter stopthresh (LAMMPS semantics, shift style): the cluster
// backend moves its sub-domain cuts so that each holds about as many atoms, at the set-up of every run and
// every Nfreq steps (forcing a neighbour rebuild there). Cuts follow from positions alone, so runs and
// restarts stay reproducible; the group is ignored, as in LAMMPS.
#include "md/fixes/fix_styles.hpp"

namespace wmd::md {
namespace {

class FixBalance : public Fix {
 public:
  FixBalance(const std::string& id, uint32_t group, const LoadBalance& lb)
      : Fix(id, "balance", group), lb_(lb) {}
  bool reads_energy() const override { return false; }
  const LoadBalance* load_balance() const override { return &lb_; }

 private:
  LoadBalance lb_;
};

}  // namespace

std::unique_ptr<Fix> make_fix_balance(const std::string& id, uint32_t group, io::ArgCursor& a) {
  LoadBalance lb;
  lb.every =
      static_cast<int>(a.integer("Nfreq (steps between rebalancing; 0: at set-up only)", 0, 2000000000));
  lb.shift = read_shift_balance(a, "fix balance");
  return std::make_unique<FixBalance>(id, group, lb);
}

}  // namespace wmd::md
