#include "spm_model.hpp"

#include <fstream>
#include <optional>
#include <string_view>

#include "shmtrain/common/error.hpp"

namespace shmtrain::text::pipeline {
namespace {

// Protobuf's wire format, just enough to find one length-delimited field.
std::uint64_t read_varint(std::string_view data, std::size_t& at, bool& ok) {
  std::uint64_t value = 0;
  for (int shift = 0; shift < 64 && at < data.size(); shift += 7) {
    const auto byte = static_cast<unsigned char>(data[at++]);
    value |= static_cast<std::uint64_t>(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) return value;
  }
  ok = false;
  return 0;
}

std::optional<std::string_view> find_bytes_field(std::string_view message, std::uint32_t field) {
  std::size_t at = 0;
  bool ok = true;
  while (at < message.size() && ok) {
    const std::uint64_t key = read_varint(message, at, ok);
    const auto wire = static_cast<std::uint32_t>(key & 7);
    const auto number = static_cast<std::uint32_t>(key >> 3);
    if (wire == 0) {
      read_varint(message, at, ok);
    } else if (wire == 1) {
      at += 8;
    } else if (wire == 5) {
      at += 4;
    } else if (wire == 2) {
      const std::uint64_t length = read_varint(message, at, ok);
      if (!ok || length > message.size() - std::min(at, message.size())) return std::nullopt;
      if (number == field) return message.substr(at, length);
      at += length;
    } else {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

std::string charsmap_base64(std::string_view bytes) {
  static const char* const kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string encoded;
  std::uint32_t buffer = 0;
  int bits = 0;
  for (const char c : bytes) {
    buffer = (buffer << 8) | static_cast<unsigned char>(c);
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      encoded.push_back(kAlphabet[(buffer >> bits) & 0x3F]);
    }
  }
  if (bits > 0) encoded.push_back(kAlphabet[(buffer << (6 - bits)) & 0x3F]);
  while (encoded.size() % 4 != 0) encoded.push_back('=');
  return encoded;
}

}  // namespace

SpmModel load_spm_model(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) fail_input("cannot open {}: check that it exists and is readable", file.string());
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  SpmModel model;
  model.processor = std::make_unique<sentencepiece::SentencePieceProcessor>();
  const auto status = model.processor->LoadFromSerializedProto(bytes);
  if (!status.ok()) {
    fail_input("{}: not a SentencePiece model: {}", file.string(), status.ToString());
  }
  if (const auto spec = find_bytes_field(bytes, 3)) {
    if (const auto map = find_bytes_field(*spec, 2); map && !map->empty()) {
      model.precompiled = {{"type", "Precompiled"}, {"precompiled_charsmap", charsmap_base64(*map)}};
    }
  }
  return model;
}

}  // namespace shmtrain::text::pipeline
