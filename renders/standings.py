"""A campaign's standings as a table PNG (issue 5, "Campaigns"): title, subtitle, then sections
(players, sides), each a heading, a header row and the rows, drawn as the bot computed them.

Knows no ruleset and decides nothing: the rows arrive as text (bot/campaigns.py
`standings_table`). Width follows the longest cell (capped, long names are shortened with an
ellipsis), so the picture stays readable on a phone.
"""
from __future__ import annotations

from collections.abc import Sequence

from PIL import Image, ImageDraw

from .common import STRIP_BG, STRIP_DIM, STRIP_FG, encode_png, font, text_width

PAD = 18
ROW_H = 30
HEAD_H = 34
MAX_CELL = 320                      # px: a longer name is cut with "…"
MAX_ROWS = 40                       # per section; the rest is summarised in one row
BG = (246, 243, 234)
INK = (30, 30, 30)
RULE = (200, 194, 178)
STRIPE = (236, 231, 218)
FIRST = (205, 160, 40)


def _fit(text: str, width: float, fnt) -> str:
    if text_width(text, fnt) <= width:
        return text
    while text and text_width(text + "…", fnt) > width:
        text = text[:-1]
    return text + "…"


def render_standings(title: str, subtitle: str,
                     sections: Sequence[tuple[str, Sequence[str], Sequence[Sequence[str]]]]) -> bytes:
    """PNG bytes of the table. `sections`: (heading, column names, rows of cell texts); the
    second column is the name column (left-aligned), the others are numbers (centred)."""
    body, bold, big = font(17), font(17, True), font(24, True)
    prepared = []
    for heading, cols, rows in sections:
        rows = [list(r) for r in rows]
        if len(rows) > MAX_ROWS:
            rows = rows[:MAX_ROWS] + [["", f"… {len(rows) - MAX_ROWS} more", *[""] * (len(cols) - 2)]]
        widths = []
        for i, col in enumerate(cols):
            cells = [text_width(col, bold)] + [text_width(str(r[i]), bold if i == 1 else body)
                                               for r in rows if i < len(r)]
            widths.append(min(MAX_CELL, max(cells) + 22))
        prepared.append((heading, list(cols), rows, widths))
    if len({len(cols) for _, cols, _, _ in prepared}) == 1:     # one grid for every section
        common = [max(col) for col in zip(*(w for *_, w in prepared))]
        prepared = [(h, c, r, common) for h, c, r, _ in prepared]
    table_w = max([sum(w) for *_, w in prepared] + [360])
    width = int(max(table_w, text_width(title, big) + 10, text_width(subtitle, body) + 10) + 2 * PAD)
    height = PAD + 76 + sum(HEAD_H + ROW_H * (1 + max(1, len(rows))) + 14 for _, _, rows, _ in prepared) + PAD
    img = Image.new("RGB", (width, height), BG)
    draw = ImageDraw.Draw(img)
    draw.rectangle((0, 0, width, PAD + 64), fill=STRIP_BG)
    draw.text((PAD, PAD), _fit(title, width - 2 * PAD, big), font=big, fill=STRIP_FG)
    draw.text((PAD, PAD + 36), _fit(subtitle, width - 2 * PAD, body), font=body, fill=STRIP_DIM)
    y = PAD + 76
    for heading, cols, rows, widths in prepared:
        draw.text((PAD, y + 6), heading, font=bold, fill=INK)
        y += HEAD_H
        x0 = PAD
        xs = [x0 + sum(widths[:i]) for i in range(len(widths) + 1)]
        draw.rectangle((PAD, y, PAD + sum(widths), y + ROW_H), fill=STRIPE)
        for i, col in enumerate(cols):
            _cell(draw, xs[i], xs[i + 1], y, col, bold, left=i == 1)
        y += ROW_H
        draw.line((PAD, y, PAD + sum(widths), y), fill=RULE, width=2)
        if not rows:
            draw.text((PAD + 8, y + ROW_H // 2), "no result yet", font=body, fill=STRIP_DIM, anchor="lm")
            y += ROW_H
        for n, row in enumerate(rows):
            if n % 2:
                draw.rectangle((PAD, y, PAD + sum(widths), y + ROW_H), fill=STRIPE)
            first = row[:1] == ["1"]                   # the leaders (a shared first place too)
            for i, cell in enumerate(row[:len(cols)]):
                fnt = bold if i == 1 and first else body
                colour = FIRST if i == 0 and first else INK
                _cell(draw, xs[i], xs[i + 1], y, _fit(str(cell), widths[i] - 12, fnt), fnt, left=i == 1,
                      fill=colour)
            y += ROW_H
        y += 14
    return encode_png(img)


def _cell(draw: ImageDraw.ImageDraw, x0: float, x1: float, y: float, text: str, fnt, *, left: bool,
          fill=INK) -> None:
    if left:
        draw.text((x0 + 6, y + ROW_H / 2), text, font=fnt, fill=fill, anchor="lm")
    else:
        draw.text(((x0 + x1) / 2, y + ROW_H / 2), text, font=fnt, fill=fill, anchor="mm")
