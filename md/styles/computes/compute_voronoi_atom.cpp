// compute voronoi/atom occupation [only_group]: Wigner–Seitz occupation against the atoms' positions at the
// compute's first invocation, as LAMMPS compute voronoi/atom occupation (a per-atom array of 2 columns).
// The reference positions are the sites, each site's Voronoi cell the points nearer to it than to any other
// site (minimum image); column 1 is the number of atoms now in the cell of the site that has the atom's own
// id (0 for an id newer than the reference, so vacancies read 0), column 2 the number of atoms now in the
// cell the atom is in (2 or more: an interstitial shares it). With `only_group` only the group's atoms are
// sites; every atom is counted. The per-frame Voronoi tessellation (volumes, faces, edges) is not done here:
// without `occupation` the compute is refused.
#include <algorithm>

#include "md/cascade/wigner_seitz.hpp"
#include "md/styles/compute.hpp"

namespace wmd::md {
namespace {

class ComputeVoronoiAtom : public Compute {
 public:
  ComputeVoronoiAtom(const ComputeArgs& c, bool only_group)
      : Compute(c.id, c.style, c.group), only_group_(only_group) {}
  OutputShape shape() const override { return {false, 0, 2, false}; }

  void compute_peratom(const ComputeContext& c) override {
    invoked_peratom = c.s.step;
    const Atoms& a = c.s.atoms;
    if (!taken_) take_reference(c);
    for (int d = 0; d < 3; ++d)
      ref_box_.face[d][0] = c.s.box.face[d][0], ref_box_.face[d][1] = c.s.box.face[d][1];
    std::vector<double> pos(3 * a.size());
    for (size_t i = 0; i < a.size(); ++i)
      pos[3 * i] = a.x[i], pos[3 * i + 1] = a.y[i], pos[3 * i + 2] = a.z[i];
    const std::vector<int> cell = nearest_sites(ref_box_, sites_, pos);
    // Every site's count over all ranks: one global sum of a value per site.
    std::vector<int64_t> occ(site_id_.size(), 0);
    for (const int k : cell)
      if (k >= 0) ++occ[k];
    if (!occ.empty()) c.comm.sum(occ.data(), static_cast<int>(occ.size()));
    peratom_.assign(2 * a.size(), 0.0);
    for (size_t i = 0; i < a.size(); ++i) {
      const auto it = std::lower_bound(site_id_.begin(), site_id_.end(), a.id[i]);
      if (it != site_id_.end() && *it == a.id[i])
        peratom_[2 * i] = static_cast<double>(occ[it - site_id_.begin()]);
      if (cell[i] >= 0) peratom_[2 * i + 1] = static_cast<double>(occ[cell[i]]);
    }
  }

  void save_state(NamedArrays& out) const override {
    if (!taken_) return;
    std::vector<double>& v = out["sites"];
    v.clear();
    for (size_t k = 0; k < site_id_.size(); ++k)
      v.insert(v.end(),
               {static_cast<double>(site_id_[k]), sites_[3 * k], sites_[3 * k + 1], sites_[3 * k + 2]});
    out["box"] = {ref_box_.lo[0], ref_box_.lo[1], ref_box_.lo[2],
                  ref_box_.hi[0], ref_box_.hi[1], ref_box_.hi[2]};
  }
  void restore_state(const NamedArrays& in) override {
    const auto s = in.find("sites"), b = in.find("box");
    if (s == in.end() || b == in.end() || b->second.size() != 6) return;
    site_id_.clear(), sites_.clear();
    for (size_t k = 0; k + 3 < s->second.size(); k += 4) {
      site_id_.push_back(static_cast<int64_t>(s->second[k]));
      sites_.insert(sites_.end(), {s->second[k + 1], s->second[k + 2], s->second[k + 3]});
    }
    for (int d = 0; d < 3; ++d) ref_box_.lo[d] = b->second[d], ref_box_.hi[d] = b->second[3 + d];
    taken_ = true;
  }

 private:
  // The sites: every rank keeps all of them, ordered by atom id (so the same on any rank count), and the box
  // of that moment (LAMMPS builds its Voronoi container once, at the first invocation).
  void take_reference(const ComputeContext& c) {
    const Atoms& a = c.s.atoms;
    struct Site {
      int64_t id;
      double x, y, z;
    };
    std::vector<Site> mine;
    for (size_t i = 0; i < a.size(); ++i)
      if (!only_group_ || in_group(a, i)) mine.push_back({a.id[i], a.x[i], a.y[i], a.z[i]});
    std::vector<Site> all = c.comm.allgather(mine);
    std::sort(all.begin(), all.end(), [](const Site& p, const Site& q) { return p.id < q.id; });
    site_id_.clear(), sites_.clear();
    for (const Site& p : all) site_id_.push_back(p.id), sites_.insert(sites_.end(), {p.x, p.y, p.z});
    ref_box_ = c.s.box;
    taken_ = true;
  }

  bool only_group_;
  bool taken_ = false;
  Box ref_box_;
  std::vector<int64_t> site_id_;
  std::vector<double> sites_;
};

std::unique_ptr<Compute> make(const ComputeArgs& c) {
  bool occupation = false, only_group = false;
  while (!c.a.done()) {
    const std::string k = c.a.word("a keyword");
    if (k == "occupation") {
      occupation = true;
    } else if (k == "only_group") {
      only_group = true;
    } else {
      c.a.fail("compute voronoi/atom: keyword '" + k +
               "' is not supported (wafermd does the occupation form: occupation [only_group])");
    }
  }
  if (!occupation)
    c.a.fail(
        "compute voronoi/atom is supported only in its occupation form (Wigner–Seitz counts); Voronoi "
        "volumes, faces and neighbours are not computed");
  return std::make_unique<ComputeVoronoiAtom>(c, only_group);
}

}  // namespace

WMD_COMPUTE_STYLE("voronoi/atom", make)

}  // namespace wmd::md
