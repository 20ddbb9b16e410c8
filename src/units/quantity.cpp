#include "contactuq/units/quantity.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <numbers>
#include <stdexcept>

namespace contactuq::units {
namespace {

struct unit_entry {
  std::string_view symbol;
  double to_si;
  dimension dim;
};

constexpr double g0 = 9.80665;                    // standard gravity [m/s^2], for grf and kgf
constexpr double lbf_in_newton = 4.4482216152605;  // 1 lbf = 0.45359237 kg * g0
constexpr double inch = 0.0254;

constexpr std::array unit_table = {
    // length
    unit_entry{"m", 1.0, length}, unit_entry{"mm", 1e-3, length}, unit_entry{"cm", 1e-2, length},
    unit_entry{"um", 1e-6, length}, unit_entry{"nm", 1e-9, length}, unit_entry{"km", 1e3, length},
    unit_entry{"in", inch, length}, unit_entry{"mil", 1e-3 * inch, length},
    unit_entry{"ft", 12 * inch, length},
    // mass
    unit_entry{"kg", 1.0, mass}, unit_entry{"g", 1e-3, mass}, unit_entry{"mg", 1e-6, mass},
    unit_entry{"lbm", 0.45359237, mass},
    // duration
    unit_entry{"s", 1.0, duration}, unit_entry{"ms", 1e-3, duration}, unit_entry{"us", 1e-6, duration},
    unit_entry{"min", 60.0, duration},
    // angle
    unit_entry{"rad", 1.0, angle}, unit_entry{"mrad", 1e-3, angle},
    unit_entry{"deg", std::numbers::pi / 180.0, angle},
    // force
    unit_entry{"N", 1.0, force}, unit_entry{"kN", 1e3, force}, unit_entry{"mN", 1e-3, force},
    unit_entry{"lbf", lbf_in_newton, force}, unit_entry{"ozf", lbf_in_newton / 16, force},
    unit_entry{"grf", 1e-3 * g0, force}, unit_entry{"gf", 1e-3 * g0, force},
    unit_entry{"kgf", g0, force},
    // pressure
    unit_entry{"Pa", 1.0, pressure}, unit_entry{"kPa", 1e3, pressure},
    unit_entry{"MPa", 1e6, pressure}, unit_entry{"GPa", 1e9, pressure},
    unit_entry{"psi", lbf_in_newton / (inch * inch), pressure},
    unit_entry{"ksi", 1e3 * lbf_in_newton / (inch * inch), pressure},
    // energy
    unit_entry{"J", 1.0, energy}, unit_entry{"mJ", 1e-3, energy}, unit_entry{"uJ", 1e-6, energy},
    // frequency
    unit_entry{"Hz", 1.0, dimensionless / duration},
    // dimensionless
    unit_entry{"%", 1e-2, dimensionless},
};

struct named_dimension {
  dimension dim;
  std::string_view name;
  std::string_view si;
  std::string_view example;
};

constexpr std::array named_dimensions = {
    named_dimension{dimensionless, "a plain number", "", "0.2"},
    named_dimension{length, "a length", "m", "0.300 in"},
    named_dimension{mass, "a mass", "kg", "2.5 g"},
    named_dimension{duration, "a duration", "s", "5 ms"},
    named_dimension{angle, "an angle", "rad", "15 deg"},
    named_dimension{velocity, "a velocity", "m/s", "1.5 m/s"},
    named_dimension{force, "a force", "N", "2 grf"},
    named_dimension{stiffness, "a stiffness", "N/m", "10 N/mm"},
    named_dimension{damping, "a damping coefficient", "N*s/m", "280 N*s/m"},
    named_dimension{torsional_stiffness, "a torsional stiffness", "N*m/rad", "0.004 lbf*in/deg"},
    named_dimension{coupling_stiffness, "a force per angle", "N/rad", "1 N/rad"},
    named_dimension{pressure, "a pressure or modulus", "Pa", "210 GPa"},
    named_dimension{energy, "an energy", "J", "1 mJ"},
    named_dimension{density, "a density", "kg/m^3", "7850 kg/m^3"},
};

const named_dimension* find_named(dimension d) {
  for (const auto& n : named_dimensions)
    if (n.dim == d) return &n;
  return nullptr;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

dimension power(dimension d, int p) {
  return {d.length * p, d.mass * p, d.duration * p, d.angle * p};
}

// One factor of a unit expression: a symbol with an optional integer power, e.g. "s^2".
unit parse_factor(std::string_view factor, std::string_view whole) {
  factor = trim(factor);
  int exponent = 1;
  if (auto caret = factor.find('^'); caret != std::string_view::npos) {
    auto digits = trim(factor.substr(caret + 1));
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), exponent);
    if (ec != std::errc{} || end != digits.data() + digits.size())
      throw std::invalid_argument(
          fmt::format("bad power '{}' in unit \"{}\": use an integer, e.g. \"m/s^2\"", digits, whole));
    factor = trim(factor.substr(0, caret));
  }
  if (factor == "1") return {};  // the numerator of "1/s"
  for (const auto& e : unit_table)
    if (e.symbol == factor) return {std::pow(e.to_si, exponent), power(e.dim, exponent)};
  if (factor.empty())
    throw std::invalid_argument(fmt::format("missing unit in \"{}\"", whole));
  throw std::invalid_argument(
      fmt::format("unknown unit '{}' in \"{}\"; known units: {}", factor, whole, known_units()));
}

std::string si_text(dimension d) {
  std::string num, den;
  auto add = [](std::string& s, std::string_view sym, int p) {
    if (p == 0) return;
    if (!s.empty()) s += '*';
    s += sym;
    if (p != 1) s += fmt::format("^{}", p);
  };
  const std::array<std::pair<std::string_view, int>, 4> parts = {
      {{"m", d.length}, {"kg", d.mass}, {"s", d.duration}, {"rad", d.angle}}};
  for (auto [sym, p] : parts) add(p > 0 ? num : den, sym, p > 0 ? p : -p);
  if (den.empty()) return num;
  const bool compound = den.find('*') != std::string::npos;
  return fmt::format("{}/{}{}{}", num.empty() ? "1" : num, compound ? "(" : "", den,
                     compound ? ")" : "");
}

}  // namespace

