// Commands that define the box, the atoms and their velocities.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "io/lammps_data.hpp"
#include "md/core/balance.hpp"
#include "md/core/random_park.hpp"
#include "md/run/simulation.hpp"
#include "md/core/velocity.hpp"

namespace wmd::md {

void Simulation::cmd_units(const io::Command& c) {
  io::ArgCursor a(c);
  const std::string u = a.word("a unit style");
  a.finish();
  if (u != "metal") a.fail("units '" + u + "' is not supported: wafermd uses LAMMPS units metal (Å, eV, ps)");
}

void Simulation::cmd_atom_style(const io::Command& c) {
  io::ArgCursor a(c);
  const std::string st = a.word("an atom style");
  a.finish();
  if (st != "atomic") a.fail("atom_style '" + st + "' is not supported: only atomic");
  require_no_box(c);
}

void Simulation::cmd_boundary(const io::Command& c) {
  require_no_box(c);
  io::ArgCursor a(c);
  for (int d = 0; d < 3; ++d) {
    const std::string w = a.word(std::string("the ") + "xyz"[d] + " boundary (p, f, s, m or a pair like fs)");
    if (w.empty() || w.size() > 2) a.fail("bad boundary '" + w + "'");
    const char lo = w[0], hi = w.size() == 2 ? w[1] : w[0];
    for (char ch : {lo, hi}) {
      if (ch != 'p' && ch != 'f' && ch != 's' && ch != 'm')
        a.fail("bad boundary '" + w + "': use p, f, s or m");
    }
    if ((lo == 'p') != (hi == 'p')) a.fail("boundary '" + w + "': p must be on both faces");
    s_.box.face[d][0] = static_cast<Face>(lo);
    s_.box.face[d][1] = static_cast<Face>(hi);
  }
  a.finish();
}

void Simulation::cmd_processors(const io::Command& c) {
  require_no_box(c);
  io::ArgCursor a(c);
  std::array<int, 3> p = {0, 0, 0};
  int fixed = 1;
  for (int d = 0; d < 3; ++d) {
    const std::string what =
        std::string("the number of sub-domains along ") + "xyz"[d] + " (an integer or *)";
    if (a.peek() == "*") {
      a.word(what);
      continue;
    }
    p[d] = static_cast<int>(a.integer(what, 1, 1000000));
    fixed *= p[d];
  }
  if (!a.done())
    a.fail("only 'processors Px Py Pz' is supported (no grid, map, part, file or numa keywords)");
  // `wafermd model` reads scripts without running them (dry run, one rank): the rank count is not known.
  const int n = comm_.size();
  if (!dry_run_ && (n % fixed != 0 || (p[0] && p[1] && p[2] && fixed != n)))
    a.fail("processors " + c.args[0] + " " + c.args[1] + " " + c.args[2] + " does not fit the " +
           std::to_string(n) + " MPI rank" + (n > 1 ? "s" : "") + " of this run");
  processors_ = p;
}

void Simulation::cmd_balance(const io::Command& c) {
  require_box(c);
  io::ArgCursor a(c);
  const ShiftBalance b = read_shift_balance(a, "balance");
  if (restart_pending() || dry_run_) return;  // a restart takes the cuts from the checkpoint
  if (settings_.backend != "cluster") {
    log_.line("balance: the " + settings_.backend + " backend has no sub-domains to balance; ignored");
    return;
  }
  if (!eam_ || !eam_->complete())
    a.fail(
        "balance needs the pair potential (pair_style and pair_coeff) first: sub-domains stay at least "
        "cutoff + skin wide");
  const double min_width = tables().cutmax + neighbor_.skin;
  const BalanceReport r = balance_shift(comm_, decomp_, s_.box, s_.atoms, b, min_width);
  log_.line("Balancing ...");
  log_.line(fmt::format("  initial imbalance factor = {:.6g}", r.initial));
  for (int d = 0; d < 3; ++d) {
    if (decomp_.grid()[d] == 1) continue;
    std::string line = std::string("  ") + "xyz"[d] + " cuts =";
    for (const double f : decomp_.cuts(d)) line += fmt::format(" {:.6g}", f);
    log_.line(line);
  }
  log_.line(fmt::format("  final imbalance factor = {:.6g}", r.final));
}

void Simulation::cmd_lattice(const io::Command& c) {
  io::ArgCursor a(c);
  const std::string style = a.word("a lattice style (fcc, bcc, sc or none)");
  const double scale = a.positive("the lattice constant (Å)");
  Lattice l;
  if (style == "none") {
    l.scale = scale;
    l.spacing[0] = l.spacing[1] = l.spacing[2] = scale;
  } else if (!make_lattice(style, scale, l)) {
    a.fail("lattice style '" + style + "' is not supported (fcc, bcc, sc, none)");
  }
  while (!a.done()) {
    const std::string key = a.choice("a lattice keyword", {"origin"});
    for (int d = 0; d < 3; ++d) {
      l.origin[d] = a.real("an origin component");
      if (l.origin[d] < 0.0 || l.origin[d] >= 1.0) a.fail("lattice origin components must be in [0, 1)");
    }
  }
  lattice_ = l;
  if (!dry_run_ && style != "none") {
    log_.line("Lattice spacing in x,y,z = " + std::to_string(l.spacing[0]) + " " +
              std::to_string(l.spacing[1]) + " " + std::to_string(l.spacing[2]));
  }
}

void Simulation::cmd_region(const io::Command& c) {
  io::ArgCursor a(c);
  Region r;
  r.id = a.word("a region ID");
  a.choice("a region style", {"block"});
  std::string bounds[6];
  for (auto& b : bounds) b = a.word("six bounds xlo xhi ylo yhi zlo zhi");
  bool lattice_units = true;
  while (!a.done()) {
    const std::string key = a.choice("a region keyword", {"units", "side"});
    if (key == "units")
      lattice_units = a.choice("units", {"lattice", "box"}) == "lattice";
    else
      r.inside = a.choice("side", {"in", "out"}) == "in";
  }
  for (int k = 0; k < 6; ++k) {
    const int d = k / 2;
    const double scale = lattice_units ? lattice_.spacing[d] : 1.0;
    const std::string& b = bounds[k];
    double v;
    if (b == "INF" || b == "-INF") {
      v = (b[0] == '-' ? -1.0 : 1.0) * 1.0e300;
      if ((k % 2 == 0) != (b[0] == '-')) a.fail("region bound '" + b + "' is on the wrong side");
    } else if (b == "EDGE") {
      if (!s_.box.defined) a.fail("region bound EDGE needs an existing box");
      v = k % 2 == 0 ? s_.box.lo[d] : s_.box.hi[d];
    } else {
      if (!io::parse_double(b, v)) a.fail("region bound '" + b + "' is not a number");
      v *= scale;
    }
    (k % 2 == 0 ? r.lo : r.hi)[d] = v;
  }
  for (int d = 0; d < 3; ++d) {
    if (!(r.hi[d] > r.lo[d]))
      a.fail(std::string("region ") + r.id + ": " + "xyz"[d] + "hi must exceed " + "xyz"[d] + "lo");
  }
  regions_[r.id] = r;
}

void Simulation::cmd_create_box(const io::Command& c) {
  require_no_box(c);
  io::ArgCursor a(c);
  const int ntypes = static_cast<int>(a.integer("the number of atom types", 1, 1000));
  const std::string rid = a.word("a region ID");
  a.finish();
  auto it = regions_.find(rid);
  if (it == regions_.end()) a.fail("unknown region '" + rid + "'");
  const Region& r = it->second;
  for (int d = 0; d < 3; ++d) {
    if (std::fabs(r.lo[d]) > 1e200 || std::fabs(r.hi[d]) > 1e200) a.fail("create_box needs a finite region");
    s_.box.lo[d] = s_.box.min_lo[d] = r.lo[d];
    s_.box.hi[d] = s_.box.min_hi[d] = r.hi[d];
  }
  s_.box.defined = true;
  s_.ntypes = ntypes;
  s_.mass.assign(ntypes + 1, 0.0);
  if (!dry_run_) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "Created orthogonal box = (%.7g %.7g %.7g) to (%.7g %.7g %.7g)",
                  s_.box.lo[0], s_.box.lo[1], s_.box.lo[2], s_.box.hi[0], s_.box.hi[1], s_.box.hi[2]);
    log_.line(buf);
  }
  set_decomposition(c);
}

