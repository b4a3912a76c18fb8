// Groupie web client: screens, state and wiring. Plain ES modules, no build step.

import { api, ApiError, setToken, fetchText } from './api.js';
import { t, setLang, LANGS, langName, pickLang, tn } from './i18n.js';
import { h, accentFor, append, icon } from './ui.js';
import { UploadQueue, shrink } from './queue.js';
import { LiveEvents } from './live.js';

const STORE_KEY = 'groupie.player';
const main = document.getElementById('app');
const S = {
  token: null, name: '', playerId: null, lang: 'en',
  group: null, venue: null, venues: null,
  album: null, uploads: [], progress: new Map(), live: 'off',
  completed: null, openHints: new Set(), pendingFile: null,
  joinCode: null, preview: null, qrUrl: null, qrFor: null, live_: null, lastRoute: null,
};

// ---------------------------------------------------------------- storage

function load() {
  try {
    const s = JSON.parse(localStorage.getItem(STORE_KEY) || '{}');
    S.token = s.token || null; S.name = s.name || ''; S.playerId = s.playerId || null; S.lang = s.lang || null;
  } catch (e) { /* fresh start */ }
  S.lang = S.lang || pickLang(navigator.languages || [navigator.language]);
  setToken(S.token);
}
function save() {
  localStorage.setItem(STORE_KEY, JSON.stringify({ token: S.token, name: S.name, playerId: S.playerId, lang: S.lang }));
}

// ---------------------------------------------------------------- helpers

function errorText(e) {
  if (e instanceof ApiError) {
    const k = 'err.' + e.code;
    const s = t(k, { seconds: e.retryAfter || 60 });
    if (s !== k) return s;
    if (e.detail) return e.detail;
  }
  return t('err.generic');
}

let toastTimer = null;
function toast(text, link) {
  const box = document.getElementById('toast');
  box.replaceChildren(h('p', null, text, link ? [' ', h('a', { href: link.href }, link.text)] : null));
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => box.replaceChildren(), link ? 9000 : 3500);
}

const mission = (id) => S.venue && S.venue.missions.find((m) => m.id === id);
const progressOf = (id) => S.group && S.group.missions.find((m) => m.id === id);
const taskOf = (mid, tid) => { const m = mission(mid); return m && m.tasks.find((x) => x.id === tid); };
const go = (hash) => { if (location.hash === hash) render(true); else location.hash = hash; };
const groupTitle = () => (S.group && S.group.name) || t('group.unnamed', { code: S.group ? S.group.joinCode : '' });
function photoAlt(missionId, taskId, name) {
  const task = missionId && taskOf(missionId, taskId);
  return t('alt.photo', { task: task ? task.prompt : t('album.free'), name });
}
function spaced(code) { return (code || '').split('').join(' '); }

function langSelect() {
  const opts = [...LANGS];
  if (S.venue) for (const l of S.venue.languages) if (!opts.includes(l)) opts.push(l);
  return h('div', { class: 'field lang' },
    h('label', { for: 'lang' }, t('lang.label')),
    h('select', {
      id: 'lang',
      onchange: async (e) => {
        S.lang = e.target.value; await setLang(S.lang); save();
        if (S.token) api('/me', { method: 'PATCH', body: { lang: S.lang } }).catch(() => {});
        if (S.group) await loadGroupData().catch(() => {});
        chrome(); render(false);
        document.getElementById('lang') && document.getElementById('lang').focus();
      },
    }, opts.map((l) => h('option', { value: l, selected: l === S.lang }, langName(l)))));
}

function fileButton({ id, label, missionId, taskId, primary, disabled, describedBy }) {
  // A real <input type=file> inside a label: opens the camera on phones, keyboard-reachable.
  return h('label', { class: 'button file' + (primary ? ' primary' : ''), for: id, 'aria-disabled': disabled ? 'true' : null },
    h('input', {
      type: 'file', id, accept: 'image/*', capture: 'environment', class: 'visually-hidden',
      'data-mission': missionId, 'data-task': taskId, disabled, 'aria-describedby': describedBy,
      onchange: (e) => {
        const file = e.target.files && e.target.files[0];
        if (!file) return;
        if (S.pendingFile && S.pendingFile.url) URL.revokeObjectURL(S.pendingFile.url);
        S.pendingFile = { file, missionId, taskId, url: URL.createObjectURL(file) };
        go('#/photo');
      },
    }),
    icon('camera'), label);
}

// ---------------------------------------------------------------- chrome: header, uploads, tabs

function chrome() {
  document.querySelector('.skip').textContent = t('skip');
  document.getElementById('tabs').setAttribute('aria-label', t('tab.label'));
  const header = document.getElementById('bar');
  const v = S.group && S.venue;
  const status = S.group ? h('span', { class: 'live is-' + S.live }, t('live.' + S.live)) : null;
  header.replaceChildren();
  append(header, [
    h('a', { href: S.group ? '#/missions' : '#/', class: 'brand' },
      v && S.venue.theme.logoUrl ? h('img', { src: S.venue.theme.logoUrl, alt: '', width: 32, height: 32 }) : h('span', { class: 'logo', 'aria-hidden': 'true' }, 'G'),
      h('span', null, v ? S.venue.name : 'Groupie')),
    status]);
  const nav = document.getElementById('tabs');
  if (!S.group) { nav.hidden = true; nav.replaceChildren(); } else {
    nav.hidden = false;
    const r = route().name;
    const tab = (hash, names, ico, label) => h('a', { href: hash, 'aria-current': names.includes(r) ? 'page' : null },
      icon(ico), h('span', null, label));
    nav.replaceChildren(h('ul', null,
      h('li', null, tab('#/missions', ['missions', 'm', 'done', 'photo'], 'compass', t('tab.missions'))),
      h('li', null, tab('#/album', ['album'], 'image', t('tab.album'))),
      h('li', null, tab('#/group', ['group', 'invite'], 'users', t('tab.group')))));
  }
  pendingBar();
}

