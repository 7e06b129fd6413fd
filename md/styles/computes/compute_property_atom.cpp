// compute property/atom ATTR…: the atoms' own attributes as per-atom values, as LAMMPS compute property/atom
// — a per-atom vector for one attribute, an array of one column per attribute for several; 0 outside the
// group. Attributes of atom_style atomic: id proc type mass x y z xs ys zs xu yu zu ix iy iz vx vy vz fx
// fy fz (xsu ysu zsu came to LAMMPS after the 2021 reference build, which refuses them as here). Attributes
// other atom styles carry (q, mu, radius, omega, …) stop at the command, as LAMMPS stops ("Compute
// property/atom for atom property that isn't allocated").
#include <algorithm>

#include "md/styles/compute.hpp"

namespace wmd::md {
namespace {

enum class Attr { id, proc, type, mass, x, y, z, xs, ys, zs, xu, yu, zu, ix, iy, iz, vx, vy, vz, fx, fy, fz };

const std::vector<std::string>& attr_names() {
  static const std::vector<std::string> n = {"id", "proc", "type", "mass", "x",  "y",  "z",  "xs",
                                             "ys", "zs",   "xu",   "yu",   "zu", "ix", "iy", "iz",
                                             "vx", "vy",   "vz",   "fx",   "fy", "fz"};
  return n;
}

// LAMMPS's attributes that other atom styles (or packages) carry: named, then refused.
bool other_style_attribute(const std::string& w) {
  static const std::vector<std::string> n = {
      "mol",      "q",        "mux",      "muy",      "muz",         "mu",       "radius",   "diameter",
      "omegax",   "omegay",   "omegaz",   "angmomx",  "angmomy",     "angmomz",  "shapex",   "shapey",
      "shapez",   "quatw",    "quati",    "quatj",    "quatk",       "tqx",      "tqy",      "tqz",
      "end1x",    "end1y",    "end1z",    "end2x",    "end2y",       "end2z",    "corner1x", "corner1y",
      "corner1z", "corner2x", "corner2y", "corner2z", "corner3x",    "corner3y", "corner3z", "nbonds",
      "buckling", "vfrac",    "s0",       "spin",     "eradius",     "ervel",    "erforce",  "rho",
      "drho",     "e",        "de",       "cv",       "temperature", "heatflow"};
  return std::find(n.begin(), n.end(), w) != n.end() || w.rfind("i_", 0) == 0 || w.rfind("d_", 0) == 0 ||
         w.rfind("i2_", 0) == 0 || w.rfind("d2_", 0) == 0;
}

class ComputePropertyAtom : public Compute {
 public:
  ComputePropertyAtom(const ComputeArgs& c, std::vector<Attr> attrs)
      : Compute(c.id, c.style, c.group), attrs_(std::move(attrs)) {}
  OutputShape shape() const override {
    return {false, 0, attrs_.size() == 1 ? 0 : static_cast<int>(attrs_.size()), false};
  }
  void compute_peratom(const ComputeContext& c) override {
    invoked_peratom = c.s.step;
    const Atoms& a = c.s.atoms;
    const Box& b = c.s.box;
    const size_t cols = attrs_.size();
    peratom_.assign(cols * a.size(), 0.0);
    const double L[3] = {b.prd(0), b.prd(1), b.prd(2)};
    const double inv[3] = {1.0 / L[0], 1.0 / L[1], 1.0 / L[2]};  // LAMMPS multiplies by h_inv
    for (size_t i = 0; i < a.size(); ++i) {
      if (!in_group(a, i)) continue;
      const double x[3] = {a.x[i], a.y[i], a.z[i]};
      const int img[3] = {a.ix[i], a.iy[i], a.iz[i]};
      // A triclinic box: LAMMPS's pack_*_triclinic, the fractional coordinates (h_inv·(x − lo)) and the
      // position moved along the edge vectors.
      double lamda[3] = {0.0, 0.0, 0.0}, unwrapped[3] = {0.0, 0.0, 0.0};
      if (b.triclinic) b.to_lamda(x, lamda), b.unwrap(x, img[0], img[1], img[2], unwrapped);
      for (size_t k = 0; k < cols; ++k) {
        const Attr t = attrs_[k];
        double v = 0.0;
        switch (t) {
          case Attr::id:
            v = static_cast<double>(a.id[i]);
            break;
          case Attr::proc:
            v = c.comm.rank();
            break;
          case Attr::type:
            v = a.type[i];
            break;
          case Attr::mass:
            v = c.s.mass[a.type[i]];
            break;
          case Attr::x:
          case Attr::y:
          case Attr::z:
            v = x[static_cast<int>(t) - static_cast<int>(Attr::x)];
            break;
          case Attr::xs:
          case Attr::ys:
          case Attr::zs: {
            const int d = static_cast<int>(t) - static_cast<int>(Attr::xs);
            v = b.triclinic ? lamda[d] : (x[d] - b.lo[d]) * inv[d];
            break;
          }
          case Attr::xu:
          case Attr::yu:
          case Attr::zu: {
            const int d = static_cast<int>(t) - static_cast<int>(Attr::xu);
            v = b.triclinic ? unwrapped[d] : x[d] + img[d] * L[d];
            break;
          }
          case Attr::ix:
          case Attr::iy:
          case Attr::iz:
            v = img[static_cast<int>(t) - static_cast<int>(Attr::ix)];
            break;
          case Attr::vx:
            v = a.vx[i];
            break;
          case Attr::vy:
            v = a.vy[i];
            break;
          case Attr::vz:
            v = a.vz[i];
            break;
          case Attr::fx:
            v = a.fx[i];
            break;
          case Attr::fy:
            v = a.fy[i];
            break;
          case Attr::fz:
            v = a.fz[i];
            break;
        }
        peratom_[cols * i + k] = v;
      }
    }
  }

 private:
  std::vector<Attr> attrs_;
};

std::unique_ptr<Compute> make(const ComputeArgs& c) {
  std::vector<Attr> attrs;
  const auto& names = attr_names();
  while (!c.a.done()) {
    const std::string w = c.a.word("an atom attribute");
    const auto it = std::find(names.begin(), names.end(), w);
    if (it != names.end()) {
      attrs.push_back(static_cast<Attr>(it - names.begin()));
    } else if (other_style_attribute(w)) {
      c.a.fail("compute property/atom: attribute '" + w +
               "' is not allocated by atom_style atomic (LAMMPS: \"Compute property/atom for atom property "
               "that isn't allocated\")");
    } else {
      c.a.fail("compute property/atom: '" + w +
               "' is not an atom attribute (atom_style atomic has id proc "
               "type mass x y z xs ys zs xu yu zu ix iy iz vx vy vz fx fy fz)");
    }
  }
  if (attrs.empty()) c.a.fail("compute property/atom needs at least one attribute");
  return std::make_unique<ComputePropertyAtom>(c, std::move(attrs));
}

}  // namespace

WMD_COMPUTE_STYLE("property/atom", make)

}  // namespace wmd::md
