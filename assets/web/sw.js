// Groupie's service worker: the web client keeps working when the museum's Wi-Fi drops, or
// stays connected while nothing flows (a dead zone). Served as /sw.js so that it looks after
// every page of the client (/, /j/<code>, /?venue=).
//
//   - pages, the client's own files and the venue's texts: from the cache at once when kept,
//     the network asked in the background (with a short timeout) for the next time;
//   - the API's other reads (the player, the group, the album): from the network, but only for
//     a short while: then the last answer kept, marked `X-Groupie-Kept: 1`, so that a reload in
//     a dead zone shows the group at once, which the client marks offline. Once the network
//     failed, reads answer from the cache first for a while (checking the network behind);
//   - images (photos, collages, icons, stickers, the QR code): from the cache once seen.
// Writes (uploads, joins, choices) and the event stream always go to the network: the upload
// queue keeps photos in IndexedDB until the server has them.

const VERSION = 'groupie-2';
// How long a read waits for the network before the kept answer stands in, and how long after
// a failure reads answer from the cache first.
const PATIENCE = 1000;
const DEAD_FOR = 15000;
let deadUntil = 0;
const SHELL = `${VERSION}-shell`;
const DATA = `${VERSION}-data`;
const IMAGES = `${VERSION}-images`;
const MAX_IMAGES = 500;

const WEB = '/assets/web/';
const SHELL_FILES = ['/', ...[
  'app.css', 'later.css', 'app.js', 'api.js', 'i18n.js', 'ui.js', 'queue.js', 'resumable.js', 'live.js', 'store.js', 'router.js', 'messages.js',
  'session.js', 'notices.js', 'feed.js', 'widgets.js', 'answers.js', 'scanner.js', 'screens/join.js', 'screens/group.js', 'screens/missions.js', 'screens/camera.js',
  'screens/reward.js', 'screens/album.js', 'screens/recap.js', 'lang/sv.js', 'lang/fr.js', 'lang/ar.js', 'lang/ja.js', 'manifest.json', 'icon.svg', 'icon-192.png',
].map((f) => WEB + f)];

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(SHELL).then((cache) => cache.addAll(SHELL_FILES)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => !k.startsWith(VERSION + '-')).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  const path = url.pathname;
  // Live events, album downloads, recaps and where an upload stands are never kept.
  if (path.endsWith('/events') || path.endsWith('.zip') || /\/recap\.(pdf|png)$/.test(path) || path.includes('/uploads/') || path === '/sw.js') return;
  if (request.mode === 'navigate') event.respondWith(page(request, event));
  else if (path.startsWith(WEB)) event.respondWith(keptFirst(request, SHELL, event));
  else if (isImage(path)) event.respondWith(cacheFirst(request));
  // The venue's texts: kept first, unless the client asks for them fresh (the venue changed).
  else if (/^\/api\/v1\/venues\/[^/]+$/.test(path) && !request.headers.has('X-Groupie-Fresh')) event.respondWith(keptFirst(request, DATA, event));
  else if (path.startsWith('/api/v1/')) event.respondWith(networkFirst(request, DATA));
});

function isImage(path) {
  return (path.startsWith('/assets/') && !path.startsWith(WEB)) ||
    /^\/api\/v1\/photos\/[^/]+\/[^/]+$/.test(path) ||
    /\/collage\.(jpg|png)$/.test(path) || /\/qr\.(svg|png)$/.test(path);
}

// The network's answer, kept in `cacheName` under `keyOf` when it is good (not kept without a
// cache name); a failure, or no answer within `patience` ms when given, rejects and marks the
// network dead for a while.
async function fetchAndKeep(request, cacheName, keyOf = request, patience = 0) {
  const controller = new AbortController();
  const timer = patience ? setTimeout(() => controller.abort(), patience) : null;
  try {
    const response = await fetch(request, { signal: controller.signal });
    if (response.ok && cacheName) {
      const cache = await caches.open(cacheName);
      await cache.put(keyOf, response.clone());
    }
    deadUntil = 0;
    return response;
  } catch (e) {
    deadUntil = Date.now() + DEAD_FOR;
    throw e;
  } finally {
    clearTimeout(timer);
  }
}

// A kept answer, marked as such for the client.
async function kept(request, cacheName) {
  const response = await caches.match(request, { cacheName });
  if (!response) return null;
  const headers = new Headers(response.headers);
  headers.set('X-Groupie-Kept', '1');
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

// The client's page: a join link's page carries its group's preview, but the client reads the
// code from the address, so any page of the client stands in for another in a dead zone. The
// start page comes from the cache at once when kept (and is refreshed behind it); a join
// link's page is asked of the network first, for a few seconds when the start page is kept.
async function page(request, event) {
  const isStart = new URL(request.url).pathname === '/';
  const cached = await caches.match('/', { cacheName: SHELL });
  if (isStart && cached) {
    event.waitUntil(fetchAndKeep(request, SHELL, '/', PATIENCE * 8).catch(() => {}));
    return cached;
  }
  try {
    return await fetchAndKeep(request, isStart ? SHELL : null, '/', cached ? PATIENCE * 3 : 0);
  } catch (e) {
    return cached || offline();
  }
}

// From the cache at once when kept, the network asked behind it for the next time; else the
// network.
async function keptFirst(request, cacheName, event) {
  const cached = await caches.match(request, { cacheName });
  const network = fetchAndKeep(request, cacheName, request, cached ? PATIENCE * 8 : 0);
  if (cached) {
    event.waitUntil(network.catch(() => {}));
    return cached;
  }
  try {
    return await network;
  } catch (e) {
    return offline();
  }
}

// The network for a short while, then the kept answer; right after a failure, the kept answer
// at once (the network still asked, and its answer kept).
async function networkFirst(request, cacheName) {
  const network = fetchAndKeep(request, cacheName, request, PATIENCE * 25);
  if (Date.now() < deadUntil) {
    const answer = await kept(request, cacheName);
    if (answer) { network.catch(() => {}); return answer; }
  }
  const late = new Promise((resolve) => setTimeout(resolve, PATIENCE, 'late'));
  try {
    const first = await Promise.race([network, late]);
    if (first !== 'late') return first;
    deadUntil = Date.now() + DEAD_FOR;
    const answer = await kept(request, cacheName);
    if (answer) { network.catch(() => {}); return answer; }
    return await network;
  } catch (e) {
    return (await kept(request, cacheName)) || offline();
  }
}

async function cacheFirst(request) {
  const cache = await caches.open(IMAGES);
  const kept = await cache.match(request);
  if (kept) return kept;
  const response = await fetch(request);
  if (response.ok) {
    await cache.put(request, response.clone());
    const keys = await cache.keys();
    // The oldest go first when the phone has kept enough pictures.
    for (const old of keys.slice(0, Math.max(0, keys.length - MAX_IMAGES))) await cache.delete(old);
  }
  return response;
}

// Neither the network nor the cache has an answer: a network error, as without a service
// worker, which the client already tells as "no connection".
function offline() {
  return Response.error();
}
