// `print text...` and `echo none|screen|log|both`.
#include "md/run/command_registry.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

void cmd_print(Simulation& sim, const io::Command& c) {
  std::string text;
  for (const auto& w : c.args) text += (text.empty() ? "" : " ") + w;
  if (!sim.dry_run) sim.log.line(text);
}

void cmd_echo(Simulation&, const io::Command& c) {
  io::ArgCursor a(c);
  a.choice("an echo style", {"none", "screen", "log", "both"});
  a.finish();
}

}  // namespace

WMD_COMMAND("print", cmd_print, kNoPhysics)
WMD_COMMAND("echo", cmd_echo, kNoPhysics)

}  // namespace wmd::md
