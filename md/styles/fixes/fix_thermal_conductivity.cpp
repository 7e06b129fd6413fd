// fix ID group thermal/conductivity N edim Nbin [swap Nswap]: the Müller-Plathe heat flux of LAMMPS (MISC
// package). Every N steps the box is cut into Nbin slabs along edim; the Nswap hottest atoms of the bottom
// slab and the Nswap coldest of the slab just above half height exchange kinetic energy in pairs (hottest
// with coldest, then the next two, ...): each pair's velocities are reflected through their centre-of-mass
// velocity, which swaps them for equal masses and conserves momentum and energy for any masses. f_ID is
// the total kinetic energy moved (eV), LAMMPS's e_exchange.
//
// Which atoms a rank count picks: LAMMPS keeps, on each rank, a sorted list of its Nswap best atoms (an
// insertion in atom-array order, ties behind atoms of strictly better energy, and a full list accepts only
// a strictly better atom), then pairs the global best through MPI_MINLOC, whose ties go to the lowest rank —
// so its choice among equal energies depends on the rank count. We reproduce one-rank LAMMPS at any rank
// count: each rank offers the atoms that may belong to the global list (every atom at least as good as its
// own Nswap-th best), the offers are gathered, and every rank replays the one-rank insertion over them in
// one-rank LAMMPS's array order (Atoms::order). Atoms strictly worse than the global Nswap-th best never
// change which atoms of that energy or better the list holds, so the replay over the offers gives the list
// one-rank LAMMPS gets over all atoms. The pairs' arithmetic is then done in one-rank LAMMPS's order on every
// rank (the same bits everywhere), and each rank keeps its own atoms' new velocities.
#include <algorithm>
#include <vector>

#include "base/units.hpp"
#include "md/styles/fix.hpp"
#include "md/styles/fix_state_reader.hpp"

namespace wmd::md {
namespace {

class FixThermalConductivity : public Fix {
 public:
  FixThermalConductivity(const FixArgs& f, int every, int dim, int nbin, int nswap)
      : Fix(f.id, f.style, f.group), every_(every), dim_(dim), nbin_(nbin), nswap_(nswap) {}
  bool reads_energy() const override { return false; }
  // LAMMPS: scalar_flag, extscalar 0, global_freq nevery.
  OutputShape shape() const override { return {true, 0, -1, false}; }
  int64_t global_freq() const override { return every_; }
  bool scalar(double& v) const override {
    v = e_exchange_;
    return true;
  }
  void save_state(FixStateMap& out) const override { out["e_exchange"] = {e_exchange_}; }
  void restore_state(const FixStateMap& in) override {
    // Checked before use: one finite value (the kinetic energy exchanged so far).
    if (const std::vector<double>* e = FixStateReader(in, *this).sized_finite("e_exchange", {1}))
      e_exchange_ = (*e)[0];
  }

  void end_of_step(FixContext& c) override {
    if (c.s.step % every_ != 0) return;  // LAMMPS calls end_of_step on multiples of nevery only
    const Box& b = c.s.box;
    const double boxlo = b.lo[dim_], boxhi = b.hi[dim_], prd = b.prd(dim_);
    const bool periodic = b.periodic(dim_);
    const double binsize = (boxhi - boxlo) / nbin_;
    const double lo_lo = boxlo, lo_hi = boxlo + binsize;
    const double hi_lo = boxlo + (nbin_ / 2) * binsize, hi_hi = boxlo + (nbin_ / 2 + 1) * binsize;

    // This rank's slab atoms, then its offers: the atoms at least as good as its own Nswap-th best.
    Atoms& a = c.s.atoms;
    const double* pos = dim_ == 0 ? a.x.data() : dim_ == 1 ? a.y.data() : a.z.data();
    std::vector<Candidate> lo, hi;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!(a.mask[i] & group_)) continue;
      double coord = pos[i];
      if (coord < boxlo && periodic)
        coord += prd;
      else if (coord >= boxhi && periodic)
        coord -= prd;
      const bool in_lo = coord >= lo_lo && coord < lo_hi, in_hi = coord >= hi_lo && coord < hi_hi;
      if (!in_lo && !in_hi) continue;
      const double m = c.s.mass[a.type[i]];
      double ke = a.vx[i] * a.vx[i] + a.vy[i] * a.vy[i] + a.vz[i] * a.vz[i];
      ke *= 0.5 * m;
      const Candidate cand{
          a.order[i],   ke, {a.vx[i], a.vy[i], a.vz[i]}, m, c.comm.rank(), static_cast<int32_t>(i),
          in_lo ? 0 : 1};
      (in_lo ? lo : hi).push_back(cand);
    }
    std::vector<Candidate> offer;
    keep_offers(lo, /*hottest=*/true, offer);
    keep_offers(hi, /*hottest=*/false, offer);
    std::vector<Candidate> all = c.comm.allgather(offer);
    std::sort(all.begin(), all.end(),
              [](const Candidate& p, const Candidate& q) { return p.order < q.order; });

