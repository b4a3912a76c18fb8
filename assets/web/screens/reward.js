// The reward for a completed mission (#/done/<mission>): confetti when it was just completed,
// the group's collage to download or share, and the mission's fact.

import { t } from '../i18n.js';
import { h, icon } from '../ui.js';
import { state, update, mission, progressOf, missionState, inPhoneLang } from '../store.js';
import { go, route } from '../router.js';
import { rewardWords, confetti } from '../widgets.js';
import { toast } from '../messages.js';

// The mission a visitor goes on to: the next one in the venue's order that is open and not
// complete (round to the start), else none.
function nextMission(id) {
  const ms = state.venue.missions;
  const at = ms.findIndex((x) => x.id === id);
  const after = ms.slice(at + 1).concat(ms.slice(0, Math.max(0, at)));
  return after.find((x) => { const s = missionState(x); return s.unlocked && !s.complete; });
}

function collageOf(id) { const p = progressOf(id); return p && p.collage; }

export function doneScreen(id) {
  const m = mission(id);
  const st = m && missionState(m);
  if (!m || !st.complete) {
    // A teammate's photo was deleted or hidden: the mission needs a photo again, and says so.
    if (m && route().name === 'done') toast(t('done.undone', { mission: m.title }));
    go(m ? '#/m/' + encodeURIComponent(id) : '#/missions');
    return null;
  }
  const next = nextMission(id);
  const c = collageOf(id);
  const ready = c && c.status === 'ready';
  const src = ready ? inPhoneLang(c.urls.jpg) : null; // its titles in the phone's language
  const fileName = `groupie-${state.venue.id}-${m.id}.jpg`;
  if (state.celebrate === id) { update({ celebrate: null }); confetti(18); }
  // A one-task mission's reward is the photo with a sticker, not a collage: the words say which.
  const words = rewardWords(m);
  return h('section', { class: 'screen done' },
    h('a', { href: '#/missions', class: 'back' }, icon('left'), t('mission.all')),
    h('p', { class: 'kicker', lang: state.venue.language }, m.title),
    h('h1', null, icon('star'), t('done.title')),
    h('p', { class: 'lead' }, t(words.lead)),
    ready ? h('figure', { class: 'collage' },
      h('img', { src, alt: t(words.alt, { mission: m.title }), width: c.width, height: c.height })) :
      h('p', { class: 'busy collage-wait', role: 'status' }, h('span', { class: 'spinner', 'aria-hidden': 'true' }), t(words.making)),
    ready ? h('div', { class: 'row' },
      h('a', { href: src, download: fileName, class: 'button primary', id: 'download-collage' }, icon('download'), t(words.download)),
      navigator.share ? h('button', { type: 'button', onclick: () => shareImage(src, fileName, m.title) }, icon('share'), t('share')) : null) : null,
    m.fact ? h('section', { class: 'fact' }, h('h2', null, icon('bulb'), t('done.fact')), h('p', { lang: state.venue.language }, m.fact)) : null,
    h('div', { class: 'stack' },
      state.group.visitEnd ? h('a', { href: '#/recap', class: 'button primary', id: 'see-recap' }, icon('star'), t('recap.open')) : null,
      h('a', { href: '#/m/' + encodeURIComponent(m.id), class: 'button' }, t('done.photos')),
      h('a', { href: next ? '#/m/' + encodeURIComponent(next.id) : '#/missions', class: 'button quiet', id: 'next-mission' }, next ? t('done.nextOne', { mission: next.title }) : t('done.next'))));
}

async function shareImage(url, name, title) {
  try {
    const blob = await (await fetch(url)).blob();
    const file = new File([blob], name, { type: blob.type || 'image/jpeg' });
    if (navigator.canShare && navigator.canShare({ files: [file] })) await navigator.share({ files: [file], title });
    else await navigator.share({ title, text: t('done.shareText', { mission: title, venue: state.venue.name }) });
  } catch (e) { /* the visitor closed the share sheet */ }
}
