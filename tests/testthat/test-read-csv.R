# Files that readers used to misread quietly: each must now be read exactly or refused
# with a message naming the file, column and line.

write_bytes_tmp <- function(text, name = "data.csv", env = parent.frame()) {
  path <- file.path(withr::local_tempdir(.local_envir = env), name)
  con <- file(path, "wb")
  writeBin(text, con)
  close(con)
  path
}

daily_header <- "sensor_index,DAILY,conc,A_B_Avg,pm2.5_cf_1_a,pm2.5_cf_1_b,humidity_a,temp_Celsius,dewPoint,n"
daily_rows <- sprintf("S%d,2022-01-0%d,%d.5,8.15,8.0,8.3,51,12.5,2.6,24", 1:6, 1:6, 1:6)

as_bytes <- function(lines) charToRaw(paste0(paste(lines, collapse = "\n"), "\n"))

test_that("a Latin-1 byte neither truncates a file nor passes unnoticed", {
  # Row 2 names a site "Liège" in Latin-1 (byte E8); base read.csv() stopped there.
  bytes <- as_bytes(daily_rows)
  bytes <- append(bytes, as.raw(c(0x4c, 0x69, 0xe8, 0x67, 0x65)), after = grepRaw("S2", bytes) + 1L)
  path <- write_bytes_tmp(c(as_bytes(daily_header), bytes))
  expect_warning(out <- read_purpleair_aqs(path), "Latin-1.*line 3")
  expect_identical(nrow(out), 6L)
  expect_setequal(out$site, c("S1", "S2Li\u00e8ge", paste0("S", 3:6)))
  expect_identical(sort(out$ref), c(1.5, 2.5, 3.5, 4.5, 5.5, 6.5))
})

test_that("valid UTF-8 and a byte-order mark are read without warning", {
  lines <- c(daily_header, sub("S1", "K\u00f8ge", daily_rows[1], fixed = TRUE))
  path <- write_bytes_tmp(c(as.raw(c(0xef, 0xbb, 0xbf)), as_bytes(enc2utf8(lines))))
  expect_no_warning(out <- read_purpleair_aqs(path))
  expect_identical(out$site, "K\u00f8ge")
})

test_that("a truncated last line is refused with its line number", {
  lines <- c(daily_header, daily_rows[1:3], "S4,2022-01-04,4.5,8.15")
  path <- write_bytes_tmp(as_bytes(lines))
  expect_error(read_purpleair_aqs(path), "Line 5 .* 4 fields but the header has 10",
               class = "rlang_error")
  # A row with a field too many is refused as well.
  lines[5] <- paste0(daily_rows[4], ",extra")
  path <- write_bytes_tmp(as_bytes(lines), name = "long.csv")
  expect_error(read_purpleair_aqs(path), "Line 5 .* 11 fields", class = "rlang_error")
})

test_that("quoted fields may hold commas and line breaks; an unclosed quote is refused", {
  lines <- c(daily_header, "\"S,1\",2022-01-01,1.5,8.15,8,8.3,51,12.5,2.6,24",
             "\"S", "2\",2022-01-02,2.5,8.15,8,8.3,51,12.5,2.6,24", "",
             "S3,2022-01-03,3.5,8.15,8,8.3,51,hot,2.6,24")
  path <- write_bytes_tmp(as_bytes(lines))
  # Row 3 starts on line 6: the row before spans two lines and a blank line follows it.
  expect_error(read_purpleair_aqs(path), "temp_Celsius.*row 3 \\(line 6\\)", class = "rlang_error")
  lines[6] <- sub("hot", "12.5", lines[6])
  out <- read_purpleair_aqs(write_bytes_tmp(as_bytes(lines), name = "ok.csv"))
  expect_identical(out$site, c("S\n2", "S,1", "S3"))
  lines[7] <- "S4,2022-01-04,4.5,8.15,8,8.3,51,12.5,2.6,\"24"
  path <- write_bytes_tmp(as_bytes(lines), name = "open.csv")
  expect_error(read_purpleair_aqs(path), "line 7 never closes", class = "rlang_error")
})

