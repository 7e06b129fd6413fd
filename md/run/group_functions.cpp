// LAMMPS's group functions in variable formulas (count(ID), mass(ID), xcm(ID,dim), bound(ID,xmin),
// inertia(ID,xy), omega(ID,z), ..., each with an optional region: count(ID,region)): their words checked
// as LAMMPS's Variable::group_function does, the values from md/core/group_sums (collective); and the hook
// that hands a script's variables these, thermo keywords and references (attach_variables).
#include "io/expression.hpp"
#include "md/core/group_sums.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

// The place of `word` among `names`, or a failure naming the choices.
int choose(const std::string& f, const std::string& word, std::initializer_list<const char*> names,
           const SourcePos& at) {
  int k = 0;
  std::string all;
  for (const char* n : names) {
    if (word == n) return k;
    all += std::string(k ? ", " : "") + n, ++k;
  }
  fail_input(at, f + "(): '" + word + "' is not one of " + all);
}

}  // namespace

void Simulation::attach_variables(io::Variables& v) {
  v.set_keyword_resolver([this](const std::string& name, const SourcePos& at, double& x) {
    return keyword_value(name, x, &at);
  });
  v.set_call_resolver([this](const std::string& f, const std::vector<std::string>& args, const SourcePos& at,
                             double& x) { return formula_function(f, args, at, x); });
  v.set_clock([this] { return formula_clock(); });
  v.set_atom_ids([this](const SourcePos& at) -> int64_t {
    // LAMMPS's atomfile variables: "Cannot use atomfile-style variable unless an atom map exists" (the map
    // comes with atom_modify map, before the box).
    if (!state.box.defined || !script_flags.atom_map)
      fail_input(at,
                 "an atomfile variable needs atoms with an atom map: give atom_modify map array before the "
                 "box (LAMMPS: \"Cannot use atomfile-style variable unless an atom map exists\")");
    return comm.max(state.atoms.max_id());
  });
  vars = &v;
}

bool Simulation::group_function(const std::string& f, const std::vector<std::string>& args,
                                const SourcePos& at, double& value) {
  // Words after the group: none (count, mass, charge, gyration, ke) or one (a dimension or bound).
  const bool dim = !(f == "count" || f == "mass" || f == "charge" || f == "gyration" || f == "ke");
  const size_t base = dim ? 2 : 1;
  if (args.size() != base && args.size() != base + 1)
    fail_input(at, f + "() takes " + std::string(dim ? "a group ID and a dimension" : "a group ID") +
                       ", and optionally a region ID (" + std::to_string(args.size()) +
                       " argument(s) given)");
  const uint32_t bit = state.group_bit(args[0]);
  if (!bit) fail_input(at, f + "(): group '" + args[0] + "' does not exist");
  const Region* region = nullptr;
  if (args.size() == base + 1) {
    const auto r = regions.find(args[base]);
    if (r == regions.end()) fail_input(at, f + "(): region '" + args[base] + "' does not exist");
    r->second.prematch();  // a moving or variable region where it stands now
    region = &r->second;
  }
  int which = 0;
  if (f == "bound")
    which = choose(f, args[1], {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"}, at);
  else if (f == "inertia")
    which = choose(f, args[1], {"xx", "yy", "zz", "xy", "yz", "xz"}, at);
  else if (dim)
    which = choose(f, args[1], {"x", "y", "z"}, at);
  // LAMMPS's atom_style atomic has no per-atom charge (Debian's lmp crashes on charge() there).
  if (f == "charge") fail_input(at, "charge(): atom_style atomic has no charges");

  const GroupSelection g{state, comm, bit, region};
  double v3[3] = {0.0, 0.0, 0.0};
  if (f == "count") {
    value = static_cast<double>(group_count(g));
  } else if (f == "mass") {
    value = group_mass(g);
  } else if (f == "ke") {
    value = group_ke(g);
  } else if (f == "fcm") {
    group_fcm(g, v3);
    value = v3[which];
  } else if (f == "bound") {
    double mm[6];
    group_bounds(g, mm);
    value = mm[which];
  } else if (f == "vcm") {
    group_vcm(g, group_mass(g), v3);
    value = v3[which];
  } else {
    const double mass = group_mass(g);
    double cm[3];
    group_xcm(g, mass, cm);
    if (f == "xcm") {
      value = cm[which];
    } else if (f == "gyration") {
      value = group_gyration(g, mass, cm);
    } else if (f == "angmom") {
      group_angmom(g, cm, v3);
      value = v3[which];
    } else if (f == "torque") {
      group_torque(g, cm, v3);
      value = v3[which];
    } else {
      double inertia[3][3];
      group_inertia(g, cm, inertia);
      if (f == "inertia") {
        static const int kRow[6] = {0, 1, 2, 0, 1, 0}, kCol[6] = {0, 1, 2, 1, 2, 2};
        value = inertia[kRow[which]][kCol[which]];
      } else {  // omega
        double l[3];
        group_angmom(g, cm, l);
        group_omega(l, inertia, v3);
        value = v3[which];
      }
    }
  }
  return true;
}

}  // namespace wmd::md
