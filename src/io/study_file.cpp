#include "contactuq/io/study_file.hpp"

#include <fmt/format.h>

#include <fstream>
#include <span>
#include <sstream>
#include <toml++/toml.h>

namespace contactuq::io {
namespace {

std::string join(std::span<const std::string_view> items) {
  std::string out;
  for (auto item : items) {
    if (!out.empty()) out += ", ";
    out += item;
  }
  return out;
}

std::string node_text(const toml::node& n) {
  std::ostringstream out;
  if (n.is_string())
    out << '"' << *n.value<std::string>() << '"';
  else if (n.is_table())
    out << "{...}";
  else if (n.is_array())
    out << *n.as_array();
  else
    n.visit([&](const auto& v) { out << v; });
  return out.str();
}

std::string_view type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a number";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    default: return "a date or time";
  }
}

}  // namespace

study_error::study_error(std::string file, int line, std::string key, const std::string& message)
    : std::runtime_error(line > 0 ? fmt::format("{}:{}: {}", file, line, message)
                                  : fmt::format("{}: {}", file, message)),
      file_(std::move(file)),
      line_(line),
      key_(std::move(key)) {}

study_document study_document::load(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw study_error(path.string(), 0, "", "cannot open the study file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse(text.str(), path.string());
}

study_document study_document::parse(std::string text, std::string file_name) {
  study_document doc;
  try {
    doc.root_ = std::make_shared<const toml::table>(toml::parse(text, file_name));
  } catch (const toml::parse_error& e) {
    throw study_error(file_name, static_cast<int>(e.source().begin.line), "",
                      fmt::format("TOML syntax error: {}", e.description()));
  }
  doc.text_ = std::move(text);
  doc.file_ = std::move(file_name);
  return doc;
}

study_table study_document::root() const { return study_table(root_, root_.get(), file_, ""); }

study_table::study_table(std::shared_ptr<const toml::table> owner, const toml::table* table,
                         std::string file, std::string path)
    : owner_(std::move(owner)), table_(table), file_(std::move(file)), path_(std::move(path)) {}

bool study_table::has(std::string_view key) const { return table_->contains(key); }

std::vector<std::string> study_table::keys() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : *table_) out.emplace_back(k.str());
  return out;
}

int study_table::line() const { return static_cast<int>(table_->source().begin.line); }

int study_table::line(std::string_view key) const {
  const toml::node* n = table_->get(key);
  return n ? static_cast<int>(n->source().begin.line) : line();
}

std::string study_table::qualified(std::string_view key) const {
  return path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key);
}

std::string study_table::value_text(std::string_view key) const {
  const toml::node* n = table_->get(key);
  return n ? node_text(*n) : "";
}

void study_table::fail(std::string_view key, const std::string& message) const {
  const std::string value = value_text(key);
  const std::string where = value.empty() ? qualified(key) : fmt::format("{} = {}", qualified(key), value);
  throw study_error(file_, line(key), qualified(key), fmt::format("{}: {}", where, message));
}

void study_table::fail(const std::string& message) const {
  throw study_error(file_, line(), path_, path_.empty() ? message : fmt::format("[{}]: {}", path_, message));
}

void study_table::fail(const parameter_error& error) const {
  if (has(error.field())) fail(error.field(), error.what());
  fail(std::string(error.what()));
}

const toml::node& study_table::node(std::string_view key) const {
  const toml::node* n = table_->get(key);
  if (!n) fail(fmt::format("missing required key '{}'", key));
  return *n;
}

double study_table::to_quantity(const toml::node& n, std::string_view key, units::dimension dim) const {
  if (n.is_number()) {
    const double v = n.is_integer() ? static_cast<double>(*n.value<std::int64_t>()) : *n.value<double>();
    if (dim == units::dimensionless) return v;
    fail(key, fmt::format("{} needs a unit, e.g. {}", units::describe(dim), units::example(dim)));
  }
  if (!n.is_string())
    fail(key, fmt::format("expected {} such as {}, got {}", units::describe(dim), units::example(dim),
                          type_name(n)));
  try {
    return units::to_si(*n.value<std::string>(), dim);
  } catch (const std::invalid_argument& e) {
    fail(key, e.what());
  }
}

double study_table::quantity(std::string_view key, units::dimension dim) const {
  return to_quantity(node(key), key, dim);
}

double study_table::quantity_or(std::string_view key, units::dimension dim, double fallback) const {
  return has(key) ? quantity(key, dim) : fallback;
}

std::vector<double> study_table::quantities(std::string_view key, units::dimension dim) const {
  const toml::node& n = node(key);
  const toml::array* array = n.as_array();
  if (!array || array->empty())
    fail(key, fmt::format("expected a non-empty array of {} values, e.g. [{}]", units::describe(dim),
                          units::example(dim)));
  std::vector<double> out;
  for (const toml::node& item : *array) out.push_back(to_quantity(item, key, dim));
  return out;
}

