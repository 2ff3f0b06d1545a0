// Thin Rcpp layer over the engine in ncam/: converts R arguments, maps R's memory without
// copies, and checks for user interrupts on the main thread.
#include <Rcpp.h>

#include <algorithm>
#include <cmath>
#include <R_ext/Utils.h>

#include <memory>
#include <string>
#include <vector>

#include "ncam/dispatch.hpp"
#include "ncam/trainer.hpp"

using Rcpp::IntegerVector;
using Rcpp::List;
using Rcpp::NumericMatrix;
using Rcpp::NumericVector;

namespace {

ncam::ModelSpec spec_from_list(const List& s) {
  ncam::ModelSpec spec;
  spec.n_covariates = Rcpp::as<int>(s["n_covariates"]);
  spec.n_sensors = Rcpp::as<int>(s["n_sensors"]);
  spec.hidden = Rcpp::as<std::vector<int>>(s["hidden"]);
  spec.parameterization = static_cast<ncam::Parameterization>(Rcpp::as<int>(s["parameterization"]));
  spec.anchor = Rcpp::as<int>(s["anchor"]);
  spec.logvar_min = Rcpp::as<double>(s["logvar_min"]);
  spec.logvar_max = Rcpp::as<double>(s["logvar_max"]);
  spec.lambda_prior = Rcpp::as<double>(s["lambda_prior"]);
  spec.lambda_sensor = Rcpp::as<double>(s["lambda_sensor"]);
  return spec;
}

// Column pointers into a double matrix or into a list of double vectors (a data frame's
// columns), read in place; checks that every column has n_rows entries (n_rows < 0: take the
// first column's length).
std::vector<const double*> column_pointers(SEXP m, int& n_rows, const char* what) {
  std::vector<const double*> cols;
  if (TYPEOF(m) == REALSXP && Rf_isMatrix(m)) {
    const int nr = Rf_nrows(m), nc = Rf_ncols(m);
    if (n_rows < 0) n_rows = nr;
    if (nr != n_rows) Rcpp::stop("%s has %d rows, expected %d", what, nr, n_rows);
    for (int k = 0; k < nc; ++k) cols.push_back(REAL(m) + static_cast<std::size_t>(k) * nr);
  } else if (TYPEOF(m) == VECSXP) {
    for (R_xlen_t k = 0; k < Rf_xlength(m); ++k) {
      SEXP col = VECTOR_ELT(m, k);
      if (TYPEOF(col) != REALSXP) Rcpp::stop("%s: column %d is not a double vector", what, static_cast<int>(k) + 1);
      if (n_rows < 0) n_rows = static_cast<int>(Rf_xlength(col));
      if (Rf_xlength(col) != n_rows) Rcpp::stop("%s: column %d has the wrong length", what, static_cast<int>(k) + 1);
      cols.push_back(REAL(col));
    }
  } else {
    Rcpp::stop("%s must be a double matrix or a list of double vectors", what);
  }
  return cols;
}

// x (covariates) and b (readings): each a double matrix or a list of double columns, as many
// as the model has covariates and sensors.
ncam::DataView data_view(const ncam::ModelSpec& spec, SEXP x, SEXP b, const List& scaling) {
  ncam::DataView d;
  int n = -1;
  d.b = column_pointers(b, n, "sensor readings");
  if (n < 0) Rcpp::stop("sensor readings have no columns");
  d.x = column_pointers(x, n, "covariates");
  d.n_rows = n;
  d.x_center = Rcpp::as<std::vector<double>>(scaling["x_center"]);
  d.x_scale = Rcpp::as<std::vector<double>>(scaling["x_scale"]);
  d.b_shift = Rcpp::as<double>(scaling["b_shift"]);
  d.b_scale = Rcpp::as<double>(scaling["b_scale"]);
  if (static_cast<int>(d.x.size()) != spec.n_covariates)
    Rcpp::stop("%d covariate columns, the model has %d", static_cast<int>(d.x.size()), spec.n_covariates);
  if (static_cast<int>(d.b.size()) != spec.n_sensors)
    Rcpp::stop("%d sensor columns, the model has %d", static_cast<int>(d.b.size()), spec.n_sensors);
  if (d.x_center.size() != d.x.size() || d.x_scale.size() != d.x.size())
    Rcpp::stop("scaling does not match the covariates");
  return d;
}

std::vector<int> rows_from_r(const IntegerVector& rows, int n) {
  std::vector<int> out(rows.begin(), rows.end());
  for (int r : out)
    if (r < 0 || r >= n) Rcpp::stop("row index out of range");
  return out;
}

bool is_float(const std::string& precision) { return precision == "float"; }

void interrupt_probe(void*) { R_CheckUserInterrupt(); }
// True when the user pressed Ctrl-C; the interrupt is consumed without a longjmp through C++.
bool user_interrupted() { return R_ToplevelExec(interrupt_probe, nullptr) == FALSE; }

const ncam_dispatch::Backend& backend(bool simd) {
  if (simd) {
    if (const ncam_dispatch::Backend* b = ncam_dispatch::simd_backend()) return *b;
  }
  return ncam_dispatch::portable_backend();
}

template <typename T>
std::vector<T> params_as(const NumericVector& params, std::size_t expected) {
  if (static_cast<std::size_t>(params.size()) != expected) Rcpp::stop("parameter vector has the wrong length");
  return std::vector<T>(params.begin(), params.end());
}

template <typename T>
List objective_impl(const ncam::ModelSpec& spec, const NumericVector& params, const ncam::DataView& data,
                    const std::vector<int>& rows, int threads) {
  ncam::Model model(spec);
  const std::vector<T> p = params_as<T>(params, model.n_params());
  std::vector<T> grad(model.n_params());
  ncam::Engine<T> engine(model, data, threads);
  double nll_sum = 0.0;
  const double loss = engine.loss_grad(p.data(), rows.data(), static_cast<int>(rows.size()), grad.data(), &nll_sum);
  return List::create(Rcpp::_["loss"] = loss, Rcpp::_["nll_sum"] = nll_sum,
                      Rcpp::_["gradient"] = NumericVector(grad.begin(), grad.end()));
}

}  // namespace

