// The payee form (templates/prizes/details_form.html): show only the fields of the chosen
// country. Progressive enhancement: without this script every field shows and the server
// validates the chosen country's fields. Hidden fields are disabled, so the other
// country's leftovers are not sent.
(function () {
  "use strict";
  var form = document.getElementById("payee-form");
  if (!form) { return; }
  var country = form.querySelector("select[name=country]");
  if (!country) { return; }
  function apply() {
    var chosen = country.value;
    form.querySelectorAll("[data-country]").forEach(function (box) {
      var hide = box.getAttribute("data-country") !== chosen;
      box.hidden = hide;
      box.querySelectorAll("input, select, textarea").forEach(function (input) {
        input.disabled = hide;
      });
    });
  }
  country.addEventListener("change", apply);
  apply();
})();
