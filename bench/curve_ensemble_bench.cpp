// Evaluates an ensemble of receptacle–pin curves, single-threaded, for the NumPy peer comparison
// (bench/run_curve_peer.sh). Reads SI parameters, one curve per line:
//   Rr Rp phi Rt h R L b K mu theta0 d0_engage d0_disengage
// and prints the evaluation time and checksums the peer must reproduce.
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "contactuq/contact/receptacle_pin.hpp"

using namespace contactuq::contact;

int main(int argc, char** argv) {
  if (argc != 3) {
    fmt::print(stderr, "usage: {} PARAMS.txt POINTS_PER_CURVE\n", argv[0]);
    return 2;
  }
  std::ifstream in(argv[1]);
  const int points = std::stoi(argv[2]);
  struct curve_input {
    receptacle_pin_params p;
    double d0_engage, d0_disengage;
  };
  std::vector<curve_input> inputs;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    curve_input c;
    s >> c.p.Rr >> c.p.Rp >> c.p.phi >> c.p.Rt >> c.p.h >> c.p.R >> c.p.L >> c.p.b >> c.p.K >> c.p.mu >>
        c.p.theta0 >> c.d0_engage >> c.d0_disengage;
    if (s) inputs.push_back(c);
  }
  const stroke st{0.0, 0.21 * 0.0254, points / 2, 10.0, true};

  const auto start = std::chrono::steady_clock::now();
  double sum = 0.0, peak_sum = 0.0;
  for (const auto& c : inputs) {
    const receptacle r(c.p, {{c.d0_engage, arm_direction::engage, 2}, {c.d0_disengage, arm_direction::disengage, 2}});
    const receptacle_curve curve = evaluate_curve(r, st);
    double peak = 0.0;
    for (double f : curve.Fx_total) {
      sum += std::abs(f);
      peak = std::max(peak, std::abs(f));
    }
    peak_sum += peak;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print("curves {} points {} seconds {:.6f} sum_abs_Fx {:.17g} sum_peak {:.17g}\n", inputs.size(),
             inputs.size() * static_cast<std::size_t>(points), seconds, sum, peak_sum);
}
