# Reference values for tests/stats/test_meta.py (REML, SJ, Knapp-Hartung, Q-profile).
# Run: Rscript tests/stats/r_reference/meta_tau2.R   (R 4.x, metafor from Debian r-cran-metafor)
suppressMessages(library(metafor))
options(digits = 15)
ctl <- list(threshold = 1e-12, maxiter = 10000)
show <- function(name, y, v) {
  for (m in c("REML", "SJ", "DL", "PM")) {
    for (tst in c("z", "knha")) {
      r <- rma(y, v, method = m, test = tst, control = ctl)
      ci <- confint(r, control = list(tol = 1e-12))$random["tau^2", ]
      cat(sprintf("%s %s %s tau2=%.15g mu=%.15g se=%.15g ci=(%.15g, %.15g) stat=%.15g p=%.15g tau2ci=(%.15g, %.15g)\n",
                  name, m, tst, r$tau2, r$b[1], r$se, r$ci.lb, r$ci.ub, r$zval, r$pval,
                  ci[2], ci[3]))
    }
  }
}
# Kacker (2004, Table 1)
y <- c(61.0, 61.4, 62.21, 62.3, 62.34, 62.6, 62.7, 62.84, 65.9)
v <- c(0.2025, 1.21, 0.09, 0.2025, 0.3844, 0.5625, 0.0676, 0.0225, 1.8225)
show("kacker", y, v)
# BCG vaccine trials (metafor's dat.bcg), log risk ratios
dat <- escalc(measure = "RR", ai = tpos, bi = tneg, ci = cpos, di = cneg, data = dat.bcg)
cat("bcg y =", sprintf("%.17g", dat$yi), "\n")
cat("bcg v =", sprintf("%.17g", dat$vi), "\n")
show("bcg", as.numeric(dat$yi), as.numeric(dat$vi))
