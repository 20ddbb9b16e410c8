#include "contactuq/study/pinslot_study.hpp"
#include "contactuq/io/result_file.hpp"

#include <fmt/format.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <chrono>

#include "contactuq/io/hdf5.hpp"

namespace contactuq::study {

pinslot_study read_pinslot_study(const io::study_document& doc) {
  const auto root = doc.root();
  root.allow_only({"title", "method", "model", "cases", "output"});
  pinslot_study st;
  st.title = root.string_or("title", "");
  const auto model = root.table("model");
  if (model.string("type") != "pinslot") model.fail("type", "must be \"pinslot\" for a pinslot study");
  if (root.has("cases")) {
    for (const auto& c : root.tables("cases")) {
      const std::string label = c.string("label");
      // The label names the case's HDF5 group: checked here, not when the results are written.
      if (label.empty() || label == "." || label.find('/') != std::string::npos ||
          label.find('\0') != std::string::npos)
        c.fail("label", "must be a non-empty name without '/' (it names the case's group in the output file)");
      for (const auto& other : st.cases)
        if (other.label == label) c.fail("label", "used by an earlier case");
      st.cases.push_back({label, read_pinslot_setup(model, &c)});
    }
  } else {
    st.cases.push_back({"model", read_pinslot_setup(model)});
  }
  if (auto out = root.optional_table("output")) {
    out->allow_only({"file"});
    st.output = out->string_or("file", "");
  }
  return st;
}

std::vector<pinslot_case_result> run_pinslot_study(const pinslot_study& study) {
  std::vector<pinslot_case_result> results(study.cases.size());
  tbb::parallel_for(std::size_t{0}, study.cases.size(), [&](std::size_t i) {
    const auto& c = study.cases[i];
    const auto start = std::chrono::steady_clock::now();
    results[i].label = c.label;
    results[i].setup = c.setup;
    results[i].result = multibody::simulate_pinslot(c.setup.params, c.setup.simulation, c.setup.window);
    results[i].wall_time = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  });
  return results;
}

void write_pinslot_h5(const std::string& path, const std::string& study_text, const std::string& study_path, const std::string& title,
                      const std::vector<pinslot_case_result>& results) {
  namespace h5 = io::hdf5;
  h5::file f(path, h5::file_mode::create);
  io::write_result_header(f, {.format = "contactuq-pinslot", .method = "pinslot", .model = "pinslot", .title = title,
                              .study_text = study_text, .study_path = study_path});
  auto cases = f.create_group("cases");
  std::vector<std::string> labels;
  for (const auto& r : results) labels.push_back(r.label);
  cases.set_attribute("labels", labels);
  for (const auto& r : results) {
    auto g = cases.create_group(r.label);
    const auto& s = r.result.simulation;
    const auto& p = r.setup.params;
    g.set_attribute("joint", multibody::joint_type_name(p.joint));
    g.set_attribute("law", p.contact.law);
    g.set_attribute("status", s.ok() ? "ok" : "failed");
    g.set_attribute("message", s.message);
    g.set_attribute("window", static_cast<std::int64_t>(r.setup.window));
    g.set_attribute("wall_time", r.wall_time);
    const std::size_t n = s.samples(), nb = 6;
    auto column = [&](const std::vector<double>& v, std::size_t stride, std::size_t k) {
      std::vector<double> c(n);
      for (std::size_t i = 0; i < n; ++i) c[i] = v[i * stride + k];
      return c;
    };
    auto units = [](h5::dataset d, const char* unit) { d.set_attribute("units", unit); };
    units(g.write("time", s.time), "s");
    units(g.write("fx", r.result.fx), "N");
    units(g.write("fy", r.result.fy), "N");
    units(g.write("fx_filtered", r.result.fx_filtered), "N");
    units(g.write("fy_filtered", r.result.fy_filtered), "N");
    units(g.write("x0", column(s.positions, nb, 0)), "m");
    units(g.write("y0", column(s.positions, nb, 1)), "m");
    units(g.write("theta0", column(s.positions, nb, 2)), "rad");
    units(g.write("constraint_violation", s.constraint_violation), "m");
    if (!s.overlap.empty()) {
      units(g.write("overlap", s.overlap), "m");
      std::vector<double> feature(s.feature.begin(), s.feature.end());
      units(g.write("feature", feature), "");
      std::vector<double> in_contact(s.in_contact.begin(), s.in_contact.end());
      units(g.write("in_contact", in_contact), "");
    }
    std::vector<double> impacts;
    for (const auto& e : s.impacts)
      impacts.insert(impacts.end(), {e.time, static_cast<double>(e.feature), e.overlap, e.approach_velocity});
    auto d = g.write("impacts", impacts, s.impacts.size(), 4);
    d.set_attribute("columns", std::vector<std::string>{"time [s]", "feature", "overlap [m]", "approach_velocity [m/s]"});
    auto summary = g.create_group("summary");
    auto put = [&](const char* name, double v, const char* unit) {
      auto ds = summary.write(name, std::vector<double>{v});
      ds.set_attribute("units", unit);
    };
    put("peak_force", r.result.peak_force, "N");
    put("peak_force_filtered", r.result.peak_force_filtered, "N");
    put("peak_fx", r.result.peak_fx, "N");
    put("peak_fy", r.result.peak_fy, "N");
    put("impulse", r.result.impulse, "N*s");
    put("impulse_x", r.result.impulse_x, "N*s");
    put("impulse_y", r.result.impulse_y, "N*s");
    put("impacts", static_cast<double>(r.result.impacts), "");
    put("max_overlap", r.result.max_overlap, "m");
    put("max_onset_overlap", r.result.max_onset_overlap, "m");
    put("steps", static_cast<double>(s.steps), "");
  }
  f.close();
}

}  // namespace contactuq::study
