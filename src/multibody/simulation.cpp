#include "contactuq/multibody/simulation.hpp"

#include <fmt/format.h>

#include <Eigen/Cholesky>
#include <algorithm>
#include <boost/numeric/odeint.hpp>
#include <cmath>
#include <optional>

#include "contactuq/error.hpp"
#include "contactuq/ode/dense_output.hpp"

namespace contactuq::multibody {

void simulation_options::validate() const {
  require(end_time > 0 && std::isfinite(end_time), "end_time", end_time, "s", "positive and finite");
  require(max_step > 0 && std::isfinite(max_step), "max_step", max_step, "s", "positive and finite");
  require(contact_step > 0 && contact_step <= max_step, "contact_step", contact_step, "s",
          "positive and at most max_step");
  require(penetration_tolerance > 0 && std::isfinite(penetration_tolerance),
          "penetration_tolerance", penetration_tolerance, "m", "positive and finite");
  require(relative_tolerance >= 1e-13 && relative_tolerance <= 1e-2, "relative_tolerance",
          relative_tolerance, "", "in [1e-13, 1e-2]");
  require(absolute_tolerance > 0 && std::isfinite(absolute_tolerance), "absolute_tolerance",
          absolute_tolerance, "", "positive and finite");
  require(baumgarte_alpha >= 0 && std::isfinite(baumgarte_alpha), "baumgarte_alpha",
          baumgarte_alpha, "1/s", "non-negative and finite");
  require(baumgarte_beta >= 0 && std::isfinite(baumgarte_beta), "baumgarte_beta", baumgarte_beta,
          "1/s", "non-negative and finite");
  require(sample_interval > 0 && std::isfinite(sample_interval), "sample_interval",
          sample_interval, "s", "positive and finite");
  require(max_steps >= 1 && max_steps <= 100000000, "max_steps", static_cast<double>(max_steps), "", "in [1, 1e8]");
  // The history is stored on the output grid: bounded, so that no end time runs (and grows)
  // without end.
  require(end_time <= 1e7 * sample_interval, "end_time", end_time, "s",
          fmt::format("at most 1e7 sample intervals ({:.4g} s at sample_interval = {:.4g} s)", 1e7 * sample_interval,
                      sample_interval)
              .c_str());
}

std::vector<double> centred_moving_average(const std::vector<double>& values, std::size_t window) {
  if (window == 0 || window % 2 == 0)
    throw parameter_error("window", fmt::format("window = {}: must be odd and >= 1", window));
  const std::size_t n = values.size();
  std::vector<double> prefix(n + 1, 0.0);
  for (std::size_t i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + values[i];
  std::vector<double> out(n);
  const std::size_t half = window / 2;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t h = std::min({half, i, n - 1 - i});
    out[i] = (prefix[i + h + 1] - prefix[i - h]) / static_cast<double>(2 * h + 1);
  }
  return out;
}

namespace {

using state_type = std::vector<double>;
constexpr std::size_t feature_count = 4;

double cross(const vec2& a, const vec2& b) { return a.x() * b.y() - a.y() * b.x(); }

// One clearance joint during a run: whether its contact carries force, and a law per feature
// (their history, the impact velocity, is set at the located onset).
struct joint_runtime {
  bool closed = false;
  std::vector<contact::contact_law> laws;  // indexed by clearance_feature
};

// Eq. (3) at one state, with the reported joint forces. The state is y = (q - q0, q').
class evaluator {
 public:
  evaluator(const planar_system& s, const simulation_options& o)
      : sys_(s), alpha_(o.baumgarte_alpha), beta_(o.baumgarte_beta) {
    n_ = s.coordinates();
    nc_ = s.constraint_count();
    q0_ = s.initial_positions();
    const auto n = static_cast<Eigen::Index>(n_);
    const auto nc = static_cast<Eigen::Index>(nc_);
    q_.resize(n), v_.resize(n), force_.resize(n), inverse_mass_.resize(n);
    cq_.setZero(nc, n), gamma_.resize(nc), lambda_.resize(nc), schur_.resize(nc, nc);
    for (std::size_t k = 0; k < s.bodies().size(); ++k) {
      const auto& b = s.bodies()[k];
      const auto i = static_cast<Eigen::Index>(3 * k);
      inverse_mass_[i] = inverse_mass_[i + 1] = 1 / b.mass;
      inverse_mass_[i + 2] = 1 / b.inertia;
    }
    for (const auto& j : s.clearance_joints()) {
      joint_runtime r;
      const auto& g = j.slot;
      r.laws.push_back(make_clearance_law(j.contact, g.radius_p, g.pin_radius));
      r.laws.push_back(make_clearance_law(j.contact, g.radius_r, g.pin_radius));
      r.laws.push_back(make_clearance_law(j.contact, contact::flat_radius, g.pin_radius));
      r.laws.push_back(r.laws.back());
      joints.push_back(std::move(r));
    }
    reported_ = s.reported_joints().size();
    joint_forces.assign(reported_, vec2::Zero());
  }

