// Character counters and focus on the error summary (progressive enhancement only).
(function () {
  var summary = document.getElementById('error-summary');
  if (summary) { summary.focus(); }
  // The limit is not maxlength (a browser cuts a pasted text there without a word): the
  // counter turns red past it, and the server refuses the text with a message.
  document.querySelectorAll('[data-counter]').forEach(function (el) {
    var max = parseInt(el.getAttribute('data-max'), 10);
    var out = document.createElement('small');
    out.className = 'counter';
    out.setAttribute('aria-live', 'polite');
    el.insertAdjacentElement('afterend', out);
    var update = function () {
      out.textContent = el.value.length + ' / ' + max;
      out.classList.toggle('over', el.value.length > max);
    };
    el.addEventListener('input', update);
    update();
  });
  // An image over the limit is refused before upload: the server would answer 413 for a
  // body over its cap and the typed text would be lost.
  document.querySelectorAll('input[type=file][data-max-bytes]').forEach(function (input) {
    input.addEventListener('change', function () {
      var max = parseInt(input.getAttribute('data-max-bytes'), 10);
      var file = input.files && input.files[0];
      var box = document.getElementById(input.id + '-size');
      if (file && file.size > max) {
        input.value = '';
        input.setAttribute('data-refused', '1');  // the next «Отправить» stops to say so
        if (!box) {
          box = document.createElement('p');
          box.className = 'error';
          box.id = input.id + '-size';
          box.setAttribute('role', 'alert');
          input.insertAdjacentElement('afterend', box);
        }
        box.textContent = input.getAttribute('data-too-big');
      } else {
        input.removeAttribute('data-refused');
        if (box) { box.remove(); }
      }
    });
  });
  var form = document.querySelector('form[enctype="multipart/form-data"]');
  if (form) {
    form.addEventListener('submit', function (event) {
      // a refused image: the first «Отправить» shows why (the fold opened, the message in
      // view) instead of sending the question silently without it; a second one sends
      var refused = form.querySelector('input[type=file][data-refused]');
      if (refused) {
        refused.removeAttribute('data-refused');
        var fold = refused.closest('details');
        if (fold) { fold.open = true; }
        var said = document.getElementById(refused.id + '-size');
        (said || refused).scrollIntoView({block: 'center'});
        refused.focus();
        event.preventDefault();
        return;
      }
      var b = form.querySelector('button[type=submit]');
      if (b) { setTimeout(function () { b.disabled = true; }, 0); }
    });
  }
})();
