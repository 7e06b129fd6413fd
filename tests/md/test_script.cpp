// LAMMPS script commands end to end against Debian lmp (references from validation/script/regenerate.sh):
// LAMMPS's parsing rules and formula functions (in.parse, in.functions) and the scripts lmp refuses (bad/),
// print's substitutions, label/jump/next loops and if/elif/else ladders print lmp's lines; dump atom and
// dump xyz files equal lmp's byte for byte; read_data of a .gz file and dump custom/gz give lmp's atoms;
// write_restart + read_restart continue bit-identically with the same two runs in one script (cluster at 1
// and 2 ranks, mesh); and every bad use of the new commands exits 2 with one line and writes nothing.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <vector>

#include "program_harness.hpp"
#include "script_harness.hpp"
#include "sim_harness.hpp"

namespace {

namespace fs = std::filesystem;
using wmd::test::run_shell;
using wmd::test::run_wafermd_in;
using wmd::test::slurp;

const std::string& kData = wmd::test::kScriptData;
using wmd::test::expect_same_words;
using wmd::test::lines_starting;
using wmd::test::run_ranks;

// A scratch folder holding copies of the named files of tests/data/script.
std::string setup_dir(const std::string& name, const std::vector<std::string>& files) {
  return wmd::test::script_dir("script", name, files);
}

std::string gunzip(const std::string& path) {
  gzFile g = gzopen(path.c_str(), "rb");
  if (!g) return "<cannot open " + path + ">";
  std::string text;
  char buf[4096];
  for (int n; (n = gzread(g, buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
  gzclose(g);
  return text;
}

// Runs tests/data/script/in.NAME and compares the lines its prints start with ">>" with lmp's NAME.ref, words
// equal or numbers within `tol`; returns the scratch directory (for files the case compares too).
std::string expect_prints_as_lammps(const std::string& name, double tol) {
  const std::string dir = setup_dir(name, {"in." + name});
  const auto r = run_wafermd_in(dir, "run in." + name + " --output out");
  EXPECT_EQ(r.status, 0) << r.err;
  expect_same_words(lines_starting(r.out, ">>"), slurp(kData + name + ".ref"), tol);
  return dir;
}

TEST(ScriptParity, PrintSubstitutesAsLammps) {
  const std::string dir = setup_dir("print", {"in.print"});
  const auto r = run_wafermd_in(dir, "run in.print --output out");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(lines_starting(r.out, ">>"), slurp(kData + "print.ref"));
}

TEST(ScriptParity, LoopsAndIfLaddersAsLammps) {
  const std::string dir = setup_dir("loop", {"in.loop"});
  const auto r = run_wafermd_in(dir, "run in.loop --output out");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(lines_starting(r.out, ">>"), slurp(kData + "loop.ref"));
  // The loop body's run ran three times: 3 × 5 steps.
  EXPECT_NE(slurp(dir + "/out/report.json").find("\"steps\": 15"), std::string::npos);
}

TEST(ScriptParity, ClearStartsOverAsLammps) {
  // Each part after `clear` starts at step 0 with the default timestep and no computes, fixes or
  // potential; the variables survive.
  expect_prints_as_lammps("clear", 1e-10);
}

TEST(ScriptParity, DefaultLatticeScalesAsLammps) {
  // No lattice command: `units lattice` scales by LAMMPS's default lattice (none 1.0); `lattice none 2.0`
  // by 2 (velocity set and ramp, displace_atoms, fix dt/reset).
  expect_prints_as_lammps("lattice_default", 1e-12);
}

TEST(ScriptParity, RestartAfterClearAsLammps) {
  // write_restart, clear, read_restart in one script: the dry run reads what it wrote; `time` is step·dt
  // until the next run and counts from 0 at its first step, as lmp's.
  expect_prints_as_lammps("restart_clear", 1e-10);
}

TEST(ScriptParity, RunPreNoSkipsTheSetUpAsLammps) {
  // run … pre no after a first run: fix dt/reset keeps its timestep across a PKA kick until the first step's
  // end, fix langevin draws no set-up noise; the last plain run sets up in full again.
  expect_prints_as_lammps("run_pre_no", 1e-9);
}

TEST(ScriptParity, TimerTimeoutAsLammps) {
  // timer timeout 0: later runs do nothing until timer timeout off; a generous limit changes nothing.
  expect_prints_as_lammps("timer", 1e-9);
}

TEST(ScriptFiles, FixAveTimeOverwriteKeepsOnlyTheLastAverage) {
  // overwrite (later LAMMPS; Debian's lmp 2021 refuses the keyword): the file holds the header and the last
  // average only, even when that line is shorter than an earlier one.
  const std::string dir = wmd::test::scratch_dir("ave_time_overwrite");
  std::ofstream(dir + "/in.ow")
      << "units metal\nlattice fcc 3.615\nregion b block 0 3 0 3 0 3\ncreate_box 1 b\n"
         "create_atoms 1 box\npair_style eam\n"
         "pair_coeff 1 1 Cu_u3.eam\nfix 1 all nve\n"
         "variable shrink equal 10^(5-step/10)\n"
         "fix o all ave/time 10 1 10 v_shrink file shrink.out overwrite\nrun 40\n";
  const auto r = run_wafermd_in(dir, "run in.ow --output out");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(slurp(dir + "/shrink.out"), "# Time-averaged data for fix o\n# TimeStep v_shrink\n40 10\n");
}

TEST(ScriptParity, WriteDataMinimizeTimeAndRestartStarAsLammps) {
  // write_data fits a shrink-wrapped box (and the run goes on in it); Time grows by dt per minimisation
  // iteration until the next run; read_restart state.* reads the largest step's file.
  expect_prints_as_lammps("box_time", 1e-9);
}

TEST(ScriptDumps, ElementColumnEqualsLammpsByteForByte) {
  const std::string dir = setup_dir("element", {"in.element"});
  const auto r = run_wafermd_in(dir, "run in.element --output out");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(slurp(dir + "/element.dump"), slurp(kData + "element.dump"));
  EXPECT_EQ(slurp(dir + "/element_default.dump"), slurp(kData + "element_default.dump"));
}

TEST(ScriptParity, FixesAfterReadRestartAsLammps) {
  // fix nvt takes back its chain (LAMMPS's restart_global); fix ave/time starts afresh (it has none).
  const std::string dir = expect_prints_as_lammps("restart_fixes", 1e-9);
  expect_same_words(slurp(dir + "/second.txt"), slurp(kData + "restart_fixes_second.txt"), 1e-9);
}

TEST(ScriptParity, DryRunComesBackFromADirectoryItDidNotMake) {
  const std::string dir = setup_dir("dry_cd", {"in.dry_cd", "dry_cd.inc"});
  const auto r = run_wafermd_in(dir, "run in.dry_cd --output out");
  ASSERT_EQ(r.status, 0) << r.err;
  expect_same_words(lines_starting(r.out, ">>"), slurp(kData + "dry_cd.ref"), 1e-9);
  EXPECT_TRUE(fs::is_directory(dir + "/made"));
}

TEST(ScriptParity, ReadRestartShrinkWrapsFromTheBoxItReads) {
  expect_prints_as_lammps("restart_shrink", 1e-9);
}

TEST(ScriptParity, AtomValuesInFormulasAsLammps) {
  expect_prints_as_lammps("atom_values", 1e-9);
}

// The lines of `text` from the first one starting with ">>" to ">> end", as they are.
std::string from_first_mark_to_end(const std::string& text) {
  const size_t b = text.rfind(">>", text.find("\n>>") + 1);
  const size_t e = text.find(">> end\n", b);
  if (b == std::string::npos || e == std::string::npos) return "<no >> ... >> end block>\n" + text;
  return text.substr(b, e + 7 - b);
}

// One rank and, where MPI is available, three.
std::vector<std::string> launchers() {
  std::vector<std::string> out{""};
#ifdef WAFERMD_MPIEXEC
  out.push_back(std::string("'") + WAFERMD_MPIEXEC + "' --oversubscribe --allow-run-as-root -np 3 ");
#endif
  return out;
}

TEST(ScriptParity, ParsingRulesAsLammps) {
  // Quotes (single, double, triple), what they keep from substitution, string variables substituted when
  // defined and inserted text not scanned again, '&' and triple-quote continuation, comments, $(…:format),
  // if commands with nested quotes, file variables, and UTF-8 look-alikes replaced with lmp's warning: the
  // printed text equals lmp's byte for byte.
  const std::string dir = setup_dir("parse", {"in.parse", "values.txt"});
  for (const std::string& mpi : launchers()) {
    const auto r = run_shell(dir, mpi + "'" + WAFERMD_EXE + "' run in.parse --output out");
    ASSERT_EQ(r.status, 0) << mpi << r.err;
    EXPECT_EQ(from_first_mark_to_end(r.out), slurp(kData + "parse.ref")) << mpi;
  }
}

TEST(ScriptParity, StringVariableSubstitutedWhenDefinedNamesTheDirectory) {
  // Issue 41: lmp makes out/Nx-6-T-300 (a string variable's value is substituted when it is defined);
  // wafermd made out/Nx-${Nx}-T-$T.
  const std::string dir = wmd::test::scratch_dir("script_string_path");
  std::ofstream(dir + "/in.path")
      << "variable Nx equal 6\nvariable T index 300\n"
         "variable s string \"Nx-${Nx}-T-$T\"\nshell mkdir out\nshell mkdir out/${s}\n"
         "print \">> made\" file out/${s}/made.txt\n";
  const auto r = run_wafermd_in(dir, "run in.path --output run");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(slurp(dir + "/out/Nx-6-T-300/made.txt"), ">> made\n");
}

TEST(ScriptParity, FormulaFunctionsAsLammps) {
  // is_defined/is_active/is_available/is_file, sum/min/max/ave/trap/slope of compute and fix vectors,
  // thermo keywords between runs (stale after velocity, as lmp's), an atomfile variable with next,
  // gmask/rmask/grmask, v_name[i], random/normal, and the step functions (stagger, logfreq*, stride*, ramp,
  // swiggle, cwiggle, vdisplace) inside a run and after reset_timestep.
  const std::string dir = setup_dir("functions", {"in.functions", "values.atoms"});
  for (const std::string& mpi : launchers()) {
    const auto r = run_shell(dir, mpi + "'" + WAFERMD_EXE + "' run in.functions --output out");
    ASSERT_EQ(r.status, 0) << mpi << r.err;
    expect_same_words(lines_starting(r.out, ">>"), slurp(kData + "functions.ref"), 1e-12);
  }
}

struct LammpsError {
  const char* name;  // tests/data/script/bad/NAME.in
  int line;
  const char* needle;
  bool dry = true;  // found by the dry run (nothing written)
  bool mid_run =
      false;  // found only by the steps: a failed run (exit 3, "run failed: "), as any such failure
};

void PrintTo(const LammpsError& c, std::ostream* os) {
  *os << c.name;
}

class ScriptRefusesAsLammps : public ::testing::TestWithParam<LammpsError> {};

TEST_P(ScriptRefusesAsLammps, ExitsTwoAtTheLine) {
  // Each script stops lmp with an ERROR (bad/lmp_errors.ref, from validation/script/regenerate.sh); wafermd
  // stops at the same command with exit 2 and one line naming it (exit 3, a failed run, when only the steps
  // find it).
  const LammpsError& c = GetParam();
  const std::string lmp = slurp(kData + "bad/lmp_errors.ref");
  const std::string mark = std::string(c.name) + ": ERROR";
  EXPECT_NE(lmp.find(mark), std::string::npos) << "lmp does not stop on " << c.name;
  const std::string dir = wmd::test::scratch_dir(std::string("script_lmp_error_") + c.name);
  for (const char* f : {"box.lmp", "values.atoms", "bad_id.atoms"})
    fs::copy_file(kData + "bad/" + f, dir + "/" + f);
  fs::copy_file(kData + "bad/" + c.name + ".in", dir + "/in.bad");
  const auto r = run_wafermd_in(dir, "run in.bad --output out");
  EXPECT_EQ(r.status, c.mid_run ? 3 : 2) << r.err;
  const std::string want =
      std::string("error: ") + (c.mid_run ? "run failed: " : "") + "in.bad:" + std::to_string(c.line) + ": ";
  EXPECT_EQ(r.err.rfind(want, 0), 0u) << "stderr: " << r.err;
  EXPECT_NE(r.err.find(c.needle), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
  if (c.dry) EXPECT_FALSE(fs::exists(dir + "/out")) << "the dry run finds it: nothing is written";
}

INSTANTIATE_TEST_SUITE_P(
    Script, ScriptRefusesAsLammps,
    ::testing::Values(
        LammpsError{"unquoted_formula", 2, "Illegal variable command"},
        LammpsError{"string_two_words", 1, "Illegal variable command"},
        LammpsError{"quote_then_text", 1, "Input line quote not followed by white-space"},
        LammpsError{"unbalanced_quote", 1, "Unbalanced quotes"},
        LammpsError{"hash_in_curly_quotes", 1, "Unbalanced quotes"},
        LammpsError{"dollar_at_end", 1, "Substitution for illegal variable"},
        LammpsError{"brace_unclosed", 2, "Invalid variable name"},
        LammpsError{"immediate_unclosed", 1, "Invalid immediate variable"},
        LammpsError{"immediate_format_without_precision", 1, "Incorrect conversion in format string"},
        LammpsError{"format_without_precision", 2, "Incorrect conversion in format string"},
        LammpsError{"min_of_numbers", 1, "Invalid special function"},
        LammpsError{"unknown_function", 1, "Invalid math/group/special function"},
        LammpsError{"variable_name", 1, "alphanumeric characters or underscores"},
        LammpsError{"redefine_style", 2, "Cannot redefine variable as a different style"},
        LammpsError{"format_of_string", 3, "not an equal-style variable"},
        LammpsError{"loop_arguments", 1, "Illegal variable command"},
        LammpsError{"format_arguments", 2, "Illegal variable command"},
        LammpsError{"next_string", 2, "Invalid variable style with next command"},
        LammpsError{"thermo_before_run", 3, "requires thermo to use/init pe"},
        LammpsError{"thermo_after_reset", 4, "thermo keyword between runs is not current"},
        LammpsError{"thermo_not_in_style", 4, "requires thermo to use/init press"},
        LammpsError{"thermo_elapsed", 3, "cannot be used between runs"},
        // Output by simulated time: dump_modify every/time came after lmp 29 Sep 2021; the variable forms it
        // has.
        LammpsError{"dump_every_time", 3, "Illegal dump_modify command"},
        LammpsError{"thermo_every_missing_variable", 2, "Variable name for thermo every does not exist"},
        LammpsError{"thermo_every_bad_step", 3, "Thermo every variable returned a bad timestep", false, true},
        LammpsError{"dump_every_bad_step", 4, "Dump every variable returned a bad timestep", false},
        LammpsError{"dump_every_atom_variable", 4, "Variable for dump every is invalid style"},
        LammpsError{"restart_variable_missing", 2, "Variable name for restart does not exist"},
        LammpsError{"energy_before_run", 2, "Energy was not tallied on needed timestep"},
        LammpsError{"thermo_style_undefined_variable", 2, "Could not find thermo custom variable name"},
        LammpsError{"thermo_style_string_variable", 3, "not equal-style variable"},
        LammpsError{"compute_after_reset", 6, "Compute used in variable between runs is not current", false},
        LammpsError{"is_active_category", 1, "Unknown category for info is_active()"},
        LammpsError{"is_defined_category", 1, "Unknown category for info is_defined()"},
        LammpsError{"is_available_missing", 1, "Unknown category for info is_available()"},
        LammpsError{"gmask_equal", 2, "Gmask function in equal-style variable formula"},
        LammpsError{"ramp_between_runs", 1, "Cannot use ramp in variable formula between runs"},
        LammpsError{"sum_not_current", 3, "Compute used in variable between runs is not current", false},
        LammpsError{"sum_of_scalar", 5, "Mismatched compute in variable formula"},
        LammpsError{"atomfile_without_map", 2, "unless an atom map exists"},
        LammpsError{"atomfile_bad_id", 3, "Invalid atom ID in variable file"},
        LammpsError{"file_missing", 1, "no.such.file"},
        LammpsError{"atom_variable_in_equal", 4, "Atom-style variable in equal-style variable formula"},
        LammpsError{"substitute_atom_variable", 3, "Substitution for illegal variable"},
        LammpsError{"boolean_word_with_dash", 2, "Invalid Boolean syntax"},
        // Commands (issue 41): region prism, deform, force fixes, displace_atoms, velocity, fix print
        LammpsError{"prism_flat", 8, "ylo must be less than yhi"},
        LammpsError{"prism_tilt_infinite", 8, "INF at both ends"},
        LammpsError{"deform_volume_alone", 9, "Fix deform volume setting is invalid"},
        LammpsError{"deform_volume_all", 9, "Fix deform volume setting is invalid"},
        LammpsError{"deform_shrink_wrapped", 7, "Cannot use fix deform on a shrink-wrapped boundary"},
        LammpsError{"addforce_energy_constant", 10, "Cannot use variable energy with constant force", false},
        LammpsError{"addforce_missing_variable", 9, "variable nope does not exist", false},
        LammpsError{"aveforce_atom_variable", 10, "must be equal-style", false},
        LammpsError{"setforce_minimize", 8, "Cannot use non-zero forces in an energy minimization", false},
        LammpsError{"addforce_minimize", 9, "Must use variable energy with fix addforce", false},
        LammpsError{"displace_missing_variable", 8, "variable nope does not exist"},
        LammpsError{"velocity_string_variable", 10, "must be equal- or atom-style"},
        LammpsError{"print_bad_step", 10, "Fix print timestep variable returned a bad timestep", false},
        // Triclinic boxes (issue 45): bins only in fractional coordinates; an atom fix deposit would place
        // outside the tilted box is lost in LAMMPS (its processors test fractional coordinates).
        LammpsError{"tri_chunk_box_units", 6,
                    "Compute chunk/atom for triclinic boxes requires units reduced"},
        LammpsError{"tri_deposit_lost", 14, "lies outside the triclinic box", false, true}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(ScriptErrors, AtomValueOfAMissingAtom) {
  const std::string dir = wmd::test::scratch_dir("script_atom_value");
  std::ofstream(dir + "/in.bad") << "units metal\nlattice fcc 3.615\nregion b block 0 2 0 2 0 2\n"
                                    "create_box 1 b\ncreate_atoms 1 box\nmass 1 63.5\n"
                                    "print \"$(x[1000])\"\n";
  const auto r = run_wafermd_in(dir, "run in.bad --output out");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("no atom has ID 1000"), std::string::npos) << r.err;
}

// An atom-style formula refused for one atom only (the others' values are fine) is refused with the check's
// message, at 1 and 3 ranks (the atom lives on one rank); a formula refused for no atom runs.
TEST(ScriptErrors, AtomStyleFormulaRefusedForOneAtomOnly) {
  const std::string dir = wmd::test::scratch_dir("script_atom_formula_one_atom");
  const std::string box =
      "units metal\nlattice fcc 3.615\nregion b block 0 3 0 3 0 3\ncreate_box 1 b\ncreate_atoms 1 box\n"
      "mass 1 63.546\npair_style eam\npair_coeff 1 1 Cu_u3.eam\n";
  const auto script =
      [&](const std::string& name, const std::string& formula) {
        std::ofstream(dir + "/" + name)
            << box << "variable s atom " << formula
            << "\ncompute r all reduce sum v_s\nthermo_style custom step c_r\nrun 0\n";
      };
  script("in.sqrt", "sqrt(1-2*(id==57))");
  script("in.div", "x/(id-31)");
  script("in.log", "ln(abs(id-101))+1");
  script("in.fine", "sqrt(1-(id==57))+x/(id-31+(id==31))");
  const std::pair<const char*, const char*> refused[] = {
      {"in.sqrt",
       "cannot evaluate expression 'sqrt(1-2*(id==57))': sqrt of a negative value (LAMMPS: "
       "\"Sqrt of negative value in variable formula\")"},
      {"in.div", "cannot evaluate expression 'x/(id-31)': division by zero"},
      {"in.log", "cannot evaluate expression 'ln(abs(id-101))+1': ln of a zero or negative value"}};
  std::vector<int> rank_counts = {1};
#ifdef WAFERMD_MPIEXEC
  rank_counts.push_back(3);
#endif
  for (const int ranks : rank_counts) {
    for (const auto& [file, needle] : refused) {
      const auto r = wmd::test::run_ranks(dir, ranks, std::string("run ") + file + " --output out");
      EXPECT_EQ(r.status, 2) << file << " " << ranks << " ranks: " << r.err;
      // The position is the line of the compute that reads the variable.
      EXPECT_NE(r.err.find(std::string(file) + ":10: " + needle), std::string::npos)
          << file << " " << ranks << " ranks: " << r.err;
    }
    const auto r = wmd::test::run_ranks(dir, ranks, "run in.fine --output fine");
    EXPECT_EQ(r.status, 0) << ranks << " ranks: " << r.err;
  }
}

TEST(ScriptErrors, ClearTakesNoArguments) {
  const std::string dir = wmd::test::scratch_dir("script_clear_args");
  std::ofstream(dir + "/in.bad") << "units metal\nclear all\n";
  const auto r = run_wafermd_in(dir, "run in.bad --output out");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("in.bad:2:"), std::string::npos) << r.err;
}

TEST(ScriptSettings, PerformanceAndBondSettingsChangeNothing) {
  // newton, comm_modify, comm_style, timer, suffix, package, special_bonds, pair_modify shift/tail/mix and
  // info organise LAMMPS's work: the thermo rows equal the script's without them.
  const std::string base = "units metal\natom_style atomic\nlattice fcc 3.615\nregion b block 0 4 0 4 0 4\n";
  const std::string rest =
      "create_box 1 b\ncreate_atoms 1 box\npair_style eam\n"
      "pair_coeff 1 1 Cu_u3.eam\nvelocity all create 600 5\nfix 1 all nve\n"
      "thermo 5\nrun 20\n";
  const std::string settings =
      "newton on off\npackage omp 1\nsuffix omp\ncomm_modify mode single cutoff 12 vel yes\n"
      "comm_style tiled\ntimer full sync\nspecial_bonds lj 0 0 1\nrun_style verlet\n";
  const std::string after = "pair_modify shift yes tail yes mix arithmetic table 12\ninfo system\n";
  const std::string dir = wmd::test::scratch_dir("script_noop_settings");
  std::ofstream(dir + "/in.plain") << base << rest;
  std::string with = base + settings + rest;
  with.insert(with.find("velocity"), after);
  std::ofstream(dir + "/in.settings") << with;
  const auto a = run_wafermd_in(dir, "run in.plain --output plain");
  const auto b = run_wafermd_in(dir, "run in.settings --output settings");
  ASSERT_EQ(a.status, 0) << a.err;
  ASSERT_EQ(b.status, 0) << b.err;
  EXPECT_EQ(slurp(dir + "/plain/thermo.csv"), slurp(dir + "/settings/thermo.csv"));
  EXPECT_NE(b.out.find("Info-Info"), std::string::npos);
}

TEST(ScriptSettings, RunZeroPrintsNoPerformanceLine) {
  // LAMMPS's summary has a performance line only for a run that took steps.
  const std::string dir = wmd::test::scratch_dir("script_run0_summary");
  std::ofstream(dir + "/in.run0")
      << "units metal\nlattice fcc 3.615\nregion b block 0 3 0 3 0 3\ncreate_box 1 b\n"
         "create_atoms 1 box\npair_style eam\n"
         "pair_coeff 1 1 Cu_u3.eam\nrun 0\nrun 2\n";
  const auto r = run_wafermd_in(dir, "run in.run0 --output out");
  ASSERT_EQ(r.status, 0) << r.err;
  const size_t first = r.out.find("Loop time of"), second = r.out.find("Loop time of", first + 1);
  ASSERT_NE(second, std::string::npos);
  EXPECT_EQ(r.out.substr(first, second - first).find("Performance:"), std::string::npos);
  EXPECT_NE(r.out.find("Performance:", second), std::string::npos);
}

TEST(ScriptErrors, SettingsThatWouldChangeThePhysicsAreRefused) {
  for (const char* bad : {"pair_modify pair eam\n", "pair_modify compute no\n", "comm_modify group g\n",
                          "timer bogus\n", "comm_style nonsense\n", "run_style respa 2 2\n"}) {
    const std::string dir = wmd::test::scratch_dir("script_bad_setting");
    std::ofstream(dir + "/in.bad") << "units metal\nlattice fcc 3.615\nregion b block 0 2 0 2 0 2\n"
                                      "create_box 1 b\n"
                                   << bad;
    const auto r = run_wafermd_in(dir, "run in.bad --output out");
    EXPECT_EQ(r.status, 2) << bad;
    EXPECT_NE(r.err.find("in.bad:5:"), std::string::npos) << bad << r.err;
  }
}

// What a triclinic box cannot do here (lmp lacks fix ttm; defects is wafermd's): exit 2 naming the style.
// A script (`head` then a case's lines) that wafermd refuses with exit 2 and an error naming `needle`.
struct RefusalCase {
  const char* lines;
  const char* needle;
};

template <size_t N>
void expect_refusals(const char* scratch, const std::string& head, const RefusalCase (&cases)[N]) {
  for (const auto& c : cases) {
    const std::string dir = wmd::test::scratch_dir(scratch);
    std::ofstream(dir + "/in.bad") << head << c.lines;
    const auto r = run_wafermd_in(dir, "run in.bad --output out");
    EXPECT_EQ(r.status, 2) << c.lines << r.err;
    EXPECT_NE(r.err.find(c.needle), std::string::npos) << c.lines << r.err;
  }
}

TEST(ScriptErrors, TriclinicBoxRefusals) {
  const std::string head =
      "units metal\nlattice fcc 3.615\nregion box prism 0 4 0 4 0 4 1 0 0\ncreate_box 1 box\n"
      "create_atoms 1 box\nmass 1 63.546\npair_style eam\npair_coeff 1 1 Cu_u3.eam\n";
  const RefusalCase cases[] = {
      // LAMMPS 29 Sep 2021 refuses it at the run's init ("Cannot use fix ttm with triclinic box").
      {"fix 1 all nve\nfix 2 all ttm 4242 3.5e-6 1.0 0.1 3.0 10.0 30.0 2 2 2 set 300\nrun 0\n",
       "in.bad:10: fix ttm: the box is triclinic"},
      // The Wigner-Seitz reference lattice is cubic cells along x, y, z.
      {"defects every 10\n", "in.bad:9: defects: the Wigner-Seitz defect analysis needs an orthogonal box"},
  };
  expect_refusals("script_bad_triclinic", head, cases);
}

// Refusals raised below the commands (the backend's ghost budget at a run's set-up) name the command's line,
// not "<input>:0"; run N beyond LAMMPS's int step count is refused as lmp refuses it.
TEST(ScriptErrors, RefusalsNameTheCommandLine) {
  const std::string head =
      "units metal\nlattice fcc 3.615\nregion box block 0 2 0 2 0 2\ncreate_box 1 box\n"
      "create_atoms 1 box\nmass 1 63.546\npair_style eam\npair_coeff 1 1 Cu_u3.eam\nfix 1 all nve\n";
  const RefusalCase cases[] = {
      {"neighbor 1e6 bin\nrun 5\n", "in.bad:11: the ghost atoms and neighbour list"},
      {"run 2147483648\n", "in.bad:10: Invalid run command N value"},
      {"run 10\nrun 2147483658 upto\n", "in.bad:11: Invalid run command upto value"},
  };
  expect_refusals("script_bad_line", head, cases);
}

// The thermo blocks (header to the line before "Loop time") of a log.
std::string thermo_blocks(const std::string& log) {
  std::istringstream in(log);
  std::string out;
  bool inside = false;
  for (std::string l; std::getline(in, l);) {
    if (l.find("Step") != std::string::npos && l.find_first_not_of(' ') == l.find("Step")) inside = true;
    if (l.rfind("Loop time", 0) == 0) inside = false;
    if (inside) out += l + "\n";
  }
  return out;
}

// thermo_style multi's blocks of a log, lines exactly as printed, the CPU time (which differs) replaced by X.
std::string multi_blocks(const std::string& log) {
  static const std::regex line("^(---------------- Step|[A-Za-z_]+ += )");
  static const std::regex cpu("CPU = +[0-9.]+");
  std::istringstream in(log);
  std::string out;
  for (std::string l; std::getline(in, l);)
    if (std::regex_search(l, line)) out += std::regex_replace(l, cpu, "CPU = X") + "\n";
  return out;
}

TEST(ScriptParity, ThermoStyleMultiAsLammps) {
  // LAMMPS's block per output step, its field names, widths and trailing blanks; Volume while npt changes the
  // box.
  const std::string dir = setup_dir("thermo_multi", {"in.thermo_multi"});
  const auto r = run_wafermd_in(dir, "run in.thermo_multi --output out");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(multi_blocks(r.out), slurp(kData + "thermo_multi.ref"));
}

TEST(ScriptParity, ThermoKeywordsAsLammps) {
  const std::string dir = setup_dir("thermo", {"in.thermo"});
  const auto r = run_wafermd_in(dir, "run in.thermo --output out");
  ASSERT_EQ(r.status, 0) << r.err;
  // Step 0's forces are round-off (1e-15): numbers agree to 1e-9 of their size, headers exactly.
  expect_same_words(thermo_blocks(r.out), slurp(kData + "thermo.ref"), 1e-9);
}

TEST(ScriptParity, VelocityLoopLocalFollowsLammpsArrayOrder) {
  // One rank: LAMMPS's stream runs over its atom array, whose order delete_atoms changed.
  const std::string dir = setup_dir("velocity_local", {"in.velocity_local"});
  const auto r = run_wafermd_in(dir, "run in.velocity_local --output out");
  ASSERT_EQ(r.status, 0) << r.err;
  expect_same_words(thermo_blocks(r.out), slurp(kData + "velocity_local.ref"), 1e-10);
}

TEST(ScriptParity, ResetAtomIdsNumbersAsLammps) {
  // lmp's one-rank numbering, at 1 and (where MPI is available) 3 ranks.
  const std::string dir = setup_dir("reset_ids", {"in.reset_ids"});
  auto r = run_wafermd_in(dir, "run in.reset_ids --output one");
  ASSERT_EQ(r.status, 0) << r.err;
  expect_same_words(thermo_blocks(r.out), slurp(kData + "reset_ids.ref"), 1e-10);
#ifdef WAFERMD_MPIEXEC
  r = run_shell(dir, std::string("'") + WAFERMD_MPIEXEC + "' --oversubscribe --allow-run-as-root -np 3 '" +
                         WAFERMD_EXE + "' run in.reset_ids --output three");
  ASSERT_EQ(r.status, 0) << r.err;
  expect_same_words(thermo_blocks(r.out), slurp(kData + "reset_ids.ref"), 1e-10);
#endif
}

TEST(ScriptErrors, ResetAtomIdsRefusesWhatItCannotFollow) {
  for (const char* bad : {"reset_atom_ids sort yes\n", "compute d all displace/atom\nreset_atom_ids\n",
                          "reset_atoms image all\n", "reset_atom_ids bogus\n"}) {
    const std::string dir = wmd::test::scratch_dir("script_bad_reset");
    std::ofstream(dir + "/in.bad") << "units metal\nlattice fcc 3.615\nregion b block 0 2 0 2 0 2\n"
                                      "create_box 1 b\ncreate_atoms 1 box\n"
                                   << bad;
    const auto r = run_wafermd_in(dir, "run in.bad --output out");
    EXPECT_EQ(r.status, 2) << bad;
    EXPECT_NE(r.err.find("error: in.bad:"), std::string::npos) << bad << r.err;
  }
}

TEST(ScriptParity, RunEveryAsLammps) {
  const std::string dir = setup_dir("run_every", {"in.run_every"});
  const auto r = run_wafermd_in(dir, "run in.run_every --output out");
  ASSERT_EQ(r.status, 0) << r.err;
  // The printed lines and thermo rows, in order (not the MPI grid line).
  std::istringstream in(r.out);
  std::string got;
  for (std::string l; std::getline(in, l);) {
    const bool row = l.size() > 1 && l[0] == ' ' && l.find_first_not_of(' ') != std::string::npos &&
                     std::isdigit(static_cast<unsigned char>(l[l.find_first_not_of(' ')])) &&
                     l.find("MPI") == std::string::npos && l.find("neighbor") == std::string::npos;
    if (row || l.rfind(">>", 0) == 0) got += l + "\n";
  }
  expect_same_words(got, slurp(kData + "run_every.ref"), 1e-10);
}

TEST(ScriptDumps, CfgAndWriteDumpEqualLammpsByteForByte) {
  const std::string dir = setup_dir("cfg", {"in.cfg"});
  const auto r = run_wafermd_in(dir, "run in.cfg --output out");
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* f : {"wrapped.20.cfg", "unwrapped.20.cfg", "final.dump", "final.20.cfg"})
    EXPECT_EQ(slurp(dir + "/" + f), slurp(kData + f)) << f;
  // cfg's frames are one per file, as in LAMMPS.
  EXPECT_TRUE(fs::exists(dir + "/wrapped.0.cfg"));
}

TEST(ScriptDumps, TriclinicBoxHeadersAndColumnsEqualLammpsByteForByte) {
  // cfg's H0 rows are the edge vectors and xs/xsu fractional; atom's header is `BOX BOUNDS xy xz yz`.
  const std::string dir = setup_dir("dump_tri", {"in.dump_tri"});
  const auto r = run_wafermd_in(dir, "run in.dump_tri --output out");
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* f : {"tri_wrapped.cfg", "tri_unwrapped.cfg", "tri.atom", "tri.xyz", "far.dump"})
    EXPECT_EQ(slurp(dir + "/" + f), slurp(kData + f)) << f;
}

TEST(ScriptErrors, DumpCfgAndWriteDumpRefuseBadColumns) {
  for (const char* bad :
       {"dump 1 all cfg 10 one.cfg mass type xs ys zs\n", "dump 1 all cfg 10 a.*.cfg type mass xs ys zs\n",
        "dump 1 all cfg 10 a.*.cfg mass type xs ys zsu\n",
        "dump 1 all atom 10 a.dump\ndump_modify 1 element Cu\n", "write_dump all custom\n",
        "write_dump all h5md t.h5 position\n", "write_dump all custom f.dump id modify bogus 1\n"}) {
    const std::string dir = wmd::test::scratch_dir("script_bad_cfg");
    std::ofstream(dir + "/in.bad") << "units metal\nlattice fcc 3.615\nregion b block 0 2 0 2 0 2\n"
                                      "create_box 1 b\ncreate_atoms 1 box\nmass 1 63.5\n"
                                   << bad;
    const auto r = run_wafermd_in(dir, "run in.bad --output out");
    EXPECT_EQ(r.status, 2) << bad;
    EXPECT_NE(r.err.find("error: in.bad:"), std::string::npos) << bad << r.err;
  }
}

TEST(ScriptDumps, AtomAndXyzEqualLammpsByteForByte) {
  const std::string dir = setup_dir("dumps", {"in.dumps"});
  const auto r = run_wafermd_in(dir, "run in.dumps --output out");
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* f : {"atom.dump", "plain.xyz", "atom_unscaled_image.dump", "element.xyz",
                        "atom_every.dump", "atom_first.dump"}) {
    EXPECT_EQ(slurp(dir + "/" + f), slurp(kData + f)) << f;
  }
}

TEST(ScriptDumps, OneFilePerFrameAsLammps) {
  const std::string dir = setup_dir("multifile", {"in.multifile"});
  const auto r = run_wafermd_in(dir, "run in.multifile --output out");
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* f : {"frame.000.dump", "frame.005.dump", "frame.010.dump"})
    EXPECT_EQ(slurp(dir + "/" + f), slurp(kData + f)) << f;
  EXPECT_TRUE(fs::exists(dir + "/z.0.xyz.gz"));
  EXPECT_EQ(gunzip(dir + "/z.10.xyz.gz"), slurp(kData + "z.10.xyz"));
}

TEST(ScriptDumps, GzDataAndCustomGzDumpAsLammps) {
  const std::string dir = setup_dir("gz", {"in.gz", "data.alloy.gz"});
  const auto r = run_wafermd_in(dir, "run in.gz --output out");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string got = gunzip(dir + "/custom.dump.gz"), want = slurp(kData + "custom.dump");
  // The step-0 frame (the atoms read_data read from the .gz file) is lmp's to the last digit; after 5 and
  // 10 steps of dynamics the last bits may differ.
  const size_t second = want.find("ITEM: TIMESTEP", 1);
  ASSERT_NE(second, std::string::npos);
  EXPECT_EQ(got.substr(0, second), want.substr(0, second));
  expect_same_words(got, want, 1e-12);
}

TEST(ScriptDumps, CustomGzIsTheCustomDumpCompressed) {
  const std::string dir = setup_dir("gz_plain", {"data.alloy.gz"});
  std::ofstream(dir + "/in.both") << "units metal\natom_style atomic\nread_data data.alloy.gz\n"
                                     "write_data back.data\npair_style eam/alloy\npair_coeff * * "
                                     "CuNi.eam.alloy Cu Ni\nfix 1 all nve\n"
                                     "dump p all custom 3 plain.dump id type xu yu zu fx\n"
                                     "dump g all custom/gz 3 packed.dump.gz id type xu yu zu fx\n"
                                     "run 7\n";
  const auto r = run_wafermd_in(dir, "run in.both --output out");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string plain = slurp(dir + "/plain.dump");
  EXPECT_GT(plain.size(), 1000u);
  EXPECT_EQ(gunzip(dir + "/packed.dump.gz"), plain);
  // read_data of the .gz file read what the plain file holds: write_data gives the same text back.
  ASSERT_EQ(run_shell(dir, "gzip -dk data.alloy.gz").status, 0);
  std::ofstream(dir + "/in.plain") << "units metal\natom_style atomic\nread_data data.alloy\n"
                                      "write_data back_plain.data\n";
  ASSERT_EQ(run_wafermd_in(dir, "run in.plain --output out2").status, 0);
  EXPECT_EQ(slurp(dir + "/back.data"), slurp(dir + "/back_plain.data"));
}

struct RestartCase {
  const char* name;
  const char* backend;
  int ranks;
  const char* script = "restart";  // in.SCRIPT_one, in.SCRIPT_two; their files state*.restart, final*.dump
};

void PrintTo(const RestartCase& c, std::ostream* os) {
  *os << c.name;
}

class ScriptRestart : public ::testing::TestWithParam<RestartCase> {};

// Rows of thermo.csv from the last row of `first_step` on (a run's set-up row, not the previous run's last).
std::string thermo_from(const std::string& csv, long first_step) {
  std::istringstream in(csv);
  std::string out;
  for (std::string l; std::getline(in, l);) {
    char* end = nullptr;
    const long step = std::strtol(l.c_str(), &end, 10);
    if (end == l.c_str() || step < first_step) continue;
    if (step == first_step) out.clear();
    out += l + "\n";
  }
  return out;
}

// Frames of a dump file from `first_step` on.
std::string frames_from(const std::string& dump, long first_step) {
  const std::string mark = "ITEM: TIMESTEP\n";
  std::string out;
  for (size_t p = dump.find(mark); p != std::string::npos;) {
    const size_t next = dump.find(mark, p + mark.size());
    const std::string frame = dump.substr(p, next == std::string::npos ? std::string::npos : next - p);
    if (std::stol(frame.substr(mark.size())) >= first_step) out += frame;
    p = next;
  }
  return out;
}

TEST_P(ScriptRestart, ContinuesBitIdenticallyWithOneScript) {
  const RestartCase& c = GetParam();
  const std::string one_in = std::string("in.") + c.script + "_one",
                    two_in = std::string("in.") + c.script + "_two";
  const std::string script = c.script;
  const std::string tag = script == "restart" ? "" : script == "restart_tri" ? "_tri" : "_npt";
  const std::string dir = setup_dir(std::string("restart_") + c.name, {one_in, two_in});
  std::string launcher;
  if (c.ranks > 1) {
#ifdef WAFERMD_MPIEXEC
    launcher = std::string("'") + WAFERMD_MPIEXEC + "' --oversubscribe --allow-run-as-root -np " +
               std::to_string(c.ranks) + " ";
#else
    GTEST_SKIP() << "no MPI launcher";
#endif
  }
  const std::string exe = launcher + "'" + WAFERMD_EXE + "' run ";
  const std::string opts = std::string(" --backend ") + c.backend;
  auto r = run_shell(dir, exe + one_in + " --output one" + opts);
  ASSERT_EQ(r.status, 0) << r.err;
  fs::rename(dir + "/final" + tag + ".dump", dir + "/final_one.dump");
  ASSERT_TRUE(fs::exists(dir + "/state" + tag + ".restart"));
  r = run_shell(dir, exe + two_in + " --output two" + opts);
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string one = thermo_from(slurp(dir + "/one/thermo.csv"), 40),
                    two = thermo_from(slurp(dir + "/two/thermo.csv"), 40);
  EXPECT_EQ(std::count(two.begin(), two.end(), '\n'), 5) << two;
  EXPECT_EQ(two, one);
  const std::string d1 = frames_from(slurp(dir + "/final_one.dump"), 40),
                    d2 = frames_from(slurp(dir + "/final" + tag + ".dump"), 40);
  EXPECT_GT(d2.size(), 1000u);
  EXPECT_EQ(d2, d1);
}

INSTANTIATE_TEST_SUITE_P(Script, ScriptRestart,
                         ::testing::Values(RestartCase{"cluster_1", "cluster", 1},
                                           RestartCase{"cluster_2", "cluster", 2},
                                           RestartCase{"mesh_1", "mesh", 1},
                                           RestartCase{"triclinic_1", "cluster", 1, "restart_tri"},
                                           RestartCase{"triclinic_3", "cluster", 3, "restart_tri"},
                                           RestartCase{"barostat_1", "cluster", 1, "restart_npt"},
                                           RestartCase{"barostat_3", "cluster", 3, "restart_npt"}),
                         [](const auto& info) { return std::string(info.param.name); });

// compute msd, vacf and displace/atom defined again after read_restart with the same ID and style take back
// the references the restart file carried (LAMMPS's fix STORE): the continued run ends on the uninterrupted
// run's values; another ID starts afresh (its msd is 0 at the restart's first row).
TEST(ScriptRestartEvery, ComputeReferencesComeBackAfterReadRestart) {
  const std::string dir = wmd::test::scratch_dir("script_restart_computes");
  const std::string head =
      "units metal\natom_style atomic\nlattice fcc 3.615\nregion box block 0 3 0 3 0 3\ncreate_box 1 box\n"
      "create_atoms 1 box\nmass 1 63.546\npair_style eam\npair_coeff 1 1 Cu_u3.eam\n"
      "velocity all create 600 1 loop geom\n";
  const std::string computes =
      "compute msd all msd\ncompute vacf all vacf\ncompute d all displace/atom\n"
      "compute dsum all reduce sum c_d[4]\nthermo_modify format float %.15g\nthermo 10\n";
  const std::string columns = "thermo_style custom step c_msd[4] c_vacf[4] c_dsum";
  std::ofstream(dir + "/in.whole") << head << "fix 1 all nve\n" << computes << columns << "\nrun 20\n";
  std::ofstream(dir + "/in.first") << head << "fix 1 all nve\n"
                                   << computes << columns << "\nrun 10\nwrite_restart a.rst\n";
  std::ofstream(dir + "/in.second") << "read_restart a.rst\npair_style eam\npair_coeff 1 1 Cu_u3.eam\n"
                                    << "fix 1 all nve\n"
                                    << computes << "compute fresh all msd\n"
                                    << columns << " c_fresh[4]\nrun 10\n";
  for (const char* in : {"in.whole", "in.first", "in.second"}) {
    const auto r = run_wafermd_in(dir, std::string("run ") + in + " --output out_" + in);
    ASSERT_EQ(r.status, 0) << in << ": " << r.err;
  }
  // Step 20's row: msd, vacf and the displacement sum as the uninterrupted run's (to round-off: write_restart
  // wraps the atoms and the second run sets up afresh, as in LAMMPS); the fresh msd (another ID) measured the
  // last 10 steps only.
  auto numbers = [](const std::string& row) {
    std::vector<double> v;
    std::istringstream in(row);
    for (std::string w; std::getline(in, w, ',');) v.push_back(std::stod(w));
    return v;
  };
  const std::vector<double> whole = numbers(thermo_from(slurp(dir + "/out_in.whole/thermo.csv"), 20));
  const std::vector<double> second = numbers(thermo_from(slurp(dir + "/out_in.second/thermo.csv"), 20));
  ASSERT_EQ(whole.size(), 4u);
  ASSERT_EQ(second.size(), 5u);
  for (size_t k = 0; k < 4; ++k) EXPECT_NEAR(second[k], whole[k], 1e-12 * std::fabs(whole[k])) << k;
  EXPECT_GT(second[4], 0.0);
  EXPECT_LT(second[4], 0.5 * whole[1]);
}

TEST(ScriptRestartEvery, WritesOnMultiplesAsLammpsAndTheFilesRead) {
  // lmp writes snap.20, snap.40 and snap.60 (the one-file setting stays on in the second run), a.rst at 45
  // and b.rst at 60; none at a run's first step.
  const std::string dir = wmd::test::scratch_dir("script_restart_every");
  const std::string head =
      "units metal\natom_style atomic\nlattice fcc 3.615\nregion box block 0 3 0 3 0 3\ncreate_box 1 box\n"
      "create_atoms 1 box\nmass 1 63.546\npair_style eam\n"
      "pair_coeff 1 1 Cu_u3.eam\n";
  std::ofstream(dir + "/in.r") << head
                               << "velocity all create 600 1 loop geom\nfix 1 all nve\nrestart 20 snap.*\n"
                                  "run 40\nrestart 15 a.rst b.rst\nrun 30\n";
  ASSERT_EQ(run_wafermd_in(dir, "run in.r --output out").status, 0);
  for (const char* f : {"snap.20", "snap.40", "snap.60", "a.rst", "b.rst"})
    EXPECT_TRUE(fs::exists(dir + "/" + f)) << f;
  for (const char* f : {"snap.0", "snap.45"}) EXPECT_FALSE(fs::exists(dir + "/" + f)) << f;
  // b.rst holds step 60 (a.rst 45): reading it continues from there.
  std::ofstream(dir + "/in.read") << "read_restart b.rst\nprint \">> step $(step) atoms $(atoms)\"\n";
  const auto r = run_wafermd_in(dir, "run in.read --output out2");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(lines_starting(r.out, ">>"), ">> step 60 atoms 108\n");
}

struct BadCase {
  const char* name;
  std::string text;
  int line;
  const char* needle;
};

void PrintTo(const BadCase& c, std::ostream* os) {
  *os << c.name;
}

class ScriptBadUse : public ::testing::TestWithParam<BadCase> {};

TEST_P(ScriptBadUse, ExitsTwoWithOneLineAndWritesNothing) {
  const BadCase& c = GetParam();
  const std::string dir = wmd::test::scratch_dir(std::string("script_bad_") + c.name);
  std::ofstream(dir + "/in.bad") << c.text;
  std::ofstream(dir + "/lammps.restart") << "LammpS RestartT\x01\x02 binary";
  const auto r = run_wafermd_in(dir, "run in.bad --output out");
  EXPECT_EQ(r.status, 2) << r.err;
  const std::string want = "error: in.bad:" + std::to_string(c.line) + ": ";
  EXPECT_EQ(r.err.rfind(want, 0), 0u) << "stderr: " << r.err;
  EXPECT_NE(r.err.find(c.needle), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
  EXPECT_FALSE(fs::exists(dir + "/out")) << "nothing may be written for bad input";
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir)) files += e.is_regular_file() ? 1 : 0;
  EXPECT_EQ(files, 4u) << "only the input, the fake restart file and the captured stdout and stderr";
}

