// A sweep: any registered model at each value of one input, the others fixed; scalars and curves
// of every point in one result file. The receptacle–pin studies written with a root [stroke]
// table (the curve layout, `legacy_method`) are the same sweep of receptacle_pin, written in
// their own layout by curve_method.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "contactuq/io/display_units.hpp"
#include "contactuq/model/registry.hpp"
#include "contactuq/study/sweep.hpp"
#include "methods.hpp"

namespace contactuq::engine::detail {

run_result run_curve(const io::study_document& doc, const run_options& o,
                     const path& out);  // curve_method.cpp

namespace {

void print_sweep(std::FILE* to, const model::model& m, const study::sweep_plan& plan,
                 const std::vector<study::sweep_point>& points) {
  const model::variable& swept = m.inputs()[plan.input];
  const auto head = [](const std::string& name, const std::string& unit) {
    return unit.empty() ? name : fmt::format("{} [{}]", name, unit);
  };
  fmt::print(to, "\n  {:>14}", head(swept.name, swept.unit));
  for (const auto& v : m.outputs()) fmt::print(to, " {:>14}", head(v.name, v.unit));
  fmt::print(to, "\n");
  for (const study::sweep_point& p : points) {
    fmt::print(to, "  {:>14.6g}", p.value);
    if (!p.error.empty()) {
      fmt::print(to, "  failed: {}\n", p.error);
      continue;
    }
    for (double y : p.result.outputs) fmt::print(to, " {:>14.6g}", y);
    fmt::print(to, "\n");
  }
}

run_result run_sweep(const io::study_document& doc, const run_options& o, const path& out) {
  const io::study_table root = doc.root();
  if (root.has("stroke")) return run_curve(doc, o, out);  // the receptacle–pin curve layout
  root.allow_only({"title", "method", "model", "parameters", "sweep", "output"});
  const model::model m = model::make_model(root.table("model"));
  if (const auto output = root.optional_table("output")) {
    output->allow_only({"file", "units"});
    io::read_display_units(*output,
                           m.named_dimensions());  // checked here, applied by summarize and plot
  }
  const study::sweep_plan plan = study::read_sweep(root, m);
  run_result r{
      .method_name = "sweep", .output = out, .planned = plan.values.size(), .model = m.name()};
  if (o.check_only) return r;
  std::FILE* to = report(o);
  fmt::print(to, "{}\n  model {}, {} points of {}, the other inputs fixed\n",
             root.string_or("title", doc.file()), m.name(), plan.values.size(),
             m.inputs()[plan.input].name);
  const auto points = study::run_sweep(m, plan, true);
  print_sweep(to, m, plan, points);
  r.failed = static_cast<std::size_t>(std::count_if(
      points.begin(), points.end(), [](const study::sweep_point& p) { return !p.error.empty(); }));
  if (r.failed > 0)
    fmt::print(errors(o), "contactuq run: {} of {} sweep points failed\n", r.failed, points.size());
  if (r.failed == points.size()) r.exit_code = 1;  // nothing to show (README, "Exit codes")
  if (out.empty()) return r;
  io::make_parent_folder(out);
  io::write_then_rename(
      out, [&](const path& file) { study::write_sweep_hdf5(file, doc, m, plan, points); });
  fmt::print(to, "\nwrote {} ({} points)\n", out.string(), points.size());
  return r;
}

}  // namespace

method sweep_method() {
  return {.name = "sweep",
          .summary =
              "any model at each value of one input, the others fixed: scalars and curves of every "
              "point",
          .counts = "points",
          .result_optional = true,
          .run = run_sweep};
}

}  // namespace contactuq::engine::detail
