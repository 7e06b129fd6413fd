// compute com: the group's centre of mass from unwrapped positions (a global vector of 3, intensive), as
// LAMMPS compute com (group->xcm).
#include "md/styles/compute.hpp"
#include "md/styles/computes/group_moments.hpp"

namespace wmd::md {
namespace {

class ComputeCom : public Compute {
 public:
  using Compute::Compute;
  OutputShape shape() const override { return {false, 3, -1, false}; }
  void compute_vector(const ComputeContext& c) override {
    invoked_vector = c.s.step;
    vector_.assign(3, 0.0);
    group_centre_of_mass(c.s, c.comm, group_, vector_.data());
  }
};

std::unique_ptr<Compute> make(const ComputeArgs& c) {
  c.a.finish();
  return std::make_unique<ComputeCom>(c.id, c.style, c.group);
}

}  // namespace

WMD_COMPUTE_STYLE("com", make)

}  // namespace wmd::md
