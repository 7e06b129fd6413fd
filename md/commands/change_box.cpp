// `change_box group x|y|z final lo hi|delta dlo dhi|scale f|volume ... boundary x y z ortho set remap [units
// lattice|box]` on orthogonal boxes, with LAMMPS's sequence: atoms wrapped and shrink-wrapped faces reset
// first, the operations in order (`remap` moves the group's atoms with the box since the last `set`/`remap`),
// then every atom remapped into the box. Triclinic operations (xy, xz, yz, triclinic) are refused.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

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
  std::vector<double>* pos[3] = {&a.x, &a.y, &a.z};
  std::vector<int>* img[3] = {&a.ix, &a.iy, &a.iz};
  double widths[3] = {0.0, 0.0, 0.0};
  for (int d = 0; d < 3; ++d) {
    if (!b.periodic(d)) continue;
    for (size_t i = 0; i < a.size(); ++i) {
      widths[d] = std::fmax(widths[d], widths_outside((*pos[d])[i], b.lo[d], b.hi[d], b.prd(d)));
    }
  }
  comm.max(widths, 3);
  for (int d = 0; d < 3; ++d)
    if (!(widths[d] <= kMaxRemapWidths))
      cur.fail(fmt::format(
          "change_box leaves atoms {:.3g} box widths outside the new box along {} (its width {:.3g}); more "
          "than {:.0e} widths cannot be wrapped back",
          widths[d], "xyz"[d], b.prd(d), kMaxRemapWidths));
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
  enum Kind { final_, delta, scale, boundary, ortho, set, remap } kind;
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
    } else if (key == "xy" || key == "xz" || key == "yz" || key == "triclinic") {
      a.fail("change_box " + key +
             " needs a triclinic box; wafermd boxes are orthogonal (triclinic boxes are not "
             "supported)");
    } else if (key == "units") {
      lattice_units = a.choice("units", {"lattice", "box"}) == "lattice";
      if (!a.done()) a.fail("change_box units must come last");
    } else {
      a.fail("unknown change_box operation '" + key + "' (x, y, z, boundary, ortho, set, remap, units)");
    }
  }
  if (ops.empty()) a.fail("change_box needs an operation (x, y, z, boundary, ortho, set or remap)");
  double scale[3] = {1.0, 1.0, 1.0};
  if (lattice_units)
    for (int d = 0; d < 3; ++d) scale[d] = sim.lattice.spacing[d];

  Box& b = sim.state.box;
  Atoms& at = sim.state.atoms;
  // Atoms into the box and shrink-wrapped faces onto them before anything changes (pbc, reset_box).
  {
    std::vector<double>* pos[3] = {&at.x, &at.y, &at.z};
    std::vector<int>* img[3] = {&at.ix, &at.iy, &at.iz};
    for (size_t i = 0; i < at.size(); ++i)
      for (int d = 0; d < 3; ++d) {
        if (!b.periodic(d)) continue;
        double& x = (*pos[d])[i];
        if (x < b.lo[d]) x += b.prd(d), --(*img[d])[i];
        if (x >= b.hi[d]) x = std::max(x - b.prd(d), b.lo[d]), ++(*img[d])[i];
      }
  }
  shrink_wrap(b, at, sim.comm, a);
  double saved_lo[3], saved_inv[3];
  auto save = [&] {
    for (int d = 0; d < 3; ++d) saved_lo[d] = b.lo[d], saved_inv[d] = 1.0 / b.prd(d);
  };
  save();
  auto check = [&](int d) {
    if (!(b.hi[d] > b.lo[d]))
      a.fail(fmt::format("change_box makes the box empty along {} ({} to {})", "xyz"[d], b.lo[d], b.hi[d]));
    if (!box_interval_ok(b.lo[d], b.hi[d]))
      a.fail(fmt::format("change_box makes the box not finite (beyond ±1e20) along {} ({} to {})", "xyz"[d],
                         b.lo[d], b.hi[d]));
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
    } else if (o.kind == Op::set) {
      save();
    } else if (o.kind == Op::remap) {
      // Box-fraction coordinates in the saved box, then box coordinates in the current one (x2lamda,
      // lamda2x).
      std::vector<double>* pos[3] = {&at.x, &at.y, &at.z};
      for (size_t i = 0; i < at.size(); ++i) {
        if (!(at.mask[i] & group)) continue;
        for (int d = 0; d < 3; ++d) {
          double& x = (*pos[d])[i];
          const double lamda = saved_inv[d] * (x - saved_lo[d]);
          x = b.prd(d) * lamda + b.lo[d];
        }
      }
      save();
    }
  }
  shrink_wrap(b, at, sim.comm, a);
  remap_atoms(b, at, sim.comm, a);
  ++sim.state.edits;
  sim.forces_current = false;
  if (!sim.dry_run) {
    sim.log.line(
        fmt::format("Changing box ...\n  orthogonal box = ({:.8g} {:.8g} {:.8g}) to ({:.8g} {:.8g} {:.8g})",
                    b.lo[0], b.lo[1], b.lo[2], b.hi[0], b.hi[1], b.hi[2]));
  }
}

}  // namespace

WMD_COMMAND("change_box", cmd_change_box, kNoFlags)

}  // namespace wmd::md
