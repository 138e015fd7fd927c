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
  // until the server's copy no longer asks to be polled. With data-status="<url>" as well (a running
  // audit), that URL's status JSON is asked instead, and the progress bar's numbers follow it in place;
  // the page is fetched again only when the status or the phase changes.
  function pollProgress() {
    document.querySelectorAll('[data-poll]').forEach(function (element) {
      var swap = function () {
        return fetch(element.getAttribute('data-poll'), {
          credentials: 'same-origin',
          headers: { Accept: 'text/html' },
        })
          .then(function (response) {
            return response.text();
          })
          .then(function (html) {
            var fresh = new DOMParser().parseFromString(html, 'text/html').getElementById(element.id);
            if (!fresh) return false;
            element.replaceWith(fresh);
            element = fresh;
            return fresh.hasAttribute('data-poll');
          });
      };
      var tick = function () {
        var statusUrl = element.getAttribute('data-status');
        var step = statusUrl
          ? fetch(statusUrl, { credentials: 'same-origin', headers: { Accept: 'application/json' } })
              .then(function (response) {
                return response.json();
              })
              .then(function (status) {
                return updateProgress(element, status) || swap();
              })
          : swap();
        step.then(
          function (again) {
            if (again) setTimeout(tick, 2000);
          },
          function () {
            setTimeout(tick, 5000);
          },
        );
      };
      if (element.id) setTimeout(tick, 2000);
    });
  }

  // The bar and sentence of the progress section from the status envelope; false when they cannot
  // show it (another status or phase, an estimate that was not there) and the page must be fetched.
  function updateProgress(element, status) {
    var bar = element.querySelector('[role="progressbar"]');
    var shown = element.querySelector('[data-audit-status]');
    var progress = status.progress;
    if (!bar || !shown || shown.getAttribute('data-audit-status') !== status.status) return false;
    if ((bar.getAttribute('data-phase') || null) !== (progress ? progress.phase : null)) return false;
    var time = element.querySelector('.progress-text time');
    if (status.estimated_completion && !time) return false;
    if (time && status.estimated_completion) {
      time.setAttribute('datetime', status.estimated_completion);
      time.textContent = status.estimated_completion.replace('T', ' ').slice(0, 16) + ' UTC';
    }
    if (!progress) return true;
    [
      ['data-pages-crawled', progress.pages_crawled],
      ['data-pages-discovered', progress.pages_discovered],
    ].forEach(function (pair) {
      var number = element.querySelector('[' + pair[0] + ']');
      if (!number) return;
      number.setAttribute(pair[0], pair[1]);
      number.textContent = String(pair[1]);
    });
    // Past the crawl the bar is a busy one (no share done is reported): only its words change.
    if (!bar.classList.contains('indeterminate')) {
      bar.setAttribute('aria-valuenow', progress.pages_crawled);
      bar.setAttribute('aria-valuemax', progress.pages_discovered);
      var fill = bar.querySelector('.progress-fill');
      var share = progress.pages_discovered ? Math.min(1, progress.pages_crawled / progress.pages_discovered) : 0;
      if (fill) fill.setAttribute('width', String(Math.round(share * 1000) / 10));
    }
    var words = element.querySelector('[data-progress-words]');
    if (words) bar.setAttribute('aria-valuetext', words.textContent.replace(/\s+/g, ' ').trim().replace(/\.$/, ''));
    return true;
  }

  document.addEventListener('DOMContentLoaded', function () {
    addCopyButtons();
    confirmDestructiveForms();
    pollProgress();
  });
})();
