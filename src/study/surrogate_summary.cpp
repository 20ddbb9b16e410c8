#include "contactuq/study/surrogate_summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>

#include "contactuq/io/hdf5.hpp"
#include "contactuq/io/json_writer.hpp"
#include "contactuq/model/surrogate_model.hpp"

namespace contactuq::study {

surrogate_summary summarize_surrogate(const std::filesystem::path& file) {
  const model::surrogate_data d = model::read_surrogate(file);
  surrogate_summary s{
      .file = file.string(), .model = d.model, .kind = d.kind, .training = d.training};
  {
    const io::hdf5::file f(file, io::hdf5::file_mode::read_only);
    if (f.has_attribute("title")) s.title = f.string_attribute("title");
  }
  for (const auto& in : d.inputs) s.inputs.push_back(in.name);
  s.training_points = static_cast<std::size_t>(d.x.rows());
  s.folds = d.folds;
  s.test_samples = d.test_samples;
  s.q2_warning = d.q2_warning;
  for (const auto& o : d.outputs) {
    surrogate_output_summary u{
        .name = o.name, .unit = o.unit, .degree = o.degree, .candidates = o.candidates};
    const auto& v = o.validation;
    u.q2_kfold = v.q2_kfold;
    u.loo_error = v.loo_error;
    u.corrected_loo_error = v.corrected_loo_error;
    u.test_error = v.test_error;
    u.below_warning = !(v.q2_kfold >= d.q2_warning);
    u.mean = o.mean;
    u.variance = o.variance;
    if (o.gp) u.terms = o.gp->size();
    if (o.chaos) {
      u.terms = static_cast<std::size_t>(o.chaos->indices().rows());
      const Eigen::VectorXd first = o.chaos->first_order_indices(),
                            total = o.chaos->total_order_indices();
      u.sobol_first.assign(first.data(), first.data() + first.size());
      u.sobol_total.assign(total.data(), total.data() + total.size());
    }
    s.outputs.push_back(std::move(u));
  }
  return s;
}

std::string to_text(const surrogate_summary& s) {
  std::string to;
  auto out = std::back_inserter(to);
  fmt::format_to(out, "{}: {} surrogate of model {} from {} training points ({})\n", s.file, s.kind,
                 s.model, s.training_points, s.training);
  std::size_t width = 10;
  for (const auto& o : s.outputs) width = std::max(width, o.name.size());
  for (const auto& n : s.inputs) width = std::max(width, n.size());
  fmt::format_to(out, "\n  {:<{}} {:>8} {:>6} {:>6} {:>10} {:>11} {:>11} {:>11} {:>11} {:>11}\n",
                 "output", width, "unit", "degree", "terms", "Q2 K-fold", "1-Q2 K-fold", "LOO*",
                 "test 1-Q2", "mean", "sd");
  for (const auto& o : s.outputs)
    fmt::format_to(
        out,
        "  {:<{}} {:>8} {:>6} {:>6} {:>10.6f} {:>11.3g} {:>11.3g} {:>11} {:>11.5g} {:>11.5g}\n",
        o.name, width, o.unit.empty() ? "1" : o.unit,
        s.kind == "gp" ? std::string("-") : std::to_string(o.degree), o.terms, o.q2_kfold,
        1.0 - o.q2_kfold, o.corrected_loo_error,
        o.test_error ? fmt::format("{:.3g}", *o.test_error) : std::string("-"), o.mean,
        std::sqrt(o.variance));
  if (s.kind == "gp")
    fmt::format_to(
        out,
        "\n  Q2 K-fold: {} folds, the hyperparameters estimated again in each fold (the honest "
        "estimate).\n  LOO*: closed-form leave-one-out error at the hyperparameters fitted to "
        "every "
        "point: optimistic, for comparison only.\n  terms: training points; mean and sd sampled "
        "from 4096 points.\n",
        s.folds);
  else
    fmt::format_to(
        out,
        "\n  Q2 K-fold: {} folds, the degree and the basis chosen again in each fold (the honest "
        "estimate).\n  LOO*: corrected leave-one-out error after the selection saw every point: "
        "optimistic, for comparison only.\n",
        s.folds);
  if (s.test_samples > 0)
    fmt::format_to(out, "  test 1-Q2: on {} independent points evaluated by the model.\n",
                   s.test_samples);
  for (const auto& o : s.outputs) {
    if (o.sobol_first.empty()) continue;
    fmt::format_to(out, "\n  Sobol indices of {} (from the expansion)\n  {:<{}} {:>10} {:>10}\n",
                   o.name, "input", width, "first", "total");
    for (std::size_t i = 0; i < s.inputs.size(); ++i)
      fmt::format_to(out, "  {:<{}} {:>10.4f} {:>10.4f}\n", s.inputs[i], width, o.sobol_first[i],
                     o.sobol_total[i]);
  }
  for (const auto& o : s.outputs)
    if (o.below_warning)
      fmt::format_to(out,
                     "\nwarning: {}: K-fold Q2 = {:.4g} is below q2_warning = {:g}; the "
                     "surrogate's values and "
                     "indices may be far from the model's (more training points, or another {})\n",
                     o.name, o.q2_kfold, s.q2_warning,
                     s.kind == "gp" ? "kernel or trend" : "degree");
  return to;
}

std::string to_json(const surrogate_summary& s) {
  io::json_writer w;
  w.begin_object();
  w.field("file", s.file);
  w.field("format", std::string_view(model::surrogate_format));
  w.field("method", std::string_view("surrogate"));
  w.field("model", s.model);
  w.field("title", s.title);
  w.key("surrogate");
  w.begin_object();
  w.field("kind", s.kind);
  w.key("inputs");
  w.begin_array();
  for (const auto& n : s.inputs) w.value(n);
  w.end_array();
  w.field("training", s.training);
  w.field("training_points", s.training_points);
  w.field("folds", s.folds);
  w.field("test_samples", s.test_samples);
  w.field("q2_warning", s.q2_warning);
  w.key("outputs");
  w.begin_object();
  for (const auto& o : s.outputs) {
    w.key(o.name);
    w.begin_object();
    w.field("unit", o.unit);
    w.field("degree", static_cast<std::size_t>(o.degree));
    w.field("terms", o.terms);
    w.field("q2_kfold", o.q2_kfold);
    w.field("loo_error", o.loo_error);
    w.field("loo_error_note", std::string_view("post-selection leave-one-out: optimistic"));
    w.field("corrected_loo_error", o.corrected_loo_error);
    if (o.test_error) w.field("test_error", *o.test_error);
    w.field("below_q2_warning", std::size_t{o.below_warning ? 1u : 0u});  // 0/1
    w.field("mean", o.mean);
    w.field("variance", o.variance);
    w.key("sobol");
    w.begin_object();
    for (const auto* which : {"first", "total"}) {
      const auto& v = std::string_view(which) == "first" ? o.sobol_first : o.sobol_total;
      w.key(which);
      w.begin_object();
      for (std::size_t i = 0; i < v.size() && i < s.inputs.size(); ++i) w.field(s.inputs[i], v[i]);
      w.end_object();
    }
    w.end_object();
    w.end_object();
  }
  w.end_object();
  w.end_object();
  w.end_object();
  return w.str();
}

}  // namespace contactuq::study
