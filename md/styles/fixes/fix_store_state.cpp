// fix store/state N input… [com no], as LAMMPS fix store/state: per-atom values of the group's atoms stored
// when the fix is defined (atom attributes), at the first run's set-up (c_, f_ references) and every N steps
// after (N > 0; N = 0 keeps them), readable as f_ID (one input) or f_ID[i] in dumps and compute reduce.
// Inputs: id mass type x y z xs ys zs xu yu zu xsu ysu zsu ix iy iz vx vy vz fx fy fz, per-atom c_ID,
// c_ID[i], f_ID, f_ID[i]. The stored values travel with the atoms: every rank keeps them all by atom id.
// `com yes` and atom-style variables are refused.
#include <algorithm>
#include <unordered_map>

#include "md/styles/fix.hpp"
#include "md/styles/fix_state_reader.hpp"
#include "md/styles/reference.hpp"

namespace wmd::md {
namespace {

const std::vector<std::string> kAttributes = {"id", "mass", "type", "x",  "y",   "z",   "xs",  "ys",
                                              "zs", "xu",   "yu",   "zu", "xsu", "ysu", "zsu", "ix",
                                              "iy", "iz",   "vx",   "vy", "vz",  "fx",  "fy",  "fz"};

class FixStoreState : public Fix {
 public:
  struct Input {
    std::string attribute;  // empty for a reference
    Reference ref;
  };
  FixStoreState(const FixArgs& f, int64_t every, std::vector<Input> in)
      : Fix(f.id, f.style, f.group), every_(every), in_(std::move(in)), state_(&f.ctx.s), pos_(f.a.pos()) {
    store(f.ctx.s, nullptr, f.ctx.comm, true, false);  // the attributes as they are now
  }
  bool keeps_restart_state() const override { return true; }  // LAMMPS writes it to restart files
  bool reads_energy() const override { return false; }
  OutputShape shape() const override {
    OutputShape s;
    s.peratom_cols = in_.size() == 1 ? 0 : static_cast<int>(in_.size());
    return s;
  }
  bool samples_at(int64_t step) const override { return every_ > 0 && step % every_ == 0; }

  void setup(FixContext& c) override {
    if (!first_) return;
    first_ = false;
    store(c.s, &c, &c.comm, false, true);  // LAMMPS's first setup stores the references' values
  }
  void end_of_step(FixContext& c) override {
    if (every_ == 0 || c.s.step % every_ != 0) return;
    store(c.s, &c, &c.comm, true, true);
  }
  const std::vector<double>* peratom_values() const override {
    const Atoms& a = state_->atoms;
    const size_t n = in_.size();
    out_.assign(n * a.size(), 0.0);
    for (size_t i = 0; i < a.size(); ++i) {
      const auto it = values_.find(a.id[i]);
      if (it == values_.end()) continue;
      for (size_t k = 0; k < n; ++k) out_[n * i + k] = it->second[k];
    }
    return &out_;
  }
  void save_state(FixStateMap& out) const override {
    std::vector<double>& v = out["values"];
    v.clear();
    for (const auto& [id, vals] : values_) {
      v.push_back(static_cast<double>(id));
      v.insert(v.end(), vals.begin(), vals.end());
    }
    out["first"] = {first_ ? 1.0 : 0.0};
  }
  void restore_state(const FixStateMap& in) override {
    // Checked before use (issue 46): whole (id, one value per stored quantity) records with distinct
    // positive integer ids (the values may be any double a quantity had), `first` a flag.
    const FixStateReader r(in, *this);
    const std::vector<double>* v = r.id_records("values", in_.size() + 1, false);
    const std::vector<double>* f = r.sized("first", {1});
    if (f) r.integer(*f, 0, "first", 0, 1);
    if (v) {
      values_.clear();
      const size_t w = in_.size() + 1;
      for (size_t k = 0; k + w <= v->size(); k += w)
        values_[static_cast<int64_t>((*v)[k])].assign(v->begin() + k + 1, v->begin() + k + w);
    }
    if (f) first_ = (*f)[0] != 0.0;
  }

