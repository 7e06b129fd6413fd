// fix ave/histo/weight (LAMMPS 29 Sep 2021): fix ave/histo with two values, the first binned, the second its
// weight (element by element: per atom, per local row, per vector element; a global scalar weighs a global
// scalar). Everything but the binning is fix ave/histo's (fix_ave_histo.hpp), including lmp 2021's quirks:
// a vx, vy or vz weight also counts its own values unweighted, and two atom-style variables weigh the values
// by themselves (LAMMPS evaluates both into one buffer).
#include "md/styles/fixes/fix_ave_histo.hpp"

namespace wmd::md {
namespace {

class FixAveHistoWeight : public FixAveHisto {
 public:
  FixAveHistoWeight(const FixArgs& f, Setup s) : FixAveHisto(f, std::move(s)) {}

 protected:
  void bin_step(FixContext& c) override {
    using W = Value::Which;
    const Atoms& a = c.s.atoms;
    std::vector<double> weights, vals;
    bool weights_per_atom = false, vals_per_atom = false;
    values_of(values_[1], c, weights, weights_per_atom);
    if (values_[1].which == W::v)  // lmp 2021 bins the velocity weights themselves too (bin_atoms)
      for (size_t i = 0; i < a.size() && i < weights.size(); ++i)
        if (selected(c.s, i)) bin_one(weights[i], 1.0);
    values_of(values_[0], c, vals, vals_per_atom);
    if (values_[0].which == W::variable && values_[1].which == W::variable && kind_ == Kind::peratom)
      weights = vals;  // one buffer for both atom-style variables in LAMMPS
    if (vals_per_atom) {
      for (size_t i = 0; i < a.size() && i < vals.size(); ++i)
        if (selected(c.s, i)) bin_one(vals[i], weight_at(weights, i));
      return;
    }
    if (kind_ == Kind::global && !o_.vector_mode) {
      bin_one(vals.at(0), weights.at(0));
      return;
    }
    for (size_t k = 0; k < vals.size(); ++k) bin_one(vals[k], weight_at(weights, k));
  }

 private:
  double weight_at(const std::vector<double>& w, size_t k) const {
    // LAMMPS reads past a shorter weight list (undefined); refuse instead of guessing.
    if (k >= w.size())
      fail_input(pos_, "fix ave/histo/weight " + id_ + ": " + values_[1].ref.text + " has fewer values (" +
                           std::to_string(w.size()) + ") than " + values_[0].ref.text);
    return w[k];
  }
};

std::unique_ptr<Fix> make(const FixArgs& f) {
  return std::make_unique<FixAveHistoWeight>(f, FixAveHisto::parse(f, true));
}

}  // namespace

WMD_FIX_STYLE("ave/histo/weight", make)

}  // namespace wmd::md
