// Taking a task's photo: the camera button (a file input, which opens the camera on phones),
// and the screen that shows the photo before it goes into the upload queue.

import { t } from '../i18n.js';
import { h, icon } from '../ui.js';
import { shrink } from '../queue.js';
import { state, update, mission, taskOf } from '../store.js';
import { go } from '../router.js';
import { toast } from '../messages.js';
import { queue } from '../session.js';

export function fileButton({ id, label, missionId, taskId, primary, disabled, describedBy, camera }) {
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
        go('#/photo');
      },
    }),
    icon('camera'), label);
}

// The photo taken is let go when the visitor leaves its screen without using it.
export function dropPendingFile() {
  if (!state.pendingFile) return;
  URL.revokeObjectURL(state.pendingFile.url);
  update({ pendingFile: null });
}

export function photoScreen() {
  const pf = state.pendingFile;
  if (!pf) { go('#/missions'); return null; }
  const task = taskOf(pf.missionId, pf.taskId);
  const m = mission(pf.missionId);
  const status = h('p', { class: 'help', role: 'status' });
  const accept = h('button', { type: 'button', class: 'primary', id: 'accept-photo', onclick: async () => {
    accept.disabled = true;
    status.textContent = t('photo.saving');
    try {
      const blob = await shrink(pf.file);
      await queue.add({ groupId: state.group.id, missionId: pf.missionId, taskId: pf.taskId, blob });
      URL.revokeObjectURL(pf.url);
      update({ pendingFile: null });
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
      fileButton({ id: 'retake', label: t('photo.retake'), missionId: pf.missionId, taskId: pf.taskId, camera: task && task.camera }),
      h('a', { href: '#/m/' + encodeURIComponent(pf.missionId), class: 'button quiet' }, t('cancel'))),
    status);
}
