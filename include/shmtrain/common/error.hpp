#pragma once
// The one error family of shmtrain. Every failure that reaches the user is one of these,
// and its message says what was wrong and where (file, line, key, tensor, rank) and, where
// there is one, what to do about it. The CLI prints what() on one line and exits non-zero.
#include <stdexcept>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace shmtrain {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// The user's input is wrong: a file, a flag, a config key, a data row.
class InputError : public Error {
 public:
  using Error::Error;
};

// A system or library call failed; the message carries the call and strerror(errno).
class SystemError : public Error {
 public:
  SystemError(std::string_view what, int errno_value);
  int errno_value() const { return errno_value_; }

 private:
  int errno_value_;
};

// Throws SystemError for `what` with the current errno.
[[noreturn]] void throw_errno(std::string_view what);

// What to tell the user about an exception that reached the top of a process: its what(),
// except for an allocation failure, whose what() ("std::bad_alloc") says nothing of the cause.
std::string describe_failure(const std::exception& e);

template <typename... Args>
[[noreturn]] void fail_input(fmt::format_string<Args...> format, Args&&... args) {
  throw InputError(fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace shmtrain
