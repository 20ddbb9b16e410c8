#include "contactuq/study/variables.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>
#include <utility>

namespace contactuq::study {

namespace u = units;

namespace {

// Every role by its name in study files; a new role is one more row.
constexpr std::array<std::pair<variable_role, std::string_view>, 5> role_names{{
    {variable_role::fixed, "fixed"},
    {variable_role::design, "design"},
    {variable_role::aleatoric, "aleatoric"},
    {variable_role::epistemic, "epistemic"},
    {variable_role::calibrated, "calibrated"},
}};

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string role_list(const accepted_roles& accepted) {
  std::vector<std::string> names;
  for (const variable_role r : accepted.roles) names.emplace_back(to_string(r));
  return joined(names);
}

// The role of table t, refused unless the method accepts it.
variable_role read_role(const io::study_table& t, const accepted_roles& accepted) {
  if (!t.has("role") && accepted.implied) return *accepted.implied;
  const std::string name = t.string("role");
  const auto it = std::find_if(role_names.begin(), role_names.end(),
                               [&](const auto& p) { return p.second == name; });
  if (it == role_names.end())
    t.fail("role", fmt::format("must be one of: {}", role_list(accepted)));
  if (!accepted.accepts(it->first))
    t.fail("role",
           fmt::format("{} takes no {} parameters (its roles: {}){}", accepted.method, name,
                       role_list(accepted), accepted.hint.empty() ? "" : ": " + accepted.hint));
  return it->first;
}

// Distribution parameters that are pure numbers whatever the input's dimension.
bool dimensionless_parameter(std::string_view key) {
  return key == "sigma_log" || key == "shape" || key == "alpha" || key == "beta";
}

uq::distribution read_distribution(const io::study_table& t, u::dimension dim) {
  const std::string kind = t.string("distribution");
  std::map<std::string, double> params;
  if (kind == "discrete") {
    t.allow_only({"role", "distribution", "values", "weights"});
    const auto values = t.quantities("values", dim);
    for (std::size_t i = 0; i < values.size(); ++i) params[fmt::format("value_{}", i)] = values[i];
    if (t.has("weights")) {
      const auto weights = t.quantities("weights", u::dimensionless);
      if (weights.size() != values.size())
        t.fail("weights",
               fmt::format("has {} entries, values has {}", weights.size(), values.size()));
      for (std::size_t i = 0; i < weights.size(); ++i)
        params[fmt::format("weight_{}", i)] = weights[i];
    }
  } else {
    for (const std::string& key : t.keys()) {
      if (key == "role" || key == "distribution") continue;
      params[key] = t.quantity(key, dimensionless_parameter(key) ? u::dimensionless : dim);
    }
  }
  try {
    return uq::make_distribution(kind, params);
  } catch (const parameter_error& e) {
    if (e.field() == "kind") t.fail("distribution", e.what());
    t.fail(e);
  }
}

// A distribution may put at most this probability outside an input's valid range: below what a
// study of 10^6 samples would ever draw (a normal K with a 5 % sd passes; one with a 50 % sd not).
constexpr double negligible_outside = 1e-6;

void check_in_range(const io::study_table& t, std::string_view key, double value,
                    const model::variable& v) {
  if (!v.valid.contains(value))
    t.fail(key, fmt::format("{} = {:g} {} is outside the valid range of {}: {}", v.name, value,
                            v.unit, v.name, v.valid.text(v.dim)));
}

void check_support(const io::study_table& t, const uq::distribution& d, const model::variable& v) {
  if (!v.valid.bounded()) return;
  if (d.is_discrete()) {
    for (const double x : d.values()) check_in_range(t, "values", x, v);
    return;
  }
  double outside = 0.0;
  if (std::isfinite(v.valid.low)) outside += d.cdf(v.valid.low);
  if (std::isfinite(v.valid.high)) outside += 1.0 - d.cdf(v.valid.high);
  if (outside > negligible_outside)
    t.fail("distribution",
           fmt::format("{} puts probability {:.3g} outside the valid range of {} ({}); truncate it "
                       "(distribution = \"truncated_normal\" with low and high inside the range) "
                       "or use one whose support lies in it (uniform, triangular, beta)",
                       d.describe(), outside, v.name, v.valid.text(v.dim)));
}

// One reading function per role: each fills `out` (name, unit and the nominal value set) from
// its table and checks what it read against the input's valid range.

void read_fixed(const io::study_table& t, const model::variable& v, variable& out) {
  t.allow_only({"role", "value"});
  out.value = t.quantity("value", v.dim);
  check_in_range(t, "value", out.value, v);
}

void read_design(const io::study_table& t, const model::variable& v, variable& out) {
  t.allow_only({"role", "low", "high", "value"});
  out.low = t.quantity("low", v.dim);
  out.high = t.quantity("high", v.dim);
  if (!(out.low < out.high)) t.fail("high", fmt::format("must be > low = {}", t.value_text("low")));
  check_in_range(t, "low", out.low, v);
  check_in_range(t, "high", out.high, v);
  out.value = t.quantity_or("value", v.dim, 0.5 * (out.low + out.high));
  if (!(out.value >= out.low && out.value <= out.high))
    t.fail("value", "the start of a design variable must lie within [low, high]");
}

void read_aleatoric(const io::study_table& t, const model::variable& v, variable& out) {
  out.distribution = read_distribution(t, v.dim);
  check_support(t, *out.distribution, v);
}

void read_calibrated(const io::study_table& t, const model::variable& v, variable& out) {
  t.allow_only({"role", "low", "high", "start"});
  out.low = t.quantity("low", v.dim);
  out.high = t.quantity("high", v.dim);
  out.value = t.has("start") ? t.quantity("start", v.dim) : v.nominal;
  if (!(out.low < out.high)) t.fail("high", "must be greater than low");
  if (!(out.value >= out.low && out.value <= out.high))
    t.fail(t.has("start") ? "start" : "low",
           fmt::format("the first start {} {} (the model's value unless start is given) must "
                       "lie within [low, high]",
                       out.value, u::si_unit(v.dim)));
  check_in_range(t, "low", out.low, v);
  check_in_range(t, "high", out.high, v);
}

// The choices of an epistemic parameter: a list, or points equally spaced over [low, high].
// `input` is null for a [model] key.
epistemic_parameter read_epistemic(const io::study_table& t, const std::string& name,
                                   const model::variable* input, std::size_t index) {
  epistemic_parameter e{name, input == nullptr, index, {}, {}, false, epistemic_parameter::npos};
  if (!input) {
    t.allow_only({"role", "choices"});
    e.labels = t.element_texts("choices");
  } else if (t.has("choices")) {
    t.allow_only({"role", "choices"});
    e.values = t.quantities("choices", input->dim);
    e.labels = t.element_texts("choices");
    for (const double x : e.values) check_in_range(t, "choices", x, *input);
  } else {
    t.allow_only({"role", "low", "high", "points"});
    const double low = t.quantity("low", input->dim), high = t.quantity("high", input->dim);
    if (!(low < high))
      t.fail("high", fmt::format("must be greater than low = {}", t.value_text("low")));
    check_in_range(t, "low", low, *input);
    check_in_range(t, "high", high, *input);
    const std::int64_t points = t.integer_or("points", 2);
    if (points < 2 || points > 1000) t.fail("points", "must be an integer in [2, 1000]");
    for (std::int64_t k = 0; k < points; ++k) {
      const double v =
          low + (high - low) * static_cast<double>(k) / static_cast<double>(points - 1);
      e.values.push_back(v);
      e.labels.push_back(fmt::format("{:g} {}", v, u::si_unit(input->dim)));
    }
  }
  std::set<std::string> unique(e.labels.begin(), e.labels.end());
  if (unique.size() != e.labels.size())
    t.fail(input && !t.has("choices") ? "points" : "choices", "has a choice twice");
  return e;
}

// A case table: `choices` names the cases, every other key is a model input with one value per
// case. The head (names only) goes into `out.epistemic`, then one column per input that follows
// it; the columns' inputs become epistemic. `owner` records which table set an input.
void read_case_table(const io::study_table& t, const std::string& name, const model::model& m,
                     variables& out, std::vector<std::string>& owner) {
  epistemic_parameter head{
      name, false, 0, t.element_texts("choices"), {}, true, epistemic_parameter::npos};
  if (std::set<std::string>(head.labels.begin(), head.labels.end()).size() != head.labels.size())
    t.fail("choices", "has a choice twice");
  const std::size_t lead = out.epistemic.size();
  out.epistemic.push_back(head);
  for (const std::string& key : t.keys()) {
    if (key == "role" || key == "choices") continue;
    const std::size_t i = m.find_input(key);
    if (i == m.inputs().size())
      t.fail(key,
             fmt::format(
                 "not an input of model {}; a case table's keys are role, choices and inputs: {}",
                 m.name(), joined(m.input_names())));
    if (out.inputs[i].given)
      t.fail(key, fmt::format("input {} is also set by [parameters.{}]; give it in one place", key,
                              owner[i].empty() ? key : owner[i]));
    const model::variable& v = m.inputs()[i];
    epistemic_parameter column{key,   false, i, t.element_texts(key), t.quantities(key, v.dim),
                               false, lead};
    if (column.values.size() != head.labels.size())
      t.fail(key, fmt::format("has {} values for {} choices: give one value per case",
                              column.values.size(), head.labels.size()));
    for (const double x : column.values) check_in_range(t, key, x, v);
    out.inputs[i].role = variable_role::epistemic;
    out.inputs[i].given = true;
    owner[i] = name;
    out.epistemic.push_back(std::move(column));
  }
  if (out.epistemic.size() == lead + 1)
    t.fail("choices", "a case table names at least one input with one value per choice");
}

}  // namespace

std::string_view to_string(variable_role r) {
  for (const auto& [role, name] : role_names)
    if (role == r) return name;
  return "?";
}

bool accepted_roles::accepts(variable_role r) const {
  return std::find(roles.begin(), roles.end(), r) != roles.end();
}

std::vector<std::size_t> variables::with_role(variable_role r) const {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].role == r) out.push_back(i);
  return out;
}

