#include "md/programs/scaling_command.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <thread>
#include <tuple>

#include "base/error.hpp"
#include "io/output_files.hpp"
#include "io/text_file.hpp"
#include "md/programs/program.hpp"

extern char** environ;

namespace wmd::md {
namespace fs = std::filesystem;
namespace {

// One finished run: what report.json says about its step loop.
struct RunRow {
  int ranks = 0;
  double steps_per_second = 0, atom_steps_per_second = 0;
  double force = 0, neighbor = 0, comm = 0, other = 0, peak_rss_mb = 0;
  double comm_wait = 0;  // the ranks' average time blocked on each other (report.json comm_wait.avg)
  double host_steal =
      std::nan("");  // the ranks' average share of CPU time the hypervisor took (host_steal.avg)
  int64_t atoms = 0, steps = 0;
};

bool is_yaml(const std::string& path) {
  const std::string ext = fs::path(path).extension().string();
  return ext == ".yaml" || ext == ".yml";
}

// Runs argv with stdout into `log` and stderr there too or into `errlog` (in directory `cwd` when not
// empty); returns the exit status
// (128 + signal when killed, 127 when it cannot start). MPI variables inherited from this process (itself
// started as an MPI singleton) are removed so the child mpirun starts a fresh job.
int spawn(const std::vector<std::string>& argv, const std::string& log, const std::string& cwd,
          const std::string& errlog = "") {
  const pid_t pid = fork();
  if (pid < 0) return 127;
  if (pid == 0) {
    std::vector<std::string> drop;
    for (char** e = environ; *e; ++e) {
      const std::string kv(*e);
      const std::string k = kv.substr(0, kv.find('='));
      const bool mpi = k.rfind("PMIX_", 0) == 0 || k.rfind("OMPI_COMM_WORLD", 0) == 0 ||
                       k.rfind("OMPI_MCA_ess", 0) == 0 || k.rfind("OMPI_MCA_orte", 0) == 0 ||
                       k.rfind("OMPI_MCA_pmix", 0) == 0 || k.rfind("OMPI_UNIVERSE", 0) == 0 ||
                       k.rfind("OMPI_FILE_LOCATION", 0) == 0 || k.rfind("OMPI_APP_CTX", 0) == 0 ||
                       k.rfind("OMPI_NUM_APP_CTX", 0) == 0 || k.rfind("OMPI_FIRST_RANKS", 0) == 0;
      if (mpi) drop.push_back(k);
    }
    for (const auto& k : drop) unsetenv(k.c_str());
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(127);
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      if (errlog.empty()) dup2(fd, 2);
      close(fd);
    }
    if (!errlog.empty()) {
      const int efd = open(errlog.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (efd >= 0) dup2(efd, 2), close(efd);
    }
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return 127;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 127;
}

// A copy of a LAMMPS script with the count of every `run` replaced by `steps`.
void write_steps_copy(const std::string& input, int64_t steps, const std::string& copy) {
  std::ifstream in(input);
  if (!in) fail_input(SourcePos{input, 0}, "cannot open input file '" + input + "'");
  std::ofstream out(copy);
  if (!out) throw RunError("cannot write " + copy);
  const std::regex run_line(R"(^(\s*run\s+)(\S+)(.*)$)");
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_match(line, m, run_line)) line = m[1].str() + std::to_string(steps) + m[3].str();
    out << line << '\n';
  }
  io::check_written(out, copy, "script copy");
}

RunRow read_report(const std::string& path, int ranks) {
  std::ifstream in(path);
  if (!in) throw RunError("no report.json at " + path);
  nlohmann::json j;
  in >> j;
  RunRow r;
  r.ranks = ranks;
  r.steps_per_second = j.value("steps_per_second", 0.0);
  r.atom_steps_per_second = j.value("atom_steps_per_second", 0.0);
  r.peak_rss_mb = j.value("peak_rss_mb", 0.0);
  r.atoms = j.value("atoms", int64_t{0});
  r.steps = j.value("steps", int64_t{0});
  if (j.contains("phases")) {
    const auto& p = j["phases"];
    r.force = p.value("force", 0.0), r.neighbor = p.value("neighbor", 0.0);
    r.comm = p.value("comm", 0.0), r.other = p.value("other", 0.0);
  }
  if (j.contains("comm_wait")) r.comm_wait = j["comm_wait"].value("avg", 0.0);
  if (j.contains("host_steal")) r.host_steal = j["host_steal"].value("avg", std::nan(""));
  return r;
}

// LAMMPS's last "Loop time of T on P procs for S steps with A atoms" line in `log`, as a row (phases and
// memory are left at zero); false when there is none.
bool read_lammps_loop(const std::string& log, int ranks, RunRow& r) {
  std::ifstream in(log);
  const std::regex loop(R"(Loop time of ([0-9.eE+-]+) on \d+ procs for (\d+) steps with (\d+) atoms)");
  bool found = false;
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, loop)) continue;
    const double secs = std::stod(m[1].str());
    r = RunRow{};
    r.ranks = ranks;
    r.steps = std::stoll(m[2].str());
    r.atoms = std::stoll(m[3].str());
    r.steps_per_second = secs > 0 ? r.steps / secs : 0.0;
    r.atom_steps_per_second = r.steps_per_second * static_cast<double>(r.atoms);
    found = r.steps > 0 && secs > 0;
  }
  return found;
}

