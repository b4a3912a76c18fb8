// The group's live events over Server-Sent Events. EventSource cannot send headers, so each
// connection asks for a short-lived stream token first; after a lost connection we reconnect
// ourselves (with a fresh token) and pass the last event id so nothing is missed.

import { api, inDeadZone } from './api.js';

// Down, as the header says it: offline without network or in a dead zone, else reconnecting.
const down = () => (navigator.onLine && !inDeadZone() ? 'reconnecting' : 'offline');

// Exactly the server's GroupEventKind (a test compares them).
const TYPES = ['member-joined', 'member-left', 'member-renamed', 'photo-added', 'photo-removed',
  'task-answered', 'task-done', 'task-undone', 'choice-changed', 'task-claimed', 'task-released', 'mission-completed', 'collage-ready', 'collage-removed', 'venue-updated',
  'group-closed', 'staff-message', 'group-reopened', 'reaction-changed'];

// The events that change what the group's feed shows (session.js bumps `feedTick` on each).
export const FEED_EVENTS = ['member-joined', 'photo-added', 'photo-removed', 'task-claimed', 'mission-completed', 'reaction-changed'];

export class LiveEvents {
  constructor(groupId, { onEvent, onResync, onStatus }) {
    this.groupId = groupId;
    this.onEvent = onEvent;
    this.onResync = onResync;
    this.onStatus = onStatus;
    this.key = 'groupie.lastEvent.' + groupId;
    this.lastId = sessionStorage.getItem(this.key) || localStorage.getItem(this.key);
    this.es = null;
    this.stopped = false;
    this.failures = 0;
    this.timer = null;
    this.onlineHandler = () => { if (!this.es) this.reconnect(0); };
    this.offlineHandler = () => { this.drop(); this.status('offline'); };
    // The service worker answered from its keep: the network is not there, whatever the phone says.
    this.keptHandler = () => { if (this.state !== 'live') this.status('offline'); };
    addEventListener('groupie-kept', this.keptHandler);
    // A phone waking up may hold a dead connection: check it when the page is shown again.
    this.visibleHandler = () => {
      if (document.hidden || this.stopped) return;
      if (!this.es || this.es.readyState === 2) this.reconnect(0);
    };
    document.addEventListener('visibilitychange', this.visibleHandler);
    addEventListener('online', this.onlineHandler);
    addEventListener('offline', this.offlineHandler);
  }

  status(s) { this.state = s; this.onStatus && this.onStatus(s); }

  async start() {
    if (this.stopped || this.starting) return;
    clearTimeout(this.timer);
    if (!navigator.onLine) { this.status('offline'); return; }
    this.status(inDeadZone() ? 'offline' : 'connecting');
    this.drop();
    let tok;
    this.starting = true;
    try {
      tok = await api(`/groups/${this.groupId}/events/token`, { method: 'POST', timeout: 8000 });
    } catch (e) {
      this.starting = false;
      if (e.status === 401 || e.status === 404) { this.status('gone'); this.onResync && this.onResync('gone'); return; }
      this.reconnect();
      return;
    }
    this.starting = false;
    if (this.stopped) return;
    // Events up to this one happened before we asked: the screen takes them in without fuss.
    const caughtUp = Number(tok.latestEventId) || 0;
    // An id beyond the group's latest was kept from before the server's data was restored.
    if (Number(this.lastId) > caughtUp) this.remember(String(caughtUp));
    let url = `/api/v1/groups/${this.groupId}/events?token=${encodeURIComponent(tok.token)}`;
    if (this.lastId) url += '&lastEventId=' + encodeURIComponent(this.lastId);
    const es = new EventSource(url);
    this.es = es;
    es.onopen = () => {
      const wasDown = this.failures > 0 || this.state !== 'live';
      this.failures = 0;
      this.status('live');
      // Anything that happened before this stream began is in a fresh read of the group.
      if (wasDown && !this.lastId) this.onResync && this.onResync('open');
    };
    es.onerror = () => {
      if (this.es !== es) return;
      this.drop();
      this.reconnect();
    };
    const handle = (type) => (e) => {
      if (e.lastEventId) this.remember(e.lastEventId);
      let data = {};
      try { data = JSON.parse(e.data); } catch (err) { /* heartbeat or empty */ }
      this.onEvent && this.onEvent(type, data, { replayed: !!e.lastEventId && Number(e.lastEventId) <= caughtUp, id: e.lastEventId });
    };
    for (const t of TYPES) es.addEventListener(t, handle(t));
    es.onmessage = handle('message');
    es.addEventListener('resync', (e) => {
      // A stream asked from an id the group never reached (its data was restored from a
      // backup) says where the group is: follow it from there, after a fresh read.
      let data = {};
      try { data = JSON.parse(e.data); } catch (err) { /* an empty resync */ }
      if (Number.isInteger(data.latestEventId)) this.remember(String(data.latestEventId));
      this.drop();
      this.onResync && this.onResync('resync');
      this.reconnect(0);
    });
  }

  remember(id) {
    this.lastId = id;
    sessionStorage.setItem(this.key, id);
    localStorage.setItem(this.key, id);
  }

  drop() {
    if (this.es) { this.es.close(); this.es = null; }
  }

  reconnect(delay) {
    if (this.stopped) return;
    this.failures += 1;
    this.status(down());
    const d = delay !== undefined ? delay : Math.min(15000, 1000 * 2 ** Math.min(this.failures - 1, 4));
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.start(), d);
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    this.drop();
    document.removeEventListener('visibilitychange', this.visibleHandler);
    removeEventListener('online', this.onlineHandler);
    removeEventListener('offline', this.offlineHandler);
    removeEventListener('groupie-kept', this.keptHandler);
  }
}
