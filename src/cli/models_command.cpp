// `contactuq models [NAME] [--study FILE]`: the registered models, and for one model its inputs
// (unit, nominal value, valid range), outputs and curves. A model is built from a [model] table:
// from --study when given, else from the first shipped study that uses it, else from
// `type = NAME` alone (models whose table defines them, such as `expression`, need a study).
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <vector>

#include "commands.hpp"
#include "contactuq/io/study_file.hpp"
#include "contactuq/model/registry.hpp"
#include "contactuq/paths.hpp"
#include "contactuq/units/quantity.hpp"

namespace contactuq::cli {

namespace {

struct described {
  model::model model;
  std::string source;  ///< the study it was built from, or "type = NAME"
};

// The shipped studies, sorted by file name (installed beside the data folder).
std::vector<std::filesystem::path> shipped_studies() {
  std::vector<std::filesystem::path> paths;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(data_dir().parent_path() / "studies", ec))
    if (entry.path().extension() == ".toml" && entry.path().filename().string().front() != '.')
      paths.push_back(entry.path());
  std::sort(paths.begin(), paths.end());
  return paths;
}

std::optional<described> from_shipped_study(const std::string& name) {
  for (const auto& path : shipped_studies()) {
    try {
      const io::study_document doc = io::study_document::load(path);
      if (!doc.root().has("model")) continue;
      const io::study_table table = doc.root().table("model");
      if (!table.has("type") || table.string("type") != name) continue;
      return described{model::make_model(table), path.string()};
    } catch (const std::exception&) {
      continue;  // a study whose [model] table its method reads (a fit), or one being edited
    }
  }
  return std::nullopt;
}

std::optional<described> build(const std::string& name) {
  if (auto found = from_shipped_study(name)) return found;
  try {
    const io::study_document doc = io::study_document::parse(fmt::format("[model]\ntype = \"{}\"\n", name), "<models>");
    return described{model::make_model(doc.root().table("model")), fmt::format("type = \"{}\"", name)};
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::string number(double v) { return std::isnan(v) ? "-" : fmt::format("{:.6g}", v); }

void print_model(const described& d) {
  const model::model& m = d.model;
  fmt::print("{} (built from {})\n", m.name(), d.source);
  fmt::print("inputs ({}), SI:\n", m.inputs().size());
  const auto units = m.input_units();
  for (std::size_t i = 0; i < m.inputs().size(); ++i) {
    const model::variable& v = m.inputs()[i];
    fmt::print("  {:<24} {:<10} nominal {:<12} valid {}\n", v.name, units[i].empty() ? "1" : units[i],
               number(v.nominal), v.valid.bounded() ? v.valid.text(v.dim) : "any");
  }
  fmt::print("outputs ({}):\n", m.outputs().size());
  const auto out_units = m.output_units();
  for (std::size_t j = 0; j < m.outputs().size(); ++j)
    fmt::print("  {:<24} {}\n", m.outputs()[j].name, out_units[j].empty() ? "1" : out_units[j]);
  if (!m.curves().empty()) fmt::print("curves ({}):\n", m.curves().size());
  for (const auto& c : m.curves())
    fmt::print("  {:<24} {} over {} [{}], {} points\n", c.name, c.unit.empty() ? units::si_unit(c.dim) : c.unit,
               c.abscissa_name, units::si_unit(c.abscissa_dim), c.abscissa.size());
}

}  // namespace

void add_models_command(CLI::App& app, int& exit_code) {
  CLI::App* sub = app.add_subcommand("models", "List the registered models, or one model's inputs, outputs and curves");
  auto name = std::make_shared<std::string>();
  auto study = std::make_shared<std::string>();
  sub->add_option("name", *name, "A model's name (as [model] type says it)");
  sub->add_option("--study", *study, "Describe the model of this study's [model] table")->check(CLI::ExistingFile);
  sub->callback([name, study, &exit_code] {
    exit_code = 0;
    if (!study->empty()) {
      const io::study_document doc = io::study_document::load(*study);
      print_model({model::make_model(doc.root().table("model")), *study});
      return;
    }
    if (name->empty()) {
      fmt::print("registered models (contactuq models NAME for one):\n");
      for (const std::string& n : model::registered_models()) {
        const auto d = build(n);
        if (!d) {
          fmt::print("  {:<20} defined by a study's [model] table (contactuq models --study FILE)\n", n);
          continue;
        }
        fmt::print("  {:<20} {} inputs, {} outputs, {} curves   e.g. {}\n", n, d->model.inputs().size(),
                   d->model.outputs().size(), d->model.curves().size(), d->source);
      }
      return;
    }
    if (!model::is_registered(*name)) {
      std::string known;
      for (const auto& n : model::registered_models()) known += (known.empty() ? "" : ", ") + n;
      fmt::print(stderr, "contactuq models: no model \"{}\"; registered: {}\n", *name, known);
      exit_code = 2;
      return;
    }
    const auto d = build(*name);
    if (!d) {
      fmt::print(stderr, "contactuq models: \"{}\" is defined by a study's [model] table and no shipped study uses "
                         "it; describe one with contactuq models --study FILE\n", *name);
      exit_code = 2;
      return;
    }
    print_model(*d);
  });
}

}  // namespace contactuq::cli
