// The mesh backend: mapping and window radius against brute force, the two-images and too-many-atoms errors,
// fp64 parity with LAMMPS's digits and with the cluster backend, bit-identity with a brute-force reference
// built from md/eam_atom_kernels.hpp, remaps under a 1 keV knock-on atom, the checkpoint's named fields (and
// the older positional layout), and `wafermd model --json`.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "io/yaml_input.hpp"
#include "md/cluster/cluster_backend.hpp"
#include "md/force/eam_atom_kernels.hpp"
#include "md/mesh/mapping.hpp"
#include "md/mesh/mesh_backend.hpp"
#include "md/run/simulation.hpp"
#include "program_harness.hpp"
#include "sim_harness.hpp"

namespace {

using namespace wmd;
const std::string kPot = "Cu_u3.eam";

io::RunSettings mesh_settings(const std::string& precision) {
  io::RunSettings s;
  s.backend = "mesh";
  s.mesh_precision = precision;
  return s;
}

// inputs/lammps/in.eam at 10x10x10 cells (4000 atoms): LAMMPS (Debian lmp 20220106) prints at step 100
//   100    803.03853   -13745.383            0   -13330.283    51295.762
std::string eam4k(int steps) {
  return "units metal\natom_style atomic\nlattice fcc 3.615\nregion box block 0 10 0 10 0 10\n"
         "create_box 1 box\ncreate_atoms 1 box\npair_style eam\npair_coeff 1 1 " +
         kPot +
         "\nvelocity all create 1600.0 376847 loop geom\nneighbor 1.0 bin\n"
         "neigh_modify every 1 delay 5 check yes\nfix 1 all nve\ntimestep 0.005\nthermo 50\nrun " +
         std::to_string(steps) + "\n";
}

std::map<int64_t, std::array<double, 3>> positions_by_id(const md::State& s) {
  std::map<int64_t, std::array<double, 3>> m;
  const md::Atoms& a = s.atoms;
  for (size_t i = 0; i < a.size(); ++i)
    m[a.id[i]] = {a.x[i] + a.ix[i] * s.box.prd(0), a.y[i] + a.iy[i] * s.box.prd(1),
                  a.z[i] + a.iz[i] * s.box.prd(2)};
  return m;
}

// A perturbed fcc crystal in a periodic box, for the mapping tests.
md::State crystal(int cells, double noise, unsigned seed) {
  md::State s;
  const double a0 = 3.615;
  for (int d = 0; d < 3; ++d) s.box.lo[d] = 0, s.box.hi[d] = cells * a0;
  s.box.defined = true;
  std::mt19937 rng(seed);
  std::normal_distribution<double> g(0.0, noise);
  const double basis[4][3] = {{0, 0, 0}, {.5, .5, 0}, {.5, 0, .5}, {0, .5, .5}};
  int64_t id = 0;
  for (int k = 0; k < cells; ++k)
    for (int j = 0; j < cells; ++j)
      for (int i = 0; i < cells; ++i)
        for (const auto& b : basis) {
          double p[3] = {(i + b[0]) * a0 + g(rng), (j + b[1]) * a0 + g(rng), (k + b[2]) * a0 + g(rng)};
          for (int d = 0; d < 3; ++d) p[d] = std::fmod(p[d] + s.box.prd(d), s.box.prd(d));
          s.atoms.add(++id, 1, p[0], p[1], p[2]);
        }
  return s;
}

// Cu_u3's tables and a 1 Å skin, for the tests that drive a MeshBackend directly.
potentials::EamTables cu_tables() {
  potentials::EamBuilder eb(potentials::EamStyle::funcfl, 1);
  eb.add_funcfl(1, 1, 1, 1, kPot, SourcePos{"<test>", 0});
  return eb.build();
}
md::NeighborSettings skin_1() {
  md::NeighborSettings nb;
  nb.skin = 1.0;
  return nb;
}
// crystal() with Cu's mass.
md::State cu_crystal(int cells, double noise, unsigned seed) {
  md::State s = crystal(cells, noise, seed);
  s.ntypes = 1;
  s.mass = {0.0, 63.55};
  return s;
}

// The mesh's PE passes are Kokkos kernels: this program's main initialises Kokkos before any test (ctest runs
// each test in a process of its own), as wafermd's main does before any command.
TEST(MeshKokkos, InitialisedBeforeAnyTest) {
  EXPECT_TRUE(Kokkos::is_initialized());
}

TEST(MeshMapping, WindowRadiusMatchesBruteForceOverAllImages) {
  for (unsigned seed : {1u, 2u}) {
    md::State s = crystal(5, 0.15, seed);
    const md::Atoms& a = s.atoms;
    const int n = static_cast<int>(a.size());
    int w = 0, h = 0;
    md::mesh::choose_grid(n, s.box, 922, 922, 850000, "wse2", w, h);
    ASSERT_GE(static_cast<int64_t>(w) * h, n);
    const auto m = md::mesh::map_atoms(s.box, a.x.data(), a.y.data(), a.z.data(), a.id.data(), n, w, h);
    // One atom per PE, every atom placed.
    std::vector<int> seen(m.size(), 0);
    for (int i = 0; i < n; ++i) {
      ASSERT_GE(m.pe_of[i], 0);
      ASSERT_EQ(m.atom_of[m.pe_of[i]], i);
      ++seen[m.pe_of[i]];
    }
    for (int c : seen) ASSERT_LE(c, 1);
    const double cut = 5.95;
    int brute = 1;
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j)
        for (int sx = -1; sx <= 1; ++sx)
          for (int sy = -1; sy <= 1; ++sy)
            for (int sz = -1; sz <= 1; ++sz) {
              const double dx = a.x[i] - a.x[j] - sx * s.box.prd(0), dy = a.y[i] - a.y[j] - sy * s.box.prd(1),
                           dz = a.z[i] - a.z[j] - sz * s.box.prd(2);
              if (dx * dx + dy * dy + dz * dz >= cut * cut) continue;
              const int pi = m.pe_of[i], pj = m.pe_of[j];
              int ddx = std::abs(pi % w - pj % w), ddy = std::abs(pi / w - pj / w);
              ddx = std::min(ddx, w - ddx), ddy = std::min(ddy, h - ddy);
              brute = std::max({brute, ddx, ddy});
            }
    EXPECT_EQ(md::mesh::required_window(m, s.box, a.x.data(), a.y.data(), a.z.data(), n, cut), brute);
    EXPECT_LE(brute, 13) << "the mapping should stay local for a 500-atom crystal";
  }
}

