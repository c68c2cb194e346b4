#pragma once
// Reading the report's charts back from its markup (the page as written, or the DOM as a
// browser serialises it): which charts there are, and the points each one draws per run and
// series, counted from the elements that carry data-step.
#include <map>
#include <string>
#include <vector>

namespace shmtrain::testing {

struct ChartMarkup {
  std::map<std::string, std::string> attributes;  // of the <svg> element: data-chart, data-run, ...
  std::string body;                               // between <svg ...> and </svg>
};

// Every <svg data-chart="..."> in `html`, in order.
std::vector<ChartMarkup> charts_in(const std::string& html);

// "CHART|RUN|SERIES" -> the number of elements with data-step in that chart of that run and
// series; a chart without series (step_time) counts as "step_time|RUN|worker N".
std::map<std::string, int> point_counts(const std::string& html);

// The attributes of each <TAG ...> in `html`.
std::vector<std::map<std::string, std::string>> elements(const std::string& html, const std::string& tag);

}  // namespace shmtrain::testing
