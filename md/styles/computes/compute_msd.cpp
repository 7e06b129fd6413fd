// compute msd [com yes|no] [average no]: the group's mean squared displacement from the unwrapped positions
// when the compute was defined — <dx²> <dy²> <dz²> <dr²> (Å²), a global vector, intensive — with the group's
// centre-of-mass drift removed for com yes, as LAMMPS compute msd.
#include "md/styles/compute.hpp"
#include "md/styles/computes/group_moments.hpp"
#include "md/styles/computes/reference_positions.hpp"
#include "md/styles/fix_state_reader.hpp"

namespace wmd::md {
namespace {

class ComputeMsd : public Compute {
 public:
  ComputeMsd(const ComputeArgs& c, bool com) : Compute(c.id, c.style, c.group), com_(com) {}
  OutputShape shape() const override { return {false, 4, -1, false}; }
  void take_reference(const State& s, const Comm& comm) {
    ref_.take(s, comm, group_);
    if (com_) group_centre_of_mass(s, comm, group_, cm0_);
  }
  void compute_vector(const ComputeContext& c) override {
    invoked_vector = c.s.step;
    double cm[3] = {0.0, 0.0, 0.0};
    if (com_) {
      group_centre_of_mass(c.s, c.comm, group_, cm);
      for (int d = 0; d < 3; ++d) cm[d] -= cm0_[d];
    }
    const Atoms& a = c.s.atoms;
    TermSum sum(c.comm, 4);
    int64_t n = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      const std::array<double, 3>* r = in_group(a, i) ? ref_.find(a.id[i]) : nullptr;
      if (!r) continue;
      ++n;
      const auto u = ReferencePositions::unwrapped(c.s, i);
      const double dx = u[0] - cm[0] - (*r)[0], dy = u[1] - cm[1] - (*r)[1], dz = u[2] - cm[2] - (*r)[2];
      sum.add(0, dx * dx), sum.add(1, dy * dy), sum.add(2, dz * dz), sum.add(3, dx * dx + dy * dy + dz * dz);
    }
    vector_ = sum.total();
    const double count = static_cast<double>(c.comm.sum(n));
    if (count > 0)
      for (double& v : vector_) v /= count;
  }
  void save_state(NamedArrays& out) const override {
    ref_.save(out);
    out["cm0"].assign(cm0_, cm0_ + 3);
  }
  void restore_state(const NamedArrays& in) override {
    // Checked before use (issue 46): the references whole finite records, the centre of mass 3 finite values.
    const FixStateReader r(in, *this);
    const std::vector<double>* cm = r.sized_finite("cm0", {3});
    ref_.restore(r);
    if (cm) std::copy(cm->begin(), cm->end(), cm0_);
  }
  bool keeps_restart_state() const override { return true; }

 private:
  bool com_;
  double cm0_[3] = {0.0, 0.0, 0.0};
  ReferencePositions ref_;
};

std::unique_ptr<Compute> make(const ComputeArgs& c) {
  bool com = false;
  while (!c.a.done()) {
    const std::string k = c.a.choice("a compute msd keyword", {"com", "average"});
    if (k == "com")
      com = c.a.yes_no("com");
    else if (c.a.yes_no("average"))
      c.a.fail("compute msd: average yes is not supported");
  }
  auto cp = std::make_unique<ComputeMsd>(c, com);
  if (c.ctx.comm) cp->take_reference(c.ctx.s, *c.ctx.comm);
  return cp;
}

}  // namespace

WMD_COMPUTE_STYLE("msd", make)

}  // namespace wmd::md
