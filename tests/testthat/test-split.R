# Independent checks of the split invariants: each row once or NA, gaps,
# contiguous blocks, proportions, determinism, unsorted input, Date/POSIXct.

hourly_data <- function(n = 24 * 120, shuffle = TRUE, seed = 11) {
  set.seed(seed)
  t <- as.POSIXct("2024-01-01", tz = "UTC") + 3600 * seq(0, n - 1)
  d <- data.frame(when = t, x = seq_len(n))
  if (shuffle) d <- d[sample.int(n), ]
  d
}

# Smallest time distance (in seconds) between rows of two different splits.
min_cross_distance <- function(split, secs) {
  keep <- !is.na(split)
  s <- as.character(split[keep])
  t <- secs[keep]
  o <- order(t)
  s <- s[o]
  t <- t[o]
  best <- Inf
  for (lev in unique(s)) {
    mine <- t[s == lev]
    other <- t[s != lev]
    if (length(other) == 0L) next
    # Distance from each own row to the nearest row of another split.
    idx <- findInterval(mine, other)
    before <- ifelse(idx > 0, mine - other[pmax(idx, 1)], Inf)
    after <- ifelse(idx < length(other), other[pmin(idx + 1, length(other))] - mine, Inf)
    best <- min(best, before, after)
  }
  best
}

test_that("split_random assigns every row once with exact largest-remainder counts", {
  d <- data.frame(x = 1:101)
  s <- split_random(d, seed = 3)
  expect_s3_class(s, "factor")
  expect_identical(levels(s), c("train", "validation", "calibration", "test"))
  expect_length(s, 101)
  expect_false(anyNA(s))
  # 101 * (0.6, 0.1, 0.15, 0.15) = 60.6, 10.1, 15.15, 15.15: floors sum to 100,
  # the largest remainder (train, 0.6) gets the extra row.
  expect_equal(as.vector(table(s)), c(61, 10, 15, 15))
  expect_identical(s, split_random(d, seed = 3))
  expect_false(identical(s, split_random(d, seed = 4)))
})

test_that("seeded splits leave the global random stream untouched; NULL seed uses it", {
  d <- hourly_data(24 * 60)
  set.seed(99)
  expected <- runif(3)
  set.seed(99)
  split_blocks(d, "when", block = "3 days", gap = "12 hours", seed = 5)
  split_random(d, seed = 5)
  expect_identical(runif(3), expected)

  set.seed(1)
  a <- split_blocks(d, "when", block = "3 days", gap = "12 hours")
  set.seed(1)
  b <- split_blocks(d, "when", block = "3 days", gap = "12 hours")
  expect_identical(a, b)
  set.seed(1)
  c1 <- split_random(d)
  set.seed(1)
  expect_identical(split_random(d), c1)
})

test_that("split_blocks: contiguous whole blocks, gaps, proportions within one block", {
  d <- hourly_data()
  secs <- as.numeric(d$when)
  s <- split_blocks(d, "when", block = "5 days", gap = "36 hours", seed = 42)
  expect_length(s, nrow(d))

  # Whole blocks: every block (independently computed) holds one split only.
  block <- floor((secs - min(secs)) / (5 * 86400))
  per_block <- tapply(as.character(s), block, function(v) length(unique(v[!is.na(v)])))
  expect_true(all(per_block <= 1))

  # Gaps: rows of different splits are at least 36 hours apart.
  expect_gte(min_cross_distance(s, secs), 36 * 3600)

  # NA rows sit at the start of a block, right after a block of another split.
  block_split <- tapply(as.character(s), block, function(v) unique(v[!is.na(v)])[1])
  na_rows <- which(is.na(s))
  expect_gt(length(na_rows), 0)
  offset <- (secs[na_rows] - min(secs)) - block[na_rows] * 5 * 86400
  expect_true(all(offset < 36 * 3600))

  # Proportions: counting whole blocks (gap rows included), each split is within
  # one block (120 rows) of its target.
  counts <- table(factor(block_split[as.character(block)], levels = levels(s)))
  target <- nrow(d) * c(0.6, 0.1, 0.15, 0.15)
  expect_true(all(abs(as.vector(counts) - target) <= 120))
  # All blocks of the calendar are used: 120 days / 5 = 24 blocks.
  expect_equal(length(unique(block)), 24)

  # Deterministic for a seed, different for another.
  expect_identical(s, split_blocks(d, "when", block = "5 days", gap = "36 hours", seed = 42))
  expect_false(identical(s, split_blocks(d, "when", block = "5 days", gap = "36 hours", seed = 7)))
})

