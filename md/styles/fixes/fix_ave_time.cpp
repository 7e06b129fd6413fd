// fix ave/time Nevery Nrepeat Nfreq values… [mode scalar|vector] [ave one|running|window M] [start S]
// [off col] [file F] [overwrite] [format fmt] [title1|title2|title3 text], as LAMMPS fix ave/time: on every
// Nfreq step it averages the Nrepeat samples taken Nevery steps apart (ending there) of global values —
// c_ID, c_ID[i], f_ID, f_ID[i], v_name in scalar mode; compute or fix global vectors (c_ID) and array
// columns (c_ID[i]) in vector mode; c_ID[*] expands to every element or column as in LAMMPS — and combines
// them with earlier Nfreq averages (running, window). Its outputs: scalar mode a scalar (one value) or a
// vector (one per value); vector mode a vector (one value) or an array (rows × values). The file gets
// LAMMPS's header and rows (" %g" per value).
#include <cstdio>
#include <fstream>

#include "base/memory_budget.hpp"
#include "md/styles/averaging.hpp"
#include "md/styles/fix.hpp"
#include "md/styles/fix_state_reader.hpp"
#include "md/styles/reference.hpp"

namespace wmd::md {
namespace {

class FixAveTime : public Fix {
 public:
  struct Options {
    bool vector_mode = false;
    enum { one, running, window } ave = one;
    int nwindow = 1;
    int64_t start = 0;
    std::vector<int> off;  // 1-based value columns that are not averaged (their last value instead)
    std::string file, format = " %g", title[3];
    bool overwrite = false;
  };

  FixAveTime(const FixArgs& f, int64_t nevery, int64_t nrepeat, int64_t nfreq, std::vector<Reference> refs,
             Options o, int nrows, bool extensive)
      : Fix(f.id, f.style, f.group),
        nevery_(nevery),
        nrepeat_(nrepeat),
        nfreq_(nfreq),
        refs_(std::move(refs)),
        o_(std::move(o)),
        nrows_(nrows),
        extensive_(extensive),
        pos_(f.a.pos()) {
    const size_t n = static_cast<size_t>(nrows_) * refs_.size();
    sum_.assign(n, 0.0), total_.assign(n, 0.0);
    offcol_.assign(refs_.size(), false);
    for (int c : o_.off) offcol_[c - 1] = true;
    nvalid_ = next_valid(f.ctx.s.step);
  }

  OutputShape shape() const override {
    OutputShape s;
    s.extensive = extensive_;
    const int nv = static_cast<int>(refs_.size());
    if (!o_.vector_mode) {
      if (nv == 1)
        s.scalar = true;
      else
        s.vector = nv;
    } else if (nv == 1) {
      s.vector = nrows_;
    } else {
      s.array_rows = nrows_, s.array_cols = nv;
    }
    return s;
  }
  bool scalar(double& v) const override {
    if (o_.vector_mode || refs_.size() != 1) return false;
    v = norm_ ? total_[0] / norm_ : 0.0;
    return true;
  }
  double vector_value(int i) const override {
    if (!norm_ || i < 0) return 0.0;
    // scalar mode: one element per value; vector mode with one value: one per row
    return static_cast<size_t>(i) < total_.size() ? total_[i] / norm_ : 0.0;
  }
  double array_value(int i, int j) const override {
    const size_t k = static_cast<size_t>(i) * refs_.size() + j;
    return norm_ && k < total_.size() ? total_[k] / norm_ : 0.0;
  }
  int64_t global_freq() const override { return nfreq_; }
  bool samples_at(int64_t step) const override { return step == nvalid_; }

  void setup(FixContext& c) override {
    if (!opened_) open_file(c);
    // A minimisation or a reset step may have left the next sample behind (LAMMPS's init).
    if (nvalid_ < c.s.step) irepeat_ = 0, nvalid_ = next_valid(c.s.step);
    end_of_step(c);
  }
  void end_of_step(FixContext& c) override {
    if (c.s.step != nvalid_) return;
    sample(c);
  }