void Simulation::cmd_create_atoms(const io::Command& c) {
  require_box(c);
  io::ArgCursor a(c);
  const int type = static_cast<int>(a.integer("an atom type", 1, s_.ntypes));
  const std::string style = a.choice("a create_atoms style", {"box", "region"});
  const Region* region = nullptr;
  if (style == "region") {
    const std::string rid = a.word("a region ID");
    auto it = regions_.find(rid);
    if (it == regions_.end()) a.fail("unknown region '" + rid + "'");
    region = &it->second;
  }
  if (!lattice_.defined()) a.fail("create_atoms needs a lattice (fcc, bcc or sc) defined first");
  std::vector<int> basis_type(lattice_.basis.size(), type);
  while (!a.done()) {
    a.choice("a create_atoms keyword", {"basis"});
    const int m =
        static_cast<int>(a.integer("a basis atom index", 1, static_cast<long long>(basis_type.size())));
    basis_type[m - 1] = static_cast<int>(a.integer("an atom type", 1, s_.ntypes));
  }
  // Every rank runs the one-rank generation loop and keeps the atoms of its sub-domain: ids and coordinates
  // are LAMMPS's one-rank ones whatever the rank count.
  const int64_t first_id = comm_.max(s_.atoms.max_id()) + 1;
  const int64_t n = restart_pending() ? 0
                                      : create_lattice_atoms(s_, lattice_, basis_type, region, first_id,
                                                             [this](double x, double y, double z) {
                                                               return decomp_.owns(s_.box, x, y, z);
                                                             });
  forces_current_ = false;
  if (!dry_run_) log_.line("Created " + std::to_string(n) + " atoms");
}

