/* The console's only two assets, compiled in: a stylesheet and an icon.
 * Served with an ETag (a hash of the content) and a year's cache
 * lifetime; the pages ask for them with the ETag in the URL, so a new
 * wirehook's stylesheet is a new URL. */
#include "wh_console_int.h"

#include <apr_strings.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <string.h>

static const char css[] =
    ":root{--ink:#1d2330;--dim:#6b7280;--line:#e3e6eb;--bg:#f6f7f9;--card:#fff;"
    "--accent:#2457c5;--ok:#17803d;--bad:#b42318;--warn:#a15c07}\n"
    "*{box-sizing:border-box}\n"
    "body{margin:0;font:14px/1.45 system-ui,-apple-system,\"Segoe UI\",Roboto,sans-serif;"
    "color:var(--ink);background:var(--bg)}\n"
    "header.top{display:flex;align-items:center;gap:24px;padding:10px 24px;"
    "background:#141a26;color:#e8ebf1}\n"
    "header.top a{color:#c9d3e6;text-decoration:none;padding:4px 8px;border-radius:4px}\n"
    "header.top a.on,header.top a:hover{background:#2a3346;color:#fff}\n"
    "header.top .brand{font-weight:700;font-size:16px;color:#fff;padding-left:0}\n"
    "header.top nav{display:flex;gap:4px;flex:1}\n"
    "form.find{display:flex;gap:6px}\nform.find input{min-width:300px;padding:4px 8px;"
    "border-radius:4px;border:1px solid #3a4560;background:#1f2738;color:#fff;font:inherit}\n"
    ".who{color:#9aa6bd;font-size:13px}\n"
    "main{max-width:1180px;margin:0 auto;padding:18px 24px 40px}\n"
    "h1{font-size:22px;margin:6px 0 14px;overflow-wrap:anywhere}\n"
    "h2{font-size:16px;margin:18px 0 8px}\n"
    "a{color:var(--accent)}\n"
    "code,pre,td,dd{overflow-wrap:anywhere}\n"
    /* a value's own direction never reorders what is around it */
    "td,dd,code,h1,option{unicode-bidi:isolate}\n"
    "pre.body{background:#10151f;color:#dfe6f3;padding:14px;border-radius:6px;"
    "overflow:auto;max-height:560px;white-space:pre-wrap;font:12.5px/1.5 ui-monospace,"
    "SFMono-Regular,Menlo,Consolas,monospace}\n"
    "table.list{width:100%;border-collapse:collapse;background:var(--card);"
    "border:1px solid var(--line);border-radius:6px}\n"
    "table.list.narrow{width:auto;min-width:280px}\n"
    "table.list th,table.list td{padding:6px 10px;border-bottom:1px solid var(--line);"
    "text-align:left;vertical-align:top}\n"
    "table.list th{font-size:12px;text-transform:uppercase;letter-spacing:.04em;"
    "color:var(--dim);background:#fafbfc}\n"
    "td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
    ".dim{color:var(--dim)}\n"
    ".count{color:var(--dim);margin:4px 0 10px}\n"
    ".pager{display:flex;gap:16px;margin:12px 0}\n"
    ".notice{padding:10px 14px;border-radius:6px;border:1px solid var(--line);"
    "background:var(--card)}\n"
    ".notice.ok{border-color:#a6d8b8;background:#eefaf2}\n"
    ".notice.warn{border-color:#f0cf95;background:#fff8eb}\n"
    ".notice.error{border-color:#f1b3ad;background:#fff1f0}\n"
    ".cards{display:flex;flex-wrap:wrap;gap:12px;margin:12px 0}\n"
    ".card{background:var(--card);border:1px solid var(--line);border-radius:6px;"
    "padding:10px 14px;min-width:150px}\n"
    "a.card-link{text-decoration:none;color:inherit}\n"
    ".card .label{font-size:12px;color:var(--dim);text-transform:uppercase;"
    "letter-spacing:.04em}\n"
    ".card .value{font-size:24px;font-weight:650}\n"
    ".card .note{font-size:12px;color:var(--dim)}\n"
    ".cols{display:grid;grid-template-columns:repeat(auto-fit,minmax(420px,1fr));gap:18px}\n"
    ".charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(460px,1fr));gap:14px;"
    "margin:12px 0}\n"
    "figure.chart{margin:0;background:var(--card);border:1px solid var(--line);"
    "border-radius:6px;padding:10px 12px}\n"
    "figure.chart figcaption{font-weight:600;margin-bottom:4px}\n"
    "figure.chart svg{width:100%;height:auto;display:block}\n"
    "svg .bar{fill:var(--accent)}\nsvg .hit{fill:transparent}\n"
    "svg .hit:hover{fill:rgba(20,26,38,.08)}\nsvg .tick{stroke:var(--dim)}\n"
    "svg .now{font-weight:600}\n"
    ".s0{fill:var(--accent);background:var(--accent)}\n"
    ".s1{fill:#b42318;background:#b42318}\n.s2{fill:#dc6803;background:#dc6803}\n"
    ".s3{fill:#7a5af8;background:#7a5af8}\n.s4{fill:#eaaa08;background:#eaaa08}\n"
    ".s5{fill:#0e9384;background:#0e9384}\n.s6{fill:#c11574;background:#c11574}\n"
    ".s7{fill:#667085;background:#667085}\n"
    "ul.legend{list-style:none;display:flex;flex-wrap:wrap;gap:4px 14px;margin:0 0 4px;"
    "padding:0;font-size:12px;color:var(--dim)}\n"
    ".sw{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:5px}\n"
    "svg .grid{stroke:var(--line);stroke-width:1}\n"
    "svg .axis{fill:var(--dim);font-size:11px}\n"
    "dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;"
    "background:var(--card);border:1px solid var(--line);border-radius:6px;"
    "padding:12px 14px;margin:0}\n"
    "dl.facts dt{color:var(--dim)}\ndl.facts dd{margin:0}\n"
    "form.filters{display:flex;flex-wrap:wrap;gap:10px;align-items:end;margin:12px 0}\n"
    "form.filters label{display:flex;flex-direction:column;font-size:12px;color:var(--dim)}\n"
    "input[type=text]{font:inherit;padding:5px 8px;border:1px solid #c9ced6;border-radius:4px;"
    "min-width:170px}\n"
    "button{font:inherit;padding:5px 12px;border-radius:4px;border:1px solid var(--accent);"
    "background:var(--accent);color:#fff;cursor:pointer}\n"
    "form.act{display:inline;margin:0}\n"
    "form.act button{background:#fff;color:var(--accent);padding:3px 10px}\n"
    "form.act button:hover{background:var(--accent);color:#fff}\n"
    "form.act button.quiet{color:var(--dim);border-color:#c9ced6}\n"
    "form.act button.danger,button.danger{color:var(--bad);border-color:var(--bad);"
    "background:#fff}\nform.act button.danger:hover,button.danger:hover{background:var(--bad);"
    "color:#fff}\nform.confirm{display:block;margin:12px 0}\n"
    "td.acts{white-space:nowrap}\ntd.acts form{margin-right:4px}\ncode.k{overflow-wrap:normal;"
    "white-space:nowrap}\ntr.has-dead td:first-child{border-left:3px solid var(--bad)}\n"
    ".preview{font-size:16px}\n.big{font-size:28px;margin-right:6px}\n"
    "select{font:inherit;padding:4px 6px;border:1px solid #c9ced6;border-radius:4px}\n"
    "a.bulk{font-weight:600;color:var(--bad)}\nh3{font-size:14px;margin:14px 0 6px}\n"
    ".st{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;"
    "background:#eef1f5;color:var(--dim)}\n"
    ".st-ok{background:#e3f5ea;color:var(--ok)}\n.st-dead{background:#fde8e6;color:var(--bad)}\n"
    ".st-open{background:#fff3dc;color:var(--warn)}\n"
    "ul.problems{margin:0;padding-left:20px}\n"
    "footer{max-width:1180px;margin:0 auto;padding:0 24px 24px;color:var(--dim);"
    "font-size:12px}\n";

