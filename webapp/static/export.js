// The progress page of a queue export: polls the JSON status and moves the progress bar;
// when the file is ready (or the export failed) the page is loaded again to show the link.
// No inline scripts: the CSP forbids them. Without JavaScript the page refreshes itself.
(function () {
  "use strict";
  function start() {
    var box = document.getElementById("export-job");
    if (!box) {
      return;
    }
    var url = box.getAttribute("data-status-url");
    var bar = document.getElementById("export-progress");
    var count = document.getElementById("export-count");
    var state = document.getElementById("export-state");
    var group = function (n) {
      return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, "\u00a0");
    };
    function poll() {
      fetch(url, { credentials: "same-origin", cache: "no-store" })
        .then(function (resp) {
          return resp.ok ? resp.json() : null;
        })
        .then(function (s) {
          if (!s) {
            window.setTimeout(poll, 3000);
            return;
          }
          if (s.status !== "pending" && s.status !== "running") {
            window.location.reload();
            return;
          }
          if (bar && s.total) {
            bar.max = s.total;
            bar.value = s.done;
            bar.textContent = s.percent + "\u00a0%";
          }
          if (count) {
            count.textContent = group(s.done) + " / " + (s.total === null ? "…" : group(s.total));
          }
          if (state && s.status === "running") {
            state.textContent = state.getAttribute("data-running") || state.textContent;
          }
          window.setTimeout(poll, 1000);
        })
        .catch(function () {
          window.setTimeout(poll, 3000);
        });
    }
    window.setTimeout(poll, 500);
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