void Simulation::cmd_read_data(const io::Command& c) {
  require_no_box(c);
  io::ArgCursor a(c);
  const std::string path = a.word("a data file name");
  a.finish();
  const io::DataFile d = io::read_lammps_data(path, c.pos);
  for (int k = 0; k < 3; ++k) {
    s_.box.lo[k] = s_.box.min_lo[k] = d.lo[k];
    s_.box.hi[k] = s_.box.min_hi[k] = d.hi[k];
  }
  s_.box.defined = true;
  s_.ntypes = d.ntypes;
  s_.mass = d.mass;
  set_decomposition(c);
  // Every rank reads the file and keeps the atoms of its sub-domain.
  for (size_t i = 0; i < (restart_pending() ? 0 : d.id.size()); ++i) {  // restart: atoms from the checkpoint
    if (!decomp_.owns(s_.box, d.x[i], d.y[i], d.z[i])) continue;
    s_.atoms.add(d.id[i], d.type[i], d.x[i], d.y[i], d.z[i]);
    s_.atoms.ix.back() = d.ix[i], s_.atoms.iy.back() = d.iy[i], s_.atoms.iz.back() = d.iz[i];
    if (d.has_velocities)
      s_.atoms.vx.back() = d.vx[i], s_.atoms.vy.back() = d.vy[i], s_.atoms.vz.back() = d.vz[i];
  }
  s_.step = 0;
  forces_current_ = false;
  if (!dry_run_) log_.line("Reading data file ...\n  " + std::to_string(d.id.size()) + " atoms");
}

