#pragma once
// Bulk material properties for the contact laws and the table that holds them
// (data/materials.toml). Every field is SI. The table gives the Brinell number HB [kgf/mm^2]; it is
// converted once, when read, to the hardness HB g 1e6 [Pa] (Brake 2014, below eq. 19), so that a
// model that varies the hardness hands the laws the very double it was given.

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace contactuq::contact {

struct material {
  std::string name;               ///< key in the table, e.g. "steel_aisi_1045"
  std::string description;        ///< human-readable grade and temper
  double modulus = 0.0;           ///< E [Pa], > 0
  double poisson = 0.0;           ///< nu [-], in [0, 0.5)
  double yield_strength = 0.0;    ///< sigma_y [Pa], > 0
  double density = 0.0;           ///< rho [kg/m^3], > 0
  double hardness = 0.0;          ///< HB g 1e6 [Pa], > 0 (HB: Brinell number)
  std::string source;             ///< handbook or data sheet the values come from
  std::string note;               ///< conversions or caveats, may be empty

  // Throws parameter_error naming the field ("<name>.modulus = ...").
  void validate() const;
};

class material_table {
 public:
  // Reads a TOML file of [name] tables with modulus, poisson, yield_strength, density (values with
  // units, e.g. "205 GPa"), brinell_hardness, source, and optional description and note. Errors
  // name the file, line and key: "data/materials.toml:12: steel.modulus: ...".
  static material_table load(const std::filesystem::path& path);
  // Same, from text; `origin` stands for the file name in messages.
  static material_table parse(std::string_view text, const std::string& origin);

  // Throws parameter_error listing the known names when `name` is not in the table.
  const material& at(std::string_view name) const;
  bool contains(std::string_view name) const;
  std::vector<std::string> names() const;

 private:
  std::map<std::string, material, std::less<>> materials_;
};

}  // namespace contactuq::contact
