// The group's missions: the list with each one's progress or lock, and one mission's tasks
// with the photo chosen for each, its uploads under way, its hint and its camera button.

import { t, tn } from '../i18n.js';
import { h, icon } from '../ui.js';
import { state, setHintOpen, mission, progressOf, missionState, memberName } from '../store.js';
import { go, render } from '../router.js';
import { groupTitle, uploadRow, avatar, fileButton, rewardWords, standingLine } from '../widgets.js';
import { setClaim, claimOf, scheduleRefresh } from '../session.js';
import { toast, errorText } from '../messages.js';
import { answerPart, timeLine, deadlineOf, onTimeUp } from '../answers.js';

// A mission's time running out closes its forms, and may end the visit: the group is read
// again a moment later, once the server's clock is past the end too, and again while the
// visit is not over, in case the phone's clock runs ahead of the server's.
onTimeUp(() => {
  render(false);
  for (const wait of [1000, 4000, 10000]) setTimeout(() => { if (state.group && !state.group.visitEnd) scheduleRefresh(); }, wait);
});

// "1 of 3 photos" for a mission of photos; "1 of 3 tasks" once it has a question or a code.
function progressText(m, st) {
  const photos = m.tasks.every((k) => !k.kind || k.kind === 'photo');
  return tn(photos ? 'mission.progress' : 'mission.tasks', st.total, { done: st.done });
}

function lockText(m) {
  const names = (m.after || []).filter((id) => { const p = progressOf(id); return !p || !p.complete; })
    .map((id) => (mission(id) || { title: id }).title);
  return t('mission.locked', { missions: names.join(', ') });
}

function meter(done, total, label) {
  return h('span', { class: 'meter', role: 'img', 'aria-label': label }, h('span', { style: { width: (100 * done / total) + '%' } }));
}

// The venue's floor plan with a pin for each mission that has one (or only `onlyId`'s): a link
// to the mission, drawn as open, done or locked.
function venueMap(onlyId) {
  const v = state.venue;
  if (!v.mapUrl) return null;
  const pinned = v.missions.filter((m) => m.where && m.where.pin && (!onlyId || m.id === onlyId));
  if (!pinned.length) return null;
  return h('figure', { class: 'venue-map' + (onlyId ? ' one' : '') },
    h('div', { class: 'map-canvas' },
      h('img', { src: v.mapUrl, alt: t('map.alt', { venue: v.name }) }),
      pinned.map((m) => {
        const st = missionState(m);
        const is = st.complete ? 'done' : !st.unlocked ? 'locked' : 'open';
        return h('a', {
          class: 'pin is-' + is, 'data-mission': m.id, lang: v.language,
          href: (st.complete ? '#/done/' : '#/m/') + encodeURIComponent(m.id),
          style: { left: m.where.pin.x + '%', top: m.where.pin.y + '%' },
          'aria-label': t('map.pin', { mission: m.title, state: t('map.' + is) }),
        }, h('img', { src: m.iconUrl, alt: '', width: 26, height: 26 }), is === 'done' ? icon('check') : null);
      })),
    onlyId ? null : h('figcaption', null, t('map.legend')));
}

export function missionsScreen() {
  const ms = state.venue.missions;
  const complete = ms.filter((m) => missionState(m).complete).length;
  const map = venueMap();
  return h('section', { class: 'screen missions' },
    h('h1', null, groupTitle()),
    h('p', { class: 'lead' }, tn('missions.summary', ms.length, { done: complete })),
    standingLine(),
    state.group.visitEnd ? h('a', { href: '#/recap', class: 'callout done', id: 'missions-recap' }, icon('star'), t('recap.open')) : null,
    state.group.closedReason != null ? h('p', { class: 'closed-note', role: 'status' }, t('group.closedByStaff', { reason: state.group.closedReason })) : null,
    map ? h('details', { class: 'map-box', id: 'venue-map', open: state.openHints.has('venue-map'), ontoggle: (e) => setHintOpen('venue-map', e.target.open) },
      h('summary', null, icon('pin'), t('map.show')), map) : null,
    h('ul', { class: 'grid' }, ms.map((m) => {
      const st = missionState(m);
      const pending = state.uploads.filter((u) => u.missionId === m.id).length;
      const cls = 'mission-card' + (st.complete ? ' complete' : '') + (!st.unlocked ? ' locked' : '');
      return h('li', null, h('a', { href: (st.complete ? '#/done/' : '#/m/') + encodeURIComponent(m.id), class: cls, 'data-mission': m.id },
        h('img', { src: m.iconUrl, alt: '', width: 56, height: 56, class: 'icon' }),
        h('span', { class: 'title', lang: state.venue.language }, m.title),
        st.complete ? h('span', { class: 'badge done' }, icon('check'), t('mission.complete')) :
          !st.unlocked ? h('span', { class: 'badge lock' }, icon('lock'), lockText(m)) :
            [h('span', { class: 'count' }, progressText(m, st)), meter(st.done, st.total, progressText(m, st))],
        pending ? h('span', { class: 'badge pending' }, tn('mission.pending', pending)) : null));
    })));
}

