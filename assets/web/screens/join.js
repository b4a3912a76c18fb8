// Getting into a group: the start screen (name, then start or join a group), a join link
// (/j/<code>) with what the server said about its group, and joining by scanning the QR code
// or typing the code.

import { api } from '../api.js';
import { t, setLang } from '../i18n.js';
import { h, append, canScan, scanner } from '../ui.js';
import { state, update, contentLang, negotiateLang } from '../store.js';
import { go, render } from '../router.js';
import { errorText, toast } from '../messages.js';
import { ensurePlayer, enterGroup } from '../session.js';
import { nameField, showError, setBusy, langSelect, groupTitle, spaced } from '../widgets.js';

// ---------------------------------------------------------------- start

export function startScreen() {
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
  const venueId = new URLSearchParams(location.search).get('venue');
  const venue = venueId ? h('div', { class: 'venue-intro', 'aria-live': 'polite' }) : null;
  const missions = venueId ? h('div', { class: 'venue-missions' }) : null;
  if (venue) {
    api(`/venues/${encodeURIComponent(venueId)}`, { lang: contentLang() })
      // The poster's venue decides the phone's one language as a group's venue does (a
      // Japanese phone at a venue without Japanese reads it all in English): drawn again in it.
      .then((v) => (negotiateLang(v.languages) ? setLang(state.lang).then(() => render(false)) : showVenue(v, venue, missions)))
      .catch(() => { venue.remove(); missions.remove(); }); // an unknown venue: the plain start screen
  }
  return h('section', { class: 'screen start' },
    h('h1', null, state.token && state.name ? t('start.hello', { name: state.name }) : t('start.title')),
    venue,
    h('p', { class: 'lead' }, t('start.lead')),
    form,
    missions,
    langSelect());
}

// What a venue's poster (`/?venue=<id>`) opens on: the venue, its missions, and the way in.
// The missions go below the form, so that "start a group" stays on the first screen.
function showVenue(v, intro, missions) {
  intro.replaceChildren(...[
    v.theme.logoUrl ? h('img', { class: 'venue-logo', src: v.theme.logoUrl, alt: '', width: 64, height: 64 }) : null,
    h('p', { class: 'venue-name', lang: v.language, id: 'venue-name' }, v.name),
    v.description ? h('p', { lang: v.language }, v.description) : null,
  ].filter(Boolean));
  missions.replaceChildren(h('h2', null, t('start.missionsHere')),
    h('ul', { class: 'venue-mission-list', lang: v.language },
      v.missions.map((m) => h('li', { 'data-mission': m.id },
        h('img', { src: m.iconUrl, alt: '', width: 40, height: 40 }),
        h('span', null, h('strong', null, m.title), m.area ? h('small', null, m.area) : null)))));
}

// ---------------------------------------------------------------- join by link

export function joinLinkScreen() {
  const p = state.preview || {};
  const code = state.joinCode;
  if (p.state === 'unknown' || p.state === 'closed' || p.state === 'full') {
    const said = { closed: ['join.closedTitle', t('err.group-closed')], full: ['join.fullTitle', t('err.group-full')] }[p.state] ||
      ['join.unknownTitle', t('join.unknown', { code })];
    return h('section', { class: 'screen', 'data-state': p.state },
      h('h1', null, t(said[0])),
      h('p', null, said[1]),
      h('div', { class: 'stack' },
        state.group ? h('a', { class: 'button primary', href: '#/missions', onclick: leaveJoinPath }, t('join.backToGroup', { group: groupTitle() })) :
          h('a', { class: 'button primary', href: state.token ? '#/create' : '#/', onclick: leaveJoinPath }, t('start.create')),
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
    } catch (err) { joinFailed(form, err); }
  });
  append(form, [nameField(), h('p', { class: 'error', role: 'alert', hidden: true }),
    state.group && state.group.joinCode !== code ? h('p', { class: 'note' }, t('join.leaves', { group: groupTitle() })) : null,
    h('button', { type: 'submit', class: 'primary', id: 'join-group' }, t('join.button'))]);
  return h('section', { class: 'screen join-link' },
    p.venue ? h('p', { class: 'kicker' }, p.venue) : null,
    h('h1', null, p.group ? t('join.titleNamed', { group: p.group }) : t('join.title')),
    h('p', { class: 'code', 'aria-label': t('code.aria', { code: spaced(code) }) }, code),
    form, langSelect());
}

function leaveJoinPath() {
  update({ joinCode: null });
  history.replaceState(null, '', '/' + location.hash);
}

// A group that is full or closed is no dead end: the way on is a group of one's own.
function joinFailed(form, err) {
  showError(form, errorText(err));
  setBusy(form, false);
  const stuck = err && (err.code === 'group-full' || err.code === 'group-closed' || err.code === 'joining-time-over');
  let way = form.querySelector('.own-group');
  if (stuck && !way) {
    way = h('a', { class: 'button primary own-group', href: state.token ? '#/create' : '#/', onclick: leaveJoinPath }, t('start.create'));
    form.append(way);
  }
  if (way) way.hidden = !stuck;
}

async function joinByCode(code) {
  const r = await api('/groups/join', { method: 'POST', body: { code } });
  update({ joinCode: null });
  history.replaceState(null, '', '/#/missions');
  await enterGroup(r.group.id);
  toast(t('join.welcome', { group: groupTitle() }));
  render(true);
}

// ---------------------------------------------------------------- join by scanning or typing

function codeFromText(text) {
  const m = /\/j\/([A-Za-z0-9-]+)/.exec(text);
  if (m) return m[1];
  const s = text.trim();
  return /^[A-Za-z0-9 -]{4,12}$/.test(s) ? s : null;
}

export function joinScreen() {
  const form = h('form', { class: 'stack', novalidate: true });
  const status = h('p', { class: 'help', role: 'status' });
  const submit = async (code) => {
    setBusy(form, true);
    try { await joinByCode(code); } catch (err) { joinFailed(form, err); }
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
    state.group ? h('p', { class: 'note' }, t('join.leaves', { group: groupTitle() })) : null,
    h('button', { type: 'submit', class: 'primary', id: 'join-code' }, t('join.button'))]);
  const video = h('video', { class: 'scanner', playsinline: true, muted: true, hidden: true, 'aria-label': t('join.camera') });
  const scannable = canScan();
  const scanButton = scannable ? h('button', { type: 'button', class: 'primary', onclick: async () => {
    try {
      const { startScan } = await scanner();
      await startScan(video, (text) => {
        const found = codeFromText(text);
        if (found) { status.textContent = t('join.found', { code: found }); submit(found); }
        return !!found;
      });
      scanButton.hidden = true;
      status.textContent = t('join.scanning');
    } catch (e) {
      status.textContent = t('join.noCamera');
      scanButton.hidden = true;
    }
  } }, t('join.scan')) : null;
  return h('section', { class: 'screen' },
    h('h1', null, t('join.title')),
    scannable ? h('p', { class: 'lead' }, t('join.scanLead')) : h('p', { class: 'lead' }, t('join.typeLead')),
    scanButton, video, status,
    form,
    h('a', { href: state.group ? '#/group' : '#/', class: 'button quiet' }, t('back')));
}