function uploadStatus(item) {
  const p = S.progress.get(item.id);
  if (item.state === 'sending') return t('up.sending', { pct: Math.round((p || 0) * 100) });
  if (item.state === 'offline') return t('up.offline');
  if (item.state === 'retrying') return t('up.retrying');
  if (item.state === 'failed') return t('up.failed', { why: errorText(new ApiError(0, item.error)) });
  return t('up.waiting');
}

function uploadRow(item, withTask) {
  const task = item.missionId && taskOf(item.missionId, item.taskId);
  const p = S.progress.get(item.id);
  return h('li', { class: 'upload ' + item.state, 'data-upload': item.id },
    withTask ? h('span', { class: 'what' }, task ? task.prompt : t('album.free')) : null,
    h('progress', { max: 1, value: item.state === 'sending' ? (p || 0) : (item.state === 'failed' ? 0 : null), 'aria-label': t('up.progress') }),
    h('span', { class: 'state' }, uploadStatus(item)),
    item.state === 'failed' ? h('span', { class: 'row' },
      h('button', { type: 'button', class: 'small', onclick: () => queue.retry(item.id) }, t('up.retry')),
      h('button', { type: 'button', class: 'small', onclick: () => queue.remove(item.id) }, t('up.remove'))) : null);
}

function pendingBar() {
  const box = document.getElementById('pending');
  const items = S.uploads;
  if (!items.length) { box.hidden = true; box.replaceChildren(); return; }
  box.hidden = false;
  const failed = items.filter((i) => i.state === 'failed').length;
  const offline = !navigator.onLine || items.some((i) => i.state === 'offline');
  box.replaceChildren(h('details', null,
    h('summary', null, tn(offline ? 'up.summary' : 'up.summaryOnline', items.length), offline ? ' · ' + t('up.whenOnline') : '', failed ? ' · ' + tn('up.failedCount', failed) : ''),
    h('ul', { class: 'uploads' }, items.map((i) => uploadRow(i, true)))));
}

// ---------------------------------------------------------------- routing

function route() {
  const parts = location.hash.replace(/^#\/?/, '').split('/');
  return { name: parts[0] || '', arg: decodeURIComponent(parts[1] || '') };
}

const GROUP_SCREENS = { missions: missionsScreen, m: missionScreen, done: doneScreen, album: albumScreen, group: groupScreen, invite: inviteScreen, photo: photoScreen };
const LIVE_SCREENS = new Set(['missions', 'm', 'done', 'album', 'group']);

function render(moveFocus) {
  const r = route();
  let screen;
  if (r.name === 'create') screen = S.token ? createScreen : startScreen;
  else if (r.name === 'join') screen = S.token ? joinScreen : startScreen;
  else if (GROUP_SCREENS[r.name]) screen = S.group ? GROUP_SCREENS[r.name] : startScreen;
  else if (S.joinCode) screen = joinLinkScreen;
  else screen = S.group ? missionsScreen : startScreen;
  const active = document.activeElement && document.activeElement.id;
  // A live update must not wipe what the visitor is typing.
  const typed = moveFocus ? [] : [...main.querySelectorAll('input[type=text][id]')].map((i) => [i.id, i.value]);
  const node = screen(r.arg);
  if (!node) return; // the screen redirected
  main.replaceChildren(node);
  for (const [id, value] of typed) { const i = document.getElementById(id); if (i && !i.readOnly) i.value = value; }
  chrome();
  const title = main.querySelector('h1');
  document.title = (title ? title.textContent + ' – ' : '') + (S.venue && S.group ? S.venue.name : 'Groupie');
  if (moveFocus && title) { title.setAttribute('tabindex', '-1'); title.focus({ preventScroll: true }); window.scrollTo(0, 0); }
  else if (active && document.getElementById(active)) document.getElementById(active).focus({ preventScroll: true });
}

addEventListener('hashchange', () => {
  const r = route();
  if (r.name !== 'photo' && S.pendingFile) { URL.revokeObjectURL(S.pendingFile.url); S.pendingFile = null; }
  if (r.name !== 'join') stopScan();
  render(true);
});

// ---------------------------------------------------------------- start, name, join by link

async function ensurePlayer(name) {
  name = name.trim();
  if (!S.token) {
    const r = await api('/players', { method: 'POST', body: { name, lang: S.lang } });
    S.token = r.token; S.playerId = r.player.id; S.name = r.player.name;
    setToken(S.token); save();
  } else if (name && name !== S.name) {
    const r = await api('/me', { method: 'PATCH', body: { name } });
    S.name = r.player.name; save();
  }
}

function nameField() {
  return h('div', { class: 'field' },
    h('label', { for: 'name' }, t('start.name')),
    h('input', { id: 'name', name: 'name', type: 'text', required: true, maxlength: 32, autocomplete: 'nickname', enterkeyhint: 'go', value: S.name, 'aria-describedby': 'name-help' }),
    h('p', { id: 'name-help', class: 'help' }, t('start.nameHelp')));
}

function formError(form) { return form.querySelector('.error'); }
function showError(form, text) {
  const el = formError(form);
  el.textContent = text; el.hidden = false;
}

function startScreen() {
  const form = h('form', { class: 'stack', novalidate: true, onsubmit: (e) => e.preventDefault() });
  const act = (target) => async (e) => {
    e.preventDefault();
    const input = form.querySelector('#name');
    if (!input.value.trim()) { showError(form, t('start.needName')); input.focus(); return; }
    setBusy(form, true);
    try { await ensurePlayer(input.value); go(target); } catch (err) { showError(form, errorText(err)); } finally { setBusy(form, false); }
  };
  append(form, [
    nameField(),
    h('p', { class: 'error', role: 'alert', hidden: true }),
    h('button', { type: 'submit', id: 'create', class: 'primary', onclick: act('#/create') }, t('start.create')),
    h('button', { type: 'button', id: 'join-start', onclick: act('#/join') }, t('start.join'))]);
  return h('section', { class: 'screen start' },
    h('h1', null, S.token && S.name ? t('start.hello', { name: S.name }) : t('start.title')),
    h('p', { class: 'lead' }, t('start.lead')),
    form,
    langSelect());
}

function setBusy(form, busy) {
  for (const b of form.querySelectorAll('button')) b.disabled = busy;
  form.setAttribute('aria-busy', busy ? 'true' : 'false');
}

function joinLinkScreen() {
  const p = S.preview || {};
  const code = S.joinCode;
  if (p.state === 'unknown' || p.state === 'closed') {
    return h('section', { class: 'screen' },
      h('h1', null, p.state === 'closed' ? t('join.closedTitle') : t('join.unknownTitle')),
      h('p', null, p.state === 'closed' ? t('err.group-closed') : t('join.unknown', { code })),
      h('div', { class: 'stack' },
        S.group ? h('a', { class: 'button primary', href: '#/missions', onclick: leaveJoinPath }, t('join.backToGroup', { group: groupTitle() })) :
          h('a', { class: 'button primary', href: S.token ? '#/create' : '#/', onclick: leaveJoinPath }, t('start.create')),
        h('a', { class: 'button', href: '#/join', onclick: leaveJoinPath }, t('join.typeCode'))));
  }
  const form = h('form', { class: 'stack', novalidate: true });
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const input = form.querySelector('#name');
    if (!input.value.trim()) { showError(form, t('start.needName')); input.focus(); return; }
    setBusy(form, true);
    try {
      await ensurePlayer(input.value);
      await joinByCode(code);
    } catch (err) { showError(form, errorText(err)); setBusy(form, false); }
  });
  append(form, [nameField(), h('p', { class: 'error', role: 'alert', hidden: true }),
    S.group && S.group.joinCode !== code ? h('p', { class: 'note' }, t('join.leaves', { group: groupTitle() })) : null,
    h('button', { type: 'submit', class: 'primary', id: 'join-group' }, t('join.button'))]);
  return h('section', { class: 'screen join-link' },
    p.venue ? h('p', { class: 'kicker' }, p.venue) : null,
    h('h1', null, p.group ? t('join.titleNamed', { group: p.group }) : t('join.title')),
    h('p', { class: 'code', 'aria-label': t('code.aria', { code: spaced(code) }) }, code),
    form, langSelect());
}

