# Reference values for tests/stats/test_effects_r.py: the blocked (two-way, no replication)
# ANOVA table and Friedman's test of a queries x systems table.
# Run: Rscript tests/stats/r_reference/blocked_anova_friedman.R   (R 4.x, base stats only)
options(digits = 15)
tab <- matrix(c(0.196, 0.66, 0.52, 0.0, 0.303, 0.211, 0.356, 0.457, 0.493, 0.667, 0.655, 0.646,
                0.789, 0.932, 0.631, 0.483, 0.455, 0.646, 0.196, 0.473, 0.534, 0.297, 0.266, 0.434,
                0.486, 0.526, 0.833, 0.661, 1.0, 1.0, 0.255, 0.675, 0.539, 0.258, 0.34, 0.105),
              ncol = 3, byrow = TRUE)
long <- data.frame(query = factor(rep(1:12, each = 3)), system = factor(rep(c("s1", "s2", "s3"), 12)),
                   score = as.vector(t(tab)))
a <- summary(aov(score ~ system + query, data = long))[[1]]
for (i in 1:3) cat(sprintf("%s df=%d ss=%.15g ms=%.15g F=%.15g p=%.15g\n", trimws(rownames(a)[i]),
                           a[i, 1], a[i, 2], a[i, 3], a[i, 4], a[i, 5]))
f <- friedman.test(tab)  # rows = blocks (queries), columns = groups (systems); ties: 1.0, 1.0
cat(sprintf("friedman chi2=%.15g df=%d p=%.15g\n", f$statistic, f$parameter, f$p.value))