test_that("split_blocks does not depend on row order", {
  sorted <- hourly_data(shuffle = FALSE)
  shuffled <- hourly_data(shuffle = TRUE)
  a <- split_blocks(sorted, "when", block = "4 days", gap = "1 day", seed = 2)
  b <- split_blocks(shuffled, "when", block = "4 days", gap = "1 day", seed = 2)
  # Same assignment for the same time stamp.
  expect_identical(as.character(b), as.character(a)[match(shuffled$x, sorted$x)])
})

test_that("split_blocks handles Date columns, duplicated times and irregular sampling", {
  set.seed(8)
  days <- as.Date("2023-01-01") + sort(sample(0:729, 900, replace = TRUE))
  d <- data.frame(day = sample(days))
  s <- split_blocks(d, "day", block = "3 weeks", gap = "5 days", seed = 1)
  secs <- as.numeric(d$day) * 86400
  expect_gte(min_cross_distance(s, secs), 5 * 86400)
  # Rows with the same date share the split (or are all NA).
  same_day <- tapply(as.character(s), d$day, function(v) length(unique(v)))
  expect_true(all(same_day == 1))
  # Prop subset: only two splits used.
  s2 <- split_blocks(d, "day", block = "3 weeks", gap = "5 days",
                     prop = c(train = 0.7, test = 0.3), seed = 1)
  expect_identical(levels(s2), c("train", "validation", "calibration", "test"))
  expect_setequal(unique(as.character(s2[!is.na(s2)])), c("train", "test"))
})

test_that("split_blocks takes the gap from the later block (hand-made case)", {
  # Daily data, 4-day blocks, prop forces two blocks of different splits.
  d <- data.frame(day = as.Date("2024-03-01") + 0:7)
  s <- split_blocks(d, "day", block = "4 days", gap = "2 days",
                    prop = c(train = 0.5, test = 0.5), seed = 1)
  first <- as.character(s[1:4])
  expect_length(unique(first), 1)
  # The later block loses the days less than 2 days after the earlier block's
  # last day (day 4): only day 5; days 6 to 8 are kept.
  expect_true(is.na(s[5]))
  expect_false(anyNA(s[c(1:4, 6:8)]))
  expect_false(identical(as.character(s[6]), first[1]))
})

test_that("split_chronological: ordered segments with gaps", {
  d <- hourly_data(1000)
  s <- split_chronological(d, "when", gap = "10 hours")
  secs <- as.numeric(d$when)
  o <- order(secs)
  seq_s <- as.character(s[o])
  kept <- seq_s[!is.na(seq_s)]
  # Segments appear in the order train, validation, calibration, test.
  expect_identical(rle(kept)$values, c("train", "validation", "calibration", "test"))
  # Train is the first 600 hours (no gap before it).
  expect_equal(sum(s == "train", na.rm = TRUE), 600)
  # The gap removes rows closer than 10 h: 9 rows (1..9 h after) per boundary.
  expect_equal(sum(is.na(s)), 3 * 9)
  expect_gte(min_cross_distance(s, secs), 10 * 3600)
})

test_that("split_chronological keeps ties together and works with Date", {
  d <- data.frame(day = as.Date("2024-01-01") + rep(0:9, each = 3))
  prop <- c(train = 0.45, test = 0.55)
  expect_warning(s <- split_chronological(d, "day", prop = prop, gap = "1 day"),
                 class = "ncam_warning_short_gap")
  # The 14-row train target ends inside the fifth day (rows 13-15): the whole
  # day stays with train. The sixth day is exactly 1 day later, so it is kept.
  expect_identical(as.character(s[1:15]), rep("train", 15))
  expect_identical(as.character(s[16:30]), rep("test", 15))
  s2 <- split_chronological(d, "day", prop = prop, gap = "36 hours")
  expect_true(all(is.na(s2[16:18])))
  expect_identical(as.character(s2[19:30]), rep("test", 12))
})

