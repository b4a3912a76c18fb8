// The class's wall: the venue's collages and shared photos, one at a time and large, newest
// first. Each picture shows for eight seconds; Space pauses and goes on, ← and → go back and
// forward, F shows the wall full screen. The venue's live feed says when a group's pictures
// change: the list is fetched again (the first change at once, a burst at most once a second),
// and a new collage is shown as soon as it arrives.
(function () {
  'use strict';
  var wall = document.getElementById('wall');
  if (!wall || !window.fetch) return;
  var picture = document.getElementById('wall-picture');
  var caption = document.getElementById('wall-caption');
  var status = document.getElementById('wall-status');
  var pauseButton = document.getElementById('wall-pause');
  var SHOW = 8000;
  var items = [], index = 0, paused = false, timer = null, pending = null, last = 0, loaded = false;

  function describe(item) {
    return (item.kind === 'collage' ? 'Collage' : 'Photo') + (item.caption ? ': ' + item.caption : '') + (item.group ? ', ' + item.group : '');
  }

  function say() {
    status.textContent = items.length
      ? (index + 1) + ' of ' + items.length + (paused ? ', paused' : '')
      : 'Waiting for the first collage or photo…';
  }

  function show(i) {
    clearTimeout(timer);
    if (!items.length) {
      picture.hidden = true;
      picture.removeAttribute('src');
      caption.textContent = '';
      say();
      return;
    }
    index = (i + items.length) % items.length;
    var item = items[index];
    picture.hidden = false;
    if (picture.getAttribute('src') !== item.src) picture.src = item.src;
    picture.alt = describe(item);
    picture.setAttribute('data-item', item.id);
    caption.textContent = [item.group, item.caption].filter(Boolean).join(' · ');
    say();
    if (!paused && items.length > 1) timer = setTimeout(function () { show(index + 1); }, SHOW);
  }

  function pause(on) {
    paused = on;
    pauseButton.textContent = paused ? 'Go on' : 'Pause';
    pauseButton.setAttribute('aria-pressed', paused ? 'true' : 'false');
    show(index);
  }

  // The class's standing, by group name only, when the venue has points (the server sends it
  // for one class's wall alone).
  var BADGES = { 'first-photo': 'first photo', 'all-missions': 'all missions', 'different-members': 'everyone helped' };
  function standing(list) {
    var box = document.getElementById('wall-standing');
    if (!box) return;
    var ol = box.querySelector('ol');
    while (ol.firstChild) ol.removeChild(ol.firstChild);
    box.hidden = !list || !list.length;
    (list || []).forEach(function (row) {
      var li = document.createElement('li');
      var badges = row.badges.map(function (b) { return BADGES[b] || b; }).join(', ');
      li.textContent = row.group + ': ' + row.points + ' points' + (badges ? ' (' + badges + ')' : '');
      ol.appendChild(li);
    });
  }

  function load() {
    pending = null;
    last = Date.now();
    fetch(wall.getAttribute('data-items'), { credentials: 'same-origin', headers: { Accept: 'application/json' } })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (data) {
        if (!data) return;
        standing(data.standing);
        var known = {};
        items.forEach(function (item) { known[item.id] = true; });
        var current = items[index] && items[index].id;
        var fresh = -1;
        data.items.forEach(function (item, i) { if (fresh < 0 && loaded && !known[item.id] && item.kind === 'collage') fresh = i; });
        items = data.items;
        loaded = true;
        if (fresh >= 0 && !paused) { show(fresh); return; }
        var still = -1;
        items.forEach(function (item, i) { if (item.id === current) still = i; });
        if (still >= 0) { index = still; say(); if (!timer && !paused) show(index); } else show(0);
      })
      .catch(function () {});
  }

  function schedule() {
    if (!pending) pending = setTimeout(load, Math.max(0, last + 1000 - Date.now()));
  }

  function full() {
    if (document.fullscreenElement) document.exitFullscreen();
    else if (wall.requestFullscreen) wall.requestFullscreen().catch(function () {});
  }

  document.getElementById('wall-prev').addEventListener('click', function () { show(index - 1); });
  document.getElementById('wall-next').addEventListener('click', function () { show(index + 1); });
  document.getElementById('wall-full').addEventListener('click', full);
  pauseButton.addEventListener('click', function () { pause(!paused); });
  document.addEventListener('keydown', function (event) {
    var target = event.target;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (target && /^(INPUT|SELECT|TEXTAREA|BUTTON|A)$/.test(target.tagName)) return;
    if (event.key === ' ' || event.key === 'k') pause(!paused);
    else if (event.key === 'ArrowLeft') show(index - 1);
    else if (event.key === 'ArrowRight') show(index + 1);
    else if (event.key === 'f' || event.key === 'F') full();
    else return;
    event.preventDefault();
  });

  load();
  if (!window.EventSource) return;
  var source = new EventSource(wall.getAttribute('data-events'));
  ['photo-added', 'photo-removed', 'collage-ready', 'collage-removed', 'group-closed', 'member-left'].forEach(function (type) {
    source.addEventListener(type, schedule);
  });
})();
