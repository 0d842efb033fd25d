// The broadcast overlay (templates/onair/overlay.html): shows the on-air row the server
// rendered, takes every newer row from the stream (Server-Sent Events, event «row»: held
// open, each row pushed as it is committed; when it ends EventSource reconnects after its
// «retry»), and counts the
// minute down to minute_ends_at on the server's clock (data-server-now at render, so the
// graphics machine's own clock does not matter). Once the row says «closed», or the feed
// refuses the key (401: revoked), every graphic is hidden: the page then draws nothing.
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

  // true once the feed refused the key: nothing is drawn from then on
  var refused = false;

  function $(id) { return document.getElementById(id); }
  function setText(id, text) { var el = $(id); if (el.textContent !== text) { el.textContent = text; } }
  function off() { return refused || row.status === "closed"; }

  // the row's prize ("300.00 BYN", the contract's point) the way Sova's pages print money
  // in the game's language (webapp.onair.views.shown_prize): "300,00 BYN"
  function money(prize) {
    var m = /^(\d+(?:\.\d+)?) (\S+)$/.exec(prize);
    if (!m) { return prize; }
    // Russian after the game's language: a browser without Belarusian data (Chromium's
    // trimmed ICU) would fall back to its own locale's point; CLDR's be and ru agree here
    var amount = new Intl.NumberFormat([row.language, "ru"], { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    return amount.format(Number(m[1])) + "\u00a0" + m[2];
  }

  function render(r) {
    row = r;
    root.dataset.revision = String(r.revision);
    document.documentElement.lang = r.language;
    $("score").hidden = off();
    setText("score-experts", String(r.score_experts));
    setText("score-viewers", String(r.score_viewers));
    setText("team", r.team);
    $("sector").hidden = off() || !r.sector;
    setText("round", String(r.round));
    setText("sector-number", String(r.sector));
    setText("sector-kind", texts[r.sector_kind] || "");
    setText("prize", money(r.prize));
    setText("expert", r.expert ? texts.expert + ": " + r.expert : "");
    setText("result", r.result ? texts["won_" + r.result] : "");
    $("author").hidden = off() || !r.author;
    setText("author-name", r.author);
    setText("author-city", r.city ? ", " + r.city : "");
    $("minute").dataset.endsAt = r.minute_ends_at;
    tick();
  }

  function tick() {
    var minute = $("minute");
    if (off() || !row.minute_running || !row.minute_ends_at) {
      minute.hidden = true;
      return;
    }
    // never more than a minute: an offset measured late (a loaded machine) errs only toward
    // an earlier server clock, which would show «1:01» at the minute's start
    var left = Math.min(60, Math.max(0, Math.ceil((Date.parse(row.minute_ends_at) - (Date.now() + offset)) / 1000)));
    minute.hidden = false;
    minute.classList.toggle("over", left === 0);
    setText("minute-left", String(Math.floor(left / 60)) + ":" + String(left % 60).padStart(2, "0"));
  }

  render(row);
  setInterval(tick, 200);
  var source = null;

  function connect() {
    var url = root.dataset.stream + "&last_id=" + encodeURIComponent(String(row.revision));
    source = new EventSource(url);
    source.addEventListener("row", function (event) {
      var next = JSON.parse(event.data);
      if (next.revision > row.revision) { render(next); }
    });
    source.addEventListener("error", function () {
      // a lost connection is retried by EventSource itself; any answer but 200 closes it
      // for good: 204 after a closed game's last row, 401 once the key is revoked, or a
      // proxy's 5xx — the one way to tell them apart is to ask again
      if (source.readyState !== EventSource.CLOSED || row.status === "closed") { return; }
      fetch(url, { cache: "no-store" }).then(function (answer) {
        if (answer.status === 401) {
          refused = true;
          root.dataset.refused = "true";
          render(row);
        } else {
          setTimeout(connect, 1000);
        }
      }, function () { setTimeout(connect, 1000); });
    });
  }

  connect();
})();
