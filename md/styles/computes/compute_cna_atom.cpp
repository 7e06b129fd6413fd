// compute cna/atom Rc: common neighbour analysis, as LAMMPS compute cna/atom — per group atom 1 fcc, 2 hcp,
// 3 bcc, 4 icosahedral, 5 other, 0 outside the group. An atom with 12 or 14 neighbours within Rc gets, per
// neighbour j, the number of neighbours it shares with j, the bonds (pairs within Rc) among those and the
// most and fewest bonds of any of them; fcc is twelve (4,2,1,1), hcp six of those and six (4,2,2,0),
// icosahedral twelve (5,5,2,2), bcc six (4,4,2,2) and eight (6,6,2,2). (LAMMPS keeps at most 16 neighbours
// per atom and 64 common ones; beyond that it warns, and the atom is "other" here too.)
#include <algorithm>
#include <array>

#include "md/styles/compute.hpp"
#include "md/styles/computes/all_neighbors.hpp"

namespace wmd::md {
namespace {

class ComputeCnaAtom : public Compute {
 public:
  ComputeCnaAtom(const ComputeArgs& c, double cut) : Compute(c.id, c.style, c.group), cut_(cut) {}
  OutputShape shape() const override { return {false, 0, 0, false}; }

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
      const size_t n = near.size();
      peratom_[i] = 5.0;  // other
      if (n != 12 && n != 14) continue;
      auto bonded = [&](size_t p, size_t q) {
        const double dx = near[p][0] - near[q][0], dy = near[p][1] - near[q][1], dz = near[p][2] - near[q][2];
        return dx * dx + dy * dy + dz * dz < cutsq;
      };
      int nfcc = 0, nhcp = 0, nico = 0, nbcc4 = 0, nbcc6 = 0;
      for (size_t j = 0; j < n; ++j) {
        size_t common[16];
        int ncommon = 0;
        for (size_t k = 0; k < n; ++k)
          if (k != j && bonded(j, k)) common[ncommon++] = k;
        int bonds[16] = {0}, nbonds = 0;
        for (int p = 0; p + 1 < ncommon; ++p)
          for (int q = p + 1; q < ncommon; ++q)
            if (bonded(common[p], common[q])) ++nbonds, ++bonds[p], ++bonds[q];
        int maxb = 0, minb = 64;
        for (int p = 0; p < ncommon; ++p) maxb = std::max(maxb, bonds[p]), minb = std::min(minb, bonds[p]);
        if (n == 12) {
          if (ncommon == 4 && nbonds == 2 && maxb == 1 && minb == 1)
            ++nfcc;
          else if (ncommon == 4 && nbonds == 2 && maxb == 2 && minb == 0)
            ++nhcp;
          else if (ncommon == 5 && nbonds == 5 && maxb == 2 && minb == 2)
            ++nico;
        } else {
          if (ncommon == 4 && nbonds == 4 && maxb == 2 && minb == 2)
            ++nbcc4;
          else if (ncommon == 6 && nbonds == 6 && maxb == 2 && minb == 2)
            ++nbcc6;
        }
      }
      if (n == 12 && nfcc == 12)
        peratom_[i] = 1.0;
      else if (n == 12 && nfcc == 6 && nhcp == 6)
        peratom_[i] = 2.0;
      else if (n == 12 && nico == 12)
        peratom_[i] = 4.0;
      else if (n == 14 && nbcc4 == 6 && nbcc6 == 8)
        peratom_[i] = 3.0;
    }
  }

 private:
  double cut_;
};

std::unique_ptr<Compute> make(const ComputeArgs& c) {
  const double cut = c.a.positive("the cutoff Rc (Å)");
  c.a.finish();
  return std::make_unique<ComputeCnaAtom>(c, cut);
}

}  // namespace

WMD_COMPUTE_STYLE("cna/atom", make)

}  // namespace wmd::md