static const char icon[] =
    "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 32 32\">"
    "<rect width=\"32\" height=\"32\" rx=\"6\" fill=\"#141a26\"/>"
    "<path d=\"M7 10l4 13 5-9 5 9 4-13\" fill=\"none\" stroke=\"#7fa6ff\" "
    "stroke-width=\"3\" stroke-linecap=\"round\" stroke-linejoin=\"round\"/></svg>\n";

static wh_cx_asset assets[2] = {
    { css, sizeof(css) - 1, "text/css; charset=utf-8", NULL },
    { icon, sizeof(icon) - 1, "image/svg+xml", NULL },
};
static char etags[2][20];
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* "\"" + the first 16 hex digits of the content's SHA-256 + "\"" */
static void make_etags(void)
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 2; i++) {
        unsigned char md[EVP_MAX_MD_SIZE];
        unsigned int n = 0;
        if (EVP_Digest(assets[i].body, assets[i].len, md, &n, EVP_sha256(), NULL) != 1)
            memset(md, 0, sizeof(md));
        etags[i][0] = '"';
        for (int k = 0; k < 8; k++) {
            etags[i][1 + 2 * k] = hex[md[k] >> 4];
            etags[i][2 + 2 * k] = hex[md[k] & 15];
        }
        etags[i][17] = '"';
        etags[i][18] = '\0';
        assets[i].etag = etags[i];
    }
}

const wh_cx_asset *wh_cx_asset_get(apr_pool_t *p, const char *name)
{
    (void)p;
    pthread_once(&once, make_etags);
    if (name && strcmp(name, "console.css") == 0)
        return &assets[0];
    if (name && strcmp(name, "icon.svg") == 0)
        return &assets[1];
    return NULL;
}