test_that("durations are parsed in several forms", {
  expect_equal(parse_duration("36 hours", "gap"), 36 * 3600)
  expect_equal(parse_duration("7 days", "gap"), 7 * 86400)
  expect_equal(parse_duration("90 mins", "gap"), 90 * 60)
  expect_equal(parse_duration("2 weeks", "gap"), 14 * 86400)
  expect_equal(parse_duration("1.5 day", "gap"), 1.5 * 86400)
  expect_equal(parse_duration(as.difftime(2, units = "hours"), "gap"), 7200)
  expect_equal(parse_duration(600, "gap"), 600)
  withr::local_timezone("UTC")  # loading lubridate asks the system for the zone otherwise
  skip_if_not_installed("lubridate")
  expect_equal(parse_duration(lubridate::weeks(1), "block"), 7 * 86400)
  expect_equal(parse_duration(lubridate::hours(36) + lubridate::minutes(30), "gap"), 36.5 * 3600)
  expect_equal(parse_duration(lubridate::dweeks(2), "block"), 14 * 86400)
  expect_error(parse_duration(lubridate::period(1, "month"), "block"), "fixed length")
  expect_error(parse_duration(lubridate::hours(NA), "gap"), "single positive duration")
  d <- hourly_data()
  expect_identical(split_blocks(d, "when", block = lubridate::weeks(1), gap = lubridate::hours(36), seed = 1),
                   split_blocks(d, "when", block = "7 days", gap = "36 hours", seed = 1))
})

test_that("bad split arguments give clear errors", {
  d <- hourly_data(200)
  expect_snapshot(error = TRUE, split_blocks(d, "when", gap = "-3 hours"))
  expect_snapshot(error = TRUE, split_blocks(d, "when", gap = 0))
  expect_snapshot(error = TRUE, split_blocks(d, "when", block = "0 days"))
  expect_snapshot(error = TRUE, split_blocks(d, "when", block = "seven days"))
  expect_snapshot(error = TRUE, split_chronological(d, "x"))
  expect_snapshot(error = TRUE, split_chronological(d, "nope"))
  expect_snapshot(error = TRUE, split_random(d, prop = c(train = 0.5, test = 0.4)))
  expect_snapshot(error = TRUE, split_random(d, prop = c(train = 0.5, holdout = 0.5)))
  expect_snapshot(error = TRUE, split_random(d, prop = c(train = 1.2, test = -0.2)))
  expect_snapshot(error = TRUE, split_random(d, prop = c(0.5, 0.5)))
  expect_snapshot(error = TRUE, split_random(list(a = 1)))
})

test_that("missing times are an error that lists their rows", {
  d <- hourly_data(n = 48, shuffle = FALSE)
  d$when[c(4, 30)] <- NA
  expect_error(split_blocks(d, "when"), "missing times in rows 4 and 30")
  d$when[30] <- d$when[31]
  expect_error(split_chronological(d, "when"), "missing times in row 4\\.")
})

test_that("split_blocks warns when the gap swallows a whole split", {
  # Two 4-day blocks, one per split; a 5-day gap blanks every day of the later
  # block (days 5 to 8 are all less than 5 days after day 4).
  d <- data.frame(day = as.Date("2024-03-01") + 0:7)
  expect_warning(s <- split_blocks(d, "day", block = "4 days", gap = "5 days",
                                   prop = c(train = 0.5, test = 0.5), seed = 1),
                 "lies within `gap` of another")
  expect_true(all(is.na(s[5:8])))
  expect_false(anyNA(s[1:4]))
})

