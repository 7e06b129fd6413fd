// fix ID group vector Nevery value…, as Debian's lmp (LAMMPS 29 Sep 2021) does it: every Nevery steps (from
// the first multiple of Nevery at or after its definition) the global values c_ID, c_ID[i], f_ID, f_ID[i] and
// equal-style v_name are appended as one more element (one value: the global vector f_ID[i]) or one more row
// (several: the global array f_ID[i][j]). LAMMPS's rules for reading it: an index past what is stored yet is
// an error (thermo_style checks it when it is read, variables when evaluated), and during a run only on
// multiples of Nevery (its global_freq). Each run reserves room up to its last step (LAMMPS's init); a sample
// beyond it ("Overflow of allocated fix vector storage", after a timestep reset) is an error as there. The
// values are global, the same on every rank.
#include "md/styles/fix.hpp"
#include "md/styles/fix_state_reader.hpp"
#include "md/styles/reference.hpp"

namespace wmd::md {
namespace {

class FixVector : public Fix {
 public:
  FixVector(const FixArgs& f, int64_t nevery, std::vector<Reference> refs, bool extensive)
      : Fix(f.id, f.style, f.group),
        dry_run_(f.ctx.dry_run),
        nevery_(nevery),
        refs_(std::move(refs)),
        extensive_(extensive),
        pos_(f.a.pos()) {
    // LAMMPS's nextstep: the first multiple of Nevery at or after the definition's step.
    nextstep_ = (f.ctx.s.step / nevery_) * nevery_;
    if (nextstep_ < f.ctx.s.step) nextstep_ += nevery_;
    initialstep_ = nextstep_;
  }

  OutputShape shape() const override {
    OutputShape s;
    s.extensive = extensive_;
    // The checking pass takes no steps, so the length the real run will have is unknown there: any index
    // passes it (the real pass checks it as LAMMPS does).
    const int n = dry_run_ ? kUnknownLength : static_cast<int>(ncount_);
    if (refs_.size() == 1)
      s.vector = n;
    else
      s.array_rows = n, s.array_cols = static_cast<int>(refs_.size());
    return s;
  }
  double vector_value(int i) const override {
    return refs_.size() == 1 && i >= 0 && i < ncount_ ? data_[i] : 0.0;
  }
  double array_value(int i, int j) const override {
    const size_t n = refs_.size();
    return i >= 0 && i < ncount_ && j >= 0 && static_cast<size_t>(j) < n ? data_[i * n + j] : 0.0;
  }
  int64_t global_freq() const override { return nevery_; }
  bool time_dependent() const override { return true; }
  bool samples_at(int64_t step) const override { return step == nextstep_; }

  void init(FixContext& c) override {
    // Room for every sample up to the end of this run (LAMMPS's endstep: `run … stop` included).
    int64_t finalstep = (c.run_end / nevery_) * nevery_;
    if (finalstep > c.run_end) finalstep -= nevery_;
    ncountmax_ = (finalstep - initialstep_) / nevery_ + 1;
  }
  void setup(FixContext& c) override { end_of_step(c); }
  void end_of_step(FixContext& c) override {
    if (c.s.step != nextstep_) return;
    if (ncount_ >= ncountmax_)
      fail_input(pos_, "fix vector " + id_ + ": more samples than the run has room for at step " +
                           std::to_string(c.s.step) +
                           " (LAMMPS: \"Overflow of allocated fix vector storage\")");
    if (c.styles) c.styles->clearstep_computes();
    const ComputeContext cc = c.compute_context();
    for (const Reference& r : refs_) data_.push_back(reference_value(r, cc, pos_));
    nextstep_ += nevery_;
    ++ncount_;
  }

