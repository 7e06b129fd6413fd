// compute reduce MODE INPUT… and compute reduce/region REGION MODE INPUT…: sum, min, max, ave, sumsq,
// avesq, sumabs or aveabs over the group's atoms (in the region) of per-atom inputs — x y z vx vy vz fx fy
// fz, c_ID, c_ID[i], f_ID, f_ID[i] — one global scalar for one input, a vector for several, as LAMMPS
// compute reduce (extensive for the sums). A c_ID or c_ID[i] of a compute with local values (pair/local,
// property/local) reduces over all its rows, group and region aside, as in LAMMPS (reduce/region refuses
// them).
#include <algorithm>
#include <cmath>
#include <optional>

#include "md/styles/compute.hpp"
#include "md/styles/reference.hpp"
#include "md/styles/style_args.hpp"

namespace wmd::md {
namespace {

enum class Mode { sum, min, max, ave, sumsq, avesq, sumabs, aveabs };

struct Input {
  int property = -1;  // 0..8: x y z vx vy vz fx fy fz; -1: a reference
  Reference ref;
  bool local = false;  // the reference names local values (one per pair, …): no group or region applies
};

class ComputeReduce : public Compute {
 public:
  ComputeReduce(const ComputeArgs& c, Mode mode, std::vector<Input> in, std::optional<Region> region)
      : Compute(c.id, c.style, c.group),
        mode_(mode),
        in_(std::move(in)),
        region_(std::move(region)),
        at_(c.a.pos()) {}
  OutputShape shape() const override {
    const bool ext = mode_ == Mode::sum || mode_ == Mode::sumsq || mode_ == Mode::sumabs;
    if (in_.size() == 1) return {true, 0, -1, ext};
    return {false, static_cast<int>(in_.size()), -1, ext};
  }
  double compute_scalar(const ComputeContext& c) override {
    invoked_scalar = c.s.step;
    scalar_ = reduce(c, in_[0]);
    return scalar_;
  }
  void compute_vector(const ComputeContext& c) override {
    invoked_vector = c.s.step;
    vector_.resize(in_.size());
    for (size_t k = 0; k < in_.size(); ++k) vector_[k] = reduce(c, in_[k]);
  }

 private:
  double reduce(const ComputeContext& c, const Input& in) {
    const Atoms& a = c.s.atoms;
    const SourcePos& at = at_;  // an input's refusal (an atom-style formula's) names the compute's line
    if (in.local)
      reference_local(in.ref, c, at, values_);
    else if (in.property < 0)
      reference_peratom(in.ref, c, at, values_);
    const std::vector<double>* prop[9] = {&a.x, &a.y, &a.z, &a.vx, &a.vy, &a.vz, &a.fx, &a.fy, &a.fz};
    const bool sum = mode_ != Mode::min && mode_ != Mode::max;
    constexpr double kBig = 1.0e20;  // LAMMPS's start value of min and max
    double one = mode_ == Mode::min ? kBig : mode_ == Mode::max ? -kBig : 0.0;
    TermSum total(c.comm, 1);
    int64_t count = 0;
    const size_t rows = in.local ? values_.size() : a.size();
    for (size_t i = 0; i < rows; ++i) {
      if (!in.local && (!in_group(a, i) || (region_ && !region_->match(a.x[i], a.y[i], a.z[i])))) continue;
      ++count;
      const double v = in.property >= 0 ? (*prop[in.property])[i] : values_[i];
      if (mode_ == Mode::min)
        one = std::min(one, v);
      else if (mode_ == Mode::max)
        one = std::max(one, v);
      else
        total.add(0, mode_ == Mode::sumsq || mode_ == Mode::avesq     ? v * v
                     : mode_ == Mode::sumabs || mode_ == Mode::aveabs ? std::fabs(v)
                                                                      : v);
    }
    if (!sum) return mode_ == Mode::min ? c.comm.min(one) : c.comm.max(one);
    double r = total.total()[0];
    if (mode_ == Mode::ave || mode_ == Mode::avesq || mode_ == Mode::aveabs) {
      const int64_t n = c.comm.sum(count);
      if (n > 0) r /= static_cast<double>(n);
    }
    return r;
  }

  Mode mode_;
  std::vector<Input> in_;
  std::optional<Region> region_;
  SourcePos at_;  // the compute command's line
  std::vector<double> values_;
};

std::unique_ptr<Compute> make(const ComputeArgs& c) {
  std::optional<Region> region;
  if (c.style == "reduce/region") {
    region = region_arg(c.a, c.ctx.regions, "compute reduce/region");
    if (region->dynamic()) c.a.fail("compute reduce/region: moving or variable regions are not supported");
  }
  static const char* modes[] = {"sum", "min", "max", "ave", "sumsq", "avesq", "sumabs", "aveabs"};
  const std::string m =
      c.a.choice("a reduce mode", {"sum", "min", "max", "ave", "sumsq", "avesq", "sumabs", "aveabs"});
  Mode mode = Mode::sum;
  for (int k = 0; k < 8; ++k)
    if (m == modes[k]) mode = static_cast<Mode>(k);
  static const std::vector<std::string> props = {"x", "y", "z", "vx", "vy", "vz", "fx", "fy", "fz"};
  std::vector<Input> in;
  while (!c.a.done()) {
    const std::string w = c.a.peek();
    if (w == "replace" || w == "inputs")
      c.a.fail("compute " + c.style + ": the '" + w + "' keyword is not supported");
    c.a.word("an input");
    Input x;
    const auto p = std::find(props.begin(), props.end(), w);
    if (p != props.end()) {
      x.property = static_cast<int>(p - props.begin());
    } else if (!parse_reference(w, x.ref, c.a)) {
      c.a.fail("compute " + c.style + ": '" + w +
               "' is not an input (x y z vx vy vz fx fy fz, c_ID, c_ID[i], f_ID, f_ID[i])");
    } else if (c.ctx.styles) {
      x.local = reference_is_local(x.ref, *c.ctx.styles);
      if (x.local && region)
        c.a.fail("compute reduce/region: " + w +
                 " names local values, which have no positions (use compute "
                 "reduce)");
      check_reference(x.ref, x.local ? Reference::Shape::local : Reference::Shape::peratom, *c.ctx.styles,
                      c.a, "compute " + c.style);
    }
    in.push_back(x);
  }
  if (in.empty()) c.a.fail("compute " + c.style + " needs at least one input");
  return std::make_unique<ComputeReduce>(c, mode, std::move(in), std::move(region));
}

}  // namespace

WMD_COMPUTE_STYLE("reduce", make)
WMD_COMPUTE_STYLE("reduce/region", make)

}  // namespace wmd::md
