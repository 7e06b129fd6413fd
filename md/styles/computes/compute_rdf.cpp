// compute rdf Nbin [itype jtype]… [cutoff Rc]: the radial distribution function g(r) and the coordination
// number of the group's atoms, as LAMMPS compute rdf: a global array of Nbin rows, columns r (bin centre),
// then g(r) and coord(r) per type pair (one pair "* *" when none is given). Every ordered pair (i, j≠i, or
// a periodic image of i) of group atoms within the cutoff counts once in the bin of its distance; g(r)
// divides by the shell volume and the pair density N_i (N_j − duplicates/N_i)/V, where duplicates counts
// the atoms both type ranges contain. The cutoff is the pair potential's unless given; a larger one exceeds
// LAMMPS's ghost atoms and is refused as lmp refuses it.
#include <fmt/format.h>

#include <cmath>

#include "base/memory_budget.hpp"
#include "md/styles/compute.hpp"
#include "md/styles/computes/all_neighbors.hpp"
#include "md/styles/per_step_bins.hpp"

namespace wmd::md {
namespace {

class ComputeRdf : public Compute {
 public:
  struct Pair {
    int ilo, ihi, jlo, jhi;
  };
  ComputeRdf(const ComputeArgs& c, int nbin, std::vector<Pair> pairs, double cutoff)
      : Compute(c.id, c.style, c.group),
        nbin_(nbin),
        pairs_(std::move(pairs)),
        user_cut_(cutoff),
        pos_(c.a.pos()) {}
  OutputShape shape() const override {
    OutputShape s;
    s.array_rows = nbin_, s.array_cols = 1 + 2 * static_cast<int>(pairs_.size());
    return s;
  }
  void init(const ComputeContext& c) override { (void)cutoff(c); }

  void compute_array(const ComputeContext& c) override {
    invoked_array = c.s.step;
    const double cut = cutoff(c);
    const double delr = cut / nbin_, delrinv = 1.0 / delr;
    const size_t np = pairs_.size(), cols = 1 + 2 * np;
    array_.assign(static_cast<size_t>(nbin_) * cols, 0.0);
    for (int b = 0; b < nbin_; ++b) array_[b * cols] = (b + 0.5) * delr;

    // The pair counts (integers: their sum over ranks is exact) and the atoms of each type in the group.
    const Atoms& a = c.s.atoms;
    const int nt = c.s.ntypes;
    std::vector<int64_t> counts(np * nbin_ + nt + 1, 0);
    int64_t* typecount = &counts[np * nbin_];
    // Sites just beyond the cutoff may still fall below it in r·delrinv's rounding; LAMMPS's list reaches a
    // skin further and drops them by bin.
    const AllNeighbors nb(c.s, c.comm, cut * (1.0 + 1e-12));
    for (size_t i = 0; i < a.size(); ++i) {
      if (!in_group(a, i)) continue;
      const int ti = a.type[i];
      ++typecount[ti];
      nb.for_each(c.s, i, [&](const AllNeighbors::Site& p, double, double, double, double rsq) {
        if (!(p.mask & group_)) return;
        const int bin = static_cast<int>(std::sqrt(rsq) * delrinv);
        if (bin >= nbin_) return;
        for (size_t m = 0; m < np; ++m) {
          const Pair& q = pairs_[m];
          if (q.ilo <= ti && ti <= q.ihi && q.jlo <= p.type && p.type <= q.jhi) ++counts[m * nbin_ + bin];
        }
      });
    }
    c.comm.sum(counts.data(), static_cast<int>(counts.size()));

    const double constant = 4.0 * M_PI / (3.0 * c.s.box.volume());
    for (size_t m = 0; m < np; ++m) {
      const Pair& q = pairs_[m];
      int64_t icount = 0, jcount = 0, duplicates = 0;
      for (int t = q.ilo; t <= q.ihi; ++t) icount += typecount[t];
      for (int t = q.jlo; t <= q.jhi; ++t) jcount += typecount[t];
      for (int t = q.ilo; t <= q.ihi; ++t)
        if (t >= q.jlo && t <= q.jhi) duplicates += typecount[t];
      const double normfac =
          icount > 0 ? static_cast<double>(jcount) - static_cast<double>(duplicates) / icount : 0.0;
      double ncoord = 0.0;
      for (int b = 0; b < nbin_; ++b) {
        const double rlower = b * delr, rupper = (b + 1) * delr;
        const double vfrac = constant * (rupper * rupper * rupper - rlower * rlower * rlower);
        const double gr = vfrac * normfac != 0.0 ? counts[m * nbin_ + b] / (vfrac * normfac * icount) : 0.0;
        if (icount != 0) ncoord += gr * vfrac * normfac;
        array_[b * cols + 1 + 2 * m] = gr;
        array_[b * cols + 2 + 2 * m] = ncoord;
      }
    }
  }

