// `set group|type|atom value type T`: changes atom types.
#include "md/run/command_registry.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

void cmd_set(Simulation& sim, const io::Command& c) {
  sim.require_box(c);
  io::ArgCursor a(c);
  const std::string style = a.choice("a set style", {"group", "type", "atom"});
  const std::string which = a.word("a group, type or atom id");
  a.choice("a set keyword", {"type"});
  const int new_type = static_cast<int>(a.integer("an atom type", 1, sim.state.ntypes));
  a.finish();
  Atoms& at = sim.state.atoms;
  uint32_t bit = 0;
  long long value = 0;
  if (style == "group")
    bit = sim.group_of(a, which);
  else if (!io::parse_integer(which, value))
    a.fail("set " + style + " expected an integer, got '" + which + "'");
  for (size_t i = 0; i < at.size(); ++i) {
    const bool hit = style == "group"  ? (at.mask[i] & bit) != 0
                     : style == "type" ? at.type[i] == value
                                       : at.id[i] == value;
    if (hit) at.type[i] = new_type;
  }
  sim.forces_current = false;
}

}  // namespace

WMD_COMMAND("set", cmd_set, kNoFlags)

}  // namespace wmd::md
