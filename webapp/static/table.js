/* Table builder: drag a question onto another slot to swap them (POST to the same
 * endpoint as the no-JS "Переставить" form), then reload the page. No inline scripts. */
(function () {
  "use strict";
  var table = document.getElementById("table-builder");
  if (!table || table.dataset.editable !== "yes" || !window.fetch) { return; }
  var dragged = null;
  table.addEventListener("dragstart", function (ev) {
    var slot = ev.target.closest && ev.target.closest(".slot");
    if (!slot) { return; }
    dragged = slot;
    ev.dataTransfer.effectAllowed = "move";
    ev.dataTransfer.setData("text/plain", slot.dataset.sector + ":" + slot.dataset.slot);
  });
  table.addEventListener("dragover", function (ev) {
    if (dragged && ev.target.closest && ev.target.closest(".slot")) { ev.preventDefault(); }
  });
  table.addEventListener("drop", function (ev) {
    var target = ev.target.closest && ev.target.closest(".slot");
    if (!dragged || !target || target === dragged) { return; }
    ev.preventDefault();
    var body = new FormData();
    body.append("csrf_token", table.dataset.csrf);
    body.append("swap-sector_a", dragged.dataset.sector);
    body.append("swap-slot_a", dragged.dataset.slot);
    body.append("swap-sector_b", target.dataset.sector);
    body.append("swap-slot_b", target.dataset.slot);
    dragged = null;
    fetch(table.dataset.swapUrl, {method: "POST", body: body, credentials: "same-origin",
                                  headers: {"Accept": "application/json"}})
      .then(function (resp) { return resp.json(); })
      .then(function (r) {
        if (r.ok) { window.location.reload(); return; }
        var box = document.getElementById("table-message");
        box.textContent = r.error; box.hidden = false;
      });
  });
})();
