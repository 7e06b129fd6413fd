// Reader for LAMMPS input scripts, following the parsing rules of Debian's LAMMPS (29 Sep 2021, input.cpp):
// lines joined at a trailing '&' and across triple quotes, '#' comments outside quotes, UTF-8 look-alikes
// replaced by ASCII, $x, ${name} and $(formula[:format]) substituted outside quotes (the inserted text is not
// scanned again), words split at white space with single, double and triple quotes; `variable` and
// `include`, and the control flow LAMMPS's input class runs itself (`label`, `jump`, `next`, `if`, `quit`:
// io/script_control.cpp) — producing one Command at a time, as LAMMPS reads and executes line by line.
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
/// An atomfile variable's file may list at most this many atoms in one set.
inline constexpr long long kMaxAtomfileLines = 100000000;

/// The values an atomfile-style variable holds now: atom ID -> value (atoms not listed have 0).
using AtomFileValues = std::map<int64_t, double>;

/// LAMMPS variables of styles index, loop, string, getenv, format, internal, equal, atom, file and atomfile.
class Variables {
 public:
  Variables();
  ~Variables();
  Variables(const Variables&) = delete;
  Variables& operator=(const Variables&) = delete;

  /// Defines an index variable from the command line (LAMMPS -var); the script cannot redefine it.
  void define_from_command_line(const std::string& name, const std::vector<std::string>& values);
  void define_from_command_line(const std::string& name, const std::string& value) {
    define_from_command_line(name, std::vector<std::string>{value});
  }
  /// Executes a `variable NAME STYLE ...` command (LAMMPS's argument counts and redefinition rules).
  void define(const Command& cmd);
  /// Text that $name or ${name} substitutes (LAMMPS's Variable::retrieve); null-like failures are
  /// InputErrors naming the variable.
  std::string text(const std::string& name, const SourcePos& pos) const;
  /// Numeric value of a variable as a formula reads v_NAME: an equal-style one through the 15 digits its
  /// text has, any other through its text as C's atof reads it (LAMMPS: "abc" is 0).
  double value(const std::string& name, const SourcePos& pos) const;
  /// Evaluates an equal-style formula (v_NAME references, thermo keywords and functions from the resolvers).
  double evaluate(const std::string& expr, const SourcePos& pos) const;
  /// LAMMPS's Input::substitute: $x, ${name} and $(formula[:format]) outside quotes, the inserted text not
  /// scanned again.
  std::string substitute(const std::string& text, const SourcePos& pos) const;
  /// True when a variable of that name exists.
  bool defined(const std::string& name) const { return vars_.count(name) != 0; }
  /// The formula of an atom-style variable (evaluated per atom by its reader), or null for any other.
  const std::string* atom_formula(const std::string& name) const;
  /// The current values of an atomfile-style variable, or null for any other.
  const AtomFileValues* atomfile(const std::string& name) const;
  /// True for the styles whose value is one number a formula may read (equal, internal).
  bool equal_style(const std::string& name) const;
  /// The style of a variable ("equal", "atom", ...), empty when undefined.
  std::string style_of(const std::string& name) const;
  /// Where a variable was defined (errors of a formula evaluated later, by thermo or a fix, name it).
  SourcePos position(const std::string& name) const;
  /// Executes `next NAME...`: advances index, loop, file and atomfile variables; an exhausted one is deleted
  /// and the result is true (LAMMPS then skips the next `jump`).
  bool next(const Command& cmd);
  /// The special function next(NAME) of a file-style variable: its value now, then the file's next one.
  double next_file_value(const std::string& name, const SourcePos& pos);
  /// The special function next(NAME) of an atomfile-style variable: its values now, then the next set.
  AtomFileValues next_atomfile_values(const std::string& name, const SourcePos& pos);
  /// Sets the resolver for thermo keywords (temp, pe, step, ...) used inside expressions.
  void set_thermo_resolver(NameResolver resolver) {
    thermo_ = [r = std::move(resolver)](const std::string& w, const SourcePos&, double& v) {
      return r(w, v);
    };
  }
  /// The same, told where the formula is used.
  void set_keyword_resolver(KeywordResolver resolver) { thermo_ = std::move(resolver); }
  /// Sets the resolver for the functions whose arguments are words (group functions, is_defined(), sum(),
  /// next(), ...) used inside expressions.
  void set_call_resolver(CallResolver resolver) { calls_ = std::move(resolver); }
  /// Sets the clock that step-dependent math functions (ramp, stagger, swiggle, ...) read.
  void set_clock(ClockResolver clock) { clock_ = std::move(clock); }
  /// Sets the check an atomfile variable makes before reading atom IDs: it returns the largest atom ID and
  /// fails (LAMMPS's "Cannot use atomfile-style variable unless an atom map exists") where none can be read.
  void set_atom_ids(std::function<int64_t(const SourcePos&)> max_id) { atom_ids_ = std::move(max_id); }
  /// The function resolver (atom-style formulas, evaluated in md/, use it too).
  const CallResolver& call_resolver() const { return calls_; }
  /// The clock (atom-style formulas, evaluated in md/, use it too).
  const ClockResolver& clock() const { return clock_; }

