// The run summary's "CPU use" line is measured as LAMMPS's Finish measures it: the process's CPU time over
// the step loop against the loop's wall time. A run stopped for two seconds inside its loop (SIGSTOP, then
// SIGCONT) used the CPU for a small share of that loop's wall time, and says so.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "sim_harness.hpp"

namespace {

namespace fs = std::filesystem;

TEST(RunSummary, CpuUseIsMeasuredOverTheLoop) {
  const std::string dir = wmd::test::scratch_dir("run_summary_cpu");
  // A multi-file dump: frame.1000.txt appears (flushed) once the loop has reached step 1000.
  std::ofstream(dir + "/in.cpu") << wmd::test::kCuScript
                                 << "fix 1 all nve\nthermo 1000\ndump d all custom 1000 frame.*.txt id\n"
                                    "run 4000\n";
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (chdir(dir.c_str()) != 0) _exit(127);
    if (!freopen("stdout.txt", "w", stdout) || !freopen("stderr.txt", "w", stderr)) _exit(127);
    execl(WAFERMD_EXE, WAFERMD_EXE, "run", "in.cpu", "--output", "out", static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  bool exited = false, stopped = false;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!exited && std::chrono::steady_clock::now() < give_up) {
    if (waitpid(pid, &status, WNOHANG) == pid) {
      exited = true;
    } else if (fs::exists(dir + "/frame.1000.txt")) {
      kill(pid, SIGSTOP);  // inside the loop: wall time passes, CPU time does not
      std::this_thread::sleep_for(std::chrono::seconds(2));
      kill(pid, SIGCONT);
      stopped = true;
      break;
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  if (!exited) {
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
  }
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "exit status " << status;
  ASSERT_TRUE(stopped) << "the run ended before step 1000 could be seen; make it longer";
  std::ifstream in(dir + "/out/log.txt");
  std::stringstream log;
  log << in.rdbuf();
  std::smatch m;
  const std::string text = log.str();
  ASSERT_TRUE(
      std::regex_search(text, m, std::regex(R"(\n([0-9.]+)% CPU use with 1 MPI tasks x 1 OpenMP threads\n)")))
      << text;
  const double use = std::stod(m[1]);
  EXPECT_GT(use, 0.0) << m[0];
  EXPECT_LT(use, 80.0) << "a loop stopped for 2 s of its wall time cannot have used the CPU throughout: "
                       << m[0];
}

}  // namespace
