#!/usr/bin/python3
"""The web page on a phone, in headless Chromium: the bottom bar and the mini player.

Usage: web_phone_layout.py PAGE_URL ARTIFACTS_DIR
At 320x640 and 360x740: the top bar is hidden and the bottom bar shows Now playing, Queue,
Library and More, each on one line; every page is reached from it (the others through More,
which is then marked), none scrolls sideways; the mini player is hidden on Now playing and
shown on every other page with the playing song's title, its play/pause button works and a
tap on it opens Now playing. At 1280x800 the top bar is back and the bottom bar gone.
Prints one JSON object; every SEVERE browser message (a JavaScript error) is in "severe".
"""
import json
import os
import sys

from selenium.webdriver.common.by import By

from chromium import start, wait

page, artifacts = sys.argv[1], sys.argv[2]
os.makedirs(artifacts, exist_ok=True)
PAGES = ["now", "queue", "library", "more", "accounts", "playlists", "podcasts", "offline", "equalizer", "settings"]


driver = start(artifacts, 320, 640, profile="phone-profile")
result = {"sizes": {}}
try:
    driver.get(page)
    wait(lambda: driver.execute_script("return document.getElementById('now-title').textContent !== '…'"))
    for width, height in ((320, 640), (360, 740)):
        driver.set_window_size(width, height)
        size = {}
        size["innerWidth"] = driver.execute_script("return window.innerWidth")
        size["topBarShown"] = driver.find_element(By.ID, "pages").is_displayed()
        tabs = [link for link in driver.find_elements(By.CSS_SELECTOR, "#tabbar a") if link.is_displayed()]
        size["tabs"] = [link.text for link in tabs]
        # One line each: no tab is taller than one line of its text and the bar is one row.
        size["tabsWrapped"] = driver.execute_script(
            "return [...document.querySelectorAll('#tabbar a')].some((a) => a.scrollWidth > a.clientWidth + 1"
            " || a.getBoundingClientRect().top !== document.querySelector('#tabbar a').getBoundingClientRect().top)")
        size["overflowing"], size["marked"], size["mini"] = [], {}, {}
        for name in PAGES:
            if name in ("now", "queue", "library", "more"):
                driver.find_element(By.CSS_SELECTOR, "#tabbar a[href='#%s']" % name).click()
            else:
                driver.find_element(By.CSS_SELECTOR, "#tabbar a[href='#more']").click()
                wait(lambda: driver.find_element(By.CSS_SELECTOR, "#more a[href='#%s']" % name).is_displayed())
                driver.find_element(By.CSS_SELECTOR, "#more a[href='#%s']" % name).click()
            wait(lambda: driver.execute_script("return location.hash") == "#" + name)
            driver.save_screenshot(os.path.join(artifacts, "phone-%s-%d.png" % (name, width)))
            if driver.execute_script("return document.documentElement.scrollWidth > window.innerWidth"):
                size["overflowing"].append(name)
            size["marked"][name] = driver.execute_script(
                "const a = document.querySelector('#tabbar a[aria-current=page]'); return a ? a.hash : null")
            size["mini"][name] = driver.find_element(By.ID, "mini").is_displayed()
        size["miniTitle"] = driver.find_element(By.ID, "mini-title").text
        size["nowTitle"] = driver.execute_script("return document.getElementById('now-title').textContent")
        toggle = driver.find_element(By.ID, "mini-toggle")
        before = toggle.get_attribute("aria-label")
        toggle.click()
        size["miniToggled"] = bool(wait(lambda: toggle.get_attribute("aria-label") != before))
        toggle.click()
        size["miniToggledBack"] = bool(wait(lambda: toggle.get_attribute("aria-label") == before))
        driver.find_element(By.ID, "mini-open").click()
        size["miniOpensNow"] = bool(wait(lambda: driver.execute_script("return location.hash") == "#now"))
        result["sizes"][str(width)] = size
    driver.set_window_size(1280, 800)
    result["laptopTopBar"] = driver.find_element(By.ID, "pages").is_displayed()
    result["laptopTabBar"] = driver.find_element(By.ID, "tabbar").is_displayed()
    result["severe"] = [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
finally:
    driver.quit()
print(json.dumps(result))
