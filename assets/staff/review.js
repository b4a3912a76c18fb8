// The review queue by keyboard: S shares the current photo with its group, H keeps it hidden
// (with the reason in its form), J or the down arrow moves to the next, K or the up arrow to the
// one before. Each form is sent in the background and the photo leaves the list; without this
// script, the forms work as they are and come back to the queue.
(function () {
  'use strict';
  var list = document.getElementById('queue');
  var count = document.getElementById('queue-count');
  if (!list || !window.fetch || !window.FormData) return;
  var total = Number(count && count.getAttribute('data-total')) || 0;
  var items = function () { return Array.prototype.slice.call(list.querySelectorAll('li.held')); };
  var current = null;

  function select(item, quietly) {
    items().forEach(function (li) { li.classList.remove('current'); li.removeAttribute('aria-current'); });
    current = item || null;
    if (!current) return;
    current.classList.add('current');
    current.setAttribute('aria-current', 'true');
    current.focus({ preventScroll: true });
    if (!quietly) current.scrollIntoView({ block: 'nearest' });
  }

  function say(text) { if (count) count.textContent = text; }

  function send(form) {
    if (!form) return;   // a viewer's queue has no forms
    var item = form.closest('li.held');
    if (!item || item.classList.contains('sending')) return;
    if (!form.reportValidity()) return;
    item.classList.add('sending');
    var body = new URLSearchParams(new FormData(form));
    fetch(form.action, { method: 'POST', body: body, credentials: 'same-origin', redirect: 'follow' })
      .then(function (response) {
        item.classList.remove('sending');
        if (!response.ok) { say('Not done (' + response.status + '): reload the page and try again.'); return; }
        var all = items(), at = all.indexOf(item);
        item.remove();
        total = Math.max(0, total - 1);
        var left = items();
        say(total === 0 ? 'No photo waits for review.' : total + (total === 1 ? ' photo waits' : ' photos wait') + ' for review.');
        if (left.length) { select(left[Math.min(at, left.length - 1)]); } else if (total > 0) { location.reload(); }
      })
      .catch(function () { item.classList.remove('sending'); say('The server cannot be reached; try again.'); });
  }

  list.addEventListener('submit', function (event) {
    event.preventDefault();
    send(event.target);
  });
  list.addEventListener('click', function (event) {
    var item = event.target.closest && event.target.closest('li.held');
    if (item && item !== current) select(item);
  });
  document.addEventListener('keydown', function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var tag = event.target && event.target.tagName;
    if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT') return;
    var all = items();
    if (!all.length) return;
    var at = all.indexOf(current);
    var key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
    if (key === 'j' || key === 'ArrowDown') { select(all[Math.min(at + 1, all.length - 1)]); }
    else if (key === 'k' || key === 'ArrowUp') { select(all[Math.max(at - 1, 0)]); }
    else if (key === 's' && current) { send(current.querySelector('form.share')); }
    else if (key === 'h' && current) { send(current.querySelector('form.hide')); }
    else return;
    event.preventDefault();
  });
  select(items()[0], true);
  // An empty queue looks again for new photos now and then.
  if (!items().length) setInterval(function () { if (!document.hidden) location.reload(); }, 20000);
})();
