#pragma once
#include <string>

namespace shmtrain::report {

// gethostname(2), as Python's socket.gethostname(): the name TensorBoard file and run-folder
// names carry. Throws SystemError when the call fails.
std::string host_name();

}  // namespace shmtrain::report
