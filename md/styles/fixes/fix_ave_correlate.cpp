// fix ave/correlate Nevery Nrepeat Nfreq value… [type auto|upper|lower|auto/upper|auto/lower|full]
// [ave one|running] [start S] [prefactor p] [file F] [overwrite] [title1|title2|title3 text], as Debian's lmp
// (LAMMPS 29 Sep 2021) does it: global values (c_ID, c_ID[i], f_ID, f_ID[i], equal-style v_name; c_ID[*]
// expands to a vector's elements) sampled every Nevery steps into a ring of the last Nrepeat samples; each
// sample adds, for every delay k < Nrepeat, the products V_i(t−kΔ)·V_j(t) of the chosen pairs to C_ij(k) and
// counts it. On multiples of Nfreq the averages prefactor·C/count are saved as the global array (row k+1:
// delay kΔ, count, one column per pair; f_ID[i][j]) and written to the file; `ave one` then starts afresh
// from the latest sample. The header keeps lmp 2021's pair names, which for lower and auto/lower list fewer
// pairs than the rows hold (docs/lammps-scripts.md). The values are global, the same on every rank: nothing
// is summed across ranks.
#include <cstdio>
#include <fstream>

#include "base/memory_budget.hpp"
#include "md/styles/averaging.hpp"
#include "md/styles/fix.hpp"
#include "md/styles/fix_state_reader.hpp"
#include "md/styles/reference.hpp"

namespace wmd::md {
namespace {

enum class Type { automatic, upper, lower, auto_upper, auto_lower, full };

class FixAveCorrelate : public Fix {
 public:
  struct Options {
    Type type = Type::automatic;
    bool running = false, overwrite = false;
    int64_t start = 0;
    double prefactor = 1.0;
    std::string file, title[3];
  };

  FixAveCorrelate(const FixArgs& f, int64_t nevery, int64_t nrepeat, int64_t nfreq,
                  std::vector<Reference> refs, Options o)
      : Fix(f.id, f.style, f.group),
        nevery_(nevery),
        nrepeat_(nrepeat),
        nfreq_(nfreq),
        refs_(std::move(refs)),
        o_(std::move(o)),
        pos_(f.a.pos()) {
    const int n = static_cast<int>(refs_.size());
    npair_ = o_.type == Type::automatic                                   ? n
             : o_.type == Type::upper || o_.type == Type::lower           ? n * (n - 1) / 2
             : o_.type == Type::auto_upper || o_.type == Type::auto_lower ? n * (n + 1) / 2
                                                                          : n * n;
    values_.assign(static_cast<size_t>(nrepeat_) * n, 0.0);
    count_.assign(nrepeat_, 0.0), save_count_.assign(nrepeat_, 0.0);
    corr_.assign(static_cast<size_t>(nrepeat_) * npair_, 0.0), save_corr_ = corr_;
    nvalid_ = next_valid(f.ctx.s.step);
  }

  OutputShape shape() const override {
    OutputShape s;
    s.array_rows = static_cast<int>(nrepeat_), s.array_cols = npair_ + 2;
    return s;
  }
  double array_value(int i, int j) const override {
    if (i < 0 || i >= nrepeat_ || j < 0 || j >= npair_ + 2) return 0.0;
    if (j == 0) return 1.0 * i * nevery_;
    if (j == 1) return save_count_[i];
    return save_count_[i] != 0.0 ? save_corr_[static_cast<size_t>(i) * npair_ + j - 2] : 0.0;
  }
  int64_t global_freq() const override { return nfreq_; }
  bool samples_at(int64_t step) const override { return step == nvalid_; }

