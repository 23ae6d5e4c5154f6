# Reference values for tests/stats/test_bootstrap_r.py: boot.ci(type = c("norm", "stud")).
# Run: Rscript tests/stats/r_reference/boot_ci.R   (R 4.x, boot from Debian r-cran-boot)
# Writes boot_ci_replicates.csv (the R = 999 replicates: mean and its variance s^2/n) and
# prints the intervals; both are copied into the test.
suppressMessages(library(boot))
options(digits = 15)
x <- c(1, 0.5, 1, 0.25, 1, 0.333, 0.2, 1, 0.5, 1, 0.1, 1, 0.0, 0.125, 1, 0.5, 0.333, 1,
       0.0, 0.25)
stat <- function(d, i) { y <- d[i]; c(mean(y), var(y) / length(y)) }
set.seed(20261129)
b <- boot(x, stat, R = 999)
here <- if (dir.exists("tests/stats/r_reference")) "tests/stats/r_reference" else "."
write.csv(data.frame(mean = sprintf("%.17g", b$t[, 1]), var = sprintf("%.17g", b$t[, 2])),
          file.path(here, "boot_ci_replicates.csv"), row.names = FALSE, quote = FALSE)
for (cl in c(0.95, 0.9)) {
  ci <- boot.ci(b, conf = cl, type = c("norm", "stud"))
  cat(sprintf("conf=%g norm=(%.15g, %.15g) stud=(%.15g, %.15g)\n", cl, ci$normal[2], ci$normal[3],
              ci$student[4], ci$student[5]))
}
# Monte-Carlo comparison of whole runs (different random streams): R = 20000
set.seed(1)
b2 <- boot(x, stat, R = 20000)
ci <- boot.ci(b2, conf = 0.95, type = c("norm", "stud"))
cat(sprintf("R=20000 norm=(%.15g, %.15g) stud=(%.15g, %.15g)\n", ci$normal[2], ci$normal[3],
            ci$student[4], ci$student[5]))
