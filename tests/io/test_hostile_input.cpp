// Hostile input to the input parsers (issue 29): formats that would reach snprintf, unbounded recursion and
// sizes, binary bytes, malformed data files and YAML shapes. Each case ends in a one-line InputError (or
// the right output), never a crash, a hang or a huge allocation; and well-formed long work is not cut short.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "io/lammps_data.hpp"
#include "io/lammps_script.hpp"
#include "io/print_format.hpp"
#include "io/thermo_format.hpp"
#include "io/yaml_input.hpp"
#include "scratch_file.hpp"
#include "sim_harness.hpp"

namespace {

using namespace wmd::io;
using wmd::InputError;

std::string write(const std::string& name, const std::string& text) {
  return wmd::test::write_scratch("hostile_" + name, text);
}

std::vector<Command> read_all(const std::string& path, Variables& vars, int64_t jump_limit = 0) {
  LammpsScript s(path, vars, wmd::SourcePos{});
  if (jump_limit > 0) s.limit_jumps(jump_limit);
  std::vector<Command> out;
  Command c;
  while (s.next(c)) out.push_back(c);
  return out;
}

std::vector<Command> run_script(const std::string& name, const std::string& text) {
  Variables v;
  return read_all(write(name, text), v);
}

// The message of the InputError that reading `text` throws ("" when none is thrown).
std::string script_error(const std::string& name, const std::string& text) {
  try {
    run_script(name, text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// Every InputError message is one printable line of bounded length.
void expect_one_line(const std::string& what) {
  EXPECT_LT(what.size(), 1200u) << what.substr(0, 200);
  for (const char c : what) {
    EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
        << "control byte in: " << what.substr(0, 200);
    if (static_cast<unsigned char>(c) < 0x20) break;
  }
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// --- Formats ---------------------------------------------------------------------------------------------

TEST(Issue29, ImmediateFormatPercentNIsRefused) {
  const std::string e = script_error("fmt_n.in", "print \"$(1.5:%n)\"\n");
  EXPECT_NE(e.find("format '%n'"), std::string::npos) << e;
}

TEST(Issue29, ImmediateFormatPercentSIsRefused) {
  const std::string e = script_error("fmt_s.in", "print \"$(1.5:%s)\"\n");
  EXPECT_NE(e.find("format '%s'"), std::string::npos) << e;
}

TEST(Issue29, ImmediateFormatIntegerOfARealIsRefused) {
  const std::string e = script_error("fmt_d.in", "print \"$(2.5:%d)\"\n");
  EXPECT_NE(e.find("format '%d'"), std::string::npos) << e;
}

TEST(Issue29, ImmediateFormatHugeWidthIsRefusedAtOnce) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::string e = script_error("fmt_w.in", "print \"$(1:%2147483647.1g)\"\n");
  EXPECT_NE(e.find("width or precision above 300"), std::string::npos) << e;
  EXPECT_LT(seconds_since(t0), 1.0);
  EXPECT_NE(script_error("fmt_p.in", "print \"$(1:%.99999f)\"\n").find("above 300"), std::string::npos);
}

TEST(Issue29, ImmediateFormatsOfLammpsStillPrint) {
  const auto c = run_script("fmt_ok.in", "print \"$(PI:%10.4f) $(2:%.6e) $(3:%6.1fy) $(0.5:% .2E)\"\n");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].args[0], "    3.1416 2.000000e+00    3.0y  5.00E-01");
  // LAMMPS's own check: a precision and no flags other than a space ("Incorrect conversion in format").
  for (const char* f : {"%e", "%-6.1f", "%g%%", "%+.2E"})
    EXPECT_NE(
        script_error("fmt_lmp.in", std::string("print \"$(1:") + f + ")\"\n").find("Incorrect conversion"),
        std::string::npos)
        << f;
}

TEST(Issue29, VariableFormatIsChecked) {
  EXPECT_NE(script_error("vf_s.in", "variable a equal 2\nvariable f format a %s\n").find("format '%s'"),
            std::string::npos);
  EXPECT_NE(
      script_error("vf_two.in", "variable a equal 2\nvariable f format a %.1g%.1g\n").find("more than one"),
      std::string::npos);
  EXPECT_NE(script_error("vf_w.in", "variable a equal 2\nvariable f format a %400.1f\n").find("above 300"),
            std::string::npos);
  const auto c =
      run_script("vf_ok.in", "variable a equal 2/3\nvariable f format a %8.3f\nprint \"[${f}]\"\n");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].args[0], "[   0.667]");
}

