// The group itself: starting one (with the venue), inviting others with its QR code and link,
// and its members, where the player can rename themselves or leave.

import { api, fetchText } from '../api.js';
import { t, tn } from '../i18n.js';
import { h, append, laterStyles } from '../ui.js';
import { state, memberName, contentLang } from '../store.js';
import { go } from '../router.js';
import { errorText, toast } from '../messages.js';
import { ensurePlayer, enterGroup, exitGroup, refreshGroup } from '../session.js';
import { nameField, showError, setBusy, langSelect, groupTitle, spaced, avatar } from '../widgets.js';

// ---------------------------------------------------------------- create

export function createScreen() {
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
  api('/venues', { lang: contentLang() }).then((r) => {
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

// ---------------------------------------------------------------- invite

// The QR code of the group shown last, as an object URL: fetched once per group.
let qr = { url: null, groupId: null };

async function qrImage() {
  if (qr.groupId === state.group.id && qr.url) return qr.url;
  const svg = await fetchText(`/groups/${state.group.id}/qr.svg?size=512`);
  if (qr.url) URL.revokeObjectURL(qr.url);
  qr = { url: URL.createObjectURL(new Blob([svg], { type: 'image/svg+xml' })), groupId: state.group.id };
  return qr.url;
}

export function inviteScreen() {
  const g = state.group;
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
      navigator.share ? h('button', { type: 'button', onclick: () => navigator.share({ title: 'Groupie', text: t('invite.shareText', { venue: state.venue.name }), url: g.joinUrl }).catch(() => {}) }, t('share')) : null),
    copied,
    h('a', { href: '#/missions', class: 'button primary', id: 'to-missions' }, t('invite.go')));
}

// ---------------------------------------------------------------- members

export function groupScreen() {
  const g = state.group;
  const maxSize = state.venue.rules && state.venue.rules.maxGroupSize;
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
    h('p', { class: 'lead' }, state.venue.name, ' · ', t('group.code'), ' ', h('strong', { class: 'mono' }, g.joinCode)),
    h('h2', null, maxSize ? t('group.membersOf', { n: g.members.length, max: maxSize }) : t('group.members')),
    h('ul', { class: 'members' }, g.members.map((m) => h('li', null,
      avatar(m),
      h('span', { class: 'who' }, h('strong', null, memberName(m)), m.id === state.playerId ? ' ' + t('group.you') : '',
        m.isCreator ? h('small', null, t('group.creator')) : null),
      h('span', { class: 'tasks-count' }, tn('group.tasks', m.tasksCompleted))))),
    h('div', { class: 'stack' },
      h('a', { href: '#/invite', class: 'button primary' }, t('group.showQr')),
      h('a', { href: '#/join', class: 'button' }, t('group.change')),
      h('button', { type: 'button', class: 'danger', id: 'leave', onclick: leaveGroup }, t('group.leave'))),
    feedPlace(),
    h('h2', null, t('group.you2')),
    rename,
    langSelect());
}

// The group's feed, whose module loads the first time the group screen is shown: the first
// load of the client carries only the way in.
function feedPlace() {
  const place = h('div', { class: 'feed-place' });
  Promise.all([import('../feed.js'), laterStyles()])
    .then(([feed]) => { if (place.isConnected) place.replaceWith(feed.feedSection()); }).catch(() => { /* offline before it was kept */ });
  return place;
}

async function leaveGroup() {
  if (!confirm(t('group.leaveConfirm'))) return;
  try {
    await api(`/groups/${state.group.id}/members/${state.playerId}`, { method: 'DELETE' });
  } catch (e) { if (e.status !== 404) { toast(errorText(e)); return; } }
  exitGroup();
  go('#/');
}