    // One-rank LAMMPS's two lists over the offers in its atom order.
    std::vector<const Candidate*> best_lo, best_hi;
    for (const Candidate& k : all) insert(k.slab == 0 ? best_lo : best_hi, &k, k.slab == 0);

    // The swaps, pair by pair in LAMMPS's one-rank arithmetic: i the hot atom (lo), j the cold one (hi).
    double eswap = 0.0;
    const size_t npairs = std::min(best_lo.size(), best_hi.size());
    for (size_t m = 0; m < npairs; ++m) {
      const Candidate& i = *best_lo[m];
      const Candidate& j = *best_hi[m];
      const double* s = j.v;  // LAMMPS's sbuf: the hi slab's atom
      const double* r = i.v;  // rbuf: the lo slab's atom
      const double ms = j.mass, mr = i.mass;
      double vcm[3];
      for (int d = 0; d < 3; ++d) vcm[d] = (ms * s[d] + mr * r[d]) / (ms + mr);
      eswap += ms * (vcm[0] * (vcm[0] - s[0]) + vcm[1] * (vcm[1] - s[1]) + vcm[2] * (vcm[2] - s[2]));
      eswap -= mr * (vcm[0] * (vcm[0] - r[0]) + vcm[1] * (vcm[1] - r[1]) + vcm[2] * (vcm[2] - r[2]));
      for (const Candidate* k : {&j, &i}) {
        if (k->rank != c.comm.rank()) continue;
        const size_t li = static_cast<size_t>(k->local);
        a.vx[li] = 2.0 * vcm[0] - k->v[0];
        a.vy[li] = 2.0 * vcm[1] - k->v[1];
        a.vz[li] = 2.0 * vcm[2] - k->v[2];
      }
    }
    e_exchange_ += units::mvv2e * eswap;
  }

 private:
  struct Candidate {
    int64_t order;  // the atom's index in one-rank LAMMPS's arrays
    double ke;
    double v[3];
    double mass;
    int32_t rank, local, slab;  // its owner, its index there, 0: the bottom slab, 1: the middle one
  };

  // LAMMPS's insertion into a list sorted hottest first (lo slab) or coldest first (hi slab): a new atom
  // goes behind those strictly better and ahead of equal ones; a full list takes only a strictly better one.
  void insert(std::vector<const Candidate*>& list, const Candidate* k, bool hottest) const {
    auto better = [hottest](double x, double y) { return hottest ? x > y : x < y; };
    const size_t n = list.size();
    if (!(n < static_cast<size_t>(nswap_) || better(k->ke, list[nswap_ - 1]->ke))) return;
    size_t at = n;
    while (at > 0 && !better(list[at - 1]->ke, k->ke)) --at;
    list.insert(list.begin() + static_cast<std::ptrdiff_t>(at), k);
    if (list.size() > static_cast<size_t>(nswap_)) list.pop_back();
  }

  // The slab atoms of this rank that may be in the global list: all when it has at most Nswap, else those
  // at least as good as its Nswap-th best.
  void keep_offers(const std::vector<Candidate>& slab, bool hottest, std::vector<Candidate>& offer) const {
    if (slab.size() <= static_cast<size_t>(nswap_)) {
      offer.insert(offer.end(), slab.begin(), slab.end());
      return;
    }
    std::vector<double> ke(slab.size());
    for (size_t k = 0; k < slab.size(); ++k) ke[k] = hottest ? -slab[k].ke : slab[k].ke;
    std::nth_element(ke.begin(), ke.begin() + (nswap_ - 1), ke.end());
    const double cut = ke[nswap_ - 1];
    for (const Candidate& k : slab)
      if ((hottest ? -k.ke : k.ke) <= cut) offer.push_back(k);
  }

  int every_, dim_, nbin_, nswap_;
  double e_exchange_ = 0.0;
};

std::unique_ptr<Fix> make(const FixArgs& f) {
  const int every = static_cast<int>(f.a.integer("N (steps between swaps)", 1, 2000000000));
  const std::string d = f.a.choice("the dimension of the flux", {"x", "y", "z"});
  const int dim = d == "x" ? 0 : d == "y" ? 1 : 2;
  const int nbin = static_cast<int>(f.a.integer("Nbin (the number of slabs)", 3, 2000000000));
  if (nbin % 2) f.a.fail("fix thermal/conductivity: Nbin must be even and larger than 2 (LAMMPS)");
  int nswap = 1;
  while (!f.a.done()) {
    f.a.choice("a fix thermal/conductivity keyword", {"swap"});
    nswap = static_cast<int>(f.a.integer("Nswap (pairs swapped per exchange)", 1, 1000000));
  }
  return std::make_unique<FixThermalConductivity>(f, every, dim, nbin, nswap);
}

}  // namespace

WMD_FIX_STYLE("thermal/conductivity", make)

}  // namespace wmd::md