void Simulation::cmd_write_data(const io::Command& c) {
  require_box(c);
  io::ArgCursor a(c);
  const std::string path = a.word("a data file name");
  while (!a.done()) {
    const std::string key = a.choice("a write_data keyword", {"nocoeff", "nofix", "pair"});
    if (key == "pair") a.word("ii or ij");
  }
  if (dry_run_) return;
  // Rows (LAMMPS writes wrapped coordinates with their image flags) gathered to rank 0, which writes them by
  // id.
  constexpr int kCols = 11;
  const Atoms& at = s_.atoms;
  std::vector<double> rows;
  rows.reserve(kCols * at.size());
  for (size_t i = 0; i < at.size(); ++i) {
    double p[3] = {at.x[i], at.y[i], at.z[i]};
    int im[3] = {at.ix[i], at.iy[i], at.iz[i]};
    for (int k = 0; k < 3; ++k) {
      if (s_.box.periodic(k)) wrap_periodic(p[k], im[k], s_.box.lo[k], s_.box.hi[k]);
    }
    rows.insert(rows.end(), {static_cast<double>(at.id[i]), static_cast<double>(at.type[i]), p[0], p[1], p[2],
                             static_cast<double>(im[0]), static_cast<double>(im[1]),
                             static_cast<double>(im[2]), at.vx[i], at.vy[i], at.vz[i]});
  }
  const std::vector<double> all = comm_.gather(rows);
  if (!comm_.root()) return;
  io::DataFile d;
  d.timestep = s_.step;
  d.ntypes = s_.ntypes;
  for (int k = 0; k < 3; ++k) d.lo[k] = s_.box.lo[k], d.hi[k] = s_.box.hi[k];
  d.mass = s_.mass;
  const size_t n = all.size() / kCols;
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t p, size_t q) { return all[kCols * p] < all[kCols * q]; });
  d.has_velocities = true;
  for (size_t i : order) {
    const double* r = &all[kCols * i];
    d.id.push_back(static_cast<int64_t>(r[0])), d.type.push_back(static_cast<int>(r[1]));
    d.x.push_back(r[2]), d.y.push_back(r[3]), d.z.push_back(r[4]);
    d.ix.push_back(static_cast<int>(r[5])), d.iy.push_back(static_cast<int>(r[6])),
        d.iz.push_back(static_cast<int>(r[7]));
    d.vx.push_back(r[8]), d.vy.push_back(r[9]), d.vz.push_back(r[10]);
  }
  if (!io::write_lammps_data(path, d)) throw RunError("cannot write data file '" + path + "'");
}

void Simulation::cmd_mass(const io::Command& c) {
  require_box(c);
  io::ArgCursor a(c);
  const std::string types = a.word("an atom type (or range like 1*3)");
  const double m = a.positive("the mass (g/mol)");
  a.finish();
  int lo, hi;
  if (!io::parse_bounds(types, s_.ntypes, lo, hi)) {
    a.fail("bad atom type '" + types + "' (1.." + std::to_string(s_.ntypes) + ")");
  }
  for (int t = lo; t <= hi; ++t) s_.mass[t] = m;
}

void Simulation::cmd_group(const io::Command& c) {
  require_box(c);
  io::ArgCursor a(c);
  const std::string id = a.word("a group ID");
  uint32_t bit = s_.group_bit(id);
  if (a.peek() == "delete") {
    a.word("delete");
    a.finish();
    if (!bit || id == "all") a.fail("cannot delete group '" + id + "'");
    for (auto& m : s_.atoms.mask) m &= ~bit;
    s_.group_names[__builtin_ctz(bit)] = "";
    return;
  }
  const std::string style = a.choice("a group style", {"type", "id", "region"});
  if (!bit) {
    size_t k = 0;
    while (k < s_.group_names.size() && !s_.group_names[k].empty()) ++k;
    if (k >= 32) a.fail("too many groups (at most 32)");
    if (k == s_.group_names.size())
      s_.group_names.push_back(id);
    else
      s_.group_names[k] = id;
    bit = 1u << k;
  }
  Atoms& at = s_.atoms;
  if (style == "region") {
    const std::string rid = a.word("a region ID");
    a.finish();
    auto it = regions_.find(rid);
    if (it == regions_.end()) a.fail("unknown region '" + rid + "'");
    for (size_t i = 0; i < at.size(); ++i) {
      if (it->second.match(at.x[i], at.y[i], at.z[i])) at.mask[i] |= bit;
    }
    return;
  }
  if (a.done()) a.fail("group " + style + " needs at least one value");
  struct Range {
    long long lo, hi, stride;
  };
  std::vector<Range> ranges;
  while (!a.done()) {
    const std::string w = a.word("a value");
    std::vector<std::string> parts;
    size_t from = 0;
    for (size_t colon; (colon = w.find(':', from)) != std::string::npos; from = colon + 1) {
      parts.push_back(w.substr(from, colon - from));
    }
    parts.push_back(w.substr(from));
    Range r{0, 0, 1};
    const bool ok = parts.size() <= 3 && io::parse_integer(parts[0], r.lo) &&
                    (parts.size() < 2 || io::parse_integer(parts[1], r.hi)) &&
                    (parts.size() < 3 || io::parse_integer(parts[2], r.stride));
    if (parts.size() == 1) r.hi = r.lo;
    if (!ok || r.hi < r.lo || r.stride < 1) {
      a.fail("group " + style + " expected an integer or a range a:b[:stride], got '" + w + "'");
    }
    if (style == "type" && (r.lo < 1 || r.hi > s_.ntypes)) {
      a.fail("atom type '" + w + "' is outside 1.." + std::to_string(s_.ntypes));
    }
    ranges.push_back(r);
  }
  for (size_t i = 0; i < at.size(); ++i) {
    const int64_t v = style == "type" ? at.type[i] : at.id[i];
    for (const Range& r : ranges) {
      if (v >= r.lo && v <= r.hi && (v - r.lo) % r.stride == 0) at.mask[i] |= bit;
    }
  }
}

