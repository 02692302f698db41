"""Matplotlib figures as small inline SVG for a self-contained HTML page.

:func:`figure_svg` is the one way a figure becomes SVG markup: text stays text
(``svg.fonttype = none``: no glyph outlines are embedded, and the font family is left to the
page's stylesheet), nothing is rasterised, coordinates are rounded to 0.1 pt, whitespace
between elements and comments are dropped, and everything that would make a browser fetch or
a diff noisy is removed — the XML prologue and DOCTYPE (which names a w3.org DTD), the
``<metadata>`` block (Dublin Core URLs and the date) and the namespace declarations (implied
for ``<svg>`` inside HTML; ``xlink:href`` becomes ``href``).  Ids nobody references are
dropped; the referenced ones (clip paths, markers) get a caller-given prefix, so several
figures can be inlined in one document without their ``id``/``#ref`` pairs colliding.  The
output is deterministic for the same figure (a fixed ``svg.hashsalt``).
"""

from __future__ import annotations

import io
import re

_ROUND = re.compile(r"(-?\d+\.\d)\d+")
_PATH_DATA = re.compile(r'(\sd=")([^"]*)(")')
_COORDINATE = re.compile(r'(\s(?:x|y|width|height)=")(-?\d+\.\d)\d*(")')
_ID = re.compile(r'\sid="([^"]+)"')
_REFERENCE = re.compile(r'#([^"\s)]+)[")]')


def _round_path(match: re.Match) -> str:
    data = " ".join(_ROUND.sub(r"\1", match.group(2)).split())
    return match.group(1) + data + match.group(3)


def figure_svg(figure, *, prefix: str = "f") -> str:
    """The SVG markup (an ``<svg>`` element, no prologue) of a matplotlib ``figure``.

    Args:
      figure: a :class:`matplotlib.figure.Figure`.
      prefix: prepended (with ``-``) to every element id that is referenced (clip paths,
        markers; the others are dropped); must be unique per figure within one document.
    Returns:
      The ``<svg …>…</svg>`` text, with ``width``/``height`` in pt and a ``viewBox``.  Text
      elements carry no font family: the page's stylesheet gives one.
    """
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "dpaudit",
                                "svg.image_inline": True}):
        figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    text = buffer.getvalue()
    text = text[text.index("<svg"):]
    text = re.sub(r"\s*<metadata>.*?</metadata>", "", text, flags=re.S)
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    for namespace in (' xmlns:xlink="http://www.w3.org/1999/xlink"',
                      ' xmlns="http://www.w3.org/2000/svg"'):  # implied inside HTML
        text = text.replace(namespace, "")
    text = text.replace("xlink:href=", "href=")
    text = re.sub(r"font-family: [^;\"]*;? ?", "", text)
    text = re.sub(r' transform="rotate\(-?0 [^)"]*\)"', "", text)
    text = _PATH_DATA.sub(_round_path, text)
    text = _COORDINATE.sub(r"\1\2\3", text)
    text = re.sub(r">\s+<", "><", text)
    referenced = set(_REFERENCE.findall(text))
    for ident in sorted(set(_ID.findall(text)), key=len, reverse=True):
        if ident not in referenced:
            text = text.replace(f' id="{ident}"', "")
            continue
        new = f"{prefix}-{ident}"
        text = (text.replace(f'id="{ident}"', f'id="{new}"')
                .replace(f'"#{ident}"', f'"#{new}"').replace(f"#{ident})", f"#{new})"))
    return text.strip()


__all__ = ["figure_svg"]
