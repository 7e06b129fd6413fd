// `clear`: LAMMPS's fresh start inside one script (Simulation::clear_system). Scripts that compute one
// property after another (a vacancy, then an interstitial energy) begin each part with it.
#include "md/run/command_registry.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

void cmd_clear(Simulation& sim, const io::Command& c) {
  io::ArgCursor a(c);
  a.finish();
  sim.clear_system(c);
}

}  // namespace

WMD_COMMAND("clear", cmd_clear, 0)

}  // namespace wmd::md