function leaveJoinPath() {
  S.joinCode = null;
  history.replaceState(null, '', '/' + location.hash);
}

async function joinByCode(code) {
  const r = await api('/groups/join', { method: 'POST', body: { code } });
  S.joinCode = null;
  history.replaceState(null, '', '/#/missions');
  await enterGroup(r.group.id);
  toast(t('join.welcome', { group: groupTitle() }));
  render(true);
}

// ---------------------------------------------------------------- create and invite

function createScreen() {
  const box = h('section', { class: 'screen' }, h('h1', null, t('create.title')));
  const form = h('form', { class: 'stack', novalidate: true });
  box.append(form);
  const wanted = new URLSearchParams(location.search).get('venue');
  const fill = (venues) => {
    const list = venues.length > 1 && !venues.some((v) => v.id === wanted) ? h('fieldset', { class: 'venues' },
      h('legend', null, t('create.where')),
      venues.map((v, i) => h('label', { class: 'venue-choice' },
        h('input', { type: 'radio', name: 'venue', value: v.id, checked: i === 0, required: true }),
        v.theme.logoUrl ? h('img', { src: v.theme.logoUrl, alt: '', width: 40, height: 40 }) : null,
        h('span', null, h('strong', null, v.name), v.description ? h('small', null, v.description) : null)))) :
      h('input', { type: 'hidden', name: 'venue', value: (venues.find((v) => v.id === wanted) || venues[0] || {}).id || '' });
    form.replaceChildren();
    append(form, [list,
      h('div', { class: 'field' },
        h('label', { for: 'group-name' }, t('create.name')),
        h('input', { id: 'group-name', name: 'gname', type: 'text', maxlength: 40, autocomplete: 'off', placeholder: t('create.namePlaceholder') })),
      h('p', { class: 'error', role: 'alert', hidden: true }),
      h('button', { type: 'submit', class: 'primary', id: 'create-group' }, t('create.button')),
      h('a', { href: '#/', class: 'button quiet' }, t('back'))]);
  };
  form.append(h('p', { class: 'busy' }, t('loading')));
  api('/venues', { lang: S.lang }).then((r) => {
    S.venues = r.venues;
    if (!r.venues.length) form.replaceChildren(h('p', { class: 'error' }, t('create.noVenues')));
    else fill(r.venues);
  }).catch((e) => form.replaceChildren(h('p', { class: 'error', role: 'alert' }, errorText(e))));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const venueId = form.elements.venue && (form.elements.venue.value || (form.querySelector('input[name=venue]:checked') || {}).value);
    const name = form.elements.gname.value.trim();
    setBusy(form, true);
    try {
      const r = await api('/groups', { method: 'POST', body: name ? { venueId, name } : { venueId } });
      await enterGroup(r.group.id);
      go('#/invite');
    } catch (err) { showError(form, errorText(err)); setBusy(form, false); }
  });
  return box;
}

async function qrImage() {
  if (S.qrFor === S.group.id && S.qrUrl) return S.qrUrl;
  const svg = await fetchText(`/groups/${S.group.id}/qr.svg?size=512`);
  if (S.qrUrl) URL.revokeObjectURL(S.qrUrl);
  S.qrUrl = URL.createObjectURL(new Blob([svg], { type: 'image/svg+xml' }));
  S.qrFor = S.group.id;
  return S.qrUrl;
}

