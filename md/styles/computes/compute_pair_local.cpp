// compute pair/local dist eng force fx fy fz [cutoff type|radius]: per pair within the EAM cutoff whose atoms
// are both in the group — the pairs and order of compute property/local (local_pairs.hpp) — what LAMMPS's
// PairEAM::single gives: dist = r; eng = φ(r) plus atom 1's embedding energy F(ρ₁) shared out over the pairs
// atom 1 lists (LAMMPS's numforce; so the eng column sums to the potential energy); force = r·fpair and
// fx fy fz = (x₁ − x₂)·fpair, fpair = −(F'(ρ₁)ρ₂'(r) + F'(ρ₂)ρ₁'(r) + φ'(r))/r, where φ' is taken, as in
// LAMMPS, from eng (z2'/r − eng/r). Which atom is atom 1 is LAMMPS's neighbour-list detail, so the eng and
// force of one row differ from lmp's where lmp lists the pair from the other atom; dist, the column sums of
// eng, and force − eng/dist are the same. p1…pN stop at the command: pair_style eam has no extra fields.
// Under hybrid/overlay … zbl (or zbl alone) each row adds the ZBL sub-style's single(): its E(r) and fpair.
// The cluster backend runs it.
#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "md/styles/compute.hpp"
#include "md/styles/computes/local_pairs.hpp"

namespace wmd::md {
namespace {

enum class Field { dist, eng, force, fx, fy, fz };

class ComputePairLocal : public Compute {
 public:
  ComputePairLocal(const ComputeArgs& c, std::vector<Field> fields)
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
    if (!c.tables) throw RunError("compute " + id_ + " (pair/local) needs a pair potential");
    const potentials::EamTables& t = *c.tables;
    const AllNeighbors nb(c.s, c.comm, t.cutmax);
    const Atoms& a = c.s.atoms;
    // Every atom's density, F(ρ), F'(ρ) and the number of pairs it lists (all atoms, in the group or not).
    struct Embed {
      int64_t id;
      double fp;
    };
    std::vector<double> rho(a.size(), 0.0), share(a.size(), 0.0);
    std::vector<Embed> mine(a.size());
    for (size_t i = 0; i < a.size(); ++i) {
      int listed = 0;
      nb.for_each(c.s, i, [&](const AllNeighbors::Site& p, double, double, double, double rsq) {
        rho[i] += t.density(p.type, a.type[i], std::sqrt(rsq));
        if (lists_pair(a.id[i], p)) ++listed;
      });
      mine[i] = {a.id[i], t.embed_deriv(a.type[i], rho[i])};
      share[i] = listed > 0 ? t.embed(a.type[i], rho[i]) / listed : 0.0;
    }
    std::unordered_map<int64_t, double> fp;
    for (const Embed& e : c.comm.allgather(mine)) fp[e.id] = e.fp;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!in_group(a, i)) continue;
      const double fpi = mine[i].fp;
      nb.for_each(c.s, i, [&](const AllNeighbors::Site& p, double dx, double dy, double dz, double rsq) {
        if (!(p.mask & group_) || !lists_pair(a.id[i], p)) return;
        const double r = std::sqrt(rsq);
        double rhoip = 0.0, rhojp = 0.0;
        t.density(a.type[i], p.type, r, &rhoip);  // at atom 2 due to atom 1
        t.density(p.type, a.type[i], r, &rhojp);  // at atom 1 due to atom 2
        int m;
        double q;
        potentials::locate_r(r, t.rdr, t.nr, m, q);
        const double* k = t.z2r_knot(t.z2r_array(a.type[i], p.type), m);
        const double z2p = (k[0] * q + k[1]) * q + k[2];  // (r·φ)'
        const double z2 = ((k[3] * q + k[4]) * q + k[5]) * q + k[6];
        const double recip = 1.0 / r;
        double eng = share[i] + z2 * recip;
        const double psip = fpi * rhojp + fp.at(p.id) * rhoip + (z2p * recip - eng * recip);
        double fpair = -psip * recip;
        // hybrid/overlay (and zbl alone): LAMMPS's PairHybrid::single adds each sub-style's single() within
        // its cut-off — ZBL's energy and fpair on the pairs inside its outer cut-off (0 on a type pair it
        // does not cover).
        if (t.zbl.active() && rsq < t.zbl.outer_sq) {
          double fz;
          eng += potentials::zbl_pair(t.zbl.at(a.type[i], p.type), t.zbl.inner, t.zbl.inner_sq, rsq, fz);
          fpair += fz;
        }
        for (Field f : fields_) {
          switch (f) {
            case Field::dist:
              local_.push_back(r);
              break;
            case Field::eng:
              local_.push_back(eng);
              break;
            case Field::force:
              local_.push_back(r * fpair);
              break;
            case Field::fx:
              local_.push_back(-dx * fpair);
              break;
            case Field::fy:
              local_.push_back(-dy * fpair);
              break;
            case Field::fz:
              local_.push_back(-dz * fpair);
              break;
          }
        }
      });
    }
  }

 private:
  std::vector<Field> fields_;
};

std::unique_ptr<Compute> make(const ComputeArgs& c) {
  static const std::vector<std::string> names = {"dist", "eng", "force", "fx", "fy", "fz"};
  std::vector<Field> fields;
  while (!c.a.done() && c.a.peek() != "cutoff") {
    const std::string w = c.a.word("a pair value");
    const auto it = std::find(names.begin(), names.end(), w);
    long long n = 0;
    if (it != names.end()) {
      fields.push_back(static_cast<Field>(it - names.begin()));
    } else if (w.size() > 1 && w[0] == 'p' && io::parse_integer(w.substr(1), n) && n > 0) {
      c.a.fail("compute pair/local: pair_style eam has no extra field " + w +
               " (LAMMPS: \"Pair style does not have extra field requested by compute pair/local\")");
    } else {
      c.a.fail("compute pair/local: '" + w + "' is not a pair value (dist eng force fx fy fz)");
    }
  }
  if (fields.empty()) c.a.fail("compute pair/local needs at least one value");
  while (!c.a.done()) {
    const std::string k = c.a.word("a keyword");
    if (k != "cutoff") c.a.fail("compute pair/local: '" + k + "' is not a keyword (cutoff type|radius)");
    if (c.a.choice("the cutoff style", {"type", "radius"}) == "radius")
      c.a.fail(
          "compute pair/local: cutoff radius needs the atom attribute radius, which atom_style atomic "
          "does not have");
  }
  return std::make_unique<ComputePairLocal>(c, std::move(fields));
}

}  // namespace

WMD_COMPUTE_STYLE("pair/local", make)

}  // namespace wmd::md