TEST(Issue29, FormatVariableNamingItselfIsRefused) {
  // LAMMPS formats equal-style variables only, so a format variable cannot name itself.
  const std::string e = script_error("vf_self.in", "variable f format f %.3g\nprint ${f}\n");
  EXPECT_NE(e.find("not an equal-style variable"), std::string::npos) << e;
}

TEST(Issue29, ThermoFormatsAcceptOnlyOneBoundedConversion) {
  EXPECT_TRUE(valid_float_format("%12.8g"));
  EXPECT_TRUE(valid_float_format("T=%10.4f K"));
  EXPECT_TRUE(valid_int_format("%8d"));
  EXPECT_TRUE(valid_int_format("%10ld"));
  EXPECT_FALSE(valid_float_format("%2147483647g"));
  EXPECT_FALSE(valid_float_format("%.2147483647g"));
  EXPECT_FALSE(valid_float_format("%n"));
  EXPECT_FALSE(valid_float_format("%s"));
  EXPECT_FALSE(valid_float_format("%g %g"));
  EXPECT_FALSE(valid_float_format("%d"));
  EXPECT_FALSE(valid_int_format("%lld%n"));
  EXPECT_TRUE(valid_line_format("%8d %12.8g %e"));
  EXPECT_FALSE(valid_line_format("%8d %n"));
  EXPECT_FALSE(valid_line_format(""));
  // An integer format meets a real column: printed as the value truncated, not as garbage bits.
  EXPECT_EQ(format_value("%5d", 2.7, false), "    2");
  EXPECT_EQ(format_value("%8d", 5.0, true), "       5");
  EXPECT_EQ(format_value("%12.8g", 1.0 / 3.0, false), "  0.33333333");
  EXPECT_EQ(format_value("%d", 1e300, false), "1e+300");  // beyond a 64-bit integer: as %g
}

TEST(Issue29, HugeThermoFormatIsRefusedWithoutRegexRecursion) {
  // std::regex recursed once per character here (a stack overflow at ~200 kB).
  const std::string big = "%" + std::string(200000, '0') + "g";
  const std::string text(200000, 'x');
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(valid_float_format(big));
  EXPECT_FALSE(valid_float_format(text + "%g"));
  EXPECT_FALSE(valid_int_format(text + "%d"));
  EXPECT_FALSE(valid_line_format(big + " " + big));
  EXPECT_EQ(format_value(text + "%g", 1.5, false), "1.5");  // refused format: the value still prints
  EXPECT_LT(seconds_since(t0), 2.0);
}

