#!/usr/bin/env python3
"""Browser test of the web client's languages: one language per phone, right to left for Arabic,
a phone held sideways and the album on a phone.

A venue of the test's own speaks English, Swedish, Arabic and Japanese; the repository's
science centre speaks Swedish and English. In headless Chromium:

  - an Arabic phone (--lang=ar, Accept-Language ar) reads the page right to left (dir=rtl,
    lang=ar), in Arabic, with the layout mirrored (the first tab on the right, the back arrow
    turned round), Arabic plural forms, and the venue's mission texts in Arabic; axe finds
    nothing serious; it completes a mission and its collage is asked for in Arabic (?lang=ar);
    its album at 390 px shows the download button on the first screen and the collages small;
  - a Japanese phone joins that group and reads Japanese, interface and missions; held
    sideways (844 x 390) it has "Use this photo" on the first screen, above the tabs;
  - a Swedish phone reads a Swedish interface AND Swedish mission texts;
  - a Japanese phone at the science centre (no Japanese) reads everything in English, the
    interface included: one language per phone; so does one that opens the venue's poster, and one
    that opens a join link of its group, sent by the server in English with the venue's English name.

Usage:  python3 Tests/Browser/languages_test.py .build/debug/groupie
"""

import re
import shutil
import sys
import urllib.request

from browser_support import REPO, Browser, accessibility_problems, check, log, make_photo, run_scenario, start_server

VENUE = "world-hall"
MISSION = "bones"

# Every text in the venue's four languages.
VENUE_FILE = """
id: world-hall
name:
  en: World Hall
  sv: Världshallen
  ar: قاعة العالم
  ja: ワールドホール
languages: [en, sv, ar, ja]
timezone: Europe/Stockholm
theme:
  color: "#0b6e8a"
missions:
  - id: bones
    title:
      en: Big bones
      sv: Stora ben
      ar: عظام كبيرة
      ja: 大きな骨
    icon: icons/magnifier.svg
    tasks:
      - id: skull
        prompt:
          en: Find the biggest skull in the hall.
          sv: Hitta den största skallen i hallen.
          ar: ابحث عن أكبر جمجمة في القاعة.
          ja: ホールでいちばん大きな頭の骨を見つけよう。
      - id: pose
        prompt:
          en: Copy the pose of a skeleton, all of you together.
          sv: Härma ett skeletts pose, allihop tillsammans.
          ar: قلّدوا وقفة هيكل عظمي، كلكم معًا.
          ja: みんなで骨格と同じポーズをしよう。
  - id: second
    title:
      en: After the bones
      sv: Efter benen
      ar: بعد العظام
      ja: 骨のあとで
    icon: icons/hat.svg
    after: [bones]
    tasks:
      - id: hat
        prompt:
          en: Find a hat.
          sv: Hitta en hatt.
          ar: ابحث عن قبعة.
          ja: ぼうしを見つけよう。
"""


def rect(br, css):
    return br.js("const e = document.querySelector(arguments[0]); if (!e) return null; const r = e.getBoundingClientRect();"
                 " return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, height: r.height};", css)


def join_phone(work, started, name, lang, join_url, button, player, title):
    """A phone of the language `lang` opens the join link, reads `button` on it, joins as
    `player` and reads the mission's `title` in the venue's text of its language."""
    br = Browser(name, work, lang=lang)
    started.append(br)
    br.d.get(join_url)
    br.wait(lambda d: button in br.el("#join-group").text, f"the join button in {lang}")
    br.type("#name", player)
    br.click("#join-group")
    br.wait(lambda d: br.js("const t = document.querySelector(arguments[0]); return !!t && t.lang === arguments[1] && t.textContent.trim() === arguments[2]",
                            f".mission-card[data-mission={MISSION}] .title", lang.split("-")[0], title), f"the {lang} phone's mission in its language")
    return br


