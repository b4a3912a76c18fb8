// Taking a task's photo: the screen that shows the photo before it goes into the upload queue,
// and the photo taken kept across a reload. The camera button that leads here is widgets.js's
// fileButton, which the mission screen shares.

import { t } from '../i18n.js';
import { h, icon } from '../ui.js';
import { shrink, forgetTaken } from '../queue.js';
import { state, update, mission, taskOf, progressOf, memberName } from '../store.js';
import { go } from '../router.js';
import { toast } from '../messages.js';
import { queue, claimOf } from '../session.js';
import { fileButton } from '../widgets.js';

export function photoScreen() {
  const pf = state.pendingFile;
  if (!pf) { go('#/missions'); return null; }
  const task = taskOf(pf.missionId, pf.taskId);
  const m = mission(pf.missionId);
  const status = h('p', { class: 'help', role: 'status' });
  // A task that has a chosen photo keeps it unless the visitor says otherwise: the new one joins the album.
  const progress = pf.missionId && progressOf(pf.missionId);
  const current = progress && (progress.tasks.find((x) => x.id === pf.taskId) || {}).chosenPhoto;
  // Someone else is on the task: whoever's photo arrives first is the task's, so say so first.
  const claim = !current && progress && claimOf(progress.tasks.find((x) => x.id === pf.taskId));
  const claimNote = claim && claim.playerId !== state.playerId
    ? h('p', { class: 'note', id: 'photo-claimed' }, t('photo.claimedBy', { name: memberName({ id: claim.playerId, name: claim.name }) })) : null;
  // The visitor said they are on this task and a teammate's photo came first: theirs takes its
  // place (as the server decides for a claimer), which the box shows ticked; they may untick it.
  const raw = current && progress.tasks.find((x) => x.id === pf.taskId).claim;
  const mine = Boolean(raw && raw.playerId === state.playerId && Date.parse(raw.expiresAt) > Date.now() && current.photographerId !== state.playerId);
  const replace = current ? h('label', { class: 'check', for: 'choose-photo' },
    h('input', { type: 'checkbox', id: 'choose-photo', checked: mine }),
    h('span', null, t('photo.replace', { name: memberName({ id: current.photographerId, name: current.photographerName }) }))) : null;
  const accept = h('button', { type: 'button', class: 'primary', id: 'accept-photo', onclick: async () => {
    accept.disabled = true;
    status.textContent = t('photo.saving');
    try {
      const blob = await shrink(pf.file);
      await queue.add({ groupId: state.group.id, missionId: pf.missionId, taskId: pf.taskId, blob, choose: !!(replace && replace.querySelector('input').checked) });
      await forgetTaken();
      URL.revokeObjectURL(pf.url);
      update({ pendingFile: null });
      toast(navigator.onLine ? t('photo.queued') : t('photo.queuedOffline'));
      go('#/m/' + encodeURIComponent(pf.missionId));
    } catch (e) {
      accept.disabled = false;
      status.textContent = t('err.generic');
    }
  } }, icon('check'), t('photo.use'));
  // Texts, picture, actions: one under the other on a phone held upright, the picture beside
  // the texts and actions when it is held sideways (app.css), "Use this photo" in sight.
  return h('section', { class: 'screen photo' },
    h('div', { class: 'photo-texts' },
      h('p', { class: 'kicker', lang: state.venue.language }, m ? m.title : ''),
      h('h1', null, t('photo.title')),
      pf.restored ? h('p', { class: 'note', id: 'photo-kept' }, t('photo.kept')) : null,
      task ? h('p', { class: 'lead', lang: state.venue.language }, task.prompt) : null),
    h('img', { class: 'preview-img photo-picture', src: pf.url, alt: t('photo.previewAlt', { task: task ? task.prompt : '' }),
      // HEIC photos (iPhones) cannot be shown by every browser, but the server takes them.
      onerror: (e) => e.target.replaceWith(h('p', { class: 'note photo-picture' }, t('photo.noPreview', { name: pf.file.name }))) }),
    h('div', { class: 'photo-actions' },
      replace,
      claimNote,
      h('div', { class: 'stack' },
        accept,
        fileButton({ id: 'retake', label: t('photo.retake'), missionId: pf.missionId, taskId: pf.taskId, camera: task && task.camera }),
        h('a', { href: '#/m/' + encodeURIComponent(pf.missionId), class: 'button quiet' }, t('cancel'))),
      status));
}
