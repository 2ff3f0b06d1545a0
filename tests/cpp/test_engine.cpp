// Standalone tests of the NCAM C++ core (src/ncam/*.hpp), without R. Built with
// AddressSanitizer and UndefinedBehaviorSanitizer by tests/cpp/Makefile. Every check compares
// the engine against an independent computation (central finite differences, dense Gaussian
// algebra with Eigen). Exits non-zero if any check fails; the last line is "N passed, N failed".
#include <sys/wait.h>
#include <unistd.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "ncam/thread_chooser.hpp"
#include "ncam/trainer.hpp"

using namespace ncam;

namespace {

int g_pass = 0, g_fail = 0;

void check(bool ok, const std::string& name, const char* fmt = "", double v1 = 0, double v2 = 0) {
  if (ok) {
    ++g_pass;
    return;
  }
  ++g_fail;
  std::printf("FAIL: %s ", name.c_str());
  std::printf(fmt, v1, v2);
  std::printf("\n");
}

const double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Data {
  int n = 0, p = 0, L = 0;
  std::vector<double> x, b;  // column-major
  DataView view() const {
    DataView d;
    for (int q = 0; q < p; ++q) d.x.push_back(x.data() + static_cast<std::size_t>(q) * n);
    for (int j = 0; j < L; ++j) d.b.push_back(b.data() + static_cast<std::size_t>(j) * n);
    d.n_rows = n;
    d.x_center.assign(p, 3.0);
    d.x_scale.assign(p, 2.0);
    d.b_shift = 10.0;
    d.b_scale = 3.0;
    return d;
  }
  double bw(int i, int j) const { return (b[i + static_cast<std::size_t>(j) * n] - 10.0) / 3.0; }
};

// Covariates ~ N(3, 2^2); truth ~ N(10, 3^2); sensor j = g_j truth + j + noise, some readings
// missing, row 1 without readings, row 2 with one reading.
Data simulate(int n, int p, int L, std::uint64_t seed, double na_frac) {
  std::mt19937_64 eng(seed);
  std::normal_distribution<double> norm(0.0, 1.0);
  std::uniform_real_distribution<double> unif(0.0, 1.0);
  Data d;
  d.n = n;
  d.p = p;
  d.L = L;
  d.x.resize(static_cast<std::size_t>(n) * p);
  d.b.resize(static_cast<std::size_t>(n) * L);
  for (auto& v : d.x) v = 3.0 + 2.0 * norm(eng);
  for (int i = 0; i < n; ++i) {
    const double covariate_effect = p > 0 ? 0.5 * (d.x[i] - 3.0) : 0.0;
    const double theta = 10.0 + 3.0 * norm(eng) + covariate_effect;
    for (int j = 0; j < L; ++j) {
      const double gain = 0.8 + 0.5 * j / std::max(1, L - 1);
      const double sd = 0.5 + 0.3 * j + (p > 0 ? 0.1 * std::fabs(d.x[i]) : 0.0);
      double v = gain * theta + j + sd * norm(eng);
      if (unif(eng) < na_frac) v = kNaN;
      d.b[i + static_cast<std::size_t>(j) * n] = v;
    }
  }
  if (n > 2) {
    for (int j = 0; j < L; ++j) d.b[1 + static_cast<std::size_t>(j) * n] = kNaN;
    for (int j = 0; j + 1 < L; ++j) d.b[2 + static_cast<std::size_t>(j) * n] = kNaN;
    d.b[2 + static_cast<std::size_t>(L - 1) * n] = 10.5;
  }
  return d;
}

ModelSpec make_spec(int p, int L, std::vector<int> hidden, int param, int anchor = 0, double lp = 0.2,
                    double ls = 0.07) {
  ModelSpec s;
  s.n_covariates = p;
  s.n_sensors = L;
  s.hidden = std::move(hidden);
  s.parameterization = static_cast<Parameterization>(param);
  s.anchor = anchor;
  s.lambda_prior = lp;
  s.lambda_sensor = ls;
  return s;
}

// The spec with sensor levels (gain, offset on the working scale) for its free sensors; fixed
// sensors keep gain 1 and offset 0.
ModelSpec with_levels(ModelSpec s, const std::vector<double>& gain, const std::vector<double>& offset) {
  Model plain(s);
  s.sensor_gain.assign(s.n_sensors, 1.0);
  s.sensor_offset.assign(s.n_sensors, 0.0);
  for (int j = 0; j < s.n_sensors; ++j) {
    if (plain.free_index(j) < 0) continue;
    s.sensor_gain[j] = gain[j];
    s.sensor_offset[j] = offset[j];
  }
  return s;
}

// The data with sensor j read on another scale: gain_j times its working-scale reading plus
// offset_j (a raw signal), so that the readings sit at the levels of with_levels().
Data at_levels(Data d, const std::vector<double>& gain, const std::vector<double>& offset) {
  for (int j = 0; j < d.L; ++j)
    for (int i = 0; i < d.n; ++i) {
      double& v = d.b[i + static_cast<std::size_t>(j) * d.n];
      v = 10.0 + 3.0 * (gain[j] * (v - 10.0) / 3.0 + offset[j]);
    }
  return d;
}

std::vector<double> generic_params(const Model& model, std::uint64_t seed, double noise) {
  std::vector<double> p(model.n_params());
  Rng rng(seed);
  model.initialise(p.data(), rng);
  std::mt19937_64 eng(seed + 77);
  std::normal_distribution<double> norm(0.0, noise);
  for (auto& v : p) v += norm(eng);
  return p;
}

std::vector<int> all_rows(int n) {
  std::vector<int> r(n);
  for (int i = 0; i < n; ++i) r[i] = i;
  return r;
}

struct Predicted {
  std::vector<double> mean, variance, nll, heads;
  std::vector<int> n_obs;
};

template <typename T>
Predicted predict(Engine<T>& engine, const std::vector<T>& params, int n, int L) {
  Predicted pr;
  pr.mean.assign(n, 0);
  pr.variance.assign(n, 0);
  pr.nll.assign(n, 0);
  pr.n_obs.assign(n, 0);
  pr.heads.assign(static_cast<std::size_t>(n) * (2 + 3 * L), 0);
  PosteriorOut out{pr.mean.data(), pr.variance.data(), pr.n_obs.data(), pr.nll.data(), pr.heads.data()};
  engine.predict(params.data(), out);
  return pr;
}

// Dense Gaussian computation over the observed sensors: -log N(b; a mu0 + c, S) with
// S = s0^2 a a' + diag(sigma^2), and the conditional law of Theta given b.
struct Dense {
  double nll, mean, variance;
};

Dense dense_row(const std::vector<double>& b, double mu0, double v0, const std::vector<double>& w,
                const std::vector<double>& a, const std::vector<double>& c) {
  std::vector<int> obs;
  for (std::size_t j = 0; j < b.size(); ++j)
    if (!std::isnan(b[j])) obs.push_back(static_cast<int>(j));
  const int k = static_cast<int>(obs.size());
  const double s2 = std::exp(v0);
  if (k == 0) return Dense{0.0, mu0, s2};
  Eigen::MatrixXd S(k, k);
  Eigen::VectorXd av(k), r(k);
  for (int u = 0; u < k; ++u) {
    av(u) = a[obs[u]];
    r(u) = b[obs[u]] - (a[obs[u]] * mu0 + c[obs[u]]);
  }
  S = s2 * av * av.transpose();
  for (int u = 0; u < k; ++u) S(u, u) += std::exp(w[obs[u]]);
  Eigen::LLT<Eigen::MatrixXd> llt(S);
  const Eigen::MatrixXd Lm = llt.matrixL();
  double logdet = 0;
  for (int u = 0; u < k; ++u) logdet += 2.0 * std::log(Lm(u, u));
  const Eigen::VectorXd Sr = llt.solve(r), Sa = llt.solve(av);
  Dense out;
  out.nll = 0.5 * (k * std::log(2.0 * M_PI) + logdet + r.dot(Sr));
  out.mean = mu0 + s2 * av.dot(Sr);              // E[Theta | b] = mu0 + Cov(Theta, b) S^-1 (b - m)
  out.variance = s2 - s2 * s2 * av.dot(Sa);      // Var(Theta) - Cov S^-1 Cov'
  return out;
}

bool close(double x, double y, double tol) { return std::fabs(x - y) <= tol * std::max(1.0, std::fabs(y)); }

// ---------------------------------------------------------------------------------------------

// loss_grad with an empty row set must not crash (run in a child process: a crash or a
// sanitizer report there is reported as a failure here instead of killing the run).
void test_empty_rows() {
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid == 0) {
    Data d = simulate(5, 0, 2, 1, 0.0);
    Model model(make_spec(0, 2, {}, 1));
    std::vector<double> params = generic_params(model, 1, 0.1), grad(model.n_params(), 1.0);
    Engine<double> engine(model, d.view(), 1);
    double nll = -1;
    engine.loss_grad(params.data(), nullptr, 0, grad.data(), &nll);
    bool ok = nll == 0.0;
    for (double g : grad) ok = ok && std::isfinite(g);
    std::_Exit(ok ? 0 : 3);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  const bool exited = WIFEXITED(status);
  const int code = exited ? WEXITSTATUS(status) : -1;
  check(exited && code == 0,
        "Engine::loss_grad with n_rows = 0 (engine.hpp reduce_chunks reads chunk_grads_[0] of an empty vector)",
        "(child exit code %g, signal %g)", code, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

// Gradient of row_nll with respect to the head outputs vs central differences, and row_nll
// and the closed-form posterior vs dense Gaussian algebra, on random heads and missing patterns.
void test_row_level() {
  std::mt19937_64 eng(2024);
  std::normal_distribution<double> norm(0.0, 1.0);
  std::uniform_real_distribution<double> unif(0.0, 1.0);
  const int L = 5;
  double worst_nll = 0, worst_mean = 0, worst_var = 0, worst_grad = 0;
  for (int rep = 0; rep < 200; ++rep) {
    std::vector<double> b(L), w(L), a(L), c(L);
    const double mu0 = norm(eng), v0 = 0.8 * norm(eng);
    for (int j = 0; j < L; ++j) {
      b[j] = unif(eng) < 0.3 ? kNaN : 2.0 * norm(eng);
      w[j] = 0.8 * norm(eng);
      a[j] = 0.2 + 1.5 * unif(eng);
      c[j] = 0.5 * norm(eng);
    }
    if (rep == 0) std::fill(b.begin(), b.end(), kNaN);
    if (rep == 1) std::fill(b.begin(), b.end() - 1, kNaN);
    RowPosterior post{};
    double g_mu0, g_v0;
    std::vector<double> g_w(L), g_a(L), g_c(L);
    const double nll = row_nll(L, b.data(), mu0, v0, w.data(), a.data(), c.data(), &post, &g_mu0, &g_v0,
                               g_w.data(), g_a.data(), g_c.data());
    const Dense dn = dense_row(b, mu0, v0, w, a, c);
    worst_nll = std::max(worst_nll, std::fabs(nll - dn.nll) / std::max(1.0, std::fabs(dn.nll)));
    worst_mean = std::max(worst_mean, std::fabs(post.mean - dn.mean) / std::max(1.0, std::fabs(dn.mean)));
    worst_var = std::max(worst_var, std::fabs(post.variance - dn.variance) / dn.variance);
    // Finite differences over every head output.
    auto f = [&](double dmu, double dv, int which, int j, double h) {
      std::vector<double> ww = w, aa = a, cc = c;
      if (which == 0) ww[j] += h;
      if (which == 1) aa[j] += h;
      if (which == 2) cc[j] += h;
      return row_nll(L, b.data(), mu0 + dmu, v0 + dv, ww.data(), aa.data(), cc.data(), nullptr);
    };
    const double h = 1e-5;
    auto fd = [&](double dmu, double dv, int which, int j) {
      return (f(dmu * h, dv * h, which, j, h) - f(-dmu * h, -dv * h, which, j, -h)) / (2 * h);
    };
    auto err = [&](double g, double ref) { return std::fabs(g - ref) / std::max(1.0, std::fabs(ref)); };
    worst_grad = std::max(worst_grad, err(g_mu0, fd(1, 0, -1, 0)));
    worst_grad = std::max(worst_grad, err(g_v0, fd(0, 1, -1, 0)));
    for (int j = 0; j < L; ++j) {
      worst_grad = std::max(worst_grad, err(g_w[j], fd(0, 0, 0, j)));
      worst_grad = std::max(worst_grad, err(g_a[j], fd(0, 0, 1, j)));
      worst_grad = std::max(worst_grad, err(g_c[j], fd(0, 0, 2, j)));
    }
    int n_obs = 0;
    for (double v : b) n_obs += !std::isnan(v);
    check(post.n_observed == n_obs, "row_nll n_observed");
  }
  check(worst_nll < 1e-10, "row_nll vs dense Cholesky NLL", "(max rel err %g)", worst_nll);
  check(worst_mean < 1e-10, "posterior mean vs dense conditioning", "(max rel err %g)", worst_mean);
  check(worst_var < 1e-10, "posterior variance vs dense conditioning", "(max rel err %g)", worst_var);
  check(worst_grad < 1e-7, "row_nll head-output gradient vs finite differences", "(max rel err %g)", worst_grad);
}

// Engine gradient (whole network, penalty, missing readings) vs central finite differences.
void fd_case(const Data& d, const ModelSpec& spec, std::uint64_t seed, const std::string& label) {
  Model model(spec);
  std::vector<double> params = generic_params(model, seed, 0.3);
  Engine<double> engine(model, d.view(), 1);
  // FD needs the raw log-variances away from the clamp: check the (clamped) heads are inside
  // (a sensor's noise relative to its level, where the clamp acts).
  const Predicted pr = predict(engine, params, d.n, d.L);
  bool inside = true;
  for (int i = 0; i < d.n; ++i)
    for (int k = 1; k < 2 + d.L; ++k) {
      const double v = pr.heads[i + static_cast<std::size_t>(k) * d.n] - (k >= 2 ? model.logvar_shift(k - 2) : 0.0);
      inside = inside && v > spec.logvar_min + 0.5 && v < spec.logvar_max - 0.5;
    }
  check(inside, label + ": log variances away from the clamp (FD precondition)");
  const std::vector<int> rows = all_rows(d.n);
  std::vector<double> grad(model.n_params()), scratch(model.n_params());
  engine.loss_grad(params.data(), rows.data(), d.n, grad.data());
  const double h = 1e-5;
  double worst = 0, largest = 0;
  std::size_t worst_k = 0;
  for (std::size_t k = 0; k < params.size(); ++k) {
    std::vector<double> pp = params, pm = params;
    pp[k] += h;
    pm[k] -= h;
    const double fp = engine.loss_grad(pp.data(), rows.data(), d.n, scratch.data());
    const double fm = engine.loss_grad(pm.data(), rows.data(), d.n, scratch.data());
    const double fd = (fp - fm) / (2 * h);
    const double e = std::fabs(grad[k] - fd) / std::max(1.0, std::fabs(fd));
    largest = std::max(largest, std::fabs(fd));
    if (e > worst) {
      worst = e;
      worst_k = k;
    }
  }
  check(worst < 1e-6, label + ": gradient vs finite differences", "(max rel err %g at param %g)", worst,
        static_cast<double>(worst_k));
  check(largest > 1e-3, label + ": gradient is not trivially zero");
}

void test_gradient_fd() {
  const Data d = simulate(30, 2, 3, 11, 0.15);
  const Data d0 = simulate(30, 0, 3, 12, 0.15);
  for (int param = 0; param < 3; ++param) {
    const std::string tag = "param " + std::to_string(param);
    fd_case(d, make_spec(2, 3, {4, 3}, param, 1), 21 + param, tag + ", hidden {4,3}");
    fd_case(d, make_spec(2, 3, {}, param, 2), 31 + param, tag + ", no hidden layer");
    fd_case(d0, make_spec(0, 3, {}, param), 41 + param, tag + ", p = 0, no hidden layer");
    fd_case(d0, make_spec(0, 3, {3}, param), 51 + param, tag + ", p = 0, hidden {3}");
  }
  // Sensors at other levels (a raw signal at 40 times the anchor's spread, one at 0.05), with
  // readings there: the gain, offset and noise heads are relative to the levels.
  const std::vector<double> gain = {0.05, 1.0, 40.0}, offset = {-7.0, 0.0, 12.5};
  const Data far = at_levels(d, gain, offset);
  fd_case(far, with_levels(make_spec(2, 3, {4, 3}, 0, 1), gain, offset), 71, "param 0, sensor levels");
  fd_case(far, with_levels(make_spec(2, 3, {4, 3}, 1), gain, offset), 72, "param 1, sensor levels");
}

// Engine per-row NLL and posterior (through the full network) vs dense computations from the
// returned head outputs; the objective's nll_sum and loss vs the per-row values.
void test_engine_dense() {
  for (int param = 0; param < 3; ++param) {
    const Data d = simulate(150, 2, 4, 60 + param, 0.2);
    const ModelSpec spec = make_spec(2, 4, {5, 3}, param, 3);
    Model model(spec);
    const std::vector<double> params = generic_params(model, 61, 0.5);
    Engine<double> engine(model, d.view(), 1);
    const Predicted pr = predict(engine, params, d.n, d.L);
    const int L = d.L;
    const std::size_t n = d.n;
    double worst_nll = 0, worst_mean = 0, worst_var = 0, sum_nll = 0, sum_loss = 0;
    bool anchor_ok = true;
    for (int i = 0; i < d.n; ++i) {
      auto H = [&](int k) { return pr.heads[i + k * n]; };
      std::vector<double> b(L), w(L), a(L), c(L);
      for (int j = 0; j < L; ++j) {
        b[j] = d.bw(i, j);
        w[j] = H(2 + j);
        a[j] = H(2 + L + j);
        c[j] = H(2 + 2 * L + j);
      }
      if (param == 0) anchor_ok = anchor_ok && a[3] == 1.0 && c[3] == 0.0;
      if (param == 2) for (int j = 0; j < L; ++j) anchor_ok = anchor_ok && a[j] == 1.0 && c[j] == 0.0;
      const Dense dn = dense_row(b, H(0), H(1), w, a, c);
      worst_nll = std::max(worst_nll, std::fabs(pr.nll[i] - dn.nll) / std::max(1.0, std::fabs(dn.nll)));
      worst_mean = std::max(worst_mean, std::fabs(pr.mean[i] - dn.mean) / std::max(1.0, std::fabs(dn.mean)));
      worst_var = std::max(worst_var, std::fabs(pr.variance[i] - dn.variance) / dn.variance);
      sum_nll += dn.nll;
      double pen = spec.lambda_prior * H(1) * H(1);
      for (int j = 0; j < L; ++j) pen += spec.lambda_sensor * w[j] * w[j];
      sum_loss += dn.nll + pen;
    }
    const std::string tag = "param " + std::to_string(param);
    check(anchor_ok, tag + ": anchor / no_bias heads have a = 1, c = 0");
    check(worst_nll < 1e-10, tag + ": engine NLL vs dense", "(max rel err %g)", worst_nll);
    check(worst_mean < 1e-10, tag + ": engine posterior mean vs dense", "(max rel err %g)", worst_mean);
    check(worst_var < 1e-10, tag + ": engine posterior variance vs dense", "(max rel err %g)", worst_var);
    check(pr.nll[1] == 0.0 && pr.n_obs[1] == 0 && pr.n_obs[2] == 1, tag + ": rows without / with one reading");
    const std::vector<int> rows = all_rows(d.n);
    std::vector<double> grad(model.n_params());
    double nll_sum = 0;
    const double loss = engine.loss_grad(params.data(), rows.data(), d.n, grad.data(), &nll_sum);
    check(close(nll_sum, sum_nll, 1e-10), tag + ": nll_sum vs dense sum", "(%g vs %g)", nll_sum, sum_nll);
    check(close(loss, sum_loss / d.n, 1e-10), tag + ": loss vs dense mean + penalty", "(%g vs %g)", loss,
          sum_loss / d.n);
    check(close(engine.nll_sum(params.data(), rows.data(), d.n), sum_nll, 1e-10), tag + ": Engine::nll_sum");
  }
}

// Sensor levels against the same weights without: each free sensor's gain is its level's gain
// times the plain gain, its offset the level's offset plus that gain times the plain offset, its
// noise log-variance 2 log(gain) above the plain one (the clamp acting on the plain one); the
// NLL through the network vs dense algebra from those heads; the penalty on the noise relative
// to the level. A spec whose levels are all gain 1 and offset 0 is the spec without them, bit
// for bit.
void test_sensor_levels() {
  const std::vector<double> gain = {40.0, 1.0, 0.05, 1000.0}, offset = {12.5, 0.0, -7.0, 300.0};
  for (int param = 0; param < 2; ++param) {
    const Data plain_data = simulate(150, 2, 4, 70 + param, 0.2);
    const Data d = at_levels(plain_data, gain, offset);
    const ModelSpec plain_spec = make_spec(2, 4, {5, 3}, param, 1, 0.2, 0.07);
    const ModelSpec spec = with_levels(plain_spec, gain, offset);
    Model plain_model(plain_spec), model(spec);
    // Wide weights, so that some raw log-variances lie beyond the clamp.
    const std::vector<double> params = generic_params(model, 73, 2.0);
    Engine<double> plain_engine(plain_model, d.view(), 1), engine(model, d.view(), 1);
    const Predicted plain = predict(plain_engine, params, d.n, d.L), pr = predict(engine, params, d.n, d.L);
    const int L = d.L;
    const std::size_t n = d.n;
    double worst_head = 0, worst_nll = 0, sum_loss = 0;
    bool some_clamped = false;
    for (int i = 0; i < d.n; ++i) {
      auto P = [&](int k) { return plain.heads[i + k * n]; };
      auto H = [&](int k) { return pr.heads[i + k * n]; };
      std::vector<double> b(L), w(L), a(L), c(L);
      double penalty = plain_spec.lambda_prior * H(1) * H(1);
      for (int j = 0; j < L; ++j) {
        const bool is_free = model.free_index(j) >= 0;
        const double g = is_free ? gain[j] : 1.0, o = is_free ? offset[j] : 0.0;
        b[j] = d.bw(i, j);
        w[j] = H(2 + j);
        a[j] = H(2 + L + j);
        c[j] = H(2 + 2 * L + j);
        worst_head = std::max(worst_head, std::fabs(w[j] - (P(2 + j) + 2.0 * std::log(g))));
        worst_head = std::max(worst_head, std::fabs(a[j] - g * P(2 + L + j)) / g);
        worst_head = std::max(worst_head, std::fabs(c[j] - (o + g * P(2 + 2 * L + j))) / g);
        some_clamped = some_clamped || P(2 + j) == plain_spec.logvar_max || P(2 + j) == plain_spec.logvar_min;
        penalty += plain_spec.lambda_sensor * std::pow(P(2 + j), 2);
      }
      const Dense dn = dense_row(b, H(0), H(1), w, a, c);
      worst_nll = std::max(worst_nll, std::fabs(pr.nll[i] - dn.nll) / std::max(1.0, std::fabs(dn.nll)));
      sum_loss += dn.nll + penalty;
    }
    const std::string tag = "sensor levels, param " + std::to_string(param);
    check(some_clamped, tag + ": some raw noise log-variances at the clamp (test precondition)");
    check(worst_head < 1e-12, tag + ": heads = the level's map of the plain heads", "(max err %g)", worst_head);
    // The dense Cholesky of a covariance whose entries lie 1e6 apart (gain 1000 beside 1)
    // keeps fewer digits than the engine's rank-one algebra.
    check(worst_nll < 1e-8, tag + ": engine NLL vs dense", "(max rel err %g)", worst_nll);
    const std::vector<int> rows = all_rows(d.n);
    std::vector<double> grad(model.n_params());
    const double loss = engine.loss_grad(params.data(), rows.data(), d.n, grad.data());
    check(close(loss, sum_loss / d.n, 1e-8), tag + ": loss vs dense mean + penalty on the relative noise",
          "(%g vs %g)", loss, sum_loss / d.n);
    // Levels of gain 1 and offset 0 are no levels at all.
    const ModelSpec unit_spec = with_levels(plain_spec, std::vector<double>(L, 1.0), std::vector<double>(L, 0.0));
    Model unit_model(unit_spec);
    Engine<double> unit_engine(unit_model, d.view(), 1);
    const Predicted unit = predict(unit_engine, params, d.n, d.L);
    std::vector<double> unit_grad(model.n_params()), plain_grad(model.n_params());
    const double unit_loss = unit_engine.loss_grad(params.data(), rows.data(), d.n, unit_grad.data());
    const double plain_loss = plain_engine.loss_grad(params.data(), rows.data(), d.n, plain_grad.data());
    check(unit.heads == plain.heads && unit.nll == plain.nll && unit.mean == plain.mean &&
              unit_loss == plain_loss && unit_grad == plain_grad,
          tag + ": gain 1 and offset 0 give exactly the results of a spec without levels");
  }
  // A fixed sensor (the anchor, every sensor of no_bias) has no level; levels must be usable.
  auto refused = [](const ModelSpec& s) {
    try {
      Model m(s);
    } catch (const std::invalid_argument&) {
      return true;
    }
    return false;
  };
  ModelSpec anchored = make_spec(2, 3, {4}, 0, 1);
  anchored.sensor_gain = {2.0, 2.0, 1.0};
  anchored.sensor_offset = {0.0, 0.0, 0.0};
  check(refused(anchored), "a level on the anchor is refused");
  ModelSpec no_bias = make_spec(2, 3, {4}, 2);
  no_bias.sensor_gain = {1.0, 1.0, 1.0};
  no_bias.sensor_offset = {0.0, 3.0, 0.0};
  check(refused(no_bias), "a level on a no_bias sensor is refused");
  ModelSpec bad = make_spec(2, 3, {4}, 1);
  bad.sensor_gain = {1.0, 0.0, 1.0};
  bad.sensor_offset = {0.0, 0.0, 0.0};
  check(refused(bad), "a gain of 0 is refused");
  bad.sensor_gain = {1.0, 2.0};
  bad.sensor_offset = {0.0, 0.0};
  check(refused(bad), "levels for too few sensors are refused");
  bad.sensor_gain = {1.0, 2.0, 1.0};
  bad.sensor_offset = {0.0, std::numeric_limits<double>::infinity(), 0.0};
  check(refused(bad), "an infinite offset is refused");
}

// The engine's report of the noise log-variances at the clamp (PosteriorOut::noise_clamp)
// on a network without hidden layers, whose raw noise log-variance for sensor j is
// W_j x' + B_j: rows placed below, inside, on and beyond the clamp [-5, 4]. The clamp acts
// relative to each sensor's level, so a sensor at gain 1000 (noise 2 log 1000 above the
// anchor's) reports by its raw value, not by its absolute log-variance.
template <typename T>
void noise_clamp_case(const char* prec) {
  const int L = 3;
  const std::vector<double> gain = {1.0, 1000.0, 0.05};
  const ModelSpec spec = with_levels(make_spec(1, L, {}, 1), gain, std::vector<double>(L, 0.0));
  Model model(spec);
  // Working-scale covariate x' = (x - 3) / 2 (Data::view()); the last row lacks it.
  const std::vector<double> x_working = {-2.0, -1.0, 0.0, 1.0, 2.0, 2.5, kNaN};
  Data d;
  d.n = static_cast<int>(x_working.size());
  d.p = 1;
  d.L = L;
  for (double v : x_working) d.x.push_back(3.0 + 2.0 * v);
  d.b.assign(static_cast<std::size_t>(d.n) * L, 10.0);
  std::vector<T> params(model.n_params(), T(0));
  const MlpLayout& rel = model.reliability();
  const double slope[L] = {2.0, -3.0, 0.0}, intercept[L] = {0.0, 0.0, -5.5};
  for (int j = 0; j < L; ++j) {
    params[rel.w_offset[0] + j] = static_cast<T>(slope[j]);
    params[rel.b_offset[0] + j] = static_cast<T>(intercept[j]);
  }
  // Raw values: sensor 0 (-4, -2, 0, 2, 4, 5), sensor 1 (6, 3, 0, -3, -6, -7.5), sensor 2 all
  // -5.5; 4 lies on the bound, which the clamp leaves as it is.
  const int expected[L][7] = {{0, 0, 0, 0, 0, 1, 0}, {1, 0, 0, 0, -1, -1, 0}, {-1, -1, -1, -1, -1, -1, 0}};
  const std::size_t n = d.n;
  std::vector<double> mean(n), variance(n), nll(n), heads(n * (2 + 3 * L));
  std::vector<int> n_obs(n), clamp(n * L, 7);
  Engine<T> engine(model, d.view(), 1);
  engine.predict(params.data(), PosteriorOut{mean.data(), variance.data(), n_obs.data(), nll.data(), heads.data(),
                                             clamp.data()});
  bool as_expected = true, at_bound = true;
  for (int j = 0; j < L; ++j)
    for (std::size_t i = 0; i < n; ++i) {
      const int side = clamp[i + j * n];
      as_expected = as_expected && side == expected[j][i];
      if (side == 0) continue;
      // Where the report says clamped, the noise head (working scale) is the bound at the level.
      const double bound = side < 0 ? spec.logvar_min : spec.logvar_max;
      at_bound = at_bound && close(heads[i + (2 + j) * n], bound + 2.0 * std::log(gain[j]), 1e-12);
    }
  const std::string tag = std::string("noise clamp report (") + prec + ")";
  check(as_expected, tag + ": rows below, inside, on and beyond the clamp, relative to the sensor's level");
  check(at_bound, tag + ": the noise head of a reported row sits at the bound");
  check(heads[1 + 3 * n] > spec.logvar_max, tag + ": gain 1000 puts an unclamped noise above logvar_max (test precondition)");
  // Without head outputs the report is the same.
  std::vector<int> alone(n * L, 7);
  engine.predict(params.data(), PosteriorOut{mean.data(), variance.data(), n_obs.data(), nll.data(), nullptr,
                                             alone.data()});
  check(alone == clamp, tag + ": the same report without head outputs");
}

void test_noise_clamp() {
  noise_clamp_case<double>("double");
  noise_clamp_case<float>("float");
}

// PosteriorOut's outputs for a caller that needs one sensor's noise and not every head (a
// prediction interval, the anchor's): the posterior as with every head, the noise column that
// of the full head outputs, and `heads_finite` 0 exactly where a head output, or the exp() of
// a log-variance, is not finite, also where the posterior is finite.
template <typename T>
void one_noise_case(const char* prec) {
  const std::string tag = std::string("one sensor's noise (") + prec + ")";
  const int L = 3, noise_sensor = 1;
  const HeadColumns col{L};
  struct Outputs {
    std::vector<double> mean, variance, nll, noise, heads;
    std::vector<int> n_obs, finite;
    explicit Outputs(std::size_t n, std::size_t n_heads)
        : mean(n), variance(n), nll(n), noise(n), heads(n * n_heads), n_obs(n), finite(n, 7) {}
  };
  // Every head, and the posterior with the one noise and the flags alone.
  auto run = [&](Engine<T>& engine, const std::vector<T>& params, std::size_t n, bool units, Outputs& all,
                 Outputs& one) {
    engine.predict(params.data(), PosteriorOut{all.mean.data(), all.variance.data(), all.n_obs.data(),
                                               all.nll.data(), all.heads.data()}, units);
    PosteriorOut out{one.mean.data(), one.variance.data(), one.n_obs.data(), one.nll.data()};
    out.noise_log_variance = one.noise.data();
    out.noise_sensor = noise_sensor;
    out.heads_finite = one.finite.data();
    engine.predict(params.data(), out, units);
  };
  auto same = [](const std::vector<double>& x, const std::vector<double>& y) {
    return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(double)) == 0;
  };
  // A generic network on simulated rows, one of them without its covariate (row 5).
  Data d = simulate(300, 2, L, 90, 0.2);
  d.x[5] = kNaN;
  const ModelSpec spec = make_spec(2, L, {6}, 0, 1);
  Model model(spec);
  const std::vector<double> pd = generic_params(model, 91, 0.3);
  const std::vector<T> params(pd.begin(), pd.end());
  Engine<T> engine(model, d.view(), 2);
  const std::size_t n = d.n;
  for (bool units : {false, true}) {
    Outputs all(n, col.count()), one(n, col.count());
    run(engine, params, n, units, all, one);
    const std::string at = tag + (units ? ", model units" : ", working scale");
    check(same(one.mean, all.mean) && same(one.variance, all.variance) && same(one.nll, all.nll) &&
              one.n_obs == all.n_obs,
          at + ": the posterior as with every head");
    const std::vector<double> column(all.heads.begin() + col.noise_log_variance(noise_sensor) * n,
                                     all.heads.begin() + (col.noise_log_variance(noise_sensor) + 1) * n);
    check(same(one.noise, column), at + ": the noise is that column of the head outputs");
    bool flags = true;
    for (std::size_t i = 0; i < n; ++i) {
      bool finite = true;
      for (int k = 0; k < col.count(); ++k) {
        const double v = all.heads[i + k * n];
        const bool log_variance = k == col.prior_log_variance() || (k >= col.noise_log_variance(0) && k < col.gain(0));
        finite = finite && std::isfinite(log_variance ? std::exp(v) : v);
      }
      flags = flags && one.finite[i] == static_cast<int>(finite) && one.finite[i] == (i != 5);
    }
    check(flags, at + ": every row flagged finite but the one without its covariate");
  }
  // No hidden layer; x' = (x - 3) / 2. Sensor 1's raw gain is the largest T times x': at x' = 10
  // it overflows, at x' = 0 it is 0. Row 0 (x' = 10) lacks sensor 1's reading, so its posterior
  // is finite; row 1 (x' = 0) is finite throughout; row 2 lacks its covariate.
  Data e;
  e.n = 3;
  e.p = 1;
  e.L = L;
  e.x = {23.0, 3.0, kNaN};
  e.b = {10.0, 11.0, 10.0, kNaN, 11.0, 11.0, 12.0, 12.0, 12.0};
  ModelSpec plain = make_spec(1, L, {}, 0, 0);
  for (int overflow_noise = 0; overflow_noise < 2; ++overflow_noise) {
    // Then also sensor 2's noise log-variance at 750, inside a clamp widened to 800, which exp()
    // takes beyond the largest double on every row.
    ModelSpec s = plain;
    if (overflow_noise) s.logvar_max = 800.0;
    Model m(s);
    std::vector<T> p(m.n_params(), T(0));
    p[m.bias().w_offset[0] + m.free_index(1)] = std::numeric_limits<T>::max();
    if (overflow_noise) p[m.reliability().b_offset[0] + 2] = T(750);
    Engine<T> small(m, e.view(), 1);
    Outputs all(3, col.count()), one(3, col.count());
    run(small, p, 3, true, all, one);
    const std::string at = tag + (overflow_noise ? ", a noise variance beyond the largest double" : ", a gain that overflows");
    check(std::isfinite(one.mean[0]) && std::isfinite(one.variance[0]) && std::isfinite(one.mean[1]),
          at + ": the posterior is finite (test precondition)");
    check(!std::isfinite(all.heads[0 + col.gain(1) * 3]) && std::isfinite(all.heads[1 + col.gain(1) * 3]),
          at + ": the gain overflows at x' = 10 only (test precondition)");
    const std::vector<int> expected = {0, overflow_noise ? 0 : 1, 0};
    check(one.finite == expected, at + ": rows flagged as their heads are");
  }
  // A sensor the model does not have is refused.
  Outputs unused(n, 0);
  PosteriorOut bad{unused.mean.data(), unused.variance.data(), unused.n_obs.data(), unused.nll.data()};
  bad.noise_log_variance = unused.noise.data();
  bad.noise_sensor = L;
  bool refused = false;
  try {
    engine.predict(params.data(), bad);
  } catch (const std::invalid_argument&) {
    refused = true;
  }
  check(refused, tag + ": a sensor out of range is refused");
}

void test_one_noise() {
  one_noise_case<double>("double");
  one_noise_case<float>("float");
}

// PosteriorOut::disagreement against a dense two-pass computation from the returned heads (the
// readings on Theta's scale, z_j = (b_j - c_j) / a_j, their precision-weighted mean, then
// Q = sum (z_j - zbar)^2 a_j^2 / sigma_j^2 over k - 1), on rows with 0 to L readings and at
// sensor levels far from the anchor's; the same in model units as in the working scale; NaN
// for fewer than two readings and for a row without its covariate; the other outputs bit for
// bit as without it; the same for every thread count.
template <typename T>
void disagreement_case(const char* prec) {
  const std::string tag = std::string("disagreement (") + prec + ")";
  const int L = 4;
  const HeadColumns col{L};
  const std::vector<double> gain = {1.0, 40.0, 0.05, 3.0}, offset = {0.0, 12.5, -7.0, 1.0};
  Data d = at_levels(simulate(700, 2, L, 123, 0.3), gain, offset);
  d.x[7] = kNaN;  // row 7 without its covariate
  for (int j = 0; j < L; ++j) d.b[3 + static_cast<std::size_t>(j) * d.n] = j < 2 ? 11.0 + j : kNaN;  // two readings
  const ModelSpec spec = with_levels(make_spec(2, L, {6}, 0, 0), gain, offset);
  Model model(spec);
  const std::vector<double> pd = generic_params(model, 124, 0.3);
  const std::vector<T> params(pd.begin(), pd.end());
  const std::size_t n = d.n;
  auto run = [&](int threads, bool units, bool with_q, Predicted& pr, std::vector<double>& q) {
    Engine<T> engine(model, d.view(), threads);
    pr.mean.assign(n, 0);
    pr.variance.assign(n, 0);
    pr.nll.assign(n, 0);
    pr.n_obs.assign(n, 0);
    pr.heads.assign(n * col.count(), 0);
    q.assign(n, -1.0);
    PosteriorOut out{pr.mean.data(), pr.variance.data(), pr.n_obs.data(), pr.nll.data(), pr.heads.data()};
    if (with_q) out.disagreement = q.data();
    engine.predict(params.data(), out, units);
  };
  Predicted working, units, plain, threaded;
  std::vector<double> q_working, q_units, q_none, q_threaded;
  run(1, false, true, working, q_working);
  run(1, true, true, units, q_units);
  run(1, true, false, plain, q_none);
  run(3, false, true, threaded, q_threaded);
  double worst = 0, worst_units = 0;
  bool nan_ok = true, counted[L + 1] = {false};
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<double> z, v;
    for (int j = 0; j < L; ++j) {
      const double b = d.bw(static_cast<int>(i), j);
      if (std::isnan(b)) continue;
      const double a = working.heads[i + col.gain(j) * n], c = working.heads[i + col.offset(j) * n];
      z.push_back((b - c) / a);
      v.push_back(std::exp(working.heads[i + col.noise_log_variance(j) * n]) / (a * a));
    }
    const int k = static_cast<int>(z.size());
    if (i == 7 || k < 2) {
      nan_ok = nan_ok && std::isnan(q_working[i]) && std::isnan(q_units[i]);
      if (i != 7) counted[k] = true;
      continue;
    }
    counted[k] = true;
    double sw = 0, swz = 0;
    for (int u = 0; u < k; ++u) {
      sw += 1 / v[u];
      swz += z[u] / v[u];
    }
    const double zbar = swz / sw;
    double q = 0;
    for (int u = 0; u < k; ++u) q += (z[u] - zbar) * (z[u] - zbar) / v[u];
    q /= k - 1;
    worst = std::max(worst, std::fabs(q_working[i] - q) / std::max(1.0, q));
    worst_units = std::max(worst_units, std::fabs(q_units[i] - q_working[i]) / std::max(1.0, q));
  }
  check(counted[0] && counted[1] && counted[2] && counted[3] && counted[4], tag + ": rows with 0 to 4 readings (test precondition)");
  check(worst < 1e-10, tag + ": Q / (k - 1) vs dense two-pass", "(max rel err %g)", worst);
  check(worst_units < 1e-9, tag + ": the same in model units", "(max rel err %g)", worst_units);
  check(nan_ok, tag + ": NaN for fewer than two readings and without the covariate");
  auto same = [](const std::vector<double>& x, const std::vector<double>& y) {
    return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(double)) == 0;
  };
  check(same(units.mean, plain.mean) && same(units.variance, plain.variance) && same(units.nll, plain.nll) &&
            same(units.heads, plain.heads) && units.n_obs == plain.n_obs,
        tag + ": the other outputs as without it");
  check(same(q_working, q_threaded), tag + ": the same for 1 and 3 threads");
}

