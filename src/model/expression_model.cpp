#include "contactuq/model/expression_model.hpp"

#include <fmt/format.h>
#include <muParser.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <set>
#include <stdexcept>
#include <string_view>
#include <tuple>

#include "contactuq/error.hpp"

namespace contactuq::model {

namespace u = units;

namespace {

bool identifier(const std::string& name) {
  const auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  return !name.empty() && letter(name.front()) &&
         std::all_of(name.begin(), name.end(), [&](char c) { return letter(c) || digit(c); });
}

// A parser with the built-ins, plus `pi` (muparser names it only `_pi`).
void add_constants(mu::Parser& p) { p.DefineConst("pi", std::numbers::pi); }

// Names a formula cannot give an input or output: muparser's functions and constants.
std::set<std::string> reserved_names() {
  mu::Parser p;
  add_constants(p);
  std::set<std::string> names;
  for (const auto& [name, f] : p.GetFunDef()) names.insert(name);
  for (const auto& [name, c] : p.GetConst()) names.insert(name);
  return names;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// muparser's assignment operators (=, +=, -=, *=, /=) would change an input for the formulas
// evaluated after; a formula only reads. `==`, `<=`, `>=` and `!=` are comparisons.
bool assigns(const std::string& formula) {
  for (std::size_t i = 0; i < formula.size(); ++i) {
    if (formula[i] != '=') continue;
    const char before = i > 0 ? formula[i - 1] : ' ';
    const char after = i + 1 < formula.size() ? formula[i + 1] : ' ';
    if (after == '=') {
      ++i;  // `==`
      continue;
    }
    if (before != '<' && before != '>' && before != '!') return true;
  }
  return false;
}

std::string unit_text(u::dimension d) {
  const std::string s = u::si_unit(d);
  return s.empty() ? "1" : s;
}

constexpr std::array<int u::dimension::*, 4> base_dims = {&u::dimension::length, &u::dimension::mass,
                                                          &u::dimension::duration, &u::dimension::angle};
constexpr std::array<const char*, 4> base_names = {"length", "mass", "duration", "angle"};

// The points the scaling test probes: the nominal point and two points near it, so that a formula
// that happens to vanish there (R - S at R = S) or an input that is 0 there does not hide units.
std::vector<std::vector<double>> probe_points(const std::vector<expression_input>& inputs) {
  std::vector<std::vector<double>> points(3);
  for (std::size_t k = 0; k < points.size(); ++k)
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const double x = inputs[i].nominal;
      // Irregular factors in [0.9, 1.1], different for each input and point.
      const double a = 1.0 + 0.1 * std::sin(1.0 + 3.7 * static_cast<double>(i) + 1.3 * static_cast<double>(k));
      points[k].push_back(k == 0 ? x : x != 0.0 ? x * a : 0.1 * a);
    }
  return points;
}

// How an output scales in one base dimension.
struct scaling {
  bool probed = false;  // some probe gave a finite, nonzero value
  bool power = false;   // it scales as f^exponent at every probe and factor
  int exponent = 0;
  double seen = 0.0;  // log_2 of the ratio at the first probe, for messages
};

}  // namespace

struct expression_model::compiled {
  std::vector<double> values;  // the inputs the parsers read; never reallocated after binding
  std::vector<mu::Parser> parsers;