  std::vector<joint_runtime> joints;
  std::vector<vec2> joint_forces;  // of the last evaluate(), on each reported joint's body j
  long evaluations = 0;

  std::size_t coordinates() const { return n_; }
  const Eigen::VectorXd& initial_positions() const { return q0_; }

  void load(const double* y) {
    const auto n = static_cast<Eigen::Index>(n_);
    for (Eigen::Index i = 0; i < n; ++i) q_[i] = q0_[i] + y[i], v_[i] = y[n_ + static_cast<std::size_t>(i)];
  }
  const Eigen::VectorXd& q() const { return q_; }
  const Eigen::VectorXd& v() const { return v_; }

  vec2 position(std::size_t body) const { return q_.segment<2>(static_cast<Eigen::Index>(3 * body)); }
  double angle(std::size_t body) const { return q_[static_cast<Eigen::Index>(3 * body + 2)]; }
  vec2 velocity(std::size_t body) const { return v_.segment<2>(static_cast<Eigen::Index>(3 * body)); }
  double omega(std::size_t body) const { return v_[static_cast<Eigen::Index>(3 * body + 2)]; }

  // Geometry of clearance joint k at the loaded state.
  wall_contact locate(std::size_t k) const {
    const auto& j = sys_.clearance_joints()[k];
    return j.locate(position(j.body_i), angle(j.body_i), position(j.body_j), angle(j.body_j));
  }
  // delta' and v_t, eqs. (8)-(9): the pin's contact point relative to the wall's.
  std::pair<double, double> contact_velocity(std::size_t k, const wall_contact& w) const {
    const auto& j = sys_.clearance_joints()[k];
    const vec2 vj = velocity(j.body_j) + omega(j.body_j) * perpendicular(w.pin_point - position(j.body_j));
    const vec2 vi = velocity(j.body_i) + omega(j.body_i) * perpendicular(w.wall_point - position(j.body_i));
    const vec2 rel = vj - vi;
    return {w.normal.dot(rel), w.tangent.dot(rel)};
  }

  // y' = (q', q'') at (t, y); fills joint_forces.
  void evaluate(double t, const double* y, double* dydt) {
    ++evaluations;
    load(y);
    force_.setZero();
    const auto& bodies = sys_.bodies();
    for (std::size_t k = 0; k < bodies.size(); ++k)
      force_.segment<2>(static_cast<Eigen::Index>(3 * k)) += bodies[k].mass * sys_.gravity();
    for (const auto& f : sys_.forces()) {
      const vec2 force = f.direction * f.magnitude(t);
      apply(f.body, point_position(position(f.body), angle(f.body), f.point), force);
    }
    for (const auto& s : sys_.springs()) {
      const vec2 p = point_position(position(s.body), angle(s.body), s.point);
      const vec2 pv = point_velocity(velocity(s.body), angle(s.body), omega(s.body), s.point);
      const vec2 d = p - s.anchor;
      const double l = d.norm();
      if (l == 0) continue;
      const vec2 e = d / l;
      const double tension = s.stiffness * (l - s.free_length) + s.damping * e.dot(pv);
      apply(s.body, p, -tension * e);
    }
    std::size_t report = reported_ - joints.size();
    for (std::size_t k = 0; k < joints.size(); ++k, ++report) {
      joint_forces[report] = vec2::Zero();
      if (!joints[k].closed) continue;
      const wall_contact w = locate(k);
      if (w.overlap <= 0) continue;
      const auto [rate, slip] = contact_velocity(k, w);
      const auto& j = sys_.clearance_joints()[k];
      const double fn = joints[k].laws[static_cast<std::size_t>(w.feature)].peek_force(w.overlap, rate);
      const double ft = clearance_friction(j.contact, fn, slip);  // eq. (31)
      const vec2 on_pin = -fn * w.normal + ft * w.tangent;          // eq. (32), body j
      apply(j.body_j, w.pin_point, on_pin);
      apply(j.body_i, w.wall_point, -on_pin);
      joint_forces[report] = on_pin;
    }
    solve_constraints();
    for (std::size_t i = 0; i < n_; ++i) {
      dydt[i] = v_[static_cast<Eigen::Index>(i)];
      dydt[n_ + i] = accel_[static_cast<Eigen::Index>(i)];
    }
  }