TEST(Issue29, ThermoModifyRefusesBadFormatsAndTooManyColumns) {
  const std::string dir = wmd::test::scratch_dir("hostile_thermo");
  auto error_of = [&](const std::string& script) -> std::string {
    try {
      wmd::test::ScriptRun run(script, dir, /*dry_run=*/true);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(error_of("thermo_modify format line \"%d %n\"\n").find("is not a line of formats"),
            std::string::npos);
  EXPECT_NE(error_of("thermo_modify format float %2147483647g\n").find("not a float format"),
            std::string::npos);
  std::string many = "thermo_style custom";
  for (int k = 0; k < 10001; ++k) many += " step";
  EXPECT_NE(error_of(many + "\n").find("more than 10000 keywords"), std::string::npos);
  EXPECT_EQ(error_of("thermo_style custom step temp pe\nthermo_modify format line \"%8d %10.4f %12.6e\"\n"),
            "");
}

TEST(Issue29, DumpModifyRefusesBadFormats) {
  const std::string dir = wmd::test::scratch_dir("hostile_dump");
  auto error_of = [&](const std::string& modify) -> std::string {
    try {
      wmd::test::ScriptRun run(
          "region b block 0 1 0 1 0 1\ncreate_box 1 b\ndump d all custom 1 d.txt id x\n" + modify, dir,
          /*dry_run=*/true);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(error_of("dump_modify d format line \"%d %n\"\n").find("is not a line of formats"),
            std::string::npos);
  EXPECT_NE(error_of("dump_modify d format 2 %s\n").find("is not a printf format"), std::string::npos);
  EXPECT_EQ(error_of("dump_modify d format line \"%5d %10.4f\"\n"), "");
  EXPECT_EQ(error_of("dump_modify d format 2 %10.4f\n"), "");
}

// --- Recursion -------------------------------------------------------------------------------------------

TEST(Issue29, DeeplyNestedExpressionIsAnError) {
  const std::string deep = std::string(100000, '(') + "1" + std::string(100000, ')');
  std::string e = script_error("deep_paren.in", "variable a equal " + deep + "\nprint ${a}\n");
  EXPECT_NE(e.find("nested more than 200 levels"), std::string::npos) << e.substr(0, 300);
  expect_one_line(e);
  e = script_error("deep_minus.in", "print $(" + std::string(100000, '-') + "1)\n");
  EXPECT_NE(e.find("nested more than 200 levels"), std::string::npos) << e.substr(0, 300);
  e = script_error(
      "deep_call.in", "print $(" + [] {
        std::string s;
        for (int k = 0; k < 50000; ++k) s += "abs(";
        return s + "1" + std::string(50000, ')');
      }() + ")\n");
  EXPECT_NE(e.find("nested more than 200 levels"), std::string::npos) << e.substr(0, 300);
  // 150 levels are fine.
  const auto c =
      run_script("ok_paren.in", "print $(" + std::string(150, '(') + "7" + std::string(150, ')') + ")\n");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].args[0], "7");
}

TEST(Issue29, DeeplyNestedBooleanIsAnError) {
  const std::string deep = std::string(100000, '(') + "1" + std::string(100000, ')');
  const std::string e = script_error("deep_if.in", "if \"" + deep + "\" then \"print yes\"\n");
  EXPECT_NE(e.find("nested more than 200 levels"), std::string::npos) << e.substr(0, 300);
  const std::string not_deep = "if \"" + std::string(100000, '!') + "1\" then \"print yes\"\n";
  EXPECT_NE(script_error("deep_not.in", not_deep).find("nested more than 200"), std::string::npos);
}

std::string chain(int n) {
  std::string s = "variable v0 equal 1\n";
  for (int k = 1; k < n; ++k)
    s += "variable v" + std::to_string(k) + " equal v_v" + std::to_string(k - 1) + "+1\n";
  return s;
}

TEST(Issue29, LongChainOfEqualVariablesIsNotACycle) {
  // 33 and more chained variables were refused as "refers to itself".
  const auto c = run_script("chain.in", chain(900) + "print ${v899}\n");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].args[0], "900");
}

TEST(Issue29, TrueVariableCycleIsReportedAsOne) {
  const std::string e = script_error(
      "cycle.in", "variable a equal v_b+1\nvariable b equal v_c*2\nvariable c equal v_a\nprint ${a}\n");
  EXPECT_NE(e.find("refers to itself (a -> b -> c -> a)"), std::string::npos) << e;
}

TEST(Issue29, VariableFanOutIsEvaluatedOncePerVariable) {
  // Each level names the one below twice: 2^40 evaluations without memoisation.
  std::string text = "variable w0 equal 1\n";
  for (int k = 1; k <= 40; ++k)
    text += "variable w" + std::to_string(k) + " equal v_w" + std::to_string(k - 1) + "+v_w" +
            std::to_string(k - 1) + "\n";
  const auto t0 = std::chrono::steady_clock::now();
  const auto c = run_script("fanout.in", text + "print ${w40}\n");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].args[0], "1099511627776");
  EXPECT_LT(seconds_since(t0), 2.0);
}

TEST(Issue29, NestingAcrossVariablesIsBounded) {
  // Each variable nests 190 levels and names the one before: 7600 levels overflowed an ASan build's stack.
  std::string text = "variable v0 equal 1\n";
  for (int k = 1; k < 40; ++k)
    text += "variable v" + std::to_string(k) + " equal " + std::string(190, '(') + "v_v" +
            std::to_string(k - 1) + "+1" + std::string(190, ')') + "\n";
  const std::string e = script_error("nest_chain.in", text + "print ${v39}\n");
  EXPECT_NE(e.find("nested more than 2500 levels deep with the variables it uses"), std::string::npos)
      << e.substr(0, 300);
}

