#!/usr/bin/python3
"""The page as a person on a phone uses it, in headless Chromium.

Usage: web_phone_ux.py PAGE_URL MPD_PORT ARTIFACTS NIMBUSD CONFIG FEED_SERVER_URL

The daemon plays a 120 s song with a second one queued, and is subscribed to "Tea Time" (three
episodes, a picture). Every check is recorded by name in "checks" (true or false) with what was
seen in "details"; "severe" holds every JavaScript error the browser logged. At the end the
daemon is stopped (the MPD `kill` command) and started again from NIMBUSD CONFIG, to see the
page reconnect by itself; the daemon started here is stopped before the script exits.
"""
import json
import os
import signal
import struct
import subprocess
import sys
import time
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from chromium import click as chromium_click, mpd_session, start, wait

page, mpd_port, artifacts, nimbusd, config, feeds = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]
os.makedirs(artifacts, exist_ok=True)
mpd = mpd_session(mpd_port)
driver = start(artifacts, 360, 740, profile="profile-ux")
checks, details = {}, {}
sideways = {}
restarted = None


def check(name, value, detail=None):
    checks[name] = bool(value)
    if detail is not None or not value:
        details[name] = detail if detail is not None else value


def click(selector, how=By.CSS_SELECTOR):
    return chromium_click(driver, selector, how)


def js(script, *args):
    return driver.execute_script(script, *args)


def text_of(selector):
    return js("return [...document.querySelectorAll(arguments[0])].map((e) => e.textContent).join('\\n')", selector)


def queue():
    return [line[6:] for line in mpd("playlistinfo")[0] if line.startswith("file: ")]


def status():
    return dict(line.split(": ", 1) for line in mpd("status")[0] if ": " in line)


def shot(name):
    driver.save_screenshot(os.path.join(artifacts, name + ".png"))


def goto(hash_):
    js("location.hash = arguments[0]", hash_)
    wait(lambda: js("return location.hash") == hash_)


def ready():
    return wait(lambda: js("return document.body.dataset.ready === 'true'"), 30)


def changed_queue(action, before=None):
    """Runs ACTION, then waits for the queue to change; the queue after."""
    before = queue() if before is None else before
    action()
    wait(lambda: queue() != before, 10)
    return queue()


ALBUM = ["Alpha Band/First Light/01 - Dawn.flac", "Alpha Band/First Light/02 - Noon.mp3", "Alpha Band/First Light/03 - Dusk.wav"]


def reset(playing=True):
    """A queue of the long song (playing, first) and Dusk after it."""
    mpd("clear", 'add "Long/long.wav"', 'add "Alpha Band/First Light/03 - Dusk.wav"', "play 0" if playing else "stop")
    wait(lambda: queue() == ["Long/long.wav", ALBUM[2]] and (not playing or status().get("state") == "play"))


