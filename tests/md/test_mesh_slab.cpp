// The published wafer benchmark's geometry on the mesh backend (issue #43): a thin bcc slab with open,
// shrink-wrapped boundaries. Energy conservation with fp32 PEs; the lattice-plane mapping, whose window
// radius stays the perfect lattice's under thermal displacements while the coordinate bisection's grows; and
// the brute-force list audit on a thermalised slab and a 1 keV cascade under that mapping.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "io/lammps_script.hpp"
#include "md/mesh/mapping.hpp"
#include "md/mesh/mesh_backend.hpp"
#include "program_harness.hpp"
#include "sim_harness.hpp"

namespace {

using namespace wmd;

// The open-boundary recipe (tests/data/styles/in.shrink_slab) at nx×ny×nz bcc cells with CuTa.eam.alloy's Ta.
std::string open_slab(int nx, int ny, int nz, const std::string& tail) {
  return "units metal\natom_style atomic\natom_modify map hash\nlattice bcc 3.298901088\n"
         "region box block 0 " +
         std::to_string(nx) + " 0 " + std::to_string(ny) + " 0 " + std::to_string(nz) +
         "\ncreate_box 1 box\ncreate_atoms 1 box\nmass 1 180.95\n"
         "displace_atoms all move 0.25 0.25 0.25\nchange_box all boundary s s s\n"
         "velocity all create 580.0 87287 loop geom\nvelocity all zero linear\nvelocity all zero angular\n"
         "pair_style eam/alloy\npair_coeff * * CuTa.eam.alloy Ta\nneighbor 0.5 bin\n"
         "neigh_modify every 1 delay 0 check yes\nfix 1 all nve\ntimestep 0.002\n" +
         tail;
}

// thermo.csv's rows (after the header) as numbers.
std::vector<std::vector<double>> thermo_rows(const std::string& path) {
  std::istringstream in(test::slurp(path));
  std::string line;
  std::getline(in, line);
  std::vector<std::vector<double>> rows;
  while (std::getline(in, line)) {
    std::vector<double> r;
    std::istringstream cells(line);
    std::string c;
    while (std::getline(cells, c, ',')) r.push_back(std::stod(c));
    if (!r.empty()) rows.push_back(r);
  }
  return rows;
}

// fp32 PEs on the shrink-wrapped slab (1,728 atoms, 400 steps of 2 fs, the box refitted at each of the
// global decision's rebuilds): the total energy stays within 2e-5 eV/atom of its start, as with fp64 PEs
// (the 2 fs step's own fluctuation, ~1e-5), and every row's etotal and volume follow fp64's.
TEST(MeshSlab, ShrinkWrappedSlabConservesEnergyInFp32) {
  const std::string dir = test::scratch_dir("mesh_slab_energy");
  std::ofstream(dir + "/in.slab") << open_slab(12, 12, 6,
                                               "thermo_style custom step temp pe etotal press vol\n"
                                               "thermo_modify format float %.15g\nthermo 25\nrun 400\n");
  for (const char* prec : {"fp32", "fp64"}) {
    const test::ProgramResult r = test::run_wafermd_in(
        dir, std::string("run in.slab --backend mesh --set mesh.precision=") + prec + " --output " + prec);
    ASSERT_EQ(r.status, 0) << r.err;
  }
  const auto f32 = thermo_rows(dir + "/fp32/thermo.csv"), f64 = thermo_rows(dir + "/fp64/thermo.csv");
  ASSERT_EQ(f32.size(), 17u);
  ASSERT_EQ(f64.size(), f32.size());
  const double natoms = 1728;
  double drift = 0, apart = 0, vol = 0;
  for (size_t k = 0; k < f32.size(); ++k) {
    drift = std::max(drift, std::fabs(f32[k][3] - f32[0][3]) / natoms);
    apart = std::max(apart, std::fabs(f32[k][3] - f64[k][3]) / natoms);
    vol = std::max(vol, std::fabs(f32[k][5] - f64[k][5]) / f64[k][5]);
  }
  EXPECT_LT(drift, 2e-5) << "fp32 etotal drift, eV/atom";
  EXPECT_LT(apart, 2e-6) << "fp32 against fp64 etotal, eV/atom";
  EXPECT_LT(vol, 1e-5) << "fp32 against fp64 volume, relative";
  EXPECT_GT(f32.back()[5], f32[0][5]) << "the box should follow the slab's thermal expansion";
  std::ifstream rep(dir + "/fp32/report.json");
  const auto fabric = nlohmann::json::parse(rep).at("fabric");
  EXPECT_EQ(fabric.at("rebuild_trigger"), "vote") << "shrink-wrapped faces follow LAMMPS's global decision";
  std::printf(
      "fp32 slab: etotal drift %.3g eV/atom over 400 steps, |fp32 - fp64| %.3g eV/atom, volume %.3g\n", drift,
      apart, vol);
}

// The window radius b of the slab's atoms under a mapping kind.
struct Mapped {
  md::mesh::Mapping map;
  int b = 0;
};
Mapped mapped(const md::State& s, const std::vector<double>& x, const std::vector<double>& y,
              const std::vector<double>& z, md::mesh::MappingKind kind, double cutneigh) {
  const int n = static_cast<int>(x.size());
  int w = 0, h = 0;
  md::mesh::choose_grid(n, s.box, 922, 922, 850000, "wse2", w, h);
  Mapped m;
  m.map = md::mesh::map_atoms(s.box, x.data(), y.data(), z.data(), s.atoms.id.data(), n, w, h, kind);
  m.b = md::mesh::required_window(m.map, s.box, x.data(), y.data(), z.data(), n, cutneigh);
  return m;
}

// The benchmark's open Ta slab (20x20x6 cells, 4,800 atoms) on its perfect lattice and with thermal
// displacements: Gaussian, 0.15 A rms per component (seeded), and 300 steps of the 290 K run itself. The
// coordinate bisection's window radius grows; the lattice mapping's stays the perfect lattice's. Under the
// Gaussian noise the planes are found in the displaced atoms themselves and every atom lands on the PE of its
// perfect-lattice site; the hot slab's planes ripple and its edges relax (its coordinates alone show no
// planes apart), so there the perfect slab's planes are followed to it (follow_lattice_planes), as the
// backend does between its set-up and a remap.
TEST(MeshMapping, LatticeMappingKeepsThePerfectWindowUnderThermalMotion) {
  const std::string dir = test::scratch_dir("mesh_lattice_b");
  test::ScriptRun slab(open_slab(20, 20, 6, "run 0\n"), dir + "/perfect");
  const md::State& s = slab.state();
  const double cutneigh = slab.sim->tables().cutmax + 0.5;
  const md::Atoms& a = s.atoms;
  const int n = static_cast<int>(a.size());
  using md::mesh::MappingKind;
  const Mapped bis = mapped(s, a.x, a.y, a.z, MappingKind::bisection, cutneigh);
  const Mapped lat = mapped(s, a.x, a.y, a.z, MappingKind::lattice, cutneigh);
  EXPECT_EQ(lat.map.pe_of, bis.map.pe_of) << "on the perfect lattice both mappings are the bisection's";
  EXPECT_EQ(lat.b, bis.b);
  const md::mesh::LatticePlanes planes =
      md::mesh::find_lattice_planes(s.box, a.x.data(), a.y.data(), a.z.data(), n);
  EXPECT_EQ(planes.axis[0].centre.size(), 40u);
  EXPECT_EQ(planes.axis[1].centre.size(), 40u);
  EXPECT_EQ(planes.axis[2].centre.size(), 12u);
  // Gaussian displacements.
  std::mt19937 rng(4242);
  std::normal_distribution<double> g(0.0, 0.15);
  std::vector<double> x = a.x, y = a.y, z = a.z;
  for (int i = 0; i < n; ++i) x[i] += g(rng), y[i] += g(rng), z[i] += g(rng);
  const Mapped bis_g = mapped(s, x, y, z, MappingKind::bisection, cutneigh);
  const Mapped lat_g = mapped(s, x, y, z, MappingKind::lattice, cutneigh);
  EXPECT_GT(bis_g.b, bis.b) << "thermal noise reorders the bisection";
  EXPECT_EQ(lat_g.map.pe_of, lat.map.pe_of) << "every atom on the PE of its perfect-lattice site";
  EXPECT_EQ(lat_g.b, bis.b);
  // The run's own thermal motion, the atoms in the perfect slab's order (by id).
  test::ScriptRun hot(open_slab(20, 20, 6, "run 300\n"), dir + "/thermal");
  const md::State& t = hot.state();
  ASSERT_EQ(static_cast<int>(t.atoms.size()), n);
  std::vector<double> hx(n), hy(n), hz(n);
  for (int i = 0; i < n; ++i) {
    const size_t k = static_cast<size_t>(t.atoms.id[i] - 1);
    ASSERT_EQ(a.id[k], t.atoms.id[i]);
    hx[k] = t.atoms.x[i], hy[k] = t.atoms.y[i], hz[k] = t.atoms.z[i];
  }
  const Mapped bis_t = mapped(t, hx, hy, hz, MappingKind::bisection, cutneigh);
  const md::mesh::LatticePlanes followed =
      md::mesh::follow_lattice_planes(planes, hx.data(), hy.data(), hz.data(), n);
  int w = 0, h = 0;
  md::mesh::choose_grid(n, t.box, 922, 922, 850000, "wse2", w, h);
  const md::mesh::Mapping lat_t =
      md::mesh::map_atoms_lattice(t.box, hx.data(), hy.data(), hz.data(), a.id.data(), n, w, h, followed);
  const int b_lat_t = md::mesh::required_window(lat_t, t.box, hx.data(), hy.data(), hz.data(), n, cutneigh);
  int elsewhere = 0;
  for (int i = 0; i < n; ++i) elsewhere += lat_t.pe_of[i] != lat.map.pe_of[i];
  std::printf(
      "window radius b of the open Ta slab: perfect lattice %d (bisection), %d (lattice); Gaussian "
      "0.15 A: %d (bisection), %d (lattice); 300 steps at 290 K: %d (bisection), %d (lattice: %d of %d "
      "atoms off their perfect-lattice PE)\n",
      bis.b, lat.b, bis_g.b, lat_g.b, bis_t.b, b_lat_t, elsewhere, n);
  EXPECT_GT(bis_t.b, bis.b) << "thermal motion reorders the bisection";
  EXPECT_EQ(b_lat_t, bis.b);
  EXPECT_LT(elsewhere, n / 20);
}

// A periodic fcc crystal (8x8x8 cells, planes on the box faces) with Gaussian noise that wraps atoms across
// the faces: the planes are found, a plane on a face is one plane, and every atom keeps its perfect-lattice
// PE.
TEST(MeshMapping, LatticeMappingOfAPeriodicCrystalIgnoresTheNoise) {
  md::State s;
  const double a0 = 3.615;
  const int cells = 8;
  for (int d = 0; d < 3; ++d) s.box.lo[d] = 0, s.box.hi[d] = cells * a0;
  s.box.defined = true;
  const double basis[4][3] = {{0, 0, 0}, {.5, .5, 0}, {.5, 0, .5}, {0, .5, .5}};
  std::vector<double> x, y, z, nx, ny, nz;
  std::mt19937 rng(77);
  std::normal_distribution<double> g(0.0, 0.15);
  int64_t id = 0;
  for (int k = 0; k < cells; ++k)
    for (int j = 0; j < cells; ++j)
      for (int i = 0; i < cells; ++i)
        for (const auto& b : basis) {
          const double p[3] = {(i + b[0]) * a0, (j + b[1]) * a0, (k + b[2]) * a0};
          s.atoms.add(++id, 1, p[0], p[1], p[2]);
          x.push_back(p[0]), y.push_back(p[1]), z.push_back(p[2]);
          double q[3];
          for (int d = 0; d < 3; ++d) q[d] = std::fmod(p[d] + g(rng) + s.box.prd(d), s.box.prd(d));
          nx.push_back(q[0]), ny.push_back(q[1]), nz.push_back(q[2]);
        }
  const Mapped perfect = mapped(s, x, y, z, md::mesh::MappingKind::lattice, 5.95);
  const Mapped bis = mapped(s, x, y, z, md::mesh::MappingKind::bisection, 5.95);
  const Mapped noisy = mapped(s, nx, ny, nz, md::mesh::MappingKind::lattice, 5.95);
  const Mapped noisy_bis = mapped(s, nx, ny, nz, md::mesh::MappingKind::bisection, 5.95);
  const int n = static_cast<int>(x.size());
  const md::mesh::LatticePlanes planes =
      md::mesh::find_lattice_planes(s.box, nx.data(), ny.data(), nz.data(), n);
  for (int d = 0; d < 3; ++d) EXPECT_EQ(planes.axis[d].centre.size(), 16u) << "axis " << d;
  EXPECT_EQ(perfect.map.pe_of, bis.map.pe_of);
  EXPECT_EQ(noisy.map.pe_of, perfect.map.pe_of);
  EXPECT_EQ(noisy.b, perfect.b);
  std::printf("periodic fcc: b %d perfect, %d noisy (lattice), %d noisy (bisection)\n", perfect.b, noisy.b,
              noisy_bis.b);
}

// A mesh run of a LAMMPS script in `dir` whose backend's checks are set before the first command: the list
// audit after every step's upkeep, and the window guard acting (remaps) or only counting.
struct AuditedRun {
  std::unique_ptr<test::ScriptRun> run;
  md::mesh::MeshBackend* mesh = nullptr;

