#pragma once
// Study files: TOML documents read once into option structs. Every accessor checks type,
// units and presence, and every error names the file, line, key, the bad value and what is
// allowed, e.g.
//   studies/williams_bifurcated.toml:9: model.K = "-0.004 lbf*in/deg": K = ... must be > 0

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <memory>
#include <optional>
#include <stdexcept>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "contactuq/error.hpp"
#include "contactuq/units/quantity.hpp"

namespace toml {
inline namespace v3 {
class table;
class node;
}  // namespace v3
}  // namespace toml

namespace contactuq::io {

class study_error : public std::runtime_error {
 public:
  study_error(std::string file, int line, std::string key, const std::string& message);
  const std::string& file() const noexcept { return file_; }
  int line() const noexcept { return line_; }  ///< 1-based; 0 when unknown
  const std::string& key() const noexcept { return key_; }

 private:
  std::string file_;
  int line_;
  std::string key_;
};

class study_table;

// A parsed study file, kept with its verbatim text so results can store it.
class study_document {
 public:
  // Throws study_error for a missing file or a TOML syntax error (with its line).
  static study_document load(const std::filesystem::path& path);
  static study_document parse(std::string text, std::string file_name);

  const std::string& text() const noexcept { return text_; }
  const std::string& file() const noexcept { return file_; }
  study_table root() const;

 private:
  std::string text_;
  std::string file_;
  std::shared_ptr<const toml::table> root_;
};

// A view of one table of a study document that knows where it is, for error messages.
class study_table {
 public:
  study_table(std::shared_ptr<const toml::table> owner, const toml::table* table, std::string file,
              std::string path);

  bool has(std::string_view key) const;
  std::vector<std::string> keys() const;

  // A value with units, returned in SI. Plain numbers are accepted only where `dim` is
  // dimensionless; anything dimensional needs a unit ("0.300 in").
  double quantity(std::string_view key, units::dimension dim) const;
  double quantity_or(std::string_view key, units::dimension dim, double fallback) const;
  std::vector<double> quantities(std::string_view key, units::dimension dim) const;
  std::string string(std::string_view key) const;
  std::vector<std::string> strings(std::string_view key) const;  ///< a non-empty array of strings
  std::string string_or(std::string_view key, std::string fallback) const;
  // A string that must be one of `allowed`.
  std::string choice(std::string_view key, std::initializer_list<std::string_view> allowed,
                     std::optional<std::string_view> fallback = std::nullopt) const;
  std::int64_t integer(std::string_view key) const;
  std::int64_t integer_or(std::string_view key, std::int64_t fallback) const;
  bool boolean_or(std::string_view key, bool fallback) const;

  study_table table(std::string_view key) const;
  std::optional<study_table> optional_table(std::string_view key) const;
  // An array of tables ([[model.arms]]); at least one entry.
  std::vector<study_table> tables(std::string_view key) const;

  // The elements of an array as written (for labels), e.g. {"hertz", "1 mm", "0.2"}; throws
  // study_error unless the key holds a non-empty array of strings or numbers.
  std::vector<std::string> element_texts(std::string_view key) const;
  // A copy of this table in which `key` holds element `index` of the array `array_key` of
  // `source` (e.g. one choice of an epistemic parameter), to build a model per choice. Errors
  // about that value point at the array's line.
  study_table with_element(std::string_view key, const study_table& source, std::string_view array_key,
                           std::size_t index) const;

  // Rejects keys other than `allowed`, naming the stray key and listing the allowed ones:
  // a misspelt key must never be ignored silently.
  void allow_only(std::initializer_list<std::string_view> allowed) const;
  void allow_only(std::span<const std::string_view> allowed) const;

  // Errors located at a key's line, or at the table itself.
  [[noreturn]] void fail(std::string_view key, const std::string& message) const;
  [[noreturn]] void fail(const std::string& message) const;
  // A parameter_error from validating what this table set: located at the key named by the
  // error's field when the table has it, else at the table.
  [[noreturn]] void fail(const parameter_error& error) const;

  const std::string& file() const noexcept { return file_; }
  const std::string& path() const noexcept { return path_; }  ///< e.g. "model.arms[2]"
  int line() const;
  int line(std::string_view key) const;
  std::string qualified(std::string_view key) const;  ///< path.key
  std::string value_text(std::string_view key) const;  ///< the value as written, e.g. "\"0.3 in\""

 private:
  const toml::node& node(std::string_view key) const;  // throws study_error when missing
  double to_quantity(const toml::node& n, std::string_view key, units::dimension dim) const;

  std::shared_ptr<const toml::table> owner_;  // keeps the document alive
  const toml::table* table_;
  std::string file_;
  std::string path_;
};

}  // namespace contactuq::io
