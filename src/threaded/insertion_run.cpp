// One start of a bolt in the nut (threaded_insertion.hpp): CVODE stepped to the end of the run
// with the step monitor (maxima, engagement, stall), and the outcome judged where it stopped.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "contactuq/threaded/threaded_insertion.hpp"
#include "insertion_integrator.hpp"
#include "insertion_system.hpp"
#include "rotation.hpp"

namespace contactuq::threaded {

using namespace detail;

namespace {

// One start of a bolt: the CVODE memory, the measures of the bolt's pose against the nut and the
// result filled while stepping. Not copyable: CVODE holds the address of data_.
class insertion_run {
 public:
  insertion_run(const insertion_params& params, const insertion_system& sys)
      : params_(params),
        sys_(sys),
        p_(params.thread.pitch),
        t_end_(sys.t_end()),
        data_{&sys, {}, nullptr, {}},
        plain_(params.thread.plain_bore),
        tilt_ok_(plain_ ? params.tip_angle : engaged_tilt_limit(params.thread)),
        full_thread_(plain_ ? 0.0 : p_ * (0.5 + params.thread.runup_angle / two_pi)) {
    setup_cvode(h_, data_, sys_, params_, t_end_);
    z0_tip_ = tip_of(unpack(h_.state())).z();
  }
  insertion_run(const insertion_run&) = delete;
  insertion_run& operator=(const insertion_run&) = delete;

  // Steps CVODE to t_end, or until the start is decided (with stop_when_decided: engaged or
  // tipped; or stalled for stall_abort_turns), fails or takes more than max_steps steps.
  void integrate() {
    if (n_hist_ > 0) {
      record(0.0, h_.state());
      next_sample_ = 1;
    }
    // the start itself: the stall window's first point, and a tip started inside the nut may be
    // engaged at t = 0
    bool decided = watch_step();
    while (t_ < t_end_ && !decided) {
      const int flag = CVode(h_.memory(), t_end_, h_.y(), &t_, CV_ONE_STEP);
      if (flag < 0) {
        res_.outcome = insertion_outcome::inconclusive;
        res_.message =
            data_.error.empty() ? std::string(CVodeGetReturnFlagName(flag)) : data_.error;
        break;
      }
      record_history_through(t_);
      long taken = 0;
      CVodeGetNumSteps(h_.memory(), &taken);
      if (taken >= params_.max_steps) {
        res_.message = fmt::format("more than max_steps = {} integrator steps by t = {:.4g} s",
                                   params_.max_steps, t_);
        break;
      }
      decided = watch_step();
    }
    long steps = 0;
    CVodeGetNumSteps(h_.memory(), &steps);
    res_.steps = steps;
    res_.rhs_evaluations = sys_.rhs_count;
    res_.final_time = t_;
  }

  // The outcome from the state where the integration stopped.
  insertion_result judge() {
    const bolt_state s = unpack(h_.state());
    const evaluation_terms e = sys_.terms(t_, s, true, false);
    const double depth = -tip_of(s).z() - full_thread_;
    res_.final_tilt = tilt_of(s);
    res_.phase_error = plain_ ? std::numeric_limits<double>::quiet_NaN() : phase_of(s);
    res_.axial_advance = z0_tip_ - tip_of(s).z();
    res_.engagement_margin = depth - params_.engage_depth;
    res_.energy_dissipated = s.dissipated;
    res_.drive_slip = std::abs(s.slip);
    res_.cross_threaded = cross_threaded(e.points, depth);
    res_.final_advance_ratio = advance_ratio(tip_of(s).z());
    if (!res_.message.empty()) {
      res_.outcome = insertion_outcome::inconclusive;
    } else if (res_.max_tilt > params_.tip_angle) {
      res_.outcome = insertion_outcome::tipped;
    } else if (res_.cross_threaded) {
      res_.outcome = insertion_outcome::cross_threaded;
    } else if (depth >= params_.engage_depth && res_.final_tilt <= tilt_ok_ &&
               (plain_ || std::abs(res_.phase_error) < 0.5 * pi)) {
      res_.outcome = insertion_outcome::engaged;
    } else if (depth + full_thread_ < 0.25 * p_) {
      res_.outcome = insertion_outcome::no_start;
    } else if (res_.final_advance_ratio < stall_ratio && e.max_normal > 0) {
      res_.outcome = insertion_outcome::jammed;  // stalled against the nut
    } else {
      // neither engaged nor stalled: still threading (or still moving) when the run ended
      res_.outcome = insertion_outcome::inconclusive;
      res_.message = fmt::format(
          "not engaged but not stalled when the run ended: the tip advanced {:.3g} of the feed "
          "over the last {:.3g} s",
          res_.final_advance_ratio, stall_window_);
    }
    res_.success = res_.outcome == insertion_outcome::engaged;
    // An engaged start that stopped early would have gone on with the gripper: its margin counts
    // the feed's travel left in the run, so the margin grows the earlier a start engages and is
    // continuous across success (a start engaging just at t_end has a margin just above 0, one
    // just short of it just below 0).
    if (res_.success && params_.stop_when_decided) res_.engagement_margin += params_.feed * (t_end_ - t_);
    if (res_.success && std::isnan(res_.time_to_engage)) res_.time_to_engage = t_;
    if (!res_.success) res_.time_to_engage = std::numeric_limits<double>::quiet_NaN();
    return std::move(res_);
  }

