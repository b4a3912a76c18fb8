// The group's recap (#/recap): every collage in the venue's order as a short story, what the
// group found out, who did what, and the page to keep (PDF and PNG, drawn by the server) to
// download or share. Shown by itself when the visit is over; reached from the album any time.

import { api, getToken } from '../api.js';
import { t, tn } from '../i18n.js';
import { h, icon } from '../ui.js';
import { state } from '../store.js';
import { errorText, toast } from '../messages.js';
import { groupTitle, standingLine, confetti } from '../widgets.js';

const LEADS = { 'missions-done': 'recap.leadDone', 'missions-over': 'recap.leadTimeUp', 'closed': 'recap.leadClosed', 'joining-time-over': 'recap.leadOver' };

// The completed missions whose collage is ready, in the venue's order, with who took each task's photo.
function chapters() {
  return state.venue.missions.map((m) => {
    const p = state.group.missions.find((x) => x.id === m.id);
    if (!p || !p.complete) return null;
    const credits = m.tasks.map((task) => {
      const tp = p.tasks.find((x) => x.id === task.id);
      return tp && tp.chosenPhoto ? { prompt: task.prompt, name: tp.chosenPhoto.photographerName, id: tp.chosenPhoto.photographerId } : null;
    }).filter(Boolean);
    return { m, collage: p.collage, credits };
  }).filter(Boolean);
}

// Each member's tasks in the story, most first.
function shares(list) {
  const by = new Map();
  for (const c of list) for (const x of c.credits) {
    const s = by.get(x.id) || { name: x.name, n: 0, missions: [] };
    s.n += 1;
    if (!s.missions.includes(c.m.title)) s.missions.push(c.m.title);
    by.set(x.id, s);
  }
  return [...by.values()].sort((a, b) => b.n - a.n);
}

// What the group found out: the facts of its missions in the story, then those of the questions
// and codes it answered right (read from the server, in the player's language).
function factSection(facts) {
  const title = (missionId) => ((state.venue.missions || []).find((m) => m.id === missionId) || {}).title || '';
  const items = h('ul', null, facts.map((c) => h('li', { lang: state.venue.language }, h('strong', null, c.m.title + ': '), c.m.fact)));
  const box = h('section', { class: 'fact', hidden: !facts.length }, h('h2', null, icon('bulb'), t('recap.facts')), items);
  api(`/groups/${state.group.id}/answers`).then((r) => {
    const more = (r.facts || []).map((f) => h('li', { lang: state.venue.language }, h('strong', null, title(f.missionId) + ': '), f.fact));
    if (more.length) { items.append(...more); box.hidden = false; }
  }).catch(() => { /* offline: the missions' facts stay */ });
  return box;
}

const FINALE_TITLES = { 'missions-done': 'finale.done', 'missions-over': 'finale.timeUp' };
const celebrated = new Set(); // the groups whose finale burst already on this page

// The visit is over: a celebration in the venue's colours, the points and badges first, then
// one big button to keep the story (shared where the phone can, else downloaded).
function finale(end, hasStory) {
  const s = state.group.standing;
  if (!celebrated.has(state.group.id)) { celebrated.add(state.group.id); confetti(28); }
  return h('section', { class: 'finale', 'aria-labelledby': 'finale-title' },
    h('div', { class: 'rays', 'aria-hidden': 'true' }),
    h('p', { class: 'kicker' }, groupTitle()),
    h('h1', { id: 'finale-title' }, icon('star'), t(FINALE_TITLES[end] || 'finale.over')),
    s ? h('p', { class: 'points', id: 'standing' }, tn('points.total', s.points)) : null,
    s && s.badges.length ? h('ul', { class: 'badges' }, s.badges.map((b) => h('li', { class: 'badge-medal' }, icon('star'), t('badge.' + b)))) : null,
    h('p', { class: 'lead' }, t(LEADS[end])),
    hasStory ? h('button', { type: 'button', class: 'primary keep', id: 'keep-visit', onclick: () => (navigator.share ? share() : download('pdf')) },
      icon(navigator.share ? 'share' : 'download'), t('finale.keep')) : null);
}

export function recapScreen() {
  const list = chapters();
  const facts = list.filter((c) => c.m.fact);
  const end = state.group.visitEnd;
  return h('section', { class: 'screen recap' + (end ? ' ended' : '') },
    end ? finale(end, list.length > 0) : [
      h('p', { class: 'kicker' }, groupTitle()),
      h('h1', null, icon('star'), t('recap.title')),
      h('p', { class: 'lead' }, t('recap.leadSoFar')),
      standingLine()],
    end && list.length ? h('h2', { class: 'story-title' }, t('recap.title')) : null,
    list.length ? h('ol', { class: 'story' }, list.map(({ m, collage, credits }) => h('li', { 'data-mission': m.id },
      h('h2', { lang: state.venue.language }, m.title),
      collage && collage.status === 'ready' ?
        h('img', { src: collage.urls.jpg, alt: t('done.collageAlt', { mission: m.title }), width: collage.width, height: collage.height, loading: 'lazy' }) :
        h('p', { class: 'busy', role: 'status' }, h('span', { class: 'spinner', 'aria-hidden': 'true' }), t('done.making')),
      h('p', { class: 'credits' }, credits.map((x) => `${x.prompt}: ${x.name}`).join(' · '))))) :
      h('p', { class: 'empty' }, t(end ? 'recap.emptyEnded' : 'recap.empty')),
    factSection(facts),
    list.length ? h('section', { class: 'people' }, h('h2', null, t('recap.people')),
      h('ul', null, shares(list).map((s) => h('li', null, h('strong', null, s.name), ' – ', tn('recap.share', s.n), ' (', s.missions.join(', '), ')')))) : null,
    list.length ? h('div', { class: 'stack' },
      h('button', { type: 'button', class: 'primary', id: 'recap-pdf', onclick: () => download('pdf') }, icon('download'), t('recap.pdf')),
      h('button', { type: 'button', id: 'recap-png', onclick: () => download('png') }, icon('download'), t('recap.png')),
      navigator.share ? h('button', { type: 'button', id: 'recap-share', onclick: share }, icon('share'), t('share')) : null) : null,
    h('a', { href: '#/album', class: 'button quiet' }, t('recap.album')));
}

// A plain link with a stream token, as for the album: the browser saves the file itself.
async function download(format) {
  try {
    const tok = await api(`/groups/${state.group.id}/events/token`, { method: 'POST' });
    const a = h('a', { href: `/api/v1/groups/${state.group.id}/recap.${format}?download=1&token=${encodeURIComponent(tok.token)}`, download: `groupie-recap.${format}` });
    document.body.append(a); a.click(); a.remove();
  } catch (e) { toast(errorText(e)); }
}

// The PDF to the phone's share sheet where it takes files; else it is downloaded.
async function share() {
  try {
    const res = await fetch(`/api/v1/groups/${state.group.id}/recap.pdf`, { headers: { Authorization: 'Bearer ' + getToken() }, cache: 'no-store' });
    if (!res.ok) throw new Error(String(res.status));
    const file = new File([await res.blob()], 'groupie-recap.pdf', { type: 'application/pdf' });
    if (navigator.canShare && navigator.canShare({ files: [file] })) await navigator.share({ files: [file], title: t('recap.title') });
    else await download('pdf');
  } catch (e) {
    if (!e || e.name !== 'AbortError') toast(t('recap.shareFailed'));
  }
}