function inviteScreen() {
  const g = S.group;
  const img = h('img', { class: 'qr', alt: t('invite.qrAlt', { code: spaced(g.joinCode) }), width: 280, height: 280 });
  qrImage().then((u) => { img.src = u; }).catch(() => { img.alt = t('invite.qrFailed'); });
  const link = h('input', { id: 'join-link', type: 'text', readonly: true, value: g.joinUrl, onfocus: (e) => e.target.select() });
  const copied = h('span', { class: 'help', role: 'status' });
  return h('section', { class: 'screen invite' },
    h('h1', null, t('invite.title')),
    h('p', { class: 'lead' }, g.joinable ? t('invite.lead') : t('invite.closed')),
    h('figure', { class: 'qr-box' }, img),
    h('p', { class: 'label' }, t('invite.codeLabel')),
    h('p', { class: 'code big', 'aria-label': t('code.aria', { code: spaced(g.joinCode) }) }, g.joinCode),
    h('div', { class: 'field' }, h('label', { for: 'join-link' }, t('invite.link')), link),
    h('div', { class: 'row' },
      h('button', { type: 'button', onclick: async () => {
        try { await navigator.clipboard.writeText(g.joinUrl); copied.textContent = t('invite.copied'); } catch (e) { link.focus(); link.select(); copied.textContent = t('invite.copyHand'); }
      } }, t('invite.copy')),
      navigator.share ? h('button', { type: 'button', onclick: () => navigator.share({ title: 'Groupie', text: t('invite.shareText', { venue: S.venue.name }), url: g.joinUrl }).catch(() => {}) }, t('share')) : null),
    copied,
    h('a', { href: '#/missions', class: 'button primary', id: 'to-missions' }, t('invite.go')));
}

// ---------------------------------------------------------------- join by scanning or typing

let scan = null;
function stopScan() {
  if (!scan) return;
  scan.stop = true;
  if (scan.stream) scan.stream.getTracks().forEach((tr) => tr.stop());
  scan = null;
}

function codeFromText(text) {
  const m = /\/j\/([A-Za-z0-9-]+)/.exec(text);
  if (m) return m[1];
  const s = text.trim();
  return /^[A-Za-z0-9 -]{4,12}$/.test(s) ? s : null;
}

function joinScreen() {
  const form = h('form', { class: 'stack', novalidate: true });
  const status = h('p', { class: 'help', role: 'status' });
  const submit = async (code) => {
    setBusy(form, true);
    try { await joinByCode(code); } catch (err) { showError(form, errorText(err)); setBusy(form, false); }
  };
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const code = form.elements.code.value.replace(/[\s-]/g, '');
    if (!code) { showError(form, t('join.needCode')); form.elements.code.focus(); return; }
    submit(code);
  });
  append(form, [
    h('div', { class: 'field' },
      h('label', { for: 'code' }, t('join.codeLabel')),
      h('input', { id: 'code', name: 'code', type: 'text', required: true, maxlength: 12, autocomplete: 'off', autocapitalize: 'characters', spellcheck: false, enterkeyhint: 'go', class: 'code-input', 'aria-describedby': 'code-help' }),
      h('p', { id: 'code-help', class: 'help' }, t('join.codeHelp'))),
    h('p', { class: 'error', role: 'alert', hidden: true }),
    S.group ? h('p', { class: 'note' }, t('join.leaves', { group: groupTitle() })) : null,
    h('button', { type: 'submit', class: 'primary', id: 'join-code' }, t('join.button'))]);
  const video = h('video', { class: 'scanner', playsinline: true, muted: true, hidden: true, 'aria-label': t('join.camera') });
  const canScan = 'BarcodeDetector' in window && navigator.mediaDevices && navigator.mediaDevices.getUserMedia;
  const scanButton = canScan ? h('button', { type: 'button', class: 'primary', onclick: async () => {
    try {
      const formats = await window.BarcodeDetector.getSupportedFormats();
      if (!formats.includes('qr_code')) throw new Error('no qr');
      const detector = new window.BarcodeDetector({ formats: ['qr_code'] });
      const stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment' }, audio: false });
      stopScan();
      scan = { stream, stop: false };
      video.srcObject = stream; video.hidden = false; await video.play();
      scanButton.hidden = true;
      status.textContent = t('join.scanning');
      const tick = async () => {
        if (!scan || scan.stop) return;
        try {
          const codes = await detector.detect(video);
          const found = codes.map((c) => codeFromText(c.rawValue)).find(Boolean);
          if (found) { stopScan(); video.hidden = true; status.textContent = t('join.found', { code: found }); submit(found); return; }
        } catch (e) { /* frame not ready */ }
        setTimeout(tick, 250);
      };
      tick();
    } catch (e) {
      status.textContent = t('join.noCamera');
      scanButton.hidden = true;
    }
  } }, t('join.scan')) : null;
  return h('section', { class: 'screen' },
    h('h1', null, t('join.title')),
    canScan ? h('p', { class: 'lead' }, t('join.scanLead')) : h('p', { class: 'lead' }, t('join.typeLead')),
    scanButton, video, status,
    form,
    h('a', { href: S.group ? '#/group' : '#/', class: 'button quiet' }, t('back')));
}

// ---------------------------------------------------------------- missions

function missionState(m) {
  const p = progressOf(m.id);
  const done = p ? p.tasks.filter((x) => x.state === 'done').length : 0;
  return { p, done, total: m.tasks.length, complete: p && p.complete, unlocked: !p || p.unlocked };
}

function lockText(m) {
  const names = (m.after || []).filter((id) => { const p = progressOf(id); return !p || !p.complete; })
    .map((id) => (mission(id) || { title: id }).title);
  return t('mission.locked', { missions: names.join(', ') });
}

function meter(done, total, label) {
  return h('span', { class: 'meter', role: 'img', 'aria-label': label }, h('span', { style: { width: (100 * done / total) + '%' } }));
}

function missionsScreen() {
  const ms = S.venue.missions;
  const complete = ms.filter((m) => missionState(m).complete).length;
  return h('section', { class: 'screen missions' },
    h('h1', null, groupTitle()),
    h('p', { class: 'lead' }, tn('missions.summary', ms.length, { done: complete })),
    h('ul', { class: 'grid' }, ms.map((m) => {
      const st = missionState(m);
      const pending = S.uploads.filter((u) => u.missionId === m.id).length;
      const cls = 'mission-card' + (st.complete ? ' complete' : '') + (!st.unlocked ? ' locked' : '');
      return h('li', null, h('a', { href: (st.complete ? '#/done/' : '#/m/') + encodeURIComponent(m.id), class: cls, 'data-mission': m.id },
        h('img', { src: m.iconUrl, alt: '', width: 56, height: 56, class: 'icon' }),
        h('span', { class: 'title' }, m.title),
        st.complete ? h('span', { class: 'badge done' }, icon('check'), t('mission.complete')) :
          !st.unlocked ? h('span', { class: 'badge lock' }, icon('lock'), lockText(m)) :
            [h('span', { class: 'count' }, tn('mission.progress', st.total, { done: st.done })), meter(st.done, st.total, tn('mission.progress', st.total, { done: st.done }))],
        pending ? h('span', { class: 'badge pending' }, tn('mission.pending', pending)) : null));
    })));
}

