// `dump ID all h5md N file.h5 position velocity force image species id [author NAME] [box yes]`: an H5MD
// trajectory (md/run/trajectory_output.cpp writes its frames, as it writes output.trajectory's).
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "md/run/dump_style.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

class DumpH5md : public DumpStyle {
 public:
  bool one_frame() const override { return false; }
  void define(Simulation& sim, io::ArgCursor& a, const DumpHead& head) const override {
    if (head.group != 1u) a.fail("dump h5md writes group all only (H5MD frames have a fixed atom count)");
    H5mdDump h;
    h.id = head.id;
    h.every = static_cast<int>(a.integer("the dump interval (steps)", 1, 2000000000));
    h.file = a.word("a file name");
    // The file is created at the first run (when the atom count is known); refuse an unwritable place now.
    const std::string parent = std::filesystem::path(h.file).parent_path().string();
    if (::access(parent.empty() ? "." : parent.c_str(), W_OK) != 0)
      a.fail("cannot write dump file '" + h.file + "' (its directory is missing or not writable)");
    while (!a.done()) {
      const std::string k = a.choice(
          "an h5md keyword", {"position", "velocity", "force", "image", "species", "id", "author", "box"});
      if (k == "author") {
        h.author = a.word("an author name");
      } else if (k == "box") {
        if (!a.yes_no("box")) a.fail("dump h5md always writes the box (box yes)");
      } else {
        if (std::find(h.fields.begin(), h.fields.end(), k) == h.fields.end()) h.fields.push_back(k);
        long long sub;
        if (io::parse_integer(a.peek(), sub))
          a.fail("per-element intervals ('" + k + " " + a.peek() + "') are not supported: every element is " +
                 "written every " + std::to_string(h.every) + " steps");
      }
    }
    if (std::find(h.fields.begin(), h.fields.end(), "position") == h.fields.end())
      h.fields.insert(h.fields.begin(), "position");
    sim.h5md.push_back(std::move(h));
  }
};

}  // namespace

WMD_DUMP_STYLE("h5md", DumpH5md)

}  // namespace wmd::md
