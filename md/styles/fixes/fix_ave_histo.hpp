// fix ave/histo and fix ave/histo/weight, as Debian's lmp (LAMMPS 29 Sep 2021) does them:
//   fix ID group ave/histo[/weight] Nevery Nrepeat Nfreq lo hi Nbin value… [mode scalar|vector]
//       [kind global|peratom|local] [file F] [ave one|running|window M] [start S] [beyond ignore|end|extra]
//       [overwrite] [title1|title2|title3 text]
// Values: x y z vx vy vz fx fy fz (per-atom), c_ID, c_ID[i], f_ID, f_ID[i], v_name (equal- or atom-style) and
// c_ID[*]/f_ID[*] wildcards, all of one kind (global, per-atom or local). Nrepeat samples Nevery steps apart,
// ending on each Nfreq step, are binned together; the histograms of successive Nfreq steps are combined by
// `ave`. Outputs: the global vector (total count, missing count, minimum, maximum) and the global array, one
// row per bin (bin centre, count, count/total), read as f_ID[i] and f_ID[i][j]; the file gets LAMMPS's
// header and rows. ave/histo/weight bins the first value with the second as weight.
// lmp 2021's quirks are kept (docs/lammps-scripts.md): a running minimum and maximum start from 0, not from
// the first sample; a global-vector fix value bins the fix's size_vector rows and ends the list of values
// there; a vx/vy/vz weight of ave/histo/weight also counts the weights themselves; two atom-style variables
// of ave/histo/weight weigh the values by themselves. Per-atom fix arrays (f_ID[j], j > 1) are refused:
// lmp 2021 reads rows there, not the column.
// Per-atom and local values are counted on each rank and summed (counts exactly, weights through TermSum)
// at every sample, so the accumulators are global and the same at any rank count.
#pragma once
#include <fstream>
#include <string>
#include <vector>

#include "md/styles/fix.hpp"
#include "md/styles/reference.hpp"

namespace wmd::md {

class FixAveHisto : public Fix {
 public:
  enum class Kind { global, peratom, local };
  // One input: an atom attribute or a compute, fix or variable reference.
  struct Value {
    enum class Which { x, v, f, compute, fix, variable } which = Which::x;
    int dim = 0;    // the attribute's component (x y z)
    Reference ref;  // ref.i: LAMMPS's argindex (0: none)
  };
  struct Options {
    bool vector_mode = false;
    enum { ignore, end, extra } beyond = ignore;
    enum { one, running, window } ave = one;
    int nwindow = 0;
    int64_t start = 0;
    std::string file, title[3];
    bool overwrite = false;
  };
  struct Setup {
    int64_t nevery = 0, nrepeat = 0, nfreq = 0;
    double lo = 0.0, hi = 0.0;
    int nbins = 0;
    std::vector<Value> values;
    Kind kind = Kind::global;
    Options o;
  };

  FixAveHisto(const FixArgs& f, Setup s);

  // A compute or variable it reads may need the step's global energy or virial summed.
  bool reads_energy() const override;
  OutputShape shape() const override;
  double vector_value(int i) const override;
  double array_value(int i, int j) const override;
  int64_t global_freq() const override { return nfreq_; }
  bool samples_at(int64_t step) const override { return step == nvalid_; }
  void init(FixContext& c) override;
  void setup(FixContext& c) override;
  void end_of_step(FixContext& c) override;
  void save_state(FixStateMap& out) const override;
  void restore_state(const FixStateMap& in) override;

  /// Parses the arguments of either style (weighted: ave/histo/weight, exactly two values of one length).
  static Setup parse(const FixArgs& f, bool weighted);

 protected:
  /// This step's values of `v` as LAMMPS's fix reads them: per-atom (one per local atom, state order;
  /// per_atom set) or a list (a global scalar, a global vector or array column, local rows).
  void values_of(const Value& v, FixContext& c, std::vector<double>& out, bool& per_atom);
  /// Bins the values of one step into the sample accumulators (ave/histo/weight overrides it).
  virtual void bin_step(FixContext& c);
  /// LAMMPS's bin_one: counts `weight` in the bin of `value` (or as missing), tracking the extrema.
  void bin_one(double value, double weight);

  int64_t nevery_, nrepeat_, nfreq_;
  double lo_, hi_, bininv_ = 0.0;
  int nbins_;  // with beyond extra, two more than asked
  std::vector<Value> values_;
  Kind kind_;
  Options o_;
  SourcePos pos_;
  // This rank's counts of the present step (kind peratom/local, summed over ranks before they join the
  // sample) or the global ones (kind global): count, missing, min, max; bins.
  double step_stats_[4] = {0.0, 0.0, 0.0, 0.0};
  std::vector<double> step_bin_;

 private:
  int64_t next_valid(int64_t step) const;
  void reduce_step(FixContext& c);
  void combine();
  void open_file(FixContext& c);
  void write_rows(FixContext& c);

  std::vector<double> coord_, bin_, bin_total_, bin_list_, stats_list_;
  double stats_[4] = {0.0, 0.0, 0.0, 0.0}, stats_total_[4] = {0.0, 0.0, 0.0, 0.0};
  int64_t irepeat_ = 0, nvalid_ = 0, nvalid_last_ = -1;
  int iwindow_ = 0;
  bool window_full_ = false, opened_ = false;
  std::ofstream out_;
  std::streampos header_end_ = 0;
};

}  // namespace wmd::md