function missionScreen(id) {
  const m = mission(id);
  if (!m) { go('#/missions'); return null; }
  const st = missionState(m);
  const tasks = st.p ? st.p.tasks : [];
  return h('section', { class: 'screen mission' + (st.unlocked ? '' : ' locked') },
    h('a', { href: '#/missions', class: 'back' }, icon('left'), t('mission.all')),
    h('div', { class: 'mission-head' },
      h('img', { src: m.iconUrl, alt: '', width: 64, height: 64 }),
      h('div', null,
        h('h1', null, m.title),
        m.area ? h('p', { class: 'area' }, icon('pin'), h('span', { class: 'visually-hidden' }, t('mission.where') + ' '), m.area) : null)),
    st.complete ? h('a', { class: 'callout done', href: '#/done/' + encodeURIComponent(m.id) }, icon('star'), t('mission.seeCollage')) :
      !st.unlocked ? h('p', { class: 'callout lock' }, icon('lock'), lockText(m)) :
        h('p', { class: 'count' }, tn('mission.progress', st.total, { done: st.done })),
    h('ol', { class: 'tasks' }, m.tasks.map((task, i) => {
      const tp = tasks.find((x) => x.id === task.id) || { state: 'open' };
      const done = tp.state === 'done';
      const chosen = tp.chosenPhoto;
      const ups = S.uploads.filter((u) => u.missionId === m.id && u.taskId === task.id);
      const hintId = `hint-${m.id}-${task.id}`;
      return h('li', { class: 'task ' + (done ? 'done' : 'open'), 'data-task': task.id },
        h('div', { class: 'task-head' },
          h('span', { class: 'num', 'aria-hidden': 'true' }, done ? icon('check') : String(i + 1)),
          h('h2', { id: `prompt-${task.id}` }, h('span', { class: 'visually-hidden' }, t('task.n', { n: i + 1 }) + (done ? ' (' + t('task.done') + ')' : ' (' + t('task.open') + ')') + ': '), task.prompt)),
        chosen ? h('figure', { class: 'chosen' },
          h('img', { src: chosen.thumbUrl, alt: t('alt.photo', { task: task.prompt, name: chosen.photographerName }), loading: 'lazy' }),
          h('figcaption', null, icon('camera'), t('task.by', { name: chosen.photographerName }))) : null,
        ups.length ? h('ul', { class: 'uploads' }, ups.map((u) => uploadRow(u, false))) : null,
        task.hint ? h('details', { id: hintId, open: S.openHints.has(hintId), ontoggle: (e) => { if (e.target.open) S.openHints.add(hintId); else S.openHints.delete(hintId); } },
          h('summary', null, t('task.hint')), h('p', null, task.hint)) : null,
        st.unlocked ? fileButton({ id: `take-${m.id}-${task.id}`, label: done ? t('task.another') : t('task.take'), missionId: m.id, taskId: task.id, primary: !done, describedBy: `prompt-${task.id}` }) : null);
    })));
}

// ---------------------------------------------------------------- taking a photo

function photoScreen() {
  const pf = S.pendingFile;
  if (!pf) { go('#/missions'); return null; }
  const task = taskOf(pf.missionId, pf.taskId);
  const m = mission(pf.missionId);
  const status = h('p', { class: 'help', role: 'status' });
  const accept = h('button', { type: 'button', class: 'primary', id: 'accept-photo', onclick: async () => {
    accept.disabled = true;
    status.textContent = t('photo.saving');
    try {
      const blob = await shrink(pf.file);
      await queue.add({ groupId: S.group.id, missionId: pf.missionId, taskId: pf.taskId, blob });
      URL.revokeObjectURL(pf.url);
      S.pendingFile = null;
      toast(navigator.onLine ? t('photo.queued') : t('photo.queuedOffline'));
      go('#/m/' + encodeURIComponent(pf.missionId));
    } catch (e) {
      accept.disabled = false;
      status.textContent = t('err.generic');
    }
  } }, icon('check'), t('photo.use'));
  return h('section', { class: 'screen photo' },
    h('p', { class: 'kicker' }, m ? m.title : ''),
    h('h1', null, t('photo.title')),
    task ? h('p', { class: 'lead' }, task.prompt) : null,
    h('img', { class: 'preview-img', src: pf.url, alt: t('photo.previewAlt', { task: task ? task.prompt : '' }),
      // HEIC photos (iPhones) cannot be shown by every browser, but the server takes them.
      onerror: (e) => e.target.replaceWith(h('p', { class: 'note' }, t('photo.noPreview', { name: pf.file.name }))) }),
    h('div', { class: 'stack' },
      accept,
      fileButton({ id: 'retake', label: t('photo.retake'), missionId: pf.missionId, taskId: pf.taskId }),
      h('a', { href: '#/m/' + encodeURIComponent(pf.missionId), class: 'button quiet' }, t('cancel'))),
    status);
}

// ---------------------------------------------------------------- completion

function collageOf(id) { const p = progressOf(id); return p && p.collage; }

