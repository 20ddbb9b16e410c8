// `contactuq summarize` of result files that are not ensembles (curve, impact, evaluate, pin-slot,
// optimisation, calibration and fit files): what io::describe_result finds in them.
#include <fmt/format.h>

#include <cmath>

#include "commands.hpp"
#include "contactuq/io/result_description.hpp"
#include "json_writer.hpp"

namespace contactuq::cli {
namespace {

std::string shape_text(const std::vector<std::size_t>& shape) {
  return shape.empty() ? std::string("scalar") : fmt::format("{}", fmt::join(shape, " x "));
}

std::string number(double v) { return std::isfinite(v) ? fmt::format("{:.6g}", v) : fmt::format("{}", v); }

void print_text(const io::result_description& r) {
  fmt::print("{}: {} file", r.file, r.format.empty() ? std::string("unknown") : r.format);
  if (!r.method.empty()) fmt::print(", method {}", r.method);
  if (!r.model.empty()) fmt::print(", model {}", r.model);
  fmt::print("\n  attributes:\n");
  for (const auto& [name, text] : r.attributes) fmt::print("    {:<22} {}\n", name, text);
  fmt::print("  datasets (SI units):\n");
  for (const auto& d : r.datasets) {
    fmt::print("    {:<34} {:>11}  {:<10}", d.path, shape_text(d.shape), d.units.empty() ? "" : d.units);
    if (d.text) {
      if (!d.texts.empty()) fmt::print(" {}", fmt::join(d.texts, " | "));
    } else if (!d.values.empty()) {
      std::vector<std::string> values;
      for (const double v : d.values) values.push_back(number(v));
      fmt::print(" {}", fmt::join(values, ", "));
    } else if (d.elements > 0) {
      fmt::print(" min {}, max {}, mean {}", number(d.min), number(d.max), number(d.mean));
      if (d.finite < d.elements) fmt::print(" ({} of {} finite)", d.finite, d.elements);
    }
    fmt::print("\n");
  }
}

void print_json(const io::result_description& r) {
  json_writer w;
  w.begin_object();
  w.field("file", r.file);
  w.field("format", r.format);
  w.field("method", r.method);
  w.field("model", r.model);
  w.key("attributes");
  w.begin_object();
  for (const auto& [name, text] : r.attributes) w.field(name, text);
  w.end_object();
  w.key("datasets");
  w.begin_array();
  for (const auto& d : r.datasets) {
    w.begin_object();
    w.field("path", d.path);
    w.key("shape");
    w.begin_array();
    for (const std::size_t n : d.shape) w.value(n);
    w.end_array();
    w.field("units", d.units);
    w.field("type", std::string_view(d.text ? "text" : "number"));
    w.field("elements", d.elements);
    if (d.text) {
      if (!d.texts.empty()) {
        w.key("values");
        w.begin_array();
        for (const auto& t : d.texts) w.value(t);
        w.end_array();
      }
    } else {
      if (!d.values.empty()) {
        w.key("values");
        w.begin_array();
        for (const double v : d.values) w.value(v);
        w.end_array();
      }
      w.field("finite", d.finite);
      w.field("min", d.min);
      w.field("max", d.max);
      w.field("mean", d.mean);
    }
    w.end_object();
  }
  w.end_array();
  w.end_object();
  fmt::print("{}\n", w.str());
}

}  // namespace

void print_result_description(const std::string& file, bool json) {
  const io::result_description r = io::describe_result(file);
  if (json)
    print_json(r);
  else
    print_text(r);
}

}  // namespace contactuq::cli