TEST(Issue29, OverlyDeepVariableChainIsAnError) {
  const std::string e = script_error("chain_deep.in", chain(1500) + "print ${v1499}\n");
  EXPECT_NE(e.find("more than 1000 deep"), std::string::npos) << e.substr(0, 300);
}

// --- Sizes -----------------------------------------------------------------------------------------------

TEST(Issue29, OverlongLineIsRefused) {
  const std::string e = script_error("long_line.in", "print " + std::string(2u << 20, 'x') + "\n");
  EXPECT_NE(e.find("longer than 1 MiB"), std::string::npos) << e.substr(0, 300);
  expect_one_line(e);
}

TEST(Issue29, OverlongContinuedCommandIsRefusedQuickly) {
  std::string text = "print a &\n";
  for (int k = 0; k < 400000; ++k) text += "xxxxxxxx &\n";
  text += "end\n";
  const auto t0 = std::chrono::steady_clock::now();
  const std::string e = script_error("long_cont.in", text);
  EXPECT_NE(e.find("longer than 1 MiB"), std::string::npos) << e.substr(0, 300);
  EXPECT_LT(seconds_since(t0), 5.0);
  // Continuations join as LAMMPS joins them: the next line replaces the '&' (quotes carry over), and a
  // '&' that ends a comment continues the command into the comment.
  const auto c =
      run_script("cont_ok.in", "print \"a # &\n b\" # comment &\nvariable x index 1 &\n 2\nprint yes&\nno\n");
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].args[0], "a #  b");
  EXPECT_EQ(c[1].args[0], "yesno");
}

TEST(Issue29, SubstitutionCannotGrowACommandWithoutBound) {
  std::string text = "variable a0 string " + std::string(1000, 'x') + "\n";
  for (int k = 1; k <= 12; ++k)
    text += "variable a" + std::to_string(k) + " string ${a" + std::to_string(k - 1) + "}${a" +
            std::to_string(k - 1) + "}\n";
  const std::string e = script_error("grow.in", text);
  EXPECT_NE(e.find("after variable substitution"), std::string::npos) << e.substr(0, 300);
}

TEST(Issue29, VariablesTextIsBounded) {
  // A loop defining a new 1-MB variable each time would otherwise eat memory without bound.
  std::string text = "variable a0 string " + std::string(1000, 'x') + "\n";
  for (int k = 1; k <= 10; ++k)
    text += "variable a" + std::to_string(k) + " string ${a" + std::to_string(k - 1) + "}${a" +
            std::to_string(k - 1) + "}\n";
  text += "variable i loop 400\nlabel top\nvariable v$i string ${a10}\nnext i\njump SELF top\n";
  const std::string e = script_error("var_bytes.in", text);
  EXPECT_NE(e.find("variables would hold more than 256 MiB of text"), std::string::npos) << e.substr(0, 300);
}

TEST(Issue29, IncludeOfDevZeroIsRefused) {
  const std::string e = script_error("inc_zero.in", "include /dev/zero\n");
  EXPECT_NE(e.find("'/dev/zero' is not a regular file"), std::string::npos) << e;
}

TEST(Issue29, IncludeOfADirectoryIsAnError) {
  const std::string dir = wmd::test::scratch_dir("hostile_inc_dir");
  const std::string e = script_error("inc_dir.in", "include " + dir + "\n");
  EXPECT_NE(e.find("is a directory"), std::string::npos) << e;
  EXPECT_NE(script_error("jump_dir.in", "jump " + dir + "\n").find("is a directory"), std::string::npos);
}

TEST(Issue29, ErrorMessagesEscapeBinaryBytes) {
  static const char bytes[] = "foo \x01\x02\x7f\xff\xfe \"unbalanced\r\x0b\n";
  const std::string e = script_error("binary.in", std::string(bytes, sizeof bytes - 1));
  EXPECT_NE(e.find("unbalanced quote"), std::string::npos) << e;
  EXPECT_NE(e.find("\\x01\\x02\\x7f\\xff\\xfe"), std::string::npos) << e;
  expect_one_line(e);
  // UTF-8 stays readable.
  const InputError u("f", 1, "3.5 \xc3\x85");
  EXPECT_STREQ(u.what(), "f:1: 3.5 \xc3\x85");
  const InputError n("f", 1, "a\nb");
  EXPECT_STREQ(n.what(), "f:1: a\\x0ab");
}

