#include "shmtrain/common/fault_injection.hpp"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <unistd.h>

namespace shmtrain {
namespace {

struct Fault {
  bool armed = false;
  std::string point;
  long hit = 0;
  int signal = SIGKILL;
  int rank = -1;  // any
  long passes = 0;
};

Fault parse(const char* text) {
  Fault fault;
  if (text == nullptr || *text == '\0') return fault;
  const std::string spec(text);
  std::string parts[4];
  std::size_t n = 0;
  for (std::size_t begin = 0; begin <= spec.size() && n < 4;) {
    const std::size_t colon = std::min(spec.find(':', begin), spec.size());
    parts[n++] = spec.substr(begin, colon - begin);
    begin = colon + 1;
  }
  char* end = nullptr;
  fault.point = parts[0];
  fault.hit = n >= 2 ? std::strtol(parts[1].c_str(), &end, 10) : 0;
  const bool hit_ok = n >= 2 && end != parts[1].c_str() && *end == '\0' && fault.hit > 0;
  const bool signal_ok = n >= 3 && (parts[2] == "kill" || parts[2] == "stop");
  if (signal_ok) fault.signal = parts[2] == "kill" ? SIGKILL : SIGSTOP;
  if (n == 4) fault.rank = std::atoi(parts[3].c_str());
  if (fault.point.empty() || !hit_ok || !signal_ok) {
    std::fprintf(stderr, "shmtrain: SHMTRAIN_FAULT=%s ignored: expected POINT:HIT:kill|stop[:RANK]\n", text);
    return Fault{};
  }
  fault.armed = true;
  return fault;
}

}  // namespace

void fault_point(std::string_view point, int rank) {
  // Read once per process: forked workers inherit the parsed value and count for themselves.
  static Fault fault = parse(std::getenv("SHMTRAIN_FAULT"));
  if (!fault.armed || point != fault.point || (fault.rank >= 0 && fault.rank != rank)) return;
  if (++fault.passes == fault.hit) ::kill(::getpid(), fault.signal);
}

}  // namespace shmtrain
