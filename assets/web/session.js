// The player and their group: signing up, entering and leaving a group, reading it again when
// live events say it changed, the album pages, and the upload queue. Screens call these; what
// they load goes into the store.

import { api, setToken } from './api.js';
import { t, setLang } from './i18n.js';
import { accentFor } from './ui.js';
import { UploadQueue, takenPhoto, forgetTaken } from './queue.js';
import { LiveEvents, FEED_EVENTS } from './live.js';
import { state, update, subscribe, savePlayer, markAlbumStale, mission, taskOf, progressOf, memberName, contentLang, playerLang, negotiateLang } from './store.js';
import { route, render, chrome, go } from './router.js';
import { toast } from './messages.js';
import { addNotice, drawNotices } from './notices.js';

// The API sends the player's token with every request: keep it in step with the store.
subscribe((p) => { if ('token' in p) setToken(p.token); });

// Screens that show what live events change, and so are drawn again after a refresh.
const LIVE_SCREENS = new Set(['missions', 'm', 'done', 'album', 'recap', 'group']);

let live = null;       // the group's LiveEvents
let completed = null;  // ids of the missions complete at the last read, to notice new ones
let collageSig = '';   // the collages' states at the last read, to notice new ones

export const queue = new UploadQueue({
  getToken: () => state.token,
  onChange: (items, progress) => update({ uploads: items, progress }),
  onUploaded: (item, photo, answer) => {
    tellWherePhotoWent(item, photo, answer || {});
    if (state.group && item.groupId === state.group.id) scheduleRefresh(true);
  },
});

// The photographer learns where their photo went: the task's photo, or the album beside a
// teammate's that stays the task's (two photos of one task at once), with a way to swap.
function tellWherePhotoWent(item, photo, answer) {
  if (photo && photo.review === 'pending') { toast(t('photo.waitingForReview')); return; }
  const task = item.missionId && taskOf(item.missionId, item.taskId);
  if (answer.placement === 'album' && answer.taskPhoto && task) {
    const name = memberName(answer.taskPhoto.photographer);
    toast(t('photo.toAlbum', { name, task: (mission(item.missionId) || {}).title || '' }), { text: t('photo.useMine'), onclick: () => {
      api(`/groups/${item.groupId}/missions/${encodeURIComponent(item.missionId)}/tasks/${encodeURIComponent(item.taskId)}/choice`,
        { method: 'PUT', body: { photoId: photo.id } }).then(() => { toast(t('photo.nowTask')); scheduleRefresh(true); }).catch(() => toast(t('err.generic')));
    } });
  } else if (answer.placement === 'task') {
    toast(t('photo.isTask'));
  } else {
    toast(t('photo.uploaded'));
  }
}

// "I'm on it": the member claims the task (or gives it back) for the group to see.
export async function setClaim(missionId, taskId, on) {
  await api(`/groups/${state.groupId}/missions/${encodeURIComponent(missionId)}/tasks/${encodeURIComponent(taskId)}/claim`, { method: on ? 'PUT' : 'DELETE' });
  scheduleRefresh();
}

// A task's claim that holds now: { playerId, name, expiresAt }, or null.
export function claimOf(taskProgress) {
  const c = taskProgress && taskProgress.claim;
  return c && taskProgress.state !== 'done' && Date.parse(c.expiresAt) > Date.now() ? c : null;
}

// ---------------------------------------------------------------- the player

export async function ensurePlayer(name) {
  name = name.trim();
  if (!state.token) {
    const r = await api('/players', { method: 'POST', body: { name, lang: playerLang() } });
    update({ token: r.token, playerId: r.player.id, name: r.player.name });
    savePlayer();
  } else if (name && name !== state.name) {
    const r = await api('/me', { method: 'PATCH', body: { name } });
    update({ name: r.player.name });
    savePlayer();
  }
}

export function resetPlayer() {
  exitGroup();
  update({ token: null, playerId: null });
  savePlayer();
  go('#/');
}

// ---------------------------------------------------------------- entering and leaving a group

// `fresh`: the venue's texts changed, so they are asked of the network, not the worker's keep.
// Read in the phone's language; when the venue's languages make it another (a Japanese phone
// at a venue without Japanese falls back, interface included), read again in that one.
export async function loadGroupData(fresh) {
  let g, venue;
  for (let tries = 0; tries < 2; tries++) {
    g = await api(`/groups/${state.groupId}`, { lang: contentLang() });
    venue = await api(`/venues/${g.group.venueId}`, { lang: contentLang(), headers: fresh ? { 'X-Groupie-Fresh': '1' } : {} });
    if (!negotiateLang(venue.languages)) break;
    await setLang(state.lang);
  }
  update({ group: g.group, venue });
  applyTheme();
  await loadAnswers();
}

// The group's answers and the mission clocks (answers.js), loaded with the group's first read:
// the first load of the client, before any group, carries none of it.
const loadAnswers = () => import('./answers.js').then((a) => a.loadAnswers()).catch(() => { /* kept from the last read */ });

