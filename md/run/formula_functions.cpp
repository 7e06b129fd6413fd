// LAMMPS's functions with word arguments in equal-style formulas (Variable::special_function and
// feature_function of LAMMPS 29 Sep 2021), dispatched here with the group functions: sum(), min(), max(),
// ave(), trap() and slope() of a global vector or array column (c_ID, c_ID[i], f_ID, f_ID[i]); next() of a
// file-style variable; is_active(), is_available(), is_defined() and is_file(); random() and normal() with
// LAMMPS's seeded Marsaglia generator; and the clock the step-dependent math functions read. gmask(),
// rmask(), grmask() and next() of an atomfile variable give values per atom (md/run/atom_variables.cpp).
#include <cmath>
#include <cstdio>
#include <set>

#include "io/expression.hpp"
#include "md/run/command_registry.hpp"
#include "md/run/dump_style.hpp"
#include "md/run/simulation.hpp"
#include "md/styles/reference.hpp"
#include "md/styles/region_style.hpp"

namespace wmd::md {
namespace {

// One word: an argument list of `n` words, else LAMMPS's "Invalid special function".
void want_args(const std::string& f, const std::vector<std::string>& args, size_t n, const SourcePos& at) {
  if (args.size() != n)
    fail_input(at, f + "() takes " + std::to_string(n) + " argument(s), got " + std::to_string(args.size()) +
                       " (LAMMPS: \"Invalid special function in variable formula\")");
}

bool one_of(const std::string& w, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (w == n) return true;
  return false;
}

// The pair styles wafermd runs (md/commands/pair.cpp).
bool pair_style_known(const std::string& s) {
  return one_of(
      s, {"eam", "eam/alloy", "eam/fs", "eam/opt", "eam/alloy/opt", "eam/fs/opt", "zbl", "hybrid/overlay"});
}

}  // namespace

io::RunClock Simulation::formula_clock() const {
  io::RunClock c;
  c.step = state.step;
  c.begin = ramp_begin_;
  c.end = ramp_end_;
  c.dt = state.dt;
  c.running = running;
  c.stand_in_values = dry_run && stand_ins_read_;
  for (const auto& f : fixes) c.dt_reset = c.dt_reset || f->style() == "dt/reset";
  return c;
}

bool Simulation::formula_function(const std::string& f, const std::vector<std::string>& args,
                                  const SourcePos& at, double& value) {
  if (io::is_group_function(f)) return group_function(f, args, at, value);
  if (io::is_mask_function(f))
    fail_input(at, f + "() in an equal-style formula: it has a value per atom (LAMMPS: \"" +
                       std::string(f == "gmask"   ? "Gmask"
                                   : f == "rmask" ? "Rmask"
                                                  : "Grmask") +
                       " function in equal-style variable formula\")");
  if (f == "sum" || f == "min" || f == "max" || f == "ave" || f == "trap" || f == "slope") {
    want_args(f, args, 1, at);
    value = vector_function(f, args[0], at);
    return true;
  }
  if (f == "next") {
    want_args(f, args, 1, at);
    if (!vars) fail_input(at, "next(): this input has no variables");
    value = vars->next_file_value(args[0], at);
    return true;
  }
  if (f == "is_file") {
    want_args(f, args, 1, at);
    std::FILE* fp = std::fopen(args[0].c_str(), "r");
    value = fp ? 1.0 : 0.0;
    if (fp) std::fclose(fp);
    return true;
  }
  if (f == "is_defined" || f == "is_active" || f == "is_available") {
    want_args(f, args, 2, at);
    value = (f == "is_defined"  ? is_defined(args[0], args[1], at)
             : f == "is_active" ? is_active(args[0], args[1], at)
                                : is_available(args[0], args[1], at))
                ? 1.0
                : 0.0;
    return true;
  }
  if (f == "random" || f == "normal") {
    // LAMMPS's randomequal: one Marsaglia generator for all equal-style formulas, seeded by the first call.
    want_args(f, args, 3, at);
    if (!vars) fail_input(at, f + "(): this input has no variables");
    const double x = vars->evaluate(args[0], at), y = vars->evaluate(args[1], at);
    const double seed = vars->evaluate(args[2], at);
    if (f == "normal" && y < 0.0)
      fail_input(at,
                 "normal(x,y,seed): y must be >= 0 (LAMMPS: \"Invalid math function in variable formula\")");
    if (!random_equal_) {
      const int s = static_cast<int>(seed);
      if (s <= 0 || s > 900000000)
        fail_input(at,
                   f + "(): the seed " + std::to_string(s) +
                       " is not in 1..900000000 (LAMMPS: \"Invalid seed for Marsaglia random # generator\")");
      random_equal_ = std::make_unique<RandomMars>(s);
    }
    if (f == "random") {
      value = random_equal_->uniform() * (y - x) + x;
      return true;
    }
    // LAMMPS's RanMars::gaussian: the polar method, the second deviate kept for the next call.
    double g;
    if (!gauss_saved_) {
      double v1, v2, rsq;
      do {
        v1 = 2.0 * random_equal_->uniform() - 1.0;
        v2 = 2.0 * random_equal_->uniform() - 1.0;
        rsq = v1 * v1 + v2 * v2;
      } while (rsq >= 1.0 || rsq == 0.0);
      const double fac = std::sqrt(-2.0 * std::log(rsq) / rsq);
      gauss_second_ = v1 * fac;
      g = v2 * fac;
      gauss_saved_ = true;
    } else {
      g = gauss_second_;
      gauss_saved_ = false;
    }
    value = x + y * g;
    return true;
  }
  return false;
}

double Simulation::vector_function(const std::string& f, const std::string& arg, const SourcePos& at) {
  // The argument: c_ID (a global vector), c_ID[i] (column i of a global array), the same for f_ID. v_name
  // would be a vector-style variable, which wafermd does not have.
  Reference r;
  const io::Command none{f, {}, at, ""};
  const io::ArgCursor cursor(none);
  if (arg.size() < 3 || arg[1] != '_' || (arg[0] != 'c' && arg[0] != 'f'))
    fail_input(at, f + "(" + arg +
                       "): the argument must be c_ID, c_ID[i], f_ID or f_ID[i] (LAMMPS: \"Invalid "
                       "special function in variable formula\")");
  parse_reference(arg, r, cursor);
  if (r.j != 0) fail_input(at, f + "(" + arg + "): one index at most (a column of a global array)");
  OutputShape s;
  Fix* fix = nullptr;
  if (r.kind == Reference::Kind::compute) {
    const Compute* c = find_compute(r.id);
    if (!c)
      fail_input(at,
                 f + "(" + arg + "): compute " + r.id + " does not exist (LAMMPS: \"Invalid compute ID\")");
    s = c->shape();
  } else {
    fix = find_fix(r.id);
    if (!fix)
      fail_input(at, f + "(" + arg + "): fix " + r.id + " does not exist (LAMMPS: \"Invalid fix ID\")");
    s = fix->shape();
  }
  const char* kind = r.kind == Reference::Kind::compute ? "compute" : "fix";
  int n = 0;
  if (r.i == 0 && s.vector > 0) {
    n = s.vector;
  } else if (r.i > 0 && s.array()) {
    if (r.i > s.array_cols)
      fail_input(at, f + "(" + arg + "): the " + kind + "'s global array has " +
                         std::to_string(s.array_cols) + " columns (LAMMPS: \"Variable formula " + kind +
                         " array is accessed out-of-range\")");
    n = s.array_rows;
  } else {
    fail_input(at, f + "(" + arg + "): " + kind + " " + r.id + " has no global " +
                       (r.i == 0 ? "vector" : "array") + " (LAMMPS: \"Mismatched " + kind +
                       " in variable formula\")");
  }
  // LAMMPS: a fix's values inside a run only on its steps ("... not computed at compatible time").
  if (fix && running && fix->global_freq() > 1 && state.step % fix->global_freq() != 0)
    fail_input(at, f + "(" + arg + "): fix " + r.id + " is computed every " +
                       std::to_string(fix->global_freq()) + " steps, not at step " +
                       std::to_string(state.step) +
                       " (LAMMPS: \"Fix in variable not computed at compatible time\")");
  const ComputeContext cc = compute_context();
  std::vector<double> v(static_cast<size_t>(n));
  for (int k = 0; k < n; ++k) {
    Reference e = r;
    if (r.i == 0)
      e.i = k + 1;
    else
      e.i = k + 1, e.j = r.i;
    v[k] = reference_value(e, cc, at);
  }
  // LAMMPS's sums in its order; min and max start from ±1e20 (its BIG).
  double value = f == "min" ? 1.0e20 : f == "max" ? -1.0e20 : 0.0;
  double sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0;
  for (int k = 0; k < n; ++k) {
    if (f == "min")
      value = std::min(value, v[k]);
    else if (f == "max")
      value = std::max(value, v[k]);
    else if (f == "slope") {
      const double x = k;
      sx += x, sy += v[k], sxx += x * x, sxy += x * v[k];
    } else {
      value += v[k];
    }
  }
  if (f == "trap" && n > 0) value -= 0.5 * v[0] + 0.5 * v[n - 1];
  if (f == "ave") value /= n;
  if (f == "slope") {
    const double num = n * sxy - sx * sy, den = n * sxx - sx * sx;
    value = den != 0.0 ? num / den : 1.0e20;
  }
  return value;
}

bool Simulation::is_defined(const std::string& category, const std::string& name, const SourcePos& at) {
  if (category == "compute") return find_compute(name) != nullptr;
  if (category == "fix") return find_fix(name) != nullptr;
  if (category == "group") return state.group_bit(name) != 0;
  if (category == "region") return regions.count(name) != 0;
  if (category == "variable") return vars && vars->defined(name);
  if (category == "dump") {
    for (const auto& d : dumps)
      if (d.id == name) return true;
    for (const auto& h : h5md)
      if (!h.id.empty() && h.id == name) return true;
    return false;
  }
  fail_input(at, "is_defined(): unknown category '" + category +
                     "' (compute, dump, fix, group, region, variable; LAMMPS: \"Unknown category for info "
                     "is_defined()\")");
}

bool Simulation::is_active(const std::string& category, const std::string& name, const SourcePos& at) {
  if (category == "package") {
    if (!one_of(name, {"gpu", "intel", "kokkos", "omp"}))
      fail_input(at, "is_active(package," + name +
                         "): unknown package (gpu, intel, kokkos, omp; LAMMPS: \"Unknown "
                         "name for info package category\")");
    return script_flags.packages.count(name) != 0;
  }
  if (category == "newton") {
    if (name == "pair") return script_flags.newton_pair;
    if (name == "bond") return script_flags.newton_bond;
    if (name == "any") return script_flags.newton_pair || script_flags.newton_bond;
    fail_input(at, "is_active(newton," + name +
                       "): unknown name (pair, bond, any; LAMMPS: \"Unknown name for info "
                       "newton category\")");
  }
  if (category == "pair") {
    if (pair_style.empty()) return false;
    // LAMMPS's EAM pair styles: a single() function and many-body, no rRESPA.
    if (name == "single" || name == "manybody") return true;
    if (name == "respa") return false;
    if (name == "tail" || name == "shift")
      fail_input(at, "is_active(pair," + name + ") is not answered: wafermd does not record pair_modify " +
                         name + " (which changes nothing for EAM)");
    fail_input(at, "is_active(pair," + name +
                       "): unknown name (single, respa, manybody, tail, shift; LAMMPS: "
                       "\"Unknown name for info pair category\")");
  }
  std::string style;
  if (category == "comm_style")
    style = script_flags.comm_style;
  else if (category == "min_style")
    style = min_settings.style;
  else if (category == "run_style")
    style = "verlet";
  else if (category == "atom_style")
    style = "atomic";
  else if (category == "pair_style")
    style = pair_style.empty() ? "none" : pair_style;
  else if (one_of(category,
                  {"bond_style", "angle_style", "dihedral_style", "improper_style", "kspace_style"}))
    style = "none";  // atom_style atomic has none of these
  else
    fail_input(at,
               "is_active(): unknown category '" + category +
                   "' (package, newton, pair, comm_style, min_style, run_style, atom_style, pair_style, "
                   "bond_style, angle_style, dihedral_style, improper_style, kspace_style; LAMMPS: \"Unknown "
                   "category for info is_active()\")");
  return style == name;
}

bool Simulation::is_available(const std::string& category, const std::string& name, const SourcePos& at) {
  // What wafermd runs; LAMMPS stops with "Unknown category" when a style is not found in a style category,
  // and so does wafermd (a script asking for what is missing stops here, not later).
  bool found = false;
  if (category == "atom")
    found = name == "atomic";
  else if (category == "integrate")
    found = name == "verlet";
  else if (category == "minimize")
    found = name == "cg" || name == "fire";
  else if (category == "pair")
    found = pair_style_known(name);
  else if (category == "fix")
    found = FixRegistry::get().find(name) != nullptr;
  else if (category == "compute")
    found = ComputeRegistry::get().find(name) != nullptr;
  else if (category == "region")
    found = RegionRegistry::get().find(name) != nullptr;
  else if (category == "dump")
    found = find_dump_style(name) != nullptr;
  else if (category == "command")
    found = CommandRegistry::get().find(name) != nullptr ||
            one_of(name, {"clear", "echo", "if", "include", "jump", "label", "log", "next", "print", "quit",
                          "shell", "variable"});
  if (found) return true;
  if (category == "feature") return name == "gzip";  // no image or movie dumps, no single-precision FFT
  fail_input(at, "is_available(" + category + "," + name + "): " +
                     (one_of(category, {"atom", "integrate", "minimize", "pair", "bond", "angle", "dihedral",
                                        "improper", "kspace", "fix", "compute", "region", "dump", "command"})
                          ? "not available in wafermd, and LAMMPS 2021 stops here too for a style it lacks"
                          : "unknown category") +
                     " (LAMMPS: \"Unknown category for info is_available()\")");
}

}  // namespace wmd::md
