#include "simphant/sim/cvode_instance.hpp"

#include <cvode/cvode.h>
#include <cvode/cvode_proj.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "simphant/dynamics/evaluate.hpp"
#include "simphant/dynamics/projection.hpp"
#include "simphant/formulas/runaway.hpp"
#include "simphant/formulas/state.hpp"

namespace simphant {

struct CvodeInstance::Impl {
  int ny = 0;
  SUNContext ctx = nullptr;
  N_Vector y = nullptr;      ///< CVODE's state (CVodeInit) and the output of CVode
  N_Vector yout = nullptr;   ///< the interpolated state at an output time
  SUNMatrix A = nullptr;     ///< the Newton matrix I - gamma J (dense)
  SUNLinearSolver LS = nullptr;
  void* mem = nullptr;
  bool initialised = false;  ///< CVodeInit done (CVodeReInit from then on)
  bool started = false;      ///< a restart succeeded
  double t_output = 0;
  BdfProblem problem;
  std::int8_t eval_failure = kReasonNone;  ///< the last failed evaluation's reason
  std::int8_t proj_failure = kReasonNone;  ///< the last failed projection's reason
  std::vector<double> scratch;             ///< (ny) the projected state
  long nst = 0, netf = 0, ncfn = 0;        ///< CVODE's counters at the last read (reset by CVodeReInit)

  ~Impl() {
    if (mem) CVodeFree(&mem);
    if (LS) SUNLinSolFree(LS);
    if (A) SUNMatDestroy(A);
    if (yout) N_VDestroy(yout);
    if (y) N_VDestroy(y);
    if (ctx) SUNContext_Free(&ctx);
  }
};

namespace {

/// Y' = f(t, Y) by evaluate(). A failed evaluation is a recoverable error (return 1):
/// CVODE retries with a smaller step and gives up after repeated failures; the reason
/// is kept for the status (as rk4.cpp's evaluate_failure: a failure that leaves Ydot
/// finite is the factorisation's).
int bdf_rhs(sunrealtype t, N_Vector y, N_Vector ydot, void* user_data) {
  auto* impl = static_cast<CvodeInstance::Impl*>(user_data);
  const BdfProblem& p = impl->problem;
  double* f = N_VGetArrayPointer(ydot);
  std::fill(f, f + impl->ny, 0.0);
  if (evaluate(*p.model, *p.d, t, N_VGetArrayPointer(y), p.inputs, f)) return 0;
  impl->eval_failure = kReasonFactorisationFailure;
  for (int i = 0; i < impl->ny; ++i)
    if (!std::isfinite(f[i])) impl->eval_failure = kReasonNonFinite;
  return 1;
}

/// CVODE's projection after each step (CVProjFn; Hairer, Lubich and Wanner, Geometric
/// Numerical Integration, section IV.4): corr = P(y) - y with P the quaternion
/// renormalisation followed by model.solver.projection (dynamics/projection.hpp); the
/// error estimate's quaternion part projected onto the tangent space of |p| = 1,
/// e_p -= p (p . e_p) (the constraint projection leaves the rest of the estimate as is,
/// so the error test stays conservative). A failed projection is recoverable (return 1).
int bdf_project(sunrealtype t, N_Vector ycur, N_Vector corr, sunrealtype /*eps_proj*/, N_Vector err,
                void* user_data) {
  auto* impl = static_cast<CvodeInstance::Impl*>(user_data);
  const BdfProblem& p = impl->problem;
  const int n = impl->ny, N = p.model->n_bodies();
  const double* y = N_VGetArrayPointer(ycur);
  double* ys = impl->scratch.data();
  std::copy(y, y + n, ys);
  for (int k = 0; k < N; ++k) {
    const Quatd q = normalized(state_p(ys, k));
    ys[7 * k + 3] = q.w; ys[7 * k + 4] = q.x; ys[7 * k + 5] = q.y; ys[7 * k + 6] = q.z;
  }
  if (!project(*p.model, *p.d, t, ys)) {
    impl->proj_failure = kReasonFactorisationFailure;
    return 1;
  }
  double* c = N_VGetArrayPointer(corr);
  for (int i = 0; i < n; ++i) {
    c[i] = ys[i] - y[i];
    if (!std::isfinite(c[i])) {
      impl->proj_failure = kReasonNonFinite;
      return 1;
    }
  }
  if (err) {
    double* e = N_VGetArrayPointer(err);
    for (int k = 0; k < N; ++k) {
      double* ep = e + 7 * k + 3;
      const double* q = ys + 7 * k + 3;
      const double dot = q[0] * ep[0] + q[1] * ep[1] + q[2] * ep[2] + q[3] * ep[3];
      for (int c4 = 0; c4 < 4; ++c4) ep[c4] -= q[c4] * dot;
    }
  }
  return 0;
}

/// CVODE reports its errors through the status reason: its messages are not printed.
void bdf_silent_errors(int, const char*, const char*, char*, void*) {}

}  // namespace

CvodeInstance::CvodeInstance(int ny) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.ny = ny;
  m.scratch.assign(static_cast<std::size_t>(ny), 0.0);
  if (SUNContext_Create(nullptr, &m.ctx) != 0) throw std::runtime_error("CVODE: SUNContext_Create failed");
  m.y = N_VNew_Serial(ny, m.ctx);
  m.yout = N_VNew_Serial(ny, m.ctx);
  if (!m.y || !m.yout) throw std::runtime_error("CVODE: N_VNew_Serial failed");
  N_VConst(0.0, m.y);
  m.A = SUNDenseMatrix(ny, ny, m.ctx);
  if (!m.A) throw std::runtime_error("CVODE: SUNDenseMatrix failed");
  m.LS = SUNLinSol_Dense(m.y, m.A, m.ctx);
  if (!m.LS) throw std::runtime_error("CVODE: SUNLinSol_Dense failed");
  m.mem = CVodeCreate(CV_BDF, m.ctx);
  if (!m.mem) throw std::runtime_error("CVODE: CVodeCreate failed");
}