test_that("a quote within a field is a literal character, not the start of a quoted field", {
  # Notes such as `5" inlet` two lines apart made the lines between one quoted field: rows
  # 2 and 3 vanished without a word.
  lines <- c("time_stamp,humidity,temperature,pm2.5_cf_1_a,pm2.5_cf_1_b,note",
             "1682946000,40,68,1,1.5,5\" inlet", "1682949600,41,68,2,2.5,ok",
             "1682953200,42,68,3,3.5,6\" inlet", "1682956800,43,68,4,4.5,ok")
  out <- read_purpleair(write_bytes_tmp(as_bytes(lines), name = "131611.csv"))
  expect_identical(out$pm25_cf1_a, c(1, 2, 3, 4))
  expect_identical(out$rh, c(40, 41, 42, 43))
  expect_identical(as.numeric(out$date), 1682946000 + 3600 * (0:3))
  # The quote is kept as part of the text, beside quoted fields holding commas and quotes.
  lines <- c(daily_header, "S1\"a,2022-01-01,1.5,8.15,8,8.3,51,12.5,2.6,24",
             "\"S,\"\"2\"\"\",2022-01-02,2.5,8.15,8,8.3,51,12.5,2.6,24", "7\",2022-01-03,3.5,8.15,8,8.3,51,12.5,2.6,24")
  out <- read_purpleair_aqs(write_bytes_tmp(as_bytes(lines)))
  expect_identical(out$site, c("7\"", "S,\"2\"", "S1\"a"))
  expect_identical(out$ref, c(3.5, 2.5, 1.5))
})

test_that("text after a closing quote is refused, naming the lines", {
  # A note starting with a quote opens a quoted field; the quote of a later note closed it,
  # and the rows between were one field.
  lines <- c(daily_header, "S1,2022-01-01,1.5,8.15,8,8.3,51,12.5,2.6,\"5 inlet",
             "S2,2022-01-02,2.5,8.15,8,8.3,51,12.5,2.6,24", "S3,2022-01-03,3.5,8.15,8,8.3,51,12.5,2.6,6\" inlet")
  expect_error(read_purpleair_aqs(write_bytes_tmp(as_bytes(lines))),
               "Line 4 .* after the closing quote of the quoted field opened on line 2", class = "rlang_error")
  lines <- c(daily_header, "\"S\"1,2022-01-01,1.5,8.15,8,8.3,51,12.5,2.6,24")
  expect_error(read_purpleair_aqs(write_bytes_tmp(as_bytes(lines), name = "one.csv")),
               "Line 2 .* after the closing quote of a quoted field", class = "rlang_error")
})

test_that("blanks around a quoted field are not part of its value, as readr and fread read them", {
  # `, "DAILY"` was read as the column " DAILY" (lacking DAILY), `, "2022-01-01"` as a time " 2022-01-01".
  lines <- c('sensor_index, "DAILY",conc,A_B_Avg,pm2.5_cf_1_a,pm2.5_cf_1_b,humidity_a,temp_Celsius,dewPoint,n',
             '"S1" , "2022-01-01",1.5,8.15,8.0,8.3,51,12.5,2.6,24',
             'S2,\t"2022-01-02"  ,2.5,8.15,8.0,8.3,51,12.5,2.6,24')
  out <- read_purpleair_aqs(write_bytes_tmp(as_bytes(lines)))
  expect_identical(out$date, as.Date(c("2022-01-01", "2022-01-02")))
  expect_identical(out$site, c("S1", "S2"))
  # Blanks within the quotes stay; unquoted fields keep theirs; a literal quote (5" o) and a
  # quoted field spanning lines (read character by character) alike.
  csv <- c("x,y,z,v", ' " p ", q , "a,""b""" ,5" o', '  "line', 'break"\t, r,"s" , " t"')
  got <- parse_csv_lines(csv, "blanks.csv", character(), NULL)
  expect_identical(got$x, c(" p ", "line\nbreak"))
  expect_identical(got$y, c(" q ", " r"))
  expect_identical(got$z, c("a,\"b\"", "s"))
  expect_identical(got$v, c("5\" o", " t"))
})