 private:
  // Eq. (33): generalized force of F [N] at global point p on body k.
  void apply(std::size_t k, const vec2& p, const vec2& f) {
    const auto i = static_cast<Eigen::Index>(3 * k);
    force_.segment<2>(i) += f;
    force_[i + 2] += cross(p - position(k), f);
  }

  // Eq. (3) by the Schur complement; the revolute reactions -(C_q)_j^T lam into joint_forces.
  void solve_constraints() {
    if (nc_ == 0) {
      accel_ = inverse_mass_.cwiseProduct(force_);
      return;
    }
    cq_.setZero();
    Eigen::Index row = 0;
    for (const auto& con : sys_.constraints()) {
      if (const auto* f = std::get_if<fixed_body>(&con)) {
        const auto i = static_cast<Eigen::Index>(3 * f->body);
        cq_.block<3, 3>(row, i).setIdentity();
        gamma_.segment<3>(row).setZero();  // Q_d = 0
        const Eigen::Vector3d c(q_[i] - f->position.x(), q_[i + 1] - f->position.y(), q_[i + 2] - f->angle);
        gamma_.segment<3>(row) -= 2 * alpha_ * v_.segment<3>(i) + beta_ * beta_ * c;
        row += 3;
      } else {
        const auto& r = std::get<revolute_joint>(con);
        const auto i = static_cast<Eigen::Index>(3 * r.body_i);
        const auto j = static_cast<Eigen::Index>(3 * r.body_j);
        const double ti = q_[i + 2], tj = q_[j + 2];
        const vec2 ai = rotation(ti) * r.point_i, aj = rotation(tj) * r.point_j;
        cq_.block<2, 2>(row, i).setIdentity();
        cq_.block<2, 1>(row, i + 2) = rotation_derivative(ti) * r.point_i;
        cq_.block<2, 2>(row, j) = -Eigen::Matrix2d::Identity();
        cq_.block<2, 1>(row, j + 2) = -rotation_derivative(tj) * r.point_j;
        const vec2 c = q_.segment<2>(i) + ai - q_.segment<2>(j) - aj;                   // (2)
        const vec2 qd = ai * v_[i + 2] * v_[i + 2] - aj * v_[j + 2] * v_[j + 2];       // Q_d
        const vec2 cv = cq_.block(row, 0, 2, cq_.cols()) * v_;
        gamma_.segment<2>(row) = qd - 2 * alpha_ * cv - beta_ * beta_ * c;             // (3)
        row += 2;
      }
    }
    const Eigen::MatrixXd cm = cq_ * inverse_mass_.asDiagonal();
    schur_.noalias() = cm * cq_.transpose();
    lambda_ = schur_.ldlt().solve(cm * force_ - gamma_);
    accel_ = inverse_mass_.cwiseProduct(force_ - cq_.transpose() * lambda_);
    // Reactions of the revolute joints on their body j.
    row = 0;
    std::size_t report = 0;
    for (const auto& con : sys_.constraints()) {
      if (std::holds_alternative<fixed_body>(con)) {
        row += 3;
        continue;
      }
      const auto& r = std::get<revolute_joint>(con);
      const auto j = static_cast<Eigen::Index>(3 * r.body_j);
      joint_forces[report++] = -(cq_.block<2, 2>(row, j).transpose() * lambda_.segment<2>(row));
      row += 2;
    }
  }