  void init(FixContext& c) override {
    // A minimisation may have moved the clock past the next sample: the ring starts again (the sums stay, as
    // in LAMMPS's init).
    if (nvalid_ < c.s.step) lastindex_ = -1, firstindex_ = 0, nsample_ = 0, nvalid_ = next_valid(c.s.step);
  }
  void setup(FixContext& c) override {
    if (!opened_) open_file(c);
    end_of_step(c);
  }
  void end_of_step(FixContext& c) override {
    const int64_t step = c.s.step;
    if (step < nvalid_last_ || step > nvalid_)
      fail_input(pos_, "fix ave/correlate " + id_ + ": invalid timestep reset (step " + std::to_string(step) +
                           ", LAMMPS: \"Invalid timestep reset for fix ave/correlate\")");
    if (step != nvalid_) return;
    nvalid_last_ = nvalid_;
    if (c.styles) c.styles->clearstep_computes();
    if (++lastindex_ == nrepeat_) lastindex_ = 0;
    const ComputeContext cc = c.compute_context();
    const size_t n = refs_.size();
    for (size_t i = 0; i < n; ++i)
      values_[static_cast<size_t>(lastindex_) * n + i] = reference_value(refs_[i], cc, pos_);
    if (nsample_ < nrepeat_)
      ++nsample_;
    else if (++firstindex_ == nrepeat_)
      firstindex_ = 0;
    nvalid_ += nevery_;
    accumulate();
    if (step % nfreq_ != 0) return;
    for (int64_t k = 0; k < nrepeat_; ++k) {
      save_count_[k] = count_[k];
      for (int p = 0; p < npair_; ++p) {
        const size_t q = static_cast<size_t>(k) * npair_ + p;
        save_corr_[q] = count_[k] != 0.0 ? o_.prefactor * corr_[q] / count_[k] : 0.0;
      }
    }
    write_rows(c);
    if (!o_.running) {  // ave one: afresh, from the latest sample's own products
      std::fill(count_.begin(), count_.end(), 0.0);
      std::fill(corr_.begin(), corr_.end(), 0.0);
      nsample_ = 1;
      accumulate();
    }
  }

  void save_state(FixStateMap& out) const override {
    out["values"] = values_, out["count"] = count_, out["corr"] = corr_;
    out["save_count"] = save_count_, out["save_corr"] = save_corr_;
    out["counters"] = {static_cast<double>(lastindex_), static_cast<double>(firstindex_),
                       static_cast<double>(nsample_), static_cast<double>(nvalid_),
                       static_cast<double>(nvalid_last_)};
  }
  void restore_state(const FixStateMap& in) override {
    // Checked against this fix's shape (nrepeat samples of each value, nrepeat lags of each pair) and its
    // ring indices before anything is assigned.
    const FixStateReader r(in, *this);
    const std::vector<double>*values = r.sized("values", {values_.size()}),
          *count = r.sized("count", {count_.size()});
    const std::vector<double>* corr = r.sized("corr", {corr_.size()});
    const std::vector<double>* save_count = r.sized("save_count", {save_count_.size()});
    const std::vector<double>* save_corr = r.sized("save_corr", {save_corr_.size()});
    const std::vector<double>* cnt = r.sized("counters", {5});
    int64_t last = -1, first = 0, nsample = 0, nvalid = 0, nvalid_last = -1;
    if (cnt) {
      last = r.integer(*cnt, 0, "counters", -1, nrepeat_ - 1),
      first = r.integer(*cnt, 1, "counters", 0, nrepeat_ - 1);
      nsample = r.integer(*cnt, 2, "counters", 0, nrepeat_);
      nvalid = r.integer(*cnt, 3, "counters", 0, FixStateReader::kMaxStep);
      nvalid_last = r.integer(*cnt, 4, "counters", -1, FixStateReader::kMaxStep);
      if (nsample > 0 && last < 0) r.fail("counters", "hold samples but no last index");
    }
    if (values) values_ = *values;
    if (count) count_ = *count;
    if (corr) corr_ = *corr;
    if (save_count) save_count_ = *save_count;
    if (save_corr) save_corr_ = *save_corr;
    if (!cnt) return;
    lastindex_ = last, firstindex_ = first, nsample_ = nsample, nvalid_ = nvalid, nvalid_last_ = nvalid_last;
  }

 private:
  // LAMMPS's nextvalid: this step if a multiple of Nevery, else the next one, not before `start`.
  int64_t next_valid(int64_t step) const {
    int64_t v = std::max(step, o_.start);
    if (v % nevery_ != 0) v = (v / nevery_) * nevery_ + nevery_;
    return v;
  }

