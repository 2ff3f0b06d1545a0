# The hint of match_groups() (R/ncam-by-groups.R) when a key column of newdata has another type
# than the fit's keys: the conversion that gives the fit's keys, or, where none does (text that
# does not read as the fit's numbers, dates or date-times; numbers for dates and dates for
# numbers), what to write instead.

# For each key column whose type in newdata differs from the fit's, a bullet saying so and how
# to convert it (text and factors compare by their labels, so they count as one type).
key_type_hints <- function(groups, keys, arg = "newdata") {
  hints <- character()
  for (col in names(keys)) {
    fitted <- key_type(groups[[col]])
    given <- key_type(keys[[col]])
    # A column of NA alone (read as logical) has no type to convert: match_groups() names its keys as missing.
    if (all(is.na(keys[[col]])) || fitted == given || all(c(fitted, given) %in% c("text", "factor"))) next
    unconvertible <- unconvertible_keys(groups[[col]], keys[[col]])
    advice <- if (!is.null(unconvertible)) {
      sprintf(": %s; write the keys as %s, as `object` has them (such as %s), or fit the groups again with these keys",
              unconvertible, key_type_plural(fitted), as.character(groups[[col]][1]))
    } else {
      conversion <- key_conversion(groups[[col]], keys[[col]], col)
      if (is.null(conversion)) "" else paste0(": convert it with `", conversion, "`")
    }
    hint <- sprintf("Column `%s` is %s in `%s` but %s in `object`%s.", col, key_type_name(given), arg,
                    key_type_name(fitted), advice)
    hints <- c(hints, i = gsub("([{}])", "\\1\\1", hint))  # already text: braces stay braces
  }
  hints
}

# Why no conversion of the keys `given` gives the fit's keys `fitted`, or NULL when
# key_conversion() does: text that its conversion would make NA (such as "site1" for numbers or
# dates); numbers for dates (a count of days is no way to write a date, and as.Date() of a number
# needs an origin before R 4.3); dates for numbers.
unconvertible_keys <- function(fitted, given) {
  to <- key_type(fitted)
  from <- key_type(given)
  if (from %in% c("text", "factor") && to %in% c("number", "Date", "POSIXct")) {
    text <- unique(as.character(given[!is.na(given)]))
    # As the conversion reads them: as.Date() and as.POSIXct() take one format for all the text.
    read <- function(text) switch(to,
      number = suppressWarnings(as.numeric(text)),
      Date = as.Date(text, optional = TRUE),
      POSIXct = as.POSIXct(text, tz = c(attr(fitted, "tzone"), "")[1], optional = TRUE))
    together <- read(text)
    if (!anyNA(together)) return(NULL)
    alone <- NULL  # the first text that does not read on its own; else they mix formats
    for (t in text) if (is.na(read(t))) {
      alone <- t
      break
    }
    example <- if (is.null(alone)) text[is.na(together)][1] else alone
    return(sprintf("its text (such as %s) does not read as %s%s", encodeString(example, quote = "\""),
                   key_type_plural(to), if (is.null(alone)) " in one format" else ""))
  }
  if (from == "number" && to %in% c("Date", "POSIXct")) return(sprintf("numbers do not say which %s they stand for", key_type_plural(to)))
  if (from %in% c("Date", "POSIXct") && to == "number") return(sprintf("%s are not numbers", key_type_plural(from)))
  NULL
}

key_type_plural <- function(type) c(number = "numbers", Date = "dates", POSIXct = "date-times")[[type]]

key_type <- function(x) {
  if (inherits(x, "Date")) return("Date")
  if (inherits(x, "POSIXt")) return("POSIXct")
  if (is.factor(x)) return("factor")
  if (is.numeric(x)) return("number")
  if (is.character(x)) return("text")
  class(x)[1]
}

key_type_name <- function(type) {
  names <- c(Date = "a date (Date)", POSIXct = "a date-time (POSIXct)", factor = "a factor",
             number = "a number", text = "text", logical = "logical")
  if (type %in% names(names)) names[[type]] else paste("of class", type)
}

# Code converting column `col` (values `given`) to the type of the fit's key `fitted`, when
# there is one. A date-time becomes the calendar day it shows in its own time zone: as.Date()
# of a POSIXct takes the day in UTC, the day before for a local midnight east of Greenwich.
key_conversion <- function(fitted, given, col) {
  switch(key_type(fitted),
    Date = if (key_type(given) == "POSIXct") sprintf("as.Date(format(%s, \"%%Y-%%m-%%d\"))", col) else sprintf("as.Date(%s)", col),
    POSIXct = sprintf("as.POSIXct(format(%s), tz = \"%s\")", col, c(attr(fitted, "tzone"), "")[1]),
    number = sprintf("as.numeric(as.character(%s))", col),
    text = ,
    factor = sprintf("as.character(%s)", col)
  )
}

