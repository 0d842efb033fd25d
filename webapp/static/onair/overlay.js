// The broadcast overlay (templates/onair/overlay.html): shows the on-air row the server
// rendered, takes every newer row from the stream (Server-Sent Events, event «row»; the
// stream answers at once and EventSource reconnects after its «retry»), and counts the
// minute down to minute_ends_at on the server's clock (data-server-now at render, so the
// graphics machine's own clock does not matter).
(function () {
  "use strict";
  var root = document.getElementById("onair");
  if (!root) { return; }
  var texts = JSON.parse(root.dataset.texts);
  var row = JSON.parse(root.dataset.row);
  // server minus this machine, taken at the moment the page's answer began to arrive (the
  // server read its clock just before): the time the page then took to load and run this
  // script would otherwise count as clock skew and add up to a second to the countdown
  var nav = (performance.getEntriesByType && performance.getEntriesByType("navigation")[0]) || null;
  var received = nav && nav.responseStart ? performance.timeOrigin + nav.responseStart : Date.now();
  var offset = Number(root.dataset.serverNow) - received;

  function $(id) { return document.getElementById(id); }
  function setText(id, text) { var el = $(id); if (el.textContent !== text) { el.textContent = text; } }

  function render(r) {
    row = r;
    root.dataset.revision = String(r.revision);
    document.documentElement.lang = r.language;
    setText("score-experts", String(r.score_experts));
    setText("score-viewers", String(r.score_viewers));
    setText("team", r.team);
    $("sector").hidden = !r.sector;
    setText("round", String(r.round));
    setText("sector-number", String(r.sector));
    setText("sector-kind", texts[r.sector_kind] || "");
    setText("prize", r.prize);
    setText("expert", r.expert ? texts.expert + ": " + r.expert : "");
    setText("result", r.result ? texts["won_" + r.result] : "");
    $("author").hidden = !r.author;
    setText("author-name", r.author);
    setText("author-city", r.city ? ", " + r.city : "");
    $("minute").dataset.endsAt = r.minute_ends_at;
    tick();
  }

  function tick() {
    var minute = $("minute");
    if (!row.minute_running || !row.minute_ends_at) {
      minute.hidden = true;
      return;
    }
    var left = Math.max(0, Math.ceil((Date.parse(row.minute_ends_at) - (Date.now() + offset)) / 1000));
    minute.hidden = false;
    minute.classList.toggle("over", left === 0);
    setText("minute-left", String(Math.floor(left / 60)) + ":" + String(left % 60).padStart(2, "0"));
  }

  render(row);
  setInterval(tick, 200);
  var url = root.dataset.stream + "&last_id=" + encodeURIComponent(String(row.revision));
  var source = new EventSource(url);
  source.addEventListener("row", function (event) {
    var next = JSON.parse(event.data);
    if (next.revision > row.revision) { render(next); }
  });
})();
