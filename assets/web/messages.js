// What the visitor is told when something happens: a passing message (the toast), and an
// API error as a sentence in their language.

import { ApiError } from './api.js';
import { t, tn } from './i18n.js';
import { h } from './ui.js';

export function errorText(e) {
  if (e instanceof ApiError) {
    // A wait in whole minutes, as people say it, not "587 seconds".
    if (e.code === 'too-many-attempts' || e.code === 'too-many-guesses') return tn('err.' + e.code, Math.max(1, Math.ceil((e.retryAfter || 60) / 60)));
    const k = 'err.' + e.code;
    const s = t(k);
    if (s !== k) return s;
    if (e.detail) return e.detail;
  }
  return t('err.generic');
}

// The same message again while it is shown is counted, not repeated ("(and 2 more)"); a new
// message takes the old one's place. `link` is { href, text }, or { onclick, text } for a button.
let toastTimer = null;
let shownTogether = 0;
let shownText = null;
export function toast(text, link) {
  const box = document.getElementById('toast');
  shownTogether = box.firstChild && text === shownText ? shownTogether + 1 : 0;
  shownText = text;
  const action = link && (link.onclick
    ? h('button', { type: 'button', class: 'link', onclick: () => { box.replaceChildren(); shownText = null; link.onclick(); } }, link.text)
    : h('a', { href: link.href }, link.text));
  box.replaceChildren(h('p', null, text,
    shownTogether ? [' ', h('span', { class: 'more' }, tn('toast.more', shownTogether))] : null,
    action ? [' ', action] : null));
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.replaceChildren(); shownTogether = 0; shownText = null; }, link ? 9000 : 3500);
}