  // Binds a parser per formula to `values`; throws parameter_error naming the output whose
  // formula is wrong.
  compiled(const std::vector<expression_input>& inputs, const std::vector<expression_output>& outputs)
      : values(inputs.size()), parsers(outputs.size()) {
    std::vector<std::string> input_names;
    for (const auto& in : inputs) input_names.push_back(in.name);
    for (std::size_t j = 0; j < outputs.size(); ++j) {
      const expression_output& out = outputs[j];
      mu::Parser& p = parsers[j];
      add_constants(p);
      for (std::size_t i = 0; i < inputs.size(); ++i) p.DefineVar(inputs[i].name, &values[i]);
      if (assigns(out.formula))
        throw parameter_error(out.name, fmt::format("formula \"{}\" assigns (=); compare with ==", out.formula));
      try {
        p.SetExpr(out.formula);
        int results = 0;
        p.Eval(results);  // parses it: syntax errors and unknown names come here
        if (results != 1)
          throw parameter_error(out.name, fmt::format("formula \"{}\" gives {} values separated by commas; "
                                                      "an output is one value",
                                                      out.formula, results));
      } catch (const mu::Parser::exception_type& e) {
        const std::string& token = e.GetToken();
        if (e.GetCode() == mu::ecUNASSIGNABLE_TOKEN && identifier(token)) {
          const bool is_output = std::any_of(outputs.begin(), outputs.end(),
                                             [&](const expression_output& o) { return o.name == token; });
          throw parameter_error(
              out.name, fmt::format("formula \"{}\": unknown name \"{}\" at character {}; {}the inputs are {}",
                                    out.formula, token, e.GetPos() + 1,
                                    is_output ? "a formula reads inputs, not other outputs; " : "",
                                    joined(input_names)));
        }
        throw parameter_error(out.name, fmt::format("formula \"{}\": {}", out.formula, e.GetMsg()));
      }
    }
  }

  double eval(std::size_t j, std::span<const double> x) {
    std::copy(x.begin(), x.end(), values.begin());
    return parsers[j].Eval();
  }