 private:
  enum class Style { index, loop, string, getenv, format, internal, equal, atom, file, atomfile };
  struct Reader;  // the open file of a file or atomfile variable
  struct Var {
    Style style = Style::string;
    std::string text;                 // the current value (index, loop, string, file), name (getenv), formula
    std::vector<std::string> values;  // index: every value
    size_t which = 0;                 // index and loop: the current value's place
    long long first = 0, last = 0;    // loop: the range
    int pad = 0;                      // loop: zero-padded to this width
    double number = 0.0;              // internal: the value
    std::shared_ptr<Reader> reader;   // file, atomfile
    std::shared_ptr<AtomFileValues> atoms;  // atomfile: the values read
    SourcePos pos;                          // where it was defined
  };
  static Var var_of(Style s, std::string text, std::vector<std::string> values);
  /// Sets an index or loop variable's text to its current value.
  static void set_current(Var& v);
  static const char* style_name(Style s);
  static size_t bytes_of(const std::string& name, const Var& v);
  /// Stores `v` as `name` (replacing any), within kMaxVariableBytes.
  void put(const std::string& name, Var v, const SourcePos& pos);
  void erase(std::map<std::string, Var>::iterator it);
  /// Reads the next value of a file variable into its text; false at the end of the file.
  bool read_scalar(Var& v, const SourcePos& pos);
  /// Reads the next set of an atomfile variable; false at the end of the file.
  bool read_peratom(Var& v, const SourcePos& pos);
  /// Marks `name` as being evaluated while `f` runs: a variable met again on its own chain is a cycle.
  template <class F>
  auto evaluating(const std::string& name, const SourcePos& pos, F f) const;
  std::map<std::string, Var> vars_;
  size_t bytes_ = 0;  // the text all variables hold
  KeywordResolver thermo_;
  CallResolver calls_;
  ClockResolver clock_;
  std::function<int64_t(const SourcePos&)> atom_ids_;
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
  /// Where LAMMPS's warnings go (a line each; none is given: they are dropped).
  void set_warning_sink(std::function<void(const std::string&)> sink) { warn_ = std::move(sink); }
  /// Called before each line is read (a signal check: a loop of `variable`, `print` and `jump` alone may
  /// never return a command); it may throw.
  void set_interrupt_check(std::function<void()> check) { interrupt_ = std::move(check); }
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
  /// The next command's text from `f` as LAMMPS's Input::file joins it ('&' and triple quotes); false at the
  /// end of the file.
  bool read_joined(File& f, std::string& line, SourcePos& pos);
  /// LAMMPS's Input::parse: comment, UTF-8 replacement, substitution (not while scanning for a label), words.
  /// `text` is the line after these steps, before the split.
  std::vector<std::string> parse(const std::string& line, const SourcePos& pos, bool substitute,
                                 std::string& text);
  // io/script_control.cpp
  /// Executes `label`, `jump`, `next`, `if` or `quit`; false for any other command.
  bool control(const Command& c);
  void jump(const Command& c);
  void run_if(const Command& c);
  /// `run ... every M cmds...`: pushes its segment runs and commands; false for any other run.
  bool run_every(const Command& c);
  /// The innermost frame that is a file (not an `if`'s commands).
  File& current_file(const SourcePos& pos);

  Variables& vars_;
  std::vector<File> stack_;
  std::string text_;
  std::string label_;            // the label a jump looks for (empty: none)
  SourcePos label_from_;         // the jump that looks for it
  bool skip_next_jump_ = false;  // `next` exhausted a variable: LAMMPS skips the next jump
  int64_t jumps_ = 0, jump_limit_ = 0;
  bool utf8_warned_ = false;  // LAMMPS warns about non-ASCII input once
  std::function<void(const std::string&)> warn_;
  std::function<void()> interrupt_;
};

/// LAMMPS's Input::nextword over a whole line: words split at white space; a word starting with a single,
/// double or triple quote runs to the matching quote (which must be followed by white space) and loses its
/// quotes.
std::vector<std::string> split_words(const std::string& line, const SourcePos& pos);
/// The lines of an input script (at most kMaxScriptBytes; a directory or device is refused), '\r' removed.
std::vector<std::string> read_script_lines(const std::string& path, const SourcePos& from);
/// Removes a '#' comment that is not inside single, double or triple quotes (LAMMPS's Input::parse).
std::string strip_comment(const std::string& line);
/// LAMMPS's utils::utf8_subst (2021): non-breaking and other Unicode spaces become ' ', curly quotes ' and
/// ", the Unicode minus and modifier plus/minus - and +; of any other multi-byte character the lead byte is
/// dropped and the rest kept, as LAMMPS does.
std::string utf8_to_ascii(const std::string& text);
/// True when a byte of `text` is not ASCII.
bool has_non_ascii(const std::string& text);
/// LAMMPS's check of a `variable format` or $(...:format) format: somewhere "%[0-9 ]*.[0-9]+[efgEFG]".
bool lammps_real_format(const std::string& format);
/// LAMMPS's Boolean of `if`: numbers or words compared with == != < <= > >=, combined with ! && || |^ and
/// parentheses (no arithmetic, as LAMMPS's evaluate_boolean); strings compare with == and != only.
bool evaluate_boolean(const std::string& text, const SourcePos& pos);

}  // namespace wmd::io
