// compute centro/atom fcc|bcc|N: the centro-symmetry parameter of each group atom, Σ over the N/2 smallest
// |R_j + R_k|² among pairs of its N nearest neighbours within the pair cutoff (0 with fewer than N), as
// LAMMPS compute centro/atom (Kelchner, Plimpton, Hamilton, PRB 58, 11085 (1998)); per-atom vector (Å²).
#include <algorithm>

#include "md/styles/compute.hpp"
#include "md/styles/computes/all_neighbors.hpp"

namespace wmd::md {
namespace {

class ComputeCentroAtom : public Compute {
 public:
  ComputeCentroAtom(const ComputeArgs& c, int nnn) : Compute(c.id, c.style, c.group), nnn_(nnn) {}
  OutputShape shape() const override { return {false, 0, 0, false}; }
  void compute_peratom(const ComputeContext& c) override {
    invoked_peratom = c.s.step;
    if (!c.tables) throw RunError("compute " + id_ + " (centro/atom) needs a pair potential");
    const AllNeighbors nb(c.s, c.comm, c.tables->cutmax);
    const Atoms& a = c.s.atoms;
    peratom_.assign(a.size(), 0.0);
    struct Near {
      double rsq, dx, dy, dz;
    };
    std::vector<Near> near;
    std::vector<double> pairs;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!in_group(a, i)) continue;
      near.clear();
      nb.for_each(c.s, i, [&](const AllNeighbors::Site&, double dx, double dy, double dz, double rsq) {
        near.push_back({rsq, dx, dy, dz});
      });
      if (static_cast<int>(near.size()) < nnn_) continue;
      std::partial_sort(near.begin(), near.begin() + nnn_, near.end(),
                        [](const Near& p, const Near& q) { return p.rsq < q.rsq; });
      pairs.clear();
      for (int j = 0; j < nnn_; ++j)
        for (int k = j + 1; k < nnn_; ++k) {
          const double x = near[j].dx + near[k].dx, y = near[j].dy + near[k].dy, z = near[j].dz + near[k].dz;
          pairs.push_back(x * x + y * y + z * z);
        }
      std::sort(pairs.begin(), pairs.end());
      double value = 0.0;
      for (int j = 0; j < nnn_ / 2; ++j) value += pairs[j];
      peratom_[i] = value;
    }
  }

 private:
  int nnn_;
};

std::unique_ptr<Compute> make(const ComputeArgs& c) {
  const std::string w = c.a.word("fcc, bcc or the number of neighbours");
  long long n = 0;
  if (w == "fcc")
    n = 12;
  else if (w == "bcc")
    n = 8;
  else if (!io::parse_integer(w, n) || n < 2 || n % 2 != 0)
    c.a.fail("compute centro/atom: '" + w + "' is not fcc, bcc or a positive even number");
  while (!c.a.done()) {
    c.a.choice("a compute centro/atom keyword", {"axes"});
    if (c.a.yes_no("axes")) c.a.fail("compute centro/atom axes yes is not supported");
  }
  return std::make_unique<ComputeCentroAtom>(c, static_cast<int>(n));
}

}  // namespace

WMD_COMPUTE_STYLE("centro/atom", make)

}  // namespace wmd::md