  const planar_system& sys_;
  double alpha_, beta_;
  std::size_t n_ = 0, nc_ = 0, reported_ = 0;
  Eigen::VectorXd q0_, q_, v_, force_, inverse_mass_, accel_, gamma_, lambda_;
  Eigen::MatrixXd cq_, schur_;
};

namespace odeint = boost::numeric::odeint;

// Samples on the output grid up to end_time, t = 0 included.
std::size_t output_samples(const simulation_options& o) {
  return static_cast<std::size_t>(std::floor(o.end_time / o.sample_interval * (1 + 1e-12))) + 1;
}

// The kinks of the forces in time, sorted, then end_time: the steps stop at each.
std::vector<double> force_breakpoints(const planar_system& system, double end_time) {
  std::vector<double> breakpoints;
  for (const auto& f : system.forces())
    if (f.breakpoint > 0 && f.breakpoint < end_time) breakpoints.push_back(f.breakpoint);
  std::sort(breakpoints.begin(), breakpoints.end());
  breakpoints.push_back(end_time);
  return breakpoints;
}

// What ends the piece of a step that is kept: a force breakpoint, a contact onset or release, or
// nothing (the whole step).
enum class event_kind { none, breakpoint, onset, release };

struct step_end {
  double time = 0.0;
  event_kind event = event_kind::none;
  std::size_t joint = 0;  // the clearance joint of an onset or release
};

// One run of simulate(): the integrator, the contact states and the result they fill. Each step
// is cut at its first event, where the integrator restarts (with the contact step size while a
// contact is closed).
class simulation_run {
 public:
  // The state at t = 0: contacts already closed, the first sample and the integrator.
  simulation_run(const planar_system& system, const simulation_options& o)
      : system_(system),
        o_(o),
        ev_(system, o),
        n_(system.coordinates()),
        ncl_(system.clearance_joints().size()),
        y_(2 * n_, 0.0),
        scratch_(2 * n_),
        x_(2 * n_),
        xm_(2 * n_),
        sample_count_(output_samples(o)),
        breakpoints_(force_breakpoints(system, o.end_time)) {
    r_.joints = system.reported_joints();
    nj_ = r_.joints.size();
    r_.peak_force.assign(nj_, 0.0);
    r_.impulse_x.assign(nj_, 0.0);
    r_.impulse_y.assign(nj_, 0.0);
    r_.impulse.assign(nj_, 0.0);
    {
      const Eigen::VectorXd v0 = system.initial_velocities();
      for (std::size_t i = 0; i < n_; ++i) y_[n_ + i] = v0[static_cast<Eigen::Index>(i)];
    }
    ev_.load(y_.data());  // contacts closed at t = 0 (a resting pin)
    for (std::size_t k = 0; k < ncl_; ++k) {
      const auto w = ev_.locate(k);
      if (w.overlap > 0) close(k, ev_.contact_velocity(k, w).first);
    }
    record_sample(0.0, y_);
    next_sample_ = 1;
    f_start_ = forces_at(0.0, y_);
    restart(0.0, std::min(o.contact_step, o.max_step) * 0.1);
  }

  // Integrates to end_time; failures end the run with their status.
  simulation_result integrate() {
    auto rhs = [this](const state_type& x, state_type& dxdt, double t) {
      ev_.evaluate(t, x.data(), dxdt.data());
    };
    try {
      while (t_ < o_.end_time) {
        if (r_.steps >= o_.max_steps)
          return fail(
              simulation_status::too_many_steps,
              fmt::format("more than max_steps = {} steps before t = {} s", o_.max_steps, t_));
        const auto [ta, tb] = stepper_->do_step(rhs);
        ++r_.steps;
        if (tb - ta < 1e-15 * std::max(1.0, std::abs(tb)))
          return fail(simulation_status::step_underflow,
                      fmt::format("step size underflow at t = {} s", ta));
        const step_end end = first_event(ta, tb);
        const auto f_end = account_piece(ta, end.time);
        if (end.event == event_kind::none) {
          t_ = tb;
          y_ = stepper_->current_state();
          f_start_ = f_end;
          continue;
        }
        take_event(end);
      }
    } catch (const model_error& e) {
      return fail(simulation_status::model_error, e.what());
    } catch (const odeint::step_adjustment_error& e) {
      return fail(simulation_status::step_underflow, e.what());
    }
    r_.rhs_evaluations = ev_.evaluations;
    return std::move(r_);
  }

