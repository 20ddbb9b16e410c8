#pragma once
// A small character plot for terminals, so a study's curve can be read without leaving the shell.

#include <string>
#include <vector>

namespace contactuq::engine::detail {

struct plot_series {
  std::vector<double> x, y;
  char mark;
  std::string label;
};

// Renders series on a width x height grid with a y axis labelled in the data's units.
std::string text_plot(const std::vector<plot_series>& series, int width, int height,
                      const std::string& x_label, const std::string& y_label);

}  // namespace contactuq::engine::detail
