// Reader for LAMMPS input scripts: comments, continuation lines, quotes, variables ($x, ${name}, $(expr)),
// `variable` and `include` — producing one Command at a time, as LAMMPS reads and executes line by line.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "io/command.hpp"
#include "io/expression.hpp"

namespace wmd::io {

/// LAMMPS variables of styles index, string and equal.
class Variables {
 public:
  /// Defines an index variable from the command line (LAMMPS -var); the script cannot redefine it.
  void define_from_command_line(const std::string& name, const std::string& value);
  /// Executes a `variable NAME STYLE ...` command.
  void define(const Command& cmd);
  /// Text that $name or ${name} substitutes.
  std::string text(const std::string& name, const SourcePos& pos) const;
  /// Numeric value of a variable (equal style evaluates its formula).
  double value(const std::string& name, const SourcePos& pos) const;
  /// Evaluates an expression with v_NAME references and the thermo keyword resolver.
  double evaluate(const std::string& expr, const SourcePos& pos) const;
  /// True when a variable of that name exists.
  bool defined(const std::string& name) const { return vars_.count(name) != 0; }
  /// Sets the resolver for thermo keywords (temp, pe, step, ...) used inside expressions.
  void set_thermo_resolver(NameResolver resolver) { thermo_ = std::move(resolver); }

 private:
  enum class Style { index, string, equal };
  struct Var {
    Style style;
    std::string text;
  };
  std::map<std::string, Var> vars_;
  NameResolver thermo_;
  mutable int depth_ = 0;  // guards against variables that refer to themselves
};

/// Reads commands from a LAMMPS input file (and the files it includes).
class LammpsScript {
 public:
  /// Opens `path`; a missing file is an InputError at `from`.
  LammpsScript(const std::string& path, Variables& vars, const SourcePos& from);
  /// Produces the next command other than `variable`/`include` (which it executes); false at the end.
  bool next(Command& cmd);
  /// The whole text of the top-level file, for logs and checkpoints.
  const std::string& text() const { return text_; }

 private:
  struct File {
    std::string path;
    std::vector<std::string> lines;
    size_t next = 0;
  };
  void open(const std::string& path, const SourcePos& from);
  std::string substitute(const std::string& line, const SourcePos& pos) const;

  Variables& vars_;
  std::vector<File> stack_;
  std::string text_;
};

/// Splits a line into words, honouring single and double quotes (which are removed).
std::vector<std::string> split_words(const std::string& line, const SourcePos& pos);
/// Removes a '#' comment that is not inside quotes.
std::string strip_comment(const std::string& line);

}  // namespace wmd::io
