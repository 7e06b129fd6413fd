// Arithmetic of LAMMPS equal-style variables: numbers, + - * / % ^, comparisons, logic, math functions,
// v_NAME references and thermo keywords supplied by the caller, and LAMMPS's group functions (count(all),
// xcm(g,x), ...), whose word arguments the caller's CallResolver turns into a value.
#pragma once
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

/// Resolves a group function call `f(ID[,arg[,region]])` from its raw, trimmed word arguments; returns
/// false when the caller has none (the call is then refused).
using CallResolver = std::function<bool(const std::string& f, const std::vector<std::string>& args,
                                        const SourcePos& pos, double& value)>;

/// True for LAMMPS's group functions (count, mass, charge, xcm, vcm, fcm, bound, gyration, ke, angmom,
/// torque, inertia, omega): their arguments are words (group, dimension, region), not formulas.
bool is_group_function(const std::string& name);

/// One group function call of a formula.
struct GroupCall {
  std::string name;
  std::vector<std::string> args;
  /// The call as a key: name(arg,arg).
  std::string key() const;
};
/// The group function calls of `text`, in order (malformed calls are left to the evaluator).
std::vector<GroupCall> group_calls(const std::string& text);

/// Evaluates `text`; unknown names or malformed text are InputErrors at `pos`. Group function calls go to
/// `calls` (null: refused).
double evaluate_expression(const std::string& text, const NameResolver& resolve, const SourcePos& pos,
                           const CallResolver* calls = nullptr);

}  // namespace wmd::io
