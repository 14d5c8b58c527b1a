/* The overview's bar charts, drawn as inline SVG: rectangles, lines and
 * text with presentation attributes and the stylesheet's classes, no
 * style attribute and no script (the page's Content-Security-Policy
 * allows neither). Series are stacked; the time axis has a tick every
 * few bins, the date written where it changes, and the last bin (the
 * one now is in) marked "now": no bin after it. */
#include "wh_console_int.h"

#include <apr_strings.h>

#define CH_W 720.0
#define CH_H 160.0
#define CH_LEFT 40.0
#define CH_BOTTOM 30.0
#define CH_TOP 8.0

static const char *const months[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };

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

/* "14:05", with the date before it when with_date. */
static const char *when(wh_cx *x, apr_time_t t, int with_date)
{
    apr_time_exp_t tm;
    if (apr_time_exp_gmt(&tm, t) != APR_SUCCESS)
        return "";
    return with_date ? apr_psprintf(x->p, "%s %d %02d:%02d", months[tm.tm_mon], tm.tm_mday,
                                    tm.tm_hour, tm.tm_min)
                     : apr_psprintf(x->p, "%02d:%02d", tm.tm_hour, tm.tm_min);
}

static int day_of(apr_time_t t)
{
    apr_time_exp_t tm;
    return apr_time_exp_gmt(&tm, t) == APR_SUCCESS ? tm.tm_yday + 1000 * tm.tm_year : -1;
}

void wh_cx_chart(wh_cx *x, const char *caption, const char *unit,
                 const wh_cx_series *series, int nseries, int nbins, apr_time_t start,
                 apr_interval_time_t step, int tick_every)
{
    double max = 0.0, top, plot_w = CH_W - CH_LEFT, plot_h = CH_H - CH_TOP - CH_BOTTOM;
    double bw = nbins > 0 ? plot_w / nbins : plot_w;
    int last_day = -1;

    for (int b = 0; b < nbins; b++) {
        double sum = 0.0;
        for (int s = 0; s < nseries; s++)
            sum += series[s].values[b];
        if (sum > max)
            max = sum;
    }
    top = nice_top(max);
    wh_html_raw(&x->h, "<figure class=\"chart\"><figcaption>");
    wh_html_text(&x->h, caption);
    wh_html_raw(&x->h, "</figcaption>");
    if (nseries > 1) {
        wh_html_raw(&x->h, "<ul class=\"legend\">");
        for (int s = 0; s < nseries; s++) {
            wh_html_printf(&x->h, "<li><span class=\"sw %s\"></span>", series[s].css);
            wh_html_text(&x->h, series[s].name);
            wh_html_raw(&x->h, "</li>");
        }
        wh_html_raw(&x->h, "</ul>");
    }
    wh_html_printf(&x->h, "<svg viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"", CH_W,
                   CH_H);
    wh_html_text(&x->h, caption);
    wh_html_raw(&x->h, "\" xmlns=\"http://www.w3.org/2000/svg\">");
    /* gridlines at 0, half and the top */
    for (int g = 0; g <= 2; g++) {
        double y = CH_TOP + plot_h * (1.0 - g / 2.0);
        wh_html_printf(&x->h, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                       "y2=\"%.1f\"/><text class=\"axis\" x=\"%.1f\" y=\"%.1f\" "
                       "text-anchor=\"end\">%g</text>", CH_LEFT, y, CH_W, y,
                       CH_LEFT - 4, y + 4, top * g / 2.0);
    }
    for (int b = 0; b < nbins; b++) {
        double y = CH_TOP + plot_h, sum = 0.0;
        const char *tip = apr_pstrcat(x->p, when(x, start + b * step, 1), " UTC", NULL);
        for (int s = 0; s < nseries; s++) {
            double v = series[s].values[b], h = v > 0 ? plot_h * v / top : 0.0;
            sum += v;
            if (v > 0 && h < 1.0)
                h = 1.0;
            if (v > 0)
                tip = apr_psprintf(x->p, "%s, %s: %g", tip, series[s].name, v);
            if (h <= 0)
                continue;
            y -= h;
            wh_html_printf(&x->h, "<rect class=\"bar %s\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
                           "height=\"%.2f\"/>", series[s].css, CH_LEFT + b * bw + bw * 0.1,
                           y, bw * 0.8, h);
        }
        /* the bin's figures, on hover, over its whole height */
        wh_html_printf(&x->h, "<rect class=\"hit\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" "
                       "height=\"%.1f\"><title>", CH_LEFT + b * bw, CH_TOP, bw, plot_h);
        wh_html_text(&x->h, sum > 0 ? apr_pstrcat(x->p, tip, " ", unit, NULL)
                                    : apr_pstrcat(x->p, tip, ": none", NULL));
        wh_html_raw(&x->h, "</title></rect>");
    }
    /* the time axis: ticks at bin starts, the date where it changes */
    for (int b = 0; b < nbins; b += tick_every > 0 ? tick_every : nbins) {
        apr_time_t t = start + b * step;
        int d = day_of(t);
        double tx = CH_LEFT + b * bw;
        wh_html_printf(&x->h, "<line class=\"tick\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                       "y2=\"%.1f\"/><text class=\"axis\" x=\"%.1f\" y=\"%.1f\"%s>", tx,
                       CH_TOP + plot_h, tx, CH_TOP + plot_h + 4, tx, CH_H - 12,
                       b == 0 ? "" : " text-anchor=\"middle\"");
        wh_html_text(&x->h, when(x, t, d != last_day));
        wh_html_raw(&x->h, "</text>");
        last_day = d;
    }
    wh_html_printf(&x->h, "<text class=\"axis now\" x=\"%.1f\" y=\"%.1f\" "
                   "text-anchor=\"end\">now</text>", CH_W, CH_H - 1);
    wh_html_raw(&x->h, "</svg></figure>");
}
