// Keyboard shortcuts of the editor pages. No inline scripts: the CSP forbids them.
// An element with data-shortcut="x" is clicked (a button) or followed (a link) on key x.
// Keys typed into form fields are ignored; Ctrl/Alt/Meta combinations are left alone.
(function () {
  "use strict";
  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.altKey || event.metaKey || event.isComposing) {
      return;
    }
    var target = event.target;
    if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) {
      return;
    }
    var key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
    // the physical key on any layout: J on a Russian keyboard types «о», its code is KeyJ
    var code = /^Key[A-Z]$/.test(event.code || "") ? event.code.slice(3).toLowerCase() : null;
    var element = document.querySelector('[data-shortcut="' + key + '"]') ||
      (code && document.querySelector('[data-shortcut="' + code + '"]'));
    if (!element) {
      return;
    }
    event.preventDefault();
    if (element.tagName === "A") {
      window.location.assign(element.href);
    } else {
      element.click();
    }
  });
})();

// «Отметить все на странице»: a check box with data-select-all="name" checks or clears every
// check box of that name in its form (the queue's selection for a bulk decision or sign-off).
(function () {
  "use strict";
  document.addEventListener("change", function (event) {
    var box = event.target;
    if (!box || !box.form || !box.hasAttribute("data-select-all")) {
      return;
    }
    var name = box.getAttribute("data-select-all");
    Array.prototype.forEach.call(box.form.elements, function (element) {
      if (element.type === "checkbox" && element.name === name) {
        element.checked = box.checked;
      }
    });
  });
})();
