// compute ID group pair pstyle [nsub] [epair|evdwl|ecoul]: the energy of the pair style, or of one sub-style
// of pair_style hybrid/overlay, as LAMMPS compute pair (force->pair_match with exact names: the pair_style's
// own name gives the whole pair energy, a sub-style's name that sub-style's). The group is ignored, as in
// LAMMPS. eam and zbl are van der Waals terms: evdwl = epair, ecoul = 0. They have no extra pair values, so
// the compute has no vector. The ZBL sub-style's energy is summed here over its pairs (½ E(r) from each atom
// of a pair, LAMMPS's PairZBL arithmetic); the EAM sub-style's is the step's pair energy less it.
#include <algorithm>
#include <cctype>

#include "md/styles/compute.hpp"
#include "md/styles/computes/all_neighbors.hpp"

namespace wmd::md {
namespace {

enum class Part { whole, eam, zbl, none };

class ComputePair : public Compute {
 public:
  ComputePair(const ComputeArgs& c, Part part) : Compute(c.id, c.style, c.group), part_(part) {}
  OutputShape shape() const override { return {true, 0, -1, true}; }

  double compute_scalar(const ComputeContext& c) override {
    invoked_scalar = c.s.step;
    if (c.force && !c.force->tallied)
      throw RunError("compute " + id_ + " (pair) read at step " + std::to_string(c.s.step) +
                     ", whose energy was not summed (LAMMPS: \"Energy was not tallied on needed timestep\")");
    const double total = c.force ? c.force->energy : 0.0;
    switch (part_) {
      case Part::none:
        scalar_ = 0.0;
        break;
      case Part::whole:
        scalar_ = total;
        break;
      case Part::zbl:
        scalar_ = zbl_energy(c);
        break;
      case Part::eam:
        scalar_ = total - zbl_energy(c);
        break;
    }
    return scalar_;
  }

 private:
  // Σ over pairs within the outer cut-off of E_ZBL(r) (collective); 0 without forces (the dry run).
  static double zbl_energy(const ComputeContext& c) {
    if (!c.force || !c.tables || !c.tables->zbl.active()) return 0.0;
    const potentials::ZblTerm& z = c.tables->zbl;
    const AllNeighbors nb(c.s, c.comm, z.outer);
    const Atoms& a = c.s.atoms;
    TermSum e(c.comm, 1);
    for (size_t i = 0; i < a.size(); ++i)
      nb.for_each(c.s, i, [&](const AllNeighbors::Site& p, double, double, double, double rsq) {
        if (rsq >= z.outer_sq) return;
        double fpair;
        e.add(0, 0.5 * potentials::zbl_pair(z.at(a.type[i], p.type), z.inner, z.inner_sq, rsq, fpair));
      });
    return e.total()[0];
  }

  Part part_;
};

std::unique_ptr<Compute> make(const ComputeArgs& c) {
  const std::string pstyle = c.a.word("a pair style");
  long long nsub = 0;
  if (!c.a.done() && std::isdigit(static_cast<unsigned char>(c.a.peek()[0]))) {
    nsub = c.a.integer("the sub-style instance", 1, 1000000);
  }
  std::string evalue = "epair";
  if (!c.a.done()) evalue = c.a.choice("an energy (epair, evdwl, ecoul)", {"epair", "evdwl", "ecoul"});
  c.a.finish();
  // LAMMPS's Force::pair_match(pstyle, exact = 1, nsub): the pair style itself, or a hybrid's sub-style (its
  // nsub-th instance, or the only one).
  const std::vector<std::string>& styles = c.ctx.pair_styles;
  Part part = Part::whole;
  if (styles.empty() || styles[0] != pstyle) {
    const bool hybrid = !styles.empty() && styles[0].rfind("hybrid", 0) == 0;
    const auto n = hybrid ? std::count(styles.begin() + 1, styles.end(), pstyle) : 0;
    if (n == 0)
      c.a.fail("compute pair: '" + pstyle +
               "' is not the pair style or one of its sub-styles (LAMMPS: "
               "\"Unrecognized pair style in compute pair command\")");
    part = pstyle == "zbl" ? Part::zbl : Part::eam;
  }
  (void)nsub;  // one instance of each sub-style runs here
  if (evalue == "ecoul") part = Part::none;
  return std::make_unique<ComputePair>(c, part);
}

}  // namespace

WMD_COMPUTE_STYLE("pair", make)

}  // namespace wmd::md