void test_disagreement() {
  disagreement_case<double>("double");
  disagreement_case<float>("float");
}

// Identical results for 1, 2 and 3 threads over many chunks (fixed reduction order).
template <typename T>
void thread_case(const char* prec) {
  const Data d = simulate(1000, 3, 3, 70, 0.1);
  const ModelSpec spec = make_spec(3, 3, {6, 4}, 0);
  Model model(spec);
  const std::vector<double> pd = generic_params(model, 71, 0.3);
  const std::vector<T> params(pd.begin(), pd.end());
  std::mt19937_64 eng(72);
  std::vector<int> rows(900);
  for (auto& r : rows) r = static_cast<int>(eng() % 1000);
  std::vector<std::vector<T>> grads;
  std::vector<double> losses, nlls;
  std::vector<Predicted> preds;
  for (int threads : {1, 2, 3}) {
    Engine<T> engine(model, d.view(), threads);
    std::vector<T> g(model.n_params());
    double nll = 0;
    losses.push_back(engine.loss_grad(params.data(), rows.data(), static_cast<int>(rows.size()), g.data(), &nll));
    // A second call on the same engine (reused buffers) must give the same answer.
    std::vector<T> g2(model.n_params());
    engine.loss_grad(params.data(), rows.data(), static_cast<int>(rows.size()), g2.data());
    check(std::memcmp(g.data(), g2.data(), g.size() * sizeof(T)) == 0,
          std::string(prec) + ": repeated loss_grad identical");
    grads.push_back(g);
    nlls.push_back(nll);
    preds.push_back(predict(engine, params, d.n, d.L));
  }
  for (int t = 1; t < 3; ++t) {
    const std::string tag = std::string(prec) + ", " + std::to_string(t + 1) + " threads vs 1";
    check(losses[t] == losses[0] && nlls[t] == nlls[0], tag + ": identical loss", "(%.17g vs %.17g)", losses[t],
          losses[0]);
    check(std::memcmp(grads[t].data(), grads[0].data(), grads[0].size() * sizeof(T)) == 0,
          tag + ": identical gradient");
    check(std::memcmp(preds[t].mean.data(), preds[0].mean.data(), d.n * sizeof(double)) == 0 &&
              std::memcmp(preds[t].nll.data(), preds[0].nll.data(), d.n * sizeof(double)) == 0 &&
              std::memcmp(preds[t].heads.data(), preds[0].heads.data(), preds[0].heads.size() * sizeof(double)) == 0,
          tag + ": identical predictions");
  }
}