 private:
  // Stores the attributes (attr) and/or the references (refs) of the group's atoms, on every rank.
  void store(const State& s, FixContext* c, const Comm* comm, bool attr, bool refs) {
    const Atoms& a = s.atoms;
    const size_t n = in_.size();
    std::vector<std::vector<double>> ref_values(n);
    if (refs && c) {
      if (c->styles) c->styles->clearstep_computes();
      const ComputeContext cc = c->compute_context();
      for (size_t k = 0; k < n; ++k)
        if (in_[k].attribute.empty()) reference_peratom(in_[k].ref, cc, pos_, ref_values[k]);
    }
    std::vector<double> mine;  // id, then n values, per group atom
    for (size_t i = 0; i < a.size(); ++i) {
      if (!(a.mask[i] & group_)) continue;
      mine.push_back(static_cast<double>(a.id[i]));
      const auto old = values_.find(a.id[i]);
      for (size_t k = 0; k < n; ++k) {
        const bool is_attr = !in_[k].attribute.empty();
        double v = old != values_.end() ? old->second[k] : 0.0;
        if (is_attr && attr) v = attribute(s, i, in_[k].attribute);
        if (!is_attr && refs && c) v = ref_values[k][i];
        mine.push_back(v);
      }
    }
    const std::vector<double> all = comm ? comm->allgather(mine) : mine;
    for (size_t k = 0; k + n + 1 <= all.size(); k += n + 1)
      values_[static_cast<int64_t>(all[k])].assign(all.begin() + k + 1, all.begin() + k + n + 1);
  }
  // LAMMPS's xsu as it packs it (ysu and zsu of an orthogonal box, all three of a triclinic one),
  // s + (image + IMGMAX) − IMGMAX in doubles with IMGMAX = 512 (32-bit imageint, as Debian's lmp): the sum
  // rounds to 512's ulp, and those are the digits LAMMPS stores.
  static double scaled_unwrapped(double s, int image) {
    constexpr int kImgMax = 512;
    return s + (image + kImgMax) - kImgMax;
  }
  static double attribute(const State& s, size_t i, const std::string& w) {
    const Atoms& a = s.atoms;
    const double L[3] = {s.box.prd(0), s.box.prd(1), s.box.prd(2)};
    const double x[3] = {a.x[i], a.y[i], a.z[i]};
    const int im[3] = {a.ix[i], a.iy[i], a.iz[i]};
    if (w == "id") return static_cast<double>(a.id[i]);
    if (w == "mass") return s.mass[a.type[i]];
    if (w == "type") return a.type[i];
    if (w == "vx") return a.vx[i];
    if (w == "vy") return a.vy[i];
    if (w == "vz") return a.vz[i];
    if (w == "fx") return a.fx[i];
    if (w == "fy") return a.fy[i];
    if (w == "fz") return a.fz[i];
    const int d = w[0] == 'x' ? 0 : w[0] == 'y' ? 1 : w[0] == 'z' ? 2 : w[1] == 'x' ? 0 : w[1] == 'y' ? 1 : 2;
    if (w[0] == 'i') return im[d];
    const std::string tail = w.substr(1);
    if (tail.empty()) return x[d];
    if (s.box.triclinic) {  // LAMMPS's pack_*_triclinic: along the edge vectors, h_inv·(x − lo)
      double v[3];
      if (tail == "u") {
        s.box.unwrap(x, im[0], im[1], im[2], v);
        return v[d];
      }
      s.box.to_lamda(x, v);
      return tail == "s" ? v[d] : scaled_unwrapped(v[d], im[d]);
    }
    if (tail == "u") return x[d] + im[d] * L[d];
    if (tail == "s") return (x[d] - s.box.lo[d]) * (1.0 / L[d]);
    // LAMMPS 29 Sep 2021 adds the image count itself for xsu of an orthogonal box (its parentheses), through
    // IMGMAX for ysu and zsu.
    const double scaled = (x[d] - s.box.lo[d]) * (1.0 / L[d]);
    return d == 0 ? scaled + im[d] : scaled_unwrapped(scaled, im[d]);
  }

  int64_t every_;
  std::vector<Input> in_;
  const State* state_;
  SourcePos pos_;
  bool first_ = true;
  std::unordered_map<int64_t, std::vector<double>> values_;
  mutable std::vector<double> out_;
};

std::unique_ptr<Fix> make(const FixArgs& f) {
  io::ArgCursor& a = f.a;
  const int64_t every = a.integer("N (0: store once)", 0, 2000000000);
  std::vector<FixStoreState::Input> in;
  while (!a.done()) {
    const std::string w = a.peek();
    if (w == "com") break;
    a.word("an input");
    FixStoreState::Input x;
    if (std::find(kAttributes.begin(), kAttributes.end(), w) != kAttributes.end()) {
      x.attribute = w;
    } else if (parse_reference(w, x.ref, a)) {
      if (w.find('*') != std::string::npos)
        a.fail("fix store/state: wildcards ('" + w + "') are not supported");
      if (!f.ctx.styles) a.fail("fix store/state: references need a script's computes and fixes");
      check_reference(x.ref, Reference::Shape::peratom, *f.ctx.styles, a, "fix store/state");
    } else {
      a.fail("fix store/state: input '" + w +
             "' is not supported (atom attributes id mass type x y z xs ys zs "
             "xu yu zu xsu ysu zsu ix iy iz vx vy vz fx fy fz, c_ID, c_ID[i], f_ID, f_ID[i])");
    }
    in.push_back(x);
  }
  while (!a.done()) {
    a.choice("a fix store/state keyword", {"com"});
    if (a.yes_no("com")) a.fail("fix store/state: com yes is not supported");
  }
  if (in.empty()) a.fail("fix store/state: no inputs");
  return std::make_unique<FixStoreState>(f, every, std::move(in));
}

}  // namespace

WMD_FIX_STYLE("store/state", make)

}  // namespace wmd::md
