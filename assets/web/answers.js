// Questions and found-it codes: the group's answers (read with the group, again on each
// `task-answered`), a task's card to answer or type a code (or scan it where the browser can),
// the fact shown once it is right, and a time-limited mission's time left.

import { api } from './api.js';
import { t, tn } from './i18n.js';
import { h, icon, append, canScan, scanner } from './ui.js';
import { state, update, memberName } from './store.js';
import { render } from './router.js';
import { toast, errorText } from './messages.js';

const EMPTY = { answers: [], facts: [], deadlines: [] };

// Whether the venue has anything to answer or a clock to show: else nothing is asked.
const needsAnswers = () => !!state.venue && state.venue.missions.some((m) => m.timeLimit || m.tasks.some((k) => k.kind && k.kind !== 'photo'));

export async function loadAnswers() {
  if (!state.groupId || !needsAnswers()) { update({ answers: EMPTY }); return; }
  try {
    update({ answers: await api(`/groups/${state.groupId}/answers`) });
  } catch (e) { /* kept from the last read */ }
  watchDeadlines();
}

const answersOf = (m, task) => ((state.answers || EMPTY).answers).filter((a) => a.missionId === m.id && a.taskId === task.id);
const factOf = (m, task) => ((state.answers || EMPTY).facts.find((f) => f.missionId === m.id && f.taskId === task.id) || {}).fact;

// The mission's end for the group, once its time runs.
export function deadlineOf(m) {
  const d = ((state.answers || EMPTY).deadlines).find((x) => x.missionId === m.id);
  return d ? Date.parse(d.endsAt) : null;
}

// The time left as it goes: whole minutes, then seconds in the last minute, then "time is up".
function timeLeftText(end) {
  const ms = end - Date.now();
  if (ms <= 0) return t('time.up');
  if (ms <= 60000) return tn('time.seconds', Math.ceil(ms / 1000));
  return t('time.left', { minutes: Math.ceil(ms / 60000) });
}

// What runs when a running mission's time ends (the missions screen draws itself again, so that
// its forms close, and reads the group again: the visit may be over).
let timeUp = () => {};
export function onTimeUp(f) { timeUp = f; }

// When the next running mission's time ends, `timeUp` runs, whatever screen is open.
let deadlineTimer = null;
function watchDeadlines() {
  clearTimeout(deadlineTimer);
  const now = Date.now();
  const next = Math.min(...((state.answers || EMPTY).deadlines).map((d) => Date.parse(d.endsAt)).filter((end) => end > now));
  if (Number.isFinite(next)) deadlineTimer = setTimeout(() => { timeUp(); watchDeadlines(); }, next - now + 50);
}

// Every second, each running timer on the screen says the time left, and turns to "time is up"
// at zero. Stops by itself when no timer is left on the screen.
let ticking = null;
function tick() {
  const timers = document.querySelectorAll('.time-left[data-end]');
  if (!timers.length) { clearInterval(ticking); ticking = null; return; }
  for (const el of timers) {
    const end = Number(el.dataset.end), text = timeLeftText(end), span = el.querySelector('.time-text');
    if (span && span.textContent !== text) span.textContent = text;
    if (end <= Date.now()) el.classList.add('over');
  }
}

// "12 min left" counting down, "Time is up", or the limit before the mission starts.
export function timeLine(m) {
  if (!m.timeLimit) return null;
  const end = deadlineOf(m);
  if (end === null) return h('p', { class: 'time-left', id: 'time-' + m.id }, icon('clock'), h('span', { class: 'time-text' }, t('time.limit', { minutes: m.timeLimit })));
  if (!ticking) ticking = setInterval(tick, 1000);
  return h('p', { class: 'time-left' + (end <= Date.now() ? ' over' : ''), id: 'time-' + m.id, role: 'timer', 'data-end': String(end) },
    icon('clock'), h('span', { class: 'time-text' }, timeLeftText(end)));
}

// What an attempt said, as the group reads it: the choice's text, or what was typed.
function shown(task, a) {
  return task.choices ? (task.choices[Number(a.answer) - 1] || a.answer) : a.answer;
}

