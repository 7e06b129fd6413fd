// compute chunk/atom STYLE args [region ID] [nchunk once|every] [discard yes|no|mixed]
// [bound x|y|z lo hi] [units box|lattice|reduced] [compress no] [limit 0] [ids every] [pbc no], with STYLE
// bin/1d dim origin delta, bin/2d …, bin/3d … or type, as LAMMPS compute chunk/atom. Bins are cut from the
// box (or the bounds) at origin + k·delta; an atom's coordinate is wrapped into a periodic box first. With
// discard mixed (the bins' default) an atom below the lowest bin joins it unless a lower bound was given,
// and one beyond the highest bin is dropped (as LAMMPS codes it). Other chunk styles (molecule, bin/sphere,
// bin/cylinder, c_ID, f_ID, v_name) and compress, limit, ids once|nfreq are refused. On a triclinic box bins
// need units reduced (LAMMPS's rule) and cut the fractional coordinates; their volume is lx·ly·lz·Πdelta.
#include "md/styles/computes/compute_chunk_atom.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "md/styles/style_args.hpp"

namespace wmd::md {

ComputeChunkAtom::ComputeChunkAtom(const ComputeArgs& c, Settings s)
    : Compute(c.id, c.style, c.group), s_(std::move(s)), pos_(c.a.pos()) {
  nchunk_ = s_.style == Style::type ? c.ctx.s.ntypes : setup_bins(c.ctx.s);  // the shape's row count
}

OutputShape ComputeChunkAtom::shape() const {
  OutputShape o;
  o.scalar = true;
  o.peratom_cols = 0;
  return o;
}

void ComputeChunkAtom::init(const ComputeContext& c) {
  if (lock_owner_ && (!c.styles || static_cast<const void*>(c.styles->fix(lock_id_)) != lock_owner_))
    lock_owner_ = nullptr;
  if (s_.nchunk_once && !setup_done_) setup_chunks(c.s);  // LAMMPS's Compute::setup
}

double ComputeChunkAtom::compute_scalar(const ComputeContext& c) {
  invoked_scalar = c.s.step;
  if (invoked_peratom != c.s.step) compute_peratom(c);
  return scalar_ = nchunk_;
}

void ComputeChunkAtom::compute_peratom(const ComputeContext& c) {
  invoked_peratom = c.s.step;
  setup_chunks(c.s);
  const std::vector<int>& ic = compute_ichunk(c.s);
  peratom_.assign(ic.begin(), ic.end());
}

int ComputeChunkAtom::setup_chunks(const State& s) {
  if (lock_owner_ || (s_.nchunk_once && setup_done_)) {
    if (s_.style == Style::bin && s_.units == Units::reduced) bin_volume(s);  // the box may have changed
    return nchunk_;
  }
  setup_done_ = true;
  if (s_.style == Style::bin) {
    nchunk_ = setup_bins(s);
    bin_volume(s);
  } else {
    nchunk_ = s.ntypes;
    volume_ = s.box.volume();
  }
  return nchunk_;
}

void ComputeChunkAtom::bounds(const State& s, int d, double& lo, double& hi) const {
  if (s_.units == Units::reduced)
    lo = 0.0, hi = 1.0;
  else
    lo = s.box.lo[d], hi = s.box.hi[d];
  if (s_.min_set[d]) lo = s_.minvalue[d];
  if (s_.max_set[d]) hi = s_.maxvalue[d];
}

// LAMMPS's setup_xyz_bins: the bin edges nearest below the lower bound and above the upper one, on the
// origin's grid.
int ComputeChunkAtom::setup_bins(const State& s) {
  // Bin counts come from input widths: each layer count and their product are checked in floating point
  // before any int conversion or allocation (a product past INT_MAX would wrap).
  const double kMaxBins = 2147483647.0;
  auto too_many = [&](double n) {
    fail_input(pos_, "compute chunk/atom " + id_ + ": " + fmt::format("{:.4g}", n) +
                         " bins is more than the 2147483647 a chunk ID can count (widen delta or bound)");
  };
  double nbins_real = 1.0;
  int nbins = 1;
  for (int m = 0; m < s_.ndim; ++m) {
    const int d = s_.dim[m];
    double binlo, binhi;
    bounds(s, d, binlo, binhi);
    const double delta = s_.delta[m];
    invdelta_[m] = 1.0 / delta;
    double origin = s_.origin[m];
    if (s_.origin_flag[m] == Origin::lower)
      origin = binlo;
    else if (s_.origin_flag[m] == Origin::upper)
      origin = binhi;
    else if (s_.origin_flag[m] == Origin::center)
      origin = 0.5 * (binlo + binhi);
    // The layers between the origin and either bound must count in an int (as LAMMPS's casts do).
    const double reach = std::max(std::fabs(binlo - origin), std::fabs(binhi - origin)) * invdelta_[m];
    if (!(reach < kMaxBins - 2.0)) too_many(reach);
    double lo, hi;
    if (origin < binlo) {
      const int n = static_cast<int>((binlo - origin) * invdelta_[m]);
      lo = origin + n * delta;
    } else {
      const int n = static_cast<int>((origin - binlo) * invdelta_[m]);
      lo = origin - n * delta;
      if (lo > binlo) lo -= delta;
    }
    if (origin < binhi) {
      const int n = static_cast<int>((binhi - origin) * invdelta_[m]);
      hi = origin + n * delta;
      if (hi < binhi) hi += delta;
    } else {
      const int n = static_cast<int>((origin - binhi) * invdelta_[m]);
      hi = origin - n * delta;
    }
    if (lo > hi) fail_input(pos_, "compute chunk/atom " + id_ + ": invalid bin bounds");
    offset_[m] = lo;
    const double layers = std::floor((hi - lo) * invdelta_[m] + 0.5);
    nbins_real *= layers;
    if (!(nbins_real <= kMaxBins)) too_many(nbins_real);
    nlayers_[m] = static_cast<int>(layers);
    nbins *= nlayers_[m];
  }
  return nbins;
}

void ComputeChunkAtom::bin_volume(const State& s) {
  volume_ = s.box.prd(0) * s.box.prd(1) * s.box.prd(2);
  for (int m = 0; m < s_.ndim; ++m)
    volume_ *= s_.delta[m] / (s_.units == Units::reduced ? 1.0 : s.box.prd(s_.dim[m]));
}

const std::vector<int>& ComputeChunkAtom::compute_ichunk(const State& s) {
  const Atoms& a = s.atoms;
  ichunk_.assign(a.size(), 0);
  if (s_.has_region && s_.region.dynamic()) s_.region.prematch();
  const bool reduced = s_.units == Units::reduced;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!in_group(a, i)) continue;
    if (s_.has_region && !s_.region.match(a.x[i], a.y[i], a.z[i])) continue;
    if (s_.style == Style::type) {
      ichunk_[i] = a.type[i];
      continue;
    }
    const double x[3] = {a.x[i], a.y[i], a.z[i]};
    // LAMMPS's x2lamda: h_inv·(x − lo), on a triclinic box with the tilt terms (there the bins are always
    // in reduced units).
    double lamda[3] = {0.0, 0.0, 0.0};
    if (reduced && s.box.triclinic) s.box.to_lamda(x, lamda);
    int bin = 0;
    bool excluded = false;
    for (int m = 0; m < s_.ndim && !excluded; ++m) {
      const int d = s_.dim[m];
      // LAMMPS's x2lamda for an orthogonal box: (x − lo)·(1/prd).
      double xr = !reduced ? x[d] : s.box.triclinic ? lamda[d] : (1.0 / s.box.prd(d)) * (x[d] - s.box.lo[d]);
      if (s.box.periodic(d)) {
        const double lo = reduced ? 0.0 : s.box.lo[d], hi = reduced ? 1.0 : s.box.hi[d];
        const double prd = reduced ? 1.0 : s.box.prd(d);
        if (xr < lo) xr += prd;
        if (xr >= hi) xr -= prd;
      }
      int k = static_cast<int>((xr - offset_[m]) * invdelta_[m]);
      if (xr < offset_[m]) --k;
      const int top = nlayers_[m] - 1;
      if (s_.discard == Discard::mixed) {
        // LAMMPS clamps below only without a lower bound; above it never clamps (its maxflag is UPPER or
        // COORD, both non-zero), so an atom beyond the last bin is dropped.
        if (!s_.min_set[d])
          k = std::max(k, 0);
        else if (k < 0)
          excluded = true;
        if (k > top) excluded = true;
      } else if (s_.discard == Discard::no) {
        k = std::min(std::max(k, 0), top);
      } else if (k < 0 || k > top) {
        excluded = true;
      }
      bin = bin * nlayers_[m] + k;
    }
    if (!excluded) ichunk_[i] = bin + 1;
  }
  return ichunk_;
}

