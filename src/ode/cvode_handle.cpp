#include "ode/cvode_handle.hpp"

#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#include <stdexcept>

namespace contactuq::ode {

namespace {

void keep_first(int, const char*, const char*, char* message, void* data) {
  auto& into = *static_cast<std::string*>(data);
  if (into.empty()) into = message;
}

void discard(int, const char*, const char*, char*, void*) {}

}  // namespace

cvode_handle::cvode_handle(int lmm, sunindextype n) : n_(n) {
  if (SUNContext_Create(nullptr, &ctx_) != 0) throw std::runtime_error("SUNContext_Create failed");
  y_ = N_VNew_Serial(n, ctx_);
  abstol_ = N_VNew_Serial(n, ctx_);
  dky_ = N_VNew_Serial(n, ctx_);
  mem_ = CVodeCreate(lmm, ctx_);
  if (!y_ || !abstol_ || !dky_ || !mem_) {
    release();
    throw std::runtime_error("CVODE allocation failed");
  }
}

cvode_handle::~cvode_handle() { release(); }

void cvode_handle::release() {
  if (mem_) CVodeFree(&mem_);
  if (nls_) SUNNonlinSolFree(nls_);
  if (ls_) SUNLinSolFree(ls_);
  if (matrix_) SUNMatDestroy(matrix_);
  if (y_) N_VDestroy(y_);
  if (abstol_) N_VDestroy(abstol_);
  if (dky_) N_VDestroy(dky_);
  if (ctx_) SUNContext_Free(&ctx_);
  nls_ = nullptr, ls_ = nullptr, matrix_ = nullptr;
  y_ = abstol_ = dky_ = nullptr;
}

const double* cvode_handle::dense_state(double t) const {
  CVodeGetDky(mem_, t, 0, dky_);
  return N_VGetArrayPointer(dky_);
}

int cvode_handle::use_fixed_point(int m) {
  if (!nls_) nls_ = SUNNonlinSol_FixedPoint(y_, m, ctx_);
  if (!nls_) return CV_MEM_FAIL;
  return CVodeSetNonlinearSolver(mem_, nls_);
}

int cvode_handle::use_dense_newton() {
  if (!matrix_) matrix_ = SUNDenseMatrix(n_, n_, ctx_);
  if (matrix_ && !ls_) ls_ = SUNLinSol_Dense(y_, matrix_, ctx_);
  if (!ls_) return CV_MEM_FAIL;
  return CVodeSetLinearSolver(mem_, ls_, matrix_);
}

int cvode_handle::keep_first_error(std::string& into) {
  return CVodeSetErrHandlerFn(mem_, keep_first, &into);
}

int cvode_handle::silence_errors() { return CVodeSetErrHandlerFn(mem_, discard, nullptr); }

}  // namespace contactuq::ode
