// fix ID group halt N attribute operator value [error hard|soft|continue] [message yes|no] [path DIR], as
// LAMMPS 2021's FixHalt: every N steps (at end_of_step) the attribute — `v_name` (an equal-style variable,
// computes cleared first), `tlimit` (the run's elapsed wall time in seconds, checked at steps projected from
// the speed so far), `diskfree` (free megabytes of the file system holding DIR, default ".") or `bondmax`
// (the longest bond: 0, atom_style atomic has none) — is compared with the value by <, <=, >, >=, ==, != or
// |^ (exactly one of the two is non-zero). When the condition holds, `error hard` stops the program with the
// message; `soft` (the default) and `continue` print it (unless `message no`) and set LAMMPS's expired
// timeout: the run ends after this step (its thermo and dump outputs only where they were due anyway), and
// later run and minimize commands do nothing — with `continue` the timeout is reset when the run ends, so the
// script's next run goes on. During minimize the condition is checked at the first force evaluation of every
// N-th iteration (LAMMPS's min_post_force); wafermd cannot end a minimisation early, so a soft or continue
// halt met there stops the program with an error rather than go on differently.
#include <fmt/format.h>
#include <sys/statvfs.h>

#include <chrono>
#include <cmath>

#include "md/core/comparison.hpp"
#include "md/styles/fix.hpp"

namespace wmd::md {
namespace {

enum class Attribute { bondmax, tlimit, diskfree, variable };
enum class OnHalt { hard, soft, go_on };

struct HaltSpec {
  int64_t nevery = 1;
  Attribute attribute = Attribute::variable;
  std::string var;  // without v_
  Comparison op = Comparison::lt;
  double value = 0.0;
  OnHalt on_halt = OnHalt::soft;
  bool message = true;
  std::string path = ".";
  SourcePos at;
};

class FixHalt : public Fix {
 public:
  FixHalt(const FixArgs& f, HaltSpec p) : Fix(f.id, f.style, f.group), p_(std::move(p)) {}
  bool reads_energy() const override { return p_.attribute == Attribute::variable; }
  // The variable is read at end_of_step of every N-th step only.
  bool reads_energy_at(int64_t step) const override { return reads_energy() && step % p_.nevery == 0; }

  void init(FixContext& c) override {
    // LAMMPS's init: the variable must still exist, tlimit's first check is the next multiple of N, and the
    // disk's free space must be readable.
    if (p_.attribute == Attribute::variable && (!c.styles || !c.styles->has_variable(p_.var)))
      fail_input(p_.at, "fix halt: could not find variable " + p_.var +
                            " (LAMMPS: \"Could not find fix halt "
                            "variable name\")");
    first_step_ = c.s.step;
    next_step_ = (c.s.step / p_.nevery) * p_.nevery + p_.nevery;
    tratio_ = 0.5;
    if (p_.attribute == Attribute::diskfree && disk_free(c) < 0.0)
      throw RunError("fix " + id_ + ": free disk space of '" + p_.path +
                     "' cannot be read (LAMMPS: \"Disk limit not supported by OS or illegal path\")");
  }
  // LAMMPS's timer starts when the loop does, after the set-up.
  void setup(FixContext&) override { start_ = std::chrono::steady_clock::now(); }

  void min_post_force(FixContext& c) override {
    if (c.s.step == min_step_) return;
    min_step_ = c.s.step;
    if (c.s.step % p_.nevery == 0) end_of_step(c);
  }

  void end_of_step(FixContext& c) override {
    if (c.s.step % p_.nevery != 0) return;
    double v = 0.0;
    switch (p_.attribute) {
      case Attribute::tlimit:
        if (c.s.step != next_step_) return;
        v = tlimit(c);
        break;
      case Attribute::diskfree:
        v = disk_free(c);
        break;
      case Attribute::bondmax:
        v = 0.0;  // no bonds in atom_style atomic: LAMMPS's maximum over an empty bond list
        break;
      case Attribute::variable:
        c.styles->clearstep_computes();  // a variable may invoke computes: they are computed afresh
        v = c.styles->variable(p_.var);
        break;
    }
    if (!met(v)) return;
    const std::string text =
        fmt::format("Fix halt condition for fix-id {} met on step {} with value {}", id_, c.s.step, v);
    if (p_.on_halt == OnHalt::hard) throw RunError(text);
    if (!c.timeout)  // minimize: its iterations cannot stop here
      throw RunError(text +
                     " during minimize: wafermd cannot end a minimization early as LAMMPS does "
                     "(\"walltime limit reached\"); unfix the halt before minimize");
    if (p_.message && c.styles) c.styles->print_line(text);
    if (c.timeout) *c.timeout = true;
  }