// The thread chooser on a simulated machine: batches of 256 rows whose time per row depends
// on the thread count and on whether another process holds a core.
struct SimulatedMachine {
  double seconds_per_row_one = 1e-5;
  double seconds_per_row_two = 0.6e-5;
  // Runs `batches` batches through the chooser; returns how many ran at 1 thread.
  int run(ThreadChooser& chooser, int batches) const {
    int at_one = 0;
    for (int b = 0; b < batches; ++b) {
      const int k = chooser.threads();
      at_one += k == 1;
      chooser.record(256, 256 * (k == 1 ? seconds_per_row_one : seconds_per_row_two));
    }
    return at_one;
  }
};

void test_thread_chooser() {
  const int per_segment = static_cast<int>(std::ceil(ThreadChooser::kSegmentSeconds / (256 * 0.6e-5)));
  // Idle machine: 2 threads faster; one probe at 1 thread, then probes at doubling intervals.
  {
    ThreadChooser chooser(2, true);
    SimulatedMachine idle;
    check(chooser.threads() == 2, "chooser: starts at the threads asked for");
    const int batches = 2000 * per_segment;
    const int at_one = idle.run(chooser, batches);
    check(chooser.chosen() == 2 && chooser.switches() == 0, "chooser: keeps 2 threads on an idle machine");
    check(chooser.probes() >= 3 && chooser.probes() <= 20, "chooser: probes at doubling intervals", "(%g probes)",
          chooser.probes());
    check(at_one < 0.02 * batches, "chooser: probes take under 2 % of the batches", "(%g of %g at 1 thread)", at_one,
          batches);
  }
  // Another process on a core: 2 threads three times slower; the chooser goes to 1 at the
  // first probe and stays there, and goes back to 2 when the load ends.
  {
    ThreadChooser chooser(2, true);
    SimulatedMachine busy;
    busy.seconds_per_row_two = 3e-5;
    busy.run(chooser, 3 * per_segment);
    check(chooser.chosen() == 1, "chooser: switches to 1 thread under load at the first probe");
    const int batches = 2000 * per_segment;
    const int at_one = busy.run(chooser, batches);
    check(chooser.chosen() == 1 && chooser.switches() == 1, "chooser: stays at 1 thread under load");
    check(at_one > 0.97 * batches, "chooser: under load, over 97 % of batches at 1 thread", "(%g of %g)", at_one,
          batches);
    SimulatedMachine idle;
    idle.run(chooser, (ThreadChooser::kMaxInterval + 3) * 2 * per_segment);
    check(chooser.chosen() == 2 && chooser.switches() == 2, "chooser: back to 2 threads when the load ends");
  }
  // Short batches add up to a segment before anything is decided.
  {
    ThreadChooser chooser(2, true);
    for (int b = 0; b < per_segment - 1; ++b) chooser.record(256, 256 * 0.6e-5 / 2);
    check(chooser.threads() == 2 && chooser.probes() == 0, "chooser: no decision within a segment");
  }
  // Fixed counts: adaptation off, or one thread asked for.
  {
    ThreadChooser off(2, false), one(1, true);
    SimulatedMachine busy;
    busy.seconds_per_row_two = 3e-5;
    busy.run(off, 100 * per_segment);
    busy.run(one, 100 * per_segment);
    check(off.threads() == 2 && off.probes() == 0, "chooser: adapt_threads = false keeps the count");
    check(one.threads() == 1 && one.probes() == 0, "chooser: one thread asked, one thread used");
  }
}