std::vector<std::size_t> variables::listed_with_role(variable_role r) const {
  std::vector<std::size_t> out;
  for (const std::size_t i : listed)
    if (inputs[i].role == r) out.push_back(i);
  return out;
}

std::vector<double> variables::values() const {
  std::vector<double> out;
  for (const variable& v : inputs) out.push_back(v.value);
  return out;
}

variables read_variables(const io::study_table& root, const model::model& m,
                         const accepted_roles& accepted) {
  variables out;
  for (const model::variable& v : m.inputs())
    out.inputs.push_back({v.name, v.unit, variable_role::fixed, false, v.nominal});
  const auto parameters = root.optional_table("parameters");
  if (!parameters) return out;
  const bool epistemic = accepted.accepts(variable_role::epistemic);
  std::vector<std::string> owner(m.inputs().size());  // the case table that set an input
  for (const std::string& name : parameters->keys()) {
    const io::study_table t = parameters->table(name);
    const std::size_t i = m.find_input(name);
    if (i == m.inputs().size()) {
      // Only an epistemic parameter may name something else: a [model] key or a case table.
      if (!epistemic || name == "type" || t.string_or("role", "") != "epistemic")
        parameters->fail(
            name, fmt::format("not an input of model {}; its inputs: {}{}", m.name(),
                              joined(m.input_names()),
                              epistemic ? " (a key of the [model] table can only be given role = "
                                          "\"epistemic\" with a list of choices)"
                                        : ""));
      const auto keys = t.keys();
      if (std::any_of(keys.begin(), keys.end(),
                      [](const std::string& k) { return k != "role" && k != "choices"; }))
        read_case_table(t, name, m, out, owner);
      else
        out.epistemic.push_back(read_epistemic(t, name, nullptr, 0));
      continue;
    }
    if (out.inputs[i].given)
      parameters->fail(
          name,
          fmt::format("is also a column of the case table [parameters.{}]; give it in one place",
                      owner[i]));
    const model::variable& v = m.inputs()[i];
    variable& x = out.inputs[i];
    x.role = read_role(t, accepted);
    x.given = true;
    out.listed.push_back(i);
    switch (x.role) {
      case variable_role::fixed:
        read_fixed(t, v, x);
        break;
      case variable_role::design:
        read_design(t, v, x);
        break;
      case variable_role::aleatoric:
        read_aleatoric(t, v, x);
        break;
      case variable_role::epistemic:
        out.epistemic.push_back(read_epistemic(t, name, &v, i));
        break;
      case variable_role::calibrated:
        read_calibrated(t, v, x);
        break;
    }
  }
  return out;
}

}  // namespace contactuq::study
