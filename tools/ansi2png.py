#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Render a terminal screen captured with `tmux capture-pane -p -e` to PNG.

    ansi2png.py SCREEN.ansi OUT.png [--size 80x24] [--font-size 16]

The capture is text with SGR escape sequences (bold, dim, italic,
underline, reverse; the 8/16 colours, the 256-colour palette and 24-bit
colours, as tmux writes them); the attributes carry over from one line to
the next, as on the terminal.  Each cell is drawn on a fixed grid with
DejaVu Sans Mono (Debian: fonts-dejavu-core), on a dark background like a
common terminal theme, with a small margin.  Needs Pillow (python3-pil).
"""
import argparse
import re
import sys
import unicodedata

from PIL import Image, ImageDraw, ImageFont

FONT_DIRS = ["/usr/share/fonts/truetype/dejavu/", "/usr/share/fonts/TTF/",
             "/usr/share/fonts/dejavu/"]

# A dark theme (close to GNOME Terminal's "Tango dark").
DEFAULT_FG = (0xd3, 0xd7, 0xcf)
DEFAULT_BG = (0x1c, 0x1f, 0x24)
BASE16 = [
    (0x2e, 0x34, 0x36), (0xcc, 0x00, 0x00), (0x4e, 0x9a, 0x06), (0xc4, 0xa0, 0x00),
    (0x34, 0x65, 0xa4), (0x75, 0x50, 0x7b), (0x06, 0x98, 0x9a), (0xd3, 0xd7, 0xcf),
    (0x55, 0x57, 0x53), (0xef, 0x29, 0x29), (0x8a, 0xe2, 0x34), (0xfc, 0xe9, 0x4f),
    (0x72, 0x9f, 0xcf), (0xad, 0x7f, 0xa8), (0x34, 0xe2, 0xe2), (0xee, 0xee, 0xec),
]


def palette(n):
    if n < 16:
        return BASE16[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return (steps[n // 36], steps[(n // 6) % 6], steps[n % 6])
    v = 8 + 10 * (n - 232)
    return (v, v, v)


def load_font(name, size):
    for d in FONT_DIRS:
        try:
            return ImageFont.truetype(d + name, size)
        except OSError:
            continue
    sys.exit("ansi2png: font %s not found (Debian: apt-get install fonts-dejavu-core)" % name)


class Attr:
    def __init__(self):
        self.reset()

    def reset(self):
        self.fg = None      # None: default; else an (r, g, b) or a palette index
        self.bg = None
        self.bold = self.dim = self.italic = self.underline = self.reverse = False

    def copy(self):
        a = Attr()
        a.__dict__.update(self.__dict__)
        return a

    def sgr(self, params):
        p = [int(x) if x else 0 for x in params.split(";")] if params else [0]
        i = 0
        while i < len(p):
            c = p[i]
            if c == 0:
                self.reset()
            elif c == 1:
                self.bold = True
            elif c == 2:
                self.dim = True
            elif c == 3:
                self.italic = True
            elif c == 4:
                self.underline = True
            elif c == 7:
                self.reverse = True
            elif c == 22:
                self.bold = self.dim = False
            elif c == 23:
                self.italic = False
            elif c == 24:
                self.underline = False
            elif c == 27:
                self.reverse = False
            elif 30 <= c <= 37:
                self.fg = c - 30
            elif 90 <= c <= 97:
                self.fg = c - 90 + 8
            elif c == 39:
                self.fg = None
            elif 40 <= c <= 47:
                self.bg = c - 40
            elif 100 <= c <= 107:
                self.bg = c - 100 + 8
            elif c == 49:
                self.bg = None
            elif c in (38, 48) and i + 1 < len(p):
                if p[i + 1] == 5 and i + 2 < len(p):
                    col = p[i + 2]
                    i += 2
                elif p[i + 1] == 2 and i + 4 < len(p):
                    col = (p[i + 2], p[i + 3], p[i + 4])
                    i += 4
                else:
                    col = None
                if c == 38:
                    self.fg = col
                else:
                    self.bg = col
            i += 1

    def colours(self):
        def rgb(c, default):
            if c is None:
                return default
            return c if isinstance(c, tuple) else palette(c)
        fg, bg = rgb(self.fg, DEFAULT_FG), rgb(self.bg, DEFAULT_BG)
        if self.bold and isinstance(self.fg, int) and self.fg < 8:
            fg = palette(self.fg + 8)       # bold brightens, as xterm does
        if self.reverse:
            fg, bg = bg, fg
        if self.dim:
            fg = tuple((2 * f + b) // 3 for f, b in zip(fg, bg))
        return fg, bg


SEQ = re.compile(r"\x1b\[([0-9;]*)([A-Za-z])|\x1b[()][0-9A-Za-z]|\x1b.")


def parse(text, cols, rows):
    """The screen as rows of [(char, Attr)], cols wide."""
    grid = []
    attr = Attr()
    for line in text.split("\n")[:rows]:
        row = []
        pos = 0
        for m in SEQ.finditer(line + "\x1b[z"):
            for ch in line[pos:m.start()]:
                w = 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
                if unicodedata.combining(ch) and row:
                    row[-1] = (row[-1][0] + ch, row[-1][1])
                    continue
                row.append((ch, attr.copy()))
                if w == 2:
                    row.append(("", attr.copy()))
            if m.group(2) == "m":
                attr.sgr(m.group(1))
            pos = m.end()
        # Cells after the end of the line keep the colours in force there
        # (tmux trims trailing blanks of the default background only).
        blank = attr.copy()
        blank.underline = False
        row += [(" ", blank)] * (cols - len(row))
        grid.append(row[:cols])
    while len(grid) < rows:
        grid.append([(" ", Attr())] * cols)
    return grid


def render(grid, out, font_size, margin):
    regular = load_font("DejaVuSansMono.ttf", font_size)
    bold = load_font("DejaVuSansMono-Bold.ttf", font_size)
    italic = load_font("DejaVuSansMono-Oblique.ttf", font_size)
    cw = round(regular.getlength("M"))
    asc, desc = regular.getmetrics()
    ch = asc + desc + 2
    rows, cols = len(grid), len(grid[0])
    img = Image.new("RGB", (cols * cw + 2 * margin, rows * ch + 2 * margin), DEFAULT_BG)
    d = ImageDraw.Draw(img)
    for y, row in enumerate(grid):
        for x, (c, a) in enumerate(row):
            fg, bg = a.colours()
            x0, y0 = margin + x * cw, margin + y * ch
            if bg != DEFAULT_BG:
                d.rectangle([x0, y0, x0 + cw - 1, y0 + ch - 1], fill=bg)
            if c.strip():
                f = bold if a.bold else italic if a.italic else regular
                # Box drawing and blocks fill the cell: stretch them to
                # the line height so that lines join.
                if not (len(c) == 1 and draw_box(d, c, x0, y0, cw, ch, fg)):
                    d.text((x0, y0 + 1), c, font=f, fill=fg)
            if a.underline:
                d.line([x0, y0 + ch - 2, x0 + cw - 1, y0 + ch - 2], fill=fg)
    img.save(out, optimize=True)


def draw_box(d, c, x0, y0, cw, ch, fg):
    """Light box-drawing characters drawn as lines, so that they join across
    cells of any height; False for every other character (the font draws
    it)."""
    cx, cy = x0 + cw // 2, y0 + ch // 2
    x1, y1 = x0 + cw - 1, y0 + ch - 1
    segs = {
        "\u2500": "lr", "\u2502": "ud", "\u250c": "rd", "\u2510": "ld", "\u2514": "ru",
        "\u2518": "lu", "\u251c": "udr", "\u2524": "udl", "\u252c": "lrd", "\u2534": "lru",
        "\u253c": "lrud",
    }.get(c)
    if segs is None:
        return False
    if "l" in segs:
        d.line([x0, cy, cx, cy], fill=fg)
    if "r" in segs:
        d.line([cx, cy, x1, cy], fill=fg)
    if "u" in segs:
        d.line([cx, y0, cx, cy], fill=fg)
    if "d" in segs:
        d.line([cx, cy, cx, y1], fill=fg)
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("screen")
    ap.add_argument("out")
    ap.add_argument("--size", default="80x24")
    ap.add_argument("--font-size", type=int, default=16)
    ap.add_argument("--margin", type=int, default=12)
    a = ap.parse_args()
    cols, rows = (int(v) for v in a.size.split("x"))
    with open(a.screen, encoding="utf-8", errors="replace") as f:
        text = f.read()
    render(parse(text, cols, rows), a.out, a.font_size, a.margin)


if __name__ == "__main__":
    main()
