// compute property/local patom1 patom2 ptype1 ptype2 [cutoff type|radius]: the IDs and types of the two atoms
// of each pair within the pair potential's cutoff whose atoms are both in the group, as LAMMPS compute
// property/local — a local vector for one attribute, an array otherwise; each pair once over all ranks
// (local_pairs.hpp). The bond, angle, dihedral and improper attributes stop at the command (atom_style atomic
// has none: LAMMPS's "property that isn't allocated"), as does `cutoff radius` (no radius attribute). The
// neighbour-list pairs (natom1 natom2 ntype1 ntype2), whose set depends on LAMMPS's skin and last
// re-neighbouring, are refused. The cluster backend runs it (the mesh has no pair rows to gather).
#include <algorithm>

#include "md/styles/compute.hpp"
#include "md/styles/computes/local_pairs.hpp"

namespace wmd::md {
namespace {

enum class Field { atom1, atom2, type1, type2 };

class ComputePropertyLocal : public Compute {
 public:
  ComputePropertyLocal(const ComputeArgs& c, std::vector<Field> fields)
      : Compute(c.id, c.style, c.group), fields_(std::move(fields)) {}
  OutputShape shape() const override {
    OutputShape s;
    s.local_cols = fields_.size() == 1 ? 0 : static_cast<int>(fields_.size());
    return s;
  }
  unsigned backends() const override { return kOnCluster; }
  void compute_local(const ComputeContext& c) override {
    invoked_local = c.s.step;
    local_.clear();
    if (!c.tables) throw RunError("compute " + id_ + " (property/local) needs a pair potential");
    const double cut = c.tables->cutmax;
    const AllNeighbors nb(c.s, c.comm, cut);
    const Atoms& a = c.s.atoms;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!in_group(a, i)) continue;
      nb.for_each(c.s, i, [&](const AllNeighbors::Site& p, double, double, double, double) {
        if (!(p.mask & group_) || !lists_pair(a.id[i], p)) return;
        for (Field f : fields_)
          local_.push_back(f == Field::atom1   ? static_cast<double>(a.id[i])
                           : f == Field::atom2 ? static_cast<double>(p.id)
                           : f == Field::type1 ? a.type[i]
                                               : p.type);
      });
    }
  }

 private:
  std::vector<Field> fields_;
};

std::unique_ptr<Compute> make(const ComputeArgs& c) {
  static const std::vector<std::string> pair = {"patom1", "patom2", "ptype1", "ptype2"};
  static const std::vector<std::string> neigh = {"natom1", "natom2", "ntype1", "ntype2"};
  static const std::vector<std::string> topology = {
      "batom1", "batom2", "btype", "aatom1", "aatom2", "aatom3", "atype",  "datom1", "datom2",
      "datom3", "datom4", "dtype", "iatom1", "iatom2", "iatom3", "iatom4", "itype"};
  std::vector<Field> fields;
  while (!c.a.done() && c.a.peek() != "cutoff") {
    const std::string w = c.a.word("an attribute");
    const auto it = std::find(pair.begin(), pair.end(), w);
    if (it != pair.end()) {
      fields.push_back(static_cast<Field>(it - pair.begin()));
    } else if (std::find(topology.begin(), topology.end(), w) != topology.end()) {
      c.a.fail("compute property/local: '" + w +
               "' needs bonds, angles, dihedrals or impropers, which atom_style atomic does not allocate "
               "(LAMMPS: \"Compute property/local for property that isn't allocated\")");
    } else if (std::find(neigh.begin(), neigh.end(), w) != neigh.end()) {
      c.a.fail("compute property/local: '" + w +
               "' (pairs within the neighbour cutoff, which depend on LAMMPS's skin and re-neighbouring) is "
               "not supported; patom1 patom2 ptype1 ptype2 list the pairs within the force cutoff");
    } else {
      c.a.fail("compute property/local: '" + w + "' is not an attribute (patom1 patom2 ptype1 ptype2)");
    }
  }
  if (fields.empty()) c.a.fail("compute property/local needs at least one attribute");
  while (!c.a.done()) {
    const std::string k = c.a.word("a keyword");
    if (k != "cutoff") c.a.fail("compute property/local: '" + k + "' is not a keyword (cutoff type|radius)");
    const std::string v = c.a.choice("the cutoff style", {"type", "radius"});
    if (v == "radius")
      c.a.fail(
          "compute property/local: cutoff radius needs the atom attribute radius, which atom_style "
          "atomic does not have");
  }
  return std::make_unique<ComputePropertyLocal>(c, std::move(fields));
}

}  // namespace

WMD_COMPUTE_STYLE("property/local", make)

}  // namespace wmd::md
