#include "shmtrain/common/error.hpp"

#include <cerrno>
#include <cstring>
#include <new>

namespace shmtrain {

SystemError::SystemError(std::string_view what, int errno_value)
    : Error(fmt::format("{}: {}", what, std::strerror(errno_value))), errno_value_(errno_value) {}

void throw_errno(std::string_view what) { throw SystemError(what, errno); }

std::string describe_failure(const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e) != nullptr) {
    return "out of memory: an allocation failed (the model in config.json, the batch size or the sequence "
           "length needs more memory than this machine gives the process)";
  }
  return e.what();
}

}  // namespace shmtrain