  void save_state(FixStateMap& out) const override {
    out["sum"] = sum_, out["total"] = total_, out["window"] = list_;
    out["counters"] = {static_cast<double>(irepeat_), static_cast<double>(nvalid_),
                       static_cast<double>(norm_), static_cast<double>(iwindow_), window_full_ ? 1.0 : 0.0};
  }
  void restore_state(const FixStateMap& in) override {
    // Checked against this fix's own shape before anything is assigned: sum and total hold one value per
    // output, the window nwindow samples of them, the window index lies inside it.
    const FixStateReader r(in, *this);
    const size_t n = sum_.size();
    const int64_t nwindow = o_.ave == Options::window ? o_.nwindow : 1;
    const std::vector<double>*sum = r.sized("sum", {n}), *total = r.sized("total", {n});
    const std::vector<double>* window = r.sized("window", {0, static_cast<size_t>(nwindow) * n});
    const std::vector<double>* cnt = r.sized("counters", {5});
    int64_t irepeat = 0, nvalid = 0, norm = 0, iwindow = 0, full = 0;
    if (cnt) {
      irepeat = r.integer(*cnt, 0, "counters", 0, nrepeat_);
      nvalid = r.integer(*cnt, 1, "counters", 0, FixStateReader::kMaxStep);
      norm = r.integer(*cnt, 2, "counters", 0, FixStateReader::kMaxStep);
      iwindow = r.integer(*cnt, 3, "counters", 0, nwindow - 1);
      full = r.integer(*cnt, 4, "counters", 0, 1);
    }
    if (sum) sum_ = *sum;
    if (total) total_ = *total;
    if (window) list_ = *window;
    if (!cnt) return;
    irepeat_ = irepeat, nvalid_ = nvalid, norm_ = norm, iwindow_ = static_cast<int>(iwindow);
    window_full_ = full != 0;
  }

 private:
  // LAMMPS's nextvalid: the first step of the Nrepeat samples that end on the next Nfreq multiple (this step
  // itself when it is a multiple and one sample suffices), not before `start`.
  int64_t next_valid(int64_t step) const {
    return averaging_next_valid(step, nevery_, nrepeat_, nfreq_, o_.start);
  }

  void sample(FixContext& c) {
    const size_t nv = refs_.size();
    if (irepeat_ == 0) std::fill(sum_.begin(), sum_.end(), 0.0);
    if (c.styles) c.styles->clearstep_computes();
    const ComputeContext cc = c.compute_context();
    for (size_t v = 0; v < nv; ++v) {
      const Reference& r = refs_[v];
      if (!o_.vector_mode) {
        accumulate(v, reference_value(r, cc, pos_));
        continue;
      }
      for (int row = 0; row < nrows_; ++row) {
        double x = 0.0;
        if (r.kind == Reference::Kind::compute) {
          Compute* cp = c.styles ? c.styles->compute(r.id) : nullptr;
          if (!cp) fail_input(pos_, "fix ave/time: compute " + r.id + " does not exist (any more)");
          if (r.i == 0) {
            const std::vector<double>& vec = invoke_vector(*cp, cc);
            x = static_cast<size_t>(row) < vec.size() ? vec[row] : 0.0;
          } else {
            const std::vector<double>& arr = invoke_array(*cp, cc);
            const size_t k = static_cast<size_t>(row) * cp->shape().array_cols + (r.i - 1);
            x = k < arr.size() ? arr[k] : 0.0;
          }
        } else {
          Fix* fx = c.styles ? c.styles->fix(r.id) : nullptr;
          if (!fx) fail_input(pos_, "fix ave/time: fix " + r.id + " does not exist (any more)");
          x = r.i == 0 ? fx->vector_value(row) : fx->array_value(row, r.i - 1);
        }
        accumulate(static_cast<size_t>(row) * nv + v, x);
      }
    }
    if (++irepeat_ < nrepeat_) {
      nvalid_ += nevery_;
      return;
    }
    irepeat_ = 0;
    nvalid_ = c.s.step + nfreq_ - (nrepeat_ - 1) * nevery_;
    for (size_t k = 0; k < sum_.size(); ++k)
      if (!offcol_[k % nv]) sum_[k] /= static_cast<double>(nrepeat_);
    if (o_.ave == Options::one) {
      total_ = sum_;
      norm_ = 1;
    } else if (o_.ave == Options::running) {
      for (size_t k = 0; k < sum_.size(); ++k) total_[k] += sum_[k];
      ++norm_;
    } else {
      if (list_.empty()) list_.assign(static_cast<size_t>(o_.nwindow) * sum_.size(), 0.0);
      double* slot = &list_[static_cast<size_t>(iwindow_) * sum_.size()];
      for (size_t k = 0; k < sum_.size(); ++k) {
        total_[k] += sum_[k];
        if (window_full_) total_[k] -= slot[k];
        slot[k] = sum_[k];
      }
      if (++iwindow_ == o_.nwindow) iwindow_ = 0, window_full_ = true;
      norm_ = window_full_ ? o_.nwindow : iwindow_;
    }
    for (size_t k = 0; k < sum_.size(); ++k)
      if (offcol_[k % nv]) total_[k] = static_cast<double>(norm_) * sum_[k];
    write_row(c);
  }
  void accumulate(size_t k, double x) {
    if (offcol_[k % refs_.size()])
      sum_[k] = x;
    else
      sum_[k] += x;
  }

