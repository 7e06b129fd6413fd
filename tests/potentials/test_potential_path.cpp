// Where a potential file is found: as written, beside the input, then by file name in $LAMMPS_POTENTIALS,
// then in the build's potentials directory (LAMMPS's utils::get_potential_file_path, plus the input's
// directory).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "potentials/potential_path.hpp"
#include "potentials/text_reader.hpp"

namespace {

namespace fs = std::filesystem;
namespace pot = wmd::potentials;
using wmd::SourcePos;

std::string scratch_dir(const std::string& name) {
  const std::string dir = std::string(WAFERMD_BINARY_DIR) + "/test_scratch/potential_path/" + name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// Sets $LAMMPS_POTENTIALS for one test and restores it.
class PotentialsEnv {
 public:
  explicit PotentialsEnv(const char* value) {
    if (const char* old = std::getenv("LAMMPS_POTENTIALS")) old_ = old, had_ = true;
    if (value)
      setenv("LAMMPS_POTENTIALS", value, 1);
    else
      unsetenv("LAMMPS_POTENTIALS");
  }
  ~PotentialsEnv() {
    if (had_)
      setenv("LAMMPS_POTENTIALS", old_.c_str(), 1);
    else
      unsetenv("LAMMPS_POTENTIALS");
  }

 private:
  std::string old_;
  bool had_ = false;
};

const std::string kDefault = pot::default_potentials_dir() + "/Cu_u3.eam";

TEST(PotentialPath, BareNameIsFoundInTheDefaultDirectory) {
  if (!fs::exists(kDefault)) GTEST_SKIP() << "no " << kDefault;
  PotentialsEnv env(nullptr);
  EXPECT_EQ(pot::find_potential_file("Cu_u3.eam", {}), kDefault);
}

TEST(PotentialPath, ADirectoryThatDoesNotHoldItFallsBackToTheFileName) {
  // LAMMPS strips the directory: ../../potentials/Cu_u3.eam of an example script is found by name.
  if (!fs::exists(kDefault)) GTEST_SKIP() << "no " << kDefault;
  PotentialsEnv env(nullptr);
  EXPECT_EQ(pot::find_potential_file("no/such/dir/Cu_u3.eam", {}), kDefault);
}

TEST(PotentialPath, ThePathAsWrittenComesFirst) {
  const std::string dir = scratch_dir("written");
  std::ofstream(dir + "/Cu_u3.eam") << "mine\n";
  PotentialsEnv env(nullptr);
  EXPECT_EQ(pot::find_potential_file(dir + "/Cu_u3.eam", {}), dir + "/Cu_u3.eam");
}

TEST(PotentialPath, TheInputsDirectoryComesBeforeTheEnvironment) {
  const std::string dir = scratch_dir("beside");
  std::ofstream(dir + "/in.x") << "run 0\n";
  std::ofstream(dir + "/only_here.eam") << "mine\n";
  PotentialsEnv env("/nonexistent");
  EXPECT_EQ(pot::find_potential_file("only_here.eam", SourcePos{dir + "/in.x", 3}), dir + "/only_here.eam");
  // A position that names no file ("<input>") adds no directory.
  EXPECT_EQ(pot::find_potential_file("only_here.eam", SourcePos{}), "only_here.eam");
}

TEST(PotentialPath, TheEnvironmentComesBeforeTheDefault) {
  const std::string dir = scratch_dir("env");
  std::ofstream(dir + "/Cu_u3.eam") << "mine\n";
  PotentialsEnv env(dir.c_str());
  EXPECT_EQ(pot::find_potential_file("Cu_u3.eam", {}), dir + "/Cu_u3.eam");
  EXPECT_EQ(pot::find_potential_file("elsewhere/Cu_u3.eam", {}), dir + "/Cu_u3.eam");
}

TEST(PotentialPath, AMissingFileNamesWhatWasWrittenAndWhereItWasLooked) {
  PotentialsEnv env("/opt/pots");
  try {
    pot::TextReader r("nowhere.eam", SourcePos{"in.x", 7});
    FAIL() << "no error";
  } catch (const wmd::InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("in.x"), std::string::npos) << what;
    EXPECT_NE(what.find("cannot open potential file 'nowhere.eam'"), std::string::npos) << what;
    EXPECT_NE(what.find("/opt/pots/nowhere.eam"), std::string::npos) << what;
    EXPECT_NE(what.find(pot::default_potentials_dir() + "/nowhere.eam"), std::string::npos) << what;
  }
}

}  // namespace
