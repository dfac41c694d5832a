"""A headless Debian Chromium driven over the DevTools protocol: open a page, evaluate in it, wait
for a condition, take a screenshot. Used by Tests/web/run.py."""
import base64
import json
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request

import websocket


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Failure(Exception):
    pass


def wait_for(check, what, timeout=20):
    """Waits until `check()` is truthy (asked every 50 ms, `timeout` s at most)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    raise Failure(f"{what}: not within {timeout} s")


class Chromium:
    def __init__(self, url, width=1280, height=800):
        self.port = free_port()
        self.profile = tempfile.mkdtemp(prefix="touchgestured-chromium.")
        self.proc = subprocess.Popen(
            ["chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-extensions", "--hide-scrollbars", f"--window-size={width},{height}",
             "--force-device-scale-factor=1", f"--remote-debugging-port={self.port}",
             f"--user-data-dir={self.profile}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.ws = websocket.create_connection(self._page_target(), suppress_origin=True, timeout=30)
        self.last_id = 0
        # The viewport exactly width x height (a headless window's includes no browser chrome, but
        # its default viewport is smaller than the window), as a kiosk's full-screen page.
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)
        self.call("Page.navigate", url=url)

    def _page_target(self):
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/json/list", timeout=2) as r:
                    pages = [t for t in json.load(r) if t.get("type") == "page"]
                if pages:
                    return pages[0]["webSocketDebuggerUrl"]
            except OSError:
                pass
            if self.proc.poll() is not None:
                raise Failure(f"chromium exited with {self.proc.returncode}")
            time.sleep(0.2)
        raise Failure("chromium's DevTools endpoint never came up")

    def call(self, method, **params):
        self.last_id += 1
        self.ws.send(json.dumps({"id": self.last_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == self.last_id:
                if "error" in msg:
                    raise Failure(f"{method}: {msg['error']}")
                return msg["result"]

    def eval(self, expression):
        r = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return r["result"].get("value")

    def wait(self, expression, what, timeout=30, state="window.demo"):
        """Waits until `expression` is truthy in the page (`state`, shown when it is not)."""
        try:
            wait_for(lambda: self.eval(expression), what, timeout)
        except Failure as e:
            raise Failure(f"{e} (page state: {self.eval(f'JSON.stringify({state})')})") from None

    def screenshot(self, path):
        data = self.call("Page.captureScreenshot", format="png")["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def close(self):
        try:
            self.ws.close()
        finally:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
            shutil.rmtree(self.profile, ignore_errors=True)