function doneScreen(id) {
  const m = mission(id);
  const st = m && missionState(m);
  if (!m || !st.complete) { go(m ? '#/m/' + encodeURIComponent(id) : '#/missions'); return null; }
  const c = collageOf(id);
  const ready = c && c.status === 'ready';
  const fileName = `groupie-${S.venue.id}-${m.id}.jpg`;
  if (S.celebrate === id) { S.celebrate = null; confetti(); }
  return h('section', { class: 'screen done' },
    h('a', { href: '#/missions', class: 'back' }, icon('left'), t('mission.all')),
    h('p', { class: 'kicker' }, m.title),
    h('h1', null, icon('star'), t('done.title')),
    h('p', { class: 'lead' }, t('done.lead')),
    ready ? h('figure', { class: 'collage' },
      h('img', { src: c.urls.jpg, alt: t('done.collageAlt', { mission: m.title }), width: c.width, height: c.height })) :
      h('p', { class: 'busy collage-wait', role: 'status' }, h('span', { class: 'spinner', 'aria-hidden': 'true' }), t('done.making')),
    ready ? h('div', { class: 'row' },
      h('a', { href: c.urls.jpg, download: fileName, class: 'button primary', id: 'download-collage' }, icon('download'), t('done.download')),
      navigator.share ? h('button', { type: 'button', onclick: () => shareImage(c.urls.jpg, fileName, m.title) }, icon('share'), t('share')) : null) : null,
    m.fact ? h('section', { class: 'fact' }, h('h2', null, icon('bulb'), t('done.fact')), h('p', null, m.fact)) : null,
    h('div', { class: 'stack' },
      h('a', { href: '#/m/' + encodeURIComponent(m.id), class: 'button' }, t('done.photos')),
      h('a', { href: '#/missions', class: 'button quiet' }, t('done.next'))));
}

function confetti() {
  const box = h('div', { class: 'confetti', 'aria-hidden': 'true' },
    Array.from({ length: 18 }, (_, i) => h('i', { style: { left: (i * 5.5 + 1) + '%', animationDelay: (i % 6) * 0.15 + 's' } })));
  document.body.append(box);
  setTimeout(() => box.remove(), 3600);
}

async function shareImage(url, name, title) {
  try {
    const blob = await (await fetch(url)).blob();
    const file = new File([blob], name, { type: blob.type || 'image/jpeg' });
    if (navigator.canShare && navigator.canShare({ files: [file] })) await navigator.share({ files: [file], title });
    else await navigator.share({ title, text: t('done.shareText', { mission: title, venue: S.venue.name }) });
  } catch (e) { /* the visitor closed the share sheet */ }
}

// ---------------------------------------------------------------- album

async function loadAlbum(filter, more) {
  const a = S.album && S.album.filter === filter && more ? S.album : { filter, photos: [], collages: [], next: null };
  const q = new URLSearchParams();
  if (filter) q.set('mission', filter);
  if (more && a.next) q.set('before', a.next);
  else q.set('limit', String(Math.min(100, Math.max(30, S.album && S.album.filter === filter ? S.album.photos.length : 0))));
  const r = await api(`/groups/${S.group.id}/photos?${q}`);
  if (more) a.photos = a.photos.concat(r.photos); else a.photos = r.photos;
  a.collages = r.collages || [];
  a.next = r.next || null;
  a.loaded = true;
  S.album = a;
  return a;
}

function albumScreen(filter) {
  const a = S.album && S.album.filter === filter ? S.album : null;
  if (!a || a.stale) {
    loadAlbum(filter).then(() => { if (route().name === 'album') render(false); }).catch((e) => toast(errorText(e)));
  }
  const missionsWithTasks = S.venue.missions;
  const collages = a ? a.collages.filter((c) => c.status === 'ready' && (!filter || c.missionId === filter)) : [];
  const select = h('select', { id: 'album-filter', onchange: (e) => go('#/album' + (e.target.value ? '/' + encodeURIComponent(e.target.value) : '')) },
    h('option', { value: '' }, t('album.all')),
    missionsWithTasks.map((m) => h('option', { value: m.id, selected: m.id === filter }, m.title)));
  return h('section', { class: 'screen album' },
    h('h1', null, t('album.title')),
    h('div', { class: 'field' }, h('label', { for: 'album-filter' }, t('album.filter')), select),
    !a ? h('p', { class: 'busy' }, t('loading')) : [
      collages.length ? [h('h2', null, t('album.collages')), h('ul', { class: 'thumbs collages' }, collages.map((c) => {
        const m = mission(c.missionId);
        return h('li', null, h('button', { type: 'button', class: 'thumb', onclick: () => openViewer({ collage: c }) },
          h('img', { src: c.urls.jpg, alt: t('done.collageAlt', { mission: m ? m.title : c.missionId }), loading: 'lazy' })));
      }))] : null,
      h('h2', null, t('album.photos')),
      a.photos.length ? h('ul', { class: 'thumbs' }, a.photos.map((p, i) => h('li', null,
        h('button', { type: 'button', class: 'thumb', onclick: () => openViewer({ index: i }) },
          h('img', { src: p.urls.thumb, alt: photoAlt(p.missionId, p.taskId, p.photographer.name), loading: 'lazy', width: 200, height: Math.round(200 * p.height / p.width) }),
          h('span', { class: 'cap', 'aria-hidden': 'true' }, p.photographer.name))))) :
        h('p', { class: 'empty' }, t('album.empty')),
      a.next ? h('button', { type: 'button', onclick: () => loadAlbum(filter, true).then(() => render(false)) }, t('album.more')) : null,
      h('button', { type: 'button', class: 'quiet', id: 'download-album', onclick: downloadAlbum }, icon('download'), t('album.zip'))]);
}

async function downloadAlbum() {
  try {
    const tok = await api(`/groups/${S.group.id}/events/token`, { method: 'POST' });
    const a = h('a', { href: `/api/v1/groups/${S.group.id}/album.zip?token=${encodeURIComponent(tok.token)}`, download: 'groupie-album.zip' });
    document.body.append(a); a.click(); a.remove();
  } catch (e) { toast(errorText(e)); }
}