void test_threads() {
#ifndef _OPENMP
  std::printf("note: built without OpenMP, thread invariance is trivial\n");
#endif
  thread_case<double>("double");
  thread_case<float>("float");
}

// float engine vs double engine.
void test_float() {
  const Data d = simulate(300, 3, 4, 80, 0.15);
  for (int param = 0; param < 3; ++param) {
    Model model(make_spec(3, 4, {8, 8}, param));
    const std::vector<double> pd = generic_params(model, 81, 0.3);
    const std::vector<float> pf(pd.begin(), pd.end());
    const std::vector<int> rows = all_rows(d.n);
    Engine<double> ed(model, d.view(), 1);
    Engine<float> ef(model, d.view(), 1);
    std::vector<double> gd(model.n_params());
    std::vector<float> gf(model.n_params());
    const double ld = ed.loss_grad(pd.data(), rows.data(), d.n, gd.data());
    const double lf = ef.loss_grad(pf.data(), rows.data(), d.n, gf.data());
    double dot = 0, nd = 0, nf = 0;
    for (std::size_t k = 0; k < gd.size(); ++k) {
      dot += gd[k] * gf[k];
      nd += gd[k] * gd[k];
      nf += static_cast<double>(gf[k]) * gf[k];
    }
    const double cosine = dot / std::sqrt(nd * nf);
    const std::string tag = "float vs double, param " + std::to_string(param);
    check(std::fabs(lf - ld) <= 1e-4 * std::fabs(ld), tag + ": loss", "(%.10g vs %.10g)", lf, ld);
    check(cosine > 0.9999, tag + ": gradient cosine", "(%g)", cosine);
  }
}

