#include "contactuq/contact/material.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "contactuq/contact/contact_geometry.hpp"
#include "contactuq/error.hpp"
#include "contactuq/units/quantity.hpp"

namespace contactuq::contact {

void material::validate() const {
  const std::string prefix = name.empty() ? std::string() : name + ".";
  require(modulus > 0 && std::isfinite(modulus), prefix + "modulus", modulus, "Pa",
          "positive and finite");
  require(poisson >= 0 && poisson < 0.5, prefix + "poisson", poisson, "", "in [0, 0.5)");
  require(yield_strength > 0 && std::isfinite(yield_strength), prefix + "yield_strength",
          yield_strength, "Pa", "positive and finite");
  require(density > 0 && std::isfinite(density), prefix + "density", density, "kg/m^3",
          "positive and finite");
  require(hardness > 0 && std::isfinite(hardness), prefix + "hardness", hardness, "Pa",
          "positive and finite");
}

namespace {

// "file:line: name.key: message"
[[noreturn]] void fail(const std::string& origin, const toml::source_region& where,
                       const std::string& key, const std::string& message) {
  throw parameter_error(key, fmt::format("{}:{}: {}: {}", origin, where.begin.line, key, message));
}

double quantity_field(const toml::table& t, const std::string& origin, const std::string& name,
                      const char* key, units::dimension dim) {
  const std::string full = name + "." + key;
  const toml::node* node = t.get(key);
  if (!node) fail(origin, t.source(), full, "missing");
  if (dim == units::dimensionless) {
    if (auto v = node->value<double>()) return *v;
    fail(origin, node->source(), full, "must be a number");
  }
  const auto text = node->value<std::string>();
  if (!text)
    fail(origin, node->source(), full,
         fmt::format("must be a string with units, e.g. {}", units::example(dim)));
  try {
    return units::to_si(*text, dim);
  } catch (const std::invalid_argument& e) {
    fail(origin, node->source(), full, e.what());
  }
}

std::string string_field(const toml::table& t, const std::string& origin, const std::string& name,
                         const char* key, bool required) {
  const toml::node* node = t.get(key);
  if (!node) {
    if (required) fail(origin, t.source(), name + "." + key, "missing");
    return {};
  }
  const auto text = node->value<std::string>();
  if (!text) fail(origin, node->source(), name + "." + key, "must be a string");
  return *text;
}

}  // namespace

material_table material_table::parse(std::string_view text, const std::string& origin) {
  toml::table root;
  try {
    root = toml::parse(text, origin);
  } catch (const toml::parse_error& e) {
    throw parameter_error("",
                          fmt::format("{}:{}: {}", origin, e.source().begin.line, e.description()));
  }
  static constexpr const char* known_keys[] = {"description",    "modulus", "poisson",
                                               "yield_strength", "density", "brinell_hardness",
                                               "source",         "note"};
  material_table out;
  for (const auto& [key, node] : root) {
    const std::string name(key.str());
    const toml::table* t = node.as_table();
    if (!t) fail(origin, node.source(), name, "must be a table of material properties");
    for (const auto& [field, value] : *t) {
      const auto is_known = [&](const char* k) { return field.str() == k; };
      if (std::none_of(std::begin(known_keys), std::end(known_keys), is_known))
        fail(origin, value.source(), name + "." + std::string(field.str()),
             "unknown key (known: description, modulus, poisson, yield_strength, density, "
             "brinell_hardness, source, note)");
    }
    material m;
    m.name = name;
    m.description = string_field(*t, origin, name, "description", false);
    m.modulus = quantity_field(*t, origin, name, "modulus", units::pressure);
    m.poisson = quantity_field(*t, origin, name, "poisson", units::dimensionless);
    m.yield_strength = quantity_field(*t, origin, name, "yield_strength", units::pressure);
    m.density = quantity_field(*t, origin, name, "density", units::density);
    const double brinell = quantity_field(*t, origin, name, "brinell_hardness", units::dimensionless);
    if (!(brinell > 0 && std::isfinite(brinell)))
      fail(origin, t->get("brinell_hardness")->source(), name + ".brinell_hardness",
           fmt::format("brinell_hardness = {}: must be positive and finite", brinell));
    m.hardness = brinell_to_pascal(brinell);  // the one conversion (Brake 2014, below eq. 19)
    m.source = string_field(*t, origin, name, "source", true);
    m.note = string_field(*t, origin, name, "note", false);
    try {
      m.validate();
    } catch (const parameter_error& e) {
      const std::string field = e.field().substr(name.size() + 1);
      const toml::node* where = t->get(field);
      const auto line = (where ? where->source() : t->source()).begin.line;
      throw parameter_error(e.field(), fmt::format("{}:{}: {}", origin, line, e.what()));
    }
    out.materials_.emplace(name, std::move(m));
  }
  return out;
}

material_table material_table::load(const std::filesystem::path& path) {
  // A regular file of bounded size: a device such as /dev/zero would be read until memory ends.
  std::error_code ec;
  if (path.empty()) throw parameter_error("materials", "no file name given");
  if (!std::filesystem::is_regular_file(path, ec))
    throw parameter_error("materials", fmt::format("{}: {}", path.string(),
                                                   std::filesystem::exists(path, ec) ? "not a regular file" : "cannot open: no such file"));
  if (std::filesystem::file_size(path, ec) > (std::uintmax_t{16} << 20))
    throw parameter_error("materials", fmt::format("{}: larger than 16 MiB: not a material table", path.string()));
  std::ifstream in(path);
  if (!in) throw parameter_error("materials", fmt::format("{}: cannot open", path.string()));
  std::stringstream text;
  text << in.rdbuf();
  return parse(text.str(), path.string());
}

const material& material_table::at(std::string_view name) const {
  const auto it = materials_.find(name);
  if (it == materials_.end())
    throw parameter_error("material", fmt::format("unknown material '{}' (known: {})", name,
                                                  fmt::join(names(), ", ")));
  return it->second;
}

bool material_table::contains(std::string_view name) const {
  return materials_.find(name) != materials_.end();
}

std::vector<std::string> material_table::names() const {
  std::vector<std::string> out;
  for (const auto& [name, m] : materials_) out.push_back(name);
  return out;
}

}  // namespace contactuq::contact
