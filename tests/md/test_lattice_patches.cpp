// The lattice-site mapping (md/mesh/lattice_patches.hpp): cell columns on PE patches, checked against the
// coordinate bisection and a brute-force window, under thermal displacements, and its refusals.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "md/core/lattice.hpp"
#include "md/mesh/lattice_patches.hpp"
#include "md/mesh/mapping.hpp"
#include "program_harness.hpp"
#include "sim_harness.hpp"

namespace wmd::md::mesh {
namespace {

// A slab of nx × ny × 6 cells with open boundaries, shifted by a quarter cell as the SC24 inputs are.
struct Slab {
  Box box;
  Lattice lat;
  std::vector<double> x, y, z;
  std::vector<int64_t> id;
  int n() const { return static_cast<int>(x.size()); }
};

Slab slab(const std::string& style, double a, int nx, int ny) {
  Slab s;
  EXPECT_TRUE(make_lattice(style, a, s.lat));
  for (int i = 0; i < nx; ++i)
    for (int j = 0; j < ny; ++j)
      for (int k = 0; k < 6; ++k)
        for (const auto& b : s.lat.basis) {
          s.x.push_back((i + b[0] + 0.25) * a);
          s.y.push_back((j + b[1] + 0.25) * a);
          s.z.push_back((k + b[2] + 0.25) * a);
          s.id.push_back(static_cast<int64_t>(s.id.size()) + 1);
        }
  const int cells[3] = {nx, ny, 6};
  for (int d = 0; d < 3; ++d) {
    s.box.lo[d] = 0, s.box.hi[d] = cells[d] * a;
    s.box.face[d][0] = s.box.face[d][1] = Face::shrink;
  }
  return s;
}

int bisection_b(const Slab& s, double cut) {
  int w = 0, h = 0;
  choose_grid(s.n(), s.box, 4096, 4096, 1 << 30, "test", w, h);
  const Mapping m = map_atoms(s.box, s.x.data(), s.y.data(), s.z.data(), s.id.data(), s.n(), w, h);
  return required_window(m, s.box, s.x.data(), s.y.data(), s.z.data(), s.n(), cut);
}

// Ta (bcc, 12 sites per column): 3 × 4 patches need b = 4 where bisection needs 7 (cutoff + skin 4.48 Å).
TEST(LatticePatches, BccColumnsOnThreeByFourPatches) {
  const double a = 3.3026 * 0.99888, cut = 3.9837 + 0.5;
  Slab s = slab("bcc", a, 40, 40);
  PatchMapping pm;
  std::string why;
  ASSERT_TRUE(
      map_lattice_patches(s.box, s.lat, s.x.data(), s.y.data(), s.z.data(), s.n(), 120, 160, cut, pm, &why))
      << why;
  EXPECT_EQ(pm.patch_w, 3);
  EXPECT_EQ(pm.patch_h, 4);
  EXPECT_EQ(pm.map.width, 120);
  EXPECT_EQ(pm.map.height, 160);
  // One atom per PE, every PE used, b as a brute force finds it.
  std::vector<int> seen(pm.map.size(), 0);
  for (int i = 0; i < s.n(); ++i) ++seen[pm.map.pe_of[i]];
  for (int c : seen) EXPECT_EQ(c, 1);
  EXPECT_EQ(pm.b, required_window(pm.map, s.box, s.x.data(), s.y.data(), s.z.data(), s.n(), cut));
  EXPECT_EQ(pm.b, 4);
  EXPECT_EQ(bisection_b(s, cut), 7);
  // Every atom is on its cell column's patch.
  for (int i = 0; i < s.n(); ++i) {
    const int col = static_cast<int>(s.x[i] / a), row = static_cast<int>(s.y[i] / a);
    const int pe = pm.map.pe_of[i];
    EXPECT_EQ((pe % pm.map.width) / 3, col);
    EXPECT_EQ((pe / pm.map.width) / 4, row);
  }
}

// Thermal motion (0.1 Å rms per component, seeded; 290 K Ta has about 0.07) leaves every atom on its PE: the
// assignment is the perfect lattice's, so b holds the same pairs it did; the bisection of the same positions
// moves atoms.
TEST(LatticePatches, ThermalDisplacementsKeepTheAssignment) {
  const double a = 3.3026 * 0.99888, cut = 3.9837 + 0.5;
  const Slab perfect = slab("bcc", a, 24, 24);
  Slab hot = perfect;
  std::mt19937 rng(7);
  std::normal_distribution<double> g(0.0, 0.1);
  for (int i = 0; i < hot.n(); ++i) hot.x[i] += g(rng), hot.y[i] += g(rng), hot.z[i] += g(rng);
  PatchMapping p0, p1;
  ASSERT_TRUE(map_lattice_patches(perfect.box, perfect.lat, perfect.x.data(), perfect.y.data(),
                                  perfect.z.data(), perfect.n(), 72, 96, cut, p0, nullptr));
  ASSERT_TRUE(map_lattice_patches(hot.box, hot.lat, hot.x.data(), hot.y.data(), hot.z.data(), hot.n(), 72, 96,
                                  cut, p1, nullptr));
  EXPECT_EQ(p0.map.pe_of, p1.map.pe_of);
  // The perfect lattice's pairs within cutoff + skin are still held by b = 4 (the same PE pairs).
  EXPECT_EQ(required_window(p1.map, perfect.box, perfect.x.data(), perfect.y.data(), perfect.z.data(),
                            perfect.n(), cut),
            4);
  // Bisection of the hot positions needs a larger window than its perfect-lattice one.
  EXPECT_GT(bisection_b(hot, cut), bisection_b(perfect, cut));
}

// Cu (fcc, 24 sites per column) on a grid that only a transposed 4 × 6 patch fits, as the SC24 Cu slab on
// the CS-2's 769 × 1044 PEs: b below bisection's.
TEST(LatticePatches, FccColumnsTransposedWhenOnlyThatFits) {
  const double a = 3.615 * 1.00468, cut = 4.95 + 0.5;
  Slab s = slab("fcc", a, 30, 32);
  PatchMapping pm;
  ASSERT_TRUE(map_lattice_patches(s.box, s.lat, s.x.data(), s.y.data(), s.z.data(), s.n(), 128, 180, cut, pm,
                                  nullptr));
  EXPECT_TRUE(pm.transposed);
  EXPECT_EQ(pm.patch_w * pm.patch_h, 24);
  EXPECT_LE(pm.map.width, 128);
  EXPECT_LE(pm.map.height, 180);
  EXPECT_EQ(pm.b, required_window(pm.map, s.box, s.x.data(), s.y.data(), s.z.data(), s.n(), cut));
  EXPECT_LT(pm.b, bisection_b(s, cut));
}

// Systems that are not one atom per site of the lattice are refused with the reason.
TEST(LatticePatches, RefusesWhatIsNotOneAtomPerSite) {
  const double a = 3.3, cut = 4.5;
  PatchMapping pm;
  std::string why;
  Slab s = slab("bcc", a, 8, 8);
  // An adatom (a surface atom one cell above its site) is a stray: it takes the site it left.
  PatchMapping base, hop;
  ASSERT_TRUE(
      map_lattice_patches(s.box, s.lat, s.x.data(), s.y.data(), s.z.data(), s.n(), 999, 999, cut, base, &why))
      << why;
  int top = 0;
  for (int i = 0; i < s.n(); ++i)
    if (s.z[i] > s.z[top]) top = i;
  Slab ad = s;
  ad.z[top] += a;
  ASSERT_TRUE(map_lattice_patches(ad.box, ad.lat, ad.x.data(), ad.y.data(), ad.z.data(), ad.n(), 999, 999,
                                  cut, hop, &why))
      << why;
  EXPECT_EQ(hop.map.pe_of, base.map.pe_of);
  // An interstitial has no site of its own.
  Slab inter = s;
  inter.x.push_back(s.x[3] + 0.5 * a), inter.y.push_back(s.y[3] + 0.5 * a), inter.z.push_back(s.z[3]);
  inter.id.push_back(9998);
  EXPECT_FALSE(map_lattice_patches(inter.box, inter.lat, inter.x.data(), inter.y.data(), inter.z.data(),
                                   inter.n(), 999, 999, cut, pm, &why));
  EXPECT_TRUE(why.find("two atoms") != std::string::npos || why.find("off the lattice") != std::string::npos)
      << why;
  Slab twice = s;
  twice.x.push_back(s.x[3]), twice.y.push_back(s.y[3]), twice.z.push_back(s.z[3]), twice.id.push_back(9999);
  EXPECT_FALSE(map_lattice_patches(twice.box, twice.lat, twice.x.data(), twice.y.data(), twice.z.data(),
                                   twice.n(), 999, 999, cut, pm, &why));
  EXPECT_NE(why.find("two atoms"), std::string::npos) << why;
  Slab none = s;
  none.lat = Lattice{};
  EXPECT_FALSE(map_lattice_patches(none.box, none.lat, none.x.data(), none.y.data(), none.z.data(), none.n(),
                                   999, 999, cut, pm, &why));
  EXPECT_FALSE(
      map_lattice_patches(s.box, s.lat, s.x.data(), s.y.data(), s.z.data(), s.n(), 10, 10, cut, pm, &why));
  EXPECT_NE(why.find("fits"), std::string::npos) << why;
  // A vacancy leaves its PE empty; the rest keep their sites.
  Slab vac = s;
  vac.x.erase(vac.x.begin() + 10), vac.y.erase(vac.y.begin() + 10), vac.z.erase(vac.z.begin() + 10);
  vac.id.pop_back();
  ASSERT_TRUE(map_lattice_patches(vac.box, vac.lat, vac.x.data(), vac.y.data(), vac.z.data(), vac.n(), 999,
                                  999, cut, pm, &why))
      << why;
  int empty = 0;
  for (int32_t at : pm.map.atom_of) empty += at < 0;
  EXPECT_GE(empty, 1);
}

// `wafermd model` on an open bcc slab of the SC24 recipe (CuTa's Ta, a Debian potential, 20 x 24 x 6 cells):
// the lattice patches are priced where they need the smaller window, the prediction is a program that fits
// the PE's memory, and the mappings are reported side by side.
TEST(LatticePatches, ModelPricesThePatchMappingOnTheSc24Preset) {
  const std::string dir = test::scratch_dir("lattice_patches_model");
  std::ofstream(dir + "/in.slab") << "units metal\natom_style atomic\nlattice bcc 3.30\n"
                                     "region box block 0 20 0 24 0 6\ncreate_box 1 box\ncreate_atoms 1 box\n"
                                     "mass 1 180.95\ndisplace_atoms all move 0.25 0.25 0.25\n"
                                     "change_box all boundary s s s\n"
                                     "velocity all create 580 87287 loop geom\npair_style eam/alloy\n"
                                     "pair_coeff * * CuTa.eam.alloy Ta\nneighbor 0.5 bin\n"
                                     "neigh_modify every 1 delay 0 check yes\nfix 1 all nve\ntimestep 0.002\n"
                                     "run 10\n";
  const test::ProgramResult r = test::run_wafermd_in(dir, "model in.slab --preset cs2_sc24 --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("wafer"), "cs2_sc24");
  EXPECT_DOUBLE_EQ(j.at("clock_hz").get<double>(), 0.85e9);
  const auto& m = j.at("mappings");
  ASSERT_TRUE(m.at("lattice_patches").contains("b")) << m.dump();
  EXPECT_LT(m.at("lattice_patches").at("b").get<int>(), m.at("bisection").at("b").get<int>());
  EXPECT_EQ(j.at("mapping"), "lattice_patches");
  EXPECT_EQ(j.at("window_b"), m.at("lattice_patches").at("b"));
  // CuTa's 10,000-knot tables fit no PE in any layout: the model says so and predicts nothing.
  EXPECT_FALSE(j.at("feasible").get<bool>());
  EXPECT_TRUE(j.at("predicted_steps_per_second").is_null());
  for (const auto& p : j.at("programs")) EXPECT_FALSE(p.at("fits").get<bool>()) << p.dump();
  const test::ProgramResult text = test::run_wafermd_in(dir, "model in.slab --preset cs2_sc24");
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("Predicted: none"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("lattice patches 3x4 PEs per cell column"), std::string::npos) << text.out;
}

}  // namespace
}  // namespace wmd::md::mesh