// The float GELU (vectorised erf approximation) vs the double GELU (std::erfc) and vs a
// direct evaluation of x Phi(x) and Phi(x) + x phi(x).
void test_gelu() {
  const int m = 4001;
  Eigen::MatrixXd zd(1, m), od(1, m), dd(1, m);
  Eigen::MatrixXf zf(1, m), of(1, m), df(1, m);
  for (int k = 0; k < m; ++k) {
    zd(0, k) = -10.0 + 20.0 * k / (m - 1);
    zf(0, k) = static_cast<float>(zd(0, k));
  }
  // A bias with a period (3) that no packet width divides: element k gets bias[k % 3].
  const double bias_d[3] = {0.5, -0.25, 0.0};
  const float bias_f[3] = {0.5f, -0.25f, 0.0f};
  std::vector<double> cycle_d(3 + kBiasCycleSlack);
  std::vector<float> cycle_f(3 + kBiasCycleSlack);
  fill_bias_cycle(bias_d, 3, cycle_d.data());
  fill_bias_cycle(bias_f, 3, cycle_f.data());
  gelu_forward(zd.data(), cycle_d.data(), 3, m, od.data(), dd.data());
  gelu_forward(zf.data(), cycle_f.data(), 3, m, of.data(), df.data());
  double worst_d = 0, worst_f = 0;
  for (int k = 0; k < m; ++k) {
    zd(0, k) += bias_d[k % 3];
    zf(0, k) += bias_f[k % 3];
    const double x = zd(0, k);
    const double cdf = 0.5 * (1.0 + std::erf(x / std::sqrt(2.0)));
    const double dens = std::exp(-0.5 * x * x) / std::sqrt(2.0 * M_PI);
    worst_d = std::max({worst_d, std::fabs(od(0, k) - x * cdf), std::fabs(dd(0, k) - (cdf + x * dens))});
    const double xf = zf(0, k);
    const double cdff = 0.5 * (1.0 + std::erf(xf / std::sqrt(2.0)));
    const double densf = std::exp(-0.5 * xf * xf) / std::sqrt(2.0 * M_PI);
    worst_f = std::max({worst_f, std::fabs(of(0, k) - xf * cdff) / std::max(1.0, std::fabs(xf)),
                        std::fabs(df(0, k) - (cdff + xf * densf))});
  }
  check(worst_d < 1e-14, "double GELU vs x Phi(x)", "(max err %g)", worst_d);
  check(worst_f < 2e-6, "float GELU vs x Phi(x)", "(max err %g)", worst_f);

  // The double GELU's Phi over a wide range, in packets and in the scalar tail (sizes that
  // leave a remainder): Phi within 4e-15 of std::erfc's, and for x < 0 the tail Phi(x)
  // itself within 1e-12 relative down to 1e-300.
  const int n = 200001;
  std::vector<double> x(n), o(n), d(n), zero_bias(1 + kBiasCycleSlack, 0.0);
  for (int k = 0; k < n; ++k) x[k] = -37.0 + 74.0 * k / (n - 1);
  gelu_forward(x.data(), zero_bias.data(), 1, n, o.data(), d.data());
  double worst_abs = 0, worst_rel = 0;
  for (int k = 0; k < n; ++k) {
    const double cdf = 0.5 * std::erfc(-x[k] / std::sqrt(2.0));
    const double dens = std::exp(-0.5 * x[k] * x[k]) / std::sqrt(2.0 * M_PI);
    const double cdf_engine = d[k] - x[k] * dens;  // deriv = Phi + x phi
    worst_abs = std::max({worst_abs, std::fabs(o[k] - x[k] * cdf) / std::max(1.0, std::fabs(x[k])),
                          std::fabs(cdf_engine - cdf)});
    if (x[k] < -1 && cdf > 1e-300) worst_rel = std::max(worst_rel, std::fabs(o[k] / (x[k] * cdf) - 1));
  }
  check(worst_abs < 4e-15, "double GELU Phi on [-37, 37] vs std::erfc", "(max err %g)", worst_abs);
  check(worst_rel < 1e-12, "double GELU tail x Phi(x), x < -1, relative", "(max rel err %g)", worst_rel);
}

