#include "cli/app.h"

int main(int argc, char** argv) { return sm::cli::main(argc, argv); }
