// The group's album: the whole album as a zip (its button at the top, in sight on a phone),
// collages and photos (all, or one mission's) as small pictures of a bounded size, and the full
// view of a photo or a collage, where a photo can be chosen for its task or deleted.

import { api } from '../api.js';
import { t } from '../i18n.js';
import { h, icon } from '../ui.js';
import { state, setChosenPhoto, removeAlbumPhoto, mission, progressOf, memberName, inPhoneLang, contentLang } from '../store.js';
import { route, render, go } from '../router.js';
import { errorText, toast } from '../messages.js';
import { loadAlbum, scheduleRefresh } from '../session.js';
import { photoAlt, avatar, uploadPicture, uploadStatus } from '../widgets.js';

let loading = false, failed = null;

// An album that could not be read is asked for again when the phone is back online, or when
// the visitor asks: never by drawing the screen again, which its own failure does.
addEventListener('online', () => { if (failed !== null) { failed = null; if (route().name === 'album') render(false); } });
// Capturing: heard before the app draws the new screen, also when this module loaded after the app.
addEventListener('hashchange', () => { failed = null; }, true);

// A photo of a task that must stay whole (`framing: whole`) is shown uncut in its square.
function wholePhoto(p) {
  const m = mission(p.missionId);
  const task = m && m.tasks.find((x) => x.id === p.taskId);
  return Boolean(task && task.framing === 'whole');
}

export function albumScreen(filter) {
  const a = state.album && state.album.filter === filter ? state.album : null;
  if ((!a || a.stale) && !loading && failed !== filter) {
    // Without an answer (offline, an album never opened before) the screen says so instead of "Loading…".
    loading = true;
    loadAlbum(filter).then(() => { loading = false; failed = null; if (route().name === 'album') render(false); })
      .catch((e) => { loading = false; failed = filter; if (route().name === 'album') render(false); toast(errorText(e)); });
  }
  // The visitor's own photos still waiting to upload, as pictures.
  const mine = state.uploads.filter((u) => u.groupId === state.group.id && (!filter || u.missionId === filter));
  const waiting = mine.length ? [h('h2', null, t('album.uploading')), h('ul', { class: 'thumbs uploading' }, mine.map((u) => h('li', { 'data-upload': u.id },
    uploadPicture(u), h('span', { class: 'cap state' }, uploadStatus(u)))))] : null;
  const missionsWithTasks = state.venue.missions;
  const collages = a ? a.collages.filter((c) => c.status === 'ready' && (!filter || c.missionId === filter)) : [];
  const select = h('select', { id: 'album-filter', onchange: (e) => go('#/album' + (e.target.value ? '/' + encodeURIComponent(e.target.value) : '')) },
    h('option', { value: '' }, t('album.all')),
    missionsWithTasks.map((m) => h('option', { value: m.id, selected: m.id === filter }, m.title)));
  return h('section', { class: 'screen album' },
    h('div', { class: 'album-head' },
      h('h1', null, t('album.title')),
      h('button', { type: 'button', id: 'download-album', onclick: downloadAlbum }, icon('download'), t('album.zip'))),
    h('a', { href: '#/recap', class: 'button', id: 'open-recap' }, icon('star'), t('recap.open')),
    h('div', { class: 'field' }, h('label', { for: 'album-filter' }, t('album.filter')), select),
    waiting,
    !a ? (failed === filter ? h('div', { class: 'stack unavailable' }, h('p', { class: 'empty' }, t('album.unavailable')),
      h('button', { type: 'button', id: 'album-again', onclick: () => { failed = null; render(false); } }, t('up.retry')))
      : h('p', { class: 'busy' }, t('loading'))) : [
      collages.length ? [h('h2', null, t('album.collages')), h('ul', { class: 'thumbs collages' }, collages.map((c) => {
        const m = mission(c.missionId);
        // Shown whole in a box of its own size, however tall the strip; large on a tap.
        return h('li', null, h('button', { type: 'button', class: 'thumb whole', onclick: () => openViewer({ collage: c }) },
          h('img', { src: inPhoneLang(c.urls.jpg) + '&size=512', alt: t('done.collageAlt', { mission: m ? m.title : c.missionId }), loading: 'lazy', width: c.width, height: c.height }),
          h('span', { class: 'cap', 'aria-hidden': 'true', lang: state.venue.language }, m ? m.title : c.missionId)));
      }))] : null,
      a.waiting && a.waiting.length ? [h('h2', null, t('album.waiting')), h('p', { class: 'help' }, t('album.waitingHelp')),
        h('ul', { class: 'thumbs waiting' }, a.waiting.map((p) => h('li', null,
          h('img', { src: p.urls.thumb, alt: photoAlt(p.missionId, p.taskId, p.photographer), loading: 'lazy', width: 200, height: Math.round(200 * p.height / p.width) }))))] : null,
      h('h2', null, t('album.photos')),
      a.photos.length ? h('ul', { class: 'thumbs' }, a.photos.map((p, i) => h('li', null,
        h('button', { type: 'button', class: wholePhoto(p) ? 'thumb whole' : 'thumb', onclick: () => openViewer({ index: i }) },
          h('img', { src: p.urls.thumb, alt: photoAlt(p.missionId, p.taskId, p.photographer), loading: 'lazy', width: 200, height: Math.round(200 * p.height / p.width) }),
          h('span', { class: 'cap', 'aria-hidden': 'true' }, avatar(p.photographer, true), memberName(p.photographer)))))) :
        h('p', { class: 'empty' }, t('album.empty')),
      a.next ? h('button', { type: 'button', onclick: () => loadAlbum(filter, true).then(() => render(false)) }, t('album.more')) : null]);
}

