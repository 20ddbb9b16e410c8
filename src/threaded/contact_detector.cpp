#include "contact_detector.hpp"

#include <algorithm>
#include <boost/math/tools/minima.hpp>
#include <boost/math/tools/toms748_solve.hpp>
#include <cmath>

namespace contactuq::threaded {

namespace detail {

namespace {
// The end faces cut a thread ridge: runup_kind::thesis with a run-up (and a thread to cut).
bool thesis_edges(const thread_geometry& g) {
  const auto& t = g.params();
  return t.runup == runup_kind::thesis && t.runup_angle > 0 && !t.plain_bore;
}
}  // namespace

Vector3d detector::local_point(const thread_geometry& g, probe_kind kind, double offset, double s) {
  const double p = g.params().pitch;
  switch (kind) {
    case probe_kind::bolt_helix: {
      const double zb = p * s / two_pi + 0.5 * p + offset;
      const double rb = g.bolt_surface(zb, s).radius;
      return {rb * std::cos(s), rb * std::sin(s), zb};
    }
    case probe_kind::nut_helix: {
      const double z = p * s / two_pi + 0.5 * p + offset;
      const double rn = g.nut_surface(z, s).radius;
      return {rn * std::cos(s), rn * std::sin(s), z};
    }
    case probe_kind::tip_circle: {
      // the tip's edge; with the thesis's run-up the sliver is cut by the tip face, so the edge
      // follows the surface there (the ramp's edge is the plain circle R_b)
      const double rb = thesis_edges(g) ? g.bolt_surface(0.0, s).radius : g.bolt_minor_radius();
      return {rb * std::cos(s), rb * std::sin(s), 0.0};
    }
    case probe_kind::nut_edge: {
      const double r = thesis_edges(g) ? g.nut_surface(0.0, s).radius : g.nut_opening_radius();
      return {r * std::cos(s), r * std::sin(s), 0.0};
    }
  }
  return {};
}

std::vector<double> detector::crest_offsets(const thread_params& t) {
  const double r = t.root_radius * std::cos(t.flank_angle);
  if (r > 0) return {-r, 0.0, r};
  return {0.0};
}

probe_points detector::make_grid(const thread_geometry& g, int points_per_turn) {
  const auto& t = g.params();
  const double p = t.pitch;
  probe_points out;
  out.ds = two_pi / points_per_turn;
  auto fill = [&](int line, probe_kind kind, double offset, double s_lo, double s_hi) {
    const long i0 = static_cast<long>(std::floor(s_lo / out.ds)) - 1;
    const long i1 = static_cast<long>(std::ceil(s_hi / out.ds)) + 1;
    out.first[line] = i0;
    for (long i = i0; i <= i1; ++i) out.pts[line].push_back(local_point(g, kind, offset, out.ds * static_cast<double>(i)));
  };
  const auto offsets = crest_offsets(t);
  for (std::size_t k = 0; k < offsets.size(); ++k) {
    const double o = offsets[k];
    fill(static_cast<int>(k), probe_kind::bolt_helix, o, two_pi * (-0.5 * p - o) / p,
         two_pi * (t.bolt_length - 0.5 * p - o) / p);
    fill(3 + static_cast<int>(k), probe_kind::nut_helix, o, two_pi * (-t.nut_height - 0.5 * p - o) / p,
         two_pi * (-0.5 * p - o) / p);
  }
  fill(6, probe_kind::tip_circle, 0, 0, two_pi);
  fill(7, probe_kind::nut_edge, 0, 0, two_pi);
  return out;
}

double detector::penetration_at(const probe_curve& c, const Vector3d& P) const {
  if (on_bolt(c)) return g.nut_penetration({P.x(), P.y(), P.z()});
  const Vector3d Pb = R.transpose() * (P - x);
  return g.bolt_penetration({Pb.x(), Pb.y(), Pb.z()});
}

double detector::penetration_at(const probe_curve& c, const Vector3d& P, Vector3d& grad) const {
  vec3 gr;
  if (on_bolt(c)) {
    const double depth = g.nut_penetration({P.x(), P.y(), P.z()}, &gr);
    grad = {gr[0], gr[1], gr[2]};
    return depth;
  }
  const Vector3d Pb = R.transpose() * (P - x);
  const double depth = g.bolt_penetration({Pb.x(), Pb.y(), Pb.z()}, &gr);
  grad = R * Vector3d(gr[0], gr[1], gr[2]);
  return depth;
}

int detector::nearest_surface(const probe_curve& c, double s) const {
  const Vector3d P = point(c, s);
  int id = 0;
  if (on_bolt(c)) {
    g.nut_penetration({P.x(), P.y(), P.z()}, nullptr, &id);
  } else {
    const Vector3d Pb = R.transpose() * (P - x);
    g.bolt_penetration({Pb.x(), Pb.y(), Pb.z()}, nullptr, &id);
  }
  return id;
}

double detector::surface_switch(const probe_curve& c, double u, double w) const {
  const int at_u = nearest_surface(c, u);
  for (int i = 0; i < 40; ++i) {
    const double m = 0.5 * (u + w);
    (nearest_surface(c, m) == at_u ? u : w) = m;
  }
  return 0.5 * (u + w);
}

std::vector<probe_curve> detector::curves() const {
  const auto& t = g.params();
  const double p = t.pitch;
  const Vector3d axis = R.col(2);
  const double cz = std::max(axis.z(), 0.2);
  const double m = g.bolt_major_radius() * std::sqrt(std::max(0.0, 1 - axis.z() * axis.z())) + p;
  std::vector<probe_curve> out;
  const std::vector<double> offsets = crest_offsets(t);
  // bolt body z that can be inside the nut (z in [-H, 0])
  const double zb_lo = std::max(0.0, (-t.nut_height - x.z() - m) / cz);
  const double zb_hi = std::min(t.bolt_length, (-x.z() + m) / cz);
  if (zb_hi > zb_lo)
    for (std::size_t k = 0; k < offsets.size(); ++k) {
      const double o = offsets[k];
      out.push_back({probe_kind::bolt_helix, o, two_pi * (zb_lo - 0.5 * p - o) / p,
                     two_pi * (zb_hi - 0.5 * p - o) / p, false, static_cast<int>(k)});
    }
  // nut z that can touch the bolt
  const double z_lo = std::max(-t.nut_height, x.z() - m);
  const double z_hi = std::min(0.0, x.z() + t.bolt_length * cz + m);
  if (z_hi > z_lo)
    for (std::size_t k = 0; k < offsets.size(); ++k) {
      const double o = offsets[k];
      out.push_back({probe_kind::nut_helix, o, two_pi * (z_lo - 0.5 * p - o) / p,
                     two_pi * (z_hi - 0.5 * p - o) / p, false, 3 + static_cast<int>(k)});
    }
  if (x.z() - m < 0) {
    out.push_back({probe_kind::tip_circle, 0, 0, two_pi, true, 6});
    out.push_back({probe_kind::nut_edge, 0, 0, two_pi, true, 7});
  }
  return out;
}

bool detector::add_contact(const probe_curve& c, const node& nd, double spin, double weight, int patch,
                           std::vector<contact_point>& out) const {
  const Vector3d& P = nd.point;
  const Vector3d& grad = nd.grad;
  const double depth = nd.depth;
  if (!(depth > 0)) return false;
  contact_point cp;
  cp.point = P;
  cp.depth = depth;
  const double gn = grad.norm();
  cp.normal = on_bolt(c) ? Vector3d(-grad / gn) : Vector3d(grad / gn);
  cp.depth_gradient_norm = gn;
  cp.weight = weight;
  cp.patch = patch;
  if (!classify) {
    out.push_back(cp);
    return true;
  }
  const Vector3d Pb = R.transpose() * (P - x);
  const auto& t = g.params();
  if (on_bolt(c))
    cp.thread = c.kind == probe_kind::bolt_helix && depth < -P.z() - 1e-15 &&
                depth < P.z() + t.nut_height - 1e-15;
  else
    cp.thread = c.kind == probe_kind::nut_helix && depth < Pb.z() - 1e-15 &&
                depth < t.bolt_length - Pb.z() - 1e-15;
  const double th = std::atan2(P.y(), P.x());
  const double thb = std::atan2(Pb.y(), Pb.x());
  const double turn = spin + wrap_pi(th - thb - spin);
  cp.helical_offset = (P.z() - Pb.z()) - t.pitch * turn / two_pi;
  out.push_back(cp);
  return true;
}

double detector::speed(const probe_curve& c) const {
  const double p = g.params().pitch;
  const double lead = p / two_pi;
  switch (c.kind) {
    case probe_kind::bolt_helix:
      return std::hypot(g.bolt_major_radius(), lead);
    case probe_kind::nut_helix:
      return std::hypot(g.nut_minor_radius(), lead);
    case probe_kind::tip_circle:
      return g.bolt_minor_radius();
    case probe_kind::nut_edge:
      return g.nut_opening_radius();
  }
  return 0;
}

double detector::crossing(const probe_curve& c, double lo, double v_lo, double hi, double v_hi) const {
  if (v_lo == 0) return lo;
  boost::uintmax_t iterations = 60;
  const auto root = boost::math::tools::toms748_solve([&](double s) { return penetration(c, s); },
                                                      std::min(lo, hi), std::max(lo, hi),
                                                      lo < hi ? v_lo : v_hi, lo < hi ? v_hi : v_lo,
                                                      boost::math::tools::eps_tolerance<double>(44),
                                                      iterations);
  return 0.5 * (root.first + root.second);
}

bool detector::hump(const probe_curve& c, double lo, double v_lo, double hi, double v_hi,
                    std::vector<std::pair<double, double>>& out) const {
  const auto best = boost::math::tools::brent_find_minima([&](double s) { return -penetration(c, s); },
                                                          lo, hi, 26);
  const double peak = -best.second;
  if (peak <= 0) return false;
  out.emplace_back(crossing(c, lo, v_lo, best.first, peak), crossing(c, hi, v_hi, best.first, peak));
  return true;
}

std::vector<std::pair<double, double>> detector::inside(const probe_curve& c, int n, double ds,
                                                        const std::vector<double>& s_val,
                                                        const std::vector<double>& v,
                                                        const std::vector<double>& f) const {
  const double margin = hump_margin();
  std::vector<std::pair<double, double>> out;
  // closed curves are walked from a sample outside, unwrapping s past 2 pi
  int first = 0;
  if (c.closed) {
    while (first < n && v[first] > 0) ++first;
    if (first == n) return {{c.s0, c.s0 + two_pi}};
  }
  const int count = c.closed ? n + 1 : n;
  auto s_at = [&](int j) { return c.closed ? s_val[first] + ds * j : s_val[j]; };
  auto v_at = [&](int j) {
    if (c.closed) return v[(first + j) % n];
    return (j < 0 || j >= n) ? -1e300 : v[j];
  };
  auto f_at = [&](int j) { return c.closed ? f[(first + j) % n] : f[j]; };
  for (int j = 0; j < count;) {
    if (v_at(j) > 0) {
      int k = j;
      while (k + 1 < count && v_at(k + 1) > 0) ++k;
      const double a = j == 0 ? s_at(0) : crossing(c, s_at(j - 1), v_at(j - 1), s_at(j), v_at(j));
      const double b = k + 1 >= count ? s_at(k)
                                       : crossing(c, s_at(k + 1), v_at(k + 1), s_at(k), v_at(k));
      out.emplace_back(a, b);
      j = k + 1;
      continue;
    }
    const bool interior = c.closed ? (j > 0 && j < n) : (j > 0 && j + 1 < n);
    if (interior && v_at(j) > -margin && v_at(j) >= v_at(j - 1) && v_at(j) > v_at(j + 1))
      hump(c, s_at(j - 1), v_at(j - 1), s_at(j + 1), v_at(j + 1), out);
    const bool next = c.closed ? j < n : j + 1 < n;
    if (next && v_at(j + 1) <= 0 && (f_at(j) < 0) != (f_at(j + 1) < 0)) {
      const double a = s_at(j), b = s_at(j + 1);
      boost::uintmax_t iterations = 40;
      const auto root = boost::math::tools::toms748_solve(
          [&](double s) { return face(c, s); }, a, b, f_at(j), f_at(j + 1),
          boost::math::tools::eps_tolerance<double>(40), iterations);
      const double at = 0.5 * (root.first + root.second);
      const double v_face = std::min(0.0, penetration(c, at));  // on the face: depth 0 at most
      // the material's side of the face: the peak lies between the crossing and that sample
      if (f_at(j + 1) < 0) hump(c, at, v_face, b, v_at(j + 1), out);
      else hump(c, a, v_at(j), at, v_face, out);
    }
    ++j;
  }
  // a peak found twice (as a hump and at the face) is one stretch
  std::sort(out.begin(), out.end());
  std::vector<std::pair<double, double>> merged;
  for (const auto& st : out) {
    if (!merged.empty() && st.first <= merged.back().second)
      merged.back().second = std::max(merged.back().second, st.second);
    else
      merged.push_back(st);
  }
  return merged;
}

double detector::panel_integral(const probe_curve& c, double u, double w) const {
  double sum = 0;
  for (int i = 0; i < 4; ++i)
    sum += wg[i] * std::max(0.0, penetration(c, u + 0.5 * (w - u) * (1 + xg[i])));
  return 0.5 * (w - u) * sum;
}

double detector::panel_integral(const probe_curve& c, double u, double w,
                                std::array<node, 4>& nodes) const {
  double sum = 0;
  for (int i = 0; i < 4; ++i) {
    node& nd = nodes[i];
    nd.point = point(c, u + 0.5 * (w - u) * (1 + xg[i]));
    nd.depth = penetration_at(c, nd.point, nd.grad);
    sum += wg[i] * std::max(0.0, nd.depth);
  }
  return 0.5 * (w - u) * sum;
}

bool detector::refine(const probe_curve& c, double u, double w, double whole, double tolerance,
                      int level, double spin, double per_length, int patch,
                      std::vector<contact_point>& out) const {
  const double m = 0.5 * (u + w);
  std::array<node, 4> left_nodes, right_nodes;
  const double left = panel_integral(c, u, m, left_nodes);
  const double right = panel_integral(c, m, w, right_nodes);
  if (level < 16 && std::abs(whole - (left + right)) > tolerance * (w - u)) {
    return refine(c, u, m, left, tolerance, level + 1, spin, per_length, patch, out) |
           refine(c, m, w, right, tolerance, level + 1, spin, per_length, patch, out);
  }
  bool any = false;
  for (int i = 0; i < 4; ++i)
    any |= add_contact(c, left_nodes[i], spin, 0.5 * (m - u) * wg[i] * per_length, patch, out);
  for (int i = 0; i < 4; ++i)
    any |= add_contact(c, right_nodes[i], spin, 0.5 * (w - m) * wg[i] * per_length, patch, out);
  return any;
}

std::vector<contact_point> detector::find(double spin, double contact_length) const {
  std::vector<contact_point> out;
  std::vector<double> s_val, v, f;
  std::vector<char> exact;  // v is the penetration, not the bound -f
  int patch = 0;
  const double ds = grid.ds;
  for (const probe_curve& c : curves()) {
    const auto& pts = grid.pts[c.line];
    const long first = grid.first[c.line];
    long i0 = 0, i1 = static_cast<long>(pts.size()) - 1;  // closed curves: the whole circle
    if (!c.closed) {
      i0 = std::max(0L, static_cast<long>(std::ceil(c.s0 / ds)) - first);
      i1 = std::min(i1, static_cast<long>(std::floor(c.s1 / ds)) - first);
    } else {
      i1 = i0 + static_cast<long>(std::llround(two_pi / ds)) - 1;
    }
    const int n = static_cast<int>(i1 - i0 + 1);
    if (n < 3) continue;
    s_val.resize(n);
    v.resize(n);
    f.resize(n);
    exact.resize(n);
    // A sample beyond the other part's end face by more than the hump margin has penetration
    // at most -face (the face is one of the surfaces it is the minimum over): inside() never
    // looks closer at it, except as the neighbour of a sample it does look at (a bracket of a
    // crossing, a hump or a face crossing). Only those get their exact value: the stretches
    // are the same, and 40 % of the samples skip the surface query.
    const double margin = hump_margin();
    for (int i = 0; i < n; ++i) {
      s_val[i] = ds * static_cast<double>(first + i0 + i);
      const Vector3d P = to_global(c, pts[i0 + i]);
      f[i] = face(c, P);
      exact[i] = !(f[i] > margin);
      v[i] = exact[i] ? penetration_at(c, P) : -f[i];
    }
    for (int i = 0; i < n; ++i) {
      if (exact[i]) continue;
      const int before = i > 0 ? i - 1 : (c.closed ? n - 1 : -1);
      const int after = i + 1 < n ? i + 1 : (c.closed ? 0 : -1);
      if ((before >= 0 && exact[before]) || (after >= 0 && exact[after]))
        v[i] = penetration_at(c, to_global(c, pts[i0 + i]));
    }
    const double per_length = speed(c) / contact_length;
    const double sampled_peak = std::max(0.0, *std::max_element(v.begin(), v.end()));
    for (const auto& [a, b] : inside(c, n, ds, s_val, v, f)) {
      const int panels = std::max(1, static_cast<int>(std::ceil((b - a) / ds)));
      const double h = (b - a) / panels;
      const double peak = std::max(sampled_peak, penetration(c, 0.5 * (a + b)));
      const double tolerance = 1e-6 * peak;
      bool any = false;
      // panel ends at the sample spacing and at every change of the nearest surface between them
      std::vector<double> ends;
      for (int q = 0; q <= panels; ++q) {
        const double w = q == panels ? b : a + h * q;
        const double inset = 1e-9 * h;
        if (q > 0 && nearest_surface(c, ends.back() + inset) != nearest_surface(c, w - inset))
          ends.push_back(surface_switch(c, ends.back() + inset, w - inset));
        ends.push_back(w);
      }
      for (std::size_t q = 0; q + 1 < ends.size(); ++q) {
        const double u = ends[q], w = ends[q + 1];
        any |= refine(c, u, w, panel_integral(c, u, w), tolerance, 0, spin, per_length, patch, out);
      }
      if (any) ++patch;
    }
  }
  return out;
}

}  // namespace detail

using namespace detail;

std::vector<contact_point> find_contacts(const thread_geometry& g, const Vector3d& x,
                                         const Matrix3d& R, int points_per_turn, double spin_angle,
                                         double contact_length) {
  if (std::isnan(contact_length)) contact_length = default_contact_length(g.params());
  const probe_points grid = detector::make_grid(g, points_per_turn);
  return detector{g, grid, x, R}.find(spin_angle, contact_length);
}

}  // namespace contactuq::threaded
