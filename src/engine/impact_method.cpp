// Impact sweeps: every contact law of a study over a range of approach velocities, each law a
// sweep of the registry's impact model (study/impact_study.hpp), in the contactuq-impact layout.
#include <fmt/format.h>

#include <cmath>
#include <filesystem>

#include "contactuq/paths.hpp"
#include "contactuq/study/impact_study.hpp"
#include "methods.hpp"

namespace contactuq::engine::detail {
namespace {

// Up to `n` velocity indices spread over the sweep, for a table that fits a terminal.
std::vector<std::size_t> columns(std::size_t count, std::size_t n) {
  std::vector<std::size_t> idx;
  for (std::size_t i = 0; i < std::min(count, n); ++i)
    idx.push_back(count <= n ? i : i * (count - 1) / (n - 1));
  return idx;
}

void print_table(std::FILE* to, const study::impact_study_options& opt, const std::vector<study::impact_case>& cases,
                 const char* title, double (*value)(const dynamics::impact_result&), const char* format) {
  const std::size_t nv = opt.velocities.size();
  const auto cols = columns(nv, 6);
  fmt::print(to, "\n{}\n  {:<20}", title, "law \\ v0 [m/s]");
  for (std::size_t c : cols) fmt::print(to, " {:>10.3g}", opt.velocities[c]);
  fmt::print(to, "\n");
  for (std::size_t l = 0; l < opt.laws.size(); ++l) {
    fmt::print(to, "  {:<20}", opt.labels[l]);
    for (std::size_t c : cols) {
      const auto& r = cases[l * nv + c].result;
      const double v = value(r);
      fmt::print(to, " {:>10}", !r.ok() ? "failed" : std::isnan(v) ? "-" : fmt::format(fmt::runtime(format), v));
    }
    fmt::print(to, "\n");
  }
}

}  // namespace

run_result run_impact(const io::study_document& doc, const run_options& o, const path& out) {
  const auto opt = study::read_impact_study(doc, data_dir().string());
  if (!out.empty() && out.extension() != ".csv" && out.extension() != ".h5")
    throw std::invalid_argument(fmt::format("{}: the impact output must end in .csv or .h5", out.string()));
  if (o.check_only)
    return {.method_name = "impact", .output = out, .planned = opt.laws.size() * opt.velocities.size(), .model = "impact"};
  io::make_parent_folder(out);  // before the impacts run, not after
  const auto cases = study::run_impact_study(opt);
  std::FILE* to = report(o);
  fmt::print(to, "bodies: {} ({}) on {} ({}); m1 = {:.4g} kg, m2 = {}\n", opt.pair.body_1.name,
             std::isinf(opt.pair.radius_1) ? "flat" : fmt::format("r = {:.4g} mm", opt.pair.radius_1 * 1e3),
             opt.pair.body_2.name,
             std::isinf(opt.pair.radius_2) ? "flat" : fmt::format("r = {:.4g} mm", opt.pair.radius_2 * 1e3),
             opt.solver.mass_1, std::isinf(opt.solver.mass_2) ? "fixed" : fmt::format("{:.4g} kg", opt.solver.mass_2));
  using R = dynamics::impact_result;
  print_table(to, opt, cases, "coefficient of restitution [-]", [](const R& r) { return r.restitution; }, "{:.4f}");
  print_table(to, opt, cases, "peak contact force [N]", [](const R& r) { return r.peak_force; }, "{:.4g}");
  print_table(to, opt, cases, "contact duration [us]", [](const R& r) { return r.contact_duration * 1e6; }, "{:.4g}");
  run_result r{.method_name = "impact", .output = out, .planned = cases.size()};
  for (const auto& c : cases) r.failed += !c.result.ok();
  fmt::print(to, "\n{} impacts, {} failed\n", cases.size(), r.failed);
  for (const auto& c : cases)
    if (!c.result.ok()) fmt::print(to, "  {} at v0 = {:.4g} m/s: {}\n", c.law, c.velocity, c.result.message);
  if (!out.empty()) {
    if (out.extension() == ".csv")
      io::write_then_rename(out, [&](const path& file) { study::write_impact_csv(file.string(), cases); });
    else
      io::write_then_rename(out, [&](const path& file) { study::write_impact_hdf5(file.string(), doc, opt, cases); });
    fmt::print(to, "wrote {} ({} rows)\n", out.string(), cases.size());
  }
  r.exit_code = r.failed == cases.size() ? 1 : 0;  // no impact succeeded: no result
  return r;
}

method impact_method() {
  return {.name = "impact",
          .summary = "every contact law over a range of approach speeds",
          .counts = "impacts",
          .run = run_impact};
}

}  // namespace contactuq::engine::detail