  AuditedRun(const std::string& script, const std::string& dir, const std::string& mapping,
             bool guard_report_only = false, bool local_trigger = false) {
    io::RunSettings settings;
    settings.backend = "mesh";
    settings.mesh_mapping = mapping;
    run = std::make_unique<test::ScriptRun>(script, dir, settings, false, [&](md::Simulation& sim) {
      mesh = dynamic_cast<md::mesh::MeshBackend*>(&*sim.backend);
      if (!mesh) return;
      mesh->set_checks(guard_report_only, /*audit_lists=*/true);
      if (local_trigger) mesh->force_trigger(true);
    });
  }
};

// The benchmark's open Ta slab (16x16x6 cells, 3,072 atoms, fp32 PEs) through 300 steps of 2 fs from 2T = 580
// K: with the list audited by brute force after every step's upkeep, no pair within the cutoff is missing
// from either PE's list. Under the lattice mapping the window radius stays the perfect lattice's and no atom
// is remapped; the coordinate bisection's thermal reordering needs remaps (or a wider window).
TEST(MeshSlab, AuditFindsNoMissingPairInAThermalisedOpenSlab) {
  const std::string dir = test::scratch_dir("mesh_slab_audit");
  const std::string script = open_slab(16, 16, 6, "thermo 100\nrun 300\n");
  AuditedRun lat(script, dir + "/lattice", "lattice");
  ASSERT_NE(lat.mesh, nullptr);
  const md::mesh::MeshCounters& c = lat.mesh->counters();
  EXPECT_EQ(c.audit_steps, 300);
  EXPECT_EQ(c.audit_missing, 0) << "pairs within the cutoff missing from a PE's list";
  EXPECT_GE(c.rebuilds, 5) << "the slab should re-neighbour (the vote)";
  EXPECT_EQ(lat.mesh->lattice_planes().axis[2].centre.size(), 12u);
  EXPECT_EQ(c.remaps, 0);
  EXPECT_EQ(lat.mesh->window_b(), c.max_b) << "the window never grew";
  AuditedRun bis(script, dir + "/bisection", "bisection");
  ASSERT_NE(bis.mesh, nullptr);
  const md::mesh::MeshCounters& cb = bis.mesh->counters();
  EXPECT_EQ(cb.audit_missing, 0);
  std::printf(
      "open Ta slab, 300 steps: lattice mapping b = %d, %lld swaps, %lld remaps; bisection b = %d (max "
      "%d), %lld swaps, %lld remaps\n",
      lat.mesh->window_b(), static_cast<long long>(c.swaps), static_cast<long long>(c.remaps),
      bis.mesh->window_b(), cb.max_b, static_cast<long long>(cb.swaps), static_cast<long long>(cb.remaps));
  EXPECT_LT(c.swaps * 20, cb.swaps) << "thermal motion should not reorder the lattice mapping";
}

// A 1 keV primary knock-on atom (Ta, 327 A/ps from the slab's centre, mostly in-plane) in the open slab with
// ZBL at close range, 400 steps of 0.2 fs under the lattice mapping: no pair within the cutoff is missing
// from either PE's list at any step, the guard remapping wherever the recoils outrun the window. The same
// slab made periodic in x and y with vacuum above and below (fixed z faces) runs the local trigger instead of
// the vote.
std::string cascade(const std::string& boundary) {
  const std::string head = boundary == "open"
                               ? "region box block 0 16 0 16 0 6\ncreate_box 1 box\ncreate_atoms 1 box\n"
                                 "displace_atoms all move 0.25 0.25 0.25\nchange_box all boundary s s s\n"
                               : "boundary p p f\nregion box block 0 16 0 16 -3 9\ncreate_box 1 box\n"
                                 "region slab block INF INF INF INF 0 5.9\ncreate_atoms 1 region slab\n"
                                 "displace_atoms all move 0.25 0.25 0.25\n";
  return "units metal\natom_style atomic\natom_modify map hash\nlattice bcc 3.298901088\n" + head +
         "mass 1 180.95\nvelocity all create 580.0 87287 loop geom\nvelocity all zero linear\n"
         "pair_style hybrid/overlay eam/alloy zbl 1.0 2.0\npair_coeff * * eam/alloy CuTa.eam.alloy Ta\n"
         "pair_coeff 1 1 zbl 73 73\nneighbor 0.5 bin\nneigh_modify every 1 delay 0 check yes\n"
         "fix 1 all nve\ntimestep 0.002\nrun 50\ngroup pka id 1809\nvelocity pka set 265.0 180.0 80.0 units "
         "box\n"
         "timestep 0.0002\nthermo 100\nrun 400\n";
}

TEST(MeshSlab, AuditFindsNoMissingPairInACascadeUnderTheLatticeMapping) {
  const std::string dir = test::scratch_dir("mesh_slab_cascade");
  for (const std::string boundary : {"open", "periodic"}) {
    AuditedRun run(cascade(boundary), dir + "/" + boundary, "lattice", false, boundary == "periodic");
    ASSERT_NE(run.mesh, nullptr);
    const md::mesh::MeshCounters& c = run.mesh->counters();
    EXPECT_TRUE(run.mesh->lattice_planes().found());
    EXPECT_EQ(run.mesh->local_trigger(), boundary == "periodic");
    EXPECT_EQ(c.audit_steps, 450) << boundary;
    EXPECT_EQ(c.audit_missing, 0) << boundary << ": pairs within the cutoff missing from a PE's list";
    EXPECT_GT(c.swaps, 0) << boundary << ": the knock-on atom's PE swaps with its neighbours";
    std::printf(
        "%s slab cascade: %lld audited steps, %lld swaps, %lld remaps, %lld guard misses, b = %d, "
        "%lld rebuilds, %lld rescan steps\n",
        boundary.c_str(), static_cast<long long>(c.audit_steps), static_cast<long long>(c.swaps),
        static_cast<long long>(c.remaps), static_cast<long long>(c.guard_misses), run.mesh->window_b(),
        static_cast<long long>(c.rebuilds), static_cast<long long>(c.rescan_steps));
  }
}

// The audit can fail on this slab: with the lists never rebuilt (check no, every 1000) while the knock-on
// atom flies, the pairs it makes are in nobody's list, and the audit counts them.
TEST(MeshSlab, AuditCatchesTheKnockOnAtomsPairsWhenListsAreNotRebuilt) {
  const std::string dir = test::scratch_dir("mesh_slab_stale");
  std::string script = cascade("open");
  script.replace(script.find("neigh_modify every 1 delay 0 check yes"), 38,
                 "neigh_modify every 1000 delay 0 check no");
  AuditedRun run(script, dir, "lattice", /*guard_report_only=*/true);
  ASSERT_NE(run.mesh, nullptr);
  EXPECT_GT(run.mesh->counters().audit_missing, 0);
}

// mesh.mapping sites: each cell column of the open Ta slab on a patch of PEs (3 x 4 for bcc), each atom on
// its site's PE. Through 300 thermalised steps no atom changes PE (no swaps, no remaps), the window is
// smaller than the lattice-plane mapping's, and the brute-force audit finds no pair missing; the 1 keV
// knock-on cascade of the test above, under the same mapping, misses none either (the guard remaps where the
// recoil outruns the window).
TEST(MeshSlab, SiteMappingAuditsCleanInAThermalisedSlabAndACascade) {
  const std::string dir = test::scratch_dir("mesh_slab_sites");
  const std::string script = open_slab(16, 16, 6, "thermo 100\nrun 300\n");
  AuditedRun sites(script, dir + "/sites", "sites");
  ASSERT_NE(sites.mesh, nullptr);
  EXPECT_TRUE(sites.mesh->site_mapping());
  const md::mesh::MeshCounters& c = sites.mesh->counters();
  EXPECT_EQ(c.audit_steps, 300);
  EXPECT_EQ(c.audit_missing, 0) << "pairs within the cutoff missing from a PE's list";
  EXPECT_EQ(c.swaps, 0);
  // The perfect lattice's window (8) holds the thermal pairs once it has grown by one: a remap or two.
  EXPECT_LE(c.remaps, 3);
  AuditedRun planes(script, dir + "/lattice", "lattice");
  ASSERT_NE(planes.mesh, nullptr);
  EXPECT_LT(sites.mesh->window_b(), planes.mesh->window_b());
  std::printf("open Ta slab, 300 steps: site mapping b = %d (lattice planes b = %d)\n",
              sites.mesh->window_b(), planes.mesh->window_b());
  AuditedRun knock(cascade("open"), dir + "/cascade", "sites");
  ASSERT_NE(knock.mesh, nullptr);
  const md::mesh::MeshCounters& k = knock.mesh->counters();
  EXPECT_EQ(k.audit_steps, 450);
  EXPECT_EQ(k.audit_missing, 0) << "cascade: pairs within the cutoff missing from a PE's list";
  std::printf("open slab cascade, site mapping: %lld guard misses, %lld remaps, b = %d, sites kept: %d\n",
              static_cast<long long>(k.guard_misses), static_cast<long long>(k.remaps),
              knock.mesh->window_b(), knock.mesh->site_mapping() ? 1 : 0);
}

// The mapping places atoms and prices the step; it does not change the physics: in fp64 the site mapping's
// trajectory is the lattice-plane mapping's bit for bit, and a run checkpointed half-way and restarted ends
// byte-identical, fabric counts included.
TEST(MeshSlab, SiteMappingKeepsTheTrajectoryAndRestartsBitIdentically) {
  const std::string dir = test::scratch_dir("mesh_slab_sites_same");
  auto script = [](int steps) {
    return open_slab(8, 8, 6, "thermo 10\nrun " + std::to_string(steps) + "\nwrite_data final.data\n");
  };
  std::ofstream(dir + "/in.full") << script(60);
  std::ofstream(dir + "/in.half") << script(30);
  const std::string fp64 = " --backend mesh --set mesh.precision=fp64";
  const test::ProgramResult a = test::run_wafermd_in(
      dir, "run in.full --output sites" + fp64 + " --set mesh.mapping=sites --set mesh.audit=true");
  ASSERT_EQ(a.status, 0) << a.err;
  const std::string sites_data = test::slurp(dir + "/final.data");
  const test::ProgramResult b =
      test::run_wafermd_in(dir, "run in.full --output planes" + fp64 + " --set mesh.mapping=lattice");
  ASSERT_EQ(b.status, 0) << b.err;
  // Each atom's force is summed in ascending global id whatever PE holds it: the same trajectory, bit for
  // bit. The energy sums run in PE order, so thermo agrees to round-off.
  EXPECT_TRUE(test::slurp(dir + "/final.data") == sites_data) << "the mappings' trajectories differ";
  const auto ts = thermo_rows(dir + "/sites/thermo.csv"), tp = thermo_rows(dir + "/planes/thermo.csv");
  ASSERT_EQ(ts.size(), tp.size());
  for (std::size_t r = 0; r < ts.size(); ++r)
    for (std::size_t k = 0; k < ts[r].size(); ++k)
      EXPECT_NEAR(ts[r][k], tp[r][k], 1e-12 * std::max(1.0, std::fabs(tp[r][k])))
          << "row " << r << " col " << k;
  EXPECT_NE(a.out.find("mapped by lattice sites"), std::string::npos) << a.out;
  const auto full = nlohmann::json::parse(test::slurp(dir + "/sites/report.json")).at("fabric");
  EXPECT_EQ(full.at("mapping"), "sites");
  EXPECT_EQ(full.at("audit_steps"), 60) << "mesh.audit: every step's lists checked";
  EXPECT_EQ(full.at("audit_missing_pairs"), 0);
  const test::ProgramResult h = test::run_wafermd_in(
      dir, "run in.half --output half --set output.checkpoint_every=30 --set mesh.mapping=sites" + fp64);
  ASSERT_EQ(h.status, 0) << h.err;
  const test::ProgramResult r = test::run_wafermd_in(
      dir, "run in.half --output again --restart half/checkpoint.h5 --set mesh.mapping=sites" + fp64);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(test::slurp(dir + "/final.data") == sites_data) << "the restarted run's data file differs";
  const auto again = nlohmann::json::parse(test::slurp(dir + "/again/report.json")).at("fabric");
  EXPECT_EQ(again.at("mapping"), "sites");
  EXPECT_EQ(again.at("swaps"), full.at("swaps"));
  EXPECT_EQ(again.at("remaps"), full.at("remaps"));
}

}  // namespace
