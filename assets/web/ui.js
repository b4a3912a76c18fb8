// Small DOM helpers: h('tag', {attrs, onclick}, ...children). Text is always set as text.

export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === null || v === false) continue;
      if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
      else if (k === 'class') el.className = v;
      else if (k === 'style' && typeof v === 'object') Object.assign(el.style, v);
      else if (k in el && typeof v !== 'string' && k !== 'list') el[k] = v;
      else el.setAttribute(k, v === true ? '' : v);
    }
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const c of children) {
    if (c === undefined || c === null || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : String(c));
  }
}

// Contrast helpers (WCAG 2): keep the venue's colour as an accent while text on it stays readable.
function lum(hex) {
  const n = parseInt(hex.slice(1), 16);
  const ch = [(n >> 16) & 255, (n >> 8) & 255, n & 255].map((c) => {
    c /= 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * ch[0] + 0.7152 * ch[1] + 0.0722 * ch[2];
}
export function contrast(a, b) {
  const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}
function mix(hex, to, f) {
  const a = parseInt(hex.slice(1), 16), b = parseInt(to.slice(1), 16);
  const c = [16, 8, 0].map((s) => Math.round(((a >> s) & 255) * (1 - f) + ((b >> s) & 255) * f));
  return '#' + c.map((v) => v.toString(16).padStart(2, '0')).join('');
}
// Darkens the colour until white text on it (and it as text on white) reaches 4.5:1.
export function accentFor(hex) {
  if (!/^#[0-9a-fA-F]{6}$/.test(hex || '')) hex = '#1f5d8c';
  // The accent is also text on the page background and on its own light tint.
  const ok = (c) => contrast(c, '#f6f6f4') >= 4.6 && contrast(c, mix(c, '#ffffff', 0.9)) >= 4.6;
  let c = hex;
  for (let i = 0; i < 24 && !ok(c); i++) c = mix(c, '#000000', 0.08);
  return { accent: c, soft: mix(c, '#ffffff', 0.9), mid: mix(c, '#ffffff', 0.55) };
}

// Line icons (drawn inline so that no emoji font is needed); always decorative.
const ICONS = {
  camera: '<path d="M23 19a2 2 0 0 1-2 2H3a2 2 0 0 1-2-2V8a2 2 0 0 1 2-2h4l2-3h6l2 3h4a2 2 0 0 1 2 2z"/><circle cx="12" cy="13" r="4"/>',
  lock: '<rect x="3" y="11" width="18" height="11" rx="2"/><path d="M7 11V7a5 5 0 0 1 10 0v4"/>',
  pin: '<path d="M21 10c0 7-9 13-9 13s-9-6-9-13a9 9 0 0 1 18 0z"/><circle cx="12" cy="10" r="3"/>',
  image: '<rect x="3" y="3" width="18" height="18" rx="2"/><circle cx="8.5" cy="8.5" r="1.5"/><path d="M21 15l-5-5L5 21"/>',
  users: '<path d="M17 21v-2a4 4 0 0 0-4-4H5a4 4 0 0 0-4 4v2"/><circle cx="9" cy="7" r="4"/><path d="M23 21v-2a4 4 0 0 0-3-3.87M16 3.13a4 4 0 0 1 0 7.75"/>',
  compass: '<circle cx="12" cy="12" r="10"/><path d="M16.24 7.76l-2.12 6.36-6.36 2.12 2.12-6.36z"/>',
  check: '<path d="M20 6L9 17l-5-5"/>',
  download: '<path d="M21 15v4a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2v-4M7 10l5 5 5-5M12 15V3"/>',
  star: '<path d="M12 2l3.09 6.26L22 9.27l-5 4.87 1.18 6.88L12 17.77l-6.18 3.25L7 14.14 2 9.27l6.91-1.01z"/>',
  bulb: '<path d="M9 18h6M10 22h4M12 2a7 7 0 0 0-4 12.7V16h8v-1.3A7 7 0 0 0 12 2z"/>',
  left: '<path d="M19 12H5M12 19l-7-7 7-7"/>',
  right: '<path d="M5 12h14M12 5l7 7-7 7"/>',
  share: '<circle cx="18" cy="5" r="3"/><circle cx="6" cy="12" r="3"/><circle cx="18" cy="19" r="3"/><path d="M8.6 13.5l6.8 4M15.4 6.5l-6.8 4"/>',
  close: '<path d="M18 6L6 18M6 6l12 12"/>',
  clock: '<circle cx="12" cy="12" r="10"/><path d="M12 6v6l4 2"/>',
  upload: '<path d="M21 15v4a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2v-4M17 8l-5-5-5 5M12 3v12"/>',
};
export function icon(name) {
  const span = document.createElement('span');
  // Arrows point back or forward: turned round when the page reads right to left.
  span.className = name === 'left' || name === 'right' ? 'i directional' : 'i';
  span.setAttribute('aria-hidden', 'true');
  span.innerHTML = '<svg viewBox="0 0 24 24" width="1em" height="1em" fill="none" stroke="currentColor" stroke-width="2.2" stroke-linecap="round" stroke-linejoin="round">' + ICONS[name] + '</svg>';
  return span;
}

// The styles of the screens a visitor reaches later (later.css), added to the page once and
// resolved when they apply, so that such a screen is never drawn unstyled.
let later = null;
export function laterStyles() {
  if (!later) {
    later = new Promise((resolve) => {
      const link = h('link', { rel: 'stylesheet', href: '/assets/web/later.css' });
      link.addEventListener('load', resolve);
      link.addEventListener('error', resolve); // offline and never kept: the screen still works
      document.head.append(link);
    });
  }
  return later;
}

// Reading QR codes with the camera where the browser can (BarcodeDetector): scanner.js loads
// with the first scan; a scan under way stops when the screen changes.
export const canScan = () => 'BarcodeDetector' in window && !!(navigator.mediaDevices && navigator.mediaDevices.getUserMedia);
let scanning = null;
export const scanner = () => (scanning = scanning || import('./scanner.js'));
export function stopScanning() { if (scanning) scanning.then((s) => s.stopScan()).catch(() => {}); }
