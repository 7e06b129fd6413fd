// `set atom|type|group|region ID keyword value ...`: type, type/fraction, type/ratio, type/subset, x, y, z,
// vx, vy, vz, image, with LAMMPS's random choices (the coordinate-hashed Park–Miller draw of type/fraction;
// the Marsaglia subset of type/ratio and type/subset, as one-rank LAMMPS picks it).
#include <cmath>

#include "md/core/lammps_order.hpp"
#include "md/core/random_mars.hpp"
#include "md/core/random_park.hpp"
#include "md/run/command_registry.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

/// LAMMPS's bounds "N", "*", "N*", "*M", "N*M" for 64-bit ids.
bool parse_id_bounds(const std::string& w, long long& lo, long long& hi) {
  const size_t star = w.find('*');
  lo = 1, hi = (1LL << 62);
  if (star == std::string::npos) {
    if (!io::parse_integer(w, lo)) return false;
    hi = lo;
    return true;
  }
  const std::string a = w.substr(0, star), b = w.substr(star + 1);
  if (!a.empty() && !io::parse_integer(a, lo)) return false;
  if (!b.empty() && !io::parse_integer(b, hi)) return false;
  return lo <= hi;
}

void cmd_set(Simulation& sim, const io::Command& c) {
  sim.require_box(c);
  io::ArgCursor a(c);
  const std::string style = a.choice("a set style", {"atom", "type", "group", "region", "mol"});
  if (style == "mol") a.fail("set mol needs molecules; wafermd's atom_style is atomic");
  const std::string which = a.word("an atom ID, type, group or region");
  Atoms& at = sim.state.atoms;
  if (sim.natoms() == 0) a.fail("set needs atoms (create_atoms or read_data first)");
  // The selection is made once, before any keyword changes the atoms (as LAMMPS's).
  std::vector<char> sel(at.size(), 0);
  if (style == "group") {
    const uint32_t bit = sim.group_of(a, which);
    for (size_t i = 0; i < at.size(); ++i) sel[i] = (at.mask[i] & bit) != 0;
  } else if (style == "region") {
    auto it = sim.regions.find(which);
    if (it == sim.regions.end()) a.fail("unknown region '" + which + "'");
    it->second.prematch();
    for (size_t i = 0; i < at.size(); ++i) sel[i] = it->second.match(at.x[i], at.y[i], at.z[i]);
  } else if (style == "type") {
    int lo, hi;
    if (!io::parse_bounds(which, sim.state.ntypes, lo, hi))
      a.fail("set type expected a type or a range (N, *, N*, *M, N*M) within 1.." +
             std::to_string(sim.state.ntypes) + ", got '" + which + "'");
    for (size_t i = 0; i < at.size(); ++i) sel[i] = at.type[i] >= lo && at.type[i] <= hi;
  } else {
    long long lo, hi;
    if (!parse_id_bounds(which, lo, hi))
      a.fail("set atom expected an atom ID or a range (N, *, N*, *M, N*M), got '" + which + "'");
    for (size_t i = 0; i < at.size(); ++i) sel[i] = at.id[i] >= lo && at.id[i] <= hi;
  }
  if (a.done()) a.fail("set needs a keyword and its value");

  // A number or v_name (an equal-style variable, evaluated once).
  auto number = [&](const std::string& what) {
    const std::string w = a.peek();
    if (w.rfind("v_", 0) == 0) {
      a.word(what);
      if (!sim.vars) a.fail("variables are not available");
      return sim.vars->value(w.substr(2), c.pos);
    }
    return a.real(what);
  };
  while (!a.done()) {
    const std::string key = a.word("a set keyword");
    if (key == "type") {
      const double v = number("an atom type");
      const int t = static_cast<int>(v);
      if (t < 1 || t > sim.state.ntypes)
        a.fail("set type " + std::to_string(t) + " is outside 1.." + std::to_string(sim.state.ntypes));
      for (size_t i = 0; i < at.size(); ++i)
        if (sel[i]) at.type[i] = t;
    } else if (key == "type/fraction" || key == "type/ratio" || key == "type/subset") {
      const int t = static_cast<int>(a.integer("an atom type", 1, sim.state.ntypes));
      double fraction = 0.0;
      long long subset = 0;
      if (key == "type/subset")
        subset = a.integer("the number of atoms", 0, 1LL << 62);
      else
        fraction = a.real("the fraction");
      if (key != "type/subset" && (fraction < 0.0 || fraction > 1.0))
        a.fail(key + " fraction must be in [0, 1]");
      const int seed =
          static_cast<int>(a.integer("the random seed", 1, key == "type/fraction" ? 2147483646 : 900000000));
      if (key == "type/fraction") {
        // Each atom draws from a generator seeded by the seed and its coordinates: independent of order.
        RandomPark rng(1);
        for (size_t i = 0; i < at.size(); ++i) {
          if (!sel[i]) continue;
          const double x[3] = {at.x[i], at.y[i], at.z[i]};
          rng.reset(seed, x);
          if (rng.uniform() >= fraction) continue;
          at.type[i] = t;
        }
      } else {
        // One-rank LAMMPS: the eligible atoms in its array order, one Marsaglia stream seeded with `seed`.
        std::vector<int64_t> mine;
        for (size_t i = 0; i < at.size(); ++i)
          if (sel[i]) mine.push_back(at.order[i]);
        std::vector<int64_t> all = sim.comm.allgather(mine);
        std::sort(all.begin(), all.end());
        const int64_t count = static_cast<int64_t>(all.size());
        const int64_t target = key == "type/ratio" ? static_cast<int64_t>(fraction * count) : subset;
        if (target > count)
          a.fail("set type/subset " + std::to_string(target) + " exceeds the " + std::to_string(count) +
                 " eligible atoms");
        RandomMars rng(seed);
        const std::vector<char> mark = rng.select_subset(target, count);
        for (size_t i = 0; i < at.size(); ++i) {
          if (!sel[i]) continue;
          const size_t k = std::lower_bound(all.begin(), all.end(), at.order[i]) - all.begin();
          if (mark[k]) at.type[i] = t;
        }
      }
    } else if (key == "x" || key == "y" || key == "z" || key == "vx" || key == "vy" || key == "vz") {
      const double v = number("a value");
      std::vector<double>& field = key == "x"    ? at.x
                                   : key == "y"  ? at.y
                                   : key == "z"  ? at.z
                                   : key == "vx" ? at.vx
                                   : key == "vy" ? at.vy
                                                 : at.vz;
      for (size_t i = 0; i < at.size(); ++i)
        if (sel[i]) field[i] = v;
      if (key.size() == 1) ++sim.state.edits;  // positions: the mesh re-maps
    } else if (key == "image") {
      int img[3];
      bool given[3];
      for (int d = 0; d < 3; ++d) {
        const std::string w = a.peek();
        given[d] = w != "NULL";
        if (!given[d]) {
          a.word("NULL");
          continue;
        }
        img[d] = static_cast<int>(a.integer("an image flag", -(1 << 20), 1 << 20));
        if (img[d] != 0 && !sim.state.box.periodic(d))
          a.fail(std::string("set image: a non-zero image flag needs a periodic ") + "xyz"[d] + " direction");
      }
      for (size_t i = 0; i < at.size(); ++i) {
        if (!sel[i]) continue;
        if (given[0]) at.ix[i] = img[0];
        if (given[1]) at.iy[i] = img[1];
        if (given[2]) at.iz[i] = img[2];
      }
    } else if (key == "mass") {
      a.fail(
          "set mass needs per-atom masses, which atom_style atomic has not (LAMMPS refuses it too): set "
          "masses per type with the mass command");
    } else {
      a.fail("set keyword '" + key +
             "' is not supported (type, type/fraction, type/ratio, type/subset, x, y, z, vx, vy, vz, image)");
    }
  }
  sim.forces_current = false;
}

}  // namespace

WMD_COMMAND("set", cmd_set, kNoFlags)

}  // namespace wmd::md
