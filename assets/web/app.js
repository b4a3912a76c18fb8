// Groupie web client: the page around the screens (header, tabs, upload bar), which screen a
// route shows, and start-up. Plain ES modules, no build step. The state is in store.js, the
// group and its live events in session.js, each screen in screens/.

import { api } from './api.js';
import { t, setLang, tn } from './i18n.js';
import { h, append, icon, laterStyles, stopScanning } from './ui.js';
import { state, update, subscribe, loadPlayer, savePlayer, contentLang, negotiateLang } from './store.js';
import { setView, route, render } from './router.js';
import { errorText } from './messages.js';
import { queue, enterGroup, keepForOffline, dropPendingFile, offerTakenPhoto } from './session.js';
import { uploadRow, uploadStatus } from './widgets.js';
import { preloadSending } from './queue.js';
import { drawNotices } from './notices.js';
import { startScreen, joinLinkScreen, joinScreen } from './screens/join.js';
import { createScreen, inviteScreen, groupScreen } from './screens/group.js';

const main = document.getElementById('app');

// ---------------------------------------------------------------- chrome: header, uploads, tabs

function chrome() {
  document.querySelector('.skip').textContent = t('skip');
  document.getElementById('tabs').setAttribute('aria-label', t('tab.label'));
  const header = document.getElementById('bar');
  const v = state.group && state.venue;
  const status = state.group ? h('span', { class: 'live is-' + state.live }, t('live.' + state.live)) : null;
  header.replaceChildren();
  append(header, [
    h('a', { href: state.group ? '#/missions' : '#/', class: 'brand' },
      v && state.venue.theme.logoUrl ? h('img', { src: state.venue.theme.logoUrl, alt: '', width: 32, height: 32 }) : h('span', { class: 'logo', 'aria-hidden': 'true' }, 'G'),
      h('span', null, v ? state.venue.name : 'Groupie')),
    status]);
  const nav = document.getElementById('tabs');
  if (!state.group) { nav.hidden = true; nav.replaceChildren(); } else {
    nav.hidden = false;
    const r = route().name;
    const tab = (hash, names, ico, label) => h('a', { href: hash, 'aria-current': names.includes(r) ? 'page' : null },
      icon(ico), h('span', null, label));
    nav.replaceChildren(h('ul', null,
      h('li', null, tab('#/missions', ['missions', 'm', 'done', 'photo'], 'compass', t('tab.missions'))),
      h('li', null, tab('#/album', ['album', 'recap'], 'image', t('tab.album'))),
      h('li', null, tab('#/group', ['group', 'invite'], 'users', t('tab.group')))));
  }
  pendingBar();
  drawNotices(state.group && !state.previewing ? state.group.id : null);
}

function pendingBar() {
  const box = document.getElementById('pending');
  const items = state.uploads;
  if (!items.length) { box.hidden = true; box.replaceChildren(); return; }
  box.hidden = false;
  const failed = items.filter((i) => i.state === 'failed').length;
  const offline = !navigator.onLine || items.some((i) => i.state === 'offline');
  box.replaceChildren(h('details', null,
    h('summary', null, tn(offline ? 'up.summary' : 'up.summaryOnline', items.length), offline ? ' · ' + t('up.whenOnline') : '', failed ? ' · ' + tn('up.failedCount', failed) : ''),
    h('ul', { class: 'uploads' }, items.map((i) => uploadRow(i, true)))));
}

// The live connection's status, in the header.
subscribe((p) => {
  if (!('live' in p)) return;
  const el = document.querySelector('#bar .live');
  if (el) { el.className = 'live is-' + p.live; el.textContent = t('live.' + p.live); }
});

// The upload queue changed: redraw what shows it when an upload came or went or changed its
// state; when only the progress moved, update the bars and texts in place.
let uploadSig;
subscribe((p) => {
  if (!('uploads' in p)) return;
  const items = p.uploads;
  // An upload that stopped moving means the Wi-Fi is not carrying anything: the header says so
  // rather than "Live", until the upload moves again.
  const stuck = items.some((i) => i.state === 'stalled');
  if (stuck && state.live === 'live') update({ live: 'weak' });
  else if (!stuck && state.live === 'weak') update({ live: 'live' });
  const sig = items.map((i) => i.id + i.state).join();
  if (sig !== uploadSig) {
    uploadSig = sig;
    pendingBar();
    const r = route().name;
    if (state.group && (r === 'm' || r === 'missions' || r === 'album')) render(false);
  } else {
    for (const el of document.querySelectorAll('[data-upload]')) {
      const item = items.find((i) => i.id === el.dataset.upload);
      if (!item) continue;
      const bar = el.querySelector('progress');
      if (bar && item.state === 'sending') bar.value = state.progress.get(item.id) || 0;
      el.querySelector('.state').textContent = uploadStatus(item);
    }
  }
});