 private:
  // Closes contact k at the loaded state: every feature's law starts a contact at delta'_0.
  void close(std::size_t k, double rate) {
    const auto& c = system_.clearance_joints()[k].contact;
    auto& j = ev_.joints[k];
    for (auto& law : j.laws) {
      law.reset();
      law.force(0.0, std::max(rate, c.minimum_impact_velocity));
    }
    j.closed = true;
  }
  void open(std::size_t k) {
    auto& j = ev_.joints[k];
    for (auto& law : j.laws) law.reset();
    j.closed = false;
  }

  // Forces (and their magnitude) at a state, for samples, peaks and impulses.
  std::vector<vec2> forces_at(double t, const state_type& x) {
    ev_.evaluate(t, x.data(), scratch_.data());
    --ev_.evaluations;
    return ev_.joint_forces;
  }
  void track_peak(const std::vector<vec2>& f) {
    for (std::size_t k = 0; k < nj_; ++k)
      r_.peak_force[k] = std::max(r_.peak_force[k], f[k].norm());
  }

  void record_sample(double t, const state_type& x) {
    const auto f = forces_at(t, x);
    track_peak(f);
    r_.time.push_back(t);
    for (std::size_t i = 0; i < n_; ++i) {
      r_.positions.push_back(ev_.q()[static_cast<Eigen::Index>(i)]);
      r_.velocities.push_back(ev_.v()[static_cast<Eigen::Index>(i)]);
    }
    for (std::size_t k = 0; k < nj_; ++k)
      r_.force_x.push_back(f[k].x()), r_.force_y.push_back(f[k].y());
    for (std::size_t k = 0; k < ncl_; ++k) {
      const auto w = ev_.locate(k);
      r_.overlap.push_back(w.overlap);
      r_.feature.push_back(static_cast<int>(w.feature));
      r_.in_contact.push_back(ev_.joints[k].closed ? 1 : 0);
    }
    r_.constraint_violation.push_back(system_.constraint_values(ev_.q()).norm());
    r_.energy.push_back(system_.mechanical_energy(ev_.q(), ev_.v()));
  }

  bool any_closed() const {
    return std::any_of(ev_.joints.begin(), ev_.joints.end(),
                       [](const joint_runtime& j) { return j.closed; });
  }
  // A fresh integrator at (t, y_): its largest step is the contact step while a contact is closed.
  void restart(double t, double dt) {
    const double h = any_closed() ? o_.contact_step : o_.max_step;
    stepper_.emplace(ode::make_dopri5<state_type>(o_.absolute_tolerance, o_.relative_tolerance, h));
    stepper_->initialize(y_, t, std::min(dt, h));
  }

  // Overlap of clearance joint k on the current step's dense output at time s.
  double overlap_at(std::size_t k, double s) {
    stepper_->calc_state(s, x_);
    ev_.load(x_.data());
    return ev_.locate(k).overlap;
  }

  // The end of the kept piece of the step [ta, tb]: the next breakpoint or, before it, the
  // earliest contact event.
  step_end first_event(double ta, double tb) {
    step_end end{tb};
    if (tb >= breakpoints_[next_breakpoint_])
      end = {breakpoints_[next_breakpoint_], event_kind::breakpoint};
    // Contact events inside [ta, t_stop]: the earliest wins.
    for (std::size_t k = 0; k < ncl_; ++k) {
      const double g_stop = overlap_at(k, end.time);
      const bool closed = ev_.joints[k].closed;
      if (closed ? g_stop >= 0 : g_stop <= 0) continue;
      const double b = contact_crossing(k, closed, ta, end.time, g_stop);
      if (b <= end.time) end = {b, closed ? event_kind::release : event_kind::onset, k};
    }
    return end;
  }

