#!/usr/bin/env python3
"""Renders the_hand's HTML page in headless Chromium and checks it.

The screenshot must not be blank (the script drew the three panels: each structure's colour covers a share of the
picture), and the figures in the rendered page (the DOM after the script ran) must equal the program's --json
output. Usage: the_hand_page_test.py PATH_TO_THE_HAND PATH_TO_CHROMIUM [OUTPUT_DIR]
"""
import html.parser
import json
import os
import struct
import subprocess
import sys
import tempfile
import zlib

COLOURS = {"min_heap": (0xD6, 0x27, 0x28), "flat_wheel": (0xFF, 0x7F, 0x0E), "hierarchical_wheel": (0x1F, 0x77, 0xB4)}


def fail(message):
    print("FAIL: " + message, flush=True)
    sys.exit(1)


def read_png(path):
    """Returns (width, height, rows of (r, g, b) tuples) for an 8-bit RGB or RGBA, non-interlaced PNG."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("not a PNG: " + path)
    pos, idat, width, height, channels = 8, b"", 0, 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace != 0:
                fail("unsupported PNG format (depth %d, colour type %d)" % (depth, colour))
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous, i = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b = previous[x]
            c = previous[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + a) & 0xFF
            elif kind == 2:
                line[x] = (line[x] + b) & 0xFF
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 0xFF
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append([tuple(line[x:x + 3]) for x in range(0, stride, channels)])
        previous = line
    return width, height, rows


class Figures(html.parser.HTMLParser):
    """Collects the text of every element with an id, and the body's attributes."""

    def __init__(self):
        super().__init__()
        self.by_id, self.body, self._open = {}, {}, []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "body":
            self.body = attrs
        self._open.append(attrs.get("id"))
        if attrs.get("id"):
            self.by_id.setdefault(attrs["id"], "")

    def handle_endtag(self, tag):
        if self._open:
            self._open.pop()

    def handle_data(self, data):
        for element in self._open:
            if element:
                self.by_id[element] += data


def chromium(binary, profile, *args):
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--hide-scrollbars", "--user-data-dir=" + profile]
    return subprocess.run([binary] + flags + list(args), capture_output=True, text=True, timeout=120)


def main():
    the_hand, browser = sys.argv[1], sys.argv[2]
    out_dir = sys.argv[3] if len(sys.argv) > 3 else tempfile.mkdtemp(prefix="the_hand_")
    os.makedirs(out_dir, exist_ok=True)
    page = os.path.join(out_dir, "the_hand.html")
    shot = os.path.join(out_dir, "the_hand.png")
    figures = json.loads(subprocess.check_output([the_hand, "--json", "--html", page], text=True))
    if not figures["same"]:
        fail("the structures disagreed")

    profile = tempfile.mkdtemp(prefix="chromium_")
    done = chromium(browser, profile, "--screenshot=" + shot, "--window-size=1500,1000", "file://" + page)
    if not os.path.exists(shot):
        fail("no screenshot: " + done.stderr[-2000:])
    width, height, rows = read_png(shot)
    total = width * height
    background = sum(1 for row in rows for p in row if min(p) >= 245)
    print("screenshot %dx%d, %.1f%% not background" % (width, height, 100.0 * (total - background) / total))
    if total - background < total * 0.03:
        fail("the screenshot is blank")
    for key, colour in COLOURS.items():
        count = sum(1 for row in rows for p in row if all(abs(p[i] - colour[i]) <= 24 for i in range(3)))
        print("  %s colour: %d pixels" % (key, count))
        if count < 300:
            fail("the %s panel was not drawn (%d pixels of its colour)" % (key, count))

    dom = chromium(browser, profile, "--dump-dom", "file://" + page).stdout
    parsed = Figures()
    parsed.feed(dom)
    if parsed.body.get("data-drawn") != "yes":
        fail("the page's script did not run to its end")
    checks = [("served", str(figures["served"])), ("arrived", str(figures["arrived"]))]
    for key in COLOURS:
        f = figures[key]
        checks += [(key + "-looks", str(f["looks"])), (key + "-looks_per_timer", "%.4f" % f["looks_per_timer"]),
                   (key + "-empty_looks", str(f["empty_looks"])), (key + "-cascades", str(f["cascades"])),
                   (key + "-comparisons", str(f["comparisons"])),
                   (key + "-panel-per-timer", "%.1f" % f["looks_per_timer"])]
    for element, expected in checks:
        got = parsed.by_id.get(element)
        if got is None or got.strip() != expected:
            fail("#%s reads %r in the page, the program says %r" % (element, got, expected))
    print("page figures match the program's output (%d values); screenshot %s" % (len(checks), shot))
    print("ok")


if __name__ == "__main__":
    main()
