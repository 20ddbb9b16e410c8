#include "contactuq/model/declared_inputs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <tuple>

#include "contactuq/units/quantity.hpp"

namespace contactuq::model {

namespace u = units;

namespace {

// A quantity string or a bare number: its SI value, dimension and the SI value of its unit.
std::tuple<double, u::dimension, double> read_value(const io::study_table& t, const std::string& key) {
  const std::string text = t.value_text(key);
  if (text == "{...}") t.fail(key, "expected a value such as \"200 N\" or 0.3");
  if (text.empty() || text.front() != '"') return {t.quantity(key, u::dimensionless), u::dimensionless, 1.0};
  const std::string s = t.string(key);
  try {
    const u::quantity q = u::parse_quantity(s);
    char* end = nullptr;
    std::strtod(s.c_str(), &end);
    std::string rest(end);
    rest.erase(0, rest.find_first_not_of(" \t"));
    rest.erase(rest.find_last_not_of(" \t") + 1);
    return {q.si, q.dim, rest.empty() ? 1.0 : u::parse_unit(rest).to_si};
  } catch (const std::invalid_argument& e) {
    t.fail(key, e.what());
  }
}

}  // namespace

std::vector<std::string> keys_as_written(const io::study_table& table) {
  std::vector<std::string> keys = table.keys();
  std::stable_sort(keys.begin(), keys.end(),
                   [&](const std::string& a, const std::string& b) { return table.line(a) < table.line(b); });
  return keys;
}

declared_input read_declared_input(const io::study_table& inputs, const std::string& name) {
  declared_input in{name, {}, 0.0, {}, 1.0};
  if (inputs.value_text(name) != "{...}") {
    std::tie(in.nominal, in.dim, in.unit_to_si) = read_value(inputs, name);
    if (!std::isfinite(in.nominal)) inputs.fail(name, "the value must be finite");
    return in;
  }
  const io::study_table it = inputs.table(name);
  it.allow_only({"value", "low", "high"});
  std::tie(in.nominal, in.dim, in.unit_to_si) = read_value(it, "value");
  in.valid.low = it.quantity_or("low", in.dim, in.valid.low);
  in.valid.high = it.quantity_or("high", in.dim, in.valid.high);
  if (!(in.valid.low < in.valid.high)) it.fail("high", "must be above low");
  if (!std::isfinite(in.nominal)) it.fail("value", "the value must be finite");
  if (!in.valid.contains(in.nominal))
    it.fail("value", fmt::format("{} is outside its valid range {}", name, in.valid.text(in.dim)));
  return in;
}

std::vector<declared_input> read_declared_inputs(const io::study_table& inputs) {
  std::vector<declared_input> out;
  for (const std::string& name : keys_as_written(inputs)) out.push_back(read_declared_input(inputs, name));
  return out;
}

}  // namespace contactuq::model