test_that("split_blocks names the cause when there are too few blocks", {
  d <- data.frame(day = as.Date("2024-03-01") + 0:7)
  expect_warning(s <- split_blocks(d, "day", block = "4 days", gap = "2 days", seed = 1),
                 "2 non-empty blocks are too few for 4")
  expect_equal(sum(table(s) > 0), 2)
})

test_that("split_random and split_chronological warn about empty splits", {
  expect_warning(s <- split_random(data.frame(x = 1:3), seed = 1), "received no row")
  # 3 rows * (0.6, 0.1, 0.15, 0.15): largest remainders give train 2 and one other 1.
  expect_equal(sum(table(s) == 0), 2)

  # 100 hourly rows: validation is hours 60-69, all within 12 hours of the last
  # train hour (59), so the gap removes it entirely; calibration keeps hours
  # 71-84 and test hours 96-99.
  d <- hourly_data(100, shuffle = FALSE)
  expect_warning(
    expect_warning(s <- split_chronological(d, "when", gap = "12 hours"),
                   "\"validation\" lies within `gap`"),
    "\"test\": 4 of a target of 15 rows", class = "ncam_warning_small_split"
  )
  expect_equal(as.vector(table(s)), c(60, 0, 14, 4))
  # Ten rows on two dates cannot fill four segments.
  d2 <- data.frame(day = as.Date("2024-01-01") + rep(0:1, each = 5))
  expect_warning(split_chronological(d2, "day", gap = "2 days"), "2 distinct times")
})

test_that("a split left with under half its target rows warns, naming it", {
  # 480 hourly rows: segments of 288, 48, 72 and 72 rows. The default 36-hour gap blanks the
  # first 35 hours of each later segment (times less than 36 hours after the previous
  # segment's last row): validation keeps 13 of 48, calibration and test 37 of 72 each.
  d <- data.frame(time = as.POSIXct("2024-01-01", tz = "UTC") + 3600 * 0:479)
  w <- expect_warning(s <- split_chronological(d, "time"), class = "ncam_warning_small_split")
  expect_equal(as.vector(table(s, useNA = "ifany")), c(288, 48 - 35, 72 - 35, 72 - 35, 3 * 35))
  expect_match(conditionMessage(w), "\"validation\": 13 of a target of 48 rows; 35 within `gap`",
               fixed = TRUE)
  expect_no_match(conditionMessage(w), "whole blocks")  # given its 48 rows: the gap took them
  expect_no_match(conditionMessage(w), "calibration|test")
  expect_match(conditionMessage(w), "shorter `gap` or fewer splits", fixed = TRUE)
  # A 12-hour gap leaves validation 37 of 48: no warning.
  expect_no_warning(split_chronological(d, "time", gap = "12 hours"))
  # Blocks of 2 days after another split's block keep 12 of their 48 hours.
  long <- data.frame(time = as.POSIXct("2024-01-01", tz = "UTC") + 3600 * 0:2399)
  w <- expect_warning(b <- split_blocks(long, "time", block = "2 days", seed = 1),
                      class = "ncam_warning_small_split")
  kept <- table(b)
  short <- names(kept)[kept < c(1440, 240, 360, 360) / 2]
  expect_true(length(short) > 0L)
  for (split in short) expect_match(conditionMessage(w), sprintf("\"%s\": %d of a target", split, kept[[split]]))
  expect_match(conditionMessage(w), "shorter blocks", fixed = TRUE)
  # A split given only the short last block, with a gap of an hour (no row lost): the blocks
  # are the cause.
  weeks <- data.frame(time = as.POSIXct("2024-01-01", tz = "UTC") + 3600 * 0:(24 * 36 - 1))
  w <- expect_warning(suppressWarnings(b <- split_blocks(weeks, "time", block = "7 days", gap = "1 hour", seed = 3),
                                       classes = "ncam_warning_short_gap"),
                      class = "ncam_warning_small_split")
  expect_match(conditionMessage(w), "\"calibration\": 24 of a target of 130 rows; given 24 in whole blocks",
               fixed = TRUE)
  expect_no_match(conditionMessage(w), "calibration\": 24 of a target of 130 rows; given 24 in whole blocks;")
})

