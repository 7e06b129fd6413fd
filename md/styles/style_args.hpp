// Arguments that several fix and compute styles read the same way, with the same errors.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "io/command.hpp"
#include "md/core/region.hpp"
#include "md/styles/style_lookup.hpp"

namespace wmd::md {

/// The region named by the cursor's next word (a style's `region ID`); one the script has not defined fails
/// at the command's line as "WHO: region ID does not exist".
inline const Region& region_arg(io::ArgCursor& a, const std::map<std::string, Region>& regions,
                                const std::string& who) {
  const std::string id = a.word("a region ID");
  const auto it = regions.find(id);
  if (it == regions.end()) a.fail(who + ": region " + id + " does not exist");
  return it->second;
}

/// One force component of fix addforce, setforce and aveforce: NULL (set() false; setforce and aveforce), a
/// number, or v_name of an equal- or atom-style variable, whose style is resolved when the fix is set up
/// (resolve_force_component, LAMMPS's init: the variable may be defined after the fix).
struct ForceComponent {
  enum class Kind { none, constant, equal, atom } kind = Kind::constant;
  double value = 0.0;
  std::string var;               // the variable's name (v_ dropped); empty: none
  std::vector<double> per_atom;  // an atom-style variable's values at its last evaluation (state order)
  bool set() const { return kind != Kind::none; }
  bool variable() const { return kind == Kind::equal || kind == Kind::atom; }
};

/// Reads one component: a number, v_name, or (where `null_ok`) NULL.
inline ForceComponent force_component_arg(io::ArgCursor& a, const std::string& who, bool null_ok) {
  ForceComponent c;
  const std::string w = a.word(null_ok ? "three force components (eV/Å, v_name or NULL)"
                                       : "three force components (eV/Å or v_name)");
  if (null_ok && w == "NULL") {
    c.kind = ForceComponent::Kind::none;
  } else if (w.rfind("v_", 0) == 0) {
    c.kind = ForceComponent::Kind::equal;
    c.var = w.substr(2);
  } else if (!io::parse_double(w, c.value)) {
    a.fail(who + " expected a number, v_name" + (null_ok ? " or NULL" : "") + ", got '" + w + "'");
  }
  return c;
}

/// LAMMPS's init check of a variable component: it must exist and be equal-style, or atom-style where
/// `atom_ok`; bad ones fail at the fix's line.
inline void resolve_force_component(ForceComponent& c, const StyleLookup* styles, const SourcePos& at,
                                    const std::string& who, bool atom_ok) {
  if (c.var.empty()) return;
  const bool atom = styles && styles->has_atom_variable(c.var);
  if (!atom && !(styles && styles->has_variable(c.var)))
    fail_input(at, who + ": variable " + c.var + " does not exist");
  if (atom && !atom_ok)
    fail_input(at, who + ": variable " + c.var + " is atom-style (it must be equal-style)");
  c.kind = atom ? ForceComponent::Kind::atom : ForceComponent::Kind::equal;
}

/// resolve_force_component for x, y and z; true when any is a variable (LAMMPS's varflag).
inline bool resolve_force_components(ForceComponent (&comp)[3], const StyleLookup* styles,
                                     const SourcePos& at, const std::string& who, bool atom_ok) {
  bool variable = false;
  for (ForceComponent& k : comp) {
    resolve_force_component(k, styles, at, who, atom_ok);
    variable = variable || k.variable();
  }
  return variable;
}

/// Evaluates the variable components now (x, y, z in order, as LAMMPS: computes invoked afresh).
inline void evaluate_force_components(ForceComponent (&comp)[3], StyleLookup& styles, const SourcePos& at) {
  styles.clearstep_computes();
  for (ForceComponent& k : comp) {
    if (k.kind == ForceComponent::Kind::equal) k.value = styles.variable(k.var);
    if (k.kind == ForceComponent::Kind::atom) styles.atom_variable(k.var, at, k.per_atom);
  }
}

}  // namespace wmd::md
