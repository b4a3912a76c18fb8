// The upload queue: every accepted photo is written to IndexedDB first, then sent in parts
// under its key until the server has it (resumable.js), by one tab of the phone at a time.
// Survives bad Wi-Fi, closed tabs and reloads.

// Sending in parts loads with the first upload (or in idle time, in a group): the first load
// of the client carries only the way in.
let resumable = null;
const parts = () => (resumable = resumable || import('./resumable.js').catch((e) => { resumable = null; throw e; }));
export const preloadSending = () => { parts().catch(() => {}); };

const DB_NAME = 'groupie';
const STORE = 'uploads';
// The photo taken but not yet accepted: phones often drop the tab while the camera app is open.
const TAKEN = 'taken';
let dbPromise = null;
let memory = null; // fallback when IndexedDB is unavailable (private mode in some browsers)
let memoryTaken = null;

function db() {
  if (!dbPromise) {
    dbPromise = new Promise((resolve) => {
      let req;
      try { req = indexedDB.open(DB_NAME, 2); } catch (e) { resolve(null); return; }
      req.onupgradeneeded = () => {
        const names = req.result.objectStoreNames;
        if (!names.contains(STORE)) req.result.createObjectStore(STORE, { keyPath: 'id' });
        if (!names.contains(TAKEN)) req.result.createObjectStore(TAKEN, { keyPath: 'id' });
      };
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => resolve(null);
    });
  }
  return dbPromise;
}

async function tx(mode, fn, store = STORE) {
  const d = await db();
  if (!d) {
    memory = memory || new Map();
    return fn(null);
  }
  const t = d.transaction(store, mode);
  const done = new Promise((resolve, reject) => {
    t.oncomplete = resolve;
    t.onerror = () => reject(t.error);
    t.onabort = () => reject(t.error);
  });
  const [result] = await Promise.all([fn(t.objectStore(store)), done]);
  return result;
}

const req = (r) => new Promise((res, rej) => { r.onsuccess = () => res(r.result); r.onerror = () => rej(r.error); });

export async function allItems() {
  const items = await tx('readonly', (s) => (s ? req(s.getAll()) : [...memory.values()]));
  return (items || []).sort((a, b) => a.createdAt - b.createdAt);
}
async function putItem(item) { await tx('readwrite', (s) => (s ? req(s.put(item)) : memory.set(item.id, item))); }
async function deleteItem(id) { await tx('readwrite', (s) => (s ? req(s.delete(id)) : memory.delete(id))); }

// Takes (or gives back) the item's lease in one transaction, for browsers without Web Locks;
// the item in the page carries the lease too, so that saving it keeps it.
async function lease(item, take) {
  // Loaded before the transaction: one that waits on a module would close before it is used.
  const { updateLease } = await parts();
  return tx('readwrite', async (s) => {
    if (!s) return true; // no IndexedDB: the queue lives in this tab alone
    const record = await req(s.get(item.id));
    if (!record) return false;
    const held = updateLease(record, take);
    item.lease = record.lease;
    await req(s.put(record));
    return held;
  });
}

// ---------------------------------------------------------------- the photo just taken

// Kept the moment it is taken, so that a reload offers it again; forgotten once it is used or
// dropped. One at a time: a new photo replaces the last.
export async function keepTaken({ groupId, missionId, taskId, file }) {
  const entry = { id: 'current', groupId, missionId, taskId, blob: file, name: file.name || '', type: file.type || '', takenAt: Date.now() };
  try { await tx('readwrite', (s) => (s ? req(s.put(entry)) : (memoryTaken = entry)), TAKEN); } catch (e) { /* kept in the page only */ }
}

export async function takenPhoto() {
  try { return (await tx('readonly', (s) => (s ? req(s.get('current')) : memoryTaken), TAKEN)) || null; } catch (e) { return null; }
}

export async function forgetTaken() {
  try { await tx('readwrite', (s) => (s ? req(s.delete('current')) : (memoryTaken = null)), TAKEN); } catch (e) { /* nothing kept */ }
}

function newKey() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const a = crypto.getRandomValues(new Uint8Array(16));
  return [...a].map((b) => b.toString(16).padStart(2, '0')).join('');
}

// An upload whose bytes have not moved, nor its answer come, for this long is said to be stuck
// (a dead zone: connected, nothing flows); the visitor may start it again.
const STALL_MS = 6000;
// Every byte of the last part is sent and no answer came for this long: the server is asked
// whether it made the photo (the answer may be lost on the way), and again as long as it waits.
const ASK_MS = 2000;

// Permanent failures: the server will never take this photo, retrying does not help.
const PERMANENT = new Set([400, 404, 409, 413, 415, 422]);

export class UploadQueue {
  constructor({ getToken, onChange, onUploaded }) {
    this.getToken = getToken;
    this.onChange = onChange;
    this.onUploaded = onUploaded;
    this.items = [];
    this.progress = new Map(); // id -> fraction 0..1 of the upload under way
    this.running = false;
    this.timer = null;
    this.xhr = null; // the upload under way
    addEventListener('online', () => this.kick());
    // Offline mid-upload: the upload stops at once, rather than sit at its last percentage.
    addEventListener('offline', () => { if (this.xhr) this.xhr.abort(); });
    document.addEventListener('visibilitychange', () => { if (!document.hidden) this.kick(); });
  }

