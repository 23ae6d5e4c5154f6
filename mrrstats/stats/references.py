"""The bibliography of the methods mrrstats names: one BibTeX entry per key.

:data:`REFERENCES` maps a citation key to its BibTeX entry; :func:`bibtex` joins the
entries of some keys (in the order given, each once). The methods paragraphs
(:mod:`mrrstats.stats.methods`) cite these keys and nothing else, so that
``references.bib`` of a report holds every work its ``methods.md`` names.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..errors import ParameterError

__all__ = ["REFERENCES", "bibtex"]


def _entry(kind: str, key: str, **fields: str) -> str:
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields.items())
    return f"@{kind}{{{key},\n{body}\n}}"


#: citation key -> BibTeX entry
REFERENCES: dict[str, str] = {
    "student1908": _entry(
        "article",
        "student1908",
        author="Student",
        title="The Probable Error of a Mean",
        journal="Biometrika",
        year="1908",
        volume="6",
        number="1",
        pages="1--25",
        doi="10.2307/2331554",
    ),
    "welch1947": _entry(
        "article",
        "welch1947",
        author="Welch, B. L.",
        title="The Generalization of `{S}tudent's' Problem when Several Different "
        "Population Variances are Involved",
        journal="Biometrika",
        year="1947",
        volume="34",
        number="1/2",
        pages="28--35",
        doi="10.2307/2332510",
    ),
    "satterthwaite1946": _entry(
        "article",
        "satterthwaite1946",
        author="Satterthwaite, F. E.",
        title="An Approximate Distribution of Estimates of Variance Components",
        journal="Biometrics Bulletin",
        year="1946",
        volume="2",
        number="6",
        pages="110--114",
        doi="10.2307/3002019",
    ),
    "wilcoxon1945": _entry(
        "article",
        "wilcoxon1945",
        author="Wilcoxon, Frank",
        title="Individual Comparisons by Ranking Methods",
        journal="Biometrics Bulletin",
        year="1945",
        volume="1",
        number="6",
        pages="80--83",
        doi="10.2307/3001968",
    ),
    "hodges1963": _entry(
        "article",
        "hodges1963",
        author="Hodges, J. L. and Lehmann, E. L.",
        title="Estimates of Location Based on Rank Tests",
        journal="The Annals of Mathematical Statistics",
        year="1963",
        volume="34",
        number="2",
        pages="598--611",
        doi="10.1214/aoms/1177704172",
    ),
    "dixon1946": _entry(
        "article",
        "dixon1946",
        author="Dixon, W. J. and Mood, A. M.",
        title="The Statistical Sign Test",
        journal="Journal of the American Statistical Association",
        year="1946",
        volume="41",
        number="236",
        pages="557--566",
        doi="10.1080/01621459.1946.10501898",
    ),
    "clopper1934": _entry(
        "article",
        "clopper1934",
        author="Clopper, C. J. and Pearson, E. S.",
        title="The Use of Confidence or Fiducial Limits Illustrated in the Case of the Binomial",
        journal="Biometrika",
        year="1934",
        volume="26",
        number="4",
        pages="404--413",
        doi="10.1093/biomet/26.4.404",
    ),
    "fisher1935": _entry(
        "book",
        "fisher1935",
        author="Fisher, R. A.",
        title="The Design of Experiments",
        publisher="Oliver and Boyd",
        address="Edinburgh",
        year="1935",
    ),
    "pitman1937": _entry(
        "article",
        "pitman1937",
        author="Pitman, E. J. G.",
        title="Significance Tests Which May be Applied to Samples From any Populations",
        journal="Supplement to the Journal of the Royal Statistical Society",
        year="1937",
        volume="4",
        number="1",
        pages="119--130",
        doi="10.2307/2984124",
    ),
    "garthwaite1996": _entry(
        "article",
        "garthwaite1996",
        author="Garthwaite, Paul H.",
        title="Confidence Intervals from Randomization Tests",
        journal="Biometrics",
        year="1996",
        volume="52",
        number="4",
        pages="1387--1393",
        doi="10.2307/2532852",
    ),
    "phipson2010": _entry(
        "article",
        "phipson2010",
        author="Phipson, Belinda and Smyth, Gordon K.",
        title="Permutation {P}-values Should Never Be Zero: Calculating Exact {P}-values "
        "When Permutations Are Randomly Drawn",
        journal="Statistical Applications in Genetics and Molecular Biology",
        year="2010",
        volume="9",
        number="1",
        pages="Article 39",
        doi="10.2202/1544-6115.1585",
    ),
    "efron1979": _entry(
        "article",
        "efron1979",
        author="Efron, B.",
        title="Bootstrap Methods: Another Look at the Jackknife",
        journal="The Annals of Statistics",
        year="1979",
        volume="7",
        number="1",
        pages="1--26",
        doi="10.1214/aos/1176344552",
    ),
    "efron1987": _entry(
        "article",
        "efron1987",
        author="Efron, Bradley",
        title="Better Bootstrap Confidence Intervals",
        journal="Journal of the American Statistical Association",
        year="1987",
        volume="82",
        number="397",
        pages="171--185",
        doi="10.1080/01621459.1987.10478410",
    ),
    "efron1993": _entry(
        "book",
        "efron1993",
        author="Efron, Bradley and Tibshirani, Robert J.",
        title="An Introduction to the Bootstrap",
        publisher="Chapman \\& Hall",
        address="New York",
        year="1993",
    ),
    "hall1991": _entry(
        "article",
        "hall1991",
        author="Hall, Peter and Wilson, Susan R.",
        title="Two Guidelines for Bootstrap Hypothesis Testing",
        journal="Biometrics",
        year="1991",
        volume="47",
        number="2",
        pages="757--762",
        doi="10.2307/2532163",
    ),
    "field2007": _entry(
        "article",
        "field2007",
        author="Field, Christopher A. and Welsh, Alan H.",
        title="Bootstrapping Clustered Data",
        journal="Journal of the Royal Statistical Society: Series B (Statistical Methodology)",
        year="2007",
        volume="69",
        number="3",
        pages="369--390",
        doi="10.1111/j.1467-9868.2007.00593.x",
    ),
    "holm1979": _entry(
        "article",
        "holm1979",
        author="Holm, Sture",
        title="A Simple Sequentially Rejective Multiple Test Procedure",
        journal="Scandinavian Journal of Statistics",
        year="1979",
        volume="6",
        number="2",
        pages="65--70",
    ),
    "dunn1961": _entry(
        "article",
        "dunn1961",
        author="Dunn, Olive Jean",
        title="Multiple Comparisons Among Means",
        journal="Journal of the American Statistical Association",
        year="1961",
        volume="56",
        number="293",
        pages="52--64",
        doi="10.1080/01621459.1961.10482090",
    ),
    "benjamini1995": _entry(
        "article",
        "benjamini1995",
        author="Benjamini, Yoav and Hochberg, Yosef",
        title="Controlling the False Discovery Rate: A Practical and Powerful Approach to "
        "Multiple Testing",
        journal="Journal of the Royal Statistical Society: Series B (Methodological)",
        year="1995",
        volume="57",
        number="1",
        pages="289--300",
        doi="10.1111/j.2517-6161.1995.tb02031.x",
    ),
    "benjamini2005": _entry(
        "article",
        "benjamini2005",
        author="Benjamini, Yoav and Yekutieli, Daniel",
        title="False Discovery Rate-Adjusted Multiple Confidence Intervals for Selected "
        "Parameters",
        journal="Journal of the American Statistical Association",
        year="2005",
        volume="100",
        number="469",
        pages="71--81",
        doi="10.1198/016214504000001907",
    ),
    "strassburger2008": _entry(
        "article",
        "strassburger2008",
        author="Strassburger, Klaus and Bretz, Frank",
        title="Compatible Simultaneous Lower Confidence Bounds for the {H}olm Procedure "
        "and Other {B}onferroni-Based Closed Tests",
        journal="Statistics in Medicine",
        year="2008",
        volume="27",
        number="24",
        pages="4914--4927",
        doi="10.1002/sim.3338",
    ),
    "westfall1993": _entry(
        "book",
        "westfall1993",
        author="Westfall, Peter H. and Young, S. Stanley",
        title="Resampling-Based Multiple Testing: Examples and Methods for p-Value Adjustment",
        publisher="Wiley",
        address="New York",
        year="1993",
    ),
    "tukey1949": _entry(
        "article",
        "tukey1949",
        author="Tukey, John W.",
        title="Comparing Individual Means in the Analysis of Variance",
        journal="Biometrics",
        year="1949",
        volume="5",
        number="2",
        pages="99--114",
        doi="10.2307/3001913",
    ),
    "dunnett1955": _entry(
        "article",
        "dunnett1955",
        author="Dunnett, Charles W.",
        title="A Multiple Comparison Procedure for Comparing Several Treatments with a Control",
        journal="Journal of the American Statistical Association",
        year="1955",
        volume="50",
        number="272",
        pages="1096--1121",
        doi="10.1080/01621459.1955.10501294",
    ),
    "carterette2012": _entry(
        "article",
        "carterette2012",
        author="Carterette, Benjamin A.",
        title="Multiple Testing in Statistical Analysis of Systems-Based Information "
        "Retrieval Experiments",
        journal="ACM Transactions on Information Systems",
        year="2012",
        volume="30",
        number="1",
        pages="4:1--4:34",
        doi="10.1145/2094072.2094076",
    ),
    "sakai2018": _entry(
        "book",
        "sakai2018",
        author="Sakai, Tetsuya",
        title="Laboratory Experiments in Information Retrieval: Sample Sizes, Effect Sizes, "
        "and Statistical Power",
        publisher="Springer",
        address="Singapore",
        year="2018",
        doi="10.1007/978-981-13-1199-4",
    ),
    "smucker2007": _entry(
        "inproceedings",
        "smucker2007",
        author="Smucker, Mark D. and Allan, James and Carterette, Ben",
        title="A Comparison of Statistical Significance Tests for Information Retrieval "
        "Evaluation",
        booktitle="Proceedings of the Sixteenth ACM Conference on Information and Knowledge "
        "Management (CIKM '07)",
        year="2007",
        pages="623--632",
        doi="10.1145/1321440.1321528",
    ),
    "urbano2019": _entry(
        "inproceedings",
        "urbano2019",
        author="Urbano, Juli{\\'a}n and Lima, Harlley and Hanjalic, Alan",
        title="Statistical Significance Testing in Information Retrieval: An Empirical "
        "Analysis of Type {I}, Type {II} and Type {III} Errors",
        booktitle="Proceedings of the 42nd International ACM SIGIR Conference on Research "
        "and Development in Information Retrieval",
        year="2019",
        pages="505--514",
        doi="10.1145/3331184.3331259",
    ),
    "schuirmann1987": _entry(
        "article",
        "schuirmann1987",
        author="Schuirmann, Donald J.",
        title="A Comparison of the Two One-Sided Tests Procedure and the Power Approach for "
        "Assessing the Equivalence of Average Bioavailability",
        journal="Journal of Pharmacokinetics and Biopharmaceutics",
        year="1987",
        volume="15",
        number="6",
        pages="657--680",
        doi="10.1007/BF01068419",
    ),
    "laird1982": _entry(
        "article",
        "laird1982",
        author="Laird, Nan M. and Ware, James H.",
        title="Random-Effects Models for Longitudinal Data",
        journal="Biometrics",
        year="1982",
        volume="38",
        number="4",
        pages="963--974",
        doi="10.2307/2529876",
    ),
}


def bibtex(keys: Iterable[str]) -> str:
    """The BibTeX entries of ``keys`` (each once, in the order given), one blank line apart.

    >>> print(bibtex(["holm1979"]).splitlines()[0])
    @article{holm1979,
    """
    seen: list[str] = []
    for k in keys:
        if k not in REFERENCES:
            raise ParameterError(f"no reference with key {k!r}", name="keys")
        if k not in seen:
            seen.append(k)
    return "".join(REFERENCES[k] + "\n\n" for k in seen)