std::string study_table::string(std::string_view key) const {
  const toml::node& n = node(key);
  if (!n.is_string()) fail(key, fmt::format("expected a string, got {}", type_name(n)));
  return *n.value<std::string>();
}

std::vector<std::string> study_table::strings(std::string_view key) const {
  const toml::array* array = node(key).as_array();
  if (!array || array->empty() || !array->is_homogeneous(toml::node_type::string))
    fail(key, "expected a non-empty array of strings, e.g. [\"a\", \"b\"]");
  std::vector<std::string> out;
  for (const toml::node& item : *array) out.push_back(*item.value<std::string>());
  return out;
}

std::vector<std::string> study_table::element_texts(std::string_view key) const {
  const toml::array* array = node(key).as_array();
  if (!array || array->empty())
    fail(key, "expected a non-empty array, e.g. [\"hertz\", \"thornton\"] or [\"1 mm\", \"2 mm\"]");
  std::vector<std::string> out;
  for (const toml::node& item : *array) {
    if (item.is_string())
      out.push_back(*item.value<std::string>());
    else if (item.is_number())
      out.push_back(node_text(item));
    else
      fail(key, "every element must be a string or a number");
  }
  return out;
}

study_table study_table::with_element(std::string_view key, const study_table& source, std::string_view array_key,
                                      std::size_t index) const {
  const toml::array* array = source.node(array_key).as_array();
  if (!array || index >= array->size())
    source.fail(array_key, fmt::format("has no element {}", index + 1));
  auto copy = std::make_shared<toml::table>(*table_);
  array->get(index)->visit([&](const auto& value) { copy->insert_or_assign(key, value); });
  // Keep the line of the array for error messages about the new value.
  const toml::table* t = copy.get();
  return study_table(std::move(copy), t, file_, path_);
}

std::string study_table::string_or(std::string_view key, std::string fallback) const {
  return has(key) ? string(key) : fallback;
}

std::string study_table::choice(std::string_view key, std::initializer_list<std::string_view> allowed,
                                std::optional<std::string_view> fallback) const {
  if (!has(key) && fallback) return std::string(*fallback);
  const std::string value = string(key);
  for (auto a : allowed)
    if (a == value) return value;
  fail(key, fmt::format("must be one of: {}", join(allowed)));
}

std::int64_t study_table::integer(std::string_view key) const {
  const toml::node& n = node(key);
  if (!n.is_integer()) fail(key, fmt::format("expected an integer, got {}", type_name(n)));
  return *n.value<std::int64_t>();
}

std::int64_t study_table::integer_or(std::string_view key, std::int64_t fallback) const {
  return has(key) ? integer(key) : fallback;
}

bool study_table::boolean_or(std::string_view key, bool fallback) const {
  if (!has(key)) return fallback;
  const toml::node& n = node(key);
  if (!n.is_boolean()) fail(key, fmt::format("expected true or false, got {}", type_name(n)));
  return *n.value<bool>();
}

study_table study_table::table(std::string_view key) const {
  const toml::node& n = node(key);
  if (!n.is_table()) fail(key, fmt::format("expected a table [{}], got {}", qualified(key), type_name(n)));
  return study_table(owner_, n.as_table(), file_, qualified(key));
}

std::optional<study_table> study_table::optional_table(std::string_view key) const {
  if (!has(key)) return std::nullopt;
  return table(key);
}

std::vector<study_table> study_table::tables(std::string_view key) const {
  const toml::node& n = node(key);
  const toml::array* array = n.as_array();
  if (!array || array->empty() || !array->is_array_of_tables())
    fail(key, fmt::format("expected one or more [[{}]] tables", qualified(key)));
  std::vector<study_table> out;
  for (std::size_t i = 0; i < array->size(); ++i)
    out.emplace_back(owner_, (*array)[i].as_table(), file_, fmt::format("{}[{}]", qualified(key), i + 1));
  return out;
}

void study_table::allow_only(std::initializer_list<std::string_view> allowed) const {
  allow_only(std::span<const std::string_view>(allowed.begin(), allowed.size()));
}

void study_table::allow_only(std::span<const std::string_view> allowed) const {
  for (const auto& [k, v] : *table_) {
    bool known = false;
    for (auto a : allowed) known = known || a == k.str();
    if (!known)
      throw study_error(file_, static_cast<int>(v.source().begin.line), qualified(k.str()),
                        fmt::format("unknown key '{}' in {}; allowed keys: {}", k.str(),
                                    path_.empty() ? "the top level" : "[" + path_ + "]", join(allowed)));
  }
}

}  // namespace contactuq::io
