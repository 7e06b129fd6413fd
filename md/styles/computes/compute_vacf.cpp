// compute vacf: the group's velocity auto-correlation with the velocities it had when the compute was
// defined, <vx vx0> <vy vy0> <vz vz0> <v·v0> over the group's atom count at the run's set-up (a global
// vector, intensive), as LAMMPS compute vacf.
#include "md/styles/compute.hpp"
#include "md/styles/computes/reference_positions.hpp"
#include "md/styles/fix_state_reader.hpp"

namespace wmd::md {
namespace {

class ComputeVacf : public Compute {
 public:
  ComputeVacf(const ComputeArgs& c) : Compute(c.id, c.style, c.group) {
    if (c.ctx.comm) v0_.take_velocities(c.ctx.s, *c.ctx.comm, group_);
  }
  OutputShape shape() const override { return {false, 4, -1, false}; }
  void init(const ComputeContext& c) override {
    int64_t n = 0;
    for (size_t i = 0; i < c.s.atoms.size(); ++i) n += in_group(c.s.atoms, i) ? 1 : 0;
    count_ = c.comm.sum(n);
  }
  void compute_vector(const ComputeContext& c) override {
    invoked_vector = c.s.step;
    const Atoms& a = c.s.atoms;
    TermSum sum(c.comm, 4);
    for (size_t i = 0; i < a.size(); ++i) {
      const std::array<double, 3>* v0 = in_group(a, i) ? v0_.find(a.id[i]) : nullptr;
      if (!v0) continue;
      const double x = a.vx[i] * (*v0)[0], y = a.vy[i] * (*v0)[1], z = a.vz[i] * (*v0)[2];
      sum.add(0, x), sum.add(1, y), sum.add(2, z), sum.add(3, x + y + z);
    }
    vector_ = sum.total();
    if (count_ > 0)
      for (double& v : vector_) v /= static_cast<double>(count_);
  }
  void save_state(NamedArrays& out) const override { v0_.save(out); }
  void restore_state(const NamedArrays& in) override { v0_.restore(FixStateReader(in, *this)); }
  bool keeps_restart_state() const override { return true; }

 private:
  ReferencePositions v0_;  // the velocities at the compute command, by atom id
  int64_t count_ = 0;
};

std::unique_ptr<Compute> make(const ComputeArgs& c) {
  c.a.finish();
  return std::make_unique<ComputeVacf>(c);
}

}  // namespace

WMD_COMPUTE_STYLE("vacf", make)

}  // namespace wmd::md