  // LAMMPS opens the file when the fix is defined; here at its first run's set-up (the dry run writes
  // nothing), by rank 0.
  void open_file(FixContext& c) {
    opened_ = true;
    if (o_.file.empty() || !c.comm.root()) return;
    out_.open(o_.file, std::ios::trunc);
    if (!out_) throw RunError("fix ave/time " + id_ + ": cannot open file '" + o_.file + "'");
    std::string names;
    for (const Reference& r : refs_) names += " " + r.text;
    out_ << (o_.title[0].empty() ? "# Time-averaged data for fix " + id_ : o_.title[0]) << "\n";
    if (!o_.title[1].empty())
      out_ << o_.title[1] << "\n";
    else
      out_ << (o_.vector_mode ? "# TimeStep Number-of-rows" : "# TimeStep" + names) << "\n";
    if (o_.vector_mode) out_ << (o_.title[2].empty() ? "# Row" + names : o_.title[2]) << "\n";
    out_.flush();
    header_end_ = out_.tellp();
  }
  void write_row(FixContext& c) {
    if (!out_.is_open() || !c.comm.root()) return;
    if (o_.overwrite) out_.seekp(header_end_);
    char buf[64];
    auto value = [&](double x) {
      std::snprintf(buf, sizeof buf, o_.format.c_str(), x);
      out_ << buf;
    };
    const size_t nv = refs_.size();
    if (!o_.vector_mode) {
      out_ << c.s.step;
      for (size_t v = 0; v < nv; ++v) value(total_[v] / norm_);
      out_ << "\n";
    } else {
      out_ << c.s.step << " " << nrows_ << "\n";
      for (int row = 0; row < nrows_; ++row) {
        out_ << row + 1;
        for (size_t v = 0; v < nv; ++v) value(total_[row * nv + v] / norm_);
        out_ << "\n";
      }
    }
    finish_average_write(out_, o_.file, o_.overwrite, "fix ave/time " + id_);
  }