function openViewer({ index, collage }) {
  const dlg = document.getElementById('viewer');
  const show = (i) => {
    let src, alt, caption, dl, name, extra = null;
    if (collage) {
      const m = mission(collage.missionId);
      src = collage.urls.jpg; dl = collage.urls.jpg; name = `groupie-${collage.missionId}.jpg`;
      alt = t('done.collageAlt', { mission: m ? m.title : '' }); caption = alt;
    } else {
      const p = S.album.photos[i];
      src = p.urls.display; dl = p.urls.original; name = `groupie-${p.id}.jpg`;
      alt = photoAlt(p.missionId, p.taskId, p.photographer.name); caption = alt;
      extra = photoActions(p, dlg, () => show(i));
    }
    const count = collage ? 0 : S.album.photos.length;
    dlg.setAttribute('aria-label', caption);
    dlg.replaceChildren(h('div', { class: 'viewer' },
      h('img', { src, alt }),
      h('p', { class: 'caption' }, caption),
      h('div', { class: 'row' },
        count > 1 ? h('button', { type: 'button', 'aria-label': t('viewer.prev'), onclick: () => show((i - 1 + count) % count) }, icon('left')) : null,
        h('a', { href: dl, download: name, class: 'button primary' }, icon('download'), t('viewer.download')),
        count > 1 ? h('button', { type: 'button', 'aria-label': t('viewer.next'), onclick: () => show((i + 1) % count) }, icon('right')) : null,
        h('button', { type: 'button', id: 'viewer-close', onclick: () => dlg.close() }, t('close'))),
      extra));
  };
  show(index || 0);
  dlg.showModal();
  document.getElementById('viewer-close').focus();
}

// Pick a task's photo for the collage, or delete one's own photo (the creator may delete any).
function photoActions(p, dlg, again) {
  const tp = p.taskId && progressOf(p.missionId) && progressOf(p.missionId).tasks.find((x) => x.id === p.taskId);
  const me = S.group.members.find((m) => m.id === S.playerId);
  const mayDelete = p.photographer.id === S.playerId || (me && me.isCreator);
  const chosen = tp && tp.chosenPhoto && tp.chosenPhoto.id === p.id;
  return h('div', { class: 'row' },
    tp && chosen ? h('span', { class: 'chosen-mark' }, icon('check'), t('viewer.chosen')) : null,
    tp && !chosen ? h('button', { type: 'button', class: 'small', onclick: async () => {
      try {
        await api(`/groups/${S.group.id}/missions/${encodeURIComponent(p.missionId)}/tasks/${encodeURIComponent(p.taskId)}/choice`, { method: 'PUT', body: { photoId: p.id } });
        tp.chosenPhoto = { id: p.id, photographerId: p.photographer.id, photographerName: p.photographer.name, thumbUrl: p.urls.thumb };
        toast(t('viewer.chooseDone'));
        again();
        scheduleRefresh(true);
      } catch (e) { toast(errorText(e)); }
    } }, t('viewer.choose')) : null,
    mayDelete ? h('button', { type: 'button', class: 'small danger', onclick: async () => {
      if (!confirm(t('viewer.deleteConfirm'))) return;
      try {
        await api(`/photos/${p.id}`, { method: 'DELETE' });
        dlg.close();
        S.album.photos = S.album.photos.filter((x) => x !== p);
        toast(t('viewer.deleted'));
        render(false);
        scheduleRefresh(true);
      } catch (e) { toast(errorText(e)); }
    } }, t('viewer.delete')) : null);
}

// ---------------------------------------------------------------- group

function groupScreen() {
  const g = S.group;
  const maxSize = S.venue.rules && S.venue.rules.maxGroupSize;
  const rename = h('form', { class: 'stack', novalidate: true });
  rename.append(nameField(), h('p', { class: 'error', role: 'alert', hidden: true }), h('button', { type: 'submit' }, t('group.saveName')));
  rename.addEventListener('submit', async (e) => {
    e.preventDefault();
    const v = rename.querySelector('#name').value.trim();
    if (!v) { showError(rename, t('start.needName')); return; }
    try { await ensurePlayer(v); toast(t('group.renamed')); refreshGroup(); } catch (err) { showError(rename, errorText(err)); }
  });
  return h('section', { class: 'screen group' },
    h('h1', null, groupTitle()),
    h('p', { class: 'lead' }, S.venue.name, ' · ', t('group.code'), ' ', h('strong', { class: 'mono' }, g.joinCode)),
    h('h2', null, maxSize ? t('group.membersOf', { n: g.members.length, max: maxSize }) : t('group.members')),
    h('ul', { class: 'members' }, g.members.map((m) => h('li', null,
      h('span', { class: 'avatar', 'aria-hidden': 'true' }, [...m.name][0] || '?'),
      h('span', { class: 'who' }, h('strong', null, m.name), m.id === S.playerId ? ' ' + t('group.you') : '',
        m.isCreator ? h('small', null, t('group.creator')) : null),
      h('span', { class: 'tasks-count' }, tn('group.tasks', m.tasksCompleted))))),
    h('div', { class: 'stack' },
      h('a', { href: '#/invite', class: 'button primary' }, t('group.showQr')),
      h('a', { href: '#/join', class: 'button' }, t('group.change')),
      h('button', { type: 'button', class: 'danger', id: 'leave', onclick: leaveGroup }, t('group.leave'))),
    h('h2', null, t('group.you2')),
    rename,
    langSelect());
}

async function leaveGroup() {
  if (!confirm(t('group.leaveConfirm'))) return;
  try {
    await api(`/groups/${S.group.id}/members/${S.playerId}`, { method: 'DELETE' });
  } catch (e) { if (e.status !== 404) { toast(errorText(e)); return; } }
  exitGroup();
  go('#/');
}

// ---------------------------------------------------------------- group data and live events

const queue = new UploadQueue({
  getToken: () => S.token,
  onChange: (items, progress) => {
    const sig = items.map((i) => i.id + i.state).join();
    S.uploads = items; S.progress = progress;
    if (sig !== S.uploadSig) {
      S.uploadSig = sig;
      pendingBar();
      const r = route().name;
      if (S.group && (r === 'm' || r === 'missions')) render(false);
    } else {
      // Only the progress moved: update the bars and texts in place.
      for (const el of document.querySelectorAll('[data-upload]')) {
        const item = items.find((i) => i.id === el.dataset.upload);
        if (!item) continue;
        const bar = el.querySelector('progress');
        if (bar && item.state === 'sending') bar.value = progress.get(item.id) || 0;
        el.querySelector('.state').textContent = uploadStatus(item);
      }
    }
  },
  onUploaded: (item) => {
    toast(t('photo.uploaded'));
    if (S.group && item.groupId === S.group.id) scheduleRefresh();
  },
});

