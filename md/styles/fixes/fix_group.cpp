// Fix GROUP: the updater of a dynamic group (`group ID dynamic parent [region R] [var V] [every N]`), created
// by the group command as LAMMPS's FixGroup is: at the set-up of every run and every N steps after the first
// half of the step, the group becomes the atoms of the parent group inside the region for which the
// atom-style variable is non-zero (evaluated with fresh computes, as LAMMPS's clearstep before it).
#include "md/styles/fix.hpp"

namespace wmd::md {
namespace {

class FixGroup : public Fix {
 public:
  FixGroup(std::string id, uint32_t parent, uint32_t bit, int every, std::string var, SourcePos at)
      : Fix(std::move(id), "GROUP", parent),
        bit_(bit),
        every_(every),
        var_(std::move(var)),
        at_(std::move(at)) {}
  void setup(FixContext& c) override { assign(c); }
  void post_integrate(FixContext& c) override {
    if (c.s.step % every_ == 0) assign(c);
  }
  bool reads_energy() const override { return false; }

 private:
  void assign(FixContext& c) {
    State& s = c.s;
    if (!var_.empty()) {
      if (!c.styles || !c.styles->has_atom_variable(var_))
        fail_input(at_, "group dynamic: variable " + var_ + " does not exist or is not atom-style");
      c.styles->clearstep_computes();
      c.styles->atom_variable(var_, at_, values_);
    }
    if (has_region_) region_.prematch();
    Atoms& a = s.atoms;
    for (size_t i = 0; i < a.size(); ++i) {
      const bool in = selected(s, i) && (var_.empty() || values_[i] != 0.0);
      a.mask[i] = in ? (a.mask[i] | bit_) : (a.mask[i] & ~bit_);
    }
  }
  uint32_t bit_;
  int every_;
  std::string var_;
  SourcePos at_;
  std::vector<double> values_;
};

// Arguments (written by the group command): the dynamic group's name, then [region R] [every N].
std::unique_ptr<Fix> make_fix_group(const FixArgs& f) {
  const std::string name = f.a.word("the dynamic group");
  const uint32_t bit = f.ctx.s.group_bit(name);
  if (!bit) f.a.fail("unknown group '" + name + "'");
  Region region;
  bool has_region = false;
  int every = 1;
  std::string var;
  while (!f.a.done()) {
    const std::string k = f.a.choice("a dynamic group keyword", {"region", "var", "every"});
    if (k == "var") {
      var = f.a.word("an atom-style variable");
      if (f.ctx.styles && !f.ctx.styles->has_atom_variable(var))
        f.a.fail("group dynamic: variable " + var + " does not exist or is not atom-style (LAMMPS)");
    } else if (k == "region") {
      const std::string rid = f.a.word("a region ID");
      const auto it = f.ctx.regions.find(rid);
      if (it == f.ctx.regions.end()) f.a.fail("unknown region '" + rid + "'");
      region = it->second, has_region = true;
    } else {
      every = static_cast<int>(f.a.integer("the update interval", 1, 1000000000));
    }
  }
  auto fix = std::make_unique<FixGroup>(f.id, f.group, bit, every, var, f.a.pos());
  if (has_region) fix->set_region(region);
  return fix;
}

}  // namespace

WMD_FIX_STYLE("GROUP", make_fix_group)

}  // namespace wmd::md