async function send(m, task, body, form) {
  for (const b of form.querySelectorAll('button, input')) b.disabled = true;
  try {
    const r = await api(`/groups/${state.groupId}/missions/${encodeURIComponent(m.id)}/tasks/${encodeURIComponent(task.id)}/answer`, { method: 'POST', body });
    toast(r.right ? (task.kind === 'code' ? t('answer.found') : t('answer.right')) : (task.kind === 'code' ? t('answer.wrongCode') : t('answer.wrong')));
  } catch (e) {
    toast(errorText(e));
  }
  await loadAnswers();
  render(false);
}

// The card's part under the question or the code's prompt: the group's attempts, then the
// way to answer while the task is open, or the fact once it is done.
export function answerPart(m, task, done, open) {
  const tries = answersOf(m, task);
  const list = tries.length ? h('ul', { class: 'answers', 'aria-label': t('answer.group') }, tries.map((a) =>
    h('li', { class: a.right ? 'right' : 'wrong', 'data-player': a.playerId || '' },
      icon(a.right ? 'check' : 'close'),
      h('span', null, t(a.right ? 'answer.byRight' : 'answer.byWrong', { name: memberName({ id: a.playerId, name: a.name || '?' }), answer: shown(task, a) }))))) : null;
  const fact = done ? factOf(m, task) : null;
  const factLine = fact ? h('p', { class: 'task-fact', lang: state.venue.language }, icon('star'), h('span', null, fact)) : null;
  if (done || !open || state.previewing) return [list, factLine];
  return [list, task.kind === 'code' ? codeForm(m, task) : questionForm(m, task)];
}

function questionForm(m, task) {
  const form = h('form', { class: 'answer-form', 'data-answer': task.id, novalidate: true });
  if (task.choices) {
    form.append(h('div', { class: 'choices', role: 'group', 'aria-labelledby': `prompt-${task.id}` }, task.choices.map((c, i) =>
      h('button', { type: 'button', class: 'choice', 'data-choice': String(i + 1), lang: state.venue.language, onclick: () => send(m, task, { choice: i + 1 }, form) }, c))));
    return form;
  }
  const input = h('input', { id: `answer-${task.id}`, name: 'answer', type: 'text', maxlength: 200, autocomplete: 'off', enterkeyhint: 'send', 'aria-describedby': `prompt-${task.id}` });
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    if (input.value.trim()) send(m, task, { text: input.value }, form);
  });
  form.append(h('label', { for: input.id }, t('answer.label')), h('div', { class: 'row' }, input, h('button', { type: 'submit', class: 'primary' }, t('answer.send'))));
  return form;
}

function codeForm(m, task) {
  // Not `code`: that class sets a group's join code in large letter-spaced monospace.
  const form = h('form', { class: 'answer-form code-answer', 'data-answer': task.id, novalidate: true });
  const input = h('input', { id: `code-${task.id}`, name: 'code', type: 'text', maxlength: 32, autocomplete: 'off', autocapitalize: 'characters', spellcheck: false, enterkeyhint: 'send', class: 'code-input', 'aria-describedby': `prompt-${task.id}` });
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    if (input.value.trim()) send(m, task, { text: input.value }, form);
  });
  const video = h('video', { class: 'scanner', playsinline: true, muted: true, hidden: true, 'aria-label': t('answer.camera') });
  const scan = canScan() ? h('button', { type: 'button', class: 'quiet', onclick: async () => {
    try {
      const { startScan, stopScan } = await scanner();
      await startScan(video, (text) => { stopScan(); send(m, task, { text }, form); return true; });
      scan.hidden = true;
    } catch (e) { scan.hidden = true; toast(t('answer.noCamera')); }
  } }, icon('camera'), t('answer.scan')) : null;
  // Without a way to scan (no BarcodeDetector, or no camera) there is no scan button: `append`
  // leaves it out, where the DOM's own would write "null".
  append(form, [h('label', { for: input.id }, t('answer.codeLabel')), h('div', { class: 'row' }, input, h('button', { type: 'submit', class: 'primary' }, t('answer.check'))), scan, video]);
  return form;
}
