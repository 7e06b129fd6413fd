// `shell cd|mkdir|mv|rm|rmdir|putenv ...`, done by wafermd itself with LAMMPS's semantics (cd and putenv on
// every rank, the file operations on rank 0; a failed file operation is a warning, a failed cd an error), and
// `shell PROGRAM args...` for any other word: as LAMMPS's Input::shell, the words joined by single spaces are
// run through the system shell (std::system) by rank 0, in the real run only, with LAMMPS's warning when the
// status is not zero. A LAMMPS script may run programs; wafermd follows LAMMPS so that scripts which copy or
// post-process files run unchanged (docs/lammps-scripts.md): run scripts you trust, as with lmp.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "md/run/command_registry.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

void warn(Simulation& sim, const std::string& what, const std::string& arg) {
  sim.log.line("WARNING: Shell command '" + what + " " + arg + "' failed: " + std::strerror(errno));
}

// Every rank reads the script itself, so the others wait here for rank 0's file operation or program: a later
// line (a `shell cd` into a directory it made, a file it copied) then sees its result on every rank, as in
// LAMMPS, whose ranks wait for the next line rank 0 broadcasts.
void wait_for_root(Simulation& sim) {
  int done = 1;
  sim.comm.broadcast(&done, 1);
}

void cmd_shell(Simulation& sim, const io::Command& c) {
  io::ArgCursor a(c);
  const std::string op = a.word("a shell command");
  static const std::vector<std::string> ops = {"cd", "mkdir", "mv", "rm", "rmdir", "putenv"};
  std::vector<std::string> args;
  while (!a.done()) args.push_back(a.word("an argument"));
  if (std::find(ops.begin(), ops.end(), op) == ops.end()) {
    if (sim.dry_run) return;
    if (sim.comm.root()) {
      std::string line = op;
      for (const auto& w : args) line += " " + w;
      // What wafermd printed so far comes before the program's own output.
      std::cout.flush();
      std::fflush(stdout);
      if (std::system(line.c_str()) != 0)
        sim.log.line("WARNING: Shell command returned with non-zero status");
    }
    wait_for_root(sim);
    return;
  }
  if (op == "cd" && args.size() != 1) a.fail("shell cd takes one directory");
  if (op == "mv" && args.size() != 2) a.fail("shell mv takes two names (old new)");
  if (args.empty()) a.fail("shell " + op + " needs at least one argument");
  if (op == "putenv") {
    for (const auto& kv : args) {
      const size_t eq = kv.find('=');
      if (eq == 0) a.fail("shell putenv needs NAME=value or NAME, got '" + kv + "'");
      // Every rank, in the dry run too: getenv variables read later must see it.
      ::setenv(kv.substr(0, eq).c_str(), eq == std::string::npos ? "" : kv.substr(eq + 1).c_str(), 1);
    }
    return;
  }
  if (op == "cd") {
    // The dry run follows a cd into a directory that exists (later relative paths are checked from
    // there; the program returns to its directory afterwards). One that a `shell mkdir` of the real run
    // will create is entered in thought only, so that the `cd ..` that leaves it again does not leave the
    // directory the script started from.
    if (sim.dry_run) {
      std::vector<std::string>& virt = sim.dry_virtual_dirs;
      std::string path = args[0];
      if (!path.empty() && path[0] == '/') {
        struct stat st;
        if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
          virt.clear();
          const int rc = ::chdir(path.c_str());
          (void)rc;  // a directory that exists but cannot be entered fails in the real run
          return;
        }
      }
      size_t start = 0;
      while (start <= path.size()) {
        const size_t slash = path.find('/', start);
        const std::string part =
            path.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
        start = slash == std::string::npos ? path.size() + 1 : slash + 1;
        if (part.empty() || part == ".") continue;
        struct stat st;
        if (part == "..") {
          if (!virt.empty()) {
            virt.pop_back();
          } else {
            const int rc = ::chdir("..");
            (void)rc;
          }
        } else if (virt.empty() && ::stat(part.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
          const int rc = ::chdir(part.c_str());
          (void)rc;
        } else {
          virt.push_back(part);
        }
      }
      return;
    }
    if (::chdir(args[0].c_str()) != 0) a.fail("shell cd '" + args[0] + "' failed: " + std::strerror(errno));
    return;
  }
  if (sim.dry_run) return;  // files are written by rank 0 in the real run
  struct Wait {             // ... and the other ranks go on when it is done
    Simulation& sim;
    ~Wait() { wait_for_root(sim); }
  } wait{sim};
  if (!sim.comm.root()) return;
  if (op == "mkdir") {
    for (const auto& d : args)
      if (::mkdir(d.c_str(), 0755) != 0) warn(sim, op, d);
  } else if (op == "rmdir") {
    for (const auto& d : args)
      if (::rmdir(d.c_str()) != 0) warn(sim, op, d);
  } else if (op == "rm") {
    for (const auto& f : args)
      if (::unlink(f.c_str()) != 0) warn(sim, op, f);
  } else if (std::rename(args[0].c_str(), args[1].c_str()) != 0) {
    warn(sim, op, args[0] + " " + args[1]);
  }
}

}  // namespace

WMD_COMMAND("shell", cmd_shell, kNoPhysics)

}  // namespace wmd::md