def actions():
    """Every action button of every list, and the queue afterwards."""
    album = "#library/album/" + "Alpha%20Band" + "/" + "First%20Light"
    album_files = [line[6:] for line in mpd('find "(Album == \\"First Light\\")"')[0] if line.startswith("file: ")]
    # A folder is added in the database's order of its songs, as `lsinfo` lists them.
    folder_files = [line[6:] for line in mpd('lsinfo "Alpha Band/First Light"')[0] if line.startswith("file: ")]
    details["album files"] = album_files
    # The album page: Play, Add, Play next.
    reset()
    goto(album)
    wait(lambda: driver.find_elements(By.CSS_SELECTOR, "li.album-head button[aria-label='Play next First Light']"))
    after = changed_queue(lambda: click("button[aria-label='Play next First Light']"))
    check("album play next", after == ["Long/long.wav"] + album_files + [ALBUM[2]], after)
    reset()
    after = changed_queue(lambda: click("button[aria-label='Add First Light']"))
    check("album add", after == ["Long/long.wav", ALBUM[2]] + album_files, after)
    reset()
    after = changed_queue(lambda: click("button[aria-label='Play First Light']"))
    playing = wait(lambda: status().get("song") == "2" and status().get("state") == "play")
    check("album play", after == ["Long/long.wav", ALBUM[2]] + album_files and playing, [after, status().get("song")])
    # A song row of the album: tap (play now), Play next, Add.
    reset()
    after = changed_queue(lambda: click("#library-list li.song button[aria-label='Play now Noon']"))
    check("song play now", after[-1] == ALBUM[1] and wait(lambda: status().get("song") == str(len(after) - 1)), after)
    reset()
    after = changed_queue(lambda: click("#library-list li.song button[aria-label='Play next Noon']"))
    check("song play next", after == ["Long/long.wav", ALBUM[1], ALBUM[2]], after)
    reset()
    after = changed_queue(lambda: click("#library-list li.song button[aria-label='Add Noon']"))
    check("song add", after == ["Long/long.wav", ALBUM[2], ALBUM[1]], after)
    # A folder row: ▶, Play next, Add.
    reset()
    goto("#library/folders/Alpha%20Band")
    wait(lambda: driver.find_elements(By.CSS_SELECTOR, "li.folder button[aria-label='Play next First Light']"))
    after = changed_queue(lambda: click("li.folder button[aria-label='Play next First Light']"))
    check("folder play next", after == ["Long/long.wav"] + folder_files + [ALBUM[2]], after)
    reset()
    after = changed_queue(lambda: click("li.folder button[aria-label='Add First Light']"))
    check("folder add", after == ["Long/long.wav", ALBUM[2]] + folder_files, after)
    reset()
    after = changed_queue(lambda: click("li.folder button[aria-label='Play First Light']"))
    check("folder play", after[2:] == folder_files and wait(lambda: status().get("song") == "2"), after)
    # Search results: Play next and Add on a song.
    reset()
    goto("#library")
    box = wait(lambda: driver.find_elements(By.ID, "search"))[0]
    box.clear()
    box.send_keys("Noon")
    wait(lambda: driver.find_elements(By.CSS_SELECTOR, "#library-list button[aria-label='Play next Noon']"))
    after = changed_queue(lambda: click("#library-list button[aria-label='Play next Noon']"))
    check("search song play next", after == ["Long/long.wav", ALBUM[1], ALBUM[2]], after)
    reset()
    after = changed_queue(lambda: click("#library-list button[aria-label='Add Noon']"))
    check("search song add", after == ["Long/long.wav", ALBUM[2], ALBUM[1]], after)
    # A podcast's episodes: Play next and Add.
    reset()
    goto("#library/folders/podcasts/Tea%20Time")
    wait(lambda: driver.find_elements(By.CSS_SELECTOR, "#library-list button[aria-label^='Play next Episode 2']"))
    after = changed_queue(lambda: click("#library-list button[aria-label^='Play next Episode 2']"))
    check("episode play next", len(after) == 3 and "Episode 2" in after[1] and after[0] == "Long/long.wav", after)
    reset()
    after = changed_queue(lambda: click("#library-list button[aria-label^='Add Episode 2']"))
    check("episode add", len(after) == 3 and "Episode 2" in after[2], after)
    # The queue's ⋯ menu: priority, move up, move to the top, remove (and undo it).
    mpd("clear", 'add "Long/long.wav"', 'add "%s"' % ALBUM[0], 'add "%s"' % ALBUM[1], 'add "%s"' % ALBUM[2], "play 0")
    goto("#queue")
    wait(lambda: js("return document.querySelectorAll('#queue-list li').length") == 4)

    def row_action(position, label):
        click("#queue-list li[aria-posinset='%d'] button[aria-label^='Actions for']" % position)
        click("//dialog[@open]//button[text()='%s']" % label, By.XPATH)

    ids = [line[4:] for line in mpd("playlistinfo")[0] if line.startswith("Id: ")]
    row_action(3, "Priority")
    check("queue priority", wait(lambda: "Prio: 255" in mpd("playlistid %s" % ids[2])[0]))
    row_action(3, "Move up")
    check("queue move up", wait(lambda: queue() == ["Long/long.wav", ALBUM[1], ALBUM[0], ALBUM[2]]), queue())
    row_action(4, "Move to the top")
    check("queue move to top", wait(lambda: queue() == [ALBUM[2], "Long/long.wav", ALBUM[1], ALBUM[0]]), queue())
    row_action(3, "Remove")
    check("queue remove", wait(lambda: queue() == [ALBUM[2], "Long/long.wav", ALBUM[0]]), queue())
    click("#snackbar button")
    check("queue remove undone", wait(lambda: queue() == [ALBUM[2], "Long/long.wav", ALBUM[1], ALBUM[0]]), queue())


