#include "md/run/signals.hpp"

#include <csignal>

namespace wmd::md::signals {
namespace {

volatile std::sig_atomic_t received = 0;
bool is_installed = false;

extern "C" void on_signal(int sig) {
  received = sig;
  std::signal(sig, SIG_DFL);  // async-signal-safe; a second signal stops the process at once
}

}  // namespace

void install() {
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  is_installed = true;
}

bool installed() {
  return is_installed;
}

int pending() {
  return static_cast<int>(received);
}

const char* name(int sig) {
  if (sig == SIGINT) return "SIGINT";
  if (sig == SIGTERM) return "SIGTERM";
  return "a signal";
}

}  // namespace wmd::md::signals