TEST(MeshMapping, TwoImagesOfOneNeighbourIsAnInputError) {
  md::Box box;
  for (int d = 0; d < 3; ++d) box.lo[d] = 0, box.hi[d] = 20.0;
  box.hi[2] = 10.0;
  try {
    md::mesh::check_single_image(box, 5.95);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("two images"), std::string::npos) << msg;
    EXPECT_NE(msg.find("along z"), std::string::npos) << msg;
    EXPECT_NE(msg.find("11.9"), std::string::npos) << msg;
  }
  box.hi[2] = 11.9;
  EXPECT_NO_THROW(md::mesh::check_single_image(box, 5.95));
  box.face[2][0] = box.face[2][1] = md::Face::fixed;
  box.hi[2] = 5.0;
  EXPECT_NO_THROW(md::mesh::check_single_image(box, 5.95));
}

TEST(MeshBackend, Fp64PrintsLammpsDigitsAndMatchesClusterPositions) {
  const std::string dir = test::scratch_dir("mesh_fp64");
  test::ScriptRun mesh(eam4k(100), dir + "/mesh", mesh_settings("fp64"));
  test::ScriptRun cluster(eam4k(100), dir + "/cluster", io::RunSettings{});
  double temp, epair, etotal, press;
  ASSERT_TRUE(mesh.sim->keyword_value("temp", temp));
  ASSERT_TRUE(mesh.sim->keyword_value("pe", epair));
  ASSERT_TRUE(mesh.sim->keyword_value("etotal", etotal));
  ASSERT_TRUE(mesh.sim->keyword_value("press", press));
  EXPECT_EQ(fmt::format("{:.8g} {:.8g} {:.8g} {:.8g}", temp, epair, etotal, press),
            "803.03853 -13745.383 -13330.283 51295.762");
  const auto pm = positions_by_id(mesh.sim->state), pc = positions_by_id(cluster.sim->state);
  ASSERT_EQ(pm.size(), pc.size());
  double worst = 0;
  for (const auto& [id, p] : pm)
    for (int d = 0; d < 3; ++d) worst = std::max(worst, std::fabs(p[d] - pc.at(id)[d]));
  EXPECT_LT(worst, 1e-8);
}