async function downloadAlbum() {
  try {
    const tok = await api(`/groups/${state.group.id}/events/token`, { method: 'POST' });
    const a = h('a', { href: `/api/v1/groups/${state.group.id}/album.zip?token=${encodeURIComponent(tok.token)}&lang=${encodeURIComponent(contentLang())}`, download: 'groupie-album.zip' });
    document.body.append(a); a.click(); a.remove();
  } catch (e) { toast(errorText(e)); }
}

function openViewer({ index, collage }) {
  const dlg = document.getElementById('viewer');
  const show = (i) => {
    let src, alt, caption, dl, name, extra = null;
    if (collage) {
      const m = mission(collage.missionId);
      src = inPhoneLang(collage.urls.jpg); dl = src; name = `groupie-${collage.missionId}.jpg`;
      alt = t('done.collageAlt', { mission: m ? m.title : '' }); caption = alt;
    } else {
      const p = state.album.photos[i];
      src = p.urls.display; dl = p.urls.original; name = `groupie-${p.id}.jpg`;
      alt = photoAlt(p.missionId, p.taskId, p.photographer); caption = alt;
      extra = photoActions(p, dlg, () => show(i));
    }
    const count = collage ? 0 : state.album.photos.length;
    dlg.setAttribute('aria-label', caption);
    dlg.replaceChildren(h('div', { class: 'viewer' },
      h('img', { src, alt }),
      h('p', { class: 'caption' }, caption),
      h('div', { class: 'row' },
        count > 1 ? h('button', { type: 'button', 'aria-label': t('viewer.prev'), onclick: () => show((i - 1 + count) % count) }, icon('left')) : null,
        h('a', { href: dl, download: name, class: 'button primary' }, icon('download'), t('viewer.download')),
        count > 1 ? h('button', { type: 'button', 'aria-label': t('viewer.next'), onclick: () => show((i + 1) % count) }, icon('right')) : null,
        h('button', { type: 'button', id: 'viewer-close', onclick: () => dlg.close() }, t('close'))),
      extra));
  };
  show(index || 0);
  dlg.showModal();
  document.getElementById('viewer-close').focus();
}

// Pick a task's photo for the collage, delete one's own photo, or (the creator) hide a teammate's from the group.
function photoActions(p, dlg, again) {
  const tp = p.taskId && progressOf(p.missionId) && progressOf(p.missionId).tasks.find((x) => x.id === p.taskId);
  const me = state.group.members.find((m) => m.id === state.playerId);
  const mayDelete = p.photographer.id === state.playerId;
  const mayHide = !mayDelete && me && me.isCreator;
  const chosen = tp && tp.chosenPhoto && tp.chosenPhoto.id === p.id;
  return h('div', { class: 'row' },
    tp && chosen ? h('span', { class: 'chosen-mark' }, icon('check'), t('viewer.chosen')) : null,
    tp && !chosen ? h('button', { type: 'button', class: 'small', onclick: async () => {
      try {
        await api(`/groups/${state.group.id}/missions/${encodeURIComponent(p.missionId)}/tasks/${encodeURIComponent(p.taskId)}/choice`, { method: 'PUT', body: { photoId: p.id } });
        setChosenPhoto(p.missionId, p.taskId, { id: p.id, photographerId: p.photographer.id, photographerName: p.photographer.name, thumbUrl: p.urls.thumb });
        toast(t('viewer.chooseDone'));
        again();
        scheduleRefresh(true);
      } catch (e) { toast(errorText(e)); }
    } }, t('viewer.choose')) : null,
    mayDelete || mayHide ? h('button', { type: 'button', class: 'small danger', onclick: async () => {
      if (!confirm(t(mayHide ? 'viewer.hideConfirm' : 'viewer.deleteConfirm'))) return;
      try {
        await api(mayHide ? `/photos/${p.id}/hide` : `/photos/${p.id}`, { method: mayHide ? 'POST' : 'DELETE' });
        dlg.close();
        removeAlbumPhoto(p);
        toast(t(mayHide ? 'viewer.hidden' : 'viewer.deleted'));
        render(false);
        scheduleRefresh(true);
      } catch (e) { toast(errorText(e)); }
    } }, t(mayHide ? 'viewer.hide' : 'viewer.delete')) : null);
}
