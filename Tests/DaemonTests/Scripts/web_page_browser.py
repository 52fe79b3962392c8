#!/usr/bin/python3
"""The web page in headless Chromium, as a person on a phone and on a laptop uses it.

Usage: web_page_browser.py PAGE_URL MPD_PORT ARTIFACTS_DIR [cloud ACCOUNT | login PASSWORD | podcast FEED_URL | share ACCOUNT PASSWORD | bench]
With `cloud ACCOUNT` it signs in to that account from the Accounts page (the emulator approves
the device code), keeps its Album folder offline from the Library and follows the download on
the Offline page, and searches the library. With `login PASSWORD` it answers the page's
password prompt, wrongly first. With `share ACCOUNT PASSWORD` it signs in to an SFTP account:
the server's host key is shown, the password is refused until the key is confirmed as the same.
Prints one JSON object: the time from navigation to the first shown song, what the page
showed, whether Play (found by its accessible name) started playback, whether a song added by
another client appeared in the queue without a reload, horizontal overflow at 360x740 and
1280x800, and every message the browser logged at SEVERE level (JavaScript errors).
Screenshots of each page at both sizes are written to ARTIFACTS_DIR.
"""
import json
import os
import sys

from selenium.webdriver.common.by import By

from chromium import click as chromium_click, mpd_session, start, wait

page, mpd_port, artifacts = sys.argv[1], int(sys.argv[2]), sys.argv[3]
cloud = sys.argv[5] if len(sys.argv) > 5 and sys.argv[4] == "cloud" else None
password = sys.argv[5] if len(sys.argv) > 5 and sys.argv[4] == "login" else None
bench = len(sys.argv) > 4 and sys.argv[4] == "bench"
podcast = sys.argv[5] if len(sys.argv) > 5 and sys.argv[4] == "podcast" else None
share = sys.argv[5:7] if len(sys.argv) > 6 and sys.argv[4] == "share" else None
os.makedirs(artifacts, exist_ok=True)
mpd = mpd_session(mpd_port)
driver = start(artifacts, 360, 740)
result = {}


def element(how, what, seconds=20):
    """The first element found HOW/WHAT once it is there (a page drawn after a fetch takes a
    moment on a loaded machine); a clear error naming it when it never comes."""
    found = wait(lambda: driver.find_elements(how, what), seconds)
    if not found:
        raise RuntimeError("never appeared: %s %s on %s" % (how, what, driver.execute_script("return location.hash")))
    return found[0]


def text_of(selector):
    return driver.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map((element) => element.textContent).join('\\n')", selector)


