#include "html_markup.hpp"

namespace shmtrain::testing {
namespace {

// NAME="VALUE" pairs of a start tag. Scanned by hand: std::regex recurses per character and
// overflows the stack on a path's long d="...".
std::map<std::string, std::string> attributes_of(const std::string& tag) {
  std::map<std::string, std::string> out;
  std::size_t at = tag.find_first_of(" \n\t");
  while (at != std::string::npos && at < tag.size()) {
    const std::size_t name = tag.find_first_not_of(" \n\t/", at);
    if (name == std::string::npos) break;
    const std::size_t eq = tag.find('=', name);
    if (eq == std::string::npos || eq + 1 >= tag.size() || tag[eq + 1] != '"') break;
    const std::size_t close = tag.find('"', eq + 2);
    if (close == std::string::npos) break;
    out.emplace(tag.substr(name, eq - name), tag.substr(eq + 2, close - eq - 2));
    at = close + 1;
  }
  return out;
}

}  // namespace

std::vector<std::map<std::string, std::string>> elements(const std::string& html, const std::string& tag) {
  std::vector<std::map<std::string, std::string>> out;
  const std::string open = "<" + tag;
  for (std::size_t at = html.find(open); at != std::string::npos; at = html.find(open, at + 1)) {
    const char next = at + open.size() < html.size() ? html[at + open.size()] : '>';
    if (next != ' ' && next != '>' && next != '/' && next != '\n') continue;
    const std::size_t end = html.find('>', at);
    if (end == std::string::npos) break;
    out.push_back(attributes_of(html.substr(at, end - at)));
  }
  return out;
}

std::vector<ChartMarkup> charts_in(const std::string& html) {
  std::vector<ChartMarkup> charts;
  for (std::size_t at = html.find("<svg"); at != std::string::npos; at = html.find("<svg", at + 1)) {
    const std::size_t open_end = html.find('>', at);
    const std::size_t close = html.find("</svg>", open_end);
    if (open_end == std::string::npos || close == std::string::npos) break;
    ChartMarkup chart;
    chart.attributes = attributes_of(html.substr(at, open_end - at));
    if (!chart.attributes.contains("data-chart")) continue;
    chart.body = html.substr(open_end + 1, close - open_end - 1);
    charts.push_back(std::move(chart));
  }
  return charts;
}

std::map<std::string, int> point_counts(const std::string& html) {
  std::map<std::string, int> counts;
  for (const ChartMarkup& chart : charts_in(html)) {
    const std::string& id = chart.attributes.at("data-chart");
    for (const char* tag : {"circle", "rect"}) {
      for (const auto& element : elements(chart.body, tag)) {
        if (!element.contains("data-step")) continue;
        const auto run = element.find("data-run");
        const auto series = element.find("data-series");
        const auto worker = chart.attributes.find("data-worker");
        const std::string label = series != element.end()            ? series->second
                                  : worker != chart.attributes.end() ? "worker " + worker->second
                                                                     : std::string("?");
        ++counts[id + "|" + (run == element.end() ? std::string("?") : run->second) + "|" + label];
      }
    }
  }
  return counts;
}

}  // namespace shmtrain::testing
