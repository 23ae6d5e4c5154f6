# Reference values for tests/stats/test_mixed.py (Satterthwaite df of mixed_model).
# Run: Rscript tests/stats/r_reference/mixed_satterthwaite.R  (R 4.x, lmerTest from Debian
# r-cran-lmertest). Model: score ~ 0 + system + (1 | query), REML.
suppressMessages(library(lmerTest))
tab <- matrix(c(0.196, 0.66, 0.52, 0.0, 0.303, 0.211, 0.356, 0.457, 0.493, 0.667, 0.655, 0.646,
                0.789, 0.932, 0.631, 0.483, 0.455, 0.646, 0.196, 0.473, 0.534, 0.297, 0.266, 0.434,
                0.486, 0.526, 0.833, 0.661, 1.0, 1.0, 0.255, 0.675, 0.539, 0.258, 0.34, 0.105),
              ncol = 3, byrow = TRUE)
long <- data.frame(query = factor(rep(1:12, each = 3)), system = factor(rep(c("s1", "s2", "s3"), 12)),
                   score = as.vector(t(tab)))
run <- function(name, d) {
  m <- lmer(score ~ 0 + system + (1 | query), data = d, REML = TRUE,
            control = lmerControl(optimizer = "bobyqa", optCtrl = list(rhoend = 1e-12)))
  vc <- as.data.frame(VarCorr(m))
  cat(sprintf("%s su2=%.15g s2=%.15g\n", name, vc$vcov[1], vc$vcov[2]))
  co <- summary(m)$coefficients
  for (i in 1:3) cat(sprintf("%s mean %s est=%.15g se=%.15g df=%.15g\n", name, rownames(co)[i],
                             co[i, 1], co[i, 2], co[i, 3]))
  for (pr in list(c(1, 2), c(1, 3), c(2, 3))) {
    L <- numeric(3); L[pr[1]] <- 1; L[pr[2]] <- -1
    r <- contest1D(m, L)
    cat(sprintf("%s diff %d-%d est=%.15g se=%.15g df=%.15g p=%.15g\n", name, pr[1], pr[2],
                r$Estimate, r$`Std. Error`, r$df, r$`Pr(>|t|)`))
  }
}
run("balanced", long)
# unbalanced: system s2 misses query 3, system s3 misses queries 5 and 9 (missing="keep")
drop <- (long$query == 3 & long$system == "s2") | (long$query %in% c(5, 9) & long$system == "s3")
run("unbalanced", long[!drop, ])
