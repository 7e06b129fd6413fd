// `change_box group x|y|z final lo hi|delta dlo dhi|scale f|volume, xy|xz|yz final t|delta dt, boundary x y
// z, ortho, triclinic, set, remap [units lattice|box]` with LAMMPS's sequence: atoms wrapped (through their
// fractional coordinates on a triclinic box) and shrink-wrapped faces reset first, the operations in order
// (`remap` moves the group's atoms with the box since the last `set`/`remap`: fractional coordinates in the
// saved box, box coordinates in the current one), then every atom remapped into the box.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "md/core/boundaries.hpp"
#include "md/run/command_registry.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

/// LAMMPS's set_initial_box for one direction: the floor of an 'm' face is the box as it now stands.
void set_initial(Box& b, int d) {
  b.min_lo[d] = b.lo[d], b.min_hi[d] = b.hi[d];
}

/// LAMMPS's reset_box: shrink-wrapped faces follow the atoms (0.01 % of the box beyond the outermost).
void shrink_wrap(Box& b, const Atoms& a, const Comm& comm, const io::ArgCursor& cur) {
  const std::vector<double>* pos[3] = {&a.x, &a.y, &a.z};
  for (int d = 0; d < 3; ++d) {
    if (b.periodic(d) || (b.face[d][0] == Face::fixed && b.face[d][1] == Face::fixed)) continue;
    double mn = std::numeric_limits<double>::max(), mx = -mn;
    for (double x : *pos[d]) mn = std::min(mn, x), mx = std::max(mx, x);
    mn = comm.min(mn), mx = comm.max(mx);
    if (mn > mx) continue;  // no atoms
    const double small = 1.0e-4 * b.prd(d);
    if (b.face[d][0] == Face::shrink) b.lo[d] = mn - small;
    if (b.face[d][0] == Face::shrink_min) b.lo[d] = std::min(mn - small, b.min_lo[d]);
    if (b.face[d][1] == Face::shrink) b.hi[d] = mx + small;
    if (b.face[d][1] == Face::shrink_min) b.hi[d] = std::max(mx + small, b.min_hi[d]);
    if (b.lo[d] > b.hi[d]) cur.fail("change_box made an illegal box");
  }
}

/// LAMMPS's Domain::remap of every atom: while loops along periodic directions, image flags updated. The
/// loops' length (kMaxRemapWidths: a box shrunk to 1e-9 Å looped ~10^10 times per atom) is checked first,
/// on every rank together.
void remap_atoms(const Box& b, Atoms& a, const Comm& comm, const io::ArgCursor& cur) {
  double widths[3] = {0.0, 0.0, 0.0};
  for (int d = 0; d < 3; ++d) {
    if (!b.periodic(d)) continue;
    for (size_t i = 0; i < a.size(); ++i) {
      const double x[3] = {a.x[i], a.y[i], a.z[i]};
      widths[d] = std::fmax(widths[d], point_widths_outside(b, x, d));
    }
  }
  comm.max(widths, 3);
  for (int d = 0; d < 3; ++d)
    if (!(widths[d] <= kMaxRemapWidths))
      cur.fail(fmt::format(
          "change_box leaves atoms {:.3g} box widths outside the new box along {} (its width {:.3g}); more "
          "than {:.0e} widths cannot be wrapped back",
          widths[d], "xyz"[d], b.prd(d), kMaxRemapWidths));
  if (b.triclinic) {
    for (size_t i = 0; i < a.size(); ++i) {
      double x[3] = {a.x[i], a.y[i], a.z[i]};
      int image[3] = {a.ix[i], a.iy[i], a.iz[i]};
      remap_point(b, x, image);
      a.x[i] = x[0], a.y[i] = x[1], a.z[i] = x[2];
      a.ix[i] = image[0], a.iy[i] = image[1], a.iz[i] = image[2];
    }
    return;
  }
  std::vector<double>* pos[3] = {&a.x, &a.y, &a.z};
  std::vector<int>* img[3] = {&a.ix, &a.iy, &a.iz};
  for (int d = 0; d < 3; ++d) {
    if (!b.periodic(d)) continue;
    for (size_t i = 0; i < a.size(); ++i) {
      double& x = (*pos[d])[i];
      int& im = (*img[d])[i];
      while (x < b.lo[d]) x += b.prd(d), --im;
      while (x >= b.hi[d]) x -= b.prd(d), ++im;
      x = std::max(x, b.lo[d]);
    }
  }
}

