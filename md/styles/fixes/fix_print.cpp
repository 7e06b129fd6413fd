// fix print N "text" [file F | append F] [screen yes|no] [title T], as LAMMPS fix print: every N steps
// (and at a run's set-up when the step is a multiple of N) the text, with its $x, ${name} and $(formula)
// substituted then (computes invoked as for a thermo line), goes to the screen and log and to the file
// (headed by the title, default "# Fix print output for fix ID").
#include <fstream>

#include "md/styles/fix.hpp"

namespace wmd::md {
namespace {

class FixPrint : public Fix {
 public:
  FixPrint(const FixArgs& f, int64_t every, std::string text, std::string file, bool append, bool screen,
           std::string title)
      : Fix(f.id, f.style, f.group),
        every_(every),
        text_(std::move(text)),
        file_(std::move(file)),
        title_(std::move(title)),
        append_(append),
        screen_(screen),
        pos_(f.a.pos()) {}
  bool samples_at(int64_t step) const override { return step == next_; }

  void setup(FixContext& c) override {
    if (!opened_) open_file(c);
    // LAMMPS's init: the next multiple of N, or this step when it is one.
    next_ = c.s.step % every_ ? (c.s.step / every_) * every_ + every_ : c.s.step;
    end_of_step(c);
  }
  void end_of_step(FixContext& c) override {
    if (c.s.step != next_) return;
    if (!c.styles) return;
    c.styles->clearstep_computes();
    const std::string line = c.styles->substitute(text_, pos_);
    next_ = (c.s.step / every_) * every_ + every_;
    if (screen_) c.styles->print_line(line);
    if (out_.is_open()) {
      out_ << line << "\n";
      out_.flush();
      if (!out_) throw RunError("fix print " + id_ + ": cannot write '" + file_ + "'");
    }
  }

 private:
  void open_file(FixContext& c) {
    opened_ = true;
    if (file_.empty() || !c.comm.root()) return;
    out_.open(file_, append_ ? std::ios::app : std::ios::trunc);
    if (!out_) throw RunError("fix print " + id_ + ": cannot open file '" + file_ + "'");
    out_ << (title_.empty() ? "# Fix print output for fix " + id_ : title_) << "\n";
    out_.flush();
  }

  int64_t every_;
  std::string text_, file_, title_;
  bool append_, screen_;
  SourcePos pos_;
  int64_t next_ = -1;
  bool opened_ = false;
  std::ofstream out_;
};

std::unique_ptr<Fix> make(const FixArgs& f) {
  io::ArgCursor& a = f.a;
  if (a.peek().rfind("v_", 0) == 0) a.fail("fix print: a variable N (v_name) is not supported");
  const int64_t every = a.integer("N (steps between prints)", 1, 2000000000);
  const std::string text = a.word("the text to print");
  std::string file, title;
  bool append = false, screen = true;
  while (!a.done()) {
    const std::string k = a.choice("a fix print keyword", {"file", "append", "screen", "title"});
    if (k == "file" || k == "append") {
      file = a.word("a file name");
      append = k == "append";
    } else if (k == "screen") {
      screen = a.yes_no("screen");
    } else {
      title = a.word("a title");
    }
  }
  return std::make_unique<FixPrint>(f, every, text, file, append, screen, title);
}

}  // namespace

WMD_FIX_STYLE("print", make)

}  // namespace wmd::md
