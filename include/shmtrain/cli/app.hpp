#pragma once
// The `shmtrain` command line: subcommands registered from cli/commands.hpp, errors printed
// as one line on stderr with a non-zero exit.
namespace shmtrain::cli {

int run(int argc, char** argv);

}  // namespace shmtrain::cli