// The lines a LAMMPS run prints after its step loop, from "Loop time of" to the timing breakdown's "Other"
// row (the last such block in `log`; ours prints the same lines), so that a study's log reads as LAMMPS's
// logs do for the usual log parsers. Empty when the log has none.
std::string timing_block(const std::string& log) {
  std::ifstream in(log);
  std::string block, last;
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("Loop time of ", 0) == 0) block.clear(), inside = true;
    if (!inside) continue;
    block += line + '\n';
    if (line.rfind("Other ", 0) == 0) inside = false, last = block;
  }
  return inside ? block : last;  // a block without a breakdown (timer off) ends with the log
}

// The block's `Loop time` and `Performance` lines, indented, for the console.
std::string loop_lines(const std::string& block) {
  std::istringstream in(block);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("Loop time of ", 0) == 0 || line.rfind("Performance:", 0) == 0)
      out += "    " + line + '\n';
  }
  return out;
}

// LAMMPS's version from the first line of its screen output ("LAMMPS (29 Sep 2021 - Update 2)").
std::string lammps_version(const std::string& log) {
  std::ifstream in(log);
  const std::regex head(R"(^LAMMPS \((.*)\)\s*$)");
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_match(line, m, head)) return m[1].str();
  }
  return "";
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// Whether `name` is an executable: a path to one, or a name found in a directory of PATH.
bool on_path(const std::string& name) {
  if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  for (std::string d; std::getline(dirs, d, ':');) {
    if (!d.empty() && access((d + "/" + name).c_str(), X_OK) == 0) return true;
  }
  return false;
}

// Speed relative to the smallest rank count's: (S_k / S_1) · (k_1 / k).
double efficiency(const RunRow& r, const RunRow& b) {
  return b.steps_per_second > 0 ? r.steps_per_second * b.ranks / (b.steps_per_second * r.ranks) : 0;
}

std::string quote_list(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

}  // namespace

std::string default_ranks(unsigned cores) {
  std::string out = "1";
  for (unsigned k = 2; k <= std::max(1u, cores); k *= 2) out += "," + std::to_string(k);
  return out;
}

