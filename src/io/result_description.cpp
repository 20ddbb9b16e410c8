#include "contactuq/io/result_description.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "contactuq/io/hdf5.hpp"

namespace contactuq::io {
namespace {

constexpr std::size_t longest_text = 72;

// One line of at most longest_text characters: a verbatim study shows as its first line.
std::string one_line(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  if (line.size() > longest_text) line = line.substr(0, longest_text - 3) + "...";
  if (line.size() < text.size()) line += fmt::format(" ({} characters)", text.size());
  return line;
}

std::string attribute_text(const hdf5::node& node, const std::string& name) {
  if (node.attribute_is_numeric(name)) {
    const auto values = node.doubles_attribute(name);
    return values.size() == 1 ? fmt::format("{:.10g}", values.front()) : fmt::format("[{:.10g}]", fmt::join(values, ", "));
  }
  const auto texts = node.strings_attribute(name);
  std::vector<std::string> lines;
  for (const auto& t : texts) lines.push_back(one_line(t));
  return texts.size() == 1 ? lines.front() : fmt::format("[{}]", fmt::join(lines, ", "));
}

dataset_description describe(const hdf5::dataset& d, std::size_t preview) {
  dataset_description out;
  out.path = d.path();
  out.shape = d.shape();
  out.elements = 1;
  for (const std::size_t n : out.shape) out.elements *= n;
  out.text = d.is_text();
  // One unit for the whole dataset, or one per column (as in an evaluate file's /inputs).
  if (d.has_attribute("units") && !d.attribute_is_numeric("units")) {
    const auto units = d.strings_attribute("units");
    out.units = units.size() == 1 ? units.front() : "per column";
  }
  if (out.text) {
    if (out.elements <= preview) {
      const auto texts = out.shape.empty() ? std::vector<std::string>{d.read_text()} : d.read_texts();
      for (const auto& t : texts) out.texts.push_back(one_line(t));
    }
    return out;
  }
  const std::vector<double> values = out.elements ? d.read_doubles() : std::vector<double>{};
  if (values.size() <= preview) out.values = values;
  double sum = 0;
  out.min = std::numeric_limits<double>::infinity();
  out.max = -out.min;
  for (const double v : values) {
    if (!std::isfinite(v)) continue;
    ++out.finite;
    sum += v;
    out.min = std::min(out.min, v);
    out.max = std::max(out.max, v);
  }
  if (out.finite == 0) out.min = out.max = std::numeric_limits<double>::quiet_NaN();
  out.mean = out.finite ? sum / static_cast<double>(out.finite) : std::numeric_limits<double>::quiet_NaN();
  return out;
}

void walk(const hdf5::group& g, std::size_t preview, std::vector<dataset_description>& out) {
  for (const auto& name : g.member_names()) {
    if (g.is_group(name))
      walk(g.open_group(name), preview, out);
    else
      out.push_back(describe(g.open_dataset(name), preview));
  }
}

}  // namespace

result_description describe_result(const std::filesystem::path& file, std::size_t preview) {
  if (!std::filesystem::exists(file)) throw std::runtime_error(fmt::format("{}: no such file", file.string()));
  const hdf5::file f(file, hdf5::file_mode::read_only, {.latest_format = false});
  result_description r;
  r.file = file.string();
  for (const auto& name : f.attribute_names()) r.attributes.emplace_back(name, attribute_text(f, name));
  for (const auto& [name, text] : r.attributes) {
    if (name == "format") r.format = text;
    if (name == "method") r.method = text;
    if (name == "model") r.model = text;
  }
  walk(f, preview, r.datasets);
  return r;
}

}  // namespace contactuq::io