TEST(Issue29, EmptyScriptHasNoCommands) {
  for (const std::string text : {"", "\n\n", "# only a comment\n   \n\t# another\n"}) {
    const std::string e = script_error("empty.in", text);
    EXPECT_NE(e.find("input has no commands"), std::string::npos) << "[" << text << "] " << e;
  }
}

TEST(Issue29, LongJumpLoopStillRuns) {
  const auto c = run_script("loop.in",
                            "variable i loop 10000\nlabel top\nprint \"step $i\"\nnext i\njump SELF top\n"
                            "print done\n");
  ASSERT_EQ(c.size(), 10001u);
  EXPECT_EQ(c[9999].args[0], "step 10000");
  EXPECT_EQ(c.back().args[0], "done");
}

// --- Data files ------------------------------------------------------------------------------------------

const std::string kDataHead =
    "title\n\n2 atoms\n1 atom types\n0 10 xlo xhi\n0 10 ylo yhi\n0 10 zlo zhi\n\nMasses\n\n1 63.55\n\n";
const std::string kAtoms = "Atoms # atomic\n\n1 1 1 1 1\n2 1 2 2 2\n\n";

std::string data_error(const std::string& name, const std::string& text) {
  try {
    read_lammps_data(write(name, text), wmd::SourcePos{});
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Issue29, DataSecondAtomsSectionIsRefused) {
  // A second Atoms section grew the atoms past the header's count; Velocities then wrote past its arrays.
  const std::string e = data_error(
      "twice.data", kDataHead + kAtoms + "Atoms\n\n3 1 3 3 3\n4 1 4 4 4\n\nVelocities\n\n1 0 0 0\n2 0 0 0\n");
  EXPECT_NE(e.find("the Atoms section appears twice"), std::string::npos) << e;
  EXPECT_NE(data_error("masses2.data", kDataHead + "Masses\n\n1 2\n\n" + kAtoms)
                .find("Masses section appears twice"),
            std::string::npos);
}

TEST(Issue29, DataVelocityOfOneAtomTwiceIsRefused) {
  const std::string e = data_error("vel2.data", kDataHead + kAtoms + "Velocities\n\n1 0 0 0\n1 1 1 1\n");
  EXPECT_NE(e.find("velocity of atom 1 is given twice"), std::string::npos) << e;
}

TEST(Issue29, DataImageFlagBeyondIntIsRefused) {
  const std::string e =
      data_error("img.data", kDataHead + "Atoms\n\n1 1 1 1 1 0 0 0\n2 1 2 2 2 4294967297 0 0\n");
  EXPECT_NE(e.find("image flag ix = 4294967297 is outside the range of an int"), std::string::npos) << e;
  const auto d = read_lammps_data(write("img_ok.data", kDataHead + "Atoms\n\n1 1 1 1 1 -2147483648 0 0\n"
                                                                   "2 1 2 2 2 2147483647 0 0\n"),
                                  wmd::SourcePos{});
  EXPECT_EQ(d.ix[0], -2147483647 - 1);
  EXPECT_EQ(d.ix[1], 2147483647);
}

TEST(Issue29, DataNonFiniteValuesAndExtraLinesAreRefused) {
  EXPECT_NE(data_error("nan.data", kDataHead + "Atoms\n\n1 1 nan 1 1\n2 1 2 2 2\n").find("expected x"),
            std::string::npos);
  EXPECT_NE(data_error("inf.data", kDataHead + "Atoms\n\n1 1 1 1e999 1\n2 1 2 2 2\n").find("expected y"),
            std::string::npos);
  EXPECT_NE(data_error("extra.data", kDataHead + kAtoms + "3 1 3 3 3\n").find("outside any section"),
            std::string::npos);
  EXPECT_NE(data_error("mass2.data",
                       "t\n\n1 atoms\n2 atom types\n0 1 xlo xhi\n0 1 ylo yhi\n0 1 zlo zhi\n\n"
                       "Masses\n\n1 1\n1 2\n\nAtoms\n\n1 1 0 0 0\n")
                .find("given twice"),
            std::string::npos);
}

TEST(Issue29, DataFromDevZeroOrADirectoryIsRefused) {
  std::string e;
  try {
    read_lammps_data("/dev/zero", wmd::SourcePos{"in", 3});
  } catch (const InputError& x) {
    e = x.what();
  }
  EXPECT_NE(e.find("data file '/dev/zero' is not a regular file"), std::string::npos) << e;
  try {
    read_lammps_data(wmd::test::scratch_dir("hostile_data_dir"), wmd::SourcePos{"in", 3});
    e.clear();
  } catch (const InputError& x) {
    e = x.what();
  }
  EXPECT_NE(e.find("is a directory"), std::string::npos) << e;
}

// --- YAML ------------------------------------------------------------------------------------------------

const std::string kYamlHead = "system:\n  lattice: {style: fcc, constant: 3.615}\n  cells: [2, 2, 2]\n";
const std::string kYamlPot = "potential:\n  style: eam\n  files: [Cu_u3.eam]\n";

std::string yaml_error(const std::string& name, const std::string& text,
                       const std::vector<std::pair<std::string, std::string>>& sets = {}) {
  try {
    read_yaml_input(write(name, text), sets);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Issue29, YamlScalarWhereAMappingIsExpectedIsAnInputError) {
  const std::string e = yaml_error("pot_scalar.yaml", kYamlHead + "potential: eam\nrun: 10\n");
  EXPECT_NE(e.find("pot_scalar.yaml:4: potential must be a mapping"), std::string::npos) << e;
}

TEST(Issue29, YamlNonScalarKeyIsAnInputError) {
  const std::string e = yaml_error("key_map.yaml", kYamlHead + kYamlPot + "? [run]\n: 10\n");
  EXPECT_NE(e.find("key_map.yaml:7: a mapping key must be a single value"), std::string::npos) << e;
  const std::string f = yaml_error("key_map2.yaml", kYamlHead + kYamlPot + "run: 10\noutput:\n  {a: 1}: 2\n");
  EXPECT_NE(f.find("a mapping key must be a single value"), std::string::npos) << f;
}

TEST(Issue29, YamlDuplicateKeyIsRefused) {
  const std::string e = yaml_error("dup.yaml", kYamlHead + kYamlPot + "run: 10\nrun: 20\n");
  EXPECT_NE(e.find("dup.yaml:8: duplicate key 'run' (first given at line 7)"), std::string::npos) << e;
}

TEST(Issue29, YamlEmptyStagesAreRefused) {
  const std::string e = yaml_error("stages.yaml", kYamlHead + kYamlPot + "stages: []\n");
  EXPECT_NE(e.find("stages.yaml:7: stages must list at least one stage"), std::string::npos) << e;
}

TEST(Issue29, YamlEmptyListsAreRefused) {
  const std::string e =
      yaml_error("elements.yaml", kYamlHead +
                                      "potential: {style: eam/alloy, file: x, elements: []}\n"
                                      "cascade: {pka_id: 1, energy_ev: 1, time_ps: 1, seed: 1}\n");
  EXPECT_NE(e.find("potential.elements must list at least one entry"), std::string::npos) << e;
}

TEST(Issue29, YamlBadSetValueIsAnInputError) {
  const std::string e = yaml_error("set.yaml", kYamlHead + kYamlPot + "run: 10\n", {{"run", "[1, 2"}});
  EXPECT_NE(e.find("--set run: invalid YAML value"), std::string::npos) << e;
}

TEST(Issue29, YamlFromDevZeroOrADirectoryIsRefused) {
  std::string e;
  try {
    read_yaml_input("/dev/zero", {});
  } catch (const InputError& x) {
    e = x.what();
  }
  EXPECT_NE(e.find("is not a regular file"), std::string::npos) << e;
}

TEST(Issue29, YamlAliasExplosionIsBounded) {
  std::string text = kYamlHead + kYamlPot + "run: 10\nx0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n";
  for (int k = 1; k < 12; ++k) {
    text += "x" + std::to_string(k) + ": &a" + std::to_string(k) + " [";
    for (int j = 0; j < 10; ++j) text += std::string(j ? ", " : "") + "*a" + std::to_string(k - 1);
    text += "]\n";
  }
  const auto t0 = std::chrono::steady_clock::now();
  const std::string e = yaml_error("alias.yaml", text);
  EXPECT_NE(e.find("more than 100000 nodes"), std::string::npos) << e;
  EXPECT_LT(seconds_since(t0), 5.0);
}

}  // namespace