test_that("lines of blanks alone are skipped like blank lines, but kept within a quoted field", {
  lines <- c(daily_header, daily_rows[1], "   ", "\"S", " \t ", "2\",2022-01-02,2.5,8.15,8,8.3,51,12.5,2.6,24", "\t")
  out <- read_purpleair_aqs(write_bytes_tmp(as_bytes(lines)))
  expect_identical(out$site, c("S\n \t \n2", "S1"))
  expect_identical(out$ref, c(2.5, 1.5))
})

test_that("a semicolon- or tab-separated file is named as such, with a way to convert it", {
  euro <- gsub(",", ";", c(daily_header, daily_rows[1]))
  path <- write_bytes_tmp(as_bytes(sub("8.15", "8,15", euro, fixed = TRUE)))
  expect_error(read_purpleair_aqs(path), "looks semicolon-separated.*sensor_index;DAILY.*comma-separated.*read.csv2",
               class = "rlang_error")
  path <- write_bytes_tmp(as_bytes(gsub(",", "\t", c(daily_header, daily_rows[1]))), name = "tab.txt")
  expect_error(read_purpleair_aqs(path), "looks tab-separated.*read.delim", class = "rlang_error")
  # Quoted, as write.csv2() and write.table() write them: not a stray quote. The conversion
  # offered keeps the names ("5325CAT" is not "X5325CAT"), and is read back as it was.
  raw <- utils::read.csv(text = c(daily_header, daily_rows), check.names = FALSE, colClasses = "character")
  for (writer in list(function(x, p) utils::write.csv2(x, p, row.names = FALSE),
                      function(x, p) utils::write.table(x, p, sep = "\t", row.names = FALSE))) {
    path <- withr::local_tempfile(fileext = ".csv")
    writer(raw, path)
    err <- expect_error(read_purpleair_aqs(path), "looks (semicolon|tab)-separated", class = "rlang_error")
    expect_match(gsub("\\s+", " ", cli::ansi_strip(conditionMessage(err))), "check.names = FALSE), new_file", fixed = TRUE)
  }
  # The same goes for the other readers, which share the header check.
  path <- write_bytes_tmp(as_bytes(c("time_stamp;pm2.5_cf_1_a;pm2.5_cf_1_b", "1682946000;7,9;8,3")), name = "1.csv")
  expect_error(read_purpleair(path), "semicolon-separated", class = "rlang_error")
})

test_that("blanks around the header's names and Excel's separator line are named", {
  path <- write_bytes_tmp(as_bytes(c(gsub(",", ", ", daily_header), daily_rows[1])))
  expect_error(read_purpleair_aqs(path), "lacks required columns.*blanks around them", class = "rlang_error")
  path <- write_bytes_tmp(as_bytes(c("sep=,", daily_header, daily_rows[1])))
  expect_error(read_purpleair_aqs(path), "lacks required columns.*\"sep=\".*separator line Excel writes", class = "rlang_error")
})

test_that("a header repeated within the file is named", {
  path <- write_bytes_tmp(as_bytes(c(daily_header, daily_rows[1:2], daily_header, daily_rows[3:4])))
  expect_error(read_purpleair_aqs(path), "Line 4 of .* repeats the header \\(1 line does\\): files pasted together", class = "rlang_error")
})

test_that("a duplicated column name is refused, naming the column", {
  path <- write_bytes_tmp(as_bytes(c(paste0(daily_header, ",conc"),
                                     paste0(daily_rows[1], ",99"))))
  expect_error(read_purpleair_aqs(path), "duplicated column name.*conc", class = "rlang_error")
})

test_that("times with trailing text and binary files are refused", {
  path <- write_bytes_tmp(as_bytes(c(daily_header, sub("2022-01-01", "2022-01-0112", daily_rows[1]))))
  expect_error(read_purpleair_aqs(path), "DAILY.*row 1 \\(line 2\\)", class = "rlang_error")
  path <- write_bytes_tmp(c(as_bytes(daily_header), as.raw(c(0x53, 0x00, 0x31))), name = "nul.csv")
  expect_error(read_purpleair_aqs(path), "line 2 holds a NUL byte", class = "rlang_error")
  path <- write_bytes_tmp(raw(), name = "empty.csv")
  expect_error(read_purpleair_aqs(path), "empty", class = "rlang_error")
})

