#include "shmtrain/common/error.hpp"

#include <cerrno>
#include <cstring>

namespace shmtrain {

SystemError::SystemError(std::string_view what, int errno_value)
    : Error(fmt::format("{}: {}", what, std::strerror(errno_value))), errno_value_(errno_value) {}

void throw_errno(std::string_view what) { throw SystemError(what, errno); }

}  // namespace shmtrain
