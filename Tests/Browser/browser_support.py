"""Generic helpers for the browser tests of the web client: a headless Chromium with its own
profile (waiting, clicking, screenshots, going offline, its console), running a test, axe-core's
findings and the first-load size. The server, test photos and failing come from the harness
(Tests/harness), and are passed on from here.

Every screen a test shows is checked for what no visitor should read (`Browser.check_screen`):
each screenshot's page, the page axe looks at, and the page each browser still shows when the
scenario ends."""

import collections
import json
import re
import shutil
import sys
import tempfile
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "harness"))
from groupie_harness import REPO  # noqa: E402
from groupie_harness.checks import Failure, check, logger, require  # noqa: E402
from groupie_harness.photos import make_photo  # noqa: E402
from groupie_harness.server import Server  # noqa: E402
from groupie_harness.staff import add_staff  # noqa: E402

from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import (ElementClickInterceptedException, StaleElementReferenceException,  # noqa: E402
                                        TimeoutException, WebDriverException)
from selenium.webdriver.chrome.options import Options  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

__all__ = ["REPO", "SHOTS", "UPLOAD_REQUEST", "Browser", "Failure", "FirstLoad", "accessibility_problems", "add_staff", "check", "log",
           "make_photo", "measure_first_load", "run_scenario", "start_server", "uploads_answered"]
SHOTS = REPO / ".build" / "browser-screenshots"
CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
log = logger()


# What a screen must not show, read in one call so that a live update cannot draw the page
# again halfway (see `Browser.check_screen`). Returns null for a document that is not a page
# (an image, a PDF, JSON), else {where, words, fonts, named, unread}: the screen's address and
# heading, what was found, the families the page names and the style sheets it could not read.
SCREEN_CHECK = r"""
if (!document.body || !/html/.test(document.contentType)) return null;
// A font-family value's families, unquoted and in lower case ("Segoe UI", monospace -> segoe ui, monospace).
const families = (value) => (value || '').match(/"[^"]*"|'[^']*'|[^,]+/g)?.map((f) => f.trim().replace(/^["']|["']$/g, '')
  .replace(/\s+/g, ' ').toLowerCase()).filter((f) => f && !/^(inherit|initial|unset|revert|revert-layer)$/.test(f)) || [];
// The families the page names: in its style sheets' rules (custom properties too, as a
// font-family may come through var()), @font-face and @import included, and in style attributes.
const named = new Set(), unread = [];
const take = (style) => {
  for (const f of families(style.getPropertyValue('font-family'))) named.add(f);
  for (const p of style) {
    if (!p.startsWith('--')) continue;
    for (const f of families(style.getPropertyValue(p))) if (!/^[#\d.-]|\(/.test(f)) named.add(f);  // not a colour, a length or a function
  }
};
const rules = (list) => { for (const r of list) { if (r.style) take(r.style); if (r.styleSheet) sheet(r.styleSheet); if (r.cssRules) rules(r.cssRules); } };
const sheet = (s) => { try { rules(s.cssRules); } catch (e) { unread.push(s.href); } };
for (const s of [...document.styleSheets, ...(document.adoptedStyleSheets || [])]) sheet(s);
for (const e of document.querySelectorAll('[style]')) take(e.style);
// Generic families stand for the machine's own fonts by design (the browser's monospace for
// <kbd> and <code>); a family by its name must be one the page chose. What falls out of the
// page's styles lands on the browser's defaults, Times New Roman or Arial, named by no sheet.
const GENERIC = new Set(['serif', 'sans-serif', 'monospace', 'cursive', 'fantasy', 'system-ui', 'ui-serif', 'ui-sans-serif',
  'ui-monospace', 'ui-rounded', 'emoji', 'math', 'fangsong']);
const shown = (e) => getComputedStyle(e).visibility === 'visible' && [...e.getClientRects()].some((r) => r.width > 0 && r.height > 0);
const name = (e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + [...e.classList].slice(0, 2).map((c) => '.' + c).join('');
const fonts = [], texts = [['the page', document.body.innerText]];
const look = (e, text) => {
  const family = families(getComputedStyle(e).fontFamily)[0] || '';
  if (!GENERIC.has(family) && !named.has(family)) fonts.push(`${name(e)} in "${family}": ${JSON.stringify(text.trim().slice(0, 60))}`);
};
// Each element that holds visible text of its own, once.
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT), seen = new Set();
while (walker.nextNode()) {
  const node = walker.currentNode, e = node.parentElement;
  if (!node.data.trim() || !e || seen.has(e) || e.closest('script, style, noscript, template, textarea, select')) continue;
  const range = document.createRange();
  range.selectNodeContents(node);
  if (getComputedStyle(e).visibility !== 'visible' || ![...range.getClientRects()].some((r) => r.width > 0 && r.height > 0)) continue;
  seen.add(e);
  look(e, node.data);
}
// Form fields show their value, their placeholder or their chosen option in their own font.
for (const e of document.querySelectorAll('input, textarea, select')) {
  if (['hidden', 'checkbox', 'radio', 'file', 'range', 'color', 'image'].includes(e.type) || !shown(e)) continue;
  const text = e.tagName === 'SELECT' ? (e.selectedOptions[0] ? e.selectedOptions[0].text : '') : e.value || e.placeholder || '';
  if (!text.trim()) continue;
  // A text area holds what someone wrote (a venue's file in the editor), not the page's words.
  if (e.tagName !== 'TEXTAREA') texts.push([name(e), text]);
  look(e, text);
}
// A program's value where words belong: null, undefined or NaN as a word, or an object as text.
const words = [];
for (const [where, text] of texts) {
  for (const m of text.matchAll(/(?<![\p{L}\p{N}_])(?:null|undefined|NaN)(?![\p{L}\p{N}_])|\[object [A-Za-z]+\]/gu)) {
    words.push(`${JSON.stringify(m[0])} in ${where}: ${JSON.stringify(text.slice(Math.max(0, m.index - 40), m.index + m[0].length + 40))}`);
  }
}
// The visitors' pages are tapped by children's fingers: every control at least 44 px tall and
// wide (a box or a round button by the label around it). The staff console is a desk's.
const small = [];
if (!location.pathname.startsWith('/staff')) {
  for (const e of document.querySelectorAll('button, summary, a.button, [role=button], select, input:not([type=hidden])')) {
    if (!shown(e) || e.closest('[inert], [aria-hidden=true]')) continue;
    const target = (['checkbox', 'radio', 'file'].includes(e.type) && e.closest('label')) || e;
    const box = target.getBoundingClientRect();
    if (box.height < 43.5 || box.width < 43.5) small.push(`${name(e)} ${Math.round(box.width)}x${Math.round(box.height)}: ${JSON.stringify((target.innerText || e.value || '').trim().slice(0, 40))}`);
  }
}
const h1 = document.querySelector('main h1, h1');
return { where: location.pathname + location.search + location.hash + (h1 ? ` "${h1.innerText.trim().slice(0, 60)}"` : ''),
         words, fonts, small, named: [...named].sort(), unread };
"""