// Reference: every atom over all atoms within cutoff (nearest image), neighbours in ascending id, through the
// shared per-atom kernels. The mesh backend in fp64 must agree bit for bit.
TEST(MeshBackend, Fp64IsBitIdenticalToBruteForceAtomKernels) {
  md::State s = cu_crystal(6, 0.12, 7);
  const potentials::EamTables t = cu_tables();
  md::NeighborSettings nb = skin_1();
  md::mesh::MeshOptions opt;
  opt.fp64 = true;
  md::mesh::MeshBackend mesh(opt);
  mesh.setup(s, t, nb, true);
  const md::Atoms& a = s.atoms;
  const int n = static_cast<int>(a.size());
  std::vector<int> order(n);
  for (int i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](int x, int y) { return a.id[x] < a.id[y]; });
  const double cut = t.cutmax + nb.skin;
  std::vector<double> rho(n), fp(n), energy(n);
  auto neighbours = [&](int i, std::vector<double>& dx, std::vector<double>& dy, std::vector<double>& dz,
                        std::vector<int>& tj, std::vector<int>& idx) {
    dx.clear(), dy.clear(), dz.clear(), tj.clear(), idx.clear();
    for (int j : order) {
      if (j == i) continue;
      int sh[3];
      double d[3], r2 = 0;
      const double xi[3] = {a.x[i], a.y[i], a.z[i]}, xj[3] = {a.x[j], a.y[j], a.z[j]};
      for (int k = 0; k < 3; ++k) {
        const double dd = xi[k] - xj[k], L = s.box.prd(k);
        sh[k] = dd > 0.5 * L ? 1 : (dd < -0.5 * L ? -1 : 0);
        d[k] = md::periodic_delta(xi[k], xj[k], sh[k], L);
        r2 += d[k] * d[k];
      }
      if (r2 >= cut * cut) continue;
      dx.push_back(d[0]), dy.push_back(d[1]), dz.push_back(d[2]), tj.push_back(a.type[j]), idx.push_back(j);
    }
  };
  std::vector<double> dx, dy, dz, fpj;
  std::vector<int> tj, idx;
  for (int i = 0; i < n; ++i) {
    neighbours(i, dx, dy, dz, tj, idx);
    rho[i] = md::atom_density(t, a.type[i], static_cast<int>(dx.size()), dx.data(), dy.data(), dz.data(),
                              tj.data());
    energy[i] = md::atom_embed(t, a.type[i], rho[i], fp[i]);
  }
  for (int i = 0; i < n; ++i) {
    neighbours(i, dx, dy, dz, tj, idx);
    fpj.clear();
    for (int j : idx) fpj.push_back(fp[j]);
    double f[3] = {0, 0, 0}, vir[6] = {0, 0, 0, 0, 0, 0};
    energy[i] += md::atom_force(t, a.type[i], fp[i], static_cast<int>(dx.size()), dx.data(), dy.data(),
                                dz.data(), tj.data(), fpj.data(), f, vir);
    ASSERT_EQ(std::memcmp(&f[0], &a.fx[i], 8), 0) << "atom " << a.id[i];
    ASSERT_EQ(std::memcmp(&f[1], &a.fy[i], 8), 0) << "atom " << a.id[i];
    ASSERT_EQ(std::memcmp(&f[2], &a.fz[i], 8), 0) << "atom " << a.id[i];
    ASSERT_EQ(std::memcmp(&energy[i], &mesh.result().eatom[i], 8), 0) << "atom " << a.id[i];
  }
}