// [[Rcpp::export]]
SEXP ncam_trainer_new(List spec, SEXP x, SEXP b, List scaling, IntegerVector train_rows,
                      List adam, double seed, int threads, std::string precision, bool simd = true) {
  const ncam::ModelSpec s = spec_from_list(spec);
  ncam::Model model(s);  // validates the spec before anything is allocated
  const ncam::DataView data = data_view(s, x, b, scaling);
  ncam::AdamOptions opt;
  opt.learn_rate = Rcpp::as<double>(adam["learn_rate"]);
  opt.beta1 = Rcpp::as<double>(adam["beta1"]);
  opt.beta2 = Rcpp::as<double>(adam["beta2"]);
  opt.eps = Rcpp::as<double>(adam["eps"]);
  opt.weight_decay = Rcpp::as<double>(adam["weight_decay"]);
  opt.clip_norm = Rcpp::as<double>(adam["clip_norm"]);
  opt.batch_size = Rcpp::as<int>(adam["batch_size"]);
  std::vector<int> rows = rows_from_r(train_rows, data.n_rows);
  ncam_dispatch::FitState* state = backend(simd).new_fit_state(s, data, std::move(rows), opt,
                                                                static_cast<std::uint64_t>(seed), threads,
                                                                is_float(precision));
  // The pointer keeps x and b alive: the engine reads them in place.
  return Rcpp::XPtr<ncam_dispatch::FitState>(state, true, R_NilValue, List::create(x, b));
}

// [[Rcpp::export]]
List ncam_trainer_epoch(SEXP state) {
  Rcpp::XPtr<ncam_dispatch::FitState> fit(state);
  const ncam::EpochResult r = fit->epoch(user_interrupted);
  return List::create(Rcpp::_["train_loss"] = r.train_loss, Rcpp::_["train_nll"] = r.train_nll,
                      Rcpp::_["interrupted"] = r.interrupted, Rcpp::_["finite"] = r.finite);
}

// [[Rcpp::export]]
double ncam_trainer_nll(SEXP state, IntegerVector rows) {
  Rcpp::XPtr<ncam_dispatch::FitState> fit(state);
  return fit->nll_mean(std::vector<int>(rows.begin(), rows.end()));
}

// [[Rcpp::export]]
NumericVector ncam_trainer_params(SEXP state) {
  Rcpp::XPtr<ncam_dispatch::FitState> fit(state);
  const std::vector<double> p = fit->params();
  return NumericVector(p.begin(), p.end());
}

