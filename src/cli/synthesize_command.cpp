#include <fmt/format.h>

#include <filesystem>

#include "commands.hpp"
#include "contactuq/calibrate/calibration_study.hpp"
#include "contactuq/calibrate/fit_study.hpp"
#include "contactuq/calibrate/synthetic.hpp"

namespace contactuq::cli {

namespace cal = calibrate;

void add_synthesize_command(CLI::App& app, int& exit_code) {
  CLI::App* sub = app.add_subcommand(
      "synthesize",
      "Generate measurement-like synthetic insertion-force data from the receptacle-pin model");
  struct options {
    std::string spec, output;
  };
  auto o = std::make_shared<options>();
  sub->add_option("spec", o->spec,
                  "Generator spec (TOML), e.g. data/insertion/williams_synthetic.toml")
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_option("-o,--output", o->output, "CSV to write (default: the spec's [output] file)");
  sub->callback([o, &exit_code] {
    const auto doc = io::study_document::load(o->spec);
    if (cal::is_synthetic_cases_spec(doc)) {  // any registered model
      const auto spec = cal::read_synthetic_cases_spec(doc);
      const std::filesystem::path out =
          o->output.empty() ? spec.output : std::filesystem::path(o->output);
      if (out.empty())
        throw std::invalid_argument(fmt::format("{}: give -o OUT.csv or [output] file", o->spec));
      cal::write_synthetic_cases(spec, o->spec, out);
      fmt::print("wrote {} ({} cases)\n", out.string(), spec.cases.size());
      exit_code = 0;
      return;
    }
    const auto spec = cal::read_synthetic_study(doc);
    const std::filesystem::path out =
        o->output.empty() ? spec.output : std::filesystem::path(o->output);
    if (out.empty())
      throw std::invalid_argument(fmt::format("{}: give -o OUT.csv or [output] file", o->spec));
    const auto d = cal::make_synthetic(spec.params, spec.groups, spec.options);
    cal::write_insertion_csv(out, d.data, spec.units.unit_for(units::length),
                             spec.units.unit_for(units::force),
                             cal::describe_synthetic(spec, d, o->spec), spec.digits);
    fmt::print("wrote {} ({} insertions, {} points)\n", out.string(), d.insertions.size(),
               d.data.points());
    exit_code = 0;
  });
}

}  // namespace contactuq::cli