  // How output j scales when every input is scaled by f^(its exponent of base dimension d).
  scaling scale(std::size_t j, int u::dimension::*d, const std::vector<expression_input>& inputs,
                const std::vector<std::vector<double>>& points) {
    scaling s;
    std::vector<double> scaled;
    // The exponent from the first usable probe at f = 2, then every probe at f = 2 and 3.
    for (const auto& x : points) {
      const double y = eval(j, x);
      if (!std::isfinite(y) || y == 0.0) continue;
      scaled = x;
      for (std::size_t i = 0; i < x.size(); ++i) scaled[i] *= std::pow(2.0, inputs[i].dim.*d);
      const double ys = eval(j, scaled);
      if (!std::isfinite(ys)) continue;
      s.probed = true;
      s.seen = std::log2(std::abs(ys / y));
      s.power = ys / y > 0.0 && std::abs(s.seen) < 64.0;
      s.exponent = s.power ? static_cast<int>(std::lround(s.seen)) : 0;
      break;
    }
    if (!s.power) return s;
    for (const auto& x : points) {
      const double y = eval(j, x);
      if (!std::isfinite(y)) continue;
      for (const double f : {2.0, 3.0}) {
        scaled = x;
        for (std::size_t i = 0; i < x.size(); ++i) scaled[i] *= std::pow(f, inputs[i].dim.*d);
        const double ys = eval(j, scaled);
        const double expected = y * std::pow(f, s.exponent);
        if (!std::isfinite(ys) || std::abs(ys - expected) > 1e-9 * std::max(std::abs(ys), std::abs(expected))) {
          s.power = false;
          return s;
        }
      }
    }
    return s;
  }
};

expression_model::expression_model(std::vector<expression_input> inputs, std::vector<expression_output> outputs)
    : inputs_(std::move(inputs)), outputs_(std::move(outputs)) {
  if (inputs_.empty()) throw parameter_error("inputs", "an expression model needs at least one input");
  if (outputs_.empty()) throw parameter_error("outputs", "an expression model needs at least one output");
  const std::set<std::string> reserved = reserved_names();
  std::set<std::string> seen;
  const auto check_name = [&](const std::string& name, const char* what) {
    if (name.empty()) throw parameter_error(name, fmt::format("an {} needs a name", what));
    if (!identifier(name))
      throw parameter_error(name, fmt::format("{} name \"{}\": a name is letters, digits and _, not starting "
                                              "with a digit",
                                              what, name));
    if (reserved.contains(name))
      throw parameter_error(name, fmt::format("{} name \"{}\" is a built-in function or constant of the "
                                              "formulas; choose another name",
                                              what, name));
    if (!seen.insert(name).second)
      throw parameter_error(name, fmt::format("{} name \"{}\" is used twice (inputs and outputs share names)",
                                              what, name));
  };
  for (const auto& in : inputs_) {
    check_name(in.name, "input");
    if (!std::isfinite(in.nominal))
      throw parameter_error(in.name, fmt::format("{} = {}: the value must be finite", in.name,
                                                 format_value(in.nominal)));
    if (!in.valid.contains(in.nominal))
      throw parameter_error(in.name, fmt::format("{} = {} {} is outside its valid range {}", in.name,
                                                 format_value(in.nominal), u::si_unit(in.dim),
                                                 in.valid.text(in.dim)));
  }
  for (const auto& out : outputs_) {
    check_name(out.name, "output");
    if (out.formula.find_first_not_of(" \t") == std::string::npos)
      throw parameter_error(out.name, fmt::format("output {} has an empty formula", out.name));
  }
  compiled_ = std::make_unique<compiled>(inputs_, outputs_);

  // Units of each output by scaling (see the header).
  const auto points = probe_points(inputs_);
  for (std::size_t j = 0; j < outputs_.size(); ++j) {
    const expression_output& out = outputs_[j];
    std::optional<u::unit> declared;
    if (out.units) {
      try {
        declared = u::parse_unit(*out.units);
      } catch (const std::invalid_argument& e) {
        throw parameter_error(out.name, fmt::format("declared units \"{}\": {}", *out.units, e.what()));
      }
    }
    u::dimension dim;
    for (std::size_t b = 0; b < base_dims.size(); ++b) {
      const auto d = base_dims[b];
      const scaling s = compiled_->scale(j, d, inputs_, points);
      if (!s.probed) {
        if (declared) {  // nothing to compare with: 0 or not finite at and near the nominal point
          dim = declared->dim;
          break;
        }
        throw parameter_error(out.name, fmt::format("formula \"{}\" is 0 or not finite at and near the nominal "
                                                    "inputs, so its units cannot be found; declare them: "
                                                    "{} = {{ formula = \"{}\", units = \"...\" }}",
                                                    out.formula, out.name, out.formula));
      }
      if (!s.power) {
        if (d == &u::dimension::angle) {  // a function of an angle (sin(theta)): as declared
          dim.*d = declared ? declared->dim.*d : 0;
          continue;
        }
        throw parameter_error(
            out.name,
            fmt::format("formula \"{}\": its units are not consistent: it does not scale as a whole power of {} "
                        "(doubling every {} input scales it by 2^{:.6g} near the nominal point). Terms of different "
                        "units added or compared, a unit inside a function (exp, sqrt, ...), or a number with "
                        "units written in the formula (make it an input, e.g. C = \"100 N\")?",
                        out.formula, base_names[b], base_names[b], s.seen));
      }
      dim.*d = s.exponent;
    }
    if (declared && !(dim == declared->dim))
      throw parameter_error(out.name, fmt::format("formula \"{}\": its units are not the declared units: the "
                                                  "formula gives {} ({}), declared units = \"{}\" ({})",
                                                  out.formula, u::describe(dim), unit_text(dim), *out.units,
                                                  u::describe(declared->dim)));
    output_dims_.push_back(dim);
    // The declared unit names the SI unit where it is one (a torque "N*m", not "J").
    output_units_.push_back(declared && declared->to_si == 1.0 && dim == declared->dim && *out.units != "1"
                                ? *out.units
                                : std::string());
  }
}

expression_model::expression_model(const expression_model& other)
    : inputs_(other.inputs_),
      outputs_(other.outputs_),
      output_dims_(other.output_dims_),
      output_units_(other.output_units_),
      // Its own parsers bound to its own values: muparser's copy would still read other's.
      compiled_(std::make_unique<compiled>(inputs_, outputs_)) {}

expression_model& expression_model::operator=(const expression_model& other) {
  if (this != &other) *this = expression_model(other);
  return *this;
}

expression_model::expression_model(expression_model&&) noexcept = default;
expression_model& expression_model::operator=(expression_model&&) noexcept = default;
expression_model::~expression_model() = default;

std::vector<variable> expression_model::inputs() const {
  std::vector<variable> v;
  for (const auto& in : inputs_) v.push_back({in.name, in.dim, in.nominal, in.valid});
  return v;
}

std::vector<variable> expression_model::outputs() const {
  std::vector<variable> v;
  for (std::size_t j = 0; j < outputs_.size(); ++j)
    v.push_back({outputs_[j].name, output_dims_[j], std::nan(""), {}, output_units_[j]});
  return v;
}

evaluation expression_model::evaluate(std::span<const double> x) const {
  if (x.size() != inputs_.size())
    throw std::invalid_argument(fmt::format("expression model: {} inputs, got {}", inputs_.size(), x.size()));
  evaluation e;
  e.outputs.resize(outputs_.size());
  std::copy(x.begin(), x.end(), compiled_->values.begin());
  for (std::size_t j = 0; j < outputs_.size(); ++j) {
    const double y = compiled_->parsers[j].Eval();
    if (!std::isfinite(y)) {
      std::string at;
      for (std::size_t i = 0; i < x.size(); ++i)
        at += fmt::format("{}{} = {}", i == 0 ? "" : ", ", inputs_[i].name, format_value(x[i]));
      throw model_error(fmt::format("{} = {} is {} at {} (SI)", outputs_[j].name, outputs_[j].formula,
                                    std::isnan(y) ? "NaN" : "infinite", at));
    }
    e.outputs[j] = y;
  }
  return e;
}

expression_model expression_model::from_study(const io::study_table& t) {
  t.allow_only({"type", "inputs", "outputs"});
  if (!t.has("inputs")) t.fail("missing [model.inputs]: name = \"<value with units>\" per input, e.g. R = \"200 N\"");
  if (!t.has("outputs")) t.fail("missing [model.outputs]: name = \"<formula>\" per output, e.g. g = \"R - S\"");
  const io::study_table in_table = t.table("inputs");
  const io::study_table out_table = t.table("outputs");

  std::vector<expression_input> inputs = read_declared_inputs(in_table);

  std::vector<expression_output> outputs;
  for (const std::string& name : keys_as_written(out_table)) {
    if (in_table.has(name)) out_table.fail(name, "is an input's name too; inputs and outputs need names of their own");
    expression_output out{name, {}, std::nullopt};
    if (out_table.value_text(name) == "{...}") {
      const io::study_table ot = out_table.table(name);
      ot.allow_only({"formula", "units"});
      out.formula = ot.string("formula");
      if (ot.has("units")) out.units = ot.string("units");
    } else {
      out.formula = out_table.string(name);
    }
    outputs.push_back(std::move(out));
  }
  if (inputs.empty()) in_table.fail("no inputs: name = \"<value with units>\" per input, e.g. R = \"200 N\"");
  if (outputs.empty()) out_table.fail("no outputs: name = \"<formula>\" per output, e.g. g = \"R - S\"");

  try {
    return expression_model(std::move(inputs), std::move(outputs));
  } catch (const parameter_error& e) {
    // At the key that set the input or output at fault.
    const std::string& field = e.field();
    if (in_table.has(field)) {
      if (in_table.value_text(field) == "{...}") in_table.table(field).fail("value", e.what());
      in_table.fail(field, e.what());
    }
    if (out_table.has(field)) {
      if (out_table.value_text(field) == "{...}") {
        const io::study_table ot = out_table.table(field);
        const std::string_view what = e.what();
        const bool about_units = what.find("declared units") != what.npos;
        if (about_units && ot.has("units")) ot.fail("units", e.what());
        ot.fail("formula", e.what());
      }
      out_table.fail(field, e.what());
    }
    t.fail(e);
  }
}

}  // namespace contactuq::model