// ---------------------------------------------------------------- routing

// The screens of a group (its missions, the photo just taken, a mission's reward, the album,
// the recap) are loaded the first time one is shown, so that the first load carries only the
// way in. The service worker keeps them with the rest of the client, for offline use.
const LATER = {
  missions: () => import('./screens/missions.js').then((m) => m.missionsScreen),
  m: () => import('./screens/missions.js').then((m) => m.missionScreen),
  photo: () => import('./screens/camera.js').then((m) => m.photoScreen),
  done: () => import('./screens/reward.js').then((m) => m.doneScreen),
  album: () => import('./screens/album.js').then((m) => m.albumScreen),
  recap: () => import('./screens/recap.js').then((m) => m.recapScreen),
};
const later = {}, loading = {};

// The screens drawn with later.css; the missions and the photo need only app.css.
const STYLED = new Set(['done', 'album', 'recap']);

// The screen `name` (and its styles), loaded once however often they are asked for meanwhile.
function fetchLater(name) {
  if (!loading[name]) {
    loading[name] = Promise.all([LATER[name](), STYLED.has(name) ? laterStyles() : null]).then(([screen]) => { later[name] = screen; })
      .finally(() => { if (!later[name]) loading[name] = null; }); // failed: tried again next time
  }
  return loading[name];
}

function loadedLater(name) {
  // Still waiting on the screen: what `main` shows is this screen's placeholder.
  const shown = () => !!main.querySelector(`[data-later="${name}"]`);
  return (arg) => {
    if (later[name]) return later[name](arg);
    fetchLater(name).then(() => { if (shown()) render(true); })
      .catch(() => { if (shown()) main.replaceChildren(h('section', { class: 'screen' }, h('p', { class: 'empty' }, t('err.offlineTitle')))); });
    return h('section', { class: 'screen', 'data-later': name }, h('p', { class: 'busy', role: 'status' }, h('span', { class: 'spinner', 'aria-hidden': 'true' }), t('loading')));
  };
}

// In a group, what taking a photo needs is fetched in idle time, so that the first photo taken
// in a Wi-Fi dead zone finds it (the service worker keeps it too, where there is one).
let preloaded = false;
subscribe((p) => {
  if (preloaded || !p.group || state.previewing) return;
  preloaded = true;
  const idle = window.requestIdleCallback || ((f) => setTimeout(f, 2000));
  idle(() => { fetchLater('photo').catch(() => { preloaded = false; }); fetchLater('missions').catch(() => {}); preloadSending(); });
});

const GROUP_SCREENS = {
  missions: loadedLater('missions'), m: loadedLater('m'), group: groupScreen, invite: inviteScreen,
  photo: loadedLater('photo'), done: loadedLater('done'), album: loadedLater('album'), recap: loadedLater('recap'),
};

function renderScreen(moveFocus) {
  const r = route();
  let screen;
  if (r.name === 'create') screen = state.token ? createScreen : startScreen;
  else if (r.name === 'join') screen = state.token ? joinScreen : startScreen;
  else if (GROUP_SCREENS[r.name]) screen = state.group ? GROUP_SCREENS[r.name] : startScreen;
  else if (state.joinCode) screen = joinLinkScreen;
  else screen = state.group ? GROUP_SCREENS.missions : startScreen;
  const active = document.activeElement && document.activeElement.id;
  // A live update must not wipe what the visitor is typing.
  const typed = moveFocus ? [] : [...main.querySelectorAll('input[type=text][id]')].map((i) => [i.id, i.value]);
  const node = screen(r.arg);
  if (!node) return; // the screen redirected
  main.replaceChildren(node);
  for (const [id, value] of typed) { const i = document.getElementById(id); if (i && !i.readOnly) i.value = value; }
  chrome();
  const title = main.querySelector('h1');
  document.title = (title ? title.textContent + ' – ' : '') + (state.venue && state.group ? state.venue.name : 'Groupie');
  if (moveFocus && title) { title.setAttribute('tabindex', '-1'); title.focus({ preventScroll: true }); window.scrollTo(0, 0); }
  else if (active && document.getElementById(active)) document.getElementById(active).focus({ preventScroll: true });
}

