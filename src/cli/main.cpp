#include "shmtrain/cli/app.hpp"

int main(int argc, char** argv) { return shmtrain::cli::run(argc, argv); }
