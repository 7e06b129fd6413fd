// Arithmetic of LAMMPS equal-style variables: numbers, + - * / % ^, comparisons, logic, math functions,
// v_NAME references and thermo keywords supplied by the caller.
#pragma once
#include <functional>
#include <string>

#include "base/error.hpp"

namespace wmd::io {

/// One expression may nest parentheses, functions and unary operators this deep.
inline constexpr int kMaxExpressionDepth = 200;
/// Expressions and the variables they name together may nest this deep (each variable entered counts one): a
/// chain of 1000 variables fits, and so does the stack of an ASan build (8 MiB).
inline constexpr int kMaxExpressionLevels = 2500;

/// Resolves a bare word (thermo keyword) or v_NAME reference; returns false if unknown.
using NameResolver = std::function<bool(const std::string& name, double& value)>;

/// Evaluates `text`; unknown names or malformed text are InputErrors at `pos`.
double evaluate_expression(const std::string& text, const NameResolver& resolve, const SourcePos& pos);

}  // namespace wmd::io
