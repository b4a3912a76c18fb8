// The staff console's live pages: when one of the venue's groups changes (a member, a photo, a
// task, a photo held for review) or a group is made, the page's main part is fetched again and swapped in at once, then at most once a second; a page
// with `data-group` (a group's page) listens to that group's changes only; a page
// with `data-poll` (the mission files, as staff save them) is fetched again every few seconds.
// While a form field of the page has the focus, the swap waits, so that a reason being typed stays.
(function () {
  'use strict';
  var script = document.currentScript;
  var url = script && script.getAttribute('data-events');
  var poll = script && Number(script.getAttribute('data-poll'));
  var group = script && script.getAttribute('data-group');
  if ((!url && !poll) || !window.fetch || !window.DOMParser) return;
  var pending = null, last = 0;
  function typing() {
    var active = document.activeElement;
    var main = document.querySelector('main');
    return !!(active && main && main.contains(active) && /^(INPUT|TEXTAREA|SELECT)$/.test(active.tagName));
  }
  function refresh() {
    pending = null;
    if (typing()) { pending = setTimeout(refresh, 2000); return; }
    last = Date.now();
    fetch(location.href, { credentials: 'same-origin', headers: { Accept: 'text/html' } })
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (html) {
        if (!html) return;
        var fresh = new DOMParser().parseFromString(html, 'text/html').querySelector('main');
        var main = document.querySelector('main');
        if (!fresh || !main) return;
        // The script stays as it is: only what it shows is replaced. `children` is live, so
        // each list is copied before elements leave it.
        var copy = function (list) { return Array.prototype.slice.call(list); };
        copy(fresh.querySelectorAll('script')).forEach(function (s) { s.remove(); });
        var old = copy(main.children).filter(function (child) { return child !== script; });
        var now = copy(fresh.children);
        // Parts that did not change stay as they are (a phone preview is not loaded again).
        if (old.length === now.length) {
          old.forEach(function (child, i) { if (!child.isEqualNode(now[i])) main.replaceChild(now[i], child); });
          return;
        }
        old.forEach(function (child) { child.remove(); });
        now.forEach(function (child) { main.insertBefore(child, script.parentNode === main ? script : null); });
      })
      .catch(function () {});
  }
  // A page without a feed of its own (the mission files) looks again every few seconds.
  if (poll) { setInterval(refresh, poll); return; }
  if (!window.EventSource) return;
  // The first change is fetched at once; a burst of changes, at most once a second.
  function schedule(event) {
    if (group) {
      var data = null;
      try { data = JSON.parse(event.data); } catch (e) { return; }
      if (!data || data.groupId !== group) return;
    }
    if (!pending) pending = setTimeout(refresh, Math.max(0, last + 1000 - Date.now()));
  }
  var source = new EventSource(url);
  ['member-joined', 'member-left', 'member-renamed', 'photo-added', 'photo-removed', 'task-done', 'task-undone',
   'choice-changed', 'mission-completed', 'collage-ready', 'collage-removed', 'group-closed', 'group-reopened', 'review-changed', 'group-created'].forEach(function (type) {
    source.addEventListener(type, schedule);
  });
})();
