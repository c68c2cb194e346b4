#pragma once
// The `shmtrain` command line: subcommands registered from cli/commands.hpp, errors printed
// as one line on stderr with a non-zero exit.
#include <map>
#include <string>
#include <vector>

namespace shmtrain::cli {

int run(int argc, char** argv);

// What `run` makes of a command line without running it: the subcommand named ("tokenize",
// "bench allreduce") and each option given to it, by its first long name (a positional by its
// name), with the words CLI11 took for it after Hugging Face's spellings were rewritten
// (`--text_a "" --max_seq_length 0` gives text_a [""] and max_seq_length ["0"]).
struct ParsedArguments {
  std::string subcommand;
  std::map<std::string, std::vector<std::string>> values;
};

// `args`: argv, the program's name first. Throws InputError with the message `run` prints for
// a command line it refuses (--help and --version included).
ParsedArguments parse_arguments(const std::vector<std::string>& args);

}  // namespace shmtrain::cli
