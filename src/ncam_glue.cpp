// Thin Rcpp layer over the engine in ncam/: converts R arguments, maps R's memory without
// copies, and checks for user interrupts on the main thread.
#include <Rcpp.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <R_ext/Utils.h>

#include <memory>
#include <string>
#include <vector>

#include "ncam/dispatch.hpp"

using Rcpp::IntegerMatrix;
using Rcpp::IntegerVector;
using Rcpp::List;
using Rcpp::NumericMatrix;
using Rcpp::NumericVector;

namespace {

// The model spec from the list R's new_model_spec() builds; the parameterization comes as a
// name, checked here against the engine's enum.
ncam_types::Parameterization parameterization_from(const std::string& name) {
  if (name == "anchored") return ncam_types::Parameterization::anchored;
  if (name == "unanchored") return ncam_types::Parameterization::unanchored;
  if (name == "no_bias") return ncam_types::Parameterization::no_bias;
  Rcpp::stop("unknown parameterization '%s'", name);
}

ncam_types::ModelSpec spec_from_list(const List& s) {
  ncam_types::ModelSpec spec;
  spec.n_covariates = Rcpp::as<int>(s["n_covariates"]);
  spec.n_sensors = Rcpp::as<int>(s["n_sensors"]);
  spec.hidden = Rcpp::as<std::vector<int>>(s["hidden"]);
  spec.parameterization = parameterization_from(Rcpp::as<std::string>(s["parameterization"]));
  spec.anchor = Rcpp::as<int>(s["anchor"]);
  spec.logvar_min = Rcpp::as<double>(s["logvar_min"]);
  spec.logvar_max = Rcpp::as<double>(s["logvar_max"]);
  spec.lambda_prior = Rcpp::as<double>(s["lambda_prior"]);
  spec.lambda_sensor = Rcpp::as<double>(s["lambda_sensor"]);
  // Fits saved before sensor levels existed have none: gain 1 and offset 0 for every sensor.
  if (s.containsElementNamed("sensor_gain")) {
    spec.sensor_gain = Rcpp::as<std::vector<double>>(s["sensor_gain"]);
    spec.sensor_offset = Rcpp::as<std::vector<double>>(s["sensor_offset"]);
  }
  // Fits saved before it existed learned the anchor's noise from the covariates.
  if (s.containsElementNamed("constant_anchor_noise"))
    spec.constant_anchor_noise = Rcpp::as<bool>(s["constant_anchor_noise"]);
  if (s.containsElementNamed("anchor_noise_start"))
    spec.anchor_noise_start = Rcpp::as<double>(s["anchor_noise_start"]);  // NA: NaN, no start
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
ncam_types::DataView data_view(const ncam_types::ModelSpec& spec, SEXP x, SEXP b, const List& scaling) {
  ncam_types::DataView d;
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

void interrupt_probe(void*) { R_CheckUserInterrupt(); }
// True when the user pressed Ctrl-C; the interrupt is consumed without a longjmp through C++.
bool user_interrupted() { return R_ToplevelExec(interrupt_probe, nullptr) == FALSE; }

const ncam_dispatch::Backend& backend(bool simd) {
  if (simd) {
    if (const ncam_dispatch::Backend* b = ncam_dispatch::simd_backend()) return *b;
  }
  return ncam_dispatch::portable_backend();
}

// Precision names, checked: "float" or "double".
bool is_float(const std::string& precision) {
  if (precision == "float") return true;
  if (precision == "double") return false;
  Rcpp::stop("unknown precision '%s'", precision);
}

}  // namespace

// [[Rcpp::export]]
SEXP ncam_trainer_new(List spec, SEXP x, SEXP b, List scaling, IntegerVector train_rows,
                      List adam, double seed, int threads, std::string precision, bool simd = true) {
  const ncam_types::ModelSpec s = spec_from_list(spec);
  const ncam_types::DataView data = data_view(s, x, b, scaling);
  ncam_types::AdamOptions opt;
  opt.learn_rate = Rcpp::as<double>(adam["learn_rate"]);
  opt.beta1 = Rcpp::as<double>(adam["beta1"]);
  opt.beta2 = Rcpp::as<double>(adam["beta2"]);
  opt.eps = Rcpp::as<double>(adam["eps"]);
  opt.weight_decay = Rcpp::as<double>(adam["weight_decay"]);
  opt.clip_norm = Rcpp::as<double>(adam["clip_norm"]);
  opt.batch_size = Rcpp::as<int>(adam["batch_size"]);
  opt.adapt_threads = Rcpp::as<bool>(adam["adapt_threads"]);
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
  const ncam_types::EpochResult r = fit->epoch(user_interrupted);
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

// Posterior of every row, in model units, with the per-row outputs `outputs` asks for:
// "posterior" (mean, variance, n_observed, nll) alone; "anchor_noise" adds the anchor's noise
// log-variance, all a prediction interval needs; "sensors" adds every head: prior_mean and
// prior_log_variance (vectors), noise_log_variance, gain and offset (rows x sensors). Both
// others add `heads_not_finite`, the 1-based rows with a head output that is not finite (see
// PosteriorOut::heads_finite). With noise_clamp, also the engine's report of the noise
// log-variances the clamp sets (`noise_clamp`, rows x sensors: -1 at the lower bound, 1 at the
// upper, 0 inside; see PosteriorOut). With disagreement, also how much each row's readings
// disagree beyond their noise (`disagreement`, Q / (k - 1); NA for fewer than two readings and
// for a row with a missing covariate; see PosteriorOut). Rows go to the engine in blocks, with a
// check for a user interrupt after each: `interrupted` is then TRUE and the outputs incomplete.
// [[Rcpp::export]]
List ncam_predict_cpp(List spec, NumericVector params, SEXP x, SEXP b, List scaling, int threads,
                      std::string precision, std::string outputs, bool noise_clamp, bool simd = true,
                      bool disagreement = false) {
  const ncam_types::ModelSpec s = spec_from_list(spec);
  const ncam_types::DataView data = data_view(s, x, b, scaling);
  const ncam_dispatch::Backend& engine = backend(simd);
  if (static_cast<std::size_t>(params.size()) != engine.layout(s).n_params)
    Rcpp::stop("parameter vector has the wrong length");
  const bool sensors = outputs == "sensors", anchor_noise = outputs == "anchor_noise";
  if (!sensors && !anchor_noise && outputs != "posterior") Rcpp::stop("unknown outputs '%s'", outputs);
  if (anchor_noise && s.parameterization != ncam_types::Parameterization::anchored)
    Rcpp::stop("outputs 'anchor_noise' need a model with an anchor");
  const int n = data.n_rows, L = s.n_sensors;
  const ncam_types::HeadColumns columns{L};
  NumericVector mean(n), variance(n), nll(n);
  IntegerVector n_obs(n);
  NumericVector noise(anchor_noise ? n : 0), disagree(disagreement ? n : 0);
  NumericVector prior_mean(sensors ? n : 0), prior_log_variance(sensors ? n : 0);
  NumericMatrix noise_log_variance(sensors ? n : 0, sensors ? L : 0), gain(sensors ? n : 0, sensors ? L : 0),
      offset(sensors ? n : 0, sensors ? L : 0);
  IntegerMatrix clamp_out(noise_clamp ? n : 0, noise_clamp ? L : 0);
  std::vector<int> not_finite;
  const std::size_t max_block = static_cast<std::size_t>(std::min(n, ncam_types::kPredictBlockRows));
  std::vector<double> block_heads(sensors ? max_block * columns.count() : 0);
  std::vector<int> block_clamp(noise_clamp ? max_block * L : 0);
  std::vector<int> block_finite(sensors || anchor_noise ? max_block : 0);
  // The block's m-row columns first..first + count - 1 into rows begin.. of an n-row matrix.
  auto copy_columns = [&](const auto* from, int first, int count, int m, int begin, auto* to) {
    for (int k = 0; k < count; ++k)
      std::copy_n(from + static_cast<std::size_t>(first + k) * m, m, to + static_cast<std::size_t>(k) * n + begin);
  };
  bool interrupted = false;
  for (int begin = 0; begin < n && !interrupted; begin += ncam_types::kPredictBlockRows) {
    const int m = std::min(ncam_types::kPredictBlockRows, n - begin);
    ncam_types::DataView block = data;
    for (const double*& col : block.x) col += begin;
    for (const double*& col : block.b) col += begin;
    block.n_rows = m;
    ncam_types::PosteriorOut out{mean.begin() + begin, variance.begin() + begin, n_obs.begin() + begin,
                                 nll.begin() + begin};
    if (sensors) out.heads = block_heads.data();
    if (noise_clamp) out.noise_clamp = block_clamp.data();
    if (anchor_noise) {
      out.noise_log_variance = noise.begin() + begin;
      out.noise_sensor = s.anchor;
    }
    if (sensors || anchor_noise) out.heads_finite = block_finite.data();
    if (disagreement) out.disagreement = disagree.begin() + begin;
    engine.predict(s, params.begin(), block, threads, is_float(precision), out);
    if (disagreement) {  // the engine's NaN (no statistic) is R's NA
      for (double* v = disagree.begin() + begin; v != disagree.begin() + begin + m; ++v)
        if (std::isnan(*v)) *v = NA_REAL;
    }
    if (sensors) {
      const double* h = block_heads.data();
      copy_columns(h, columns.prior_mean(), 1, m, begin, prior_mean.begin());
      copy_columns(h, columns.prior_log_variance(), 1, m, begin, prior_log_variance.begin());
      copy_columns(h, columns.noise_log_variance(0), L, m, begin, noise_log_variance.begin());
      copy_columns(h, columns.gain(0), L, m, begin, gain.begin());
      copy_columns(h, columns.offset(0), L, m, begin, offset.begin());
    }
    if (noise_clamp) copy_columns(block_clamp.data(), 0, L, m, begin, clamp_out.begin());
    if (sensors || anchor_noise) {
      for (int i = 0; i < m; ++i)
        if (!block_finite[i]) not_finite.push_back(begin + i + 1);
    }
    interrupted = begin + m < n && user_interrupted();
  }
  List result = List::create(Rcpp::_["mean"] = mean, Rcpp::_["variance"] = variance, Rcpp::_["n_observed"] = n_obs,
                             Rcpp::_["nll"] = nll, Rcpp::_["interrupted"] = interrupted);
  if (anchor_noise) result["noise_log_variance"] = noise;
  if (disagreement) result["disagreement"] = disagree;
  if (sensors) {
    result["prior_mean"] = prior_mean;
    result["prior_log_variance"] = prior_log_variance;
    result["noise_log_variance"] = noise_log_variance;
    result["gain"] = gain;
    result["offset"] = offset;
  }
  if (sensors || anchor_noise) result["heads_not_finite"] = IntegerVector(not_finite.begin(), not_finite.end());
  if (noise_clamp) result["noise_clamp"] = clamp_out;
  return result;
}

// The training objective on the working scale (loss, NLL sum, gradient), for tests.
// [[Rcpp::export]]
List ncam_objective_cpp(List spec, NumericVector params, SEXP x, SEXP b, List scaling,
                        IntegerVector rows, int threads, std::string precision, bool simd = true) {
  const ncam_types::ModelSpec s = spec_from_list(spec);
  const ncam_types::DataView data = data_view(s, x, b, scaling);
  const ncam_dispatch::Backend& engine = backend(simd);
  if (static_cast<std::size_t>(params.size()) != engine.layout(s).n_params)
    Rcpp::stop("parameter vector has the wrong length");
  const ncam_dispatch::Objective o =
      engine.objective(s, params.begin(), data, rows_from_r(rows, data.n_rows), threads, is_float(precision));
  return List::create(Rcpp::_["loss"] = o.loss, Rcpp::_["nll_sum"] = o.nll_sum,
                      Rcpp::_["gradient"] = NumericVector(o.gradient.begin(), o.gradient.end()));
}

// [[Rcpp::export]]
NumericVector ncam_init_params_cpp(List spec, double seed, bool simd = true) {
  const std::vector<double> p = backend(simd).init_params(spec_from_list(spec), static_cast<std::uint64_t>(seed));
  return NumericVector(p.begin(), p.end());
}

// [[Rcpp::export]]
List ncam_layout_cpp(List spec, bool simd = true) {
  const ncam_types::ParamLayout lay = backend(simd).layout(spec_from_list(spec));
  List heads;
  for (const ncam_types::HeadLayout& h : lay.heads) {
    heads.push_back(List::create(Rcpp::_["widths"] = h.widths,
                                 Rcpp::_["w_offset"] = std::vector<double>(h.w_offset.begin(), h.w_offset.end()),
                                 Rcpp::_["b_offset"] = std::vector<double>(h.b_offset.begin(), h.b_offset.end())),
                    h.name);
  }
  return List::create(Rcpp::_["heads"] = heads, Rcpp::_["n_params"] = static_cast<double>(lay.n_params),
                      Rcpp::_["n_free"] = lay.n_free);
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

// 1-based rows of a double vector whose value lies below `lower` or above `upper` (NaN never
// does): a branch-free scan of blocks, the rows collected only from blocks with one. Values
// outside a range are rare in the checks that use it, and which(x < lower | x > upper) made
// three passes with two allocations the size of the data.
// [[Rcpp::export]]
IntegerVector ncam_rows_outside_cpp(NumericVector x, double lower, double upper) {
  const double* v = x.begin();
  const R_xlen_t n = x.size();
  std::vector<int> rows;
  for (R_xlen_t start = 0; start < n; start += 4096) {
    const R_xlen_t end = std::min(n, start + 4096);
    bool any = false;
    for (R_xlen_t i = start; i < end; ++i) any |= (v[i] < lower) | (v[i] > upper);
    if (!any) continue;
    for (R_xlen_t i = start; i < end; ++i)
      if (v[i] < lower || v[i] > upper) rows.push_back(static_cast<int>(i) + 1);
  }
  return IntegerVector(rows.begin(), rows.end());
}

// 1-based rows whose posterior the networks' arithmetic could not resolve (see
// drop_beyond_range()): a mean or variance that is not finite, or a standard deviation on the
// working scale below `eps` times max(1, |mean|) there, the precision the mean is computed with.
// [[Rcpp::export]]
IntegerVector ncam_rows_unresolved_cpp(NumericVector mu, NumericVector variance, double shift, double scale,
                                       double eps) {
  const R_xlen_t n = mu.size();
  if (n > INT_MAX) Rcpp::stop("More rows than an R integer vector can number.");
  std::vector<int> rows;
  for (R_xlen_t i = 0; i < n; ++i) {
    const double m = mu[i], v = variance[i];
    const bool unresolved = !std::isfinite(m) || !std::isfinite(v) ||
      std::sqrt(v) / scale < eps * std::max(1.0, std::fabs((m - shift) / scale));
    if (unresolved) rows.push_back(static_cast<int>(i) + 1);
  }
  return IntegerVector(rows.begin(), rows.end());
}

// Name of the backend that `simd` selects on this machine: "avx2" or "portable".
// [[Rcpp::export]]
std::string ncam_backend_cpp(bool simd) { return backend(simd).name; }
