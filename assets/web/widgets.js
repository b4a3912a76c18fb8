// Pieces that several screens share: titles and alt texts, the words for a mission's reward,
// the name field, form errors and busy state, the language choice, an upload's row with its
// progress, and the camera button.

import { api, ApiError } from './api.js';
import { t, tn, setLang, LANGS, langName } from './i18n.js';
import { h, icon } from './ui.js';
import { keepTaken } from './queue.js';
import { state, update, savePlayer, taskOf, memberName, memberColour, negotiateLang } from './store.js';
import { render, chrome, go } from './router.js';
import { errorText } from './messages.js';
import { queue, loadGroupData } from './session.js';

// The group's own points and badges, when the venue gives points (the group document's
// `standing`); never another group's.
export function standingLine() {
  const s = state.group && state.group.standing;
  if (!s) return null;
  return h('p', { class: 'standing', id: 'standing' }, icon('star'), tn('points.total', s.points),
    s.badges.map((b) => [' ', h('span', { class: 'badge done' }, t('badge.' + b))]));
}

export const groupTitle = () => (state.group && state.group.name) || t('group.unnamed', { code: state.group ? state.group.joinCode : '' });

export function photoAlt(missionId, taskId, person) {
  const task = missionId && taskOf(missionId, taskId);
  return t('alt.photo', { task: task ? task.prompt : t('album.free'), name: memberName(person) });
}

// The texts that name a mission's reward: a collage, or for the sticker style a photo with its sticker.
export function rewardWords(m) {
  return m.style === 'sticker' ?
    { lead: 'done.leadSticker', alt: 'done.stickerAlt', making: 'done.makingSticker', download: 'done.downloadSticker', see: 'mission.seeSticker' } :
    { lead: 'done.lead', alt: 'done.collageAlt', making: 'done.making', download: 'done.download', see: 'mission.seeCollage' };
}

// ---------------------------------------------------------------- telling members apart

// The round mark beside a name: the member's colour, their initial and, for a shared name, the number.
export function avatar(person, small) {
  const label = memberName(person);
  const number = /\((\d+)\)$/.exec(label);
  return h('span', { class: 'avatar' + (small ? ' small' : ''), 'aria-hidden': 'true', 'data-player': person.id, style: { background: memberColour(person.id) } },
    ([...String(person.name || '?')][0] || '?') + (number ? number[1] : ''));
}

// A code read out letter by letter by screen readers.
export function spaced(code) { return (code || '').split('').join(' '); }

// ---------------------------------------------------------------- forms

// A name is at most NAME_MAX characters: what goes past it, typed or pasted, is cut off here
// (whole characters, never half of one) and the visitor is told, rather than see the end of
// their name vanish without a word.
const NAME_MAX = 32;
export function nameField() {
  const help = h('p', { id: 'name-help', class: 'help', 'aria-live': 'polite' }, t('start.nameHelp'));
  const fit = (el) => {
    const chars = Array.from(el.value);
    if (chars.length > NAME_MAX) {
      el.value = chars.slice(0, NAME_MAX).join('');
      help.textContent = t('start.nameCut', { n: NAME_MAX });
    } else if (chars.length < NAME_MAX) {
      help.textContent = t('start.nameHelp');
    }
    // "Please type your name first" goes once a name is being typed.
    const error = el.form && el.form.querySelector('.error');
    if (error && el.value.trim()) error.hidden = true;
  };
  const input = h('input', { id: 'name', name: 'name', type: 'text', required: true, autocomplete: 'nickname', enterkeyhint: 'go', value: state.name, 'aria-describedby': 'name-help',
    // A word still being composed (Japanese, say) is measured once it is done.
    oninput: (e) => { if (!e.isComposing) fit(e.target); },
    oncompositionend: (e) => fit(e.target) });
  return h('div', { class: 'field' }, h('label', { for: 'name' }, t('start.name')), input, help);
}

function formError(form) { return form.querySelector('.error'); }
export function showError(form, text) {
  const el = formError(form);
  el.textContent = text; el.hidden = false;
}

export function setBusy(form, busy) {
  for (const b of form.querySelectorAll('button')) b.disabled = busy;
  form.setAttribute('aria-busy', busy ? 'true' : 'false');
}

