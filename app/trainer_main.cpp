// streetgan-trainer: the headless trainer. Everything lives in core; see ../shared/CLI.md.
#include "cli/TrainerCli.h"

int main(int argc, char** argv) { return streetgan::TrainerCli::run(argc, argv); }
