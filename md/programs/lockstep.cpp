#include "md/programs/lockstep.hpp"

#include <functional>

#include "base/printable_line.hpp"
#include "io/command.hpp"
#include "md/run/signals.hpp"

namespace wmd::md {
namespace {

// What a rank does next, as a number: the command's words and where it stands (0: the input's end).
uint64_t token_of(const io::Command* cmd) {
  if (!cmd) return 0;
  std::string key = cmd->name + '\0' + cmd->pos.file + '\0' + std::to_string(cmd->pos.line);
  for (const auto& a : cmd->args) key += '\0' + a;
  const uint64_t h = std::hash<std::string>{}(key);
  return h < 2 ? h + 2 : h;  // 0 and 1 (the same after agree's shift) mean the end
}

std::string describe(const io::Command* cmd, const SourcePos& where) {
  if (!cmd) return "the end of the input " + where.file + " (its last line or a quit)";
  std::string text = cmd->name;
  for (const auto& a : cmd->args) text += " " + a;
  if (text.size() > 80) text = text.substr(0, 77) + "...";
  return "'" + text + "' (" + cmd->pos.file + ":" + std::to_string(cmd->pos.line) + ")";
}

}  // namespace

Lockstep::Lockstep(Comm& world) : world_(world) {
  world.make_agreements();
}

void Lockstep::before(const io::Command* cmd, const SourcePos& where) const {
  agree_on(token_of(cmd), describe(cmd, where), cmd ? cmd->pos : where);
}

void Lockstep::before_read(const std::string& what) const {
  const uint64_t h = std::hash<std::string>{}(std::string("\1read\0", 6) + what);
  agree_on(h < 2 ? h + 2 : h, "reading " + what, SourcePos{"<input>", 0});
}

void Lockstep::agree_on(uint64_t token, const std::string& description, const SourcePos& at) const {
  const Comm::Agreed a = world_.agree(Comm::Standing{token, 0, signals::pending()}, -1.0);
  if (a.exit_code != 0) throw AgreedFailure(agreed_failure(a, Failure{}));
  if (a.signal != 0)
    throw RunError("interrupted by " + std::string(signals::name(a.signal)) + " before " + description +
                   "; the last checkpoint written (if any) is kept");
  if (!a.same) {
    // Name the first rank that differs from rank 0 and what it does.
    const std::vector<uint64_t> all = world_.tokens(token);
    int other = 1;
    while (other < world_.size() && (all[other] >> 1) == (all[0] >> 1)) ++other;
    if (other >= world_.size()) other = 1;
    std::string theirs = description;
    world_.share(theirs, other);
    std::string ours = description;
    world_.share(ours, 0);
    fail_input(at, "the ranks run different commands: rank 0 is at " + ours + ", rank " +
                       std::to_string(other) + " at " + theirs +
                       " (an input must give every rank the same commands; it may not branch on the rank)");
  }
}

Failure Lockstep::fail(const std::exception_ptr& error, int unexpected_exit,
                       const std::function<void(const Failure&)>& before_abort) const {
  try {
    std::rethrow_exception(error);
  } catch (const AgreedFailure& e) {
    return e.failure;
  } catch (...) {
  }
  Failure mine = describe_failure(error, unexpected_exit);
  const Comm::Agreed a = world_.agree(Comm::Standing{1, mine.exit_code, signals::pending()}, kFailureWait);
  if (a.timed_out) {
    // Another rank waits for this one inside a command: only ending the job stops it (error->one).
    if (before_abort) {
      try {
        before_abort(Failure{mine.exit_code, mine.message, world_.rank()});
      } catch (...) {  // the abort's line still names the failure
      }
    }
    world_.abort(printable_line(failure_line(mine)), mine.exit_code);
  }
  return agreed_failure(a, mine);
}

Failure Lockstep::agreed_failure(const Comm::Agreed& a, const Failure& mine) const {
  std::string message = mine.message;
  world_.share(message, a.first_failed);
  return Failure{a.exit_code, message, a.all_failed ? -1 : a.first_failed};
}

}  // namespace wmd::md