void Simulation::cmd_velocity(const io::Command& c) {
  require_box(c);
  io::ArgCursor a(c);
  const uint32_t group = group_of(a, a.word("a group ID"));
  const std::string style = a.choice("a velocity style", {"create", "set", "scale", "zero"});
  VelocityCreate opt;
  opt.group = group;
  double setv[3] = {0, 0, 0};
  bool setflag[3] = {false, false, false};
  std::string zero_what;
  if (style == "create") {
    opt.temperature = a.non_negative("the temperature (K)");
    opt.seed = static_cast<int>(a.integer("the random seed", 1, 2147483646));
  } else if (style == "set") {
    for (int d = 0; d < 3; ++d) {
      const std::string w = a.word("three velocity components (or NULL)");
      if (w == "NULL") continue;
      if (!io::parse_double(w, setv[d])) a.fail("velocity set expected a number or NULL, got '" + w + "'");
      setflag[d] = true;
    }
  } else if (style == "scale") {
    opt.temperature = a.non_negative("the temperature (K)");
  } else {
    zero_what = a.choice("linear or angular", {"linear", "angular"});
  }
  bool lattice_units = true;
  while (!a.done()) {
    const std::string key = a.choice("a velocity keyword", {"dist", "sum", "mom", "rot", "loop", "units"});
    if (key == "dist")
      opt.gaussian = a.choice("dist", {"uniform", "gaussian"}) == "gaussian";
    else if (key == "sum")
      opt.sum = a.yes_no("sum");
    else if (key == "mom")
      opt.zero_momentum = a.yes_no("mom");
    else if (key == "rot")
      opt.zero_rotation = a.yes_no("rot");
    else if (key == "units")
      lattice_units = a.choice("units", {"lattice", "box"}) == "lattice";
    else {
      const std::string l = a.choice("loop", {"all", "local", "geom"});
      opt.loop = l == "all" ? VelocityLoop::all : l == "local" ? VelocityLoop::local : VelocityLoop::geom;
    }
  }
  if (style != "zero" && style != "set") {
    // The same verdict on every rank: the smallest massless type held by any rank.
    int64_t massless = s_.ntypes + 1;
    for (size_t i = 0; i < s_.atoms.size(); ++i) {
      if (s_.mass[s_.atoms.type[i]] <= 0.0) massless = std::min<int64_t>(massless, s_.atoms.type[i]);
    }
    massless = comm_.min(massless);
    if (massless <= s_.ntypes) {
      a.fail("atom type " + std::to_string(massless) + " has no mass (use mass or pair_coeff first)");
    }
    if (group_count(s_, comm_, group) < 2)
      a.fail("velocity " + style + " needs at least two atoms in the group");
  }
  if (style == "create") {
    try {
      velocity_create(s_, comm_, opt);
    } catch (const std::invalid_argument& e) {
      a.fail(e.what());
    }
  } else if (style == "scale") {
    scale_group_temperature(s_, comm_, group, opt.temperature);
  } else if (style == "zero") {
    if (zero_what == "linear")
      zero_group_momentum(s_, comm_, group);
    else
      zero_group_rotation(s_, comm_, group);
  } else {
    if (lattice_units && !lattice_.defined())
      a.fail("velocity set with units lattice needs a lattice (or units box)");
    Atoms& at = s_.atoms;
    std::vector<double>* v[3] = {&at.vx, &at.vy, &at.vz};
    for (size_t i = 0; i < at.size(); ++i) {
      if (!(at.mask[i] & group)) continue;
      for (int d = 0; d < 3; ++d) {
        if (!setflag[d]) continue;
        const double val = setv[d] * (lattice_units ? lattice_.spacing[d] : 1.0);
        (*v[d])[i] = opt.sum ? (*v[d])[i] + val : val;
      }
    }
  }
}