def confirmations():
    """Clearing the queue can be undone; deleting a playlist is asked first."""
    before = queue()
    state = status()
    goto("#queue")
    click("#clear")
    check("queue cleared", wait(lambda: queue() == []), queue())
    shot("phone-360-undo")
    click("#snackbar button")
    check("queue clear undone", wait(lambda: queue() == before and status().get("song") == state.get("song")), [queue(), status().get("song")])
    mpd('save "Road trip"')
    goto("#playlists")
    wait(lambda: "Road trip" in text_of("#playlist-list li"))
    click("button[aria-label='Remove Road trip']")
    check("playlist delete asks", wait(lambda: driver.find_elements(By.CSS_SELECTOR, "dialog[open]")))
    shot("phone-360-confirm")
    click("//dialog[@open]//button[text()='Cancel']", By.XPATH)
    time.sleep(0.3)
    check("playlist delete cancelled", any("playlist: Road trip" == line for line in mpd("listplaylists")[0]))
    click("button[aria-label='Remove Road trip']")
    click("//dialog[@open]//button[text()='Remove']", By.XPATH)
    check("playlist deleted", wait(lambda: not any("Road trip" in line for line in mpd("listplaylists")[0])))


def navigation():
    """Back inside the Library; search as you type."""
    goto("#library")
    wait(lambda: driver.find_elements(By.CSS_SELECTOR, "#library-list .tile a"))
    click("#library-list .tile a[aria-label='First Light — Alpha Band']")
    wait(lambda: js("return location.hash").startswith("#library/album/"))
    driver.back()
    check("back returns from an album", wait(lambda: js("return location.hash") == "#library" and driver.find_elements(By.CSS_SELECTOR, "#library-list .tile")),
          js("return location.hash"))
    click("#library-views button[data-view='artists']")
    click("//ul[@id='library-list']//a[text()='Alpha Band']", By.XPATH)
    wait(lambda: js("return location.hash").startswith("#library/artist/"))
    click("#library-list .tile a")
    wait(lambda: js("return location.hash").startswith("#library/album/"))
    driver.back()
    came = wait(lambda: js("return location.hash").startswith("#library/artist/"))
    driver.back()
    check("back returns from an artist", came and wait(lambda: js("return location.hash") == "#library/artists"), js("return location.hash"))
    box = driver.find_element(By.ID, "search")
    box.clear()
    box.send_keys("a")
    shown = wait(lambda: js("return location.hash").startswith("#library/search/") and text_of("#library-list"))
    check("search as you type", shown, js("return location.hash"))
    headings = text_of("#library-list li.heading")
    check("search finds artists", "Artists" in headings and "Alpha Band" in text_of("#library-list"), headings)
    check("search finds albums", "Albums" in headings, headings)
    check("search finds songs", "Songs" in headings, headings)
    shot("phone-360-search")


def small_controls(width):
    """Visible controls smaller than 44 CSS pixels on the pages a phone shows (and the pages
    that scroll sideways, in `sideways`)."""
    small = []
    sideways.setdefault(width, [])
    for hash_ in ("#now", "#queue", "#library", "#more", "#accounts", "#playlists", "#podcasts", "#offline", "#equalizer", "#settings"):
        goto(hash_)
        if hash_ == "#accounts" and not driver.find_elements(By.CSS_SELECTOR, ".account-form"):
            click("#add-account")
            wait(lambda: driver.find_elements(By.ID, "account-type"))
        time.sleep(0.2)
        if js("return document.documentElement.scrollWidth > innerWidth"):
            sideways[width].append(hash_)
        small += js("""
            const found = [];
            for (const e of document.querySelectorAll('button, select, input, a.row-main, #tabbar a, .tile a')) {
              const box = e.getBoundingClientRect();
              if (!box.width || !box.height || e.closest('[hidden]')) continue;
              const label = e.closest('label');
              const target = label && label.contains(e) && e.type === 'checkbox' ? label.getBoundingClientRect() : box;
              if (target.height < 43.5 || (e.tagName === 'BUTTON' && target.width < 43.5)) found.push(location.hash + ' ' + (e.getAttribute('aria-label') || e.textContent || e.id).slice(0, 40) + ' ' + Math.round(target.width) + 'x' + Math.round(target.height));
            }
            return found;""")
    return small


