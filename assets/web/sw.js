// Groupie's service worker: the web client keeps working when the museum's Wi-Fi drops.
// Served as /sw.js so that it looks after every page of the client (/, /j/<code>, /?venue=).
//
//   - pages: from the network, else the client's page kept at install;
//   - the client's own files: from the network, else the copy kept at install or last load;
//   - the API's reads (the player, the group, the venue, the album): from the network, else the
//     last answer kept, so that a reload without network still shows the group, its missions
//     and the photos already seen;
//   - images (photos, collages, icons, stickers, the QR code): from the cache once seen.
// Writes (uploads, joins, choices) and the event stream always go to the network: the upload
// queue keeps photos in IndexedDB until the server has them.

const VERSION = 'groupie-1';
const SHELL = `${VERSION}-shell`;
const DATA = `${VERSION}-data`;
const IMAGES = `${VERSION}-images`;
const MAX_IMAGES = 500;

const WEB = '/assets/web/';
const SHELL_FILES = ['/', ...[
  'app.css', 'app.js', 'api.js', 'i18n.js', 'ui.js', 'queue.js', 'live.js', 'store.js', 'router.js', 'messages.js',
  'session.js', 'notices.js', 'widgets.js', 'screens/join.js', 'screens/group.js', 'screens/missions.js', 'screens/camera.js',
  'screens/reward.js', 'screens/album.js', 'lang/sv.js', 'lang/fr.js', 'manifest.json', 'icon.svg', 'icon-192.png',
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
  // Live events and album downloads are never kept.
  if (path.endsWith('/events') || path.endsWith('.zip') || path === '/sw.js') return;
  if (request.mode === 'navigate') event.respondWith(page(request));
  else if (path.startsWith(WEB)) event.respondWith(networkFirst(request, SHELL));
  else if (isImage(path)) event.respondWith(cacheFirst(request));
  else if (path.startsWith('/api/v1/')) event.respondWith(networkFirst(request, DATA));
});

function isImage(path) {
  return (path.startsWith('/assets/') && !path.startsWith(WEB)) ||
    /^\/api\/v1\/photos\/[^/]+\/[^/]+$/.test(path) ||
    /\/collage\.(jpg|png)$/.test(path) || /\/qr\.(svg|png)$/.test(path);
}

// The client's page: a join link's page carries its group's preview, but the client reads the
// code from the address, so any page of the client stands in for another when offline.
async function page(request) {
  try {
    const response = await fetch(request);
    if (response.ok && new URL(request.url).pathname === '/') {
      const cache = await caches.open(SHELL);
      await cache.put('/', response.clone());
    }
    return response;
  } catch (e) {
    return (await caches.match('/', { cacheName: SHELL })) || offline();
  }
}

async function networkFirst(request, cacheName) {
  try {
    const response = await fetch(request);
    if (response.ok) {
      const cache = await caches.open(cacheName);
      await cache.put(request, response.clone());
    }
    return response;
  } catch (e) {
    return (await caches.match(request, { cacheName })) || offline();
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
