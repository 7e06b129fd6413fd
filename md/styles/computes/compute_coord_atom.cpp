// compute coord/atom cutoff Rc [group G] [typeN …]: for each group atom, the number of neighbours within Rc
// (in group G, default all), one column per type range (i, i*j, *j, i*, *), as LAMMPS compute coord/atom
// cutoff (a per-atom vector for one column, an array otherwise; 0 outside the group). Older `coord/atom Rc
// [typeN …]` is read too.
#include "md/styles/compute.hpp"
#include "md/styles/computes/all_neighbors.hpp"

namespace wmd::md {
namespace {

class ComputeCoordAtom : public Compute {
 public:
  ComputeCoordAtom(const ComputeArgs& c, double cut, uint32_t group2, std::vector<std::pair<int, int>> ranges)
      : Compute(c.id, c.style, c.group), cut_(cut), group2_(group2), ranges_(std::move(ranges)) {}
  OutputShape shape() const override {
    return {false, 0, ranges_.size() == 1 ? 0 : static_cast<int>(ranges_.size()), false};
  }
  void compute_peratom(const ComputeContext& c) override {
    invoked_peratom = c.s.step;
    const AllNeighbors nb(c.s, c.comm, cut_);
    const size_t cols = ranges_.size();
    const Atoms& a = c.s.atoms;
    peratom_.assign(cols * a.size(), 0.0);
    for (size_t i = 0; i < a.size(); ++i) {
      if (!in_group(a, i)) continue;
      nb.for_each(c.s, i, [&](const AllNeighbors::Site& p, double, double, double, double) {
        if (!(p.mask & group2_)) return;
        for (size_t k = 0; k < cols; ++k)
          if (p.type >= ranges_[k].first && p.type <= ranges_[k].second) peratom_[cols * i + k] += 1.0;
      });
    }
  }

 private:
  double cut_;
  uint32_t group2_;
  std::vector<std::pair<int, int>> ranges_;
};

// A LAMMPS type range: i, *, i*, *j, i*j over 1..ntypes.
std::pair<int, int> type_range(const std::string& w, int ntypes, const io::ArgCursor& a) {
  const size_t star = w.find('*');
  long long lo = 1, hi = ntypes;
  auto num = [&](const std::string& t, long long& v) {
    if (!io::parse_integer(t, v) || v < 1 || v > ntypes)
      a.fail("compute coord/atom: '" + w + "' is not a type range within 1.." + std::to_string(ntypes));
  };
  if (star == std::string::npos) {
    num(w, lo);
    hi = lo;
  } else {
    if (star > 0) num(w.substr(0, star), lo);
    if (star + 1 < w.size()) num(w.substr(star + 1), hi);
  }
  return {static_cast<int>(lo), static_cast<int>(hi)};
}

std::unique_ptr<Compute> make(const ComputeArgs& c) {
  std::string w = c.a.word("cutoff Rc (or Rc)");
  if (w == "orientorder") c.a.fail("compute coord/atom orientorder is not supported");
  if (w == "cutoff") w = c.a.word("the cutoff Rc (Å)");
  double cut = 0.0;
  if (!io::parse_double(w, cut) || cut <= 0.0)
    c.a.fail("compute coord/atom: the cutoff must be a positive number");
  uint32_t group2 = 1u;
  std::vector<std::pair<int, int>> ranges;
  while (!c.a.done()) {
    const std::string k = c.a.word("a type range or group");
    if (k == "group") {
      const std::string g = c.a.word("a group ID");
      group2 = c.ctx.s.group_bit(g);
      if (!group2) c.a.fail("compute coord/atom: group " + g + " does not exist");
    } else {
      ranges.push_back(type_range(k, c.ctx.s.ntypes, c.a));
    }
  }
  if (ranges.empty()) ranges.push_back({1, c.ctx.s.ntypes});
  return std::make_unique<ComputeCoordAtom>(c, cut, group2, std::move(ranges));
}

}  // namespace

WMD_COMPUTE_STYLE("coord/atom", make)

}  // namespace wmd::md
