#include "shmtrain/report/tensorboard_event.hpp"

#include <limits>

#include <utf8proc.h>

#include "shmtrain/common/error.hpp"
#include "tensorboard_event.pb.h"

namespace shmtrain::report {
namespace {

std::string serialize(const proto::Event& event, std::string_view what) {
  std::string bytes;
  if (!event.SerializeToString(&bytes))
    throw Error(fmt::format("cannot encode the TensorBoard event of {}", what));
  return bytes;
}

// proto3 strings are UTF-8: protobuf (C++ and Python, so TensorBoard too) refuses to parse an
// Event whose tag is not, which would make the rest of the file unreadable.
void check_utf8(std::string_view tag) {
  const auto* next = reinterpret_cast<const utf8proc_uint8_t*>(tag.data());
  auto left = static_cast<utf8proc_ssize_t>(tag.size());
  while (left > 0) {
    utf8proc_int32_t code_point = 0;
    const utf8proc_ssize_t length = utf8proc_iterate(next, left, &code_point);
    if (length <= 0) fail_input("TensorBoard tag '{}' is not UTF-8 text", tag);
    next += length;
    left -= length;
  }
}

}  // namespace

std::string serialize_file_version_event(double wall_time) {
  proto::Event event;
  event.set_wall_time(wall_time);
  event.set_file_version(std::string(kTensorBoardFileVersion));
  event.mutable_source_metadata()->set_writer(std::string(kTensorBoardSourceWriter));
  return serialize(event, "the file version");
}

std::string serialize_scalar_event(std::string_view tag, std::int64_t step, float value, double wall_time) {
  check_utf8(tag);
  proto::Event event;
  event.set_wall_time(wall_time);
  event.set_step(step);
  proto::Summary::Value* summary_value = event.mutable_summary()->add_value();
  summary_value->set_tag(std::string(tag));
  summary_value->set_simple_value(value);
  return serialize(event, tag);
}

TensorBoardEvent parse_tensorboard_event(std::string_view bytes, std::string_view source) {
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    fail_input("{}: an event of {} bytes is larger than protobuf parses", source, bytes.size());
  }
  proto::Event event;
  if (!event.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    fail_input("{}: not a TensorBoard Event (the protobuf does not parse)", source);
  }
  TensorBoardEvent out;
  out.wall_time = event.wall_time();
  out.step = event.step();
  if (event.has_file_version()) out.file_version = event.file_version();
  if (event.has_source_metadata()) out.source_writer = event.source_metadata().writer();
  if (event.has_summary()) {
    for (const proto::Summary::Value& value : event.summary().value()) {
      if (value.has_simple_value()) out.simple_values.emplace_back(value.tag(), value.simple_value());
    }
  }
  return out;
}

}  // namespace shmtrain::report
