// The full streetgan-trainer command line (docs/cli.md), every subcommand: the main of
// streetgan-trainer-torch, to which the LibTorch-free front (TrainerFront) hands what it does not
// run itself.
#pragma once

namespace streetgan {

class TrainerCli {
public:
    static int run(int argc, char** argv);
};

}  // namespace streetgan
