// streetgan-trainer: the headless trainer's front (TrainerFront): ls, attach, control and remote
// run here without LibTorch; every other command runs in streetgan-trainer-torch. The commands
// are in this folder (one file per subcommand); what they run lives in core/ml and core/base.
// See docs/cli.md.
#include "trainer/TrainerFront.h"

int main(int argc, char** argv) { return streetgan::TrainerFront::run(argc, argv); }
