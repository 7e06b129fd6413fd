#include "md/programs/root_reads.hpp"

#include <new>
#include <stdexcept>
#include <string>

#include "base/error.hpp"
#include "base/memory_budget.hpp"
#include "base/root_read.hpp"

namespace wmd::md {
namespace {

const Comm* g_world = nullptr;
const Lockstep* g_step = nullptr;
bool g_inside = false;  // rank 0 inside a read: a read nested in it (a reader calling another) is local

// What rank 0's read ended with, as the first byte of the status it broadcasts.
enum Outcome : char { kText = 'T', kInput = 'I', kRun = 'R', kMemory = 'M', kOther = 'X' };

// The other ranks' memory budget for the text they receive (the budget is per process).
void check_received(uint64_t bytes) {
  memory::check_allocation("a file's text received from rank 0", static_cast<double>(bytes));
}

std::string read_on_rank0(const std::string& what, const std::function<std::string()>& read) {
  if (g_inside) return read();
  g_step->before_read(what);
  const Comm& c = *g_world;
  std::string status(1, kText), text;
  std::exception_ptr error;
  if (c.root()) {
    g_inside = true;
    try {
      text = read();
    } catch (const InputError& e) {
      error = std::current_exception();
      status = std::string(1, kInput) + e.file() + '\0' + std::to_string(e.line()) + '\0' + e.message();
    } catch (const RunError& e) {
      error = std::current_exception();
      status = std::string(1, kRun) + e.what();
    } catch (const std::bad_alloc&) {
      error = std::current_exception();
      status = std::string(1, kMemory);
    } catch (const std::exception& e) {
      error = std::current_exception();
      status = std::string(1, kOther) + e.what();
    } catch (...) {
      error = std::current_exception();
      status = std::string(1, kOther) + "an exception of unknown type";
    }
    g_inside = false;
  }
  c.share_read(status);
  if (status[0] == kText) {
    c.share_read(text, check_received);
    return text;
  }
  // Rank 0 throws what its read threw; the others the same error rebuilt from its parts.
  if (error) std::rethrow_exception(error);
  const std::string detail = status.substr(1);
  switch (status[0]) {
    case kInput: {
      const size_t a = detail.find('\0'), b = detail.find('\0', a + 1);
      throw InputError(detail.substr(0, a), std::stoi(detail.substr(a + 1, b - a - 1)), detail.substr(b + 1));
    }
    case kRun:
      throw RunError(detail);
    case kMemory:
      throw std::bad_alloc();
    default:
      throw std::runtime_error(detail);
  }
}

}  // namespace

RootReads::RootReads(Comm& world, const Lockstep& step) {
  if (world.size() <= 1) return;
  world.make_file_reads();
  g_world = &world, g_step = &step;
  set_root_reader(read_on_rank0);
}

RootReads::~RootReads() {
  if (g_world) set_root_reader(nullptr);
  g_world = nullptr, g_step = nullptr;
}

}  // namespace wmd::md