export function applyTheme() {
  const c = accentFor(state.venue && state.venue.theme && state.venue.theme.color);
  const st = document.documentElement.style;
  st.setProperty('--accent', c.accent); st.setProperty('--accent-soft', c.soft); st.setProperty('--accent-mid', c.mid);
  const meta = document.querySelector('meta[name=theme-color]');
  if (meta) meta.content = c.accent;
}

export async function enterGroup(groupId) {
  if (live) live.stop();
  update({ groupId, album: null });
  completed = null;
  await loadGroupData();
  keepForOffline();
  completed = completeMissions();
  collageSig = collagesNow();
  showFinale();
  live = new LiveEvents(groupId, { onEvent, onResync: (why) => { if (why === 'gone') refreshGroup(); else { scheduleRefresh(true); } }, onStatus: (s) => update({ live: s }) });
  live.start();
}

export function exitGroup() {
  if (live) live.stop();
  live = null;
  update({ group: null, groupId: null, venue: null, album: null });
  applyTheme();
  forgetKeptAnswers();
  // Out of the venue, the phone's own first language again (a fallback was the venue's).
  if (negotiateLang(null)) setLang(state.lang).then(() => render(false));
}

// What a visitor will want without network, asked for through the service worker so that it
// keeps it: the player and the group (again, when the worker has only just taken charge of a
// first visit), and the venue's pictures that are not on screen yet (stickers, the map, logo).
export function keepForOffline() {
  const worker = navigator.serviceWorker && navigator.serviceWorker.controller;
  if (!worker || !state.group || !state.venue) return;
  api('/me').catch(() => {});
  api(`/groups/${state.groupId}`, { lang: contentLang() }).catch(() => {});
  api(`/venues/${state.venue.id}`, { lang: contentLang() }).catch(() => {});
  const pictures = [state.venue.mapUrl, state.venue.theme.logoUrl, ...state.venue.missions.flatMap((m) => [m.iconUrl, m.stickerUrl])];
  for (const url of new Set(pictures.filter(Boolean))) fetch(url).catch(() => {});
}

// What the service worker kept of the group (its answers and pictures) goes with the group.
function forgetKeptAnswers() {
  if (!window.caches) return;
  caches.keys().then((keys) => Promise.all(keys.filter((k) => /-(data|images)$/.test(k)).map((k) => caches.delete(k)))).catch(() => {});
}

// ---------------------------------------------------------------- the photo taken

// The photo taken is let go when the visitor leaves its screen without using it.
export function dropPendingFile() {
  if (!state.pendingFile) return;
  URL.revokeObjectURL(state.pendingFile.url);
  update({ pendingFile: null });
  forgetTaken();
}

// After a reload: a photo taken for this group and neither used nor dropped is offered again.
export async function offerTakenPhoto() {
  if (!state.group || state.pendingFile) return false;
  const kept = await takenPhoto();
  if (!kept || kept.groupId !== state.group.id || (kept.missionId && !taskOf(kept.missionId, kept.taskId))) {
    if (kept) forgetTaken();
    return false;
  }
  const file = new File([kept.blob], kept.name || 'photo.jpg', { type: kept.type || kept.blob.type });
  update({ pendingFile: { file, missionId: kept.missionId, taskId: kept.taskId, url: URL.createObjectURL(file), restored: true } });
  go('#/photo');
  return true;
}

// ---------------------------------------------------------------- the finale

// When the visit is over (every mission done or over, the group closed by staff, its joining
// time over), every phone opens the finale once (the recap, celebrating): at once, or with a
// link while the visitor is taking a photo. Returns whether it went to the finale.
const FINALE_KEY = 'groupie.finale.';
const toldWhileTaking = new Set(); // groups whose finale waits for a photo being taken
function showFinale() {
  if (!state.group || !state.group.visitEnd || state.previewing) return false;
  try {
    if (localStorage.getItem(FINALE_KEY + state.group.id)) return false;
  } catch (e) { /* private browsing: shown again on the next read */ }
  const r = route().name;
  // A photo being taken is not interrupted: a link now, and the finale at the next read after it.
  if (r === 'photo') {
    if (!toldWhileTaking.has(state.group.id)) { toldWhileTaking.add(state.group.id); toast(t('recap.ready'), { href: '#/recap', text: t('recap.open') }); }
    return false;
  }
  try { localStorage.setItem(FINALE_KEY + state.group.id, state.group.visitEnd); } catch (e) { /* as above */ }
  if (r === 'recap') { render(false); return true; }
  go('#/recap');
  return true;
}

// ---------------------------------------------------------------- reading the group again

const completeMissions = () => new Set(state.group.missions.filter((m) => m.complete).map((m) => m.id));

function collagesNow() {
  return state.group ? state.group.missions.map((m) => (m.collage ? m.id + m.collage.status + (m.collage.createdAt || '') : '')).join() : '';
}

let refreshTimer = null, refreshAlbum = false;
export function scheduleRefresh(album) {
  if (album) refreshAlbum = true;
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(refreshGroup, 150);
}

