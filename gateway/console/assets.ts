/**
 * The console's stylesheet and its one small script, served by the gateway itself (CSP `'self'`, no CDN, works
 * offline). The script only adds conveniences: the copy button of a new key and the charts' hover details;
 * every page works without it.
 */

/** Stylesheet: system fonts, WCAG AA contrast, a layout that holds down to 360 px. */
export const CONSOLE_CSS = `
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f5f6f8;color:#1b1f24}
a{color:#0550ae}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,summary:focus-visible{outline:3px solid #0969da;outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:.5rem;top:.5rem;background:#fff;padding:.5rem;z-index:2}
header{background:#1b1f24;color:#fff;padding:.5rem 1rem;display:flex;flex-wrap:wrap;gap:.5rem 1.5rem;align-items:center}
header .brand{font-weight:700}
header nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem .75rem}
header nav a{color:#fff;text-decoration:none;padding:.25rem .25rem;border-bottom:2px solid transparent}
header nav a[aria-current=page]{border-bottom-color:#fff;font-weight:600}
header .who{margin-left:auto;display:flex;gap:.5rem;align-items:center;flex-wrap:wrap}
header .who button{background:#fff;color:#1b1f24;border-color:#fff}
main{max-width:75rem;margin:0 auto;padding:1rem}
h1{font-size:1.5rem;margin:.5rem 0 1rem}h2{font-size:1.15rem;margin:1.5rem 0 .5rem}
.card{background:#fff;border:1px solid #d0d7de;border-radius:10px;padding:1rem;margin:0 0 1rem}
.scroll{overflow-x:auto}
table{border-collapse:collapse;width:100%;background:#fff;font-size:.9rem}
th,td{text-align:left;padding:.4rem .5rem;border-bottom:1px solid #d8dee4;vertical-align:top;white-space:nowrap}
th{background:#eef1f4}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
form.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(13rem,1fr));gap:.75rem 1rem;align-items:start}
form.inline{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:end}
label{display:block;font-weight:600;font-size:.9rem}
.hint{display:block;font-weight:400;color:#57606a;font-size:.8rem}
input,select{font:inherit;width:100%;min-height:40px;padding:.35rem .5rem;border:1px solid #6e7781;border-radius:6px;background:#fff;color:#1b1f24}
input[aria-invalid=true]{border:2px solid #a40e26}
.field-error{color:#a40e26;font-size:.85rem;margin:.2rem 0 0}
button,.button{font:inherit;font-weight:600;min-height:40px;padding:.35rem .9rem;border-radius:6px;border:2px solid #1b1f24;background:#1b1f24;color:#fff;cursor:pointer;text-decoration:none;display:inline-block}
button.secondary,.button.secondary{background:#fff;color:#1b1f24}
button.danger{background:#a40e26;border-color:#a40e26}
.actions{display:flex;gap:.5rem;flex-wrap:wrap;align-items:center}
.notice{border-left:4px solid #1a7f37;background:#fff;padding:.75rem 1rem;margin:0 0 1rem}
.notice.warn{border-color:#9a6700}
.secret{display:flex;gap:.5rem;flex-wrap:wrap}.secret input{flex:1 1 16rem;font-family:ui-monospace,monospace}
.stats{display:grid;grid-template-columns:repeat(auto-fill,minmax(9.5rem,1fr));gap:.5rem;margin:0 0 1rem;padding:0}
.stats div{background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:.5rem .75rem}
.stats dt{font-size:.8rem;color:#57606a}.stats dd{margin:0;font-size:1.2rem;font-weight:600}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(20rem,1fr));gap:1rem}
figure{margin:0;background:#fff;border:1px solid #d0d7de;border-radius:10px;padding:.75rem}
figcaption{font-weight:600;margin:0 0 .25rem}
svg.chart{width:100%;height:auto;display:block}
svg.chart .bar{fill:#0969da}svg.chart .bar.err{fill:#a40e26}svg.chart .bar:hover{fill:#033d8b}
svg.chart text{font-size:11px;fill:#57606a}svg.chart line{stroke:#d0d7de}
.tip{min-height:1.4em;font-size:.85rem;color:#1b1f24;margin:.25rem 0 0}
.status-ok{color:#1a7f37;font-weight:600}.status-err{color:#a40e26;font-weight:600}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.85rem}
@media (max-width:40rem){main{padding:.5rem}header .who{margin-left:0}}
`;

/** Copy button and chart hover details (progressive enhancement only). */
export const CONSOLE_JS = `"use strict";
document.querySelectorAll("button[data-copy]").forEach(function (button) {
  button.hidden = false;
  button.addEventListener("click", function () {
    var input = document.getElementById(button.getAttribute("data-copy"));
    if (!input) return;
    input.select();
    var done = function () { button.textContent = "Copied"; };
    if (navigator.clipboard) navigator.clipboard.writeText(input.value).then(done, function () {});
    else { document.execCommand("copy"); done(); }
  });
});
document.querySelectorAll("figure[data-chart]").forEach(function (figure) {
  var tip = figure.querySelector(".tip");
  figure.querySelectorAll("[data-tip]").forEach(function (bar) {
    bar.addEventListener("mouseenter", function () { tip.textContent = bar.getAttribute("data-tip"); });
  });
});
`;