  async load() {
    try { this.items = await allItems(); } catch (e) { this.items = []; }
    // Saved while under way (its acknowledged bytes): waiting again in this page.
    for (const i of this.items) if (['sending', 'stalled', 'elsewhere'].includes(i.state)) i.state = 'waiting';
    this.changed();
    this.kick();
  }

  // Another tab sends some of the photos: look again in a while, for the ones it finished
  // (gone from the database) and the ones it left (a closed tab).
  elsewhereLater() {
    clearTimeout(this.elsewhereTimer);
    this.elsewhereTimer = setTimeout(async () => {
      let stored;
      try { stored = new Map((await allItems()).map((i) => [i.id, i])); } catch (e) { return; }
      this.items = this.items.filter((i) => i.state !== 'elsewhere' || stored.has(i.id));
      for (const i of this.items) {
        if (i.state === 'elsewhere') { i.state = 'waiting'; i.offset = stored.get(i.id).offset; }
      }
      this.changed();
      this.kick();
    }, 3000);
  }

  changed() { this.onChange && this.onChange(this.items, this.progress); }

  async add({ groupId, missionId, taskId, blob, choose }) {
    const item = { id: newKey(), groupId, missionId, taskId, blob, choose: !!choose, type: blob.type || 'image/jpeg', createdAt: Date.now(), attempts: 0, state: 'waiting', error: null };
    await putItem(item);
    this.items.push(item);
    this.changed();
    this.kick();
    return item;
  }

  async remove(id) {
    await deleteItem(id);
    this.items = this.items.filter((i) => i.id !== id);
    this.progress.delete(id);
    this.changed();
  }

  async retry(id) {
    const item = this.items.find((i) => i.id === id);
    if (!item) return;
    item.state = 'waiting'; item.error = null; item.attempts = 0;
    await putItem(item);
    this.changed();
    this.kick();
  }

  // A stuck upload is started again now, rather than when its own time runs out.
  tryAgainNow(id) {
    const item = this.items.find((i) => i.id === id);
    if (item && item.state === 'stalled' && this.xhr) { item.again = true; this.xhr.abort(); }
  }

  kick() {
    clearTimeout(this.timer);
    this.timer = null;
    if (!this.running) this.run();
  }

  async run() {
    this.running = true;
    try {
      for (;;) {
        const item = this.items.find((i) => i.state === 'waiting' || i.state === 'retrying');
        if (!item) break;
        if (!navigator.onLine) {
          item.state = 'offline';
          this.changed();
          break; // the 'online' event starts us again
        }
        item.state = 'sending';
        this.progress.set(item.id, 0);
        this.changed();
        let sending;
        try {
          sending = await parts();
        } catch (e) {
          // Not loaded (no network before it was kept): the photo waits in the queue.
          item.state = 'retrying';
          this.progress.delete(item.id);
          this.changed();
          this.timer = setTimeout(() => this.kick(), 5000);
          break;
        }
        const { holding, BUSY } = sending;
        const r = await holding(item, () => this.send(item), lease);
        this.progress.delete(item.id);
        if (r === BUSY) {
          item.state = 'elsewhere';
          this.changed();
          this.elsewhereLater();
          continue;
        }
        if (r.ok) {
          await deleteItem(item.id);
          this.items = this.items.filter((i) => i !== item);
          this.changed();
          this.onUploaded && this.onUploaded(item, r.photo, r.answer);
          continue;
        }
        item.attempts += 1;
        if (r.permanent) {
          item.state = 'failed';
          item.error = r.problem || { code: 'http-' + r.status };
          await putItem(item);
          this.changed();
          continue;
        }
        item.state = navigator.onLine ? 'retrying' : 'offline';
        await putItem(item).catch(() => {});
        this.changed();
        const asked = item.again;
        item.again = false;
        const delay = asked ? 0 : Math.min(30000, 2000 * 2 ** Math.min(item.attempts - 1, 4)) + (r.retryAfter ? r.retryAfter * 1000 : 0);
        this.timer = setTimeout(() => this.kick(), delay);
        break;
      }
    } finally {
      this.running = false;
    }
    // Items marked offline wait for the 'online' event; make them eligible again.
    for (const i of this.items) if (i.state === 'offline' && navigator.onLine) { i.state = 'retrying'; this.timer = this.timer || setTimeout(() => this.kick(), 1000); }
  }

  // Sends the photo in parts from where the server is; an empty file goes in one request
  // (no range can name it), which the server refuses as any unreadable photo.
  async send(item) {
    if (!item.blob.size) return this.sendWhole(item);
    const { sendParts } = await parts();
    return sendParts(item, {
      transport: (o) => this.request(item, o),
      save: (offset) => { item.offset = offset; return putItem(item).catch(() => {}); },
      permanent: PERMANENT,
    });
  }

