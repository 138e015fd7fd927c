// The dashboard's one script (progressive enhancement: every page works without it).
// Copy buttons next to secrets, confirmation before destructive forms, live progress polling.
(function () {
  'use strict';

  function addCopyButtons() {
    document.querySelectorAll('[data-copy]').forEach(function (input) {
      var button = document.createElement('button');
      button.type = 'button';
      button.className = 'secondary';
      button.textContent = 'Copy';
      button.addEventListener('click', function () {
        input.select();
        var done = function () {
          button.textContent = 'Copied';
        };
        if (navigator.clipboard) navigator.clipboard.writeText(input.value).then(done, done);
        else {
          document.execCommand('copy');
          done();
        }
      });
      input.insertAdjacentElement('afterend', button);
    });
  }

  function confirmDestructiveForms() {
    document.querySelectorAll('form[data-confirm]').forEach(function (form) {
      form.addEventListener('submit', function (event) {
        if (!window.confirm(form.getAttribute('data-confirm'))) event.preventDefault();
      });
    });
  }

  // Elements with data-poll="<url>" are replaced by the same element of that URL's page every 2 s
  // until the server's copy no longer asks to be polled.
  function pollProgress() {
    document.querySelectorAll('[data-poll]').forEach(function (element) {
      var url = element.getAttribute('data-poll');
      var tick = function () {
        fetch(url, { credentials: 'same-origin', headers: { Accept: 'text/html' } })
          .then(function (response) {
            return response.text();
          })
          .then(function (html) {
            var fresh = new DOMParser().parseFromString(html, 'text/html').getElementById(element.id);
            if (!fresh) return;
            element.replaceWith(fresh);
            element = fresh;
            if (fresh.hasAttribute('data-poll')) setTimeout(tick, 2000);
          })
          .catch(function () {
            setTimeout(tick, 5000);
          });
      };
      if (element.id) setTimeout(tick, 2000);
    });
  }

  document.addEventListener('DOMContentLoaded', function () {
    addCopyButtons();
    confirmDestructiveForms();
    pollProgress();
  });
})();
