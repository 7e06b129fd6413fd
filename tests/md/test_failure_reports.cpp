// How the wafermd program ends on a failure (md/programs/failure.hpp, main.cpp, program.cpp): one `error:`
// line on stderr, exit 2 or 3, whatever failed (a command line CLI11 rejects, an empty input, a library's
// exception, bytes that would break the line); a failed run's report.json says so and why, and no output that
// looks like a success is left behind.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <new>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "base/error.hpp"
#include "base/printable_line.hpp"
#include "md/programs/failure.hpp"
#include "program_harness.hpp"
#include "sim_harness.hpp"

namespace {

namespace fs = std::filesystem;
using wmd::test::run_wafermd_in;
using wmd::test::slurp;

const std::string kPot = "Cu_u3.eam";
const std::string kHead =
    "units metal\natom_style atomic\nboundary p p p\nlattice fcc 3.615\nregion box block 0 3 0 3 0 3\n"
    "create_box 1 box\ncreate_atoms 1 box\npair_style eam\npair_coeff 1 1 " +
    kPot + "\n";
// Atom 1 leaves the non-periodic z faces within a few steps: exit 3 ("lost atom 1 at step ...").
const std::string kLosesAnAtom =
    "units metal\natom_style atomic\nboundary p p f\nlattice fcc 3.615\n"
    "region box block 0 3 0 3 0 3\ncreate_box 1 box\ncreate_atoms 1 box\n"
    "pair_style eam\npair_coeff 1 1 " +
    kPot +
    "\ngroup one id 1\nvelocity one set 0 0 -1000 units box\nneighbor 0.5 bin\n"
    "fix 1 all nve\nthermo 1\nrun 100\n";

size_t lines(const std::string& s) {
  return static_cast<size_t>(std::count(s.begin(), s.end(), '\n'));
}

// stderr is exactly one line, "error: " + the expected start.
void expect_one_error_line(const wmd::test::ProgramResult& r, const std::string& start) {
  EXPECT_EQ(r.err.rfind("error: " + start, 0), 0u) << r.err;
  EXPECT_EQ(lines(r.err), 1u) << r.err;
}

TEST(FailureReport, CommandLineErrorsAreOneErrorLine) {
  const std::string dir = wmd::test::scratch_dir("fail_cli");
  std::ofstream(dir + "/in.a") << kHead << "run 0\n";
  for (const char* args : {"run in.a --frobnicate", "frobnicate in.a", "run", "run in.a --backend"}) {
    const auto r = run_wafermd_in(dir, args);
    EXPECT_EQ(r.status, 2) << args;
    expect_one_error_line(r, "command line: ");
  }
}

TEST(FailureReport, VarTakesExactlyANameAndAValue) {
  const std::string dir = wmd::test::scratch_dir("fail_var");
  std::ofstream(dir + "/in.a") << kHead << "run 0\n";
  // CLI11 alone took "--output" as x's value and wrote to out/in.a.
  const auto swallowed = run_wafermd_in(dir, "run in.a --var x --output mine");
  EXPECT_EQ(swallowed.status, 2);
  expect_one_error_line(swallowed, "command line:0: --var takes NAME VALUE, got the option '--output'");
  const auto short_of_words = run_wafermd_in(dir, "run in.a --var x");
  EXPECT_EQ(short_of_words.status, 2);
  expect_one_error_line(short_of_words, "command line:0: --var takes NAME VALUE, got too few words");
  EXPECT_FALSE(fs::exists(dir + "/out")) << "nothing may run";
  EXPECT_FALSE(fs::exists(dir + "/mine"));
  // A value that merely starts with a dash is a value.
  std::ofstream(dir + "/in.b") << kHead << "print \"x=${x}\"\n";
  const auto negative = run_wafermd_in(dir, "run in.b --var x -5 --output out");
  ASSERT_EQ(negative.status, 0) << negative.err;
  EXPECT_NE(negative.out.find("x=-5"), std::string::npos) << negative.out;
}

TEST(FailureReport, AnInputWithNoCommandsExitsTwo) {
  const std::string dir = wmd::test::scratch_dir("fail_empty");
  std::ofstream(dir + "/in.empty");
  std::ofstream(dir + "/in.comments") << "# nothing to do\n\n   \n";
  for (const char* input : {"in.empty", "in.comments"}) {
    const auto r = run_wafermd_in(dir, std::string("run ") + input + " --output out");
    EXPECT_EQ(r.status, 2) << input;
    expect_one_error_line(r, std::string(input) + ":1: input has no commands");
    EXPECT_FALSE(fs::exists(dir + "/out"));
  }
}

TEST(FailureReport, ControlBytesInTheInputAreEscapedInTheOneLine) {
  const std::string dir = wmd::test::scratch_dir("fail_bytes");
  std::ofstream(dir + "/in.a") << "units metal\nfix\x1b[2J\x01 1 all nve\n";
  const auto r = run_wafermd_in(dir, "run in.a");
  EXPECT_EQ(r.status, 2);
  expect_one_error_line(r, "in.a:2: ");
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("\\x1b[2J\\x01"), std::string::npos) << r.err;
  // From the command line too: a --set key with a newline stays on one line.
  const auto set = run_wafermd_in(dir, "run in.a --set \"$(printf 'bad\\nkey=1')\"");
  EXPECT_EQ(set.status, 2);
  expect_one_error_line(set, "--set:0: ");
  EXPECT_NE(set.err.find("bad\\x0akey"), std::string::npos) << set.err;
}

