"""What the browser scripts share: Debian's headless Chromium under selenium, and waiting on a condition."""
import os
import socket
import time

from selenium import webdriver
from selenium.common.exceptions import ElementClickInterceptedException, StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By


def start(artifacts, width, height, profile="profile"):
    """Headless Chromium at WIDTHxHEIGHT in English, logging every browser message (JavaScript errors)."""
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--lang=en-US",
                     "--window-size=%d,%d" % (width, height), "--user-data-dir=" + os.path.join(artifacts, profile)):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def wait(condition, seconds=10, interval=0.05):
    """The condition's first truthy value within SECONDS, else None. An element the page
    redrew between being found and being read (a panel drawn anew after an idle event) counts
    as not there yet: the condition looks it up again on the next turn."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            value = condition()
        except StaleElementReferenceException:
            value = None
        if value:
            return value
        time.sleep(interval)
    return None


def click(driver, selector, how=By.CSS_SELECTOR, seconds=10):
    """Clicks the first element `selector` finds once it is there; one the page redrew
    meanwhile (a list drawn anew after an idle event) is looked up again rather than clicked
    stale. False when there was nothing to click within SECONDS."""
    def attempt():
        try:
            elements = driver.find_elements(how, selector)
            if elements:
                # In the middle of the screen, as a person scrolls to it: not under the bar
                # and mini player fixed at the bottom of a phone's screen.
                driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", elements[0])
                try:
                    elements[0].click()
                except ElementClickInterceptedException:
                    # Under a note that is still on screen (the snackbar): tapped through it.
                    driver.execute_script("arguments[0].click()", elements[0])
                return True
        except StaleElementReferenceException:
            pass
        return False
    return bool(wait(attempt, seconds))


def mpd_session(port):
    """A function sending MPD commands over TCP, as another client does, and giving back each
    command's answer lines (through its OK or ACK)."""
    def mpd(*commands):
        with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
            reader = connection.makefile("rb")
            reader.readline()
            answers = []
            for command in commands:
                connection.sendall(command.encode() + b"\n")
                lines = []
                while True:
                    line = reader.readline().decode().rstrip("\n")
                    lines.append(line)
                    if line == "OK" or line.startswith("ACK "):
                        break
                answers.append(lines)
            return answers
    return mpd
