#include "text_plot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace contactuq::engine::detail {

std::string text_plot(const std::vector<plot_series>& series, int width, int height,
                      const std::string& x_label, const std::string& y_label) {
  double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = 0.0, y1 = 0.0;
  for (const auto& s : series)
    for (std::size_t i = 0; i < s.x.size(); ++i) {
      x0 = std::min(x0, s.x[i]);
      x1 = std::max(x1, s.x[i]);
      y0 = std::min(y0, s.y[i]);
      y1 = std::max(y1, s.y[i]);
    }
  if (!(x1 > x0)) return "";
  if (y1 == y0) y1 = y0 + 1.0;
  std::vector<std::string> grid(static_cast<std::size_t>(height), std::string(static_cast<std::size_t>(width), ' '));
  auto row_of = [&](double y) {
    return std::clamp(static_cast<int>(std::lround((y1 - y) / (y1 - y0) * (height - 1))), 0, height - 1);
  };
  auto col_of = [&](double x) {
    return std::clamp(static_cast<int>(std::lround((x - x0) / (x1 - x0) * (width - 1))), 0, width - 1);
  };
  const int zero_row = row_of(0.0);
  for (auto& c : grid[static_cast<std::size_t>(zero_row)]) c = '-';
  for (const auto& s : series)
    for (std::size_t i = 0; i < s.x.size(); ++i)
      grid[static_cast<std::size_t>(row_of(s.y[i]))][static_cast<std::size_t>(col_of(s.x[i]))] = s.mark;

  std::string out = fmt::format("  {}\n", y_label);
  auto label = [&](int r) -> std::string {
    if (r == zero_row) return "0";
    if (r == 0) return fmt::format("{:.3g}", y1);
    if (r == height - 1) return fmt::format("{:.3g}", y0);
    return {};
  };
  for (int r = 0; r < height; ++r) out += fmt::format("{:>9} |{}\n", label(r), grid[static_cast<std::size_t>(r)]);
  out += fmt::format("{:>9} +{}\n", "", std::string(static_cast<std::size_t>(width), '-'));
  out += fmt::format("{:>9}  {:<{}}{:>{}}\n", "", fmt::format("{:.3g}", x0), width / 2,
                     fmt::format("{:.3g}", x1), width - width / 2);
  out += fmt::format("{:>9}  {:^{}}\n", "", x_label, width);
  std::string legend;
  for (const auto& s : series) legend += fmt::format("  {} {}", s.mark, s.label);
  out += fmt::format("{:>9} {}\n", "", legend);
  return out;
}

}  // namespace contactuq::engine::detail
