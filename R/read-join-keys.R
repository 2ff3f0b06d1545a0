# The keys of join_reference() (R/read-join.R), and of the units of sensor_performance() and
# average_estimates(), as text to match by.

# Text key per row from the `keys` columns ("" for all rows when there are none), joined by
# "\r". A backslash and "\r" in a key are escaped, so that keys ("a\rb", "c") and ("a", "b\rc")
# stay two series; a missing key is "\\N", which no escaped text is: it matches only a missing
# key, not the text "NA".
series_key <- function(data, keys) {
  if (length(keys) == 0L) return(rep("", nrow(data)))
  parts <- lapply(keys, function(k) {
    x <- data[[k]]
    text <- key_text(if (inherits(x, "POSIXct")) as.numeric(x) else x)
    text <- gsub("\r", "\\r", gsub("\\", "\\\\", text, fixed = TRUE), fixed = TRUE)
    ifelse(is.na(text), "\\N", text)
  })
  do.call(paste, c(parts, sep = "\r"))
}

# Identifiers (site, unit, device) as text to match by; NA stays NA. Whole numbers up to 2^53
# (where doubles stop holding every integer) are written without exponent: site 100000 read as an
# integer in one table and as a double in another is one site (as.character() gives "1e+05" for
# the double, and "1e+15" for 1e15); -0 as 0, which it equals. Other
# numbers with the fewest digits (15 to 17) that read back as each: as.character() writes 0.3
# and 0.1 + 0.2 alike, which made two units one.
key_text <- function(x) {
  if (!is.numeric(x)) return(as.character(x))
  # Once per distinct value: a unit column of a million rows holds a few hundred.
  values <- unique(x)
  number_key_text(values)[match(x, values)]
}

number_key_text <- function(x) {
  x[which(x == 0)] <- 0  # sprintf() writes -0 as "-0"
  text <- as.character(x)
  if (is_plain_double(x)) {
    for (digits in 16:17) {
      redo <- which(as.numeric(text) != x)
      text[redo] <- sprintf("%.*g", digits, x[redo])
    }
  }
  ifelse(!is.na(x) & x == round(x) & abs(x) <= 2^53, sprintf("%.0f", x), text)
}

# Codes that read as numbers but would not be written back as given ("001", "1.50"): a reader
# that types columns loses them.
number_rewrites_code <- function(code) {
  number <- suppressWarnings(as.numeric(code))
  !is.na(number) & key_text(number) != code
}