  // Root of delta(t) of clearance joint k in [a, b] (delta = gb at b, across) on the dense
  // output. Onset: a rising crossing that stops at the first state where 0 < delta <= delta_0
  // (we go on to 1e-3 delta_0: the laws here reach delta_0 at the speeds of Section 5); release:
  // a falling one, to the first state with delta <= 0. Up to 200 iterations.
  double contact_crossing(std::size_t k, bool closed, double a, double b, double gb) {
    const double ga = overlap_at(k, a);
    if (closed ? ga <= 0 : ga > 0) return a;  // already across at the step start
    ode::crossing_search search;
    search.max_iterations = 200;
    if (closed) {
      search.direction = ode::crossing::falling;
    } else {
      search.direction = ode::crossing::rising;
      search.accept = 1e-3 * o_.penetration_tolerance;
    }
    auto overlap = [&](double c) { return overlap_at(k, c); };
    return ode::locate_crossing(a, b, ga, gb, overlap, search);
  }

  // Samples, peak and impulse over the kept piece [ta, t_stop]. Leaves the state at t_stop in x_
  // and returns the forces there.
  std::vector<vec2> account_piece(double ta, double t_stop) {
    while (next_sample_ < sample_count_) {
      const double ts = static_cast<double>(next_sample_) * o_.sample_interval;
      if (ts > t_stop) break;
      stepper_->calc_state(ts, x_);
      record_sample(ts, x_);
      ++next_sample_;
    }
    const double tm = 0.5 * (ta + t_stop);
    stepper_->calc_state(tm, xm_);
    const auto f_mid = forces_at(tm, xm_);
    stepper_->calc_state(t_stop, x_);
    auto f_end = forces_at(t_stop, x_);
    track_peak(f_mid);
    track_peak(f_end);
    const double h = t_stop - ta;
    for (std::size_t k = 0; k < nj_; ++k) {  // Simpson's rule
      r_.impulse_x[k] += h / 6 * (f_start_[k].x() + 4 * f_mid[k].x() + f_end[k].x());
      r_.impulse_y[k] += h / 6 * (f_start_[k].y() + 4 * f_mid[k].y() + f_end[k].y());
      r_.impulse[k] += h / 6 * (f_start_[k].norm() + 4 * f_mid[k].norm() + f_end[k].norm());
    }
    for (std::size_t k = 0; k < ncl_; ++k) {
      ev_.load(x_.data());
      r_.max_overlap = std::max(r_.max_overlap, ev_.locate(k).overlap);
    }
    return f_end;
  }

  // Moves to the event at the end of the kept piece (state in x_) and restarts the integrator
  // there: a breakpoint is passed, a contact closes (with the located impact) or opens.
  void take_event(const step_end& end) {
    const double dt = stepper_->current_time_step();
    t_ = end.time;
    y_ = x_;
    ev_.load(y_.data());
    if (end.event == event_kind::breakpoint) {
      ++next_breakpoint_;
    } else if (end.event == event_kind::onset) {
      const auto w = ev_.locate(end.joint);
      const double rate = ev_.contact_velocity(end.joint, w).first;
      r_.impacts.push_back({t_, end.joint, w.feature, w.overlap, rate});
      close(end.joint, rate);
    } else {
      open(end.joint);
    }
    f_start_ = forces_at(t_, y_);
    if (t_ < o_.end_time)
      restart(t_, end.event == event_kind::onset ? std::min(dt, o_.contact_step) : dt);
  }

  simulation_result fail(simulation_status status, const std::string& message) {
    r_.status = status;
    r_.message = message;
    r_.rhs_evaluations = ev_.evaluations;
    return std::move(r_);
  }

  const planar_system& system_;
  const simulation_options& o_;
  evaluator ev_;
  std::size_t n_;       // coordinates
  std::size_t ncl_;     // clearance joints
  std::size_t nj_ = 0;  // reported joints
  simulation_result r_;
  state_type y_;        // the state at t_, where the current integrator started
  state_type scratch_;  // derivative of forces_at(), unused
  state_type x_, xm_;   // states on the dense output
  std::size_t sample_count_;
  std::size_t next_sample_ = 0;
  std::vector<double> breakpoints_;  // of the forces, then end_time
  std::size_t next_breakpoint_ = 0;
  std::optional<ode::dopri5_dense_output<state_type>> stepper_;
  std::vector<vec2> f_start_;  // forces at the start of the kept piece
  double t_ = 0.0;
};

}  // namespace

simulation_result simulate(const planar_system& system, const simulation_options& o) {
  o.validate();
  if (system.bodies().empty()) throw parameter_error("bodies", "the system has no bodies");
  simulation_run run(system, o);
  return run.integrate();
}

}  // namespace contactuq::multibody
