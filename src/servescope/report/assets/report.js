// servescope report: draws the charts whose Plotly specs the page carries in
// <script type="application/json"> blocks, and makes tables sortable.
// No network, no eval: everything comes from the page and assets/plotly.min.js.
"use strict";

function drawCharts() {
  document.querySelectorAll("script.chart-spec").forEach(function (spec) {
    var target = document.getElementById(spec.dataset.for);
    if (!target || typeof Plotly === "undefined") { return; }
    var figure = JSON.parse(spec.textContent);
    Plotly.newPlot(target, figure.data, figure.layout, { displaylogo: false, responsive: true });
  });
}

function sortKey(cell) {
  var raw = cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : cell.textContent.trim();
  if (raw === "" || raw === "\u2014") { return null; }
  var n = Number(raw.replace(/,/g, ""));
  return isNaN(n) ? raw.toLowerCase() : n;
}

function makeSortable(tableEl) {
  var heads = tableEl.tHead ? tableEl.tHead.rows[0].cells : [];
  Array.prototype.forEach.call(heads, function (th, col) {
    th.tabIndex = 0;
    th.title = "sort by this column";
    function sort() {
      var ascending = th.getAttribute("aria-sort") !== "ascending";
      Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
      var body = tableEl.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var ka = sortKey(a.cells[col]), kb = sortKey(b.cells[col]);
        if (ka === null && kb === null) { return 0; }
        if (ka === null) { return 1; }   // not measured sorts last either way
        if (kb === null) { return -1; }
        var c = (typeof ka === typeof kb) ? (ka < kb ? -1 : ka > kb ? 1 : 0) : String(ka).localeCompare(String(kb));
        return ascending ? c : -c;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    }
    th.addEventListener("click", sort);
    th.addEventListener("keydown", function (e) { if (e.key === "Enter") { sort(); } });
  });
}

document.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll("table.sortable").forEach(makeSortable);
  drawCharts();
});