void Simulation::cmd_set(const io::Command& c) {
  require_box(c);
  io::ArgCursor a(c);
  const std::string style = a.choice("a set style", {"group", "type", "atom"});
  const std::string which = a.word("a group, type or atom id");
  a.choice("a set keyword", {"type"});
  const int new_type = static_cast<int>(a.integer("an atom type", 1, s_.ntypes));
  a.finish();
  Atoms& at = s_.atoms;
  uint32_t bit = 0;
  long long value = 0;
  if (style == "group")
    bit = group_of(a, which);
  else if (!io::parse_integer(which, value))
    a.fail("set " + style + " expected an integer, got '" + which + "'");
  for (size_t i = 0; i < at.size(); ++i) {
    const bool hit = style == "group"  ? (at.mask[i] & bit) != 0
                     : style == "type" ? at.type[i] == value
                                       : at.id[i] == value;
    if (hit) at.type[i] = new_type;
  }
  forces_current_ = false;
}

void Simulation::cmd_displace_atoms(const io::Command& c) {
  require_box(c);
  io::ArgCursor a(c);
  const uint32_t group = group_of(a, a.word("a group ID"));
  const std::string style = a.choice("a displace style", {"move", "random"});
  double del[3];
  for (double& d : del) d = a.real("a displacement");
  int seed = 0;
  if (style == "random") seed = static_cast<int>(a.integer("the random seed", 1, 2147483646));
  bool lattice_units = true;
  while (!a.done()) {
    a.choice("a displace_atoms keyword", {"units"});
    lattice_units = a.choice("units", {"lattice", "box"}) == "lattice";
  }
  if (lattice_units && !lattice_.defined())
    a.fail("displace_atoms with units lattice needs a lattice (or units box)");
  for (int d = 0; d < 3; ++d) del[d] *= lattice_units ? lattice_.spacing[d] : 1.0;
  Atoms& at = s_.atoms;
  RandomPark rng(seed > 0 ? seed : 1);
  for (size_t i = 0; i < at.size(); ++i) {
    if (!(at.mask[i] & group)) continue;
    if (style == "move") {
      at.x[i] += del[0], at.y[i] += del[1], at.z[i] += del[2];
    } else {
      const double coord[3] = {at.x[i], at.y[i], at.z[i]};
      rng.reset(seed, coord);
      at.x[i] += del[0] * 2.0 * (rng.uniform() - 0.5);
      at.y[i] += del[1] * 2.0 * (rng.uniform() - 0.5);
      at.z[i] += del[2] * 2.0 * (rng.uniform() - 0.5);
    }
    for (int d = 0; d < 3; ++d) {
      double* p = d == 0 ? &at.x[i] : d == 1 ? &at.y[i] : &at.z[i];
      int* im = d == 0 ? &at.ix[i] : d == 1 ? &at.iy[i] : &at.iz[i];
      if (s_.box.periodic(d)) wrap_periodic(*p, *im, s_.box.lo[d], s_.box.hi[d]);
    }
  }
  forces_current_ = false;
}

}  // namespace wmd::md
