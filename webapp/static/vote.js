/* Live tally of the 2009 §3.1 audience vote (templates/votes/_panel.html): polls
 * votes.tally (JSON) every second and re-renders the panel without reloading the page.
 * Controls (open / close) are re-drawn only when the vote's state changes. No inline
 * script (CSP). */
(function () {
  "use strict";
  var root = document.getElementById("vote-panel");
  if (!root || !window.fetch || root.dataset.live) { return; }
  root.dataset.live = "1";
  // the state the page was rendered in ("none:true" …), so the first poll redraws the
  // controls too when the game changed in between
  var lastState = root.dataset.state || null;
  // the page's words, translated by the template (data-t-*): the script has none of its own
  var t = {
    none: root.dataset.tNone, open: root.dataset.tOpen, closed: root.dataset.tClosed,
    openButton: root.dataset.tOpenButton, closeButton: root.dataset.tCloseButton,
    confirm: root.dataset.tConfirm, results: root.dataset.tResults
  };

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }
  function byId(id) { return document.getElementById(id); }
  function postForm(url, label, cls, withConfirm) {
    var form = el("form", {method: "post", action: url, "class": "action"});
    form.appendChild(el("input", {type: "hidden", name: "csrf_token", value: root.dataset.csrf}));
    form.appendChild(el("input", {type: "hidden", name: "next", value: root.dataset.next}));
    if (withConfirm) {
      var lab = el("label", {"class": "check"});
      lab.appendChild(el("input", {type: "checkbox", name: "confirm", value: "y", required: ""}));
      lab.appendChild(document.createTextNode(" " + t.confirm));
      form.appendChild(lab);
    }
    form.appendChild(el("button", {type: "submit", "class": cls}, label));
    return form;
  }

  function render(data) {
    var v = data.vote;
    byId("vote-status").textContent = !v ? t.none : (v.status === "open" ? t.open : t.closed);
    byId("vote-table").hidden = !v;
    byId("vote-counters").hidden = !v;
    if (v) {
      var body = byId("vote-candidates");
      body.textContent = "";
      v.candidates.forEach(function (c) {
        var tr = el("tr", {"data-n": c.n});
        tr.appendChild(el("td", {}, c.n));
        tr.appendChild(el("td", {}, c.name));
        tr.appendChild(el("td", {"class": "votes"}, c.votes));
        body.appendChild(tr);
      });
      byId("vote-counted").textContent = v.counted;
      byId("vote-repeats").textContent = v.repeats;
      byId("vote-invalid").textContent = v.invalid;
      byId("vote-late").textContent = v.late;
    }
    var state = (v ? v.status : "none") + ":" + data.can_open;
    if (lastState !== null && state !== lastState) {
      var controls = byId("vote-controls");
      controls.textContent = "";
      if (data.can_open) {
        controls.appendChild(postForm(root.dataset.openUrl, t.openButton, "primary", false));
      } else if (v && v.status === "open") {
        controls.appendChild(postForm(root.dataset.closeUrl, t.closeButton, "danger", true));
      } else if (v) {
        var p = el("p");
        p.appendChild(el("a", {href: root.dataset.pageUrl}, t.results));
        controls.appendChild(p);
      }
    }
    lastState = state;
  }

  function refresh() {
    return fetch(root.dataset.tallyUrl, {headers: {Accept: "application/json"}, credentials: "same-origin"})
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (data) { if (data) { render(data); } })
      .catch(function () { /* next poll retries */ });
  }
  function poll() {
    refresh().then(function () { window.setTimeout(poll, 1000); });
  }
  // the host console (console.js) says when an event was recorded or undone: whether the
  // vote may be opened follows the game at once, not at the next poll
  document.addEventListener("sova:console-changed", function () { refresh(); });
  poll();
}());