struct Op {
  enum Kind { final_, delta, scale, boundary, ortho, set, remap, tilt_final, tilt_delta, triclinic } kind;
  int dim = 0;
  double v1 = 0.0, v2 = 0.0;
  int vdim1 = -1, vdim2 = -1;  // dimensions that keep the volume (the `volume` arguments after this one)
  std::string faces[3];
};

void cmd_change_box(Simulation& sim, const io::Command& c) {
  sim.require_box(c);
  io::ArgCursor a(c);
  const uint32_t group = sim.group_of(a, a.word("a group ID"));
  std::vector<Op> ops;
  bool lattice_units = true;
  while (!a.done()) {
    const std::string key = a.word("a change_box operation");
    if (key == "x" || key == "y" || key == "z") {
      const int dim = key[0] - 'x';
      const std::string how =
          a.choice("final, delta, scale or volume", {"final", "delta", "scale", "volume"});
      if (how == "volume") {
        if (ops.empty() || ops.back().kind > Op::scale || ops.back().dim == dim || ops.back().vdim2 >= 0)
          a.fail("change_box " + key +
                 " volume must follow a change of another of x, y, z (at most two volume "
                 "keywords)");
        (ops.back().vdim1 >= 0 ? ops.back().vdim2 : ops.back().vdim1) = dim;
        continue;
      }
      Op o{how == "final" ? Op::final_ : how == "delta" ? Op::delta : Op::scale};
      o.dim = dim;
      if (how == "scale") {
        o.v1 = a.real("the scale factor");
      } else {
        o.v1 = a.real(how == "final" ? "the new lower bound" : "the change of the lower bound");
        o.v2 = a.real(how == "final" ? "the new upper bound" : "the change of the upper bound");
      }
      ops.push_back(o);
    } else if (key == "boundary") {
      Op o{Op::boundary};
      for (int d = 0; d < 3; ++d) {
        const std::string w =
            a.word(std::string("the ") + "xyz"[d] + " boundary (p, f, s, m or a pair like fs)");
        const bool ok = !w.empty() && w.size() <= 2 && std::all_of(w.begin(), w.end(), [](char ch) {
          return ch == 'p' || ch == 'f' || ch == 's' || ch == 'm';
        });
        if (!ok) a.fail("bad boundary '" + w + "': use p, f, s or m");
        if ((w[0] == 'p') != (w.back() == 'p')) a.fail("boundary '" + w + "': p must be on both faces");
        o.faces[d] = w;
      }
      ops.push_back(o);
    } else if (key == "ortho") {
      ops.push_back(Op{Op::ortho});
    } else if (key == "set") {
      ops.push_back(Op{Op::set});
    } else if (key == "remap") {
      ops.push_back(Op{Op::remap});
    } else if (key == "xy" || key == "xz" || key == "yz") {
      const bool final = a.choice("final or delta", {"final", "delta"}) == "final";
      Op o{final ? Op::tilt_final : Op::tilt_delta};
      o.dim = key == "yz" ? 0 : key == "xz" ? 1 : 2;  // index into xy/xz/yz below: 0 yz, 1 xz, 2 xy
      o.v1 = a.real(final ? "the new tilt factor" : "the change of the tilt factor");
      ops.push_back(o);
    } else if (key == "triclinic") {
      ops.push_back(Op{Op::triclinic});
    } else if (key == "units") {
      lattice_units = a.choice("units", {"lattice", "box"}) == "lattice";
      if (!a.done()) a.fail("change_box units must come last");
    } else {
      a.fail("unknown change_box operation '" + key +
             "' (x, y, z, xy, xz, yz, boundary, ortho, triclinic, set, remap, units)");
    }
  }
  if (ops.empty())
    a.fail("change_box needs an operation (x, y, z, xy, xz, yz, boundary, ortho, triclinic, set or remap)");
  double scale[3] = {1.0, 1.0, 1.0};
  if (lattice_units)
    for (int d = 0; d < 3; ++d) scale[d] = sim.lattice.spacing[d];

  Box& b = sim.state.box;
  Atoms& at = sim.state.atoms;
  // Atoms into the box and shrink-wrapped faces onto them before anything changes (pbc, reset_box; on a
  // triclinic box through fractional coordinates).
  {
    if (b.triclinic) atoms_to_lamda(b, at);
    const double lo = 0.0, hi = 1.0;
    std::vector<double>* pos[3] = {&at.x, &at.y, &at.z};
    std::vector<int>* img[3] = {&at.ix, &at.iy, &at.iz};
    for (size_t i = 0; i < at.size(); ++i)
      for (int d = 0; d < 3; ++d) {
        if (!b.periodic(d)) continue;
        const double blo = b.triclinic ? lo : b.lo[d], bhi = b.triclinic ? hi : b.hi[d];
        const double L = b.triclinic ? 1.0 : b.prd(d);
        double& x = (*pos[d])[i];
        if (x < blo) x += L, --(*img[d])[i];
        if (x >= bhi) x = std::max(x - L, blo), ++(*img[d])[i];
      }
    if (b.triclinic) atoms_from_lamda(b, at);
  }
  shrink_wrap(b, at, sim.comm, a);
  Box saved = b;  // LAMMPS's save_box_state: boxlo and h_inv for `remap`
  auto save = [&] { saved = b; };
  auto check = [&](int d) {
    if (!(b.hi[d] > b.lo[d]))
      a.fail(fmt::format("change_box makes the box empty along {} ({} to {})", "xyz"[d], b.lo[d], b.hi[d]));
    if (!box_interval_ok(b.lo[d], b.hi[d]))
      a.fail(fmt::format("change_box makes the box not finite (beyond ±1e20) along {} ({} to {})", "xyz"[d],
                         b.lo[d], b.hi[d]));
    const std::string bad = triclinic_box_problem(b);  // LAMMPS's set_initial_box after every change
    if (!bad.empty()) a.fail("change_box: " + bad);
  };
  for (const Op& o : ops) {
    if (o.kind <= Op::scale) {
      const double volume = b.prd(0) * b.prd(1) * b.prd(2);
      const int d = o.dim;
      if (o.kind == Op::final_) {
        b.lo[d] = scale[d] * o.v1;
        b.hi[d] = scale[d] * o.v2;
      } else if (o.kind == Op::delta) {
        b.lo[d] += scale[d] * o.v1;
        b.hi[d] += scale[d] * o.v2;
      } else {
        const double mid = 0.5 * (b.lo[d] + b.hi[d]);
        double delta = b.lo[d] - mid;
        b.lo[d] = mid + o.v1 * delta;
        delta = b.hi[d] - mid;
        b.hi[d] = mid + o.v1 * delta;
      }
      check(d);
      set_initial(b, d);
      if (o.vdim1 >= 0) {
        // LAMMPS's volume_preserve: the other dimension(s) scale about their centres to keep the volume.
        const double newvol = (b.hi[0] - b.lo[0]) * (b.hi[1] - b.lo[1]) * (b.hi[2] - b.lo[2]);
        const double s = volume / newvol;
        const double f = o.vdim2 < 0 ? s : std::sqrt(s);
        for (int e : {o.vdim1, o.vdim2}) {
          if (e < 0) continue;
          const double mid = 0.5 * (b.lo[e] + b.hi[e]);
          double delta = b.lo[e] - mid;
          b.lo[e] = mid + f * delta;
          delta = b.hi[e] - mid;
          b.hi[e] = mid + f * delta;
          check(e);
          set_initial(b, e);
        }
      }
    } else if (o.kind == Op::boundary) {
      std::vector<int>* img[3] = {&at.ix, &at.iy, &at.iz};
      for (int d = 0; d < 3; ++d) {
        b.face[d][0] = static_cast<Face>(o.faces[d][0]);
        b.face[d][1] = static_cast<Face>(o.faces[d].back());
        set_initial(b, d);
        // LAMMPS's set_boundary zeroes the image flags of directions that are not periodic.
        if (!b.periodic(d)) std::fill(img[d]->begin(), img[d]->end(), 0);
      }
      const std::string bad = triclinic_box_problem(b);
      if (!bad.empty()) a.fail("change_box: " + bad);
    } else if (o.kind == Op::tilt_final || o.kind == Op::tilt_delta) {
      if (!b.triclinic) a.fail("Cannot change box tilt factors for orthogonal box");
      double& t = o.dim == 0 ? b.yz : o.dim == 1 ? b.xz : b.xy;
      const double v = (o.dim == 0 ? scale[1] : scale[0]) * o.v1;  // yz in y lattice spacings, xy xz in x
      t = o.kind == Op::tilt_final ? v : t + v;
      if (!(std::fabs(t) < kMaxBoxCoordinate))
        a.fail("change_box makes a tilt factor not finite (beyond ±1e20)");
      const std::string bad = triclinic_box_problem(b);
      if (!bad.empty()) a.fail("change_box: " + bad);
    } else if (o.kind == Op::ortho || o.kind == Op::triclinic) {
      if (o.kind == Op::ortho && (b.xy != 0.0 || b.xz != 0.0 || b.yz != 0.0))
        a.fail("Cannot change box to orthogonal when tilt is non-zero");
      if (!sim.dumps.empty() || !sim.h5md.empty())
        a.fail("Cannot change box ortho/triclinic with dumps defined");
      for (const auto& f : sim.fixes)
        if (f->style() == "deform" || f->style() == "npt" || f->style() == "nph" || f->style() == "box/relax")
          a.fail("Cannot change box ortho/triclinic with certain fixes defined (fix " + f->id() + " " +
                 f->style() + ")");
      b.triclinic = o.kind == Op::triclinic;
      const std::string bad = triclinic_box_problem(b);
      if (!bad.empty()) a.fail("change_box: " + bad);
    } else if (o.kind == Op::set) {
      save();
    } else if (o.kind == Op::remap) {
      // Fractional coordinates in the saved box, then box coordinates in the current one (x2lamda,
      // lamda2x; on orthogonal boxes the tilt terms are exact zeros).
      for (size_t i = 0; i < at.size(); ++i) {
        if (!(at.mask[i] & group)) continue;
        double x[3] = {at.x[i], at.y[i], at.z[i]};
        saved.to_lamda(x, x);
        b.from_lamda(x, x);
        at.x[i] = x[0], at.y[i] = x[1], at.z[i] = x[2];
      }
      save();
    }
  }
  shrink_wrap(b, at, sim.comm, a);
  // The final remap and LAMMPS's migration after it go through fractional coordinates on a triclinic box —
  // except that lmp 29Sep2021 rounds a change_box of only `ortho`/`triclinic` operations on an untilted box
  // as an orthogonal one (measured: its atoms keep their bits), which is followed here.
  const bool only_flags = std::all_of(
      ops.begin(), ops.end(), [](const Op& o) { return o.kind == Op::ortho || o.kind == Op::triclinic; });
  const bool untilted = b.xy == 0.0 && b.xz == 0.0 && b.yz == 0.0;
  Box remap_box = b;
  if (only_flags && untilted) remap_box.triclinic = false;
  remap_atoms(remap_box, at, sim.comm, a);
  if (remap_box.triclinic) {
    atoms_to_lamda(b, at);
    atoms_from_lamda(b, at);
  }
  ++sim.state.edits;
  sim.forces_current = false;
  if (!sim.dry_run) {
    sim.log.line(fmt::format("Changing box ...\n  {} box = ({:.8g} {:.8g} {:.8g}) to ({:.8g} {:.8g} {:.8g})",
                             b.triclinic ? "triclinic" : "orthogonal", b.lo[0], b.lo[1], b.lo[2], b.hi[0],
                             b.hi[1], b.hi[2]));
    if (b.triclinic) sim.log.line(fmt::format("  with tilt ({:.8g} {:.8g} {:.8g})", b.xy, b.xz, b.yz));
  }
}

}  // namespace

WMD_COMMAND("change_box", cmd_change_box, kNoFlags)

}  // namespace wmd::md