# See `Browser.watch_uploads`: the queue sends its photos by XMLHttpRequest.
UPLOAD_WATCH = r"""
if (!window.uploadWatch) {
  const watch = window.uploadWatch = { made: 0, settled: 0 };
  const open = XMLHttpRequest.prototype.open, send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.open = function (method, url) {
    this.uploadWatched = /\/uploads\/|\/photos(\?|$)/.test(String(url));
    return open.apply(this, arguments);
  };
  XMLHttpRequest.prototype.send = function () {
    if (this.uploadWatched) { watch.made += 1; this.addEventListener('loadend', () => { watch.settled += 1; }); }
    return send.apply(this, arguments);
  };
}
"""


# The requests that send a photo: a part of an upload, or a whole photo.
UPLOAD_REQUEST = re.compile(r"(PUT /api/v1/groups/[^/ ]+/uploads/|POST /api/v1/groups/[^/ ]+/photos(\?|$))")
UPLOAD_ROUTES = (("/api/v1/groups/{groupId}/uploads/{uploadKey}", "PUT"), ("/api/v1/groups/{groupId}/photos", "POST"))


def uploads_answered(server):
    """How many requests sending a photo (`UPLOAD_REQUEST`) the server has answered, whatever it
    answered (its /metrics count each once its answer is given)."""
    return int(sum(server.metric("hb_requests", http_route=route, http_request_method=method) for route, method in UPLOAD_ROUTES))


def start_server(binary, workdir, missions=None, port=None, assets=None):
    """The server for a browser test: a kill 3 s after SIGTERM, as the browsers' streams may
    hold it up and the data folder is thrown away anyway; the test's own requests wait 10 s."""
    server = Server(binary, workdir, missions=missions, assets=assets, port=port, log_level="warning", wait=20, grace=3)
    server.api.timeout = 10
    return server


