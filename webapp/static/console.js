/* Host console: progressive enhancement of templates/games/console.html.
 * Without this file every button is a plain form POST (the page reloads).
 * With it, forms are sent by fetch (Accept: application/json) and the console is
 * re-rendered from the JSON state (webapp/games/console.py::console_payload), so a slow
 * connection never reloads the page. No inline scripts: CSP-safe. */
(function () {
  "use strict";
  var root = document.getElementById("console");
  if (!root || !window.fetch || !window.FormData) { return; }
  var busy = false;

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined && text !== null) { node.textContent = text; }
    return node;
  }
  function hidden(name, value) { return el("input", {type: "hidden", name: name, value: value}); }
  function byId(id) { return document.getElementById(id); }
  function uploadUrl(file) {
    return root.getAttribute("data-upload-url").replace(/FILE$/, encodeURIComponent(file));
  }
  // A text cut at its image references (console_payload's "parts"): each image shown,
  // never the "(img …)" reference; the same markup as the template's with_images.
  function appendParts(node, parts) {
    parts.forEach(function (p, i) {
      if (i > 0) { node.appendChild(document.createTextNode("\n")); }
      if (p.image === undefined) { node.appendChild(document.createTextNode(p.text)); }
      else if (p.file) { node.appendChild(el("img", {"class": "question-image", src: uploadUrl(p.file), alt: "Изображение"})); }
      else { node.appendChild(el("span", {"class": "bad missing-image"}, "[нет файла изображения " + p.image + "]")); }
    });
  }

  function showMessage(text) {
    var box = byId("console-message");
    if (text) { box.textContent = text; box.hidden = false; } else { box.textContent = ""; box.hidden = true; }
  }

  function actionForm(url, a, c) {
    var form = el("form", {method: "post", action: url, "class": "action"});
    form.appendChild(hidden("csrf_token", root.dataset.csrf));
    form.appendChild(hidden("type", a.type));
    Object.keys(a.fields || {}).forEach(function (k) { form.appendChild(hidden(k, a.fields[k])); });
    if (a.needs_sector) {
      var lab = el("label", {}, "Стрелка на секторе ");
      lab.appendChild(el("input", {type: "number", name: "sector", min: "1", max: "13", required: "", inputmode: "numeric"}));
      form.appendChild(lab);
    }
    if (a.early_option) {
      var check = el("label", {"class": "check"});
      check.appendChild(el("input", {type: "checkbox", name: "early", value: "y"}));
      check.appendChild(document.createTextNode(" досрочно"));
      form.appendChild(check);
      if (c.game.ruleset === "2009") {
        // 2009 §1.6: the player who answered is one of the team's experts (offered as a
        // list; a removed one is shown but cannot be chosen)
        var who = el("label", {}, "Отвечал ");
        if (c.experts && c.experts.length) {
          var pick = el("select", {name: "expert"});
          pick.appendChild(el("option", {value: ""}, "не указан"));
          c.experts.forEach(function (name) {
            var removed = c.removed_experts.indexOf(name) >= 0;
            var attrs = {value: name};
            if (removed) { attrs.disabled = ""; }
            pick.appendChild(el("option", attrs, name + (removed ? " (удалён)" : "")));
          });
          who.appendChild(pick);
        } else {
          who.appendChild(el("input", {type: "text", name: "expert", maxlength: "100"}));
        }
        form.appendChild(who);
      }
    }
    if (a.expert_pick) {
      // 2023 §3.7.3: who hinted (red card) / who answered while a hinter is off the table
      var lbl = el("label", {}, a.expert_pick.label + " ");
      var sel = el("select", {name: "expert"});
      sel.appendChild(el("option", {value: ""}, "не указан"));
      a.expert_pick.choices.forEach(function (e) {
        var o = {value: e.name};
        if (e.disabled) { o.disabled = ""; }
        sel.appendChild(el("option", o, e.name + e.note));
      });
      lbl.appendChild(sel);
      form.appendChild(lbl);
    }
    form.appendChild(el("button", {type: "submit", "class": a.style || "", "data-type": a.type}, a.label));
    return form;
  }

  function render(c) {
    byId("console-score").textContent = c.score;
    byId("console-team").textContent = c.game.team_label;
    var start = byId("console-start");
    start.textContent = c.start_refusal || "";
    start.hidden = !c.start_refusal;
    var status = byId("console-status");
    status.textContent = "";
    if (c.finished) {
      status.appendChild(el("strong", {}, "Игра окончена: победили " + (c.winner === "experts" ? "знатоки" : "телезрители") + "."));
    }
    var extras = "Доп. минут: " + c.extra_minutes_held;
    if (c.game.ruleset === "2023") {
      extras += " · кредит: " + ({none: "нет", outstanding: "не возвращён", repaid: "возвращён"})[c.credit];
    }
    if (c.removed_experts.length) { extras += " · удалены: " + c.removed_experts.join(", "); }
    if (c.off_table && c.off_table.length) { extras += " · не за столом (подсказка, п. 3.7.3 Правил сезона 2023 г.): " + c.off_table.join(", "); }
    byId("console-extras").textContent = extras;

    var sectors = byId("console-sectors");
    sectors.textContent = "";
    c.sectors.forEach(function (s) {
      var li = el("li", {"class": "sector" + (s.played ? " played" : "") + (s.current ? " current" : ""), "data-sector": String(s.sector)});
      li.appendChild(el("strong", {}, String(s.sector)));
      li.appendChild(document.createTextNode(" " + s.label));
      // the sector whose question is open is «в игре», not yet «сыгран»
      if (s.played) { li.appendChild(document.createTextNode(" ")); li.appendChild(el("span", {"class": "mark"}, s.empty ? "пуст" : (s.current ? "в игре" : "✓ сыгран"))); }
      sectors.appendChild(li);
    });

    var q = byId("console-question");
    q.textContent = "";
    if (c.current) {
      var cur = c.current;
      // «13 сектор» in sector 13 is said once (not «Сектор 13: 13 сектор»)
      var title = (cur.kind === "sector13" && cur.sector === 13) ? cur.label : "Сектор " + cur.sector + ": " + cur.label;
      if (cur.slots > 1) { title += ", вопрос " + cur.slot + " из " + cur.slots; }
      if (cur.decisive) { title += " — решающий раунд"; }
      q.appendChild(el("h2", {}, title));
      if (cur.handout || cur.handout_image) {
        var h = el("div", {"class": "handout with-images"});
        h.appendChild(el("strong", {}, "Раздаточный материал:"));
        h.appendChild(document.createTextNode(" "));
        appendParts(h, cur.parts.handout);
        if (cur.handout_image) { h.appendChild(el("img", {"class": "question-image", src: uploadUrl(cur.handout_image), alt: "Раздаточный материал"})); }
        q.appendChild(h);
      }
      if (cur.draw) {
        var d = el("p", {"class": "draw"}, "Жеребьёвка: " + cur.draw.candidates_text + " до вращения, зерно ");
        d.appendChild(el("code", {}, cur.draw.seed));
        d.appendChild(document.createTextNode("."));
        var card = cur.draw.card;
        if (card) {
          d.appendChild(document.createTextNode(" Карточка ведущего: "));
          if (card.status === "ready") {
            var base = byId("console").getAttribute("data-document-url");
            d.appendChild(el("a", {href: base.replace(/0$/, String(card.document_id))}, "скачать PDF"));
          } else {
            d.appendChild(document.createTextNode(card.status === "failed" ? "ошибка" : "готовится"));
          }
          d.appendChild(document.createTextNode("."));
        }
        q.appendChild(d);
      }
      // 2009 §1.4.1: why the round is not in sector 13 (console_payload's "notice")
      if (cur.notice) { q.appendChild(el("p", {"class": "note sector13-notice", role: "status"}, cur.notice)); }
      var bq = el("blockquote", {"class": "question-text"});
      if (cur.text) { appendParts(bq, cur.parts.text); } else { bq.textContent = "(в конверте нет вопроса)"; }
      q.appendChild(bq);
      var ans = el("p", {"class": "answer"});
      ans.appendChild(el("em", {}, "Ответ: " + (cur.answer || "—")));
      if (cur.accepted) { ans.appendChild(document.createTextNode(" · ")); ans.appendChild(el("em", {}, "Зачёт: " + cur.accepted)); }
      q.appendChild(ans);
    }

    var actions = byId("console-actions");
    actions.textContent = "";
    c.actions.forEach(function (a) { actions.appendChild(actionForm(root.dataset.url, a, c)); });

    var undo = byId("console-undo");
    undo.textContent = "";
    if (c.last_event) {
      var f = el("form", {method: "post", action: root.dataset.undoUrl, "class": "action undo"});
      f.appendChild(hidden("csrf_token", root.dataset.csrf));
      f.appendChild(el("button", {type: "submit"}, "Отменить: " + c.last_event.label));
      undo.appendChild(f);
    }
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
      headers: {"Accept": "application/json"}
    }).then(function (resp) {
      return resp.json().then(function (body) { return {status: resp.status, body: body}; });
    }).then(function (r) {
      if (r.body && r.body.console) {
        render(r.body.console);
        // the vote panel (vote.js) re-reads whether the vote may be opened (2009 §3.1)
        document.dispatchEvent(new CustomEvent("sova:console-changed"));
      }
      showMessage(r.body && r.body.error ? "Отказано: " + r.body.error.text : "");
    }).catch(function () {
      showMessage("Нет связи с сервером: событие не записано. Повторите.");
      Array.prototype.forEach.call(root.querySelectorAll("button"), function (b) { b.disabled = false; });
    }).then(function () {
      busy = false;
      root.removeAttribute("aria-busy");
    });
  });
})();