def scenario(binary, work, started):
    missions = work / "missions"
    missions.mkdir()
    for f in (REPO / "missions").glob("*.yaml"):
        shutil.copy(f, missions / f.name)
    shutil.copy(REPO / "missions" / "venue.schema.json", missions / "venue.schema.json")
    (missions / f"{VENUE}.yaml").write_text(VENUE_FILE, encoding="utf-8")
    photos = [make_photo(work / f"photo-{i}.jpg", c) for i, c in enumerate([(200, 40, 40), (40, 160, 60), (40, 70, 200)])]
    server = start_server(binary, work, missions=missions)
    started.append(server)

    # ------------------------------------------------------------ an Arabic phone
    ar = Browser("ar", work, lang="ar")
    started.append(ar)
    ar.d.get(server.base + f"/?venue={VENUE}")
    ar.el("#name")
    ar.wait(lambda d: ar.js("return document.documentElement.dir") == "rtl", "dir=rtl on an Arabic phone")
    check(ar.js("return document.documentElement.lang") == "ar", "the Arabic page does not say lang=ar")
    check(ar.text("main h1") == "أهلًا بك في Groupie", f"the Arabic start screen reads {ar.text('main h1')!r}")
    ar.wait(lambda d: ar.js("return !!document.querySelector('.venue-mission-list[lang=ar]')"), "the venue's missions in Arabic")
    check("عظام كبيرة" in ar.text(".venue-mission-list"), "the poster's missions are not in Arabic")
    problems = accessibility_problems(ar)
    check(not problems, f"axe on the Arabic start screen: {problems}")
    ar.shot("start-rtl")
    # A name with a hidden direction sign is refused in the phone's language, in a child's words.
    ar.type("#name", "ليلى\u202e")
    ar.click("#create")
    ar.wait(lambda d: "رموز خاصة مخفية" in (ar.js("const e = document.querySelector('form .error:not([hidden])'); return e ? e.innerText : ''") or ""),
            "the refusal of a hidden sign in the name, in Arabic")
    check("must not" not in ar.js("return document.body.innerText"), "the server's English text on the Arabic screen")
    ar.shot("name-refused-rtl")
    ar.check_console("refusing the name", expected=[re.escape(server.base + "/api/v1/players")
                                                    + r" - Failed to load resource: the server responded with a status of 422 \(Unprocessable Entity\)"])
    ar.type("#name", "ليلى")
    ar.click("#create")
    ar.click("#create-group")  # the poster's venue: no choice to make
    join_url = ar.el("#join-link").get_attribute("value")
    ar.click("#to-missions")
    # Read afresh each time: the missions screen may be drawn again as the group's events arrive.
    title = f".mission-card[data-mission={MISSION}] .title"
    ar.wait(lambda d: ar.js("const t = document.querySelector(arguments[0]); return !!t && t.lang === 'ar' && t.textContent.trim() === arguments[1]",
                            title, "عظام كبيرة"), "the Arabic phone's mission in Arabic")
    check(ar.text("#tabs a[href='#/missions']") == "المهام", "the tabs are not in Arabic")
    # Mirrored: the first tab is on the right, and the text of a card starts on the right.
    missions_tab, album_tab = rect(ar, "#tabs li:first-child"), rect(ar, "#tabs li:nth-child(2)")
    check(missions_tab["left"] > album_tab["left"], f"the tabs are not mirrored: {missions_tab} {album_tab}")
    # Arabic counts in six forms.
    forms = ar.d.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "import('/assets/web/i18n.js').then((i) => done([1, 2, 5, 11, 100].map((n) => i.tn('mission.pending', n))));")
    check(forms == ["صورة واحدة قيد الرفع", "صورتان قيد الرفع", "5 صور قيد الرفع", "11 صورة قيد الرفع", "100 صورة قيد الرفع"],
          f"Arabic plural forms: {forms}")
    problems = accessibility_problems(ar)
    check(not problems, f"axe on the Arabic missions screen: {problems}")
    ar.shot("missions-rtl")
    ar.click(f".mission-card[data-mission={MISSION}]")
    ar.el(".tasks")
    check(ar.js("return getComputedStyle(document.querySelector('.back .i svg')).transform") != "none",
          "the back arrow is not turned round right to left")
    check("ابحث عن أكبر جمجمة" in ar.text(".tasks"), "the tasks are not in Arabic")
    ar.shot("mission-rtl")
    log("an Arabic phone reads right to left, in Arabic, missions included")

    # ------------------------------------------------------------ a Japanese phone joins, held sideways
    ja = join_phone(work, started, "ja", "ja", join_url, "グループに入る", "さくら", "大きな骨")
    check(ja.js("return document.documentElement.dir") == "ltr", "a Japanese page is not left to right")
    check(ja.text("#tabs a[href='#/album']") == "アルバム", "the tabs are not in Japanese")
    # A viewport of 844 x 390, the window's own bars added.
    ja.d.set_window_size(844, 390)
    ja.d.set_window_size(844, 390 + 390 - ja.js("return window.innerHeight"))
    ja.click(f".mission-card[data-mission={MISSION}]")
    ja.send_file("input[type=file][data-task=skull]", photos[0])
    ja.el("#accept-photo")
    ja.wait(lambda d: ja.img_loaded(".preview-img"), "the photo preview")
    button, tabs = rect(ja, "#accept-photo"), rect(ja, "#tabs")
    inner = ja.js("return window.innerHeight")
    check(inner == 390, f"the window is {inner} px high, not a phone held sideways")
    check(ja.js("return window.scrollY") == 0 and button["top"] >= 0 and button["bottom"] <= tabs["top"],
          f"held sideways, 'Use this photo' is not on the first screen: {button}, tabs at {tabs['top']}, window {inner}")
    check(ja.text("#accept-photo") == "この写真を使う", "the button is not in Japanese")
    ja.shot("photo-landscape")
    ja.click("#accept-photo")
    ja.wait(lambda d: ja.js("return !!document.querySelector('.task.done[data-task=skull] .chosen img')"), "the Japanese photo uploaded", 20)
    ja.d.set_window_size(390, 844)
    log("a Japanese phone reads Japanese; held sideways, 'Use this photo' is in sight")

    # The Arabic phone completes the mission: its collage is asked for in Arabic.
    ar.d.get(server.base + f"/#/m/{MISSION}")
    ar.send_file("input[type=file][data-task=pose]", photos[1])
    ar.click("#accept-photo")
    ar.wait(lambda d: f"/#/done/{MISSION}" in d.current_url, "the Arabic phone on the completion screen", 20)
    ar.wait(lambda d: ar.img_loaded(".collage img"), "the collage on the Arabic phone", 60)
    src = ar.js("return document.querySelector('.collage img').src")
    check("lang=ar" in src, f"the collage is not asked for in Arabic: {src}")
    ar.shot("collage-rtl")
    # The album at 390 px: the download in sight at once, the collages small.
    ar.click("#tabs a[href='#/album']")
    ar.el(".album .thumbs.collages img")
    ar.wait(lambda d: ar.img_loaded(".album .thumbs.collages img"), "the collage in the album")
    inner = ar.js("return window.innerHeight")
    download = rect(ar, "#download-album")
    check(ar.js("return document.getElementById('download-album').tagName") == "BUTTON", "the album's download is not a button")
    check(download["top"] >= 0 and download["bottom"] <= inner, f"the album's download is not on the first screen: {download}, window {inner}")
    thumb = rect(ar, ".album .thumbs.collages .thumb")
    check(thumb["height"] <= 320, f"a collage in the album is {thumb['height']} px high")
    problems = accessibility_problems(ar)
    check(not problems, f"axe on the Arabic album: {problems}")
    ar.shot("album-rtl")
    log("the album at 390 px shows the download at once and the collages small")

    # ------------------------------------------------------------ a Swedish phone
    sv = join_phone(work, started, "sv", "sv-SE", join_url, "Gå med", "Sixten", "Stora ben")
    check(sv.text("#tabs a[href='#/missions']") == "Uppdrag", "the Swedish phone's tabs are not Swedish")
    log("a Swedish phone reads Swedish, interface and missions")

    # ------------------------------------------------------------ Japanese where the venue has none
    jp = Browser("jp", work, lang="ja")
    started.append(jp)
    jp.d.get(server.base + "/")
    jp.wait(lambda d: jp.text("main h1") == "Groupie へようこそ", "the Japanese start screen")
    jp.type("#name", "ゆい")
    jp.click("#create")
    jp.click("input[name=venue][value=science-centre]")
    jp.click("#create-group")
    jp.click("#to-missions")
    jp.el(".mission-card .title")
    jp.wait(lambda d: jp.js("return document.documentElement.lang") == "en", "the interface in English with the venue's English")
    jp.wait(lambda d: jp.js("const t = document.querySelector('.mission-card .title'); return !!t && t.lang === 'en'"),
            "the science centre's missions in English on a Japanese phone")
    check(jp.text("#tabs a[href='#/missions']") == "Missions", "the interface is not in English where the venue has no Japanese")
    # The same from the venue's poster, before any group: the start screen turns English.
    poster = Browser("poster", work, lang="ja")
    started.append(poster)
    poster.d.get(server.base + "/?venue=science-centre")
    poster.wait(lambda d: poster.text("main h1") == "Welcome to Groupie", "the poster's start screen in English")
    # The start screen is drawn again in English first, and the venue's missions come with
    # the venue's answer after it: wait for them.
    poster.wait(lambda d: poster.js("const l = document.querySelector('.venue-mission-list'); return !!l && l.lang === 'en'"),
                "the poster's missions in English")
    # The join link of that group, opened on another Japanese phone: the page, as the server
    # sends it and as the client draws it, and the venue's name in it, all in English.
    code = server.api.get("/api/v1/me", jp.token())["group"]["joinCode"]
    sent = urllib.request.urlopen(urllib.request.Request(f"{server.base}/j/{code}", headers={"Accept-Language": "ja"})).read().decode()
    preview = re.search(r'<section class="preview"[^>]*>.*?</section>', sent, re.S).group(0)
    shown_name = re.search(r'<p class="venue"><bdi>(.*?)</bdi>', preview).group(1)
    check('lang="en"' in preview and shown_name == "House of Science",
          f"the join page is sent in English with the venue's English name: {preview}")
    link = Browser("link", work, lang="ja")
    started.append(link)
    link.d.get(f"{server.base}/j/{code}")
    link.wait(lambda d: link.js("return document.documentElement.lang") == "en" and link.js("const k = document.querySelector('main .kicker'); return k ? k.textContent : ''") == "House of Science",
              "the join link's screen in English with the venue's English name")
    check("Join" in link.text("#join-group"), f"the join button is in English: {link.text('#join-group')!r}")
    log("a Japanese phone at a venue without Japanese reads English throughout, its join link included")

    for br in started:
        if isinstance(br, Browser):
            br.check_console("at the end of the test")


def main():
    return run_scenario(__doc__, "groupie-languages-", scenario)


if __name__ == "__main__":
    sys.exit(main())