test_that("well-sized splits give no warning", {
  d <- hourly_data()
  expect_no_warning(split_blocks(d, "when", block = "5 days", gap = "36 hours", seed = 42))
  expect_no_warning(split_chronological(d, "when", gap = "10 hours"))
  expect_no_warning(split_random(d, seed = 1))
})

test_that("one conversion of times to seconds serves the splits and select_gap", {
  expect_equal(date_seconds(as.Date(c("1970-01-02", "2000-01-01")), "date"),
               c(86400, 10957 * 86400))
  lt <- as.POSIXlt("2024-01-01 06:00:00", tz = "UTC")
  expect_equal(date_seconds(lt, "date"), 19723 * 86400 + 6 * 3600)
  expect_error(date_seconds(as.Date(c("2024-01-01", NA)), "date"), "missing times in row 2")
  expect_error(date_seconds(structure(c(Inf, 0), class = "Date"), "date"), "infinite times in row 1")
  expect_error(select_gap(rnorm(5), date = as.Date("2024-01-01") + c(0:3, NA)),
               "missing times in row 5")
})

test_that("every split function gives an empty factor and one clear warning on zero rows", {
  d <- hourly_data(48)[0, ]
  calls <- list(random = function() split_random(d, seed = 1),
                chronological = function() split_chronological(d, "when"),
                blocks = function() split_blocks(d, "when", seed = 1))
  for (f in calls) {
    msgs <- character()
    out <- withCallingHandlers(f(), warning = function(w) {
      msgs <<- c(msgs, conditionMessage(w))
      invokeRestart("muffleWarning")
    })
    expect_identical(out, factor(character(), levels = c("train", "validation", "calibration", "test")))
    expect_length(msgs, 1L)
    expect_match(msgs, "`data` has no rows: every split is empty", fixed = TRUE)
  }
  # Argument checks still come first.
  expect_error(split_blocks(d, "when", block = "0 days"), "`block`", fixed = TRUE)
})