std::vector<int> parse_rank_list(const std::string& text) {
  std::vector<int> out;
  std::stringstream in(text);
  for (std::string w; std::getline(in, w, ',');) {
    size_t used = 0;
    int k = 0;
    try {
      k = std::stoi(w, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != w.size() || k < 1 || k > 100000)
      fail_input(SourcePos{"--ranks", 0}, "expected rank counts like 1,2,4 (each >= 1), got '" + text + "'");
    if (std::find(out.begin(), out.end(), k) != out.end())
      fail_input(SourcePos{"--ranks", 0}, "rank count " + std::to_string(k) + " is given twice");
    out.push_back(k);
  }
  if (out.empty()) fail_input(SourcePos{"--ranks", 0}, "no rank counts given");
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> projection_presets(const std::string& scaling_dir, const std::string& file) {
  const std::string path = scaling_dir + "/" + file;
  std::vector<std::string> names;
  try {
    for (const auto& kv : YAML::LoadFile(path)["presets"]) names.push_back(kv.first.as<std::string>());
  } catch (const YAML::Exception& e) {
    throw RunError("cannot read the presets in " + path + ": " + e.what());
  }
  return names;
}

std::string find_scaling_dir(const std::string& exe) {
  const char* env = std::getenv("WAFERMD_SCALING_DIR");
  if (env && *env) {
    if (!fs::exists(fs::path(env) / "plot_scaling.py"))
      fail_input(SourcePos{"WAFERMD_SCALING_DIR", 0},
                 std::string(env) + " holds no plot_scaling.py (point it at validation/scaling/)");
    return env;
  }
  const fs::path bin = fs::path(exe).parent_path();
  for (const fs::path& base : {bin, bin.parent_path()}) {
    const fs::path d = base / "share" / "wafermd" / "scaling";
    if (fs::exists(d / "plot_scaling.py")) return d.string();
  }
  fail_input(SourcePos{"scaling", 0}, "cannot find the plot scripts: neither " +
                                          (bin / "share/wafermd/scaling").string() + " nor " +
                                          (bin.parent_path() / "share/wafermd/scaling").string() +
                                          " holds plot_scaling.py (build or install wafermd, or set "
                                          "WAFERMD_SCALING_DIR to the source tree's validation/scaling)");
}

std::string python_interpreter() {
  const char* env = std::getenv("WAFERMD_PYTHON");
  return env && *env ? env : "python3";
}

int run_scaling_command(const ScalingOptions& opt, std::ostream& out) {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const std::string rank_text = opt.ranks == "auto" ? default_ranks(cores) : opt.ranks;
  const std::vector<int> ranks = parse_rank_list(rank_text);
  const std::string exe = opt.exe.empty() ? fs::read_symlink("/proc/self/exe").string() : opt.exe;
  const std::string scripts = find_scaling_dir(fs::read_symlink("/proc/self/exe").string());
  const std::string python = python_interpreter();
  // The plot comes after every run: an interpreter that cannot draw it is refused before the first.
  if (!on_path(python))
    fail_input(SourcePos{"WAFERMD_PYTHON", 0},
               python +
                   " is not an executable on PATH (the plot needs Python 3 with numpy, matplotlib and "
                   "PyYAML; set WAFERMD_PYTHON to one that has them)");
  if (spawn({python, "-c", "import numpy, matplotlib, yaml"}, "/dev/null", "") != 0)
    fail_input(SourcePos{"WAFERMD_PYTHON", 0},
               python +
                   " cannot import numpy, matplotlib and yaml, which the plot needs; set WAFERMD_PYTHON "
                   "to an interpreter that can (on Debian, the python3 in /usr/bin with scripts/setup.sh's "
                   "packages)");
  // A bad preset is an input error before any run, not a plot failure after all of them.
  for (const auto& [flag, file, name, kind] : {std::tuple{"--gpu", "gpu_projection.yaml", opt.gpu, "GPU"},
                                               {"--cpu", "cpu_projection.yaml", opt.cpu, "CPU"}}) {
    const std::vector<std::string> presets = projection_presets(scripts, file);
    if (std::find(presets.begin(), presets.end(), name) == presets.end()) {
      std::string known;
      for (const auto& p : presets) known += (known.empty() ? "" : ", ") + p;
      fail_input(SourcePos{flag, 0},
                 std::string("unknown ") + kind + " preset '" + name + "' (known: " + known + ")");
    }
  }
  if (!fs::exists(opt.input))
    fail_input(SourcePos{opt.input, 0}, "cannot open input file '" + opt.input + "'");
  if (opt.steps == 0) fail_input(SourcePos{"--steps", 0}, "--steps must be >= 1");
  if (opt.repeat < 1 || opt.repeat > 1000) fail_input(SourcePos{"--repeat", 0}, "--repeat must be 1 to 1000");
  if (opt.lammps && is_yaml(opt.input))
    fail_input(SourcePos{"--lammps", 0},
               "LAMMPS runs LAMMPS scripts only; " + opt.input + " is a YAML input");
  if (opt.lammps && !on_path(opt.lmp))
    fail_input(SourcePos{"--lmp", 0}, opt.lmp +
                                          " is not an executable on PATH (Debian: apt-get install lammps "
                                          "lammps-data; other builds are often lmp_mpi or lmp_serial)");
  const std::string dir =
      fs::absolute(opt.output_dir.empty() ? "out/scaling/" + input_output_name(opt.input) : opt.output_dir)
          .lexically_normal()
          .string();
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) fail_input(SourcePos{dir, 0}, "cannot create the output directory");

  // The input as the child runs it: a LAMMPS script whose `run` counts are overridden is copied and run
  // from the script's own directory, so its relative paths mean what they meant.
  std::string input = fs::absolute(opt.input).string(), cwd;
  // LAMMPS scripts run from their own directory, as lmp users start them (lmp finds a relative potential
  // path only from there), whether or not `run` counts are overridden.
  if (!is_yaml(opt.input)) cwd = fs::absolute(opt.input).parent_path().string();
  std::vector<std::string> extra;
  if (opt.steps > 0) {
    if (is_yaml(opt.input)) {
      extra = {"--set", "run=" + std::to_string(opt.steps)};
    } else {
      const std::string copy = dir + "/input_steps" + std::to_string(opt.steps) + ".lmp";
      write_steps_copy(opt.input, opt.steps, copy);
      input = copy;
    }
  }

  int status = exit_ok;
  auto mpirun = [&](int k) {
    std::vector<std::string> argv = {"mpirun"};
    if (geteuid() == 0) argv.push_back("--allow-run-as-root");
    if (static_cast<unsigned>(k) > cores) argv.push_back("--oversubscribe");
    argv.insert(argv.end(), {"-np", std::to_string(k)});
    return argv;
  };
  // A path is taken from where wafermd started, not from the script's directory the runs start in.
  const std::string lmp = opt.lmp.find('/') != std::string::npos ? fs::absolute(opt.lmp).string() : opt.lmp;
  auto tag = [&](int k, int rep) {
    return std::to_string(k) + (opt.repeat > 1 ? "_rep" + std::to_string(rep) : "");
  };
  // study.log: each run's command and the timing lines it printed after its loop, as LAMMPS prints them.
  const std::string study_log = dir + "/study.log";
  std::ofstream slog(study_log);
  if (!slog) throw RunError("cannot write " + study_log);
  slog << "# wafermd scaling " << fs::absolute(opt.input).string() << ", started " << utc_now() << "\n";
  int nrun = 0;
  std::string lammps_ver;
  auto record = [&](const std::string& what, const std::vector<std::string>& argv, const std::string& log) {
    const std::string block = timing_block(log);
    slog << "\n# run " << ++nrun << ": " << what << "\n# " << quote_list(argv) << "\n" << block;
    slog.flush();
    out << loop_lines(block);
  };
  // Repeats go round the rank counts (1, 2, 4, 1, 2, 4, …) so that a slow spell of the machine does not
  // fall on one rank count's runs only.
  std::vector<std::vector<RunRow>> runs(ranks.size()), lmp_runs(ranks.size());
  for (int rep = 1; rep <= opt.repeat && status == exit_ok; ++rep) {
    for (size_t i = 0; i < ranks.size(); ++i) {
      const int k = ranks[i];
      const std::string rundir = dir + "/ranks_" + tag(k, rep);
      fs::remove(rundir + "/report.json", ec);
      std::vector<std::string> argv = mpirun(k);
      argv.insert(argv.end(), {exe, "run", input, "--output", rundir});
      argv.insert(argv.end(), extra.begin(), extra.end());
      for (size_t v = 0; v + 1 < opt.vars.size(); v += 2)
        argv.insert(argv.end(), {"--var", opt.vars[v], opt.vars[v + 1]});
      out << "scaling: " << quote_list(argv) << std::endl;
      const std::string log = dir + "/ranks_" + tag(k, rep) + ".log";
      const int rc = spawn(argv, log, cwd);
      if (rc != 0) {
        std::cerr << "error: scaling: the run with " << k << " rank" << (k > 1 ? "s" : "")
                  << " failed (exit status " << rc << "); see " << log << std::endl;
        status = exit_run_failed;
        break;
      }
      runs[i].push_back(read_report(rundir + "/report.json", k));
      record(fmt::format("wafermd, {} rank{}, round {}", k, k > 1 ? "s" : "", rep), argv, log);
      if (!opt.lammps) continue;
      // LAMMPS right after ours at the same rank count, so that both see the same state of the machine.
      std::vector<std::string> largv = mpirun(k);
      largv.insert(largv.end(), {lmp, "-in", input, "-log", "none"});
      for (size_t v = 0; v + 1 < opt.vars.size(); v += 2)
        largv.insert(largv.end(), {"-var", opt.vars[v], opt.vars[v + 1]});
      out << "scaling: " << quote_list(largv) << std::endl;
      const std::string llog = dir + "/lammps_ranks_" + tag(k, rep) + ".log";
      RunRow lr;
      const int lrc = spawn(largv, llog, cwd);
      if (lrc != 0 || !read_lammps_loop(llog, k, lr)) {
        std::cerr << "error: scaling: LAMMPS with " << k << " rank" << (k > 1 ? "s" : "")
                  << " failed (exit status " << lrc << (lrc == 0 ? ", no 'Loop time' line" : "") << "); see "
                  << llog << std::endl;
        status = exit_run_failed;
        break;
      }
      lmp_runs[i].push_back(lr);
      record(fmt::format("LAMMPS, {} rank{}, round {}", k, k > 1 ? "s" : "", rep), largv, llog);
      if (lammps_ver.empty()) lammps_ver = lammps_version(llog);
    }
  }
  // Per rank count the median run by steps/s (the lower middle one for an even count, so that its phases are
  // one run's), with the slowest and fastest for the spread. A failed study keeps the runs that finished.
  struct Summary {
    RunRow med;
    double lo = 0, hi = 0;
    int n = 0;
  };
  auto summarise = [](std::vector<RunRow> v) {
    std::sort(v.begin(), v.end(),
              [](const RunRow& a, const RunRow& b) { return a.steps_per_second < b.steps_per_second; });
    return Summary{v[(v.size() - 1) / 2], v.front().steps_per_second, v.back().steps_per_second,
                   static_cast<int>(v.size())};
  };
  std::vector<Summary> rows, lmp_rows;  // LAMMPS ran only after ours: lmp_rows[i] is rows[i]'s rank count
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (!runs[i].empty()) rows.push_back(summarise(runs[i]));
    if (!lmp_runs[i].empty()) lmp_rows.push_back(summarise(lmp_runs[i]));
  }

  // scaling.csv: efficiency relative to the smallest rank count, (S_k / S_1) · (k_1 / k), on the medians.
  const std::string csv = dir + "/scaling.csv";
  {
    std::ofstream f(csv);
    if (!f) throw RunError("cannot write " + csv);
    f << "ranks,atoms,steps,steps_per_second,atom_steps_per_second,force_s,neighbor_s,comm_s,other_s,"
         "peak_rss_mb,efficiency,repeats,steps_per_second_min,steps_per_second_max,comm_wait_s,host_steal\n";
    for (const Summary& m : rows) {
      const RunRow& r = m.med;
      f << fmt::format(
          "{},{},{},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.4f},{},{:.6g},{:.6g},{:.6g},{:.4f}\n",
          r.ranks, r.atoms, r.steps, r.steps_per_second, r.atom_steps_per_second, r.force, r.neighbor, r.comm,
          r.other, r.peak_rss_mb, efficiency(r, rows.front().med), m.n, m.lo, m.hi, r.comm_wait,
          r.host_steal);
    }
    io::check_written(f, csv, "scaling table");
  }
  out << "scaling: wrote " << csv << std::endl;
  // lammps.csv: LAMMPS's loop at each rank count and wafermd's speed relative to it (medians).
  const std::string lcsv = dir + "/lammps.csv";
  fs::remove(lcsv, ec);
  if (!lmp_rows.empty()) {
    std::ofstream f(lcsv);
    if (!f) throw RunError("cannot write " + lcsv);
    f << "ranks,atoms,steps,steps_per_second,atom_steps_per_second,efficiency,wafermd_over_lammps,repeats,"
         "steps_per_second_min,steps_per_second_max\n";
    for (size_t i = 0; i < lmp_rows.size(); ++i) {
      const RunRow& r = lmp_rows[i].med;
      f << fmt::format("{},{},{},{:.6g},{:.6g},{:.4f},{:.4f},{},{:.6g},{:.6g}\n", r.ranks, r.atoms, r.steps,
                       r.steps_per_second, r.atom_steps_per_second, efficiency(r, lmp_rows.front().med),
                       rows[i].med.atom_steps_per_second / r.atom_steps_per_second, lmp_rows[i].n,
                       lmp_rows[i].lo, lmp_rows[i].hi);
    }
    io::check_written(f, lcsv, "scaling table");
    out << "scaling: wrote " << lcsv << std::endl;
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    const RunRow& r = rows[i].med;
    out << fmt::format("  ranks {:>4}  {:10.4g} steps/s  {:10.4g} atom-steps/s", r.ranks, r.steps_per_second,
                       r.atom_steps_per_second);
    if (rows[i].n > 1)
      out << fmt::format("  (median of {}: {:.4g}-{:.4g} steps/s)", rows[i].n, rows[i].lo, rows[i].hi);
    if (i < lmp_rows.size())
      out << fmt::format("   LAMMPS {:10.4g} atom-steps/s  ({:.2f}x)", lmp_rows[i].med.atom_steps_per_second,
                         r.atom_steps_per_second / lmp_rows[i].med.atom_steps_per_second);
    out << "\n";
  }
  if (rows.empty()) return status;

  // The mesh backend's prediction for the same input, where `wafermd model` exists (skipped otherwise).
  const std::string model = dir + "/model.json";
  fs::remove(model, ec);
  std::vector<std::string> margv = {exe, "model", fs::absolute(opt.input).string(), "--json"};
  if (!opt.wafer.empty()) margv.insert(margv.end(), {"--wafer", opt.wafer});
  for (size_t v = 0; v + 1 < opt.vars.size(); v += 2)
    margv.insert(margv.end(), {"--var", opt.vars[v], opt.vars[v + 1]});
  const int mrc = spawn(margv, model, cwd, dir + "/model.log");
  if (mrc != 0) {
    out << "scaling: no mesh prediction (wafermd model exited " << mrc << "; see " << dir
        << "/model.log); the plot and table omit it" << std::endl;
    fs::remove(model, ec);
  }

  // provenance.json: what the figures are for and where they were measured (the plot and table print it).
  const std::string provenance = dir + "/provenance.json";
  {
    const RunRow& first = rows.front().med;
    std::ifstream rin(dir + "/ranks_" + tag(first.ranks, 1) + "/report.json");
    const nlohmann::json rep = nlohmann::json::parse(rin, nullptr, false);
    nlohmann::json p;
    p["input"] = opt.input;  // as given: a figure made in the source tree names no machine's paths
    std::string cmd = "wafermd scaling " + opt.input + " --ranks " + rank_text;
    if (opt.steps > 0) cmd += " --steps " + std::to_string(opt.steps);
    if (opt.repeat > 1) cmd += " --repeat " + std::to_string(opt.repeat);
    if (opt.lammps) cmd += " --lammps";
    cmd += " --gpu " + opt.gpu + " --cpu " + opt.cpu;
    if (!opt.wafer.empty()) cmd += " --wafer " + opt.wafer;
    for (size_t v = 0; v + 1 < opt.vars.size(); v += 2)
      cmd += " --var " + opt.vars[v] + " " + opt.vars[v + 1];
    p["command"] = cmd;
    p["date_utc"] = utc_now();
    p["atoms"] = first.atoms;
    p["steps_per_run"] = first.steps;
    p["repeats"] = opt.repeat;
    p["rank_counts"] = ranks;
    if (!rep.is_discarded()) {
      if (rep.contains("setup")) p["setup"] = rep["setup"];
      const double pairs = rep.contains("neighbor") ? rep["neighbor"].value("pairs", 0.0) : 0.0;
      p["neighbor_pairs_per_atom"] = first.atoms > 0 ? pairs / static_cast<double>(first.atoms) : 0.0;
      p["machine"] = {{"cpu", rep.value("cpu", "")},
                      {"logical_cpus", cores},
                      {"simd_target", rep.value("simd_target", "")},
                      {"precision", rep.value("precision", "")}};
      p["wafermd_version"] = rep.value("version", "");
    }
    if (!lammps_ver.empty()) p["lammps_version"] = lammps_ver;
    p["projections"] = {{"gpu", opt.gpu}, {"cpu", opt.cpu}};
    if (!io::write_json_atomically(provenance, p)) throw RunError("cannot write " + provenance);
    out << "scaling: provenance: " << p["command"].get<std::string>() << "; " << first.atoms << " atoms";
    if (p.contains("setup")) {
      const auto& st = p["setup"];
      out << fmt::format(", {} {}, cut-off {:.4g} A + skin {:.3g} A, dt {:.4g} fs, boundary {}",
                         st.value("pair_style", ""),
                         st.contains("potential_files") && !st["potential_files"].empty()
                             ? st["potential_files"][0].get<std::string>()
                             : "",
                         st.value("cutoff_angstrom", 0.0), st.value("skin_angstrom", 0.0),
                         st.value("timestep_ps", 0.0) * 1000.0, st.value("boundary", ""));
    }
    if (p.contains("machine"))
      out << "; " << p["machine"]["cpu"].get<std::string>() << ", "
          << p["machine"]["simd_target"].get<std::string>() << ", " << cores << " logical CPUs";
    out << "\nscaling: wrote " << provenance << std::endl;
  }

  const std::string png = dir + "/scaling.png";
  const std::string projection = dir + "/projection.json";
  const std::string table_csv = dir + "/best_points.csv", table_md = dir + "/best_points.md";
  for (const auto& f : {projection, table_csv, table_md}) fs::remove(f, ec);
  std::vector<std::string> common = {"--csv", csv,     "--gpu",        opt.gpu,
                                     "--cpu", opt.cpu, "--provenance", provenance};
  if (fs::exists(model)) common.insert(common.end(), {"--model", model});
  if (fs::exists(lcsv)) common.insert(common.end(), {"--lammps", lcsv});
  std::vector<std::string> plot = {
      python,    scripts + "/plot_scaling.py",           "--out", png, "--projection-json", projection,
      "--title", fs::path(opt.input).filename().string()};
  plot.insert(plot.end(), common.begin(), common.end());
  const int prc = spawn(plot, dir + "/plot.log", "");
  if (prc != 0 || !fs::exists(png) || !fs::exists(projection)) {
    std::cerr << "error: scaling: the plot failed (exit status " << prc << "); see " << dir << "/plot.log"
              << std::endl;
    return exit_run_failed;
  }
  std::ifstream pin(projection);
  const nlohmann::json pj = nlohmann::json::parse(pin, nullptr, false);
  if (pj.is_discarded() || !pj.contains("best_steps_per_second")) {
    std::cerr << "error: scaling: " << projection << " is not the plotter's projection" << std::endl;
    return exit_run_failed;
  }
  out << fmt::format(
      "scaling: GPU-cluster projection ({}, {} EAM atoms): best {:.0f} steps/s from {} devices "
      "(band {:.0f}-{:.0f}); wrote {}\n",
      opt.gpu, pj.value("atoms", int64_t{0}), pj["best_steps_per_second"].get<double>(),
      pj.value("best_devices", 0), pj.value("band_low", 0.0), pj.value("band_high", 0.0), projection);
  out << "scaling: wrote " << png << std::endl;

  // The best point of each platform, as CSV and Markdown (printed here too).
  std::vector<std::string> table = {
      python, scripts + "/scaling_table.py", "--out-csv", table_csv, "--out-md", table_md};
  table.insert(table.end(), common.begin(), common.end());
  const int trc = spawn(table, dir + "/table.log", "");
  if (trc != 0 || !fs::exists(table_md)) {
    std::cerr << "error: scaling: the table failed (exit status " << trc << "); see " << dir << "/table.log"
              << std::endl;
    return exit_run_failed;
  }
  out << "\n"
      << io::read_plain_file(table_md, "best-points table", SourcePos{table_md, 0}, 1 << 20)
      << "\nscaling: wrote " << table_csv << " and " << table_md << "; the runs' timing lines in "
      << study_log << std::endl;
  return status;
}

}  // namespace wmd::md