// [[Rcpp::export]]
List ncam_predict_cpp(List spec, NumericVector params, SEXP x, SEXP b, List scaling,
                      int threads, std::string precision, bool heads, bool simd = true) {
  const ncam::ModelSpec s = spec_from_list(spec);
  const ncam::DataView data = data_view(s, x, b, scaling);
  ncam::Model model(s);
  if (static_cast<std::size_t>(params.size()) != model.n_params()) Rcpp::stop("parameter vector has the wrong length");
  const int n = data.n_rows;
  NumericVector mean(n), variance(n), nll(n);
  IntegerVector n_obs(n);
  NumericMatrix head_out(heads ? n : 0, heads ? 2 + 3 * s.n_sensors : 0);
  const ncam::PosteriorOut out{mean.begin(), variance.begin(), n_obs.begin(), nll.begin(),
                               heads ? head_out.begin() : nullptr};
  backend(simd).predict(s, params.begin(), data, threads, is_float(precision), out);
  return List::create(Rcpp::_["mean"] = mean, Rcpp::_["variance"] = variance, Rcpp::_["n_observed"] = n_obs,
                      Rcpp::_["nll"] = nll,
                      Rcpp::_["heads"] = heads ? Rcpp::RObject(head_out) : Rcpp::RObject(R_NilValue));
}

// [[Rcpp::export]]
List ncam_objective_cpp(List spec, NumericVector params, SEXP x, SEXP b, List scaling,
                        IntegerVector rows, int threads, std::string precision) {
  const ncam::ModelSpec s = spec_from_list(spec);
  const ncam::DataView data = data_view(s, x, b, scaling);
  const std::vector<int> r = rows_from_r(rows, data.n_rows);
  return is_float(precision) ? objective_impl<float>(s, params, data, r, threads)
                             : objective_impl<double>(s, params, data, r, threads);
}

// [[Rcpp::export]]
NumericVector ncam_init_params_cpp(List spec, double seed) {
  ncam::Model model(spec_from_list(spec));
  std::vector<double> p(model.n_params());
  ncam::Rng rng(static_cast<std::uint64_t>(seed));
  model.initialise(p.data(), rng);
  return NumericVector(p.begin(), p.end());
}

// [[Rcpp::export]]
List ncam_layout_cpp(List spec) {
  ncam::Model model(spec_from_list(spec));
  auto describe = [](const ncam::MlpLayout& l) {
    return List::create(Rcpp::_["widths"] = l.widths,
                        Rcpp::_["w_offset"] = std::vector<double>(l.w_offset.begin(), l.w_offset.end()),
                        Rcpp::_["b_offset"] = std::vector<double>(l.b_offset.begin(), l.b_offset.end()));
  };
  List heads = List::create(Rcpp::_["prior"] = describe(model.prior()),
                            Rcpp::_["reliability"] = describe(model.reliability()));
  if (model.has_bias_head()) heads["bias"] = describe(model.bias());
  return List::create(Rcpp::_["heads"] = heads, Rcpp::_["n_params"] = static_cast<double>(model.n_params()),
                      Rcpp::_["n_free"] = model.n_free());
}

// GFLOP/s of Eigen's matrix product C += A B (A: rows x depth, B: depth x cols) as the chosen
// backend compiles it: the practical roofline for the network's layers. With threads > 1,
// the total over that many threads each running its own product at the same time.
// [[Rcpp::export]]
double ncam_gemm_probe_cpp(int rows, int depth, int cols, int reps, std::string precision, int threads = 1,
                           bool simd = true) {
  return backend(simd).gemm_probe(rows, depth, cols, reps, is_float(precision), threads);
}

// 1-based column and row of the first infinite value in a list of columns (double columns
// only: other types cannot hold one), or an empty vector: one pass, no allocation.
// [[Rcpp::export]]
IntegerVector ncam_first_infinite_cpp(List cols) {
  for (R_xlen_t k = 0; k < cols.size(); ++k) {
    SEXP col = cols[k];
    if (TYPEOF(col) != REALSXP) continue;
    const double* v = REAL(col);
    const R_xlen_t n = Rf_xlength(col);
    for (R_xlen_t start = 0; start < n; start += 4096) {  // a branch-free scan, then the exact row
      const R_xlen_t end = std::min(n, start + 4096);
      bool any = false;
      for (R_xlen_t i = start; i < end; ++i) any |= std::fabs(v[i]) == HUGE_VAL;
      if (!any) continue;
      for (R_xlen_t i = start; i < end; ++i)
        if (std::isinf(v[i])) return IntegerVector::create(static_cast<int>(k) + 1, static_cast<int>(i) + 1);
    }
  }
  return IntegerVector(0);
}

// Name of the backend that `simd` selects on this machine: "avx2" or "portable".
// [[Rcpp::export]]
std::string ncam_backend_cpp(bool simd) { return backend(simd).name; }