const photographer = (chosen) => ({ id: chosen.photographerId, name: chosen.photographerName });

// Who is on an open task ("Ada is on it"), and the button to say "I'm on it" or give it back.
function claimLine(m, task, tp) {
  const claim = claimOf(tp);
  const mine = claim && claim.playerId === state.playerId;
  const who = claim ? h('p', { class: 'claim', 'data-claim': claim.playerId },
    avatar({ id: claim.playerId, name: claim.name }, true),
    mine ? t('task.youAreOn') : t('task.isOn', { name: memberName({ id: claim.playerId, name: claim.name }) })) : null;
  if (tp.state === 'done' || (claim && !mine) || state.previewing) return who;
  const button = h('button', { type: 'button', class: 'small claim-button', id: `claim-${m.id}-${task.id}`, onclick: async () => {
    button.disabled = true;
    try { await setClaim(m.id, task.id, !mine); } catch (e) { button.disabled = false; toast(errorText(e)); }
  } }, mine ? t('task.release') : t('task.claim'));
  return [who, button];
}

export function missionScreen(id) {
  const m = mission(id);
  if (!m) { go('#/missions'); return null; }
  const st = missionState(m);
  const tasks = st.p ? st.p.tasks : [];
  const end = deadlineOf(m);
  const inTime = end === null || end > Date.now();
  return h('section', { class: 'screen mission' + (st.unlocked ? '' : ' locked') },
    h('a', { href: '#/missions', class: 'back' }, icon('left'), t('mission.all')),
    h('div', { class: 'mission-head' },
      h('img', { src: m.iconUrl, alt: '', width: 64, height: 64 }),
      h('div', null,
        h('h1', { lang: state.venue.language }, m.title),
        m.area ? h('p', { class: 'area', lang: state.venue.language }, icon('pin'), h('span', { class: 'visually-hidden' }, t('mission.where') + ' '), m.area) : null)),
    m.where && m.where.hint ? h('p', { class: 'where-hint', lang: state.venue.language }, icon('compass'), h('span', { class: 'visually-hidden' }, t('map.how') + ' '), m.where.hint) : null,
    venueMap(m.id),
    st.complete ? h('a', { class: 'callout done', href: '#/done/' + encodeURIComponent(m.id) }, icon('star'), t(rewardWords(m).see)) :
      !st.unlocked ? h('p', { class: 'callout lock' }, icon('lock'), lockText(m)) :
        h('p', { class: 'count' }, progressText(m, st)),
    st.complete ? null : timeLine(m),
    h('ol', { class: 'tasks' }, m.tasks.map((task, i) => {
      const tp = tasks.find((x) => x.id === task.id) || { state: 'open' };
      const done = tp.state === 'done';
      const chosen = tp.chosenPhoto;
      const ups = state.uploads.filter((u) => u.missionId === m.id && u.taskId === task.id);
      const hintId = `hint-${m.id}-${task.id}`;
      const photo = !task.kind || task.kind === 'photo';
      return h('li', { class: 'task ' + (done ? 'done' : 'open'), 'data-task': task.id },
        h('div', { class: 'task-head' },
          h('span', { class: 'num', 'aria-hidden': 'true' }, done ? icon('check') : String(i + 1)),
          h('h2', { id: `prompt-${task.id}` }, h('span', { class: 'visually-hidden' }, t('task.n', { n: i + 1 }) + (done ? ' (' + t('task.done') + ')' : ' (' + t('task.open') + ')') + ': '), h('span', { lang: state.venue.language }, task.prompt))),
        chosen ? h('figure', { class: task.framing === 'whole' ? 'chosen whole' : 'chosen' },
          h('img', { src: chosen.thumbUrl, alt: t('alt.photo', { task: task.prompt, name: memberName(photographer(chosen)) }), loading: 'lazy' }),
          h('figcaption', null, avatar(photographer(chosen), true), t('task.by', { name: memberName(photographer(chosen)) }))) : null,
        ups.length ? h('ul', { class: 'uploads' }, ups.map((u) => uploadRow(u, false))) : null,
        photo && st.unlocked ? claimLine(m, task, tp) : null,
        photo ? null : answerPart(m, task, done, st.unlocked && inTime),
        task.hint ? h('details', { id: hintId, open: state.openHints.has(hintId), ontoggle: (e) => {
          setHintOpen(hintId, e.target.open);
          e.target.querySelector('summary').textContent = t(e.target.open ? 'task.hideHint' : 'task.hint');
        } }, h('summary', null, t(state.openHints.has(hintId) ? 'task.hideHint' : 'task.hint')), h('p', { lang: state.venue.language }, task.hint)) : null,
        photo && st.unlocked && inTime ? fileButton({ id: `take-${m.id}-${task.id}`, label: done ? t('task.another') : t('task.take'), missionId: m.id, taskId: task.id, primary: !done, describedBy: `prompt-${task.id}`, camera: task.camera }) : null);
    })));
}