class Browser:
    def __init__(self, name, workdir, width=390, height=844, lang="en-US", arguments=(), environment=None):
        """`arguments`: further Chromium switches; `environment`: the variables Chromium and its
        driver run with (a HOME of their own, whose NSS database trusts a test's authority)."""
        self.name = name
        self.profile = workdir / f"profile-{name}"
        self.downloads = workdir / f"downloads-{name}"
        self.downloads.mkdir()
        o = Options()
        o.binary_location = CHROMIUM
        for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                  f"--user-data-dir={self.profile}", f"--window-size={width},{height}", f"--lang={lang}",
                  "--no-first-run", "--disable-extensions", "--hide-scrollbars", *arguments):
            o.add_argument(a)
        o.add_experimental_option("prefs", {"download.default_directory": str(self.downloads),
                                            "download.prompt_for_download": False,
                                            "intl.accept_languages": f"{lang},{lang.split('-')[0]}"})
        o.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.d = webdriver.Chrome(service=Service(CHROMEDRIVER, env=environment), options=o)
        self.d.set_window_size(width, height)
        self.d.execute_cdp_cmd("Browser.setDownloadBehavior",
                               {"behavior": "allow", "downloadPath": str(self.downloads)})
        self.shot_no = 0
        self.open = True

    # --- waiting and finding
    def wait(self, fn, what, timeout=15):
        try:
            # The client re-renders a screen when live events arrive, so an element found a moment
            # ago may be gone: that only means "look again".
            return WebDriverWait(self.d, timeout, poll_frequency=0.1,
                                 ignored_exceptions=(StaleElementReferenceException,)).until(lambda d: fn(d))
        except TimeoutException:
            self.shot(f"FAILED-{what[:40]}")
            raise Failure(f"browser {self.name}: timed out after {timeout} s waiting for {what} (url {self.d.current_url})")

    def el(self, css, timeout=15, visible=True):
        def find(d):
            for e in d.find_elements(By.CSS_SELECTOR, css):
                if not visible or e.is_displayed():
                    return e
            return False
        return self.wait(find, f"element {css}", timeout)

    def text(self, css, timeout=15):
        """The visible text of the first element `css` finds, read in one call: a live update may
        draw the screen again between finding an element and reading it."""
        return self.wait(lambda d: self.js("const e = document.querySelector(arguments[0]); return e ? e.innerText : null", css),
                         f"text of {css}", timeout)

    def js(self, script, *args):
        return self.d.execute_script(script, *args)

    def click(self, css):
        covered = None
        for attempt in range(5):
            e = self.el(css)
            try:
                self.js("arguments[0].scrollIntoView({block: 'center'})", e)
                e.click()
                return e
            except StaleElementReferenceException:
                continue  # re-rendered between finding and clicking
            except ElementClickInterceptedException as err:
                # The page may still be moving (an image loading above it changes the layout
                # after the scroll): look again shortly; covered every time is a failure.
                covered = err.msg.splitlines()[0]
                time.sleep(0.3)
        if covered:
            raise Failure(f"browser {self.name}: {css} is covered by another element: {covered}")
        raise Failure(f"browser {self.name}: {css} kept being replaced while clicking it")

    def send_file(self, css, path):
        for attempt in range(5):
            try:
                self.el(css, visible=False).send_keys(str(path))
                return
            except StaleElementReferenceException:
                continue
        raise Failure(f"browser {self.name}: {css} kept being replaced while choosing a file")

    def type(self, css, text):
        for attempt in range(5):
            try:
                e = self.el(css)
                e.clear()
                e.send_keys(text)
                return
            except StaleElementReferenceException:
                continue  # the screen was drawn again (a live update, a module loaded): type anew
        raise Failure(f"browser {self.name}: {css} kept being replaced while typing in it")

    def shot(self, label):
        """A screenshot of the whole page: the window is made as tall as the page for a moment,
        so that fixed bars stay where a visitor sees them and nothing below the fold is missed.
        The screen is then checked (`check_screen`), unless the shot is of a failure already."""
        SHOTS.mkdir(parents=True, exist_ok=True)
        self.shot_no += 1
        path = SHOTS / f"{self.name}-{self.shot_no:02d}-{label}.png"
        size = self.d.get_window_size()
        self.js("window.scrollTo(0, 0)")   # from the top, whatever the page scrolled to
        inner = self.js("return window.innerHeight")
        full = self.js("return document.documentElement.scrollHeight")
        try:
            if full > inner:
                self.d.set_window_size(size["width"], min(full + (size["height"] - inner), 5000))
            self.d.save_screenshot(str(path))
        finally:
            if full > inner:
                self.d.set_window_size(size["width"], size["height"])
        if not label.startswith("FAILED"):
            self.check_screen(f"{self.shot_no:02d}-{label}")
        return path

    def check_screen(self, screen):
        """Fails when the page shows what no visitor should read: `null`, `undefined` or `NaN`
        as a word, or `[object Object]`, in its visible text (form fields' values and
        placeholders too), or visible text in a font family the page's own style sheets do not
        name (a generic family, such as monospace, stands for the machine's own fonts and
        passes); and, on the visitors' pages, a control smaller than 44 x 44 px. The failure names the screen (`screen`, the address and the heading) and the
        text. A document that is not a page (a picture, a PDF) passes."""
        # Read once the page has its style sheets: before that, its text is in the browser's fonts.
        self.wait(lambda d: self.js("return document.readyState === 'complete' && "
                                    "[...document.querySelectorAll('link[rel~=stylesheet]')].every((l) => l.sheet)"),
                  f"the style sheets of screen {screen}")
        found = self.js(SCREEN_CHECK)
        if found is None:
            return
        where = f"browser {self.name}, screen {screen} at {found['where']}"
        check(not found["words"], f"{where}: the page shows a program's value as text: {found['words'][:5]}")
        check(not found["fonts"], f"{where}: text in a font family the page's style sheets do not name: {found['fonts'][:5]} "
                                  f"(they name {found['named']}{'; unreadable: ' + str(found['unread']) if found['unread'] else ''})")
        check(not found["small"], f"{where}: a control smaller than 44 x 44 px, too small for a child's finger: {found['small'][:5]}")

    def token(self):
        return json.loads(self.js("return localStorage.getItem('groupie.player')"))["token"]

    def img_loaded(self, css):
        return self.js("const i = document.querySelector(arguments[0]); return !!(i && i.complete && i.naturalWidth > 0)", css)

    def watch_uploads(self):
        """From now on the page counts the requests its upload queue makes (each an XHR to
        `/uploads/` or `/photos`) and those that have come back, answered or failed: see
        `uploads_settled`. Set again after the page loads anew."""
        self.js(UPLOAD_WATCH)

    def uploads_settled(self):
        """How many upload requests the page made since `watch_uploads`, once there was one and
        every one has come back (after that, none of them can still reach the server); 0 until then."""
        return self.js("const w = window.uploadWatch; return w && w.made > 0 && w.made === w.settled ? w.made : 0")

    def set_offline(self, offline):
        self.d.execute_cdp_cmd("Network.enable", {})
        self.d.execute_cdp_cmd("Network.emulateNetworkConditions", {
            "offline": offline, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        # Chromium fires offline/online itself; make sure the page hears it either way.
        self.js("if (navigator.onLine === arguments[0]) window.dispatchEvent(new Event(arguments[0] ? 'offline' : 'online'))", offline)

    def errors(self):
        """The SEVERE entries of the browser's console since the last look (reading the log empties
        it). A log that cannot be read is a failure: an empty list would pass every "no console
        errors" check unseen."""
        try:
            entries = self.d.get_log("browser")
        except WebDriverException as e:
            raise Failure(f"browser {self.name}: cannot read the console log: {e.msg or type(e).__name__}")
        return [e for e in entries if e["level"] == "SEVERE"]

    def check_console(self, what, expected=(), timeout=5):
        """Fails on any SEVERE entry of the console since the last look but those that match (in
        full) a regular expression of `expected`: errors the test provokes on purpose. Each of
        them must turn up within `timeout` seconds (the browser logs a failed request when its
        answer arrives, which may be after the page has shown it)."""
        unexpected, missing = [], list(expected)
        deadline = time.monotonic() + timeout
        while True:
            for e in self.errors():
                message = e["message"]
                seen = [p for p in missing if re.fullmatch(p, message)]
                if seen:
                    missing.remove(seen[0])
                elif not any(re.fullmatch(p, message) for p in expected):
                    unexpected.append(message)
            if not missing or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        check(not unexpected, f"browser {self.name}: console errors {what}: {unexpected[:5]}")
        check(not missing, f"browser {self.name}: the console did not show the error provoked {what}: {missing}")

    def quit(self):
        self.open = False
        try:
            self.d.quit()
        except Exception:
            pass

    stop = quit


def start_group(b, base, venue, name):
    """`b` types `name`, starts a group at `venue` and goes on to its missions; the group's join link."""
    b.d.get(base + f"/?venue={venue}")
    b.type("#name", name)
    b.click("#create")
    b.click("#create-group")
    join_url = b.el("#join-link").get_attribute("value")
    b.click("#to-missions")
    return join_url


def join_group(b, join_url, name):
    """`b` opens a group's join link, types `name` and joins; returns once the missions show."""
    b.d.get(join_url)
    b.type("#name", name)
    b.click("#join-group")
    b.el(".mission-card")


def run_scenario(doc, prefix, scenario, tools=()):
    """Runs a browser test: `scenario(binary, work, started)` with the server binary named on the
    command line and a fresh work folder. What it starts (servers, browsers) it adds to
    `started`, and all of it is stopped at the end, whatever happened; the work folder (with
    the servers' logs) is kept when the test fails. Each browser still open when the scenario
    ends has its last screen checked (`Browser.check_screen`). `tools`: commands it needs
    besides Chromium and its driver. Returns the exit status."""
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if not args:
        print(doc)
        return 2
    try:
        require(CHROMIUM, CHROMEDRIVER, *tools)
    except Failure as missing:
        print(f"{Path(sys.argv[0]).name}: {missing}", file=sys.stderr)
        return 2
    binary = str(Path(args[0]).resolve())
    work = Path(tempfile.mkdtemp(prefix=prefix))
    started, ok = [], False
    try:
        scenario(binary, work, started)
        for b in started:
            if isinstance(b, Browser) and b.open:
                b.check_screen("last shown")
        ok = True
        log("PASS")
    except Failure as e:
        log(f"FAIL: {e}")
    except Exception as e:  # a bug in the test or a crashed browser: still a failure, with a trace
        traceback.print_exc()
        log(f"FAIL: {type(e).__name__}: {e}")
    finally:
        for thing in reversed(started):
            thing.stop()
        if ok:
            shutil.rmtree(work, ignore_errors=True)
        else:
            for server in (thing for thing in started if isinstance(thing, Server)):
                tail = server.log_path.read_text(errors="replace")[-3000:]
                if tail.strip():
                    print(f"--- {server.log_path} (end) ---\n{tail}", file=sys.stderr)
            print(f"work folder kept: {work}", file=sys.stderr)
    return 0 if ok else 1


def accessibility_problems(b):
    """axe-core's serious and critical findings on the page as it is now, one line each. The
    screen is checked first (`Browser.check_screen`)."""
    b.check_screen("looked at by axe")
    from axe_selenium_python import Axe
    axe = Axe(b.d)
    axe.inject()
    results = axe.run()
    return [f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
            for v in results["violations"] if v["impact"] in ("serious", "critical")]


FirstLoad = collections.namedtuple("FirstLoad", "transferred uncompressed entries")
FirstLoad.__doc__ = """A page's first load: the bytes that crossed the network (headers and bodies, gzipped
where the server compressed), the bytes of the bodies once uncompressed, and each request's
entry (`name`, `transfer`, `encoded`, `decoded`: Resource Timing's sizes)."""


# Whether the first load is over: the document has loaded (`load` waits for its style sheets and
# its module scripts with all they import), the app has drawn its first screen (the caller waits
# for it; the language it draws in is imported before), and each style sheet, script, preloaded
# module and image the page names, and its icon and manifest (which Chromium fetches once the
# page has loaded), has its entry in Resource Timing, which a resource gets once it has loaded.
# The first screen asks for nothing else (no API call without a player, no fonts or pictures in
# the style sheet); the service worker's own requests are not the page's.
FIRST_LOAD_DONE = r"""
if (document.readyState !== 'complete' || ![...document.images].every((i) => i.complete)) return false;
const named = [...document.querySelectorAll('link[rel~=stylesheet][href], link[rel~=modulepreload][href], link[rel~=icon][href], '
  + 'link[rel~=manifest][href], script[src]')]
  .map((e) => e.href || e.src).concat([...document.images].map((i) => i.currentSrc || i.src))
  .map((u) => new URL(u, location.href)).filter((u) => /^https?:$/.test(u.protocol)).map((u) => u.href);
const loaded = new Set(performance.getEntriesByType('resource').map((e) => e.name));
return named.every((u) => loaded.has(u));
"""


def measure_first_load(b, url):
    """The first load of `url` in a fresh profile with the cache off, as `FirstLoad`."""
    b.d.execute_cdp_cmd("Network.enable", {})
    b.d.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
    b.d.get(url)
    b.el("#name")
    b.wait(lambda d: b.js(FIRST_LOAD_DONE), "the first load to end: everything the page names loaded")
    entries = b.js("""
      const nav = performance.getEntriesByType('navigation')[0];
      return [nav, ...performance.getEntriesByType('resource')].map(e => ({
        name: e.name, transfer: e.transferSize, encoded: e.encodedBodySize, decoded: e.decodedBodySize }));""")
    transferred = sum(max(e["transfer"] or 0, e["encoded"] or 0) for e in entries)
    uncompressed = sum(e["decoded"] or 0 for e in entries)
    b.d.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": False})
    return FirstLoad(transferred, uncompressed, entries)
