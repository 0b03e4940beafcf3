#include "base/launch/SshShell.h"

#include "base/remote/ShellQuote.h"
#include "base/remote/SshSession.h"

namespace streetgan {

std::string SshShell::wrap(const std::string& command) { return ShellQuote::join({"sh", "-c", "cd 2>/dev/null; " + command}); }

ExecResult SshShell::run(const std::string& command, const std::string& stdinData) { return session_.exec(wrap(command), stdinData); }

std::string SshShell::label() const { return session_.label(); }

}  // namespace streetgan