def share_scenario():
    name, secret = share
    driver.get(page + "#accounts")
    wait(lambda: name in text_of("#account-list li"))
    click("//li[contains(., '%s')]//button[text()='Sign in']" % name, By.XPATH)
    result["fingerprint"] = wait(lambda: text_of(".signin-box .fingerprint"), 20)
    box = element(By.CSS_SELECTOR, ".signin-box input[type='password']")
    box.send_keys(secret)
    click(".signin-box button[type='submit']")
    # The form is not sent while "It is the same key" is unticked.
    result["heldBack"] = driver.execute_script("return !document.querySelector('.signin-box form').checkValidity()")
    driver.save_screenshot(os.path.join(artifacts, "share-signin-360.png"))
    click(".signin-box label input[type='checkbox']")
    click(".signin-box button[type='submit']")
    result["signedIn"] = bool(wait(lambda: "Signed in" in text_of("#signin"), 30))
    result["libraryShowsAccount"] = bool(wait(lambda: location_is("#library") and "Album" in text_of("#library-list li"), 30))
    result["overflow360"] = driver.execute_script("return document.documentElement.scrollWidth > window.innerWidth")
    result["severe"] = [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def cloud_scenario():
    driver.get(page + "#accounts")
    wait(lambda: cloud in text_of("#account-list li"))
    click("//li[contains(., '%s')]//button[text()='Sign in']" % cloud, By.XPATH)
    result["userCode"] = wait(lambda: text_of(".signin-box .code"))
    driver.save_screenshot(os.path.join(artifacts, "accounts-360.png"))
    result["signedIn"] = bool(wait(lambda: "Signed in" in text_of("#signin"), 30))
    result["libraryShowsAccount"] = bool(wait(lambda: location_is("#library") and "Album" in text_of("#library-list li"), 30))
    click("button[aria-label='Keep offline Album']")
    driver.get(page + "#offline")
    result["pinCompleted"] = bool(wait(lambda: "%s/Album — completed" % cloud in text_of("#pin-list li"), 60))
    click("button[aria-label='Songs %s/Album']" % cloud)
    result["pinSongs"] = wait(lambda: driver.execute_script(
        "return [...document.querySelectorAll('.pin-songs li')].filter((row) => row.textContent.includes('completed')"
        " && row.querySelector('progress').value === row.querySelector('progress').max).length || null"))
    result["cacheSpace"] = wait(lambda: text_of("#cache-space"))
    driver.save_screenshot(os.path.join(artifacts, "offline-360.png"))
    driver.get(page + "#library")
    element(By.ID, "search").send_keys("Song 2\n")
    result["searchFound"] = bool(wait(lambda: "Song 2" in text_of("#library-list li")))
    driver.save_screenshot(os.path.join(artifacts, "library-360.png"))
    result["overflow360"] = driver.execute_script("return document.documentElement.scrollWidth > window.innerWidth")
    result["severe"] = [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def login_scenario():
    driver.get(page)
    result["askedForPassword"] = bool(wait(lambda: driver.execute_script("return !document.getElementById('login').hidden")))
    box = element(By.ID, "login-password")
    box.send_keys("wrong\n")
    result["refusedShown"] = wait(lambda: driver.execute_script("return document.getElementById('problem').textContent"))
    box.clear()
    box.send_keys(password + "\n")
    result["loggedIn"] = bool(wait(lambda: driver.execute_script("return document.getElementById('login').hidden")))
    result["title"] = wait(lambda: driver.execute_script(
        "const t = document.getElementById('now-title').textContent; return t && t !== '…' ? t : null;"))
    result["severe"] = [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def location_is(hash_):
    """The page is HASH (or a view inside it: `#library/folders/dav` is the library)."""
    here = driver.execute_script("return location.hash")
    return here == hash_ or here.startswith(hash_ + "/")


def click(selector, how=By.CSS_SELECTOR):
    return chromium_click(driver, selector, how)


def go(name):
    """Opens a page as a person does: the top bar on a laptop, the bottom bar on a phone (More for the rest)."""
    for selector in ("#pages a[href='#%s']" % name, "#tabbar a[href='#%s']" % name):
        shown = [link for link in driver.find_elements(By.CSS_SELECTOR, selector) if link.is_displayed()]
        if shown:
            return shown[0].click()
    click("#tabbar a[href='#more']")
    shown = wait(lambda: [link for link in driver.find_elements(By.CSS_SELECTOR, "#more a[href='#%s']" % name) if link.is_displayed()])
    if not shown:
        raise RuntimeError("no link to %s under More" % name)
    shown[0].click()


def library_scenario():
    """The album grid with covers the daemon scaled, an album's page, artists and genres."""
    go("library")
    album = "#library-list .tile a[aria-label='First Light — Alpha Band']"
    element(By.CSS_SELECTOR, album)
    result["albumTiles"] = len(driver.find_elements(By.CSS_SELECTOR, "#library-list .tile"))
    result["gridCover"] = wait(lambda: driver.execute_script(
        "const image = document.querySelector(\"#library-list .tile a[aria-label='First Light — Alpha Band'] img\");"
        "if (!image.complete || !image.naturalWidth) return null;"
        "const entry = performance.getEntriesByName(image.currentSrc)[0];"
        "return [image.naturalWidth, image.naturalHeight, entry ? entry.encodedBodySize : -1];"))
    driver.save_screenshot(os.path.join(artifacts, "library-360.png"))
    result["overflowLibrary360"] = driver.execute_script("return document.documentElement.scrollWidth > window.innerWidth")
    # Where a long song was left, and one heard to its end, as the stickers say.
    mpd('sticker set song "Alpha Band/First Light/03 - Dusk.wav" elapsed 754',
        'sticker set song "Alpha Band/First Light/02 - Noon.mp3" played 1796194800')
    click(album)
    result["positions"] = wait(lambda: "▶ 12:34" in text_of("#library-list li") and "✓" in text_of("#library-list li"))
    element(By.CSS_SELECTOR, "button[aria-label='Add First Light']")
    result["albumSongs"] = wait(lambda: len(driver.find_elements(By.CSS_SELECTOR, "#library-list li")) > 1 and text_of("#library-list li"))
    driver.save_screenshot(os.path.join(artifacts, "album-360.png"))
    length = len([line for line in mpd("playlistinfo")[0] if line.startswith("file: ")])
    click("button[aria-label='Add First Light']")
    result["albumAdded"] = wait(lambda: len([line for line in mpd("playlistinfo")[0] if line.startswith("file: ")]) - length or None)
    click("#library-views button[data-view='artists']")
    result["artists"] = wait(lambda: "Alpha Band" in text_of("#library-list li") and text_of("#library-list li"))
    click("#library-views button[data-view='genres']")
    result["genres"] = wait(lambda: driver.find_elements(By.CSS_SELECTOR, "#library-list li a") and text_of("#library-list li"))
    click("#library-list li a")
    result["genreAlbums"] = bool(wait(lambda: driver.find_elements(By.CSS_SELECTOR, "#library-list .tile")))


def row_action(position, label):
    """Opens a queue row's ⋯ menu and chooses LABEL in it."""
    click("#queue-list li[aria-posinset='%d'] button[aria-label^='Actions for']" % position)
    click("//dialog[@open]//button[text()='%s']" % label, By.XPATH)


def queue_edits():
    """Edits made in the page reach the daemon: priority, move, remove."""
    wait(lambda: driver.find_elements(By.CSS_SELECTOR, "#queue-list li[aria-posinset='2']"))
    ids = [line.split(": ")[1] for line in mpd("playlistinfo")[0] if line.startswith("Id: ")]
    row_action(2, "Priority")
    result["prioritySet"] = bool(wait(lambda: any(line == "Prio: 255" for line in mpd("playlistid %s" % ids[1])[0])))
    row_action(2, "Move up")
    result["movedUp"] = bool(wait(lambda: [line.split(": ")[1] for line in mpd("playlistinfo")[0] if line.startswith("Id: ")][:2] == [ids[1], ids[0]]))
    row_action(len(ids), "Remove")
    result["removed"] = bool(wait(lambda: len([line for line in mpd("playlistinfo")[0] if line.startswith("Id: ")]) == len(ids) - 1))


GRID_READY = """
const images = [...document.querySelectorAll('#library-list .tile img')];
if (!images.length) return null;
const inView = images.filter((image) => { const box = image.getBoundingClientRect(); return box.top < innerHeight && box.bottom > 0; });
if (!inView.length || !inView.every((image) => image.complete && image.naturalWidth > 0)) return null;
// The browser's own clock (resource timing, the page's mark), not when this poll came by.
const arrived = inView.map((image) => (performance.getEntriesByName(image.currentSrc)[0] || {}).responseEnd || 0);
const grid = performance.getEntriesByName('nimbus:grid')[0];
return [Math.max(grid ? grid.startTime : 0, ...arrived), images.length, inView.length];
"""


def podcast_scenario():
    """Subscribe from the Podcasts page, open the show, see its episodes."""
    driver.get(page + "#podcasts")
    box = element(By.ID, "podcast-url")
    box.send_keys(podcast + "\n")
    result["subscribed"] = bool(wait(lambda: "Tea Time" in text_of("#podcast-list li") and "2 episodes" in text_of("#podcast-list li"), 20))
    driver.save_screenshot(os.path.join(artifacts, "podcasts-360.png"))
    result["overflow360"] = driver.execute_script("return document.documentElement.scrollWidth > window.innerWidth")
    from selenium.webdriver.support.ui import Select

    def keep_one():
        # The list is drawn anew when the show's episodes arrive: a stale select is looked up again.
        Select(element(By.CSS_SELECTOR, "#podcast-list select[aria-label='Keep offline Tea Time']")).select_by_value("1")
        return True
    wait(keep_one, 20)
    result["kept"] = bool(wait(lambda: "keep: 1" in mpd("listpodcasts")[0]))
    click("#podcast-list button[aria-label='Open Tea Time']")
    result["episodesShown"] = wait(lambda: location_is("#library") and "Green" in text_of("#library-list li") and "●" in text_of("#library-list li")
                                   and text_of("#library-list li"), 20)
    driver.set_window_size(1280, 800)
    driver.get(page + "#podcasts")
    wait(lambda: "Tea Time" in text_of("#podcast-list li"))
    driver.save_screenshot(os.path.join(artifacts, "podcasts-1280.png"))
    result["overflow1280"] = driver.execute_script("return document.documentElement.scrollWidth > window.innerWidth")
    result["severe"] = [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def bench_scenario():
    driver.get("about:blank")
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
    driver.get(page)
    # When the page set the title (its own mark), not when this poll came by.
    result["firstShownMs"] = wait(lambda: driver.execute_script(
        "const mark = performance.getEntriesByName('nimbus:song')[0]; return mark ? mark.startTime : null;"))
    driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": False})
    driver.set_window_size(1280, 800)
    for label in ("gridFirst", "gridAgain"):
        driver.get("about:blank")
        driver.get(page + "#library")
        result[label] = wait(lambda: driver.execute_script(GRID_READY), 60)
        result[label + "Marks"] = driver.execute_script(
            "const n = performance.getEntriesByType('navigation')[0];"
            "return [['responseEnd', Math.round(n.responseEnd)], ['domInteractive', Math.round(n.domInteractive)], ['domContentLoaded', Math.round(n.domContentLoadedEventStart)]].concat(performance.getEntriesByType('mark').map((m) => [m.name, Math.round(m.startTime)]))"
            ".concat(performance.getEntriesByType('resource').filter((r) => !r.name.includes('/cover')).map((r) => [r.name.split('/').pop(), Math.round(r.startTime), Math.round(r.responseEnd)]))")
    result["severe"] = [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def basic_scenario():
    # A first visit in a browser that is already running: the browser warmed up on a blank
    # page, nothing of the page in its cache.
    driver.get("about:blank")
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
    driver.get(page)
    shown = wait(lambda: driver.execute_script(
        "const t = document.getElementById('now-title').textContent;"
        "return t && t !== '…' ? performance.now() : null;"))
    result["firstShownMs"] = shown
    result["marks"] = driver.execute_script(
        "return performance.getEntriesByType('mark').map((m) => [m.name, Math.round(m.startTime)])"
        ".concat(performance.getEntriesByType('resource').map((r) => [r.name.split('/').pop(), Math.round(r.startTime), Math.round(r.responseEnd)]))")
    result["title"] = element(By.ID, "now-title").text
    result["labels"] = [element.get_attribute("aria-label") or element.text
                        for element in driver.find_elements(By.CSS_SELECTOR, "button, input, nav a")]
    driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": False})
    driver.save_screenshot(os.path.join(artifacts, "now-360.png"))
    result["overflow360"] = driver.execute_script("return document.documentElement.scrollWidth > window.innerWidth")

    click("//div[@id='outputs']/button[text()='null']", By.XPATH)
    result["outputSwitched"] = bool(wait(lambda: "outputenabled: 0" in mpd("outputs")[0]))
    click("//div[@id='outputs']/button[@aria-pressed='false']", By.XPATH)
    result["outputBack"] = bool(wait(lambda: "outputenabled: 1" in mpd("outputs")[0]))

    click("button[aria-label='Play']")
    result["played"] = bool(wait(lambda: "state: play" in mpd("status")[0]))
    result["pauseShown"] = bool(wait(lambda: driver.find_elements(By.CSS_SELECTOR, "button[aria-label='Pause']")))
    # The keyboard, as on a desktop: space pauses and plays again.
    body = element(By.TAG_NAME, "body")
    body.send_keys(" ")
    result["spacePaused"] = bool(wait(lambda: "state: pause" in mpd("status")[0]))
    body.send_keys(" ")
    result["spacePlayed"] = bool(wait(lambda: "state: play" in mpd("status")[0]))
    # The sleep timer from Now playing: 30 minutes, counted down on the page, then off.
    from selenium.webdriver.support.ui import Select
    Select(element(By.ID, "sleep")).select_by_value("1800")
    result["sleepSet"] = bool(wait(lambda: any(line in ("sleeptimer: 1800", "sleeptimer: 1799") for line in mpd("status")[0])))
    result["sleepShown"] = wait(lambda: text_of("#sleep-left").startswith("pauses in 29:") and text_of("#sleep-left"))
    Select(element(By.ID, "sleep")).select_by_value("0")
    result["sleepOff"] = bool(wait(lambda: not any(line.startswith("sleeptimer") for line in mpd("status")[0])))
    result["titleAfterPlay"] = wait(lambda: driver.execute_script(
        "const t = document.getElementById('now-title').textContent; return t === 'Dusk' ? t : null;"))
    result["coverWidth"] = wait(lambda: driver.execute_script(
        "const c = document.getElementById('cover'); return !c.hidden && c.complete ? c.naturalWidth : null;"))

    # Next and the seek bar, from the page, on a queue of two 30-second songs.
    mpd("clear", 'add "Long/long.wav"', 'add "Long/long.wav"', "play 0")
    wait(lambda: "state: play" in mpd("status")[0])
    click("button[aria-label='Next']")
    result["nextPlayed"] = bool(wait(lambda: "song: 1" in mpd("status")[0]))
    driver.execute_script("const bar = document.getElementById('position'); bar.value = 20; bar.dispatchEvent(new Event('change'));")
    result["seeked"] = bool(wait(lambda: any(line.startswith("elapsed: ") and float(line.split(": ")[1]) >= 20 for line in mpd("status")[0])))
    result["elapsedShown"] = wait(lambda: driver.execute_script(
        "const t = document.getElementById('elapsed').textContent; return t >= '0:20' && t.length === 4 ? t : null;"))

    library_scenario()

    go("queue")
    before = len(driver.find_elements(By.CSS_SELECTOR, "#queue-list li"))
    mpd('add "Alpha Band/First Light/02 - Noon.mp3"')
    result["queueFollowed"] = bool(wait(lambda: driver.execute_script(
        "return [...document.querySelectorAll('#queue-list li')].some((item) => item.textContent.includes('Noon'))")))
    result["queueBefore"] = before
    driver.save_screenshot(os.path.join(artifacts, "queue-360.png"))

    queue_edits()

    go("playlists")
    name = element(By.ID, "save-name")
    name.send_keys("From the page\n")
    result["playlistSaved"] = bool(wait(lambda: any("playlist: From the page" in line for line in mpd("listplaylists")[0])))
    result["playlistShown"] = bool(wait(lambda: "From the page" in text_of("#playlist-list li")))
    driver.save_screenshot(os.path.join(artifacts, "playlists-360.png"))

    go("settings")
    result["statsSongs"] = wait(lambda: driver.execute_script(
        "const d = [...document.querySelectorAll('#stats div')].find((row) => row.textContent.startsWith('Songs'));"
        "return d ? d.querySelector('dd').textContent : null;"))
    # The loudness analysis: its line shows the pass's progress (the daemon measures).
    result["analysisShown"] = wait(lambda: (lambda text: text if "songs measured" in text else None)(
        driver.execute_script("const e = document.getElementById('analysis-state'); "
                              "return e && !document.getElementById('analysis-line').hidden ? e.textContent : '';")))
    box = element(By.ID, "crossfade")
    box.clear()
    box.send_keys("3\t")
    result["crossfadeSet"] = bool(wait(lambda: "xfade: 3" in mpd("status")[0]))
    # Phones: a user made here signs in to /rest/; a key is shown once.
    wait(lambda: element(By.ID, "phones").is_displayed())
    element(By.ID, "phone-name").send_keys("page user")
    element(By.ID, "phone-password").send_keys('pa"ss')
    click("#phone-add button")
    result["phoneUserAdded"] = bool(wait(lambda: "user: page user" in mpd("subsonicusers")[0]))
    result["phoneUserShown"] = bool(wait(lambda: "page user" in text_of("#phone-list")))
    click("#phone-list li button")
    result["phoneKeyShown"] = bool(wait(lambda: len(text_of("#phone-key")) > 40))
    driver.save_screenshot(os.path.join(artifacts, "settings-360.png"))

    # A queue of 10,000 songs: only the rows in view are drawn, and the last one is reached.
    go("queue")
    result["queueBeforeLong"] = len([line for line in mpd("playlistinfo")[0] if line.startswith("Id: ")])
    mpd("\n".join(["command_list_begin"] + ['add "Alpha Band/First Light/03 - Dusk.wav"'] * 10_000 + ["command_list_end"]))
    total = wait(lambda: driver.execute_script(
        "const row = document.querySelector('#queue-list li'); return row && Number(row.getAttribute('aria-setsize')) >= 10000 ? Number(row.getAttribute('aria-setsize')) : null"), 30)
    result["longQueue"] = total
    result["rowsDrawn"] = driver.execute_script("return document.querySelectorAll('#queue-list li').length")
    driver.execute_script("window.scrollTo(0, document.body.scrollHeight)")
    result["lastReached"] = bool(wait(lambda: driver.execute_script(
        "return !!document.querySelector(`#queue-list li[aria-posinset='${arguments[0]}']`)", total)))

    driver.set_window_size(1280, 800)
    driver.save_screenshot(os.path.join(artifacts, "queue-1280.png"))
    overflow = []
    for name in ("now", "library", "accounts", "playlists", "offline", "settings"):
        go(name)
        wait(lambda: location_is("#" + name))
        driver.save_screenshot(os.path.join(artifacts, "%s-1280.png" % name))
        if driver.execute_script("return document.documentElement.scrollWidth > window.innerWidth"):
            overflow.append(name)
    result["overflow1280"] = overflow
    result["severe"] = [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


try:
    driver.set_window_size(360, 740)
    if cloud:
        cloud_scenario()
    elif share:
        share_scenario()
    elif password:
        login_scenario()
    elif bench:
        bench_scenario()
    elif podcast:
        podcast_scenario()
    else:
        basic_scenario()
except Exception:
    # What went wrong, where, and the page as it was: the test reports it beside the steps done.
    import traceback
    result["error"] = traceback.format_exc()
    try:
        driver.save_screenshot(os.path.join(artifacts, "failure.png"))
        result["severe"] = [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    except Exception:
        pass
finally:
    driver.quit()
print(json.dumps(result))
