// fix ave/histo (LAMMPS 29 Sep 2021): the histogram of per-atom, local or global values; the parsing, the
// sampling schedule, the averages and the file both ave/histo styles share (fix_ave_histo.hpp).
#include "md/styles/fixes/fix_ave_histo.hpp"

#include <algorithm>
#include <cstdio>

#include "base/memory_budget.hpp"
#include "md/styles/averaging.hpp"
#include "md/styles/fix_state_reader.hpp"
#include "md/styles/per_step_bins.hpp"

namespace wmd::md {
namespace {

constexpr double kBig = 1.0e20;  // LAMMPS's BIG: the extrema of a sample before any value
const char* const kAttributes[] = {"x", "y", "z", "vx", "vy", "vz", "fx", "fy", "fz"};

bool is_value_word(const std::string& w) {
  for (const char* k : kAttributes)
    if (w == k) return true;
  return w.size() >= 2 && w[1] == '_' && (w[0] == 'c' || w[0] == 'f' || w[0] == 'v');
}

OutputShape shape_of(const FixAveHisto::Value& v, const StyleLookup& styles) {
  if (v.which == FixAveHisto::Value::Which::compute) return styles.compute(v.ref.id)->shape();
  return styles.fix(v.ref.id)->shape();
}

}  // namespace

FixAveHisto::Setup FixAveHisto::parse(const FixArgs& f, bool weighted) {
  using W = Value::Which;
  io::ArgCursor& a = f.a;
  const std::string who = "fix " + f.style;
  Setup s;
  const AveragingSchedule sched = read_averaging_schedule(a, who);
  s.nevery = sched.nevery, s.nrepeat = sched.nrepeat, s.nfreq = sched.nfreq;
  s.lo = a.real("lo");
  s.hi = a.real("hi");
  s.nbins = static_cast<int>(a.integer("Nbin", 1, 100000000));
  check_per_step_bins(who, s.nbins, a.pos());
  std::vector<std::string> words;
  while (!a.done() && is_value_word(a.peek())) words.push_back(a.word("a value"));
  if (words.empty()) a.fail(who + ": no values (x y z vx vy vz fx fy fz, c_ID, f_ID, v_name)");
  Options& o = s.o;
  bool kind_given = false;
  while (!a.done()) {
    const std::string k = a.word("a keyword");
    if (k == "file") {
      o.file = a.word("a file name");
    } else if (k == "kind") {
      const std::string m = a.choice("the kind", {"global", "peratom", "local"});
      s.kind = m == "global" ? Kind::global : m == "peratom" ? Kind::peratom : Kind::local;
      kind_given = true;
    } else if (k == "ave") {
      const std::string m = a.choice("the averaging", {"one", "running", "window"});
      o.ave = m == "one" ? Options::one : m == "running" ? Options::running : Options::window;
      if (m == "window") o.nwindow = static_cast<int>(a.integer("the window M", 1, 100000000));
    } else if (k == "start") {
      o.start = a.integer("the start step", INT32_MIN, INT32_MAX);
    } else if (k == "mode") {
      o.vector_mode = a.choice("the mode", {"scalar", "vector"}) == "vector";
    } else if (k == "beyond") {
      const std::string m = a.choice("beyond", {"ignore", "end", "extra"});
      o.beyond = m == "ignore" ? Options::ignore : m == "end" ? Options::end : Options::extra;
    } else if (k == "overwrite") {
      o.overwrite = true;
    } else if (k == "title1" || k == "title2" || k == "title3") {
      o.title[k[5] - '1'] = a.word("a title");
    } else {
      a.fail(who + ": keyword '" + k +
             "' is not supported (file, kind, ave, start, mode, beyond, overwrite, title1, title2, title3)");
    }
  }
  if (s.lo >= s.hi) a.fail(who + ": lo must be less than hi");
  if (o.overwrite && o.ave != Options::running) a.fail(who + ": overwrite needs ave running");

  const bool need_styles = std::any_of(words.begin(), words.end(),
                                       [](const std::string& w) { return w.size() >= 2 && w[1] == '_'; });
  if (need_styles && !f.ctx.styles) a.fail(who + " needs the computes, fixes and variables of a script");
  for (const std::string& w : words) {
    const auto at =
        std::find_if(std::begin(kAttributes), std::end(kAttributes), [&](const char* k) { return w == k; });
    if (at != std::end(kAttributes)) {
      Value v;
      const int n = static_cast<int>(at - std::begin(kAttributes));
      v.which = n < 3 ? W::x : n < 6 ? W::v : W::f;
      v.dim = n % 3;
      v.ref.text = w;
      s.values.push_back(v);
      continue;
    }
    for (const std::string& e : expand_wildcard(w, o.vector_mode, *f.ctx.styles, a)) {
      Value v;
      if (!parse_reference(e, v.ref, a)) a.fail(who + ": '" + e + "' is not a value");
      if (v.ref.j > 0) a.fail(who + " " + e + ": a value takes at most one index");
      v.which = v.ref.kind == Reference::Kind::compute ? W::compute
                : v.ref.kind == Reference::Kind::fix   ? W::fix
                                                       : W::variable;
      s.values.push_back(v);
    }
  }
  if (weighted && s.values.size() != 2)
    a.fail(who + ": takes exactly two values, the value and its weight (after wildcards: " +
           std::to_string(s.values.size()) + ")");

  // The kind of values: all global, all per-atom or all local (the first value decides unless `kind` is
  // given; a compute or fix with outputs of several kinds needs it).
  const StyleLookup* styles = f.ctx.styles;
  for (size_t n = 0; n < s.values.size(); ++n) {
    const Value& v = s.values[n];
    const std::string at = who + " " + v.ref.text + ": ";
    bool global = false, peratom = false, local = false;
    if (v.which == W::x || v.which == W::v || v.which == W::f) {
      peratom = true;
    } else if (v.which == W::variable) {
      if (!styles->has_variable(v.ref.id) && !styles->has_atom_variable(v.ref.id))
        a.fail(at + "variable " + v.ref.id + " does not exist");
      if (styles->has_atom_variable(v.ref.id))
        peratom = true;
      else
        global = true;
    } else {
      const bool is_compute = v.which == W::compute;
      if (is_compute ? !styles->compute(v.ref.id) : !styles->fix(v.ref.id))
        a.fail(at + (is_compute ? "compute " : "fix ") + v.ref.id + " does not exist");
      const OutputShape sh = shape_of(v, *styles);
      // fix vector's global vector or array may be empty when it is named (LAMMPS's vector_flag is set).
      global = sh.scalar || sh.vector > 0 || sh.array_cols > 0 ||
               (!is_compute && styles->fix(v.ref.id)->style() == "vector");
      peratom = sh.peratom();
      local = sh.local();
    }
    if (!kind_given && n == 0) {
      if (global + peratom + local > 1)
        a.fail(at + "its kind is ambiguous (global, per-atom or local): name it with `kind`");
      s.kind = global ? Kind::global : peratom ? Kind::peratom : Kind::local;
      if (!global && !peratom && !local) a.fail(at + "it has no global, per-atom or local values");
    } else if ((s.kind == Kind::global && !global) || (s.kind == Kind::peratom && !peratom) ||
               (s.kind == Kind::local && !local)) {
      a.fail(at + "the values must all be global, all per-atom or all local");
    }
  }
  if (s.kind == Kind::peratom && !o.vector_mode)
    a.fail(who +
           ": per-atom values need mode vector (LAMMPS: \"cannot input per-atom values in scalar mode\")");
  if (s.kind == Kind::local && !o.vector_mode)
    a.fail(who + ": local values need mode vector (LAMMPS: \"cannot input local values in scalar mode\")");

  for (const Value& v : s.values) {
    if (v.which == W::x || v.which == W::v || v.which == W::f) continue;
    const Reference& r = v.ref;
    const std::string at = who + " " + r.text + ": ";
    if (s.kind == Kind::global && !o.vector_mode) {
      check_reference(r, Reference::Shape::global, *styles, a, who);
    } else if (s.kind == Kind::global) {
      if (v.which == W::variable)
        a.fail(at + "mode vector takes a vector-style variable, which wafermd does not have");
      const OutputShape sh = shape_of(v, *styles);
      const bool vec = sh.vector > 0 ||
                       (v.which == W::fix && styles->fix(r.id)->style() == "vector" && sh.array_cols == 0);
      if (r.i == 0 && !vec) a.fail(at + "it has no global vector");
      if (r.i > 0 && sh.array_cols == 0) a.fail(at + "it has no global array");
      if (r.i > sh.array_cols && r.i > 0)
        a.fail(at + "the global array has " + std::to_string(sh.array_cols) + " columns");
    } else {
      check_reference(r, s.kind == Kind::peratom ? Reference::Shape::peratom : Reference::Shape::local,
                      *styles, a, who);
      // lmp 2021 reads the fix's per-atom array at row j−1 with the column stride (atoms' values shifted by
      // j−1 rows, past the last atom): no column there to agree with.
      if (v.which == W::fix && s.kind == Kind::peratom && r.i > 1)
        a.fail(at +
               "a column other than the first of a fix's per-atom array is refused: lmp 2021 reads it "
               "wrongly (rows for columns; docs/lammps-scripts.md). Histogram a compute's column, or "
               "make it f_ID[1] of a fix of its own");
    }
    if (v.which == W::fix) {
      const Fix* fx = styles->fix(r.id);
      if (s.nevery % fx->global_freq() != 0)
        a.fail(at + "fix " + r.id + " is not computed at compatible times (every " +
               std::to_string(fx->global_freq()) + " steps)");
      if (weighted && s.kind == Kind::global && o.vector_mode && &v == &s.values[1])
        a.fail(at +
               "a fix's global vector as the weight: lmp 2021 stops there (\"Fix ave/histo/weight "
               "option not yet supported\")");
    }
  }
  if (weighted) {
    // LAMMPS compares the two values' lengths as its sizes say (a global value in scalar mode: the compute's
    // or fix's size_vector, whatever the index; mode vector: size_array_rows; a variable's is not set).
    auto size_of = [&](const Value& v, int& n) {
      if (v.which == W::compute || v.which == W::fix) {
        if (s.kind != Kind::global) return false;
        const OutputShape sh = shape_of(v, *styles);
        n = o.vector_mode ? sh.array_rows : sh.vector;
        return true;
      }
      return false;
    };
    int n0 = 0, n1 = 0;
    if (size_of(s.values[0], n0) && size_of(s.values[1], n1) && n0 != n1)
      a.fail(who +
             ": the value's and the weight's lengths differ (LAMMPS: \"value and weight vector lengths "
             "do not match\", from their vector sizes " +
             std::to_string(n0) + " and " + std::to_string(n1) + ")");
  }
  return s;
}

FixAveHisto::FixAveHisto(const FixArgs& f, Setup s)
    : Fix(f.id, f.style, f.group),
      nevery_(s.nevery),
      nrepeat_(s.nrepeat),
      nfreq_(s.nfreq),
      lo_(s.lo),
      hi_(s.hi),
      nbins_(s.nbins),
      values_(std::move(s.values)),
      kind_(s.kind),
      o_(std::move(s.o)),
      pos_(f.a.pos()) {
  const bool extra = o_.beyond == Options::extra;
  if (extra) nbins_ += 2;
  // Per bin: its coordinate, this step's, this Nfreq's and the total counts, the reduction (3 words) and the
  // window's history; Nbin comes from input, so the budget is asked first.
  memory::check_allocation(
      "fix " + style_ + " " + id_ + " with " + std::to_string(nbins_) + " bins",
      8.0 * nbins_ * (7.0 + (o_.ave == Options::window ? static_cast<double>(o_.nwindow) : 0.0)), pos_);
  const double binsize = (hi_ - lo_) / (extra ? nbins_ - 2 : nbins_);
  bininv_ = 1.0 / binsize;
  coord_.resize(nbins_);
  if (extra) {
    coord_[0] = lo_, coord_[nbins_ - 1] = hi_;
    for (int i = 1; i < nbins_ - 1; ++i) coord_[i] = lo_ + (i - 1 + 0.5) * binsize;
  } else {
    for (int i = 0; i < nbins_; ++i) coord_[i] = lo_ + (i + 0.5) * binsize;
  }
  bin_.assign(nbins_, 0.0), bin_total_.assign(nbins_, 0.0), step_bin_.assign(nbins_, 0.0);
  if (o_.ave == Options::window)
    bin_list_.assign(static_cast<size_t>(o_.nwindow) * nbins_, 0.0), stats_list_.assign(o_.nwindow * 4, 0.0);
  nvalid_ = next_valid(f.ctx.s.step);
}

bool FixAveHisto::reads_energy() const {
  for (const Value& v : values_)
    if (v.which != Value::Which::x && v.which != Value::Which::v && v.which != Value::Which::f) return true;
  return false;
}

OutputShape FixAveHisto::shape() const {
  OutputShape s;
  s.vector = 4;
  s.array_rows = nbins_, s.array_cols = 3;
  return s;
}
double FixAveHisto::vector_value(int i) const {
  return i >= 0 && i < 4 ? stats_total_[i] : 0.0;
}
double FixAveHisto::array_value(int i, int j) const {
  if (i < 0 || i >= nbins_) return 0.0;
  if (j == 0) return coord_[i];
  if (j == 1) return bin_total_[i];
  return stats_total_[0] != 0.0 ? bin_total_[i] / stats_total_[0] : 0.0;
}

// LAMMPS's nextvalid: the first step of the Nrepeat samples that end on the next Nfreq multiple not before
// `start` (this step itself when it is such a multiple and one sample suffices).
int64_t FixAveHisto::next_valid(int64_t step) const {
  return averaging_next_valid(step, nevery_, nrepeat_, nfreq_, o_.start);
}

void FixAveHisto::init(FixContext& c) {
  // A minimisation may have moved the clock past the next sample (LAMMPS's init).
  if (nvalid_ < c.s.step) irepeat_ = 0, nvalid_ = next_valid(c.s.step);
}
void FixAveHisto::setup(FixContext& c) {
  if (!opened_) open_file(c);
  end_of_step(c);
}

void FixAveHisto::end_of_step(FixContext& c) {
  const int64_t step = c.s.step;
  if (step < nvalid_last_ || step > nvalid_)
    fail_input(pos_, "fix " + style_ + " " + id_ + ": invalid timestep reset (step " + std::to_string(step) +
                         ", LAMMPS: \"Invalid timestep reset for fix ave/histo\")");
  if (step != nvalid_) return;
  nvalid_last_ = nvalid_;
  if (irepeat_ == 0) {
    stats_[0] = stats_[1] = 0.0, stats_[2] = kBig, stats_[3] = -kBig;
    std::fill(bin_.begin(), bin_.end(), 0.0);
  }
  step_stats_[0] = step_stats_[1] = 0.0, step_stats_[2] = kBig, step_stats_[3] = -kBig;
  std::fill(step_bin_.begin(), step_bin_.end(), 0.0);
  if (c.styles) c.styles->clearstep_computes();
  bin_step(c);
  if (kind_ != Kind::global) reduce_step(c);
  stats_[0] += step_stats_[0], stats_[1] += step_stats_[1];
  stats_[2] = std::min(stats_[2], step_stats_[2]), stats_[3] = std::max(stats_[3], step_stats_[3]);
  for (int i = 0; i < nbins_; ++i) bin_[i] += step_bin_[i];
  if (++irepeat_ < nrepeat_) {
    nvalid_ += nevery_;
    return;
  }
  irepeat_ = 0;
  nvalid_ = step + nfreq_ - (nrepeat_ - 1) * nevery_;
  combine();
  write_rows(c);
}

// The ranks' counts of this step summed (TermSum: the weights of ave/histo/weight exactly in deterministic
// mode), their extrema taken.
void FixAveHisto::reduce_step(FixContext& c) {
  TermSum sum(c.comm, nbins_ + 2);
  sum.add(0, step_stats_[0]), sum.add(1, step_stats_[1]);
  for (int i = 0; i < nbins_; ++i) sum.add(i + 2, step_bin_[i]);
  const std::vector<double> t = sum.total();
  step_stats_[0] = t[0], step_stats_[1] = t[1];
  for (int i = 0; i < nbins_; ++i) step_bin_[i] = t[i + 2];
  double ext[2] = {-step_stats_[2], step_stats_[3]};
  c.comm.max(ext, 2);
  step_stats_[2] = -ext[0], step_stats_[3] = ext[1];
}

// LAMMPS's averages over Nfreq histograms: one, running (its minimum and maximum start from the zeros
// stats_total holds before the first, as in lmp 2021) or a window of M.
void FixAveHisto::combine() {
  if (o_.ave == Options::one) {
    std::copy(stats_, stats_ + 4, stats_total_);
    bin_total_ = bin_;
  } else if (o_.ave == Options::running) {
    stats_total_[0] += stats_[0], stats_total_[1] += stats_[1];
    stats_total_[2] = std::min(stats_total_[2], stats_[2]);
    stats_total_[3] = std::max(stats_total_[3], stats_[3]);
    for (int i = 0; i < nbins_; ++i) bin_total_[i] += bin_[i];
  } else {
    double* slot = &stats_list_[static_cast<size_t>(iwindow_) * 4];
    for (int k = 0; k < 2; ++k) {
      stats_total_[k] += stats_[k];
      if (window_full_) stats_total_[k] -= slot[k];
      slot[k] = stats_[k];
    }
    const int m = window_full_ ? o_.nwindow : iwindow_ + 1;
    slot[2] = stats_[2], slot[3] = stats_[3];
    stats_total_[2] = stats_list_[2], stats_total_[3] = stats_list_[3];
    for (int w = 1; w < m; ++w) {
      stats_total_[2] = std::min(stats_total_[2], stats_list_[w * 4 + 2]);
      stats_total_[3] = std::max(stats_total_[3], stats_list_[w * 4 + 3]);
    }
    double* bslot = &bin_list_[static_cast<size_t>(iwindow_) * nbins_];
    for (int i = 0; i < nbins_; ++i) {
      bin_total_[i] += bin_[i];
      if (window_full_) bin_total_[i] -= bslot[i];
      bslot[i] = bin_[i];
    }
    if (++iwindow_ == o_.nwindow) iwindow_ = 0, window_full_ = true;
  }
}

void FixAveHisto::bin_one(double value, double weight) {
  step_stats_[2] = std::min(step_stats_[2], value);
  step_stats_[3] = std::max(step_stats_[3], value);
  if (value < lo_ || value > hi_) {
    if (o_.beyond == Options::ignore) {
      step_stats_[1] += weight;
      return;
    }
    step_bin_[value < lo_ ? 0 : nbins_ - 1] += weight;
  } else {
    // LAMMPS's bin index (hi itself falls in the last bin; with beyond extra, in the upper extra bin).
    int ibin = static_cast<int>((value - lo_) * bininv_);
    ibin = std::min(ibin, nbins_ - 1);
    if (o_.beyond == Options::extra) ++ibin;
    step_bin_[ibin] += weight;
  }
  step_stats_[0] += weight;
}

void FixAveHisto::values_of(const Value& v, FixContext& c, std::vector<double>& out, bool& per_atom) {
  using W = Value::Which;
  const Atoms& a = c.s.atoms;
  per_atom = false;
  out.clear();
  if (v.which == W::x || v.which == W::v || v.which == W::f) {
    const std::vector<double>* src[3][3] = {{&a.x, &a.y, &a.z}, {&a.vx, &a.vy, &a.vz}, {&a.fx, &a.fy, &a.fz}};
    out = *src[v.which == W::x ? 0 : v.which == W::v ? 1 : 2][v.dim];
    per_atom = true;
    return;
  }
  const ComputeContext cc = c.compute_context();
  const Reference& r = v.ref;
  if (kind_ == Kind::peratom) {
    reference_peratom(r, cc, pos_, out);
    per_atom = true;
  } else if (kind_ == Kind::local) {
    reference_local(r, cc, pos_, out);
  } else if (!o_.vector_mode) {
    out.push_back(reference_value(r, cc, pos_));
  } else if (v.which == W::compute) {
    Compute* cp = c.styles ? c.styles->compute(r.id) : nullptr;
    if (!cp) fail_input(pos_, "fix " + style_ + ": compute " + r.id + " does not exist (any more)");
    if (r.i == 0) {
      out = invoke_vector(*cp, cc);
    } else {
      const std::vector<double>& arr = invoke_array(*cp, cc);
      const size_t cols = static_cast<size_t>(cp->shape().array_cols);
      for (size_t k = static_cast<size_t>(r.i - 1); k < arr.size(); k += cols) out.push_back(arr[k]);
    }
  } else {
    // LAMMPS reads a fix's vector, or a column of its array, over the fix's size_vector rows.
    Fix* fx = c.styles ? c.styles->fix(r.id) : nullptr;
    if (!fx) fail_input(pos_, "fix " + style_ + ": fix " + r.id + " does not exist (any more)");
    const int n = fx->shape().vector;
    for (int i = 0; i < n; ++i) out.push_back(r.i == 0 ? fx->vector_value(i) : fx->array_value(i, r.i - 1));
  }
}

void FixAveHisto::bin_step(FixContext& c) {
  const Atoms& a = c.s.atoms;
  std::vector<double> vals;
  for (size_t n = 0; n < values_.size(); ++n) {
    bool per_atom = false;
    values_of(values_[n], c, vals, per_atom);
    if (per_atom) {
      for (size_t i = 0; i < a.size() && i < vals.size(); ++i)
        if (selected(c.s, i)) bin_one(vals[i], 1.0);
    } else {
      for (double x : vals) bin_one(x, 1.0);
    }
    // lmp 2021 walks a global-vector fix value's rows with the loop index of the values, so the values after
    // it are those from index size_vector + 1 on (none, mostly).
    const Value& v = values_[n];
    if (v.which == Value::Which::fix && kind_ == Kind::global && o_.vector_mode) {
      const size_t next = vals.size() + 1;
      if (next <= n)
        fail_input(pos_,
                   "fix " + style_ + " " + id_ + ": " + v.ref.text +
                       " sends lmp 2021 back to an earlier value for ever (its values loop); put it first");
      n = next - 1;
    }
  }
}

void FixAveHisto::open_file(FixContext& c) {
  // LAMMPS opens the file when the fix is defined; here at its first run's set-up (the dry run writes
  // nothing), by rank 0.
  opened_ = true;
  if (o_.file.empty() || !c.comm.root()) return;
  out_.open(o_.file, std::ios::trunc);
  if (!out_) throw RunError("fix " + style_ + " " + id_ + ": cannot open file '" + o_.file + "'");
  out_ << (o_.title[0].empty() ? "# Histogrammed data for fix " + id_ : o_.title[0]) << "\n";
  out_ << (o_.title[1].empty() ? "# TimeStep Number-of-bins Total-counts Missing-counts Min-value Max-value"
                               : o_.title[1])
       << "\n";
  out_ << (o_.title[2].empty() ? "# Bin Coord Count Count/Total" : o_.title[2]) << "\n";
  out_.flush();
  header_end_ = out_.tellp();
}

void FixAveHisto::write_rows(FixContext& c) {
  if (!out_.is_open() || !c.comm.root()) return;
  if (o_.overwrite) out_.seekp(header_end_);
  char buf[160];
  std::snprintf(buf, sizeof buf, "%lld %d %g %g %g %g\n", static_cast<long long>(c.s.step), nbins_,
                stats_total_[0], stats_total_[1], stats_total_[2], stats_total_[3]);
  out_ << buf;
  for (int i = 0; i < nbins_; ++i) {
    if (stats_total_[0] != 0.0)
      std::snprintf(buf, sizeof buf, "%d %g %g %g\n", i + 1, coord_[i], bin_total_[i],
                    bin_total_[i] / stats_total_[0]);
    else
      std::snprintf(buf, sizeof buf, "%d %g %g %g\n", i + 1, coord_[i], 0.0, 0.0);
    out_ << buf;
  }
  finish_average_write(out_, o_.file, o_.overwrite, "fix " + style_ + " " + id_);
}

void FixAveHisto::save_state(FixStateMap& out) const {
  out["bin"] = bin_, out["bin_total"] = bin_total_, out["bin_list"] = bin_list_;
  out["stats_list"] = stats_list_;
  out["stats"] = {stats_[0], stats_[1], stats_[2], stats_[3]};
  out["stats_total"] = {stats_total_[0], stats_total_[1], stats_total_[2], stats_total_[3]};
  out["counters"] = {static_cast<double>(irepeat_), static_cast<double>(nvalid_),
                     static_cast<double>(nvalid_last_), static_cast<double>(iwindow_),
                     window_full_ ? 1.0 : 0.0};
}

void FixAveHisto::restore_state(const FixStateMap& in) {
  // Checked against this fix's own shape (nbins bins, a window of nwindow of them and of the 4 statistics,
  // the window index inside it) before anything is assigned.
  const FixStateReader r(in, *this);
  const std::vector<double>*bin = r.sized("bin", {bin_.size()}),
        *bin_total = r.sized("bin_total", {bin_total_.size()});
  const std::vector<double>* bin_list = r.sized("bin_list", {bin_list_.size()});
  const std::vector<double>* stats_list = r.sized("stats_list", {stats_list_.size()});
  const std::vector<double>*stats = r.sized("stats", {4}), *stats_total = r.sized("stats_total", {4});
  const std::vector<double>* cnt = r.sized("counters", {5});
  const int64_t nwindow = o_.ave == Options::window ? o_.nwindow : 1;
  int64_t irepeat = 0, nvalid = 0, nvalid_last = -1, iwindow = 0, full = 0;
  if (cnt) {
    irepeat = r.integer(*cnt, 0, "counters", 0, nrepeat_);
    nvalid = r.integer(*cnt, 1, "counters", 0, FixStateReader::kMaxStep);
    nvalid_last = r.integer(*cnt, 2, "counters", -1, FixStateReader::kMaxStep);
    iwindow = r.integer(*cnt, 3, "counters", 0, nwindow - 1);
    full = r.integer(*cnt, 4, "counters", 0, 1);
  }
  if (bin) bin_ = *bin;
  if (bin_total) bin_total_ = *bin_total;
  if (bin_list) bin_list_ = *bin_list;
  if (stats_list) stats_list_ = *stats_list;
  if (stats) std::copy(stats->begin(), stats->end(), stats_);
  if (stats_total) std::copy(stats_total->begin(), stats_total->end(), stats_total_);
  if (!cnt) return;
  irepeat_ = irepeat, nvalid_ = nvalid, nvalid_last_ = nvalid_last, iwindow_ = static_cast<int>(iwindow);
  window_full_ = full != 0;
}

namespace {

std::unique_ptr<Fix> make(const FixArgs& f) {
  return std::make_unique<FixAveHisto>(f, FixAveHisto::parse(f, false));
}

}  // namespace

WMD_FIX_STYLE("ave/histo", make)

}  // namespace wmd::md
