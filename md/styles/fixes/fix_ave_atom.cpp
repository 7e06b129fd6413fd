// fix ID group ave/atom Nevery Nrepeat Nfreq value… — per-atom time averages, as LAMMPS fix ave/atom: on each
// multiple of Nfreq the average of Nrepeat samples taken Nevery steps apart (the last one on that step),
// held until the next; 0 outside the group. Values: x y z vx vy vz fx fy fz, per-atom c_ID, c_ID[i],
// f_ID, f_ID[i], atom-style v_name, and c_ID[*]/f_ID[*] wildcards. Readable as f_ID (one value) or
// f_ID[i] in dumps, compute reduce and atom-style variables.
// The running sums belong to atoms, not ranks: each rank keeps its own atoms' sums by id, and when an atom
// arrived since the last sample (migration) the ranks pool their sums once, so every sample is added in
// time order exactly as LAMMPS adds it. The averages, read between samples by dumps and computes wherever
// the atoms then are, are kept by every rank.
#include <unordered_map>

#include "md/styles/averaging.hpp"
#include "md/styles/fix.hpp"
#include "md/styles/fix_state_reader.hpp"
#include "md/styles/reference.hpp"

namespace wmd::md {
namespace {

class FixAveAtom : public Fix {
 public:
  // One averaged value: an attribute (index into x y z vx vy vz fx fy fz) or a reference.
  struct Value {
    int attribute = -1;
    Reference ref;
  };
  FixAveAtom(const FixArgs& f, int64_t nevery, int64_t nrepeat, int64_t nfreq, std::vector<Value> values)
      : Fix(f.id, f.style, f.group),
        nevery_(nevery),
        nrepeat_(nrepeat),
        nfreq_(nfreq),
        values_(std::move(values)),
        state_(&f.ctx.s),
        pos_(f.a.pos()) {
    nvalid_ = averaging_next_valid(f.ctx.s.step, nevery_, nrepeat_, nfreq_);
  }
  bool reads_energy() const override { return false; }
  OutputShape shape() const override {
    OutputShape s;
    s.peratom_cols = values_.size() == 1 ? 0 : static_cast<int>(values_.size());
    return s;
  }
  bool samples_at(int64_t step) const override { return step == nvalid_; }

  void init(FixContext& c) override {
    // A minimisation may have moved the clock past the next sample (LAMMPS's init resets it then).
    if (nvalid_ < c.s.step) irepeat_ = 0, nvalid_ = averaging_next_valid(c.s.step, nevery_, nrepeat_, nfreq_);
  }
  void setup(FixContext& c) override { end_of_step(c); }
  void end_of_step(FixContext& c) override {
    if (c.s.step != nvalid_) return;
    sample(c);
  }
  const std::vector<double>* peratom_values() const override {
    const Atoms& a = state_->atoms;
    const size_t n = values_.size();
    out_.assign(n * a.size(), 0.0);
    for (size_t i = 0; i < a.size(); ++i) {
      const auto it = average_.find(a.id[i]);
      if (it != average_.end()) std::copy(it->second.begin(), it->second.end(), out_.begin() + n * i);
    }
    return &out_;
  }
  void save_state(FixStateMap& out) const override {
    out["counters"] = {static_cast<double>(irepeat_), static_cast<double>(nvalid_)};
    pack(sum_, out["sum"]);
    pack(average_, out["average"]);
  }
  void restore_state(const FixStateMap& in) override {
    // Checked before use: the repeat index below Nrepeat (it returns to 0 on the Nrepeat-th sample), the
    // next step a step, each per-atom array whole (id, values) records with distinct positive integer ids
    // (sums may hold any double: a run can average a NaN).
    const FixStateReader r(in, *this);
    const std::vector<double>* cnt = r.sized("counters", {2});
    int64_t irepeat = 0, nvalid = 0;
    if (cnt) {
      irepeat = r.integer(*cnt, 0, "counters", 0, nrepeat_ - 1);
      nvalid = r.integer(*cnt, 1, "counters", 0, FixStateReader::kMaxStep);
    }
    const size_t w = values_.size() + 1;
    for (const char* key : {"sum", "average"}) r.id_records(key, w, false);
    if (cnt) irepeat_ = irepeat, nvalid_ = nvalid;
    unpack(in, "sum", sum_);
    unpack(in, "average", average_);
  }

 private:
  using ById = std::unordered_map<int64_t, std::vector<double>>;