// A 1 keV primary knock-on atom outruns its window: the backend remaps, and at every checked step its fp32
// forces equal the cluster backend's (fp64) on the same configuration, so no interaction was lost.
TEST(MeshBackend, KnockOnAtomRemapsWithoutLosingInteractions) {
  const std::string dir = test::scratch_dir("mesh_pka");
  // 1 keV Cu: v = sqrt(2E/m) = 551 Å/ps, along a low-index direction so it travels far.
  const std::string script =
      "units metal\natom_style atomic\nlattice fcc 3.615\nregion box block 0 10 0 10 0 6\n"
      "create_box 1 box\ncreate_atoms 1 box\npair_style eam\npair_coeff 1 1 " +
      kPot +
      "\nvelocity all create 300.0 4928 loop geom\ngroup pka id 1\nvelocity pka set 540.0 100.0 30.0\n"
      "neighbor 1.0 bin\nneigh_modify every 1 delay 0 check yes\nfix 1 all nve\ntimestep 0.0002\nthermo "
      "100\n";
  io::RunSettings settings = mesh_settings("fp32");
  test::ScriptRun run(script, dir, settings);
  const potentials::EamTables t = cu_tables();
  const md::NeighborSettings nb = skin_1();
  int checks = 0;
  for (int chunk = 0; chunk < 6; ++chunk) {
    io::Command c;
    c.name = "run";
    c.args = {"25"};
    c.pos = SourcePos{"<test>", 0};
    run.sim->execute(c);
    md::State copy = run.sim->state;
    md::ClusterBackend cluster;
    cluster.setup(copy, t, nb, false);
    const md::State& m = run.sim->state;
    // The cluster backend orders its atoms its own way (split_for_overlap): match atoms by id.
    std::map<int64_t, size_t> at;
    for (size_t j = 0; j < copy.atoms.size(); ++j) at[copy.atoms.id[j]] = j;
    double worst = 0, fmax = 0;
    for (size_t i = 0; i < m.atoms.size(); ++i) {
      const size_t j = at.at(m.atoms.id[i]);
      const double df = std::hypot(m.atoms.fx[i] - copy.atoms.fx[j], m.atoms.fy[i] - copy.atoms.fy[j],
                                   m.atoms.fz[i] - copy.atoms.fz[j]);
      const double f = std::hypot(copy.atoms.fx[j], copy.atoms.fy[j], copy.atoms.fz[j]);
      worst = std::max(worst, df / (1e-2 + 1e-3 * f));
      fmax = std::max(fmax, f);
    }
    EXPECT_LT(worst, 1.0) << "step " << m.step << ": fp32 mesh forces differ from the cluster's (max |f| "
                          << fmax << ")";
    ++checks;
  }
  const auto* mesh = dynamic_cast<const md::mesh::MeshBackend*>(&*run.sim->backend);
  ASSERT_NE(mesh, nullptr);
  EXPECT_GT(mesh->counters().remaps, 0) << "the knock-on atom should outrun its window";
  EXPECT_GT(mesh->counters().swaps, 0);
  EXPECT_EQ(checks, 6);
}

// The local rebuild criterion keeps every interaction by itself: with the host-side window guard only
// reporting, a 1 keV Cu cascade (inputs/cascade_cu_1kev.yaml shortened: 12^3 cells, 6,912 atoms, 0.04 ps of
// equilibration and 0.15 ps of cascade) has every pair within the cutoff in the lists of both its PEs at
// every step, audited by brute force after each step's upkeep.
TEST(MeshBackend, LocalTriggerMissesNoPairInACascade) {
  const std::string dir = test::scratch_dir("mesh_local_cascade");
  const std::vector<std::pair<std::string, std::string>> sets = {{"backend", "mesh"},
                                                                 {"system.cells", "[12, 12, 12]"},
                                                                 {"equilibrate.time_ps", "0.04"},
                                                                 {"cascade.time_ps", "0.15"},
                                                                 {"cascade.defects_every", "1000"}};
  io::YamlInput y =
      io::read_yaml_input(std::string(WAFERMD_SOURCE_DIR) + "/inputs/cascade_cu_1kev.yaml", sets);
  // The trajectory docs/fabric.md describes: the border's hashed Langevin noise. (With LAMMPS's stream, the
  // default since fix langevin follows lmp, this cascade has 24 guard misses, which a run outside the
  // report-only mode answers with remaps.)
  for (auto& c : y.commands)
    if (c.name == "fix" && c.args.size() > 2 && c.args[2] == "langevin")
      c.args.insert(c.args.end(), {"noise", "hashed"});
  // The trajectory under the coordinate bisection, whose thermal reordering leaves the window slack; under
  // the lattice mapping (the default) the same trajectory's window holds every reference pair only with the
  // guard's remaps (docs/fabric.md, "Lattice mapping"), which report-only mode does not make.
  y.settings.mesh_mapping = "bisection";
  y.settings.output_dir = dir + "/out";
  std::filesystem::create_directories(
      y.settings.output_dir);  // as the program makes it (defects.csv goes there)
  io::Log log;
  md::Simulation sim(log, y.settings, false, nullptr);
  auto* mesh = dynamic_cast<md::mesh::MeshBackend*>(&*sim.backend);
  ASSERT_NE(mesh, nullptr);
  mesh->set_checks(/*guard_report_only=*/true, /*audit_lists=*/true);
  mesh->force_trigger(true);  // on its own this small grid would take the cheaper vote
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir);
  for (const auto& c : y.commands) sim.execute(c);
  std::filesystem::current_path(cwd);
  const md::mesh::MeshCounters& c = mesh->counters();
  EXPECT_TRUE(mesh->local_trigger());
  EXPECT_GT(c.audit_steps, 100);
  EXPECT_EQ(c.audit_missing, 0) << "pairs within the cutoff missing from a PE's list";
  EXPECT_EQ(c.guard_misses, 0) << "the window no longer covered every reference pair";
  EXPECT_EQ(c.checks, 0) << "no global vote";
  EXPECT_GT(c.rescan_steps, 0);
  EXPECT_GT(c.swaps, 0) << "the knock-on atom's PE swaps with its neighbours";
  // Rescans stay local: far fewer PE rescans than every PE at every rescan step.
  EXPECT_LT(c.pe_rescans, c.rescan_steps * static_cast<int64_t>(mesh->pe_atom_ids().size()) / 2);
  std::printf("cascade: %lld audited steps, %lld rescan steps, %lld PE rescans, %lld swaps, b = %d\n",
              static_cast<long long>(c.audit_steps), static_cast<long long>(c.rescan_steps),
              static_cast<long long>(c.pe_rescans), static_cast<long long>(c.swaps), mesh->window_b());
}

