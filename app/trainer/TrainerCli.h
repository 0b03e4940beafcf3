// The streetgan-trainer command line (docs/cli.md): subcommand dispatch, --version,
// error-to-exit-code mapping. app/trainer/main.cpp only calls run().
#pragma once

namespace streetgan {

class TrainerCli {
public:
    static int run(int argc, char** argv);
};

}  // namespace streetgan
