// compute cnp/atom Rc: the common neighbourhood parameter of Tsuzuki, Branicio and Rino (Comput. Phys.
// Commun. 177, 518 (2007)), as LAMMPS compute cnp/atom defines it: for a group atom i with the n_i atoms j
// within Rc, Q_i = (1/n_i) Σ_j |Σ_k (R_ik + R_jk)|², k over the atoms within Rc of both i and j (R_ab = x_b −
// x_a; images count as atoms); 0 outside the group, 0/0 (NaN) for an atom with no neighbour, as in LAMMPS.
// Perfect fcc and bcc give 0. LAMMPS keeps at most 24 neighbours and 12 common ones per atom, in its
// neighbour-list order, and warns beyond; here every one counts (a cutoff that reaches so many lies beyond
// the nearest shells the parameter is meant for). Rc may not exceed the pair cutoff (LAMMPS's error at the
// run). Per-atom work on either backend (all atoms gathered, as coord/atom and cna/atom do).
#include <array>
#include <cstdio>

#include "md/styles/compute.hpp"
#include "md/styles/computes/all_neighbors.hpp"

namespace wmd::md {
namespace {

class ComputeCnpAtom : public Compute {
 public:
  ComputeCnpAtom(const ComputeArgs& c, double cut)
      : Compute(c.id, c.style, c.group), cut_(cut), at_(c.a.pos()) {}
  OutputShape shape() const override { return {false, 0, 0, false}; }
  void init(const ComputeContext& c) override {
    if (!c.tables || cut_ <= c.tables->cutmax) return;
    char msg[160];
    std::snprintf(msg, sizeof msg, "compute cnp/atom: the cutoff %g is longer than the pair cutoff %g", cut_,
                  c.tables->cutmax);
    fail_input(at_,
               std::string(msg) + " (LAMMPS: \"Compute cnp/atom cutoff is longer than pairwise cutoff\")");
  }

  void compute_peratom(const ComputeContext& c) override {
    invoked_peratom = c.s.step;
    const Atoms& a = c.s.atoms;
    peratom_.assign(a.size(), 0.0);
    const AllNeighbors nb(c.s, c.comm, cut_);
    const double cutsq = cut_ * cut_;
    std::vector<std::array<double, 3>> near;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!in_group(a, i)) continue;
      near.clear();
      nb.for_each(c.s, i, [&](const AllNeighbors::Site& p, double, double, double, double) {
        near.push_back({p.x, p.y, p.z});
      });
      const double xi[3] = {a.x[i], a.y[i], a.z[i]};
      double q = 0.0;
      for (size_t j = 0; j < near.size(); ++j) {
        double sum[3] = {0.0, 0.0, 0.0};
        for (size_t k = 0; k < near.size(); ++k) {
          if (k == j) continue;
          double rsq = 0.0;
          for (int d = 0; d < 3; ++d) rsq += (near[j][d] - near[k][d]) * (near[j][d] - near[k][d]);
          if (rsq >= cutsq) continue;
          for (int d = 0; d < 3; ++d) sum[d] += 2.0 * near[k][d] - near[j][d] - xi[d];
        }
        q += sum[0] * sum[0] + sum[1] * sum[1] + sum[2] * sum[2];
      }
      peratom_[i] = q / static_cast<double>(near.size());
    }
  }

 private:
  double cut_;
  SourcePos at_;
};

std::unique_ptr<Compute> make(const ComputeArgs& c) {
  const double cut = c.a.non_negative("the cutoff Rc (Å)");
  c.a.finish();
  return std::make_unique<ComputeCnpAtom>(c, cut);
}

}  // namespace

WMD_COMPUTE_STYLE("cnp/atom", make)

}  // namespace wmd::md