test_that("a binary file's hint says what the reader can read", {
  # The first bytes of a zip archive: only read_aqs() reads zip files.
  zipped <- write_bytes_tmp(as.raw(c(0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00)), name = "data.zip")
  for (reader in list(read_purpleair_aqs, read_purpleair, read_toucan)) {
    expect_error(reader(zipped), "zip archive: unzip it first. This reader reads plain or gzip-compressed CSV",
                 class = "rlang_error")
  }
  utf16 <- write_bytes_tmp(as.raw(c(0xff, 0xfe, 0x61, 0x00, 0x2c, 0x00)), name = "utf16.csv")
  expect_error(read_purpleair_aqs(utf16), "UTF-16 or compressed\\? This reader reads plain or gzip-compressed",
               class = "rlang_error")
  expect_error(read_aqs(utf16), "UTF-16 or compressed\\? This reader reads plain, gzip or zip",
               class = "rlang_error")
})

test_that("an Excel workbook is named as such, with the way to export it", {
  # The start of an .xlsx file: a zip archive whose first member lies under xl/.
  xlsx <- write_bytes_tmp(c(as.raw(c(0x50, 0x4b, 0x03, 0x04, 0x0a, 0x00, 0x00, 0x00)),
                            charToRaw("xl/workbook.xml"), as.raw(c(0x00, 0x00))), name = "131611.xlsx")
  # The start of an .xls file (OLE2).
  xls <- write_bytes_tmp(as.raw(c(0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0x00, 0x00)), name = "131611.xls")
  for (path in c(xlsx, xls)) {
    expect_error(read_purpleair(path), "Excel workbook: export it to CSV first", class = "rlang_error")
    expect_error(read_aqs(path), "Excel workbook: export it to CSV first", class = "rlang_error")
  }
})

test_that("gzip-compressed files are read like plain ones", {
  path <- file.path(withr::local_tempdir(), "daily.csv.gz")
  con <- gzfile(path, "w")
  writeLines(c(daily_header, daily_rows), con)
  close(con)
  expect_identical(read_purpleair_aqs(path)$ref, c(1.5, 2.5, 3.5, 4.5, 5.5, 6.5))
})

test_that("parse_timestamp() names the accepted forms, and mixing only when mixed", {
  for (value in c("5/1/2023 6:00", "2023/05/01 06:00:00")) {
    err <- expect_error(parse_timestamp(c("2023-05-01T06:00:00Z", value), "t", "x.csv"),
                        "row 2 is .*ISO 8601 is as.*\\+02.*Unix seconds as", class = "rlang_error")
    expect_no_match(conditionMessage(err), "mix")
    expect_match(conditionMessage(err), value, fixed = TRUE)
  }
  expect_error(parse_timestamp(c("1682946000", "2023-05-01T13:00:00Z"), "t", "x.csv", lines = 2:3),
               "mixes ISO 8601 times and Unix seconds: row 1 \\(line 2\\) is .*row 2 \\(line 3\\)",
               class = "rlang_error")
})

test_that("parse_timestamp() takes offsets as +hh:mm, +hhmm and +hh", {
  # All are 2023-05-01 13:00 UTC = 1682946000 s, or 13:30 UTC for the half-hour offset.
  x <- c("2023-05-01T15:00:00+02", "2023-05-01 08:00-05", "2023-05-01T15:00:00+02:00",
         "2023-05-01T08:00:00-0500", "2023-05-01T13:00:00Z", "2023-05-01T19:00+05:30")
  expect_identical(as.numeric(parse_timestamp(x, "t", "x.csv")), 1682946000 + c(0, 0, 0, 0, 0, 1800))
  expect_error(parse_timestamp("2023-05-01T15:00:00+2", "t", "x.csv"), "\\+2", class = "rlang_error")
})

