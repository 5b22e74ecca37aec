"""Small bar charts as inline SVG drawn on the server (no script, no CDN, prints fine)."""

from __future__ import annotations

from collections.abc import Sequence

from markupsafe import Markup, escape

_PLOT_W, _BAR_H, _GAP, _LABEL_W, _VALUE_W = 350, 22, 6, 170, 200
# Widest advance of a 13px sans-serif character (digits, capitals): label and value columns are
# made wide enough for their longest text, so none is cut at the chart's edge.
_CHAR_W = 8.2


def _column(texts: Sequence[str], least: int) -> int:
    return max(least, round(12 + _CHAR_W * max(len(t) for t in texts)))


def bar_chart(title: str, items: Sequence[tuple[str, float, str]], *, css_class: str = "") -> Markup:
    """Horizontal bars: each item is (label, value for the bar length, text shown after the bar).

    Negative values are drawn leftwards from the zero line in a different colour (a table that
    lost money over a shift must not look like it won).
    """
    if not items:
        return Markup(f'<p class="empty">{escape(title)}: no data</p>')
    values = [v for _, v, _ in items]
    low, high = min(0.0, *values), max(0.0, *values)
    span = (high - low) or 1.0
    label_w = _column([label for label, _, _ in items], _LABEL_W)
    value_w = _column([shown for _, _, shown in items], _VALUE_W)
    plot_w = _PLOT_W
    width_all = label_w + plot_w + value_w
    zero_x = label_w + plot_w * (-low / span)
    height = len(items) * (_BAR_H + _GAP) + 30
    parts = [
        f'<svg class="chart {escape(css_class)}" viewBox="0 0 {width_all} {height}" role="img" '
        f'aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg">',
        f"<title>{escape(title)}</title>",
        f'<text x="0" y="16" class="chart-title">{escape(title)}</text>',
    ]
    for i, (label, value, shown) in enumerate(items):
        y = 26 + i * (_BAR_H + _GAP)
        width = plot_w * abs(value) / span
        x = zero_x if value >= 0 else zero_x - width
        cls = "bar" if value >= 0 else "bar negative"
        parts.append(
            f'<text x="{label_w - 6}" y="{y + 16}" text-anchor="end" class="chart-label">'
            f"{escape(label)}</text>"
        )
        parts.append(
            f'<rect x="{x:.1f}" y="{y}" width="{max(width, 1):.1f}" height="{_BAR_H}" class="{cls}"/>'
        )
        parts.append(
            f'<text x="{label_w + plot_w + 6}" y="{y + 16}" class="chart-value">{escape(shown)}</text>'
        )
    parts.append(f'<line x1="{zero_x:.1f}" y1="22" x2="{zero_x:.1f}" y2="{height - 4}" class="axis"/>')
    parts.append("</svg>")
    return Markup("".join(parts))
