/* mrrstats documentation: an excerpt under every search result.
 *
 * Sphinx's search page downloads a result's page to show an excerpt of it, but shows
 * none under a Python object (only "Python function, in ...") and none at all when
 * the site is opened from disk (browsers refuse to download file:// pages). The build
 * writes, for every page, the first paragraph of each section and object
 * (search-excerpts-data.js, docs/_ext/mrrstats_site.py); this puts the one of the
 * result's anchor (else the page's) under each result that has no excerpt.
 */
(function () {
  "use strict";
  var EXCERPTS = window.MRRSTATS_SEARCH_EXCERPTS || {};
  // Sphinx's settings (a global `const` of documentation_options.js, loaded before us)
  var OPTIONS = typeof DOCUMENTATION_OPTIONS === "undefined" ? {} : DOCUMENTATION_OPTIONS;
  if (window.location.protocol === "file:") {
    // the download would fail (an error in the console, no excerpt): ours instead
    OPTIONS.SHOW_SEARCH_SUMMARY = false;
  }

  function lookUp(href) {
    var hash = href.indexOf("#");
    var path = hash < 0 ? href : href.slice(0, hash);
    var anchor = hash < 0 ? "" : decodeURIComponent(href.slice(hash));
    var suffix = OPTIONS.LINK_SUFFIX || ".html";
    if (path.slice(-suffix.length) === suffix) path = path.slice(0, -suffix.length);
    var page = EXCERPTS[path];
    if (!page) return "";
    return page[anchor] || page[""] || "";
  }

  function terms() {
    var q = new URLSearchParams(window.location.search).get("q") || "";
    return q.toLowerCase().split(/\s+/).filter(function (t) { return t.length > 1; });
  }

  function fill(li) {
    if (li.dataset.mrrstatsExcerpt) return;
    li.dataset.mrrstatsExcerpt = "1";
    var hasDescr = li.querySelector("span") !== null;
    var sphinxFetches = !hasDescr && OPTIONS.SHOW_SEARCH_SUMMARY;
    if (sphinxFetches || li.querySelector("p.context")) return;
    var link = li.querySelector("a");
    var text = link ? lookUp(link.getAttribute("href") || "") : "";
    if (!text) return;
    var p = document.createElement("p");
    p.className = "context mrrstats-excerpt";
    p.textContent = text;
    li.appendChild(p);
    if (typeof _highlightText === "function") {
      terms().forEach(function (t) { _highlightText(p, t, "highlighted"); });
    }
  }

  function watch() {
    var results = document.getElementById("search-results");
    if (!results) return;
    results.querySelectorAll("li").forEach(fill);
    new MutationObserver(function (changes) {
      changes.forEach(function (c) {
        c.addedNodes.forEach(function (n) {
          if (n.nodeType !== 1) return;
          if (n.tagName === "LI") fill(n);
          else n.querySelectorAll && n.querySelectorAll("li").forEach(fill);
        });
      });
    }).observe(results, {childList: true, subtree: true});
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", watch);
  else watch();
})();