 private:
  // The largest tilt at which a start counts as engaged [rad]: from the allowance on the flanks
  // over the major radius, at least 1 degree.
  static double engaged_tilt_limit(const thread_params& tp) {
    return std::max(pi / 180, 2 * std::atan(tp.allowance * std::tan(tp.flank_angle) /
                                            (0.5 * tp.major_diameter)));
  }
  static double tilt_of(const bolt_state& s) {
    return std::acos(std::clamp(s.q.toRotationMatrix()(2, 2), -1.0, 1.0));
  }
  Vector3d tip_of(const bolt_state& s) const {
    return Vector3d(s.x_cm - s.q.toRotationMatrix() * sys_.r_cm());
  }
  double phase_of(const bolt_state& s) const {  // helical phase error, 0 = meshing
    const double delta = tip_of(s).z() - p_ * (sys_.theta_z0() + s.spin) / two_pi;
    return wrap_pi(two_pi * (delta - 0.5 * p_) / p_);
  }
  // Thread contacts more than half a pitch apart along the helix, with the tip in the nut (never
  // in a plain bore: no thread to cross).
  bool cross_threaded(const std::vector<contact_point>& cps, double depth) const {
    if (plain_) return false;
    double lo = 1e300, hi = -1e300;
    for (const auto& c : cps)
      if (c.thread) {
        lo = std::min(lo, c.helical_offset);
        hi = std::max(hi, c.helical_offset);
      }
    return depth >= -0.5 * p_ && hi - lo > 0.5 * p_;
  }

  void record(double t, const double* y) {
    const bolt_state s = unpack(y);
    const evaluation_terms e = sys_.terms(t, s, false, true);
    insertion_sample smp;
    smp.t = t;
    smp.tip_z = tip_of(s).z();
    smp.tilt = tilt_of(s);
    smp.phase_lag = phase_of(s);
    smp.axial_force = e.grasp_force.z();
    smp.torque_z = e.grasp_torque.z();
    smp.kinetic = sys_.kinetic(s);
    smp.grasp_energy = sys_.grasp_energy(t, s);
    smp.contact_energy = e.contact_energy;
    smp.dissipated = s.dissipated;
    res_.history.push_back(smp);
  }
  // History samples (evenly spaced over [0, t_end]) up to the accepted step t, on CVODE's dense
  // output.
  void record_history_through(double t) {
    while (n_hist_ > 1 && next_sample_ < n_hist_) {
      const double ts = t_end_ * next_sample_ / (n_hist_ - 1);
      if (ts > t) break;
      record(ts, h_.dense_state(ts));
      ++next_sample_;
    }
  }

  // The tip's advance along -z over the trailing stall window (the whole run if shorter) as a
  // fraction of the gripper's feed over it; NaN without feed.
  double advance_ratio(double tip_z) const {
    if (!(params_.feed > 0)) return std::numeric_limits<double>::quiet_NaN();
    const double t0 = std::max(0.0, t_ - stall_window_);
    // the tip's height at t0, linear between the accepted steps around it
    std::size_t k = 0;
    while (k + 1 < trail_.size() && trail_[k + 1].first <= t0) ++k;
    double z0 = trail_[k].second;
    if (k + 1 < trail_.size() && trail_[k + 1].first > trail_[k].first) {
      const double w = (t0 - trail_[k].first) / (trail_[k + 1].first - trail_[k].first);
      z0 += std::clamp(w, 0.0, 1.0) * (trail_[k + 1].second - trail_[k].second);
    }
    const double span = t_ - t0;
    return span > 0 ? (z0 - tip_z) / (params_.feed * span) : std::numeric_limits<double>::quiet_NaN();
  }

