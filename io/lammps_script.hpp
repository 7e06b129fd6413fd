// Reader for LAMMPS input scripts: comments, continuation lines, quotes, variables ($x, ${name}, $(expr)),
// `variable` and `include`, and the control flow LAMMPS's input class runs itself (`label`, `jump`, `next`,
// `if`, `quit`: io/script_control.cpp) — producing one Command at a time, as LAMMPS reads and executes line
// by line.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "io/command.hpp"
#include "io/expression.hpp"

namespace wmd::io {

/// A command (its continuation lines joined, or after variable substitution) longer than this is refused.
inline constexpr size_t kMaxCommandBytes = size_t(1) << 20;
/// An input script (or an included one) larger than this is refused.
inline constexpr size_t kMaxScriptBytes = size_t(64) << 20;
/// Equal-style variables may refer to others this deep (a true cycle is reported as one at any depth).
inline constexpr size_t kMaxVariableDepth = 1000;
/// All variables together may hold this much text.
inline constexpr size_t kMaxVariableBytes = size_t(256) << 20;

/// LAMMPS variables of styles index, loop, string, getenv, format and equal.
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
  /// The formula of an atom-style variable (evaluated per atom by its reader), or null for any other.
  const std::string* atom_formula(const std::string& name) const {
    const auto it = vars_.find(name);
    return it != vars_.end() && it->second.style == Style::atom ? &it->second.text : nullptr;
  }
  /// Executes `next NAME...`: advances index and loop variables; an exhausted one is deleted and the result
  /// is true (LAMMPS then skips the next `jump`).
  bool next(const Command& cmd);
  /// Sets the resolver for thermo keywords (temp, pe, step, ...) used inside expressions.
  void set_thermo_resolver(NameResolver resolver) { thermo_ = std::move(resolver); }
  /// Sets the resolver for group functions (count(ID), xcm(ID,dim), ...) used inside expressions.
  void set_call_resolver(CallResolver resolver) { calls_ = std::move(resolver); }
  /// The group function resolver (atom-style formulas, evaluated in md/, use it too).
  const CallResolver& call_resolver() const { return calls_; }

 private:
  enum class Style { index, loop, string, getenv, format, equal, atom };
  struct Var {
    Style style;
    std::string text;                 // the current value (index, loop, string), name (getenv), formula
    std::vector<std::string> values;  // index: every value
    size_t which = 0;                 // index and loop: the current value's place
    long long first = 0, last = 0;    // loop: the range
    bool pad = false;                 // loop: zero-padded to the width of `last`
  };
  /// Sets an index or loop variable's text to its current value.
  static void set_current(Var& v);
  static const char* style_name(Style s);
  static size_t bytes_of(const std::string& name, const Var& v);
  /// Stores `v` as `name` (replacing any), within kMaxVariableBytes.
  void put(const std::string& name, Var v, const SourcePos& pos);
  void erase(std::map<std::string, Var>::iterator it);
  /// Marks `name` as being evaluated while `f` runs: a variable met again on its own chain is a cycle.
  template <class F>
  auto evaluating(const std::string& name, const SourcePos& pos, F f) const;
  std::map<std::string, Var> vars_;
  size_t bytes_ = 0;  // the text all variables hold
  NameResolver thermo_;
  CallResolver calls_;
  mutable std::vector<std::string> chain_;  // the variables being evaluated, outermost first
  // Equal-style values already computed during the current outermost evaluation (nothing changes during
  // one), so `a = v_b+v_b`, `b = v_c+v_c`, ... costs one evaluation per variable, not 2^depth.
  mutable std::map<std::string, double> memo_;
};

/// Reads commands from a LAMMPS input file (and the files it includes).
class LammpsScript {
 public:
  /// Opens `path`; a missing file is an InputError at `from`.
  LammpsScript(const std::string& path, Variables& vars, const SourcePos& from);
  /// Produces the next command other than `variable`, `include` and the control flow (which it executes);
  /// false at the end or after `quit`.
  bool next(Command& cmd);
  /// Ends the reading after this many jumps (the dry run, whose state does not evolve, so a loop waiting for
  /// the dynamics would never end); 0: no limit.
  void limit_jumps(int64_t n) { jump_limit_ = n; }
  /// True when the command just produced belongs to a `run … every`'s segments.
  bool in_run_every() const { return !stack_.empty() && stack_.back().run_every; }
  /// Drops the rest of that `run … every` (LAMMPS's run stops its segments once fix halt expired the time
  /// limit).
  void end_run_every() {
    if (in_run_every()) stack_.pop_back();
  }
  /// The whole text of the top-level file, for logs and checkpoints.
  const std::string& text() const { return text_; }

 private:
  struct File {
    std::string path;
    std::vector<std::string> lines;
    size_t next = 0;
    bool commands = false;   // the commands of an `if` branch, all reported at the `if`'s position
    bool run_every = false;  // the segment runs and commands of a `run … every`
    SourcePos origin;        // that position
  };
  void open(const std::string& path, const SourcePos& from);
  std::string substitute(const std::string& line, const SourcePos& pos) const;
  // io/script_control.cpp
  /// Executes `label`, `jump`, `next`, `if` or `quit`; false for any other command.
  bool control(const Command& c);
  void jump(const Command& c);
  void run_if(const Command& c);
  /// `run ... every M cmds...`: pushes its segment runs and commands; false for any other run.
  bool run_every(const Command& c);
  /// While a jump looks for its label: true when this line is to be skipped (not yet the label).
  bool scanning_for_label(const std::string& line, const SourcePos& pos);
  /// The innermost frame that is a file (not an `if`'s commands).
  File& current_file(const SourcePos& pos);

  Variables& vars_;
  std::vector<File> stack_;
  std::string text_;
  std::string label_;            // the label a jump looks for (empty: none)
  SourcePos label_from_;         // the jump that looks for it
  bool skip_next_jump_ = false;  // `next` exhausted a variable: LAMMPS skips the next jump
  int64_t jumps_ = 0, jump_limit_ = 0;
};

/// Splits a line into words, honouring single and double quotes (which are removed).
std::vector<std::string> split_words(const std::string& line, const SourcePos& pos);
/// The lines of an input script (at most kMaxScriptBytes; a directory or device is refused), '\r' removed.
std::vector<std::string> read_script_lines(const std::string& path, const SourcePos& from);
/// Removes a '#' comment that is not inside quotes.
std::string strip_comment(const std::string& line);
/// LAMMPS's Boolean of `if`: numbers or words compared with == != < <= > >=, combined with ! && || |^ and
/// parentheses (no arithmetic, as LAMMPS's evaluate_boolean); strings compare with == and != only.
bool evaluate_boolean(const std::string& text, const SourcePos& pos);

}  // namespace wmd::io
