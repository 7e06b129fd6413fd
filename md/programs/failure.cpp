#include "md/programs/failure.hpp"

#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <new>

#include "base/error.hpp"
#include "base/printable_line.hpp"

namespace wmd::md {

Failure describe_failure(const std::exception_ptr& error, int unexpected_exit) {
  try {
    std::rethrow_exception(error);
  } catch (const AgreedFailure& e) {
    return e.failure;
  } catch (const InputError& e) {
    return {exit_bad_input, e.what()};
  } catch (const RunError& e) {
    return {exit_run_failed, e.what()};
  } catch (const std::bad_alloc&) {
    return {unexpected_exit,
            "out of memory: an allocation failed (the input needs more memory than is available)"};
  } catch (const std::exception& e) {
    return {unexpected_exit, std::string("unexpected failure: ") + e.what()};
  } catch (...) {
    return {unexpected_exit, "unexpected failure (an exception of unknown type)"};
  }
}

std::string failure_line(const Failure& f) {
  return (f.rank >= 0 ? "rank " + std::to_string(f.rank) + ": " : std::string()) +
         (f.exit_code == exit_run_failed ? "run failed: " : "") + f.message;
}

void print_failure(const std::string& message) {
  const std::string line = "error: " + printable_line(message) + "\n";
  std::cout.flush();
  std::cerr.flush();
  // One write, so that no other output lands inside the line.
  [[maybe_unused]] const ssize_t written = ::write(2, line.data(), line.size());
}

namespace {

[[noreturn]] void on_terminate() {
  const std::exception_ptr current = std::current_exception();
  print_failure(current ? describe_failure(current, exit_run_failed).message
                        : "unexpected failure (std::terminate without an exception)");
  std::_Exit(exit_run_failed);
}

}  // namespace

void report_terminate() {
  std::set_terminate(on_terminate);
}

}  // namespace wmd::md