const std::string kBox =
    "units metal\natom_style atomic\nlattice fcc 3.615\nregion box block 0 3 0 3 0 3\ncreate_box 1 box\n"
    "create_atoms 1 box\nmass 1 63.546\npair_style eam\n"
    "pair_coeff 1 1 Cu_u3.eam\n";  // 9 lines

INSTANTIATE_TEST_SUITE_P(
    Script, ScriptBadUse,
    ::testing::Values(
        BadCase{"vector_variable", "variable a vector [1,2]\n", 1,
                "variable style 'vector' is not supported"},
        BadCase{"unknown_variable_style", "variable a bogus 1\n", 1, "unknown variable style"},
        BadCase{"loop_zero", "variable i loop 0\n", 1, "at least one value"},
        // The dry run keeps refusing a division by zero until it has read a stand-in value (a thermo
        // keyword, after which it divides to NaN and leaves the refusal to the real run).
        BadCase{"division_by_zero", "variable a equal 0\nvariable x equal 1.0/${a}\nprint \"${x}\"\n", 3,
                "division by zero"},
        BadCase{"redefine_style", "variable a string x\nvariable a equal 2\n", 2, "cannot be redefined"},
        BadCase{"bad_format", "variable a equal 1\nvariable f format a %d\n", 2, "Incorrect conversion"},
        BadCase{"next_string", "variable s string x\nnext s\n", 2, "only index, loop"},
        BadCase{"next_undefined", "next nope\n", 1, "undefined variable 'nope'"},
        BadCase{"missing_label", "print hi\njump SELF nowhere\nprint after\n", 2,
                "label 'nowhere' not found"},
        BadCase{"jump_missing_file", "jump in.none\n", 1, "cannot open input file 'in.none'"},
        BadCase{"if_without_then", "if \"1 > 0\" \"print x\"\n", 1, "'then'"},
        BadCase{"if_bad_boolean", "if \"1 > abc\" then \"print x\"\n", 1, "cannot evaluate Boolean"},
        BadCase{"if_bad_branch_command", "if \"1 > 0\" then \"timestep fast\"\n", 1, "(a number)"},
        BadCase{"if_empty_else", "if \"1 > 0\" then \"print x\" else\n", 1, "'else' needs"},
        BadCase{"quit_status", "quit 1\n", 1, "non-zero exit status"},
        BadCase{"shell_cd_args", "shell cd a b\n", 1, "one directory"},
        BadCase{"print_keyword", "print hello world\n", 1, "a print keyword"},
        BadCase{"lammps_restart", "read_restart lammps.restart\n", 1, "lmp -r2data"},
        BadCase{"missing_restart", "read_restart none.restart\n", 1, "none.restart"},
        BadCase{"write_restart_fileper", kBox + "write_restart r.* fileper 2\n", 10,
                "'fileper' is not supported"},
        BadCase{"restart_percent", "restart 10 r.%.restart\n", 1, "'%'"},
        BadCase{"restart_pair_star", "restart 10 a.* b.*\n", 1, "without '*'"},
        BadCase{"log_keyword", "log run.log replace\n", 1, "append"},
        BadCase{"read_restart_after_box", kBox + "read_restart x.restart\n", 10, "before the box"},
        BadCase{"dump_style_image", kBox + "dump d all image 10 d.*.jpg type type\n", 10,
                "dump style 'image' is not supported"},
        BadCase{"dump_cfg_one_file", kBox + "dump d all cfg 10 d.cfg mass type xs ys zs\n", 10,
                "one snapshot per file"},
        BadCase{"dump_xyz_columns", kBox + "dump d all xyz 10 d.xyz x y z\n", 10, "takes no columns"},
        BadCase{"dump_gz_name", kBox + "dump d all custom/gz 10 d.dump id\n", 10, "ending in .gz"},
        BadCase{"dump_modify_scale_custom", kBox + "dump d all custom 10 d.dump id\ndump_modify d scale no\n",
                11, "dump atom only"},
        BadCase{"dump_modify_format_xyz", kBox + "dump d all xyz 10 d.xyz\ndump_modify d format line %d\n",
                11, "not supported for dump xyz"},
        BadCase{"dump_modify_element_count", kBox + "dump d all xyz 10 d.xyz\ndump_modify d element\n", 11,
                "an element name"},
        BadCase{"dimension_2", "dimension 2\n", 1, "dimension 2 is not supported"},
        BadCase{"atom_modify_first", "atom_modify first g\n", 1, "atom_modify first is not supported"},
        BadCase{"atom_modify_map_late", kBox + "atom_modify map array\n", 10, "before the box"}));

}  // namespace
