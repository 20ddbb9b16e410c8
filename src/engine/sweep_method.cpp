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
  const auto head = [](const model::variable& v) {
    return v.unit.empty() ? v.name : fmt::format("{} [{}]", v.name, v.unit);
  };
  // One column per scalar output, each as wide as its heading (at least 12).
  std::vector<std::string> heads{head(m.inputs()[plan.input])};
  for (const auto& v : m.outputs()) heads.push_back(head(v));
  std::vector<std::size_t> widths;
  for (const auto& h : heads) widths.push_back(std::max<std::size_t>(12, h.size()));
  fmt::print(to, "\n");
  for (std::size_t c = 0; c < heads.size(); ++c) fmt::print(to, "  {:>{}}", heads[c], widths[c]);
  fmt::print(to, "\n");
  for (const study::sweep_point& p : points) {
    fmt::print(to, "  {:>{}.6g}", p.value, widths[0]);
    if (!p.error.empty()) {
      fmt::print(to, "  failed: {}\n", p.error);
      continue;
    }
    for (std::size_t j = 0; j < p.result.outputs.size(); ++j)
      fmt::print(to, "  {:>{}.6g}", p.result.outputs[j], widths[j + 1]);
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
