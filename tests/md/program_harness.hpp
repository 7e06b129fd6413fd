// Test helper: runs the wafermd executable (or any shell command) in a scratch directory and captures its
// exit status, stdout and stderr; reads text files.
#pragma once
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace wmd::test {

struct ProgramResult {
  int status;  // exit status, or -signal when killed by a signal
  std::string err, out;
};

/// The whole content of a text file ("" if missing).
inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Runs `command` through the shell in `dir` with stdout/stderr captured to files there.
inline ProgramResult run_shell(const std::string& dir, const std::string& command) {
  const std::string cmd = "cd '" + dir + "' && " + command + " >stdout.txt 2>stderr.txt";
  const int rc = std::system(cmd.c_str());
  int status = -1;
  if (WIFEXITED(rc)) {
    status = WEXITSTATUS(rc);
    if (status > 128) status = -(status - 128);  // the shell reports a child killed by signal N as 128+N
  }
  return ProgramResult{status, slurp(dir + "/stderr.txt"), slurp(dir + "/stdout.txt")};
}

/// Runs `wafermd ARGS` in `dir`.
inline ProgramResult run_wafermd_in(const std::string& dir, const std::string& args) {
  return run_shell(dir, std::string("'") + WAFERMD_EXE + "' " + args);
}

}  // namespace wmd::test
