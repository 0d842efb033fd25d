/* Host console: progressive enhancement of templates/games/console.html.
 * Without this file every button is a plain form POST (the page reloads).
 * With it, forms are sent by fetch (Accept: application/json) and the server answers with
 * the HTML of the console's parts that changed, rendered by the same macros as the page
 * (templates/games/_console.html); this script only puts them in place. It renders no
 * state and knows no rule. No inline scripts: CSP-safe. */
(function () {
  "use strict";
  var root = document.getElementById("console");
  if (!root || !window.fetch || !window.FormData) { return; }
  var busy = false;
  // the parts shown, as the server digested them: "id=digest id=digest …"
  var digests = {};
  (root.dataset.digests || "").split(" ").forEach(function (pair) {
    var i = pair.indexOf("=");
    if (i > 0) { digests[pair.slice(0, i)] = pair.slice(i + 1); }
  });
  function shown() {
    return Object.keys(digests).map(function (id) { return id + "=" + digests[id]; }).join(" ");
  }

  // A part takes the returned element's attributes and children, the element itself
  // staying in place: a live region (aria-live, role=alert) announces its new content.
  // Parsed inert (a <template>), so nothing in it runs.
  function swap(id, html) {
    var node = document.getElementById(id);
    var holder = document.createElement("template");
    holder.innerHTML = html;
    var fresh = holder.content.firstElementChild;
    if (!node || !fresh || fresh.id !== id) { return; }
    Array.prototype.slice.call(node.attributes).forEach(function (a) {
      if (!fresh.hasAttribute(a.name)) { node.removeAttribute(a.name); }
    });
    Array.prototype.forEach.call(fresh.attributes, function (a) {
      if (node.getAttribute(a.name) !== a.value) { node.setAttribute(a.name, a.value); }
    });
    node.replaceChildren.apply(node, Array.prototype.slice.call(fresh.childNodes));
  }

  function offline() {
    var box = document.getElementById("console-message");
    box.textContent = root.dataset.offline;
    box.hidden = false;
    delete digests["console-message"];  // the next answer puts the server's message back
  }

  root.addEventListener("submit", function (ev) {
    var form = ev.target;
    if (!(form instanceof HTMLFormElement)) { return; }
    ev.preventDefault();
    if (busy) { return; }
    busy = true;
    root.setAttribute("aria-busy", "true");
    Array.prototype.forEach.call(root.querySelectorAll("button"), function (b) { b.disabled = true; });
    fetch(form.getAttribute("action"), {
      method: "POST", body: new FormData(form), credentials: "same-origin",
      headers: {"Accept": "application/json", "X-Console-Parts": shown()}
    }).then(function (resp) {
      return resp.json();
    }).then(function (body) {
      if (!body || !body.html || !body.digests) { throw new Error("no console parts"); }
      Object.keys(body.html).forEach(function (id) { swap(id, body.html[id]); });
      digests = body.digests;
      Array.prototype.forEach.call(root.querySelectorAll("button"), function (b) { b.disabled = false; });
      // the vote panel (vote.js) re-reads whether the vote may be opened
      document.dispatchEvent(new CustomEvent("sova:console-changed"));
    }).catch(function () {
      offline();
      Array.prototype.forEach.call(root.querySelectorAll("button"), function (b) { b.disabled = false; });
    }).then(function () {
      busy = false;
      root.removeAttribute("aria-busy");
    });
  });
})();
