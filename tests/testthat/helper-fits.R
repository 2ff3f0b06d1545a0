# Shared fixtures: the toy formula and a small, fast, seeded fit.
toy_formula <- sensor_0 + sensor_1 + sensor_2 ~ x1 + x2 + x3 + x4

quick_fit <- function(data, ...) {
  args <- utils::modifyList(list(formula = toy_formula, data = data, anchor = "sensor_0",
                                 hidden = c(8L, 8L), epochs = 5L, seed = 1L, threads = 1L),
                            list(...))
  do.call(ncam, args)
}
