// Arithmetic of LAMMPS equal-style variables (Debian's LAMMPS, 29 Sep 2021): numbers, + - * / % ^,
// comparisons, logic (&& || |^ !), the math functions of its Variable::math_function (those that depend on
// the step read the caller's clock), v_NAME references and thermo keywords supplied by the caller, and the
// functions whose arguments are words — group functions (count(all), xcm(g,x), ...) and special functions
// (sum(c_ID), is_defined(fix,ID), next(v), gmask(g), random(x,y,seed), ...) — which the caller's
// CallResolver turns into a value.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/error.hpp"

namespace wmd::io {

/// One expression may nest parentheses, functions and unary operators this deep.
inline constexpr int kMaxExpressionDepth = 200;
/// Expressions and the variables they name together may nest this deep (each variable entered counts one): a
/// chain of 1000 variables fits, and so does the stack of an ASan build (8 MiB).
inline constexpr int kMaxExpressionLevels = 2500;

/// Resolves a bare word (thermo keyword) or v_NAME reference; returns false if unknown.
using NameResolver = std::function<bool(const std::string& name, double& value)>;
/// As NameResolver, told where the formula is used (for the errors it raises).
using KeywordResolver = std::function<bool(const std::string& name, const SourcePos& pos, double& value)>;

/// Resolves a group function call `f(ID[,arg[,region]])` from its raw, trimmed word arguments; returns
/// false when the caller has none (the call is then refused).
using CallResolver = std::function<bool(const std::string& f, const std::vector<std::string>& args,
                                        const SourcePos& pos, double& value)>;

/// Where a run stands, for the math functions that depend on the step (LAMMPS's update->ntimestep,
/// beginstep, endstep, dt and whichflag).
struct RunClock {
  int64_t step = 0;
  int64_t begin = 0, end = 0;  // the run's first and last steps (its start/stop keywords)
  double dt = 0.0;
  bool running = false;   // inside a run or minimisation
  bool dt_reset = false;  // a fix dt/reset is defined (vdisplace, swiggle and cwiggle refuse it)
  // The dry run after it read a thermo, compute, fix or atom value: those are the set-up's stand-ins (no
  // forces, no dynamics), so a division or modulo by zero is NaN there, not an error — the real run
  // evaluates the formula with real values and refuses it then (LAMMPS's elastic-constant scripts divide
  // by pressure differences).
  bool stand_in_values = false;
};
using ClockResolver = std::function<RunClock()>;

/// True for LAMMPS's group functions (count, mass, charge, xcm, vcm, fcm, bound, gyration, ke, angmom,
/// torque, inertia, omega): their arguments are words (group, dimension, region), not formulas.
bool is_group_function(const std::string& name);
/// True for every function whose call goes to the CallResolver with its arguments as words: the group
/// functions and LAMMPS's special functions (sum, min, max, ave, trap, slope, gmask, rmask, grmask, next,
/// is_active, is_available, is_defined, is_file) and random and normal (whose seeded generator the caller
/// holds).
bool is_word_function(const std::string& name);
/// The special functions that give a value per atom in an atom-style formula (gmask, rmask, grmask).
bool is_mask_function(const std::string& name);

/// One group function call of a formula.
struct GroupCall {
  std::string name;
  std::vector<std::string> args;
  /// The call as a key: name(arg,arg).
  std::string key() const;
};
/// The group function calls of `text`, in order (malformed calls are left to the evaluator).
std::vector<GroupCall> group_calls(const std::string& text);
/// The calls of `text` to any word-argument function (is_word_function), in order.
std::vector<GroupCall> word_calls(const std::string& text);

/// Evaluates `text`; unknown names or malformed text are InputErrors at `pos`. Word-argument function calls
/// go to `calls` (null: refused); the step-dependent math functions read `clock` (null: refused).
double evaluate_expression(const std::string& text, const NameResolver& resolve, const SourcePos& pos,
                           const CallResolver* calls = nullptr, const ClockResolver* clock = nullptr);

/// A value of an atom-style formula: one number per atom (`per_atom`, n of them, owned by the caller and
/// alive while the formula is evaluated) or one number for all atoms (`all`).
struct AtomValues {
  const double* per_atom = nullptr;
  double all = 0.0;
};
/// As NameResolver and CallResolver, for an atom-style formula: a name or word-argument call resolves to
/// per-atom values or to one global value.
using AtomNameResolver = std::function<bool(const std::string& name, AtomValues& value)>;
using AtomCallResolver = std::function<bool(const std::string& f, const std::vector<std::string>& args,
                                            const SourcePos& pos, AtomValues& value)>;

/// Evaluates the atom-style formula `text` for `n` atoms into `out`, parsing it once: each operator and
/// math function applies evaluate_expression's arithmetic and checks to each atom, so every value is the
/// one evaluate_expression gives for that atom (bit for bit), and a refused formula is refused with the
/// message of the first atom, in order, that evaluate_expression refuses. No atoms: nothing is evaluated.
void evaluate_atom_expression(const std::string& text, size_t n, const AtomNameResolver& resolve,
                              const SourcePos& pos, const AtomCallResolver* calls, const ClockResolver* clock,
                              std::vector<double>& out);

}  // namespace wmd::io
