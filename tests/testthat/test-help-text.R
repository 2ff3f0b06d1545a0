# Text help (?topic in a terminal, RStudio's console help) shows an \eqn{latex}{ascii} by its
# second argument, and without one the LaTeX itself: ?predict.ncam_baseline read
# "\hattheta \pm z_{(1+level)/2} \, sd". Every \eqn and \deqn of ncam's help has an ASCII form.

# The \eqn and \deqn of an Rd object with one argument, as their LaTeX.
latex_only <- function(rd) {
  found <- character()
  walk <- function(x) {
    tag <- attr(x, "Rd_tag")
    if (!is.null(tag) && tag %in% c("\\eqn", "\\deqn") && length(x) < 2L) {
      found <<- c(found, paste(unlist(x), collapse = ""))
    }
    if (is.list(x)) for (part in x) walk(part)
  }
  walk(rd)
  found
}

test_that("every equation of the help has an ASCII form for text help", {
  db <- tools::Rd_db("ncam")
  missing <- lapply(db, latex_only)
  missing <- missing[lengths(missing) > 0L]
  shown <- vapply(names(missing), function(topic) paste0(topic, ": ", paste(missing[[topic]], collapse = " | ")), "")
  expect_identical(names(missing), character(), label = paste(shown, collapse = "\n"))

  # And the text of the pages that leaked LaTeX reads as plain text.
  text <- function(topic) {
    gsub("\\s+", " ", paste(utils::capture.output(tools::Rd2txt(db[[topic]], options = list(underline_titles = FALSE))), collapse = " "))
  }
  baseline <- text("predict.ncam_baseline.Rd")
  expect_match(baseline, "theta_hat +/- z_((1+level)/2) * sd", fixed = TRUE)
  expect_no_match(baseline, "\\pm", fixed = TRUE)
  expect_match(text("predict.ncam.Rd"), "mu +/- z_((1+level)/2) * sd", fixed = TRUE)
  toy <- text("simulate_toy.Rd")
  expect_no_match(toy, "\\\\(tilde|sin|cos|sim|mathrm|varepsilon)")
})