def phone_layout(width, height):
    driver.set_window_size(width, height)
    goto("#now")
    time.sleep(0.3)
    shot("phone-%d-now" % width)
    mpd("clear", 'add "Long/long.wav"', 'add "%s"' % ALBUM[2], 'add "%s"' % ALBUM[1], "play 0")
    goto("#queue")
    wait(lambda: js("return document.querySelectorAll('#queue-list li').length") == 3)
    rows = js("""
        return [...document.querySelectorAll('#queue-list li')].map((row) => {
          const title = row.querySelector('.line-title').getBoundingClientRect(), detail = row.querySelector('.line-detail').getBoundingClientRect();
          return { twoLines: detail.top >= title.bottom - 1, actions: row.querySelectorAll('button.row-action').length,
                   time: row.querySelector('.row-time').textContent, overflow: row.scrollWidth > row.clientWidth + 1 };
        });""")
    check("queue rows on two lines %d" % width, all(r["twoLines"] and not r["overflow"] for r in rows), rows)
    check("one action per queue row", all(r["actions"] == 1 for r in rows), rows)
    summary = text_of("#queue-summary")
    check("queue total time", summary.startswith("3 songs · ") and rows[0]["time"] == "2:00", [summary, rows[0]["time"]])
    shot("phone-%d-queue" % width)
    small = small_controls(width)
    check("controls 44 px %d" % width, not small, small)
    check("nothing scrolls sideways %d" % width, not sideways[width], sideways[width])
    goto("#library")
    wait(lambda: driver.find_elements(By.CSS_SELECTOR, "#library-list .tile"))
    shot("phone-%d-library" % width)


def phone_pages():
    """Titles, the mini player's Next, podcast artwork, newest episodes first, account forms."""
    titles = {}
    for name in ("queue", "library", "more", "accounts", "playlists", "podcasts", "offline", "equalizer", "settings"):
        goto("#" + name)
        titles[name] = js("const t = document.querySelector('#%s .page-title'); return t && t.getBoundingClientRect().height > 0 ? t.textContent : null" % name)
    check("pages titled", all(titles.values()), titles)
    mpd("clear", 'add "Long/long.wav"', 'add "%s"' % ALBUM[2], "play 0")
    goto("#queue")
    wait(lambda: status().get("song") == "0")
    click("#mini-next")
    check("mini next", wait(lambda: status().get("song") == "1"), status().get("song"))
    goto("#podcasts")
    art = wait(lambda: js("const i = document.querySelector('#podcast-list img.row-cover'); return i && i.complete && i.naturalWidth > 1 && !i.hidden ? i.naturalWidth : null"), 20)
    check("podcast artwork", art, art)
    goto("#library/folders/podcasts/Tea%20Time")
    order = wait(lambda: (lambda titles: titles if len(titles) == 3 else None)(js(
        "return [...document.querySelectorAll('#library-list li.song .line-title')].map((t) => t.textContent.replace(/[▶✓●].*/, '').trim())")))
    check("episodes newest first", order == ["Episode 3", "Episode 2", "Episode 1"], order)
    shot("phone-360-podcast")
    goto("#accounts")
    if not driver.find_elements(By.CSS_SELECTOR, ".account-form"):
        click("#add-account")
    wait(lambda: driver.find_elements(By.ID, "account-type"))
    Select(driver.find_element(By.ID, "account-type")).select_by_value("webdav")
    labels = text_of("#account-fields label")
    check("account labels in words", "Address" in labels and "User name" in labels and "url" not in labels.split() and "root" not in labels.split(), labels)
    check("account help line", "WebDAV folder" in text_of(".account-help"), text_of(".account-help"))
    shot("phone-360-account")
    form = driver.find_element(By.CSS_SELECTOR, ".account-form")
    form.find_element(By.NAME, "name").send_keys("davtest")
    form.find_element(By.NAME, "url").send_keys(feeds + "/")
    form.find_element(By.NAME, "user").send_keys("anna")
    click(".account-form button[type='submit']")
    box = wait(lambda: driver.find_elements(By.CSS_SELECTOR, ".signin-box input[type='password']"), 20)
    if box:
        box[0].send_keys("secret")
        click(".signin-box button[type='submit']")
    said = wait(lambda: text_of("#signin [role='alert'], .form-problem"), 20)
    check("account error as a sentence", said and "does not answer as a WebDAV server" in said and "PROPFIND" not in said, said)


def laptop():
    driver.set_window_size(1366, 768)
    goto("#now")
    time.sleep(0.5)
    layout = js("""
        const cover = document.getElementById('cover').getBoundingClientRect(), title = document.getElementById('now-title').getBoundingClientRect();
        const main = document.querySelector('main').getBoundingClientRect();
        return { side: cover.right <= title.left, width: main.width / innerWidth };""")
    check("laptop uses the width", layout["side"] and layout["width"] > 0.7, layout)
    shot("laptop-1366-now")
    goto("#library")
    time.sleep(0.3)
    shot("laptop-1366-library")
    goto("#queue")
    time.sleep(0.3)
    shot("laptop-1366-queue")


