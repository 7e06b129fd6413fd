// `neighbor skin bin|nsq` and `neigh_modify every|delay|check|once ...`: the neighbour-list policy.
#include "md/run/command_registry.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

void cmd_neighbor(Simulation& sim, const io::Command& c) {
  io::ArgCursor a(c);
  sim.neighbor.skin = a.non_negative("the skin distance (Å)");
  a.choice("a binning style", {"bin", "nsq"});
  a.finish();
}

void cmd_neigh_modify(Simulation& sim, const io::Command& c) {
  io::ArgCursor a(c);
  if (a.done()) a.fail("neigh_modify needs keywords (every, delay, check, once, one, page)");
  while (!a.done()) {
    const std::string key =
        a.choice("a neigh_modify keyword", {"every", "delay", "check", "once", "one", "page"});
    if (key == "every")
      sim.neighbor.every = static_cast<int>(a.integer("every", 1, 1000000000));
    else if (key == "delay")
      sim.neighbor.delay = static_cast<int>(a.integer("delay", 0, 1000000000));
    else if (key == "check")
      sim.neighbor.check = a.yes_no("check");
    else if (key == "once")
      sim.neighbor.once = a.yes_no("once");
    else
      a.integer(key, 1, 2000000000);  // list capacities: wafermd grows its lists as needed
  }
}

}  // namespace

WMD_COMMAND("neighbor", cmd_neighbor, kNoFlags)
WMD_COMMAND("neigh_modify", cmd_neigh_modify, kNoFlags)

}  // namespace wmd::md