// The audit can fail: a list with a pair removed is caught.
TEST(MeshBackend, ListAuditCatchesAMissingPair) {
  md::State s = cu_crystal(8, 0.05, 3);
  const potentials::EamTables t = cu_tables();
  md::NeighborSettings nb = skin_1();
  md::mesh::MeshBackend mesh(md::mesh::MeshOptions{});
  mesh.set_checks(false, true);
  mesh.setup(s, t, nb, false);
  mesh.compute(s, false, false);
  EXPECT_EQ(mesh.counters().audit_missing, 0);
  // Atom 0 jumps next to the atom farthest from it while the list upkeep waits (delay), so its new pairs are
  // in nobody's list: the audit must see them.
  nb.every = 1000;
  nb.delay = 1000;
  mesh.setup(s, t, nb, false);
  md::Atoms& a = s.atoms;
  size_t k = 1;
  double best = 0;
  for (size_t j = 1; j < a.size(); ++j) {
    double r2 = 0;
    const double d[3] = {a.x[j] - a.x[0], a.y[j] - a.y[0], a.z[j] - a.z[0]};
    for (int q = 0; q < 3; ++q) {
      const double L = s.box.prd(q), e = d[q] - L * std::round(d[q] / L);
      r2 += e * e;
    }
    if (r2 > best) best = r2, k = j;
  }
  a.x[0] = a.x[k] + 2.4, a.y[0] = a.y[k], a.z[0] = a.z[k];
  if (a.x[0] >= s.box.hi[0]) a.x[0] -= s.box.prd(0);
  mesh.compute(s, false, false);
  EXPECT_GT(mesh.counters().audit_missing, 0);
}