  async sendWhole(item) {
    const q = item.missionId ? `?mission=${encodeURIComponent(item.missionId)}&task=${encodeURIComponent(item.taskId)}${item.choose ? '&choose=true' : ''}` : '';
    const r = await this.request(item, {
      method: 'POST', url: `/api/v1/groups/${encodeURIComponent(item.groupId)}/photos${q}`,
      headers: { 'Idempotency-Key': item.id, 'Content-Type': item.type }, body: item.blob, sent: 0, total: 0,
    });
    if (r.status === 200 || r.status === 201) return { ok: true, photo: r.body && r.body.photo, answer: r.body };
    return { ok: false, status: r.status, problem: r.body, permanent: PERMANENT.has(r.status), retryAfter: Number(r.header('Retry-After')) || 0 };
  }

  // The upload's photo when the server made it already (the answer to its last part lost on
  // the way): as the last part's answer would have been, else null.
  // One question at a time, given up after a few seconds (or by `signal`, when the answer came).
  async madeAlready(url, signal) {
    const controller = new AbortController();
    const stop = () => controller.abort();
    signal.addEventListener('abort', stop);
    const timer = setTimeout(stop, 4000);
    try {
      const r = await fetch(url, { headers: { Authorization: 'Bearer ' + this.getToken(), Accept: 'application/json' }, cache: 'no-store', signal: controller.signal });
      const body = r.status === 200 ? await r.json() : null;
      return body && body.photo ? { status: 201, body, header: () => null } : null;
    } catch (e) {
      return null;
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', stop);
    }
  }

  // One request of an upload: { status, body, header(name) }, status 0 when no answer came
  // (offline, timed out, or stopped because nothing moved and the visitor asked to try again).
  request(item, { method, url, headers, body, sent, total, status }) {
    return new Promise((done) => {
      let resolve = done;
      const xhr = new XMLHttpRequest();
      xhr.open(method, url);
      xhr.setRequestHeader('Authorization', 'Bearer ' + this.getToken());
      for (const [name, value] of Object.entries(headers || {})) xhr.setRequestHeader(name, value);
      xhr.timeout = 120000;
      this.xhr = xhr;
      // Nothing moved for a while: the visitor is told, and may start it again.
      let moved = Date.now(), sentAll = !body || body.size === 0, asked = 0, asking = false;
      const questions = new AbortController();
      const watch = setInterval(() => {
        if (item.state === 'sending' && Date.now() - moved > STALL_MS) { item.state = 'stalled'; this.changed(); }
        if (status && sentAll && !asking && Date.now() - Math.max(moved, asked) > ASK_MS) {
          asking = true;
          this.madeAlready(status, questions.signal).then((r) => {
            asking = false;
            asked = Date.now();
            if (r) { resolve(r); xhr.abort(); }
          });
        }
      }, 1000);
      xhr.upload.onload = () => { sentAll = true; moved = Date.now(); };
      const move = () => {
        moved = Date.now();
        if (item.state === 'stalled') item.state = 'sending';
      };
      xhr.upload.onprogress = (e) => {
        move();
        if (e.lengthComputable) { this.progress.set(item.id, total ? (sent + e.loaded) / total : e.loaded / e.total); this.changed(); }
      };
      const settle = resolve;
      let settled = false;
      resolve = (r) => {
        if (settled) return; // the answer and the server's word that the photo is made may both come
        settled = true;
        clearInterval(watch);
        questions.abort();
        if (this.xhr === xhr) this.xhr = null;
        settle(r);
      };
      const fail = () => resolve({ status: 0, body: null, header: () => null });
      xhr.onerror = fail;
      xhr.ontimeout = fail;
      xhr.onabort = fail;
      xhr.onload = () => {
        let answer = null;
        try { answer = JSON.parse(xhr.responseText); } catch (e) { /* not JSON */ }
        resolve({ status: xhr.status, body: answer, header: (name) => xhr.getResponseHeader(name) });
      };
      xhr.send(body);
    });
  }
}

// Big phone photos are scaled to at most 2560 px before they are queued, so that bad Wi-Fi
// has less to carry. Anything the browser cannot draw (HEIC on most browsers) goes as it is.
export async function shrink(file) {
  const MAX = 2560;
  if (file.size < 2.5 * 1024 * 1024 || !/^image\/(jpeg|png|webp)$/.test(file.type) || !window.createImageBitmap) return file;
  try {
    const bmp = await createImageBitmap(file, { imageOrientation: 'from-image' });
    const scale = Math.min(1, MAX / Math.max(bmp.width, bmp.height));
    if (scale === 1 && file.type === 'image/jpeg') { bmp.close && bmp.close(); return file; }
    const w = Math.round(bmp.width * scale), h = Math.round(bmp.height * scale);
    const canvas = document.createElement('canvas');
    canvas.width = w; canvas.height = h;
    canvas.getContext('2d').drawImage(bmp, 0, 0, w, h);
    bmp.close && bmp.close();
    const blob = await new Promise((r) => canvas.toBlob(r, 'image/jpeg', 0.88));
    return blob && blob.size < file.size ? blob : file;
  } catch (e) {
    return file;
  }
}
