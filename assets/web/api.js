// Talking to the Groupie API: JSON in and out, problem documents turned into ApiError.

export class ApiError extends Error {
  constructor(status, problem) {
    super((problem && (problem.detail || problem.title)) || `HTTP ${status}`);
    this.status = status;
    this.code = (problem && problem.code) || (status === 0 ? 'network' : 'http-' + status);
    this.detail = problem && problem.detail;
    this.retryAfter = problem && problem.retryAfter;
  }
}

let token = null;
export function setToken(t) { token = t; }
export function getToken() { return token; }

// When an answer last came from the service worker's keep instead of the network: a dead zone.
let keptAt = 0;
export const inDeadZone = () => Date.now() - keptAt < 20000;

// `timeout` (ms): a request that does not answer by then fails as a network error.
export async function api(path, { method = 'GET', body, lang, headers = {}, timeout } = {}) {
  let url = '/api/v1' + path;
  if (lang) url += (url.includes('?') ? '&' : '?') + 'lang=' + encodeURIComponent(lang);
  const h = { Accept: 'application/json', ...headers };
  if (token) h.Authorization = 'Bearer ' + token;
  if (body !== undefined) h['Content-Type'] = 'application/json';
  let res;
  try {
    const signal = timeout && window.AbortSignal && AbortSignal.timeout ? AbortSignal.timeout(timeout) : undefined;
    res = await fetch(url, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store', signal });
  } catch (e) {
    throw new ApiError(0, null);
  }
  // The service worker answered from what it kept: the network did not answer in time.
  if (res.headers.get('X-Groupie-Kept')) { keptAt = Date.now(); dispatchEvent(new Event('groupie-kept')); }
  if (res.status === 204) return null;
  const type = res.headers.get('Content-Type') || '';
  const data = type.includes('json') ? await res.json().catch(() => null) : null;
  if (!res.ok) {
    const p = data || {};
    const ra = res.headers.get('Retry-After');
    if (ra) p.retryAfter = Number(ra);
    throw new ApiError(res.status, p);
  }
  return data;
}

export async function fetchText(path) {
  const res = await fetch('/api/v1' + path, { headers: { Authorization: 'Bearer ' + token } });
  if (!res.ok) throw new ApiError(res.status, null);
  return res.text();
}