  void save_state(FixStateMap& out) const override {
    out["data"] = data_;
    out["counters"] = {static_cast<double>(ncount_), static_cast<double>(nextstep_),
                       static_cast<double>(initialstep_)};
  }
  void restore_state(const FixStateMap& in) override {
    // Checked before use: data holds exactly ncount rows of this fix's values.
    const FixStateReader r(in, *this);
    const std::vector<double>* cnt = r.sized("counters", {3});
    const std::vector<double>* d = r.find("data");
    if (!cnt || !d) return;
    const int64_t ncount = r.integer(*cnt, 0, "counters", 0, FixStateReader::kMaxStep);
    const int64_t next = r.integer(*cnt, 1, "counters", 0, FixStateReader::kMaxStep);
    const int64_t initial = r.integer(*cnt, 2, "counters", 0, FixStateReader::kMaxStep);
    // The rows are the samples at initial, initial + Nevery, ...: the counters must say so, which bounds the
    // row count by the steps sampled (LAMMPS's nextstep/initialstep).
    if (initial % nevery_ != 0)
      r.fail("counters", "value 2 (" + std::to_string(initial) + ") is not a multiple of Nevery " +
                             std::to_string(nevery_));
    if (ncount > (FixStateReader::kMaxStep - initial) / nevery_ || next != initial + ncount * nevery_)
      r.fail("counters", "value 1 (" + std::to_string(next) + ") is not the step after " +
                             std::to_string(ncount) + " samples every " + std::to_string(nevery_) +
                             " steps from step " + std::to_string(initial));
    if (d->size() / refs_.size() != static_cast<size_t>(ncount) || d->size() % refs_.size() != 0)
      r.fail("data", "has " + std::to_string(d->size()) + " values, expected " + std::to_string(ncount) +
                         " rows of " + std::to_string(refs_.size()));
    ncount_ = ncount, nextstep_ = next, initialstep_ = initial;
    data_ = *d;
  }

 private:
  static constexpr int kUnknownLength = 1000000;
  bool dry_run_;
  int64_t nevery_;
  std::vector<Reference> refs_;
  bool extensive_;
  SourcePos pos_;
  std::vector<double> data_;  // ncount_ rows of refs_.size() values
  int64_t ncount_ = 0, ncountmax_ = 0, nextstep_ = 0, initialstep_ = 0;
};

std::unique_ptr<Fix> make(const FixArgs& f) {
  io::ArgCursor& a = f.a;
  const int64_t nevery = a.integer("Nevery", 1, 2000000000);
  if (a.done()) a.fail("fix vector: no values (c_ID, c_ID[i], f_ID, f_ID[i], v_name)");
  if (!f.ctx.styles) a.fail("fix vector needs the computes, fixes and variables of a script");
  const StyleLookup& styles = *f.ctx.styles;
  std::vector<Reference> refs;
  while (!a.done()) {
    const std::string w = a.word("a value");
    Reference r;
    // lmp 2021 takes no wildcards here ("Illegal fix vector command").
    if (w.find('*') != std::string::npos || !parse_reference(w, r, a))
      a.fail("fix vector: '" + w + "' is not a value c_ID, c_ID[i], f_ID, f_ID[i] or v_name (no wildcards)");
    if (r.j > 0) a.fail("fix vector " + w + ": a value takes at most one index");
    check_reference(r, Reference::Shape::global, styles, a, "fix vector");
    if (r.kind == Reference::Kind::fix) {
      const Fix* fx = styles.fix(r.id);
      if (nevery % fx->global_freq() != 0)
        a.fail("fix vector " + w + ": fix " + r.id + " is not computed at compatible times (every " +
               std::to_string(fx->global_freq()) + " steps)");
    }
    refs.push_back(r);
  }
  // Intensive or extensive as the values are (all alike, else LAMMPS refuses); a variable is intensive.
  bool extensive = false;
  for (size_t k = 0; k < refs.size(); ++k) {
    const bool e = reference_extensive(refs[k], styles);
    if (k == 0)
      extensive = e;
    else if (e != extensive)
      a.fail(
          "fix vector: its values mix intensive and extensive ones (LAMMPS: \"Fix vector cannot set output "
          "array intensive/extensive from these inputs\")");
  }
  return std::make_unique<FixVector>(f, nevery, std::move(refs), extensive);
}

}  // namespace

WMD_FIX_STYLE("vector", make)

}  // namespace wmd::md