export async function refreshGroup() {
  if (!state.groupId) return;
  let g;
  try {
    g = await api(`/groups/${state.groupId}`, { lang: contentLang() });
  } catch (e) {
    if (e.status === 404 || e.status === 403) {
      exitGroup(); toast(t('group.gone')); go('#/');
    } else if (e.status === 401) {
      resetPlayer();
    }
    return;
  }
  update({ group: g.group });
  await loadAnswers();
  const newly = state.group.missions.filter((m) => m.complete && completed && !completed.has(m.id)).map((m) => m.id);
  completed = completeMissions();
  const sig = collagesNow();
  if (sig !== collageSig) { collageSig = sig; refreshAlbum = true; }
  if (state.album && refreshAlbum) {
    markAlbumStale();
    refreshAlbum = false;
    if (route().name === 'album') {
      try { await loadAlbum(state.album.filter); } catch (e) { /* shown next time */ }
    }
  }
  const r = route();
  // The visit's end outshines its last mission: the finale opens, with that mission's collage in it.
  if (showFinale()) return;
  for (const id of newly) {
    const m = mission(id);
    if ((r.name === 'm' && r.arg === id) || r.name === 'missions') {
      update({ celebrate: id });
      go('#/done/' + encodeURIComponent(id));
      return;
    }
    toast(t('done.toast', { mission: m ? m.title : id }), { href: '#/done/' + encodeURIComponent(id), text: t('done.see') });
  }
  if (LIVE_SCREENS.has(r.name) || (!r.name && !state.joinCode)) render(false); else chrome();
}

// Replayed events (a late joiner catching up, a phone back online) update the screen silently;
// live ones are announced.
function onEvent(type, data, { replayed, id } = {}) {
  // A message from staff is shown whether it is new or replayed, until the visitor closes it.
  if (type === 'staff-message') {
    if (addNotice(state.groupId, id, data.text)) drawNotices(state.groupId);
    return;
  }
  if (type === 'venue-updated' || type === 'group-closed') {
    loadGroupData(type === 'venue-updated').then(() => { if (!showFinale()) render(false); }).catch(() => {});
    return;
  }
  // A reaction changes the feed alone, which applies it as it is told.
  if (type === 'reaction-changed') { update({ feedReaction: { ...data } }); return; }
  if (FEED_EVENTS.includes(type)) update({ feedTick: Number(id) || Date.now() });
  const album = /^photo-|collage|choice/.test(type);
  scheduleRefresh(album);
  if (replayed) return;
  // A teammate's news names the mission, not the task's whole prompt: one short line.
  const where = data.missionId ? ((mission(data.missionId) || {}).title || '') : t('album.free');
  if (type === 'photo-added' && data.photographerId && data.photographerId !== state.playerId) {
    toast(t('live.photoBy', { name: memberName({ id: data.photographerId, name: data.photographerName || '?' }), task: where }));
  } else if (type === 'choice-changed' && data.playerId && data.playerId !== state.playerId) {
    const name = memberName({ id: data.playerId, name: data.name || '?' });
    // The teammate who was on the task took its photo too: theirs is the task's now, and the
    // child whose photo it was is told kindly that theirs stays.
    toast(t(wasMineTakenByClaimer(data) ? 'live.claimerWon' : 'live.chose', { name, task: where }));
  } else if (type === 'task-answered' && data.playerId !== state.playerId) {
    toast(t(data.right === 'true' ? 'live.answeredRight' : 'live.answered', { name: memberName({ id: data.playerId, name: data.name || '?' }), task: where }));
  } else if (type === 'task-claimed' && data.playerId !== state.playerId) {
    toast(t('live.claimed', { name: memberName({ id: data.playerId, name: data.name || '?' }), task: where }));
  } else if (type === 'member-joined' && data.playerId !== state.playerId && data.name) {
    toast(t('live.joined', { name: data.name }));
  }
}

// Whether a choice by `data.playerId` replaced this visitor's photo of a task that member had
// claimed, as the group stood before the event.
function wasMineTakenByClaimer(data) {
  const m = progressOf(data.missionId);
  const task = m && m.tasks.find((x) => x.id === data.taskId);
  if (!task || !task.chosenPhoto || task.chosenPhoto.photographerId !== state.playerId) return false;
  return Boolean(task.claim && task.claim.playerId === data.playerId);
}

// ---------------------------------------------------------------- the album

// A page of the album (filter: a mission id, or '' for all); `more` adds the next page.
export async function loadAlbum(filter, more) {
  const old = state.album;
  const a = old && old.filter === filter && more ? old : { filter, photos: [], collages: [], next: null };
  const q = new URLSearchParams();
  if (filter) q.set('mission', filter);
  if (more && a.next) q.set('before', a.next);
  else q.set('limit', String(Math.min(100, Math.max(30, old && old.filter === filter ? old.photos.length : 0))));
  const r = await api(`/groups/${state.group.id}/photos?${q}`);
  const album = { ...a, photos: more ? a.photos.concat(r.photos) : r.photos, collages: r.collages || [], next: r.next || null,
    waiting: r.waitingForReview || [], loaded: true };
  update({ album });
  return album;
}