test_that("a gap from select_gap() is used as a time, one counted in rows is refused, a short one warns", {
  set.seed(1)
  d <- data.frame(date = as.Date("2023-01-01") + 0:729)
  d$resid <- as.numeric(arima.sim(list(ar = 0.9), 730))
  secs <- as.numeric(d$date) * 86400
  rows <- select_gap(d$resid)
  expect_identical(rows$gap, 21L)
  # Without `date` the gap counts rows: refused whole, with the duration 21 daily rows span.
  expect_error(split_blocks(d, "date", block = "28 days", gap = rows, seed = 1),
               "counted in rows \\(21 rows\\).*without `date`.*gap = \"21 days\"", class = "rlang_error")
  expect_error(split_chronological(d, "date", gap = rows), "counted in rows.*gap = \"21 days\"")
  # As a plain number it is 21 seconds, shorter than the daily spacing: it separates nothing
  # (the split is the one with no gap at all), with a warning suggesting the same duration.
  expect_warning(s21 <- split_blocks(d, "date", block = "28 days", gap = rows$gap, seed = 1),
                 "21 \\(read as seconds: 21 secs\\) is shorter than the smallest spacing.*\\(1 day\\).*gap = \"21 days\"",
                 class = "ncam_warning_short_gap")
  expect_identical(s21, suppressWarnings(split_blocks(d, "date", block = "28 days", gap = 1, seed = 1),
                                         classes = "ncam_warning_short_gap"))
  expect_false(anyNA(s21))
  expect_warning(split_chronological(d, "date", gap = rows$gap), class = "ncam_warning_short_gap")

  # With `date` the result is a duration, passed whole or as $gap.
  timed <- select_gap(d, date = "date")
  expect_identical(timed$gap, as.difftime(21, units = "days"))
  # A 21-day gap takes most of a 28-day block after a block of another split.
  expect_warning(s <- split_blocks(d, "date", block = "28 days", gap = timed, seed = 1),
                 "keep under half their target rows", class = "ncam_warning_small_split")
  quiet_blocks <- function(...) {
    suppressWarnings(split_blocks(...), classes = "ncam_warning_small_split")
  }
  expect_identical(s, quiet_blocks(d, "date", block = "28 days", gap = timed$gap, seed = 1))
  expect_identical(s, quiet_blocks(d, "date", block = "28 days", gap = "21 days", seed = 1))
  expect_gte(min_cross_distance(s, secs), 21 * 86400)
  expect_true(sum(is.na(s)) > 0L)
  chrono <- split_chronological(d, "date", gap = timed)
  expect_identical(chrono, split_chronological(d, "date", gap = "21 days"))
  expect_gte(min_cross_distance(chrono, secs), 21 * 86400)

  # A number of seconds longer than the smallest spacing keeps its meaning.
  h <- hourly_data()
  expect_no_warning(s7200 <- split_blocks(h, "when", gap = 7200, seed = 1))
  expect_identical(s7200, split_blocks(h, "when", gap = "2 hours", seed = 1))
  # One equal to it is a gap of one step, which leaves no time out: a warning, without the hint
  # about rows (3600 is not a count of rows given as seconds).
  w <- expect_warning(s3600 <- split_blocks(h, "when", gap = 3600, seed = 1), class = "ncam_warning_short_gap")
  expect_match(conditionMessage(w), "3600 (read as seconds: 1 hour) is equal to the smallest spacing", fixed = TRUE)
  expect_no_match(conditionMessage(w), "counts rows")
  expect_false(anyNA(s3600))
  # A shorter gap, in seconds or as text, separates nothing: a warning, not an error. The hint
  # about rows is given for a whole number only, and spacings print without float noise.
  w <- expect_warning(s1800 <- split_blocks(h, "when", gap = 1800, seed = 1), class = "ncam_warning_short_gap")
  expect_match(conditionMessage(w), "1800 (read as seconds: 30 mins) is shorter than the smallest spacing between the times of column when (1 hour)", fixed = TRUE)
  expect_match(conditionMessage(w), "If 1800 counts rows 1 hour apart", fixed = TRUE)
  expect_false(anyNA(s1800))
  w <- expect_warning(s30 <- split_blocks(h, "when", gap = "30 mins", seed = 1), class = "ncam_warning_short_gap")
  expect_identical(s30, s1800)
  expect_no_match(conditionMessage(w), "counts rows")
  tenth <- data.frame(t = as.POSIXct("2024-01-01", tz = "UTC") + 0.1 * (0:999))
  w <- expect_warning(split_blocks(tenth, "t", block = "10 secs", gap = 0.05, seed = 1),
                      class = "ncam_warning_short_gap")
  expect_match(conditionMessage(w), "0.05 (read as seconds: 0.05 secs) is shorter than the smallest spacing between the times of column t (0.1 secs)", fixed = TRUE)
  expect_no_match(conditionMessage(w), "counts rows")
  # A selection that found no gap cannot be used.
  expect_warning(none <- select_gap(d, date = "date", max_lag = 2), "never enters the 95% band up to lag 2",
                 class = "ncam_warning_no_gap_found")
  expect_true(is.na(none$gap))
  expect_error(split_blocks(d, "date", gap = none), "found no gap.*larger `max_lag`")
})

