// streetgan-trainer-torch: every streetgan-trainer command, with LibTorch. Users run
// streetgan-trainer, which execs this for the commands that need LibTorch (see TrainerFront.h).
#include "trainer/TrainerCli.h"

int main(int argc, char** argv) { return streetgan::TrainerCli::run(argc, argv); }
