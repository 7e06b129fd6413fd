// fix print N|v_name "text" [file F | append F] [screen yes|no] [title T], as LAMMPS fix print: every N
// steps (and at a run's set-up when the step is a multiple of N), or at the steps an equal-style variable
// names (its value at each print is the next step, which must lie ahead), the text, with its $x, ${name} and
// $(formula) substituted then (computes invoked as for a thermo line), goes to the screen and log (unless
// screen no) and to the file. The file is opened (file: truncated, append: appended to) when the fix is
// defined and headed by the title, "# Fix print output for fix ID" by default; `title ""` writes an empty
// line, as LAMMPS's fprintf of the title does.
#include <fstream>

#include "md/styles/fix.hpp"

namespace wmd::md {
namespace {

class FixPrint : public Fix {
 public:
  FixPrint(const FixArgs& f, int64_t every, std::string every_var, std::string text, const std::string& file,
           bool append, bool screen, const std::string* title)
      : Fix(f.id, f.style, f.group),
        every_(every),
        every_var_(std::move(every_var)),
        text_(std::move(text)),
        file_(file),
        screen_(screen),
        pos_(f.a.pos()) {
    // LAMMPS opens the file and writes the title in the fix's constructor: the dry run writes nothing.
    if (file.empty() || f.ctx.dry_run || (f.ctx.comm && !f.ctx.comm->root())) return;
    out_.open(file, append ? std::ios::app : std::ios::trunc);
    if (!out_) throw RunError("fix print " + id_ + ": cannot open file '" + file + "'");
    out_ << (title ? *title : "# Fix print output for fix " + id_) << "\n";
    out_.flush();
  }
  bool samples_at(int64_t step) const override { return step == next_; }

  void setup(FixContext& c) override {
    // LAMMPS's init: the variable's step (which must lie ahead), or the next multiple of N (this step when
    // it is one).
    if (!every_var_.empty())
      next_ = next_from_variable(c);
    else
      next_ = c.s.step % every_ ? (c.s.step / every_) * every_ + every_ : c.s.step;
    end_of_step(c);
  }
  void end_of_step(FixContext& c) override {
    if (c.s.step != next_) return;
    if (!c.styles) return;
    c.styles->clearstep_computes();
    const std::string line = c.styles->substitute(text_, pos_);
    next_ = every_var_.empty() ? (c.s.step / every_) * every_ + every_ : next_from_variable(c);
    if (screen_) c.styles->print_line(line);
    if (out_.is_open()) {
      out_ << line << "\n";
      out_.flush();
      if (!out_) throw RunError("fix print " + id_ + ": cannot write '" + file_ + "'");
    }
  }

 private:
  int64_t next_from_variable(FixContext& c) const {
    if (!c.styles || !c.styles->has_variable(every_var_) || c.styles->has_atom_variable(every_var_))
      fail_input(pos_,
                 "fix print " + id_ + ": variable " + every_var_ + " does not exist or is not equal-style");
    const int64_t next = static_cast<int64_t>(c.styles->variable(every_var_));
    if (next <= c.s.step)
      fail_input(pos_, "fix print " + id_ + ": variable " + every_var_ + " returned step " +
                           std::to_string(next) + ", not after step " + std::to_string(c.s.step) +
                           " (LAMMPS: \"Fix print timestep variable returned a bad timestep\")");
    return next;
  }

  int64_t every_;
  std::string every_var_;  // v_name instead of N: the steps to print at
  std::string text_, file_;
  bool screen_;
  SourcePos pos_;
  int64_t next_ = -1;
  std::ofstream out_;
};

std::unique_ptr<Fix> make(const FixArgs& f) {
  io::ArgCursor& a = f.a;
  int64_t every = 1;
  std::string every_var;
  if (a.peek().rfind("v_", 0) == 0)
    every_var = a.word("N or v_name").substr(2);
  else
    every = a.integer("N (steps between prints)", 1, 2000000000);
  const std::string text = a.word("the text to print");
  std::string file, title;
  bool append = false, screen = true, has_title = false;
  while (!a.done()) {
    const std::string k = a.choice("a fix print keyword", {"file", "append", "screen", "title"});
    if (k == "file" || k == "append") {
      file = a.word("a file name");
      append = k == "append";
    } else if (k == "screen") {
      screen = a.yes_no("screen");
    } else {
      title = a.word("a title");
      has_title = true;
    }
  }
  return std::make_unique<FixPrint>(f, every, every_var, text, file, append, screen,
                                    has_title ? &title : nullptr);
}

}  // namespace

WMD_FIX_STYLE("print", make)

}  // namespace wmd::md