test_that("a gap of one time step leaves no time out: a warning naming the gap that leaves one out", {
  d <- data.frame(day = as.Date("2024-01-01") + 0:364)
  secs <- as.numeric(d$day) * 86400
  flat <- function(cnd) gsub("\\s+", " ", cli::ansi_strip(conditionMessage(cnd)))
  # Rows exactly `gap` apart are kept: with daily rows, different splits on neighbouring days.
  w <- expect_warning(one <- split_blocks(d, "day", block = "4 weeks", gap = "1 day", seed = 1),
                      class = "ncam_warning_short_gap")
  expect_false(anyNA(one))
  expect_identical(min_cross_distance(one, secs), 86400)
  expect_match(flat(w), "`gap` = 1 day is equal to the smallest spacing between the times of column day (1 day): it leaves no time out between splits", fixed = TRUE)
  expect_match(flat(w), "`gap = \"2 days\"` (two steps of 1 day, the median spacing) leaves out one time between them", fixed = TRUE)
  # The gap it suggests leaves out one day where the split changes, and warns no more.
  expect_no_warning(two <- split_blocks(d, "day", block = "4 weeks", gap = "2 days", seed = 1))
  changes <- length(rle(as.character(one))$values) - 1L  # rows are in time order
  expect_identical(sum(is.na(two)), changes)
  expect_identical(min_cross_distance(two, secs), 2 * 86400)
  # The same in split_chronological(): three later segments, one day out of each.
  expect_warning(chrono <- split_chronological(d, "day", gap = "1 day"), "is equal to the smallest spacing",
                 class = "ncam_warning_short_gap")
  expect_false(anyNA(chrono))
  expect_identical(sum(is.na(split_chronological(d, "day", gap = "2 days"))), 3L)
  # A select_gap() result of one step found neighbouring residuals uncorrelated: no warning.
  set.seed(4)
  d$resid <- rnorm(365)
  g <- select_gap(d, date = "day")
  expect_identical(g$gap, as.difftime(1, units = "days"))
  expect_no_warning(selected <- split_blocks(d, "day", block = "4 weeks", gap = g, seed = 1))
  expect_identical(selected, one)
})

test_that("a block of under 3 time steps warns, naming its unit and the duration to give", {
  days <- data.frame(day = as.Date("2021-01-01") + 0:364)
  # 14 as a plain number is 14 seconds: every day its own block, a random split by day.
  w <- expect_warning(suppressWarnings(s <- split_blocks(days, "day", block = 14, gap = "1 day", seed = 1),
                                       classes = "ncam_warning_short_gap"),
                      class = "ncam_warning_short_block")
  msg <- conditionMessage(w)
  expect_match(msg, "`block` = 14 (read as seconds: 14 secs) spans under 3 steps", fixed = TRUE)
  expect_match(msg, "(1 day apart, the median spacing)", fixed = TRUE)
  expect_match(msg, "give it as `block = \"14 days\"`", fixed = TRUE)
  # Runs of one split, in time order, last about a day and a half, not two weeks.
  runs <- rle(as.character(s[!is.na(s)]))$lengths
  expect_lt(mean(runs), 3)
  # The duration it suggests gives blocks: 14-day runs.
  expect_no_warning(s14 <- split_blocks(days, "day", block = "14 days", gap = "2 days", seed = 1))
  expect_gt(mean(rle(as.character(s14[!is.na(s14)]))$lengths), 10)
  # Durations warn too (without the hint about rows); 3 steps is long enough.
  hours <- hourly_data()
  w <- expect_warning(split_blocks(hours, "when", block = "2 hours", gap = "2 hours", seed = 1),
                      class = "ncam_warning_short_block")
  expect_match(conditionMessage(w), "`block` = 2 hours spans under 3 steps", fixed = TRUE)
  expect_no_match(conditionMessage(w), "counts rows")
  expect_no_warning(split_blocks(hours, "when", block = "3 hours", gap = "2 hours", seed = 1),
                    class = "ncam_warning_short_block")
})

test_that("with blocks too short, the small-split hint does not suggest shorter blocks", {
  hours <- hourly_data()
  # 7 seconds: one hour per block, and a 2-hour gap takes most rows of the smaller splits.
  small <- NULL
  withCallingHandlers(
    split_blocks(hours, "when", block = 7, gap = "2 hours", seed = 1),
    ncam_warning_short_block = function(w) invokeRestart("muffleWarning"),
    ncam_warning_small_split = function(w) {
      small <<- conditionMessage(w)
      invokeRestart("muffleWarning")
    }
  )
  expect_match(small, "keep under half")
  expect_no_match(small, "shorter blocks")
  expect_match(small, "blocks of many time steps")
  # With proper blocks the hint still offers shorter ones.
  days <- data.frame(day = as.Date("2021-01-01") + 0:364)
  expect_warning(split_blocks(days, "day", block = "14 days", gap = "10 days", seed = 1),
                 "shorter blocks", class = "ncam_warning_small_split")
})