  // The products the latest sample completes: for each delay k, the sample k back times the latest.
  void accumulate() {
    const int n = static_cast<int>(refs_.size());
    for (int64_t k = 0; k < nsample_; ++k) count_[k] += 1.0;
    int64_t m = lastindex_;
    const double* now = &values_[static_cast<size_t>(lastindex_) * n];
    for (int64_t k = 0; k < nsample_; ++k) {
      const double* then = &values_[static_cast<size_t>(m) * n];
      double* c = &corr_[static_cast<size_t>(k) * npair_];
      int p = 0;
      for (int i = 0; i < n; ++i) {
        int j0 = 0, j1 = n;  // full
        switch (o_.type) {
          case Type::automatic:
            j0 = i, j1 = i + 1;
            break;
          case Type::upper:
            j0 = i + 1;
            break;
          case Type::lower:
            j1 = i;
            break;
          case Type::auto_upper:
            j0 = i;
            break;
          case Type::auto_lower:
            j1 = i + 1;
            break;
          case Type::full:
            break;
        }
        for (int j = j0; j < j1; ++j) c[p++] += then[i] * now[j];
      }
      if (--m < 0) m = nrepeat_ - 1;
    }
  }

  void open_file(FixContext& c) {
    // LAMMPS opens the file when the fix is defined; here at its first run's set-up (the dry run writes
    // nothing), by rank 0.
    opened_ = true;
    if (o_.file.empty() || !c.comm.root()) return;
    out_.open(o_.file, std::ios::trunc);
    if (!out_) throw RunError("fix ave/correlate " + id_ + ": cannot open file '" + o_.file + "'");
    out_ << (o_.title[0].empty() ? "# Time-correlated data for fix " + id_ : o_.title[0]) << "\n";
    out_ << (o_.title[1].empty() ? "# Timestep Number-of-time-windows" : o_.title[1]) << "\n";
    if (!o_.title[2].empty()) {
      out_ << o_.title[2] << "\n";
    } else {
      out_ << "# Index TimeDelta Ncount";
      const int n = static_cast<int>(refs_.size());
      auto pair = [&](int i, int j) { out_ << " " << refs_[i].text << "*" << refs_[j].text; };
      for (int i = 0; i < n; ++i) {
        // lmp 2021's header loops; lower and auto/lower name fewer pairs than they compute.
        int j0 = 0, j1 = n;
        if (o_.type == Type::automatic) j0 = i, j1 = i + 1;
        if (o_.type == Type::upper) j0 = i + 1;
        if (o_.type == Type::lower) j1 = i - 1;
        if (o_.type == Type::auto_upper) j0 = i;
        if (o_.type == Type::auto_lower) j1 = i;
        for (int j = j0; j < j1; ++j) pair(i, j);
      }
      out_ << "\n";
    }
    out_.flush();
    header_end_ = out_.tellp();
  }
  void write_rows(FixContext& c) {
    if (!out_.is_open() || !c.comm.root()) return;
    if (o_.overwrite) out_.seekp(header_end_);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%lld %d\n", static_cast<long long>(c.s.step), static_cast<int>(nrepeat_));
    out_ << buf;
    for (int64_t k = 0; k < nrepeat_; ++k) {
      std::snprintf(buf, sizeof buf, "%d %d %d", static_cast<int>(k + 1), static_cast<int>(k * nevery_),
                    static_cast<int>(count_[k]));
      out_ << buf;
      for (int p = 0; p < npair_; ++p) {
        if (count_[k] != 0.0) {
          std::snprintf(buf, sizeof buf, " %g",
                        o_.prefactor * corr_[static_cast<size_t>(k) * npair_ + p] / count_[k]);
          out_ << buf;
        } else {
          out_ << " 0.0";
        }
      }
      out_ << "\n";
    }
    finish_average_write(out_, o_.file, o_.overwrite, "fix ave/correlate " + id_);
  }

