// One nominal case at full resolution: the model evaluated once at the study's fixed values
// (the nominal value of every other input), with a dynamic model's every accepted step, the
// peaks inside steps and its located events (model::evaluation_trace).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "contactuq/error.hpp"
#include "contactuq/io/hdf5.hpp"
#include "contactuq/io/result_file.hpp"
#include "contactuq/model/registry.hpp"
#include "contactuq/study/variables.hpp"
#include "methods.hpp"
#include "text_plot.hpp"

namespace contactuq::engine::detail {
namespace {

// Model inputs: each input's nominal value, or the value its [parameters.<name>] table fixes
// (role = "fixed", which such a table may leave out).
std::vector<double> evaluate_inputs(const io::study_table& root, const model::model& m) {
  const std::vector<double> x =
      study::read_variables(root, m,
                            {"an evaluate study",
                             {study::variable_role::fixed},
                             study::variable_role::fixed,
                             "it runs one case; distributions and choices belong to sample and nested studies"})
          .values();
  for (std::size_t i = 0; i < x.size(); ++i)
    if (std::isnan(x[i]))
      root.fail(fmt::format("the model's input \"{}\" has no nominal value; give [parameters.{}] value = ...",
                            m.inputs()[i].name, m.inputs()[i].name));
  return x;
}

void write_evaluation(const path& out, const io::study_document& doc, const model::model& m,
                      const std::vector<double>& x, const model::evaluation_trace* t, const model::evaluation* e,
                      const std::string& message) {
  namespace h5 = io::hdf5;
  h5::file f(out.string(), h5::file_mode::create);
  io::write_result_header(f, {.format = "contactuq-evaluate", .method = "evaluate", .model = m.name(),
                              .title = doc.root().string_or("title", ""), .study_text = doc.text(),
                              .study_path = doc.file()});
  f.set_attribute("status", message.empty() ? "ok" : "failed");
  f.set_attribute("message", message);
  auto inputs = f.write("inputs", x);
  inputs.set_attribute("names", m.input_names());
  inputs.set_attribute("units", m.input_units());
  const model::evaluation* result = t ? &t->result : e;
  std::vector<double> y(m.outputs().size(), std::nan(""));
  if (result) y = result->outputs;
  if (result && !result->note.empty()) f.set_attribute("note", result->note);
  auto outputs = f.write("outputs", y);
  outputs.set_attribute("names", m.output_names());
  outputs.set_attribute("units", m.output_units());
  if (t) {
    auto g = f.create_group("trace");
    auto a = g.write(t->abscissa_name, t->abscissa);
    a.set_attribute("units", units::si_unit(t->abscissa_dim));
    g.set_attribute("abscissa", t->abscissa_name);
    std::vector<std::string> names;
    for (const auto& s : t->series) {
      g.write(s.name, s.values).set_attribute("units", units::si_unit(s.dim));
      names.push_back(s.name);
    }
    g.set_attribute("series", names);
    std::vector<std::string> event_names;
    std::vector<double> event_at;
    for (const auto& ev : t->events) {
      event_names.push_back(ev.name);
      event_at.push_back(ev.at);
    }
    g.write_texts("event_names", event_names);
    g.write("event_at", event_at).set_attribute("units", units::si_unit(t->abscissa_dim));
  } else if (e && !m.curves().empty()) {
    auto g = f.create_group("curves");
    for (std::size_t k = 0; k < m.curves().size(); ++k) {
      const auto& c = m.curves()[k];
      auto d = g.write(c.name, e->curves[k]);
      d.set_attribute("units", c.unit);
      d.set_attribute("abscissa_name", c.abscissa_name);
      d.set_attribute("abscissa_unit", units::si_unit(c.abscissa_dim));
      d.set_attribute("abscissa", std::span<const double>(c.abscissa));
    }
    g.set_attribute("names", m.curve_names());
  }
  f.close();  // checked: a write that fails is an error, not a damaged file
}

void print_evaluation(std::FILE* to, const model::model& m, const model::evaluation_trace* t, const model::evaluation& e) {
  std::size_t width = 6;
  for (const auto& v : m.outputs()) width = std::max(width, v.name.size());
  fmt::print(to, "\n  {:<{}} {:>14}  {}\n", "output", width, "value", "unit");
  for (std::size_t j = 0; j < m.outputs().size(); ++j)
    fmt::print(to, "  {:<{}} {:>14.6g}  {}\n", m.outputs()[j].name, width, e.outputs[j],
               m.outputs()[j].unit);
  if (!e.note.empty()) fmt::print(to, "  note: {}\n", e.note);
  if (!t) return;
  const std::string unit = units::si_unit(t->abscissa_dim);
  fmt::print(to, "\n  {} points ({} = {:.4g} .. {:.4g} {}), {} events:\n", t->abscissa.size(), t->abscissa_name,
             t->abscissa.front(), t->abscissa.back(), unit, t->events.size());
  constexpr std::size_t shown = 12;
  for (std::size_t k = 0; k < std::min(t->events.size(), shown); ++k)
    fmt::print(to, "    {:<16} {} = {:.6g} {}\n", t->events[k].name, t->abscissa_name, t->events[k].at, unit);
  if (t->events.size() > shown) fmt::print(to, "    ... and {} more\n", t->events.size() - shown);
  // The first force series (else the first series) against the abscissa.
  const auto it = std::find_if(t->series.begin(), t->series.end(),
                               [](const model::trace_series& s) { return s.dim == units::force; });
  const model::trace_series& s = it != t->series.end() ? *it : t->series.front();
  plot_series line{t->abscissa, s.values, '*', s.name};
  fmt::print(to, "\n{}", text_plot({line}, 64, 16, fmt::format("{} [{}]", t->abscissa_name, unit),
                                   fmt::format("{} [{}] (every point)", s.name, units::si_unit(s.dim))));
}

}  // namespace

run_result run_evaluate(const io::study_document& doc, const run_options& o, const path& out) {
  const io::study_table root = doc.root();
  root.allow_only({"title", "method", "model", "parameters", "output"});
  const model::model m = model::make_model(root.table("model"));
  if (const auto output = root.optional_table("output")) {
    output->allow_only({"file", "units"});
    io::read_display_units(*output, m.named_dimensions());  // checked here, applied by summarize and plot
  }
  const std::vector<double> x = evaluate_inputs(root, m);
  if (o.check_only) return {.method_name = "evaluate", .output = out, .planned = 1};
  io::make_parent_folder(out);
  run_result r{.method_name = "evaluate", .output = out, .planned = 1};
  std::FILE* to = report(o);
  fmt::print(to, "{}\n  model {}, one case at the study's values{}\n", root.string_or("title", doc.file()), m.name(),
             m.has_trace() ? ", every accepted step and event" : "");
  std::optional<model::evaluation_trace> trace;
  std::optional<model::evaluation> evaluation;
  std::string failure;
  try {
    if (m.has_trace()) {
      trace = m.trace(x);
      print_evaluation(to, m, &*trace, trace->result);
    } else {
      evaluation = m.evaluate(x);
      print_evaluation(to, m, nullptr, *evaluation);
    }
  } catch (const std::invalid_argument&) {
    throw;  // bad input: no result file
  } catch (const std::exception& e) {
    // The model failed at these inputs: recorded in the file, exit code 1.
    failure = e.what();
    fmt::print(errors(o), "contactuq run: the evaluation failed: {}\n", e.what());
    r.failed = 1;
    r.exit_code = 1;
  }
  io::write_then_rename(out, [&](const path& file) {
    write_evaluation(file, doc, m, x, trace ? &*trace : nullptr, evaluation ? &*evaluation : nullptr, failure);
  });
  fmt::print(to, "\nwrote {}\n", out.string());
  return r;
}

method evaluate_method() {
  return {.name = "evaluate",
          .summary = "one case at the study's values, a dynamic model's every accepted step and located event",
          .counts = "case",
          .run = run_evaluate};
}

}  // namespace contactuq::engine::detail
