// compute cluster/atom Rc: for each atom of the group, the smallest atom ID of its cluster — the group's
// atoms joined by chains of pairs closer than Rc (periodic images included) — and 0 outside the group, as
// LAMMPS compute cluster/atom (a per-atom vector). Defect analyses of cascades (vacancy and interstitial
// clusters) read it with compute reduce or dumps. Rc must not exceed the pair cutoff, as in LAMMPS. LAMMPS
// iterates over its ghost atoms until no ID changes; here each rank joins its own atoms' close pairs with a
// union–find over atom IDs, and the ranks' unions are merged once: the same minimum IDs at any rank count and
// on either backend.
#include <algorithm>
#include <unordered_map>

#include "md/styles/compute.hpp"
#include "md/styles/computes/all_neighbors.hpp"

namespace wmd::md {
namespace {

// Union–find over atom IDs whose roots are the smallest ID of each set.
class IdUnion {
 public:
  int64_t find(int64_t id) {
    auto it = parent_.find(id);
    if (it == parent_.end()) return parent_[id] = id;
    int64_t root = id;
    while (parent_[root] != root) root = parent_[root];
    while (parent_[id] != root) {  // path compression
      const int64_t next = parent_[id];
      parent_[id] = root;
      id = next;
    }
    return root;
  }
  void join(int64_t a, int64_t b) {
    a = find(a), b = find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }
  const std::unordered_map<int64_t, int64_t>& parents() const { return parent_; }

 private:
  std::unordered_map<int64_t, int64_t> parent_;
};

class ComputeClusterAtom : public Compute {
 public:
  ComputeClusterAtom(const ComputeArgs& c, double cut)
      : Compute(c.id, c.style, c.group), cut_(cut), at_(c.a.pos()) {}
  OutputShape shape() const override { return {false, 0, 0, false}; }
  void init(const ComputeContext& c) override {
    if (!c.tables) fail_input(at_, "Compute cluster/atom requires a pair style to be defined");
    if (cut_ > c.tables->cutmax)
      fail_input(at_, "Compute cluster/atom cutoff is longer than pairwise cutoff (LAMMPS's rule)");
  }
  void compute_peratom(const ComputeContext& c) override {
    invoked_peratom = c.s.step;
    const AllNeighbors nb(c.s, c.comm, cut_);
    const Atoms& a = c.s.atoms;
    IdUnion u;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!in_group(a, i)) continue;
      u.find(a.id[i]);
      nb.for_each(c.s, i, [&](const AllNeighbors::Site& p, double, double, double, double) {
        if (p.mask & group_) u.join(a.id[i], p.id);
      });
    }
    // Every rank's (id, parent) links, merged into one union on every rank.
    std::vector<int64_t> mine;
    for (const auto& [id, parent] : u.parents()) mine.push_back(id), mine.push_back(parent);
    const std::vector<int64_t> all = c.comm.allgather(mine);
    IdUnion global;
    for (size_t k = 0; k + 1 < all.size(); k += 2) global.join(all[k], all[k + 1]);
    peratom_.assign(a.size(), 0.0);
    for (size_t i = 0; i < a.size(); ++i)
      if (in_group(a, i)) peratom_[i] = static_cast<double>(global.find(a.id[i]));
  }

 private:
  double cut_;
  SourcePos at_;
};

std::unique_ptr<Compute> make(const ComputeArgs& c) {
  const double cut = c.a.positive("the cutoff Rc (Å)");
  c.a.finish();
  return std::make_unique<ComputeClusterAtom>(c, cut);
}

}  // namespace

WMD_COMPUTE_STYLE("cluster/atom", make)

}  // namespace wmd::md
