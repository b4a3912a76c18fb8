// The client's state in one place. Everyone reads `state`; changes go through update() (or
// the named changes below), so that whoever cares can subscribe() instead of being called
// from every place that changes something. Only the player is kept across visits.

import { pickLang } from './i18n.js';

const PLAYER_KEY = 'groupie.player';

const S = {
  token: null, name: '', playerId: null,              // the player, kept in localStorage
  lang: 'en',                                         // the phone's one language (pickLang): interface, venue's texts, collages
  chosenLang: null,                                   // the language the visitor picked (kept), else null: the browser's
  groupId: null, group: null, venue: null,            // the group the player is in, and its venue
  album: null,                                        // the album page shown: { filter, photos, collages, next, stale }
  uploads: [], progress: new Map(),                   // the upload queue and each upload's fraction sent
  live: 'off',                                        // the live connection's status
  joinCode: null, preview: null,                      // a /j/<code> link, and what the server said about it
  pendingFile: null,                                  // the photo taken but not yet accepted
  openHints: new Set(),                               // task hints opened, kept open across redraws
  celebrate: null,                                    // the mission whose completion is celebrated next
  previewing: false,                                  // a member of staff's preview: nothing is kept or sent
  answers: null,                                      // the group's answers, facts and deadlines (answers.js)
};

// Read-only to everyone else: an assignment here is a bug, and says so at once.
export const state = new Proxy(S, {
  set(target, key) { throw new TypeError(`state.${String(key)} changes only through update()`); },
  deleteProperty(target, key) { throw new TypeError(`state.${String(key)} changes only through update()`); },
});

const subscribers = new Set();

// Subscribers hear each change as the patch that made it; they look at the keys they care about.
export function subscribe(fn) {
  subscribers.add(fn);
  return () => subscribers.delete(fn);
}

export function update(patch) {
  Object.assign(S, patch);
  for (const fn of subscribers) fn(patch);
}

// ---------------------------------------------------------------- the player across visits

export function loadPlayer() {
  let saved = {};
  try {
    const s = JSON.parse(localStorage.getItem(PLAYER_KEY) || '{}');
    saved = { token: s.token || null, name: s.name || '', playerId: s.playerId || null, chosenLang: s.langChosen && s.lang ? s.lang : null };
  } catch (e) { /* fresh start */ }
  update(saved);
  negotiateLang(null);
}

export function savePlayer() {
  localStorage.setItem(PLAYER_KEY, JSON.stringify({ token: S.token, name: S.name, playerId: S.playerId, lang: S.chosenLang || S.lang, langChosen: !!S.chosenLang }));
}

// The phone's one language (i18n.js's pickLang) from the visitor's choice, the browser's
// languages and `venueLangs`, the languages of the venue's texts (null before a venue is
// known). Says whether it changed; the caller loads its texts (setLang) and asks again.
export function negotiateLang(venueLangs) {
  const lang = pickLang(navigator.languages || [navigator.language], venueLangs, S.chosenLang);
  if (lang === S.lang) return false;
  update({ lang });
  return true;
}

// The language asked of the server for the venue's texts, the group's and the collages'
// titles, and the album's folders: always the phone's one language, so that nothing on the
// phone is in another (the server falls back as pickLang does when the venue lacks it).
export const contentLang = () => S.lang;

// The language a new player is made with, which the collages of a group they start are
// first drawn in: the phone's.
export const playerLang = () => S.lang;

// A collage's picture in the phone's language (`?lang=`): each language's picture has its
// own address, so that the browser and the service worker keep each one apart.
export const inPhoneLang = (url) => url && url + (url.includes('?') ? '&' : '?') + 'lang=' + encodeURIComponent(S.lang);

// ---------------------------------------------------------------- changes inside the group and album

export function setHintOpen(id, open) {
  const hints = new Set(S.openHints);
  if (open) hints.add(id); else hints.delete(id);
  update({ openHints: hints });
}

// The choice is shown at once; the next read of the group confirms it.
export function setChosenPhoto(missionId, taskId, chosenPhoto) {
  const missions = S.group.missions.map((m) => (m.id !== missionId ? m :
    { ...m, tasks: m.tasks.map((x) => (x.id === taskId ? { ...x, chosenPhoto } : x)) }));
  update({ group: { ...S.group, missions } });
}

export function removeAlbumPhoto(photo) {
  update({ album: { ...S.album, photos: S.album.photos.filter((x) => x !== photo) } });
}

// The album is read again when it is next shown.
export function markAlbumStale() {
  update({ album: { ...S.album, stale: true } });
}

// ---------------------------------------------------------------- looking things up

export const mission = (id) => S.venue && S.venue.missions.find((m) => m.id === id);
export const progressOf = (id) => S.group && S.group.missions.find((m) => m.id === id);
export const taskOf = (mid, tid) => { const m = mission(mid); return m && m.tasks.find((x) => x.id === tid); };

// A mission's progress as the missions, the mission and the reward screens count it.
export function missionState(m) {
  const p = progressOf(m.id);
  const done = p ? p.tasks.filter((x) => x.state === 'done').length : 0;
  return { p, done, total: m.tasks.length, complete: p && p.complete, unlocked: !p || p.unlocked };
}

// ---------------------------------------------------------------- telling members apart

const nameKey = (name) => String(name || '').normalize('NFC').toLocaleLowerCase().trim();

// A member's name as every screen shows it: members who share a name get a number, in the
// order they joined the group (the same on every phone), e.g. "Ada (2)". `person` is
// { id, name }; someone no longer in the group keeps their bare name.
export function memberName(person) {
  const members = (state.group && state.group.members) || [];
  const same = members.filter((m) => nameKey(m.name) === nameKey(person.name));
  const index = same.findIndex((m) => m.id === person.id);
  return same.length > 1 && index >= 0 ? `${person.name} (${index + 1})` : person.name;
}

// Colours far apart from each other, each dark enough for white letters.
const COLOURS = ['hsl(4 70% 36%)', 'hsl(211 75% 32%)', 'hsl(135 55% 25%)', 'hsl(280 50% 36%)', 'hsl(30 90% 28%)',
  'hsl(182 80% 22%)', 'hsl(330 60% 34%)', 'hsl(60 70% 20%)'];

// A member's colour: by their place in the group (the order they joined, the same on every
// phone), so that members up to eight look different; from their id for anyone else.
export function memberColour(id) {
  const members = (state.group && state.group.members) || [];
  const place = members.findIndex((m) => m.id === id);
  if (place >= 0) return COLOURS[place % COLOURS.length];
  let hash = 0;
  for (const c of String(id || '')) hash = (hash * 31 + c.codePointAt(0)) >>> 0;
  return COLOURS[hash % COLOURS.length];
}