test_that("parse_timestamp() takes zones UTC and GMT alike, and offsets up to 14 hours", {
  # 2023-05-01 13:00 UTC = 1682946000 s.
  x <- c("2023-05-01 13:00:00 UTC", "2023-05-01 13:00:00 GMT", "2023-05-01T13:00:00GMT",
         "2023-05-02T03:00:00+14:00", "2023-05-01T01:00:00-12:00")
  expect_identical(as.numeric(parse_timestamp(x, "t", "x.csv")), rep(1682946000, 5))
})

test_that("parse_timestamp() refuses times that are not on the clock or calendar", {
  # strptime() rolled 24:00 into the next day and a 60th second into the next minute, and
  # offsets of 25 hours or 75 minutes were taken as they stood.
  for (value in c("2023-05-01T24:00:00Z", "2023-05-01T13:59:60Z", "2023-02-30T13:00:00Z",
                  "2023-05-01T13:00:00+25:00", "2023-05-01T13:00:00+02:75", "2023-05-01T13:00:00-1430")) {
    err <- expect_error(parse_timestamp(c("2023-05-01T06:00:00Z", value), "t", "x.csv", lines = 2:3),
                        "row 2 \\(line 3\\) is .*not on the clock or calendar", class = "rlang_error")
    expect_match(conditionMessage(err), value, fixed = TRUE)
  }
  path <- write_bytes_tmp(as_bytes(c("time_stamp,humidity,temperature,pm2.5_cf_1_a,pm2.5_cf_1_b",
                                     "2023-05-01T23:00:00Z,1,1,1,1", "2023-05-01T24:00:00Z,1,1,1,1")),
                          name = "131611.csv")
  expect_error(read_purpleair(path), "time_stamp.*row 2 \\(line 3\\).*not on the clock", class = "rlang_error")
})

test_that("numbers are doubles, never the raw bits of integer64", {
  skip_if_not_installed("bit64")
  big <- bit64::as.integer64(c("1099511627777", NA, "-3"))
  expect_identical(as_number(big, "count", "x.csv"), c(1099511627777, NA, -3))
  expect_identical(as_number(1:3, "count", "x.csv"), c(1, 2, 3))
  expect_error(as_number(c("1", "Inf"), "count", "x.csv", lines = c(2L, 3L)),
               "count.*row 2 \\(line 3\\)", class = "rlang_error")
  # NaN is missing, as read.csv() reads it; hexadecimal is no reading.
  expect_identical(as_number(c("1", "NaN", " nan", "NA"), "count", "x.csv"), c(1, NA, NA, NA))
  expect_identical(as_number(c(1, NaN), "count", "x.csv"), c(1, NA))
  expect_error(as_number(c("1", "0x1A"), "count", "x.csv"), "row 2 is \"0x1A\"", class = "rlang_error")
  # Spaces alone are an empty field, missing as read.csv() reads it.
  expect_identical(as_number(c("1", "   ", "\t", ""), "count", "x.csv"), c(1, NA, NA, NA))
  expect_identical(as_number(c("1", "   ", "\t", ""), "count", "x.csv"),
                   utils::read.csv(text = c("id,count", "a,1", "b,   ", "c,\t", "d,\"\""))$count * 1)

  # A data.table::fread() result holds integer64 columns; unclass() shows what a careless
  # conversion (vapply, matrix, c) would see.
  minutes <- as.POSIXct("2024-03-01", tz = "UTC") + 60 * (0:59)
  sensors <- data.frame(date = minutes, site = "A")
  sensors$count <- bit64::as.integer64(1e12) + bit64::as.integer64(0:59)
  expect_lt(abs(unclass(sensors$count)[1]), 1e-300)
  reference <- data.frame(date = minutes[1], site = "A", pm25 = 7)
  out <- join_reference(sensors, reference, keys = "site")
  expect_type(out$count, "double")
  expect_identical(out$count, 1e12 + mean(0:59))
})

test_that("IDs made of digits keep their leading zeros", {
  path <- write_bytes_tmp(as_bytes(c(daily_header, sub("S1", "0042", daily_rows[1]))))
  expect_identical(read_purpleair_aqs(path)$site, "0042")
})
