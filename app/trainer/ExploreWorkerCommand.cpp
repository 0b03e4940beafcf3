#include "trainer/ExploreWorkerCommand.h"

#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>

#include "ml/explore/ExploreWorker.h"
#include "trainer/GeneratorOption.h"

namespace streetgan {

CLI::App* ExploreWorkerCommand::setup(CLI::App& parent) {
    auto* a = parent.add_subcommand("explore-worker", "Serve the app's rendering requests on stdin/stdout (docs/explore-worker.md)");
    a->add_option("--device", device_, "auto | cpu | cuda")->check(CLI::IsMember({"auto", "cpu", "cuda"}));
    a->add_option("--threads", threads_, "Torch intra-op threads (0: default)")->check(CLI::Range(0, 1024));
    a->add_option("--precision", precision_,
                  "Preview frames (frames, latents): auto = bf16 on a CPU with AVX512-BF16/AMX for generators of >= 1 GFLOP a frame, else fp32; "
                  "bf16; fp32 = render's exact bytes. Exports are always fp32")
        ->check(CLI::IsMember({"auto", "bf16", "fp32"}));
    addGeneratorOption(a, generator_);
    return a;
}

int ExploreWorkerCommand::execute() {
    // A client that went away must end the worker through a failed write, not a signal.
    ::signal(SIGPIPE, SIG_IGN);
    ExploreWorker::Options o;
    o.device = device_;
    o.threads = threads_;
    o.generator = generator_;
    o.precision = precision_;
    ExploreWorker worker(STDIN_FILENO, STDOUT_FILENO, o);
    return worker.run();
}

}  // namespace streetgan
