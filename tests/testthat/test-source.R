# The package sources define each top-level name once: R keeps the definition of the file it
# reads last, so a second helper of the same name silently replaces the first everywhere.

test_that("no top-level name is defined in two places", {
  files <- package_r_files()
  defined <- do.call(rbind, lapply(files, function(f) {
    exprs <- parse(f, keep.source = FALSE)
    names <- vapply(exprs, function(x) {
      if (is.call(x) && as.character(x[[1]]) %in% c("<-", "=") && is.name(x[[2]])) as.character(x[[2]]) else NA_character_
    }, character(1))
    data.frame(name = names[!is.na(names)], file = rep(basename(f), sum(!is.na(names))))
  }))
  twice <- defined[defined$name %in% defined$name[duplicated(defined$name)], ]
  expect_identical(paste(twice$name, twice$file), character(0))
})
