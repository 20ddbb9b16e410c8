#pragma once
// Contact detection between the bolt and the nut (threaded_insertion.hpp, Nicolson 1990 §3.4.2):
// probe curves (crest helices, tip circle, nut edge) sampled on grids fixed in the part that
// carries them, the stretches of each curve inside the other part, and their distributed
// contacts by adaptive Gauss-Legendre quadrature.

#include <array>
#include <utility>
#include <vector>

#include "contactuq/threaded/thread_geometry.hpp"
#include "contactuq/threaded/threaded_insertion.hpp"
#include "rotation.hpp"

namespace contactuq::threaded::detail {

enum class probe_kind { bolt_helix, nut_helix, tip_circle, nut_edge };

struct probe_curve {
  probe_kind kind;
  double offset;  // profile offset from the crest centre [m] (helices)
  double s0, s1;  // parameter range [rad]
  bool closed;
  int line;       // index of the curve in probe_points
};

// The sample points of every probe curve on a grid fixed in the part that carries the curve
// (bolt body frame, nut frame), spacing 2 pi / points_per_turn in the curve parameter: computed
// once per start, and the same material points are sampled at every pose.
struct probe_points {
  static constexpr int lines = 8;  // 3 bolt helices, 3 nut helices, tip circle, nut edge
  double ds = 0;
  std::array<long, lines> first{};  // grid index of pts[line][0]
  std::array<std::vector<Vector3d>, lines> pts;
};

// The bolt at one pose (tip origin x, attitude R) against the nut.
struct detector {
  const thread_geometry& g;
  const probe_points& grid;
  Vector3d x;
  Matrix3d R;
  // Whether contacts get `thread` and `helical_offset` (cross-threading); the forces need neither.
  bool classify = true;

  // The point of the curve at parameter s in the frame of the part that carries it.
  static Vector3d local_point(const thread_geometry& g, probe_kind kind, double offset, double s);
  Vector3d to_global(const probe_curve& c, const Vector3d& local) const {
    return on_bolt(c) ? Vector3d(x + R * local) : local;
  }
  Vector3d point(const probe_curve& c, double s) const {
    return to_global(c, local_point(g, c.kind, c.offset, s));
  }

  static std::vector<double> crest_offsets(const thread_params& t);
  static probe_points make_grid(const thread_geometry& g, int points_per_turn);
  static bool on_bolt(const probe_curve& c) {
    return c.kind == probe_kind::bolt_helix || c.kind == probe_kind::tip_circle;
  }
  // Penetration of the probe point P (global) into the other part.
  double penetration_at(const probe_curve& c, const Vector3d& P) const;
  // The same with its gradient with respect to the global point P.
  double penetration_at(const probe_curve& c, const Vector3d& P, Vector3d& grad) const;
  double penetration(const probe_curve& c, double s) const { return penetration_at(c, point(c, s)); }
  // The surface of the other part nearest to the curve's point at s (thread_geometry ids).
  int nearest_surface(const probe_curve& c, double s) const;
  // Where the nearest surface changes between u and w (ids differ there): the penetration has a
  // kink, and quadrature panels end at it.
  double surface_switch(const probe_curve& c, double u, double w) const;

  std::vector<probe_curve> curves() const;

  // A quadrature node of a probe curve: its point, depth and the depth's exact gradient (the
  // force field of V = Phi(depth)).
  struct node {
    Vector3d point;
    double depth;
    Vector3d grad;
  };

  bool add_contact(const probe_curve& c, const node& nd, double spin, double weight, int patch,
                   std::vector<contact_point>& out) const;

  // Length of the probe curve per unit parameter [m/rad]: fixed per curve (helix and circle at
  // their nominal radius), so the weights of a material line do not change as the bolt moves.
  double speed(const probe_curve& c) const;

  // The parameter where the penetration crosses zero between lo (<= 0) and hi (> 0), in either
  // order.
  double crossing(const probe_curve& c, double lo, double v_lo, double hi, double v_hi) const;

  // Signed distance of the curve's point from the plane of the other part's end face, negative on
  // the material's side: the nut's top face z = 0 for bolt curves, the bolt's tip plane z_b = 0
  // for nut curves. Where a curve crosses that plane near the edge, the penetration is the
  // minimum of the face and the wall distance: a sharp peak the samples can miss (two edges
  // crossing, Nicolson §3.5.3's line/line contact).
  double face(const probe_curve& c, const Vector3d& P) const {
    return on_bolt(c) ? P.z() : -R.col(2).dot(P - x);
  }
  double face(const probe_curve& c, double s) const { return face(c, point(c, s)); }

  // The largest penetration on [lo, hi] if it is positive: the stretch around it.
  bool hump(const probe_curve& c, double lo, double v_lo, double hi, double v_hi,
            std::vector<std::pair<double, double>>& out) const;

  // A sample less than this outside the other part may sit next to a peak between samples.
  double hump_margin() const {
    return 2e-3 * g.params().pitch;  // above the sampling error of a peak at 32 points/turn
  }

  // The stretches [a, b] of the probe curve that are inside the other part: runs of penetrating
  // samples extended to their zero crossings, humps between samples found by refining each local
  // maximum just below zero, and peaks where the curve crosses the other part's end face between
  // two samples outside.
  std::vector<std::pair<double, double>> inside(const probe_curve& c, int n, double ds,
                                                const std::vector<double>& s_val,
                                                const std::vector<double>& v,
                                                const std::vector<double>& f) const;

  // Gauss-Legendre nodes and weights on [-1, 1].
  static constexpr double xg[4] = {-0.8611363115940526, -0.3399810435848563, 0.3399810435848563,
                                   0.8611363115940526};
  static constexpr double wg[4] = {0.3478548451374538, 0.6521451548625461, 0.6521451548625461,
                                   0.3478548451374538};

  double panel_integral(const probe_curve& c, double u, double w) const;
  // The same, keeping the nodes with their gradients: an accepted panel's nodes are its contacts.
  double panel_integral(const probe_curve& c, double u, double w, std::array<node, 4>& nodes) const;

  // Adaptive Gauss-Legendre on [u, w]: a panel is split while its halves change the integral of
  // the penetration by more than `tolerance` per unit parameter; the accepted halves' nodes
  // become contact points. The node set changes with the pose only where the integral changes
  // by less than the tolerance, so the force field is continuous to that level and the work it
  // does is the change of the contact energy to the same level.
  bool refine(const probe_curve& c, double u, double w, double whole, double tolerance, int level,
              double spin, double per_length, int patch, std::vector<contact_point>& out) const;

  // Every penetrated stretch of every probe curve as a distributed contact: the registered law's
  // force acts per `contact_length` of curve, integrated over the stretch by adaptive
  // Gauss-Legendre (refine) from panels one sample spacing long.
  std::vector<contact_point> find(double spin, double contact_length) const;
};

}  // namespace contactuq::threaded::detail