  // The maxima and the engagement at the accepted step; true when the start is decided (with
  // stop_when_decided: tipped or engaged) or the drive gives up on a stall.
  //
  // The contact measures at the accepted step come from the step's last right-hand side, the
  // converged Newton iterate: within the convergence test of the accepted state (a tenth of the
  // error tolerance), and a contact search per step cheaper (a quarter of all searches). The
  // grasp's terms need no search and are exact; cross-threading, judged rarely, searches anew.
  bool watch_step() {
    const bolt_state s = unpack(h_.state());
    static const std::vector<contact_point> none;
    const evaluation_terms grasp = sys_.terms(t_, s, false, false, &none);
    contact_measures c = data_.last;
    if (!(c.t == t_)) {  // no Newton iterate at this time (the start): search here
      const evaluation_terms e = sys_.terms(t_, s, false, false);
      c = {t_, e.max_normal, e.contacts};
    }
    const double tilt = tilt_of(s);
    const double depth = -tip_of(s).z() - full_thread_;
    trail_.emplace_back(t_, tip_of(s).z());
    while (trail_.size() > 2 && trail_[1].first <= t_ - stall_window_) trail_.pop_front();
    res_.max_tilt = std::max(res_.max_tilt, tilt);
    res_.max_contacts = std::max(res_.max_contacts, c.contacts);
    res_.max_contact_force = std::max(res_.max_contact_force, c.max_normal);
    res_.max_axial_force = std::max(res_.max_axial_force, std::abs(grasp.grasp_force.z()));
    res_.max_torque_z = std::max(res_.max_torque_z, std::abs(grasp.grasp_torque.z()));
    const bool engaged_now = depth >= params_.engage_depth && tilt <= tilt_ok_ &&
                             (plain_ || std::abs(phase_of(s)) < 0.5 * pi) &&
                             !cross_threaded(sys_.terms(t_, s, true, false).points, depth);
    if (engaged_now && std::isnan(res_.time_to_engage)) res_.time_to_engage = t_;
    // A drive that gives up once a stall has lasted stall_abort_turns (the stall began about a
    // window before it was first seen): the start ends jammed (judge()). Some starts stall for a
    // turn or more and then go on (the axial grasp force grows with the feed until it pushes the
    // bolt past the wedged flanks), so this is a choice of the process, not a shortcut.
    const bool stalled_now = t_ >= stall_window_ && c.max_normal > 0 &&
                             advance_ratio(tip_of(s).z()) < stall_ratio;
    if (!stalled_now) stalled_since_ = std::numeric_limits<double>::quiet_NaN();
    else if (std::isnan(stalled_since_)) stalled_since_ = t_;
    const bool aborted =
        stalled_now && t_ - stalled_since_ + stall_window_ >= params_.stall_abort_turns * p_ / params_.feed;
    return aborted || (params_.stop_when_decided && (tilt > params_.tip_angle || engaged_now));
  }

  const insertion_params& params_;
  const insertion_system& sys_;
  const double p_;      // pitch [m]
  const double t_end_;  // [s]
  ode::cvode_handle h_{cvode_method, n_state};  // set up by setup_cvode()
  cvode_data data_;
  const bool plain_;  // plain peg and bore: no phase, no cross-threading, depth from the top face
  // largest final tilt of an engaged start; in a plain bore the bore itself bounds the tilt
  const double tilt_ok_;
  // engaged depth: the tip's depth below the first full nut thread (notes §8) of the ramp run-up,
  // for either thread.runup (the same criterion in a comparison; header)
  const double full_thread_;
  double z0_tip_ = 0;
  // Stall (outcome jammed): over the last half turn of drive the tip advances less than
  // stall_ratio of the feed while contacts carry load. A threading bolt advances a pitch per turn
  // of its own (ratio about 1, less only as far as the drive slips); a stalled one only by the
  // contacts' compliance under the axial grasp force the feed winds up, k_z p/2 over the window
  // (1.25 N at the defaults: a Hertz deflection below 1 um, a ratio of 1e-3).
  static constexpr double stall_turns = 0.5;
  static constexpr double stall_ratio = 0.1;
  const double stall_window_ =
      params_.feed > 0 ? stall_turns * p_ / params_.feed : std::numeric_limits<double>::infinity();
  std::deque<std::pair<double, double>> trail_;  // (t, tip z) at accepted steps in the window
  double stalled_since_ = std::numeric_limits<double>::quiet_NaN();  // start of the current stall
  const int n_hist_ = params_.history_points;
  int next_sample_ = 0;
  double t_ = 0;
  insertion_result res_;
};

}  // namespace

insertion_result simulate_insertion(const insertion_params& params) {
  params.validate();
  const insertion_system sys(params);
  insertion_run run(params, sys);
  run.integrate();
  return run.judge();
}

}  // namespace contactuq::threaded
