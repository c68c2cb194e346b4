#include "shmtrain/launch/open_mpi_keepalive.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <string_view>

#include <fmt/format.h>

namespace shmtrain::launch {
namespace {

constexpr std::string_view kWhitespace = " \t\r";

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(kWhitespace);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(kWhitespace) - first + 1);
}

std::optional<std::int64_t> whole_number(std::string_view text) {
  text = trim(text);
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

// The three settings, each once: the first source that sets one wins.
struct Found {
  std::optional<std::int64_t> time, intvl, probes;

  std::optional<std::int64_t>* slot(std::string_view name) {
    if (name == "oob_tcp_keepalive_time") return &time;
    if (name == "oob_tcp_keepalive_intvl") return &intvl;
    if (name == "oob_tcp_keepalive_probes") return &probes;
    return nullptr;
  }
  void offer(std::string_view name, std::string_view value) {
    std::optional<std::int64_t>* target = slot(name);
    if (target != nullptr && !target->has_value()) *target = whole_number(value);
  }
};

void read_param_file(const std::filesystem::path& path, Found& found) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    std::string_view text = trim(line);
    if (text.empty() || text.front() == '#') continue;
    const auto equals = text.find('=');
    if (equals == std::string_view::npos) continue;
    found.offer(trim(text.substr(0, equals)), text.substr(equals + 1));
  }
}

// Seconds idle before the first probe: detection (time + 2 probes 1 s apart) at a third of the
// timeout.
std::int64_t suggested_time(std::chrono::seconds between_hosts) {
  return std::max<std::int64_t>(1, between_hosts.count() / 3 - 2);
}

}  // namespace

std::optional<std::int64_t> OpenMpiKeepalive::detection_seconds() const {
  if (time <= 0) return std::nullopt;
  return time + std::max<std::int64_t>(intvl, 0) * std::max<std::int64_t>(probes, 0);
}

OpenMpiKeepalive read_open_mpi_keepalive(const std::function<const char*(const char*)>& getenv,
                                         const std::vector<std::filesystem::path>& param_files) {
  Found found;
  for (const char* name : {"oob_tcp_keepalive_time", "oob_tcp_keepalive_intvl", "oob_tcp_keepalive_probes"}) {
    if (const char* value = getenv(fmt::format("OMPI_MCA_{}", name).c_str()); value != nullptr) {
      found.offer(name, value);
    }
  }
  for (const std::filesystem::path& path : param_files) read_param_file(path, found);
  OpenMpiKeepalive keepalive;
  keepalive.time = found.time.value_or(keepalive.time);
  keepalive.intvl = found.intvl.value_or(keepalive.intvl);
  keepalive.probes = found.probes.value_or(keepalive.probes);
  return keepalive;
}

std::vector<std::filesystem::path> open_mpi_param_files(
    const std::function<const char*(const char*)>& getenv) {
  std::vector<std::filesystem::path> files;
  if (const char* home = getenv("HOME"); home != nullptr && *home != '\0') {
    files.push_back(std::filesystem::path(home) / ".openmpi" / "mca-params.conf");
  }
  files.emplace_back("/etc/openmpi/openmpi-mca-params.conf");
  return files;
}

OpenMpiKeepalive open_mpi_keepalive_in_force() {
  const auto env = [](const char* name) -> const char* { return std::getenv(name); };
  return read_open_mpi_keepalive(env, open_mpi_param_files(env));
}

bool notices_before(const OpenMpiKeepalive& keepalive, std::chrono::seconds between_hosts) {
  const std::optional<std::int64_t> detection = keepalive.detection_seconds();
  return detection && *detection < between_hosts.count();
}

std::vector<std::pair<std::string, std::string>> keepalive_settings_for(std::chrono::seconds between_hosts) {
  return {{"oob_tcp_keepalive_time", std::to_string(suggested_time(between_hosts))},
          {"oob_tcp_keepalive_intvl", "1"},
          {"oob_tcp_keepalive_probes", "2"}};
}

std::string keepalive_note(const OpenMpiKeepalive& keepalive, std::chrono::seconds between_hosts) {
  if (notices_before(keepalive, between_hosts)) return "";
  const std::optional<std::int64_t> detection = keepalive.detection_seconds();
  const std::int64_t time = suggested_time(between_hosts);
  const std::string when = detection ? fmt::format("after {} s, later than --ddp_timeout ({} s)", *detection,
                                                   between_hosts.count())
                                     : std::string("never (keepalive off)");
  return fmt::format(
      "note: Open MPI notices a host cut off from the network {} (oob_tcp_keepalive_time {}, _intvl {}, "
      "_probes {}): if the network to a host is cut, the ranks stop at --ddp_timeout, but mpirun then waits "
      "for that host's daemon until TCP gives up (about 15 minutes: net.ipv4.tcp_retries2). Give mpirun "
      "--mca oob_tcp_keepalive_time {} --mca oob_tcp_keepalive_intvl 1 --mca oob_tcp_keepalive_probes 2 to "
      "have it notice within {} s and end the job naming the host",
      when, keepalive.time, keepalive.intvl, keepalive.probes, time, time + 2);
}

}  // namespace shmtrain::launch
