#include <fmt/format.h>

#include "commands.hpp"
#include "contactuq/units/quantity.hpp"

namespace contactuq::cli {

void add_units_command(CLI::App& app, int& exit_code) {
  CLI::App* sub = app.add_subcommand("units", "List the units study files may use, or convert a value to SI");
  auto value = std::make_shared<std::string>();
  sub->add_option("value", *value, "A quantity to convert, e.g. \"0.004 lbf*in/deg\"");
  sub->callback([value, &exit_code] {
    if (value->empty()) {
      fmt::print("Units (combine with * and /, powers with ^, e.g. \"lbf*in/deg\", \"m/s^2\"):\n  {}\n",
                 units::known_units());
    } else {
      const units::quantity q = units::parse_quantity(*value);
      fmt::print("{} = {} {} ({})\n", *value, q.si, units::si_unit(q.dim), units::describe(q.dim));
    }
    exit_code = 0;
  });
}

}  // namespace contactuq::cli
