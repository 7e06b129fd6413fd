// SIGINT/SIGTERM: the handler only records the signal; the run loop checks the flag once per step (agreed
// across ranks with Comm::any), finishes the step, writes a checkpoint and exits with status 3.
#pragma once

namespace wmd::md::signals {

/// Installs the handlers for SIGINT and SIGTERM. A second signal of the same kind takes the default action,
/// so a run that hangs can still be stopped.
void install();
/// True once install() has run in this process.
bool installed();
/// The signal received (SIGINT or SIGTERM), or 0.
int pending();
/// "SIGINT", "SIGTERM" or "signal N".
const char* name(int sig);

}  // namespace wmd::md::signals
