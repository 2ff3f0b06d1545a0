# The messages of sensor_performance(), average_estimates() and evaluate_fusion() have a class of
# ?ncam_warnings's table of messages and the common class ncam_message, so that one kind can be
# muffled while the others pass.

inform_calls <- function() {
  found <- list()
  visit <- function(e) if (identical(e[[1]], quote(ncam_inform))) found[[length(found) + 1L]] <<- e
  ns <- asNamespace("ncam")
  for (name in ls(ns, all.names = TRUE)) {
    f <- get(name, envir = ns)
    if (is.function(f) && !is.primitive(f)) walk_calls(body(f), visit)
  }
  found
}

test_that("every class given by ncam_inform() is in the table, and every listed class is given", {
  calls <- inform_calls()
  expect_gt(length(calls), 10)
  given <- unique(vapply(calls, function(e) eval(as.list(e)[[3]], baseenv()), character(1)))
  listed <- ncam:::message_classes$class
  expect_setequal(given, listed)
  expect_true(all(startsWith(listed, "ncam_message_")))
  expect_false(anyDuplicated(listed) > 0)
})

test_that("the messages of sensor_performance() can be muffled by their class", {
  hours <- as.POSIXct("2024-01-01", tz = "UTC") + 3600 * (0:95)
  d <- data.frame(date = hours, ref = 10 + sin(seq_along(hours) / 5))
  d$est <- d$ref + 0.5
  d$est[5:6] <- NA
  # The two rows without an estimate, and hourly data, each give their message.
  msgs <- list()
  withCallingHandlers(sensor_performance(d, "est", "ref", averaging = c("as_given", "1h")),
                      message = function(m) {
                        msgs[[length(msgs) + 1L]] <<- m
                        invokeRestart("muffleMessage")
                      })
  classes <- lapply(msgs, class)
  expect_true(all(vapply(classes, function(cl) "ncam_message" %in% cl, logical(1))))
  expect_setequal(vapply(classes, `[`, "", 1), c("ncam_message_unpaired_rows", "ncam_message_averaging"))
  expect_match(conditionMessage(msgs[[which(vapply(classes, `[`, "", 1) == "ncam_message_unpaired_rows")]]),
               "2 rows without both an estimate and a reference")
  # Muffling one class lets the other through; muffling ncam_message, every one.
  expect_message(suppressMessages(sensor_performance(d, "est", "ref", averaging = c("as_given", "1h")),
                                  classes = "ncam_message_unpaired_rows"),
                 class = "ncam_message_averaging")
  expect_no_message(suppressMessages(sensor_performance(d, "est", "ref", averaging = c("as_given", "1h")),
                                     classes = "ncam_message"))
})

test_that("the messages of evaluate_fusion() have their classes", {
  pred <- data.frame(.pred = c(1, 2, NA, 4), .n_sensors = c(1, 0, 1, 1))
  expect_message(evaluate_fusion(pred, c(1, 2, 3, 4)), "Dropped 1 row with .*n_sensors.* = 0",
                 class = "ncam_message_prior_rows")
  expect_message(evaluate_fusion(pred, c(1, 2, 3, 4)), "Dropped 1 row with a missing",
                 class = "ncam_message_dropped_rows")
  out <- expect_no_message(suppressMessages(evaluate_fusion(pred, c(1, 2, 3, 5)), classes = "ncam_message"))
  expect_equal(out$rmse, sqrt((0^2 + 1^2) / 2))
})
