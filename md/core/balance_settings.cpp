#include "md/core/balance_settings.hpp"

namespace wmd::md {

ShiftBalance read_shift_balance(io::ArgCursor& a, const std::string& command) {
  ShiftBalance b;
  b.thresh = a.real("the imbalance threshold");
  if (b.thresh < 1.0) a.fail("the imbalance threshold must be >= 1.0 (1.0: always balance)");
  const std::string style = a.word("a balance style");
  if (style != "shift")
    a.fail(command + " style '" + style + "': only shift is supported (not x, y, z or rcb)");
  b.dims = a.word("the directions to balance (x, y and z, e.g. xyz)");
  for (size_t k = 0; k < b.dims.size(); ++k) {
    if (std::string("xyz").find(b.dims[k]) == std::string::npos || b.dims.find(b.dims[k]) != k)
      a.fail("bad directions '" + b.dims + "': each of x, y, z at most once");
  }
  b.niter = static_cast<int>(a.integer("Niter (bisection rounds per cut)", 1, 1000));
  b.stop = a.real("the stopping threshold");
  if (b.stop < 1.0) a.fail("the stopping threshold must be >= 1.0");
  if (!a.done()) a.fail("no " + command + " keywords (weight, out) are supported");
  return b;
}

}  // namespace wmd::md