// The trainer lowers the NLL on simulated data, deterministically for a seed.
template <typename T>
void trainer_case(const char* prec) {
  const Data d = simulate(600, 2, 3, 90, 0.1);
  const ModelSpec spec = make_spec(2, 3, {8}, 0, 0, 0.01, 0.01);
  AdamOptions opt;
  opt.learn_rate = 1e-2;
  opt.batch_size = 64;
  opt.clip_norm = 10.0;
  std::vector<int> rows = all_rows(d.n);
  Trainer<T> trainer(spec, d.view(), rows, opt, 5, 2);
  const double before = trainer.engine().nll_sum(trainer.params().data(), rows.data(), d.n) / d.n;
  std::vector<double> epoch_loss;
  bool finite = true;
  for (int e = 0; e < 15; ++e) {
    const EpochResult r = trainer.epoch(nullptr);
    finite = finite && r.finite && !r.interrupted;
    epoch_loss.push_back(r.train_loss);
  }
  const double after = trainer.engine().nll_sum(trainer.params().data(), rows.data(), d.n) / d.n;
  const std::string tag = std::string("trainer (") + prec + ")";
  check(finite, tag + ": epochs finite");
  check(after < before - 0.1, tag + ": NLL decreases", "(%g -> %g)", before, after);
  check(epoch_loss.back() < epoch_loss.front(), tag + ": epoch loss decreases", "(%g -> %g)", epoch_loss.front(),
        epoch_loss.back());
  // Determinism: a second trainer with the same seed (and a different thread count) matches.
  Trainer<T> again(spec, d.view(), rows, opt, 5, 1);
  for (int e = 0; e < 15; ++e) again.epoch(nullptr);
  check(std::memcmp(again.params().data(), trainer.params().data(), trainer.params().size() * sizeof(T)) == 0,
        tag + ": same seed gives the same parameters (1 vs 2 threads)");
}