  int64_t nevery_, nrepeat_, nfreq_;
  std::vector<Reference> refs_;
  Options o_;
  int nrows_;
  bool extensive_;
  SourcePos pos_;
  std::vector<bool> offcol_;
  std::vector<double> sum_, total_, list_;  // this Nfreq's sums; the combined totals; the window's slots
  int64_t irepeat_ = 0, nvalid_ = 0, norm_ = 0;
  int iwindow_ = 0;
  bool window_full_ = false, opened_ = false;
  std::ofstream out_;
  std::streampos header_end_ = 0;
};

std::unique_ptr<Fix> make(const FixArgs& f) {
  io::ArgCursor& a = f.a;
  const AveragingSchedule sched = read_averaging_schedule(a, "fix ave/time");
  const int64_t nevery = sched.nevery, nrepeat = sched.nrepeat, nfreq = sched.nfreq;
  // The values, expanded (c_ID[*]) once the mode is known.
  std::vector<std::string> words;
  while (!a.done()) {
    const std::string w = a.peek();
    if (w.size() < 3 || w[1] != '_' || (w[0] != 'c' && w[0] != 'f' && w[0] != 'v')) break;
    words.push_back(a.word("a value"));
  }
  if (words.empty()) a.fail("fix ave/time: no values (c_ID, c_ID[i], f_ID, f_ID[i], v_name)");
  FixAveTime::Options o;
  while (!a.done()) {
    const std::string k = a.word("a keyword");
    if (k == "mode") {
      o.vector_mode = a.choice("the mode", {"scalar", "vector"}) == "vector";
    } else if (k == "ave") {
      const std::string m = a.choice("the averaging", {"one", "running", "window"});
      o.ave = m == "one"       ? FixAveTime::Options::one
              : m == "running" ? FixAveTime::Options::running
                               : FixAveTime::Options::window;
      if (m == "window") o.nwindow = static_cast<int>(a.integer("the window M", 1, 100000000));
    } else if (k == "start") {
      o.start = a.integer("the start step", 0, INT64_MAX);
    } else if (k == "off") {
      o.off.push_back(static_cast<int>(a.integer("the column not averaged", 1, 1000000)));
    } else if (k == "file") {
      o.file = a.word("a file name");
    } else if (k == "overwrite") {
      o.overwrite = true;
    } else if (k == "format") {
      o.format = a.word("a format");  // replaces " %g" whole (LAMMPS adds no space)
      // One number, printed with a floating-point conversion, and nothing else taking an argument.
      const size_t pct = o.format.find('%');
      const size_t conv = pct == std::string::npos ? pct : o.format.find_first_of("eEfgG", pct);
      if (pct == std::string::npos || o.format.find('%', pct + 1) != std::string::npos ||
          conv == std::string::npos || o.format.find_first_not_of("0123456789.-+ #", pct + 1) != conv)
        a.fail("fix ave/time: format '" + o.format + "' must print one floating-point value");
    } else if (k == "title1" || k == "title2" || k == "title3") {
      o.title[k[5] - '1'] = a.word("a title");
    } else {
      a.fail("fix ave/time: keyword '" + k +
             "' is not supported (mode, ave, start, off, file, overwrite, "
             "format, title1, title2, title3)");
    }
  }
  if (!f.ctx.styles) a.fail("fix ave/time needs the computes, fixes and variables of a script");
  const StyleLookup& styles = *f.ctx.styles;
  std::vector<Reference> refs;
  for (const std::string& w : words)
    for (const std::string& e : expand_wildcard(w, o.vector_mode, styles, a)) {
      Reference r;
      parse_reference(e, r, a);
      refs.push_back(r);
    }
  for (int c : o.off)
    if (c > static_cast<int>(refs.size()))
      a.fail("fix ave/time: off " + std::to_string(c) + " names no value");
  int nrows = 1;
  bool extensive = false;
  for (size_t v = 0; v < refs.size(); ++v) {
    const Reference& r = refs[v];
    int len = 1;
    if (!o.vector_mode) {
      check_reference(r, Reference::Shape::global, styles, a, "fix ave/time");
    } else {
      if (r.kind == Reference::Kind::variable)
        a.fail("fix ave/time " + r.text + ": a variable cannot be used in vector mode");
      if (r.j > 0) a.fail("fix ave/time " + r.text + ": vector mode takes c_ID or c_ID[i]");
      OutputShape s;
      if (r.kind == Reference::Kind::compute) {
        const Compute* cp = styles.compute(r.id);
        if (!cp) a.fail("fix ave/time " + r.text + ": compute " + r.id + " does not exist");
        s = cp->shape();
      } else {
        const Fix* fx = styles.fix(r.id);
        if (!fx) a.fail("fix ave/time " + r.text + ": fix " + r.id + " does not exist");
        s = fx->shape();
      }
      if (r.i == 0 && s.vector == 0) a.fail("fix ave/time " + r.text + ": it has no global vector");
      if (r.i > 0 && !s.array()) a.fail("fix ave/time " + r.text + ": it has no global array");
      if (r.i > s.array_cols && r.i > 0)
        a.fail("fix ave/time " + r.text + ": the array has " + std::to_string(s.array_cols) + " columns");
      len = r.i == 0 ? s.vector : s.array_rows;
      if (v > 0 && len != nrows) a.fail("fix ave/time: the columns have different lengths");
      nrows = len;
    }
    if (r.kind == Reference::Kind::fix) {
      const Fix* fx = styles.fix(r.id);
      if (fx && nevery % fx->global_freq() != 0)
        a.fail("fix ave/time: fix " + r.id + " is not computed at compatible times (every " +
               std::to_string(fx->global_freq()) + " steps)");
    }
    if (v == 0) extensive = reference_extensive(r, styles);
  }
  // A window keeps M samples of every row of every value (allocated at the first output): M comes from
  // input, so the budget is asked here, where the input is refused (exit 2), not at that step.
  if (o.ave == FixAveTime::Options::window)
    memory::check_allocation(
        "fix ave/time window " + std::to_string(o.nwindow) + " of " + std::to_string(refs.size()) + " values",
        8.0 * o.nwindow * static_cast<double>(nrows) * static_cast<double>(refs.size()), a.pos());
  return std::make_unique<FixAveTime>(f, nevery, nrepeat, nfreq, std::move(refs), std::move(o), nrows,
                                      extensive);
}

}  // namespace

WMD_FIX_STYLE("ave/time", make)

}  // namespace wmd::md
