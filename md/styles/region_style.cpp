#include "md/styles/region_style.hpp"

namespace wmd::md {

RegionParam region_param(RegionArgs& r, const std::string& what, double scale, bool variable_ok) {
  RegionParam p;
  p.scale = scale;
  const std::string w = r.a.peek();
  if (w.rfind("v_", 0) == 0) {
    if (!variable_ok) r.a.fail("region " + r.id + ": " + what + " cannot be a variable");
    r.a.word(what);
    p.var = w.substr(2);
    p.update(r.eval);  // checks the variable now, as LAMMPS's variable_check does
    return p;
  }
  p.value = scale * r.a.real(what);
  return p;
}

double region_edge(const RegionArgs& r, int d, bool upper, bool tilted_bound) {
  if (r.box.triclinic && tilted_bound) return upper ? r.box.bound_hi(d) : r.box.bound_lo(d);
  return upper ? r.box.hi[d] : r.box.lo[d];
}

double region_bound(RegionArgs& r, const std::string& what, int d, bool upper, bool tilted_bound) {
  const std::string w = r.a.peek();
  if (w == "INF" || w == "EDGE") {
    r.a.word(what);
    if (!r.box.defined) r.a.fail("region " + r.id + ": INF and EDGE need the box (create_box or read_data)");
    if (w == "INF") return upper ? 1.0e20 : -1.0e20;
    return region_edge(r, d, upper, tilted_bound);
  }
  return r.scale[d] * r.a.real(what + " (a number, INF or EDGE)");
}

}  // namespace wmd::md