void test_trainer() {
  trainer_case<double>("double");
  trainer_case<float>("float");
}

// Initialisation: PyTorch bounds, output biases give mu0 = 0, a = 1, c = 0.
void test_init() {
  for (int param = 0; param < 3; ++param) {
    Model model(make_spec(3, 4, {6, 5}, param, 2));
    std::vector<double> p(model.n_params()), q(model.n_params()), r(model.n_params());
    Rng r1(9), r2(9), r3(10);
    model.initialise(p.data(), r1);
    model.initialise(q.data(), r2);
    model.initialise(r.data(), r3);
    check(p == q && p != r, "init deterministic per seed, param " + std::to_string(param));
    bool bounds = true;
    const MlpLayout* heads[3] = {&model.prior(), &model.reliability(), &model.bias()};
    const int n_heads = model.has_bias_head() ? 3 : 2;
    for (int h = 0; h < n_heads; ++h) {
      const MlpLayout& l = *heads[h];
      for (int k = 0; k < l.n_layers(); ++k) {
        const double bound = 1.0 / std::sqrt(static_cast<double>(l.widths[k]));
        for (std::size_t u = 0; u < static_cast<std::size_t>(l.widths[k + 1]) * l.widths[k]; ++u)
          bounds = bounds && std::fabs(p[l.w_offset[k] + u]) <= bound;
      }
    }
    check(bounds, "init weights within 1/sqrt(fan_in), param " + std::to_string(param));
    const int last = model.prior().n_layers() - 1;
    bool outs = p[model.prior().b_offset[last]] == 0.0;
    for (int f = 0; f < model.n_free(); ++f) {
      outs = outs && std::fabs(std::log1p(std::exp(static_cast<double>(p[model.bias().b_offset[last] + f]))) - 1.0) < 1e-15;
      outs = outs && p[model.bias().b_offset[last] + model.n_free() + f] == 0.0;
    }
    check(outs, "init output biases (mu0 = 0, a = 1, c = 0), param " + std::to_string(param));
  }
}

}  // namespace