  int64_t nevery_, nrepeat_, nfreq_;
  std::vector<Reference> refs_;
  Options o_;
  SourcePos pos_;
  int npair_ = 0;
  std::vector<double> values_;                  // the ring of the last Nrepeat samples, a row of values each
  std::vector<double> count_, corr_;            // per delay: samples counted, Σ products per pair
  std::vector<double> save_count_, save_corr_;  // as of the last Nfreq step (the global array)
  int64_t lastindex_ = -1, firstindex_ = 0, nsample_ = 0, nvalid_ = 0, nvalid_last_ = -1;
  bool opened_ = false;
  std::ofstream out_;
  std::streampos header_end_ = 0;
};

std::unique_ptr<Fix> make(const FixArgs& f) {
  io::ArgCursor& a = f.a;
  const AveragingSchedule sched = read_averaging_schedule(a, "fix ave/correlate", false);
  const int64_t nevery = sched.nevery, nrepeat = sched.nrepeat, nfreq = sched.nfreq;
  // Its ring holds Nrepeat rows of every value: a bound before anything is sized by it.
  if (nrepeat > 100000000) a.fail("fix ave/correlate: Nrepeat must be at most 100000000");
  std::vector<std::string> words;
  while (!a.done()) {
    const std::string w = a.peek();
    if (w.size() < 2 || w[1] != '_' || (w[0] != 'c' && w[0] != 'f' && w[0] != 'v')) break;
    words.push_back(a.word("a value"));
  }
  FixAveCorrelate::Options o;
  while (!a.done()) {
    const std::string k = a.word("a keyword");
    if (k == "type") {
      const std::string t =
          a.choice("the type", {"auto", "upper", "lower", "auto/upper", "auto/lower", "full"});
      o.type = t == "auto"         ? Type::automatic
               : t == "upper"      ? Type::upper
               : t == "lower"      ? Type::lower
               : t == "auto/upper" ? Type::auto_upper
               : t == "auto/lower" ? Type::auto_lower
                                   : Type::full;
    } else if (k == "ave") {
      o.running = a.choice("the averaging", {"one", "running"}) == "running";
    } else if (k == "start") {
      o.start = a.integer("the start step", INT32_MIN, INT32_MAX);
    } else if (k == "prefactor") {
      o.prefactor = a.real("the prefactor");
    } else if (k == "file") {
      o.file = a.word("a file name");
    } else if (k == "overwrite") {
      o.overwrite = true;
    } else if (k == "title1" || k == "title2" || k == "title3") {
      o.title[k[5] - '1'] = a.word("a title");
    } else {
      a.fail("fix ave/correlate: keyword '" + k +
             "' is not supported (type, ave, start, prefactor, file, overwrite, title1, title2, title3)");
    }
  }
  if (nfreq % nevery != 0) a.fail("fix ave/correlate: Nfreq must be a multiple of Nevery");
  if (!o.running && nfreq < (nrepeat - 1) * nevery)
    a.fail("fix ave/correlate: with ave one, Nfreq must be at least (Nrepeat-1)*Nevery (LAMMPS's rule)");
  if (o.overwrite && !o.running) a.fail("fix ave/correlate: overwrite needs ave running");
  if (words.empty()) a.fail("fix ave/correlate: no values (c_ID, c_ID[i], f_ID, f_ID[i], v_name)");
  if (!f.ctx.styles) a.fail("fix ave/correlate needs the computes, fixes and variables of a script");
  const StyleLookup& styles = *f.ctx.styles;
  std::vector<Reference> refs;
  for (const std::string& w : words)
    for (const std::string& e : expand_wildcard(w, false, styles, a)) {
      Reference r;
      parse_reference(e, r, a);
      if (r.j > 0) a.fail("fix ave/correlate " + e + ": a value takes at most one index");
      check_reference(r, Reference::Shape::global, styles, a, "fix ave/correlate");
      if (r.kind == Reference::Kind::fix) {
        const Fix* fx = styles.fix(r.id);
        if (nevery % fx->global_freq() != 0)
          a.fail("fix ave/correlate " + e + ": fix " + r.id + " is not computed at compatible times (every " +
                 std::to_string(fx->global_freq()) + " steps)");
      }
      refs.push_back(r);
    }
  {
    // The ring (Nrepeat samples of each value), the sums and the saved sums (Nrepeat lags of each pair, up to
    // n² with type full) are sized by input: the budget is asked before the fix allocates them.
    const double n = static_cast<double>(refs.size());
    memory::check_allocation("fix ave/correlate with Nrepeat " + std::to_string(nrepeat) + " and " +
                                 std::to_string(refs.size()) + " values",
                             8.0 * static_cast<double>(nrepeat) * (n + 2.0 + 2.0 * n * n), a.pos());
  }
  return std::make_unique<FixAveCorrelate>(f, nevery, nrepeat, nfreq, std::move(refs), std::move(o));
}

}  // namespace

WMD_FIX_STYLE("ave/correlate", make)

}  // namespace wmd::md