std::string describe(dimension d) {
  if (const auto* n = find_named(d)) return std::string(n->name);
  return "a quantity in " + si_text(d);
}

std::string si_unit(dimension d) {
  if (const auto* n = find_named(d)) return std::string(n->si);
  return si_text(d);
}

std::string example(dimension d) {
  if (const auto* n = find_named(d)) return fmt::format("\"{}\"", n->example);
  return fmt::format("\"1 {}\"", si_text(d));
}

std::string known_units() {
  std::string out;
  for (const auto& e : unit_table) {
    if (!out.empty()) out += ", ";
    out += e.symbol;
  }
  return out;
}

// "a/(b*c)" as "a/b/c": si_unit() writes compound denominators in parentheses, so that every
// unit it writes parses back. One level of parentheses, without a power on the group.
std::string without_parentheses(std::string_view whole) {
  std::string flat;
  bool in_group = false, divided = false;
  for (std::size_t i = 0; i < whole.size(); ++i) {
    char c = whole[i];
    if (c == '(') {
      if (in_group) throw std::invalid_argument(fmt::format("nested parentheses in unit \"{}\"", whole));
      in_group = true;
      divided = !trim(flat).empty() && trim(flat).back() == '/';
      continue;
    }
    if (c == ')') {
      if (!in_group) throw std::invalid_argument(fmt::format("unbalanced ')' in unit \"{}\"", whole));
      in_group = false;
      if (trim(whole.substr(i + 1)).starts_with('^'))
        throw std::invalid_argument(
            fmt::format("a power of a parenthesised group in unit \"{}\"; write each factor's power", whole));
      continue;
    }
    if (c == '*' && in_group && divided) c = '/';
    flat += c;
  }
  if (in_group) throw std::invalid_argument(fmt::format("unbalanced '(' in unit \"{}\"", whole));
  return flat;
}

unit parse_unit(std::string_view text) {
  const std::string flat = without_parentheses(trim(text));
  const std::string_view whole = trim(flat);
  unit result;
  if (whole.empty() || whole == "1") return result;
  // Left to right: "N*s/m" is (N*s)/m, "m/s/s" is m/s^2.
  char op = '*';
  std::size_t start = 0;
  for (std::size_t i = 0; i <= whole.size(); ++i) {
    if (i < whole.size() && whole[i] != '*' && whole[i] != '/') continue;
    const unit f = parse_factor(whole.substr(start, i - start), whole);
    if (op == '*') {
      result.to_si *= f.to_si;
      result.dim = result.dim * f.dim;
    } else {
      result.to_si /= f.to_si;
      result.dim = result.dim / f.dim;
    }
    if (i < whole.size()) op = whole[i];
    start = i + 1;
  }
  return result;
}

quantity parse_quantity(std::string_view text) {
  const std::string_view s = trim(text);
  double number = 0.0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), number);
  if (ec != std::errc{} || !std::isfinite(number))
    throw std::invalid_argument(
        fmt::format("\"{}\" is not a number with a unit, e.g. \"0.300 in\"", text));
  const unit u = parse_unit(std::string_view(end, static_cast<std::size_t>(s.data() + s.size() - end)));
  return {number * u.to_si, u.dim};
}

double to_si(std::string_view text, dimension expected) {
  const quantity q = parse_quantity(text);
  if (q.dim == expected) return q.si;
  if (q.dim == dimensionless)
    throw std::invalid_argument(fmt::format("\"{}\" has no unit; {} needs one, e.g. {}", text,
                                            describe(expected), example(expected)));
  throw std::invalid_argument(fmt::format("\"{}\" is {}, expected {} (e.g. {})", text,
                                          describe(q.dim), describe(expected), example(expected)));
}

double from_si(double value_si, std::string_view unit_text, dimension expected) {
  const unit u = parse_unit(unit_text);
  if (!(u.dim == expected))
    throw std::invalid_argument(fmt::format("unit \"{}\" is {}, expected {}", unit_text,
                                            describe(u.dim), describe(expected)));
  return value_si / u.to_si;
}

}  // namespace contactuq::units
