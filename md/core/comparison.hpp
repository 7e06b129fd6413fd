// The comparison operators LAMMPS's dump_modify thresh and fix halt share: < <= > >= == != and |^ (one of the
// two is zero and the other is not).
#pragma once

#include <string>

#include "io/command.hpp"

namespace wmd::md {

enum class Comparison { lt, le, gt, ge, eq, ne, xor_ };

/// Reads one of < <= > >= == != |^ (`what` names it in the error).
inline Comparison read_comparison(io::ArgCursor& a, const std::string& what) {
  const std::string op = a.choice(what, {"<", "<=", ">", ">=", "==", "!=", "|^"});
  return op == "<"    ? Comparison::lt
         : op == "<=" ? Comparison::le
         : op == ">"  ? Comparison::gt
         : op == ">=" ? Comparison::ge
         : op == "==" ? Comparison::eq
         : op == "!=" ? Comparison::ne
                      : Comparison::xor_;
}

/// Whether `v op ref` holds.
inline bool compare(double v, Comparison op, double ref) {
  switch (op) {
    case Comparison::lt:
      return v < ref;
    case Comparison::le:
      return v <= ref;
    case Comparison::gt:
      return v > ref;
    case Comparison::ge:
      return v >= ref;
    case Comparison::eq:
      return v == ref;
    case Comparison::ne:
      return v != ref;
    case Comparison::xor_:
      return (v == 0.0) != (ref == 0.0);
  }
  return false;
}

}  // namespace wmd::md