def manifest_and_session():
    with urllib.request.urlopen(page + "manifest.webmanifest") as answer:
        manifest = json.loads(answer.read())
        kind = answer.headers.get("content-type")
    check("manifest", manifest.get("display") == "standalone" and "manifest" in kind and js(
        "return !!document.querySelector('link[rel=manifest]')"), [kind, manifest])
    for size in (192, 512):
        with urllib.request.urlopen(page + "icon-%d.png" % size) as answer:
            data = answer.read()
        width, height = struct.unpack(">II", data[16:24]) if data[:8] == b"\x89PNG\r\n\x1a\n" else (0, 0)
        check("icon %d" % size, (width, height) == (size, size), (width, height, len(data)))
    driver.set_window_size(360, 740)
    mpd("clear", 'add "Alpha Band/First Light/03 - Dusk.wav"', 'add "Long/long.wav"', "play 1")
    goto("#now")
    click("//div[@id='listen']/button[contains(., 'Listen here')]", By.XPATH)
    title = wait(lambda: js("return navigator.mediaSession.metadata && navigator.mediaSession.metadata.title"), 10)
    check("media session", title == "long.wav" or title == "Long", title)
    click("//div[@id='listen']/button[contains(., 'Listen here')]", By.XPATH)


def reconnect():
    """The daemon stops and starts again: the page says so, explains a tap, and recovers."""
    global restarted
    driver.set_window_size(360, 740)
    mpd("clear", 'add "Long/long.wav"', 'add "%s"' % ALBUM[2], "play 0")
    goto("#library/album/Alpha%20Band/First%20Light")
    wait(lambda: "Dawn" in text_of("#library-list"))
    js("window.__sameDocument = 'yes'")
    before_queue = queue()
    # `kill` is answered by the daemon going away: sent without waiting for an answer.
    import socket
    with socket.create_connection(("127.0.0.1", mpd_port), timeout=10) as connection:
        connection.makefile("rb").readline()
        connection.sendall(b"kill\n")
        connection.recv(100)
    shown = wait(lambda: "reconnecting" in text_of("#connection").lower() or "trying again" in text_of("#connection"), 10)
    check("reconnecting shown", shown, text_of("#connection"))
    shot("phone-360-reconnecting")
    first = js("return document.getElementById('elapsed').textContent")
    time.sleep(1.2)
    check("seek bar stops", js("return document.getElementById('elapsed').textContent") == first, first)
    click("#mini-toggle")
    said = wait(lambda: text_of("#problem"), 5)
    check("tap while away explains", said and "not connected" in said, said)
    restarted = subprocess.Popen([nimbusd, "--no-daemon", config], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    back = wait(lambda: text_of("#connection") == "" and js("return document.body.dataset.ready === 'true'"), 40)
    check("reconnected without a reload", back and js("return window.__sameDocument") == "yes", text_of("#connection"))
    check("queue restored", wait(lambda: js("return document.querySelectorAll('#queue-list li').length || [...document.querySelectorAll('#queue-summary')].length") and
                                  text_of("#queue-summary").startswith("%d songs" % len(before_queue))), text_of("#queue-summary"))
    check("status restored", wait(lambda: js("return document.getElementById('now-title').textContent") in ("long.wav", "Long")),
          js("return document.getElementById('now-title').textContent"))
    check("outputs restored", wait(lambda: "stream" in text_of("#outputs")), text_of("#outputs"))
    check("page restored", js("return location.hash") == "#library/album/Alpha%20Band/First%20Light" and "Dawn" in text_of("#library-list"),
          js("return location.hash"))


result = {}
try:
    driver.get(page)
    ready()
    for step in (actions, confirmations, navigation, lambda: phone_layout(320, 640), lambda: phone_layout(360, 740), phone_pages,
                 laptop, manifest_and_session, reconnect):
        print("step", getattr(step, "__name__", "layout"), flush=True, file=sys.stderr)
        step()
except Exception:
    import traceback
    result["error"] = traceback.format_exc()
    try:
        shot("ux-failure")
    except Exception:
        pass
finally:
    try:
        result["severe"] = [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"
                            and "WebSocket connection" not in entry["message"] and "ERR_CONNECTION_REFUSED" not in entry["message"]]
    except Exception:
        result["severe"] = ["the browser's log could not be read"]
    driver.quit()
    if restarted is not None:
        restarted.send_signal(signal.SIGTERM)
        try:
            restarted.wait(10)
        except subprocess.TimeoutExpired:
            restarted.kill()
result["checks"], result["details"] = checks, details
print(json.dumps(result, default=str))
