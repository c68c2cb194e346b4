#pragma once
// Internal to report: text as the HTML page writes it. Every text that comes from a run (folder
// names, option values, metric keys) goes through escape() before it reaches the page.
#include <string>
#include <string_view>

namespace shmtrain::report {

// & < > " ' as character references: safe in element text and in double-quoted attributes.
std::string escape(std::string_view text);

// A value for a table or a tooltip: 4 significant digits ("0.6931", "2.5e-05", "1234").
std::string format_value(double value);

// An axis tick whose neighbours are `spacing` apart: as few digits as tell them apart;
// 12000 as "12k", 3500000 as "3.5M".
std::string format_tick(double value, double spacing);

// "1:02:03", "2:03" or "4.2 s".
std::string format_duration(double seconds);

// "452.6k", "110.1M": a parameter or row count.
std::string format_count(double count);

}  // namespace shmtrain::report