async function loadGroupData() {
  const g = await api(`/groups/${S.groupId}`, { lang: S.lang });
  const venue = await api(`/venues/${g.group.venueId}`, { lang: S.lang });
  S.group = g.group; S.venue = venue;
  applyTheme();
}

function applyTheme() {
  const c = accentFor(S.venue && S.venue.theme && S.venue.theme.color);
  const st = document.documentElement.style;
  st.setProperty('--accent', c.accent); st.setProperty('--accent-soft', c.soft); st.setProperty('--accent-mid', c.mid);
  const meta = document.querySelector('meta[name=theme-color]');
  if (meta) meta.content = c.accent;
  document.documentElement.lang = LANGS.includes(S.lang) ? S.lang : 'en';
}

async function enterGroup(groupId) {
  if (S.live_) S.live_.stop();
  S.groupId = groupId;
  S.album = null; S.completed = null;
  await loadGroupData();
  S.completed = new Set(S.group.missions.filter((m) => m.complete).map((m) => m.id));
  S.collageSig = collageSig();
  S.live_ = new LiveEvents(groupId, { onEvent, onResync: (why) => { if (why === 'gone') refreshGroup(); else { scheduleRefresh(true); } }, onStatus });
  S.live_.start();
}

function exitGroup() {
  if (S.live_) S.live_.stop();
  S.live_ = null; S.group = null; S.groupId = null; S.venue = null; S.album = null;
  applyTheme();
}

function onStatus(s) {
  S.live = s;
  const el = document.querySelector('#bar .live');
  if (el) { el.className = 'live is-' + s; el.textContent = t('live.' + s); }
}

let refreshTimer = null, refreshAlbum = false;
function scheduleRefresh(album) {
  if (album) refreshAlbum = true;
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(refreshGroup, 150);
}

function collageSig() {
  return S.group ? S.group.missions.map((m) => (m.collage ? m.id + m.collage.status + (m.collage.createdAt || '') : '')).join() : '';
}

async function refreshGroup() {
  if (!S.groupId) return;
  let g;
  try {
    g = await api(`/groups/${S.groupId}`, { lang: S.lang });
  } catch (e) {
    if (e.status === 404 || e.status === 403) {
      exitGroup(); toast(t('group.gone')); go('#/');
    } else if (e.status === 401) {
      resetPlayer();
    }
    return;
  }
  S.group = g.group;
  const newly = S.group.missions.filter((m) => m.complete && S.completed && !S.completed.has(m.id)).map((m) => m.id);
  S.completed = new Set(S.group.missions.filter((m) => m.complete).map((m) => m.id));
  const sig = collageSig();
  if (sig !== S.collageSig) { S.collageSig = sig; refreshAlbum = true; }
  if (S.album && refreshAlbum) {
    S.album.stale = true;
    refreshAlbum = false;
    if (route().name === 'album') {
      try { await loadAlbum(S.album.filter); } catch (e) { /* shown next time */ }
    }
  }
  const r = route();
  for (const id of newly) {
    const m = mission(id);
    if ((r.name === 'm' && r.arg === id) || r.name === 'missions') {
      S.celebrate = id;
      go('#/done/' + encodeURIComponent(id));
      return;
    }
    toast(t('done.toast', { mission: m ? m.title : id }), { href: '#/done/' + encodeURIComponent(id), text: t('done.see') });
  }
  if (LIVE_SCREENS.has(r.name) || (!r.name && !S.joinCode)) render(false); else chrome();
}

function onEvent(type, data) {
  if (type === 'venue-updated') {
    loadGroupData().then(() => render(false)).catch(() => {});
    return;
  }
  const album = /^photo-|collage|choice/.test(type);
  scheduleRefresh(album);
  if (type === 'photo-added' && data.photographerId && data.photographerId !== S.playerId) {
    const task = data.missionId && taskOf(data.missionId, data.taskId);
    toast(t('live.photoBy', { name: data.photographerName || '?', task: task ? task.prompt : t('album.free') }));
  } else if (type === 'member-joined' && data.playerId !== S.playerId && data.name) {
    toast(t('live.joined', { name: data.name }));
  }
}

function resetPlayer() {
  exitGroup();
  S.token = null; S.playerId = null; setToken(null); save();
  go('#/');
}

// ---------------------------------------------------------------- start-up

async function boot() {
  load();
  await setLang(S.lang);
  const m = /^\/j\/([^/?#]+)/.exec(location.pathname);
  if (m) {
    S.joinCode = decodeURIComponent(m[1]).toUpperCase();
    const pv = document.querySelector('.preview');
    if (pv) {
      const h1 = pv.querySelector('h1');
      const gname = h1 && pv.dataset.state === 'joinable' ? h1.textContent.replace(/^\s*Group\s*/, '').trim() : '';
      S.preview = { state: pv.dataset.state, venue: (pv.querySelector('.venue') || {}).textContent, group: gname };
    }
  }
  if (S.token) {
    try {
      const me = await api('/me');
      S.playerId = me.player.id; S.name = me.player.name; save();
      if (me.group) {
        if (S.joinCode && me.group.joinCode.toUpperCase() === S.joinCode) { S.joinCode = null; history.replaceState(null, '', '/#/missions'); }
        await enterGroup(me.group.id);
      }
    } catch (e) {
      if (e.status === 401) { S.token = null; setToken(null); save(); } else {
        main.replaceChildren(h('section', { class: 'screen' }, h('h1', null, t('err.offlineTitle')), h('p', null, errorText(e)),
          h('button', { type: 'button', class: 'primary', onclick: () => location.reload() }, t('retry'))));
        chrome();
        return;
      }
    }
  }
  queue.load();
  render(false);
}

boot();