 private:
  // The cutoff, checked as LAMMPS's init checks it: a pair style or a cutoff is needed, and the cutoff plus
  // the skin may not exceed the ghost cutoff (the pair cutoff plus the skin, or comm_modify cutoff if
  // larger).
  double cutoff(const ComputeContext& c) const {
    if (!c.tables) {
      if (user_cut_ > 0.0) return user_cut_;
      if (c.dry_run) return 1.0;  // the dry run reads no potential: values only need to be well-formed
      fail_input(pos_, "compute rdf requires a pair style be defined or cutoff specified");
    }
    if (user_cut_ <= 0.0) return c.tables->cutmax;
    const double skin = c.styles ? c.styles->neighbor_skin() : 0.0;
    const double ghost = c.styles ? c.styles->ghost_cutoff() : c.tables->cutmax + skin;
    if (user_cut_ + skin > ghost)
      fail_input(pos_, "compute rdf " + id_ + ": cutoff " + fmt::format("{:g}", user_cut_) +
                           " exceeds the ghost atoms (LAMMPS: \"Compute rdf cutoff exceeds ghost atoms - use "
                           "comm_modify cutoff command\")");
    return user_cut_;
  }

  int nbin_;
  std::vector<Pair> pairs_;
  double user_cut_;
  SourcePos pos_;
};

std::unique_ptr<Compute> make(const ComputeArgs& c) {
  const int nbin = static_cast<int>(c.a.integer("Nbin", 1, 100000000));
  check_per_step_bins("compute rdf " + c.id, nbin, c.a.pos());
  std::vector<ComputeRdf::Pair> pairs;
  double cut = 0.0;
  const int nt = c.ctx.s.ntypes;
  while (!c.a.done()) {
    const std::string w = c.a.word("a type pair or cutoff");
    if (w == "cutoff") {
      cut = c.a.positive("the cutoff Rc (Å)");
      if (!c.a.done()) c.a.fail("compute rdf: cutoff must be the last keyword");
      break;
    }
    if (c.a.done()) c.a.fail("compute rdf: type '" + w + "' has no partner (itype jtype pairs)");
    const std::string w2 = c.a.word("jtype");
    ComputeRdf::Pair p{};
    if (!io::parse_bounds(w, nt, p.ilo, p.ihi) || !io::parse_bounds(w2, nt, p.jlo, p.jhi))
      c.a.fail("compute rdf: '" + w + " " + w2 + "' is not a pair of type ranges within 1.." +
               std::to_string(nt));
    pairs.push_back(p);
  }
  if (pairs.empty()) pairs.push_back({1, nt, 1, nt});
  // Nbin comes from input: per bin the array (1 + 2·Npairs columns), the pair counts, and the copy a
  // reader of the array (fix ave/time) keeps, asked of the memory budget before any is allocated.
  const double cols = 1.0 + 2.0 * static_cast<double>(pairs.size());
  memory::check_allocation("compute rdf " + c.id + " with " + std::to_string(nbin) + " bins",
                           8.0 * nbin * (2.0 * cols + static_cast<double>(pairs.size())), c.a.pos());
  return std::make_unique<ComputeRdf>(c, nbin, std::move(pairs), cut);
}

}  // namespace

WMD_COMPUTE_STYLE("rdf", make)

}  // namespace wmd::md
