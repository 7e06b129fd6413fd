// Atom-style variables (`variable NAME atom formula`): the formula evaluated for each of this rank's atoms,
// as LAMMPS's Variable::compute_atom, when a dump column, compute reduce or fix store/state reads v_NAME.
// Per atom the formula sees its attributes (id mass type x y z vx vy vz fx fy fz), per-atom references
// (c_ID, c_ID[i], f_ID, f_ID[i], other atom-style v_NAME) at that atom, and global values (thermo keywords,
// global c_/f_ references, equal-style variables, group and special functions) as one number for all atoms;
// gmask(), rmask(), grmask() and next() of an atomfile variable per atom. An atomfile variable's values are
// the file's, by atom ID.
#include <cctype>
#include <map>

#include "io/expression.hpp"
#include "md/run/simulation.hpp"
#include "md/styles/reference.hpp"

namespace wmd::md {

namespace {

// Values by atom ID for this rank's atoms (0 for an atom the set does not list).
void by_id(const io::AtomFileValues& values, const Atoms& a, std::vector<double>& out) {
  out.assign(a.size(), 0.0);
  for (size_t i = 0; i < a.size(); ++i) {
    const auto v = values.find(a.id[i]);
    if (v != values.end()) out[i] = v->second;
  }
}

}  // namespace

bool Simulation::has_atom_variable(const std::string& name) const {
  return vars && (vars->atom_formula(name) != nullptr || vars->atomfile(name) != nullptr);
}

bool Simulation::atom_variable_value(const std::string& word, const SourcePos& at, double& value) {
  // v_name[N] (LAMMPS: atom N's value of an atom-style variable; N may be v_other).
  const size_t open = word.find('[');
  if (open == std::string::npos || word.back() != ']') return false;
  const std::string name = word.substr(2, open - 2), index = word.substr(open + 1, word.size() - open - 2);
  if (!has_atom_variable(name))
    fail_input(at, "'" + word + "': variable " + name +
                       " is not atom-style (v_name[N] reads atom N's value of an atom-style variable)");
  long long id = 0;
  if (index.rfind("v_", 0) == 0) {
    if (!vars->defined(index.substr(2)))
      fail_input(at, "'" + word + "': variable " + index.substr(2) + " does not exist");
    id = static_cast<long long>(vars->value(index.substr(2), at));
  } else if (!io::parse_integer(index, id)) {
    fail_input(at, "'" + word +
                       "': the index must be an atom ID or v_name (LAMMPS: \"Non digit character between "
                       "brackets in variable\")");
  }
  if (id < 1) fail_input(at, "'" + word + "': the atom ID must be positive");
  std::vector<double> v;
  atom_variable(name, at, v);
  const Atoms& a = state.atoms;
  double mine[2] = {0.0, 0.0};
  for (size_t i = 0; i < a.size(); ++i)
    if (a.id[i] == id) mine[0] = v[i], mine[1] = 1.0;
  comm.sum_in_rank_order(mine, 2);  // one rank holds the atom, the others add zeros: exact
  if (mine[1] == 0.0) fail_input(at, "'" + word + "': no atom has ID " + std::to_string(id));
  value = mine[0];
  return true;
}

void Simulation::atom_variable(const std::string& name, const SourcePos& at, std::vector<double>& out) {
  if (const io::AtomFileValues* file = vars ? vars->atomfile(name) : nullptr) {
    by_id(*file, state.atoms, out);
    return;
  }
  const std::string* formula = vars ? vars->atom_formula(name) : nullptr;
  if (!formula) fail_input(at, "v_" + name + ": variable " + name + " is not atom-style");
  if (atom_variable_depth_ > 16) fail_input(at, "atom-style variable '" + name + "' refers to itself");
  struct Depth {
    int& d;
    ~Depth() { --d; }
  } depth{++atom_variable_depth_};
  const Atoms& a = state.atoms;
  const size_t n = a.size();
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
    if (!keyword_value(w, g, &at)) return false;
    global[w] = g;
    return true;
  };
  // Functions with word arguments, each evaluated once, on every rank alike, before the atoms: group and
  // special functions are global values; gmask(), rmask(), grmask() and next() of an atomfile variable
  // have a value per atom.
  std::map<std::string, double> calls;
  std::map<std::string, std::vector<double>> peratom_calls;
  for (const io::GroupCall& g : io::word_calls(*formula)) {
    const std::string key = g.key();
    if (calls.count(key) || peratom_calls.count(key)) continue;
    if (io::is_mask_function(g.name)) {
      const size_t nwant = g.name == "grmask" ? 2 : 1;
      if (g.args.size() != nwant)
        fail_input(at, g.name + "() takes " + std::to_string(nwant) +
                           " argument(s) (LAMMPS: \"Invalid special function in variable formula\")");
      uint32_t bit = 1u;
      if (g.name != "rmask") {
        bit = state.group_bit(g.args[0]);
        if (!bit)
          fail_input(at, g.name + "(): group '" + g.args[0] +
                             "' does not exist (LAMMPS: \"Group ID in variable formula does not exist\")");
      }
      const Region* region = nullptr;
      if (g.name != "gmask") {
        const std::string& rid = g.args.back();
        const auto r = regions.find(rid);
        if (r == regions.end())
          fail_input(at, g.name + "(): region '" + rid +
                             "' does not exist (LAMMPS: \"Region ID in variable "
                             "formula does not exist\")");
        r->second.prematch();
        region = &r->second;
      }
      std::vector<double>& m = peratom_calls[key];
      m.assign(n, 0.0);
      for (size_t i = 0; i < n; ++i)
        m[i] = (a.mask[i] & bit) && (!region || region->match(a.x[i], a.y[i], a.z[i])) ? 1.0 : 0.0;
      continue;
    }
    if (g.name == "next" && g.args.size() == 1 && vars->atomfile(g.args[0])) {
      by_id(vars->next_atomfile_values(g.args[0], at), a, peratom_calls[key]);
      continue;
    }
    if (g.name == "random" || g.name == "normal")
      fail_input(at, g.name +
                         "() in an atom-style formula is not supported: LAMMPS's per-atom random numbers "
                         "follow its atoms' order on each MPI rank");
    double v = 0.0;
    if (formula_function(g.name, g.args, at, v)) calls[key] = v;
  }
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
      // A word function's words (group, dimension, region, compute) are not names of the formula.
      if (io::is_word_function(f.substr(b, k - b)))
        for (int depth = 0; k < f.size(); ++k) {
          if (f[k] == '(') ++depth;
          if (f[k] == ')' && --depth == 0) break;
        }
      continue;
    }
    prepare(f.substr(b, k - b));
  }
  // The formula is parsed once and computes with whole columns: attributes and per-atom references are
  // per-atom values, the rest one value for all atoms.
  const io::AtomCallResolver call = [&](const std::string& fn, const std::vector<std::string>& args,
                                        const SourcePos&, io::AtomValues& v) {
    const std::string key = io::GroupCall{fn, args}.key();
    if (const auto p = peratom_calls.find(key); p != peratom_calls.end())
      return v.per_atom = p->second.data(), true;
    const auto c = calls.find(key);
    return c != calls.end() && (v.all = c->second, true);
  };
  std::map<int, std::vector<double>> converted;  // id, mass and type as doubles, when named
  const io::AtomNameResolver resolve = [&](const std::string& w, io::AtomValues& v) {
    if (const auto t = kAttribute.find(w); t != kAttribute.end()) {
      const std::vector<double>* const direct[] = {nullptr, nullptr, nullptr, &a.x,  &a.y,  &a.z,
                                                   &a.vx,   &a.vy,   &a.vz,   &a.fx, &a.fy, &a.fz};
      if (const std::vector<double>* d = direct[t->second]) return v.per_atom = d->data(), true;
      auto [col, fresh] = converted.try_emplace(t->second);
      if (fresh) {
        col->second.resize(n);
        for (size_t i = 0; i < n; ++i)
          col->second[i] = t->second == 0   ? static_cast<double>(a.id[i])
                           : t->second == 1 ? state.mass[a.type[i]]
                                            : static_cast<double>(a.type[i]);
      }
      return v.per_atom = col->second.data(), true;
    }
    if (const auto p = peratom.find(w); p != peratom.end()) return v.per_atom = p->second.data(), true;
    if (const auto g = global.find(w); g != global.end()) return v.all = g->second, true;
    return false;  // unknown: the evaluator names it
  };
  io::evaluate_atom_expression(*formula, n, resolve, at, &call, &vars->clock(), out);
}

}  // namespace wmd::md
