#pragma once
// The command line: a thin layer that turns flags into validated configs and calls run(config).

namespace sm::cli {

/// Entry point of the speedmatrix binary; returns the process exit code.
int main(int argc, char** argv);

}  // namespace sm::cli
