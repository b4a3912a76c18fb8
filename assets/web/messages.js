// What the visitor is told when something happens: a passing message (the toast), and an
// API error as a sentence in their language.

import { ApiError } from './api.js';
import { t, tn } from './i18n.js';
import { h } from './ui.js';

export function errorText(e) {
  if (e instanceof ApiError) {
    // A wait in whole minutes, as people say it, not "587 seconds".
    if (e.code === 'too-many-attempts') return tn('err.too-many-attempts', Math.max(1, Math.ceil((e.retryAfter || 60) / 60)));
    const k = 'err.' + e.code;
    const s = t(k);
    if (s !== k) return s;
    if (e.detail) return e.detail;
  }
  return t('err.generic');
}

// Messages that come together are collapsed into one: the latest, and how many more came
// while it was shown, so that a burst of news is one line, not a flicker of many.
let toastTimer = null;
let shownTogether = 0;
export function toast(text, link) {
  const box = document.getElementById('toast');
  shownTogether = box.firstChild ? shownTogether + 1 : 0;
  box.replaceChildren(h('p', null, text,
    shownTogether ? [' ', h('span', { class: 'more' }, tn('toast.more', shownTogether))] : null,
    link ? [' ', h('a', { href: link.href }, link.text)] : null));
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.replaceChildren(); shownTogether = 0; }, link ? 9000 : 3500);
}
