// Messages from the venue's staff to the group ("We close in 15 minutes"), shown as banners
// under the header until the visitor closes them. Visitors do not reply. Each group's messages
// are kept in localStorage, so that a reload shows them again; a closed one is remembered by
// its event id, so that a replay of the group's events does not bring it back.

import { h } from './ui.js';
import { t } from './i18n.js';

const key = (groupId) => 'groupie.notices.' + groupId;

function read(groupId) {
  try {
    const v = JSON.parse(localStorage.getItem(key(groupId)) || '{}');
    return { open: Array.isArray(v.open) ? v.open : [], closed: Array.isArray(v.closed) ? v.closed : [] };
  } catch (e) {
    return { open: [], closed: [] };
  }
}

function write(groupId, v) {
  try { localStorage.setItem(key(groupId), JSON.stringify(v)); } catch (e) { /* storage full or off: shown until the page goes */ }
}

// A `staff-message` event, kept once by its id until closed; true when it is new.
export function addNotice(groupId, id, text) {
  if (!groupId || typeof text !== 'string' || !text) return false;
  const v = read(groupId);
  const nid = String(id || Date.now());
  if (v.closed.includes(nid) || v.open.some((n) => n.id === nid)) return false;
  v.open = v.open.concat({ id: nid, text }).slice(-10);
  write(groupId, v);
  return true;
}

function dismiss(groupId, id) {
  const v = read(groupId);
  v.open = v.open.filter((n) => n.id !== id);
  v.closed = v.closed.concat(id).slice(-200);
  write(groupId, v);
}

// The group's open messages in `#notices` (none without a group). The text is set as text.
export function drawNotices(groupId) {
  const box = document.getElementById('notices');
  if (!box) return;
  const open = groupId ? read(groupId).open : [];
  const sig = [groupId, t('notice.from'), ...open.map((n) => n.id)].join('|');
  if (box.dataset.sig === sig) return;
  box.dataset.sig = sig;
  box.setAttribute('aria-label', t('notice.label'));
  box.replaceChildren(...open.map((n) => h('div', { class: 'notice', 'data-notice': n.id },
    h('p', null, h('strong', null, t('notice.from')), ' ', h('span', { class: 'notice-text' }, n.text)),
    h('button', {
      type: 'button', class: 'notice-close',
      onclick: () => {
        dismiss(groupId, n.id);
        drawNotices(groupId);
        document.getElementById('app').focus({ preventScroll: true });
      },
    }, t('notice.close')))));
  box.hidden = open.length === 0;
}
