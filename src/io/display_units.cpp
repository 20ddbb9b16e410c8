#include "contactuq/io/display_units.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include "contactuq/io/ensemble_store.hpp"

namespace contactuq::io {
namespace u = units;

namespace {

// Power of a base unit in a product, e.g. ("in", 2) -> "in^2".
std::string power_text(const std::string& unit, int p) { return p == 1 ? unit : fmt::format("{}^{}", unit, p); }

constexpr std::string_view base_names[] = {"length", "force", "angle", "time"};

std::string* base_field(unit_system& s, std::string_view name) {
  if (name == "length") return &s.length;
  if (name == "force") return &s.force;
  if (name == "angle") return &s.angle;
  if (name == "time") return &s.time;
  return nullptr;
}

u::dimension base_dimension(std::string_view name) {
  if (name == "length") return u::length;
  if (name == "force") return u::force;
  if (name == "angle") return u::angle;
  return u::duration;
}

}  // namespace

bool unit_system::is_si() const { return length == "m" && force == "N" && angle == "rad" && time == "s"; }

void unit_system::validate() const {
  u::from_si(1.0, length, u::length);
  u::from_si(1.0, force, u::force);
  u::from_si(1.0, angle, u::angle);
  u::from_si(1.0, time, u::duration);
}

std::string unit_system::unit_for(u::dimension d) const {
  if (is_si()) return u::si_unit(d);
  const int f = d.mass;
  const int l = d.length - f;
  const int t = d.duration + 2 * f;
  const int a = d.angle;
  std::string num, den;
  auto add = [&](const std::string& unit, int p) {
    if (p == 0) return;
    std::string& side = p > 0 ? num : den;
    if (!side.empty()) side += '*';
    side += power_text(unit, std::abs(p));
  };
  add(force, f);
  add(length, l);
  add(angle, a);
  add(time, t);
  if (den.empty()) return num;
  return fmt::format("{}/{}", num.empty() ? "1" : num, den);
}

double unit_system::from_si(double si, u::dimension d) const {
  const std::string unit = unit_for(d);
  return unit.empty() ? si : u::from_si(si, unit, d);
}

std::string display_units::unit_for(std::string_view name, u::dimension d) const {
  for (const auto& [n, unit] : by_name)
    if (n == name) return unit;
  return base.unit_for(d);
}

double display_units::factor(std::string_view name, u::dimension d) const {
  const std::string unit = unit_for(name, d);
  return unit.empty() ? 1.0 : u::from_si(1.0, unit, d);
}

display_units read_display_units(const study_table& table, const std::vector<named_dimension>& variables,
                                 display_units fallback) {
  display_units out = std::move(fallback);
  if (!table.has("units")) return out;
  if (table.value_text("units").front() != '{') {
    const std::string preset = table.choice("units", {"SI", "in-lbf", "in-grf", "mm-N"});
    if (preset == "SI") out.base = {"m", "N", "rad", "s"};
    if (preset == "in-lbf") out.base = {"in", "lbf", "deg", "s"};
    if (preset == "in-grf") out.base = {"in", "grf", "deg", "s"};
    if (preset == "mm-N") out.base = {"mm", "N", "deg", "s"};
    return out;
  }
  const study_table t = table.table("units");
  for (const std::string& key : t.keys()) {
    const std::string unit = t.string(key);
    if (std::string* field = base_field(out.base, key)) {
      try {
        u::from_si(1.0, unit, base_dimension(key));
      } catch (const std::invalid_argument& e) {
        t.fail(key, e.what());
      }
      *field = unit;
      continue;
    }
    const auto v = std::find_if(variables.begin(), variables.end(), [&](const auto& n) { return n.name == key; });
    if (v == variables.end()) {
      std::vector<std::string> names(std::begin(base_names), std::end(base_names));
      for (const auto& n : variables) names.push_back(n.name);
      t.fail(key, fmt::format("neither a base unit nor a variable of this study; the names are: {}",
                              fmt::join(names, ", ")));
    }
    try {
      u::from_si(1.0, unit, v->dim);
    } catch (const std::invalid_argument& e) {
      t.fail(key, fmt::format("{} is {}: {}", key, u::describe(v->dim), e.what()));
    }
    out.by_name.emplace_back(key, unit);
  }
  return out;
}

display_units display_units_of_study(const std::string& study_text, const std::string& file_name,
                                     const std::vector<named_dimension>& variables) {
  try {
    const study_document doc = study_document::parse(study_text, file_name);
    if (const auto output = doc.root().optional_table("output")) return read_display_units(*output, variables);
  } catch (const std::exception&) {
    // Not this version's study: show SI.
  }
  return {};
}

std::vector<double> convert_for_display(ensemble& e, const std::string& file_name) {
  std::vector<named_dimension> variables;
  const auto dimension_of = [](const std::string& si) { return si.empty() ? u::dimensionless : u::parse_unit(si).dim; };
  std::vector<double> factors(e.schema.outputs.size(), 1.0);
  try {
    for (const auto& in : e.schema.inputs) variables.push_back({in.name, dimension_of(in.unit)});
    for (const auto& out : e.schema.outputs) variables.push_back({out.name, dimension_of(out.unit)});
    for (const auto& c : e.schema.curves) {
      variables.push_back({c.name, dimension_of(c.ordinate_unit)});
      if (!c.abscissa_name.empty()) variables.push_back({c.abscissa_name, dimension_of(c.abscissa_unit)});
    }
  } catch (const std::invalid_argument&) {
    return factors;  // a unit this version cannot read (another version's file): shown as stored
  }
  const display_units shown = display_units_of_study(e.schema.metadata.study_text, file_name, variables);
  if (shown.base.is_si() && shown.by_name.empty()) return factors;
  // Renames a unit to its display unit; returns the factor that converts the values.
  const auto rename = [&](std::string& unit, const std::string& name) {
    const u::dimension d = dimension_of(unit);
    const double f = shown.factor(name, d);
    unit = shown.unit_for(name, d);
    return f;
  };
  for (std::size_t j = 0; j < e.schema.outputs.size(); ++j) {
    factors[j] = rename(e.schema.outputs[j].unit, e.schema.outputs[j].name);
    e.outputs.col(static_cast<Eigen::Index>(j)) *= factors[j];
  }
  for (std::size_t k = 0; k < e.schema.curves.size(); ++k) {
    auto& c = e.schema.curves[k];
    const double f = rename(c.ordinate_unit, c.name);
    if (k < e.curves.size()) e.curves[k] *= f;
    const double g = rename(c.abscissa_unit, c.abscissa_name);
    for (double& x : c.abscissa) x *= g;
  }
  return factors;
}

std::vector<output_limit> read_output_limits(const study_table& output, const std::vector<named_dimension>& outputs) {
  std::vector<output_limit> limits;
  const auto table = output.optional_table("limits");
  if (!table) return limits;
  for (const std::string& name : table->keys()) {
    const auto o = std::find_if(outputs.begin(), outputs.end(), [&](const auto& n) { return n.name == name; });
    if (o == outputs.end()) {
      std::vector<std::string> names;
      for (const auto& n : outputs) names.push_back(n.name);
      table->fail(name, fmt::format("not a scalar output of the model; its outputs: {}", fmt::join(names, ", ")));
    }
    const study_table t = table->table(name);
    t.allow_only({"low", "high"});
    if (!t.has("low") && !t.has("high")) t.fail("give low, high or both: the values outside [low, high] violate it");
    output_limit l{name};
    if (t.has("low")) l.low = t.quantity("low", o->dim);
    if (t.has("high")) l.high = t.quantity("high", o->dim);
    if (!(l.low < l.high)) t.fail("high", "must be above low");
    limits.push_back(l);
  }
  return limits;
}

std::vector<output_limit> output_limits_of_study(const std::string& study_text, const std::string& file_name,
                                                 const std::vector<named_dimension>& outputs) {
  try {
    const study_document doc = study_document::parse(study_text, file_name);
    if (const auto output = doc.root().optional_table("output")) return read_output_limits(*output, outputs);
  } catch (const std::exception&) {
    // Not this version's study: no limits.
  }
  return {};
}

}  // namespace contactuq::io