// The checkpoint keeps the mesh state field by field (layout 2: every counter of the cycle account under its
// own name, not a position in an array), and a layout-1 checkpoint (no version; the counters as an 11-value
// array plus `style_reductions`, `zbl_pairs` and `local_trigger`) restores the same state.
TEST(MeshBackend, CheckpointHasNamedFieldsAndReadsLayout1) {
  md::State s = cu_crystal(8, 0.05, 3);
  const potentials::EamTables t = cu_tables();
  md::NeighborSettings nb = skin_1();
  nb.delay = 0;
  md::mesh::MeshBackend mesh(md::mesh::MeshOptions{});
  mesh.force_trigger(true);  // the local criterion: its rescans and flags are part of the state
  mesh.setup(s, t, nb, false);
  for (int k = 0; k < 3; ++k) {  // atoms that moved beyond skin/2 rescan their PEs' windows
    s.atoms.x[17 * k] += 0.6;
    mesh.compute(s, false, false);
  }
  mesh.charge(md::MeshWork{2, 4});
  const md::mesh::MeshCounters& c = mesh.counters();
  ASSERT_GT(c.rescan_steps, 0);
  const md::NamedArrays saved = mesh.save_state();
  EXPECT_EQ(saved.count("counters"), 0u) << "no positional counters";
  EXPECT_EQ(saved.at("mesh_state_version"), std::vector<double>{2});
  const std::map<std::string, double> named = {{"account.steps", double(c.steps)},
                                               {"account.forces", double(c.forces)},
                                               {"account.rebuilds", double(c.rebuilds)},
                                               {"account.rebuild_checks", double(c.checks)},
                                               {"account.sum_busiest_candidates", c.sum_candidates_max},
                                               {"account.max_b", double(c.max_b)},
                                               {"account.style_reductions", 2.0},
                                               {"account.style_reduction_cycles", c.style_reduction_cycles},
                                               {"account.rescan_steps", double(c.rescan_steps)},
                                               {"account.pe_rescans", double(c.pe_rescans)},
                                               {"local_trigger_chosen", 1.0}};
  for (const auto& [name, value] : named) {
    ASSERT_EQ(saved.count(name), 1u) << name;
    EXPECT_EQ(saved.at(name), std::vector<double>{value}) << name;
  }
  // The same state as layout 1 wrote it.
  md::NamedArrays old;
  for (const auto& [name, v] : saved)
    if (name.rfind("account.", 0) != 0 && name != "mesh_state_version" && name != "local_trigger_chosen" &&
        name != "timeline")  // layout 1 had no cycle timeline
      old[name] = v;
  auto at = [&](const char* name) { return saved.at(std::string("account.") + name).at(0); };
  old["counters"] = {at("steps"),
                     at("forces"),
                     at("rebuilds"),
                     at("step_rebuilds"),
                     at("swaps"),
                     at("remaps"),
                     at("rebuild_checks"),
                     at("remap_cycles"),
                     at("sum_busiest_candidates"),
                     at("sum_busiest_in_cut"),
                     at("max_b")};
  old["style_reductions"] = {at("style_reductions"), at("style_reduction_cycles")};
  old["zbl_pairs"] = {at("sum_busiest_zbl")};
  old["local_trigger"] = {at("rescan_steps"), at("pe_rescans"), at("guard_misses"), 1.0};
  for (const md::NamedArrays* state : {&saved, static_cast<const md::NamedArrays*>(&old)}) {
    md::mesh::MeshBackend back(md::mesh::MeshOptions{});
    back.restore_state(*state);
    md::NamedArrays expect = saved, got = back.save_state();
    if (state == &old) expect.erase("timeline"), got.erase("timeline");  // layout 1's timeline starts over
    EXPECT_EQ(got, expect) << (state == &old ? "layout 1" : "layout 2");
  }
  md::NamedArrays lacking = saved;
  lacking.erase("account.swaps");
  md::mesh::MeshBackend back(md::mesh::MeshOptions{});
  try {
    back.restore_state(lacking);
    ADD_FAILURE() << "a checkpoint without account.swaps was taken";
  } catch (const RunError& e) {
    EXPECT_NE(std::string(e.what()).find("'account.swaps'"), std::string::npos) << e.what();
  }
}

using Result = test::ProgramResult;
using test::run_wafermd_in;

