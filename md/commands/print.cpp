// `print TEXT [file F] [append F] [screen yes|no] [universe yes|no]` (the reader substituted TEXT's
// variables) and `echo none|screen|log|both`.
#include <fstream>

#include "io/text_file.hpp"
#include "md/run/command_registry.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

void cmd_print(Simulation& sim, const io::Command& c) {
  io::ArgCursor a(c);
  const std::string text = a.word("the text to print");
  std::string file;
  bool append = false, screen = true;
  while (!a.done()) {
    const std::string key = a.choice("a print keyword", {"file", "append", "screen", "universe"});
    if (key == "file" || key == "append") {
      file = a.word("a file name");
      append = key == "append";
    } else if (key == "screen") {
      screen = a.yes_no("screen");
    } else {
      a.yes_no("universe");  // one partition: the universe screen is the screen
    }
  }
  if (sim.dry_run) return;
  if (screen)
    sim.log.line(text);
  else
    sim.log.file_only(text);
  if (file.empty() || !sim.comm.root()) return;
  std::ofstream out(file, append ? std::ios::app : std::ios::trunc);
  if (!out) throw RunError("print: cannot open '" + file + "'");
  out << text << "\n";
  io::check_written(out, file, "print file");
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
