// A fix argument that is a number or an equal-style variable v_name read when it is used (LAMMPS's
// CONSTANT/VARIABLE argument styles of fix indent, fix wall, fix wall/reflect).
#pragma once
#include <string>

#include "md/styles/fix.hpp"

namespace wmd::md {

struct NumberOrVariable {
  double number = 0.0;
  std::string var;  // without the v_ prefix; empty: the number
  bool is_variable() const { return !var.empty(); }
  /// The value now (the variable is evaluated; a missing or non-equal-style variable fails at `at`).
  double get(FixContext& c, const SourcePos& at, const std::string& who) const {
    if (var.empty()) return number;
    if (!c.styles) fail_input(at, who + ": variable " + var + " cannot be evaluated here");
    if (!c.styles->has_variable(var))
      fail_input(at, who + ": variable " + var + " does not exist or is not equal-style (LAMMPS)");
    return c.styles->variable(var);
  }
  /// Reads the next argument: v_name, or a number.
  static NumberOrVariable read(io::ArgCursor& a, const std::string& what) {
    NumberOrVariable v;
    if (a.peek().rfind("v_", 0) == 0)
      v.var = a.word(what).substr(2);
    else
      v.number = a.real(what);
    return v;
  }
};

}  // namespace wmd::md