  void sample(FixContext& c) {
    const Atoms& a = c.s.atoms;
    const size_t nv = values_.size();
    if (irepeat_ == 0) {
      sum_.clear();
    } else {
      // Pool the sums when an atom of the group came from another rank since the last sample.
      int64_t missing = 0;
      for (size_t i = 0; i < a.size(); ++i)
        if ((a.mask[i] & group_) && sum_.find(a.id[i]) == sum_.end()) ++missing;
      if (c.comm.sum(missing) > 0) pool(c, sum_);
    }
    if (c.styles) c.styles->clearstep_computes();
    const ComputeContext cc = c.compute_context();
    std::vector<double> peratom;
    for (size_t v = 0; v < nv; ++v) {
      const Value& w = values_[v];
      if (w.attribute < 0) reference_peratom(w.ref, cc, pos_, peratom);
      for (size_t i = 0; i < a.size(); ++i) {
        if (!(a.mask[i] & group_)) continue;
        std::vector<double>& s = sum_[a.id[i]];
        if (s.size() != nv) s.assign(nv, 0.0);
        s[v] += w.attribute < 0 ? peratom[i] : attribute(a, i, w.attribute);
      }
    }
    if (++irepeat_ < nrepeat_) {
      nvalid_ += nevery_;
      return;
    }
    irepeat_ = 0;
    average_.clear();
    const double n = static_cast<double>(nrepeat_);
    for (size_t i = 0; i < a.size(); ++i) {
      const auto it = sum_.find(a.id[i]);
      if (it == sum_.end()) continue;
      std::vector<double>& avg = average_[a.id[i]];
      avg = it->second;
      for (double& x : avg) x /= n;
    }
    // Every rank holds every average until the next one: atoms may change ranks before they are read.
    if (c.comm.size() > 1) {
      std::vector<double> mine;
      pack(average_, mine);
      FixStateMap all;
      all["a"] = c.comm.allgather(mine);
      unpack(all, "a", average_);
    }
    nvalid_ = c.s.step + nfreq_ - (nrepeat_ - 1) * nevery_;
  }

  // Every rank's (id, sums) gathered; each rank keeps those of its own atoms. An atom's samples are all on
  // one rank's record between pools, so each entry comes from exactly one rank.
  void pool(FixContext& c, ById& m) const {
    std::vector<double> mine;
    pack(m, mine);
    const std::vector<double> all = c.comm.allgather(mine);
    FixStateMap tmp;
    tmp["x"] = all;
    ById every;
    unpack(tmp, "x", every);
    m.clear();
    const Atoms& a = c.s.atoms;
    for (size_t i = 0; i < a.size(); ++i) {
      const auto it = every.find(a.id[i]);
      if (it != every.end()) m[a.id[i]] = it->second;
    }
  }
  void pack(const ById& m, std::vector<double>& out) const {
    out.clear();
    for (const auto& [id, vals] : m) {
      out.push_back(static_cast<double>(id));
      out.insert(out.end(), vals.begin(), vals.end());
    }
  }
  void unpack(const FixStateMap& in, const char* key, ById& m) const {
    const auto it = in.find(key);
    if (it == in.end()) return;
    m.clear();
    const size_t w = values_.size() + 1;
    for (size_t k = 0; k + w <= it->second.size(); k += w)
      m[static_cast<int64_t>(it->second[k])].assign(it->second.begin() + k + 1, it->second.begin() + k + w);
  }
  static double attribute(const Atoms& a, size_t i, int which) {
    const std::vector<double>* f[9] = {&a.x, &a.y, &a.z, &a.vx, &a.vy, &a.vz, &a.fx, &a.fy, &a.fz};
    return (*f[which])[i];
  }

  int64_t nevery_, nrepeat_, nfreq_;
  std::vector<Value> values_;
  const State* state_;
  SourcePos pos_;
  int64_t irepeat_ = 0, nvalid_ = 0;
  ById sum_, average_;
  mutable std::vector<double> out_;
};

const std::vector<std::string> kAttributes = {"x", "y", "z", "vx", "vy", "vz", "fx", "fy", "fz"};

std::unique_ptr<Fix> make(const FixArgs& f) {
  io::ArgCursor& a = f.a;
  const AveragingSchedule sched = read_averaging_schedule(a, "fix ave/atom");
  const int64_t nevery = sched.nevery, nrepeat = sched.nrepeat, nfreq = sched.nfreq;
  std::vector<FixAveAtom::Value> values;
  while (!a.done()) {
    const std::string w = a.word("a value");
    const auto at = std::find(kAttributes.begin(), kAttributes.end(), w);
    if (at != kAttributes.end()) {
      FixAveAtom::Value v;
      v.attribute = static_cast<int>(at - kAttributes.begin());
      values.push_back(v);
      continue;
    }
    if (!f.ctx.styles) a.fail("fix ave/atom: references need a script's computes and fixes");
    for (const std::string& e : expand_wildcard(w, false, *f.ctx.styles, a)) {
      FixAveAtom::Value v;
      if (!parse_reference(e, v.ref, a))
        a.fail("fix ave/atom: value '" + e +
               "' is not supported (x y z vx vy vz fx fy fz, c_ID, c_ID[i], "
               "f_ID, f_ID[i], v_name)");
      check_reference(v.ref, Reference::Shape::peratom, *f.ctx.styles, a, "fix ave/atom");
      values.push_back(v);
    }
  }
  if (values.empty()) a.fail("fix ave/atom: no values");
  return std::make_unique<FixAveAtom>(f, nevery, nrepeat, nfreq, std::move(values));
}

}  // namespace

WMD_FIX_STYLE("ave/atom", make)

}  // namespace wmd::md
