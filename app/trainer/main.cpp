// streetgan-trainer: the headless trainer. The commands are in this folder (one file per
// subcommand); what they run lives in core/ml and core/base. See docs/cli.md.
#include "trainer/TrainerCli.h"

int main(int argc, char** argv) { return streetgan::TrainerCli::run(argc, argv); }
