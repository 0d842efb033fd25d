// Character counters and focus on the error summary (progressive enhancement only).
(function () {
  var summary = document.getElementById('error-summary');
  if (summary) { summary.focus(); }
  document.querySelectorAll('[data-counter]').forEach(function (el) {
    var max = parseInt(el.getAttribute('maxlength'), 10);
    var out = document.createElement('small');
    out.className = 'counter';
    out.setAttribute('aria-live', 'polite');
    el.insertAdjacentElement('afterend', out);
    var update = function () { out.textContent = el.value.length + ' / ' + max; };
    el.addEventListener('input', update);
    update();
  });
  var form = document.querySelector('form[enctype="multipart/form-data"]');
  if (form) {
    form.addEventListener('submit', function () {
      var b = form.querySelector('button[type=submit]');
      if (b) { setTimeout(function () { b.disabled = true; }, 0); }
    });
  }
})();
