#include "html_text.hpp"

#include <cmath>

#include <fmt/format.h>

namespace shmtrain::report {

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string format_value(double value) {
  if (value == std::floor(value) && std::fabs(value) < 1e9)
    return fmt::format("{}", static_cast<long long>(value));
  return fmt::format("{:.4g}", value);
}

std::string format_tick(double value, double spacing) {
  if (std::fabs(value) < spacing * 1e-6) return "0";
  const double magnitude = std::fabs(value);
  if (magnitude >= 1e4 && spacing >= 1e3) {
    const bool millions = magnitude >= 1e6 && spacing >= 1e5;
    const double unit = millions ? 1e6 : 1e3;
    const int decimals = std::max(0, static_cast<int>(std::ceil(-std::log10(spacing / unit) - 1e-9)));
    return fmt::format("{:.{}f}{}", value / unit, decimals, millions ? "M" : "k");
  }
  if (spacing < 1e-3) {
    // 2.5e-05: the mantissa needs as many decimals as the spacing has below the value's digit.
    const int exponent = static_cast<int>(std::floor(std::log10(magnitude)));
    const int decimals = std::max(0, exponent - static_cast<int>(std::floor(std::log10(spacing) + 1e-9)));
    // "2.5e-5", not printf's "2.5e-05".
    std::string text = fmt::format("{:.{}e}", value, std::min(decimals, 6));
    const std::size_t e = text.find('e');
    std::size_t digits = e + 2;
    while (digits + 1 < text.size() && text[digits] == '0') ++digits;
    text.erase(e + 2, digits - (e + 2));
    return text[e + 1] == '+' ? text.erase(e + 1, 1) : text;
  }
  const int decimals = std::max(0, static_cast<int>(std::ceil(-std::log10(spacing) - 1e-9)));
  return fmt::format("{:.{}f}", value, decimals);
}

std::string format_duration(double seconds) {
  if (!(seconds >= 0)) return "-";
  if (seconds < 60) return fmt::format("{:.1f} s", seconds);
  const long long total = std::llround(seconds);
  const long long h = total / 3600;
  const long long m = total / 60 % 60;
  const long long s = total % 60;
  if (h > 0) return fmt::format("{}:{:02}:{:02}", h, m, s);
  return fmt::format("{}:{:02}", m, s);
}

std::string format_count(double count) {
  const double magnitude = std::fabs(count);
  if (magnitude >= 1e9) return fmt::format("{:.1f}G", count / 1e9);
  if (magnitude >= 1e6) return fmt::format("{:.1f}M", count / 1e6);
  if (magnitude >= 1e4) return fmt::format("{:.1f}k", count / 1e3);
  return format_value(count);
}

}  // namespace shmtrain::report
