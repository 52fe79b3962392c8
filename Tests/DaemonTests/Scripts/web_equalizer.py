#!/usr/bin/python3
"""The Equalizer page in headless Chromium, checked against the daemon over TCP.

Usage: web_equalizer.py PAGE_URL MPD_PORT ARTIFACTS_DIR
Pastes an AutoEq text into the import form (the output then uses it), finds the curve and a
point per band, drags the first band's point up and to the right, types a gain into the
second band, turns bypass on, sets balance and crossfeed, adds and removes a band — and reads
each change back with eqexport/eqstatus from another connection; then a preset chosen by
another client shows up on the page by itself (the eq idle event). Prints one JSON object;
SEVERE browser messages (JavaScript errors) are in "severe", an exception in "error".
"""
import json
import os
import sys
import traceback

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from chromium import click as chromium_click, mpd_session, start, wait

page, port, artifacts = sys.argv[1], int(sys.argv[2]), sys.argv[3]
os.makedirs(artifacts, exist_ok=True)
mpd = mpd_session(port)
AUTOEQ = "Preamp: -6.2 dB\nFilter 1: ON PK Fc 105 Hz Gain -3.1 dB Q 0.70\nFilter 2: ON HSC Fc 10000 Hz Gain 4.0 dB Q 0.71\n"


def export(name):
    return [line[len("line: "):] for line in mpd("eqexport \"%s\"" % name)[0] if line.startswith("line: ")]


def status():
    return dict(line.split(": ", 1) for line in mpd("eqstatus")[0] if ": " in line)


def click(selector):
    if not chromium_click(driver, selector):
        raise RuntimeError("nothing to click at " + selector)


driver = start(artifacts, 1280, 900, profile="eq-profile")
result = {}
try:
    driver.get(page + "#equalizer")
    result["outputs"] = wait(lambda: [o.text for o in driver.find_elements(By.CSS_SELECTOR, "#eq-output option")], 20)
    driver.find_element(By.ID, "eq-import-name").send_keys("HD 600")
    driver.find_element(By.ID, "eq-import-text").send_keys(AUTOEQ)
    driver.find_element(By.CSS_SELECTOR, "#eq-import button").click()
    result["imported"] = wait(lambda: export("HD 600"), 10)
    result["inUse"] = wait(lambda: status().get("eq") == "HD 600", 10)
    result["pointsShown"] = wait(lambda: len(driver.find_elements(By.CSS_SELECTOR, "#eq-curve circle.band")), 10)
    result["curveShown"] = bool(driver.find_elements(By.ID, "eq-curve-line"))
    result["selected"] = Select(driver.find_element(By.ID, "eq-preset")).first_selected_option.text

    point = driver.find_element(By.CSS_SELECTOR, "#eq-curve circle.band[data-band='1']")
    ActionChains(driver).click_and_hold(point).move_by_offset(120, -40).release().perform()
    result["dragged"] = wait(lambda: (lambda lines: lines[1] if len(lines) > 1 and "Fc 105 Hz" not in lines[1] else None)(export("HD 600")), 10)

    def gain_field():
        return driver.find_element(By.CSS_SELECTOR, "#eq-bands li[data-band='2'] input.eq-gain")
    def type_gain():
        # Select what is there and type over it; the change goes when the field is left. A
        # field the page redrew meanwhile (the drag's idle event) is found and typed again.
        field = gain_field()
        if not field.is_displayed():
            return False
        field.send_keys(Keys.CONTROL, "a")
        field.send_keys("2.5", Keys.TAB)
        return True
    wait(type_gain, 10)
    result["typed"] = wait(lambda: (lambda lines: lines[2] if len(lines) > 2 and "Gain 2.5 dB" in lines[2] else None)(export("HD 600")), 10)

    driver.find_element(By.ID, "eq-bypass").click()
    result["bypass"] = wait(lambda: status().get("bypass") == "1", 10)
    Select(driver.find_element(By.ID, "eq-crossfeed")).select_by_value("cmoy")
    result["crossfeed"] = wait(lambda: status().get("crossfeed") == "cmoy", 10)
    driver.find_element(By.ID, "eq-add-band").click()
    result["added"] = wait(lambda: len(export("HD 600")) == 4, 10)
    click("#eq-bands li[data-band='3'] button")
    # Asked first, as every removal is.
    result["askedToRemove"] = bool(wait(lambda: driver.find_elements(By.CSS_SELECTOR, "dialog[open]"), 10))
    chromium_click(driver, "//dialog[@open]//button[text()='Remove']", By.XPATH)
    result["removed"] = wait(lambda: len(export("HD 600")) == 3, 10)
    driver.save_screenshot(os.path.join(artifacts, "equalizer.png"))

    # Another client imports and chooses a preset: the page follows without a reload.
    mpd("eqimport other \"Preamp: 0 dB\" \"Filter 1: ON LP Fc 8000 Hz Q 0.7\"", "eqset \"%s\" other" % result["outputs"][0])
    result["followed"] = wait(lambda: Select(driver.find_element(By.ID, "eq-preset")).first_selected_option.text == "other", 10)
except Exception:
    result["error"] = traceback.format_exc()
    driver.save_screenshot(os.path.join(artifacts, "equalizer-failure.png"))
finally:
    result["severe"] = [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    driver.quit()
print(json.dumps(result))