setView({ render: renderScreen, chrome });

addEventListener('hashchange', () => {
  const r = route();
  if (r.name !== 'photo') dropPendingFile();
  stopScanning();
  render(true);
});

// ---------------------------------------------------------------- start-up

// A join link's page comes with what the server knows of the group, drawn before we start.
function readJoinLink() {
  const m = /^\/j\/([^/?#]+)/.exec(location.pathname);
  if (!m) return;
  update({ joinCode: decodeURIComponent(m[1]).toUpperCase() });
  const pv = document.querySelector('.preview');
  if (pv) {
    // The group's own name is the heading's <bdi>; the word before it is in the phone's language.
    const named = pv.querySelector('h1 bdi');
    const gname = named && pv.dataset.state === 'joinable' ? named.textContent.trim() : '';
    // The venue decides the phone's one language, as a group's venue does; its name is shown in it.
    const languages = (pv.dataset.languages || '').split(' ').filter(Boolean);
    if (languages.length) negotiateLang(languages);
    let names = {};
    try { names = JSON.parse(pv.dataset.venueNames || '{}'); } catch (e) { /* the page's own text stands */ }
    const venue = names[state.lang] || (pv.querySelector('.venue') || {}).textContent;
    update({ preview: { state: pv.dataset.state, venue, group: gname } });
  }
}

async function boot() {
  loadPlayer();
  readJoinLink();
  await setLang(state.lang);
  if (state.token) {
    try {
      const me = await api('/me');
      update({ playerId: me.player.id, name: me.player.name }); savePlayer();
      if (me.group) {
        if (state.joinCode && me.group.joinCode.toUpperCase() === state.joinCode) { update({ joinCode: null }); history.replaceState(null, '', '/#/missions'); }
        await enterGroup(me.group.id);
      }
    } catch (e) {
      if (e.status === 401) { update({ token: null }); savePlayer(); } else {
        main.replaceChildren(h('section', { class: 'screen' }, h('h1', null, t('err.offlineTitle')), h('p', null, errorText(e)),
          h('button', { type: 'button', class: 'primary', onclick: () => location.reload() }, t('retry'))));
        chrome();
        return;
      }
    }
  }
  queue.load();
  await offerTakenPhoto().catch(() => false);
  render(false);
}

// A member of staff's preview of a venue's missions (`/?preview=<venue>&lang=<code>#/missions`,
// shown by the staff console): the phone's own screens drawn from the venue's texts, as a new
// group sees them. Nothing is kept, sent or uploaded, and no player is made.
async function bootPreview(venueId, lang) {
  document.documentElement.classList.add('is-preview');
  update({ previewing: true });
  if (lang) update({ lang });
  await setLang(state.lang);
  try {
    const venue = await api(`/venues/${encodeURIComponent(venueId)}`, { lang: contentLang() });
    update({ venue, group: {
      id: 'preview', venueId: venue.id, name: t('preview.group'), joinCode: '', members: [], closedReason: null,
      missions: venue.missions.map((m) => ({
        id: m.id, complete: false, unlocked: !(m.after && m.after.length), tasks: m.tasks.map((task) => ({ id: task.id, state: 'open' })),
      })),
    } });
  } catch (e) {
    main.replaceChildren(h('section', { class: 'screen' }, h('p', null, errorText(e))));
    return;
  }
  if (!location.hash) location.replace('#/missions');
  render(false);
}

const startup = new URLSearchParams(location.search);
if (startup.has('preview')) bootPreview(startup.get('preview'), startup.get('lang')); else boot();

// Offline support: the service worker keeps the client, the venue's texts and pictures and the
// group's last answers. Browsers allow it on HTTPS and on localhost only.
// On a first visit the worker takes charge only after the page has loaded its group: it is
// asked for again then, so that the first visit is kept too.
if ('serviceWorker' in navigator && !startup.has('preview')) {
  navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch(() => {});
  navigator.serviceWorker.addEventListener('controllerchange', keepForOffline);
}