// The visitor's choice of the phone's one language, kept: the languages the interface speaks
// that the venue also has (every one the interface speaks before a venue is known).
export function langSelect() {
  const venue = state.venue ? state.venue.languages.map((l) => l.toLowerCase().split('-')[0]) : null;
  const opts = LANGS.filter((l) => !venue || venue.includes(l));
  if (!opts.includes(state.lang)) opts.unshift(state.lang);
  return h('div', { class: 'field lang' },
    h('label', { for: 'lang' }, t('lang.label')),
    h('select', {
      id: 'lang',
      onchange: async (e) => {
        update({ chosenLang: e.target.value });
        negotiateLang(state.venue ? state.venue.languages : null);
        await setLang(state.lang); savePlayer();
        if (state.token) api('/me', { method: 'PATCH', body: { lang: state.lang } }).catch(() => {});
        if (state.group) await loadGroupData().catch(() => {});
        chrome(); render(false);
        document.getElementById('lang') && document.getElementById('lang').focus();
      },
    }, opts.map((l) => h('option', { value: l, selected: l === state.lang, lang: l }, langName(l)))));
}

// ---------------------------------------------------------------- uploads

export function uploadStatus(item) {
  const p = state.progress.get(item.id);
  if (item.state === 'sending') return t('up.sending', { pct: Math.round((p || 0) * 100) });
  if (item.state === 'offline') return t('up.offline');
  if (item.state === 'stalled') return t('up.stalled');
  if (item.state === 'elsewhere') return t('up.elsewhere');
  if (item.state === 'retrying') return t('up.retrying');
  if (item.state === 'failed') return t('up.failed', { why: errorText(new ApiError(0, item.error)) });
  return t('up.waiting');
}

// A waiting photo's own picture, from the bytes the queue keeps: one object URL per upload.
const pictures = new Map();
export function uploadPicture(item) {
  if (!pictures.has(item.id)) {
    for (const [id, url] of pictures) if (!state.uploads.some((u) => u.id === id)) { URL.revokeObjectURL(url); pictures.delete(id); }
    pictures.set(item.id, URL.createObjectURL(item.blob));
  }
  return h('img', { class: 'upload-picture', src: pictures.get(item.id), alt: t('up.pictureAlt'), width: 48, height: 48 });
}

export function uploadRow(item, withTask) {
  const task = item.missionId && taskOf(item.missionId, item.taskId);
  const p = state.progress.get(item.id);
  return h('li', { class: 'upload ' + item.state, 'data-upload': item.id },
    item.blob ? uploadPicture(item) : null,
    withTask ? h('span', { class: 'what' }, task ? task.prompt : t('album.free')) : null,
    h('progress', { max: 1, value: item.state === 'sending' ? (p || 0) : (item.state === 'failed' ? 0 : null), 'aria-label': t('up.progress') }),
    h('span', { class: 'state' }, uploadStatus(item)),
    item.state === 'stalled' ? h('button', { type: 'button', class: 'small', 'data-again': item.id, onclick: () => queue.tryAgainNow(item.id) }, t('up.again')) : null,
    item.state === 'failed' ? h('span', { class: 'row' },
      h('button', { type: 'button', class: 'small', onclick: () => queue.retry(item.id) }, t('up.retry')),
      h('button', { type: 'button', class: 'small', onclick: () => queue.remove(item.id) }, t('up.remove'))) : null);
}

// ---------------------------------------------------------------- taking a photo

// A task's camera button (the mission's tasks, and retaking on the photo screen): the photo
// taken is kept and shown on #/photo before it goes into the upload queue.
export function fileButton({ id, label, missionId, taskId, primary, disabled, describedBy, camera }) {
  disabled = disabled || state.previewing;
  // A real <input type=file> inside a label: opens the camera on phones, keyboard-reachable.
  return h('label', { class: 'button file' + (primary ? ' primary' : ''), for: id, 'aria-disabled': disabled ? 'true' : null },
    h('input', {
      // The task says which camera: the front one for photos of the group itself.
      type: 'file', id, accept: 'image/*', capture: camera === 'front' ? 'user' : 'environment', class: 'visually-hidden',
      'data-mission': missionId, 'data-task': taskId, disabled, 'aria-describedby': describedBy,
      onchange: (e) => {
        const file = e.target.files && e.target.files[0];
        if (!file) return;
        if (state.pendingFile && state.pendingFile.url) URL.revokeObjectURL(state.pendingFile.url);
        update({ pendingFile: { file, missionId, taskId, url: URL.createObjectURL(file) } });
        keepTaken({ groupId: state.group.id, missionId, taskId, file });
        go('#/photo');
      },
    }),
    icon('camera'), label);
}

// Confetti falling across the screen for a moment, in the venue's colours (later.css); none
// for those who ask for reduced motion.
export function confetti(pieces) {
  const box = h('div', { class: 'confetti', 'aria-hidden': 'true' },
    Array.from({ length: pieces }, (_, i) => h('i', { style: { left: (i * 100 / pieces + 1) + '%', animationDelay: (i % 7) * 0.16 + 's' } })));
  document.body.append(box);
  setTimeout(() => box.remove(), 4200);
}
