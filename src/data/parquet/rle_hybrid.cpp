#include "rle_hybrid.hpp"

#include <algorithm>

#include "shmtrain/common/error.hpp"

namespace shmtrain::data::parquet {

int bit_width_of(std::uint32_t max_value) {
  int width = 0;
  while (width < 32 && (max_value >> width) != 0) ++width;
  return width;
}

template <typename Out>
std::size_t decode_rle_hybrid(std::span<const std::byte> data, int bit_width, std::size_t count,
                              std::uint32_t max_value, std::string_view what, Out* out) {
  if (bit_width < 0 || bit_width > 32) fail_input("{} of bit width {} (at most 32)", what, bit_width);
  const auto at = [&](std::size_t i) { return static_cast<std::uint8_t>(data[i]); };
  const auto check = [&](std::uint64_t value) {
    if (value > max_value) fail_input("{} {} above the largest possible, {}", what, value, max_value);
  };
  const std::uint64_t mask = bit_width == 32 ? 0xFFFFFFFFu : (std::uint64_t{1} << bit_width) - 1;
  std::size_t pos = 0, done = 0;
  while (done < count) {
    if (pos >= data.size()) fail_input("{}: the data ends after {} of {} values", what, done, count);
    std::uint64_t header = 0;
    for (int shift = 0;; shift += 7) {
      if (pos >= data.size() || shift > 28) fail_input("{}: a damaged run header", what);
      const std::uint8_t b = at(pos++);
      header |= static_cast<std::uint64_t>(b & 0x7F) << shift;
      if ((b & 0x80) == 0) break;
    }
    if (header & 1) {
      // Bit-packed: (header >> 1) * 8 values, of which those that fit in the data are read.
      const std::uint64_t declared = (header >> 1) * 8;
      const std::size_t bytes_left = data.size() - pos;
      const std::uint64_t present =
          bit_width == 0 ? declared : std::min<std::uint64_t>(declared, bytes_left * 8 / bit_width);
      const std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(present, count - done));
      if (take < std::min<std::uint64_t>(declared, count - done)) {
        fail_input("{}: a bit-packed run of {} values ends with the data after {}", what, declared, present);
      }
      std::uint64_t buffer = 0;
      int buffered = 0;
      std::size_t byte = pos;
      for (std::size_t i = 0; i < take; ++i) {
        while (buffered < bit_width) {
          buffer |= static_cast<std::uint64_t>(at(byte++)) << buffered;
          buffered += 8;
        }
        const std::uint64_t value = buffer & mask;
        buffer = bit_width == 0 ? buffer : buffer >> bit_width;
        buffered -= bit_width;
        check(value);
        out[done + i] = static_cast<Out>(value);
      }
      done += take;
      // The whole run is skipped when present; a short last run ends the data.
      const std::uint64_t run_bytes = (header >> 1) * static_cast<std::uint64_t>(bit_width);
      pos = run_bytes > bytes_left ? data.size() : pos + static_cast<std::size_t>(run_bytes);
    } else {
      const std::uint64_t run = header >> 1;
      const std::size_t width_bytes = static_cast<std::size_t>((bit_width + 7) / 8);
      if (data.size() - pos < width_bytes) fail_input("{}: the data ends inside a run's value", what);
      std::uint64_t value = 0;
      for (std::size_t i = 0; i < width_bytes; ++i)
        value |= static_cast<std::uint64_t>(at(pos + i)) << (8 * i);
      pos += width_bytes;
      check(value);
      const std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(run, count - done));
      std::fill_n(out + done, take, static_cast<Out>(value));
      done += take;
    }
  }
  return pos;
}

template std::size_t decode_rle_hybrid<std::uint8_t>(std::span<const std::byte>, int, std::size_t,
                                                     std::uint32_t, std::string_view, std::uint8_t*);
template std::size_t decode_rle_hybrid<std::uint32_t>(std::span<const std::byte>, int, std::size_t,
                                                      std::uint32_t, std::string_view, std::uint32_t*);

}  // namespace shmtrain::data::parquet
