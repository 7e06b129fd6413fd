// LAMMPS script reading: comments, continuations, quotes, variables, expressions, include; errors name the
// line.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "io/lammps_script.hpp"
#include "scratch_file.hpp"

namespace {

using namespace wmd::io;

std::string write(const std::string& name, const std::string& text) {
  return wmd::test::write_scratch(name, text);
}

std::vector<Command> read_all(const std::string& path, Variables& vars) {
  LammpsScript s(path, vars, wmd::SourcePos{});
  std::vector<Command> out;
  Command c;
  while (s.next(c)) out.push_back(c);
  return out;
}

TEST(LammpsScript, SubstitutesVariablesLikeTheBenchInput) {
  Variables v;
  const auto cmds = read_all(write("bench.in",
                                   "variable x index 2\nvariable xx equal 20*$x\n"
                                   "region box block 0 ${xx} 0 $(v_xx/4) 0 1 # comment\n"),
                             v);
  ASSERT_EQ(cmds.size(), 1u);
  EXPECT_EQ(cmds[0].name, "region");
  EXPECT_EQ(cmds[0].args[3], "40");
  EXPECT_EQ(cmds[0].args[5], "10");
  EXPECT_EQ(cmds[0].pos.line, 3);
}

TEST(LammpsScript, CommandLineVarOverridesIndexVariable) {
  Variables v;
  v.define_from_command_line("x", "3");
  const auto cmds = read_all(write("var.in", "variable x index 1\nprint $x\n"), v);
  EXPECT_EQ(cmds[0].args[0], "3");
}

TEST(LammpsScript, ContinuationQuotesAndInclude) {
  const std::string inc = write("inc.in", "timestep 0.002\n");
  Variables v;
  const auto cmds = read_all(write("main.in", "print \"a # b\" &\n  c\ninclude " + inc + "\nrun 5\n"), v);
  ASSERT_EQ(cmds.size(), 3u);
  EXPECT_EQ(cmds[0].args[0], "a # b");
  EXPECT_EQ(cmds[0].args[1], "c");
  EXPECT_EQ(cmds[1].name, "timestep");
  EXPECT_EQ(cmds[1].pos.file, inc);
  EXPECT_EQ(cmds[2].pos.line, 4);
}

TEST(LammpsScript, ExpressionsFollowPrecedence) {
  Variables v;
  const wmd::SourcePos p;
  EXPECT_DOUBLE_EQ(v.evaluate("2+3*4^2", p), 50.0);
  EXPECT_DOUBLE_EQ(v.evaluate("-(1+2)*sqrt(16)", p), -12.0);
  EXPECT_DOUBLE_EQ(v.evaluate("3>2 && 1<0 || 5==5", p), 1.0);
  // == binds looser than < and >, as in LAMMPS: 3 == (3 > 0) is false.
  EXPECT_DOUBLE_EQ(v.evaluate("3 == 3 > 0", p), 0.0);
  EXPECT_DOUBLE_EQ(v.evaluate("1 |^ 0", p), 1.0);
  // LAMMPS's round(): halves go up.
  EXPECT_DOUBLE_EQ(v.evaluate("round(-2.5)", p), -2.0);
  // min() and max() are LAMMPS's special functions of a vector (sum(c_ID), ...), not of two numbers.
  EXPECT_THROW(v.evaluate("min(2,7)", p), wmd::InputError);
}

TEST(LammpsScript, PowerAndUnaryMinusAsLammps) {
  Variables v;
  const wmd::SourcePos p;
  EXPECT_DOUBLE_EQ(v.evaluate("-2^2", p), 4.0);    // unary minus binds tighter than ^
  EXPECT_DOUBLE_EQ(v.evaluate("2^3^2", p), 64.0);  // ^ groups from the left
  EXPECT_DOUBLE_EQ(v.evaluate("2^-1", p), 0.5);
}

TEST(LammpsScript, BooleansAsLammpsIf) {
  const wmd::SourcePos p;
  EXPECT_TRUE(evaluate_boolean("2 > 1 && !(3 < 2)", p));
  EXPECT_TRUE(evaluate_boolean("fcc == fcc", p));
  EXPECT_TRUE(evaluate_boolean("fcc != bcc || 0", p));
  EXPECT_FALSE(evaluate_boolean("1 |^ 1", p));
  EXPECT_TRUE(evaluate_boolean("1.5e0 >= 1.5", p));
  EXPECT_THROW(evaluate_boolean("abc < 2", p), wmd::InputError);
  EXPECT_THROW(evaluate_boolean("(1 > 0", p), wmd::InputError);
}

TEST(LammpsScript, LoopRunsItsBodyOncePerValue) {
  Variables v;
  const auto cmds = read_all(write("loop.in",
                                   "variable i loop 2 4 pad\nlabel top\nprint \"i=$i\"\nnext i\n"
                                   "jump SELF top\nprint end\n"),
                             v);
  ASSERT_EQ(cmds.size(), 4u);
  EXPECT_EQ(cmds[0].args[0], "i=2");
  EXPECT_EQ(cmds[2].args[0], "i=4");
  EXPECT_EQ(cmds[3].args[0], "end");
  EXPECT_EQ(cmds[3].pos.line, 6);
}

TEST(LammpsScript, UndefinedVariableIsAnErrorAtItsLine) {
  Variables v;
  try {
    read_all(write("undef.in", "units metal\n\nprint ${nope}\n"), v);
    FAIL();
  } catch (const wmd::InputError& e) {
    EXPECT_EQ(e.line(), 3);
    EXPECT_NE(std::string(e.what()).find("nope"), std::string::npos);
  }
}

TEST(LammpsScript, MalformedExpressionIsAnError) {
  Variables v;
  EXPECT_THROW(v.evaluate("2*(3+", wmd::SourcePos{}), wmd::InputError);
  EXPECT_THROW(v.evaluate("1/0", wmd::SourcePos{}), wmd::InputError);
  EXPECT_THROW(v.evaluate("foo+1", wmd::SourcePos{}), wmd::InputError);
}

TEST(LammpsScript, WordsCommentsAndUtf8AsLammps2021) {
  const wmd::SourcePos p;
  EXPECT_EQ(split_words("print \"a b\" 'c \"d' \"\"\"e 'f\" g\"\"\" h", p),
            (std::vector<std::string>{"print", "a b", "c \"d", "e 'f\" g", "h"}));
  EXPECT_THROW(split_words("print \"a\"b", p), wmd::InputError);  // quote not followed by white space
  EXPECT_THROW(split_words("print \"a \\\"b\\\" c\"", p), wmd::InputError);  // no escapes in LAMMPS
  EXPECT_EQ(strip_comment("print \"# a\" '#b' \"\"\"#c\"\"\" # d"), "print \"# a\" '#b' \"\"\"#c\"\"\" ");
  EXPECT_EQ(strip_comment("print a'b # c"), "print a'b # c");  // lmp 2021: an opened quote hides the '#'
  // Curly quotes, Unicode spaces and minus to ASCII; the lead byte of an unknown character dropped.
  EXPECT_EQ(utf8_to_ascii("\xe2\x80\x9cx\xe2\x80\x9d \xe2\x80\x98y\xe2\x80\x99 a\xc2\xa0"
                          "b 5\xe2\x88\x92"
                          "2 \xc3\xa9"),
            "\"x\" 'y' a b 5-2 \xa9");
  EXPECT_TRUE(lammps_real_format("%10.4f eV"));
  EXPECT_TRUE(lammps_real_format("% 8.3E"));
  EXPECT_FALSE(lammps_real_format("%f"));
  EXPECT_FALSE(lammps_real_format("%-8.3f"));
}

TEST(LammpsScript, LongTripleQuotedTextJoinsInLinearTime) {
  // LAMMPS joins the lines of a triple-quoted text (a blank line inside is dropped, as lmp 2021 does); a
  // long one is read at once.
  std::string text = "print \"\"\"a\n\nb\"\"\"\nprint \"\"\"\n";
  for (int k = 0; k < 150000; ++k) text += "xxxxx\n";
  text += "\"\"\"\n";
  Variables v;
  const auto t0 = std::chrono::steady_clock::now();
  const auto cmds = read_all(write("triple.in", text), v);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 2.0);
  ASSERT_EQ(cmds.size(), 2u);
  EXPECT_EQ(cmds[0].args[0], "a\nb");
  EXPECT_EQ(cmds[1].args[0].size(), 1 + 150000u * 6);  // the line break after the opening quotes too
}

TEST(ArgCursor, ChecksTypesAndRanges) {
  Command c;
  c.name = "thermo";
  c.args = {"abc"};
  c.pos = wmd::SourcePos{"f", 4};
  ArgCursor a(c);
  try {
    a.integer("the interval", 0, 10);
    FAIL();
  } catch (const wmd::InputError& e) {
    EXPECT_EQ(std::string(e.what()), "f:4: 'thermo' expected the interval (an integer), got 'abc'");
  }
  Command d;
  d.name = "timestep";
  d.args = {"-1"};
  d.pos = wmd::SourcePos{"f", 5};
  ArgCursor b(d);
  EXPECT_THROW(b.positive("dt"), wmd::InputError);
}

}  // namespace