  void post_run(FixContext& c) override {
    if (p_.on_halt == OnHalt::go_on && c.timeout) *c.timeout = false;  // LAMMPS's reset_timeout
  }

 private:
  bool met(double v) const { return compare(v, p_.op, p_.value); }

  // Rank 0's elapsed seconds since the loop began; the next check is projected from the speed so far: to
  // half the limit first, then to the limit (LAMMPS's tratio), so the run stops near it.
  double tlimit(FixContext& c) {
    double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    c.comm.broadcast(&t, 1);
    if (t < p_.value && t > 0.0) {
      const double elapsed = static_cast<double>(c.s.step - first_step_);
      const int64_t final_step = first_step_ + static_cast<int64_t>(tratio_ * p_.value / t * elapsed);
      next_step_ = (final_step / p_.nevery) * p_.nevery + p_.nevery;
      if (next_step_ == c.s.step) next_step_ += p_.nevery;
      tratio_ = 1.0;
    } else if (t < p_.value) {
      next_step_ = c.s.step + p_.nevery;
    }
    return t;
  }

  // Free megabytes of the file system holding the path on rank 0 (statvfs's available blocks × block size,
  // as LAMMPS on Linux), −1 when it cannot be read.
  double disk_free(FixContext& c) const {
    double mb = -1.0;
    if (c.comm.root()) {
      struct statvfs fs;
      if (statvfs(p_.path.c_str(), &fs) == 0)
        mb = static_cast<double>(fs.f_bavail) * static_cast<double>(fs.f_bsize) / 1048576.0;
    }
    c.comm.broadcast(&mb, 1);
    return mb;
  }

  HaltSpec p_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  int64_t first_step_ = 0, next_step_ = 0, min_step_ = -1;
  double tratio_ = 0.5;
};

std::unique_ptr<Fix> make(const FixArgs& f) {
  io::ArgCursor& a = f.a;
  HaltSpec p;
  p.at = a.pos();
  p.nevery = a.integer("the check interval N (steps, > 0)", 1, 2000000000);
  const std::string attr = a.word("an attribute (tlimit, diskfree, bondmax or v_name)");
  if (attr == "tlimit") {
    p.attribute = Attribute::tlimit;
  } else if (attr == "diskfree") {
    p.attribute = Attribute::diskfree;
  } else if (attr == "bondmax") {
    p.attribute = Attribute::bondmax;
  } else if (attr.rfind("v_", 0) == 0 && attr.size() > 2 && attr.find('[') == std::string::npos) {
    p.attribute = Attribute::variable;
    p.var = attr.substr(2);
    if (!f.ctx.styles || !f.ctx.styles->has_variable(p.var))
      a.fail("fix halt: could not find variable " + p.var +
             " (LAMMPS: \"Could not find fix halt variable "
             "name\")");
    if (f.ctx.styles->has_atom_variable(p.var))
      a.fail("fix halt: variable " + p.var +
             " is not equal-style (LAMMPS: \"Fix halt variable is not "
             "equal-style variable\")");
  } else {
    a.fail("fix halt: invalid attribute '" + attr + "' (tlimit, diskfree, bondmax or v_name)");
  }
  p.op = read_comparison(a, "a fix halt operator");
  p.value = a.real("the value to compare with");
  while (!a.done()) {
    const std::string k = a.choice("a fix halt keyword", {"error", "message", "path"});
    if (k == "error") {
      const std::string e = a.choice("error hard, soft or continue", {"hard", "soft", "continue"});
      p.on_halt = e == "hard" ? OnHalt::hard : e == "soft" ? OnHalt::soft : OnHalt::go_on;
    } else if (k == "message") {
      const std::string m = a.choice("message yes or no", {"yes", "no", "on", "off", "true", "false"});
      p.message = m == "yes" || m == "on" || m == "true";
    } else {
      std::string dir = a.word("the path whose file system's free space diskfree reads");
      // LAMMPS strips one pair of outer quotes.
      if (dir.size() >= 2 && (dir.front() == '"' || dir.front() == '\'') && dir.back() == dir.front())
        dir = dir.substr(1, dir.size() - 2);
      p.path = dir;
    }
  }
  return std::make_unique<FixHalt>(f, std::move(p));
}

}  // namespace

WMD_FIX_STYLE("halt", make)

}  // namespace wmd::md