TEST(FailureReport, ALibrarysExceptionIsOneErrorLineAndExitTwo) {
  // yaml-cpp throws its own exception type for a scalar where a mapping belongs; it used to end in
  // std::terminate (exit 134). Whatever the reader makes of it, the program answers with one line, exit 2.
  const std::string dir = wmd::test::scratch_dir("fail_library");
  std::ofstream(dir + "/in.yaml") << "system: {lattice: {style: fcc, constant: 3.615}, cells: [2, 2, 2]}\n"
                                     "potential: eam\nrun: 5\n";
  const auto r = run_wafermd_in(dir, "run in.yaml");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
  EXPECT_EQ(lines(r.err), 1u) << r.err;
}

TEST(FailureReport, AFailedRunsReportSaysItFailedAndWhy) {
  const std::string dir = wmd::test::scratch_dir("fail_report");
  std::ofstream(dir + "/in.a") << kLosesAnAtom;
  const auto r = run_wafermd_in(dir, "run in.a --output out");
  ASSERT_EQ(r.status, 3) << r.err;
  expect_one_error_line(r, "run failed: lost atom 1");
  const auto report = nlohmann::json::parse(slurp(dir + "/out/report.json"));
  EXPECT_EQ(report.at("status"), "failed");
  EXPECT_EQ(report.at("exit_code"), 3);
  EXPECT_EQ(r.err, "error: " + report.at("error").get<std::string>() + "\n");
  // The thermo rows written before the failure stay, under a name no reader takes for a finished run.
  EXPECT_FALSE(fs::exists(dir + "/out/thermo.csv"));
  EXPECT_GT(lines(slurp(dir + "/out/thermo.csv.partial")), 1u);
}

TEST(FailureReport, AFailedRunLeavesNoEarlierSuccessBehind) {
  const std::string dir = wmd::test::scratch_dir("fail_stale");
  std::ofstream(dir + "/in.good") << kHead << "fix 1 all nve\nthermo 5\nrun 5\n";
  const auto good = run_wafermd_in(dir, "run in.good --output out");
  ASSERT_EQ(good.status, 0) << good.err;
  const auto ok = nlohmann::json::parse(slurp(dir + "/out/report.json"));
  EXPECT_EQ(ok.at("status"), "completed");
  EXPECT_EQ(ok.at("exit_code"), 0);
  EXPECT_FALSE(ok.contains("error"));
  EXPECT_TRUE(fs::exists(dir + "/out/thermo.csv"));
  EXPECT_FALSE(fs::exists(dir + "/out/thermo.csv.partial"));

  std::ofstream(dir + "/in.bad") << kLosesAnAtom;
  ASSERT_EQ(run_wafermd_in(dir, "run in.bad --output out").status, 3);
  EXPECT_FALSE(fs::exists(dir + "/out/thermo.csv")) << "the earlier run's thermo.csv must go";
  EXPECT_EQ(nlohmann::json::parse(slurp(dir + "/out/report.json")).at("status"), "failed");
}

TEST(FailureReport, AKilledRunLeavesNoResults) {
  // SIGKILL cannot be caught: what stays must not look finished (no report.json, no thermo.csv).
  const std::string dir = wmd::test::scratch_dir("fail_killed");
  std::ofstream(dir + "/in.a") << kHead << "fix 1 all nve\nthermo 1\nrun 100000000\n";
  // Killed once thermo rows are being written.
  const auto r = wmd::test::run_shell(
      dir, std::string("('") + WAFERMD_EXE +
               "' run in.a --output out & pid=$!; for i in $(seq 1200); do "
               "[ \"$(cat out/thermo.csv.partial 2>/dev/null | wc -l)\" -gt 3 ] && break; sleep 0.1; done; "
               "kill -KILL $pid; wait $pid; echo $? > rc.txt)");
  EXPECT_EQ(slurp(dir + "/rc.txt"), "137\n") << r.err;
  EXPECT_TRUE(fs::exists(dir + "/out/thermo.csv.partial"));
  EXPECT_FALSE(fs::exists(dir + "/out/thermo.csv"));
  EXPECT_FALSE(fs::exists(dir + "/out/report.json"));
}

TEST(FailureReport, EachFailureHasItsExitStatusAndMessage) {
  auto of = [](auto error, int unexpected) {
    return wmd::md::describe_failure(std::make_exception_ptr(error), unexpected);
  };
  EXPECT_EQ(of(wmd::InputError("in.a", 3, "bad"), 3).exit_code, 2);
  EXPECT_EQ(of(wmd::InputError("in.a", 3, "bad"), 3).message, "in.a:3: bad");
  EXPECT_EQ(of(wmd::RunError("lost"), 2).exit_code, 3);
  EXPECT_EQ(of(std::bad_alloc(), 3).exit_code, 3);
  EXPECT_EQ(of(std::bad_alloc(), 2).exit_code, 2);
  EXPECT_EQ(of(std::bad_alloc(), 2).message.rfind("out of memory", 0), 0u);
  EXPECT_EQ(of(std::out_of_range("vector"), 3).message, "unexpected failure: vector");
  EXPECT_EQ(of(42, 2).exit_code, 2);
}

TEST(FailureReport, MessagesBecomeOnePrintableLine) {
  EXPECT_EQ(wmd::printable_line("a\nb\tc\x1b[0m"), "a\\x0ab\\x09c\\x1b[0m");
  EXPECT_EQ(wmd::printable_line("3.615 \xc3\x85, r\xc2\xb2"), "3.615 \xc3\x85, r\xc2\xb2");  // Å and ² stay
  EXPECT_EQ(wmd::printable_line("\xff\xc3"), "\\xff\\xc3");                                  // not UTF-8
  EXPECT_EQ(wmd::printable_line("\xc2\x9b"), "\\xc2\\x9b");                                  // C1 CSI
  EXPECT_EQ(wmd::printable_line(std::string("a\0b", 3)), "a\\x00b");
}

}  // namespace
