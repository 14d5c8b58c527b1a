/* The overview's bar charts, drawn as inline SVG: rectangles, lines and
 * text with presentation attributes and the stylesheet's classes, no
 * style attribute and no script (the page's Content-Security-Policy
 * allows neither). */
#include "wh_console_int.h"

#define CH_W 720.0
#define CH_H 150.0
#define CH_LEFT 40.0
#define CH_BOTTOM 18.0
#define CH_TOP 8.0

/* A round top for the axis: 1, 2 or 5 times a power of ten. */
static double nice_top(double v)
{
    double step = 1.0;
    if (v <= 1.0)
        return 1.0;
    while (step * 10.0 < v)
        step *= 10.0;
    if (step >= v)
        return step;
    if (step * 2.0 >= v)
        return step * 2.0;
    if (step * 5.0 >= v)
        return step * 5.0;
    return step * 10.0;
}

void wh_cx_chart(wh_cx *x, const char *caption, const double *values, int n,
                 const char *const *labels, const char *first_label,
                 const char *last_label)
{
    double max = 0.0, top, plot_w = CH_W - CH_LEFT, plot_h = CH_H - CH_TOP - CH_BOTTOM;
    double bw = n > 0 ? plot_w / n : plot_w;

    for (int i = 0; i < n; i++)
        if (values[i] > max)
            max = values[i];
    top = nice_top(max);
    wh_html_raw(&x->h, "<figure class=\"chart\"><figcaption>");
    wh_html_text(&x->h, caption);
    wh_html_printf(&x->h, "</figcaption><svg viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
                   "aria-label=\"", CH_W, CH_H);
    wh_html_text(&x->h, caption);
    wh_html_raw(&x->h, "\" xmlns=\"http://www.w3.org/2000/svg\">");
    /* axis and gridlines at 0, half and the top */
    for (int g = 0; g <= 2; g++) {
        double y = CH_TOP + plot_h * (1.0 - g / 2.0);
        wh_html_printf(&x->h, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                       "y2=\"%.1f\"/><text class=\"axis\" x=\"%.1f\" y=\"%.1f\" "
                       "text-anchor=\"end\">%g</text>", CH_LEFT, y, CH_W, y,
                       CH_LEFT - 4, y + 4, top * g / 2.0);
    }
    for (int i = 0; i < n; i++) {
        double h = values[i] > 0 ? plot_h * values[i] / top : 0.0;
        if (values[i] > 0 && h < 1.0)
            h = 1.0;
        wh_html_printf(&x->h, "<rect class=\"bar\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
                       "height=\"%.2f\"><title>", CH_LEFT + i * bw + bw * 0.1,
                       CH_TOP + plot_h - h, bw * 0.8, h);
        wh_html_text(&x->h, labels ? labels[i] : "");
        wh_html_raw(&x->h, "</title></rect>");
    }
    wh_html_printf(&x->h, "<text class=\"axis\" x=\"%.1f\" y=\"%.1f\">", CH_LEFT, CH_H - 4);
    wh_html_text(&x->h, first_label);
    wh_html_printf(&x->h, "</text><text class=\"axis\" x=\"%.1f\" y=\"%.1f\" "
                   "text-anchor=\"end\">", CH_W, CH_H - 4);
    wh_html_text(&x->h, last_label);
    wh_html_raw(&x->h, "</text></svg></figure>");
}