namespace {

int dim_arg(io::ArgCursor& a) {
  const std::string d = a.choice("the bin dimension", {"x", "y", "z"});
  return d[0] - 'x';
}

std::unique_ptr<Compute> make(const ComputeArgs& c) {
  using S = ComputeChunkAtom;
  S::Settings s;
  const std::string style = c.a.word("a chunk style (bin/1d, bin/2d, bin/3d, type)");
  if (style == "bin/1d" || style == "bin/2d" || style == "bin/3d") {
    s.style = S::Style::bin;
    s.ndim = style[4] - '0';
    for (int m = 0; m < s.ndim; ++m) {
      s.dim[m] = dim_arg(c.a);
      const std::string o = c.a.word("the bin origin (lower, center, upper or a coordinate)");
      if (o == "lower")
        s.origin_flag[m] = S::Origin::lower;
      else if (o == "center")
        s.origin_flag[m] = S::Origin::center;
      else if (o == "upper")
        s.origin_flag[m] = S::Origin::upper;
      else if (io::parse_double(o, s.origin[m]))
        s.origin_flag[m] = S::Origin::value;
      else
        c.a.fail("compute chunk/atom: origin '" + o + "' is not lower, center, upper or a number");
      s.delta[m] = c.a.real("the bin width delta");
      if (s.delta[m] <= 0.0) c.a.fail("compute chunk/atom: the bin width delta must be positive");
    }
    for (int m = 0; m < s.ndim; ++m)
      for (int k = m + 1; k < s.ndim; ++k)
        if (s.dim[m] == s.dim[k]) c.a.fail("compute chunk/atom " + style + ": a dimension appears twice");
  } else if (style == "type") {
    s.style = S::Style::type;
  } else {
    c.a.fail("compute chunk/atom style '" + style +
             "' is not supported (bin/1d, bin/2d, bin/3d, type; not molecule, bin/sphere, bin/cylinder or "
             "c_ID, f_ID, v_name chunk IDs)");
  }
  bool nchunk_set = false, discard_set = false;
  while (!c.a.done()) {
    const std::string k = c.a.word("a keyword");
    if (k == "region") {
      s.region = region_arg(c.a, c.ctx.regions, "compute chunk/atom");
      s.has_region = true;
    } else if (k == "nchunk") {
      s.nchunk_once = c.a.choice("nchunk", {"once", "every"}) == "once";
      nchunk_set = true;
    } else if (k == "discard") {
      const std::string d = c.a.choice("discard", {"yes", "no", "mixed"});
      s.discard = d == "yes" ? S::Discard::yes : d == "no" ? S::Discard::no : S::Discard::mixed;
      discard_set = true;
    } else if (k == "bound") {
      const int d = dim_arg(c.a);
      const std::string lo = c.a.word("the lower bound (lower or a coordinate)");
      const std::string hi = c.a.word("the upper bound (upper or a coordinate)");
      s.min_set[d] = lo != "lower";
      s.max_set[d] = hi != "upper";
      if (s.min_set[d] && !io::parse_double(lo, s.minvalue[d]))
        c.a.fail("compute chunk/atom bound: '" + lo + "' is not lower or a number");
      if (s.max_set[d] && !io::parse_double(hi, s.maxvalue[d]))
        c.a.fail("compute chunk/atom bound: '" + hi + "' is not upper or a number");
    } else if (k == "units") {
      const std::string u = c.a.choice("units", {"box", "lattice", "reduced"});
      s.units = u == "box" ? S::Units::box : u == "lattice" ? S::Units::lattice : S::Units::reduced;
    } else if (k == "compress") {
      if (c.a.yes_no("compress")) c.a.fail("compute chunk/atom: compress yes is not supported");
    } else if (k == "limit") {
      if (c.a.integer("limit", 0, 1000000000) != 0)
        c.a.fail("compute chunk/atom: limit is not supported (only limit 0)");
    } else if (k == "ids") {
      if (c.a.choice("ids", {"once", "nfreq", "every"}) != "every")
        c.a.fail("compute chunk/atom: ids once and ids nfreq are not supported (only ids every)");
    } else if (k == "pbc") {
      if (c.a.yes_no("pbc")) c.a.fail("compute chunk/atom: pbc yes is not supported");
    } else {
      c.a.fail("compute chunk/atom: keyword '" + k +
               "' is not supported (region, nchunk, discard, bound, units, compress, limit, ids, pbc)");
    }
  }
  if (!nchunk_set) s.nchunk_once = s.style == S::Style::type || s.units == S::Units::reduced;
  if (!discard_set) s.discard = s.style == S::Style::bin ? S::Discard::mixed : S::Discard::yes;
  if (s.style != S::Style::bin && s.discard == S::Discard::mixed)
    c.a.fail("compute chunk/atom without bins cannot use discard mixed");
  // A triclinic box is binned in fractional coordinates only (LAMMPS's check, made when the compute is
  // defined).
  if (s.style == S::Style::bin && c.ctx.s.box.triclinic && s.units != S::Units::reduced)
    c.a.fail(
        "compute chunk/atom bins on a triclinic box need units reduced (LAMMPS: \"Compute chunk/atom "
        "for triclinic boxes requires units reduced\")");
  // Lattice units scale the widths, origins and bounds by the lattice spacings (1 without a lattice, as
  // LAMMPS's default lattice "none 1.0").
  if (s.style == S::Style::bin && s.units == S::Units::lattice) {
    double scale[3];
    for (int d = 0; d < 3; ++d) scale[d] = c.ctx.xlattice[d] > 0.0 ? c.ctx.xlattice[d] : 1.0;
    for (int m = 0; m < s.ndim; ++m) {
      const double f = scale[s.dim[m]];
      s.delta[m] *= f;
      if (s.origin_flag[m] == S::Origin::value) s.origin[m] *= f;
      // LAMMPS indexes the bounds (kept per box direction) by the bin dimension here: bin/1d z scales no
      // bound of z.
      if (s.min_set[m]) s.minvalue[m] *= f;
      if (s.max_set[m]) s.maxvalue[m] *= f;
    }
  }
  return std::make_unique<ComputeChunkAtom>(c, std::move(s));
}

}  // namespace

WMD_COMPUTE_STYLE("chunk/atom", make)

}  // namespace wmd::md
