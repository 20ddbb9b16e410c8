#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "commands.hpp"
#include "contactuq/paths.hpp"
#include "contactuq/study/impact_study.hpp"

namespace contactuq::cli {
namespace {

// Up to `n` velocity indices spread over the sweep, for a table that fits a terminal.
std::vector<std::size_t> columns(std::size_t count, std::size_t n) {
  std::vector<std::size_t> idx;
  for (std::size_t i = 0; i < std::min(count, n); ++i)
    idx.push_back(count <= n ? i : i * (count - 1) / (n - 1));
  return idx;
}

void print_table(const study::impact_study_options& opt, const std::vector<study::impact_case>& cases,
                 const char* title, double (*value)(const dynamics::impact_result&), const char* format) {
  const std::size_t nv = opt.velocities.size();
  const auto cols = columns(nv, 6);
  fmt::print("\n{}\n  {:<20}", title, "law \\ v0 [m/s]");
  for (std::size_t c : cols) fmt::print(" {:>10.3g}", opt.velocities[c]);
  fmt::print("\n");
  for (std::size_t l = 0; l < opt.laws.size(); ++l) {
    fmt::print("  {:<20}", opt.labels[l]);
    for (std::size_t c : cols) {
      const auto& r = cases[l * nv + c].result;
      const double v = value(r);
      fmt::print(" {:>10}", !r.ok() ? "failed" : std::isnan(v) ? "-" : fmt::format(fmt::runtime(format), v));
    }
    fmt::print("\n");
  }
}

}  // namespace

void add_impact_command(CLI::App& app, int& exit_code) {
  CLI::App* sub = app.add_subcommand(
      "impact", "Simulate a two-body impact with each contact law over a range of approach velocities");
  struct options {
    std::string study, output;
    bool force = false;
  };
  auto o = std::make_shared<options>();
  sub->add_option("study", o->study, "Study file (TOML), e.g. studies/impact_models.toml")
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_option("-o,--output", o->output, "Write every impact to OUT.csv (default: the study's [output] file)");
  sub->add_flag("--force", o->force, "Replace existing output files");
  sub->callback([o, &exit_code] {
    const auto doc = io::study_document::load(o->study);
    const auto opt = study::read_impact_study(doc, data_dir().string());
    // The output is checked and its directory made before the impacts run, not after.
    std::string output = o->output;
    if (output.empty() && doc.root().has("output")) output = doc.root().table("output").string_or("file", "");
    if (!output.empty()) {
      if (!o->force) refuse_overwrite(output, false);
      if (std::filesystem::path(output).extension() != ".csv")
        throw std::invalid_argument(fmt::format("{}: the impact output must end in .csv", output));
      // A bare file name has no directory to create (create_directories("") throws).
      if (const auto dir = std::filesystem::path(output).parent_path(); !dir.empty())
        std::filesystem::create_directories(dir);
    }
    const auto cases = study::run_impact_study(opt);
    fmt::print("contactuq impact: {}\n", o->study);
    if (!opt.title.empty()) fmt::print("{}\n", opt.title);
    fmt::print("bodies: {} ({}) on {} ({}); m1 = {:.4g} kg, m2 = {}\n", opt.pair.body_1.name,
               std::isinf(opt.pair.radius_1) ? "flat" : fmt::format("r = {:.4g} mm", opt.pair.radius_1 * 1e3),
               opt.pair.body_2.name,
               std::isinf(opt.pair.radius_2) ? "flat" : fmt::format("r = {:.4g} mm", opt.pair.radius_2 * 1e3),
               opt.solver.mass_1, std::isinf(opt.solver.mass_2) ? "fixed" : fmt::format("{:.4g} kg", opt.solver.mass_2));
    print_table(opt, cases, "coefficient of restitution [-]", [](const dynamics::impact_result& r) { return r.restitution; },
                "{:.4f}");
    print_table(opt, cases, "peak contact force [N]", [](const dynamics::impact_result& r) { return r.peak_force; },
                "{:.4g}");
    print_table(opt, cases, "contact duration [us]",
                [](const dynamics::impact_result& r) { return r.contact_duration * 1e6; }, "{:.4g}");
    std::size_t failed = 0;
    for (const auto& c : cases) failed += !c.result.ok();
    fmt::print("\n{} impacts, {} failed\n", cases.size(), failed);
    for (const auto& c : cases)
      if (!c.result.ok()) fmt::print("  {} at v0 = {:.4g} m/s: {}\n", c.law, c.velocity, c.result.message);
    if (!output.empty()) {
      study::write_impact_csv(output, cases);
      fmt::print("wrote {} ({} rows)\n", output, cases.size());
    }
    exit_code = failed == cases.size() ? 1 : 0;  // no impact succeeded: no result (README, "Exit codes")
  });
}

}  // namespace contactuq::cli
