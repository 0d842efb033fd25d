/* Game page: live status of the game's documents.
 * While a document is «готовится», poll documents.json (webapp/games/views/game_page.py::documents_json,
 * same role checks as the page) every few seconds and re-render the list, so «готовится»
 * turns into «скачать PDF» without a reload. Stops when nothing is pending. No inline
 * script: CSP-safe. Without this file the page is the same, only static. */
(function () {
  "use strict";
  var list = document.getElementById("game-documents");
  if (!list || !window.fetch) { return; }
  var PERIOD_MS = 3000;
  var STATUS = {pending: "готовится", failed: "ошибка"};

  function pending() {
    return list.querySelector("li[data-status=pending]") !== null;
  }

  function render(docs) {
    list.textContent = "";
    if (!docs.length) {
      list.appendChild(document.createElement("li")).textContent = "Документов нет.";
      return;
    }
    docs.forEach(function (d) {
      var li = document.createElement("li");
      li.setAttribute("data-document", String(d.id));
      li.setAttribute("data-status", d.status);
      li.appendChild(document.createTextNode(d.label + ": "));
      if (d.url) {
        var a = document.createElement("a");
        a.href = d.url;
        a.textContent = d.download || "скачать PDF";
        li.appendChild(a);
      } else {
        li.appendChild(document.createTextNode(STATUS[d.status] || d.status));
      }
      list.appendChild(li);
    });
  }

  function poll() {
    fetch(list.getAttribute("data-url"), {credentials: "same-origin", headers: {"Accept": "application/json"}})
      .then(function (resp) { return resp.ok ? resp.json() : null; })
      .then(function (body) {
        if (body) { render(body.documents); }
        if (!body || body.pending) { window.setTimeout(poll, PERIOD_MS); }
      })
      .catch(function () { window.setTimeout(poll, PERIOD_MS * 2); });
  }

  if (pending()) { window.setTimeout(poll, PERIOD_MS); }
})();
