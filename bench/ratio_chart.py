"""An SVG bar chart of Kiln/ONNX Runtime latency ratios, one group of bars per
model and one bar per thread count, with the parity line at 1.0.

Written by hand as plain SVG so the benchmark needs no plotting library; any
browser or image viewer shows it. Bars under 1.0 (Kiln faster) are green,
over 1.0 orange. The CPU and the date go into the title, so charts from
different machines are never mixed up.
"""
import html
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools"))
import cpu_info  # noqa: E402

BAR_COLOURS = {True: "#2e8b57", False: "#e07b24"}  # faster, slower
THREAD_SHADES = ("1.0", "0.7", "0.5", "0.35")      # opacity per thread count


def cpu_name(cpuinfo="/proc/cpuinfo"):
    return cpu_info.describe_cpu(cpuinfo)


def ratio_svg(title, names, threads, ratio_of, metric_label="median latency"):
    """ratio_of(name, t) -> the Kiln/ORT ratio, or None when not measured."""
    bar_w, gap, group_gap = 16, 3, 22
    left, right, top, bottom = 60, 20, 56, 120
    group_w = len(threads) * (bar_w + gap) - gap
    # Wide enough for the title and the legend line even with one model.
    width = max(660, left + right + len(names) * (group_w + group_gap))
    height = 360
    plot_h = height - top - bottom
    ratios = [r for n in names for t in threads if (r := ratio_of(n, t)) is not None]
    y_max = max(1.2, math.ceil(max(ratios, default=1.0) * 10 + 1) / 10)

    def y_of(value):
        return top + plot_h * (1 - value / y_max)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{left}" y="20" font-size="14" font-weight="bold">'
           f'{html.escape(title)}</text>',
           f'<text x="{left}" y="38">Kiln / ONNX Runtime, {html.escape(metric_label)} '
           f'(below 1.0: Kiln faster); bars: {", ".join(f"{t} thread" + ("s" if t > 1 else "") for t in threads)}</text>']
    step = 0.2 if y_max <= 2 else 0.5
    tick = 0.0
    while tick <= y_max + 1e-9:
        y = y_of(tick)
        out.append(f'<line x1="{left}" x2="{width - right}" y1="{y:.1f}" y2="{y:.1f}" '
                   f'stroke="#ddd"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{tick:.1f}</text>')
        tick += step
    y1 = y_of(1.0)
    out.append(f'<line x1="{left}" x2="{width - right}" y1="{y1:.1f}" y2="{y1:.1f}" '
               f'stroke="black" stroke-dasharray="4 3"/>')
    for gi, name in enumerate(names):
        x0 = left + group_gap / 2 + gi * (group_w + group_gap)
        for ti, t in enumerate(threads):
            r = ratio_of(name, t)
            if r is None:
                continue
            x = x0 + ti * (bar_w + gap)
            y = y_of(min(r, y_max))
            shade = THREAD_SHADES[min(ti, len(THREAD_SHADES) - 1)]
            out.append(f'<rect class="bar" data-model="{html.escape(name)}" data-threads="{t}" '
                       f'data-ratio="{r:.3f}" x="{x:.1f}" y="{y:.1f}" width="{bar_w}" '
                       f'height="{top + plot_h - y:.1f}" fill="{BAR_COLOURS[r <= 1.0]}" '
                       f'fill-opacity="{shade}"><title>{html.escape(name)}, {t} thread(s): '
                       f'{r:.3f}</title></rect>')
            out.append(f'<text x="{x + bar_w / 2:.1f}" y="{y - 3:.1f}" font-size="8" '
                       f'text-anchor="middle">{r:.2f}</text>')
        cx = x0 + group_w / 2
        cy = top + plot_h + 8
        out.append(f'<text x="{cx:.1f}" y="{cy:.1f}" text-anchor="end" '
                   f'transform="rotate(-45 {cx:.1f} {cy:.1f})">{html.escape(name)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