// A constant anchor noise (ModelSpec::constant_anchor_noise): the weights into the anchor's
// noise output are 0 at initialisation and after training, that output is the same on every
// row, and the gradient is the plain model's (checked against finite differences above) with
// those weights' entries set to 0.
void test_constant_anchor_noise() {
  const Data d = simulate(200, 2, 3, 95, 0.15);
  const int anchor = 1;
  const ModelSpec plain = make_spec(2, 3, {6, 4}, 0, anchor, 0.01, 0.01);
  ModelSpec held = plain;
  held.constant_anchor_noise = true;
  const Model plain_model(plain), held_model(held);
  const MlpLayout& rel = held_model.reliability();
  const int last = rel.n_layers() - 1, n_out = rel.widths[last + 1], n_in = rel.widths[last];
  std::vector<bool> is_held(held_model.n_params(), false);
  for (int col = 0; col < n_in; ++col) is_held[rel.w_offset[last] + anchor + static_cast<std::size_t>(col) * n_out] = true;

  std::vector<double> p_plain(plain_model.n_params()), p_held(held_model.n_params());
  Rng r1(7), r2(7);
  plain_model.initialise(p_plain.data(), r1);
  held_model.initialise(p_held.data(), r2);
  bool init_ok = true;
  for (std::size_t k = 0; k < p_held.size(); ++k)
    init_ok = init_ok && (is_held[k] ? p_held[k] == 0.0 && p_plain[k] != 0.0 : p_held[k] == p_plain[k]);
  check(init_ok, "constant anchor noise: held weights 0 at init, every other parameter as without it");

  std::vector<double> params = generic_params(held_model, 97, 0.3);
  held_model.hold_constant_outputs(params.data());
  Engine<double> held_engine(held_model, d.view(), 1), plain_engine(plain_model, d.view(), 1);
  const Predicted pr = predict(held_engine, params, d.n, d.L);
  const HeadColumns col{d.L};
  double anchor_range = 0, other_range = 0;
  for (int i = 1; i < d.n; ++i) {
    anchor_range = std::max(anchor_range, std::fabs(pr.heads[i + static_cast<std::size_t>(col.noise_log_variance(anchor)) * d.n] -
                                                    pr.heads[static_cast<std::size_t>(col.noise_log_variance(anchor)) * d.n]));
    other_range = std::max(other_range, std::fabs(pr.heads[i + static_cast<std::size_t>(col.noise_log_variance(0)) * d.n] -
                                                  pr.heads[static_cast<std::size_t>(col.noise_log_variance(0)) * d.n]));
  }
  check(anchor_range < 1e-12 && other_range > 1e-3, "constant anchor noise: anchor's noise the same on every row, another sensor's not",
        "(ranges %g, %g)", anchor_range, other_range);

  const std::vector<int> rows = all_rows(d.n);
  std::vector<double> g_held(params.size()), g_plain(params.size());
  const double l_held = held_engine.loss_grad(params.data(), rows.data(), d.n, g_held.data());
  const double l_plain = plain_engine.loss_grad(params.data(), rows.data(), d.n, g_plain.data());
  bool grad_ok = l_held == l_plain;
  double held_plain_size = 0;
  for (std::size_t k = 0; k < params.size(); ++k) {
    grad_ok = grad_ok && (is_held[k] ? g_held[k] == 0.0 : g_held[k] == g_plain[k]);
    if (is_held[k]) held_plain_size = std::max(held_plain_size, std::fabs(g_plain[k]));
  }
  check(grad_ok && held_plain_size > 1e-6, "constant anchor noise: gradient is the plain one with the held entries 0",
        "(largest held entry of the plain gradient %g)", held_plain_size);

  AdamOptions opt;
  opt.learn_rate = 1e-2;
  opt.batch_size = 32;
  opt.weight_decay = 1e-3;
  Trainer<float> trainer(held, d.view(), rows, opt, 5, 1);
  for (int e = 0; e < 5; ++e) trainer.epoch(nullptr);
  bool trained_ok = true, others_moved = false;
  std::vector<float> start(held_model.n_params());
  Rng r3(5);
  held_model.initialise(start.data(), r3);
  for (std::size_t k = 0; k < start.size(); ++k) {
    if (is_held[k]) trained_ok = trained_ok && trainer.params()[k] == 0.0f;
    else others_moved = others_moved || trainer.params()[k] != start[k];
  }
  check(trained_ok && others_moved, "constant anchor noise: held weights still 0 after training (with weight decay)");
  // A start puts the constant there; without the flag a start does nothing.
  ModelSpec started = held, unheld = plain;
  started.anchor_noise_start = unheld.anchor_noise_start = -1.5;
  std::vector<double> p_started(held_model.n_params()), p_unheld(plain_model.n_params());
  Rng r4(7), r5(7);
  Model(started).initialise(p_started.data(), r4);
  Model(unheld).initialise(p_unheld.data(), r5);
  const std::size_t anchor_bias = rel.b_offset[last] + anchor;
  bool start_ok = p_started[anchor_bias] == -1.5 && p_unheld == p_plain;
  for (std::size_t k = 0; k < p_started.size(); ++k) start_ok = start_ok && (k == anchor_bias || p_started[k] == p_held[k]);
  check(start_ok, "constant anchor noise: a start sets only its bias; without the flag it does nothing");
  ModelSpec unanchored = held;
  unanchored.parameterization = Parameterization::unanchored;
  bool refused = false;
  try {
    Model m(unanchored);
  } catch (const std::invalid_argument&) {
    refused = true;
  }
  check(refused, "a constant anchor noise without an anchor is refused");
}

int main() {
  test_empty_rows();  // first: forks before any OpenMP thread pool exists
  test_row_level();
  test_gradient_fd();
  test_engine_dense();
  test_sensor_levels();
  test_noise_clamp();
  test_one_noise();
  test_disagreement();
  test_threads();
  test_thread_chooser();
  test_float();
  test_gelu();
  test_trainer();
  test_init();
  test_constant_anchor_noise();
  std::printf("%d passed, %d failed\n", g_pass, g_fail);
  return g_fail == 0 ? 0 : 1;
}
