#include "host_name.hpp"

#include <unistd.h>

#include <array>

#include "shmtrain/common/error.hpp"

namespace shmtrain::report {

std::string host_name() {
  std::array<char, 256> name{};  // HOST_NAME_MAX is 64 on Linux; POSIX allows up to 255
  if (::gethostname(name.data(), name.size() - 1) != 0) throw_errno("gethostname");
  return std::string(name.data());
}

}  // namespace shmtrain::report