// A thin periodic Cu slab (28,800 atoms, 4 cells thick) takes the local trigger on its own; with a fast
// knock-on atom its PEs rescan locally, and a run checkpointed half-way and restarted ends byte-identical to
// the uninterrupted one (the references and last check's flags come back with the checkpoint).
TEST(MeshProgram, LocalTriggerRestartsBitIdentically) {
  const std::string dir = test::scratch_dir("mesh_local_restart");
  auto script = [](int steps) {
    return "units metal\natom_style atomic\nlattice fcc 3.615\nregion box block 0 60 0 30 0 4\n"
           "create_box 1 box\ncreate_atoms 1 box\npair_style eam\npair_coeff 1 1 " +
           kPot +
           "\nvelocity all create 300.0 4928 loop geom\ngroup pka id 1\nvelocity pka set 540.0 100.0 30.0\n"
           "neighbor 1.0 bin\nneigh_modify every 1 delay 0 check yes\nfix 1 all nve\ntimestep 0.0002\n"
           "thermo 20\nrun " +
           std::to_string(steps) + "\nwrite_data final.data\n";
  };
  std::ofstream(dir + "/in.full") << script(40);
  std::ofstream(dir + "/in.half") << script(20);
  const Result full = run_wafermd_in(dir, "run in.full --backend mesh --output full");
  ASSERT_EQ(full.status, 0) << full.err;
  const std::string a = [&] {
    std::ifstream in(dir + "/final.data");
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();
  std::ifstream rep(dir + "/full/report.json");
  const auto f = nlohmann::json::parse(rep).at("fabric");
  EXPECT_EQ(f.at("rebuild_trigger"), "local");
  EXPECT_GT(f.at("rescan_steps").get<int64_t>(), 0);
  EXPECT_EQ(f.at("rebuild_checks").get<int64_t>(), 0) << "no vote";
  const Result half =
      run_wafermd_in(dir, "run in.half --backend mesh --output half --set output.checkpoint_every=20");
  ASSERT_EQ(half.status, 0) << half.err;
  const Result again =
      run_wafermd_in(dir, "run in.half --backend mesh --output again --restart half/checkpoint.h5");
  ASSERT_EQ(again.status, 0) << again.err;
  std::ifstream in(dir + "/final.data");
  const std::string b(std::istreambuf_iterator<char>(in), {});
  EXPECT_FALSE(a.empty());
  EXPECT_TRUE(a == b) << "the restarted run's data file differs from the uninterrupted run's";
}

TEST(MeshProgram, ModelJsonHasTheContractKeys) {
  const std::string dir = test::scratch_dir("mesh_model");
  std::ofstream(dir + "/in.test") << eam4k(10);
  const Result r = run_wafermd_in(dir, "model in.test --wafer wse3 --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_GT(j.at("predicted_steps_per_second").get<double>(), 0.0);
  EXPECT_GE(j.at("window_b").get<int>(), 1);
  EXPECT_EQ(j.at("grid").size(), 2u);
  for (const char* k : {"multicast_positions", "multicast_fp", "compute", "swap", "total", "additive"})
    EXPECT_GT(j.at("cycles_per_step").at(k).get<double>(), 0.0) << k;
  // The vote is a reduction; the local trigger has none.
  EXPECT_EQ(j.at("cycles_per_step").at("reductions").get<double>() > 0.0, j.at("rebuild_trigger") == "vote");
  EXPECT_EQ(j.at("wafer"), "wse3");
  // The range from every [E] parameter's ends (and the clock's spread) brackets the prediction.
  const double low = j.at("predicted_steps_per_second_low").get<double>(),
               high = j.at("predicted_steps_per_second_high").get<double>(),
               mid = j.at("predicted_steps_per_second").get<double>();
  EXPECT_LT(low, mid);
  EXPECT_GT(high, mid);
  EXPECT_GE(j.at("parameter_ranges").size(), 12u);
  // The cheaper rebuild trigger on this wafer program: both priced, the lower taken.
  const auto& tc = j.at("trigger_cycles_per_step");
  EXPECT_EQ(j.at("rebuild_trigger"),
            tc.at("local").get<double>() <= tc.at("vote").get<double>() ? "local" : "vote");
  // total is the critical path: its stretches sum to it, and overlap makes it no more than the additive
  // account.
  const auto& c = j.at("cycles_per_step");
  double path = 0;
  for (const auto& seg : c.at("critical_path")) path += seg.at("cycles").get<double>();
  EXPECT_NEAR(path, c.at("total").get<double>(), 1e-6 * path);
  EXPECT_LE(c.at("total").get<double>(), c.at("additive").get<double>());
  // The Newton variant priced beside the prediction, which stays the full-window step the emulator runs.
  const auto& nc = j.at("newton_half_window_cycles_per_step");
  EXPECT_GT(nc.at("reverse_sums").get<double>(), 0.0);
  EXPECT_EQ(c.at("reverse_sums").get<double>(), 0.0);
  const double newton = j.at("newton_half_window_steps_per_second").get<double>();
  EXPECT_GT(newton, 0.0);
  EXPECT_NEAR(newton * nc.at("total").get<double>(), j.at("clock_hz").get<double>(),
              1e-6 * j.at("clock_hz").get<double>());
  // The prediction is the fastest program the emulator runs that fits the PE's memory.
  double best = 0;
  for (const auto& p : j.at("programs"))
    if (p.at("fits").get<bool>() && p.at("emulated").get<bool>())
      best = std::max(best, p.at("steps_per_second").get<double>());
  EXPECT_DOUBLE_EQ(best, mid);
  EXPECT_TRUE(c.at("fits").get<bool>());
  EXPECT_LE(c.at("bytes_per_pe").at("total").get<long long>(), j.at("sram_bytes_per_pe").get<long long>());
  EXPECT_EQ(j.at("step_variant").get<std::string>().rfind("full_window", 0), 0u);
  EXPECT_EQ(j.at("faster_variant"), newton > mid ? "newton_half_window" : "full_window");
  const Result text = run_wafermd_in(dir, "model in.test");
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("Critical path (cycles per step): integration"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("Newton half-window step: "), std::string::npos) << text.out;
}

TEST(MeshProgram, TooManyAtomsNamesBothNumbers) {
  const std::string dir = test::scratch_dir("mesh_too_many");
  std::ofstream(dir + "/tiny.yaml")
      << "base: wse2\nname: tiny\npe_count: 400\ngrid: {width: 20, height: 20}\n";
  std::ofstream(dir + "/in.test") << eam4k(10);
  const Result r = run_wafermd_in(dir, "run in.test --backend mesh --set mesh.wafer=tiny.yaml --output out");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("4000 atoms"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("400 PEs"), std::string::npos) << r.err;
}

TEST(MeshProgram, RunReportsTheFabric) {
  const std::string dir = test::scratch_dir("mesh_report");
  std::ofstream(dir + "/in.test") << eam4k(10);
  const Result r = run_wafermd_in(dir, "run in.test --backend mesh --output out");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("window radius b = "), std::string::npos);
  EXPECT_NE(r.out.find("predicted wse2 wafer"), std::string::npos);
  std::ifstream in(dir + "/out/report.json");
  const auto j = nlohmann::json::parse(in);
  const auto& f = j.at("fabric");
  for (const char* k :
       {"wafer", "grid", "window_b", "cycles_per_step", "predicted_steps_per_second", "swaps", "remaps"})
    EXPECT_TRUE(f.contains(k)) << k;
  EXPECT_EQ(j.at("backend"), "mesh");
}

}  // namespace

