// The group's feed of what happened (who joined, photos, claims, completed missions), newest
// first, with the members' reactions to photos and completed missions. Read from the server
// (`GET /groups/{id}/feed`), read again when the group's events say something happened; a
// reaction is given or taken back with one tap, and every phone of the group sees it live:
// its event changes the feed on the screen, which is not read again for it.

import { api } from './api.js';
import { t } from './i18n.js';
import { h } from './ui.js';
import { state, subscribe, memberName, mission, taskOf } from './store.js';
import { errorText, toast } from './messages.js';
import { avatar } from './widgets.js';

const EMOJI = { heart: '❤️', laugh: '😂', wow: '😮', clap: '👏', star: '⭐' };

function line(entry) {
  const who = { id: entry.playerId, name: entry.name || t('feed.someone') };
  const m = entry.missionId ? mission(entry.missionId) : null;
  const task = entry.taskId ? taskOf(entry.missionId, entry.taskId) : null;
  const what = task ? task.title || task.prompt || '' : m ? m.title : '';
  switch (entry.kind) {
    case 'member-joined': return t('feed.joined', { name: memberName(who) });
    case 'photo-added': return what ? t('feed.photoFor', { name: memberName(who), task: what }) : t('feed.photo', { name: memberName(who) });
    case 'task-claimed': return t('feed.claimed', { name: memberName(who), task: what });
    case 'mission-completed': return t('feed.completed', { mission: m ? m.title : entry.missionId });
    default: return '';
  }
}

// A reaction given or taken back (`change`: entry, reaction, playerId, on), applied to `feed` as
// the server counts it: each member once, the reactions in the feed's order, none at zero.
// False when the entry is not in `feed`.
export function applyReaction(feed, change, me) {
  const entry = feed.entries.find((e) => String(e.id) === String(change.entry));
  if (!entry || !entry.reactable) return false;
  const on = change.on === true || change.on === 'true';
  const given = entry.reactions.find((r) => r.reaction === change.reaction)
    || { reaction: change.reaction, count: 0, playerIds: [], mine: false };
  const ids = new Set(given.playerIds);
  if (on) ids.add(change.playerId); else ids.delete(change.playerId);
  const others = entry.reactions.filter((r) => r.reaction !== change.reaction);
  const changed = ids.size ? [{ ...given, playerIds: [...ids], count: ids.size, mine: ids.has(me) }] : [];
  entry.reactions = others.concat(changed).sort((a, b) => feed.reactions.indexOf(a.reaction) - feed.reactions.indexOf(b.reaction));
  return true;
}

function reactionButtons(entry, reactions, apply, redraw) {
  return h('div', { class: 'reactions', role: 'group', 'aria-label': t('feed.reactTo') }, reactions.map((key) => {
    const given = entry.reactions.find((r) => r.reaction === key);
    const mine = !!(given && given.mine);
    const names = given ? given.playerIds.map((id) => memberName((state.group.members || []).find((x) => x.id === id) || { id, name: t('feed.someone') })) : [];
    return h('button', {
      type: 'button', class: 'reaction' + (mine ? ' mine' : ''), 'aria-pressed': mine ? 'true' : 'false',
      'data-reaction': key, title: names.join(', '),
      'aria-label': t('feed.reaction.' + key) + (given ? ` (${given.count})` : ''),
      onclick: async (e) => {
        e.currentTarget.disabled = true;
        try {
          await api(`/groups/${state.group.id}/feed/${entry.id}/reactions/${key}`, { method: mine ? 'DELETE' : 'PUT' });
          apply({ entry: entry.id, reaction: key, playerId: state.playerId, on: !mine });
        } catch (err) { toast(errorText(err)); redraw(); }
      },
    }, h('span', { 'aria-hidden': 'true' }, EMOJI[key] || key), given ? h('span', { class: 'count' }, String(given.count)) : null);
  }));
}

// The feed as a section of a screen: loads itself, and follows the group's events while shown.
export function feedSection() {
  const list = h('ol', { class: 'feed-list', 'aria-live': 'polite' }, h('li', { class: 'busy' }, t('loading')));
  const box = h('section', { class: 'feed', id: 'feed', 'aria-labelledby': 'feed-title' }, h('h2', { id: 'feed-title' }, t('feed.title')), list);
  let loading = null;
  let again = false;
  let current = null;
  let currentGroup = null;
  // A reaction applied to the feed on the screen (the group's own); read again when its entry is not there.
  const react = (change) => {
    if (!loading && current && state.group && currentGroup === state.group.id && applyReaction(current, change, state.playerId)) draw(current);
    else if (loading) again = true;
    else load();
  };
  const draw = (feed) => {
    current = feed;
    if (!feed.entries.length) { list.replaceChildren(h('li', { class: 'empty' }, t('feed.empty'))); return; }
    list.replaceChildren(...feed.entries.map((entry) => h('li', { class: 'feed-entry', 'data-entry': entry.id, 'data-kind': entry.kind },
      entry.playerId ? avatar({ id: entry.playerId, name: entry.name || '?' }, true) : h('span', { class: 'avatar small', 'aria-hidden': 'true' }, '★'),
      h('div', { class: 'feed-body' },
        h('p', null, line(entry)),
        entry.thumbnailUrl ? h('img', { class: 'feed-thumb', src: entry.thumbnailUrl, alt: '', loading: 'lazy', width: 120, height: 90 }) : null,
        entry.reactable ? reactionButtons(entry, feed.reactions, react, load) : null))));
  };
  function load() {
    if (!state.group) return;
    const groupId = state.group.id;
    loading = api(`/groups/${groupId}/feed`).then((feed) => {
      if (state.group && state.group.id === groupId) { currentGroup = groupId; draw(feed); }
    })
      .catch((e) => list.replaceChildren(h('li', { class: 'error', role: 'alert' }, errorText(e))))
      .finally(() => {
        loading = null;
        // An event that came while the feed was read may not be in what was read: read again.
        if (again && box.isConnected) { again = false; load(); }
      });
  }
  // Followed while the section is on the screen; once it has left it, the subscription ends.
  let shown = false;
  const stop = subscribe((patch) => {
    if (box.isConnected) shown = true;
    else { if (shown) stop(); return; }
    if ('feedReaction' in patch) { react(patch.feedReaction); return; }
    if (!('feedTick' in patch)) return;
    if (loading) again = true;
    else load();
  });
  load();
  return box;
}
