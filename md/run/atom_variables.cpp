// Atom-style variables (`variable NAME atom formula`): the formula evaluated for each of this rank's atoms,
// as LAMMPS's Variable::compute_atom, when a dump column, compute reduce or fix store/state reads v_NAME.
// Per atom the formula sees its attributes (id mass type x y z vx vy vz fx fy fz), per-atom references
// (c_ID, c_ID[i], f_ID, f_ID[i], other atom-style v_NAME) at that atom, and global values (thermo keywords,
// global c_/f_ references, equal-style variables, group functions) as one number for all atoms.
#include <cctype>
#include <map>

#include "io/expression.hpp"
#include "md/run/simulation.hpp"
#include "md/styles/reference.hpp"

namespace wmd::md {

bool Simulation::has_atom_variable(const std::string& name) const {
  return vars && vars->atom_formula(name) != nullptr;
}

void Simulation::atom_variable(const std::string& name, const SourcePos& at, std::vector<double>& out) {
  const std::string* formula = vars ? vars->atom_formula(name) : nullptr;
  if (!formula) fail_input(at, "v_" + name + ": variable " + name + " is not atom-style");
  if (atom_variable_depth_ > 16) fail_input(at, "atom-style variable '" + name + "' refers to itself");
  struct Depth {
    int& d;
    ~Depth() { --d; }
  } depth{++atom_variable_depth_};
  const Atoms& a = state.atoms;
  const size_t n = a.size();
  out.assign(n, 0.0);
  // Each per-atom reference is gathered once for all atoms, each global value once.
  std::map<std::string, std::vector<double>> peratom;
  std::map<std::string, double> global;
  const ComputeContext cc = compute_context();
  static const std::map<std::string, int> kAttribute = {{"id", 0}, {"mass", 1}, {"type", 2}, {"x", 3},
                                                        {"y", 4},  {"z", 5},    {"vx", 6},   {"vy", 7},
                                                        {"vz", 8}, {"fx", 9},   {"fy", 10},  {"fz", 11}};
  // Gathers a name's values for all atoms (collective: every rank does it for the same names, in order).
  auto prepare = [&](const std::string& w) {
    if (kAttribute.count(w) || peratom.count(w) || global.count(w)) return true;
    Reference r;
    const io::Command none{"variable", {}, at, ""};
    const io::ArgCursor cursor(none);
    if (w.size() > 2 && w[1] == '_' && parse_reference(w, r, cursor)) {
      bool per_atom = false;
      if (r.kind == Reference::Kind::variable) {
        per_atom = has_atom_variable(r.id);
      } else if (r.kind == Reference::Kind::compute) {
        const Compute* c = find_compute(r.id);
        per_atom = c && c->shape().peratom() && r.j == 0 && !(r.i == 0 && c->shape().scalar);
      } else {
        const Fix* f = find_fix(r.id);
        per_atom = f && f->shape().peratom() && r.j == 0;
      }
      if (per_atom) {
        check_reference(r, Reference::Shape::peratom, *this, cursor, "variable " + name);
        std::vector<double>& col = peratom[w];
        reference_peratom(r, cc, at, col);
        col.resize(n, 0.0);
        return true;
      }
      if (r.kind == Reference::Kind::variable) return global[w] = vars->value(r.id, at), true;
    }
    double g = 0.0;
    if (!keyword_value(w, g)) return false;
    global[w] = g;
    return true;
  };
  // Group functions are global values: each evaluated once, on every rank alike, before the atoms.
  std::map<std::string, double> calls;
  for (const io::GroupCall& g : io::group_calls(*formula)) {
    double v = 0.0;
    if (!calls.count(g.key()) && group_function(g.name, g.args, at, v)) calls[g.key()] = v;
  }
  const io::CallResolver call = [&](const std::string& fn, const std::vector<std::string>& args,
                                    const SourcePos&, double& v) {
    const auto c = calls.find(io::GroupCall{fn, args}.key());
    return c != calls.end() && (v = c->second, true);
  };
  // Every name of the formula first (function names, followed by '(', and numbers aside).
  const std::string& f = *formula;
  for (size_t k = 0; k < f.size();) {
    const unsigned char c = static_cast<unsigned char>(f[k]);
    if (std::isdigit(c) || c == '.') {
      while (k < f.size() && (std::isdigit(static_cast<unsigned char>(f[k])) || f[k] == '.')) ++k;
      if (k < f.size() && (f[k] == 'e' || f[k] == 'E')) {
        ++k;
        if (k < f.size() && (f[k] == '+' || f[k] == '-')) ++k;
        while (k < f.size() && std::isdigit(static_cast<unsigned char>(f[k]))) ++k;
      }
      continue;
    }
    if (!std::isalpha(c) && c != '_') {
      ++k;
      continue;
    }
    const size_t b = k;
    while (k < f.size() &&
           (std::isalnum(static_cast<unsigned char>(f[k])) || f[k] == '_' || f[k] == '[' || f[k] == ']'))
      ++k;
    size_t after = k;
    while (after < f.size() && std::isspace(static_cast<unsigned char>(f[after]))) ++after;
    if (after < f.size() && f[after] == '(') {
      // A group function's words (group, dimension, region) are not names of the formula.
      if (io::is_group_function(f.substr(b, k - b)))
        for (int depth = 0; k < f.size(); ++k) {
          if (f[k] == '(') ++depth;
          if (f[k] == ')' && --depth == 0) break;
        }
      continue;
    }
    prepare(f.substr(b, k - b));
  }
  size_t i = 0;
  const io::NameResolver resolve = [&](const std::string& w, double& v) {
    if (const auto t = kAttribute.find(w); t != kAttribute.end()) {
      switch (t->second) {
        case 0:
          v = static_cast<double>(a.id[i]);
          break;
        case 1:
          v = state.mass[a.type[i]];
          break;
        case 2:
          v = a.type[i];
          break;
        case 3:
          v = a.x[i];
          break;
        case 4:
          v = a.y[i];
          break;
        case 5:
          v = a.z[i];
          break;
        case 6:
          v = a.vx[i];
          break;
        case 7:
          v = a.vy[i];
          break;
        case 8:
          v = a.vz[i];
          break;
        case 9:
          v = a.fx[i];
          break;
        case 10:
          v = a.fy[i];
          break;
        default:
          v = a.fz[i];
          break;
      }
      return true;
    }
    if (const auto p = peratom.find(w); p != peratom.end()) return v = p->second[i], true;
    if (const auto g = global.find(w); g != global.end()) return v = g->second, true;
    return false;  // unknown: the evaluator names it
  };
  for (i = 0; i < n; ++i) out[i] = io::evaluate_expression(*formula, resolve, at, &call);
}

}  // namespace wmd::md