namespace {

// A fix's global sums cross the fabric as reductions: the mesh backend charges them in its cycle account.
TEST(MeshBackend, FixReductionsAreChargedInTheCycleAccount) {
  const std::string dir = test::scratch_dir("mesh_style_charge");
  auto account = [&](const std::string& extra, const std::string& sub) {
    std::string script = eam4k(20);
    script.replace(script.find("fix 1 all nve"), 13, "fix 1 all nve\n" + extra);
    test::ScriptRun run(script, dir + "/" + sub, mesh_settings("fp32"));
    return dynamic_cast<const md::mesh::MeshBackend&>(*run.sim->backend).fabric_json();
  };
  const auto plain = account("", "plain");
  const auto berendsen = account("fix 2 all temp/berendsen 1600 1600 0.1", "berendsen");
  // temp/berendsen sums the group's m·v² (and count) once per step; thermo at steps 0 and 20 sums too.
  EXPECT_GE(berendsen["style_reductions"].get<int64_t>(), plain["style_reductions"].get<int64_t>() + 20);
  EXPECT_GT(berendsen["cycles_per_step"]["reductions"].get<double>(),
            plain["cycles_per_step"]["reductions"].get<double>());
  EXPECT_GT(plain["style_reductions"].get<int64_t>(), 0);  // the thermo line's temperature and pressure sums
}

}  // namespace

namespace {

// A compute that gathers every atom's values crosses the fabric as several reductions when its share is
// beyond one schedule's payload (4,096 words): priced, not refused (a 38,400-atom cascade's Wigner–Seitz
// count once stopped the run there).
TEST(MeshBackend, ALargeGatherIsChargedInPiecesOfOnePayload) {
  md::State s = cu_crystal(6, 0.02, 5);
  const potentials::EamTables t = cu_tables();
  md::NeighborSettings nb = skin_1();
  md::mesh::MeshBackend mesh(md::mesh::MeshOptions{});
  mesh.setup(s, t, nb, false);
  const int64_t before = mesh.counters().style_reductions;
  const double cycles_before = mesh.counters().style_reduction_cycles;
  mesh.charge(md::MeshWork{1, 4096});
  const double one_payload = mesh.counters().style_reduction_cycles - cycles_before;
  mesh.charge(md::MeshWork{2, 3 * 10000});  // 15,000 words each: 4 pieces of 3,750
  EXPECT_EQ(mesh.counters().style_reductions - before, 1 + 2 * 4);
  EXPECT_GT(mesh.counters().style_reduction_cycles - cycles_before, 4 * one_payload);
}

}  // namespace