CvodeInstance::~CvodeInstance() = default;

bool CvodeInstance::restart(const SolverSettings& s, double t, const double* Y) {
  Impl& m = *impl_;
  std::copy(Y, Y + m.ny, N_VGetArrayPointer(m.y));
  if (!m.initialised) {
    if (CVodeInit(m.mem, bdf_rhs, t, m.y) != CV_SUCCESS) return false;
    if (CVodeSetUserData(m.mem, impl_.get()) != CV_SUCCESS) return false;
    if (CVodeSetErrHandlerFn(m.mem, bdf_silent_errors, nullptr) != CV_SUCCESS) return false;
    if (CVodeSetLinearSolver(m.mem, m.LS, m.A) != CV_SUCCESS) return false;
    if (CVodeSetProjFn(m.mem, bdf_project) != CV_SUCCESS) return false;
    // advance_to counts the steps to an output time itself (kBdfMaxStepsPerInterval).
    if (CVodeSetMaxNumSteps(m.mem, -1) != CV_SUCCESS) return false;
    // BDF of order 3 to 5 is not A-stable near the imaginary axis: mechanisms have lightly
    // damped oscillatory modes, so CVODE's stability-limit detection lowers the order there.
    if (CVodeSetStabLimDet(m.mem, SUNTRUE) != CV_SUCCESS) return false;
    if (CVodeSetNonlinConvCoef(m.mem, kBdfNonlinConvCoef) != CV_SUCCESS) return false;
    m.initialised = true;
  } else if (CVodeReInit(m.mem, t, m.y) != CV_SUCCESS) {
    return false;
  }
  m.started = false;
  m.nst = m.netf = m.ncfn = 0;
  if (CVodeSStolerances(m.mem, s.rtol, s.atol) != CV_SUCCESS) return false;
  if (CVodeSetMaxStep(m.mem, s.max_step) != CV_SUCCESS) return false;
  if (CVodeSetInitStep(m.mem, s.first_step) != CV_SUCCESS) return false;
  m.t_output = t;
  m.started = true;
  return true;
}

bool CvodeInstance::started() const { return impl_->started; }

double CvodeInstance::output_time() const { return impl_->t_output; }

std::int8_t CvodeInstance::advance_to(const BdfProblem& problem, double t_out, double min_step, double* Y_out,
                                      BdfStepStats& stats) {
  Impl& m = *impl_;
  m.problem = problem;
  m.eval_failure = m.proj_failure = kReasonNone;
  const double hmax = problem.model->solver.max_step;
  // CVODE refuses hmin > hmax; validation keeps min_step <= dt, the floor may still pass a tiny max_step.
  if (CVodeSetMinStep(m.mem, hmax > 0 ? std::min(min_step, hmax) : min_step) != CV_SUCCESS) return kReasonStepSizeUnderflow;
  double t_cur = 0;
  CVodeGetCurrentTime(m.mem, &t_cur);
  std::int8_t reason = kReasonNone;
  long steps = 0;
  while (t_cur < t_out) {
    if (++steps > kBdfMaxStepsPerInterval) {
      reason = kReasonStepSizeUnderflow;
      break;
    }
    const int flag = CVode(m.mem, t_out, m.y, &t_cur, CV_ONE_STEP);
    if (flag < 0) {
      switch (flag) {
        case CV_RHSFUNC_FAIL: case CV_FIRST_RHSFUNC_ERR: case CV_REPTD_RHSFUNC_ERR: case CV_UNREC_RHSFUNC_ERR:
          reason = m.eval_failure != kReasonNone ? m.eval_failure : kReasonNonFinite;
          break;
        case CV_PROJFUNC_FAIL: case CV_REPTD_PROJFUNC_ERR:
          reason = m.proj_failure != kReasonNone ? m.proj_failure : kReasonFactorisationFailure;
          break;
        default:  // CV_ERR_FAILURE, CV_CONV_FAILURE at hmin, CV_LSETUP_FAIL, CV_TOO_CLOSE, ...
          reason = kReasonStepSizeUnderflow;
      }
      break;
    }
    double h = 0;
    CVodeGetLastStep(m.mem, &h);
    stats.min_step = std::min(stats.min_step, h);
    stats.max_step = std::max(stats.max_step, h);
  }
  long nst = 0, netf = 0, ncfn = 0;
  CVodeGetNumSteps(m.mem, &nst);
  CVodeGetNumErrTestFails(m.mem, &netf);
  CVodeGetNumNonlinSolvConvFails(m.mem, &ncfn);
  stats.accepted += nst - m.nst;
  stats.rejected += (netf - m.netf) + (ncfn - m.ncfn);
  m.nst = nst;
  m.netf = netf;
  m.ncfn = ncfn;
  if (reason != kReasonNone) return reason;
  if (CVodeGetDky(m.mem, t_out, 0, m.yout) != CV_SUCCESS) return kReasonStepSizeUnderflow;
  const double* yo = N_VGetArrayPointer(m.yout);
  for (int i = 0; i < m.ny; ++i)
    if (!std::isfinite(yo[i])) return kReasonNonFinite;
  std::copy(yo, yo + m.ny, Y_out);
  m.t_output = t_out;
  return kReasonNone;
}

}  // namespace simphant
