source("bench/coverage_sim/summ.R")
for (cond in c("anchored", "reference")) {
  d <- readRDS(sprintf("bench/coverage_sim/part1_%s.rds", cond)); d <- d[!d$use_reference, ]
  d$cov_post_only <- as.numeric(abs(d$z_theta) <= qnorm((1 + d$level) / 2) * d$post_sd)
  cat(cond, ": mean post_sd", round(mean(d$post_sd),3), " mean pred_sd(cred)", round(mean(d$pred_sd_cred),3),
      " ratio sd(err)/rms(post_sd)=", round(sd(d$z_theta[d$level==0.9])/sqrt(mean(d$post_sd[d$level==0.9]^2)),3), "\n")
  print(covsum(d, "cov_post_only"), row.names = FALSE)
  d9 <- d[d$level == 0.9, ]; d9$decile <- cut(d9$x, seq(-1, 1, 0.2), labels = 1:10)
  print(covsum(d9, "cov_post_only", "decile")[, c("decile","achieved","se_mc","z")], row.names = FALSE)
}
